-- CreateTable, DescribeTable, DeleteTable, ListTables: responses and
-- errors.  Volatile members (TableId, CreationDateTime) are masked.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.masked(j jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT CASE
		WHEN j ? 'TableDescription' THEN jsonb_set(jsonb_set(jsonb_set(j, '{TableDescription,TableId}', '"<uuid>"'),
			'{TableDescription,CreationDateTime}', '0', false),
			'{TableDescription,BillingModeSummary,LastUpdateToPayPerRequestDateTime}', '0', false)
		WHEN j ? 'Table' THEN jsonb_set(jsonb_set(jsonb_set(j, '{Table,TableId}', '"<uuid>"'),
			'{Table,CreationDateTime}', '0', false),
			'{Table,BillingModeSummary,LastUpdateToPayPerRequestDateTime}', '0', false)
		ELSE j END
$$;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
BEGIN
	RETURN pg_temp.masked(item_table.dynamodb(action, request))::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	RETURN st || ' ' || msg;
END $$;

CREATE FUNCTION pg_temp.body(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	det text;
BEGIN
	PERFORM item_table.dynamodb(action, request);
	RETURN 'no error';
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS det = PG_EXCEPTION_DETAIL;
	RETURN det;
END $$;

-- a table with a composite key, on demand
SELECT jsonb_pretty(pg_temp.masked(create_table('{
	"TableName": "Music",
	"AttributeDefinitions": [{"AttributeName": "Artist", "AttributeType": "S"},
							 {"AttributeName": "SongTitle", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "Artist", "KeyType": "HASH"},
				  {"AttributeName": "SongTitle", "KeyType": "RANGE"}],
	"BillingMode": "PAY_PER_REQUEST"}')));

-- hash-only, provisioned, numeric key
SELECT jsonb_pretty(pg_temp.masked(create_table('{
	"TableName": "Counters",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
	"ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 10}}')));

SELECT jsonb_pretty(pg_temp.masked(describe_table('{"TableName": "Music"}')));

-- the physical table is an ordinary table, readable in psql
SELECT table_name, relid, hash_key, hash_type, range_key, range_type, billing_mode
FROM item_table.tables ORDER BY table_name;
\d item_data."Music"

-- names: 3..255 of [A-Za-z0-9_.-], longer than PostgreSQL identifiers
SELECT create_table(jsonb_build_object(
	'TableName', 'a.b-c_' || repeat('x', 249),
	'AttributeDefinitions', '[{"AttributeName": "pk", "AttributeType": "B"}]'::jsonb,
	'KeySchema', '[{"AttributeName": "pk", "KeyType": "HASH"}]'::jsonb,
	'BillingMode', 'PAY_PER_REQUEST'))->'TableDescription'->>'TableName' = 'a.b-c_' || repeat('x', 249) AS long_name_kept;
SELECT relid FROM item_table.tables WHERE length(table_name) = 255;

-- ListTables: ascending, paginated
SELECT list_tables();
SELECT list_tables('{"Limit": 1}');
SELECT list_tables('{"Limit": 1, "ExclusiveStartTableName": "Counters"}');
SELECT list_tables('{"ExclusiveStartTableName": "Music"}');

-- errors (reference §4.1, §8.59, §8.62); the DETAIL is DynamoDB's error body
SELECT pg_temp.body('CreateTable', '{"TableName": "Music", "AttributeDefinitions": [{"AttributeName": "Artist", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "Artist", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}');
SELECT pg_temp.body('DescribeTable', '{"TableName": "x"}');
SELECT pg_temp.try('CreateTable', '{"TableName": "Music", "AttributeDefinitions": [{"AttributeName": "Artist", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "Artist", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}');
SELECT pg_temp.try('CreateTable', '{"TableName": "ab", "KeySchema": [], "AttributeDefinitions": []}');
SELECT pg_temp.try('CreateTable', '{}');
SELECT pg_temp.try('CreateTable', '{"TableName": "bad name!", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}');
SELECT pg_temp.try('CreateTable', '{"TableName": "Tab1", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}, {"AttributeName": "unused", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}');
SELECT pg_temp.try('CreateTable', '{"TableName": "Tab1", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}, {"AttributeName": "r", "KeyType": "RANGE"}], "BillingMode": "PAY_PER_REQUEST"}');
SELECT pg_temp.try('CreateTable', '{"TableName": "Tab1", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "k", "KeyType": "RANGE"}], "BillingMode": "PAY_PER_REQUEST"}');
SELECT pg_temp.try('CreateTable', '{"TableName": "Tab1", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}, {"AttributeName": "r", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}, {"AttributeName": "r", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}');
SELECT pg_temp.try('CreateTable', '{"TableName": "Tab1", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}, {"AttributeName": "k", "KeyType": "RANGE"}], "BillingMode": "PAY_PER_REQUEST"}');
SELECT pg_temp.try('CreateTable', '{"TableName": "Tab1", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "BOOL"}], "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}');
SELECT pg_temp.try('CreateTable', '{"TableName": "Tab1", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}, {"AttributeName": "k", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}');
SELECT pg_temp.try('CreateTable', '{"TableName": "Tab1", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}]}');
SELECT pg_temp.try('CreateTable', '{"TableName": "Tab1", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST", "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}');
SELECT pg_temp.try('CreateTable', '{"TableName": "Tab1", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}], "ProvisionedThroughput": {"ReadCapacityUnits": 0, "WriteCapacityUnits": 1}}');
SELECT pg_temp.try('CreateTable', '{"TableName": "Tab1", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}], "BillingMode": "ON_DEMAND"}');
SELECT pg_temp.try('CreateTable', '{"TableName": 5, "AttributeDefinitions": [], "KeySchema": []}');
-- §8.59 an LSI on a hash-only table; a GSI and an LSI sharing a name
SELECT pg_temp.try('CreateTable', '{"TableName": "Tab1", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}, {"AttributeName": "n", "AttributeType": "N"}], "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST",
	"LocalSecondaryIndexes": [{"IndexName": "byn", "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}');
SELECT pg_temp.try('CreateTable', '{"TableName": "Tab1", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}, {"AttributeName": "r", "AttributeType": "S"}, {"AttributeName": "n", "AttributeType": "N"}], "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}, {"AttributeName": "r", "KeyType": "RANGE"}], "BillingMode": "PAY_PER_REQUEST",
	"LocalSecondaryIndexes": [{"IndexName": "byn", "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}],
	"GlobalSecondaryIndexes": [{"IndexName": "byn", "KeySchema": [{"AttributeName": "n", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}]}');
SELECT pg_temp.try('DescribeTable', '{"TableName": "Nope"}');
SELECT pg_temp.try('DescribeTable', '{}');
SELECT pg_temp.try('DeleteTable', '{"TableName": "Nope"}');
SELECT pg_temp.try('ListTables', '{"Limit": 0}');
SELECT pg_temp.try('ListTables', '{"Limit": 101}');
SELECT pg_temp.try('NoSuchAction', '{}');
-- nothing was created by the failed calls
SELECT table_name FROM item_table.tables ORDER BY table_name;

-- DeleteTable: reduced description, physical table gone
SELECT jsonb_pretty(pg_temp.masked(delete_table('{"TableName": "Counters"}')));
SELECT count(*) FROM pg_class WHERE relname = 'Counters';
SELECT pg_temp.try('DescribeTable', '{"TableName": "Counters"}');
SELECT delete_table(jsonb_build_object('TableName', 'a.b-c_' || repeat('x', 249)))->'TableDescription'->>'TableStatus';

-- a table can be created again under a deleted name
SELECT create_table('{"TableName": "Counters", "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}')->'TableDescription'->'KeySchema';
SELECT delete_table('{"TableName": "Counters"}')->'TableDescription'->>'TableStatus';
