-- UpdateTimeToLive and DescribeTimeToLive: responses and errors, through
-- the functions and the dispatcher; DescribeTable of an index being
-- built; DeleteTable and what a table_not_exists waiter sees.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	det text;
BEGIN
	RETURN item_table.dynamodb(action, request)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS det = PG_EXCEPTION_DETAIL;
	RETURN det;
END $$;

SELECT create_table('{"TableName": "sessions", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}') IS NOT NULL AS created;

-- never enabled: DISABLED, no attribute
SELECT describe_time_to_live('{"TableName": "sessions"}');
SELECT pg_temp.try('DescribeTimeToLive', '{"TableName": "sessions"}');

-- enable: the response echoes the specification
SELECT update_time_to_live('{"TableName": "sessions", "TimeToLiveSpecification": {"AttributeName": "expires", "Enabled": true}}');
SELECT describe_time_to_live('{"TableName": "sessions"}');
-- enabling again, on the same or another attribute
SELECT pg_temp.try('UpdateTimeToLive', '{"TableName": "sessions", "TimeToLiveSpecification": {"AttributeName": "expires", "Enabled": true}}');
SELECT pg_temp.try('UpdateTimeToLive', '{"TableName": "sessions", "TimeToLiveSpecification": {"AttributeName": "other", "Enabled": true}}');
-- disabling must name the enabled attribute
SELECT pg_temp.try('UpdateTimeToLive', '{"TableName": "sessions", "TimeToLiveSpecification": {"AttributeName": "other", "Enabled": false}}');
SELECT pg_temp.try('UpdateTimeToLive', '{"TableName": "sessions", "TimeToLiveSpecification": {"AttributeName": "expires", "Enabled": false}}');
SELECT pg_temp.try('DescribeTimeToLive', '{"TableName": "sessions"}');
-- disabling twice
SELECT pg_temp.try('UpdateTimeToLive', '{"TableName": "sessions", "TimeToLiveSpecification": {"AttributeName": "expires", "Enabled": false}}');
-- enabled again, on another attribute
SELECT pg_temp.try('UpdateTimeToLive', '{"TableName": "sessions", "TimeToLiveSpecification": {"AttributeName": "ttl", "Enabled": true}}');
SELECT pg_temp.try('DescribeTimeToLive', '{"TableName": "sessions"}');
SELECT table_name, attribute_name, status FROM time_to_live ORDER BY 1;

-- shape errors
SELECT pg_temp.try('UpdateTimeToLive', '{"TableName": "sessions"}');
SELECT pg_temp.try('UpdateTimeToLive', '{"TableName": "sessions", "TimeToLiveSpecification": {}}');
SELECT pg_temp.try('UpdateTimeToLive', '{"TableName": "sessions", "TimeToLiveSpecification": {"AttributeName": "", "Enabled": true}}');
SELECT pg_temp.try('UpdateTimeToLive', ('{"TableName": "sessions", "TimeToLiveSpecification": {"AttributeName": "' || repeat('a', 256) || '", "Enabled": true}}')::jsonb);
SELECT pg_temp.try('UpdateTimeToLive', '{"TableName": "sessions", "TimeToLiveSpecification": {"AttributeName": "x", "Enabled": "yes"}}');
SELECT pg_temp.try('UpdateTimeToLive', '{"TimeToLiveSpecification": {"AttributeName": "x", "Enabled": true}}');
SELECT pg_temp.try('UpdateTimeToLive', '{"TableName": "no", "TimeToLiveSpecification": {"AttributeName": "x", "Enabled": true}}');
SELECT pg_temp.try('DescribeTimeToLive', '{}');
-- unknown table
SELECT pg_temp.try('UpdateTimeToLive', '{"TableName": "nosuchtable", "TimeToLiveSpecification": {"AttributeName": "x", "Enabled": true}}');
SELECT pg_temp.try('DescribeTimeToLive', '{"TableName": "nosuchtable"}');
-- expire_items needs TTL enabled
SELECT create_table('{"TableName": "plain", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}') IS NOT NULL AS created;
SELECT expire_items('plain');
SELECT expire_items('sessions', now(), 0);

-- DescribeTable of an index the procedure is to fill: CREATING, Backfilling
SET item_table.index_backfill = manual;
SELECT (update_table('{"TableName": "plain",
	"AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}}]}')
	#> '{TableDescription,GlobalSecondaryIndexes,0}') - 'IndexArn' AS index_in_update_table;
SELECT (describe_table('{"TableName": "plain"}') #> '{Table,GlobalSecondaryIndexes,0}') - 'IndexArn' AS index_in_describe_table;
SELECT work, table_name, index_name, status, done_by, items_done, position FROM background_work ORDER BY 1, 2;
RESET item_table.index_backfill;
CALL backfill_indexes('plain');
SELECT describe_table('{"TableName": "plain"}') #> '{Table,GlobalSecondaryIndexes,0}' ? 'Backfilling' AS still_backfilling,
	describe_table('{"TableName": "plain"}') #>> '{Table,GlobalSecondaryIndexes,0,IndexStatus}' AS status;

-- DeleteTable answers DELETING; then the table is gone: DescribeTable and
-- DescribeTimeToLive raise ResourceNotFoundException (what boto3's
-- table_not_exists waiter waits for), and its TTL setting went with it
SELECT delete_table('{"TableName": "sessions"}') #>> '{TableDescription,TableStatus}' AS status;
SELECT pg_temp.try('DescribeTable', '{"TableName": "sessions"}');
SELECT pg_temp.try('DescribeTimeToLive', '{"TableName": "sessions"}');
SELECT count(*) FROM time_to_live WHERE table_name = 'sessions';
SELECT delete_table('{"TableName": "plain"}') #>> '{TableDescription,TableStatus}' AS status;
SELECT count(*) AS background_work_left FROM background_work;
