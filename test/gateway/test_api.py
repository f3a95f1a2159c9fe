"""The DynamoDB API through the gateway with boto3, signed with a real key."""
import http.client
import json
import subprocess
import urllib.parse
import zlib

import botocore.auth
import botocore.awsrequest
import botocore.credentials
import pytest

from conftest import make_table, psql, unique


def test_table_lifecycle(ddb):
    name = make_table(ddb, unique("life"), waiter=False)
    ddb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 10})
    desc = ddb.describe_table(TableName=name)["Table"]
    assert desc["TableName"] == name
    assert desc["TableStatus"] == "ACTIVE"
    assert desc["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    assert name in ddb.list_tables()["TableNames"]
    with pytest.raises(ddb.exceptions.ResourceInUseException):
        make_table(ddb, name, waiter=False)
    ddb.delete_table(TableName=name)
    ddb.get_waiter("table_not_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 10})
    with pytest.raises(ddb.exceptions.ResourceNotFoundException):
        ddb.describe_table(TableName=name)


def test_item_operations(ddb, table):
    key = {"pk": {"S": "u1"}, "sk": {"N": "1"}}
    assert "Attributes" not in ddb.put_item(TableName=table, Item={**key, "n": {"N": "1.50"}, "s": {"SS": ["a", "b"]}})
    item = ddb.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]
    assert item["n"] == {"N": "1.5"}
    assert sorted(item["s"]["SS"]) == ["a", "b"]
    got = ddb.update_item(TableName=table, Key=key, UpdateExpression="SET n = n + :one ADD c :one",
                          ExpressionAttributeValues={":one": {"N": "1"}}, ReturnValues="ALL_NEW")["Attributes"]
    assert got["n"] == {"N": "2.5"} and got["c"] == {"N": "1"}
    old = ddb.put_item(TableName=table, Item={**key, "v": {"S": "x"}}, ReturnValues="ALL_OLD")["Attributes"]
    assert old["n"] == {"N": "2.5"}
    proj = ddb.get_item(TableName=table, Key=key, ProjectionExpression="#v",
                        ExpressionAttributeNames={"#v": "v"})["Item"]
    assert proj == {"v": {"S": "x"}}
    deleted = ddb.delete_item(TableName=table, Key=key, ReturnValues="ALL_OLD")["Attributes"]
    assert deleted["v"] == {"S": "x"}
    assert "Item" not in ddb.get_item(TableName=table, Key=key)
    with pytest.raises(ddb.exceptions.ClientError) as e:
        ddb.put_item(TableName=table, Item={"pk": {"S": "u1"}})      # sort key missing
    assert e.value.response["Error"]["Code"] == "ValidationException"
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_condition_failed_carries_item(ddb, table):
    key = {"pk": {"S": "c"}, "sk": {"N": "7"}}
    ddb.put_item(TableName=table, Item={**key, "v": {"S": "old"}})
    raw = {}

    # Debian's botocore (1.29) predates ReturnValuesOnConditionCheckFailure:
    # add it to the signed body, and read the error body as the SDK got it.
    def add_param(request, **kw):
        body = json.loads(request.body)
        body["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        request.data = json.dumps(body).encode()

    def keep_body(http_response, **kw):
        raw["body"] = http_response.content

    ddb.meta.events.register("before-sign.dynamodb.PutItem", add_param)
    ddb.meta.events.register("after-call.dynamodb.PutItem", keep_body)
    try:
        with pytest.raises(ddb.exceptions.ConditionalCheckFailedException) as e:
            ddb.put_item(TableName=table, Item={**key, "v": {"S": "new"}},
                         ConditionExpression="attribute_not_exists(pk)")
    finally:
        ddb.meta.events.unregister("before-sign.dynamodb.PutItem", add_param)
        ddb.meta.events.unregister("after-call.dynamodb.PutItem", keep_body)
    assert e.value.response["Error"]["Message"] == "The conditional request failed"
    body = json.loads(raw["body"])
    assert body["__type"] == "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException"
    assert body["Item"] == {**key, "v": {"S": "old"}}
    # a newer botocore parses it into the response; this one may not
    if "Item" in e.value.response:
        assert e.value.response["Item"]["v"] == {"S": "old"}
    assert ddb.get_item(TableName=table, Key=key)["Item"]["v"] == {"S": "old"}


def test_query_and_scan_paginators(ddb, table):
    for i in range(23):
        ddb.put_item(TableName=table, Item={"pk": {"S": "p"}, "sk": {"N": str(i)}, "odd": {"BOOL": i % 2 == 1}})
    for i in range(5):
        ddb.put_item(TableName=table, Item={"pk": {"S": "other"}, "sk": {"N": str(i)}})
    pages = list(ddb.get_paginator("query").paginate(
        TableName=table, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p"}},
        PaginationConfig={"PageSize": 5}))
    assert len(pages) >= 5
    sks = [int(it["sk"]["N"]) for p in pages for it in p["Items"]]
    assert sks == list(range(23))
    # descending with a filter: Limit applies before the filter
    pages = list(ddb.get_paginator("query").paginate(
        TableName=table, KeyConditionExpression="pk = :p AND sk >= :lo", FilterExpression="odd = :t",
        ExpressionAttributeValues={":p": {"S": "p"}, ":lo": {"N": "10"}, ":t": {"BOOL": True}},
        ScanIndexForward=False, PaginationConfig={"PageSize": 4}))
    sks = [int(it["sk"]["N"]) for p in pages for it in p["Items"]]
    assert sks == [21, 19, 17, 15, 13, 11]
    assert sum(p["ScannedCount"] for p in pages) == 13
    pages = list(ddb.get_paginator("scan").paginate(TableName=table, PaginationConfig={"PageSize": 6}))
    assert len(pages) >= 5
    assert sum(p["Count"] for p in pages) == 28
    keys = {(it["pk"]["S"], it["sk"]["N"]) for p in pages for it in p["Items"]}
    assert len(keys) == 28


def test_batches_with_unprocessed_loop(ddb, table):
    items = [{"pk": {"S": f"b{i}"}, "sk": {"N": "0"}, "v": {"N": str(i)}} for i in range(60)]
    for start in range(0, 60, 25):
        request = {table: [{"PutRequest": {"Item": it}} for it in items[start:start + 25]]}
        while request:
            request = ddb.batch_write_item(RequestItems=request).get("UnprocessedItems") or None
    keys = [{"pk": it["pk"], "sk": it["sk"]} for it in items]
    got = []
    for start in range(0, 60, 100 if len(keys) <= 100 else 100):
        request = {table: {"Keys": keys[start:start + 100], "ProjectionExpression": "v"}}
        while request:
            resp = ddb.batch_get_item(RequestItems=request)
            got.extend(resp["Responses"].get(table, []))
            request = resp.get("UnprocessedKeys") or None
    assert sorted(int(it["v"]["N"]) for it in got) == list(range(60))
    # deletes, and a batch naming a missing table fails as a whole
    ddb.batch_write_item(RequestItems={table: [{"DeleteRequest": {"Key": k}} for k in keys[:10]]})
    with pytest.raises(ddb.exceptions.ResourceNotFoundException):
        ddb.batch_write_item(RequestItems={table + "_missing": [{"DeleteRequest": {"Key": keys[0]}}]})
    assert ddb.scan(TableName=table, Select="COUNT")["Count"] == 50


def test_transactions(ddb, table):
    a = {"pk": {"S": "acct"}, "sk": {"N": "1"}}
    b = {"pk": {"S": "acct"}, "sk": {"N": "2"}}
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": {**a, "bal": {"N": "100"}}}},
        {"Put": {"TableName": table, "Item": {**b, "bal": {"N": "0"}}}}])
    with pytest.raises(ddb.exceptions.TransactionCanceledException) as e:
        ddb.transact_write_items(TransactItems=[
            {"Update": {"TableName": table, "Key": a, "UpdateExpression": "SET bal = bal - :x",
                        "ConditionExpression": "bal >= :x", "ExpressionAttributeValues": {":x": {"N": "500"}}}},
            {"Update": {"TableName": table, "Key": b, "UpdateExpression": "SET bal = bal + :x",
                        "ExpressionAttributeValues": {":x": {"N": "500"}}}}])
    reasons = e.value.response["CancellationReasons"]
    assert [r["Code"] for r in reasons] == ["ConditionalCheckFailed", "None"]
    assert "ConditionalCheckFailed" in e.value.response["Error"]["Message"]
    got = ddb.transact_get_items(TransactItems=[{"Get": {"TableName": table, "Key": a}},
                                                {"Get": {"TableName": table, "Key": b}}])["Responses"]
    assert [r["Item"]["bal"]["N"] for r in got] == ["100", "0"]   # nothing moved
    ddb.transact_write_items(TransactItems=[
        {"Update": {"TableName": table, "Key": a, "UpdateExpression": "SET bal = bal - :x",
                    "ConditionExpression": "bal >= :x", "ExpressionAttributeValues": {":x": {"N": "30"}}}},
        {"Update": {"TableName": table, "Key": b, "UpdateExpression": "SET bal = bal + :x",
                    "ExpressionAttributeValues": {":x": {"N": "30"}}}}])
    got = ddb.transact_get_items(TransactItems=[{"Get": {"TableName": table, "Key": a}},
                                                {"Get": {"TableName": table, "Key": b}}])["Responses"]
    assert [r["Item"]["bal"]["N"] for r in got] == ["70", "30"]


def raw_post(url, target, body, headers=None):
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    h = {"Content-Type": "application/x-amz-json-1.0"}
    if target:
        h["X-Amz-Target"] = target
    h.update(headers or {})
    conn.request("POST", "/", body=body, headers=h)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp, data


def test_crc32_and_request_id(ddb, endpoint, table):
    ids = set()
    for _ in range(3):
        meta = ddb.list_tables()["ResponseMetadata"]
        ids.add(meta["RequestId"])
        assert meta["HTTPHeaders"]["content-type"] == "application/x-amz-json-1.0"
    assert len(ids) == 3
    # a raw request: the header is the CRC-32 of the exact bytes, errors too
    resp, data = raw_post(endpoint, "DynamoDB_20120810.ListTables", b"{}")
    assert resp.status == 400
    assert int(resp.getheader("x-amz-crc32")) == zlib.crc32(data)
    assert resp.getheader("x-amzn-RequestId")
    # and botocore checks it on every 200 (a wrong one would fail the call):
    # a large answer, so a truncation or offset error would show
    for i in range(40):
        ddb.put_item(TableName=table, Item={"pk": {"S": "big"}, "sk": {"N": str(i)}, "pad": {"S": "é" * 2000}})
    out = ddb.query(TableName=table, KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": {"S": "big"}})
    assert out["Count"] == 40


def test_health_check(endpoint):
    u = urllib.parse.urlparse(endpoint)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    conn.request("GET", "/")
    resp = conn.getresponse()
    assert resp.status == 200
    assert resp.read().startswith(b"healthy: ")


def test_region_is_free(endpoint, app_key):
    from conftest import client
    c = client(endpoint, *app_key, region="eu-west-3")
    assert "TableNames" in c.list_tables()


def test_nul_in_strings_is_stored(ddb, table):
    """U+0000 is legal in a DynamoDB string (botocore sends it as the JSON
    escape \\u0000): stored and answered back in a key, a value and a name
    (test_nul_strings.py has the rest)."""
    for item in ({"pk": {"S": "a\x00b"}, "sk": {"N": "1"}},              # a key
                 {"pk": {"S": "nul"}, "sk": {"N": "1"}, "v": {"S": "\x00"}},  # a value
                 {"pk": {"S": "nul"}, "sk": {"N": "2"}, "a\x00": {"S": "x"}}):  # a name
        ddb.put_item(TableName=table, Item=item)
        key = {"pk": item["pk"], "sk": item["sk"]}
        assert ddb.get_item(TableName=table, Key=key)["Item"] == item
    got = ddb.query(TableName=table, KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": {"S": "a\x00b"}})
    assert got["Items"] == [{"pk": {"S": "a\x00b"}, "sk": {"N": "1"}}]
    assert ddb.scan(TableName=table)["Count"] == 3
    # the escape of a backslash followed by u0000 is an ordinary string
    ddb.put_item(TableName=table, Item={"pk": {"S": "nul"}, "sk": {"N": "3"}, "v": {"S": "\\u0000"}})
    got = ddb.get_item(TableName=table, Key={"pk": {"S": "nul"}, "sk": {"N": "3"}})["Item"]
    assert got["v"] == {"S": "\\u0000"}


def test_item_collection_metrics(ddb):
    name = unique("icm")
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "S"},
                                           {"AttributeName": "l", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                     LocalSecondaryIndexes=[{"IndexName": "by_l", "Projection": {"ProjectionType": "ALL"},
                                             "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                           {"AttributeName": "l", "KeyType": "RANGE"}]}])
    try:
        item = {"pk": {"S": "p"}, "sk": {"S": "1"}, "l": {"S": "x"}}
        out = ddb.put_item(TableName=name, Item=item, ReturnItemCollectionMetrics="SIZE")
        m = out["ItemCollectionMetrics"]
        assert m["ItemCollectionKey"] == {"pk": {"S": "p"}}
        assert m["SizeEstimateRangeGB"] == [0.0, 1.0]
        assert "ItemCollectionMetrics" not in ddb.put_item(TableName=name, Item=item)
        out = ddb.batch_write_item(RequestItems={name: [{"PutRequest": {"Item": {**item, "sk": {"S": "2"}}}},
                                                        {"DeleteRequest": {"Key": {"pk": {"S": "q"}, "sk": {"S": "1"}}}}]},
                                   ReturnItemCollectionMetrics="SIZE")
        keys = sorted(m["ItemCollectionKey"]["pk"]["S"] for m in out["ItemCollectionMetrics"][name])
        assert keys == ["p", "q"]
    finally:
        ddb.delete_table(TableName=name)


def signed(endpoint, app_key, target, body=b"{}", content_type="application/x-amz-json-1.0"):
    """Headers of a request signed with app_key (botocore's signer)."""
    req = botocore.awsrequest.AWSRequest(method="POST", url=endpoint + "/", data=body,
                                         headers={"X-Amz-Target": target, "Content-Type": content_type})
    botocore.auth.SigV4Auth(botocore.credentials.Credentials(*app_key), "dynamodb",
                            "us-east-1").add_auth(req)
    return dict(req.headers.items())


def test_streams_target_is_routed(endpoint, app_key):
    """DynamoDBStreams_20120810.ListStreams goes to dynamodb('ListStreams', ...):
    the gateway answers exactly what the function answers in SQL (an
    UnknownOperationException naming the action until Streams exist)."""
    resp, data = raw_post(endpoint, None, b"{}",
                          signed(endpoint, app_key, "DynamoDBStreams_20120810.ListStreams"))
    body = json.loads(data)
    try:
        psql("SET ROLE gw_app; SELECT item_table.dynamodb('ListStreams', '{}')")
        in_sql = None
    except subprocess.CalledProcessError as e:
        in_sql = e.stderr
    if in_sql is None:
        assert resp.status == 200, data
        assert "Streams" in body
    else:
        assert resp.status == 400
        assert body["__type"] == "com.amazon.coral.service#UnknownOperationException"
        assert body["message"] == "Unknown operation: ListStreams"
        assert "Unknown operation: ListStreams" in in_sql


@pytest.mark.parametrize("target,action", [
    ("DynamoDBStreams_20120810.PutItem", "PutItem"),          # a DynamoDB action under Streams
    ("DynamoDBStreams_20120810.ListTables", "ListTables"),
    ("DynamoDB_20120810.GetRecords", "GetRecords"),            # a Streams action under DynamoDB
    ("DynamoDB_20120810.ListStreams", "ListStreams"),
    ("DynamoDBStreams_20120810.Frobnicate", "Frobnicate"),
])
def test_actions_only_under_their_api(endpoint, app_key, ddb, table, target, action):
    item = json.dumps({"TableName": table, "Item": {"pk": {"S": "x"}, "sk": {"N": "1"}}}).encode()
    resp, data = raw_post(endpoint, None, item, signed(endpoint, app_key, target, item))
    assert resp.status == 400
    assert json.loads(data) == {"__type": "com.amazon.coral.service#UnknownOperationException",
                                "message": f"Unknown operation: {action}"}
    assert ddb.scan(TableName=table)["Count"] == 0


def test_content_type(endpoint, app_key, ddb, table):
    item = {"TableName": table, "Item": {"pk": {"S": "ct"}, "sk": {"N": "1"}}}
    body = json.dumps(item).encode()
    # what the SDKs send, with a parameter, in another case: answered in kind
    for ct in ("application/x-amz-json-1.0", "application/x-amz-json-1.0; charset=utf-8",
               "Application/X-Amz-Json-1.0"):
        resp, data = raw_post(endpoint, None, body, signed(endpoint, app_key, "DynamoDB_20120810.PutItem", body, ct))
        assert resp.status == 200, (ct, data)
        assert resp.getheader("Content-Type") == "application/x-amz-json-1.0"
    # application/json: DynamoDB takes it and answers application/json, errors too
    get = json.dumps({"TableName": table, "Key": {"pk": {"S": "ct"}, "sk": {"N": "1"}}}).encode()
    resp, data = raw_post(endpoint, None, get, signed(endpoint, app_key, "DynamoDB_20120810.GetItem", get,
                                                       "application/json"))
    assert resp.status == 200
    assert resp.getheader("Content-Type") == "application/json"
    assert json.loads(data)["Item"]["pk"] == {"S": "ct"}
    assert int(resp.getheader("x-amz-crc32")) == zlib.crc32(data)
    resp, data = raw_post(endpoint, None, b"{}", signed(endpoint, app_key, "DynamoDB_20120810.GetItem", b"{}",
                                                         "application/json"))
    assert resp.status == 400 and resp.getheader("Content-Type") == "application/json"
    # anything else: DynamoDB's 404, and nothing runs
    other = dict(item, Item={"pk": {"S": "ct2"}, "sk": {"N": "1"}})
    body = json.dumps(other).encode()
    for ct in ("text/plain", "application/x-www-form-urlencoded", "application/x-amz-json-1.1", None):
        h = signed(endpoint, app_key, "DynamoDB_20120810.PutItem", body, ct or "x")
        if ct is None:
            h.pop("Content-Type")
        resp, data = raw_post(endpoint, None, body, h) if ct else raw_post_bare(endpoint, body, h)
        assert resp.status == 404, (ct, resp.status, data)
        assert data == b"<UnknownOperationException/>\n"
        assert int(resp.getheader("x-amz-crc32")) == zlib.crc32(data)
    assert "Item" not in ddb.get_item(TableName=table, Key={"pk": {"S": "ct2"}, "sk": {"N": "1"}})


def raw_post_bare(url, body, headers):
    """A POST with exactly these headers (no Content-Type added)."""
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    conn.putrequest("POST", "/", skip_accept_encoding=True)
    for k, v in headers.items():
        if k.lower() not in ("content-length",):
            conn.putheader(k, v)
    conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp, data


def test_internal_error_does_not_leak(ddb, table):
    """An error item_table did not raise (here a trigger's) is a 500
    InternalServerError with a fixed message and none of the server's
    text, and the write did not happen."""
    fn = unique("gw_boom")
    psql(f"CREATE FUNCTION public.{fn}() RETURNS trigger LANGUAGE plpgsql AS $$ "
         f"BEGIN RAISE EXCEPTION 'secret internal detail %', current_setting('server_version'); END $$; "
         f'CREATE TRIGGER boom BEFORE INSERT ON item_data."{table}" FOR EACH ROW EXECUTE FUNCTION public.{fn}()')
    raw = {}

    def keep_body(http_response, **kw):
        raw["body"] = http_response.content

    ddb.meta.events.register("after-call.dynamodb.PutItem", keep_body)
    try:
        with pytest.raises(ddb.exceptions.ClientError) as e:
            ddb.put_item(TableName=table, Item={"pk": {"S": "boom"}, "sk": {"N": "1"}})
    finally:
        ddb.meta.events.unregister("after-call.dynamodb.PutItem", keep_body)
        psql(f'DROP TRIGGER boom ON item_data."{table}"; DROP FUNCTION public.{fn}()')
    assert e.value.response["Error"]["Code"] == "InternalServerError"
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 500
    assert json.loads(raw["body"]) == {
        "__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
        "message": "The server encountered an internal error trying to fulfill the request."}
    assert b"secret" not in raw["body"] and b"plpgsql" not in raw["body"]
    assert "Item" not in ddb.get_item(TableName=table, Key={"pk": {"S": "boom"}, "sk": {"N": "1"}})

