-- ALTER EXTENSION item_table UPDATE from the released 1.0: the objects end
-- as a fresh installation of the current version makes them, and tables
-- made under 1.0 keep working under the new rules.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET search_path = public;

\ir include/extension_shape.sql

CREATE TABLE fresh_shape AS SELECT * FROM pg_temp.extension_shape() s;
SELECT extversion AS fresh_version FROM pg_extension WHERE extname = 'item_table' \gset

DROP EXTENSION item_table CASCADE;
CREATE EXTENSION item_table VERSION '1.0';
-- a table made under 1.0: a GSI, a long name, items
SELECT item_table.create_table('{"TableName": "upd", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created_up \gset
SELECT item_table.create_table(('{"TableName": "' || repeat('l', 70) || '", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}')::jsonb) IS NOT NULL AS created_long \gset
SELECT item_table.put_item('{"TableName": "upd", "Item": {"pk": {"S": "a"}, "g": {"S": "x"}}}') IS NOT NULL AS put \gset
SELECT item_table.put_item('{"TableName": "upd", "Item": {"pk": {"S": "b"}, "g": {"S": "y"}}}') IS NOT NULL AS put2 \gset

ALTER EXTENSION item_table UPDATE;

BEGIN;
SELECT plan(11);
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'item_table'), :'fresh_version',
	'updated to the current version');
SELECT is((SELECT array_agg(s ORDER BY s) FROM (SELECT * FROM pg_temp.extension_shape() EXCEPT SELECT * FROM fresh_shape) x(s)),
	NULL, 'the update made nothing a fresh installation lacks');
SELECT is((SELECT array_agg(s ORDER BY s) FROM (SELECT * FROM fresh_shape EXCEPT SELECT * FROM pg_temp.extension_shape()) x(s)),
	NULL, 'a fresh installation has nothing the update lacks');
SELECT is((SELECT relname::text FROM pg_class WHERE oid = (SELECT relid FROM item_table.indexes WHERE table_name = 'upd')),
	'upd#by_g', 'the 1.0 index table has its 1.1 name');
SELECT is((SELECT relname::text FROM pg_class WHERE oid = (SELECT relid FROM item_table.tables WHERE table_name = repeat('l', 70))),
	repeat('l', 54) || '~' || left(md5(repeat('l', 70)), 8), 'a long table name has its 1.1 form');
SELECT is((SELECT count(*) FROM pg_depend WHERE objid = 'item_data."upd#by_g"'::regclass
		   AND refobjid = 'item_data.upd'::regclass AND deptype = 'a'), 1::bigint, 'the index table depends on its base');
SELECT is(item_table.put_item('{"TableName": "upd", "Item": {"pk": {"S": "c"}, "g": {"S": "x"}}}'), '{}'::jsonb,
	'the 1.0 table takes writes');
SELECT is(item_table.query('{"TableName": "upd", "IndexName": "by_g", "KeyConditionExpression": "g = :g",
	"ExpressionAttributeValues": {":g": {"S": "x"}}}') -> 'Count', '2'::jsonb, 'and index reads');
SELECT is((SELECT count(*) FROM item_table.verify('upd')), 0::bigint, 'its index is consistent');
SELECT ok(NOT has_schema_privilege('public', 'item_data', 'CREATE'), 'PUBLIC no longer creates in item_data');
SELECT throws_ok($$INSERT INTO item_data.upd VALUES ('S"z"', '{"pk": {"S": "not z"}}')$$, '23514', NULL,
	'the 1.0 table has the item guard: a plain SQL row that disagrees with its key is refused');
SELECT * FROM finish();
ROLLBACK;
