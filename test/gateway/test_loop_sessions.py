"""The PostgreSQL sessions of the event loops (--engine loop, the default):
sessions lost under load, fewer sessions than loops, a server that does
not answer a connect; all asked of --engine mhd too.  (--pool-wait on a loop's own session is in
test_pool.py's throttling test.)"""
import os
import shutil
import socket
import tempfile
import threading
import time
import urllib.parse
import urllib.request

from conftest import client, conninfo_field, make_table, need, new_key, psql, unique, wait_until

WAIT = 60


def test_sessions_terminated_under_load(start_gateway, ddb):
    """pg_terminate_backend of every gateway session in the middle of a
    load: the requests out on them fail as InternalServerError (500, which
    SDKs retry), none hangs, and every later request is answered."""
    g = start_gateway("--pool", "4", "--threads", "2",
                      conninfo=need("IT_GW_CONNINFO") + " application_name=gw_kill")
    key = new_key("gw_app")
    name = make_table(ddb, unique("kill"))
    ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"N": "1"}})
    stop = threading.Event()
    codes = []

    def reader():
        c = client(g.url, *key, retries=0)
        while not stop.is_set():
            try:
                assert c.get_item(TableName=name, Key={"pk": {"S": "k"}})["Item"]["v"] == {"N": "1"}
                codes.append("ok")
            except c.exceptions.ClientError as e:
                codes.append(e.response["Error"]["Code"])

    threads = [threading.Thread(target=reader) for _ in range(8)]
    for t in threads:
        t.start()
    try:
        assert wait_until(lambda: len(codes) >= 50, timeout=WAIT)
        killed = psql("SELECT count(pg_catalog.pg_terminate_backend(pid)) FROM pg_stat_activity "
                      "WHERE application_name = 'gw_kill'")
        assert int(killed) >= 1
        n = len(codes)
        assert wait_until(lambda: len(codes) >= n + 50, timeout=WAIT)
    finally:
        stop.set()
        for t in threads:
            t.join(WAIT)
    assert not any(t.is_alive() for t in threads)
    assert set(codes) <= {"ok", "InternalServerError"}, set(codes)
    assert codes.count("ok") >= 100
    # every request now: sequential, then concurrent
    c = client(g.url, *key, retries=0)
    for _ in range(10):
        assert c.get_item(TableName=name, Key={"pk": {"S": "k"}})["Item"]["v"] == {"N": "1"}
    out = []
    burst = [threading.Thread(target=lambda: out.append(
        client(g.url, *key, retries=0).get_item(TableName=name, Key={"pk": {"S": "k"}})["Item"]))
        for _ in range(16)]
    for t in burst:
        t.start()
    for t in burst:
        t.join(WAIT)
    assert len(out) == 16
    ddb.delete_table(TableName=name)


def _post(port, target):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
              b"X-Amz-Target: DynamoDB_20120810." + target.encode() + b"\r\nContent-Length: 2\r\n\r\n{}")
    return s


def _answer(s):
    data = b""
    while not data.endswith(b"}"):
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_fewer_sessions_than_loops(start_gateway):
    """--pool 1 --threads 2: one session, and the clients of both loops
    (the kernel spreads 24 connections between them) are all answered,
    one at a time and all at once."""
    g = start_gateway("--auth", "none", "--pool", "1", "--threads", "2",
                      conninfo=need("IT_GW_CONNINFO") + " application_name=gw_few")
    u = urllib.parse.urlparse(g.url)
    for _ in range(24):
        s = _post(u.port, "ListTables")
        data = _answer(s)
        s.close()
        assert data.startswith(b"HTTP/1.1 200"), data[:100]
    socks = [_post(u.port, "ListTables") for _ in range(24)]
    try:
        for s in socks:
            data = _answer(s)
            assert data.startswith(b"HTTP/1.1 200"), data[:100]
            assert b"TableNames" in data
    finally:
        for s in socks:
            s.close()
    n = int(psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'gw_few'"))
    assert n == 1, n


class _Relay:
    """The server's Unix socket, relayed from a directory of its own.  In
    mode "relay" a connection is passed through to the server; in mode
    "hold" it is accepted and never answered (a server that takes the
    connection and then says nothing, as one behind a network that drops
    its packets).  cut() ends every connection open through it."""

    def __init__(self, target):
        self.dir = tempfile.mkdtemp(prefix="gwrelay")
        self.port = 5432
        self.target = target
        self.mode = "relay"
        self.held = 0
        self.lock = threading.Lock()
        self.open = []
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(os.path.join(self.dir, f".s.PGSQL.{self.port}"))
        self.srv.listen(64)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.srv.accept()
            except OSError:
                return
            with self.lock:
                self.open.append(c)
                if self.mode == "hold":
                    self.held += 1
                    continue
            u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            u.connect(self.target)
            with self.lock:
                self.open.append(u)
            for a, b in ((c, u), (u, c)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        with self.lock:
            socks, self.open = self.open, []
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        self.srv.close()
        self.cut()
        shutil.rmtree(self.dir, ignore_errors=True)


def _relayed():
    """A _Relay of the gateway's server, and the gateway's conninfo through it."""
    conninfo = need("IT_GW_CONNINFO")
    host, port = conninfo_field(conninfo, "host"), conninfo_field(conninfo, "port")
    relay = _Relay(os.path.join(host, f".s.PGSQL.{port}"))
    rest = " ".join(p for p in conninfo.split() if not p.startswith(("host=", "port=")))
    return relay, f"host={relay.dir} port={relay.port} {rest}"


def _get_root_quickly(url):
    t0 = time.monotonic()
    with urllib.request.urlopen(url, timeout=10) as r:
        assert r.status == 200
    assert time.monotonic() - t0 < 1.0, "GET / waited for PostgreSQL"


def test_a_server_that_does_not_answer_holds_no_other_client(start_gateway):
    """A session whose server takes the connection and never answers is
    being made on a thread of its own: the one loop goes on serving (GET /
    needs no database), the request waiting for the session is throttled
    at --pool-wait, and once the server answers again the next requests
    are served."""
    relay, relayed = _relayed()
    try:
        g = start_gateway("--auth", "none", "--threads", "1", "--pool", "2", "--pool-wait", "1500",
                          conninfo=relayed)
        u = urllib.parse.urlparse(g.url)

        def list_tables():
            s = _post(u.port, "ListTables")
            try:
                return _answer(s)
            finally:
                s.close()

        assert list_tables().startswith(b"HTTP/1.1 200")
        # the server stops answering, and the gateway's session is gone
        relay.mode = "hold"
        relay.cut()
        time.sleep(0.2)
        waiting = _post(u.port, "ListTables")
        try:
            assert wait_until(lambda: relay.held >= 1, timeout=10), "the gateway did not reconnect"
            _get_root_quickly(g.url)
            data = _answer(waiting)
            assert data.startswith(b"HTTP/1.1 400"), data[:200]
            assert b"ThrottlingException" in data, data[:300]
        finally:
            waiting.close()
        # the server answers again; the held connects end (refused)
        relay.mode = "relay"
        relay.cut()
        assert wait_until(lambda: list_tables().startswith(b"HTTP/1.1 200"), timeout=WAIT)
        for _ in range(5):
            assert list_tables().startswith(b"HTTP/1.1 200")
    finally:
        relay.close()


def test_a_key_read_that_hangs_holds_no_other_client(start_gateway):
    """An access key missing from the cache is read on the keys' own
    thread: while that read waits on a server that does not answer, the
    one loop goes on serving; when the read fails the request gets a 500,
    and later requests are served."""
    relay, relayed = _relayed()
    try:
        g = start_gateway("--threads", "1", "--pool", "2", "--key-ttl", "1", conninfo=relayed)
        key = new_key("gw_app")
        c = client(g.url, *key, retries=0)
        c.list_tables()
        # the server stops answering; the keys' connection and the session go
        relay.mode = "hold"
        relay.cut()
        time.sleep(1.2)                     # the cached key expires
        out = []

        def call():
            try:
                c.list_tables()
                out.append("ok")
            except Exception as e:          # noqa: BLE001 -- any answer will do
                out.append(getattr(e, "response", {}).get("Error", {}).get("Code", repr(e)))

        t = threading.Thread(target=call)
        t.start()
        try:
            assert wait_until(lambda: relay.held >= 1, timeout=10), "the key was not read again"
            _get_root_quickly(g.url)
            assert not out, out             # still waiting for its key
        finally:
            relay.mode = "relay"
            relay.cut()
            t.join(WAIT)
        assert not t.is_alive()
        assert out and out[0] in ("ok", "InternalServerError"), out
        assert wait_until(lambda: _lists(c), timeout=WAIT)
        for _ in range(3):
            c.list_tables()
    finally:
        relay.close()


def _lists(c):
    try:
        c.list_tables()
        return True
    except Exception:                       # noqa: BLE001
        return False
