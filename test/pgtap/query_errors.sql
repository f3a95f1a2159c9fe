-- Each error Query and Scan raise: its SQLSTATE (ValidationException XD001,
-- SerializationException XD002, ResourceNotFoundException XD004) and its
-- message; the error body in DETAIL; privileges and row level security.
BEGIN;
SELECT plan(80);
SET search_path = item_table, public;

-- error body of a failing call: {"sqlstate", "message", "body"}
\ir include/err.sql
-- a Query of table qerr: key condition, values, more members
CREATE FUNCTION pg_temp.q(kce text, vals jsonb, more jsonb DEFAULT '{}') RETURNS text LANGUAGE sql AS $$
	SELECT format('SELECT item_table.query(%L::jsonb)', jsonb_build_object('TableName', 'qerr',
		'KeyConditionExpression', kce, 'ExpressionAttributeValues', vals) || more)
$$;
CREATE FUNCTION pg_temp.s(req jsonb) RETURNS text LANGUAGE sql AS $$
	SELECT format('SELECT item_table.scan(%L::jsonb)', jsonb_build_object('TableName', 'qerr') || req)
$$;

SELECT ok(create_table('{"TableName": "qerr", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') ? 'TableDescription', 'table created');
SELECT is(put_item('{"TableName": "qerr", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"N": "1"}}}'), '{}'::jsonb, 'item stored');
SELECT is(query('{"TableName": "qerr", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}, "Select": "COUNT"}'),
	'{"Count": 1, "ScannedCount": 1}'::jsonb, 'Query works');

-- ---------------------------------------------------------------- key condition: ValidationException
SELECT throws_ok($$SELECT item_table.query('{"TableName": "qerr"}')$$, 'XD001',
	'ValidationException: Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.',
	'no key condition');
SELECT throws_ok(pg_temp.q('pk = :p OR sk = :s', '{":p": {"S": "a"}, ":s": {"N": "1"}}'), 'XD001',
	'ValidationException: Invalid operator used in KeyConditionExpression: OR', 'OR in a key condition (§8.20)');
SELECT throws_ok(pg_temp.q('NOT pk = :p', '{":p": {"S": "a"}}'), 'XD001',
	'ValidationException: Invalid operator used in KeyConditionExpression: NOT', 'NOT in a key condition');
SELECT throws_ok(pg_temp.q('pk = :p AND sk <> :s', '{":p": {"S": "a"}, ":s": {"N": "1"}}'), 'XD001',
	'ValidationException: Invalid operator used in KeyConditionExpression: <>', '<> in a key condition (§8.20)');
SELECT throws_ok(pg_temp.q('pk IN (:p)', '{":p": {"S": "a"}}'), 'XD001',
	'ValidationException: Invalid operator used in KeyConditionExpression: IN', 'IN in a key condition');
SELECT throws_ok(pg_temp.q('pk = :p AND attribute_exists(sk)', '{":p": {"S": "a"}}'), 'XD001',
	'ValidationException: Invalid operator used in KeyConditionExpression: attribute_exists', 'attribute_exists in a key condition');
SELECT throws_ok(pg_temp.q('pk = :p AND contains(sk, :s)', '{":p": {"S": "a"}, ":s": {"N": "1"}}'), 'XD001',
	'ValidationException: Invalid operator used in KeyConditionExpression: contains', 'contains in a key condition');
SELECT throws_ok(pg_temp.q('pk = :p AND pk = :p', '{":p": {"S": "a"}}'), 'XD001',
	'ValidationException: KeyConditionExpressions must only contain one condition per key', 'two conditions on pk (§8.20)');
SELECT throws_ok(pg_temp.q('pk = :p AND sk > :s AND sk < :s', '{":p": {"S": "a"}, ":s": {"N": "1"}}'), 'XD001',
	'ValidationException: KeyConditionExpressions must only contain one condition per key', 'two conditions on sk');
SELECT throws_ok(pg_temp.q('pk = :p AND sk > :s AND v < :s', '{":p": {"S": "a"}, ":s": {"N": "1"}}'), 'XD001',
	'ValidationException: Conditions can be of length 1 or 2 only', 'three conditions');
SELECT throws_ok(pg_temp.q('pk < :p', '{":p": {"S": "a"}}'), 'XD001',
	'ValidationException: Query key condition not supported', 'non-equality on pk (§8.20)');
SELECT throws_ok(pg_temp.q('begins_with(pk, :p)', '{":p": {"S": "a"}}'), 'XD001',
	'ValidationException: Query key condition not supported', 'begins_with on pk');
SELECT throws_ok(pg_temp.q('sk = :s', '{":s": {"N": "1"}}'), 'XD001',
	'ValidationException: Query condition missed key schema element: pk', 'no condition on pk');
SELECT throws_ok(pg_temp.q('pk = :p AND v = :s', '{":p": {"S": "a"}, ":s": {"N": "1"}}'), 'XD001',
	'ValidationException: Query condition missed key schema element: sk', 'condition on a non-key attribute');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"N": "1"}}'), 'XD001',
	'ValidationException: One or more parameter values were invalid: Condition parameter type does not match schema type',
	'N value for an S partition key (§8.20)');
SELECT throws_ok(pg_temp.q('pk = :p AND begins_with(sk, :s)', '{":p": {"S": "a"}, ":s": {"N": "1"}}'), 'XD001',
	'ValidationException: Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N',
	'begins_with on an N sort key (§8.20)');
SELECT throws_ok(pg_temp.q('pk = :p AND begins_with(sk, :s)', '{":p": {"S": "a"}, ":s": {"S": "1"}}'), 'XD001',
	'ValidationException: One or more parameter values were invalid: Condition parameter type does not match schema type',
	'begins_with with an S value on an N sort key');
SELECT throws_ok(pg_temp.q('pk.x = :p', '{":p": {"S": "a"}}'), 'XD001',
	'ValidationException: KeyConditionExpressions cannot have conditions on nested attributes', 'nested attribute');
SELECT throws_ok(pg_temp.q('pk = sk', NULL), 'XD001',
	'ValidationException: Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition', 'attribute vs attribute');
SELECT throws_ok(pg_temp.q(':p = :q', '{":p": {"S": "a"}, ":q": {"S": "a"}}'), 'XD001',
	'ValidationException: Invalid condition in KeyConditionExpression: No key attribute specified', 'constant vs constant');
SELECT throws_ok(pg_temp.q('pk = :p AND size(sk) = :p', '{":p": {"S": "a"}}'), 'XD001',
	'ValidationException: KeyConditionExpressions cannot contain nested operations', 'size() in a key condition');
SELECT throws_ok(pg_temp.q(':p BETWEEN sk AND :p', '{":p": {"S": "a"}}'), 'XD001',
	'ValidationException: Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand',
	'BETWEEN with the key elsewhere');
SELECT throws_ok(pg_temp.q('pk = :p AND sk BETWEEN :b AND :a', '{":p": {"S": "a"}, ":a": {"N": "1"}, ":b": {"N": "2"}}'), 'XD001',
	'ValidationException: Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:2}, upper bound operand: AttributeValue: {N:1}',
	'reversed BETWEEN');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": ""}}'), 'XD001',
	'ValidationException: One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk',
	'empty partition key value (§8.8)');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}, ":x": {"S": "a"}}'), 'XD001',
	'ValidationException: Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}', 'unused value (§8.32)');
SELECT throws_ok(pg_temp.q('', '{":p": {"S": "a"}}'), 'XD001',
	'ValidationException: Invalid KeyConditionExpression: The expression can not be empty;', 'empty key condition');
SELECT throws_ok($$SELECT item_table.query('{"TableName": "qerr", "KeyConditions": {}}')$$, 'XD001',
	'ValidationException: Conditions can be of length 1 or 2 only', 'empty legacy KeyConditions');

-- ---------------------------------------------------------------- other Query errors
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}, ":s": {"N": "1"}}', '{"FilterExpression": "sk > :s"}'), 'XD001',
	'ValidationException: Filter Expression can only contain non-primary key attributes: Primary key attribute: sk', 'filter on sk (§8.18)');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}}', '{"Select": "COUNT", "ProjectionExpression": "v"}'), 'XD001',
	'ValidationException: Cannot specify the ProjectionExpression when choosing to get only the Count', 'COUNT with a projection');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}}', '{"Select": "ALL_ATTRIBUTES", "ProjectionExpression": "v"}'), 'XD001',
	'ValidationException: Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES', 'ALL_ATTRIBUTES with a projection');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}}', '{"Select": "SPECIFIC_ATTRIBUTES"}'), 'XD001',
	'ValidationException: Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES', 'SPECIFIC_ATTRIBUTES alone');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}}', '{"Select": "ALL_PROJECTED_ATTRIBUTES"}'), 'XD001',
	'ValidationException: ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName', 'ALL_PROJECTED_ATTRIBUTES on a table');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}}', '{"Select": "EVERYTHING"}'), 'XD001',
	'ValidationException: 1 validation error detected: Value ''EVERYTHING'' at ''select'' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]',
	'unknown Select');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}}', '{"Limit": 0}'), 'XD001',
	'ValidationException: 1 validation error detected: Value ''0'' at ''limit'' failed to satisfy constraint: Member must have value greater than or equal to 1',
	'Limit 0');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}}', '{"IndexName": "gsi1"}'), 'XD001',
	'ValidationException: The table does not have the specified index: gsi1', 'unknown index (§8.62)');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}}', '{"ExclusiveStartKey": {"pk": {"S": "a"}}}'), 'XD001',
	'ValidationException: The provided starting key is invalid', 'start key without sk');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}}', '{"ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"S": "1"}}}'), 'XD001',
	'ValidationException: The provided key element does not match the schema', 'start key of the wrong type');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}}', '{"ExclusiveStartKey": {"pk": {"S": "b"}, "sk": {"N": "1"}}}'), 'XD001',
	'ValidationException: The provided starting key is outside query boundaries based on provided conditions', 'start key in another partition');
SELECT throws_ok(pg_temp.q('pk = :p AND sk > :s', '{":p": {"S": "a"}, ":s": {"N": "5"}}', '{"ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "1"}}}'), 'XD001',
	'ValidationException: The provided starting key does not match the range key predicate', 'start key outside the sort key condition');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}}', '{"ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "x"}}}'), 'XD001',
	'ValidationException: The provided starting key is invalid: The parameter cannot be converted to a numeric value: x', 'invalid start key value');

-- ---------------------------------------------------------------- Scan: ValidationException
SELECT throws_ok(pg_temp.s('{"Segment": 5, "TotalSegments": 5}'), 'XD001',
	'ValidationException: The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 5 is not less than TotalSegments: 5',
	'Segment = TotalSegments (§8.60)');
SELECT throws_ok(pg_temp.s('{"Segment": 1}'), 'XD001',
	'ValidationException: The TotalSegments parameter is required but was not present in the request when Segment parameter is present',
	'Segment alone (§8.60)');
SELECT throws_ok(pg_temp.s('{"TotalSegments": 4}'), 'XD001',
	'ValidationException: The Segment parameter is required but was not present in the request when parameter TotalSegments is present',
	'TotalSegments alone');
SELECT throws_ok(pg_temp.s('{"Segment": 0, "TotalSegments": 1000001}'), 'XD001',
	'ValidationException: 1 validation error detected: Value ''1000001'' at ''totalSegments'' failed to satisfy constraint: Member must have value less than or equal to 1000000',
	'TotalSegments over 1,000,000');
SELECT throws_ok(pg_temp.s(jsonb_build_object('Segment', (item_key_segment('S"a"', 3) + 1) % 3, 'TotalSegments', 3,
	'ExclusiveStartKey', '{"pk": {"S": "a"}, "sk": {"N": "1"}}'::jsonb)), 'XD001',
	'ValidationException: The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: 3 Segment: '
	|| item_key_segment('S"a"', 3), 'start key from another segment');
SELECT throws_ok(pg_temp.s('{"ExclusiveStartKey": {"pk": {"S": "a"}}}'), 'XD001',
	'ValidationException: The provided starting key is invalid: The provided key element does not match the schema', 'Scan start key without sk');
SELECT throws_ok(pg_temp.s('{"ExpressionAttributeValues": {":v": {"N": "1"}}}'), 'XD001',
	'ValidationException: ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null', 'values without a filter');
SELECT throws_ok(pg_temp.s('{"Select": "COUNT", "ProjectionExpression": "v"}'), 'XD001',
	'ValidationException: Cannot specify the ProjectionExpression when choosing to get only the Count', 'Scan COUNT with a projection');
SELECT throws_ok(pg_temp.s('{"IndexName": "gsi1"}'), 'XD001',
	'ValidationException: The table does not have the specified index: gsi1', 'Scan of an unknown index');
SELECT throws_ok(pg_temp.s('{"ScanFilter": {}, "ProjectionExpression": "pk"}'), 'XD001',
	'ValidationException: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {ScanFilter} Expression parameters: {ProjectionExpression}',
	'legacy ScanFilter with an expression');
SELECT throws_ok(pg_temp.s('{"FilterExpression": "status = :s", "ExpressionAttributeValues": {":s": {"S": "x"}}}'), 'XD001',
	'ValidationException: Invalid FilterExpression: Attribute name is a reserved keyword; reserved keyword: status', 'reserved word in a filter (§8.34)');
SELECT lives_ok(pg_temp.s('{"FilterExpression": "sk > :s", "ExpressionAttributeValues": {":s": {"N": "0"}}}'), 'Scan may filter on keys (§8.18)');

-- ---------------------------------------------------------------- SerializationException, ResourceNotFoundException
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}}', '{"Limit": "1"}'), 'XD002',
	'SerializationException: Unexpected STRING_VALUE for member Limit; expected a number', 'Limit as a string');
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}}', '{"ScanIndexForward": 0}'), 'XD002', NULL, 'ScanIndexForward as a number');
SELECT throws_ok(pg_temp.s('{"Segment": "0", "TotalSegments": 1}'), 'XD002', NULL, 'Segment as a string');
SELECT throws_ok($$SELECT item_table.query('{"TableName": "nope", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}')$$,
	'XD004', 'ResourceNotFoundException: Requested resource not found', 'Query of an unknown table (§8.62)');
SELECT throws_ok($$SELECT item_table.scan('{"TableName": "nope"}')$$,
	'XD004', 'ResourceNotFoundException: Requested resource not found', 'Scan of an unknown table (§8.62)');
SELECT throws_ok($$SELECT * FROM item_table.item_collection('nope', '{"S": "a"}')$$,
	'XD004', 'ResourceNotFoundException: Requested resource not found', 'item_collection of an unknown table');
SELECT throws_ok($$SELECT * FROM item_table.item_collection('qerr', '{"N": "1"}')$$,
	'42804', NULL, 'item_collection with a partition value of the wrong type');
-- index reads: GSI rules (§8.19, §8.57)
SELECT ok(create_table('{"TableName": "qerr_idx", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "gk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_gk", "KeySchema": [{"AttributeName": "gk", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}]}') ? 'TableDescription', 'table with an index created');
SELECT throws_ok($$SELECT item_table.query('{"TableName": "qerr_idx", "IndexName": "by_gk", "KeyConditionExpression": "gk = :g", "ExpressionAttributeValues": {":g": {"S": "x"}}, "ConsistentRead": true}')$$,
	'XD001', 'ValidationException: Consistent reads are not supported on global secondary indexes', '§8.19 ConsistentRead on a GSI');
SELECT throws_ok($$SELECT item_table.query('{"TableName": "qerr_idx", "IndexName": "by_gk", "KeyConditionExpression": "gk = :g", "ExpressionAttributeValues": {":g": {"S": "x"}}, "Select": "ALL_ATTRIBUTES"}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index by_gk because its projection type is not ALL', '§8.57 Select ALL_ATTRIBUTES on a KEYS_ONLY GSI');
SELECT throws_ok($$SELECT item_table.scan('{"TableName": "qerr_idx", "IndexName": "by_gk", "ProjectionExpression": "b"}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Global secondary index by_gk does not project [b]', '§8.57 ProjectionExpression naming an unprojected attribute');
SELECT is(item_table.query('{"TableName": "qerr_idx", "IndexName": "by_gk", "KeyConditionExpression": "gk = :g", "ExpressionAttributeValues": {":g": {"S": "x"}}}'),
	'{"Count": 0, "Items": [], "ScannedCount": 0}'::jsonb, 'Query of an empty index partition');
SELECT throws_ok($$SELECT item_table.scan('{"TableName": "qerr_idx", "IndexName": "other"}')$$,
	'XD001', 'ValidationException: The table does not have the specified index: other', 'Scan of an unknown index of a table with indexes');

-- the error bodies
SELECT is(pg_temp.err('Query', '{"TableName": "qerr", "KeyConditionExpression": "pk < :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}')->'body',
	'{"__type": "com.amazon.coral.validate#ValidationException", "message": "Query key condition not supported"}'::jsonb, 'ValidationException body');
SELECT is(pg_temp.err('Scan', '{"TableName": "nope"}')->'body',
	'{"__type": "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", "message": "Requested resource not found"}'::jsonb,
	'ResourceNotFoundException body');
SELECT is(pg_temp.err('Query', '{"TableName": "qerr", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}, "Limit": "x"}')->>'sqlstate',
	'XD002', 'SerializationException through dynamodb()');
SELECT is(pg_temp.err('Scan', '{"TableName": "qerr", "Segment": 1}')->'body'->>'__type',
	'com.amazon.coral.validate#ValidationException', 'Scan ValidationException through dynamodb()');

-- privileges and row level security: Query, Scan and item_collection run as the caller
CREATE ROLE item_table_tap_reader;
SET LOCAL ROLE item_table_tap_reader;
SELECT throws_ok(pg_temp.q('pk = :p', '{":p": {"S": "a"}}'), '42501', NULL, 'Query honours table privileges');
SELECT throws_ok(pg_temp.s('{}'), '42501', NULL, 'Scan honours table privileges');
SELECT throws_ok($$SELECT * FROM item_table.item_collection('qerr', '{"S": "a"}')$$, '42501', NULL, 'item_collection honours table privileges');
RESET ROLE;
GRANT SELECT ON item_data.qerr TO item_table_tap_reader;
SELECT is(put_item('{"TableName": "qerr", "Item": {"pk": {"S": "a"}, "sk": {"N": "2"}, "secret": {"BOOL": true}}}'), '{}'::jsonb, 'second item stored');
ALTER TABLE item_data.qerr ENABLE ROW LEVEL SECURITY;
CREATE POLICY no_secrets ON item_data.qerr FOR SELECT USING (NOT item ? 'secret');
SET LOCAL ROLE item_table_tap_reader;
SELECT is(query('{"TableName": "qerr", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}, "Select": "COUNT"}'),
	'{"Count": 1, "ScannedCount": 1}'::jsonb, 'RLS hides an item from Query');
SELECT is(scan('{"TableName": "qerr", "Select": "COUNT"}'), '{"Count": 1, "ScannedCount": 1}'::jsonb, 'RLS hides an item from Scan');
SELECT is((SELECT count(*) FROM item_collection('qerr', '{"S": "a"}')), 1::bigint, 'RLS hides an item from item_collection');
RESET ROLE;
SELECT is(query('{"TableName": "qerr", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}, "Select": "COUNT"}'),
	'{"Count": 2, "ScannedCount": 2}'::jsonb, 'the owner sees both items');

SELECT * FROM finish();
ROLLBACK;
