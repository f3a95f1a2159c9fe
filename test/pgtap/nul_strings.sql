-- U+0000 in strings (src/types/nul_escape.c): JSON text with \u0000 in,
-- the same text out, through every call, key, index, expression, stream
-- record and PartiQL; key order, begins_with, contains and size() on the
-- decoded strings; sizes counting U+0000 as one byte.
BEGIN;
SELECT plan(50);
SET search_path = item_table, public;

-- a call with JSON text in and out; dj: its text, dd: as jsonb (stored form)
CREATE FUNCTION pg_temp.dj(action text, request text) RETURNS text LANGUAGE sql AS
	$$ SELECT item_table.dynamodb_json(action, request::json)::text $$;
CREATE FUNCTION pg_temp.dd(action text, request text) RETURNS jsonb LANGUAGE sql AS
	$$ SELECT item_table.encode_item(item_table.dynamodb_json(action, request::json)) $$;
-- JSON text to compare with, in the stored form
CREATE FUNCTION pg_temp.j(t text) RETURNS jsonb LANGUAGE sql AS
	$$ SELECT item_table.encode_item(t::json) $$;

SELECT ok(pg_temp.dd('CreateTable', '{"TableName": "nul_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
		{"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "l", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
		{"AttributeName": "sk", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}],
	"LocalSecondaryIndexes": [{"IndexName": "by_l", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
		{"AttributeName": "l", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}') ? 'TableDescription',
	'table with string keys, a GSI, an LSI and a stream');

-- PutItem and GetItem: the very text back
SELECT is(pg_temp.dj('PutItem', '{"TableName": "nul_t", "Item": {"pk": {"S": "p\u0000"}, "sk": {"S": "\u0000"},
	"g": {"S": "g\u0000g"}, "l": {"S": "\u0001"}, "v": {"S": "x\u0000y\u0001z"},
	"ss": {"SS": ["a", "\u0001", "\u0000"]}, "m": {"M": {"k\u0000": {"L": [{"S": "\u0000\u0000"}, {"M": {"\u0001": {"S": "\u0001\u0001"}}}]}}}}}'),
	'{}', 'PutItem with U+0000 and U+0001 in keys, values, set members, map keys and nested strings');
SELECT is(pg_temp.dj('GetItem', '{"TableName": "nul_t", "Key": {"pk": {"S": "p\u0000"}, "sk": {"S": "\u0000"}}}'),
	'{"Item": {"g": {"S": "g\u0000g"}, "l": {"S": "\u0001"}, "m": {"M": {"k\u0000": {"L": [{"S": "\u0000\u0000"}, {"M": {"\u0001": {"S": "\u0001\u0001"}}}]}}}, "v": {"S": "x\u0000y\u0001z"}, "pk": {"S": "p\u0000"}, "sk": {"S": "\u0000"}, "ss": {"SS": ["\u0000", "\u0001", "a"]}}}',
	'GetItem returns every string as it was sent (the set in DynamoDB order: U+0000 first)');
SELECT is((SELECT key FROM item_data.nul_t), 'S"p\u0000"|S"\u0000"'::item_key, 'the stored key holds the real U+0000');
SELECT is((SELECT item->'pk'->>'S' FROM item_data.nul_t), E'p\x01\x01', 'the stored item holds the escape');
SELECT is((SELECT strpos(decode_item(item)::text, '"v": {"S": "x\u0000y\u0001z"}') > 0 FROM item_data.nul_t), true,
	'decode_item() gives SQL readers the strings back');
SELECT is(pg_temp.dj('GetItem', '{"TableName": "nul_t", "Key": {"pk": {"S": "p"}, "sk": {"S": "\u0000"}}}'),
	'{}', 'p is not p\u0000');

-- the sizes count U+0000 as one byte
SELECT is((SELECT item_size(item) FROM item_data.nul_t),
	(2 + 2) + (2 + 1) + (1 + 3) + (1 + 1) + (1 + 5) + (2 + 3) + (1 + 3 + 1 + 2 + (3 + 1 + 2) + (3 + 1 + 1 + 1 + 2))::bigint,
	'item_size() counts U+0000 and U+0001 as one byte each');
SELECT is(pg_temp.dd('PutItem', format('{"TableName": "nul_t", "Item": {"pk": {"S": "%s"}, "sk": {"S": "big"}}}', repeat('\u0000', 2048)))::text,
	'{}', 'a partition key of 2048 U+0000 (4096 stored bytes) is within the 2048-byte limit');
SELECT throws_ok(format($q$SELECT pg_temp.dj('PutItem', '{"TableName": "nul_t", "Item": {"pk": {"S": "%s"}, "sk": {"S": "big"}}}')$q$, repeat('\u0000', 2049)),
	'XD001', 'ValidationException: One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes',
	'2049 U+0000 are over it');
SELECT is(pg_temp.dd('PutItem', format('{"TableName": "nul_t", "Item": {"pk": {"S": "big"}, "sk": {"S": "v"}, "v": {"S": "%s"}}}', repeat('\u0000', 409000)))::text,
	'{}', 'an item of 409,000 U+0000 (818,000 stored bytes) is within 400 KB');
SELECT throws_ok(format($q$SELECT pg_temp.dj('PutItem', '{"TableName": "nul_t", "Item": {"pk": {"S": "big"}, "sk": {"S": "v"}, "v": {"S": "%s"}}}')$q$, repeat('\u0000', 409600)),
	'XD001', 'ValidationException: Item size has exceeded the maximum allowed size', 'one of 409,600 is not');
SELECT is(pg_temp.dd('DeleteItem', '{"TableName": "nul_t", "Key": {"pk": {"S": "big"}, "sk": {"S": "v"}}}')::text, '{}', 'removed');

-- key order: U+0000 < U+0001 < U+0002 < "a"; a prefix sorts first
SELECT is(pg_temp.dd('BatchWriteItem', '{"RequestItems": {"nul_t": [
	{"PutRequest": {"Item": {"pk": {"S": "o"}, "sk": {"S": "a\u0000"}, "l": {"S": "6"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "o"}, "sk": {"S": "a"}, "l": {"S": "5"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "o"}, "sk": {"S": "\u0002"}, "l": {"S": "4"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "o"}, "sk": {"S": "\u0001\u0001"}, "l": {"S": "3"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "o"}, "sk": {"S": "\u0001"}, "l": {"S": "2"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "o"}, "sk": {"S": "\u0000a"}, "l": {"S": "1"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "o"}, "sk": {"S": "\u0000"}, "l": {"S": "0"}}}}]}}'),
	'{"UnprocessedItems": {}}'::jsonb, 'BatchWriteItem of seven sort keys');
SELECT is((SELECT string_agg(i->'l'->>'S', '') FROM jsonb_array_elements(pg_temp.dd('Query',
	'{"TableName": "nul_t", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "o"}}}')->'Items') i),
	'0123456', 'Query: DynamoDB''s byte order of the sort keys');
SELECT is((SELECT string_agg(i->'l'->>'S', '') FROM jsonb_array_elements(pg_temp.dd('Query',
	'{"TableName": "nul_t", "KeyConditionExpression": "pk = :p", "ScanIndexForward": false, "ExpressionAttributeValues": {":p": {"S": "o"}}}')->'Items') i),
	'6543210', 'and backwards');
SELECT is((SELECT string_agg(i->'l'->>'S', '') FROM jsonb_array_elements(pg_temp.dd('Query',
	'{"TableName": "nul_t", "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b", "ExpressionAttributeValues": {":p": {"S": "o"}, ":a": {"S": "\u0000a"}, ":b": {"S": "\u0002"}}}')->'Items') i),
	'1234', 'BETWEEN bounds with U+0000 and U+0002');
SELECT is((SELECT string_agg(i->'l'->>'S', '') FROM jsonb_array_elements(pg_temp.dd('Query',
	'{"TableName": "nul_t", "KeyConditionExpression": "pk = :p AND begins_with(sk, :b)", "ExpressionAttributeValues": {":p": {"S": "o"}, ":b": {"S": "\u0000"}}}')->'Items') i),
	'01', 'begins_with on the sort key, U+0000');
SELECT is((SELECT string_agg(i->'l'->>'S', '') FROM jsonb_array_elements(pg_temp.dd('Query',
	'{"TableName": "nul_t", "KeyConditionExpression": "pk = :p AND begins_with(sk, :b)", "ExpressionAttributeValues": {":p": {"S": "o"}, ":b": {"S": "\u0001"}}}')->'Items') i),
	'23', 'begins_with on the sort key, U+0001 (not U+0002)');
SELECT is((SELECT string_agg(i->'l'->>'S', '') FROM jsonb_array_elements(pg_temp.dd('Query',
	'{"TableName": "nul_t", "KeyConditionExpression": "pk = :p AND sk > :b", "ExpressionAttributeValues": {":p": {"S": "o"}, ":b": {"S": "a"}}}')->'Items') i),
	'6', 'a > "a": a\u0000');
SELECT is((SELECT string_agg(i->'l'->>'S', '' ORDER BY i->'l'->>'S') FROM jsonb_array_elements(pg_temp.dd('Scan',
	'{"TableName": "nul_t", "FilterExpression": "pk = :p AND sk < :b", "ExpressionAttributeValues": {":p": {"S": "o"}, ":b": {"S": "\u0001\u0001"}}}')->'Items') i),
	'012', 'the same order in a filter on the stored strings');
SELECT is((SELECT array_agg(key ORDER BY key)::text FROM item_collection('nul_t', pg_temp.j('{"S": "o"}'), pg_temp.j('{"S": "\u0001"}'))),
	'{"S\"o\"|S\"\\u0001\"","S\"o\"|S\"\\u0001\\u0001\""}', 'item_collection() with a prefix holding U+0001');

-- paging: LastEvaluatedKey and ExclusiveStartKey carry U+0000
SELECT is(pg_temp.dj('Query', '{"TableName": "nul_t", "Limit": 1, "ProjectionExpression": "l", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "o"}}}'),
	'{"Count": 1, "Items": [{"l": {"S": "0"}}], "ScannedCount": 1, "LastEvaluatedKey": {"pk": {"S": "o"}, "sk": {"S": "\u0000"}}}',
	'LastEvaluatedKey with U+0000');
SELECT is(pg_temp.dj('Query', '{"TableName": "nul_t", "Limit": 1, "ProjectionExpression": "l", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "o"}},
	"ExclusiveStartKey": {"pk": {"S": "o"}, "sk": {"S": "\u0000"}}}'),
	'{"Count": 1, "Items": [{"l": {"S": "1"}}], "ScannedCount": 1, "LastEvaluatedKey": {"pk": {"S": "o"}, "sk": {"S": "\u0000a"}}}',
	'ExclusiveStartKey with U+0000');

-- indexes
SELECT is(pg_temp.dj('Query', '{"TableName": "nul_t", "IndexName": "by_g", "KeyConditionExpression": "g = :g", "ProjectionExpression": "pk, sk", "ExpressionAttributeValues": {":g": {"S": "g\u0000g"}}}'),
	'{"Count": 1, "Items": [{"pk": {"S": "p\u0000"}, "sk": {"S": "\u0000"}}], "ScannedCount": 1}', 'GSI key with U+0000');
SELECT is(pg_temp.dd('Query', '{"TableName": "nul_t", "IndexName": "by_g", "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "g\u0001g"}}}')->'Count',
	'0', 'U+0001 is another key');
SELECT is(pg_temp.dj('Query', '{"TableName": "nul_t", "IndexName": "by_l", "KeyConditionExpression": "pk = :p AND l = :l", "ProjectionExpression": "sk", "ExpressionAttributeValues": {":p": {"S": "p\u0000"}, ":l": {"S": "\u0001"}}}'),
	'{"Count": 1, "Items": [{"sk": {"S": "\u0000"}}], "ScannedCount": 1}', 'LSI key with U+0001');
SELECT is((SELECT count(*) FROM verify('nul_t')), 0::bigint, 'verify(): index rows and keys agree');

-- contains, begins_with and size() on values
SELECT is(pg_temp.dd('Scan', '{"TableName": "nul_t", "FilterExpression": "contains(v, :c) AND begins_with(v, :b) AND size(v) = :n",
	"ExpressionAttributeValues": {":c": {"S": "\u0000y\u0001"}, ":b": {"S": "x\u0000"}, ":n": {"N": "5"}}}')->'Count',
	'1', 'contains, begins_with and size() (5 characters) on a value with U+0000 and U+0001');
SELECT is(pg_temp.dd('Scan', '{"TableName": "nul_t", "FilterExpression": "contains(l, :c)", "ExpressionAttributeValues": {":c": {"S": "\u0002"}}}')->'Count',
	'0', 'contains: U+0001 does not contain U+0002 (no misaligned match in the escape)');
SELECT is(pg_temp.dd('Scan', '{"TableName": "nul_t", "FilterExpression": "contains(l, :c)", "ExpressionAttributeValues": {":c": {"S": "\u0001"}}}')->'Count',
	'1', 'contains: U+0001 in one value');
SELECT is(pg_temp.dd('Scan', '{"TableName": "nul_t", "FilterExpression": "contains(ss, :c) AND size(ss) = :three", "ExpressionAttributeValues": {":c": {"S": "\u0000"}, ":three": {"N": "3"}}}')->'Count',
	'1', 'contains on a string set member U+0000');
SELECT is(pg_temp.dd('Scan', '{"TableName": "nul_t", "FilterExpression": "size(sk) = :one AND sk <> :n", "ExpressionAttributeValues": {":one": {"N": "1"}, ":n": {"S": "\u0000"}}}')->'Count',
	'3', 'size() of a one-character key (U+0001, U+0002, a)');

-- the literal characters of the escape are ordinary strings
SELECT is(pg_temp.dj('PutItem', '{"TableName": "nul_t", "Item": {"pk": {"S": "esc"}, "sk": {"S": "\u0001\u0001\u0001\u0002"}, "t": {"S": "\\u0001\\u0001"}}}'), '{}', 'U+0001 U+0001 U+0001 U+0002 as a key');
SELECT is(pg_temp.dj('GetItem', '{"TableName": "nul_t", "Key": {"pk": {"S": "esc"}, "sk": {"S": "\u0001\u0001\u0001\u0002"}}}'),
	'{"Item": {"t": {"S": "\\u0001\\u0001"}, "pk": {"S": "esc"}, "sk": {"S": "\u0001\u0001\u0001\u0002"}}}', 'comes back as it went, and so does the text \u0001\u0001');
SELECT is(pg_temp.dj('GetItem', '{"TableName": "nul_t", "Key": {"pk": {"S": "esc"}, "sk": {"S": "\u0000\u0001"}}}'), '{}', 'and is not U+0000 U+0001');

-- a jsonb request with a U+0001 that starts no code word: the character itself
SELECT is(dynamodb('PutItem', '{"TableName": "nul_t", "Item": {"pk": {"S": "lone\u0001"}, "sk": {"S": "\u0001x"}, "v": {"S": "\u0001"}}}'),
	'{}'::jsonb, 'PutItem through jsonb with lone U+0001 characters');
SELECT is(pg_temp.dj('GetItem', '{"TableName": "nul_t", "Key": {"pk": {"S": "lone\u0001"}, "sk": {"S": "\u0001x"}}}'),
	'{"Item": {"v": {"S": "\u0001"}, "pk": {"S": "lone\u0001"}, "sk": {"S": "\u0001x"}}}', 'reads back as U+0001, stored canonical');

-- UpdateItem: SET, list_append, if_not_exists, ADD and DELETE on a set, names with U+0000, conditions, ReturnValues
SELECT is(pg_temp.dd('UpdateItem', '{"TableName": "nul_t", "Key": {"pk": {"S": "esc"}, "sk": {"S": "\u0001\u0001\u0001\u0002"}},
	"UpdateExpression": "SET #n = :v, lst = list_append(if_not_exists(lst, :empty), :l), fresh = if_not_exists(fresh, :v) ADD st :s",
	"ConditionExpression": "t = :t",
	"ExpressionAttributeNames": {"#n": "n\u0000"},
	"ExpressionAttributeValues": {":v": {"S": "\u0000"}, ":empty": {"L": []}, ":l": {"L": [{"S": "\u0001"}]}, ":s": {"SS": ["\u0000", "\u0001"]}, ":t": {"S": "\\u0001\\u0001"}},
	"ReturnValues": "UPDATED_NEW"}'),
	pg_temp.j('{"Attributes": {"st": {"SS": ["\u0000", "\u0001"]}, "lst": {"L": [{"S": "\u0001"}]}, "fresh": {"S": "\u0000"}, "n\u0000": {"S": "\u0000"}}}'),
	'UpdateItem SET, list_append, if_not_exists, ADD to a string set, a name with U+0000');
SELECT is(pg_temp.dd('UpdateItem', '{"TableName": "nul_t", "Key": {"pk": {"S": "esc"}, "sk": {"S": "\u0001\u0001\u0001\u0002"}},
	"UpdateExpression": "DELETE st :s REMOVE fresh", "ConditionExpression": "#n = :v AND contains(st, :v)",
	"ExpressionAttributeNames": {"#n": "n\u0000"},
	"ExpressionAttributeValues": {":s": {"SS": ["\u0000"]}, ":v": {"S": "\u0000"}},
	"ReturnValues": "ALL_OLD"}'),
	pg_temp.j('{"Attributes": {"t": {"S": "\\u0001\\u0001"}, "pk": {"S": "esc"}, "sk": {"S": "\u0001\u0001\u0001\u0002"}, "st": {"SS": ["\u0000", "\u0001"]}, "lst": {"L": [{"S": "\u0001"}]}, "fresh": {"S": "\u0000"}, "n\u0000": {"S": "\u0000"}}}'),
	'DELETE from a string set with a condition on a name with U+0000, ALL_OLD');
SELECT throws_like($$SELECT pg_temp.dj('UpdateItem', '{"TableName": "nul_t", "Key": {"pk": {"S": "esc"}, "sk": {"S": "\u0001\u0001\u0001\u0002"}},
	"UpdateExpression": "SET x = :v", "ConditionExpression": "#n = :w",
	"ExpressionAttributeNames": {"#n": "n\u0000"}, "ExpressionAttributeValues": {":v": {"S": "x"}, ":w": {"S": "\u0001"}}}')$$,
	'%ConditionalCheckFailedException%', 'a condition comparing U+0000 with U+0001 fails');
SELECT is(pg_temp.dj('GetItem', '{"TableName": "nul_t", "Key": {"pk": {"S": "esc"}, "sk": {"S": "\u0001\u0001\u0001\u0002"}}, "ProjectionExpression": "#n, st", "ExpressionAttributeNames": {"#n": "n\u0000"}}'),
	'{"Item": {"st": {"SS": ["\u0001"]}, "n\u0000": {"S": "\u0000"}}}', 'ProjectionExpression through a name with U+0000');

-- DeleteItem, transactions
SELECT is(pg_temp.dj('TransactWriteItems', '{"TransactItems": [
	{"Put": {"TableName": "nul_t", "Item": {"pk": {"S": "tx\u0000"}, "sk": {"S": "1"}, "v": {"S": "\u0000"}}}},
	{"Update": {"TableName": "nul_t", "Key": {"pk": {"S": "o"}, "sk": {"S": "\u0000"}}, "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"S": "t\u0000"}}}},
	{"ConditionCheck": {"TableName": "nul_t", "Key": {"pk": {"S": "p\u0000"}, "sk": {"S": "\u0000"}}, "ConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "g\u0000g"}}}}]}'),
	'{}', 'TransactWriteItems with U+0000 in keys, values and a condition');
SELECT is(pg_temp.dj('TransactGetItems', '{"TransactItems": [
	{"Get": {"TableName": "nul_t", "Key": {"pk": {"S": "tx\u0000"}, "sk": {"S": "1"}}, "ProjectionExpression": "v"}},
	{"Get": {"TableName": "nul_t", "Key": {"pk": {"S": "o"}, "sk": {"S": "\u0000"}}, "ProjectionExpression": "v"}}]}'),
	'{"Responses": [{"Item": {"v": {"S": "\u0000"}}}, {"Item": {"v": {"S": "t\u0000"}}}]}', 'TransactGetItems');
SELECT is(pg_temp.dj('BatchGetItem', '{"RequestItems": {"nul_t": {"Keys": [{"pk": {"S": "tx\u0000"}, "sk": {"S": "1"}}], "ProjectionExpression": "pk, v"}}}'),
	'{"Responses": {"nul_t": [{"v": {"S": "\u0000"}, "pk": {"S": "tx\u0000"}}]}, "UnprocessedKeys": {}}', 'BatchGetItem');
SELECT is(pg_temp.dj('DeleteItem', '{"TableName": "nul_t", "Key": {"pk": {"S": "tx\u0000"}, "sk": {"S": "1"}}, "ReturnValues": "ALL_OLD"}'),
	'{"Attributes": {"v": {"S": "\u0000"}, "pk": {"S": "tx\u0000"}, "sk": {"S": "1"}}}', 'DeleteItem ALL_OLD');

-- PartiQL: string literals and parameters
SELECT is(pg_temp.dj('ExecuteStatement', '{"Statement": "INSERT INTO nul_t VALUE {''pk'': ''q\u0000'', ''sk'': ?, ''v'': ''\u0001''}", "Parameters": [{"S": "\u0000"}]}'),
	'{"Items": []}', 'PartiQL INSERT with U+0000 in a literal and a parameter');
SELECT is(pg_temp.dj('ExecuteStatement', '{"Statement": "SELECT v, sk FROM nul_t WHERE pk = ''q\u0000'' AND sk = ?", "Parameters": [{"S": "\u0000"}]}'),
	'{"Items": [{"v": {"S": "\u0001"}, "sk": {"S": "\u0000"}}]}', 'PartiQL SELECT finds it');

-- stream records: keys and images
SELECT is(strpos(pg_temp.dj('GetRecords', format('{"ShardIterator": "%s"}', pg_temp.dd('GetShardIterator', format('{"StreamArn": "%s", "ShardId": "%s", "ShardIteratorType": "TRIM_HORIZON"}',
		pg_temp.dd('DescribeTable', '{"TableName": "nul_t"}')->'Table'->>'LatestStreamArn',
		pg_temp.dd('DescribeStream', format('{"StreamArn": "%s"}', pg_temp.dd('DescribeTable', '{"TableName": "nul_t"}')->'Table'->>'LatestStreamArn'))->'StreamDescription'->'Shards'->0->>'ShardId'))->>'ShardIterator')),
		'"Keys": {"pk": {"S": "p\u0000"}, "sk": {"S": "\u0000"}}, "NewImage": {"g": {"S": "g\u0000g"}') > 0,
	true, 'GetRecords: keys and images with U+0000');
SELECT is((SELECT count(*) FROM stream_records('nul_t') r
	WHERE decode_item(r.keys)::text = '{"pk": {"S": "p\u0000"}, "sk": {"S": "\u0000"}}'), 1::bigint,
	'stream_records() and decode_item(): the keys of the first put');

SELECT * FROM finish();
ROLLBACK;
