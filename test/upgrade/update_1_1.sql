-- ALTER EXTENSION item_table UPDATE from 1.1 to 1.2 (the access keys of
-- item_table_gateway), directly and stepwise from 1.0: the objects end as a
-- fresh installation of the current version makes them, and the key
-- functions work on the updated installation.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET search_path = public;

\ir include/extension_shape.sql

CREATE TABLE fresh_shape AS SELECT * FROM pg_temp.extension_shape() s;
SELECT extversion AS fresh_version FROM pg_extension WHERE extname = 'item_table' \gset

-- 1.0 -> 1.1 -> 1.2, one step at a time
DROP EXTENSION item_table CASCADE;
CREATE EXTENSION item_table VERSION '1.0';
ALTER EXTENSION item_table UPDATE TO '1.1';
SELECT extversion AS mid_version FROM pg_extension WHERE extname = 'item_table' \gset
ALTER EXTENSION item_table UPDATE TO '1.2';
CREATE TABLE stepwise_shape AS SELECT * FROM pg_temp.extension_shape() s;

-- 1.1 -> 1.2, with a table made under 1.1
DROP EXTENSION item_table CASCADE;
CREATE EXTENSION item_table VERSION '1.1';
SELECT item_table.create_table('{"TableName": "upd11", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created \gset
SELECT item_table.put_item('{"TableName": "upd11", "Item": {"pk": {"S": "a"}}}') IS NOT NULL AS put \gset
SELECT count(*) AS keys_table_before FROM pg_class WHERE relname = 'access_keys' \gset
ALTER EXTENSION item_table UPDATE TO '1.2';

BEGIN;
SELECT plan(12);
SELECT is(:'mid_version'::text, '1.1'::text, 'the stepwise update passed through 1.1');
SELECT is((SELECT array_agg(s ORDER BY s) FROM (SELECT * FROM stepwise_shape EXCEPT SELECT * FROM fresh_shape) x(s)),
	NULL, '1.0 -> 1.1 -> 1.2 made nothing a fresh installation lacks');
SELECT is((SELECT array_agg(s ORDER BY s) FROM (SELECT * FROM fresh_shape EXCEPT SELECT * FROM stepwise_shape) x(s)),
	NULL, 'a fresh installation has nothing 1.0 -> 1.1 -> 1.2 lacks');
SELECT is(:keys_table_before::int, 0, '1.1 had no access key table');
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'item_table'), :'fresh_version',
	'1.1 updated to the current version');
SELECT is((SELECT array_agg(s ORDER BY s) FROM (SELECT * FROM pg_temp.extension_shape() EXCEPT SELECT * FROM fresh_shape) x(s)),
	NULL, '1.1 -> 1.2 made nothing a fresh installation lacks');
SELECT is((SELECT array_agg(s ORDER BY s) FROM (SELECT * FROM fresh_shape EXCEPT SELECT * FROM pg_temp.extension_shape()) x(s)),
	NULL, 'a fresh installation has nothing 1.1 -> 1.2 lacks');
SELECT is(item_table.get_item('{"TableName": "upd11", "Key": {"pk": {"S": "a"}}}'),
	'{"Item": {"pk": {"S": "a"}}}'::jsonb, 'the 1.1 table is read after the update');
SELECT is((SELECT count(*) FROM item_table.create_access_key(current_user::regrole)), 1::bigint,
	'create_access_key works after the update');
SELECT is((SELECT count(*) FROM item_table.list_access_keys()), 1::bigint, 'and list_access_keys');
SELECT ok(item_table.delete_access_key((SELECT access_key_id FROM item_table.list_access_keys())),
	'and delete_access_key');
SELECT ok(NOT has_table_privilege('public', 'item_table.access_keys', 'SELECT'),
	'PUBLIC cannot read the secrets');
SELECT * FROM finish();
ROLLBACK;
