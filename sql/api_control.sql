-- Control-plane calls beside the table operations: tags, deletion
-- protection, table class, DescribeLimits, DescribeEndpoints,
-- DescribeContinuousBackups, and the parameters item_table refuses.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	det text;
BEGIN
	RETURN item_table.dynamodb(action, request)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, det = PG_EXCEPTION_DETAIL;
	RETURN st || ' ' || det;
END $$;

SELECT create_table('{"TableName": "ctl", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"DeletionProtectionEnabled": true, "TableClass": "STANDARD_INFREQUENT_ACCESS",
	"Tags": [{"Key": "env", "Value": "prod"}, {"Key": "owner", "Value": ""}]}')
	-> 'TableDescription' -> 'TableClassSummary' AS class_at_create;
SELECT describe_table('{"TableName": "ctl"}') -> 'Table' -> 'DeletionProtectionEnabled' AS protected;
-- a table created without a class shows none, and is not protected
SELECT create_table('{"TableName": "plain", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}')
	-> 'TableDescription' ?| array['TableClassSummary'] AS has_class,
	describe_table('{"TableName": "plain"}') -> 'Table' -> 'DeletionProtectionEnabled' AS protected;

-- tags: listed sorted by key, added, replaced, removed (removing an absent key is fine)
SELECT pg_temp.try('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl"}');
SELECT pg_temp.try('TagResource', '{"ResourceArn": "arn:aws:dynamodb:us-east-1:123456789012:table/ctl",
	"Tags": [{"Key": "team", "Value": "a"}, {"Key": "env", "Value": "dev"}]}');
SELECT pg_temp.try('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl"}');
SELECT pg_temp.try('UntagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl", "TagKeys": ["team", "absent"]}');
SELECT pg_temp.try('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl"}');
SELECT pg_temp.try('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/plain"}');

-- tag errors, in DynamoDB's order of checks
SELECT pg_temp.try('TagResource', '{"Tags": [{"Key": "a", "Value": "b"}]}');
SELECT pg_temp.try('TagResource', '{"ResourceArn": "not-an-arn", "Tags": [{"Key": "a", "Value": "b"}]}');
SELECT pg_temp.try('TagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl"}');
SELECT pg_temp.try('TagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl/index/g", "Tags": [{"Key": "a", "Value": "b"}]}');
SELECT pg_temp.try('TagResource', '{"ResourceArn": "arn:aws:s3:local:000000000000:table/ctl", "Tags": [{"Key": "a", "Value": "b"}]}');
SELECT pg_temp.try('TagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl", "Tags": []}');
SELECT pg_temp.try('TagResource', ('{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl",
	"Tags": [{"Key": "", "Value": "b"}, {"Key": "k", "Value": "' || repeat('v', 257) || '"}]}')::jsonb);
SELECT pg_temp.try('TagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl", "Tags": [{"Key": "k"}]}');
SELECT pg_temp.try('TagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl", "Tags": [{"Key": "aws:x", "Value": "b"}]}');
SELECT pg_temp.try('TagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/nope", "Tags": [{"Key": "a", "Value": "b"}]}');
SELECT pg_temp.try('UntagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/nope", "TagKeys": ["a"]}');
SELECT pg_temp.try('UntagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl", "TagKeys": []}');
SELECT pg_temp.try('UntagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl"}');
SELECT pg_temp.try('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/nope"}');
SELECT pg_temp.try('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl", "NextToken": "x"}');
-- 50 tags at most; a refused call changes nothing
SELECT pg_temp.try('TagResource', jsonb_build_object('ResourceArn', 'arn:aws:dynamodb:local:000000000000:table/ctl',
	'Tags', (SELECT jsonb_agg(jsonb_build_object('Key', 'k' || i, 'Value', 'v')) FROM generate_series(1, 50) i)));
SELECT count(*) AS tags_kept FROM item_table.tags WHERE table_name = 'ctl';
SELECT pg_temp.try('TagResource', jsonb_build_object('ResourceArn', 'arn:aws:dynamodb:local:000000000000:table/ctl',
	'Tags', (SELECT jsonb_agg(jsonb_build_object('Key', 'k' || i, 'Value', 'v')) FROM generate_series(1, 48) i)));
SELECT count(*) AS tags_now FROM item_table.tags WHERE table_name = 'ctl';

-- deletion protection: DeleteTable refused until it is switched off
SELECT pg_temp.try('DeleteTable', '{"TableName": "ctl"}');
SELECT pg_temp.try('UpdateTable', '{"TableName": "ctl", "TableClass": "FROZEN"}');
SELECT update_table('{"TableName": "ctl", "DeletionProtectionEnabled": false, "TableClass": "STANDARD"}')
	-> 'TableDescription' -> 'TableClassSummary' -> 'TableClass' AS class_after_update,
	describe_table('{"TableName": "ctl"}') -> 'Table' -> 'TableClassSummary' ? 'LastUpdateDateTime' AS has_update_time,
	describe_table('{"TableName": "ctl"}') -> 'Table' -> 'DeletionProtectionEnabled' AS protected;
SELECT pg_temp.try('DeleteTable', '{"TableName": "ctl"}')::jsonb -> 'TableDescription' -> 'TableStatus' AS deleted;
-- the tags went with the table
SELECT count(*) AS tags_left FROM item_table.tags WHERE table_name = 'ctl';

-- parameters whose feature item_table does not have are refused, not ignored
SELECT pg_temp.try('CreateTable', '{"TableName": "sse", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "SSESpecification": {"Enabled": true}}');
SELECT pg_temp.try('CreateTable', '{"TableName": "sse", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "SSESpecification": {"Enabled": false}}')::jsonb
	-> 'TableDescription' -> 'TableStatus' AS sse_off_created;
SELECT pg_temp.try('UpdateTable', '{"TableName": "plain", "ReplicaUpdates": [{"Create": {"RegionName": "eu-west-1"}}]}');
SELECT pg_temp.try('UpdateTable', '{"TableName": "plain", "MultiRegionConsistency": "STRONG"}');
SELECT pg_temp.try('UpdateTable', '{"TableName": "plain", "OnDemandThroughput": {"MaxReadRequestUnits": 100}}');
SELECT pg_temp.try('UpdateTable', '{"TableName": "plain", "WarmThroughput": {"ReadUnitsPerSecond": 12000}}');
SELECT pg_temp.try('CreateTable', '{"TableName": "odt", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "OnDemandThroughput": {"MaxWriteRequestUnits": 5}}');
SELECT count(*) AS refused_tables_created FROM item_table.tables WHERE table_name = 'odt';

-- limits, endpoints, continuous backups
SELECT pg_temp.try('DescribeLimits', '{}');
SELECT pg_temp.try('DescribeEndpoints', '{}');
SET item_table.endpoint_address = 'db.example.internal:8000';
SELECT pg_temp.try('DescribeEndpoints', '{}');
RESET item_table.endpoint_address;
SELECT pg_temp.try('DescribeContinuousBackups', '{"TableName": "plain"}');
SELECT pg_temp.try('DescribeContinuousBackups', '{"TableName": "nope"}');
SELECT pg_temp.try('DescribeContinuousBackups', '{}');

SELECT delete_table('{"TableName": "plain"}') IS NOT NULL AS dropped,
	delete_table('{"TableName": "sse"}') IS NOT NULL AS dropped2;
