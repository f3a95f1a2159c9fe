"""Fixtures of the gateway tests (run by scripts/test.sh, suite "gateway").

The suite prepares a database with item_table, the roles below and one
access key, starts item_table_gateway as the login role, and passes:

  IT_GW_BIN        the installed item_table_gateway
  IT_GW_CONNINFO   conninfo of the gateway's login role (gw_login)
  IT_GW_ADMIN      conninfo of a superuser, for psql
  IT_GW_PSQL       psql
  IT_GW_ENDPOINT   URL of the gateway it started (--auth sigv4)
  IT_GW_KEY_ID, IT_GW_SECRET   a key of role gw_app
  IT_GW_PG_STOP, IT_GW_PG_START  shell commands stopping/starting PostgreSQL
  IT_GW_ENGINE     optional: the HTTP engine (mhd or loop) of every gateway
                   the tests start (--engine), as of the one test.sh starts

Roles: gw_login (LOGIN NOINHERIT, SELECT on item_table.access_keys, member
of gw_app and gw_reader), gw_app (CREATE on schema item_data: makes and owns
the tables), gw_reader (no rights on any table), gw_outsider (not granted to
gw_login).
"""
import os
import resource
import signal
import subprocess
import threading
import time
import uuid

import boto3
import botocore.config
import pytest

ENV = os.environ


def conninfo_field(conninfo, key):
    """The value of key in a conninfo of key=value words."""
    for part in conninfo.split():
        k, _, v = part.partition("=")
        if k == key:
            return v
    raise KeyError(key)


def need(name):
    if name not in ENV:
        pytest.skip(f"{name} is not set (run the tests through scripts/test.sh)")
    return ENV[name]


def psql(sql):
    """Run SQL as the superuser; the rows of the last statement, tab-separated."""
    out = subprocess.run([need("IT_GW_PSQL"), "-X", "-qAt", "-v", "ON_ERROR_STOP=1",
                          "-d", need("IT_GW_ADMIN"), "-c", sql],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def new_key(role):
    """A fresh access key of role, made with item_table.create_access_key()."""
    row = psql(f"SELECT access_key_id || ' ' || secret_access_key "
               f"FROM item_table.create_access_key('{role}')")
    key_id, secret = row.split()
    return key_id, secret


def client(endpoint, key_id, secret, region="us-east-1", retries=0, **kw):
    cfg = botocore.config.Config(retries={"total_max_attempts": retries + 1, "mode": "standard"},
                                 connect_timeout=5, read_timeout=30)
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name=region,
                        aws_access_key_id=key_id, aws_secret_access_key=secret,
                        config=cfg, **kw)


def unique(prefix):
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def make_table(c, name, sort=False, waiter=True):
    attrs = [{"AttributeName": "pk", "AttributeType": "S"}]
    keys = [{"AttributeName": "pk", "KeyType": "HASH"}]
    if sort:
        attrs.append({"AttributeName": "sk", "AttributeType": "N"})
        keys.append({"AttributeName": "sk", "KeyType": "RANGE"})
    c.create_table(TableName=name, AttributeDefinitions=attrs, KeySchema=keys,
                   BillingMode="PAY_PER_REQUEST")
    if waiter:
        c.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 10})
    return name


def engine_args():
    """--engine ENGINE when IT_GW_ENGINE chooses one (else the default)."""
    engine = os.environ.get("IT_GW_ENGINE")
    return ["--engine", engine] if engine else []


class Gateway:
    """An item_table_gateway started by a test, stopped at its end."""

    def __init__(self, *args, conninfo=None, nofile=None):
        cmd = [need("IT_GW_BIN"), "--port", "0", "--listen", "127.0.0.1",
               "--dbname", conninfo or need("IT_GW_CONNINFO"), *engine_args(), *args]

        def limits():
            if nofile is not None:          # a low limit of open files, soft and hard
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     preexec_fn=limits)
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            self.proc.kill()
            raise RuntimeError(f"gateway did not start: {line!r} {self.proc.stderr.read()}")
        self.url = line.split("listening on ", 1)[1].strip()
        self.port = int(self.url.rsplit(":", 1)[1])
        # drain stderr so the log never blocks the gateway
        self.log = []
        self._drain = threading.Thread(target=self._read_log, daemon=True)
        self._drain.start()

    def _read_log(self):
        for line in self.proc.stderr:
            self.log.append(line)

    def stop(self, timeout=30):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


@pytest.fixture
def start_gateway():
    started = []

    def start(*args, **kw):
        g = Gateway(*args, **kw)
        started.append(g)
        return g

    yield start
    for g in started:
        g.stop()


@pytest.fixture(scope="session")
def endpoint():
    return need("IT_GW_ENDPOINT")


@pytest.fixture(scope="session")
def app_key():
    return need("IT_GW_KEY_ID"), need("IT_GW_SECRET")


@pytest.fixture(scope="session")
def ddb(endpoint, app_key):
    return client(endpoint, *app_key)


@pytest.fixture
def table(ddb):
    name = make_table(ddb, unique("t"), sort=True)
    yield name
    try:
        ddb.delete_table(TableName=name)
    except Exception:
        pass


def wait_until(pred, timeout=10.0, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()
