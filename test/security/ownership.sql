-- Defect: UpdateTable checked no ownership, so a role without grants could
-- change another role's table and add an index (projection ALL) that it
-- then owned: the owner's writes copied private attributes into it and ran
-- the attacker's triggers with the owner's rights.  Control-plane calls now
-- need ownership, and index tables always belong to the base table's owner.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP ROLE IF EXISTS sec_own_owner;
DROP ROLE IF EXISTS sec_own_member;
DROP ROLE IF EXISTS sec_own_attacker;
CREATE ROLE sec_own_owner;
CREATE ROLE sec_own_member IN ROLE sec_own_owner;
CREATE ROLE sec_own_attacker;
GRANT CREATE ON SCHEMA item_data TO sec_own_owner, sec_own_attacker;

BEGIN;
SELECT plan(14);
SET search_path = public, item_table;

SET ROLE sec_own_owner;
SELECT lives_ok($$SELECT create_table('{"TableName": "private_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}')$$, 'the owner creates a table');
SELECT lives_ok($$SELECT put_item('{"TableName": "private_t", "Item": {"pk": {"S": "u1"}, "secret": {"S": "s3cr3t"}, "g": {"S": "x"}}}')$$,
	'the owner stores a private item');
RESET ROLE;

SET ROLE sec_own_attacker;
SELECT throws_ok($$SELECT update_table('{"TableName": "private_t", "BillingMode": "PROVISIONED",
	"ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}')$$,
	'42501', NULL, 'a non-owner cannot change the billing mode');
SELECT throws_ok($$SELECT update_table('{"TableName": "private_t", "AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "aaa", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}}]}')$$,
	'42501', NULL, 'a non-owner cannot add an index');
SELECT throws_ok($$CALL backfill_indexes('private_t')$$, '42501', NULL, 'a non-owner cannot run a backfill');
SELECT throws_ok($$SELECT delete_table('{"TableName": "private_t"}')$$, '42501', NULL, 'a non-owner cannot delete the table');
RESET ROLE;
SELECT is((SELECT billing_mode FROM item_table.tables WHERE table_name = 'private_t'), 'PAY_PER_REQUEST', 'billing mode unchanged');
SELECT is((SELECT count(*) FROM item_table.indexes WHERE table_name = 'private_t'), 0::bigint, 'no index was added');

-- an index added by a member of the owner role, or by a superuser, belongs to the owner
SET ROLE sec_own_member;
SELECT lives_ok($$SELECT update_table('{"TableName": "private_t", "AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}}]}')$$, 'a member of the owner role adds an index');
RESET ROLE;
SELECT lives_ok($$SELECT update_table('{"TableName": "private_t", "AttributeDefinitions": [{"AttributeName": "h", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}}]}')$$, 'a superuser adds an index');
SELECT is((SELECT array_agg(DISTINCT pg_get_userbyid(c.relowner)::text) FROM item_table.indexes i JOIN pg_class c ON c.oid = i.relid
		   WHERE i.table_name = 'private_t'),
	ARRAY['sec_own_owner'], 'every index table belongs to the base table''s owner');
SELECT is((SELECT count(*) FROM pg_depend d JOIN item_table.indexes i ON d.objid = i.relid
		   WHERE i.table_name = 'private_t' AND d.refobjid = 'item_data.private_t'::regclass AND d.deptype = 'a'),
	2::bigint, 'index tables depend on their base table');

-- the owner's writes go on, index maintenance as the owner
SET ROLE sec_own_owner;
SELECT lives_ok($$SELECT put_item('{"TableName": "private_t", "Item": {"pk": {"S": "u2"}, "g": {"S": "y"}, "h": {"S": "z"}}}')$$,
	'the owner writes to a table with indexes');
SELECT is((SELECT count(*) FROM item_data."private_t#by_g") + (SELECT count(*) FROM item_data."private_t#by_h"), 2::bigint,
	'the new item is in both indexes (being created: the older item waits for the backfill)');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
DROP ROLE sec_own_member;
REVOKE CREATE ON SCHEMA item_data FROM sec_own_owner, sec_own_attacker;
DROP ROLE sec_own_owner;
DROP ROLE sec_own_attacker;
