-- Row-level security and index reads.  An index table holds copies of the
-- items (written with the owner's rights), which the base table's policies
-- cannot filter: Query and Scan with IndexName, their explain_* forms and
-- verify() showed items the policies hide.  Where row security applies to
-- the caller on the base table, these reads are now refused (42501); the
-- base table stays readable through its policies, and the owner (without
-- FORCE), superusers and BYPASSRLS roles read indexes as before.  An index
-- read also needs SELECT on the base table.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

BEGIN;
SELECT plan(27);
SET search_path = public, item_table;

CREATE ROLE sec_rlsidx_owner;
CREATE ROLE sec_rlsidx_reader;
CREATE ROLE sec_rlsidx_bypass BYPASSRLS;
GRANT CREATE ON SCHEMA item_data TO sec_rlsidx_owner;

-- a request on table rlsidx; more members merged in
CREATE FUNCTION pg_temp.req(fn text, more jsonb) RETURNS text LANGUAGE sql AS $$
	SELECT format('SELECT item_table.%s(%L::jsonb)', fn, jsonb_build_object('TableName', 'rlsidx') || more)
$$;
-- the Count of a request's answer
CREATE FUNCTION pg_temp.cnt(fn text, more jsonb) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	r jsonb;
BEGIN
	EXECUTE pg_temp.req(fn, more || '{"Select": "COUNT"}') INTO r;
	RETURN (r->>'Count')::int;
END $$;
-- the HINT of the error a statement raises
CREATE FUNCTION pg_temp.hint(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	h text;
BEGIN
	EXECUTE sql;
	RETURN NULL;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS h = PG_EXCEPTION_HINT;
	RETURN h;
END $$;

-- the table belongs to sec_rlsidx_owner: a GSI on g, an LSI on n
SET LOCAL ROLE sec_rlsidx_owner;
SELECT lives_ok($$SELECT create_table('{"TableName": "rlsidx", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
		{"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "n", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}],
	"LocalSecondaryIndexes": [{"IndexName": "by_n", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
		{"AttributeName": "n", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}]}')$$,
	'the owner creates a table with a GSI and an LSI');
SELECT lives_ok($$SELECT batch_write_item('{"RequestItems": {"rlsidx": [
	{"PutRequest": {"Item": {"pk": {"S": "a"}, "sk": {"S": "1"}, "g": {"S": "x"}, "n": {"N": "1"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "a"}, "sk": {"S": "2"}, "g": {"S": "x"}, "n": {"N": "2"}, "secret": {"S": "hidden"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "a"}, "sk": {"S": "3"}, "g": {"S": "x"}, "n": {"N": "3"}}}}]}}')$$,
	'three items stored, one of them secret');
GRANT SELECT ON item_data.rlsidx, item_data."rlsidx#by_g", item_data."rlsidx#by_n"
	TO sec_rlsidx_reader, sec_rlsidx_bypass;
ALTER TABLE item_data.rlsidx ENABLE ROW LEVEL SECURITY;
CREATE POLICY no_secrets ON item_data.rlsidx FOR SELECT USING (NOT item ? 'secret');
RESET ROLE;

-- the reader: the policy applies
SET LOCAL ROLE sec_rlsidx_reader;
SELECT is(pg_temp.cnt('query', '{"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}'),
	2, 'reader: Query of the table returns only the items the policy allows');
SELECT is(pg_temp.cnt('scan', '{}'), 2, 'reader: Scan of the table returns only the items the policy allows');
SELECT throws_ok(pg_temp.req('query', '{"IndexName": "by_g", "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "x"}}}'),
	'42501', 'index reads are not available on table "rlsidx": row-level security applies to it',
	'reader: Query of a GSI is refused');
SELECT throws_ok(pg_temp.req('scan', '{"IndexName": "by_g"}'),
	'42501', 'index reads are not available on table "rlsidx": row-level security applies to it',
	'reader: Scan of a GSI is refused');
SELECT throws_ok(pg_temp.req('query', '{"IndexName": "by_n", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}'),
	'42501', 'index reads are not available on table "rlsidx": row-level security applies to it',
	'reader: Query of an LSI is refused');
SELECT throws_ok(pg_temp.req('scan', '{"IndexName": "by_n", "Select": "COUNT"}'),
	'42501', NULL, 'reader: a COUNT Scan of an LSI is refused');
SELECT throws_ok($$SELECT item_table.dynamodb('Query', '{"TableName": "rlsidx", "IndexName": "by_g",
	"KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "x"}}}')$$,
	'42501', NULL, 'reader: the same through dynamodb()');
SELECT throws_ok(format('SELECT * FROM item_table.explain_query(%L)', '{"TableName": "rlsidx", "IndexName": "by_g",
	"KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "x"}}}'),
	'42501', NULL, 'reader: explain_query of an index read is refused');
SELECT throws_ok($$SELECT * FROM item_table.explain_scan('{"TableName": "rlsidx", "IndexName": "by_g"}')$$,
	'42501', NULL, 'reader: explain_scan of an index read is refused');
SELECT throws_ok($$SELECT * FROM item_table.verify('rlsidx')$$,
	'42501', 'index reads are not available on table "rlsidx": row-level security applies to it',
	'reader: verify() (which shows index rows) is refused');
SELECT is(pg_temp.hint(pg_temp.req('scan', '{"IndexName": "by_g"}')),
	'Query or scan the table itself, where the policies apply.', 'the hint points to the table');
SELECT is((SELECT count(*)::int FROM item_collection('rlsidx', '{"S": "a"}')), 2,
	'reader: item_collection returns only the items the policy allows');
SELECT is((SELECT count(*)::int FROM index_entries('rlsidx', 'by_g', 'S"z"|S"9"', '{"pk": {"S": "z"}, "sk": {"S": "9"}, "g": {"S": "y"}}')), 1,
	'reader: index_entries() computes entries of the item it is given (it reads nothing stored)');
RESET ROLE;

-- the owner (no FORCE), a superuser and a BYPASSRLS role read the index
SET LOCAL ROLE sec_rlsidx_owner;
SELECT is(pg_temp.cnt('query', '{"IndexName": "by_g", "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "x"}}}'),
	3, 'owner: Query of the GSI reads every item');
SELECT is(pg_temp.cnt('query', '{"IndexName": "by_n", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}'),
	3, 'owner: Query of the LSI reads every item');
SELECT is((SELECT count(*)::int FROM item_table.verify('rlsidx')), 0, 'owner: verify() runs');
RESET ROLE;
SELECT is(pg_temp.cnt('scan', '{"IndexName": "by_g"}'), 3, 'superuser: Scan of the GSI reads every item');
SET LOCAL ROLE sec_rlsidx_bypass;
SELECT is(pg_temp.cnt('scan', '{"IndexName": "by_g"}'), 3, 'BYPASSRLS: Scan of the GSI reads every item');
RESET ROLE;

-- FORCE ROW LEVEL SECURITY: the policy applies to the owner too
ALTER TABLE item_data.rlsidx FORCE ROW LEVEL SECURITY;
SET LOCAL ROLE sec_rlsidx_owner;
SELECT throws_ok(pg_temp.req('scan', '{"IndexName": "by_g"}'), '42501', NULL,
	'owner under FORCE ROW LEVEL SECURITY: Scan of the GSI is refused');
SELECT is(pg_temp.cnt('scan', '{}'), 2, 'owner under FORCE ROW LEVEL SECURITY: Scan of the table is filtered');
RESET ROLE;
ALTER TABLE item_data.rlsidx NO FORCE ROW LEVEL SECURITY;

-- row security off for the table: the reader reads the index again
ALTER TABLE item_data.rlsidx DISABLE ROW LEVEL SECURITY;
SET LOCAL ROLE sec_rlsidx_reader;
SELECT is(pg_temp.cnt('query', '{"IndexName": "by_g", "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "x"}}}'),
	3, 'reader, row security disabled: Query of the GSI works');
RESET ROLE;

-- a table without row security: unaffected; an index read needs SELECT on the table
SELECT lives_ok($$SELECT create_table('{"TableName": "plainidx", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}]}')$$, 'a table without row security');
SELECT lives_ok($$SELECT put_item('{"TableName": "plainidx", "Item": {"pk": {"S": "a"}, "g": {"S": "x"}}}')$$, 'its item stored');
GRANT SELECT ON item_data."plainidx#by_g" TO sec_rlsidx_reader;
SET LOCAL ROLE sec_rlsidx_reader;
SELECT throws_ok($$SELECT item_table.scan('{"TableName": "plainidx", "IndexName": "by_g"}')$$,
	'42501', 'permission denied for table plainidx', 'SELECT on the index table alone does not make its items readable');
RESET ROLE;
GRANT SELECT ON item_data.plainidx TO sec_rlsidx_reader;
SET LOCAL ROLE sec_rlsidx_reader;
SELECT is(item_table.scan('{"TableName": "plainidx", "IndexName": "by_g"}')->'Items',
	'[{"g": {"S": "x"}, "pk": {"S": "a"}}]'::jsonb, 'with SELECT on both, the reader reads the index');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
