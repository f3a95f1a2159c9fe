-- Requests DynamoDB refuses that were accepted: key attribute names longer
-- than 255 bytes (KeySchema, AttributeDefinitions, index key schemas in
-- CreateTable and in UpdateTable's GlobalSecondaryIndexUpdates Create), and
-- a Limit above 2^31 - 1 in Query and Scan.  Both are shape problems:
-- ValidationException "Value '...' at '<member>' failed to satisfy
-- constraint: ...", listed with the request's other shape problems.  Names
-- are measured in bytes (UTF-8).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

BEGIN;
SELECT plan(21);
SET search_path = public, item_table;

-- error body of a failing call: {"sqlstate", "message", "body"}
\ir ../pgtap/include/err.sql

-- a CreateTable request (table name, key name, definition name, more
-- members), and the statement making it
CREATE FUNCTION pg_temp.ctreq(tab text, key text, def text, more jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('TableName', tab, 'BillingMode', 'PAY_PER_REQUEST',
		'AttributeDefinitions', jsonb_build_array(jsonb_build_object('AttributeName', def, 'AttributeType', 'S')),
		'KeySchema', jsonb_build_array(jsonb_build_object('AttributeName', key, 'KeyType', 'HASH'))) || more
$$;
CREATE FUNCTION pg_temp.ct(tab text, key text, def text, more jsonb DEFAULT '{}') RETURNS text LANGUAGE sql AS $$
	SELECT format('SELECT item_table.create_table(%L::jsonb)', pg_temp.ctreq(tab, key, def, more))
$$;
-- the ValidationException of one shape problem: a value too long at a member
CREATE FUNCTION pg_temp.too_long(val text, member text) RETURNS text LANGUAGE sql AS $$
	SELECT format('ValidationException: 1 validation error detected: Value ''%s'' at ''%s'' failed to satisfy constraint: Member must have length less than or equal to 255',
		val, member)
$$;
-- an index definition with one key attribute
CREATE FUNCTION pg_temp.gsi(name text, key text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('IndexName', name, 'Projection', '{"ProjectionType": "KEYS_ONLY"}'::jsonb,
		'KeySchema', jsonb_build_array(jsonb_build_object('AttributeName', key, 'KeyType', 'HASH')))
$$;

-- ---------------------------------------------------------------- key attribute names
SELECT lives_ok(pg_temp.ct('lim_255', repeat('k', 255), repeat('k', 255)), '255-byte key attribute name: accepted');
SELECT throws_ok(pg_temp.ct('lim_256', repeat('k', 256), 'pk'), 'XD001',
	pg_temp.too_long(repeat('k', 256), 'keySchema.1.member.attributeName'), 'KeySchema: 256-byte name refused');
SELECT throws_ok(pg_temp.ct('lim_256', 'pk', repeat('k', 256)), 'XD001',
	pg_temp.too_long(repeat('k', 256), 'attributeDefinitions.1.member.attributeName'), 'AttributeDefinitions: 256-byte name refused');
SELECT throws_ok(pg_temp.ct('lim_256', repeat('é', 128), 'pk'), 'XD001',
	pg_temp.too_long(repeat('é', 128), 'keySchema.1.member.attributeName'), 'KeySchema: 128 two-byte characters (256 bytes) refused');
SELECT throws_ok(pg_temp.ct('lim_256', repeat('k', 256), repeat('k', 256)), 'XD001',
	format('ValidationException: 2 validation errors detected: Value ''%s'' at ''keySchema.1.member.attributeName'' failed to satisfy constraint: Member must have length less than or equal to 255; '
		'Value ''%s'' at ''attributeDefinitions.1.member.attributeName'' failed to satisfy constraint: Member must have length less than or equal to 255',
		repeat('k', 256), repeat('k', 256)), 'both: two problems, listed together');
SELECT throws_ok(pg_temp.ct('lim_empty', '', ''), 'XD001',
	'ValidationException: 2 validation errors detected: Value '''' at ''keySchema.1.member.attributeName'' failed to satisfy constraint: Member must have length greater than or equal to 1; '
	'Value '''' at ''attributeDefinitions.1.member.attributeName'' failed to satisfy constraint: Member must have length greater than or equal to 1',
	'empty key attribute names refused');
SELECT is(pg_temp.err('CreateTable', pg_temp.ctreq('lim_256', repeat('k', 256), 'pk'))->'body'->>'__type',
	'com.amazon.coral.validate#ValidationException', 'through dynamodb(): the ValidationException body');
SELECT lives_ok(pg_temp.ct('lim_gsi', 'pk', 'pk', jsonb_build_object(
		'AttributeDefinitions', jsonb_build_array('{"AttributeName": "pk", "AttributeType": "S"}'::jsonb,
			jsonb_build_object('AttributeName', repeat('g', 255), 'AttributeType', 'S')),
		'GlobalSecondaryIndexes', jsonb_build_array(pg_temp.gsi('gsi', repeat('g', 255))))),
	'CreateTable: a GSI keyed on a 255-byte name accepted');
SELECT throws_ok(pg_temp.ct('lim_gsi2', 'pk', 'pk', jsonb_build_object(
		'GlobalSecondaryIndexes', jsonb_build_array(pg_temp.gsi('gsi', repeat('g', 256))))), 'XD001',
	pg_temp.too_long(repeat('g', 256), 'globalSecondaryIndexes.1.member.keySchema.1.member.attributeName'),
	'CreateTable: GSI KeySchema with a 256-byte name refused');
SELECT throws_ok(pg_temp.ct('lim_lsi', 'pk', 'pk', jsonb_build_object(
		'KeySchema', '[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]'::jsonb,
		'LocalSecondaryIndexes', jsonb_build_array(jsonb_build_object('IndexName', 'lsi',
			'Projection', '{"ProjectionType": "KEYS_ONLY"}'::jsonb,
			'KeySchema', jsonb_build_array('{"AttributeName": "pk", "KeyType": "HASH"}'::jsonb,
				jsonb_build_object('AttributeName', repeat('l', 300), 'KeyType', 'RANGE')))))), 'XD001',
	pg_temp.too_long(repeat('l', 300), 'localSecondaryIndexes.1.member.keySchema.2.member.attributeName'),
	'CreateTable: LSI KeySchema with a 300-byte name refused');
SELECT throws_ok(format('SELECT item_table.update_table(%L::jsonb)', jsonb_build_object('TableName', 'lim_255',
		'AttributeDefinitions', jsonb_build_array(jsonb_build_object('AttributeName', repeat('u', 256), 'AttributeType', 'S')),
		'GlobalSecondaryIndexUpdates', jsonb_build_array(jsonb_build_object('Create', pg_temp.gsi('gsi', repeat('u', 256)))))),
	'XD001', pg_temp.too_long(repeat('u', 256), 'globalSecondaryIndexUpdates.1.member.create.keySchema.1.member.attributeName'),
	'UpdateTable: a GSI Create with a 256-byte key name refused');
SELECT is((SELECT array_agg(table_name ORDER BY table_name) FROM item_table.tables), ARRAY['lim_255', 'lim_gsi'],
	'no refused request created anything');
SELECT is((SELECT count(*)::int FROM item_table.indexes WHERE table_name = 'lim_255'), 0, 'UpdateTable added no index');

-- ---------------------------------------------------------------- Limit
SELECT lives_ok($$SELECT put_item(jsonb_build_object('TableName', 'lim_255',
	'Item', jsonb_build_object(repeat('k', 255), '{"S": "a"}'::jsonb)))$$, 'an item stored');
SELECT is(scan('{"TableName": "lim_255", "Limit": 2147483647, "Select": "COUNT"}'),
	'{"Count": 1, "ScannedCount": 1}'::jsonb, 'Scan: Limit 2147483647 accepted');
SELECT throws_ok($$SELECT scan('{"TableName": "lim_255", "Limit": 2147483648}')$$, 'XD001',
	'ValidationException: 1 validation error detected: Value ''2147483648'' at ''limit'' failed to satisfy constraint: Member must have value less than or equal to 2147483647',
	'Scan: Limit 2147483648 refused');
SELECT throws_ok(format('SELECT query(%L::jsonb)', jsonb_build_object('TableName', 'lim_255', 'Limit', 9223372036854775807,
		'KeyConditionExpression', '#k = :k', 'ExpressionAttributeNames', jsonb_build_object('#k', repeat('k', 255)),
		'ExpressionAttributeValues', '{":k": {"S": "a"}}'::jsonb)), 'XD001',
	'ValidationException: 1 validation error detected: Value ''9223372036854775807'' at ''limit'' failed to satisfy constraint: Member must have value less than or equal to 2147483647',
	'Query: Limit 2^63 - 1 refused');
SELECT is(query(jsonb_build_object('TableName', 'lim_255', 'Limit', 2147483647, 'Select', 'COUNT',
		'KeyConditionExpression', '#k = :k', 'ExpressionAttributeNames', jsonb_build_object('#k', repeat('k', 255)),
		'ExpressionAttributeValues', '{":k": {"S": "a"}}'::jsonb)),
	'{"Count": 1, "ScannedCount": 1}'::jsonb, 'Query: Limit 2147483647 accepted');
SELECT throws_ok($$SELECT scan('{"TableName": "nonexistent", "Limit": 4294967296, "Segment": -1, "TotalSegments": 2}')$$, 'XD001',
	'ValidationException: 2 validation errors detected: Value ''4294967296'' at ''limit'' failed to satisfy constraint: Member must have value less than or equal to 2147483647; '
	'Value ''-1'' at ''segment'' failed to satisfy constraint: Member must have value greater than or equal to 0',
	'Scan: listed with the other shape problems, before the table is looked up');
SELECT is(pg_temp.err('Query', '{"TableName": "lim_255", "Limit": 2147483648, "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}')->'body'->>'__type',
	'com.amazon.coral.validate#ValidationException', 'through dynamodb(): the ValidationException body');
SELECT throws_ok($$SELECT list_tables('{"Limit": 2147483648}')$$, 'XD001',
	'ValidationException: 1 validation error detected: Value ''2147483648'' at ''limit'' failed to satisfy constraint: Member must have value less than or equal to 100',
	'ListTables keeps its own 1..100');

SELECT * FROM finish();
ROLLBACK;
