"""ExportTableToPointInTime and ImportTable through the gateway, with boto3:
an export that answers IN_PROGRESS and is run by the background worker,
waited for with the SDK's export_completed waiter, its files in DynamoDB's layout, the
import of that export (import_table, describe_import polled, the
import_completed and table_exists waiters), list_exports and list_imports, and the errors
DynamoDB names.  The bucket is a temporary directory registered by the
superuser and granted to the gateway's role."""
import gzip
import json
import os
import shutil
import stat
import tempfile
import time

import botocore.exceptions
import pytest

from conftest import psql, unique

WAIT = {"Delay": 1, "MaxAttempts": 30}


@pytest.fixture(scope="module")
def bucket():
    d = tempfile.mkdtemp(prefix="it_bucket_")
    # the server's account writes and reads it
    os.chmod(d, stat.S_IRWXU | stat.S_IRWXG | stat.S_IRWXO)
    name = "gw-" + unique("b").replace("_", "-").lower()
    psql(f"SELECT item_table.create_bucket('{name}', '{d}')")
    psql(f"SELECT item_table.grant_bucket('{name}', 'gw_app', true, true)")
    yield name, d
    psql(f"SELECT item_table.drop_bucket('{name}')")
    shutil.rmtree(d, ignore_errors=True)


def make_source(ddb, name):
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "g", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                              "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                              "Projection": {"ProjectionType": "ALL"}}])
    ddb.get_waiter("table_exists").wait(TableName=name, WaiterConfig=WAIT)


def scan_all(ddb, name):
    kw = {"TableName": name}
    items = []
    while True:
        page = ddb.scan(**kw)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return sorted(items, key=lambda i: i["pk"]["S"])
        kw["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def table_arn(name):
    return f"arn:aws:dynamodb:local:000000000000:table/{name}"


def wait_for(ddb, waiter, status, **args):
    """The SDK's waiter when this botocore has it (export_completed and
    import_completed came in 2023), else the same polling by hand: until
    the status is no longer IN_PROGRESS (60 s at most)."""
    if waiter in ddb.waiter_names:
        ddb.get_waiter(waiter).wait(WaiterConfig={"Delay": 1, "MaxAttempts": 60}, **args)
        return
    for _ in range(120):
        if status() != "IN_PROGRESS":
            return
        time.sleep(0.5)


def test_export_then_import(ddb, bucket):
    name, directory = bucket
    src, dst = unique("ex"), unique("ex_imp")
    make_source(ddb, src)
    try:
        with pytest.raises(botocore.exceptions.ClientError) as e:
            ddb.export_table_to_point_in_time(TableArn=table_arn(src), S3Bucket=name)
        assert e.value.response["Error"]["Code"] == "PointInTimeRecoveryUnavailableException"
        ddb.update_continuous_backups(TableName=src, PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        for i in range(50):
            ddb.put_item(TableName=src, Item={"pk": {"S": f"k{i:02}"}, "g": {"S": f"g{i % 4}"},
                                              "n": {"N": str(i)}, "b": {"B": bytes([i, 0, 255])},
                                              "ss": {"SS": ["a", f"s{i}"]},
                                              "m": {"M": {"l": {"L": [{"BOOL": True}, {"NULL": True}]}}}})
        before = scan_all(ddb, src)

        desc = ddb.export_table_to_point_in_time(TableArn=table_arn(src), S3Bucket=name,
                                                 S3Prefix="gw/run")["ExportDescription"]
        arn = desc["ExportArn"]
        assert arn.startswith(table_arn(src) + "/export/")
        # the worker exports: the call answers at once
        assert desc["ExportStatus"] == "IN_PROGRESS" and "ExportManifest" not in desc
        wait_for(ddb, "export_completed", lambda: ddb.describe_export(ExportArn=arn)["ExportDescription"]
                 ["ExportStatus"], ExportArn=arn)
        desc = ddb.describe_export(ExportArn=arn)["ExportDescription"]
        assert desc["ExportStatus"] == "COMPLETED"
        assert desc["ItemCount"] == 50 and desc["ExportFormat"] == "DYNAMODB_JSON"
        # the files, as DynamoDB lays them out
        export_id = arn.rsplit("/", 1)[1]
        base = os.path.join(directory, "gw/run/AWSDynamoDB", export_id)
        summary = json.load(open(os.path.join(base, "manifest-summary.json")))
        assert summary["itemCount"] == 50 and summary["exportArn"] == arn
        files = [json.loads(l) for l in open(os.path.join(base, "manifest-files.json"))]
        assert len(files) == 1 and files[0]["itemCount"] == 50
        with gzip.open(os.path.join(directory, files[0]["dataFileS3Key"]), "rt") as f:
            lines = [json.loads(l) for l in f]
        assert sorted((l["Item"] for l in lines), key=lambda i: i["pk"]["S"])[0]["b"] == {"B": "AAD/"}
        summaries = ddb.list_exports(TableArn=table_arn(src))["ExportSummaries"]
        assert [s["ExportArn"] for s in summaries] == [arn]

        imp = ddb.import_table(
            S3BucketSource={"S3Bucket": name, "S3KeyPrefix": f"gw/run/AWSDynamoDB/{export_id}/data/"},
            InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
            TableCreationParameters={
                "TableName": dst, "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                         {"AttributeName": "g", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "GlobalSecondaryIndexes": [{"IndexName": "by_g",
                                            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                            "Projection": {"ProjectionType": "ALL"}}]})["ImportTableDescription"]
        import_arn = imp["ImportArn"]
        wait_for(ddb, "import_completed", lambda: ddb.describe_import(ImportArn=import_arn)
                 ["ImportTableDescription"]["ImportStatus"], ImportArn=import_arn)
        imp = ddb.describe_import(ImportArn=import_arn)["ImportTableDescription"]
        assert imp["ImportStatus"] == "COMPLETED"
        assert imp["ImportedItemCount"] == 50 and imp["ErrorCount"] == 0
        ddb.get_waiter("table_exists").wait(TableName=dst, WaiterConfig=WAIT)
        assert scan_all(ddb, dst) == before
        got = ddb.query(TableName=dst, IndexName="by_g", KeyConditionExpression="g = :g",
                        ExpressionAttributeValues={":g": {"S": "g1"}})
        assert got["Count"] == 13
        listed = ddb.list_imports(TableArn=table_arn(dst))["ImportSummaryList"]
        assert [s["ImportArn"] for s in listed] == [import_arn]
        assert listed[0]["ImportStatus"] == "COMPLETED"
    finally:
        for t in (src, dst):
            try:
                ddb.delete_table(TableName=t)
            except Exception:
                pass


def test_export_import_errors(ddb, bucket):
    name, _ = bucket
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ddb.describe_export(ExportArn=table_arn("nope") + "/export/01234567890123-abcdef01")
    assert e.value.response["Error"]["Code"] == "ExportNotFoundException"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ddb.describe_import(ImportArn=table_arn("nope") + "/import/01234567890123-abcdef01")
    assert e.value.response["Error"]["Code"] == "ImportNotFoundException"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ddb.export_table_to_point_in_time(TableArn=table_arn("nope_" + unique("x")), S3Bucket=name)
    assert e.value.response["Error"]["Code"] == "TableNotFoundException"


def test_ion_import(ddb, bucket):
    """A hand-written ION export (gzip) imported: a value over two lines,
    a set, a blob, a number with an exponent; a bad value counted."""
    name, directory = bucket
    prefix = unique("ion")
    os.makedirs(os.path.join(directory, prefix, "data"))
    with gzip.open(os.path.join(directory, prefix, "data", "a.ion.gz"), "wt") as f:
        f.write('$ion_1_0 {Item:{pk:"i1",n:15d-1,s:$dynamodb_SS::["x","y"],b:{{AAE=}}}}\n'
                '{Item:{pk:"i2", // a comment\n  m:{l:[true,null]}}}\n'
                '{Item:{pk:"i3",n:nan}}\n')
    dst = unique("ion_imp")
    imp = ddb.import_table(
        S3BucketSource={"S3Bucket": name, "S3KeyPrefix": prefix + "/"},
        InputFormat="ION", InputCompressionType="GZIP",
        TableCreationParameters={
            "TableName": dst, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})["ImportTableDescription"]
    try:
        for _ in range(30):
            imp = ddb.describe_import(ImportArn=imp["ImportArn"])["ImportTableDescription"]
            if imp["ImportStatus"] != "IN_PROGRESS":
                break
            time.sleep(1)
        assert imp["ImportStatus"] == "COMPLETED" and imp["InputFormat"] == "ION"
        assert imp["ImportedItemCount"] == 2 and imp["ErrorCount"] == 1
        ddb.get_waiter("table_exists").wait(TableName=dst, WaiterConfig=WAIT)
        assert scan_all(ddb, dst) == [
            {"pk": {"S": "i1"}, "n": {"N": "1.5"}, "s": {"SS": ["x", "y"]}, "b": {"B": b"\x00\x01"}},
            {"pk": {"S": "i2"}, "m": {"M": {"l": {"L": [{"BOOL": True}, {"NULL": True}]}}}}]
    finally:
        ddb.delete_table(TableName=dst)
