// Load the benchmark's data into a DynamoDB endpoint through its API (for
// dynalite; the PostgreSQL side loads the same items with SQL, from
// bench/workloads/get_item/setup.sql and query10/setup.sql).
//
//   node load.mjs ENDPOINT-URL SCALE
//
// Tables "bench" (pk S; SCALE items USER#1..SCALE) and "qbench" (pk S, sk S;
// SCALE items: half in collections of 10 (P10#n), half in collections of 100
// (P100#n), sort keys ITEM#0000..), the items as the setup scripts make them.
// Plain HTTP with Node's fetch: the request is signed with a dummy signature,
// which an emulator accepts.
const [endpoint, scaleArg] = process.argv.slice(2);
const scale = Number(scaleArg);
if (!endpoint || !Number.isInteger(scale) || scale < 20) {
    console.error("usage: node load.mjs ENDPOINT-URL SCALE (SCALE >= 20)");
    process.exit(2);
}

const amzDate = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
async function call(action, body) {
    for (let attempt = 0; ; attempt++) {
        const res = await fetch(endpoint, {
            method: "POST",
            headers: {
                "Content-Type": "application/x-amz-json-1.0",
                "X-Amz-Target": `DynamoDB_20120810.${action}`,
                "X-Amz-Date": amzDate,
                Authorization: `AWS4-HMAC-SHA256 Credential=bench/${amzDate.slice(0, 8)}/us-east-1/dynamodb/aws4_request, ` +
                    "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=" + "0".repeat(64),
            },
            body: JSON.stringify(body),
        });
        const text = await res.text();
        if (res.ok)
            return JSON.parse(text);
        if (res.status >= 500 && attempt < 5)
            continue;
        throw new Error(`${action}: HTTP ${res.status} ${text}`);
    }
}

function item(pk, g, sk) {
    const it = {
        pk: { S: pk },
        name: { S: `user number ${g}` },
        email: { S: `user${g}@example.com` },
        n: { N: "0" },
        score: { N: `${g % 1000}.5` },
        tags: { SS: ["a", "b", `tag${g % 10}`] },
        address: { M: { street: { S: `${g} Main Street` }, city: { S: "Springfield" } } },
    };
    if (sk !== undefined)
        it.sk = { S: sk };
    return it;
}

function* benchItems() {
    for (let g = 1; g <= scale; g++)
        yield item(`USER#${g}`, g);
}

function* qbenchItems() {
    const half = Math.floor(scale / 2);
    for (let g = 0; g < scale; g++) {
        const small = g < half;
        const pk = small ? `P10#${Math.floor(g / 10)}` : `P100#${Math.floor((g - half) / 100)}`;
        const sk = `ITEM#${String(small ? g % 10 : (g - half) % 100).padStart(4, "0")}`;
        yield item(pk, g, sk);
    }
}

async function createTable(name, withSortKey) {
    const attrs = [{ AttributeName: "pk", AttributeType: "S" }];
    const keys = [{ AttributeName: "pk", KeyType: "HASH" }];
    if (withSortKey) {
        attrs.push({ AttributeName: "sk", AttributeType: "S" });
        keys.push({ AttributeName: "sk", KeyType: "RANGE" });
    }
    await call("CreateTable", { TableName: name, BillingMode: "PAY_PER_REQUEST", AttributeDefinitions: attrs, KeySchema: keys });
    for (let i = 0; i < 300; i++) {
        const { Table } = await call("DescribeTable", { TableName: name });
        if (Table.TableStatus === "ACTIVE")
            return;
        await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`table ${name} did not become ACTIVE`);
}

async function load(name, items, concurrency = 8) {
    const iterator = items[Symbol.iterator]();
    let done = false;
    let count = 0;
    async function worker() {
        while (!done) {
            const batch = [];
            while (batch.length < 25) {
                const next = iterator.next();
                if (next.done) {
                    done = true;
                    break;
                }
                batch.push({ PutRequest: { Item: next.value } });
            }
            let request = batch.length ? { [name]: batch } : {};
            while (Object.keys(request).length > 0) {
                const out = await call("BatchWriteItem", { RequestItems: request });
                request = out.UnprocessedItems || {};
            }
            count += batch.length;
        }
    }
    await Promise.all(Array.from({ length: concurrency }, worker));
    return count;
}

const t0 = Date.now();
await createTable("bench", false);
await createTable("qbench", true);
const n1 = await load("bench", benchItems());
const n2 = await load("qbench", qbenchItems());
console.log(`loaded ${n1} items into bench and ${n2} into qbench in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
