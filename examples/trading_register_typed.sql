-- Trading register with multi-attribute GSI keys: the model of
-- trading_register.sql, whose postings are found through indexes built
-- from the postings' own typed attributes instead of concatenated strings.
--
-- trading_register.sql needs SK = STOCKPOSTING#<AssetId>#<Timestamp>#<TxnId>
-- for "an account's postings of one asset" and a synthetic attribute
-- SK2 = STOCKPOSTING#<Timestamp>#<TxnId> with GSI1 (PK + SK2) for "all of
-- an account's postings by time".  Here a posting keeps the plain
-- attributes AccountId, AssetId, Timestamp, TxnId and Quantity (N), and
-- three GSIs key on them directly:
--
--   ByAssetTime   HASH AccountId, AssetId     RANGE Timestamp, TxnId
--   ByTime        HASH AccountId              RANGE Timestamp, TxnId
--   BySize        HASH AssetId                RANGE Quantity (N), Timestamp
--
-- Each access pattern stays one Query (one range of an index table), a new
-- pattern needs no backfilled synthetic attribute (BySize is added to the
-- live table with UpdateTable at the end), and Quantity sorts as a number,
-- which a concatenated string key cannot do ("10" < "4" as text).  Only
-- the postings have every key attribute, so the indexes hold nothing else.
--
-- Run with psql against a database where CREATE EXTENSION item_table was
-- done.  sql/example_trading_register_typed.sql checks every result.
\set ON_ERROR_STOP 1
SET search_path = item_table, public;

SELECT create_table('{"TableName": "TradingRegisterTyped", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [
		{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
		{"AttributeName": "AccountId", "AttributeType": "S"}, {"AttributeName": "AssetId", "AttributeType": "S"},
		{"AttributeName": "Timestamp", "AttributeType": "S"}, {"AttributeName": "TxnId", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [
		{"IndexName": "ByAssetTime",
		 "KeySchema": [{"AttributeName": "AccountId", "KeyType": "HASH"}, {"AttributeName": "AssetId", "KeyType": "HASH"},
		               {"AttributeName": "Timestamp", "KeyType": "RANGE"}, {"AttributeName": "TxnId", "KeyType": "RANGE"}],
		 "Projection": {"ProjectionType": "ALL"}},
		{"IndexName": "ByTime",
		 "KeySchema": [{"AttributeName": "AccountId", "KeyType": "HASH"},
		               {"AttributeName": "Timestamp", "KeyType": "RANGE"}, {"AttributeName": "TxnId", "KeyType": "RANGE"}],
		 "Projection": {"ProjectionType": "ALL"}}]}')->'TableDescription'->>'TableStatus' AS created;

-- A trade: the buyer's and the seller's postings (the table key is only
-- what makes the item unique; the indexes use the typed attributes).
CREATE FUNCTION pg_temp.posting(account text, asset text, qty int, cost numeric, ts text, txn text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('Put', jsonb_build_object('TableName', 'TradingRegisterTyped',
		'Item', jsonb_build_object(
			'PK', jsonb_build_object('S', 'ACCOUNT#' || account), 'SK', jsonb_build_object('S', 'TXN#' || txn),
			'AccountId', jsonb_build_object('S', account), 'AssetId', jsonb_build_object('S', asset),
			'Quantity', jsonb_build_object('N', qty::text), 'Cost', jsonb_build_object('N', cost::text),
			'Timestamp', jsonb_build_object('S', ts), 'TxnId', jsonb_build_object('S', txn)),
		'ConditionExpression', 'attribute_not_exists(PK)'))
$$;
CREATE FUNCTION pg_temp.trade(buyer text, seller text, asset text, qty int, cost numeric, ts text, txn text)
RETURNS jsonb LANGUAGE sql AS $$
	SELECT item_table.transact_write_items(jsonb_build_object('TransactItems', jsonb_build_array(
		pg_temp.posting(buyer, asset, qty, cost, ts, txn),
		pg_temp.posting(seller, asset, -qty, -cost, ts, txn))))
$$;

SELECT pg_temp.trade('1001', '1002', 'AAPL', 10, 1700.50, '2024-03-01T10:00:00Z', 'T0001');
SELECT pg_temp.trade('1002', '1001', 'AAPL', 4, 690.00, '2024-03-02T11:30:00Z', 'T0002');
SELECT pg_temp.trade('1001', '1002', 'MSFT', 5, 2050.25, '2024-03-03T09:15:00Z', 'T0003');
SELECT pg_temp.trade('1001', '1003', 'AAPL', 25, 4300.00, '2024-03-04T15:45:00Z', 'T0004');
-- an account record: no AssetId or Timestamp, so in no index (sparse)
SELECT put_item('{"TableName": "TradingRegisterTyped", "Item": {"PK": {"S": "ACCOUNT#1001"}, "SK": {"S": "ACCOUNT"},
	"AccountId": {"S": "1001"}, "UserName": {"S": "alice"}}}');

\echo '-- 1. an account''s postings for one asset, newest first (ByAssetTime)'
SELECT i->'Timestamp'->>'S' AS ts, i->'TxnId'->>'S' AS txn, i->'Quantity'->>'N' AS quantity
FROM jsonb_array_elements(query('{"TableName": "TradingRegisterTyped", "IndexName": "ByAssetTime",
	"KeyConditionExpression": "AccountId = :a AND AssetId = :s",
	"ExpressionAttributeValues": {":a": {"S": "1001"}, ":s": {"S": "AAPL"}},
	"ScanIndexForward": false}')->'Items') i;

\echo '-- 2. the same in a time window (BETWEEN on the first sort attribute)'
SELECT i->'Timestamp'->>'S' AS ts, i->'Quantity'->>'N' AS quantity
FROM jsonb_array_elements(query('{"TableName": "TradingRegisterTyped", "IndexName": "ByAssetTime",
	"KeyConditionExpression": "AccountId = :a AND AssetId = :s AND #t BETWEEN :from AND :to",
	"ExpressionAttributeNames": {"#t": "Timestamp"},
	"ExpressionAttributeValues": {":a": {"S": "1001"}, ":s": {"S": "AAPL"},
		":from": {"S": "2024-03-02"}, ":to": {"S": "2024-03-31"}}}')->'Items') i;

\echo '-- 3. all of an account''s postings, newest first (ByTime, no synthetic SK2)'
SELECT i->'Timestamp'->>'S' AS ts, i->'AssetId'->>'S' AS asset, i->'Quantity'->>'N' AS quantity
FROM jsonb_array_elements(query('{"TableName": "TradingRegisterTyped", "IndexName": "ByTime",
	"KeyConditionExpression": "AccountId = :a", "ExpressionAttributeValues": {":a": {"S": "1001"}},
	"ScanIndexForward": false}')->'Items') i;

\echo '-- 4. one day of an account''s postings (begins_with on the first sort attribute)'
SELECT i->'TxnId'->>'S' AS txn, i->'AssetId'->>'S' AS asset
FROM jsonb_array_elements(query('{"TableName": "TradingRegisterTyped", "IndexName": "ByTime",
	"KeyConditionExpression": "AccountId = :a AND begins_with(#t, :day)",
	"ExpressionAttributeNames": {"#t": "Timestamp"},
	"ExpressionAttributeValues": {":a": {"S": "1002"}, ":day": {"S": "2024-03-02"}}}')->'Items') i;

\echo '-- 5. a new access pattern on the live table: the largest buys of an asset'
SELECT update_table('{"TableName": "TradingRegisterTyped",
	"AttributeDefinitions": [{"AttributeName": "AssetId", "AttributeType": "S"},
		{"AttributeName": "Quantity", "AttributeType": "N"}, {"AttributeName": "Timestamp", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "BySize",
		"KeySchema": [{"AttributeName": "AssetId", "KeyType": "HASH"},
		              {"AttributeName": "Quantity", "KeyType": "RANGE"}, {"AttributeName": "Timestamp", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["AccountId"]}}}]}')
	#>> '{TableDescription,GlobalSecondaryIndexes}' LIKE '%BySize%' AS index_added;
-- fill it now, in this session (else the background worker does, shortly)
SET client_min_messages = warning;
CALL backfill_indexes('TradingRegisterTyped');
RESET client_min_messages;
-- Quantity sorts as a number: 25, 10, 4 (as text "4" would come first)
SELECT i->'Quantity'->>'N' AS quantity, i->'AccountId'->>'S' AS account, i->'Timestamp'->>'S' AS ts
FROM jsonb_array_elements(query('{"TableName": "TradingRegisterTyped", "IndexName": "BySize",
	"KeyConditionExpression": "AssetId = :s AND Quantity > :zero",
	"ExpressionAttributeValues": {":s": {"S": "AAPL"}, ":zero": {"N": "0"}},
	"ScanIndexForward": false}')->'Items') i;

\echo '-- 6. each is one range of an index table'
SELECT l AS plan FROM explain_query('{"TableName": "TradingRegisterTyped", "IndexName": "ByAssetTime",
	"KeyConditionExpression": "AccountId = :a AND AssetId = :s AND #t BETWEEN :from AND :to",
	"ExpressionAttributeNames": {"#t": "Timestamp"},
	"ExpressionAttributeValues": {":a": {"S": "1001"}, ":s": {"S": "AAPL"},
		":from": {"S": "2024-03-02"}, ":to": {"S": "2024-03-31"}}}') l WHERE l LIKE 'key range%';

\echo '-- 7. PartiQL reads the same index'
SELECT execute_statement($$ {"Statement": "SELECT TxnId, Quantity FROM \"TradingRegisterTyped\".\"ByAssetTime\" WHERE AccountId = '1001' AND AssetId = 'MSFT'"} $$);

SELECT count(*) AS index_problems FROM verify('TradingRegisterTyped');
SELECT delete_table('{"TableName": "TradingRegisterTyped"}')->'TableDescription'->>'TableStatus' AS deleted;
