"""Access keys of dropped roles: the gateway never runs a request as a role
that merely has the OID of the key's dropped role (src/catalog/role_guard.c).

A key counts only while its role holds USAGE on the anchor domain
item_table.role_of_access_keys_or_consumers; DROP ROLE of a role with keys
is refused while they exist; DROP OWNED BY removes them.
"""
import subprocess

import pytest

from conftest import client, new_key, psql, unique


def error_of(exc_info):
    r = exc_info.value.response
    return r["Error"]["Code"], r["ResponseMetadata"]["HTTPStatusCode"]


@pytest.fixture
def role():
    name = unique("gw_dr")
    psql(f"CREATE ROLE {name} NOLOGIN; GRANT {name} TO gw_login")
    yield name
    psql(f"DELETE FROM item_table.access_keys WHERE role::oid = (SELECT oid FROM pg_roles WHERE rolname = '{name}');"
         f" DROP ROLE IF EXISTS {name}")


def test_key_of_role_that_lost_the_anchor_is_unknown(start_gateway, role):
    gw = start_gateway("--auth", "sigv4", "--key-ttl", "0")
    key_id, secret = new_key(role)
    c = client(gw.url, key_id, secret)
    assert "TableNames" in c.list_tables()
    # what a role finds that got the OID of a dropped role whose keys were
    # left behind (DROP OWNED and DROP ROLE where the library was not loaded)
    psql(f"REVOKE USAGE ON TYPE item_table.role_of_access_keys_or_consumers FROM {role}")
    with pytest.raises(c.exceptions.ClientError) as e:
        c.list_tables()
    assert error_of(e) == ("UnrecognizedClientException", 400)


def test_drop_role_with_keys(start_gateway, role):
    gw = start_gateway("--auth", "sigv4", "--key-ttl", "0")
    key_id, secret = new_key(role)
    c = client(gw.url, key_id, secret)
    assert "TableNames" in c.list_tables()
    with pytest.raises(subprocess.CalledProcessError) as e:
        psql(f"DROP ROLE {role}")
    assert "cannot be dropped because some objects depend on it" in e.value.stderr
    assert key_id in e.value.stderr
    assert "TableNames" in c.list_tables()
    psql(f"DROP OWNED BY {role}; DROP ROLE {role}")
    with pytest.raises(c.exceptions.ClientError) as e:
        c.list_tables()
    assert error_of(e) == ("UnrecognizedClientException", 400)
