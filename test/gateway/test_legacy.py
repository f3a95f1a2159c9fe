"""The legacy (pre-expression) parameters through the gateway with boto3:
the resource API's Table methods, which marshal AttributeValueList,
AttributeUpdates and Expected values, and the client's paginators."""
from decimal import Decimal

import boto3
import pytest
from botocore.exceptions import ClientError


@pytest.fixture
def tbl(endpoint, app_key, table):
    res = boto3.resource("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                         aws_access_key_id=app_key[0], aws_secret_access_key=app_key[1])
    return res.Table(table)


def code_and_message(e):
    return e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]


def test_legacy_item_operations(tbl):
    tbl.put_item(Item={"pk": "u", "sk": 1, "n": 5, "tags": {"a", "b"}})
    # Expected with Exists, Value and a ComparisonOperator
    tbl.put_item(Item={"pk": "u", "sk": 2, "n": 1}, Expected={"pk": {"Exists": False}})
    with pytest.raises(ClientError) as e:
        tbl.put_item(Item={"pk": "u", "sk": 2, "n": 2}, Expected={"pk": {"Exists": False}})
    assert code_and_message(e) == ("ConditionalCheckFailedException", "The conditional request failed")
    # AttributeUpdates: PUT, ADD on a number and a set, DELETE of set members and of an attribute
    got = tbl.update_item(Key={"pk": "u", "sk": 1},
                          AttributeUpdates={"n": {"Action": "ADD", "Value": 2},
                                            "tags": {"Action": "ADD", "Value": {"c"}},
                                            "s": {"Action": "PUT", "Value": "hi"}},
                          Expected={"n": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [1, 5]}},
                          ReturnValues="UPDATED_NEW")["Attributes"]
    assert got == {"n": Decimal(7), "tags": {"a", "b", "c"}, "s": "hi"}
    got = tbl.update_item(Key={"pk": "u", "sk": 1},
                          AttributeUpdates={"tags": {"Action": "DELETE", "Value": {"a"}}, "s": {"Action": "DELETE"}},
                          Expected={"n": {"Value": 7}, "s": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": ["h"]}},
                          ConditionalOperator="AND", ReturnValues="ALL_NEW")["Attributes"]
    assert got == {"pk": "u", "sk": 1, "n": 7, "tags": {"b", "c"}}
    # AttributesToGet
    assert tbl.get_item(Key={"pk": "u", "sk": 1}, AttributesToGet=["n", "zz"])["Item"] == {"n": 7}
    # DeleteItem with Expected, OR
    with pytest.raises(ClientError) as e:
        tbl.delete_item(Key={"pk": "u", "sk": 2},
                        Expected={"n": {"ComparisonOperator": "GT", "AttributeValueList": [1]},
                                  "q": {"ComparisonOperator": "NOT_NULL"}},
                        ConditionalOperator="OR")
    assert code_and_message(e)[0] == "ConditionalCheckFailedException"
    old = tbl.delete_item(Key={"pk": "u", "sk": 2}, Expected={"n": {"ComparisonOperator": "LE", "AttributeValueList": [1]}},
                          ReturnValues="ALL_OLD")["Attributes"]
    assert old == {"pk": "u", "sk": 2, "n": 1}


def test_legacy_query_scan_and_batch(ddb, tbl, table):
    with tbl.batch_writer() as w:
        for i in range(1, 21):
            w.put_item(Item={"pk": "q", "sk": i, "v": i * 10, "odd": i % 2 == 1})
    got = tbl.query(KeyConditions={"pk": {"ComparisonOperator": "EQ", "AttributeValueList": ["q"]},
                                   "sk": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [5, 9]}},
                    QueryFilter={"odd": {"ComparisonOperator": "EQ", "AttributeValueList": [True]}},
                    AttributesToGet=["sk"], ScanIndexForward=False)
    assert [it["sk"] for it in got["Items"]] == [9, 7, 5] and got["ScannedCount"] == 5
    # KeyConditions with a FilterExpression is accepted, as in DynamoDB
    got = ddb.query(TableName=table, KeyConditions={"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "q"}]}},
                    FilterExpression="v > :v", ExpressionAttributeValues={":v": {"N": "150"}})
    assert got["Count"] == 5
    # paginators carry LastEvaluatedKey across pages
    pages = list(ddb.get_paginator("query").paginate(
        TableName=table, KeyConditions={"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "q"}]}},
        AttributesToGet=["sk"], PaginationConfig={"PageSize": 6}))
    assert [len(p["Items"]) for p in pages][:4] == [6, 6, 6, 2]
    assert [int(it["sk"]["N"]) for p in pages for it in p["Items"]] == list(range(1, 21))
    pages = list(ddb.get_paginator("scan").paginate(
        TableName=table, ScanFilter={"v": {"ComparisonOperator": "GE", "AttributeValueList": [{"N": "100"}]},
                                     "odd": {"ComparisonOperator": "EQ", "AttributeValueList": [{"BOOL": False}]}},
        ConditionalOperator="AND", PaginationConfig={"PageSize": 7}))
    assert sorted(int(it["sk"]["N"]) for p in pages for it in p["Items"]) == [10, 12, 14, 16, 18, 20]
    got = ddb.batch_get_item(RequestItems={table: {"Keys": [{"pk": {"S": "q"}, "sk": {"N": "3"}}],
                                                   "AttributesToGet": ["v"]}})
    assert got["Responses"][table] == [{"v": {"N": "30"}}]


def test_legacy_refusals(ddb, tbl, table):
    with pytest.raises(ClientError) as e:
        tbl.get_item(Key={"pk": "u", "sk": 1}, AttributesToGet=["n"], ProjectionExpression="n")
    assert code_and_message(e) == ("ValidationException",
                                   "Can not use both expression and non-expression parameters in the same request: "
                                   "Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
    with pytest.raises(ClientError) as e:
        tbl.query(KeyConditions={"pk": {"ComparisonOperator": "EQ", "AttributeValueList": ["q"]},
                                 "sk": {"ComparisonOperator": "NE", "AttributeValueList": [1]}})
    assert code_and_message(e) == ("ValidationException", "Attempted conditional constraint is not an indexable operation")
    with pytest.raises(ClientError) as e:
        tbl.update_item(Key={"pk": "u", "sk": 1}, AttributeUpdates={"n": {"Action": "ADD", "Value": "x"}})
    assert code_and_message(e) == ("ValidationException",
                                   "One or more parameter values were invalid: ADD action is not supported for the type S")
    with pytest.raises(ClientError) as e:
        ddb.scan(TableName=table, ScanFilter={"v": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}]}},
                 ConditionalOperator="OR")
    assert code_and_message(e) == ("ValidationException",
                                   "ConditionalOperator can only be used when Filter or Expected has two or more elements")
