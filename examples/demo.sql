-- item_table demo: a trading register, the single-table way, on PostgreSQL.
--
-- One item table holds accounts, assets, stock balances and stock postings
-- (see examples/trading_register.sql for the model).  We load 1,000
-- accounts, 50 assets and 100,000 trades -- each trade one
-- TransactWriteItems writing two postings and updating two balances --
-- then run every access pattern with its time and the plan that proves it
-- is one index range scan, and draw one account's item collection.
\set ON_ERROR_STOP 1
\pset footer off
\timing off
CREATE EXTENSION IF NOT EXISTS item_table;
SET search_path = item_table, public;
SET client_min_messages = notice;

\echo
\echo '== 1. The table: one item table with a GSI (GSI1: PK + SK2)'
SELECT create_table('{"TableName": "TradingRegister", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
		{"AttributeName": "SK2", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "GSI1",
		"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK2", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "ALL"}}]}')->'TableDescription'->>'TableStatus' AS status;

\echo
\echo '== 2. Load: 50 assets and 1,000 accounts (BatchWriteItem), then 100,000 trades (TransactWriteItems)'
DO $$
DECLARE
	reqs jsonb := '[]';
BEGIN
	FOR i IN 1..1050 LOOP
		reqs := reqs || jsonb_build_array(jsonb_build_object('PutRequest', jsonb_build_object('Item',
			CASE WHEN i <= 50 THEN jsonb_build_object(
				'PK', jsonb_build_object('S', 'ASSET#AS' || i), 'SK', jsonb_build_object('S', 'ASSET#Asset ' || i),
				'AssetId', jsonb_build_object('S', 'AS' || i), 'Name', jsonb_build_object('S', 'Asset ' || i),
				'Description', jsonb_build_object('S', 'Listed stock number ' || i))
			ELSE jsonb_build_object(
				'PK', jsonb_build_object('S', 'ACCOUNT#' || (i - 50)), 'SK', jsonb_build_object('S', 'ACCOUNT#' || (i - 50)),
				'AccountId', jsonb_build_object('S', (i - 50)::text), 'UserName', jsonb_build_object('S', 'trader' || (i - 50)))
			END)));
		IF jsonb_array_length(reqs) = 25 OR i = 1050 THEN
			PERFORM batch_write_item(jsonb_build_object('RequestItems', jsonb_build_object('TradingRegister', reqs)));
			reqs := '[]';
		END IF;
	END LOOP;
END $$;

CREATE FUNCTION pg_temp.trade(buyer int, seller int, asset int, qty int, cost numeric, ts text, txn text)
RETURNS jsonb LANGUAGE sql AS $$
	SELECT item_table.transact_write_items(jsonb_build_object('TransactItems', jsonb_build_array(
		jsonb_build_object('Put', jsonb_build_object('TableName', 'TradingRegister', 'ConditionExpression', 'attribute_not_exists(PK)',
			'Item', jsonb_build_object('PK', jsonb_build_object('S', 'ACCOUNT#' || buyer),
				'SK', jsonb_build_object('S', 'STOCKPOSTING#AS' || asset || '#' || ts || '#' || txn),
				'SK2', jsonb_build_object('S', 'STOCKPOSTING#' || ts || '#' || txn),
				'AssetId', jsonb_build_object('S', 'AS' || asset), 'Quantity', jsonb_build_object('N', qty::text),
				'Cost', jsonb_build_object('N', cost::text), 'Timestamp', jsonb_build_object('S', ts),
				'TxnId', jsonb_build_object('S', txn)))),
		jsonb_build_object('Put', jsonb_build_object('TableName', 'TradingRegister', 'ConditionExpression', 'attribute_not_exists(PK)',
			'Item', jsonb_build_object('PK', jsonb_build_object('S', 'ACCOUNT#' || seller),
				'SK', jsonb_build_object('S', 'STOCKPOSTING#AS' || asset || '#' || ts || '#' || txn),
				'SK2', jsonb_build_object('S', 'STOCKPOSTING#' || ts || '#' || txn),
				'AssetId', jsonb_build_object('S', 'AS' || asset), 'Quantity', jsonb_build_object('N', (-qty)::text),
				'Cost', jsonb_build_object('N', (-cost)::text), 'Timestamp', jsonb_build_object('S', ts),
				'TxnId', jsonb_build_object('S', txn)))),
		jsonb_build_object('Update', jsonb_build_object('TableName', 'TradingRegister',
			'Key', jsonb_build_object('PK', jsonb_build_object('S', 'ACCOUNT#' || buyer), 'SK', jsonb_build_object('S', 'STOCKBALANCE#AS' || asset)),
			'UpdateExpression', 'ADD Quantity :q, NetExpenditure :c SET AssetId = :a',
			'ExpressionAttributeValues', jsonb_build_object(':q', jsonb_build_object('N', qty::text),
				':c', jsonb_build_object('N', cost::text), ':a', jsonb_build_object('S', 'AS' || asset)))),
		jsonb_build_object('Update', jsonb_build_object('TableName', 'TradingRegister',
			'Key', jsonb_build_object('PK', jsonb_build_object('S', 'ACCOUNT#' || seller), 'SK', jsonb_build_object('S', 'STOCKBALANCE#AS' || asset)),
			'UpdateExpression', 'ADD Quantity :q, NetExpenditure :c SET AssetId = :a',
			'ExpressionAttributeValues', jsonb_build_object(':q', jsonb_build_object('N', (-qty)::text),
				':c', jsonb_build_object('N', (-cost)::text), ':a', jsonb_build_object('S', 'AS' || asset)))))))
$$;

-- a procedure, so that it can commit every 1,000 trades
CREATE PROCEDURE pg_temp.load_trades(n int) LANGUAGE plpgsql AS $$
DECLARE
	started timestamptz := clock_timestamp();
	b int;
BEGIN
	FOR t IN 1..n LOOP
		b := 1 + (t * 7919) % 1000;
		PERFORM pg_temp.trade(b, 1 + (b + t % 997) % 1000, 1 + (t * 31) % 50, 1 + t % 100, (1 + t % 100) * (10 + t % 50) / 4.0,
			to_char(timestamp '2024-01-01' + (t || ' seconds')::interval, 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'T' || lpad(t::text, 6, '0'));
		IF t % 1000 = 0 THEN
			COMMIT;
		END IF;
		IF t % 20000 = 0 THEN
			RAISE NOTICE 'trades: % of % (% per second)', t, n,
				round(t / extract(epoch FROM clock_timestamp() - started));
		END IF;
	END LOOP;
END $$;
\timing on
CALL pg_temp.load_trades(100000);
\timing off
ANALYZE item_data."TradingRegister";
ANALYZE item_data."TradingRegister#GSI1";
SELECT count(*) AS items, count(*) FILTER (WHERE key ^@ 'S"ACCOUNT#1"') AS items_of_account_1 FROM item_data."TradingRegister";

\echo
\echo '== 3. The access patterns (each one Query or GetItem; time and plan)'
\echo '-- 3.1 does the asset exist?'
\timing on
SELECT query('{"TableName": "TradingRegister", "KeyConditionExpression": "PK = :pk",
	"ExpressionAttributeValues": {":pk": {"S": "ASSET#AS7"}}, "Select": "COUNT"}') AS asset_as7;
\timing off
SELECT * FROM explain_query('{"TableName": "TradingRegister", "KeyConditionExpression": "PK = :pk",
	"ExpressionAttributeValues": {":pk": {"S": "ASSET#AS7"}}, "Select": "COUNT"}');

\echo '-- 3.2 does the account exist?'
\timing on
SELECT get_item('{"TableName": "TradingRegister", "Key": {"PK": {"S": "ACCOUNT#42"}, "SK": {"S": "ACCOUNT#42"}},
	"ProjectionExpression": "UserName"}') AS account_42;
\timing off
-- GetItem reads one row by primary key: this plan
EXPLAIN (COSTS OFF) SELECT item FROM item_data."TradingRegister" WHERE key = 'S"ACCOUNT#42"|S"ACCOUNT#42"';

\echo '-- 3.3 account summary: the account, its balances and its postings in one Query'
\timing on
SELECT r->'Count' AS items, r->'Items'->0->'UserName'->>'S' AS user_name,
	   (SELECT count(*) FROM jsonb_array_elements(r->'Items') i WHERE i->'SK'->>'S' LIKE 'STOCKBALANCE#%') AS balances,
	   (SELECT count(*) FROM jsonb_array_elements(r->'Items') i WHERE i->'SK'->>'S' LIKE 'STOCKPOSTING#%') AS postings
FROM query('{"TableName": "TradingRegister", "KeyConditionExpression": "PK = :pk",
	"ExpressionAttributeValues": {":pk": {"S": "ACCOUNT#42"}}}') r;
\timing off
SELECT * FROM explain_query('{"TableName": "TradingRegister", "KeyConditionExpression": "PK = :pk",
	"ExpressionAttributeValues": {":pk": {"S": "ACCOUNT#42"}}}');

\echo '-- 3.4 all balances of an account'
\timing on
SELECT string_agg((i->'AssetId'->>'S') || '=' || (i->'Quantity'->>'N'), ' ' ORDER BY i->'SK'->>'S') AS balances
FROM jsonb_array_elements(query('{"TableName": "TradingRegister", "KeyConditionExpression": "PK = :pk AND begins_with(SK, :b)",
	"ExpressionAttributeValues": {":pk": {"S": "ACCOUNT#42"}, ":b": {"S": "STOCKBALANCE#"}}}')->'Items') i;
\timing off
SELECT * FROM explain_query('{"TableName": "TradingRegister", "KeyConditionExpression": "PK = :pk AND begins_with(SK, :b)",
	"ExpressionAttributeValues": {":pk": {"S": "ACCOUNT#42"}, ":b": {"S": "STOCKBALANCE#"}}}');

\echo '-- 3.5 one balance'
\timing on
SELECT get_item('{"TableName": "TradingRegister", "Key": {"PK": {"S": "ACCOUNT#42"}, "SK": {"S": "STOCKBALANCE#AS7"}},
	"ProjectionExpression": "Quantity, NetExpenditure"}') AS balance_as7;
\timing off
EXPLAIN (COSTS OFF) SELECT item FROM item_data."TradingRegister" WHERE key = 'S"ACCOUNT#42"|S"STOCKBALANCE#AS7"';

\echo '-- 3.6 an account''s postings for one asset, newest first (first 3)'
\timing on
SELECT i->'Timestamp'->>'S' AS ts, i->'Quantity'->>'N' AS qty, i->'Cost'->>'N' AS cost
FROM jsonb_array_elements(query('{"TableName": "TradingRegister", "KeyConditionExpression": "PK = :pk AND begins_with(SK, :p)",
	"ExpressionAttributeValues": {":pk": {"S": "ACCOUNT#42"}, ":p": {"S": "STOCKPOSTING#AS7#"}},
	"ScanIndexForward": false, "Limit": 3}')->'Items') i;
\timing off
SELECT * FROM explain_query('{"TableName": "TradingRegister", "KeyConditionExpression": "PK = :pk AND begins_with(SK, :p)",
	"ExpressionAttributeValues": {":pk": {"S": "ACCOUNT#42"}, ":p": {"S": "STOCKPOSTING#AS7#"}},
	"ScanIndexForward": false, "Limit": 3}');

\echo '-- 3.7 all of an account''s postings, newest first, through GSI1 (first 3)'
\timing on
SELECT i->'SK2'->>'S' AS sk2, i->'AssetId'->>'S' AS asset, i->'Quantity'->>'N' AS qty
FROM jsonb_array_elements(query('{"TableName": "TradingRegister", "IndexName": "GSI1",
	"KeyConditionExpression": "PK = :pk AND begins_with(SK2, :p)",
	"ExpressionAttributeValues": {":pk": {"S": "ACCOUNT#42"}, ":p": {"S": "STOCKPOSTING#"}},
	"ScanIndexForward": false, "Limit": 3}')->'Items') i;
\timing off
SELECT * FROM explain_query('{"TableName": "TradingRegister", "IndexName": "GSI1",
	"KeyConditionExpression": "PK = :pk AND begins_with(SK2, :p)",
	"ExpressionAttributeValues": {":pk": {"S": "ACCOUNT#42"}, ":p": {"S": "STOCKPOSTING#"}},
	"ScanIndexForward": false, "Limit": 3}');

\echo
\echo '== 4. Account 42''s item collection, as a modelling tool draws it (first 12 rows)'
SELECT item->'PK'->>'S' AS "PK", item->'SK'->>'S' AS "SK",
	   coalesce(item->'UserName'->>'S', '') AS "UserName",
	   coalesce(item->'AssetId'->>'S', '') AS "AssetId",
	   coalesce(item->'Quantity'->>'N', '') AS "Quantity",
	   coalesce(item->'NetExpenditure'->>'N', item->'Cost'->>'N', '') AS "Cost|NetExp",
	   coalesce(item->'Timestamp'->>'S', '') AS "Timestamp",
	   coalesce(item->'TxnId'->>'S', '') AS "TxnId"
FROM item_collection('TradingRegister', '{"S": "ACCOUNT#42"}') LIMIT 12;

\echo
\echo '== 5. The books balance: every trade moved as much as it took (plain SQL over the same items)'
SELECT sum((item->'Quantity'->>'N')::numeric) AS sum_of_all_balances,
	   count(*) AS balance_items
FROM item_data."TradingRegister" WHERE item->'SK'->>'S' LIKE 'STOCKBALANCE#%';
SELECT count(*) AS index_problems FROM verify('TradingRegister');

SELECT delete_table('{"TableName": "TradingRegister"}')->'TableDescription'->>'TableStatus' AS cleanup;
\echo
\echo 'Demo finished.'
