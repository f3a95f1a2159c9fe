-- The item guard: rows written to an item table with plain SQL (INSERT,
-- UPDATE, COPY, a user's trigger) must hold a DynamoDB item of the table,
-- whose key column matches its key attributes (23514 otherwise); items not
-- in stored form are stored in stored form; API writes are unaffected.
BEGIN;
SELECT plan(38);
SET search_path = item_table, public;

CREATE ROLE sec_guard_owner;
GRANT CREATE ON SCHEMA item_data TO sec_guard_owner;
SET LOCAL ROLE sec_guard_owner;
SELECT ok(create_table('{"TableName": "guarded", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
		{"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "byg", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}]}') ? 'TableDescription', 'the owner creates a table with a GSI');
SELECT is((SELECT count(*) FROM pg_catalog.pg_trigger WHERE tgrelid = 'item_data.guarded'::regclass
	AND tgname = 'zz_item_guard' AND tgfoid = 'item_table.item_guard()'::regprocedure), 1::bigint,
	'CreateTable installs the guard trigger');

-- defect 7: items that are not DynamoDB items
SELECT throws_ok($$INSERT INTO item_data.guarded VALUES ('S"a"|N"1"', '{"a": 1}')$$,
	'23514', 'item of table "guarded" is not a DynamoDB item: attribute "a" is invalid',
	'an attribute that is not an AttributeValue is refused');
SELECT throws_ok($$INSERT INTO item_data.guarded VALUES ('S"a"|N"1"', '{"pk": {"S": "a"}, "sk": {"N": "1"}, "a": {"X": "y"}}')$$,
	'23514', 'item of table "guarded" is not a DynamoDB item: attribute "a" is invalid',
	'an unknown type is refused');
SELECT throws_ok($$INSERT INTO item_data.guarded VALUES ('S"a"|N"1"', '[{"pk": {"S": "a"}}]')$$,
	'23514', 'item of table "guarded" is not a DynamoDB item: not a JSON object',
	'an array is refused');
SELECT throws_ok($$INSERT INTO item_data.guarded VALUES ('S"a"|N"1"', NULL)$$,
	'23514', 'item of table "guarded" must not be NULL', 'a NULL item is refused');
SELECT throws_ok($$INSERT INTO item_data.guarded VALUES ('S"a"|N"1"', '{"pk": {"S": "a"}, "sk": {"N": "1"}, "n": {"N": "1e200"}}')$$,
	'23514', 'item of table "guarded" is not a DynamoDB item: attribute "n" is invalid',
	'a number out of DynamoDB''s range is refused');
SELECT throws_ok($$INSERT INTO item_data.guarded VALUES ('S"a"|N"1"', '{"pk": {"S": "a"}, "sk": {"N": "1"}, "s": {"SS": []}}')$$,
	'23514', 'item of table "guarded" is not a DynamoDB item: attribute "s" is invalid',
	'an empty set is refused');
SELECT throws_ok($$INSERT INTO item_data.guarded VALUES ('S"a"|N"1"', '{"pk": {"S": "a"}, "sk": {"N": "1"}, "": {"S": "x"}}')$$,
	'23514', 'item of table "guarded" is not a DynamoDB item: an attribute name is invalid',
	'an empty attribute name is refused');
SELECT throws_ok($$INSERT INTO item_data.guarded VALUES ('S"a"|N"1"',
		jsonb_build_object('pk', '{"S": "a"}'::jsonb, 'sk', '{"N": "1"}'::jsonb, 'big', jsonb_build_object('S', repeat('x', 410000))))$$,
	'23514', 'item of table "guarded" is larger than 400 KB', 'an item over 400 KB is refused');

-- key attributes and the key column
SELECT throws_ok($$INSERT INTO item_data.guarded VALUES ('S"a"|N"1"', '{"pk": {"S": "a"}}')$$,
	'23514', 'item of table "guarded" does not have valid key attributes', 'a missing key attribute is refused');
SELECT throws_ok($$INSERT INTO item_data.guarded VALUES ('S"a"|N"1"', '{"pk": {"S": "a"}, "sk": {"S": "1"}}')$$,
	'23514', 'item of table "guarded" does not have valid key attributes', 'a mistyped key attribute is refused');
SELECT throws_ok($$INSERT INTO item_data.guarded VALUES ('S"a"|N"1"', '{"pk": {"S": ""}, "sk": {"N": "1"}}')$$,
	'23514', 'item of table "guarded" does not have valid key attributes', 'an empty key value is refused');
SELECT throws_ok($$INSERT INTO item_data.guarded VALUES ('S"a"|N"2"', '{"pk": {"S": "a"}, "sk": {"N": "1"}}')$$,
	'23514', 'key of the row does not match the item''s key attributes in table "guarded"',
	'a key column that disagrees with the item is refused');
SELECT throws_ok($$INSERT INTO item_data.guarded VALUES ('S"b"|N"1"', '{"pk": {"S": "a"}, "sk": {"N": "1"}}')$$,
	'23514', 'key of the row does not match the item''s key attributes in table "guarded"',
	'a key column of another partition is refused');

-- natural JSON is stored in stored form; a NULL key is computed
SELECT lives_ok($$INSERT INTO item_data.guarded VALUES ('S"a"|N"1"',
		'{"pk": {"S": "a"}, "sk": {"N": "1.00"}, "n": {"N": "1.50"}, "ns": {"NS": ["3", "1", "2.0"]}, "g": {"S": "x"}}')$$,
	'a valid item with non-canonical numbers is accepted');
SELECT is((SELECT item FROM item_data.guarded WHERE key OPERATOR(item_table.=) 'S"a"|N"1"'),
	'{"pk": {"S": "a"}, "sk": {"N": "1"}, "n": {"N": "1.5"}, "ns": {"NS": ["1", "2", "3"]}, "g": {"S": "x"}}'::jsonb,
	'numbers and sets are stored in stored form');
SELECT lives_ok($$INSERT INTO item_data.guarded (item) VALUES ('{"pk": {"S": "a"}, "sk": {"N": "2"}, "g": {"S": "x"}}')$$,
	'an item without a key is accepted');
SELECT is((SELECT count(*) FROM item_data.guarded WHERE key OPERATOR(item_table.=) 'S"a"|N"2"'), 1::bigint,
	'its key is computed from the item');
SELECT lives_ok($$UPDATE item_data.guarded SET item = item || '{"n": {"N": "+0010.0"}}' WHERE key OPERATOR(item_table.=) 'S"a"|N"2"'$$,
	'an UPDATE with a valid item is accepted');
SELECT is((SELECT item->'n' FROM item_data.guarded WHERE key OPERATOR(item_table.=) 'S"a"|N"2"'), '{"N": "10"}'::jsonb,
	'an updated item is stored in stored form');
SELECT throws_ok($$UPDATE item_data.guarded SET item = item || '{"bad": true}' WHERE key OPERATOR(item_table.=) 'S"a"|N"2"'$$,
	'23514', 'item of table "guarded" is not a DynamoDB item: attribute "bad" is invalid',
	'an UPDATE making the item invalid is refused');
SELECT throws_ok($$UPDATE item_data.guarded SET key = 'S"a"|N"9"' WHERE key OPERATOR(item_table.=) 'S"a"|N"2"'$$,
	'23514', 'key of the row does not match the item''s key attributes in table "guarded"',
	'an UPDATE of the key alone is refused');

-- valid SQL writes still maintain the GSI, and the API reads them
SELECT is(query('{"TableName": "guarded", "IndexName": "byg", "KeyConditionExpression": "g = :g",
	"ExpressionAttributeValues": {":g": {"S": "x"}}, "Select": "COUNT"}'), '{"Count": 2, "ScannedCount": 2}'::jsonb,
	'rows written with SQL are in the GSI');
SELECT is(scan('{"TableName": "guarded", "Select": "COUNT"}'), '{"Count": 2, "ScannedCount": 2}'::jsonb,
	'Scan reads the rows written with SQL');
SELECT is(get_item('{"TableName": "guarded", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}}')->'Item'->'n',
	'{"N": "1.5"}'::jsonb, 'GetItem reads a row written with SQL');

-- a user's BEFORE trigger that runs before the guard cannot slip an item past it
CREATE FUNCTION pg_temp.spoil() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.item := NEW.item || '{"spoiled": 1}';
	RETURN NEW;
END $$;
CREATE TRIGGER aa_spoil BEFORE INSERT ON item_data.guarded FOR EACH ROW EXECUTE FUNCTION pg_temp.spoil();
SELECT throws_ok($$SELECT item_table.put_item('{"TableName": "guarded", "Item": {"pk": {"S": "t"}, "sk": {"N": "1"}}}')$$,
	'23514', 'item of table "guarded" is not a DynamoDB item: attribute "spoiled" is invalid',
	'a PutItem row changed by a user trigger is validated');
DROP TRIGGER aa_spoil ON item_data.guarded;

-- API writes are unaffected
SELECT is(put_item('{"TableName": "guarded", "Item": {"pk": {"S": "p"}, "sk": {"N": "1"}, "n": {"N": "2.50"}, "g": {"S": "y"}}}'),
	'{}'::jsonb, 'PutItem works');
SELECT is(put_item('{"TableName": "guarded", "Item": {"pk": {"S": "p"}, "sk": {"N": "1"}, "n": {"N": "3"}, "g": {"S": "y"}},
	"ConditionExpression": "attribute_exists(pk)"}'), '{}'::jsonb, 'conditional PutItem works');
SELECT is(update_item('{"TableName": "guarded", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "UpdateExpression": "ADD n :one",
	"ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"}'), '{"Attributes": {"n": {"N": "4"}}}'::jsonb,
	'UpdateItem works');
SELECT is(batch_write_item('{"RequestItems": {"guarded": [{"PutRequest": {"Item": {"pk": {"S": "q"}, "sk": {"N": "1"}}}}]}}'),
	'{"UnprocessedItems": {}}'::jsonb, 'BatchWriteItem works');
SELECT is(transact_write_items('{"TransactItems": [{"Put": {"TableName": "guarded", "Item": {"pk": {"S": "r"}, "sk": {"N": "1"}}}},
	{"Update": {"TableName": "guarded", "Key": {"pk": {"S": "q"}, "sk": {"N": "1"}}, "UpdateExpression": "SET g = :g",
		"ExpressionAttributeValues": {":g": {"S": "y"}}}}]}'), '{}'::jsonb, 'TransactWriteItems works');
SELECT is(query('{"TableName": "guarded", "IndexName": "byg", "KeyConditionExpression": "g = :g",
	"ExpressionAttributeValues": {":g": {"S": "y"}}, "Select": "COUNT"}'), '{"Count": 2, "ScannedCount": 2}'::jsonb,
	'API writes are in the GSI');

-- the guard's catalog lookup ignores a hostile search_path: with an oid =
-- that is always true, an unqualified lookup would find the first table
RESET ROLE;
CREATE SCHEMA sec_guard_evil;
CREATE FUNCTION sec_guard_evil.always(oid, oid) RETURNS boolean LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR sec_guard_evil.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = sec_guard_evil.always);
GRANT USAGE ON SCHEMA sec_guard_evil TO sec_guard_owner;
SET LOCAL ROLE sec_guard_owner;
SELECT ok(create_table('{"TableName": "guarded2", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}') ? 'TableDescription', 'a second table');
SET LOCAL search_path = sec_guard_evil, pg_catalog, item_table, public;
SELECT lives_ok($$INSERT INTO item_data.guarded2 (item) VALUES ('{"id": {"N": "7"}}')$$,
	'the guard reads its own table''s key schema under a hostile search_path');
SET LOCAL search_path = item_table, public;
RESET ROLE;

-- COPY is validated too (FROM PROGRAM: the superuser's)
SELECT throws_ok($c$COPY item_data.guarded (key, item) FROM PROGRAM $p$printf '%s\t%s\n' 'S"c"|N"1"' '{"pk": {"S": "c"}, "sk": {"N": "1"}, "a": 1}'$p$$c$,
	'23514', 'item of table "guarded" is not a DynamoDB item: attribute "a" is invalid', 'COPY of an invalid item is refused');
SELECT lives_ok($c$COPY item_data.guarded (key, item) FROM PROGRAM $p$printf '%s\t%s\n' 'S"c"|N"1"' '{"pk": {"S": "c"}, "sk": {"N": "1"}, "n": {"N": "0.50"}}'$p$$c$,
	'COPY of a valid item is accepted');
SELECT is((SELECT item->'n' FROM item_data.guarded WHERE key OPERATOR(item_table.=) 'S"c"|N"1"'), '{"N": "0.5"}'::jsonb,
	'COPY stores the item in stored form');

SELECT * FROM finish();
ROLLBACK;
