-- Secondary-index rows written directly (gsi.c: a heap write and the
-- primary key entry, the upsert by speculative insertion) instead of by
-- INSERT ... ON CONFLICT DO UPDATE and DELETE statements, and the direct
-- write paths of the base table (api_common.c) keeping the indexes
-- themselves (ApiDirectTriggers, ApiDirectUpkeep) instead of falling back
-- to the statement because the index trigger exists.
--
-- First the same writes on two tables of the same shape: "idd" writes its
-- index rows directly, "ids" has a do-nothing trigger on its index tables,
-- which makes every index write a statement; the index rows must be the
-- same and verify() clean.  Then each case where the index statement could
-- behave differently -- a user trigger, a rule, another index, a CHECK
-- constraint, missing privileges, replica identity on the index table --
-- shows that it does (so the statement ran), and the cases where the index
-- trigger would not fire (disabled, replica role) show that the direct
-- base write does not keep the index either.
BEGIN;
SELECT plan(43);
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.mk(t text) RETURNS boolean LANGUAGE sql AS $$
	SELECT create_table(jsonb_build_object('TableName', t, 'BillingMode', 'PAY_PER_REQUEST',
		'AttributeDefinitions', '[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"},
			{"AttributeName": "h", "AttributeType": "S"}, {"AttributeName": "r", "AttributeType": "S"}]'::jsonb,
		'KeySchema', '[{"AttributeName": "pk", "KeyType": "HASH"}]'::jsonb,
		'GlobalSecondaryIndexes', '[{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}},
			{"IndexName": "by_h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}, {"AttributeName": "r", "KeyType": "RANGE"}],
			 "Projection": {"ProjectionType": "KEYS_ONLY"}}]'::jsonb)) ? 'TableDescription'
$$;
CREATE FUNCTION pg_temp.put(t text, k text, attrs jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT put_item(jsonb_build_object('TableName', t, 'Item', jsonb_build_object('pk', jsonb_build_object('S', k)) || attrs))
$$;
CREATE FUNCTION pg_temp.upd(t text, k text, expr text, vals jsonb DEFAULT NULL) RETURNS jsonb LANGUAGE sql AS $$
	SELECT update_item(jsonb_build_object('TableName', t, 'Key', jsonb_build_object('pk', jsonb_build_object('S', k)),
		'UpdateExpression', expr) || CASE WHEN vals IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('ExpressionAttributeValues', vals) END)
$$;
CREATE FUNCTION pg_temp.del(t text, k text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT delete_item(jsonb_build_object('TableName', t, 'Key', jsonb_build_object('pk', jsonb_build_object('S', k))))
$$;
-- the SQLSTATE of a statement, NULL when it succeeds
CREATE FUNCTION pg_temp.st(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt;
	RETURN NULL;
EXCEPTION WHEN others THEN
	RETURN SQLSTATE;
END $$;
-- every index row of table t, as text
CREATE FUNCTION pg_temp.index_rows(t text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format('SELECT %L || ikey::text || %L || key::text || %L || item::text FROM item_data.%I
		UNION ALL SELECT %L || ikey::text || %L || key::text || %L || item::text FROM item_data.%I ORDER BY 1',
		'g ', ' ', ' ', t || '#by_g', 'h ', ' ', ' ', t || '#by_h');
END $$;
CREATE FUNCTION pg_temp.problems(t text) RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM item_table.verify(t)
$$;
-- one mixed workload: new items, replacements, index key changes, sparse
-- items, projection-only changes, deletes and re-puts in one transaction,
-- transactions, batches and plain SQL
CREATE FUNCTION pg_temp.workload(t text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE i int;
BEGIN
	FOR i IN 1 .. 24 LOOP
		PERFORM pg_temp.put(t, 'k' || i, jsonb_build_object('g', jsonb_build_object('S', 'G' || (i % 3)),
			'h', jsonb_build_object('S', 'H' || (i % 5)), 'r', jsonb_build_object('S', 'R' || i), 'n', jsonb_build_object('N', i::text)));
	END LOOP;
	PERFORM pg_temp.put(t, 'k1', '{"g": {"S": "G9"}, "h": {"S": "H0"}, "r": {"S": "R1"}, "n": {"N": "100"}}');
	PERFORM pg_temp.upd(t, 'k2', 'SET g = :g', '{":g": {"S": "G7"}}');
	PERFORM pg_temp.upd(t, 'k3', 'REMOVE g, r');
	PERFORM pg_temp.upd(t, 'k4', 'SET n = n + :one', '{":one": {"N": "1"}}');
	PERFORM pg_temp.upd(t, 'k5', 'SET g = :g', '{":g": {"S": "G2"}}');
	PERFORM pg_temp.del(t, 'k6');
	PERFORM pg_temp.del(t, 'k7');
	PERFORM pg_temp.put(t, 'k7', '{"g": {"S": "G1"}, "n": {"N": "7"}}');
	PERFORM pg_temp.upd(t, 'k8', 'SET h = :h', '{":h": {"S": "H8"}}');
	PERFORM pg_temp.upd(t, 'k8', 'SET h = :h, r = :r', '{":h": {"S": "H9"}, ":r": {"S": "R0"}}');
	PERFORM pg_temp.upd(t, 'k14', 'SET g = :g', '{":g": {"S": "G3"}}');
	PERFORM pg_temp.upd(t, 'k14', 'SET g = :g', '{":g": {"S": "G1"}}');
	PERFORM pg_temp.upd(t, 'k15', 'SET g = :g', '{":g": {"S": "G1"}}');
	PERFORM transact_write_items(jsonb_build_object('TransactItems', jsonb_build_array(
		jsonb_build_object('Update', jsonb_build_object('TableName', t, 'Key', '{"pk": {"S": "k9"}}'::jsonb,
			'UpdateExpression', 'SET g = :g', 'ExpressionAttributeValues', '{":g": {"S": "G5"}}'::jsonb)),
		jsonb_build_object('Put', jsonb_build_object('TableName', t, 'Item', '{"pk": {"S": "k30"}, "g": {"S": "G0"}}'::jsonb)),
		jsonb_build_object('Delete', jsonb_build_object('TableName', t, 'Key', '{"pk": {"S": "k16"}}'::jsonb)))));
	PERFORM batch_write_item(jsonb_build_object('RequestItems', jsonb_build_object(t, jsonb_build_array(
		'{"PutRequest": {"Item": {"pk": {"S": "k10"}, "g": {"S": "G8"}, "h": {"S": "H1"}, "r": {"S": "R9"}}}}'::jsonb,
		'{"DeleteRequest": {"Key": {"pk": {"S": "k11"}}}}'::jsonb,
		'{"PutRequest": {"Item": {"pk": {"S": "k31"}, "h": {"S": "H1"}, "r": {"S": "R31"}}}}'::jsonb))));
	EXECUTE format('UPDATE item_data.%I SET item = item || %L WHERE key OPERATOR(item_table.=) %L::item_table.item_key',
		t, '{"z": {"S": "1"}}', 'S"k12"');
	EXECUTE format('DELETE FROM item_data.%I WHERE key OPERATOR(item_table.=) %L::item_table.item_key', t, 'S"k13"');
	EXECUTE format('INSERT INTO item_data.%I (key, item) VALUES (%L, %L)', t, 'S"k32"',
		'{"pk": {"S": "k32"}, "g": {"S": "G1"}, "n": {"N": "1.50"}}');
END $$;

CREATE FUNCTION pg_temp.noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
SELECT ok(pg_temp.mk('idd') AND pg_temp.mk('ids'), 'two tables with a GSI (ALL) and a GSI (KEYS_ONLY)');
CREATE TRIGGER noop AFTER INSERT OR UPDATE OR DELETE ON item_data."ids#by_g" FOR EACH ROW EXECUTE FUNCTION pg_temp.noop();
CREATE TRIGGER noop AFTER INSERT OR UPDATE OR DELETE ON item_data."ids#by_h" FOR EACH ROW EXECUTE FUNCTION pg_temp.noop();

-- 1. the same writes, directly and by statement
CREATE FUNCTION pg_temp.unlocked() RETURNS bigint LANGUAGE c
	AS '$libdir/item_table', 'item_table_test_unlocked_deletes';
CREATE TEMP TABLE umark AS SELECT pg_temp.unlocked() AS n;
SELECT lives_ok($$SELECT pg_temp.workload('idd')$$, 'the workload, index rows written directly');
SELECT is(pg_temp.unlocked() - (SELECT n FROM umark), 2::bigint,
	'its two DeleteItems took the unlocked path, index rows kept from the version deleted');
SELECT lives_ok($$SELECT pg_temp.workload('ids')$$, 'the workload, index rows written by statement');
SELECT results_eq($$SELECT * FROM pg_temp.index_rows('idd')$$, $$SELECT * FROM pg_temp.index_rows('ids')$$,
	'the index rows are the same');
SELECT is((SELECT count(*) FROM pg_temp.index_rows('idd')), 40::bigint, 'and there are as many as the items say (24 x 2, less the removed, deleted and sparse)');
SELECT is(pg_temp.problems('idd'), 0::bigint, 'verify(): direct writes left no problem');
SELECT is(pg_temp.problems('ids'), 0::bigint, 'verify(): statements left no problem');
SELECT is((SELECT item FROM item_data."idd#by_g" WHERE key OPERATOR(item_table.=) 'S"k32"'::item_key),
	'{"pk": {"S": "k32"}, "g": {"S": "G1"}, "n": {"N": "1.5"}}'::jsonb,
	'a stored item that is not canonical is projected canonically');
SELECT is(query('{"TableName": "idd", "IndexName": "by_g", "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "G1"}}}')->'Count',
	query('{"TableName": "ids", "IndexName": "by_g", "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "G1"}}}')->'Count',
	'a Query of the index finds the same items');
-- many rewrites of one index row in one transaction (dead versions, HOT or not)
SELECT is((SELECT count(*) FROM generate_series(1, 200) i
	WHERE pg_temp.upd('idd', 'k20', 'SET n = :n', jsonb_build_object(':n', jsonb_build_object('N', i::text))) IS NOT NULL),
	200::bigint, '200 updates of one item rewrite its index rows');
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT is((SELECT item->'n'->>'N' FROM item_data."idd#by_g" WHERE ikey OPERATOR(item_table.=) 'S"G2"'::item_key
	AND key OPERATOR(item_table.=) 'S"k20"'::item_key), '200', 'the index table primary key finds the one current row');
RESET enable_seqscan;
RESET enable_bitmapscan;
-- an aborted subtransaction takes its index rows with it
SAVEPOINT s1;
SELECT pg_temp.put('idd', 'k40', '{"g": {"S": "G4"}, "h": {"S": "H4"}, "r": {"S": "R4"}}');
ROLLBACK TO SAVEPOINT s1;
SELECT pg_temp.put('idd', 'k40', '{"g": {"S": "G4"}}');
SELECT is((SELECT count(*) FROM pg_temp.index_rows('idd') r WHERE r LIKE '% S"k40" %'), 1::bigint,
	'a rolled-back put leaves no index row, the put after it its own');
SELECT is(pg_temp.problems('idd'), 0::bigint, 'verify() still clean');

-- 2. a user trigger on an index table: the statements fire it
CREATE TABLE pg_temp.ilog (op text, k text);
CREATE FUNCTION pg_temp.ilogger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO pg_temp.ilog VALUES (TG_OP, coalesce(NEW.key, OLD.key)::text);
	RETURN NULL;
END $$;
CREATE TRIGGER ilog AFTER INSERT OR UPDATE OR DELETE ON item_data."idd#by_g" FOR EACH ROW EXECUTE FUNCTION pg_temp.ilogger();
SELECT pg_temp.put('idd', 'k50', '{"g": {"S": "G5"}}');
SELECT pg_temp.upd('idd', 'k50', 'SET n = :n', '{":n": {"N": "1"}}');
SELECT pg_temp.upd('idd', 'k50', 'SET g = :g', '{":g": {"S": "G6"}}');
SELECT pg_temp.del('idd', 'k50');
SELECT results_eq($$SELECT op, k FROM pg_temp.ilog$$,
	$$VALUES ('INSERT', 'S"k50"'), ('UPDATE', 'S"k50"'), ('DELETE', 'S"k50"'), ('INSERT', 'S"k50"'), ('DELETE', 'S"k50"')$$,
	'a trigger on the index table fires for every index change of PutItem, UpdateItem and DeleteItem');
DROP TRIGGER ilog ON item_data."idd#by_g";
SELECT pg_temp.put('idd', 'k51', '{"g": {"S": "G5"}}');
SELECT is((SELECT count(*) FROM pg_temp.ilog), 5::bigint, 'and no longer once it is dropped');

-- 3. rules on an index table: the statements apply them (an INSERT rule
-- makes INSERT ... ON CONFLICT an error, which the put gets too)
CREATE RULE ilog_rule AS ON DELETE TO item_data."idd#by_g" DO ALSO INSERT INTO pg_temp.ilog VALUES ('RULE', OLD.key::text);
SELECT pg_temp.del('idd', 'k51');
SELECT results_eq($$SELECT k FROM pg_temp.ilog WHERE op = 'RULE'$$, $$VALUES ('S"k51"')$$,
	'a DELETE rule on the index table applies to the index delete of DeleteItem');
DROP RULE ilog_rule ON item_data."idd#by_g";
CREATE RULE ilog_rule AS ON INSERT TO item_data."idd#by_g" DO ALSO INSERT INTO pg_temp.ilog VALUES ('RULE', NEW.key::text);
SELECT is(pg_temp.st($$SELECT pg_temp.put('idd', 'k51', '{"g": {"S": "G5"}}')$$), '0A000',
	'an INSERT rule on the index table: the upsert statement refuses, and so does PutItem');
DROP RULE ilog_rule ON item_data."idd#by_g";
SELECT pg_temp.put('idd', 'k51', '{"g": {"S": "G5"}}');
SELECT pg_temp.put('idd', 'k52', '{"g": {"S": "G5"}}');

-- 4. another index on an index table: the statement maintains and checks it
CREATE UNIQUE INDEX idd_g_u ON item_data."idd#by_g" ((item->'u')) WHERE item ? 'u';
SELECT pg_temp.put('idd', 'k53', '{"g": {"S": "G5"}, "u": {"S": "one"}}');
SELECT is(pg_temp.st($$SELECT pg_temp.put('idd', 'k54', '{"g": {"S": "G5"}, "u": {"S": "one"}}')$$), '23505',
	'a unique index on the index table refuses a second index row with the same value');
SELECT is(pg_temp.st($$SELECT pg_temp.upd('idd', 'k52', 'SET u = :u', '{":u": {"S": "one"}}')$$), '23505',
	'also for an UpdateItem');
SET LOCAL enable_seqscan = off;
SELECT is((SELECT key::text FROM item_data."idd#by_g" WHERE item->'u' = '{"S": "one"}'), 'S"k53"',
	'the extra index has the index row');
RESET enable_seqscan;
SELECT is(get_item('{"TableName": "idd", "Key": {"pk": {"S": "k54"}}}') ? 'Item', false, 'the refused put changed nothing');
DROP INDEX item_data.idd_g_u;

-- 5. a CHECK constraint on an index table: the statement checks it
ALTER TABLE item_data."idd#by_g" ADD CONSTRAINT g_not_bad CHECK (item->'g'->>'S' <> 'bad');
SELECT is(pg_temp.st($$SELECT pg_temp.upd('idd', 'k51', 'SET g = :g', '{":g": {"S": "bad"}}')$$), '23514',
	'a CHECK constraint on the index table refuses the index row');
SELECT is(get_item('{"TableName": "idd", "Key": {"pk": {"S": "k51"}}}')->'Item'->'g'->>'S', 'G5', 'the refused update changed nothing');
ALTER TABLE item_data."idd#by_g" DROP CONSTRAINT g_not_bad;

-- 6. privileges: the index owner without DELETE on an index table
CREATE ROLE item_table_tap_idx_owner;
ALTER TABLE item_data."idd#by_g" OWNER TO item_table_tap_idx_owner;
ALTER TABLE item_data."idd#by_h" OWNER TO item_table_tap_idx_owner;
REVOKE DELETE ON item_data."idd#by_g" FROM item_table_tap_idx_owner;
SELECT is(pg_temp.st($$SELECT pg_temp.del('idd', 'k51')$$), '42501',
	'the index owner without DELETE: the index delete is refused, as the statement refuses it');
SELECT is(pg_temp.st($$SELECT pg_temp.upd('idd', 'k51', 'SET g = :g', '{":g": {"S": "G6"}}')$$), '42501',
	'also for an UpdateItem that moves the index row');
SELECT is(pg_temp.st($$SELECT pg_temp.put('idd', 'k55', '{"g": {"S": "G5"}}')$$), NULL,
	'a new index row needs no DELETE');
GRANT DELETE ON item_data."idd#by_g" TO item_table_tap_idx_owner;
SELECT is(pg_temp.st($$SELECT pg_temp.del('idd', 'k55')$$), NULL, 'with DELETE back, the delete succeeds');

-- 7. row-level security on an index table does not apply to its owner (the
-- index writes run as the owner, FORCE ignored): results as without it
ALTER TABLE item_data."idd#by_g" ENABLE ROW LEVEL SECURITY;
ALTER TABLE item_data."idd#by_g" FORCE ROW LEVEL SECURITY;
SELECT pg_temp.put('idd', 'k56', '{"g": {"S": "G5"}}');
SELECT pg_temp.upd('idd', 'k56', 'SET g = :g', '{":g": {"S": "G6"}}');
ALTER TABLE item_data."idd#by_g" NO FORCE ROW LEVEL SECURITY;
ALTER TABLE item_data."idd#by_g" DISABLE ROW LEVEL SECURITY;
SELECT is((SELECT ikey::text FROM item_data."idd#by_g" WHERE key OPERATOR(item_table.=) 'S"k56"'::item_key), 'S"G6"',
	'row-level security on the index table: the index row written all the same');
ALTER TABLE item_data."idd#by_g" OWNER TO CURRENT_USER;
ALTER TABLE item_data."idd#by_h" OWNER TO CURRENT_USER;

-- 8. a published index table without replica identity refuses the delete
CREATE PUBLICATION idd_pub FOR TABLE item_data."idd#by_g";
ALTER TABLE item_data."idd#by_g" REPLICA IDENTITY NOTHING;
SELECT is(pg_temp.st($$SELECT pg_temp.del('idd', 'k56')$$), '55000',
	'a published index table without replica identity refuses the index delete, as DELETE does');
ALTER TABLE item_data."idd#by_g" REPLICA IDENTITY DEFAULT;
DROP PUBLICATION idd_pub;
SELECT is(pg_temp.problems('idd'), 0::bigint, 'verify() clean after the refused writes');

-- 9. the index trigger not firing: the direct base writes do not keep the
-- index either (as the statement would not)
ALTER TABLE item_data.idd DISABLE TRIGGER item_table_indexes;
SELECT pg_temp.upd('idd', 'k56', 'SET g = :g', '{":g": {"S": "G7"}}');
SELECT pg_temp.del('idd', 'k55');
ALTER TABLE item_data.idd ENABLE TRIGGER item_table_indexes;
SELECT is((SELECT ikey::text FROM item_data."idd#by_g" WHERE key OPERATOR(item_table.=) 'S"k56"'::item_key), 'S"G6"',
	'a disabled index trigger: UpdateItem leaves the index row');
SELECT is(pg_temp.problems('idd'), 2::bigint, 'and verify() sees the stale row and the missing one');
SET LOCAL session_replication_role = replica;
SELECT pg_temp.upd('idd', 'k56', 'SET g = :g', '{":g": {"S": "G8"}}');
RESET session_replication_role;
SELECT is((SELECT ikey::text FROM item_data."idd#by_g" WHERE key OPERATOR(item_table.=) 'S"k56"'::item_key), 'S"G6"',
	'session_replication_role replica: the index trigger does not fire, nor its direct stand-in');
SELECT pg_temp.upd('idd', 'k56', 'SET g = :g', '{":g": {"S": "G9"}}');
SELECT is(pg_temp.problems('idd'), 1::bigint, 'a write with the trigger back moves the row the base says (the stale one stays)');
-- the stale row is where the next write puts its new entry: the direct
-- insert meets it (speculative insertion), kills its own tuple, and the
-- statement's ON CONFLICT DO UPDATE replaces the stale row
SELECT pg_temp.upd('idd', 'k56', 'SET g = :g, n = :n', '{":g": {"S": "G6"}, ":n": {"N": "56"}}');
SELECT is((SELECT item->'n'->>'N' FROM item_data."idd#by_g" WHERE key OPERATOR(item_table.=) 'S"k56"'::item_key), '56',
	'an index row in the way of a direct insert is replaced, as ON CONFLICT DO UPDATE does');
SELECT is(pg_temp.problems('idd'), 0::bigint, 'and verify() is clean again');

-- 10. a user trigger on the base table: the base write is the statement,
-- and the index trigger keeps the index
CREATE TRIGGER base_log AFTER UPDATE ON item_data.ids FOR EACH ROW EXECUTE FUNCTION pg_temp.ilogger();
DELETE FROM pg_temp.ilog;
SELECT pg_temp.upd('ids', 'k20', 'SET g = :g', '{":g": {"S": "G4"}}');
SELECT results_eq($$SELECT op, k FROM pg_temp.ilog$$, $$VALUES ('UPDATE', 'S"k20"')$$,
	'a user trigger on the base table fires for UpdateItem');
SELECT is(pg_temp.problems('ids'), 0::bigint, 'and the index follows');
DROP TRIGGER base_log ON item_data.ids;

-- 11. an LSI, directly
SELECT ok(create_table('{"TableName": "iddl", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}, {"AttributeName": "ts", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"LocalSecondaryIndexes": [{"IndexName": "by_ts", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "ts", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["n"]}}]}') ? 'TableDescription', 'an LSI table');
SELECT lives_ok($$SELECT put_item(jsonb_build_object('TableName', 'iddl', 'Item', jsonb_build_object('pk', '{"S": "p"}'::jsonb,
		'sk', jsonb_build_object('S', 's' || i), 'ts', jsonb_build_object('S', 't' || (i % 4)), 'n', jsonb_build_object('N', i::text), 'x', '{"S": "x"}'::jsonb)))
	FROM generate_series(1, 20) i;
	SELECT update_item('{"TableName": "iddl", "Key": {"pk": {"S": "p"}, "sk": {"S": "s3"}}, "UpdateExpression": "SET ts = :t, n = :n", "ExpressionAttributeValues": {":t": {"S": "t9"}, ":n": {"N": "0"}}}');
	SELECT update_item('{"TableName": "iddl", "Key": {"pk": {"S": "p"}, "sk": {"S": "s4"}}, "UpdateExpression": "SET x = :x", "ExpressionAttributeValues": {":x": {"S": "y"}}}');
	SELECT delete_item('{"TableName": "iddl", "Key": {"pk": {"S": "p"}, "sk": {"S": "s5"}}}')$$,
	'LSI: puts, updates (index key, an attribute not projected) and a delete');
SELECT is((SELECT count(*) FROM item_data."iddl#by_ts"), 19::bigint, 'one LSI row per item');
SELECT is(pg_temp.problems('iddl'), 0::bigint, 'LSI: verify() clean');

SELECT * FROM finish();
ROLLBACK;
