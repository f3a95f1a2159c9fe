"""Vector indexes through the gateway: CreateTable with VectorIndexes and
PutItem through boto3 (which passes the member on), SearchVectors as raw
signed JSON (boto3's model may not have it yet): results best first, the
HASH condition, projection, ConsumedCapacity (a write's
VectorWriteRequestBytes too), and DynamoDB's error body.
Skipped when pgvector is not installed."""
import json

import botocore.auth
import botocore.awsrequest
import botocore.credentials
import pytest

from conftest import psql, unique
from test_api import raw_post


def signed(key_id, secret, url, target, body):
    req = botocore.awsrequest.AWSRequest(method="POST", url=url, data=body,
                                         headers={"X-Amz-Target": target,
                                                  "Content-Type": "application/x-amz-json-1.0"})
    botocore.auth.SigV4Auth(botocore.credentials.Credentials(key_id, secret), "dynamodb",
                            "us-east-1").add_auth(req)
    return dict(req.headers.items())


def call(endpoint, app_key, action, request):
    body = json.dumps(request).encode()
    resp, data = raw_post(endpoint, None, body, signed(*app_key, endpoint + "/", "DynamoDB_20120810." + action, body))
    return resp.status, json.loads(data)


@pytest.fixture(scope="module")
def vector_ready():
    if psql("SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'") != "1":
        pytest.skip("pgvector is not installed: vector index tests skipped")
    psql("CREATE EXTENSION IF NOT EXISTS vector")


def vec(*xs):
    return {"L": [{"N": str(x)} for x in xs]}


def test_search_vectors(endpoint, app_key, vector_ready):
    name = unique("gw_vec")
    status, body = call(endpoint, app_key, "CreateTable", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"},
                                 {"AttributeName": "cat", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "VectorIndexes": [{"IndexName": "emb-idx", "VectorAttribute": {"AttributeName": "emb"},
                           "Dimensions": 2, "DistanceFunction": "EUCLIDEAN",
                           "SearchSchema": [{"AttributeName": "cat", "SearchSchemaElementType": "HASH"}],
                           "Projection": {"ProjectionType": "ALL"}}]})
    assert status == 200, body
    assert body["TableDescription"]["VectorIndexes"][0]["IndexStatus"] == "ACTIVE"
    for i, (x, y, cat) in enumerate([(0, 0, "a"), (1, 0, "a"), (5, 5, "a"), (0.5, 0, "b")]):
        status, body = call(endpoint, app_key, "PutItem", {
            "TableName": name, "Item": {"id": {"S": f"i{i}"}, "cat": {"S": cat}, "emb": vec(x, y)},
            "ReturnConsumedCapacity": "TOTAL"})
        assert status == 200, body
        # the write's vector: 4 bytes a dimension
        assert body["ConsumedCapacity"]["VectorIndexes"] == {"emb-idx": {"VectorWriteRequestBytes": 8}}
    status, body = call(endpoint, app_key, "SearchVectors", {
        "TableName": name, "IndexName": "emb-idx", "TopK": 2, "SearchVector": [{"N": "0.9"}, {"N": "0"}],
        "SearchConditionExpression": "cat = :c", "ExpressionAttributeValues": {":c": {"S": "a"}},
        "ProjectionExpression": "id", "ReturnConsumedCapacity": "TOTAL"})
    assert status == 200, body
    assert [r["Item"] for r in body["SearchResults"]] == [{"id": {"S": "i1"}}, {"id": {"S": "i0"}}]
    assert body["SearchResults"][0]["Score"] == pytest.approx(0.1, abs=1e-6)
    assert body["SearchResults"][1]["Score"] == pytest.approx(0.9, abs=1e-6)
    assert body["ConsumedCapacity"] == {"VectorSearchRequestBytes": 8}
    # the HASH attribute is required: DynamoDB's error body
    status, body = call(endpoint, app_key, "SearchVectors", {
        "TableName": name, "IndexName": "emb-idx", "TopK": 2, "SearchVector": [{"N": "0.9"}, {"N": "0"}]})
    assert status == 400
    assert body["__type"] == "com.amazon.coral.validate#ValidationException"
    assert "HASH attribute" in body["message"]
    # DescribeTable shows the index with its item count
    status, body = call(endpoint, app_key, "DescribeTable", {"TableName": name})
    assert body["Table"]["VectorIndexes"][0]["ItemCount"] == 4
    status, body = call(endpoint, app_key, "DeleteTable", {"TableName": name})
    assert status == 200, body


def test_search_vectors_unknown_table(endpoint, app_key):
    status, body = call(endpoint, app_key, "SearchVectors", {
        "TableName": unique("gw_none"), "IndexName": "emb-idx", "TopK": 1, "SearchVector": [{"N": "1"}]})
    assert status == 400
    assert body["__type"] == "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException"


def test_vector_index_change_seen_by_other_sessions(endpoint, app_key, vector_ready):
    """Each backend keeps the vector indexes of a table it writes: an index
    created or deleted by another session (here psql) is seen by the
    gateway's connections at their next write."""
    name = unique("gw_vecx")
    status, body = call(endpoint, app_key, "CreateTable", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
    assert status == 200, body

    def put_all(prefix):
        for i in range(20):
            status, body = call(endpoint, app_key, "PutItem", {
                "TableName": name, "Item": {"id": {"S": f"{prefix}{i}"}, "emb": vec(i, 1)}})
            assert status == 200, body

    put_all("before")       # every connection has read "no vector index"
    psql("SET item_table.index_backfill = manual; "
         "SELECT item_table.update_table(jsonb_build_object('TableName', '" + name + "', "
         "'VectorIndexUpdates', '[{\"Create\": {\"IndexName\": \"emb-idx\", "
         "\"VectorAttribute\": {\"AttributeName\": \"emb\"}, \"Dimensions\": 2, "
         "\"DistanceFunction\": \"EUCLIDEAN\", \"Projection\": {\"ProjectionType\": \"KEYS_ONLY\"}}}]'::jsonb))")
    put_all("after")        # no backfill: only these are in the index
    rel = psql(f"SELECT relid FROM item_table.vector_indexes WHERE table_name = '{name}'")
    assert psql(f"SELECT count(*) FROM {rel}") == "20"
    assert psql(f"SELECT count(*) FROM {rel} WHERE (key::text) LIKE '%after%'") == "20"
    psql("SELECT item_table.update_table(jsonb_build_object('TableName', '" + name + "', "
         "'VectorIndexUpdates', '[{\"Delete\": {\"IndexName\": \"emb-idx\"}}]'::jsonb))")
    put_all("gone")         # the dropped index table is not written any more
    status, body = call(endpoint, app_key, "DeleteTable", {"TableName": name})
    assert status == 200, body
