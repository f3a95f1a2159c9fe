// item_table_local used the way @shelf/jest-dynamodb-style setups use
// DynamoDB Local: the global setup starts it (-port, -inMemory, -sharedDb,
// as those setups pass them to DynamoDB Local's jar) and waits for it, the
// tests talk to it with made-up credentials through the DocumentClient, and
// the teardown stops it, leaving nothing behind.
//
// The program is $IT_LOCAL_BIN, else item_table_local in `$PG_CONFIG
// --bindir` (scripts/test.sh exports PG_CONFIG); the tests are skipped when
// neither names one (run.sh pointed at another endpoint).
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, chmodSync, rmSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DynamoDBClient, CreateTableCommand, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, PutCommand, GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";

function localBin() {
    if (process.env.IT_LOCAL_BIN) return process.env.IT_LOCAL_BIN;
    if (!process.env.PG_CONFIG) return null;
    const bindir = execFileSync(process.env.PG_CONFIG, ["--bindir"], { encoding: "utf8" }).trim();
    return join(bindir, "item_table_local");
}

const BIN = localBin();

// The global setup: start it and wait for its ready line.
function startLocal(args, cwd) {
    return new Promise((resolve, reject) => {
        const child = spawn(BIN, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
        let out = "", err = "";
        const timer = setTimeout(() => reject(new Error("no ready line in 60 s: " + err)), 60000);
        child.stdout.on("data", (d) => {
            out += d;
            const m = /^item_table_local: listening on (http:\/\/\S+) \(data in ([^;,]+)/m.exec(out);
            if (m) {
                clearTimeout(timer);
                resolve({ child, endpoint: m[1], dataDir: m[2] });
            }
        });
        child.stderr.on("data", (d) => { err += d; });
        child.on("exit", (code) => {
            clearTimeout(timer);
            reject(new Error(`item_table_local exited with ${code}: ${err}`));
        });
    });
}

// The global teardown: SIGTERM, and its exit status.
function stopLocal(child) {
    return new Promise((resolve) => {
        child.removeAllListeners("exit");
        child.on("exit", (code, signal) => resolve(code ?? signal));
        child.kill("SIGTERM");
    });
}

describe("item_table_local as a test suite's DynamoDB Local", { skip: BIN ? false : "no item_table_local to start (set IT_LOCAL_BIN or PG_CONFIG)" }, () => {
    let local, cwd, doc;

    before(async () => {
        assert.ok(existsSync(BIN), `${BIN} is not installed`);
        cwd = mkdtempSync(join(tmpdir(), "it_local_js_"));
        chmodSync(cwd, 0o755);
        local = await startLocal(["-port", "0", "-inMemory", "-sharedDb"], cwd);
        const client = new DynamoDBClient({
            endpoint: local.endpoint,
            region: "local",
            credentials: { accessKeyId: "fakeMyKeyId", secretAccessKey: "fakeSecretAccessKey" },
        });
        doc = DynamoDBDocumentClient.from(client);
        await client.send(new CreateTableCommand({
            TableName: "files",
            AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" },
                                   { AttributeName: "version", AttributeType: "N" }],
            KeySchema: [{ AttributeName: "id", KeyType: "HASH" },
                        { AttributeName: "version", KeyType: "RANGE" }],
            ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
        }));
    });

    after(async () => {
        if (local) {
            const status = await stopLocal(local.child);
            assert.equal(status, 0, "item_table_local stops with status 0 on SIGTERM");
            assert.ok(!existsSync(local.dataDir), `-inMemory left ${local.dataDir} behind`);
            assert.deepEqual(readdirSync(cwd), [], "nothing is written where it was started");
        }
        if (cwd) rmSync(cwd, { recursive: true, force: true });
    });

    it("answers with the table the setup made", async () => {
        const out = await doc.send(new ListTablesCommand({}));
        assert.deepEqual(out.TableNames, ["files"]);
    });

    it("stores and reads items through the DocumentClient", async () => {
        await doc.send(new PutCommand({ TableName: "files", Item: { id: "a.txt", version: 1, size: 10 } }));
        await doc.send(new PutCommand({ TableName: "files", Item: { id: "a.txt", version: 2, size: 12 } }));
        const got = await doc.send(new GetCommand({ TableName: "files", Key: { id: "a.txt", version: 2 } }));
        assert.deepEqual(got.Item, { id: "a.txt", version: 2, size: 12 });
        const q = await doc.send(new QueryCommand({
            TableName: "files", KeyConditionExpression: "id = :id",
            ExpressionAttributeValues: { ":id": "a.txt" }, ScanIndexForward: false,
        }));
        assert.deepEqual(q.Items.map((i) => i.version), [2, 1]);
    });
});
