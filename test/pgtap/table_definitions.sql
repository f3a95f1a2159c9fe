-- The definition cache (table_def.c) follows the catalog within one session
-- and one transaction: a table deleted and made again under its name with
-- another key schema, an index added and removed, the owner changed -- each
-- after the API, the item guard and the index trigger have cached the old
-- definition and prepared plans on it.
BEGIN;
SELECT plan(22);
SET search_path = item_table, public;

-- the first table "defs": key pk (S), index by_g; everything cached
SELECT ok(create_table('{"TableName": "defs", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}]}') ? 'TableDescription', 'table defs (pk S, index by_g)');
SELECT is(put_item('{"TableName": "defs", "Item": {"pk": {"S": "a"}, "g": {"S": "x"}}}'), '{}'::jsonb, 'item stored');
SELECT is(get_item('{"TableName": "defs", "Key": {"pk": {"S": "a"}}}') -> 'Item' -> 'g', '{"S": "x"}', 'item read');
SELECT is((query('{"TableName": "defs", "IndexName": "by_g", "KeyConditionExpression": "g = :g",
	"ExpressionAttributeValues": {":g": {"S": "x"}}}') ->> 'Count')::int, 1, 'item found through the index');
INSERT INTO item_data.defs (key, item) VALUES (NULL, '{"pk": {"S": "b"}, "g": {"S": "x"}}');
SELECT is((SELECT count(*) FROM item_data."defs#by_g"), 2::bigint, 'a plain SQL write passes the guard and reaches the index');

-- deleted and made again: key id (N) and sk (S), no index
SELECT ok(delete_table('{"TableName": "defs"}') ? 'TableDescription', 'table deleted');
SELECT throws_ok($$SELECT item_table.get_item('{"TableName": "defs", "Key": {"pk": {"S": "a"}}}')$$, 'XD004', NULL,
	'the deleted table is not found');
SELECT ok(create_table('{"TableName": "defs", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}, {"AttributeName": "sk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') ? 'TableDescription',
	'table defs made again (id N, sk S)');
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "defs", "Item": {"pk": {"S": "a"}, "g": {"S": "x"}}}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Missing the key id in the item',
	'PutItem checks the new key schema');
SELECT is(put_item('{"TableName": "defs", "Item": {"id": {"N": "1"}, "sk": {"S": "a"}, "g": {"S": "x"}}}'), '{}'::jsonb,
	'an item of the new schema is stored');
SELECT is(get_item('{"TableName": "defs", "Key": {"id": {"N": "1"}, "sk": {"S": "a"}}}') -> 'Item' -> 'g', '{"S": "x"}',
	'and read from the new table');
SELECT throws_ok($$SELECT item_table.query('{"TableName": "defs", "IndexName": "by_g", "KeyConditionExpression": "g = :g",
	"ExpressionAttributeValues": {":g": {"S": "x"}}}')$$,
	'XD001', 'ValidationException: The table does not have the specified index: by_g', 'the old index is gone');
SELECT throws_ok($$INSERT INTO item_data.defs (key, item) VALUES (NULL, '{"pk": {"S": "c"}}')$$, '23514', NULL,
	'the item guard checks the new key schema');
INSERT INTO item_data.defs (key, item) VALUES (NULL, '{"id": {"N": "2"}, "sk": {"S": "b"}}');
SELECT is((SELECT key FROM item_data.defs WHERE item -> 'id' = '{"N": "2"}'), item_key('{"N": "2"}', '{"S": "b"}'),
	'and computes the key by it');

-- an index added, then removed, in the same transaction
SELECT ok(update_table('{"TableName": "defs", "AttributeDefinitions": [{"AttributeName": "h", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}}]}') ? 'TableDescription', 'index by_h added');
SELECT is(put_item('{"TableName": "defs", "Item": {"id": {"N": "3"}, "sk": {"S": "c"}, "h": {"S": "z"}}}'), '{}'::jsonb,
	'an item with h stored');
SELECT is((SELECT count(*) FROM item_data."defs#by_h"), 1::bigint, 'the index trigger knows the new index');
SELECT ok(update_table('{"TableName": "defs", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "by_h"}}]}') ? 'TableDescription',
	'index by_h removed');
SELECT is(put_item('{"TableName": "defs", "Item": {"id": {"N": "4"}, "sk": {"S": "d"}, "h": {"S": "z"}}}'), '{}'::jsonb,
	'writes go on without the index table');

-- ALTER TABLE ... OWNER TO, base and index tables: the new owner works, the old one is refused
CREATE ROLE defs_old_owner;
CREATE ROLE defs_new_owner;
GRANT CREATE ON SCHEMA item_data TO defs_old_owner;
SET ROLE defs_old_owner;
SELECT create_table('{"TableName": "owned", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;
SELECT put_item('{"TableName": "owned", "Item": {"pk": {"S": "a"}, "g": {"S": "x"}}}') IS NOT NULL AS stored;
SELECT get_item('{"TableName": "owned", "Key": {"pk": {"S": "a"}}}') IS NOT NULL AS read;
RESET ROLE;
ALTER TABLE item_data.owned OWNER TO defs_new_owner;
ALTER TABLE item_data."owned#by_g" OWNER TO defs_new_owner;
SET ROLE defs_old_owner;
SELECT throws_ok($$SELECT item_table.get_item('{"TableName": "owned", "Key": {"pk": {"S": "a"}}}')$$, '42501', NULL,
	'the old owner may no longer read');
RESET ROLE;
SET ROLE defs_new_owner;
SELECT is(put_item('{"TableName": "owned", "Item": {"pk": {"S": "b"}, "g": {"S": "y"}}}'), '{}'::jsonb,
	'the new owner writes');
SELECT is((query('{"TableName": "owned", "IndexName": "by_g", "KeyConditionExpression": "g = :g",
	"ExpressionAttributeValues": {":g": {"S": "y"}}}') ->> 'Count')::int, 1, 'and finds the item through the index');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
