-- Single-table vs relational, :scale postings (BENCH_SCALE): the trading register as one
-- item table (with GSI1) and as normalised tables with foreign keys.
-- 1,000 accounts, 50 assets, :scale / 1000 postings per account.
DROP TABLE IF EXISTS rel_postings, rel_balances, rel_accounts, rel_assets;
SELECT item_table.delete_table('{"TableName": "Register"}') FROM item_table.tables WHERE table_name = 'Register';
SELECT item_table.create_table('{"TableName": "Register", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}, {"AttributeName": "SK2", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "GSI1", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK2", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;
CREATE TABLE rel_accounts (account_id int PRIMARY KEY, user_name text NOT NULL);
CREATE TABLE rel_assets (asset_id text PRIMARY KEY, name text NOT NULL, description text NOT NULL);
CREATE TABLE rel_balances (account_id int REFERENCES rel_accounts, asset_id text REFERENCES rel_assets,
	quantity numeric NOT NULL, net_expenditure numeric NOT NULL, PRIMARY KEY (account_id, asset_id));
CREATE TABLE rel_postings (account_id int REFERENCES rel_accounts, asset_id text REFERENCES rel_assets,
	ts text NOT NULL, txn_id text NOT NULL, quantity numeric NOT NULL, cost numeric NOT NULL,
	PRIMARY KEY (account_id, asset_id, ts, txn_id));
CREATE INDEX ON rel_postings (account_id, ts, txn_id);
INSERT INTO rel_accounts SELECT a, 'user' || a FROM generate_series(1, 1000) a;
INSERT INTO rel_assets SELECT 'AS' || s, 'Asset ' || s, 'Description of asset ' || s FROM generate_series(1, 50) s;
INSERT INTO rel_postings
SELECT a, 'AS' || (1 + (a * 7 + p) % 50), to_char(timestamp '2024-01-01' + (p || ' minutes')::interval, 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
	   'T' || lpad((a * 100000 + p)::text, 10, '0'), (p % 17) - 8, ((p % 17) - 8) * 10.25
FROM generate_series(1, 1000) a, generate_series(1, (:scale / 1000)) p;
INSERT INTO rel_balances SELECT account_id, asset_id, sum(quantity), sum(cost) FROM rel_postings GROUP BY 1, 2;
-- the same data as items (the trigger fills GSI1)
INSERT INTO item_data."Register"
SELECT item_table.item_key(jsonb_build_object('S', 'ASSET#' || asset_id), jsonb_build_object('S', 'ASSET#' || name)),
	   jsonb_build_object('PK', jsonb_build_object('S', 'ASSET#' || asset_id), 'SK', jsonb_build_object('S', 'ASSET#' || name),
		   'AssetId', jsonb_build_object('S', asset_id), 'Name', jsonb_build_object('S', name), 'Description', jsonb_build_object('S', description))
FROM rel_assets
UNION ALL
SELECT item_table.item_key(jsonb_build_object('S', 'ACCOUNT#' || account_id), jsonb_build_object('S', 'ACCOUNT#' || account_id)),
	   jsonb_build_object('PK', jsonb_build_object('S', 'ACCOUNT#' || account_id), 'SK', jsonb_build_object('S', 'ACCOUNT#' || account_id),
		   'AccountId', jsonb_build_object('S', account_id::text), 'UserName', jsonb_build_object('S', user_name))
FROM rel_accounts
UNION ALL
SELECT item_table.item_key(jsonb_build_object('S', 'ACCOUNT#' || account_id), jsonb_build_object('S', 'STOCKBALANCE#' || asset_id)),
	   jsonb_build_object('PK', jsonb_build_object('S', 'ACCOUNT#' || account_id), 'SK', jsonb_build_object('S', 'STOCKBALANCE#' || asset_id),
		   'AccountId', jsonb_build_object('S', account_id::text), 'AssetId', jsonb_build_object('S', asset_id),
		   'Quantity', jsonb_build_object('N', quantity::text), 'NetExpenditure', jsonb_build_object('N', net_expenditure::text))
FROM rel_balances
UNION ALL
SELECT item_table.item_key(jsonb_build_object('S', 'ACCOUNT#' || account_id), jsonb_build_object('S', 'STOCKPOSTING#' || asset_id || '#' || ts || '#' || txn_id)),
	   jsonb_build_object('PK', jsonb_build_object('S', 'ACCOUNT#' || account_id), 'SK', jsonb_build_object('S', 'STOCKPOSTING#' || asset_id || '#' || ts || '#' || txn_id),
		   'SK2', jsonb_build_object('S', 'STOCKPOSTING#' || ts || '#' || txn_id),
		   'AccountId', jsonb_build_object('S', account_id::text), 'AssetId', jsonb_build_object('S', asset_id),
		   'Quantity', jsonb_build_object('N', quantity::text), 'Cost', jsonb_build_object('N', cost::text),
		   'Timestamp', jsonb_build_object('S', ts), 'TxnId', jsonb_build_object('S', txn_id))
FROM rel_postings;
VACUUM ANALYZE rel_accounts, rel_assets, rel_balances, rel_postings, item_data."Register", item_data."Register#GSI1";
