-- The DDL guard: a table's owner cannot change what the C code relies on
-- (key/item columns, primary key, guard trigger, inheritance) on base or
-- index tables (42P16); harmless DDL still works.  Then, as a superuser past
-- every trigger (session_replication_role = replica), a NULL item and a
-- non-item are forced into a table with a GSI: every reader raises XX001
-- and the server keeps running.
BEGIN;
SELECT plan(50);
SET search_path = item_table, public;

CREATE ROLE sec_ddl_owner;
GRANT CREATE ON SCHEMA item_data TO sec_ddl_owner;
CREATE SCHEMA sec_ddl_elsewhere AUTHORIZATION sec_ddl_owner;
SET LOCAL ROLE sec_ddl_owner;
SELECT ok(create_table('{"TableName": "shaped", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "byg", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}]}') ? 'TableDescription', 'the owner creates a table with a GSI');
SELECT is(put_item('{"TableName": "shaped", "Item": {"pk": {"S": "a"}, "g": {"S": "x"}}}'), '{}'::jsonb, 'an item');

-- defect 3: the base table's columns, key and guard trigger
SELECT throws_ok($$ALTER TABLE item_data.shaped ALTER COLUMN item DROP NOT NULL$$,
	'42P16', 'item table "shaped" must have column "item" of type jsonb NOT NULL', 'item cannot be made nullable');
SELECT throws_ok($$ALTER TABLE item_data.shaped ALTER COLUMN item TYPE text$$,
	'42P16', 'item table "shaped" must have column "item" of type jsonb NOT NULL', 'item cannot be retyped');
SELECT throws_ok($$ALTER TABLE item_data.shaped DROP COLUMN item$$,
	'42P16', 'item table "shaped" must have column "item" of type jsonb NOT NULL', 'item cannot be dropped');
SELECT throws_ok($$ALTER TABLE item_data.shaped RENAME COLUMN item TO payload$$,
	'42P16', 'item table "shaped" must have column "item" of type jsonb NOT NULL', 'item cannot be renamed');
SELECT throws_ok($$ALTER TABLE item_data.shaped DROP CONSTRAINT shaped_pkey$$,
	'42P16', 'item table "shaped" must keep its primary key on (key)', 'the primary key cannot be dropped');
SELECT throws_ok($$ALTER TABLE item_data.shaped ALTER COLUMN key TYPE text USING key::text$$,
	'42P16', 'item table "shaped" must have column "key" of type item_table.item_key NOT NULL', 'key cannot be retyped');
SELECT throws_ok($$ALTER TABLE item_data.shaped DROP COLUMN key$$,
	'42P16', 'item table "shaped" must have column "key" of type item_table.item_key NOT NULL', 'key cannot be dropped');
SELECT throws_ok($$ALTER TABLE item_data.shaped ADD COLUMN required int NOT NULL GENERATED ALWAYS AS IDENTITY,
		DROP CONSTRAINT shaped_pkey, ADD PRIMARY KEY (required)$$,
	'42P16', 'item table "shaped" must keep its primary key on (key)', 'the primary key cannot move to another column');
SELECT throws_ok($$ALTER TABLE item_data.shaped SET SCHEMA sec_ddl_elsewhere$$,
	'42P16', 'item table "shaped" must stay in schema item_data', 'the table cannot leave schema item_data');
SELECT throws_ok($$ALTER TABLE item_data.shaped DISABLE TRIGGER zz_item_guard$$,
	'42P16', 'item table "shaped" must keep trigger "zz_item_guard" enabled', 'the guard trigger cannot be disabled');
SELECT throws_ok($$ALTER TABLE item_data.shaped DISABLE TRIGGER USER$$,
	'42P16', 'item table "shaped" must keep trigger "zz_item_guard" enabled', 'DISABLE TRIGGER USER is refused');
SELECT throws_ok($$DROP TRIGGER zz_item_guard ON item_data.shaped$$,
	'42P16', 'item table "shaped" must keep its trigger "zz_item_guard"', 'the guard trigger cannot be dropped');
CREATE FUNCTION pg_temp.noop() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END $$;
SELECT throws_ok($$CREATE TRIGGER zzz_late BEFORE UPDATE ON item_data.shaped FOR EACH ROW EXECUTE FUNCTION pg_temp.noop()$$,
	'42P16', 'item table "shaped" must run trigger "zz_item_guard" after its other BEFORE row triggers',
	'a BEFORE row trigger that would run after the guard is refused');
SELECT lives_ok($$CREATE TRIGGER aa_early BEFORE UPDATE ON item_data.shaped FOR EACH ROW EXECUTE FUNCTION pg_temp.noop()$$,
	'a BEFORE row trigger that runs before the guard is allowed');
SELECT throws_ok($$ALTER TRIGGER aa_early ON item_data.shaped RENAME TO zzz_renamed$$,
	'42P16', 'item table "shaped" must run trigger "zz_item_guard" after its other BEFORE row triggers',
	'renaming a trigger past the guard is refused');
SELECT throws_ok($$CREATE TABLE sec_ddl_elsewhere.child () INHERITS (item_data.shaped)$$,
	'42P16', 'item table "shaped" must not have inheritance children', 'an inheritance child is refused');

-- the index table
SELECT throws_ok($$ALTER TABLE item_data."shaped#byg" ALTER COLUMN item DROP NOT NULL$$,
	'42P16', 'index table "shaped#byg" must have column "item" of type jsonb NOT NULL', 'an index item cannot be made nullable');
SELECT throws_ok($$ALTER TABLE item_data."shaped#byg" ALTER COLUMN ikey TYPE text USING ikey::text$$,
	'42P16', 'index table "shaped#byg" must have column "ikey" of type item_table.item_key NOT NULL', 'ikey cannot be retyped');
SELECT throws_ok($$ALTER TABLE item_data."shaped#byg" DROP COLUMN item$$,
	'42P16', 'index table "shaped#byg" must have column "item" of type jsonb NOT NULL', 'an index item cannot be dropped');
SELECT throws_ok($$ALTER TABLE item_data."shaped#byg" DROP CONSTRAINT "shaped#byg_pkey"$$,
	'42P16', 'index table "shaped#byg" must keep its primary key on (ikey, key)', 'the index primary key cannot be dropped');

-- harmless DDL goes through, and the API keeps working
SELECT lives_ok($$ALTER TABLE item_data.shaped ADD COLUMN note text$$, 'a nullable column can be added');
SELECT lives_ok($$ALTER TABLE item_data.shaped ADD COLUMN g_text text
		GENERATED ALWAYS AS (item->'g'->>'S') STORED$$, 'a generated column can be added');
SELECT lives_ok($$ALTER TABLE item_data.shaped ADD COLUMN version int NOT NULL DEFAULT 1$$,
	'a NOT NULL column with a default can be added');
SELECT ok(create_table('{"TableName": "unshaped", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') ? 'TableDescription', 'an empty table');
SELECT throws_ok($$ALTER TABLE item_data.unshaped ADD COLUMN required int NOT NULL$$,
	'42P16', 'item table "unshaped" must have column "required" nullable or with a default',
	'a NOT NULL column without a default is refused');
SELECT is(put_item('{"TableName": "shaped", "Item": {"pk": {"S": "b"}, "g": {"S": "x"}}}'), '{}'::jsonb,
	'PutItem works after the new columns');
SELECT is((SELECT g_text FROM item_data.shaped WHERE key OPERATOR(item_table.=) 'S"b"'), 'x', 'the generated column is filled');
SELECT is(query('{"TableName": "shaped", "IndexName": "byg", "KeyConditionExpression": "g = :g",
	"ExpressionAttributeValues": {":g": {"S": "x"}}, "Select": "COUNT"}'), '{"Count": 2, "ScannedCount": 2}'::jsonb,
	'Query on the GSI works after the new columns');
RESET ROLE;
CREATE TABLE sec_ddl_plain (a int);
SELECT lives_ok($$ALTER TABLE sec_ddl_plain ADD COLUMN b int NOT NULL, DROP COLUMN a$$, 'DDL on other tables is not affected');

-- a hostile search_path does not blind the guard
CREATE SCHEMA sec_ddl_evil;
CREATE FUNCTION sec_ddl_evil.never(oid, oid) RETURNS boolean LANGUAGE sql AS 'SELECT false';
CREATE OPERATOR sec_ddl_evil.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = sec_ddl_evil.never);
SET LOCAL search_path = sec_ddl_evil, pg_catalog, item_table, public;
SELECT throws_ok($$ALTER TABLE item_data.shaped ALTER COLUMN item DROP NOT NULL$$,
	'42P16', NULL, 'the guard ignores a hostile search_path');
SET LOCAL search_path = item_table, public;

-- defence in depth: a superuser writes past every trigger
SET LOCAL session_replication_role = replica;
ALTER TABLE item_data.shaped ALTER COLUMN item DROP NOT NULL;
INSERT INTO item_data.shaped (key, item) VALUES ('S"n"', NULL), ('S"j"', '{"pk": {"S": "j"}, "g": {"S": "x"}, "a": 1}');
SET LOCAL session_replication_role = origin;
SELECT throws_ok($$SELECT item_table.get_item('{"TableName": "shaped", "Key": {"pk": {"S": "n"}}}')$$,
	'XX001', 'item table "shaped" holds a NULL item', 'GetItem of a NULL item: XX001');
SELECT throws_ok($$SELECT item_table.get_item('{"TableName": "shaped", "Key": {"pk": {"S": "j"}}}')$$,
	'XX001', 'item table "shaped" holds an item that is not a DynamoDB item: attribute "a" is invalid',
	'GetItem of a non-item: XX001');
SELECT throws_ok($$SELECT item_table.batch_get_item('{"RequestItems": {"shaped": {"Keys": [{"pk": {"S": "n"}}]}}}')$$,
	'XX001', 'item table "shaped" holds a NULL item', 'BatchGetItem of a NULL item: XX001');
SELECT throws_ok($$SELECT item_table.transact_get_items('{"TransactItems": [{"Get": {"TableName": "shaped", "Key": {"pk": {"S": "j"}}}}]}')$$,
	'XX001', NULL, 'TransactGetItems of a non-item: XX001');
SELECT throws_ok($$SELECT item_table.query('{"TableName": "shaped", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "n"}}}')$$,
	'XX001', 'item table "shaped" holds a NULL item', 'Query over a NULL item: XX001');
SELECT throws_ok($$SELECT item_table.query('{"TableName": "shaped", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "j"}}}')$$,
	'XX001', 'item table "shaped" holds an item that is not a DynamoDB item: attribute "a" is invalid',
	'Query over a non-item: XX001');
SELECT throws_ok($$SELECT item_table.scan('{"TableName": "shaped"}')$$,
	'XX001', NULL, 'Scan: XX001');
SELECT throws_ok($$SELECT item_table.scan('{"TableName": "shaped", "FilterExpression": "attribute_exists(g)"}')$$,
	'XX001', NULL, 'Scan with a filter: XX001');
SELECT throws_ok($$SELECT item_table.update_item('{"TableName": "shaped", "Key": {"pk": {"S": "n"}}, "UpdateExpression": "SET b = :b",
		"ExpressionAttributeValues": {":b": {"S": "x"}}}')$$,
	'XX001', 'item table "shaped" holds a NULL item', 'UpdateItem of a NULL item: XX001');
SELECT throws_ok($$SELECT item_table.delete_item('{"TableName": "shaped", "Key": {"pk": {"S": "j"}}}')$$,
	'XX001', NULL, 'DeleteItem of a non-item: XX001');
SELECT throws_ok($$SELECT * FROM item_data.shaped b, LATERAL item_table.index_entries('shaped', 'byg', b.key, b.item) e$$,
	'XX001', 'item table "shaped" holds an item that is not a DynamoDB item: attribute "a" is invalid',
	'index_entries of a non-item: XX001');
SELECT throws_ok($$SELECT * FROM item_table.verify('shaped')$$, 'XX001', NULL, 'verify: XX001');
SELECT ok(update_table('{"TableName": "shaped", "AttributeDefinitions": [{"AttributeName": "h", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "byh", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}}]}') ? 'TableDescription', 'a new GSI to backfill');
SELECT throws_ok($$CALL item_table.backfill_indexes('shaped')$$, 'XX001', NULL, 'backfill: XX001');

-- the index trigger, with the guard disabled past the DDL guard
SET LOCAL session_replication_role = replica;
ALTER TABLE item_data.shaped DISABLE TRIGGER zz_item_guard;
SET LOCAL session_replication_role = origin;
SELECT throws_ok($$UPDATE item_data.shaped SET item = NULL WHERE key OPERATOR(item_table.=) 'S"a"'$$,
	'XX001', 'item table "shaped" holds a NULL item', 'the index trigger refuses a NULL item: XX001');
SELECT throws_ok($$INSERT INTO item_data.shaped (key, item) VALUES ('S"k"', '[1, 2]')$$,
	'XX001', 'item table "shaped" holds an item that is not a DynamoDB item: not a JSON object',
	'the index trigger refuses a non-item: XX001');
SELECT throws_ok($$DELETE FROM item_data.shaped WHERE key OPERATOR(item_table.=) 'S"n"'$$,
	'XX001', 'item table "shaped" holds a NULL item', 'the index trigger refuses to delete a NULL item blindly: XX001');

SELECT is((SELECT 1), 1, 'the server did not crash: the session is alive');

SELECT * FROM finish();
ROLLBACK;
