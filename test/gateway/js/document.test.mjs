// lib-dynamodb's DynamoDBDocumentClient: native JavaScript values go in,
// the same values come back (numbers, sets, maps, lists, binary, null,
// booleans), through every marshalling path the library has (Put/Get,
// Update with values, Query pages, batches, transactions).
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { CreateTableCommand, waitUntilTableExists } from "@aws-sdk/client-dynamodb";
import {
    DynamoDBDocumentClient, PutCommand, GetCommand, UpdateCommand, QueryCommand,
    BatchWriteCommand, BatchGetCommand, TransactWriteCommand, paginateQuery, NumberValue,
} from "@aws-sdk/lib-dynamodb";
import { newClient, tableName, dropTable } from "./lib/endpoint.mjs";

const client = newClient();
const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
});
const T = tableName("doc");

const bytes = (...b) => Uint8Array.from(b);

describe("lib-dynamodb DocumentClient", () => {
    before(async () => {
        await client.send(new CreateTableCommand({
            TableName: T,
            BillingMode: "PAY_PER_REQUEST",
            AttributeDefinitions: [
                { AttributeName: "id", AttributeType: "S" },
                { AttributeName: "seq", AttributeType: "N" },
            ],
            KeySchema: [
                { AttributeName: "id", KeyType: "HASH" },
                { AttributeName: "seq", KeyType: "RANGE" },
            ],
        }));
        await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 2 }, { TableName: T });
    });

    after(async () => {
        await dropTable(client, T);
        doc.destroy();
    });

    it("round-trips numbers, strings, sets, maps, lists, binary, null and booleans", async () => {
        const item = {
            id: "values",
            seq: 1,
            int: 42,
            negative: -17,
            float: 3.25,
            small: 1e-7,
            big: 12345678901234,
            zero: 0,
            text: "héllo, wörld ✓",
            empty: "",
            yes: true,
            no: false,
            nothing: null,
            strings: new Set(["b", "a", "c"]),
            numbers: new Set([3, 1.5, -2]),
            blobs: new Set([bytes(1, 2), bytes(255)]),
            blob: bytes(0, 1, 2, 253, 254, 255),
            emptyBlob: bytes(),
            list: [1, "two", [3, { four: 4 }], null, true, bytes(5)],
            emptyList: [],
            map: { nested: { deeper: { deepest: [1, 2, 3] } }, "key with spaces": "ok" },
            emptyMap: {},
        };
        await doc.send(new PutCommand({ TableName: T, Item: item }));
        const { Item } = await doc.send(new GetCommand({ TableName: T, Key: { id: "values", seq: 1 }, ConsistentRead: true }));
        // Binary comes back as Uint8Array, sets as Set: deepStrictEqual
        // compares both by content.
        assert.deepEqual(Item, item);
        assert.ok(Item.strings instanceof Set);
        assert.ok(Item.blob instanceof Uint8Array);
    });

    it("keeps numbers a double cannot hold, as NumberValue, when asked to", async () => {
        // (a DocumentClient keeps its options in the config of the client it
        // wraps, so this one gets a client of its own)
        const precise = DynamoDBDocumentClient.from(newClient(), {
            marshallOptions: { allowImpreciseNumbers: false },
            unmarshallOptions: { wrapNumbers: true },
        });
        const big = "12345678901234567890123456789012345678";  // 38 digits
        const tiny = "0.000000000000000000000000000000000001";
        await precise.send(new PutCommand({
            TableName: T,
            Item: { id: "precise", seq: 1, big: NumberValue.from(big), tiny: NumberValue.from(tiny), neg: NumberValue.from("-9007199254740993") },
        }));
        const { Item } = await precise.send(new GetCommand({ TableName: T, Key: { id: "precise", seq: 1 }, ConsistentRead: true }));
        assert.ok(Item.big instanceof NumberValue);
        assert.equal(Item.big.toString(), big);
        assert.equal(Item.neg.toString(), "-9007199254740993");
        // numbers come back in DynamoDB's canonical form: plain decimal
        assert.equal(Item.tiny.toString(), tiny);

        // Without wrapNumbers, integers past 2^53 come back as exact BigInts.
        const plain = await doc.send(new GetCommand({ TableName: T, Key: { id: "precise", seq: 1 }, ProjectionExpression: "big, neg" }));
        assert.deepEqual(plain.Item, { big: BigInt(big), neg: -9007199254740993n });
        precise.destroy();
    });

    it("UpdateCommand with native values: ADD to a number set, SET in a map, list_append", async () => {
        await doc.send(new PutCommand({ TableName: T, Item: { id: "upd", seq: 1, counts: new Set([1, 2]), prefs: { theme: "dark" }, history: ["a"] } }));
        const { Attributes } = await doc.send(new UpdateCommand({
            TableName: T, Key: { id: "upd", seq: 1 },
            UpdateExpression: "ADD counts :c SET prefs.#l = :lang, history = list_append(history, :more), visits = if_not_exists(visits, :zero) + :one",
            ExpressionAttributeNames: { "#l": "language" },
            ExpressionAttributeValues: { ":c": new Set([2, 3]), ":lang": "fr", ":more": ["b", { c: bytes(9) }], ":zero": 0, ":one": 1 },
            ReturnValues: "ALL_NEW",
        }));
        assert.deepEqual(Attributes, {
            id: "upd", seq: 1, counts: new Set([1, 2, 3]), prefs: { theme: "dark", language: "fr" },
            history: ["a", "b", { c: bytes(9) }], visits: 1,
        });
    });

    it("Query pages through the DocumentClient paginator with native keys", async () => {
        const rows = [];
        for (let seq = 1; seq <= 30; seq++)
            rows.push({ id: "series", seq, even: seq % 2 === 0, tag: `t${seq % 3}` });
        for (let i = 0; i < rows.length; i += 25) {
            let req = { [T]: rows.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) };
            while (Object.keys(req).length > 0) {
                const out = await doc.send(new BatchWriteCommand({ RequestItems: req }));
                req = out.UnprocessedItems || {};
            }
        }
        const seen = [];
        let pages = 0;
        for await (const page of paginateQuery({ client: doc, pageSize: 8 }, {
            TableName: T, KeyConditionExpression: "id = :id AND seq > :from",
            FilterExpression: "even = :t", ExpressionAttributeValues: { ":id": "series", ":from": 10, ":t": true },
            ScanIndexForward: false, ConsistentRead: true,
        })) {
            pages++;
            seen.push(...page.Items.map((r) => r.seq));
            if (page.LastEvaluatedKey)
                assert.equal(typeof page.LastEvaluatedKey.seq, "number", "page keys come back unmarshalled");
        }
        assert.ok(pages >= 3, `20 items read at 8 per page take 3 pages (got ${pages})`);
        assert.deepEqual(seen, [30, 28, 26, 24, 22, 20, 18, 16, 14, 12]);

        const keys = [5, 6, 7, 99].map((seq) => ({ id: "series", seq }));
        let req = { [T]: { Keys: keys, ProjectionExpression: "seq, tag" } };
        const got = [];
        while (Object.keys(req).length > 0) {
            const out = await doc.send(new BatchGetCommand({ RequestItems: req }));
            got.push(...out.Responses[T]);
            req = out.UnprocessedKeys || {};
        }
        assert.deepEqual(got.sort((a, b) => a.seq - b.seq), [{ seq: 5, tag: "t2" }, { seq: 6, tag: "t0" }, { seq: 7, tag: "t1" }]);
    });

    it("TransactWriteCommand with native values", async () => {
        await doc.send(new TransactWriteCommand({ TransactItems: [
            { Put: { TableName: T, Item: { id: "tx", seq: 1, owner: "x", labels: new Set(["l1"]) }, ConditionExpression: "attribute_not_exists(id)" } },
            { Update: { TableName: T, Key: { id: "tx", seq: 2 }, UpdateExpression: "SET v = :v", ExpressionAttributeValues: { ":v": { a: [1, 2] } } } },
        ] }));
        const res = await doc.send(new QueryCommand({
            TableName: T, KeyConditionExpression: "id = :id", ExpressionAttributeValues: { ":id": "tx" }, ConsistentRead: true,
        }));
        assert.deepEqual(res.Items, [
            { id: "tx", seq: 1, owner: "x", labels: new Set(["l1"]) },
            { id: "tx", seq: 2, v: { a: [1, 2] } },
        ]);
        await assert.rejects(doc.send(new TransactWriteCommand({ TransactItems: [
            { Put: { TableName: T, Item: { id: "tx", seq: 1 }, ConditionExpression: "attribute_not_exists(id)" } },
        ] })), (err) => err.name === "TransactionCanceledException" && err.CancellationReasons[0].Code === "ConditionalCheckFailed");
    });
});
