"""The connection pool, PostgreSQL restarts, shutdown, TLS and --auth none."""
import os
import shutil
import socket
import subprocess
import threading
import time
import urllib.parse

import pytest

from conftest import client, make_table, need, new_key, psql, unique, wait_until

# bounded waits for a condition: generous, since on a loaded machine each
# poll (a psql) and each request may take a second or more
WAIT = 60


class TableLock:
    """A psql session holding ACCESS EXCLUSIVE on an item table, so that a
    request on it blocks (and holds its pooled connection) until released."""

    def __init__(self, name):
        self.p = subprocess.Popen([need("IT_GW_PSQL"), "-X", "-qAt", "-v", "ON_ERROR_STOP=1", "-d", need("IT_GW_ADMIN")],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.p.stdin.write(f'BEGIN;\nLOCK TABLE item_data."{name}" IN ACCESS EXCLUSIVE MODE;\n\\echo locked\n')
        self.p.stdin.flush()
        assert self.p.stdout.readline().strip() == "locked"

    def release(self):
        self.p.stdin.write("COMMIT;\n")
        self.p.stdin.close()
        self.p.wait(10)


def in_thread(fn):
    out = {}

    def run():
        try:
            out["result"] = fn()
        except Exception as e:          # noqa: BLE001 - reported by the test
            out["error"] = e

    t = threading.Thread(target=run)
    t.start()
    return t, out


def waiting_on_lock(name):
    return psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND usename = 'gw_login'") != "0"


@pytest.mark.parametrize("args", [
    # four loops sharing one session
    ("--pool", "1", "--threads", "4", "--pool-wait", "300"),
    # one loop whose own session is held (the loop engine's queue; with
    # libmicrohttpd's single thread a lone request runs on it, blocked)
    pytest.param(("--pool", "1", "--threads", "1", "--pool-wait", "300"),
                 marks=pytest.mark.skipif(os.environ.get("IT_GW_ENGINE") == "mhd",
                                          reason="libmicrohttpd's one thread runs a lone request itself")),
], ids=["shared", "own-loop"])
def test_pool_exhausted_answers_throttling(start_gateway, ddb, args):
    g = start_gateway(*args)
    c = client(g.url, *new_key("gw_app"), retries=0)
    name = make_table(ddb, unique("busy"))
    ddb.put_item(TableName=name, Item={"pk": {"S": "k"}})
    lock = TableLock(name)
    try:
        t, out = in_thread(lambda: c.get_item(TableName=name, Key={"pk": {"S": "k"}}))
        assert wait_until(lambda: waiting_on_lock(name), timeout=WAIT)
        t0 = time.monotonic()
        with pytest.raises(c.exceptions.ClientError) as e:
            c.list_tables()
        assert e.value.response["Error"]["Code"] == "ThrottlingException"
        assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
        # --pool-wait 300: not before, and not much later than scheduling allows
        assert 0.25 <= time.monotonic() - t0 < 30
    finally:
        lock.release()
    t.join(WAIT)
    assert out.get("result", {}).get("Item") == {"pk": {"S": "k"}}, out
    assert "TableNames" in c.list_tables()
    ddb.delete_table(TableName=name)


def test_many_clients_share_a_small_pool(start_gateway, ddb):
    g = start_gateway("--pool", "2", "--threads", "8",
                      conninfo=need("IT_GW_CONNINFO") + " application_name=gw_share")
    key = new_key("gw_app")
    name = make_table(ddb, unique("share"))

    def writer(n):
        c = client(g.url, *key)
        for i in range(15):
            c.put_item(TableName=name, Item={"pk": {"S": f"{n}-{i}"}})

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(2 * WAIT)
    assert ddb.scan(TableName=name, Select="COUNT")["Count"] == 240
    # two pooled sessions and the key catalog's: never one per client
    n = psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'gw_share'")
    assert 1 <= int(n) <= 3, n
    ddb.delete_table(TableName=name)


def test_postgresql_restart(start_gateway, endpoint, ddb, app_key):
    stop, start = need("IT_GW_PG_STOP"), need("IT_GW_PG_START")
    g = start_gateway("--pool", "2")
    c = client(g.url, *app_key)
    main = client(endpoint, *app_key)
    name = make_table(ddb, unique("restart"))
    c.put_item(TableName=name, Item={"pk": {"S": "before"}})
    subprocess.run(stop, shell=True, check=True, capture_output=True)
    try:
        for cl in (c, main):
            with pytest.raises(cl.exceptions.ClientError) as e:
                cl.get_item(TableName=name, Key={"pk": {"S": "before"}})
            assert e.value.response["Error"]["Code"] == "InternalServerError"
            assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 500
            assert e.value.response["Error"]["Message"] == \
                "The server encountered an internal error trying to fulfill the request."
    finally:
        subprocess.run(start, shell=True, check=True, capture_output=True)
    # the very next request of each gateway succeeds
    assert c.get_item(TableName=name, Key={"pk": {"S": "before"}})["Item"] == {"pk": {"S": "before"}}
    c.put_item(TableName=name, Item={"pk": {"S": "after"}})
    assert main.get_item(TableName=name, Key={"pk": {"S": "after"}})["Item"] == {"pk": {"S": "after"}}
    # a restart while the gateway idles: no request is lost to a stale connection
    subprocess.run(stop, shell=True, check=True, capture_output=True)
    subprocess.run(start, shell=True, check=True, capture_output=True)
    for _ in range(4):
        assert c.get_item(TableName=name, Key={"pk": {"S": "after"}})["Item"] == {"pk": {"S": "after"}}
    ddb.delete_table(TableName=name)


def test_sigterm_finishes_requests_in_progress(start_gateway, ddb):
    g = start_gateway("--pool", "2")
    c = client(g.url, *new_key("gw_app"))
    name = make_table(ddb, unique("term"))
    ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"N": "1"}})
    lock = TableLock(name)
    try:
        t, out = in_thread(lambda: c.update_item(TableName=name, Key={"pk": {"S": "k"}},
                                                 UpdateExpression="SET v = v + :one",
                                                 ExpressionAttributeValues={":one": {"N": "1"}},
                                                 ReturnValues="UPDATED_NEW"))
        assert wait_until(lambda: waiting_on_lock(name), timeout=WAIT)
        g.proc.send_signal(15)
        # it stops listening at once ...
        u = urllib.parse.urlparse(g.url)

        def refused():
            try:
                socket.create_connection((u.hostname, u.port), timeout=1).close()
                return False
            except OSError:
                return True

        assert wait_until(refused, timeout=WAIT)
        assert g.proc.poll() is None        # ... but waits for the request
    finally:
        lock.release()
    t.join(WAIT)
    assert out.get("result", {}).get("Attributes") == {"v": {"N": "2"}}, out
    assert g.proc.wait(WAIT) == 0
    assert ddb.get_item(TableName=name, Key={"pk": {"S": "k"}})["Item"]["v"] == {"N": "2"}
    ddb.delete_table(TableName=name)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_tls(start_gateway, tmp_path, app_key):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    g = start_gateway("--tls-cert", str(cert), "--tls-key", str(key))
    assert g.url.startswith("https://127.0.0.1:")
    c = client(g.url, *app_key, verify=str(cert))
    assert "TableNames" in c.list_tables()
    # plain HTTP on the TLS port gets nothing useful
    plain = client("http://127.0.0.1:%d" % g.port, *app_key)
    with pytest.raises(Exception):
        plain.list_tables()


def test_help_and_bad_flags():
    bin_ = need("IT_GW_BIN")
    out = subprocess.run([bin_, "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "--tls-cert" in out.stdout and "--auth" in out.stdout
    for args in (["--auth", "maybe"], ["--port", "70000"], ["--pool", "0"], ["--tls-cert", "x"],
                 ["--no-such-flag"]):
        assert subprocess.run([bin_, *args], capture_output=True).returncode == 2, args
    # a database without access: fails at start, clearly
    out = subprocess.run([bin_, "--port", "0", "--dbname", need("IT_GW_CONNINFO") + " dbname=no_such_db"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 1 and "cannot" in out.stderr


def test_batched_requests_keep_their_roles(start_gateway, ddb):
    """With one pooled connection, requests queued behind a blocked one go
    out as one pipelined batch: each still runs as its own key's role, a
    failing one (no privilege, a role the gateway may not take) changes
    nothing and does not stop the others, and no request ever runs as the
    role of the one before it."""
    g = start_gateway("--pool", "1", "--threads", "4", "--pool-wait", "20000")
    app = client(g.url, *new_key("gw_app"), retries=0)
    reader = client(g.url, *new_key("gw_reader"), retries=0)
    outsider = client(g.url, *new_key("gw_outsider"), retries=0)
    locked = make_table(ddb, unique("hold"))
    ddb.put_item(TableName=locked, Item={"pk": {"S": "k"}})
    name = make_table(ddb, unique("batch"))
    ddb.put_item(TableName=name, Item={"pk": {"S": "r"}, "v": {"S": "app's"}})

    def code_of(fn):
        try:
            fn()
            return "ok"
        except app.exceptions.ClientError as e:
            return e.response["Error"]["Code"]

    lock = TableLock(locked)
    calls = [
        ("blocked", lambda: app.get_item(TableName=locked, Key={"pk": {"S": "k"}})),
        ("reader put", lambda: reader.put_item(TableName=name, Item={"pk": {"S": "by_reader"}})),
        ("app put", lambda: app.put_item(TableName=name, Item={"pk": {"S": "by_app"}})),
        ("outsider", lambda: outsider.put_item(TableName=name, Item={"pk": {"S": "by_outsider"}})),
        ("reader get", lambda: reader.get_item(TableName=name, Key={"pk": {"S": "r"}})),
        ("app get", lambda: app.get_item(TableName=name, Key={"pk": {"S": "r"}})),
    ]
    threads = []
    try:
        for label, fn in calls:
            threads.append((label,) + in_thread(lambda fn=fn: code_of(fn)))
            if label == "blocked":
                assert wait_until(lambda: waiting_on_lock(locked), timeout=WAIT)
            time.sleep(0.3)             # in order on the queue
    finally:
        lock.release()
    got = {}
    for label, t, out in threads:
        t.join(WAIT)
        got[label] = out.get("result", out.get("error"))
    assert got == {"blocked": "ok", "reader put": "AccessDeniedException", "app put": "ok",
                   "outsider": "AccessDeniedException", "reader get": "AccessDeniedException",
                   "app get": "ok"}, got
    keys = sorted(it["pk"]["S"] for it in ddb.scan(TableName=name)["Items"])
    assert keys == ["by_app", "r"]
    ddb.delete_table(TableName=name)
    ddb.delete_table(TableName=locked)


def test_idle_keepalive_clients_hold_no_session(start_gateway):
    """200 keep-alive clients, each after a request, idle: the gateway still
    holds only its pool's sessions."""
    g = start_gateway("--auth", "none", "--pool", "2",
                      conninfo=need("IT_GW_CONNINFO") + " application_name=gw_idle")
    u = urllib.parse.urlparse(g.url)
    socks = []
    try:
        for _ in range(200):
            s = socket.create_connection((u.hostname, u.port), timeout=10)
            s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
                      b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 2\r\n\r\n{}")
            data = b""
            while not data.endswith(b"}"):
                data += s.recv(65536)
            assert data.startswith(b"HTTP/1.1 200"), data[:100]
            socks.append(s)
        n = int(psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'gw_idle'"))
        assert 1 <= n <= 2, n
    finally:
        for s in socks:
            s.close()
