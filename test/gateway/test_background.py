"""Background work and the control-plane calls as a DynamoDB client sees them.

boto3 through the gateway, against the test cluster, which runs with
item_table preloaded (the background worker on, item_table.worker_naptime
= 1 s): an index created by UpdateTable becomes ACTIVE with nobody calling
anything, items whose Time to Live has passed vanish within a bounded time,
and the control-plane calls answer with DynamoDB's shapes and errors.
"""
import contextlib
import json
import time

import pytest

from conftest import unique

# bounded waits: the worker starts at commit (or within one naptime) and
# the work here is a few hundred items; the bounds are generous, as a
# loaded machine only makes the waits longer (they end at the condition)
ACTIVE_WITHIN = 180
EXPIRED_WITHIN = 180


def error_of(excinfo):
    err = excinfo.value.response["Error"]
    return err["Code"], err.get("Message", "")


@contextlib.contextmanager
def extra_params(ddb, operation, params):
    """Add params to the signed body of operation: Debian's botocore (1.29)
    predates DeletionProtectionEnabled, and would refuse it client-side."""
    def add(request, **kw):
        body = json.loads(request.body)
        body.update(params)
        request.data = json.dumps(body).encode()

    ddb.meta.events.register(f"before-sign.dynamodb.{operation}", add)
    try:
        yield
    finally:
        ddb.meta.events.unregister(f"before-sign.dynamodb.{operation}", add)


def raw_describe(ddb, name):
    """DescribeTable's body as the gateway sent it (an old botocore drops
    members it does not know)."""
    raw = {}

    def keep(http_response, **kw):
        raw["body"] = http_response.content

    ddb.meta.events.register("after-call.dynamodb.DescribeTable", keep)
    try:
        ddb.describe_table(TableName=name)
    finally:
        ddb.meta.events.unregister("after-call.dynamodb.DescribeTable", keep)
    return json.loads(raw["body"])["Table"]


def make(ddb, name, extra_attrs=(), **kw):
    attrs = [{"AttributeName": "pk", "AttributeType": "S"}, *extra_attrs]
    ddb.create_table(TableName=name, AttributeDefinitions=attrs,
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     BillingMode="PAY_PER_REQUEST", **kw)
    ddb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 10})
    return name


def put_many(ddb, table, items):
    for i in range(0, len(items), 25):
        req = {table: [{"PutRequest": {"Item": it}} for it in items[i:i + 25]]}
        while req:
            req = ddb.batch_write_item(RequestItems=req).get("UnprocessedItems") or None


def test_index_created_by_update_table_fills_itself(ddb):
    name = make(ddb, unique("bgidx"))
    put_many(ddb, name, [{"pk": {"S": f"k{i}"}, "g": {"S": f"g{i % 7}"}} for i in range(300)])
    resp = ddb.update_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}}])
    gsi = resp["TableDescription"]["GlobalSecondaryIndexes"][0]
    # UpdateTable answers at once: the index is being built
    assert gsi["IndexName"] == "by_g" and gsi["IndexStatus"] == "CREATING"
    assert gsi.get("Backfilling") is True
    # the client polls DescribeTable, as SDK users do; nobody calls the
    # backfill procedure
    deadline = time.time() + ACTIVE_WITHIN
    seen = []
    while True:
        gsi = ddb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
        seen.append(gsi["IndexStatus"])
        if gsi["IndexStatus"] == "ACTIVE":
            break
        assert gsi["IndexStatus"] == "CREATING" and gsi.get("Backfilling") is True
        assert time.time() < deadline, f"index not ACTIVE after {ACTIVE_WITHIN} s: {seen[-3:]}"
        time.sleep(0.5)
    assert "Backfilling" not in gsi
    got = ddb.query(TableName=name, IndexName="by_g", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": {"S": "g3"}})
    assert got["Count"] == len([i for i in range(300) if i % 7 == 3])
    # the table is ACTIVE throughout, so the table_exists waiter never waits
    assert ddb.describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE"
    ddb.delete_table(TableName=name)
    ddb.get_waiter("table_not_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 10})


def test_delete_of_an_index_being_built(ddb):
    name = make(ddb, unique("bgdel"))
    put_many(ddb, name, [{"pk": {"S": f"k{i}"}, "g": {"S": "x"}} for i in range(50)])
    ddb.update_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}}])
    # deleted whether or not the worker has finished it: either way it is
    # gone at once and the table stays usable
    ddb.update_table(TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_g"}}])
    assert "GlobalSecondaryIndexes" not in ddb.describe_table(TableName=name)["Table"]
    with pytest.raises(ddb.exceptions.ClientError) as e:
        ddb.query(TableName=name, IndexName="by_g", KeyConditionExpression="g = :g",
                  ExpressionAttributeValues={":g": {"S": "x"}})
    assert error_of(e)[0] == "ValidationException"
    assert ddb.scan(TableName=name, Select="COUNT")["Count"] == 50
    ddb.delete_table(TableName=name)


def test_time_to_live(ddb):
    name = make(ddb, unique("bgttl"), extra_attrs=[{"AttributeName": "g", "AttributeType": "S"}],
                GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                         "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                         "Projection": {"ProjectionType": "ALL"}}])
    desc = ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
    assert desc == {"TimeToLiveStatus": "DISABLED"}
    now = int(time.time())
    items = []
    for i in range(200):
        it = {"pk": {"S": f"k{i}"}, "g": {"S": f"g{i % 3}"}}
        kind = i % 4
        if kind == 0:
            it["exp"] = {"N": str(now - 60)}            # expired
        elif kind == 1:
            it["exp"] = {"N": str(now + 86400)}         # expires tomorrow
        elif kind == 2:
            it["exp"] = {"S": str(now - 60)}            # not a Number: never
        items.append(it)                                # kind 3: no attribute
    put_many(ddb, name, items)
    spec = {"AttributeName": "exp", "Enabled": True}
    assert ddb.update_time_to_live(TableName=name, TimeToLiveSpecification=spec)["TimeToLiveSpecification"] == spec
    assert ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}
    with pytest.raises(ddb.exceptions.ClientError) as e:
        ddb.update_time_to_live(TableName=name, TimeToLiveSpecification=spec)
    assert error_of(e) == ("ValidationException", "TimeToLive is already enabled")
    with pytest.raises(ddb.exceptions.ClientError) as e:
        ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={"AttributeName": "other", "Enabled": False})
    assert error_of(e)[0] == "ValidationException"

    # the worker deletes the 50 expired items, and only those, from the
    # table and its index
    deadline = time.time() + EXPIRED_WITHIN
    while True:
        count = ddb.scan(TableName=name, Select="COUNT", ConsistentRead=True)["Count"]
        if count == 150:
            break
        assert count > 150, "items that had not expired were deleted"
        assert time.time() < deadline, f"{count - 150} expired items left after {EXPIRED_WITHIN} s"
        time.sleep(0.5)
    left = {it["pk"]["S"] for page in ddb.get_paginator("scan").paginate(TableName=name)
            for it in page["Items"]}
    assert left == {f"k{i}" for i in range(200) if i % 4 != 0}
    in_index = sum(ddb.query(TableName=name, IndexName="by_g", KeyConditionExpression="g = :g",
                             ExpressionAttributeValues={":g": {"S": f"g{j}"}}, Select="COUNT")["Count"]
                   for j in range(3))
    assert in_index == 150

    assert ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={"AttributeName": "exp", "Enabled": False})
    assert ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]["TimeToLiveStatus"] == "DISABLED"
    ddb.delete_table(TableName=name)
    with pytest.raises(ddb.exceptions.ResourceNotFoundException):
        ddb.describe_time_to_live(TableName=name)


def test_control_plane_calls(ddb):
    with extra_params(ddb, "CreateTable", {"DeletionProtectionEnabled": True}):
        name = make(ddb, unique("bgctl"), TableClass="STANDARD_INFREQUENT_ACCESS",
                    Tags=[{"Key": "env", "Value": "test"}])
    table = ddb.describe_table(TableName=name)["Table"]
    assert raw_describe(ddb, name)["DeletionProtectionEnabled"] is True
    assert table["TableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    arn = table["TableArn"]

    # tags
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "env", "Value": "test"}]
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "db"}])
    ddb.untag_resource(ResourceArn=arn, TagKeys=["env"])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "db"}]
    with pytest.raises(ddb.exceptions.ClientError) as e:
        ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": f"k{i}", "Value": "v"} for i in range(50)])
    assert error_of(e) == ("LimitExceededException", "The number of tags on a resource exceeds the limit of 50")
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "db"}]
    # a table that does not exist: not authorized, as DynamoDB answers
    with pytest.raises(ddb.exceptions.ClientError) as e:
        ddb.list_tags_of_resource(ResourceArn=arn.replace(name, unique("none")))
    assert error_of(e)[0] == "AccessDeniedException"

    # limits, endpoints, continuous backups
    limits = ddb.describe_limits()
    assert {"AccountMaxReadCapacityUnits", "AccountMaxWriteCapacityUnits",
            "TableMaxReadCapacityUnits", "TableMaxWriteCapacityUnits"} <= limits.keys()
    endpoints = ddb.describe_endpoints()["Endpoints"]
    assert endpoints and {"Address", "CachePeriodInMinutes"} <= endpoints[0].keys()
    backups = ddb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
    assert backups["ContinuousBackupsStatus"] in ("ENABLED", "DISABLED")
    assert "PointInTimeRecoveryDescription" in backups

    # deletion protection is enforced, and lifted by UpdateTable
    with pytest.raises(ddb.exceptions.ClientError) as e:
        ddb.delete_table(TableName=name)
    assert error_of(e) == ("ValidationException",
                           "Resource cannot be deleted as it is currently protected against deletion. "
                           "Disable deletion protection first.")
    assert ddb.describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE"
    with extra_params(ddb, "UpdateTable", {"DeletionProtectionEnabled": False}):
        ddb.update_table(TableName=name)
    assert raw_describe(ddb, name)["DeletionProtectionEnabled"] is False
    ddb.delete_table(TableName=name)
    ddb.get_waiter("table_not_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 10})
