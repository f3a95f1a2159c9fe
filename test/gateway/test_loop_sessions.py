"""The PostgreSQL sessions of the event loops (--engine loop, the default):
sessions lost under load, fewer sessions than loops; both asked of
--engine mhd too.  (--pool-wait on a loop's own session is in
test_pool.py's throttling test.)"""
import socket
import threading
import urllib.parse

from conftest import client, make_table, need, new_key, psql, unique, wait_until

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
