-- Defect: statements run with the extension owner's (or a table owner's)
-- rights resolved operators and functions through the caller's
-- search_path, so a role with no grants could plant `=(text,text)` and have
-- it run as a superuser.  Here a hostile role plants traps for every
-- operator and function such statements could use, puts them first on its
-- search_path, and drives every API call; a trap that ever runs as anyone
-- but the hostile role is recorded.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

-- roles left by an interrupted run (their objects went with its database)
DROP ROLE IF EXISTS sec_sp_victim;
DROP ROLE IF EXISTS sec_sp_attacker;
CREATE ROLE sec_sp_victim;
CREATE ROLE sec_sp_attacker;
GRANT CREATE ON SCHEMA item_data TO sec_sp_attacker;
CREATE SCHEMA evil AUTHORIZATION sec_sp_attacker;
CREATE TABLE public.trap_log (who name, what text);
GRANT INSERT, SELECT ON public.trap_log TO PUBLIC;

-- the victim's table, with a GSI, writable by the attacker
GRANT CREATE ON SCHEMA item_data TO sec_sp_victim;
SET ROLE sec_sp_victim;
\o /dev/null
SELECT item_table.create_table('{"TableName": "victim_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
		{"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}]}');
\o
GRANT SELECT, INSERT, UPDATE, DELETE ON item_data.victim_t TO sec_sp_attacker;
RESET ROLE;

-- the traps (as the attacker, who stays the current role)
\ir include/plant_traps.sql

SET search_path = public, item_table;
BEGIN;
SELECT plan(8);

SELECT ok((SELECT count(*) FROM pg_catalog.pg_operator WHERE oprnamespace = 'evil'::regnamespace) >= 60,
	'at least 60 hostile operators are planted ahead of pg_catalog');
SELECT ok(NOT has_schema_privilege('public', 'item_data', 'CREATE'), 'PUBLIC may not create objects in item_data');
SELECT is((SELECT array_agg(p.oid::regprocedure::text) FROM pg_catalog.pg_proc p
		   JOIN pg_catalog.pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
		   JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'item_table'
		   WHERE p.prosecdef AND NOT coalesce(p.proconfig::text[] @> ARRAY['search_path=pg_catalog, pg_temp'], false)),
	NULL, 'no function of the extension is SECURITY DEFINER without a pinned search_path');

-- every call, under the hostile search_path; errors (the victim's table is
-- not the attacker's to change) are expected for some.  (The path is set
-- only inside this block: pgTAP's own PL/pgSQL must not run under it.)
CREATE TEMP TABLE calls (action text, request jsonb);
INSERT INTO calls VALUES
	-- the attacker's own table: catalog writes run as the extension owner
	('CreateTable', '{"TableName": "own_t", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
		"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
			"Projection": {"ProjectionType": "KEYS_ONLY"}}]}'),
	('PutItem', '{"TableName": "own_t", "Item": {"pk": {"S": "a"}, "g": {"S": "x"}}}'),
	('PutItem', '{"TableName": "victim_t", "Item": {"pk": {"S": "a"}, "sk": {"S": "1"}, "g": {"S": "x"}}}'),
	('UpdateItem', '{"TableName": "victim_t", "Key": {"pk": {"S": "a"}, "sk": {"S": "1"}}, "UpdateExpression": "SET g = :g", "ExpressionAttributeValues": {":g": {"S": "y"}}}'),
	('GetItem', '{"TableName": "victim_t", "Key": {"pk": {"S": "a"}, "sk": {"S": "1"}}}'),
	('Query', '{"TableName": "victim_t", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}'),
	('Query', '{"TableName": "own_t", "IndexName": "by_g", "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "x"}}}'),
	('Scan', '{"TableName": "victim_t"}'),
	('BatchWriteItem', '{"RequestItems": {"victim_t": [{"PutRequest": {"Item": {"pk": {"S": "b"}, "sk": {"S": "1"}, "g": {"S": "z"}}}}]}}'),
	('BatchGetItem', '{"RequestItems": {"victim_t": {"Keys": [{"pk": {"S": "b"}, "sk": {"S": "1"}}]}}}'),
	('TransactWriteItems', '{"ClientRequestToken": "tok-1", "TransactItems": [{"Put": {"TableName": "victim_t", "Item": {"pk": {"S": "c"}, "sk": {"S": "1"}, "g": {"S": "w"}}}}]}'),
	('TransactWriteItems', '{"ClientRequestToken": "tok-1", "TransactItems": [{"Put": {"TableName": "victim_t", "Item": {"pk": {"S": "c"}, "sk": {"S": "1"}, "g": {"S": "w"}}}}]}'),
	('TransactWriteItems', '{"ClientRequestToken": "tok-1", "TransactItems": [{"Put": {"TableName": "victim_t", "Item": {"pk": {"S": "d"}, "sk": {"S": "1"}}}}]}'),
	('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "victim_t", "Key": {"pk": {"S": "c"}, "sk": {"S": "1"}}}}]}'),
	('DeleteItem', '{"TableName": "victim_t", "Key": {"pk": {"S": "b"}, "sk": {"S": "1"}}}'),
	('DescribeTable', '{"TableName": "victim_t"}'),
	('ListTables', '{}'),
	('UpdateTable', '{"TableName": "victim_t", "BillingMode": "PROVISIONED", "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}'),
	('UpdateTable', '{"TableName": "own_t", "AttributeDefinitions": [{"AttributeName": "h", "AttributeType": "S"}],
		"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}}]}'),
	('UpdateTable', '{"TableName": "own_t", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "by_h"}}]}'),
	('DeleteTable', '{"TableName": "victim_t"}'),
	('DeleteTable', '{"TableName": "own_t"}');

CREATE TEMP TABLE outcomes (action text, outcome text);
DO $do$
DECLARE
	c record;
BEGIN
	SET LOCAL search_path = evil, pg_catalog, item_table, public;
	FOR c IN SELECT * FROM calls LOOP
		BEGIN
			PERFORM item_table.dynamodb(c.action, c.request);
			INSERT INTO outcomes VALUES (c.action, 'ok');
		EXCEPTION WHEN OTHERS THEN
			INSERT INTO outcomes VALUES (c.action, SQLSTATE);
		END;
	END LOOP;
	SET LOCAL search_path = public, item_table;	-- (set_config itself is trapped)
END
$do$;
SELECT is((SELECT count(*) FROM outcomes WHERE outcome = 'ok'), 19::bigint,
	'every call the attacker may make succeeded under the hostile search_path (CreateTable with a GSI included)');
SELECT is((SELECT array_agg(action || ' ' || outcome ORDER BY action) FROM outcomes WHERE outcome <> 'ok'),
	ARRAY['DeleteTable 42501', 'TransactWriteItems XD010', 'UpdateTable 42501'],
	'only changes to the victim''s table and a reused token were refused');

-- plain SQL writes to the victim's table fire its index trigger, which runs as the victim
SET LOCAL search_path = evil, pg_catalog, item_table, public;
INSERT INTO item_data.victim_t VALUES ('S"e"|S"1"', '{"pk": {"S": "e"}, "sk": {"S": "1"}, "g": {"S": "v"}}');
UPDATE item_data.victim_t SET item = '{"pk": {"S": "e"}, "sk": {"S": "1"}, "g": {"S": "u"}}' WHERE key OPERATOR(item_table.=) 'S"e"|S"1"';
SET LOCAL search_path = public, item_table;
RESET ROLE;
SELECT is((SELECT count(*) FROM verify('victim_t')), 0::bigint, 'index consistent after the attacker''s writes');

SELECT is((SELECT array_agg(DISTINCT who::text || ': ' || what) FROM public.trap_log), NULL,
	'no planted operator or function ever ran with anyone''s rights but the attacker''s');
SELECT ok(NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = 'sec_sp_attacker'), 'the attacker is not a superuser');

SELECT * FROM finish();
ROLLBACK;

RESET search_path;
RESET ROLE;
DROP OWNED BY sec_sp_attacker, sec_sp_victim CASCADE;
DROP TABLE public.trap_log;
DROP ROLE sec_sp_attacker;
DROP ROLE sec_sp_victim;
