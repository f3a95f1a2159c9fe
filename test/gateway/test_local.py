"""item_table_local, used as a user would: started in a temporary directory,
tables and items made with boto3 and the AWS CLI, stopped, started again.

The program is the one installed beside IT_GW_BIN (make install puts both in
pg_config --bindir). Each test starts its own instances on free ports, in
data directories of its own, and stops them.
"""
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import boto3
import botocore.config
import pytest

from conftest import need

READY = re.compile(r"^item_table_local: listening on (http://\S+) \(data in ([^;]+?)(, removed on exit)?;")


def local_bin():
    path = os.path.join(os.path.dirname(need("IT_GW_BIN")), "item_table_local")
    assert os.access(path, os.X_OK), f"{path} is not installed"
    return path


@pytest.fixture
def workdir():
    # as root the instance runs as the postgres user, which must reach it
    d = tempfile.mkdtemp(prefix="it_local_")
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


class Local:
    """One item_table_local process, started and waited for."""

    def __init__(self, cwd, *args):
        # a user's PATH: PostgreSQL's bin directory is not on it (initdb and
        # postgres must still find themselves and each other)
        pg_bin = os.path.dirname(os.path.realpath(need("IT_GW_BIN")))
        path = os.pathsep.join(d for d in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
                               if d and os.path.realpath(d) != pg_bin)
        self.proc = subprocess.Popen([local_bin(), *args], cwd=cwd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, "PATH": path})
        self.out = []
        deadline = time.monotonic() + 60
        while True:
            left = deadline - time.monotonic()
            assert left > 0, "item_table_local did not print its ready line in 60 s"
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                continue
            line = self.proc.stdout.readline()
            if line == "":
                self.proc.wait()
                raise AssertionError(f"item_table_local exited with {self.proc.returncode}: "
                                     f"{self.proc.stderr.read()}")
            self.out.append(line)
            m = READY.match(line)
            if m:
                self.endpoint, self.data_dir = m.group(1), m.group(2)
                break

    def client(self, key_id="anything", secret="anything", region="us-west-2"):
        cfg = botocore.config.Config(retries={"total_max_attempts": 1}, connect_timeout=5,
                                     read_timeout=30)
        return boto3.client("dynamodb", endpoint_url=self.endpoint, region_name=region,
                            aws_access_key_id=key_id, aws_secret_access_key=secret, config=cfg)

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        rc = self.proc.wait(timeout=60)
        self.stderr = self.proc.stderr.read()
        return rc

    def kill(self):
        if self.proc.poll() is None:
            self.stop()


def make_table(ddb, name):
    ddb.create_table(TableName=name,
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "N"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                     BillingMode="PAY_PER_REQUEST")


def aws(endpoint, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_ACCESS_KEY_ID="AKIDLOCALTEST", AWS_SECRET_ACCESS_KEY="secret",
               AWS_DEFAULT_REGION="eu-west-1", AWS_CONFIG_FILE="/dev/null",
               AWS_SHARED_CREDENTIALS_FILE="/dev/null", AWS_PAGER="")
    out = subprocess.run(["aws", "dynamodb", *args, "--endpoint-url", endpoint, "--output", "json"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_data_survives_a_restart(workdir):
    data = os.path.join(workdir, "data")
    inst = Local(workdir, "--port", "0", "--data-dir", data)
    try:
        assert inst.data_dir == data
        ddb = inst.client()
        make_table(ddb, "Music")
        ddb.put_item(TableName="Music", Item={"pk": {"S": "boto3"}, "sk": {"N": "1"},
                                              "title": {"S": "made with boto3"}})
        aws(inst.endpoint, "put-item", "--table-name", "Music",
            "--item", '{"pk": {"S": "cli"}, "sk": {"N": "2"}, "title": {"S": "made with the CLI"}}')
        assert '"Music"' in aws(inst.endpoint, "list-tables")
        assert inst.stop() == 0
        assert "stopped" in inst.stderr
        # no server is left behind
        assert not os.path.exists(os.path.join(data, "pgdata", "postmaster.pid"))
    finally:
        inst.kill()

    # DynamoDB Local's flags, other credentials and region: the same tables
    again = Local(workdir, "-port", "0", "-dbPath", data, "-sharedDb", "-delayTransientStatuses")
    try:
        ddb = again.client(key_id="other", region="ap-south-1")
        assert ddb.list_tables()["TableNames"] == ["Music"]
        items = ddb.scan(TableName="Music", ConsistentRead=True)["Items"]
        assert sorted(i["title"]["S"] for i in items) == ["made with boto3", "made with the CLI"]
        got = aws(again.endpoint, "get-item", "--table-name", "Music",
                  "--key", '{"pk": {"S": "boto3"}, "sk": {"N": "1"}}')
        assert "made with boto3" in got
        # SQL on the same data while it runs
        out = subprocess.run([local_bin(), "--psql", "--data-dir", data, "--", "-XAt", "-c",
                              "SELECT count(*) FROM item_table.item_collection('Music', '{\"S\": \"boto3\"}')"],
                             cwd=workdir, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "1"
        assert again.stop(signal.SIGINT) == 0
    finally:
        again.kill()


def test_in_memory_leaves_nothing(workdir):
    inst = Local(workdir, "-inMemory", "-port", "0")
    try:
        assert "removed on exit" in inst.out[-1]
        assert os.path.isdir(os.path.join(inst.data_dir, "pgdata"))
        ddb = inst.client()
        make_table(ddb, "Scratch")
        ddb.put_item(TableName="Scratch", Item={"pk": {"S": "a"}, "sk": {"N": "1"}})
        assert ddb.get_item(TableName="Scratch", Key={"pk": {"S": "a"}, "sk": {"N": "1"}})["Item"]
        assert inst.stop() == 0
    finally:
        inst.kill()
    assert not os.path.exists(inst.data_dir)
    assert os.listdir(workdir) == []


def test_one_instance_per_data_dir(workdir):
    inst = Local(workdir, "--port", "0")
    try:
        assert inst.data_dir == os.path.join(workdir, "item_table_data")
        second = subprocess.run([local_bin(), "--port", "0"], cwd=workdir, capture_output=True,
                                text=True, timeout=60)
        assert second.returncode == 1
        assert "is in use by a running item_table_local" in second.stderr
        # the first still answers
        assert inst.client().list_tables()["TableNames"] == []
    finally:
        assert inst.stop() == 0


def test_credentials(workdir):
    inst = Local(workdir, "--port", "0", "--in-memory")
    try:
        ddb = inst.client(key_id="AKIAANYTHING", secret="whatever")
        assert ddb.list_tables()["TableNames"] == []
        # a request without SigV4 credentials is refused, as DynamoDB Local refuses it
        req = urllib.request.Request(inst.endpoint, data=b"{}", method="POST", headers={
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20120810.ListTables"})
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=10)
        assert e.value.code == 400
        assert b"MissingAuthenticationTokenException" in e.value.read()
    finally:
        assert inst.stop() == 0

    # --auth sigv4: real keys only; --create-key prints one
    inst = Local(workdir, "--port", "0", "--in-memory", "--auth", "sigv4", "--create-key", "app")
    try:
        m = re.search(r"aws_access_key_id=(\S+) aws_secret_access_key=(\S+)", "".join(inst.out))
        assert m, inst.out
        with pytest.raises(Exception) as e:
            inst.client(key_id="AKIAANYTHING", secret="whatever").list_tables()
        assert "UnrecognizedClientException" in str(e.value)
        ddb = inst.client(key_id=m.group(1), secret=m.group(2))
        make_table(ddb, "Keyed")
        assert ddb.list_tables()["TableNames"] == ["Keyed"]
        with pytest.raises(Exception) as e:
            inst.client(key_id=m.group(1), secret="wrong" + m.group(2)[5:]).list_tables()
        assert "InvalidSignatureException" in str(e.value)
    finally:
        assert inst.stop() == 0


def test_network_listen_needs_keys(workdir):
    out = subprocess.run([local_bin(), "--listen", "0.0.0.0", "--port", "0", "--in-memory"],
                         cwd=workdir, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "refusing to listen on 0.0.0.0" in out.stderr
    assert os.listdir(workdir) == []
    out = subprocess.run([local_bin(), "-help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "-inMemory" in out.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="the case of an instance started as root")
def test_root_gives_away_only_an_empty_directory(workdir):
    full = os.path.join(workdir, "full")
    os.mkdir(full)
    with open(os.path.join(full, "keep.txt"), "w") as f:
        f.write("root's\n")
    out = subprocess.run([local_bin(), "--port", "0", "--data-dir", full], cwd=workdir,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert "belongs to root and is not empty" in out.stderr
    assert os.stat(full).st_uid == 0
    assert os.listdir(full) == ["keep.txt"]
