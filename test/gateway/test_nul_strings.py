"""U+0000 in strings through HTTP (src/types/nul_escape.c): botocore sends
the character as the JSON escape \\u0000; it is stored, found, ordered and
answered back exactly, in items, keys, indexes, expressions, PartiQL and
stream records (GetRecords)."""
import json

import boto3
import botocore.config
import pytest

from conftest import unique
from test_api import raw_post, signed
from test_streams import read_all


@pytest.fixture(scope="module")
def streams(endpoint, app_key):
    cfg = botocore.config.Config(retries={"total_max_attempts": 1, "mode": "standard"},
                                 connect_timeout=5, read_timeout=30)
    return boto3.client("dynamodbstreams", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id=app_key[0], aws_secret_access_key=app_key[1], config=cfg)


@pytest.fixture
def nul_table(ddb):
    name = unique("nul")
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    ddb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 10})
    yield name
    try:
        ddb.delete_table(TableName=name)
    except Exception:
        pass


ITEM = {"pk": {"S": "a\x00b"}, "sk": {"S": "\x00"}, "g": {"S": "\x00\x01"},
        "v": {"S": "x\x00y\x01z"}, "ss": {"SS": ["\x00", "\x01", "a"]},
        "m\x00": {"M": {"k\x00": {"L": [{"S": "\x00\x00"}, {"S": "\\u0000"}]}}}}
KEY = {"pk": {"S": "a\x00b"}, "sk": {"S": "\x00"}}


def test_round_trip(ddb, nul_table):
    ddb.put_item(TableName=nul_table, Item=ITEM)
    assert ddb.get_item(TableName=nul_table, Key=KEY, ConsistentRead=True)["Item"] == ITEM
    # a key differing only by U+0000 is another key
    assert "Item" not in ddb.get_item(TableName=nul_table, Key={"pk": {"S": "ab"}, "sk": {"S": "\x00"}})
    got = ddb.query(TableName=nul_table, KeyConditionExpression="pk = :p AND begins_with(sk, :s)",
                    ExpressionAttributeValues={":p": {"S": "a\x00b"}, ":s": {"S": "\x00"}})
    assert got["Items"] == [ITEM]
    got = ddb.query(TableName=nul_table, IndexName="by_g", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": {"S": "\x00\x01"}})
    assert got["Items"] == [ITEM]
    got = ddb.scan(TableName=nul_table, FilterExpression="contains(v, :c) AND size(v) = :n",
                   ProjectionExpression="#m.#k[0]", ExpressionAttributeNames={"#m": "m\x00", "#k": "k\x00"},
                   ExpressionAttributeValues={":c": {"S": "\x00y\x01"}, ":n": {"N": "5"}})
    assert got["Items"] == [{"m\x00": {"M": {"k\x00": {"L": [{"S": "\x00\x00"}]}}}}]
    # U+0001 (escaped as 01 02) does not contain U+0002
    assert ddb.scan(TableName=nul_table, FilterExpression="contains(v, :c)",
                    ExpressionAttributeValues={":c": {"S": "\x02"}})["Count"] == 0
    got = ddb.update_item(TableName=nul_table, Key=KEY, UpdateExpression="SET v = :v ADD ss :s",
                          ConditionExpression="v = :old",
                          ExpressionAttributeValues={":v": {"S": "\x00"}, ":s": {"SS": ["\x00\x00"]},
                                                     ":old": {"S": "x\x00y\x01z"}},
                          ReturnValues="UPDATED_NEW")["Attributes"]
    assert got == {"v": {"S": "\x00"}, "ss": {"SS": ["\x00", "\x00\x00", "\x01", "a"]}}
    got = ddb.execute_statement(Statement=f"SELECT v FROM \"{nul_table}\" WHERE pk = 'a\x00b' AND sk = ?",
                                Parameters=[{"S": "\x00"}])["Items"]
    assert got == [{"v": {"S": "\x00"}}]


def test_order_and_paging(ddb, nul_table):
    sks = ["\x00", "\x00a", "\x01", "\x01\x01", "\x02", "a", "a\x00"]
    with_batch = [{"PutRequest": {"Item": {"pk": {"S": "o"}, "sk": {"S": s}}}} for s in reversed(sks)]
    ddb.batch_write_item(RequestItems={nul_table: with_batch})
    seen, start = [], None
    while True:
        kw = {"ExclusiveStartKey": start} if start else {}
        page = ddb.query(TableName=nul_table, KeyConditionExpression="pk = :p", Limit=2,
                         ExpressionAttributeValues={":p": {"S": "o"}}, **kw)
        seen += [i["sk"]["S"] for i in page["Items"]]
        start = page.get("LastEvaluatedKey")
        if not start:
            break
        assert start["sk"]["S"] == seen[-1]
    assert seen == sks
    got = ddb.batch_get_item(RequestItems={nul_table: {"Keys": [{"pk": {"S": "o"}, "sk": {"S": "a\x00"}}]}})
    assert got["Responses"][nul_table] == [{"pk": {"S": "o"}, "sk": {"S": "a\x00"}}]
    got = ddb.transact_get_items(TransactItems=[{"Get": {"TableName": nul_table, "Key": {"pk": {"S": "o"}, "sk": {"S": "\x01\x01"}}}}])
    assert got["Responses"][0]["Item"] == {"pk": {"S": "o"}, "sk": {"S": "\x01\x01"}}


def test_stream_records(ddb, streams, nul_table):
    ddb.put_item(TableName=nul_table, Item=ITEM)
    ddb.delete_item(TableName=nul_table, Key=KEY)
    arn = ddb.describe_table(TableName=nul_table)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records, _ = read_all(streams, it, 2)
    assert [r["eventName"] for r in records] == ["INSERT", "REMOVE"]
    assert records[0]["dynamodb"]["Keys"] == KEY
    assert records[0]["dynamodb"]["NewImage"] == ITEM
    assert records[1]["dynamodb"]["OldImage"] == ITEM


def test_raw_body_escapes(endpoint, app_key, ddb, nul_table):
    """The JSON text itself: \\u0000 and \\u0001 in, the same escapes out;
    an escaped backslash before u0000 stays text."""
    body = json.dumps({"TableName": nul_table, "Item": {"pk": {"S": "r\u0000"}, "sk": {"S": "\u0001"},
                                                         "t": {"S": "\\u0000\\\\u0001"}}}).encode()
    assert b"\\u0000" in body
    resp, data = raw_post(endpoint, None, body, signed(endpoint, app_key, "DynamoDB_20120810.PutItem", body))
    assert resp.status == 200, data
    body = json.dumps({"TableName": nul_table, "Key": {"pk": {"S": "r\u0000"}, "sk": {"S": "\u0001"}}}).encode()
    resp, data = raw_post(endpoint, None, body, signed(endpoint, app_key, "DynamoDB_20120810.GetItem", body))
    assert resp.status == 200, data
    assert b'"r\\u0000"' in data and b'"\\u0001"' in data
    assert json.loads(data)["Item"]["t"] == {"S": "\\u0000\\\\u0001"}
