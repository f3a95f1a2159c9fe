-- Issue 28's answers: DynamoDB's response or message where item_table's
-- used to differ (the gateway-only ones, an empty TagResource body and
-- DescribeEndpoints' address, are in test/gateway/test_divergences.py).
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

SELECT create_table('{"TableName": "dv_tbl", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
		{"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}') IS NOT NULL AS created;

-- 2. duplicate NonKeyAttributes: the message says which is a duplicate
SELECT pg_temp.try('CreateTable', '{"TableName": "dv_dup", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "gix", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "b", "a"]}}]}');
SELECT pg_temp.try('UpdateTable', '{"TableName": "dv_tbl", "AttributeDefinitions": [{"AttributeName": "h", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["v", "v"]}}}]}');

-- 3. UpdateTable: a new GSI's key attribute keeps the type the table's
-- key (sk: N) or another index's (g: S) gives it; nothing changes
SELECT pg_temp.try('UpdateTable', '{"TableName": "dv_tbl", "AttributeDefinitions": [{"AttributeName": "sk", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_sk", "KeySchema": [{"AttributeName": "sk", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}}]}');
SELECT pg_temp.try('UpdateTable', '{"TableName": "dv_tbl", "AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "N"}, {"AttributeName": "pk", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_g2", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "pk", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "ALL"}}}]}');
SELECT jsonb_path_query_array(describe_table('{"TableName": "dv_tbl"}'), '$.Table.GlobalSecondaryIndexes[*].IndexName') AS indexes,
	describe_table('{"TableName": "dv_tbl"}') -> 'Table' -> 'AttributeDefinitions' AS definitions;
-- the same type is fine
SELECT pg_temp.try('UpdateTable', '{"TableName": "dv_tbl", "AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_g_sk", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "ALL"}}}]}')::jsonb -> 'TableDescription' -> 'GlobalSecondaryIndexes' @? '$[*] ? (@.IndexName == "by_g_sk")' AS created;

-- 4. NonKeyAttributes names: 1 to 255 bytes, as key attribute names
SELECT pg_temp.try('CreateTable', jsonb_build_object('TableName', 'dv_long', 'BillingMode', 'PAY_PER_REQUEST',
	'AttributeDefinitions', '[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}]'::jsonb,
	'KeySchema', '[{"AttributeName": "pk", "KeyType": "HASH"}]'::jsonb,
	'GlobalSecondaryIndexes', jsonb_build_array(jsonb_build_object('IndexName', 'gix', 'KeySchema', '[{"AttributeName": "g", "KeyType": "HASH"}]'::jsonb,
		'Projection', jsonb_build_object('ProjectionType', 'INCLUDE', 'NonKeyAttributes', jsonb_build_array('ok', repeat('n', 256)))))));
SELECT pg_temp.try('CreateTable', '{"TableName": "dv_long", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "gix", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": [""]}}]}');
-- 255 bytes is the limit, not over it
SELECT pg_temp.try('CreateTable', jsonb_build_object('TableName', 'dv_long', 'BillingMode', 'PAY_PER_REQUEST',
	'AttributeDefinitions', '[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}]'::jsonb,
	'KeySchema', '[{"AttributeName": "pk", "KeyType": "HASH"}]'::jsonb,
	'GlobalSecondaryIndexes', jsonb_build_array(jsonb_build_object('IndexName', 'gix', 'KeySchema', '[{"AttributeName": "g", "KeyType": "HASH"}]'::jsonb,
		'Projection', jsonb_build_object('ProjectionType', 'INCLUDE', 'NonKeyAttributes', jsonb_build_array(repeat('n', 255)))))))::jsonb
	-> 'TableDescription' ->> 'TableStatus' AS status;

-- 6. arithmetic past 38 digits is an overflow; past the range too; below it an underflow
SELECT put_item('{"TableName": "dv_tbl", "Item": {"pk": {"S": "n"}, "sk": {"N": "1"}, "small": {"N": "1E-130"}}}');
SELECT pg_temp.try('UpdateItem', '{"TableName": "dv_tbl", "Key": {"pk": {"S": "n"}, "sk": {"N": "1"}},
	"UpdateExpression": "SET b = :big - :one", "ExpressionAttributeValues": {":big": {"N": "1e50"}, ":one": {"N": "1"}}}');
SELECT pg_temp.try('UpdateItem', '{"TableName": "dv_tbl", "Key": {"pk": {"S": "n"}, "sk": {"N": "1"}},
	"UpdateExpression": "ADD b :tiny", "ExpressionAttributeValues": {":tiny": {"N": "1e-50"}}}');
SELECT pg_temp.try('UpdateItem', '{"TableName": "dv_tbl", "Key": {"pk": {"S": "n"}, "sk": {"N": "1"}},
	"UpdateExpression": "ADD b :big", "ExpressionAttributeValues": {":big": {"N": "1e50"}}}');
SELECT pg_temp.try('UpdateItem', '{"TableName": "dv_tbl", "Key": {"pk": {"S": "n"}, "sk": {"N": "1"}},
	"UpdateExpression": "SET b = :m + :m", "ExpressionAttributeValues": {":m": {"N": "9.9999999999999999999999999999999999999E+125"}}}');
SELECT pg_temp.try('UpdateItem', '{"TableName": "dv_tbl", "Key": {"pk": {"S": "n"}, "sk": {"N": "1"}},
	"UpdateExpression": "SET b = :a - small", "ExpressionAttributeValues": {":a": {"N": "1.1E-130"}}}');
-- a value in the request keeps its own messages
SELECT pg_temp.try('PutItem', '{"TableName": "dv_tbl", "Item": {"pk": {"S": "n"}, "sk": {"N": "1"}, "b": {"N": "123456789012345678901234567890123456789"}}}');
SELECT pg_temp.try('PutItem', '{"TableName": "dv_tbl", "Item": {"pk": {"S": "n"}, "sk": {"N": "1"}, "b": {"N": "1E+126"}}}');
SELECT pg_temp.try('PutItem', '{"TableName": "dv_tbl", "Item": {"pk": {"S": "n"}, "sk": {"N": "1"}, "b": {"N": "1E-131"}}}');
-- an exact result within 38 digits is stored
SELECT update_item('{"TableName": "dv_tbl", "Key": {"pk": {"S": "n"}, "sk": {"N": "1"}},
	"UpdateExpression": "SET b = :a - :b", "ExpressionAttributeValues": {":a": {"N": "1e37"}, ":b": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"}');

-- 7. at most 50 tags in one request (ValidationException); the 51st on the resource is a LimitExceededException
SELECT pg_temp.try('CreateTable', jsonb_build_object('TableName', 'dv_tags', 'BillingMode', 'PAY_PER_REQUEST',
	'AttributeDefinitions', '[{"AttributeName": "pk", "AttributeType": "S"}]'::jsonb,
	'KeySchema', '[{"AttributeName": "pk", "KeyType": "HASH"}]'::jsonb,
	'Tags', (SELECT jsonb_agg(jsonb_build_object('Key', 'k' || i, 'Value', 'v')) FROM generate_series(1, 51) i)));
SELECT pg_temp.try('DescribeTable', '{"TableName": "dv_tags"}');
SELECT pg_temp.try('TagResource', jsonb_build_object('ResourceArn', 'arn:aws:dynamodb:local:000000000000:table/dv_tbl',
	'Tags', (SELECT jsonb_agg(jsonb_build_object('Key', 'k' || i, 'Value', 'v')) FROM generate_series(1, 51) i)));
SELECT pg_temp.try('TagResource', jsonb_build_object('ResourceArn', 'arn:aws:dynamodb:local:000000000000:table/dv_tbl',
	'Tags', (SELECT jsonb_agg(jsonb_build_object('Key', 'k' || i, 'Value', 'v')) FROM generate_series(1, 50) i)));
SELECT pg_temp.try('TagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/dv_tbl", "Tags": [{"Key": "one", "Value": "more"}]}');
SELECT jsonb_array_length(list_tags_of_resource('{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/dv_tbl"}') -> 'Tags') AS tags;

-- 8. a malformed StreamArn is a ValidationException before any lookup;
-- a well-formed ARN of no stream stays ResourceNotFoundException
SELECT pg_temp.try('ListStreams', '{"ExclusiveStartStreamArn": "not-an-arn"}');
SELECT pg_temp.try('ListStreams', '{"ExclusiveStartStreamArn": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}');
SELECT pg_temp.try('DescribeStream', '{"StreamArn": "arn:aws:dynamodb"}');
SELECT pg_temp.try('DescribeStream', '{"StreamArn": "arn:aws:dynamodb:us-east-1:000000000000:nottable/dv_tbl/stream/x"}');
SELECT pg_temp.try('DescribeStream', '{"StreamArn": "arn:aws:dynamodb:us-east-1:000000000000:table/dv_tbl/stream/"}');
SELECT pg_temp.try('DescribeStream', '{"StreamArn": "arn:aws:dynamodb:us-east-1:000000000000:table/dv_tbl/x/stream/y"}');
SELECT pg_temp.try('GetShardIterator', '{"StreamArn": "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",
	"ShardId": "shardId-00000000000000000000-00000000", "ShardIteratorType": "LATEST"}');
SELECT pg_temp.try('DescribeStream', '{"StreamArn": "arn:aws:dynamodb:us-east-1:000000000000:table/dv_nope/stream/2020-01-01T00:00:00.000"}');
SELECT pg_temp.try('GetShardIterator', '{"StreamArn": "arn:aws:dynamodb:us-east-1:000000000000:table/dv_nope/stream/2020-01-01T00:00:00.000",
	"ShardId": "shardId-00000000000000000000-00000000", "ShardIteratorType": "LATEST"}');
SELECT pg_temp.try('ListStreams', '{"ExclusiveStartStreamArn": "arn:aws:dynamodb:us-east-1:000000000000:table/dv_nope/stream/2020-01-01T00:00:00.000"}');
-- the table's own ARN, with any region and account, is found
SELECT describe_stream(jsonb_build_object('StreamArn',
	regexp_replace(describe_table('{"TableName": "dv_tbl"}') -> 'Table' ->> 'LatestStreamArn', ':[^:]*:[0-9]*:table/', ':eu-west-1:123456789012:table/')))
	-> 'StreamDescription' ->> 'TableName' AS found;

-- 10. Limit 0 (or below): the value in DynamoDB's exact text
SELECT pg_temp.try('Query', '{"TableName": "dv_tbl", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "n"}}, "Limit": 0}');
SELECT pg_temp.try('Scan', '{"TableName": "dv_tbl", "Limit": 0}');
SELECT pg_temp.try('Scan', '{"TableName": "dv_tbl", "Limit": -3}');

-- 11. PartiQL SELECT of a nested path: the value under the path's last element
SELECT put_item('{"TableName": "dv_tbl", "Item": {"pk": {"S": "p"}, "sk": {"N": "1"}, "top": {"S": "t"},
	"mymap": {"M": {"nested": {"S": "deep"}, "inner": {"M": {"x": {"N": "7"}}}, "list": {"L": [{"S": "l0"}, {"S": "l1"}, {"S": "l2"}]}}}}}');
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT mymap.nested FROM \"dv_tbl\" WHERE pk = ''p''"}');
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT top, mymap.inner.x, mymap.list[2], mymap.absent FROM \"dv_tbl\" WHERE pk = ? AND sk = ?", "Parameters": [{"S": "p"}, {"N": "1"}]}');
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT mymap.inner FROM \"dv_tbl\" WHERE top = ''t''"}');
-- top-level names alone are a plain projection
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "SELECT top FROM \"dv_tbl\" WHERE pk = ''p''"}');
-- a write answers an empty Items
SELECT pg_temp.try('ExecuteStatement', '{"Statement": "UPDATE \"dv_tbl\" SET top = ''u'' WHERE pk = ''p'' AND sk = 1"}');

-- 12. TagResource: a malformed ResourceArn is a ValidationException;
-- ListTagsOfResource of a table that does not exist is not authorized
SELECT pg_temp.try('TagResource', '{"ResourceArn": "not-an-arn", "Tags": [{"Key": "k", "Value": "v"}]}');
SELECT pg_temp.try('TagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/dv_nope", "Tags": [{"Key": "k", "Value": "v"}]}');
SELECT regexp_replace(pg_temp.try('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/dv_nope"}'),
	'user/[^ ]+', 'user/<role>') AS answer;

SELECT delete_table('{"TableName": "dv_tbl"}') IS NOT NULL AS dropped;
