"""GET /metrics: Prometheus' text format, and counters that move as requests are made."""
import json
import math
import re
import socket
import time
import urllib.error
import urllib.request

import pytest

from conftest import client, make_table, need, new_key, unique, wait_until
from test_pool import TableLock, in_thread, waiting_on_lock

WAIT = 60

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"'
SAMPLE = re.compile(rf"^({NAME})(?:\{{((?:{LABEL})(?:,{LABEL})*)?\}})? (\S+)$")


def scrape(text):
    """Parse the text exposition format strictly: every sample belongs to a
    family announced by # TYPE, a histogram's buckets are cumulative and end
    with +Inf equal to its _count.  {(name, ((label, value), ...)): value}"""
    types = {}
    samples = {}
    assert text.endswith("\n")
    for line in text.splitlines():
        if line.startswith("# HELP "):
            assert re.match(rf"^# HELP {NAME} \S", line), line
            continue
        if line.startswith("# TYPE "):
            m = re.match(rf"^# TYPE ({NAME}) (counter|gauge|histogram|summary|untyped)$", line)
            assert m, line
            assert m.group(1) not in types, f"{m.group(1)} declared twice"
            types[m.group(1)] = m.group(2)
            continue
        assert not line.startswith("#") and line.strip(), repr(line)
        m = SAMPLE.match(line)
        assert m, f"not a sample: {line!r}"
        name, labels_text, value = m.group(1), m.group(2) or "", m.group(m.lastindex)
        labels = tuple(sorted(re.findall(LABEL, labels_text)))
        family = name
        for suffix in ("_bucket", "_sum", "_count"):
            if name.endswith(suffix) and types.get(name[:-len(suffix)]) == "histogram":
                family = name[:-len(suffix)]
        assert family in types, f"{name} has no # TYPE before it"
        v = float(value)
        assert not math.isnan(v)
        if types[family] == "counter":
            assert v >= 0 and name.endswith("_total"), line
        key = (name, labels)
        assert key not in samples, f"{line} repeated"
        samples[key] = v
    # histograms: cumulative buckets, +Inf == _count
    for (name, labels), v in samples.items():
        if name.endswith("_count") and types.get(name[:-6]) == "histogram":
            base = name[:-6]
            buckets = sorted(((float(dict(l)["le"]), val) for (n, l), val in samples.items()
                              if n == base + "_bucket" and
                              tuple(x for x in l if x[0] != "le") == labels))
            assert buckets and buckets[-1][0] == math.inf, name
            assert all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:])), buckets
            assert buckets[-1][1] == v
    return samples


def get(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, r.headers.get("Content-Type"), r.read().decode()


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0)


def post(url, action, body, raw=None):
    """A raw POST (the gateway runs with --auth none) of body as JSON, or of
    the text raw: status, bytes sent, response body."""
    data = raw.encode() if raw is not None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST", headers={
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": f"DynamoDB_20120810.{action}"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, len(data), r.read()
    except urllib.error.HTTPError as e:
        return e.code, len(data), e.read()


def test_counters_move_by_the_requests_made(start_gateway, ddb):
    # --auth none as the superuser: the requests may use the table
    g = start_gateway("--auth", "none", "--pool", "3", conninfo=need("IT_GW_ADMIN"))
    name = make_table(ddb, unique("met"))
    status, ctype, text = get(g.url + "/metrics")
    assert status == 200 and ctype.startswith("text/plain; version=0.0.4")
    before = scrape(text)
    sent = received = 0
    answers = []
    for i in range(3):
        answers.append(post(g.url, "PutItem", {"TableName": name, "Item": {"pk": {"S": f"k{i}"}}}))
    for i in range(2):
        answers.append(post(g.url, "GetItem", {"TableName": name, "Key": {"pk": {"S": f"k{i}"}}}))
    answers.append(post(g.url, "GetItem", {"TableName": name + "_missing", "Key": {"pk": {"S": "x"}}}))
    answers.append(post(g.url, "NoSuchAction", {}))
    for status, n, body in answers:
        sent += n
        received += len(body)
    assert [a[0] for a in answers] == [200] * 5 + [400, 400]
    # a scrape and a health check count as nothing
    get(g.url + "/")
    after = scrape(get(g.url + "/metrics")[2])

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("item_table_gateway_requests_total", action="PutItem", status="200", error="") == 3
    assert delta("item_table_gateway_requests_total", action="GetItem", status="200", error="") == 2
    assert delta("item_table_gateway_requests_total", action="GetItem", status="400",
                 error="ResourceNotFoundException") == 1
    assert delta("item_table_gateway_requests_total", action="other", status="400",
                 error="UnknownOperationException") == 1
    assert sum(v for (n, _), v in after.items() if n == "item_table_gateway_requests_total") - \
        sum(v for (n, _), v in before.items() if n == "item_table_gateway_requests_total") == 7
    assert delta("item_table_gateway_request_duration_seconds_count", action="GetItem") == 3
    assert delta("item_table_gateway_request_duration_seconds_count", action="PutItem") == 3
    assert delta("item_table_gateway_request_duration_seconds_sum", action="GetItem") > 0
    assert delta("item_table_gateway_request_bytes_total") == sent
    assert delta("item_table_gateway_response_bytes_total") == received
    # the pool: all seven ran on the primary's (the database answers an
    # unknown action); its size is --pool
    assert delta("item_table_gateway_pool_requests_total", pool="primary") == 7
    assert value(after, "item_table_gateway_pool_connections", pool="primary") == 3
    assert value(after, "item_table_gateway_pool_in_use", pool="primary") == 0
    assert value(after, "item_table_gateway_pool_waiting", pool="primary") == 0
    ddb.delete_table(TableName=name)


def test_auth_failures_by_kind(start_gateway, app_key):
    g = start_gateway()
    before = scrape(get(g.url + "/metrics")[2])
    bad_secret = client(g.url, app_key[0], "not-the-secret")
    unknown = client(g.url, "AKIDUNKNOWN0000000000", "whatever")
    for c in (bad_secret, bad_secret, unknown):
        with pytest.raises(c.exceptions.ClientError):
            c.list_tables()
    status, _, _ = post(g.url, "ListTables", {})          # no Authorization header
    assert status == 400
    after = scrape(get(g.url + "/metrics")[2])

    def delta(kind):
        return value(after, "item_table_gateway_auth_failures_total", kind=kind) - \
            value(before, "item_table_gateway_auth_failures_total", kind=kind)

    assert delta("signature") == 2
    assert delta("unknown_key") == 1
    assert delta("missing") == 1
    assert delta("expired") == 0


def test_throttles_and_pool_gauges(start_gateway, ddb):
    g = start_gateway("--pool", "1", "--threads", "4", "--pool-wait", "300")
    c = client(g.url, *new_key("gw_app"))
    name = make_table(ddb, unique("metbusy"))
    ddb.put_item(TableName=name, Item={"pk": {"S": "k"}})
    before = scrape(get(g.url + "/metrics")[2])
    lock = TableLock(name)
    try:
        t, out = in_thread(lambda: c.get_item(TableName=name, Key={"pk": {"S": "k"}}))
        assert wait_until(lambda: waiting_on_lock(name), timeout=WAIT)
        busy = scrape(get(g.url + "/metrics")[2])
        assert value(busy, "item_table_gateway_pool_in_use", pool="primary") == 1
        assert value(busy, "item_table_gateway_pool_connections", pool="primary") == 1
        with pytest.raises(c.exceptions.ClientError) as e:
            c.list_tables()
        assert e.value.response["Error"]["Code"] == "ThrottlingException"
    finally:
        lock.release()
    t.join(WAIT)
    after = scrape(get(g.url + "/metrics")[2])
    assert value(after, "item_table_gateway_pool_throttles_total", pool="primary") - \
        value(before, "item_table_gateway_pool_throttles_total", pool="primary") == 1
    assert value(after, "item_table_gateway_requests_total", action="ListTables", status="400",
                 error="ThrottlingException") == 1
    ddb.delete_table(TableName=name)


def test_metrics_port(start_gateway):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    g = start_gateway("--auth", "none", "--metrics-port", str(port))
    post(g.url, "ListTables", {})
    # not on the main port (there GET is the health check) ...
    status, _, text = get(g.url + "/metrics")
    assert status == 200 and text.startswith("healthy:")
    # ... but on its own, and nothing else there
    status, _, text = get(f"http://127.0.0.1:{port}/metrics")
    samples = scrape(text)
    assert value(samples, "item_table_gateway_requests_total", action="ListTables",
                 status="200", error="") == 1
    with pytest.raises(urllib.error.HTTPError) as e:
        get(f"http://127.0.0.1:{port}/")
    assert e.value.code == 404


def test_metrics_overhead_is_a_read(start_gateway):
    """Scraping while requests run: every scrape parses, and counters only grow."""
    g = start_gateway("--auth", "none")
    last = None
    for _ in range(5):
        post(g.url, "ListTables", {})
        samples = scrape(get(g.url + "/metrics")[2])
        n = value(samples, "item_table_gateway_requests_total", action="ListTables", status="200", error="")
        assert last is None or n == last + 1
        last = n
        time.sleep(0.05)
