"""SigV4 and access keys: the key decides who a request runs as."""
import datetime
import http.client
import json
import os
import subprocess
import sys
import time
import types
import urllib.parse

import botocore.auth
import botocore.awsrequest
import botocore.credentials
import pytest

from conftest import client, engine_args, make_table, need, new_key, psql, unique
from test_api import raw_post


def error_of(exc_info):
    r = exc_info.value.response
    return r["Error"]["Code"], r["Error"].get("Message", ""), r["ResponseMetadata"]["HTTPStatusCode"]


def test_right_key(endpoint, app_key):
    assert "TableNames" in client(endpoint, *app_key).list_tables()


def test_wrong_secret(endpoint, app_key):
    c = client(endpoint, app_key[0], app_key[1][:-1] + ("a" if app_key[1][-1] != "a" else "b"))
    with pytest.raises(c.exceptions.ClientError) as e:
        c.list_tables()
    code, msg, status = error_of(e)
    assert (code, status) == ("InvalidSignatureException", 400)
    assert msg.startswith("The request signature we calculated does not match")


def test_signing_keys_kept_apart(endpoint, app_key):
    """The gateway keeps the signing keys it derived (per HTTP thread, by
    secret, day and region): each key and region still verifies with its
    own, a wrong secret is refused after the right one was used, and more
    keys than it keeps in turn all work."""
    keys = [app_key] + [new_key("gw_app") for _ in range(11)]
    for _ in range(2):
        for k in keys:
            assert "TableNames" in client(endpoint, *k).list_tables()
    # the same key in another region: another signing key
    assert "TableNames" in client(endpoint, *app_key, region="eu-west-1").list_tables()
    assert "TableNames" in client(endpoint, *app_key).list_tables()
    wrong = client(endpoint, app_key[0], app_key[1][:-1] + ("a" if app_key[1][-1] != "a" else "b"))
    for _ in range(4):
        with pytest.raises(wrong.exceptions.ClientError) as e:
            wrong.list_tables()
        assert error_of(e)[0] == "InvalidSignatureException"
    # a secret that is a prefix of the right one is not the right one
    short = client(endpoint, app_key[0], app_key[1][:-1])
    with pytest.raises(short.exceptions.ClientError) as e:
        short.list_tables()
    assert error_of(e)[0] == "InvalidSignatureException"


def test_unknown_key(endpoint):
    c = client(endpoint, "AKITNOSUCHKEY0000000", "x" * 40)
    with pytest.raises(c.exceptions.ClientError) as e:
        c.list_tables()
    assert error_of(e) == ("UnrecognizedClientException",
                           "The security token included in the request is invalid.", 400)


def clock_behind(monkeypatch, minutes):
    """Set the clock of botocore's signers (its own, and awscrt's when
    installed, which botocore then prefers) back by some minutes."""
    real = datetime.datetime

    class Past(real):
        @classmethod
        def utcnow(cls):
            return real.utcnow() - datetime.timedelta(minutes=minutes)

    fake = types.SimpleNamespace(datetime=Past, timezone=datetime.timezone)
    # older botocore reads datetime.datetime.utcnow(); newer (1.38 on) calls
    # its get_current_datetime(), imported into each signer's module
    for mod in (botocore.auth, sys.modules.get("botocore.crt.auth")):
        if mod is None:
            continue
        now = getattr(mod, "get_current_datetime", None)
        if now is not None:
            monkeypatch.setattr(mod, "get_current_datetime",
                                lambda *a, _now=now, **k: _now(*a, **k) - datetime.timedelta(minutes=minutes))
        else:
            monkeypatch.setattr(mod, "datetime", fake)


def test_expired_signature(endpoint, app_key, monkeypatch):
    """botocore's own signer, with its clock 20 minutes behind."""
    clock_behind(monkeypatch, 20)
    c = client(endpoint, *app_key)
    with pytest.raises(c.exceptions.ClientError) as e:
        c.list_tables()
    code, msg, status = error_of(e)
    assert (code, status) == ("InvalidSignatureException", 400)
    assert msg.startswith("Signature expired: ")
    assert "is now earlier than" in msg


def test_signature_from_the_future(endpoint, app_key, monkeypatch):
    """A clock 20 minutes ahead is refused too."""
    clock_behind(monkeypatch, -20)
    c = client(endpoint, *app_key)
    with pytest.raises(c.exceptions.ClientError) as e:
        c.list_tables()
    code, msg, status = error_of(e)
    assert (code, status) == ("InvalidSignatureException", 400)
    assert msg.startswith("Signature not yet current: ")


def test_fourteen_minutes_is_fine(endpoint, app_key, monkeypatch):
    clock_behind(monkeypatch, 14)
    assert "TableNames" in client(endpoint, *app_key).list_tables()


def signed_headers(key_id, secret, body=b"{}", target="DynamoDB_20120810.ListTables", url="http://h/"):
    req = botocore.awsrequest.AWSRequest(method="POST", url=url, data=body,
                                         headers={"X-Amz-Target": target,
                                                  "Content-Type": "application/x-amz-json-1.0"})
    botocore.auth.SigV4Auth(botocore.credentials.Credentials(key_id, secret), "dynamodb",
                            "us-east-1").add_auth(req)
    return dict(req.headers.items())


def test_missing_and_malformed_authorization(endpoint, app_key):
    resp, data = raw_post(endpoint, "DynamoDB_20120810.ListTables", b"{}")
    assert resp.status == 400
    assert json.loads(data) == {"__type": "com.amazon.coral.service#MissingAuthenticationTokenException",
                                "message": "Request is missing Authentication Token"}
    good = signed_headers(*app_key, url=endpoint + "/")
    for bad in ["AWS4-HMAC-SHA256 Credential=x",
                "Basic dXNlcjpwYXNz",
                good["Authorization"].replace("/dynamodb/", "/s3/"),
                good["Authorization"].replace("SignedHeaders=", "SignedHeadrs="),
                good["Authorization"].replace("host;", "")]:
        resp, data = raw_post(endpoint, "DynamoDB_20120810.ListTables", b"{}", {**good, "Authorization": bad})
        assert resp.status == 400, bad
        assert json.loads(data)["__type"] == "com.amazon.coral.service#IncompleteSignatureException", bad
    no_date = {k: v for k, v in good.items() if k.lower() != "x-amz-date"}
    resp, data = raw_post(endpoint, "DynamoDB_20120810.ListTables", b"{}", no_date)
    assert json.loads(data)["__type"] == "com.amazon.coral.service#IncompleteSignatureException"


def test_signature_covers_body_and_headers(endpoint, app_key):
    h = signed_headers(*app_key, url=endpoint + "/")
    resp, data = raw_post(endpoint, "DynamoDB_20120810.ListTables", b"{}", h)
    assert resp.status == 200, data
    # the same signature on another body, or another target, is refused
    resp, data = raw_post(endpoint, "DynamoDB_20120810.ListTables", b'{"Limit": 1}', h)
    assert json.loads(data)["__type"] == "com.amazon.coral.service#InvalidSignatureException"
    resp, data = raw_post(endpoint, "DynamoDB_20120810.DescribeLimits", b"{}",
                          {**h, "X-Amz-Target": "DynamoDB_20120810.DescribeLimits"})
    assert json.loads(data)["__type"] == "com.amazon.coral.service#InvalidSignatureException"


def test_role_lacking_privileges(endpoint, ddb):
    """A key of gw_reader, which has no right on gw_app's table."""
    name = make_table(ddb, unique("priv"))
    ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "secret": {"S": "s"}})
    reader = client(endpoint, *new_key("gw_reader"))
    for call in (lambda: reader.get_item(TableName=name, Key={"pk": {"S": "k"}}),
                 lambda: reader.put_item(TableName=name, Item={"pk": {"S": "k"}}),
                 lambda: reader.delete_table(TableName=name)):
        with pytest.raises(reader.exceptions.ClientError) as e:
            call()
        code, msg, status = error_of(e)
        assert (code, status) == ("AccessDeniedException", 400)
        assert "permission denied" not in msg    # no server text
    assert ddb.get_item(TableName=name, Key={"pk": {"S": "k"}})["Item"]["secret"] == {"S": "s"}
    # a GRANT is what opens it
    psql(f'GRANT SELECT ON item_data."{name}" TO gw_reader')
    assert reader.get_item(TableName=name, Key={"pk": {"S": "k"}})["Item"]["secret"] == {"S": "s"}
    with pytest.raises(reader.exceptions.ClientError) as e:
        reader.put_item(TableName=name, Item={"pk": {"S": "k"}})
    assert error_of(e)[0] == "AccessDeniedException"
    ddb.delete_table(TableName=name)


def test_role_not_granted_to_login_role(endpoint):
    c = client(endpoint, *new_key("gw_outsider"))
    with pytest.raises(c.exceptions.ClientError) as e:
        c.list_tables()
    assert error_of(e)[:1] == ("AccessDeniedException",)


def test_requests_run_as_the_keys_role(endpoint, ddb):
    """The table made through a key of gw_app is owned by gw_app."""
    name = make_table(ddb, unique("own"))
    owner = psql(f"SELECT tableowner FROM pg_tables WHERE schemaname = 'item_data' AND tablename = '{name}'")
    assert owner == "gw_app"
    ddb.delete_table(TableName=name)


def test_deleted_key_stops_working(start_gateway):
    g = start_gateway("--key-ttl", "0")
    key = new_key("gw_app")
    c = client(g.url, *key)
    assert "TableNames" in c.list_tables()
    assert psql(f"SELECT item_table.delete_access_key('{key[0]}')") == "t"
    with pytest.raises(c.exceptions.ClientError) as e:
        c.list_tables()
    assert error_of(e)[0] == "UnrecognizedClientException"


def test_auth_none_runs_as_login_role(start_gateway):
    g = start_gateway("--auth", "none")
    c = client(g.url, "anything", "at all")
    assert "TableNames" in c.list_tables()
    # no Authorization at all is fine too
    resp, data = raw_post(g.url, "DynamoDB_20120810.ListTables", b"{}")
    assert resp.status == 200 and "TableNames" in json.loads(data)
    # the login role (gw_login) may not create tables in item_data
    with pytest.raises(c.exceptions.ClientError) as e:
        make_table(c, unique("none"), waiter=False)
    assert error_of(e)[0] == "AccessDeniedException"


def post_on(conn, headers, body=b"{}"):
    """A POST on an open HTTP connection (kept alive): status and JSON."""
    conn.request("POST", "/", body=body, headers=headers)
    resp = conn.getresponse()
    return resp.status, json.loads(resp.read() or b"{}")


def test_keys_alternating_on_one_connection(endpoint, app_key):
    """Two keys in turn on one connection (one HTTP thread, which keeps
    each signing key's HMAC state): each request verifies with its own
    key's state, and a wrong secret in between is refused, every time."""
    other = new_key("gw_app")
    u = urllib.parse.urlparse(endpoint)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    wrong = app_key[1][:-1] + ("a" if app_key[1][-1] != "a" else "b")
    try:
        for i in range(30):
            for key_id, secret in (app_key, other):
                status, data = post_on(conn, signed_headers(key_id, secret, url=endpoint + "/"))
                assert status == 200 and "TableNames" in data, (i, key_id, data)
            if i % 3 == 0:
                status, data = post_on(conn, signed_headers(app_key[0], wrong, url=endpoint + "/"))
                assert data["__type"].endswith("#InvalidSignatureException"), data
                # the other key's secret does not verify this key's requests
                status, data = post_on(conn, signed_headers(app_key[0], other[1], url=endpoint + "/"))
                assert data["__type"].endswith("#InvalidSignatureException"), data
    finally:
        conn.close()


def test_secret_changed_after_the_ttl(start_gateway):
    """A key's secret changed in the catalog: once --key-ttl has passed,
    on every HTTP thread (each keeps copies of the keys it used), the old
    secret is refused and the new one verifies."""
    g = start_gateway("--key-ttl", "1")
    key_id, secret = new_key("gw_app")
    # several connections, so that each thread has the key cached
    for _ in range(6):
        assert "TableNames" in client(g.url, key_id, secret).list_tables()
    new_secret = secret[::-1]
    psql(f"UPDATE item_table.access_keys SET secret_access_key = '{new_secret}' "
         f"WHERE access_key_id = '{key_id}'")
    time.sleep(1.5)
    for _ in range(6):
        c = client(g.url, key_id, secret)
        with pytest.raises(c.exceptions.ClientError) as e:
            c.list_tables()
        assert error_of(e)[:2] == ("InvalidSignatureException", MSG_BAD_SIGNATURE)
        assert "TableNames" in client(g.url, key_id, new_secret).list_tables()


MSG_BAD_SIGNATURE = ("The request signature we calculated does not match the signature you provided. "
                     "Check your AWS Secret Access Key and signing method. "
                     "Consult the service documentation for details.")


def test_many_and_long_signed_headers(endpoint, app_key):
    """Sixty signed headers, names repeated, runs of blanks inside values,
    one value of 6,000 bytes: the canonical request is the SDK's; one byte
    changed in any of them is refused."""
    extra = {}
    for i in range(60):
        extra[f"X-Gw-Extra-{i:02d}"] = f"value {i}   with  blanks\t and tabs"
    extra["X-Gw-Long"] = ("abc  def\t" * 700)[:6000]
    req = botocore.awsrequest.AWSRequest(method="POST", url=endpoint + "/", data=b"{}",
                                         headers={"X-Amz-Target": "DynamoDB_20120810.ListTables",
                                                  "Content-Type": "application/x-amz-json-1.0",
                                                  **extra})
    botocore.auth.SigV4Auth(botocore.credentials.Credentials(*app_key), "dynamodb",
                            "us-east-1").add_auth(req)
    h = dict(req.headers.items())
    assert h["Authorization"].count("x-gw-extra-") == 60
    resp, data = raw_post(endpoint, "DynamoDB_20120810.ListTables", b"{}", h)
    assert resp.status == 200, data
    for name in ("X-Gw-Extra-37", "X-Gw-Long"):
        bad = dict(h)
        bad[name] = bad[name][:1000] + "Z" + bad[name][1001:] if len(bad[name]) > 1000 else bad[name] + "Z"
        resp, data = raw_post(endpoint, "DynamoDB_20120810.ListTables", b"{}", bad)
        assert json.loads(data)["__type"] == "com.amazon.coral.service#InvalidSignatureException", name
    # blanks folded as the SDKs fold them: another run length signs the same
    same = dict(h)
    same["X-Gw-Extra-05"] = same["X-Gw-Extra-05"].replace("   ", " \t ")
    resp, data = raw_post(endpoint, "DynamoDB_20120810.ListTables", b"{}", same)
    assert resp.status == 200, data


def test_sigv4_with_the_environments_connection(app_key):
    """No --dbname: the connection settings come from the environment
    (PGHOST, PGPORT, ...), for the access keys' connection too."""
    env = dict(os.environ)
    for part in need("IT_GW_CONNINFO").split():
        k, v = part.split("=", 1)
        env[{"host": "PGHOST", "port": "PGPORT", "dbname": "PGDATABASE", "user": "PGUSER"}[k]] = v
    proc = subprocess.Popen([need("IT_GW_BIN"), "--port", "0", "--listen", "127.0.0.1", *engine_args()],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert "listening on" in line, (line, proc.stderr.read() if proc.poll() is not None else "")
        url = line.split("listening on ", 1)[1].strip()
        assert "TableNames" in client(url, *app_key).list_tables()
    finally:
        proc.terminate()
        proc.wait(30)
