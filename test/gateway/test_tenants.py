"""Tenants of one gateway: a tenant's own code (a trigger on its own table)
never runs with the gateway login's rights, never leaves anything on a
pooled connection for the next request, and one tenant cannot take the
whole pool.

A tenant here is what docs/gateway.md tells application roles to be: a role with
CREATE on schema item_data, granted to the gateway's login role, with an
access key of its own.  Its triggers live in a schema of its own and write
what they saw to a table there (INSERT granted to PUBLIC, so that a trigger
that did escape to the login role could still report it)."""
import threading
import time
import uuid

import pytest

from conftest import client, make_table, need, new_key, psql, wait_until
from test_pool import TableLock, in_thread


class Tenant:
    def __init__(self, tag):
        self.role = f"ten_{tag}_{uuid.uuid4().hex[:8]}"
        r = self.role
        psql(f"CREATE ROLE {r} NOLOGIN; GRANT CREATE ON SCHEMA item_data TO {r}; "
             f"GRANT {r} TO gw_login; CREATE SCHEMA {r} AUTHORIZATION {r}; "
             f"GRANT USAGE ON SCHEMA {r} TO PUBLIC; "
             f"SET ROLE {r}; CREATE TABLE {r}.seen (n serial, tag text, who text, what text); "
             f"GRANT INSERT, SELECT ON {r}.seen TO PUBLIC; GRANT USAGE ON SEQUENCE {r}.seen_n_seq TO PUBLIC")
        self.key = new_key(r)

    def client(self, url, **kw):
        return client(url, *self.key, **kw)

    def table(self, url, trigger_body=None, name=None):
        """A table of the tenant's, made through its key; with a BEFORE
        INSERT trigger running trigger_body (PL/pgSQL statements) as the
        tenant wrote it."""
        name = name or f"{self.role}_t{uuid.uuid4().hex[:6]}"
        make_table(self.client(url), name)
        if trigger_body is not None:
            r = self.role
            psql(f"SET ROLE {r}; "
                 f"CREATE FUNCTION {r}.{name}_trg() RETURNS trigger LANGUAGE plpgsql AS $body$\n"
                 f"DECLARE s text;\nBEGIN\n{trigger_body}\nRETURN NEW;\nEND\n$body$; "
                 f'CREATE TRIGGER a_tenant BEFORE INSERT OR UPDATE ON item_data."{name}" '
                 f"FOR EACH ROW EXECUTE FUNCTION {r}.{name}_trg()")
        return name

    def seen(self):
        """(tag, who, what) rows its triggers wrote, in order."""
        out = psql(f"SELECT tag || '|' || coalesce(who, '') || '|' || coalesce(what, '') "
                   f"FROM {self.role}.seen ORDER BY n")
        return [tuple(line.split("|", 2)) for line in out.splitlines() if line]

    def drop(self):
        r = self.role
        psql(f"DELETE FROM item_table.access_keys WHERE role = '{r}'::regrole")
        psql(f"DROP OWNED BY {r} CASCADE; DROP ROLE {r}")


@pytest.fixture
def tenants():
    made = []

    def make(tag):
        t = Tenant(tag)
        made.append(t)
        return t

    yield make
    for t in made:
        try:
            t.drop()
        except Exception:           # noqa: BLE001 - best effort
            pass


def note(tag, expr):
    """A PL/pgSQL block that records expr, or the SQLSTATE it failed with."""
    return (f"BEGIN INSERT INTO seen_schema.seen (tag, who, what) VALUES ('{tag}', current_user, ({expr})::text);\n"
            f"EXCEPTION WHEN others THEN INSERT INTO seen_schema.seen (tag, who, what) "
            f"VALUES ('{tag} refused', current_user, SQLSTATE); END;")


def attempt(tag, statements):
    """A PL/pgSQL block that runs statements and records whether they ran."""
    return (f"BEGIN {statements}\nINSERT INTO seen_schema.seen (tag, who, what) VALUES ('{tag}', current_user, NULL);\n"
            f"EXCEPTION WHEN others THEN INSERT INTO seen_schema.seen (tag, who, what) "
            f"VALUES ('{tag} refused', current_user, SQLSTATE); END;")


def body(tenant, *blocks):
    return "\n".join(blocks).replace("seen_schema", tenant.role)


def put(c, name, pk):
    c.put_item(TableName=name, Item={"pk": {"S": pk}})


def test_reset_role_trigger_gets_nothing(start_gateway, tenants):
    """The reproduction: a BEFORE INSERT trigger on the tenant's own table
    goes back to the login role (RESET ROLE, set_config, SET SESSION
    AUTHORIZATION), reads the access keys and takes another tenant's role
    to read its table.  Every step is refused; the PutItem itself goes
    through (the trigger caught the errors)."""
    g = start_gateway("--pool", "1")
    a, b = tenants("a"), tenants("b")
    victim = b.table(g.url)
    b.client(g.url).put_item(TableName=victim, Item={"pk": {"S": "k"}, "secret": {"S": "b-private"}})
    evil = a.table(g.url, body(
        a,
        attempt("reset role", "RESET ROLE;"),
        attempt("set_config role", "PERFORM set_config('role', 'none', false);"),
        attempt("session authorization", "SET SESSION AUTHORIZATION gw_login;"),
        note("secrets", "SELECT string_agg(secret_access_key, ',') FROM item_table.access_keys"),
        attempt("victim role", f"SET ROLE {b.role};"),
        note("victim", f"SELECT string_agg(item::text, ',') FROM item_data.\"{victim}\""),
        note("who", "current_user")))
    put(a.client(g.url), evil, "x")
    seen = a.seen()
    tags = [s[0] for s in seen]
    assert tags == ["reset role refused", "set_config role refused", "session authorization refused",
                    "secrets refused", "victim role refused", "victim refused", "who"], seen
    assert all(s[1] == a.role for s in seen), seen
    assert seen[-1] == ("who", a.role, a.role)
    secret = psql(f"SELECT secret_access_key FROM item_table.access_keys WHERE access_key_id = '{b.key[0]}'")
    text = repr(seen)
    assert secret not in text and "b-private" not in text
    # without the exception blocks the PutItem fails, and changes nothing
    naked = a.table(g.url, body(a, "RESET ROLE;", note("after reset", "current_user")))
    with pytest.raises(Exception) as e:
        put(a.client(g.url), naked, "y")
    assert e.value.response["Error"]["Code"] == "AccessDeniedException"
    assert a.client(g.url).scan(TableName=naked)["Count"] == 0
    assert [s[0] for s in a.seen()] == tags


def test_next_request_runs_as_its_own_role(start_gateway, tenants):
    """On one pooled connection: after the hostile trigger, the same
    tenant's next request and another tenant's run as their own roles."""
    g = start_gateway("--pool", "1")
    a, b = tenants("a"), tenants("b")
    evil = a.table(g.url, body(a, attempt("reset role", "RESET ROLE;")))
    a_who = a.table(g.url, body(a, note("who", "current_user"), note("pid", "pg_backend_pid()")))
    b_who = b.table(g.url, body(b, note("who", "current_user"), note("pid", "pg_backend_pid()")))
    put(a.client(g.url), evil, "x")
    put(a.client(g.url), a_who, "x")
    put(b.client(g.url), b_who, "x")
    put(a.client(g.url), a_who, "y")
    sa, sb = a.seen(), b.seen()
    assert [s[:2] for s in sa if s[0] == "who"] == [("who", a.role)] * 2, sa
    assert [s[2] for s in sa if s[0] == "who"] == [a.role] * 2, sa
    assert [s[2] for s in sb if s[0] == "who"] == [b.role], sb
    # one pooled connection served them all
    assert len({s[2] for s in sa + sb if s[0] == "pid"}) == 1, (sa, sb)


def test_settings_do_not_survive_the_request(start_gateway, tenants):
    g = start_gateway("--pool", "1")
    a, b = tenants("a"), tenants("b")
    sets = a.table(g.url, body(a, attempt("set", (
        "PERFORM set_config('it.leak', 'from a', false); "
        "PERFORM set_config('search_path', 'pg_catalog, " + a.role + "', false); "
        "PERFORM set_config('work_mem', '77MB', false); "
        "SET lock_timeout = '77s'; SET LOCAL statement_timeout = '77s';"))))
    look = ("coalesce(current_setting('it.leak', true), '<none>') || ';' || current_setting('search_path') "
            "|| ';' || current_setting('work_mem') || ';' || current_setting('lock_timeout')")
    b_look = b.table(g.url, body(b, note("settings", look), note("pid", "pg_backend_pid()")))
    a_look = a.table(g.url, body(a, note("settings", look), note("pid", "pg_backend_pid()")))
    put(b.client(g.url), b_look, "before")
    put(a.client(g.url), sets, "x")
    put(b.client(g.url), b_look, "after")
    put(a.client(g.url), a_look, "after")
    assert [s[0] for s in a.seen()][0] == "set"      # the trigger's SETs did run
    before = [s[2] for s in b.seen() if s[0] == "settings"][0]
    assert "from a" not in before and "77" not in before
    after = [s[2] for s in b.seen() + a.seen() if s[0] == "settings"][1:]
    assert len(after) == 2
    for s in after:
        assert "from a" not in s and "77" not in s, s
        assert s.split(";")[1:] == before.split(";")[1:], (s, before)
    assert len({s[2] for s in a.seen() + b.seen() if s[0] == "pid"}) == 1


def test_session_state_left_by_a_trigger_is_gone(start_gateway, tenants):
    """PREPARE, LISTEN, a cursor WITH HOLD and a session advisory lock,
    tried by a trigger, reach no later request on the same connection."""
    g = start_gateway("--pool", "1")
    a, b = tenants("a"), tenants("b")
    leave = a.table(g.url, body(
        a,
        attempt("prepare", "EXECUTE 'PREPARE leftover_stmt AS SELECT 1';"),
        attempt("deallocate", "EXECUTE 'DEALLOCATE ALL';"),
        attempt("listen", "EXECUTE 'LISTEN leftover_channel';"),
        attempt("hold", "EXECUTE 'DECLARE leftover_cursor CURSOR WITH HOLD FOR SELECT 1';"),
        attempt("advisory", "PERFORM pg_advisory_lock(424242);"),
        note("pid", "pg_backend_pid()")))
    look = b.table(g.url, body(
        b,
        note("prepared", "(SELECT count(*) FROM pg_prepared_statements WHERE name = 'leftover_stmt')"),
        note("listening", "(SELECT count(*) FROM pg_listening_channels())"),
        note("cursors", "(SELECT count(*) FROM pg_cursors WHERE name = 'leftover_cursor')"),
        note("advisory", "(SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid IN (424242, 424243))"),
        note("pid", "pg_backend_pid()")))
    # a request that fails after taking a session lock: released all the same
    failing = a.table(g.url, body(a, "PERFORM pg_advisory_lock(424243);", "RAISE EXCEPTION 'no';"))
    put(a.client(g.url), leave, "x")
    with pytest.raises(Exception) as e:
        put(a.client(g.url), failing, "x")
    assert e.value.response["Error"]["Code"] == "InternalServerError"
    put(b.client(g.url), look, "x")
    got = {s[0]: s[2] for s in b.seen()}
    assert got == {"prepared": "0", "listening": "0", "cursors": "0", "advisory": "0",
                   "pid": got["pid"]}, (a.seen(), b.seen())
    assert {s[2] for s in a.seen() if s[0] == "pid"} == {got["pid"]}
    # and the gateway's own statement still works on that connection
    assert "TableNames" in b.client(g.url).list_tables()
    # other sessions can take the lock the trigger took
    assert psql("SELECT pg_try_advisory_lock(424242) AND pg_try_advisory_lock(424243)") == "t"


def test_temp_objects_do_not_reach_a_later_request(start_gateway, tenants):
    """A temporary table made by a trigger (and granted to everyone) is
    never seen by a later request: not another tenant's, which would
    resolve unqualified names to it first, and not one pipelined behind it
    on the same connection."""
    g = start_gateway("--pool", "1", "--threads", "4", "--pool-wait", "20000")
    a, b = tenants("a"), tenants("b")
    temp = a.table(g.url, body(
        a,
        attempt("temp", "CREATE TEMP TABLE IF NOT EXISTS leftover (v text); GRANT ALL ON leftover TO PUBLIC; "
                        "INSERT INTO leftover VALUES ('planted');"),
        note("pid", "pg_backend_pid()")))
    look_expr = "coalesce(to_regclass('leftover')::text, '<none>')"
    a_look = a.table(g.url, body(a, note("leftover", look_expr)))
    b_look = b.table(g.url, body(b, note("leftover", look_expr)))
    put(a.client(g.url), temp, "x")
    put(b.client(g.url), b_look, "x")
    put(a.client(g.url), a_look, "x")
    assert [s[:1] for s in a.seen()][:2] == [("temp",), ("pid",)], a.seen()
    assert [s[2] for s in b.seen() if s[0] == "leftover"] == ["<none>"], b.seen()
    assert [s[2] for s in a.seen() if s[0] == "leftover"] == ["<none>"], a.seen()

    # the same, with the later request in the same pipelined batch: the
    # only connection is held by a blocked request, both queue behind it
    ca = a.client(g.url)
    blocked = make_table(ca, f"{a.role}_hold")
    put(ca, blocked, "k")
    lock = TableLock(blocked)
    try:
        t0, _ = in_thread(lambda: ca.get_item(TableName=blocked, Key={"pk": {"S": "k"}}))
        assert wait_until(lambda: psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                       "AND usename = 'gw_login'") != "0")
        t1, o1 = in_thread(lambda: put(a.client(g.url), temp, "y"))
        time.sleep(0.3)
        t2, o2 = in_thread(lambda: put(a.client(g.url), a_look, "y"))
        time.sleep(0.3)
    finally:
        lock.release()
    for t in (t0, t1, t2):
        t.join(30)
    assert "error" not in o1 and "error" not in o2, (o1, o2)
    assert [s[2] for s in a.seen() if s[0] == "leftover"] == ["<none>", "<none>"], a.seen()


def test_one_tenant_cannot_take_the_pool(start_gateway, tenants):
    """20 concurrent requests of a tenant whose trigger is slow: another
    tenant is still served at once, by the default per-role cap."""
    g = start_gateway("--pool", "2", "--threads", "24", "--pool-wait", "1500")
    a, b = tenants("a"), tenants("b")
    slow = a.table(g.url, body(a, "PERFORM pg_sleep(2);"))
    fast = b.table(g.url)
    results = []

    def hog(i):
        try:
            put(a.client(g.url), slow, f"k{i}")
            results.append("ok")
        except Exception as e:      # noqa: BLE001 - counted below
            results.append(e.response["Error"]["Code"] if hasattr(e, "response") else repr(e))

    threads = [threading.Thread(target=hog, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    try:
        assert wait_until(lambda: psql("SELECT count(*) FROM pg_stat_activity "
                                       "WHERE wait_event = 'PgSleep' AND usename = 'gw_login'") != "0")
        time.sleep(0.2)
        cb = b.client(g.url)
        for i in range(3):
            t0 = time.monotonic()
            put(cb, fast, f"b{i}")
            assert "TableNames" in cb.list_tables()
            assert time.monotonic() - t0 < 1.0
    finally:
        for t in threads:
            t.join(60)
    assert len(results) == 20
    assert set(results) <= {"ok", "ThrottlingException"}, results
    assert b.client(g.url).scan(TableName=fast, Select="COUNT")["Count"] == 3


def test_statement_timeout_answers_internal_server_error(start_gateway, tenants):
    g = start_gateway("--pool", "1", "--statement-timeout", "500", "--lock-timeout", "300")
    a = tenants("a")
    # the trigger tries to lift the timeout first: too late for its request
    slow = a.table(g.url, body(a, "SET statement_timeout = 0; PERFORM pg_sleep(5);"))
    plain = a.table(g.url)
    ca = a.client(g.url)
    t0 = time.monotonic()
    with pytest.raises(Exception) as e:
        put(ca, slow, "x")
    took = time.monotonic() - t0
    r = e.value.response
    assert (r["Error"]["Code"], r["ResponseMetadata"]["HTTPStatusCode"]) == ("InternalServerError", 500)
    assert r["Error"]["Message"] == "The server encountered an internal error trying to fulfill the request."
    assert 0.4 <= took < 3, took
    assert ca.scan(TableName=slow, Select="COUNT")["Count"] == 0
    # the connection is fine afterwards
    put(ca, plain, "x")
    assert ca.get_item(TableName=plain, Key={"pk": {"S": "x"}})["Item"] == {"pk": {"S": "x"}}
    # a lock wait ends at --lock-timeout, answered the same way
    lock = TableLock(plain)
    try:
        t0 = time.monotonic()
        with pytest.raises(Exception) as e:
            ca.get_item(TableName=plain, Key={"pk": {"S": "x"}})
        took = time.monotonic() - t0
    finally:
        lock.release()
    assert e.value.response["Error"]["Code"] == "InternalServerError"
    assert 0.2 <= took < 3, took
    assert "TableNames" in ca.list_tables()


def test_timeout_and_cap_flags():
    import subprocess
    bin_ = need("IT_GW_BIN")
    for args in (["--statement-timeout", "-1"], ["--lock-timeout", "x"], ["--pool-per-role", "0"]):
        assert subprocess.run([bin_, *args], capture_output=True).returncode == 2, args
    out = subprocess.run([bin_, "--help"], capture_output=True, text=True)
    for flag in ("--statement-timeout", "--lock-timeout", "--pool-per-role"):
        assert flag in out.stdout
