"""The gateway on the wire: which headers a signature must cover, how a
request's framing is read, and how long a request may take to arrive.

  * SigV4: host, x-amz-date and x-amz-target must be among the
    SignedHeaders, content-type and x-amz-security-token too when the
    request has them; otherwise IncompleteSignatureException, and a captured
    request cannot be sent again with another X-Amz-Target.
  * Framing (RFC 9112 section 6): Content-Length and Transfer-Encoding that
    disagree, or that cannot be read, get 400 (501 for a transfer coding the
    gateway does not implement) and the connection is closed, so nothing
    behind the ambiguous body is read as a request.
  * Slow requests: a request must arrive whole within --request-timeout
    seconds, however slowly it keeps trickling, so slow sockets cannot hold
    the gateway's connections and it keeps answering meanwhile.

Raw sockets on the loopback for the wire; botocore's SigV4Auth to sign with
the headers a test chooses.
"""
import json
import os
import re
import resource
import socket
import time

import botocore.auth
import botocore.awsrequest
import botocore.credentials
import pytest

from conftest import Gateway, client, make_table, unique
from test_api import raw_post

SERVICE = "com.amazon.coral.service#"


# ---------------------------------------------------------------- helpers

class ChosenSigV4(botocore.auth.SigV4Auth):
    """botocore's signer, leaving the headers named in leave_out unsigned
    (they are still sent)."""

    def __init__(self, credentials, leave_out=()):
        super().__init__(credentials, "dynamodb", "us-east-1")
        self.leave_out = [h.lower() for h in leave_out]

    def headers_to_sign(self, request):
        headers = super().headers_to_sign(request)
        for name in self.leave_out:
            del headers[name]
        return headers


def signed(endpoint, key, target, body=b"{}", leave_out=(), token=None, content_type=True):
    headers = {"X-Amz-Target": target}
    if content_type:
        headers["Content-Type"] = "application/x-amz-json-1.0"
    req = botocore.awsrequest.AWSRequest(method="POST", url=endpoint + "/", data=body, headers=headers)
    ChosenSigV4(botocore.credentials.Credentials(key[0], key[1], token), leave_out).add_auth(req)
    return dict(req.headers.items())


def signed_list(headers):
    auth = headers["Authorization"]
    return auth.split("SignedHeaders=", 1)[1].split(",", 1)[0].split(";")


def post(endpoint, body, headers):
    """A POST with exactly these headers (http.client adds Host,
    Content-Length and Accept-Encoding, as a client would)."""
    resp, data = raw_post(endpoint, None, body, headers)
    return resp.status, json.loads(data) if data else None


def talk(port, payload, timeout=5.0):
    """Send raw bytes; return (what came back, whether the gateway closed
    the connection within timeout)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass
        data = b""
        end = time.monotonic() + timeout
        while True:
            s.settimeout(max(0.05, end - time.monotonic()))
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                return data, False
            except ConnectionResetError:
                return data, True
            if not chunk:
                return data, True
            data += chunk


def healthy(port):
    data, _ = talk(port, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    return data.startswith(b"HTTP/1.1 200") and b"healthy: " in data


def raise_nofile(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < need:
        pytest.skip(f"the limit of open files ({hard}) is below {need}")
    if soft != resource.RLIM_INFINITY and soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
    return soft, hard


def is_closed(s):
    """A non-blocking socket: has the gateway closed it?"""
    try:
        return s.recv(4096) == b""     # the gateway sends nothing on these
    except BlockingIOError:
        return False
    except (ConnectionResetError, BrokenPipeError):
        return True


# ---------------------------------------------------------------- SigV4

def test_target_must_be_signed(endpoint, app_key, ddb):
    """A request signed over content-type;host;x-amz-date only: refused,
    and a captured DescribeTable cannot become a DeleteTable."""
    name = make_table(ddb, unique("sig"))
    body = json.dumps({"TableName": name}).encode()
    h = signed(endpoint, app_key, "DynamoDB_20120810.DescribeTable", body, leave_out=["x-amz-target"])
    assert signed_list(h) == ["content-type", "host", "x-amz-date"]
    status, got = post(endpoint, body, h)
    assert status == 400
    assert got == {"__type": SERVICE + "IncompleteSignatureException",
                   "message": "'X-Amz-Target' must be a 'SignedHeader' in the AWS Authorization."}
    status, got = post(endpoint, body, {**h, "X-Amz-Target": "DynamoDB_20120810.DeleteTable"})
    assert status == 400
    assert got["__type"] == SERVICE + "IncompleteSignatureException"
    assert ddb.describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE"
    # the same request signed over its target is served
    status, got = post(endpoint, body, signed(endpoint, app_key, "DynamoDB_20120810.DescribeTable", body))
    assert status == 200 and got["Table"]["TableName"] == name
    ddb.delete_table(TableName=name)


@pytest.mark.parametrize("leave_out,message", [
    ("x-amz-date", "'X-Amz-Date' must be a 'SignedHeader' in the AWS Authorization."),
    ("content-type", "'Content-Type' must be a 'SignedHeader' in the AWS Authorization."),
    ("host", "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."),
], ids=["x-amz-date", "content-type", "host"])
def test_required_signed_headers(endpoint, app_key, leave_out, message):
    h = signed(endpoint, app_key, "DynamoDB_20120810.ListTables", leave_out=[leave_out])
    assert leave_out not in signed_list(h)
    status, got = post(endpoint, b"{}", h)
    assert (status, got) == (400, {"__type": SERVICE + "IncompleteSignatureException", "message": message})


def test_content_type_signed_only_when_sent(endpoint, app_key):
    """A request without Content-Type (only an empty body may come
    without one) need not sign it."""
    h = signed(endpoint, app_key, "DynamoDB_20120810.ListTables", body=b"", content_type=False)
    assert signed_list(h) == ["host", "x-amz-date", "x-amz-target"]
    u = endpoint.rsplit(":", 1)
    port = int(u[1])
    head = "".join(f"{k}: {v}\r\n" for k, v in h.items()
                   if k.lower() not in ("content-type", "content-length", "host"))
    data, _ = talk(port, f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{head}Content-Length: 0\r\n"
                         f"Connection: close\r\n\r\n".encode())
    # past authentication: the empty body is what is refused (no body is
    # valid JSON, and a non-empty one needs a Content-Type)
    assert data.startswith(b"HTTP/1.1 400"), data[:300]
    assert json.loads(data.split(b"\r\n\r\n", 1)[1]) == {
        "__type": SERVICE + "SerializationException", "Message": "The request body is not valid JSON."}


def test_security_token_signed_when_present(endpoint, app_key):
    h = signed(endpoint, app_key, "DynamoDB_20120810.ListTables", token="FQoGZXIvYXdzEXAMPLE")
    assert "x-amz-security-token" in signed_list(h)
    status, got = post(endpoint, b"{}", h)
    assert status == 200 and "TableNames" in got
    h = signed(endpoint, app_key, "DynamoDB_20120810.ListTables", token="FQoGZXIvYXdzEXAMPLE",
               leave_out=["x-amz-security-token"])
    assert "X-Amz-Security-Token" in h and "x-amz-security-token" not in signed_list(h)
    status, got = post(endpoint, b"{}", h)
    assert (status, got) == (400, {"__type": SERVICE + "IncompleteSignatureException",
                                   "message": "'X-Amz-Security-Token' must be a 'SignedHeader' in the AWS Authorization."})


def test_sdk_signs_what_is_required(endpoint, app_key):
    """boto3 (and the CLI, the same signer) is unaffected."""
    assert "TableNames" in client(endpoint, *app_key).list_tables()


# ---------------------------------------------------------------- framing

HEAD = (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
        b"X-Amz-Target: DynamoDB_20120810.ListTables\r\n")
SMUGGLED = b"GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"


@pytest.fixture(scope="module")
def open_gateway():
    """One --auth none gateway for the framing tests (framing comes before
    authentication)."""
    g = Gateway("--auth", "none")
    yield g
    g.stop()


# A transfer coding the gateway does not take: refused with 400 or 501
# (Not Implemented), depending on the libmicrohttpd version (0.9 in
# bookworm, 1.0.1 in trixie, 1.0.10 in sid), which answers some of these
# itself before the gateway sees the request.
CODING = (400, 501)

REFUSED = [
    ("two Content-Length, first shorter",
     HEAD + b"Content-Length: 2\r\nContent-Length: 39\r\n\r\n{}" + SMUGGLED, 400),
    ("two Content-Length, first longer",
     HEAD + b"Content-Length: 39\r\nContent-Length: 2\r\n\r\n{}" + SMUGGLED, 400),
    ("Content-Length, then chunked",
     HEAD + b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n" + SMUGGLED, 400),
    ("chunked, then Content-Length",
     HEAD + b"Transfer-Encoding: chunked\r\nContent-Length: 45\r\n\r\n2\r\n{}\r\n0\r\n\r\n" + SMUGGLED, 400),
    ("chunked not the final coding",
     HEAD + b"Transfer-Encoding: chunked, gzip\r\n\r\n2\r\n{}\r\n0\r\n\r\n", CODING),
    ("a coding other than chunked",
     HEAD + b"Transfer-Encoding: gzip\r\n\r\n{}", CODING),
    ("identity is no coding of HTTP/1.1",
     HEAD + b"Transfer-Encoding: identity\r\nContent-Length: 2\r\n\r\n{}", CODING),
    ("chunked twice, one field",
     HEAD + b"Transfer-Encoding: chunked, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", CODING),
    ("chunked twice, two fields",
     HEAD + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 400),
    ("chunked in HTTP/1.0",
     HEAD.replace(b"HTTP/1.1", b"HTTP/1.0") + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 400),
    ("an unknown coding before chunked",
     HEAD + b"Transfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", CODING),
    ("Content-Length not a number", HEAD + b"Content-Length: 2x\r\n\r\n{}", 400),
    ("Content-Length negative", HEAD + b"Content-Length: -2\r\n\r\n{}", 400),
    ("Content-Length signed", HEAD + b"Content-Length: +2\r\n\r\n{}", 400),
    ("Content-Length empty", HEAD + b"Content-Length: \r\n\r\n{}", 400),
    ("Content-Length a list", HEAD + b"Content-Length: 2, 2\r\n\r\n{}", 400),
]


@pytest.mark.parametrize("name,payload,status", [pytest.param(*case, id=case[0]) for case in REFUSED])
def test_conflicting_framing_refused(open_gateway, name, payload, status):
    data, closed = talk(open_gateway.port, payload)
    allowed = status if isinstance(status, tuple) else (status,)
    status = next((s for s in allowed if data.startswith(b"HTTP/1.1 %d " % s)), None)
    assert status is not None, (name, data[:200])
    # nothing read past it.  (libmicrohttpd 0.9.75 sends the head of its own
    # answer to a Content-Length that is not a number twice: the same 400.)
    assert set(re.findall(rb"HTTP/1\.1 (\d{3}) ", data)) == {b"%d" % status}, (name, data)
    assert b"TableNames" not in data and b"healthy" not in data, name
    assert closed, name
    assert healthy(open_gateway.port)


def test_nul_in_the_head_refused(open_gateway):
    """A NUL byte in a field (RFC 9110, section 5.5) is a 400 and the
    connection closed; were the fields after it dropped, a Content-Length
    among them would leave its body to be read as the next request."""
    if os.environ.get("IT_GW_ENGINE") == "mhd":
        pytest.skip("the loop engine's reader (libmicrohttpd has its own)")
    for payload in (HEAD + b"X-Gw-A: a\x00b\r\nContent-Length: %d\r\n\r\n" % len(SMUGGLED) + SMUGGLED,
                    HEAD + b"X-Gw-\x00A: b\r\nContent-Length: %d\r\n\r\n" % len(SMUGGLED) + SMUGGLED):
        data, closed = talk(open_gateway.port, payload)
        assert data.startswith(b"HTTP/1.1 400 "), data[:200]
        assert set(re.findall(rb"HTTP/1\.1 (\d{3}) ", data)) == {b"400"}, data
        assert b"healthy" not in data and closed
    assert healthy(open_gateway.port)


SERVED = [
    ("one Content-Length", HEAD + b"Content-Length: 2\r\n\r\n{}"),
    ("the same Content-Length twice", HEAD + b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}"),
    ("chunked", HEAD + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
    ("chunked, any case", HEAD + b"Transfer-Encoding: Chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
]


@pytest.mark.parametrize("name,payload", [pytest.param(*case, id=case[0]) for case in SERVED])
def test_unambiguous_framing_served(open_gateway, name, payload):
    """Served, and the connection stays open for the next request."""
    with socket.create_connection(("127.0.0.1", open_gateway.port), timeout=5) as s:
        for _ in range(2):
            s.sendall(payload)
            data = b""
            while b'"TableNames"' not in data or not data.endswith(b"}"):
                chunk = s.recv(65536)
                assert chunk, (name, data)
                data += chunk
            assert data.startswith(b"HTTP/1.1 200"), (name, data[:200])


# ---------------------------------------------------------------- slow requests

def trickle_until_closed(socks, step, bound):
    """Send one byte on every open socket each step seconds until the
    gateway has closed them all or bound seconds have passed; return when
    each was found closed (None: still open)."""
    closed = [None] * len(socks)
    end = time.monotonic() + bound
    while time.monotonic() < end and None in closed:
        for i, s in enumerate(socks):
            if closed[i] is not None:
                continue
            if is_closed(s):
                closed[i] = time.monotonic()
                continue
            try:
                s.send(b"x")
            except (BrokenPipeError, ConnectionResetError):
                closed[i] = time.monotonic()
            except BlockingIOError:
                pass
        time.sleep(step)
    return closed


def test_slowloris(start_gateway, app_key):
    """1200 sockets (more than select() could watch, and than the old
    default --max-connections 1000) each send a request line and then a
    header byte every half second, on a gateway with --request-timeout 4
    and its default --max-connections: while they are all
    open, the health check and a signed request are answered at once; each
    is closed by the deadline (not before it), though it kept sending."""
    n, deadline = 1200, 4.0
    soft, hard = raise_nofile(n + 256)
    g = start_gateway("--request-timeout", str(int(deadline)), "--threads", "2")
    socks, opened = [], []
    try:
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", g.port), timeout=5)
            s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            s.setblocking(False)
            socks.append(s)
            opened.append(time.monotonic())
        # all open: the gateway answers a new client, unsigned and signed
        t0 = time.monotonic()
        assert healthy(g.port)
        assert "TableNames" in client(g.url, *app_key).list_tables()
        assert time.monotonic() - t0 < 2.0
        assert not any(is_closed(s) for s in socks), "a slow socket was closed early"
        assert time.monotonic() - opened[0] < deadline, "the check took too long to show anything"

        closed = trickle_until_closed(socks, 0.5, deadline + 8)
        still_open = sum(c is None for c in closed)
        assert still_open == 0, f"{still_open} of {n} slow sockets still open after {deadline + 8} s"
        lifetimes = [c - o for c, o in zip(closed, opened)]
        assert min(lifetimes) >= deadline - 0.5, min(lifetimes)
        assert max(lifetimes) <= deadline + 3.0, max(lifetimes)
    finally:
        for s in socks:
            s.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert healthy(g.port)
    assert "TableNames" in client(g.url, *app_key).list_tables()


def test_slow_body(start_gateway):
    """Headers at once, then the body a byte at a time: the deadline
    covers the body too."""
    g = start_gateway("--auth", "none", "--request-timeout", "2")
    s = socket.create_connection(("127.0.0.1", g.port), timeout=5)
    try:
        s.sendall(HEAD + b"Content-Length: 100\r\n\r\n{")
        s.setblocking(False)
        t0 = time.monotonic()
        closed = trickle_until_closed([s], 0.25, 8)[0]
        assert closed is not None, "a body trickling for 8 s was not cut"
        assert 1.5 <= closed - t0 <= 5.0, closed - t0
    finally:
        s.close()


def test_keepalive_idle_and_slow_next_request(start_gateway):
    """The deadline runs from the first byte of each request: an idle
    keep-alive connection is left to --timeout, but a next request
    trickling in on it is cut like the first."""
    g = start_gateway("--auth", "none", "--request-timeout", "2")
    s = socket.create_connection(("127.0.0.1", g.port), timeout=5)
    try:
        for pause in (0, 3):              # idle longer than the deadline in between
            time.sleep(pause)
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            data = s.recv(4096)
            assert data.startswith(b"HTTP/1.1 200") and b"healthy" in data, (pause, data)
        time.sleep(3)
        s.sendall(b"GET / HTTP/1.1\r\n")
        s.setblocking(False)
        t0 = time.monotonic()
        closed = trickle_until_closed([s], 0.25, 8)[0]
        assert closed is not None, "a next request trickling for 8 s was not cut"
        assert 1.5 <= closed - t0 <= 5.0, closed - t0
    finally:
        s.close()
