"""On-demand backups and point-in-time recovery through the gateway, with
boto3: CreateBackup, DescribeBackup, ListBackups (filters, pagination),
DeleteBackup, RestoreTableFromBackup after the source is deleted (the
table_exists waiter), UpdateContinuousBackups / DescribeContinuousBackups,
RestoreTableToPointInTime at three chosen times while a writer runs, the
errors DynamoDB names, and the owner's rights."""
import contextlib
import json
import random
import threading
import time

import pytest

from conftest import client, new_key, psql, unique

WAIT = {"Delay": 1, "MaxAttempts": 30}


def error_of(excinfo):
    err = excinfo.value.response["Error"]
    return err["Code"], err.get("Message", "")


@contextlib.contextmanager
def extra_params(ddb, operation, params):
    """Members an old botocore does not know (RecoveryPeriodInDays), added
    to the signed body."""
    def add(request, **kw):
        body = json.loads(request.body)
        body.update(params)
        request.data = json.dumps(body).encode()

    ddb.meta.events.register(f"before-sign.dynamodb.{operation}", add)
    try:
        yield
    finally:
        ddb.meta.events.unregister(f"before-sign.dynamodb.{operation}", add)


def raw_call(ddb, operation, call):
    """The body of one response as the gateway sent it (an old botocore
    drops members it does not know)."""
    raw = {}

    def keep(http_response, **kw):
        raw["body"] = http_response.content

    ddb.meta.events.register(f"after-call.dynamodb.{operation}", keep)
    try:
        call()
    finally:
        ddb.meta.events.unregister(f"after-call.dynamodb.{operation}", keep)
    return json.loads(raw["body"])


def make_gsi_table(ddb, name):
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "g", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                              "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                              "Projection": {"ProjectionType": "ALL"}}])
    ddb.get_waiter("table_exists").wait(TableName=name, WaiterConfig=WAIT)


def scan_all(ddb, name, index=None):
    kw = {"TableName": name}
    if index:
        kw["IndexName"] = index
    items = []
    while True:
        page = ddb.scan(**kw)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        kw["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def by_pk(items):
    return {i["pk"]["S"]: i for i in items}


def drop(ddb, *names):
    for n in names:
        with contextlib.suppress(Exception):
            ddb.delete_table(TableName=n)


def test_backup_restore_after_delete(ddb):
    src, back = unique("bk"), unique("bk_back")
    make_gsi_table(ddb, src)
    try:
        for i in range(30):
            ddb.put_item(TableName=src, Item={"pk": {"S": f"k{i}"}, "g": {"S": f"g{i % 3}"},
                                              "n": {"N": str(i)}, "b": {"B": bytes([i])},
                                              "ss": {"SS": ["a", f"s{i}"]}})
        before = by_pk(scan_all(ddb, src))
        details = ddb.create_backup(TableName=src, BackupName="nightly")["BackupDetails"]
        arn = details["BackupArn"]
        assert details["BackupStatus"] == "AVAILABLE" and details["BackupType"] == "USER"
        assert arn.startswith(f"arn:aws:dynamodb:local:000000000000:table/{src}/backup/")
        ddb.create_backup(TableName=src, BackupName="second")
        # writes after the backup are not in it
        ddb.put_item(TableName=src, Item={"pk": {"S": "later"}, "g": {"S": "g0"}})
        ddb.delete_item(TableName=src, Key={"pk": {"S": "k0"}})

        desc = ddb.describe_backup(BackupArn=arn)["BackupDescription"]
        assert desc["BackupDetails"]["BackupName"] == "nightly"
        assert desc["SourceTableDetails"]["TableName"] == src
        assert desc["SourceTableDetails"]["ItemCount"] == 30
        assert [g["IndexName"] for g in desc["SourceTableFeatureDetails"]["GlobalSecondaryIndexes"]] == ["by_g"]

        mine = ddb.list_backups(TableName=src)["BackupSummaries"]
        assert [b["BackupName"] for b in mine] == ["nightly", "second"]
        page = ddb.list_backups(TableName=src, Limit=1)
        assert [b["BackupName"] for b in page["BackupSummaries"]] == ["nightly"]
        assert page["LastEvaluatedBackupArn"] == arn
        page = ddb.list_backups(TableName=src, Limit=1, ExclusiveStartBackupArn=arn)
        assert [b["BackupName"] for b in page["BackupSummaries"]] == ["second"]
        assert ddb.list_backups(TableName=src, TimeRangeUpperBound=time.time() - 3600)["BackupSummaries"] == []
        assert ddb.list_backups(TableName=src, BackupType="SYSTEM")["BackupSummaries"] == []

        ddb.delete_table(TableName=src)
        ddb.get_waiter("table_not_exists").wait(TableName=src, WaiterConfig=WAIT)
        assert len(ddb.list_backups(TableName=src)["BackupSummaries"]) == 2

        ddb.restore_table_from_backup(TargetTableName=back, BackupArn=arn)
        ddb.get_waiter("table_exists").wait(TableName=back, WaiterConfig=WAIT)
        assert by_pk(scan_all(ddb, back)) == before
        assert len(scan_all(ddb, back, "by_g")) == 30
        summary = raw_call(ddb, "DescribeTable", lambda: ddb.describe_table(TableName=back))["Table"]["RestoreSummary"]
        assert summary["SourceBackupArn"] == arn and summary["RestoreInProgress"] is False
        assert summary["SourceTableArn"].endswith(f":table/{src}")

        # a target that exists, a backup that does not
        with pytest.raises(ddb.exceptions.ClientError) as e:
            ddb.restore_table_from_backup(TargetTableName=back, BackupArn=arn)
        assert error_of(e) == ("TableAlreadyExistsException", f"Table already exists: {back}")
        gone = arn[:-8] + "00000000"
        with pytest.raises(ddb.exceptions.ClientError) as e:
            ddb.describe_backup(BackupArn=gone)
        assert error_of(e) == ("BackupNotFoundException", f"Backup not found: {gone}")

        deleted = ddb.delete_backup(BackupArn=arn)["BackupDescription"]["BackupDetails"]
        assert deleted["BackupStatus"] == "DELETED"
        with pytest.raises(ddb.exceptions.ClientError) as e:
            ddb.delete_backup(BackupArn=arn)
        assert error_of(e)[0] == "BackupNotFoundException"
    finally:
        for b in ddb.list_backups(TableName=src)["BackupSummaries"]:
            ddb.delete_backup(BackupArn=b["BackupArn"])
        drop(ddb, src, back)


def test_continuous_backups_settings(ddb):
    name = unique("pitr")
    make_gsi_table(ddb, name)
    try:
        off = ddb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
        assert off["ContinuousBackupsStatus"] == "ENABLED"
        assert off["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "DISABLED"
        with pytest.raises(ddb.exceptions.ClientError) as e:
            ddb.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=unique("never"),
                                               UseLatestRestorableTime=True)
        assert error_of(e)[0] == "PointInTimeRecoveryUnavailableException"

        with extra_params(ddb, "UpdateContinuousBackups",
                          {"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True,
                                                                "RecoveryPeriodInDays": 36}}):
            with pytest.raises(ddb.exceptions.ClientError) as e:
                ddb.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
                    "PointInTimeRecoveryEnabled": True})
        assert error_of(e) == ("ValidationException",
                               "1 validation error detected: Value '36' at "
                               "'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy "
                               "constraint: Member must have value less than or equal to 35")
        with extra_params(ddb, "UpdateContinuousBackups",
                          {"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True,
                                                                "RecoveryPeriodInDays": 10}}):
            on = raw_call(ddb, "UpdateContinuousBackups", lambda: ddb.update_continuous_backups(
                TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}))
        pitr = on["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
        assert pitr["PointInTimeRecoveryStatus"] == "ENABLED" and pitr["RecoveryPeriodInDays"] == 10
        d = ddb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
        p = d["PointInTimeRecoveryDescription"]
        assert p["EarliestRestorableDateTime"] <= p["LatestRestorableDateTime"]
        with pytest.raises(ddb.exceptions.ClientError) as e:
            ddb.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=unique("never"),
                                               RestoreDateTime=p["EarliestRestorableDateTime"].timestamp() - 60)
        assert error_of(e)[0] == "InvalidRestoreTimeException"
        with pytest.raises(ddb.exceptions.ClientError) as e:
            ddb.describe_continuous_backups(TableName=unique("none"))
        assert error_of(e)[0] == "TableNotFoundException"
        ddb.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": False})
        off = ddb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
        assert off["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "DISABLED"
    finally:
        drop(ddb, name)


def test_point_in_time_three_times_while_writing(ddb, endpoint, app_key):
    """A writer keeps changing 40 items (puts, updates, deletes) through its
    own connection; at three moments it pauses for a moment, and the time
    of a whole second inside the pause is chosen.  Each restore, made while the
    writer runs again, must equal the writer's log replayed up to that
    moment."""
    name = unique("pitr_w")
    make_gsi_table(ddb, name)
    targets = []
    try:
        for i in range(40):
            ddb.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}, "g": {"S": "g0"}, "v": {"N": "0"}})
        ddb.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        state = {f"k{i}": {"pk": {"S": f"k{i}"}, "g": {"S": "g0"}, "v": {"N": "0"}} for i in range(40)}
        lock = threading.Lock()
        pause, paused, stop = threading.Event(), threading.Event(), threading.Event()
        failures = []

        def writer():
            w = client(endpoint, *app_key)
            rnd = random.Random(29)
            n = 0
            try:
                while not stop.is_set():
                    if pause.is_set():
                        paused.set()
                        time.sleep(0.01)
                        continue
                    paused.clear()
                    n += 1
                    k = f"k{rnd.randrange(40)}"
                    op = rnd.random()
                    if op < 0.5:
                        item = {"pk": {"S": k}, "g": {"S": f"g{n % 4}"}, "v": {"N": str(n)}}
                        w.put_item(TableName=name, Item=item)
                        with lock:
                            state[k] = item
                    elif op < 0.8:
                        r = w.update_item(TableName=name, Key={"pk": {"S": k}}, UpdateExpression="SET v = :v",
                                          ExpressionAttributeValues={":v": {"N": str(n)}}, ReturnValues="ALL_NEW")
                        with lock:
                            state[k] = r["Attributes"]
                    else:
                        w.delete_item(TableName=name, Key={"pk": {"S": k}})
                        with lock:
                            state.pop(k, None)
            except Exception as exc:     # reported by the test below
                failures.append(exc)

        t = threading.Thread(target=writer)
        t.start()
        chosen = []
        time.sleep(1)
        for _ in range(3):
            time.sleep(0.7)
            pause.set()
            assert paused.wait(10)
            # a whole second inside the pause: an SDK may send whole seconds
            at = int(time.time()) + 1
            time.sleep(at - time.time() + 0.15)
            with lock:
                chosen.append((at, json.loads(json.dumps(state))))
            pause.clear()
        time.sleep(0.5)
        # restores while the writer goes on
        for i, (at, _) in enumerate(chosen):
            target = unique(f"pitr_r{i}")
            targets.append(target)
            ddb.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=target, RestoreDateTime=at)
            ddb.get_waiter("table_exists").wait(TableName=target, WaiterConfig=WAIT)
        stop.set()
        t.join(30)
        assert not failures, failures
        for target, (at, expected) in zip(targets, chosen):
            assert by_pk(scan_all(ddb, target)) == expected, f"restore at {at}"
            assert sorted(i["pk"]["S"] for i in scan_all(ddb, target, "by_g")) == sorted(
                k for k, v in expected.items() if "g" in v)
        assert chosen[0][1] != chosen[2][1]
    finally:
        stop.set()
        drop(ddb, name, *targets)


def test_backup_rights(ddb, endpoint):
    """gw_reader may read gw_app's table but owns it not: no backup, no
    recovery switch, no restore; its restore leaves no table behind."""
    name = unique("bk_rights")
    make_gsi_table(ddb, name)
    reader = client(endpoint, *new_key("gw_reader"))
    try:
        ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "g": {"S": "x"}})
        psql(f'GRANT SELECT ON item_data."{name}" TO gw_reader')
        arn = ddb.create_backup(TableName=name, BackupName="owned")["BackupDetails"]["BackupArn"]
        ddb.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        calls = [
            lambda: reader.create_backup(TableName=name, BackupName="theirs"),
            lambda: reader.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
                "PointInTimeRecoveryEnabled": False}),
            lambda: reader.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=name + "_x",
                                                          UseLatestRestorableTime=True),
            lambda: reader.restore_table_from_backup(TargetTableName=name + "_x", BackupArn=arn),
            lambda: reader.delete_backup(BackupArn=arn),
        ]
        for call in calls:
            with pytest.raises(reader.exceptions.ClientError) as e:
                call()
            assert error_of(e)[0] == "AccessDeniedException"
        assert name + "_x" not in ddb.list_tables()["TableNames"]
        assert ddb.describe_backup(BackupArn=arn)["BackupDescription"]["BackupDetails"]["BackupStatus"] == "AVAILABLE"
        ddb.delete_backup(BackupArn=arn)
    finally:
        drop(ddb, name)
