-- item_table demo: the item_key type at work.
--
-- One table holds a whole single-table design: users, their orders and
-- their addresses share a partition, and one index range reads any item
-- collection, in DynamoDB's order.
\set ON_ERROR_STOP 1
\pset footer off
\timing off
CREATE EXTENSION IF NOT EXISTS item_table;
SET search_path = item_table, public;

\echo
\echo '== 1. Keys sort the way DynamoDB sorts them'
\echo 'Strings by UTF-8 bytes (so "Z" < "a" < "é" < emoji), numbers by value, binary by bytes:'
SELECT k AS key, partition_value(k) AS partition, sort_value(k) AS sort
FROM unnest(ARRAY[
	'S"p"|S"a"', 'S"p"|S"B"', 'S"p"|S"é"', 'S"p"|S"\ud83d\ude00"', 'S"p"|S"\uff5e"',
	'N10', 'N9', 'N-1', 'N"-1e-5"', 'N"1e3"', 'N0.5',
	'B"gA=="', 'B"fw=="', 'B"AA=="']::item_key[]) k
ORDER BY k;

\echo
\echo '== 2. Numbers are normalised: 1e3, 1000 and 1000.0 are one key'
SELECT 'N"1e3"'::item_key = item_key('{"N":"1000.0"}'::jsonb) AS same_key,
	   item_key('{"N":"1000.0"}'::jsonb) AS canonical;

\echo
\echo '== 3. A single-table design: 200,000 items in 20,000 item collections'
CREATE TABLE demo_items (key item_key PRIMARY KEY, item jsonb NOT NULL);
INSERT INTO demo_items
SELECT item_key(jsonb_build_object('S', 'USER#' || u),
				jsonb_build_object('S', kind)),
	   jsonb_build_object('type', split_part(kind, '#', 1))
FROM generate_series(1, 20000) u,
	 LATERAL (SELECT 'PROFILE' AS kind
			  UNION ALL SELECT 'ADDRESS#' || a FROM generate_series(1, 2) a
			  UNION ALL SELECT 'ORDER#2024-' || lpad(m::text, 2, '0') || '-' || lpad(((u * m) % 28 + 1)::text, 2, '0')
					  FROM generate_series(1, 7) m) kinds;
ANALYZE demo_items;
SELECT count(*) AS items, count(DISTINCT partition_key(key)) AS collections FROM demo_items;

\echo
\echo '== 4. One item collection, read by one index range (begins_with on the partition)'
SELECT key, item FROM demo_items WHERE key ^@ 'S"USER#42"' ORDER BY key;
EXPLAIN (COSTS OFF) SELECT key, item FROM demo_items WHERE key ^@ 'S"USER#42"' ORDER BY key;

\echo
\echo '== 5. begins_with on the sort key: the orders of one user, newest first'
SELECT key FROM demo_items
WHERE begins_with(key, item_key('{"S":"USER#42"}', '{"S":"ORDER#"}'))
ORDER BY key DESC LIMIT 3;
EXPLAIN (COSTS OFF) SELECT key FROM demo_items
WHERE begins_with(key, item_key('{"S":"USER#42"}', '{"S":"ORDER#"}'))
ORDER BY key DESC LIMIT 3;

\echo
\echo '== 6. A sort-key range within a partition (BETWEEN), as a Query would read it'
\echo 'The upper bound S"ORDER#2024-06"~ means: after every sort key that begins with ORDER#2024-06.'
SELECT key FROM demo_items
WHERE key BETWEEN 'S"USER#42"|S"ORDER#2024-03"' AND 'S"USER#42"|S"ORDER#2024-06"~'
ORDER BY key;
EXPLAIN (COSTS OFF) SELECT key FROM demo_items
WHERE key BETWEEN 'S"USER#42"|S"ORDER#2024-03"' AND 'S"USER#42"|S"ORDER#2024-06"~';

\echo
\echo '== 7. Timing: one collection by begins_with vs the whole-table scan it avoids'
\timing on
SELECT count(*) AS through_the_index FROM demo_items WHERE key ^@ 'S"USER#19999"';
\timing off
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
\timing on
SELECT count(*) AS by_sequential_scan FROM demo_items WHERE key ^@ 'S"USER#19999"';
\timing off
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;

\echo
\echo '== 8. Bad keys get clear errors'
\set ON_ERROR_STOP 0
SELECT 'S""'::item_key;
SELECT 'N"1E+126"'::item_key;
SELECT item_key('{"BOOL":true}'::jsonb);
SELECT 'S"p"|N5'::item_key ^@ 'S"p"|N"5"'::item_key;
\set ON_ERROR_STOP 1

DROP TABLE demo_items;

\echo
\echo '== 9. The DynamoDB API on the same machinery'
SELECT create_table('{"TableName": "Demo", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]}')
	->'TableDescription'->>'TableStatus' AS created;
SELECT put_item('{"TableName": "Demo", "Item": {"PK": {"S": "ACCOUNT#1"}, "SK": {"S": "BALANCE#EUR"},
	"Amount": {"N": "100.00"}, "Version": {"N": "1"}}}') AS put;
\echo 'A counter update, atomic under concurrency (the row is locked while the update is evaluated):'
SELECT update_item('{"TableName": "Demo", "Key": {"PK": {"S": "ACCOUNT#1"}, "SK": {"S": "BALANCE#EUR"}},
	"UpdateExpression": "SET Amount = Amount - :x, Version = Version + :one",
	"ConditionExpression": "Amount >= :x",
	"ExpressionAttributeValues": {":x": {"N": "30.5"}, ":one": {"N": "1"}},
	"ReturnValues": "ALL_NEW"}') AS updated;
\echo 'A condition that fails: the error carries DynamoDB''s body and the call changes nothing:'
\set ON_ERROR_STOP 0
SELECT dynamodb('UpdateItem', '{"TableName": "Demo", "Key": {"PK": {"S": "ACCOUNT#1"}, "SK": {"S": "BALANCE#EUR"}},
	"UpdateExpression": "SET Amount = Amount - :x",
	"ConditionExpression": "Amount >= :x",
	"ExpressionAttributeValues": {":x": {"N": "1000"}},
	"ReturnValuesOnConditionCheckFailure": "ALL_OLD"}');
\set ON_ERROR_STOP 1
\echo 'The same item, read with plain SQL from the physical table:'
SELECT key, item->'Amount'->>'N' AS amount, item->'Version'->>'N' AS version FROM item_data."Demo";
SELECT delete_table('{"TableName": "Demo"}')->'TableDescription'->>'TableStatus' AS deleted;

\echo
\echo 'Demo finished.'
