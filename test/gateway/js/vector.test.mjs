// Vector indexes through the SDK v3 low-level client: CreateTable with
// VectorIndexes, PutItem of items carrying embeddings, SearchVectorsCommand
// (results best first, the HASH search-schema condition, projection,
// ConsumedCapacity), UpdateTable's VectorIndexUpdates (a second index
// created CREATING, ACTIVE once the server's background worker has built
// it, then deleted) and the SDK's parsed ValidationException.  Skipped when
// the server answers that pgvector is not installed.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import {
    CreateTableCommand, DescribeTableCommand, PutItemCommand, UpdateTableCommand,
    SearchVectorsCommand, waitUntilTableExists,
} from "@aws-sdk/client-dynamodb";
import { newClient, tableName, dropTable } from "./lib/endpoint.mjs";

const client = newClient();
const T = tableName("vec");
const vec = (...xs) => xs.map((x) => ({ N: String(x) }));
let skipped = "";

describe("SDK v3 SearchVectorsCommand", () => {
    before(async () => {
        try {
            await client.send(new CreateTableCommand({
                TableName: T,
                BillingMode: "PAY_PER_REQUEST",
                AttributeDefinitions: [
                    { AttributeName: "id", AttributeType: "S" },
                    { AttributeName: "lang", AttributeType: "S" },
                ],
                KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
                VectorIndexes: [{
                    IndexName: "emb-idx",
                    VectorAttribute: { AttributeName: "emb" },
                    Dimensions: 3,
                    DistanceFunction: "COSINE",
                    SearchSchema: [{ AttributeName: "lang", SearchSchemaElementType: "HASH" }],
                    Projection: { ProjectionType: "INCLUDE", NonKeyAttributes: ["title"] },
                }],
            }));
        } catch (e) {
            if (e.name === "ValidationException" && /pgvector/.test(e.message)) {
                skipped = "pgvector is not installed on the server: vector tests skipped";
                return;
            }
            throw e;
        }
        await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 2 }, { TableName: T });
        const items = [
            ["a1", "en", "Tides", [0.9, 0.1, 0]],
            ["a2", "en", "Harbours", [0.7, 0.7, 0]],
            ["a3", "en", "Glaciers", [0, 0.2, 1]],
            ["a4", "de", "Gezeiten", [1, 0, 0]],
        ];
        for (const [id, lang, title, e] of items) {
            await client.send(new PutItemCommand({
                TableName: T,
                Item: { id: { S: id }, lang: { S: lang }, title: { S: title }, body: { S: "..." }, emb: { L: vec(...e) } },
            }));
        }
        await client.send(new PutItemCommand({ TableName: T, Item: { id: { S: "a5" }, lang: { S: "en" }, title: { S: "Draft" } } }));
    });

    after(async () => {
        await dropTable(client, T);
    });

    it("CreateTable's vector index is described ACTIVE", async (t) => {
        if (skipped) return t.skip(skipped);
        const out = await client.send(new DescribeTableCommand({ TableName: T }));
        const vi = out.Table.VectorIndexes;
        assert.equal(vi.length, 1);
        assert.equal(vi[0].IndexName, "emb-idx");
        assert.equal(vi[0].IndexStatus, "ACTIVE");
        assert.equal(vi[0].Dimensions, 3);
        assert.equal(vi[0].DistanceFunction, "COSINE");
        assert.equal(vi[0].ItemCount, 4);
    });

    it("SearchVectorsCommand: best first, HASH condition, projection, capacity", async (t) => {
        if (skipped) return t.skip(skipped);
        const out = await client.send(new SearchVectorsCommand({
            TableName: T,
            IndexName: "emb-idx",
            TopK: 2,
            SearchVector: vec(1, 0, 0),
            SearchConditionExpression: "#l = :l",
            ExpressionAttributeNames: { "#l": "lang" },
            ExpressionAttributeValues: { ":l": { S: "en" } },
            ProjectionExpression: "title",
            ReturnConsumedCapacity: "TOTAL",
        }));
        assert.deepEqual(out.SearchResults.map((r) => r.Item), [{ title: { S: "Tides" } }, { title: { S: "Harbours" } }]);
        assert.ok(Math.abs(out.SearchResults[0].Score - 0.0061162512) < 1e-6, `score ${out.SearchResults[0].Score}`);
        assert.ok(out.SearchResults[0].Score < out.SearchResults[1].Score);
        assert.equal(out.ConsumedCapacity.VectorSearchRequestBytes, 12);
    });

    it("SearchVectorsCommand without the HASH attribute: ValidationException", async (t) => {
        if (skipped) return t.skip(skipped);
        await assert.rejects(
            client.send(new SearchVectorsCommand({ TableName: T, IndexName: "emb-idx", TopK: 1, SearchVector: vec(1, 0, 0) })),
            (e) => e.name === "ValidationException" && /HASH attribute/.test(e.message),
        );
    });

    it("UpdateTable VectorIndexUpdates: Create, built by the server, then Delete", async (t) => {
        if (skipped) return t.skip(skipped);
        const created = await client.send(new UpdateTableCommand({
            TableName: T,
            VectorIndexUpdates: [{
                Create: {
                    IndexName: "emb-l2",
                    VectorAttribute: { AttributeName: "emb" },
                    Dimensions: 3,
                    DistanceFunction: "EUCLIDEAN",
                    Projection: { ProjectionType: "KEYS_ONLY" },
                },
            }],
        }));
        const made = created.TableDescription.VectorIndexes.find((v) => v.IndexName === "emb-l2");
        assert.equal(made.IndexStatus, "CREATING");
        let status = "CREATING";
        for (let i = 0; i < 120 && status !== "ACTIVE"; i++) {
            await new Promise((r) => setTimeout(r, 500));
            const d = await client.send(new DescribeTableCommand({ TableName: T }));
            status = d.Table.VectorIndexes.find((v) => v.IndexName === "emb-l2").IndexStatus;
        }
        assert.equal(status, "ACTIVE", "the new vector index is ACTIVE within 60 s");
        const out = await client.send(new SearchVectorsCommand({
            TableName: T, IndexName: "emb-l2", TopK: 1, SearchVector: vec(0, 0.2, 1),
        }));
        assert.deepEqual(out.SearchResults[0].Item, { id: { S: "a3" } });
        assert.equal(out.SearchResults[0].Score, 0);
        const deleted = await client.send(new UpdateTableCommand({
            TableName: T, VectorIndexUpdates: [{ Delete: { IndexName: "emb-l2" } }],
        }));
        assert.deepEqual(deleted.TableDescription.VectorIndexes.map((v) => v.IndexName), ["emb-idx"]);
    });
});
