"""--io uring (the default where the gateway is built with liburing and the
kernel allows a ring) and --io epoll: the same answers either way, through
the paths where the two differ: an answer written in several sends (a
client that reads slowly), pipelined requests answered in order, a client
gone while its request is with PostgreSQL, the shutdown with answers
going out."""
import json
import os
import socket
import subprocess
import threading
import time

import pytest

from conftest import client, make_table, need, psql, unique

IO_MODES = ["uring", "epoll"]


def _ring_fds(pid):
    """How many io_uring instances the process holds open."""
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if "io_uring" in os.readlink(f"/proc/{pid}/fd/{fd}"):
                n += 1
        except OSError:
            pass
    return n


def _uring_possible():
    """None if this gateway and kernel can use io_uring, else why not."""
    out = subprocess.run(["ldd", need("IT_GW_BIN")], capture_output=True, text=True).stdout
    if "liburing" not in out:
        return "the gateway was built without liburing (liburing-dev not installed)"
    try:
        with open("/proc/sys/kernel/io_uring_disabled") as f:
            if f.read().strip() != "0":
                return "io_uring is disabled on this kernel (kernel.io_uring_disabled)"
    except FileNotFoundError:
        pass
    return None


def _start(start_gateway, io, *args):
    if io == "uring" and _uring_possible():
        pytest.skip(_uring_possible())
    return start_gateway("--auth", "none", "--io", io, "--threads", "2", *args)


def _open_to_login_role(name):
    """--auth none runs requests as the login role: let it at the table."""
    psql(f'GRANT SELECT, INSERT, UPDATE, DELETE ON item_data."{name}" TO gw_login')


def _request(target, body):
    data = json.dumps(body).encode()
    return (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
            b"X-Amz-Target: DynamoDB_20120810." + target.encode() +
            b"\r\nContent-Length: " + str(len(data)).encode() + b"\r\n\r\n" + data)


def _read_answer(s, buf=b""):
    """One HTTP answer from s (Content-Length framed): (status, body, rest)."""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        assert chunk, f"connection closed before an answer: {buf[:200]!r}"
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    status = int(head.split(b" ", 2)[1])
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(rest) < length:
        chunk = s.recv(65536)
        assert chunk, "connection closed within an answer"
        rest += chunk
    return status, rest[:length], rest[length:]


@pytest.fixture(scope="module")
def big_table(endpoint, app_key):
    """30 items of about 300 KB: a BatchGetItem of all of them answers about
    9 MB, more than a socket's send buffer can hold (4 MB at most here)."""
    c = client(endpoint, *app_key)
    name = make_table(c, unique("io"))
    for i in range(30):
        c.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}, "blob": {"S": str(i % 10) * 300_000}})
    _open_to_login_role(name)
    yield name
    c.delete_table(TableName=name)


def _batch_get_all(name):
    return _request("BatchGetItem", {"RequestItems": {name: {
        "Keys": [{"pk": {"S": f"k{i}"}} for i in range(30)]}}})


def test_default_is_io_uring(start_gateway):
    """Without --io, the loops wait in rings of their own (one per loop);
    with --io epoll, none."""
    why = _uring_possible()
    if why:
        pytest.skip(why)
    g = start_gateway("--auth", "none", "--threads", "2")
    assert _ring_fds(g.proc.pid) == 2
    g2 = start_gateway("--auth", "none", "--threads", "2", "--io", "epoll")
    assert _ring_fds(g2.proc.pid) == 0


@pytest.mark.parametrize("io", IO_MODES)
def test_slow_reader_gets_the_whole_answer(start_gateway, big_table, io):
    """A 9 MB answer to a client with a small receive buffer that reads a
    little at a time at first: the gateway's send is partial many times
    over, and the client gets every byte, in order, then the next answer.
    (64 KB: with 4 KB, a window too small for loopback's 64 KB segments,
    the window updates wait for the delayed-ACK timer and the 9 MB took 45
    to 65 s, near the gateway's own timeouts.)"""
    g = _start(start_gateway, io)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    s.connect(("127.0.0.1", g.port))
    s.settimeout(30)
    s.sendall(_batch_get_all(big_table))
    time.sleep(0.5)
    buf = b""
    for _ in range(50):
        buf += s.recv(2048)
        time.sleep(0.002)
    status, body, rest = _read_answer(s, buf)
    assert status == 200
    items = json.loads(body)["Responses"][big_table]
    assert sorted(int(i["pk"]["S"][1:]) for i in items) == list(range(30))
    assert all(i["blob"]["S"] == i["pk"]["S"][-1] * 300_000 for i in items)
    s.sendall(_request("DescribeTable", {"TableName": big_table}))
    status, body, _ = _read_answer(s, rest)
    assert status == 200 and json.loads(body)["Table"]["TableName"] == big_table
    s.close()


@pytest.mark.parametrize("io", IO_MODES)
def test_pipelined_requests_answer_in_order(start_gateway, big_table, io):
    """Requests sent back to back in one write, database calls and answers
    of the gateway's own (GET /, an unknown target) mixed: answered in
    the order they were sent, on the one connection."""
    g = _start(start_gateway, io)
    s = socket.create_connection(("127.0.0.1", g.port), timeout=30)
    batch = b""
    expect = []
    for i in range(30):
        if i % 3 == 0:
            batch += _request("GetItem", {"TableName": big_table, "Key": {"pk": {"S": f"k{i % 2}"}},
                                          "ProjectionExpression": "pk"})
            expect.append(("get", f"k{i % 2}"))
        elif i % 3 == 1:
            batch += b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
            expect.append(("root", None))
        else:
            batch += _request("NoSuchAction", {})
            expect.append(("bad", None))
    s.sendall(batch)
    rest = b""
    for kind, key in expect:
        status, body, rest = _read_answer(s, rest)
        if kind == "get":
            assert status == 200 and json.loads(body)["Item"]["pk"]["S"] == key
        elif kind == "root":
            assert status == 200
        else:
            assert status == 400 and b"UnknownOperationException" in body
    s.close()


@pytest.mark.parametrize("io", IO_MODES)
def test_clients_gone_mid_request(start_gateway, big_table, io):
    """Clients that send a request and close at once, with their answers
    still to come from PostgreSQL, or halfway through a 9 MB answer, while
    other clients connect and are served: each of those gets its own
    answers and nothing else (a closed connection's receive or send left
    for the ring must not land on the socket that takes its descriptor
    number next), and the gateway goes on serving."""
    g = _start(start_gateway, io)
    stop = threading.Event()

    def leaver():
        i = 0
        while not stop.is_set():
            s = socket.create_connection(("127.0.0.1", g.port), timeout=10)
            s.sendall(_batch_get_all(big_table) if i % 2 else
                      _request("GetItem", {"TableName": big_table, "Key": {"pk": {"S": "k1"}}}))
            if i % 4 == 1:
                s.recv(1000)        # part of the 9 MB answer, then gone
            s.close()
            i += 1

    out = []
    errors = []

    def worker(n):
        try:
            for _ in range(10):
                s = socket.create_connection(("127.0.0.1", g.port), timeout=30)
                s.sendall(_request("GetItem", {"TableName": big_table, "Key": {"pk": {"S": f"k{n % 3}"}},
                                               "ProjectionExpression": "pk"}))
                status, body, rest = _read_answer(s)
                s.close()
                assert status == 200 and rest == b"", (status, body[:100], rest[:100])
                out.append(json.loads(body)["Item"]["pk"]["S"])
        except Exception as e:     # noqa: BLE001 -- reported below
            errors.append(repr(e)[:300])

    leavers = [threading.Thread(target=leaver) for _ in range(3)]
    for t in leavers:
        t.start()
    workers = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(120)
    stop.set()
    for t in leavers:
        t.join(60)
    assert errors == []
    assert sorted(out) == sorted(f"k{n % 3}" for n in range(8) for _ in range(10))
    assert g.proc.poll() is None


@pytest.mark.parametrize("io", IO_MODES)
def test_shutdown_sends_the_answers_given(start_gateway, endpoint, app_key, io):
    """SIGTERM while clients keep writing: every request the gateway took is
    answered (200) or refused as the connection closes, none is half
    answered, and the gateway exits 0."""
    g = _start(start_gateway, io)
    c0 = client(endpoint, *app_key)
    name = make_table(c0, unique("io_stop"))
    _open_to_login_role(name)
    stop = threading.Event()
    bad = []

    def writer(n):
        i = 0
        while not stop.is_set():
            try:
                s = socket.create_connection(("127.0.0.1", g.port), timeout=10)
            except OSError:
                return
            try:
                s.sendall(_request("PutItem", {"TableName": name,
                                               "Item": {"pk": {"S": f"w{n}-{i}"}}}))
                status, body, _ = _read_answer(s)
                if status != 200:
                    bad.append((status, body[:200]))
            except (AssertionError, OSError):
                pass            # closed by the shutdown before an answer
            finally:
                s.close()
            i += 1

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    assert g.stop() == 0
    stop.set()
    for t in threads:
        t.join(30)
    assert bad == []
    c0.delete_table(TableName=name)


def _min_wait_possible():
    """None if --answer-wait takes effect here, else why not."""
    why = _uring_possible()
    if why:
        return why
    release = os.uname().release.split("-")[0].split(".")
    if tuple(int(x) for x in release[:2]) < (6, 12):
        return "io_uring has no minimum wait before Linux 6.12 (--answer-wait is ignored)"
    return None


def test_answer_wait_out_of_range(start_gateway):
    """--answer-wait takes 0 to 1000 microseconds."""
    for bad in ("1001", "-1", "x"):
        out = subprocess.run([need("IT_GW_BIN"), "--answer-wait", bad, "--auth", "none", "--port", "0"],
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 2 and f'invalid value for --answer-wait: "{bad}"' in out.stderr, out.stderr


def test_answer_wait_same_answers(start_gateway, endpoint, app_key):
    """--answer-wait 50 with one loop and four sessions: 16 clients writing
    and reading their own items at once each get their own answers, in
    order on their connection, while the loop waits for the answers of
    several batches together."""
    why = _min_wait_possible()
    if why:
        pytest.skip(why)
    g = start_gateway("--auth", "none", "--threads", "1", "--pool", "4", "--answer-wait", "50")
    c0 = client(endpoint, *app_key)
    name = make_table(c0, unique("io_wait"))
    _open_to_login_role(name)
    errors = []

    def worker(n):
        try:
            s = socket.create_connection(("127.0.0.1", g.port), timeout=30)
            rest = b""
            for i in range(40):
                pk = f"c{n}-{i % 5}"
                s.sendall(_request("PutItem", {"TableName": name,
                                               "Item": {"pk": {"S": pk}, "v": {"N": str(i)}}}))
                status, body, rest = _read_answer(s, rest)
                assert status == 200, body[:200]
                s.sendall(_request("GetItem", {"TableName": name, "Key": {"pk": {"S": pk}},
                                               "ConsistentRead": True}))
                status, body, rest = _read_answer(s, rest)
                assert status == 200 and json.loads(body)["Item"] == {"pk": {"S": pk}, "v": {"N": str(i)}}, body
            s.close()
        except Exception as e:     # noqa: BLE001 -- reported below
            errors.append(repr(e)[:300])

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert g.proc.poll() is None
    c0.delete_table(TableName=name)


def test_answer_wait_does_not_hold_a_lone_client(start_gateway, endpoint, app_key):
    """A loop with one batch out waits for that answer only: with
    --answer-wait 1000 (1 ms), 300 GetItems one after the other on one
    connection take about as long as without it, not 300 ms more."""
    why = _min_wait_possible()
    if why:
        pytest.skip(why)
    c0 = client(endpoint, *app_key)
    name = make_table(c0, unique("io_lone"))
    c0.put_item(TableName=name, Item={"pk": {"S": "k"}})
    _open_to_login_role(name)
    req = _request("GetItem", {"TableName": name, "Key": {"pk": {"S": "k"}}})

    def timed(g):
        s = socket.create_connection(("127.0.0.1", g.port), timeout=30)
        for _ in range(20):         # warm: the session connected, plans cached
            s.sendall(req)
            _read_answer(s)
        t0 = time.monotonic()
        for _ in range(300):
            s.sendall(req)
            status, _, _ = _read_answer(s)
            assert status == 200
        s.close()
        return time.monotonic() - t0

    g_plain = start_gateway("--auth", "none", "--threads", "1")
    g_wait = start_gateway("--auth", "none", "--threads", "1", "--answer-wait", "1000")
    # held, every attempt would take 0.3 s more; a busy machine may slow
    # one attempt by chance, not three
    seen = []
    for _ in range(3):
        plain, waiting = timed(g_plain), timed(g_wait)
        seen.append((round(plain, 3), round(waiting, 3)))
        if waiting < plain + 0.15:
            break
    else:
        pytest.fail(f"--answer-wait 1000 held a lone client: (plain, waiting) seconds {seen}")
    c0.delete_table(TableName=name)
