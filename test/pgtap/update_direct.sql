-- UpdateItem writes the row it has just locked directly (no UPDATE
-- statement) only where that cannot differ from the statement
-- (api_common.c, update_item_direct).  Each case below needs the
-- statement -- privileges, row-level security, triggers, constraints,
-- other indexes, the GSI triggers, replica identity, read-only
-- transactions -- and shows that UpdateItem behaves as the statement does.
-- PutItem and BatchWriteItem replace an existing item the same way
-- (ApiReplaceItemDirect, in place of INSERT ... ON CONFLICT DO UPDATE),
-- and DeleteItem deletes the locked row directly (delete_item_direct) --
-- or, without a condition or ReturnValues ALL_OLD, deletes the row it
-- finds without locking it first (ApiDeleteItemUnlocked).
BEGIN;
SELECT plan(85);
SET search_path = item_table, public;

-- the SQLSTATE an UpdateItem request raises, NULL when it succeeds
CREATE FUNCTION pg_temp.st(request jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM item_table.update_item(request);
	RETURN NULL;
EXCEPTION WHEN others THEN
	RETURN SQLSTATE;
END $$;

CREATE FUNCTION pg_temp.put_st(request jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM item_table.put_item(request);
	RETURN NULL;
EXCEPTION WHEN others THEN
	RETURN SQLSTATE;
END $$;
CREATE FUNCTION pg_temp.inc(t text, k text, n int) RETURNS jsonb LANGUAGE sql AS $$
	SELECT item_table.update_item(jsonb_build_object('TableName', t, 'Key', jsonb_build_object('pk', jsonb_build_object('S', k)),
		'UpdateExpression', 'SET n = :v', 'ExpressionAttributeValues', jsonb_build_object(':v', jsonb_build_object('N', n::text)),
		'ReturnValues', 'ALL_NEW'))
$$;
CREATE FUNCTION pg_temp.n_of(t text, k text) RETURNS text LANGUAGE sql AS $$
	SELECT item_table.get_item(jsonb_build_object('TableName', t, 'Key', jsonb_build_object('pk', jsonb_build_object('S', k))))->'Item'->'n'->>'N'
$$;

SELECT ok(create_table('{"TableName": "upd", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') ? 'TableDescription', 'table created');
INSERT INTO item_data.upd (key, item)
SELECT item_key(jsonb_build_object('S', 'k' || g)),
	   jsonb_build_object('pk', jsonb_build_object('S', 'k' || g), 'n', jsonb_build_object('N', '0'), 'pad', jsonb_build_object('S', repeat('x', 200)))
FROM generate_series(1, 100) g;

-- the direct path: many updates of one key, most of them not HOT (the
-- page fills), each visible to the next, the primary key still finding
-- exactly one row by index and by sequential scan
SELECT is((SELECT count(*) FROM generate_series(1, 300) i WHERE pg_temp.inc('upd', 'k1', i)->'Attributes'->'n'->>'N' = i::text),
	300::bigint, 'direct path: 300 updates of one key in one transaction, each sees the last');
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT is((SELECT count(*) FROM item_data.upd WHERE key OPERATOR(item_table.=) 'S"k1"'::item_key), 1::bigint,
	'direct path: the primary key index finds the one current row');
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT is((SELECT item->'n'->>'N' FROM item_data.upd WHERE key OPERATOR(item_table.=) 'S"k1"'::item_key), '300',
	'direct path: the stored item is the last one written');
SELECT is(pg_temp.n_of('upd', 'k2'), '0', 'other items untouched');

-- a user trigger: the statement fires it, so UpdateItem must
CREATE TABLE pg_temp.upd_log (k text, n text);
CREATE FUNCTION pg_temp.upd_logger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO pg_temp.upd_log VALUES (NEW.item->'pk'->>'S', NEW.item->'n'->>'N');
	RETURN NEW;
END $$;
CREATE TRIGGER upd_after AFTER UPDATE ON item_data.upd FOR EACH ROW EXECUTE FUNCTION pg_temp.upd_logger();
SELECT pg_temp.inc('upd', 'k3', 5);
SELECT results_eq('SELECT k, n FROM pg_temp.upd_log', $$VALUES ('k3', '5')$$, 'a user trigger on the table fires for UpdateItem');
DROP TRIGGER upd_after ON item_data.upd;
SELECT pg_temp.inc('upd', 'k3', 6);
SELECT is((SELECT count(*) FROM pg_temp.upd_log), 1::bigint, 'and no longer once it is dropped');

-- a CHECK constraint: the statement checks it
ALTER TABLE item_data.upd ADD CONSTRAINT n_not_7 CHECK (item->'n'->>'N' <> '7');
SELECT is(pg_temp.st('{"TableName": "upd", "Key": {"pk": {"S": "k4"}}, "UpdateExpression": "SET n = :v", "ExpressionAttributeValues": {":v": {"N": "7"}}}'),
	'23514', 'a CHECK constraint refuses the update');
SELECT is(pg_temp.n_of('upd', 'k4'), '0', 'the refused update changed nothing');
SELECT is(pg_temp.inc('upd', 'k4', 8)->'Attributes'->'n'->>'N', '8', 'an update the constraint allows goes through');
ALTER TABLE item_data.upd DROP CONSTRAINT n_not_7;

-- another index (an expression index): the statement maintains it (on a
-- fresh table: an index made over HOT chains in this transaction could not
-- be used by it)
SELECT ok(create_table('{"TableName": "updi", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') ? 'TableDescription', 'second table created');
SELECT put_item('{"TableName": "updi", "Item": {"pk": {"S": "i1"}, "n": {"N": "0"}}}');
CREATE INDEX updi_n ON item_data.updi ((item->'n'->>'N'));
SELECT pg_temp.inc('updi', 'i1', 4242);
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT is((SELECT item->'pk'->>'S' FROM item_data.updi WHERE item->'n'->>'N' = '4242'), 'i1',
	'an expression index on the table has the updated item');
CREATE FUNCTION pg_temp.plan_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text; p text := '';
BEGIN
	FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP p := p || r || E'\n'; END LOOP;
	RETURN p;
END $$;
SELECT matches(pg_temp.plan_of($$SELECT item->'pk'->>'S' FROM item_data.updi WHERE item->'n'->>'N' = '4242'$$),
	'Index Scan using updi_n', 'and that read used the expression index');
RESET enable_seqscan;
RESET enable_bitmapscan;

-- row-level security: the statement applies the UPDATE policy's WITH CHECK
CREATE ROLE item_table_tap_upd;
GRANT SELECT, UPDATE ON item_data.upd TO item_table_tap_upd;
GRANT USAGE ON SCHEMA item_data TO item_table_tap_upd;
ALTER TABLE item_data.upd ENABLE ROW LEVEL SECURITY;
CREATE POLICY upd_sel ON item_data.upd FOR SELECT USING (true);
CREATE POLICY upd_upd ON item_data.upd FOR UPDATE USING (true) WITH CHECK (item->'n'->>'N' <> '13');
SET LOCAL ROLE item_table_tap_upd;
SELECT is(pg_temp.inc('upd', 'k6', 12)->'Attributes'->'n'->>'N', '12', 'with RLS, an update the policy allows');
SELECT is(pg_temp.st('{"TableName": "upd", "Key": {"pk": {"S": "k6"}}, "UpdateExpression": "SET n = :v", "ExpressionAttributeValues": {":v": {"N": "13"}}}'),
	'42501', 'with RLS, the policy''s WITH CHECK refuses the update');
RESET ROLE;
SELECT is(pg_temp.n_of('upd', 'k6'), '12', 'the refused update changed nothing');
ALTER TABLE item_data.upd DISABLE ROW LEVEL SECURITY;

-- column privileges: enough for the statement, so enough for UpdateItem
REVOKE SELECT, UPDATE ON item_data.upd FROM item_table_tap_upd;
GRANT SELECT (key, item), UPDATE (item) ON item_data.upd TO item_table_tap_upd;
SET LOCAL ROLE item_table_tap_upd;
SELECT is(pg_temp.inc('upd', 'k7', 21)->'Attributes'->'n'->>'N', '21', 'column privileges on key and item are enough');
RESET ROLE;
REVOKE UPDATE (item) ON item_data.upd FROM item_table_tap_upd;
SET LOCAL ROLE item_table_tap_upd;
SELECT is(pg_temp.st('{"TableName": "upd", "Key": {"pk": {"S": "k7"}}, "UpdateExpression": "SET n = :v", "ExpressionAttributeValues": {":v": {"N": "22"}}}'),
	'42501', 'without UPDATE the update is refused');
RESET ROLE;

-- a publication of updates on a table without replica identity
CREATE PUBLICATION upd_pub FOR TABLE item_data.upd;
ALTER TABLE item_data.upd REPLICA IDENTITY NOTHING;
SELECT is(pg_temp.st('{"TableName": "upd", "Key": {"pk": {"S": "k8"}}, "UpdateExpression": "SET n = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}'),
	'55000', 'a published table without replica identity refuses the update, as UPDATE does');
ALTER TABLE item_data.upd REPLICA IDENTITY DEFAULT;
DROP PUBLICATION upd_pub;

-- a read-only transaction
SAVEPOINT ro;
SET TRANSACTION READ ONLY;
SELECT is(pg_temp.st('{"TableName": "upd", "Key": {"pk": {"S": "k9"}}, "UpdateExpression": "SET n = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}'),
	'25006', 'a read-only transaction refuses the update');
ROLLBACK TO SAVEPOINT ro;

-- a table with a GSI: its index trigger must run (the index table follows)
SELECT ok(create_table('{"TableName": "updg", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "n", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_n", "KeySchema": [{"AttributeName": "n", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}]}') ? 'TableDescription', 'GSI table created');
SELECT put_item('{"TableName": "updg", "Item": {"pk": {"S": "g1"}, "n": {"N": "1"}}}');
SELECT pg_temp.inc('updg', 'g1', 2);
SELECT is(query('{"TableName": "updg", "IndexName": "by_n", "KeyConditionExpression": "n = :v", "ExpressionAttributeValues": {":v": {"N": "2"}}}')->'Count',
	'1'::jsonb, 'the GSI follows the update');

-- PutItem (and BatchWriteItem) of an existing item replace it the same
-- way: directly where INSERT ... ON CONFLICT DO UPDATE cannot differ
SELECT is((SELECT count(*) FROM generate_series(1, 200) i
	WHERE put_item(jsonb_build_object('TableName', 'upd', 'Item', jsonb_build_object('pk', '{"S": "k20"}'::jsonb, 'n', jsonb_build_object('N', i::text)))) = '{}'),
	200::bigint, 'direct path: 200 PutItems replacing one item');
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT is((SELECT item->'n'->>'N' FROM item_data.upd WHERE key OPERATOR(item_table.=) 'S"k20"'::item_key), '200',
	'direct path: the primary key finds the last item put');
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT is(batch_write_item('{"RequestItems": {"upd": [{"PutRequest": {"Item": {"pk": {"S": "k21"}, "n": {"N": "5"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "k22"}, "n": {"N": "6"}}}}, {"PutRequest": {"Item": {"pk": {"S": "new1"}, "n": {"N": "7"}}}}]}}')->'UnprocessedItems',
	'{}'::jsonb, 'BatchWriteItem: two replacements and an insert');
SELECT results_eq($$SELECT pg_temp.n_of('upd', 'k21') || pg_temp.n_of('upd', 'k22') || pg_temp.n_of('upd', 'new1')$$,
	$$VALUES ('567')$$, 'all three written');
-- a trigger: the statement fires it (AFTER UPDATE on the conflict path)
CREATE TRIGGER upd_after AFTER INSERT OR UPDATE ON item_data.upd FOR EACH ROW EXECUTE FUNCTION pg_temp.upd_logger();
DELETE FROM pg_temp.upd_log;
SELECT put_item('{"TableName": "upd", "Item": {"pk": {"S": "k23"}, "n": {"N": "9"}}}');
SELECT results_eq('SELECT k, n FROM pg_temp.upd_log', $$VALUES ('k23', '9')$$, 'a user trigger fires for PutItem replacing an item');
DROP TRIGGER upd_after ON item_data.upd;
-- another index follows a PutItem replacement
SELECT put_item('{"TableName": "updi", "Item": {"pk": {"S": "i1"}, "n": {"N": "777"}}}');
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT is((SELECT item->'pk'->>'S' FROM item_data.updi WHERE item->'n'->>'N' = '777'), 'i1',
	'the expression index has the item PutItem put');
RESET enable_seqscan;
RESET enable_bitmapscan;
-- the statement is an INSERT: without INSERT, replacing an item is refused
GRANT SELECT, UPDATE ON item_data.upd TO item_table_tap_upd;
SET LOCAL ROLE item_table_tap_upd;
SELECT is(pg_temp.put_st('{"TableName": "upd", "Item": {"pk": {"S": "k24"}, "n": {"N": "1"}}}'), '42501',
	'PutItem of an existing item needs INSERT, as INSERT ... ON CONFLICT does');
RESET ROLE;
SELECT is(pg_temp.n_of('upd', 'k24'), '0', 'the refused put changed nothing');

-- DeleteItem deletes the locked row directly the same way
CREATE FUNCTION pg_temp.del_st(request jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM item_table.delete_item(request);
	RETURN NULL;
EXCEPTION WHEN others THEN
	RETURN SQLSTATE;
END $$;
SELECT is(delete_item('{"TableName": "upd", "Key": {"pk": {"S": "k30"}}, "ReturnValues": "ALL_OLD"}')->'Attributes'->'pk'->>'S',
	'k30', 'direct path: DeleteItem returns the old item');
SELECT is(pg_temp.n_of('upd', 'k30'), NULL, 'and the item is gone');
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT is((SELECT count(*) FROM item_data.upd WHERE key OPERATOR(item_table.=) 'S"k30"'::item_key), 0::bigint,
	'the primary key finds nothing either');
RESET enable_seqscan;
RESET enable_bitmapscan;
CREATE TABLE pg_temp.del_log (k text);
CREATE FUNCTION pg_temp.del_logger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO pg_temp.del_log VALUES (OLD.item->'pk'->>'S');
	RETURN OLD;
END $$;
CREATE TRIGGER upd_del AFTER DELETE ON item_data.upd FOR EACH ROW EXECUTE FUNCTION pg_temp.del_logger();
SELECT delete_item('{"TableName": "upd", "Key": {"pk": {"S": "k31"}}}');
SELECT results_eq('SELECT k FROM pg_temp.del_log', $$VALUES ('k31')$$, 'a user DELETE trigger fires for DeleteItem');
DROP TRIGGER upd_del ON item_data.upd;
-- without DELETE the statement, and so DeleteItem, is refused
SET LOCAL ROLE item_table_tap_upd;
SELECT is(pg_temp.del_st('{"TableName": "upd", "Key": {"pk": {"S": "k32"}}}'), '42501', 'DeleteItem needs DELETE');
RESET ROLE;
SELECT is(pg_temp.n_of('upd', 'k32'), '0', 'the refused delete changed nothing');
-- row-level security: a DELETE policy hiding the row makes it a no-op
GRANT DELETE ON item_data.upd TO item_table_tap_upd;
ALTER TABLE item_data.upd ENABLE ROW LEVEL SECURITY;
CREATE POLICY upd_del_only_k34 ON item_data.upd FOR DELETE USING (key OPERATOR(item_table.=) 'S"k34"'::item_key);
SET LOCAL ROLE item_table_tap_upd;
SELECT delete_item('{"TableName": "upd", "Key": {"pk": {"S": "k33"}}}');
SELECT delete_item('{"TableName": "upd", "Key": {"pk": {"S": "k34"}}}');
RESET ROLE;
ALTER TABLE item_data.upd DISABLE ROW LEVEL SECURITY;
SELECT is(pg_temp.n_of('upd', 'k33') || '/' || coalesce(pg_temp.n_of('upd', 'k34'), 'gone'), '0/gone',
	'with RLS, DeleteItem deletes only what the DELETE policy allows');
-- a published table without replica identity refuses the delete
CREATE PUBLICATION upd_pub2 FOR TABLE item_data.upd;
ALTER TABLE item_data.upd REPLICA IDENTITY NOTHING;
SELECT is(pg_temp.del_st('{"TableName": "upd", "Key": {"pk": {"S": "k35"}}}'), '55000',
	'a published table without replica identity refuses DeleteItem, as DELETE does');
ALTER TABLE item_data.upd REPLICA IDENTITY DEFAULT;
DROP PUBLICATION upd_pub2;

-- DeleteItem without a condition or ReturnValues ALL_OLD: the unlocked
-- path (ApiDeleteItemUnlocked), as DELETE ... WHERE key = $1 does it.  The
-- test counter of that path tells which path ran.
CREATE FUNCTION pg_temp.unlocked() RETURNS bigint LANGUAGE c
	AS '$libdir/item_table', 'item_table_test_unlocked_deletes';
CREATE FUNCTION pg_temp.del_via(request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	before bigint := pg_temp.unlocked();
	st text;
BEGIN
	BEGIN
		PERFORM item_table.delete_item(request);
	EXCEPTION WHEN others THEN
		st := SQLSTATE;
	END;
	RETURN CASE WHEN pg_temp.unlocked() > before THEN 'unlocked' ELSE 'locked' END || coalesce(' ' || st, '');
END $$;
SELECT is(pg_temp.del_via('{"TableName": "upd", "Key": {"pk": {"S": "k40"}}}'), 'unlocked',
	'an unconditional DeleteItem takes the unlocked path');
SELECT is(pg_temp.n_of('upd', 'k40'), NULL, 'and the item is gone');
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT is((SELECT count(*) FROM item_data.upd WHERE key OPERATOR(item_table.=) 'S"k40"'::item_key), 0::bigint,
	'the primary key finds no version of it either');
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT is(pg_temp.del_via('{"TableName": "upd", "Key": {"pk": {"S": "k40"}}}'), 'unlocked',
	'DeleteItem of a missing item: the unlocked path finds nothing');
SELECT is(delete_item('{"TableName": "upd", "Key": {"pk": {"S": "k40"}}}'), '{}'::jsonb,
	'and answers {}');
SELECT is(pg_temp.del_via('{"TableName": "upd", "Key": {"pk": {"S": "k41"}}, "ReturnValues": "ALL_OLD"}'), 'locked',
	'ReturnValues ALL_OLD: the locked path');
SELECT is(pg_temp.del_via('{"TableName": "upd", "Key": {"pk": {"S": "k42"}}, "ConditionExpression": "attribute_exists(pk)"}'), 'locked',
	'a ConditionExpression: the locked path');
SELECT is(pg_temp.del_via('{"TableName": "upd", "Key": {"pk": {"S": "k47"}}, "Expected": {"n": {"ComparisonOperator": "NOT_NULL"}}}'), 'locked',
	'a legacy Expected condition: the locked path');
SELECT is(pg_temp.n_of('upd', 'k41') || pg_temp.n_of('upd', 'k42') || pg_temp.n_of('upd', 'k47'), NULL, 'all three deleted by it');
-- ConsumedCapacity from the version deleted, as the locked path measures it
SELECT put_item(jsonb_build_object('TableName', 'upd', 'Item', jsonb_build_object('pk', jsonb_build_object('S', 'big' || i),
	'pad', jsonb_build_object('S', repeat('y', 2500))))) FROM generate_series(1, 2) i;
SELECT is(delete_item('{"TableName": "upd", "Key": {"pk": {"S": "big1"}}, "ReturnConsumedCapacity": "TOTAL"}'),
	delete_item('{"TableName": "upd", "Key": {"pk": {"S": "big2"}}, "ReturnConsumedCapacity": "TOTAL", "ReturnValues": "ALL_OLD"}') - 'Attributes',
	'ConsumedCapacity of the unlocked path is the locked path''s');
SELECT is((delete_item('{"TableName": "upd", "Key": {"pk": {"S": "big1"}}, "ReturnConsumedCapacity": "TOTAL"}')
	->'ConsumedCapacity'->>'CapacityUnits'), '1.0', 'nothing deleted: one unit, as before');
-- the rights: DeleteItem has always needed UPDATE too (its locked probe);
-- the unlocked path keeps that, whichever path a call takes
REVOKE UPDATE ON item_data.upd FROM item_table_tap_upd;
SET LOCAL ROLE item_table_tap_upd;
SELECT is(pg_temp.del_via('{"TableName": "upd", "Key": {"pk": {"S": "k43"}}}'), 'locked 42501',
	'without UPDATE: the locked path, refused as before');
RESET ROLE;
SELECT is(pg_temp.n_of('upd', 'k43'), '0', 'the refused delete changed nothing');
GRANT UPDATE ON item_data.upd TO item_table_tap_upd;
SET LOCAL ROLE item_table_tap_upd;
SELECT is(pg_temp.del_via('{"TableName": "upd", "Key": {"pk": {"S": "k43"}}}'), 'unlocked',
	'with SELECT, UPDATE and DELETE: the unlocked path');
RESET ROLE;
-- a user DELETE trigger: the statement
CREATE TRIGGER upd_del AFTER DELETE ON item_data.upd FOR EACH ROW EXECUTE FUNCTION pg_temp.del_logger();
SELECT is(pg_temp.del_via('{"TableName": "upd", "Key": {"pk": {"S": "k44"}}}'), 'locked',
	'a user DELETE trigger: not the unlocked path');
SELECT results_eq('SELECT k FROM pg_temp.del_log', $$VALUES ('k31'), ('k44')$$, 'and the trigger fired');
DROP TRIGGER upd_del ON item_data.upd;
-- another index on the table: not the unlocked path (the write rule)
CREATE INDEX upd_n ON item_data.upd ((item->'n'->>'N'));
SELECT is(pg_temp.del_via('{"TableName": "upd", "Key": {"pk": {"S": "k45"}}}'), 'locked',
	'another index on the table: not the unlocked path');
DROP INDEX item_data.upd_n;
-- a read-only transaction: the error of the statement
CREATE FUNCTION pg_temp.ro_del(request jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	SET LOCAL transaction_read_only = on;
	RETURN pg_temp.del_via(request);
END $$;
CREATE FUNCTION pg_temp.ro_del_sub(request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	BEGIN
		r := pg_temp.ro_del(request);
		RAISE EXCEPTION 'undo' USING ERRCODE = 'P0001';
	EXCEPTION WHEN SQLSTATE 'P0001' THEN
		RETURN r;
	END;
END $$;
SELECT is(pg_temp.ro_del_sub('{"TableName": "upd", "Key": {"pk": {"S": "k46"}}}'), 'locked 25006',
	'in a read-only transaction: refused as DELETE is');
SELECT is(pg_temp.n_of('upd', 'k46'), '0', 'the refused delete changed nothing');

-- UpdateItem, and PutItem with a condition or the old item or the capacity
-- in its response, replace an existing item without locking it first
-- (ApiReplaceItemUnlocked): the condition and the update judged on the
-- version read, then that version replaced.  The test counter of that path
-- (calls it judged) tells which path ran; each response, error and stored
-- item is compared with the locked path's, which a user trigger that does
-- nothing forces (test/isolation/specs/update_race.spec has the races).
CREATE FUNCTION pg_temp.unlocked_writes() RETURNS bigint LANGUAGE c
	AS '$libdir/item_table', 'item_table_test_unlocked_writes';
-- the response of a put or update, or its SQLSTATE and DynamoDB body
CREATE FUNCTION pg_temp.call(op text, request jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE d text;
BEGIN
	IF op = 'put' THEN
		RETURN item_table.put_item(request);
	END IF;
	RETURN item_table.update_item(request);
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
	RETURN jsonb_build_object('sqlstate', SQLSTATE, 'detail', d);
END $$;
CREATE FUNCTION pg_temp.via(op text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	before bigint := pg_temp.unlocked_writes();
	r jsonb := pg_temp.call(op, request);
BEGIN
	RETURN CASE WHEN pg_temp.unlocked_writes() > before THEN 'unlocked' ELSE 'locked' END
		|| coalesce(' ' || (r->>'sqlstate'), '');
END $$;
CREATE FUNCTION pg_temp.noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
-- op with request on table updc, from seed (NULL: no item), once with the
-- do-nothing trigger and once without: 'locked/unlocked same' when the
-- responses (or errors) and the stored items are the same
CREATE FUNCTION pg_temp.both(op text, request jsonb, seed jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	a jsonb; b jsonb; sa jsonb; sb jsonb; pa text; pb text; before bigint;
	t jsonb := coalesce(request->'Key', request->'Item');
	k item_table.item_key := ('S' || to_json(t->'pk'->>'S')::text || '|S' || to_json(t->'sk'->>'S')::text)::item_table.item_key;
BEGIN
	DELETE FROM item_data.updc WHERE key OPERATOR(item_table.=) k;
	IF seed IS NOT NULL THEN
		PERFORM item_table.put_item(jsonb_build_object('TableName', 'updc', 'Item', seed));
	END IF;
	CREATE TRIGGER updc_noop AFTER UPDATE ON item_data.updc FOR EACH ROW EXECUTE FUNCTION pg_temp.noop();
	before := pg_temp.unlocked_writes();
	a := pg_temp.call(op, request);
	pa := CASE WHEN pg_temp.unlocked_writes() > before THEN 'unlocked' ELSE 'locked' END;
	DROP TRIGGER updc_noop ON item_data.updc;
	SELECT item INTO sa FROM item_data.updc WHERE key OPERATOR(item_table.=) k;
	DELETE FROM item_data.updc WHERE key OPERATOR(item_table.=) k;
	IF seed IS NOT NULL THEN
		PERFORM item_table.put_item(jsonb_build_object('TableName', 'updc', 'Item', seed));
	END IF;
	before := pg_temp.unlocked_writes();
	b := pg_temp.call(op, request);
	pb := CASE WHEN pg_temp.unlocked_writes() > before THEN 'unlocked' ELSE 'locked' END;
	SELECT item INTO sb FROM item_data.updc WHERE key OPERATOR(item_table.=) k;
	RETURN pa || '/' || pb || CASE WHEN a IS NOT DISTINCT FROM b AND sa IS NOT DISTINCT FROM sb THEN ' same'
		ELSE ' differ: ' || coalesce(a::text, 'null') || ' ' || coalesce(sa::text, 'null') || ' vs '
			|| coalesce(b::text, 'null') || ' ' || coalesce(sb::text, 'null') END;
END $$;
-- a table with an LSI (ItemCollectionMetrics, the index upkeep)
SELECT ok(create_table('{"TableName": "updc", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}, {"AttributeName": "n", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"LocalSecondaryIndexes": [{"IndexName": "by_n", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}') ? 'TableDescription',
	'LSI table created');
SELECT is(pg_temp.both('update', '{"TableName": "updc", "Key": {"pk": {"S": "c"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = n + :one",
	"ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "ALL_NEW", "ReturnConsumedCapacity": "TOTAL", "ReturnItemCollectionMetrics": "SIZE"}',
	'{"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "41"}, "pad": {"S": "x"}}'), 'locked/unlocked same',
	'UpdateItem counter, ALL_NEW, ConsumedCapacity, ItemCollectionMetrics: the unlocked path answers as the locked one');
SELECT is(pg_temp.both('update', '{"TableName": "updc", "Key": {"pk": {"S": "c"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = :v REMOVE #p",
	"ConditionExpression": "n = :old", "ExpressionAttributeNames": {"#p": "pad"}, "ExpressionAttributeValues": {":v": {"N": "7"}, ":old": {"N": "41"}}, "ReturnValues": "UPDATED_OLD", "ReturnConsumedCapacity": "INDEXES"}',
	'{"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "41"}, "pad": {"S": "x"}}'), 'locked/unlocked same',
	'a condition that holds, UPDATED_OLD, capacity by index');
SELECT is(pg_temp.both('update', '{"TableName": "updc", "Key": {"pk": {"S": "c"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = :v, m = :v",
	"ConditionExpression": "attribute_exists(pk)", "ExpressionAttributeValues": {":v": {"N": "8"}}, "ReturnValues": "UPDATED_NEW"}',
	'{"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "41"}}'), 'locked/unlocked same', 'UPDATED_NEW');
SELECT is(pg_temp.both('update', '{"TableName": "updc", "Key": {"pk": {"S": "c"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = :v",
	"ExpressionAttributeValues": {":v": {"N": "9"}}, "ReturnValues": "ALL_OLD"}',
	'{"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "41"}}'), 'locked/unlocked same', 'ALL_OLD');
SELECT is(pg_temp.both('update', '{"TableName": "updc", "Key": {"pk": {"S": "c"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = :v",
	"ConditionExpression": "n = :old", "ExpressionAttributeValues": {":v": {"N": "9"}, ":old": {"N": "40"}}, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}',
	'{"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "41"}}'), 'locked/unlocked same',
	'a failed condition with the old item in the error: the same error, nothing written');
SELECT is(pg_temp.both('update', '{"TableName": "updc", "Key": {"pk": {"S": "c"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = m + :v",
	"ExpressionAttributeValues": {":v": {"N": "1"}}}',
	'{"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "41"}}'), 'locked/unlocked same',
	'an update that refers to a missing attribute: the same ValidationException');
SELECT is(pg_temp.both('update', jsonb_build_object('TableName', 'updc', 'Key', '{"pk": {"S": "c"}, "sk": {"S": "1"}}'::jsonb,
	'UpdateExpression', 'SET big = :v', 'ExpressionAttributeValues', jsonb_build_object(':v', jsonb_build_object('S', repeat('z', 409000)))),
	'{"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "41"}}'), 'locked/unlocked same',
	'an item grown past the limit: the same ValidationException');
SELECT is(pg_temp.both('update', '{"TableName": "updc", "Key": {"pk": {"S": "c"}, "sk": {"S": "2"}}, "UpdateExpression": "SET n = :v",
	"ExpressionAttributeValues": {":v": {"N": "1"}}, "ReturnValues": "ALL_NEW"}', NULL), 'locked/locked same',
	'a missing item: the locked path creates it');
SELECT is(pg_temp.both('put', '{"TableName": "updc", "Item": {"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "5"}},
	"ConditionExpression": "attribute_exists(pk)", "ReturnValues": "ALL_OLD", "ReturnConsumedCapacity": "TOTAL", "ReturnItemCollectionMetrics": "SIZE"}',
	'{"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "41"}, "pad": {"S": "x"}}'), 'locked/unlocked same',
	'PutItem with attribute_exists(pk), ALL_OLD, capacity and metrics');
SELECT is(pg_temp.both('put', '{"TableName": "updc", "Item": {"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "5"}},
	"ConditionExpression": "n > :v", "ExpressionAttributeValues": {":v": {"N": "100"}}, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}',
	'{"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "41"}}'), 'locked/unlocked same',
	'PutItem with a failed condition: the same error and old item, nothing written');
SELECT is(pg_temp.both('put', '{"TableName": "updc", "Item": {"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "5"}}, "ReturnValues": "ALL_OLD"}',
	'{"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "41"}}'), 'locked/unlocked same',
	'PutItem with ReturnValues ALL_OLD and no condition');
SELECT is(pg_temp.both('put', '{"TableName": "updc", "Item": {"pk": {"S": "c"}, "sk": {"S": "3"}, "n": {"N": "5"}},
	"ConditionExpression": "attribute_not_exists(pk)"}', NULL), 'locked/locked same',
	'PutItem of a new item: the locked path inserts it');
SELECT is(pg_temp.both('put', '{"TableName": "updc", "Item": {"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "5"}},
	"Expected": {"n": {"ComparisonOperator": "NOT_NULL"}}}', '{"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"N": "41"}}'),
	'locked/unlocked same', 'a legacy Expected condition');
-- the LSI follows the unlocked writes
SELECT is(query('{"TableName": "updc", "IndexName": "by_n", "KeyConditionExpression": "pk = :p AND n = :v",
	"ExpressionAttributeValues": {":p": {"S": "c"}, ":v": {"N": "5"}}}')->'Items'->0->'sk', '{"S": "1"}'::jsonb,
	'the LSI has the item as the unlocked PutItem left it');
SELECT is(query('{"TableName": "updc", "IndexName": "by_n", "KeyConditionExpression": "pk = :p AND n = :v",
	"ExpressionAttributeValues": {":p": {"S": "c"}, ":v": {"N": "41"}}}')->'Count', '0'::jsonb,
	'and not the version replaced');
-- within a transaction: each write sees the last, a rolled-back one is undone
SELECT put_item('{"TableName": "updc", "Item": {"pk": {"S": "t"}, "sk": {"S": "1"}, "n": {"N": "0"}}}');
SELECT is(pg_temp.via('update', '{"TableName": "updc", "Key": {"pk": {"S": "t"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = n + :one",
	"ExpressionAttributeValues": {":one": {"N": "1"}}}'), 'unlocked', 'a counter: the unlocked path');
SAVEPOINT s1;
SELECT update_item('{"TableName": "updc", "Key": {"pk": {"S": "t"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = n + :one",
	"ExpressionAttributeValues": {":one": {"N": "10"}}}');
ROLLBACK TO SAVEPOINT s1;
SELECT is(update_item('{"TableName": "updc", "Key": {"pk": {"S": "t"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = n + :one",
	"ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"}')->'Attributes'->'n'->>'N', '2',
	'after a rolled-back update, the next one adds to the version before it');
UPDATE item_data.updc SET item = jsonb_set(item, ARRAY['n', 'N'], '"50"') WHERE key OPERATOR(item_table.=) 'S"t"|S"1"'::item_key;
SELECT is(update_item('{"TableName": "updc", "Key": {"pk": {"S": "t"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = n + :one",
	"ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"}')->'Attributes'->'n'->>'N', '51',
	'an UPDATE statement earlier in the transaction is seen');
-- the fallbacks: each takes the locked path, with the statement's outcome
CREATE INDEX updc_n ON item_data.updc ((item->'n'->>'N'));
SELECT is(pg_temp.via('put', '{"TableName": "updc", "Item": {"pk": {"S": "t"}, "sk": {"S": "1"}, "n": {"N": "3"}}, "ConditionExpression": "attribute_exists(pk)"}'),
	'locked', 'another index: the locked path');
DROP INDEX item_data.updc_n;
ALTER TABLE item_data.updc ADD CONSTRAINT updc_n_not_7 CHECK (item->'n'->>'N' <> '7');
SELECT is(pg_temp.via('update', '{"TableName": "updc", "Key": {"pk": {"S": "t"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = :v",
	"ExpressionAttributeValues": {":v": {"N": "7"}}}'), 'locked 23514', 'a CHECK constraint: the locked path, refused by the statement');
ALTER TABLE item_data.updc DROP CONSTRAINT updc_n_not_7;
GRANT SELECT, INSERT ON item_data.updc TO item_table_tap_upd;
SET LOCAL ROLE item_table_tap_upd;
SELECT is(pg_temp.via('update', '{"TableName": "updc", "Key": {"pk": {"S": "t"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = :v",
	"ExpressionAttributeValues": {":v": {"N": "1"}}}'), 'locked 42501', 'without UPDATE: the locked path, refused');
RESET ROLE;
GRANT UPDATE ON item_data.updc TO item_table_tap_upd;
SET LOCAL ROLE item_table_tap_upd;
SELECT is(pg_temp.via('put', '{"TableName": "updc", "Item": {"pk": {"S": "t"}, "sk": {"S": "1"}, "n": {"N": "4"}}, "ConditionExpression": "attribute_exists(pk)"}'),
	'unlocked', 'with SELECT and UPDATE: the unlocked path');
RESET ROLE;
ALTER TABLE item_data.updc ENABLE ROW LEVEL SECURITY;
CREATE POLICY updc_all ON item_data.updc USING (true) WITH CHECK (true);
SET LOCAL ROLE item_table_tap_upd;
SELECT is(pg_temp.via('update', '{"TableName": "updc", "Key": {"pk": {"S": "t"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = :v",
	"ExpressionAttributeValues": {":v": {"N": "4"}}}'), 'locked', 'row-level security for the caller: the locked path');
RESET ROLE;
ALTER TABLE item_data.updc DISABLE ROW LEVEL SECURITY;
SAVEPOINT ro2;
SET TRANSACTION READ ONLY;
SELECT is(pg_temp.via('update', '{"TableName": "updc", "Key": {"pk": {"S": "t"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = :v",
	"ExpressionAttributeValues": {":v": {"N": "1"}}}'), 'locked 25006', 'a read-only transaction: the locked path, refused');
ROLLBACK TO SAVEPOINT ro2;
CREATE PUBLICATION updc_pub FOR TABLE item_data.updc;
ALTER TABLE item_data.updc REPLICA IDENTITY NOTHING;
SELECT is(pg_temp.via('update', '{"TableName": "updc", "Key": {"pk": {"S": "t"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = :v",
	"ConditionExpression": "n = :v", "ExpressionAttributeValues": {":v": {"N": "99"}}}'), 'unlocked XD006',
	'a published table without replica identity: a failed condition is reported first, as on the locked path');
SELECT is(pg_temp.via('update', '{"TableName": "updc", "Key": {"pk": {"S": "t"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = :v",
	"ExpressionAttributeValues": {":v": {"N": "1"}}}'), 'unlocked 55000', 'otherwise the error of UPDATE');
ALTER TABLE item_data.updc REPLICA IDENTITY DEFAULT;
DROP PUBLICATION updc_pub;
SELECT is((SELECT item->'n'->>'N' FROM item_data.updc WHERE key OPERATOR(item_table.=) 'S"t"|S"1"'::item_key), '4',
	'the refused writes changed nothing: the item is the last one put');

SELECT * FROM finish();
ROLLBACK;
