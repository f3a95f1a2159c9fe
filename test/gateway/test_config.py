"""item_table_gateway --config FILE and --version.

A configuration file has one "name = value" a line, the names those of the
long options; its lines take effect where --config stands on the command
line, so options after it override the file and options before it are
overridden by it.  Errors name the file and the line, and exit with 2.
"""
import pathlib
import re
import socket
import subprocess

import pytest

from conftest import Gateway, client, engine_args, need


def run(*args):
    return subprocess.run([need("IT_GW_BIN"), *args], capture_output=True, text=True, timeout=30)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write(tmp_path, text, name="gateway.conf"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_version():
    out = run("--version")
    assert out.returncode == 0, out.stderr
    assert re.fullmatch(r"item_table_gateway \(item_table\) \d+\.\d+\n", out.stdout), out.stdout
    # the extension's default_version
    control = pathlib.Path(__file__).resolve().parents[2] / "item_table.control"
    version = re.search(r"default_version\s*=\s*'([^']+)'", control.read_text()).group(1)
    assert out.stdout.split()[-1] == version
    assert "--version" in run("--help").stdout and "--config" in run("--help").stdout


@pytest.mark.parametrize("text, line, message", [
    ("port = 8000\nno-such-option = 1\n", 2, 'unknown option "no-such-option"'),
    ("# comment\n\nport = 70000\n", 3, 'invalid value for port: "70000"'),
    ("pool = 0\n", 1, 'invalid value for pool: "0"'),
    ("auth = maybe\n", 1, 'invalid value for auth: "maybe"'),
    ("log = perhaps\n", 1, 'invalid value for log: "perhaps"'),
    ("listen 127.0.0.1\n", 1, 'expected "name = value"'),
    ("port =\n", 1, "no value for port"),
    ("config = /dev/null\n", 1, '"config" is for the command line only'),
    ("--port = 1\n", 1, 'unknown option "--port"'),
])
def test_errors_name_file_and_line(tmp_path, text, line, message):
    path = write(tmp_path, text)
    out = run("--config", path)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert f"item_table_gateway: {path}:{line}: {message}" in out.stderr, out.stderr


def test_missing_file(tmp_path):
    out = run("--config", str(tmp_path / "nowhere.conf"))
    assert out.returncode == 2 and "cannot read configuration file" in out.stderr, out.stderr


def test_command_line_error_unchanged():
    out = run("--port", "70000")
    assert out.returncode == 2 and 'invalid value for --port: "70000"' in out.stderr


def test_good_file(tmp_path, app_key):
    """Comments, blank lines, blanks around names and values, a connection
    string holding '=' and a flag: the gateway serves from what the file says."""
    port = free_port()
    path = write(tmp_path, f"""# the gateway's configuration
  # an indented comment

listen = 127.0.0.1
port\t=\t{port}
dbname = {need("IT_GW_CONNINFO")}
log = true
pool = 2
auth = sigv4
""")
    g = Gateway("--port", "1", "--dbname", "dbname=no_such_db_before_config", "--config", path)
    try:
        assert g.port == port, "the file overrides options before --config"
        assert "TableNames" in client(g.url, *app_key).list_tables()
        g.stop()
        g._drain.join(10)
        assert any("ListTables" in line for line in g.log), "log = true turns on --log"
    finally:
        g.stop()


def test_command_line_after_config_overrides(tmp_path, app_key):
    port = free_port()
    path = write(tmp_path, f"port = {port}\ndbname = dbname=no_such_db_in_file\nlog = true\n")
    g = Gateway("--config", path, "--port", "0", "--dbname", need("IT_GW_CONNINFO"))
    try:
        assert g.port != port, "--port after --config wins"
        assert "TableNames" in client(g.url, *app_key).list_tables()
    finally:
        g.stop()
    # a CONNINFO argument overrides the file's dbname too
    path = write(tmp_path, "dbname = dbname=no_such_db_in_file\nport = 0\n", "second.conf")
    out = subprocess.Popen([need("IT_GW_BIN"), *engine_args(), "--config", path, need("IT_GW_CONNINFO")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "listening on" in out.stdout.readline()
    finally:
        out.terminate()
        out.wait(30)
    # but --dbname and an argument on the command line are one too many
    assert run("--dbname", "a", "b").returncode == 2


def test_file_after_command_line_wins(tmp_path):
    """--config after an option overrides it: the file's bad database is used."""
    path = write(tmp_path, "dbname = dbname=no_such_db_in_file\nport = 0\n")
    out = run("--dbname", need("IT_GW_CONNINFO"), "--config", path)
    assert out.returncode == 1 and "cannot" in out.stderr, out.stderr
