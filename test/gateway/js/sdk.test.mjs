// The SDK v3 low-level client (@aws-sdk/client-dynamodb) against the
// endpoint: table lifecycle with the waiter, the item operations, the Query
// and Scan paginators, batches, and the two errors whose extra fields the SDK
// parses out of the body (TransactionCanceledException's CancellationReasons,
// ConditionalCheckFailedException's Item).
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import {
    CreateTableCommand, DescribeTableCommand, ListTablesCommand,
    PutItemCommand, GetItemCommand, UpdateItemCommand, DeleteItemCommand,
    QueryCommand, BatchWriteItemCommand, BatchGetItemCommand, TransactWriteItemsCommand,
    TransactGetItemsCommand,
    paginateQuery, paginateScan, paginateListTables, waitUntilTableExists,
    TransactionCanceledException, ConditionalCheckFailedException,
    ResourceNotFoundException, ResourceInUseException,
} from "@aws-sdk/client-dynamodb";
import { newClient, tableName, dropTable } from "./lib/endpoint.mjs";

const client = newClient();
const T = tableName("sdk");

const S = (s) => ({ S: s });
const N = (n) => ({ N: String(n) });
const key = (pk, sk) => ({ pk: S(pk), sk: S(sk) });

// Write items with BatchWriteItem, 25 at a time, sending back what comes back
// unprocessed until nothing does (as an application must).
async function batchPut(items) {
    for (let i = 0; i < items.length; i += 25) {
        let request = { [T]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) };
        for (let round = 0; Object.keys(request).length > 0; round++) {
            assert.ok(round < 10, "BatchWriteItem keeps returning UnprocessedItems");
            const out = await client.send(new BatchWriteItemCommand({ RequestItems: request }));
            request = out.UnprocessedItems || {};
        }
    }
}

describe("SDK v3 DynamoDBClient", () => {
    before(async () => {
        await client.send(new CreateTableCommand({
            TableName: T,
            BillingMode: "PAY_PER_REQUEST",
            AttributeDefinitions: [
                { AttributeName: "pk", AttributeType: "S" },
                { AttributeName: "sk", AttributeType: "S" },
                { AttributeName: "gpk", AttributeType: "S" },
                { AttributeName: "gsk", AttributeType: "N" },
            ],
            KeySchema: [
                { AttributeName: "pk", KeyType: "HASH" },
                { AttributeName: "sk", KeyType: "RANGE" },
            ],
            GlobalSecondaryIndexes: [{
                IndexName: "by_gpk",
                KeySchema: [
                    { AttributeName: "gpk", KeyType: "HASH" },
                    { AttributeName: "gsk", KeyType: "RANGE" },
                ],
                Projection: { ProjectionType: "ALL" },
            }],
        }));
        const waited = await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 2 }, { TableName: T });
        assert.equal(waited.state, "SUCCESS");
    });

    after(async () => {
        await dropTable(client, T);
        client.destroy();
    });

    it("DescribeTable and ListTables show the new table and its index", async () => {
        const { Table } = await client.send(new DescribeTableCommand({ TableName: T }));
        assert.equal(Table.TableName, T);
        assert.equal(Table.TableStatus, "ACTIVE");
        assert.deepEqual(Table.KeySchema, [
            { AttributeName: "pk", KeyType: "HASH" },
            { AttributeName: "sk", KeyType: "RANGE" },
        ]);
        assert.equal(Table.GlobalSecondaryIndexes.length, 1);
        assert.equal(Table.GlobalSecondaryIndexes[0].IndexName, "by_gpk");
        assert.equal(Table.GlobalSecondaryIndexes[0].IndexStatus, "ACTIVE");
        assert.ok(Table.CreationDateTime instanceof Date, "CreationDateTime is parsed into a Date");

        const names = [];
        for await (const page of paginateListTables({ client, pageSize: 2 }, {}))
            names.push(...page.TableNames);
        assert.ok(names.includes(T), `ListTables pages name ${T}`);
        const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        assert.deepEqual(names, sorted, "ListTables answers in ascending order");
    });

    it("CreateTable of an existing table is ResourceInUseException", async () => {
        await assert.rejects(
            client.send(new CreateTableCommand({
                TableName: T, BillingMode: "PAY_PER_REQUEST",
                AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
                KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
            })),
            (err) => err instanceof ResourceInUseException && err.$metadata.httpStatusCode === 400);
    });

    it("PutItem, GetItem, UpdateItem and DeleteItem", async () => {
        const item = {
            ...key("user#1", "profile"),
            name: S("Ada"), visits: N(1), tags: { SS: ["b", "a"] },
            address: { M: { city: S("Paris"), zip: S("75001") } },
        };
        const put = await client.send(new PutItemCommand({ TableName: T, Item: item, ReturnValues: "ALL_OLD" }));
        assert.equal(put.Attributes, undefined, "a new item has no old image");

        const got = await client.send(new GetItemCommand({ TableName: T, Key: key("user#1", "profile"), ConsistentRead: true }));
        assert.equal(got.Item.name.S, "Ada");
        assert.equal(got.Item.visits.N, "1");
        assert.deepEqual([...got.Item.tags.SS].sort(), ["a", "b"]);
        assert.equal(got.Item.address.M.city.S, "Paris");

        const projected = await client.send(new GetItemCommand({
            TableName: T, Key: key("user#1", "profile"),
            ProjectionExpression: "#n, address.city", ExpressionAttributeNames: { "#n": "name" },
        }));
        assert.deepEqual(projected.Item, { name: S("Ada"), address: { M: { city: S("Paris") } } });

        const upd = await client.send(new UpdateItemCommand({
            TableName: T, Key: key("user#1", "profile"),
            UpdateExpression: "SET address.city = :c, #n = :n ADD visits :one, tags :t REMOVE address.zip",
            ConditionExpression: "visits = :v",
            ExpressionAttributeNames: { "#n": "name" },
            ExpressionAttributeValues: { ":c": S("Lyon"), ":n": S("Ada L."), ":one": N(1), ":t": { SS: ["c"] }, ":v": N(1) },
            ReturnValues: "ALL_NEW",
        }));
        assert.equal(upd.Attributes.visits.N, "2");
        assert.equal(upd.Attributes.name.S, "Ada L.");
        assert.deepEqual(upd.Attributes.address, { M: { city: S("Lyon") } });
        assert.deepEqual([...upd.Attributes.tags.SS].sort(), ["a", "b", "c"]);

        const updOld = await client.send(new UpdateItemCommand({
            TableName: T, Key: key("user#1", "profile"),
            UpdateExpression: "SET visits = visits + :one",
            ExpressionAttributeValues: { ":one": N(1) },
            ReturnValues: "UPDATED_OLD",
        }));
        assert.deepEqual(updOld.Attributes, { visits: N(2) });

        const del = await client.send(new DeleteItemCommand({ TableName: T, Key: key("user#1", "profile"), ReturnValues: "ALL_OLD" }));
        assert.equal(del.Attributes.visits.N, "3");
        assert.equal(del.Attributes.name.S, "Ada L.");

        const gone = await client.send(new GetItemCommand({ TableName: T, Key: key("user#1", "profile"), ConsistentRead: true }));
        assert.equal(gone.Item, undefined, "GetItem of a deleted item has no Item");

        // Deleting a missing item succeeds and returns nothing.
        const again = await client.send(new DeleteItemCommand({ TableName: T, Key: key("user#1", "profile"), ReturnValues: "ALL_OLD" }));
        assert.equal(again.Attributes, undefined);
    });

    it("Query pages with paginateQuery, in sort key order, both directions and on the index", async () => {
        const items = [];
        for (let i = 0; i < 23; i++) {
            const sk = `ev#${String(i).padStart(3, "0")}`;
            items.push({ ...key("feed#q", sk), gpk: S("odd-or-even#" + (i % 2)), gsk: N(100 - i), n: N(i) });
        }
        // another partition that must not show up
        items.push({ ...key("feed#other", "ev#000"), n: N(-1) });
        await batchPut(items);

        const pages = [];
        for await (const page of paginateQuery({ client, pageSize: 5 }, {
            TableName: T, KeyConditionExpression: "pk = :p AND begins_with(sk, :e)",
            ExpressionAttributeValues: { ":p": S("feed#q"), ":e": S("ev#") },
            ConsistentRead: true,
        }))
            pages.push(page);
        assert.equal(pages.length >= 5, true, `23 items at 5 per page take at least 5 pages (got ${pages.length})`);
        for (const p of pages.slice(0, 4))
            assert.equal(p.Count, 5);
        const ns = pages.flatMap((p) => p.Items.map((it) => Number(it.n.N)));
        assert.deepEqual(ns, [...Array(23).keys()], "every item once, ascending by sort key");

        const desc = [];
        for await (const page of paginateQuery({ client, pageSize: 10 }, {
            TableName: T, KeyConditionExpression: "pk = :p AND sk BETWEEN :a AND :b",
            ExpressionAttributeValues: { ":p": S("feed#q"), ":a": S("ev#005"), ":b": S("ev#016") },
            ScanIndexForward: false,
        }))
            desc.push(...page.Items.map((it) => Number(it.n.N)));
        assert.deepEqual(desc, [16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5]);

        // On the GSI: odd items, gsk descending from 99; Limit pages there too.
        const onIndex = [];
        let lastKey;
        let calls = 0;
        do {
            const out = await client.send(new QueryCommand({
                TableName: T, IndexName: "by_gpk", Limit: 4,
                KeyConditionExpression: "gpk = :g AND gsk > :min",
                ExpressionAttributeValues: { ":g": S("odd-or-even#1"), ":min": N(80) },
                ExclusiveStartKey: lastKey,
            }));
            calls++;
            onIndex.push(...out.Items.map((it) => Number(it.gsk.N)));
            lastKey = out.LastEvaluatedKey;
            if (lastKey)
                assert.deepEqual(Object.keys(lastKey).sort(), ["gpk", "gsk", "pk", "sk"], "an index page key holds index and table keys");
        } while (lastKey);
        assert.deepEqual(onIndex, [81, 83, 85, 87, 89, 91, 93, 95, 97, 99]);
        assert.ok(calls >= 3);

        const counted = await client.send(new QueryCommand({
            TableName: T, Select: "COUNT",
            KeyConditionExpression: "pk = :p", FilterExpression: "n >= :ten",
            ExpressionAttributeValues: { ":p": S("feed#q"), ":ten": N(10) },
        }));
        assert.equal(counted.Count, 13);
        assert.equal(counted.ScannedCount, 23);
        assert.equal(counted.Items, undefined);
    });

    it("Scan pages with paginateScan and sees every item once", async () => {
        const seen = new Map();
        let pages = 0;
        for await (const page of paginateScan({ client, pageSize: 6 }, { TableName: T, ConsistentRead: true })) {
            pages++;
            for (const it of page.Items) {
                const k = `${it.pk.S}|${it.sk.S}`;
                assert.ok(!seen.has(k), `Scan returned ${k} twice`);
                seen.set(k, it);
            }
        }
        assert.ok(pages >= 4, `24 items at 6 per page take at least 4 pages (got ${pages})`);
        assert.equal(seen.size, 24);
        assert.equal(seen.get("feed#other|ev#000").n.N, "-1");
    });

    it("BatchWriteItem and BatchGetItem, with unprocessed keys sent again", async () => {
        const items = [];
        for (let i = 0; i < 40; i++)
            items.push({ ...key(`batch#${i % 4}`, `item#${i}`), i: N(i), blob: { B: Uint8Array.from([i, 255 - i, 0]) } });
        await batchPut(items);

        // 40 keys and one missing, 100 at most per call; UnprocessedKeys sent again.
        const keys = items.map((it) => ({ pk: it.pk, sk: it.sk }));
        keys.push(key("batch#0", "missing"));
        let request = { [T]: { Keys: keys, ConsistentRead: true } };
        const got = [];
        for (let round = 0; Object.keys(request).length > 0; round++) {
            assert.ok(round < 10, "BatchGetItem keeps returning UnprocessedKeys");
            const out = await client.send(new BatchGetItemCommand({ RequestItems: request }));
            got.push(...(out.Responses[T] || []));
            request = out.UnprocessedKeys || {};
        }
        assert.equal(got.length, 40);
        const byI = got.map((it) => Number(it.i.N)).sort((a, b) => a - b);
        assert.deepEqual(byI, [...Array(40).keys()]);
        const seven = got.find((it) => it.i.N === "7");
        assert.ok(seven.blob.B instanceof Uint8Array);
        assert.deepEqual([...seven.blob.B], [7, 248, 0]);

        // Deletes and puts mixed in one batch.
        const out = await client.send(new BatchWriteItemCommand({ RequestItems: { [T]: [
            { DeleteRequest: { Key: key("batch#0", "item#0") } },
            { DeleteRequest: { Key: key("batch#1", "item#1") } },
            { PutRequest: { Item: { ...key("batch#0", "item#100"), i: N(100) } } },
        ] } }));
        assert.deepEqual(out.UnprocessedItems || {}, {});
        const q = await client.send(new QueryCommand({
            TableName: T, KeyConditionExpression: "pk = :p", ConsistentRead: true,
            ExpressionAttributeValues: { ":p": S("batch#0") }, ProjectionExpression: "i",
        }));
        assert.deepEqual(q.Items.map((it) => Number(it.i.N)).sort((a, b) => a - b),
            [4, 8, 12, 16, 20, 24, 28, 32, 36, 100]);
    });

    it("TransactWriteItems commits all or nothing; a cancellation carries CancellationReasons", async () => {
        await client.send(new TransactWriteItemsCommand({ TransactItems: [
            { Put: { TableName: T, Item: { ...key("acct#a", "balance"), amount: N(100) }, ConditionExpression: "attribute_not_exists(pk)" } },
            { Put: { TableName: T, Item: { ...key("acct#b", "balance"), amount: N(0) } } },
            { Put: { TableName: T, Item: { ...key("bank", "status"), open: { BOOL: true } } } },
        ] }));

        const transfer = (amount) => new TransactWriteItemsCommand({ TransactItems: [
            { Update: { TableName: T, Key: key("acct#a", "balance"), UpdateExpression: "SET amount = amount - :x",
                ConditionExpression: "amount >= :x", ExpressionAttributeValues: { ":x": N(amount) } } },
            { Update: { TableName: T, Key: key("acct#b", "balance"), UpdateExpression: "SET amount = amount + :x",
                ExpressionAttributeValues: { ":x": N(amount) } } },
            { ConditionCheck: { TableName: T, Key: key("bank", "status"), ConditionExpression: "#o = :t",
                ExpressionAttributeNames: { "#o": "open" }, ExpressionAttributeValues: { ":t": { BOOL: true } } } },
        ] });

        await client.send(transfer(60));

        let caught;
        try {
            await client.send(transfer(60));
        } catch (err) {
            caught = err;
        }
        assert.ok(caught instanceof TransactionCanceledException, `expected TransactionCanceledException, got ${caught && caught.name}`);
        assert.equal(caught.name, "TransactionCanceledException");
        assert.equal(caught.$metadata.httpStatusCode, 400);
        assert.match(caught.message, /Transaction cancelled, please refer cancellation reasons for specific reasons \[ConditionalCheckFailed, None, None\]/);
        assert.ok(Array.isArray(caught.CancellationReasons), "the SDK exposes CancellationReasons");
        assert.deepEqual(caught.CancellationReasons.map((r) => r.Code), ["ConditionalCheckFailed", "None", "None"]);

        const balances = await client.send(new TransactGetItemsCommand({ TransactItems: [
            { Get: { TableName: T, Key: key("acct#a", "balance") } },
            { Get: { TableName: T, Key: key("acct#b", "balance") } },
        ] }));
        assert.deepEqual(balances.Responses.map((r) => r.Item.amount.N), ["40", "60"], "the cancelled transfer changed nothing");

        // ReturnValuesOnConditionCheckFailure in a transaction: the reason carries the item.
        try {
            await client.send(new TransactWriteItemsCommand({ TransactItems: [
                { Put: { TableName: T, Item: { ...key("acct#a", "balance"), amount: N(0) },
                    ConditionExpression: "attribute_not_exists(pk)", ReturnValuesOnConditionCheckFailure: "ALL_OLD" } },
            ] }));
            assert.fail("the transaction should have been cancelled");
        } catch (err) {
            assert.ok(err instanceof TransactionCanceledException, `got ${err.name}`);
            assert.equal(err.CancellationReasons.length, 1);
            assert.equal(err.CancellationReasons[0].Code, "ConditionalCheckFailed");
            assert.equal(err.CancellationReasons[0].Item.amount.N, "40");
        }
    });

    it("ConditionalCheckFailedException carries the Item with ReturnValuesOnConditionCheckFailure=ALL_OLD", async () => {
        await client.send(new PutItemCommand({ TableName: T, Item: { ...key("lock#1", "owner"), owner: S("worker-a"), version: N(7) } }));

        let caught;
        try {
            await client.send(new PutItemCommand({
                TableName: T, Item: { ...key("lock#1", "owner"), owner: S("worker-b"), version: N(1) },
                ConditionExpression: "attribute_not_exists(pk)",
                ReturnValuesOnConditionCheckFailure: "ALL_OLD",
            }));
        } catch (err) {
            caught = err;
        }
        assert.ok(caught instanceof ConditionalCheckFailedException, `expected ConditionalCheckFailedException, got ${caught && caught.name}`);
        assert.equal(caught.$metadata.httpStatusCode, 400);
        assert.equal(caught.message, "The conditional request failed");
        assert.deepEqual(caught.Item, { ...key("lock#1", "owner"), owner: S("worker-a"), version: N(7) });

        // Without it, the exception has no Item; and the item is unchanged.
        const plain = await client.send(new UpdateItemCommand({
            TableName: T, Key: key("lock#1", "owner"), UpdateExpression: "SET #o = :b",
            ConditionExpression: "version = :v", ExpressionAttributeNames: { "#o": "owner" },
            ExpressionAttributeValues: { ":b": S("worker-b"), ":v": N(8) },
        })).then(() => null, (err) => err);
        assert.ok(plain instanceof ConditionalCheckFailedException, `got ${plain && plain.name}: ${plain && plain.message}`);
        assert.equal(plain.Item, undefined);
        const got = await client.send(new GetItemCommand({ TableName: T, Key: key("lock#1", "owner"), ConsistentRead: true }));
        assert.equal(got.Item.owner.S, "worker-a");
    });

    it("errors the SDK maps to its exception classes: unknown table, bad key", async () => {
        await assert.rejects(
            client.send(new GetItemCommand({ TableName: `${T}_nope`, Key: key("a", "b") })),
            (err) => err instanceof ResourceNotFoundException && err.$metadata.httpStatusCode === 400);
        await assert.rejects(
            client.send(new GetItemCommand({ TableName: T, Key: { pk: S("only the partition key") } })),
            (err) => err.name === "ValidationException" && /key/i.test(err.message));
        await assert.rejects(
            client.send(new QueryCommand({ TableName: T, KeyConditionExpression: "pk = :p AND", ExpressionAttributeValues: { ":p": S("x") } })),
            (err) => err.name === "ValidationException" && /Invalid KeyConditionExpression/.test(err.message));
    });

    it("ListTables with Limit pages with LastEvaluatedTableName", async () => {
        const first = await client.send(new ListTablesCommand({ Limit: 1 }));
        assert.equal(first.TableNames.length, 1);
        if (first.LastEvaluatedTableName !== undefined)
            assert.equal(first.LastEvaluatedTableName, first.TableNames[0]);
    });
});
