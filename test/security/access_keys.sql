-- The access keys of item_table_gateway: the secrets are readable only by
-- whom the administrator grants; the functions run as the caller; ids use
-- the A-Z0-9 alphabet and keys are random.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP ROLE IF EXISTS sec_key_nobody;
DROP ROLE IF EXISTS sec_key_lister;
DROP ROLE IF EXISTS sec_key_app;
CREATE ROLE sec_key_nobody;
CREATE ROLE sec_key_lister;
CREATE ROLE sec_key_app;

BEGIN;
SELECT plan(19);
SET search_path = public, item_table;

SELECT ok(NOT has_table_privilege('public', 'item_table.access_keys', 'SELECT'), 'PUBLIC cannot read the key table');
SELECT ok(NOT has_table_privilege('public', 'item_table.access_keys', 'INSERT'), 'nor write it');

CREATE TEMP TABLE made AS SELECT k.*, n FROM generate_series(1, 50) n, LATERAL create_access_key(CASE WHEN n > 0 THEN 'sec_key_app'::regrole END) k;
GRANT SELECT ON made TO PUBLIC;
SELECT is((SELECT count(*) FROM made WHERE access_key_id ~ '^AKIT[A-Z2-7]{16}$'), 50::bigint,
	'ids: AKIT and 16 of A-Z, 2-7');
SELECT is((SELECT count(*) FROM made WHERE secret_access_key ~ '^[A-Za-z0-9]{40}$'), 50::bigint,
	'secrets: 40 of A-Z, a-z, 0-9');
SELECT is((SELECT count(DISTINCT access_key_id) + count(DISTINCT secret_access_key) FROM made), 100::bigint,
	'fifty keys, fifty different ids and secrets');
SELECT is((SELECT count(DISTINCT substr(secret_access_key, i, 1)) FROM made, generate_series(1, 40) i), 62::bigint,
	'every character of the alphabet shows up in the secrets');
SELECT is((SELECT array_agg(DISTINCT role::text) FROM access_keys), ARRAY['sec_key_app'],
	'the keys map to the role given');
SELECT is((SELECT array_agg(attname::text ORDER BY attnum) FROM pg_attribute
		   WHERE attrelid = 'item_table.access_keys'::regclass AND attnum > 0),
	ARRAY['access_key_id', 'secret_access_key', 'role', 'created_at'], 'the table''s columns');
SELECT is((SELECT proargnames FROM pg_proc WHERE oid = 'item_table.list_access_keys'::regproc),
	ARRAY['access_key_id', 'role', 'created_at'], 'the listing has no secret');
SELECT throws_ok($$SELECT create_access_key('no_such_role_here')$$, '42704', NULL, 'a key for a missing role is refused');
SELECT throws_ok($$INSERT INTO access_keys VALUES ('akitlower0000000000', 's', 'sec_key_app')$$, '23514', NULL,
	'ids outside A-Z0-9 are refused');

-- a role with no grant: nothing
SET ROLE sec_key_nobody;
SELECT throws_ok($$SELECT * FROM item_table.access_keys$$, '42501', NULL, 'a plain role cannot read the secrets');
SELECT throws_ok($$SELECT * FROM list_access_keys()$$, '42501', NULL, 'nor list the keys');
SELECT throws_ok($$SELECT * FROM create_access_key('sec_key_nobody')$$, '42501', NULL, 'nor make a key');
SELECT throws_ok($$SELECT delete_access_key((SELECT access_key_id FROM made LIMIT 1))$$, '42501', NULL,
	'nor delete one');
RESET ROLE;

-- column privileges: a role may list without reading the secrets
GRANT SELECT (access_key_id, role, created_at) ON item_table.access_keys TO sec_key_lister;
SET ROLE sec_key_lister;
SELECT is((SELECT count(*) FROM list_access_keys()), 50::bigint, 'SELECT on the other columns lists the keys');
SELECT throws_ok($$SELECT secret_access_key FROM item_table.access_keys$$, '42501', NULL, 'but not the secrets');
RESET ROLE;

SELECT ok(delete_access_key((SELECT access_key_id FROM made WHERE n = 1)), 'delete_access_key removes a key');
SELECT ok(NOT delete_access_key((SELECT access_key_id FROM made WHERE n = 1)), 'and says false the second time');
SELECT * FROM finish();
ROLLBACK;
