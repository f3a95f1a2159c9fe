"""Multi-attribute GSI keys through the gateway with boto3: CreateTable with
a 2+2 KeySchema, DescribeTable, writes, a Query on every partition attribute
and a prefix of the sort attributes (forward, backward, paginated with
LastEvaluatedKey), a refusal, the legacy KeyConditions of the resource API,
and PartiQL on the index."""
import boto3
import pytest
from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from conftest import unique

KEY_SCHEMA = [{"AttributeName": "tournament", "KeyType": "HASH"},
              {"AttributeName": "area", "KeyType": "HASH"},
              {"AttributeName": "round", "KeyType": "RANGE"},
              {"AttributeName": "bracket", "KeyType": "RANGE"}]


@pytest.fixture
def matches(ddb):
    name = unique("mak")
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "matchId", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t in
                              [("matchId", "S"), ("tournament", "S"), ("area", "S"), ("round", "N"), ("bracket", "S")]],
        GlobalSecondaryIndexes=[{"IndexName": "by_area", "KeySchema": KEY_SCHEMA,
                                 "Projection": {"ProjectionType": "ALL"}}])
    ddb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 10})
    for i in range(1, 13):
        ddb.put_item(TableName=name, Item={
            "matchId": {"S": f"m{i:02d}"}, "tournament": {"S": "WINTER"},
            "area": {"S": "EAST" if i % 2 else "WEST"}, "round": {"N": str(i % 4 + 1)},
            "bracket": {"S": "upper" if i % 3 else "lower"}})
    # sparse: no bracket, not in the index
    ddb.put_item(TableName=name, Item={"matchId": {"S": "x"}, "tournament": {"S": "WINTER"},
                                       "area": {"S": "EAST"}, "round": {"N": "1"}})
    yield name
    ddb.delete_table(TableName=name)


def expected(ddb, table, area, lo_round):
    items = ddb.scan(TableName=table)["Items"]
    rows = [i for i in items if "bracket" in i and i["area"]["S"] == area and int(i["round"]["N"]) >= lo_round]
    rows.sort(key=lambda i: (int(i["round"]["N"]), i["bracket"]["S"], i["matchId"]["S"]))
    return [i["matchId"]["S"] for i in rows]


def test_describe_and_query(ddb, matches):
    gsi = ddb.describe_table(TableName=matches)["Table"]["GlobalSecondaryIndexes"][0]
    assert gsi["KeySchema"] == KEY_SCHEMA
    q = dict(TableName=matches, IndexName="by_area",
             KeyConditionExpression="tournament = :t AND area = :a AND #r >= :r",
             ExpressionAttributeNames={"#r": "round"},
             ExpressionAttributeValues={":t": {"S": "WINTER"}, ":a": {"S": "EAST"}, ":r": {"N": "2"}})
    want = expected(ddb, matches, "EAST", 2)
    assert want
    got = [i["matchId"]["S"] for i in ddb.query(**q)["Items"]]
    assert got == want
    got = [i["matchId"]["S"] for i in ddb.query(ScanIndexForward=False, **q)["Items"]]
    assert got == want[::-1]
    # pages of two: LastEvaluatedKey carries every key attribute of the index and the table
    pages = list(ddb.get_paginator("query").paginate(PaginationConfig={"PageSize": 2}, **q))
    assert [i["matchId"]["S"] for p in pages for i in p["Items"]] == want
    assert set(pages[0]["LastEvaluatedKey"]) == {"matchId", "tournament", "area", "round", "bracket"}


def test_refusals(ddb, matches):
    with pytest.raises(ClientError) as e:
        ddb.query(TableName=matches, IndexName="by_area", KeyConditionExpression="tournament = :t",
                  ExpressionAttributeValues={":t": {"S": "WINTER"}})
    assert e.value.response["Error"]["Code"] == "ValidationException"
    assert e.value.response["Error"]["Message"] == "Query condition missed key schema element: area"
    with pytest.raises(ClientError) as e:
        ddb.create_table(
            TableName=unique("mak_bad"), BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "a", "AttributeType": "S"},
                                  {"AttributeName": "b", "AttributeType": "S"}],
            GlobalSecondaryIndexes=[{"IndexName": "bad_index", "Projection": {"ProjectionType": "ALL"},
                                     "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "RANGE"},
                                                   {"AttributeName": "pk", "KeyType": "HASH"}]}])
    assert e.value.response["Error"]["Message"] == (
        "One or more parameter values were invalid: All HASH key attributes must precede RANGE key attributes in the KeySchema")


def test_resource_api_and_partiql(ddb, endpoint, app_key, matches):
    res = boto3.resource("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                         aws_access_key_id=app_key[0], aws_secret_access_key=app_key[1])
    tbl = res.Table(matches)
    want = expected(ddb, matches, "WEST", 3)
    got = tbl.query(IndexName="by_area",
                    KeyConditionExpression=Key("tournament").eq("WINTER") & Key("area").eq("WEST") & Key("round").gte(3))
    assert [i["matchId"] for i in got["Items"]] == want
    # the legacy KeyConditions
    got = tbl.query(IndexName="by_area", KeyConditions={
        "tournament": {"ComparisonOperator": "EQ", "AttributeValueList": ["WINTER"]},
        "area": {"ComparisonOperator": "EQ", "AttributeValueList": ["WEST"]},
        "round": {"ComparisonOperator": "GE", "AttributeValueList": [3]}})
    assert [i["matchId"] for i in got["Items"]] == want
    got = ddb.execute_statement(
        Statement=f'SELECT matchId FROM "{matches}"."by_area" WHERE tournament = ? AND area = ? AND "round" >= ?',
        Parameters=[{"S": "WINTER"}, {"S": "WEST"}, {"N": "3"}])
    assert [i["matchId"]["S"] for i in got["Items"]] == want
