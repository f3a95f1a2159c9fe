-- Each DynamoDB exception the item and table operations raise: its
-- SQLSTATE, its name in the message, and the JSON error body in DETAIL.
BEGIN;
SELECT plan(45);
SET search_path = item_table, public;

-- error body of a failing call: {"sqlstate", "message", "body"}
\ir include/err.sql

SELECT ok(create_table('{"TableName": "errs", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') ? 'TableDescription', 'table created');
SELECT is(put_item('{"TableName": "errs", "Item": {"pk": {"S": "k"}, "v": {"N": "1"}}}'), '{}'::jsonb, 'item stored');

-- ValidationException: XD001
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "errs", "Item": {"v": {"S": "x"}}}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Missing the key pk in the item',
	'missing key: ValidationException / XD001');
SELECT is(pg_temp.err('PutItem', '{"TableName": "errs", "Item": {"v": {"S": "x"}}}')->'body'->>'__type',
	'com.amazon.coral.validate#ValidationException', 'ValidationException body __type');
SELECT is(pg_temp.err('PutItem', '{"TableName": "errs", "Item": {"v": {"S": "x"}}}')->'body'->>'message',
	'One or more parameter values were invalid: Missing the key pk in the item', 'ValidationException body message');
SELECT throws_ok($$SELECT item_table.get_item('{"TableName": "errs", "Key": {"pk": {"S": "k"}, "x": {"S": "y"}}}')$$,
	'XD001', 'ValidationException: The provided key element does not match the schema', 'Key not matching the schema');
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "errs", "Item": {"pk": {"S": "k"}, "n": {"N": "1E+126"}}}')$$,
	'XD001', 'ValidationException: Number overflow. Attempting to store a number with magnitude larger than supported range', 'number overflow');
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "errs", "Item": {"pk": {"S": "k"}, "s": {"SS": []}}}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: An string set  may not be empty', 'empty string set');
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "x"}')$$,
	'XD001', 'ValidationException: 2 validation errors detected: Value ''x'' at ''tableName'' failed to satisfy constraint: Member must have length greater than or equal to 3; Value null at ''item'' failed to satisfy constraint: Member must not be null',
	'shape problems are reported together');
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "errs", "Item": {"pk": {"S": "k"}}, "ReturnValues": "ALL_NEW"}')$$,
	'XD001', NULL, 'PutItem ReturnValues ALL_NEW');
SELECT throws_ok($$SELECT item_table.update_item('{"TableName": "errs", "Key": {"pk": {"S": "k"}}, "UpdateExpression": "SET pk = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key',
	'key attribute in an update');
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "errs", "Item": {"pk": {"S": "k"}}, "ConditionExpression": "status = :s", "ExpressionAttributeValues": {":s": {"S": "x"}}}')$$,
	'XD001', 'ValidationException: Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status',
	'reserved word');
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "errs", "Item": {"pk": {"S": "k"}}, "ConditionExpression": "a = :v"}')$$,
	'XD001', 'ValidationException: Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :v',
	'undefined value placeholder');
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "errs", "Item": {"pk": {"S": "k"}}, "ConditionExpression": "attribute_exists(pk)", "ExpressionAttributeValues": {":unused": {"S": "x"}}}')$$,
	'XD001', 'ValidationException: Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}',
	'unused value placeholder');
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "errs", "Item": {"pk": {"S": "k"}}, "Expected": {}, "ConditionalOperator": "OR"}')$$,
	'XD001', 'ValidationException: ConditionalOperator cannot be used without Filter or Expected',
	'legacy ConditionalOperator without conditions');
SELECT throws_ok($$SELECT item_table.create_table('{"TableName": "errs2", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "x", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions',
	'unused attribute definition');

-- SerializationException: XD002, "Message" with a capital M
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "errs", "Item": {"pk": {"S": "k"}, "n": {"N": 12}}}')$$,
	'XD002', NULL, 'number as a JSON number: SerializationException / XD002');
SELECT is(pg_temp.err('PutItem', '{"TableName": "errs", "Item": {"pk": {"S": "k"}, "n": {"N": 12}}}')->'body'->>'__type',
	'com.amazon.coral.service#SerializationException', 'SerializationException body __type');
SELECT ok(pg_temp.err('PutItem', '{"TableName": "errs", "Item": {"pk": {"S": "k"}, "n": {"N": 12}}}')->'body' ? 'Message',
	'SerializationException body uses "Message"');
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "errs", "Item": {"pk": {"S": "k"}, "b": {"B": "%%%"}}}')$$,
	'XD002', NULL, 'bad base64: SerializationException');
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": 7, "Item": {}}')$$,
	'XD002', NULL, 'TableName of the wrong JSON type');

-- UnknownOperationException: XD003
SELECT throws_ok($$SELECT item_table.dynamodb('FlyToTheMoon', '{}')$$,
	'XD003', 'UnknownOperationException: Unknown operation: FlyToTheMoon', 'unknown action');
SELECT is(pg_temp.err('FlyToTheMoon', '{}')->'body'->>'__type',
	'com.amazon.coral.service#UnknownOperationException', 'UnknownOperationException body __type');

-- ResourceNotFoundException: XD004
SELECT throws_ok($$SELECT item_table.get_item('{"TableName": "nope", "Key": {"pk": {"S": "k"}}}')$$,
	'XD004', 'ResourceNotFoundException: Requested resource not found', 'unknown table');
SELECT is(pg_temp.err('GetItem', '{"TableName": "nope", "Key": {"pk": {"S": "k"}}}')->'body'->>'__type',
	'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException', 'ResourceNotFoundException body __type');
SELECT throws_ok($$SELECT item_table.delete_table('{"TableName": "nope"}')$$,
	'XD004', NULL, 'DeleteTable of an unknown table');
SELECT throws_ok($$SELECT item_table.update_item('{"TableName": "nope", "Key": {"pk": {"S": "k"}}}')$$,
	'XD004', NULL, 'UpdateItem on an unknown table');

-- ResourceInUseException: XD005
SELECT throws_ok($$SELECT item_table.create_table('{"TableName": "errs", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}')$$,
	'XD005', 'ResourceInUseException: Table already exists: errs', 'existing table');
SELECT is(pg_temp.err('CreateTable', '{"TableName": "errs", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}')->'body'->>'__type',
	'com.amazonaws.dynamodb.v20120810#ResourceInUseException', 'ResourceInUseException body __type');

-- ConditionalCheckFailedException: XD006
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "errs", "Item": {"pk": {"S": "k"}}, "ConditionExpression": "attribute_not_exists(pk)"}')$$,
	'XD006', 'ConditionalCheckFailedException: The conditional request failed', 'failed condition');
SELECT is(pg_temp.err('PutItem', '{"TableName": "errs", "Item": {"pk": {"S": "k"}}, "ConditionExpression": "attribute_not_exists(pk)"}')->'body',
	'{"__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", "message": "The conditional request failed"}'::jsonb,
	'ConditionalCheckFailedException body without the item');
SELECT is(pg_temp.err('PutItem', '{"TableName": "errs", "Item": {"pk": {"S": "k"}}, "ConditionExpression": "attribute_not_exists(pk)", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}')->'body'->'Item',
	'{"pk": {"S": "k"}, "v": {"N": "1"}}'::jsonb, 'ConditionalCheckFailedException body carries the old item');
SELECT throws_ok($$SELECT item_table.delete_item('{"TableName": "errs", "Key": {"pk": {"S": "k"}}, "ConditionExpression": "v = :two", "ExpressionAttributeValues": {":two": {"N": "2"}}}')$$,
	'XD006', NULL, 'failed DeleteItem condition');
SELECT throws_ok($$SELECT item_table.update_item('{"TableName": "errs", "Key": {"pk": {"S": "k"}}, "UpdateExpression": "SET v = :two", "ConditionExpression": "v = :two", "ExpressionAttributeValues": {":two": {"N": "2"}}}')$$,
	'XD006', NULL, 'failed UpdateItem condition');

-- failed calls changed nothing
SELECT is(get_item('{"TableName": "errs", "Key": {"pk": {"S": "k"}}}'),
	'{"Item": {"pk": {"S": "k"}, "v": {"N": "1"}}}'::jsonb, 'the item is unchanged by the failed calls');
SELECT is((SELECT count(*) FROM item_data.errs), 1::bigint, 'no item was added by the failed calls');

-- the SQLSTATE table is one code per exception
SELECT is((SELECT count(DISTINCT s) FROM unnest(ARRAY[
	pg_temp.err('PutItem', '{"TableName": "errs", "Item": {"v": {"S": "x"}}}')->>'sqlstate',
	pg_temp.err('PutItem', '{"TableName": "errs", "Item": {"pk": {"S": "k"}, "n": {"N": 12}}}')->>'sqlstate',
	pg_temp.err('Nope', '{}')->>'sqlstate',
	pg_temp.err('GetItem', '{"TableName": "nope", "Key": {"pk": {"S": "k"}}}')->>'sqlstate',
	pg_temp.err('CreateTable', '{"TableName": "errs", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}')->>'sqlstate',
	pg_temp.err('PutItem', '{"TableName": "errs", "Item": {"pk": {"S": "k"}}, "ConditionExpression": "attribute_not_exists(pk)"}')->>'sqlstate']) s),
	6::bigint, 'six exceptions, six SQLSTATEs');

-- requests that jsonb itself cannot hold never reach the API (U+0000: the
-- jsonb functions take it in the stored form, dynamodb_json() as JSON text)
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "errs", "Item": {"pk": {"S": "k"}, "s": {"S": "a\u0000b"}}}')$$,
	'22P05', NULL, 'U+0000 in a string is rejected by jsonb before the call');

-- privileges: a role without rights on the physical table gets PostgreSQL's error
CREATE ROLE item_table_tap_nobody;
SET LOCAL ROLE item_table_tap_nobody;
SELECT throws_ok($$SELECT item_table.get_item('{"TableName": "errs", "Key": {"pk": {"S": "k"}}}')$$,
	'42501', NULL, 'GetItem honours table privileges');
RESET ROLE;
GRANT SELECT ON item_data.errs TO item_table_tap_nobody;
SET LOCAL ROLE item_table_tap_nobody;
SELECT is(get_item('{"TableName": "errs", "Key": {"pk": {"S": "k"}}}')->'Item'->'v', '{"N": "1"}'::jsonb, 'with SELECT granted, GetItem works');
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "errs", "Item": {"pk": {"S": "z"}}}')$$,
	'42501', NULL, 'PutItem needs INSERT');
RESET ROLE;
-- row level security applies to the API too
ALTER TABLE item_data.errs ENABLE ROW LEVEL SECURITY;
CREATE POLICY only_z ON item_data.errs FOR SELECT USING (key = 'S"z"');
SET LOCAL ROLE item_table_tap_nobody;
SELECT is(get_item('{"TableName": "errs", "Key": {"pk": {"S": "k"}}}'), '{}'::jsonb, 'RLS hides the item from GetItem');
SELECT is(batch_get_item('{"RequestItems": {"errs": {"Keys": [{"pk": {"S": "k"}}]}}}')->'Responses'->'errs',
	'[]'::jsonb, 'RLS hides the item from BatchGetItem');
SET LOCAL row_security = off;
SELECT throws_ok($$SELECT item_table.get_item('{"TableName": "errs", "Key": {"pk": {"S": "k"}}}')$$,
	'42501', NULL, 'with row_security off, GetItem on a table with policies is refused');
RESET row_security;
RESET ROLE;
-- column privileges on the two columns are enough, as for SQL
ALTER TABLE item_data.errs DISABLE ROW LEVEL SECURITY;
REVOKE SELECT ON item_data.errs FROM item_table_tap_nobody;
GRANT SELECT (key, item) ON item_data.errs TO item_table_tap_nobody;
SET LOCAL ROLE item_table_tap_nobody;
SELECT is(get_item('{"TableName": "errs", "Key": {"pk": {"S": "k"}}}')->'Item'->'v', '{"N": "1"}'::jsonb,
	'with SELECT on (key, item) only, GetItem works');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
