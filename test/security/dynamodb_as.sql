-- item_table.dynamodb_as(role, action, request): a pooler's call of the API
-- as one of its roles.  It refuses a role the caller may not become; the
-- role's own code (here a trigger on its table, picking what to try from
-- the item's pk) runs as that role and cannot leave it (SET ROLE, RESET
-- ROLE, set_config('role'), SET SESSION AUTHORIZATION); settings it makes
-- (search_path included) do not survive the call; statements that would
-- leave session state are refused, session advisory locks released,
-- deferred triggers fired inside the call, as the role.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP ROLE IF EXISTS sec_as_gw;
DROP ROLE IF EXISTS sec_as_app;
DROP ROLE IF EXISTS sec_as_other;
CREATE ROLE sec_as_gw NOINHERIT;
CREATE ROLE sec_as_app;
CREATE ROLE sec_as_other;
GRANT sec_as_app TO sec_as_gw;

BEGIN;
SELECT plan(33);
SET search_path = public, item_table;
GRANT CREATE ON SCHEMA item_data TO sec_as_app, sec_as_other;
CREATE SCHEMA sec_as AUTHORIZATION sec_as_app;
GRANT USAGE ON SCHEMA sec_as TO PUBLIC;
CREATE TABLE sec_as.seen (n serial, tag text, who text, what text);
GRANT ALL ON sec_as.seen, sec_as.seen_n_seq TO PUBLIC;
SET ROLE sec_as_other;
SELECT lives_ok($$SELECT create_table('{"TableName": "sec_as_other_t", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST"}')$$,
	'the other role makes a table of its own');
SET ROLE sec_as_app;
SELECT lives_ok($$SELECT create_table('{"TableName": "sec_as_t", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST"}')$$,
	'the app role makes its table');
CREATE FUNCTION sec_as.trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	CASE NEW.item->'pk'->>'S'
	WHEN 'reset' THEN RESET ROLE;
	WHEN 'set role' THEN SET ROLE sec_as_gw;
	WHEN 'set_config role' THEN PERFORM pg_catalog.set_config('role', 'sec_as_gw', false);
	WHEN 'set_config authorization' THEN PERFORM pg_catalog.set_config('session_authorization', 'sec_as_gw', true);
	WHEN 'session authorization' THEN SET SESSION AUTHORIZATION sec_as_gw;
	WHEN 'other role' THEN SET ROLE sec_as_other;
	WHEN 'settings' THEN
		PERFORM pg_catalog.set_config('sec_as.x', 'inside', false);
		PERFORM pg_catalog.set_config('search_path', 'sec_as, pg_catalog', false);
		SET work_mem = '77MB';
		SET LOCAL lock_timeout = '77s';
		INSERT INTO sec_as.seen (tag, what) VALUES ('inside', pg_catalog.current_setting('search_path'));
	WHEN 'who', 'who again' THEN INSERT INTO sec_as.seen (tag, who, what) VALUES ('who', current_user, session_user);
	WHEN 'prepare' THEN EXECUTE 'PREPARE sec_as_p AS SELECT 1';
	WHEN 'deallocate' THEN EXECUTE 'DEALLOCATE ALL';
	WHEN 'listen' THEN EXECUTE 'LISTEN sec_as_channel';
	WHEN 'hold' THEN EXECUTE 'DECLARE sec_as_c CURSOR WITH HOLD FOR SELECT 1';
	WHEN 'discard' THEN EXECUTE 'DISCARD PLANS';
	WHEN 'lock' THEN PERFORM pg_catalog.pg_advisory_lock(4242); PERFORM pg_catalog.pg_advisory_lock_shared(4243);
	ELSE NULL;
	END CASE;
	RETURN NEW;
END
$$;
CREATE TRIGGER a_sec_as BEFORE INSERT OR UPDATE ON item_data.sec_as_t FOR EACH ROW EXECUTE FUNCTION sec_as.trg();
CREATE FUNCTION sec_as.deferred() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO sec_as.seen (tag, who) VALUES ('deferred', current_user);
	RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER sec_as_later AFTER INSERT ON item_data.sec_as_t DEFERRABLE INITIALLY DEFERRED
	FOR EACH ROW WHEN ((NEW.item->'pk'->>'S') = 'deferred') EXECUTE FUNCTION sec_as.deferred();
RESET ROLE;

CREATE FUNCTION pg_temp.put(pk text) RETURNS text LANGUAGE sql AS $$
	SELECT r.response::text || ' ' || r.reusable::text
	FROM item_table.dynamodb_as('sec_as_app', 'PutItem',
		pg_catalog.jsonb_build_object('TableName', 'sec_as_t', 'Item', pg_catalog.jsonb_build_object('pk', pg_catalog.jsonb_build_object('S', pk)))) r
$$;
GRANT EXECUTE ON FUNCTION pg_temp.put(text) TO PUBLIC;

-- who may call it as whom
SET ROLE sec_as_gw;
SELECT is((SELECT (response->'TableNames') @> '["sec_as_t", "sec_as_other_t"]' AND reusable
		   FROM dynamodb_as('sec_as_app', 'ListTables', '{}')), true, 'a member of the role calls the API as it (NOINHERIT: by membership)');
SELECT throws_ok($$SELECT dynamodb_as('sec_as_other', 'ListTables', '{}')$$, '42501',
	'permission denied to act as role "sec_as_other"', 'a role the caller is not a member of is refused');
SELECT throws_ok($$SELECT dynamodb_as(NULL, 'ListTables', '{}')$$, '22004', NULL, 'no role: refused');
SELECT throws_ok($$SELECT dynamodb_as('sec_as_app', 'NoSuchAction', '{}')$$, 'XD003', NULL,
	'errors of the API come through as they are');
SELECT is(current_user::text, 'sec_as_gw', 'the caller is itself again after an error');
SELECT is(pg_temp.put('who'), '{} true', 'a PutItem as the role');
SELECT is((SELECT who || ' ' || (what = session_user::text) FROM sec_as.seen WHERE tag = 'who'), 'sec_as_app true',
	'the trigger ran as the role');
SELECT is(current_user::text, 'sec_as_gw', 'and the caller is itself after it');

-- the role's code cannot leave it
SELECT throws_ok($$SELECT pg_temp.put('reset')$$, '42501', NULL, 'RESET ROLE inside fails');
SELECT throws_ok($$SELECT pg_temp.put('set role')$$, '42501', NULL, 'SET ROLE inside fails');
SELECT throws_ok($$SELECT pg_temp.put('set_config role')$$, '42501', NULL, 'set_config(''role'') inside fails');
SELECT throws_ok($$SELECT pg_temp.put('set_config authorization')$$, '42501', NULL,
	'set_config(''session_authorization'') inside fails');
SELECT throws_ok($$SELECT pg_temp.put('other role')$$, '42501', NULL, 'SET ROLE to a role the caller could take fails too');
RESET ROLE;
SELECT throws_ok($$SELECT pg_temp.put('session authorization')$$, '42501', NULL,
	'SET SESSION AUTHORIZATION inside fails, even for a superuser caller');
SET ROLE sec_as_gw;

-- settings made inside do not survive the call
SET work_mem = '5MB';
DO $$ BEGIN PERFORM set_config('sec_as.x', 'outside', false); END $$;
SELECT is(pg_temp.put('settings'), '{} true', 'the trigger set its settings');
SELECT is((SELECT what FROM sec_as.seen WHERE tag = 'inside'), 'sec_as, pg_catalog', 'and saw them inside');
SELECT is(current_setting('search_path'), 'public, item_table', 'search_path is the caller''s again');
SELECT is(current_setting('sec_as.x'), 'outside', 'a custom setting too');
SELECT is(current_setting('work_mem'), '5MB', 'and work_mem (a session-level SET inside)');
SELECT isnt(current_setting('lock_timeout'), '77s', 'and lock_timeout (a SET LOCAL inside)');
SELECT is(pg_temp.put('who again'), '{} true', 'a later call runs ...');
SELECT is((SELECT array_agg(who ORDER BY n) FROM sec_as.seen WHERE tag = 'who'), ARRAY['sec_as_app', 'sec_as_app']::text[],
	'... as its role again');

-- session state: refused, or released
SELECT throws_ok($$SELECT pg_temp.put('prepare')$$, '42501', NULL, 'PREPARE inside is refused');
SELECT throws_ok($$SELECT pg_temp.put('deallocate')$$, '42501', NULL, 'DEALLOCATE inside is refused (the pooler''s own statements)');
SELECT throws_ok($$SELECT pg_temp.put('listen')$$, '42501', NULL, 'LISTEN inside is refused');
SELECT throws_ok($$SELECT pg_temp.put('hold')$$, '42501', NULL, 'a cursor WITH HOLD inside is refused');
SELECT throws_ok($$SELECT pg_temp.put('discard')$$, '42501', NULL, 'DISCARD inside is refused');
SELECT is(pg_temp.put('lock'), '{} true', 'a trigger takes session advisory locks');
SELECT is((SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid IN (4242, 4243) AND pid = pg_backend_pid()),
	0::bigint, 'they are released when the call ends');

-- deferred triggers fire inside the call, as the role, not at commit as the caller
SELECT is(pg_temp.put('deferred'), '{} true', 'a write queuing a deferred trigger');
SELECT is((SELECT array_agg(who) FROM sec_as.seen WHERE tag = 'deferred'), ARRAY['sec_as_app']::text[],
	'the deferred trigger already ran, as the role');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
DROP ROLE IF EXISTS sec_as_gw;
DROP ROLE IF EXISTS sec_as_app;
DROP ROLE IF EXISTS sec_as_other;
