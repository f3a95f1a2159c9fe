-- Secondary indexes: trigger-maintained index tables for GSIs, LSIs,
-- sparse, inverted, overloaded and element indexes; plain SQL writes;
-- UpdateTable with backfill; verify().  Reference §5, §8.56, §8.58.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
BEGIN
	RETURN item_table.dynamodb(action, request)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
	RETURN st || ' ' || msg;
END $$;
-- what an index table holds, readably
CREATE FUNCTION pg_temp.idx(tab text) RETURNS TABLE (ikey item_key, key item_key, item jsonb)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format('SELECT ikey, key, item FROM item_data.%I ORDER BY ikey, key', tab);
END $$;

SELECT create_table('{"TableName": "social", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [
		{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
		{"AttributeName": "GSI1PK", "AttributeType": "S"}, {"AttributeName": "GSI1SK", "AttributeType": "S"},
		{"AttributeName": "tags", "AttributeType": "S"}, {"AttributeName": "joined", "AttributeType": "N"},
		{"AttributeName": "flagged", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [
		{"IndexName": "inverted", "KeySchema": [{"AttributeName": "SK", "KeyType": "HASH"}, {"AttributeName": "PK", "KeyType": "RANGE"}],
		 "Projection": {"ProjectionType": "ALL"}},
		{"IndexName": "gsi1", "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}, {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
		 "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["name"]}},
		{"IndexName": "by_tag", "KeySchema": [{"AttributeName": "tags", "KeyType": "HASH"}],
		 "Projection": {"ProjectionType": "KEYS_ONLY"}, "ItemTableElementIndex": true},
		{"IndexName": "flagged_items", "KeySchema": [{"AttributeName": "flagged", "KeyType": "HASH"}],
		 "Projection": {"ProjectionType": "KEYS_ONLY"}}],
	"LocalSecondaryIndexes": [
		{"IndexName": "by_joined", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "joined", "KeyType": "RANGE"}],
		 "Projection": {"ProjectionType": "KEYS_ONLY"}}]}')->'TableDescription'->'LocalSecondaryIndexes';

-- a many-to-many model: users, groups, and memberships stored once as
-- USER#u / GROUP#g; the inverted index answers "users of a group"
SELECT batch_write_item('{"RequestItems": {"social": [
	{"PutRequest": {"Item": {"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}, "name": {"S": "Ada"}, "GSI1PK": {"S": "NAME"}, "GSI1SK": {"S": "Ada"}, "tags": {"SS": ["math", "engines"]}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#2"}, "SK": {"S": "PROFILE"}, "name": {"S": "Grace"}, "GSI1PK": {"S": "NAME"}, "GSI1SK": {"S": "Grace"}, "tags": {"L": [{"S": "compilers"}, {"S": "math"}, {"N": "7"}]}}}},
	{"PutRequest": {"Item": {"PK": {"S": "GROUP#1"}, "SK": {"S": "PROFILE"}, "name": {"S": "Analysts"}, "GSI1PK": {"S": "GROUPNAME"}, "GSI1SK": {"S": "Analysts"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#1"}, "SK": {"S": "GROUP#1"}, "joined": {"N": "1843"}, "role": {"S": "founder"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#2"}, "SK": {"S": "GROUP#1"}, "joined": {"N": "1952"}, "flagged": {"S": "review"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#2"}, "SK": {"S": "GROUP#2"}, "joined": {"N": "1959"}}}}]}}');
-- groups of a user: the base table; users of a group: the inverted index
SELECT key FROM item_data.social WHERE key ^@ 'S"USER#2"|S"GROUP#"' ORDER BY key;
SELECT ikey, key, item->'role' AS role FROM pg_temp.idx('social#inverted') WHERE ikey ^@ 'S"GROUP#1"';
-- index overloading: one GSI holds user names and group names
SELECT * FROM pg_temp.idx('social#gsi1');
-- element index: one row per tag; "who is tagged math" is one range
SELECT * FROM pg_temp.idx('social#by_tag');
-- sparse: only the flagged item
SELECT * FROM pg_temp.idx('social#flagged_items');
-- LSI: memberships by join year, within each partition
SELECT ikey, key FROM pg_temp.idx('social#by_joined');

-- §8.56 an invalid index key rejects the write; the table is unchanged
SELECT pg_temp.try('PutItem', '{"TableName": "social", "Item": {"PK": {"S": "USER#3"}, "SK": {"S": "PROFILE"}, "GSI1PK": {"N": "5"}, "GSI1SK": {"S": "x"}}}');
SELECT pg_temp.try('PutItem', '{"TableName": "social", "Item": {"PK": {"S": "USER#3"}, "SK": {"S": "PROFILE"}, "flagged": {"NULL": true}}}');
SELECT pg_temp.try('PutItem', '{"TableName": "social", "Item": {"PK": {"S": "USER#3"}, "SK": {"S": "PROFILE"}, "flagged": {"S": ""}}}');
SELECT pg_temp.try('PutItem', '{"TableName": "social", "Item": {"PK": {"S": "USER#3"}, "SK": {"S": "PROFILE"}, "tags": {"NS": ["1"]}}}');
SELECT pg_temp.try('UpdateItem', '{"TableName": "social", "Key": {"PK": {"S": "USER#1"}, "SK": {"S": "GROUP#1"}}, "UpdateExpression": "SET joined = :s", "ExpressionAttributeValues": {":s": {"S": "1843"}}}');
SELECT count(*) AS items_still FROM item_data.social;
-- an absent key attribute: stored, not indexed
SELECT put_item('{"TableName": "social", "Item": {"PK": {"S": "USER#3"}, "SK": {"S": "PROFILE"}, "GSI1PK": {"S": "NAME"}}}');
SELECT count(*) AS gsi1_rows_for_user3 FROM item_data."social#gsi1" WHERE key = 'S"USER#3"|S"PROFILE"';

-- moving and removing index keys
SELECT update_item('{"TableName": "social", "Key": {"PK": {"S": "USER#2"}, "SK": {"S": "GROUP#1"}}, "UpdateExpression": "REMOVE flagged"}');
SELECT update_item('{"TableName": "social", "Key": {"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}}, "UpdateExpression": "SET GSI1SK = :n, #n = :n DELETE tags :t", "ExpressionAttributeNames": {"#n": "name"}, "ExpressionAttributeValues": {":n": {"S": "Ada L."}, ":t": {"SS": ["engines"]}}}');
SELECT * FROM pg_temp.idx('social#gsi1');
SELECT * FROM pg_temp.idx('social#by_tag');
SELECT count(*) AS flagged_rows FROM item_data."social#flagged_items";
SELECT count(*) AS problems FROM verify('social');

-- plain SQL writes keep the indexes right too: INSERT, UPDATE, DELETE, COPY, TRUNCATE
INSERT INTO item_data.social VALUES ('S"USER#9"|S"GROUP#1"', '{"PK": {"S": "USER#9"}, "SK": {"S": "GROUP#1"}, "joined": {"N": "2001"}, "flagged": {"S": "spam"}}');
UPDATE item_data.social SET item = item || '{"flagged": {"S": "ok"}}' WHERE key = 'S"USER#1"|S"GROUP#1"';
DELETE FROM item_data.social WHERE key = 'S"USER#2"|S"GROUP#2"';
COPY item_data.social FROM stdin;
S"USER#8"|S"GROUP#1"	{"PK": {"S": "USER#8"}, "SK": {"S": "GROUP#1"}, "joined": {"N": "1999"}, "tags": {"SS": ["copy"]}}
\.
SELECT ikey, key FROM pg_temp.idx('social#inverted');
SELECT * FROM pg_temp.idx('social#flagged_items');
SELECT count(*) AS problems FROM verify('social');
-- a plain SQL write with an invalid index key is refused like an API write
INSERT INTO item_data.social VALUES ('S"USER#7"|S"PROFILE"', '{"PK": {"S": "USER#7"}, "SK": {"S": "PROFILE"}, "GSI1PK": {"N": "1"}, "GSI1SK": {"S": "x"}}');
BEGIN;
TRUNCATE item_data.social;
SELECT (SELECT count(*) FROM item_data."social#inverted") + (SELECT count(*) FROM item_data."social#by_tag") AS index_rows_after_truncate;
ROLLBACK;

-- verify() reports damage it did not cause
UPDATE item_data."social#inverted" SET item = '{}' WHERE key = 'S"USER#1"|S"GROUP#1"';
DELETE FROM item_data."social#by_tag" WHERE ikey = 'S"math"' AND key = 'S"USER#2"|S"PROFILE"';
INSERT INTO item_data."social#gsi1" VALUES ('S"NAME"|S"Ghost"', 'S"USER#0"|S"PROFILE"', '{}');
SELECT index_name, problem, index_key, base_key FROM verify('social') ORDER BY 1, 2, 3;

-- §8.58 UpdateTable adds a GSI over existing items: wrong-typed values are
-- skipped silently by the backfill, later wrong-typed writes are refused
SELECT put_item('{"TableName": "social", "Item": {"PK": {"S": "USER#5"}, "SK": {"S": "PROFILE"}, "city": {"N": "42"}}}');
SELECT put_item('{"TableName": "social", "Item": {"PK": {"S": "USER#6"}, "SK": {"S": "PROFILE"}, "city": {"S": "Paris"}}}');
-- (the index is left to the procedure: the background worker would fill it)
SET item_table.index_backfill = manual;
SELECT update_table('{"TableName": "social",
	"AttributeDefinitions": [{"AttributeName": "city", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_city", "KeySchema": [{"AttributeName": "city", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}}]}')
	->'TableDescription'->'GlobalSecondaryIndexes' @> '[{"IndexName": "by_city", "IndexStatus": "CREATING", "Backfilling": true}]' AS creating;
CALL backfill_indexes('social');
RESET item_table.index_backfill;
SELECT describe_table('{"TableName": "social"}')->'Table'->'GlobalSecondaryIndexes' @> '[{"IndexName": "by_city", "IndexStatus": "ACTIVE"}]' AS active;
SELECT * FROM pg_temp.idx('social#by_city');
SELECT pg_temp.try('PutItem', '{"TableName": "social", "Item": {"PK": {"S": "USER#6"}, "SK": {"S": "PROFILE"}, "city": {"N": "7"}}}');
-- the old wrong-typed item can still have other attributes updated
SELECT update_item('{"TableName": "social", "Key": {"PK": {"S": "USER#5"}, "SK": {"S": "PROFILE"}}, "UpdateExpression": "SET note = :n", "ExpressionAttributeValues": {":n": {"S": "kept"}}}');
-- UpdateTable errors
SELECT pg_temp.try('UpdateTable', '{"TableName": "social"}');
SELECT pg_temp.try('UpdateTable', '{"TableName": "social", "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_city", "KeySchema": [{"AttributeName": "city", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}}]}');
SELECT pg_temp.try('UpdateTable', '{"TableName": "social", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "nope"}}]}');
SELECT pg_temp.try('UpdateTable', '{"TableName": "social", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "by_city"}}, {"Delete": {"IndexName": "gsi1"}}]}');
-- redefining an attribute an index already keys on with another type:
-- refused, nothing changes; with the same type: accepted
SELECT pg_temp.try('UpdateTable', '{"TableName": "social", "AttributeDefinitions": [{"AttributeName": "city", "AttributeType": "N"}], "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "city2", "KeySchema": [{"AttributeName": "city", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}}]}');
SELECT describe_table('{"TableName": "social"}')->'Table'->'GlobalSecondaryIndexes' @> '[{"IndexName": "city2"}]' AS city2_made;
SELECT update_table('{"TableName": "social", "AttributeDefinitions": [{"AttributeName": "city", "AttributeType": "S"}], "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "city2", "KeySchema": [{"AttributeName": "city", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}}]}')->'TableDescription'->'AttributeDefinitions' @> '[{"AttributeName": "city", "AttributeType": "S"}]' AS city_stays_s;
SELECT update_table('{"TableName": "social", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "city2"}}]}') ? 'TableDescription' AS city2_dropped;
-- the request's definitions must hold the new index's keys, even ones the table defines
SELECT pg_temp.try('UpdateTable', '{"TableName": "social", "AttributeDefinitions": [{"AttributeName": "x", "AttributeType": "S"}], "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "city3", "KeySchema": [{"AttributeName": "city", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}}]}');
-- delete a GSI
SELECT update_table('{"TableName": "social", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "by_city"}}]}')->'TableDescription'->'GlobalSecondaryIndexes' @> '[{"IndexName": "by_city"}]' AS still_there;
SELECT count(*) AS by_city_tables FROM pg_class WHERE relname = 'social#by_city';

SELECT delete_table('{"TableName": "social"}')->'TableDescription'->>'TableStatus' AS deleted;
SELECT count(*) AS leftover_tables FROM pg_class WHERE relname LIKE 'social%';
