"""Eventually consistent reads from a hot standby (--replica).

The module makes a real standby of the test cluster with pg_basebackup,
starts it on a free port beside the primary, and stops it at the end.
Reads are told apart by pausing the standby's replay
(pg_wal_replay_pause()) and then writing through the gateway: the
primary has the new value, the replica still the old one.
"""
import json
import os
import shlex
import shutil
import socket
import subprocess
import time
import urllib.request
import uuid

import pytest

from conftest import Gateway, client, conninfo_field, make_table, need, new_key, psql, unique, wait_until
from test_metrics import scrape

WAIT = 60


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_pg(*cmd):
    """Run a command as the cluster's OS user (pg_basebackup, pg_ctl)."""
    prefix = shlex.split(need("IT_GW_AS_PG"))
    return subprocess.run(prefix + list(cmd), cwd="/", capture_output=True, text=True, timeout=180)


class Standby:
    def __init__(self):
        admin = need("IT_GW_ADMIN")
        self.host = conninfo_field(admin, "host")
        self.db = conninfo_field(admin, "dbname")
        primary_port = conninfo_field(admin, "port")
        pgbin = need("IT_GW_PGBIN")
        self.pg_ctl = os.path.join(pgbin, "pg_ctl")
        self.port = free_port()
        # beside the primary's files: its socket directory is the cluster's
        # temporary directory, owned by the cluster's user
        self.data = os.path.join(self.host, f"standby_{uuid.uuid4().hex[:8]}")
        out = as_pg(os.path.join(pgbin, "pg_basebackup"), "-h", self.host, "-p", primary_port,
                    "-U", "postgres", "-D", self.data, "-R", "-X", "stream", "-c", "fast")
        assert out.returncode == 0, out.stderr
        conf = (f"\nport = {self.port}\nhot_standby = on\n"
                "max_standby_streaming_delay = -1\n")
        out = as_pg("sh", "-c", f"cat >> {shlex.quote(os.path.join(self.data, 'postgresql.auto.conf'))}"
                    f" <<'EOF'\n{conf}\nEOF\n")
        assert out.returncode == 0, out.stderr
        self.start()

    def start(self):
        out = as_pg(self.pg_ctl, "-D", self.data, "-l", self.data + ".log", "-w", "-t", "120", "start")
        assert out.returncode == 0, out.stdout + out.stderr
        assert wait_until(lambda: self.sql("SELECT pg_is_in_recovery()") == "t", timeout=WAIT)

    def stop(self):
        as_pg(self.pg_ctl, "-D", self.data, "-w", "-t", "60", "-m", "fast", "stop")

    def remove(self):
        self.stop()
        shutil.rmtree(self.data, ignore_errors=True)
        try:
            os.unlink(self.data + ".log")
        except OSError:
            pass

    def conninfo(self, user):
        return f"host={self.host} port={self.port} dbname={self.db} user={user}"

    def sql(self, sql):
        out = subprocess.run([need("IT_GW_PSQL"), "-X", "-qAt", "-d", self.conninfo("postgres"), "-c", sql],
                             capture_output=True, text=True)
        return out.stdout.strip() if out.returncode == 0 else None

    def pause(self):
        self.sql("SELECT pg_wal_replay_pause()")
        assert wait_until(lambda: self.sql("SELECT pg_get_wal_replay_pause_state()") == "paused",
                          timeout=WAIT)

    def resume(self):
        self.sql("SELECT pg_wal_replay_resume()")

    def caught_up(self, name=None):
        """Wait until the standby has replayed everything the primary has written.
        The test cluster commits with synchronous_commit off, so a commit's
        record can still be in the WAL buffers, past pg_current_wal_lsn():
        first a transaction of ours commits with synchronous_commit local, which
        flushes the WAL through every earlier commit.  Then, what the test
        reads next must be there: every table of the primary's catalog and,
        given a table, its item "k" as the primary has it."""
        psql("SET synchronous_commit = local; SELECT pg_catalog.txid_current()")
        lsn = psql("SELECT pg_current_wal_lsn()")
        assert wait_until(lambda: self.sql(f"SELECT pg_last_wal_replay_lsn() >= '{lsn}'") == "t",
                          timeout=WAIT)
        checks = ["SELECT count(*) FROM item_table.tables"]
        if name is not None:
            checks.append("SELECT item_table.dynamodb('GetItem', $j$" +
                          json.dumps({"TableName": name, "Key": {"pk": {"S": "k"}}}) + "$j$)::text")
        for sql in checks:
            want = psql(sql)
            if self.sql(sql) != want:
                # Replay past the position should have been enough; if it
                # ever is not, the test's output says so and by how much.
                t0 = time.monotonic()
                assert wait_until(lambda: self.sql(sql) == want, timeout=WAIT), \
                    f"standby replayed past {lsn} but answers {self.sql(sql)!r} to {sql!r}, not {want!r}"
                print(f"standby: replayed past {lsn}, but {sql!r} answered as the primary's "
                      f"{time.monotonic() - t0:.2f} s later")


@pytest.fixture(scope="module")
def standby():
    s = Standby()
    yield s
    s.resume()
    s.remove()


def metric(text, name, **labels):
    """The value of one series of a scrape (0 when absent)."""
    return scrape(text).get((name, tuple(sorted(labels.items()))), 0)


def metrics_of(g):
    with urllib.request.urlopen(g.url + "/metrics", timeout=30) as r:
        return r.read().decode()


def server_major():
    return int(psql("SHOW server_version_num")) // 10000


def item(c, name, consistent, table_key="k"):
    got = c.get_item(TableName=name, Key={"pk": {"S": table_key}}, ConsistentRead=consistent)
    return got.get("Item", {}).get("v", {}).get("N")


def test_eventual_reads_go_to_the_replica(start_gateway, standby, ddb):
    g = start_gateway("--replica", standby.conninfo("gw_login"), "--max-replica-lag", "60")
    c = client(g.url, *new_key("gw_app"))
    name = make_table(ddb, unique("rep"), sort=False)
    c.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"N": "1"}})
    standby.caught_up(name)
    assert wait_until(lambda: metric(metrics_of(g), "item_table_gateway_replica_healthy",
                                     pool="replica1") == 1, timeout=WAIT)
    standby.pause()
    try:
        c.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"N": "2"}})
        before = metrics_of(g)

        # eventually consistent: the replica's (old) value
        assert item(c, name, False) == "1"
        q = c.query(TableName=name, KeyConditionExpression="pk = :k",
                    ExpressionAttributeValues={":k": {"S": "k"}})
        assert [i["v"]["N"] for i in q["Items"]] == ["1"]
        s = c.scan(TableName=name)
        assert [i["v"]["N"] for i in s["Items"]] == ["1"]
        b = c.batch_get_item(RequestItems={name: {"Keys": [{"pk": {"S": "k"}}]}})
        assert b["Responses"][name][0]["v"]["N"] == "1"
        st = c.execute_statement(Statement=f'SELECT v FROM "{name}" WHERE pk = ?',
                                 Parameters=[{"S": "k"}])
        assert st["Items"] == [{"v": {"N": "1"}}]
        after = metrics_of(g)
        assert (metric(after, "item_table_gateway_pool_requests_total", pool="replica1") -
                metric(before, "item_table_gateway_pool_requests_total", pool="replica1")) == 5

        # strongly consistent, transactions, writes: the primary's
        assert item(c, name, True) == "2"
        q = c.query(TableName=name, KeyConditionExpression="pk = :k", ConsistentRead=True,
                    ExpressionAttributeValues={":k": {"S": "k"}})
        assert [i["v"]["N"] for i in q["Items"]] == ["2"]
        s = c.scan(TableName=name, ConsistentRead=True)
        assert [i["v"]["N"] for i in s["Items"]] == ["2"]
        b = c.batch_get_item(RequestItems={name: {"Keys": [{"pk": {"S": "k"}}], "ConsistentRead": True}})
        assert b["Responses"][name][0]["v"]["N"] == "2"
        st = c.execute_statement(Statement=f'SELECT v FROM "{name}" WHERE pk = ?',
                                 Parameters=[{"S": "k"}], ConsistentRead=True)
        assert st["Items"] == [{"v": {"N": "2"}}]
        t = c.transact_get_items(TransactItems=[{"Get": {"TableName": name, "Key": {"pk": {"S": "k"}}}}])
        assert t["Responses"][0]["Item"]["v"]["N"] == "2"
        c.update_item(TableName=name, Key={"pk": {"S": "k"}}, UpdateExpression="SET v = v + :one",
                      ExpressionAttributeValues={":one": {"N": "1"}})
        assert item(c, name, True) == "3"
        assert item(c, name, False) == "1"
        final = metrics_of(g)
        assert (metric(final, "item_table_gateway_pool_requests_total", pool="replica1") -
                metric(after, "item_table_gateway_pool_requests_total", pool="replica1")) == 1
    finally:
        standby.resume()
    standby.caught_up(name)
    assert item(c, name, False) == "3"
    ddb.delete_table(TableName=name)


def test_the_callers_role_holds_on_the_replica(start_gateway, standby, ddb):
    g = start_gateway("--replica", standby.conninfo("gw_login"), "--max-replica-lag", "60")
    name = make_table(ddb, unique("reprole"))
    ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"N": "1"}})
    reader_key = new_key("gw_reader")        # a role with no rights on the table
    standby.caught_up(name)
    assert wait_until(lambda: metric(metrics_of(g), "item_table_gateway_replica_healthy",
                                     pool="replica1") == 1, timeout=WAIT)
    before = metrics_of(g)
    c = client(g.url, *reader_key)
    with pytest.raises(c.exceptions.ClientError) as e:
        c.get_item(TableName=name, Key={"pk": {"S": "k"}})
    assert e.value.response["Error"]["Code"] == "AccessDeniedException"
    assert item(client(g.url, *new_key("gw_app")), name, False) == "1"
    after = metrics_of(g)
    assert (metric(after, "item_table_gateway_pool_requests_total", pool="replica1") -
            metric(before, "item_table_gateway_pool_requests_total", pool="replica1")) == 2
    ddb.delete_table(TableName=name)


def test_a_lagging_replica_is_skipped(start_gateway, standby, ddb):
    g = start_gateway("--replica", standby.conninfo("gw_login"), "--max-replica-lag", "0.5")
    c = client(g.url, *new_key("gw_app"))
    name = make_table(ddb, unique("lag"))
    c.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"N": "1"}})
    standby.caught_up(name)
    # an idle primary is no lag, however long since its last write
    time.sleep(1.5)
    m = metrics_of(g)
    assert metric(m, "item_table_gateway_replica_healthy", pool="replica1") == 1, m
    assert metric(m, "item_table_gateway_replica_lag_seconds", pool="replica1") < 0.5, m
    standby.pause()
    try:
        c.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"N": "2"}})
        assert wait_until(lambda: metric(metrics_of(g), "item_table_gateway_replica_healthy",
                                         pool="replica1") == 0, timeout=WAIT)
        m = metrics_of(g)
        assert metric(m, "item_table_gateway_replica_lag_seconds", pool="replica1") > 0.5, m
        before = metric(m, "item_table_gateway_replica_fallbacks_total")
        # skipped: the eventually consistent read is the primary's
        assert item(c, name, False) == "2"
        assert metric(metrics_of(g), "item_table_gateway_replica_fallbacks_total") == before + 1
    finally:
        standby.resume()
    standby.caught_up(name)
    assert wait_until(lambda: metric(metrics_of(g), "item_table_gateway_replica_healthy",
                                     pool="replica1") == 1, timeout=WAIT)
    before = metric(metrics_of(g), "item_table_gateway_pool_requests_total", pool="replica1")
    assert item(c, name, False) == "2"
    assert metric(metrics_of(g), "item_table_gateway_pool_requests_total", pool="replica1") == before + 1
    ddb.delete_table(TableName=name)


def test_an_unreachable_replica_falls_back_to_the_primary(start_gateway, ddb):
    dead = f"host=127.0.0.1 port={free_port()} dbname=nowhere user=nobody connect_timeout=2"
    g = start_gateway("--replica", dead)
    c = client(g.url, *new_key("gw_app"))
    name = make_table(ddb, unique("dead"))
    c.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"N": "1"}})
    assert item(c, name, False) == "1"
    m = metrics_of(g)
    assert metric(m, "item_table_gateway_replica_healthy", pool="replica1") == 0
    assert metric(m, "item_table_gateway_replica_lag_seconds", pool="replica1") == -1
    assert metric(m, "item_table_gateway_pool_requests_total", pool="replica1") == 0
    assert metric(m, "item_table_gateway_replica_fallbacks_total") >= 1
    ddb.delete_table(TableName=name)


def test_a_stopped_replica_falls_back_to_the_primary(start_gateway, standby, ddb):
    g = start_gateway("--replica", standby.conninfo("gw_login"), "--max-replica-lag", "60")
    c = client(g.url, *new_key("gw_app"))
    name = make_table(ddb, unique("stop"))
    c.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"N": "1"}})
    standby.caught_up(name)
    assert wait_until(lambda: metric(metrics_of(g), "item_table_gateway_replica_healthy",
                                     pool="replica1") == 1, timeout=WAIT)
    assert item(c, name, False) == "1"          # a replica connection is made
    standby.stop()
    try:
        # at once, before the monitor notices: the read runs again on the primary
        for _ in range(5):
            assert item(c, name, False) == "1"
        assert wait_until(lambda: metric(metrics_of(g), "item_table_gateway_replica_healthy",
                                         pool="replica1") == 0, timeout=WAIT)
        assert item(c, name, False) == "1"
    finally:
        standby.start()
    assert wait_until(lambda: metric(metrics_of(g), "item_table_gateway_replica_healthy",
                                     pool="replica1") == 1, timeout=WAIT)
    ddb.delete_table(TableName=name)


def test_replicas_from_a_configuration_file(tmp_path):
    """replica lines add pools in their order; bad values name the file and line."""
    conf = tmp_path / "gateway.conf"
    dead = [f"host=127.0.0.1 port={free_port()} dbname=nowhere connect_timeout=1" for _ in range(2)]
    conf.write_text(f"replica = {dead[0]}\nreplica = {dead[1]}\nmax-replica-lag = 0.25\n")
    g = Gateway("--auth", "none", "--config", str(conf))
    try:
        m = metrics_of(g)
        for name in ("replica1", "replica2"):
            assert metric(m, "item_table_gateway_replica_healthy", pool=name) == 0, m
            assert metric(m, "item_table_gateway_pool_connections", pool=name) > 0, m
        assert ("item_table_gateway_replica_healthy", (("pool", "replica3"),)) not in scrape(m)
    finally:
        g.stop()
    for text, message in [("max-replica-lag = 0\n", 'invalid value for max-replica-lag: "0"'),
                          ("max-replica-lag = 1s\n", 'invalid value for max-replica-lag: "1s"'),
                          ("metrics-port = 0\n", 'invalid value for metrics-port: "0"')]:
        conf.write_text(text)
        out = subprocess.run([need("IT_GW_BIN"), "--config", str(conf)], capture_output=True, text=True,
                             timeout=30)
        assert out.returncode == 2 and f"{conf}:1: {message}" in out.stderr, out.stderr


def test_how_the_body_is_read(start_gateway, standby, ddb):
    """The gateway reads no JSON: an escaped letter (a disguised member name)
    sends a read to the primary; other escapes, ConsistentRead false and a
    lower-case select do not."""
    from test_metrics import post
    g = start_gateway("--auth", "none", "--replica", standby.conninfo("postgres"),
                      "--max-replica-lag", "60", conninfo=need("IT_GW_ADMIN"))
    name = make_table(ddb, unique("body"))
    for pk in ("k", "k\u00e9"):
        ddb.put_item(TableName=name, Item={"pk": {"S": pk}, "v": {"N": "1"}})
    standby.caught_up(name)
    assert wait_until(lambda: metric(metrics_of(g), "item_table_gateway_replica_healthy",
                                     pool="replica1") == 1, timeout=WAIT)
    standby.pause()
    try:
        for pk in ("k", "k\u00e9"):
            ddb.put_item(TableName=name, Item={"pk": {"S": pk}, "v": {"N": "2"}})

        def v(action, text):
            status, _, body = post(g.url, action, None, raw=text)
            assert status == 200, body
            out = json.loads(body)
            items = [out["Item"]] if "Item" in out else out["Items"]
            return [i["v"]["N"] for i in items]

        key = '"Key": {"pk": {"S": "k"}}'
        assert v("GetItem", f'{{"TableName": "{name}", {key}}}') == ["1"]
        assert v("GetItem", f'{{"TableName": "{name}", {key}, "ConsistentRead" : false}}') == ["1"]
        assert v("GetItem", f'{{"TableName": "{name}", {key}, "ConsistentRead" :\n true}}') == ["2"]
        assert v("GetItem", f'{{"TableName": "{name}", {key}, "Consistent\\u0052ead": true}}') == ["2"]
        assert v("GetItem", f'{{"TableName": "{name}", "Key": {{"pk": {{"S": "k\\u00e9"}}}}}}') == ["1"]
        assert v("ExecuteStatement",
                 f'{{"Statement": "  select v FROM \\"{name}\\" WHERE pk = \'k\'"}}') == ["1"]
        assert v("ExecuteStatement",
                 f'{{"Statement": "\\u0053ELECT v FROM \\"{name}\\" WHERE pk = \'k\'"}}') == ["2"]
    finally:
        standby.resume()
    ddb.delete_table(TableName=name)


def test_index_reads_on_the_replica(start_gateway, standby, ddb):
    g = start_gateway("--replica", standby.conninfo("gw_login"), "--max-replica-lag", "60")
    c = client(g.url, *new_key("gw_app"))
    name = unique("repidx")
    c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                         {"AttributeName": "g", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                   GlobalSecondaryIndexes=[{"IndexName": "byg",
                                            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                            "Projection": {"ProjectionType": "ALL"}}])
    c.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    c.put_item(TableName=name, Item={"pk": {"S": "k"}, "g": {"S": "a"}, "v": {"N": "1"}})
    standby.caught_up(name)
    assert wait_until(lambda: metric(metrics_of(g), "item_table_gateway_replica_healthy",
                                     pool="replica1") == 1, timeout=WAIT)
    standby.pause()
    try:
        c.put_item(TableName=name, Item={"pk": {"S": "k"}, "g": {"S": "a"}, "v": {"N": "2"}})
        before = metrics_of(g)
        q = c.query(TableName=name, IndexName="byg", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": {"S": "a"}})
        assert [i["v"]["N"] for i in q["Items"]] == ["1"]
        s = c.scan(TableName=name, IndexName="byg")
        assert [i["v"]["N"] for i in s["Items"]] == ["1"]
        after = metrics_of(g)
        assert (metric(after, "item_table_gateway_pool_requests_total", pool="replica1") -
                metric(before, "item_table_gateway_pool_requests_total", pool="replica1")) == 2
        assert metric(after, "item_table_gateway_replica_refusals_total") == 0
    finally:
        standby.resume()
    ddb.delete_table(TableName=name)


def test_a_table_the_replica_lacks_is_read_on_the_primary(start_gateway, standby, ddb):
    """A table made while the replica's replay is stopped: the replica answers
    ResourceNotFoundException, and the read runs again on the primary."""
    g = start_gateway("--replica", standby.conninfo("gw_login"), "--max-replica-lag", "60")
    c = client(g.url, *new_key("gw_app"))
    standby.caught_up()
    assert wait_until(lambda: metric(metrics_of(g), "item_table_gateway_replica_healthy",
                                     pool="replica1") == 1, timeout=WAIT)
    standby.pause()
    try:
        name = make_table(ddb, unique("new"))
        c.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"N": "1"}})
        missing = unique("none")
        before = metrics_of(g)
        assert item(c, name, False) == "1"
        q = c.query(TableName=name, KeyConditionExpression="pk = :k",
                    ExpressionAttributeValues={":k": {"S": "k"}})
        assert [i["v"]["N"] for i in q["Items"]] == ["1"]
        # a table that is nowhere: the primary's answer
        with pytest.raises(c.exceptions.ResourceNotFoundException):
            c.get_item(TableName=missing, Key={"pk": {"S": "k"}})
        after = metrics_of(g)
        assert (metric(after, "item_table_gateway_replica_refusals_total") -
                metric(before, "item_table_gateway_replica_refusals_total")) == 3
        assert (metric(after, "item_table_gateway_pool_requests_total", pool="replica1") -
                metric(before, "item_table_gateway_pool_requests_total", pool="replica1")) == 3
    finally:
        standby.resume()
    standby.caught_up(name)
    before = metrics_of(g)
    assert item(c, name, False) == "1"
    after = metrics_of(g)
    assert metric(after, "item_table_gateway_replica_refusals_total") == \
        metric(before, "item_table_gateway_replica_refusals_total")
    ddb.delete_table(TableName=name)
