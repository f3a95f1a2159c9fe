-- Defects: a table named "coll.idx" took the physical name of index "idx"
-- of table "coll"; a plain DROP TABLE of an item table left its catalog
-- row, after which GetItem raised a raw 42P01 and CreateTable of the same
-- name said ResourceInUse.  Physical names can no longer collide, and a
-- dropped table is forgotten (sql_drop event trigger) or, where that did
-- not run, noticed and reported as ResourceNotFound.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
BEGIN;
SELECT plan(16);
SET search_path = public, item_table;

SELECT lives_ok($$SELECT create_table('{"TableName": "coll", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "idx", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}]}')$$, 'table coll with index idx');
SELECT lives_ok($$SELECT create_table('{"TableName": "coll.idx", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}')$$, 'table "coll.idx" does not collide with it');
SELECT is(describe_table('{"TableName": "coll.idx"}') #>> '{Table,TableStatus}', 'ACTIVE', 'both are described');
SELECT lives_ok($$SELECT put_item('{"TableName": "coll.idx", "Item": {"pk": {"S": "a"}}}')$$, 'and both are usable');
SELECT lives_ok($$SELECT put_item('{"TableName": "coll", "Item": {"pk": {"S": "a"}, "g": {"S": "x"}}}')$$, 'and both are usable (2)');

-- a plain DROP TABLE: the catalog forgets the table and its index
DROP TABLE item_data.coll;
SELECT is((SELECT count(*) FROM item_table.tables WHERE table_name = 'coll'), 0::bigint, 'DROP TABLE removed the catalog row');
SELECT is((SELECT count(*) FROM item_table.indexes WHERE table_name = 'coll'), 0::bigint, '... and the index rows');
SELECT is((SELECT count(*) FROM pg_class WHERE relname = 'coll#idx'), 0::bigint, '... and the index table went with its base');
SELECT throws_ok($$SELECT get_item('{"TableName": "coll", "Key": {"pk": {"S": "a"}}}')$$, 'XD004', NULL,
	'GetItem of the dropped table: ResourceNotFoundException');
SELECT lives_ok($$SELECT create_table('{"TableName": "coll", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}')$$, 'the name can be used again');

-- a drop the event trigger did not see (disabled): noticed on use
ALTER EVENT TRIGGER item_table_sql_drop DISABLE;
DROP TABLE item_data."coll.idx";
ALTER EVENT TRIGGER item_table_sql_drop ENABLE;
SELECT throws_ok($$SELECT get_item('{"TableName": "coll.idx", "Key": {"pk": {"S": "a"}}}')$$, 'XD004', NULL,
	'GetItem of a table dropped unseen: ResourceNotFoundException, not 42P01');
SELECT throws_ok($$SELECT describe_table('{"TableName": "coll.idx"}')$$, 'XD004', NULL, 'DescribeTable likewise');
SELECT throws_ok($$SELECT query('{"TableName": "coll.idx", "KeyConditionExpression": "pk = :p",
	"ExpressionAttributeValues": {":p": {"S": "a"}}}')$$, 'XD004', NULL, 'Query likewise');
SELECT ok(NOT (list_tables() -> 'TableNames') ? 'coll.idx', 'ListTables does not list it');
SELECT lives_ok($$SELECT create_table('{"TableName": "coll.idx", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}')$$, 'CreateTable of the name replaces the stale entry');
SELECT is(get_item('{"TableName": "coll.idx", "Key": {"pk": {"S": "a"}}}'), '{}'::jsonb, 'the new table is empty and usable');

SELECT * FROM finish();
ROLLBACK;
