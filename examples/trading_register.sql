-- Trading register: accounts, assets, stock balances and stock postings in
-- one item table.  A trade writes two postings and updates two balances in
-- one TransactWriteItems; every access pattern is one Query or GetItem.
--
-- Keys
--   asset     PK = ASSET#<AssetId>      SK = ASSET#<Name>
--   account   PK = ACCOUNT#<AccountId>  SK = ACCOUNT#<AccountId>
--   balance   PK = ACCOUNT#<AccountId>  SK = STOCKBALANCE#<AssetId>
--   posting   PK = ACCOUNT#<AccountId>  SK = STOCKPOSTING#<AssetId>#<Timestamp>#<TxnId>
--             SK2 = STOCKPOSTING#<Timestamp>#<TxnId>   (GSI1: PK + SK2)
--
-- Run with psql against a database where CREATE EXTENSION item_table was
-- done.  The tests in sql/example_trading_register.sql check every result.
\set ON_ERROR_STOP 1
SET search_path = item_table, public;

SELECT create_table('{"TableName": "TradingRegister", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [
		{"AttributeName": "PK", "AttributeType": "S"},
		{"AttributeName": "SK", "AttributeType": "S"},
		{"AttributeName": "SK2", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "GSI1",
		"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK2", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "ALL"}}]}')->'TableDescription'->>'TableStatus' AS created;

-- Reference data: assets and accounts (their creation is guarded too)
CREATE FUNCTION pg_temp.new_asset(id text, name text, descr text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT item_table.put_item(jsonb_build_object('TableName', 'TradingRegister',
		'Item', jsonb_build_object('PK', jsonb_build_object('S', 'ASSET#' || id), 'SK', jsonb_build_object('S', 'ASSET#' || name),
			'AssetId', jsonb_build_object('S', id), 'Name', jsonb_build_object('S', name),
			'Description', jsonb_build_object('S', descr)),
		'ConditionExpression', 'attribute_not_exists(PK)'))
$$;
CREATE FUNCTION pg_temp.new_account(id text, username text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT item_table.put_item(jsonb_build_object('TableName', 'TradingRegister',
		'Item', jsonb_build_object('PK', jsonb_build_object('S', 'ACCOUNT#' || id), 'SK', jsonb_build_object('S', 'ACCOUNT#' || id),
			'AccountId', jsonb_build_object('S', id), 'UserName', jsonb_build_object('S', username)),
		'ConditionExpression', 'attribute_not_exists(PK)'))
$$;

-- A trade: the buyer's and the seller's postings (new items, guarded by
-- attribute_not_exists) and both balances (ADD creates them at first use),
-- all or nothing.
CREATE FUNCTION pg_temp.trade(buyer text, seller text, asset text, qty int, cost numeric, ts text, txn text)
RETURNS jsonb LANGUAGE sql AS $$
	SELECT item_table.transact_write_items(jsonb_build_object('TransactItems', jsonb_build_array(
		jsonb_build_object('Put', jsonb_build_object('TableName', 'TradingRegister',
			'Item', jsonb_build_object(
				'PK', jsonb_build_object('S', 'ACCOUNT#' || buyer),
				'SK', jsonb_build_object('S', 'STOCKPOSTING#' || asset || '#' || ts || '#' || txn),
				'SK2', jsonb_build_object('S', 'STOCKPOSTING#' || ts || '#' || txn),
				'AccountId', jsonb_build_object('S', buyer), 'AssetId', jsonb_build_object('S', asset),
				'Quantity', jsonb_build_object('N', qty::text), 'Cost', jsonb_build_object('N', cost::text),
				'Timestamp', jsonb_build_object('S', ts), 'TxnId', jsonb_build_object('S', txn)),
			'ConditionExpression', 'attribute_not_exists(PK)')),
		jsonb_build_object('Put', jsonb_build_object('TableName', 'TradingRegister',
			'Item', jsonb_build_object(
				'PK', jsonb_build_object('S', 'ACCOUNT#' || seller),
				'SK', jsonb_build_object('S', 'STOCKPOSTING#' || asset || '#' || ts || '#' || txn),
				'SK2', jsonb_build_object('S', 'STOCKPOSTING#' || ts || '#' || txn),
				'AccountId', jsonb_build_object('S', seller), 'AssetId', jsonb_build_object('S', asset),
				'Quantity', jsonb_build_object('N', (-qty)::text), 'Cost', jsonb_build_object('N', (-cost)::text),
				'Timestamp', jsonb_build_object('S', ts), 'TxnId', jsonb_build_object('S', txn)),
			'ConditionExpression', 'attribute_not_exists(PK)')),
		jsonb_build_object('Update', jsonb_build_object('TableName', 'TradingRegister',
			'Key', jsonb_build_object('PK', jsonb_build_object('S', 'ACCOUNT#' || buyer), 'SK', jsonb_build_object('S', 'STOCKBALANCE#' || asset)),
			'UpdateExpression', 'ADD Quantity :q, NetExpenditure :c SET AccountId = :a, AssetId = :s',
			'ExpressionAttributeValues', jsonb_build_object(':q', jsonb_build_object('N', qty::text),
				':c', jsonb_build_object('N', cost::text), ':a', jsonb_build_object('S', buyer), ':s', jsonb_build_object('S', asset)))),
		jsonb_build_object('Update', jsonb_build_object('TableName', 'TradingRegister',
			'Key', jsonb_build_object('PK', jsonb_build_object('S', 'ACCOUNT#' || seller), 'SK', jsonb_build_object('S', 'STOCKBALANCE#' || asset)),
			'UpdateExpression', 'ADD Quantity :q, NetExpenditure :c SET AccountId = :a, AssetId = :s',
			'ExpressionAttributeValues', jsonb_build_object(':q', jsonb_build_object('N', (-qty)::text),
				':c', jsonb_build_object('N', (-cost)::text), ':a', jsonb_build_object('S', seller), ':s', jsonb_build_object('S', asset)))))))
$$;

SELECT pg_temp.new_asset('AAPL', 'Apple', 'Apple Inc. common stock');
SELECT pg_temp.new_asset('MSFT', 'Microsoft', 'Microsoft Corporation common stock');
SELECT pg_temp.new_account('1001', 'alice');
SELECT pg_temp.new_account('1002', 'bob');
SELECT pg_temp.trade('1001', '1002', 'AAPL', 10, 1700.50, '2024-03-01T10:00:00Z', 'T0001');
SELECT pg_temp.trade('1002', '1001', 'AAPL', 4, 690.00, '2024-03-02T11:30:00Z', 'T0002');
SELECT pg_temp.trade('1001', '1002', 'MSFT', 5, 2050.25, '2024-03-03T09:15:00Z', 'T0003');

\echo '-- 1. does the asset exist?'
SELECT query('{"TableName": "TradingRegister", "KeyConditionExpression": "PK = :pk",
	"ExpressionAttributeValues": {":pk": {"S": "ASSET#AAPL"}}, "Select": "COUNT"}')->'Count' AS aapl_exists,
	   query('{"TableName": "TradingRegister", "KeyConditionExpression": "PK = :pk",
	"ExpressionAttributeValues": {":pk": {"S": "ASSET#GOOG"}}, "Select": "COUNT"}')->'Count' AS goog_exists;

\echo '-- 2. does the account exist?'
SELECT get_item('{"TableName": "TradingRegister", "Key": {"PK": {"S": "ACCOUNT#1001"}, "SK": {"S": "ACCOUNT#1001"}},
	"ProjectionExpression": "UserName"}') AS account_1001;

\echo '-- 3. account summary: the account, all balances, all postings in one Query'
SELECT jsonb_array_elements(query('{"TableName": "TradingRegister", "KeyConditionExpression": "PK = :pk",
	"ExpressionAttributeValues": {":pk": {"S": "ACCOUNT#1001"}}}')->'Items')->'SK'->>'S' AS account_summary;

\echo '-- 4. all balances of an account'
SELECT i->'AssetId'->>'S' AS asset, i->'Quantity'->>'N' AS quantity, i->'NetExpenditure'->>'N' AS net_expenditure
FROM jsonb_array_elements(query('{"TableName": "TradingRegister",
	"KeyConditionExpression": "PK = :pk AND begins_with(SK, :b)",
	"ExpressionAttributeValues": {":pk": {"S": "ACCOUNT#1001"}, ":b": {"S": "STOCKBALANCE#"}}}')->'Items') i;

\echo '-- 5. one balance'
SELECT get_item('{"TableName": "TradingRegister", "Key": {"PK": {"S": "ACCOUNT#1002"}, "SK": {"S": "STOCKBALANCE#AAPL"}},
	"ProjectionExpression": "Quantity, NetExpenditure"}') AS bob_aapl;

\echo '-- 6. an account''s postings for one asset, newest first'
SELECT i->'Timestamp'->>'S' AS ts, i->'Quantity'->>'N' AS quantity, i->'Cost'->>'N' AS cost
FROM jsonb_array_elements(query('{"TableName": "TradingRegister",
	"KeyConditionExpression": "PK = :pk AND begins_with(SK, :p)",
	"ExpressionAttributeValues": {":pk": {"S": "ACCOUNT#1001"}, ":p": {"S": "STOCKPOSTING#AAPL#"}},
	"ScanIndexForward": false}')->'Items') i;

\echo '-- 7. all of an account''s postings, newest first, through GSI1'
SELECT i->'SK2'->>'S' AS sk2, i->'AssetId'->>'S' AS asset, i->'Quantity'->>'N' AS quantity
FROM jsonb_array_elements(query('{"TableName": "TradingRegister", "IndexName": "GSI1",
	"KeyConditionExpression": "PK = :pk AND begins_with(SK2, :p)",
	"ExpressionAttributeValues": {":pk": {"S": "ACCOUNT#1001"}, ":p": {"S": "STOCKPOSTING#"}},
	"ScanIndexForward": false}')->'Items') i;

\echo '-- a duplicate trade is refused as a whole (the postings exist already)'
\set ON_ERROR_STOP 0
SELECT pg_temp.trade('1001', '1002', 'AAPL', 10, 1700.50, '2024-03-01T10:00:00Z', 'T0001');
\set ON_ERROR_STOP 1

\echo '-- the item collection of account 1001, as a modelling tool draws it'
SELECT item->'PK'->>'S' AS "PK", item->'SK'->>'S' AS "SK",
	   coalesce(item->'UserName'->>'S', '') AS "UserName",
	   coalesce(item->'AssetId'->>'S', '') AS "AssetId",
	   coalesce(item->'Quantity'->>'N', '') AS "Quantity",
	   coalesce(item->'NetExpenditure'->>'N', item->'Cost'->>'N', '') AS "Cost / NetExpenditure",
	   coalesce(item->'Timestamp'->>'S', '') AS "Timestamp",
	   coalesce(item->'TxnId'->>'S', '') AS "TxnId"
FROM item_collection('TradingRegister', '{"S": "ACCOUNT#1001"}');

SELECT count(*) AS index_problems FROM verify('TradingRegister');
SELECT delete_table('{"TableName": "TradingRegister"}')->'TableDescription'->>'TableStatus' AS deleted;
