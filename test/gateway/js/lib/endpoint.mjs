// Where the tests send their requests, and names unique to one run.
//
// run.sh passes the endpoint and the credentials in the environment
// (IT_DDB_ENDPOINT, IT_DDB_ACCESS_KEY_ID, IT_DDB_SECRET_ACCESS_KEY).  The
// clients are the SDK's own, configured only with an endpoint, a region and
// static credentials: nothing here knows which server answers.
import { randomBytes } from "node:crypto";
import { DynamoDBClient, DeleteTableCommand, waitUntilTableNotExists } from "@aws-sdk/client-dynamodb";

export function clientConfig() {
    const endpoint = process.env.IT_DDB_ENDPOINT;
    if (!endpoint)
        throw new Error("IT_DDB_ENDPOINT is not set (run the tests with run.sh)");
    return {
        endpoint,
        region: "us-east-1",
        credentials: {
            accessKeyId: process.env.IT_DDB_ACCESS_KEY_ID || "AKIDEXAMPLE",
            secretAccessKey: process.env.IT_DDB_SECRET_ACCESS_KEY || "secret",
        },
        // A failing server should fail the test, not be retried into a timeout.
        maxAttempts: 2,
    };
}

export function newClient() {
    return new DynamoDBClient(clientConfig());
}

// A table name no other run (nor another file of this run) uses.
export function tableName(label) {
    const run = process.env.IT_DDB_RUN_ID || randomBytes(4).toString("hex");
    return `js_${run}_${label}_${randomBytes(3).toString("hex")}`;
}

// Delete a table if it exists and wait until it is gone (errors ignored:
// the test that made it has already reported what went wrong).
export async function dropTable(client, name) {
    try {
        await client.send(new DeleteTableCommand({ TableName: name }));
        await waitUntilTableNotExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 2 }, { TableName: name });
    } catch {
        // already gone, or never made
    }
}
