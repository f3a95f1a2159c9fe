-- Every write of a new item (PutItem, UpdateItem creating an item,
-- TransactWriteItems' Put, BatchWriteItem's PutRequest) inserts the row
-- directly, with the executor's speculative insertion (direct_insert.c),
-- only where that cannot differ from INSERT ... ON CONFLICT.  Which path
-- ran shows in the item guard's calls: the statement fires the guard
-- trigger (BEFORE INSERT), the direct path does not.  Each case that needs
-- the statement -- privileges, row-level security, triggers, rules,
-- constraints, other columns, other indexes, read-only
-- transactions -- is shown to take it and to behave as it does; the
-- direct path's results (items, ReturnValues, conditional failures,
-- duplicate keys, stream records, GSI and LSI rows) are the statement's.
BEGIN;
SELECT plan(90);
SET search_path = item_table, public;
SET LOCAL track_functions = 'all';

-- calls of the item guard (the statement's BEFORE INSERT trigger) so far
CREATE FUNCTION pg_temp.guard_calls() RETURNS bigint LANGUAGE sql AS $$
	SELECT coalesce(pg_stat_get_xact_function_calls('item_table.item_guard()'::regprocedure), 0)
$$;
CREATE TEMP TABLE g (n bigint);
GRANT ALL ON g TO PUBLIC;
CREATE FUNCTION pg_temp.mark() RETURNS void LANGUAGE sql AS $$
	DELETE FROM g; INSERT INTO g SELECT pg_temp.guard_calls();
$$;
-- item guard calls since the last mark
CREATE FUNCTION pg_temp.since() RETURNS bigint LANGUAGE sql AS $$
	SELECT pg_temp.guard_calls() - (SELECT n FROM g)
$$;
CREATE FUNCTION pg_temp.item(k text, n int) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('pk', jsonb_build_object('S', k), 'n', jsonb_build_object('N', n::text))
$$;
CREATE FUNCTION pg_temp.put(t text, k text, n int) RETURNS jsonb LANGUAGE sql AS $$
	SELECT item_table.put_item(jsonb_build_object('TableName', t, 'Item', pg_temp.item(k, n)))
$$;
-- the SQLSTATE of a call, NULL when it succeeds
CREATE FUNCTION pg_temp.st(fn text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SELECT item_table.%I($1)', fn) USING request;
	RETURN NULL;
EXCEPTION WHEN others THEN
	RETURN SQLSTATE;
END $$;
-- the DynamoDB error of a call: its __type and message, NULL on success
CREATE FUNCTION pg_temp.err(fn text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text;
BEGIN
	EXECUTE format('SELECT item_table.%I($1)', fn) USING request;
	RETURN NULL;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
	RETURN split_part(d::jsonb->>'__type', '#', 2) || ': ' || coalesce(d::jsonb->>'message', d::jsonb->>'Message');
END $$;
CREATE FUNCTION pg_temp.n_of(t text, k text) RETURNS text LANGUAGE sql AS $$
	SELECT item_table.get_item(jsonb_build_object('TableName', t, 'Key', jsonb_build_object('pk', jsonb_build_object('S', k))))->'Item'->'n'->>'N'
$$;
-- rows of key k in t found through the primary key index alone
CREATE FUNCTION pg_temp.by_index(t text, k text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE c bigint;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	EXECUTE format('SELECT count(*) FROM item_data.%I WHERE key OPERATOR(item_table.=) $1', t)
		INTO c USING item_table.item_key(jsonb_build_object('S', k));
	RESET enable_seqscan;
	RESET enable_bitmapscan;
	RETURN c;
END $$;

SELECT ok(create_table('{"TableName": "ins", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') ? 'TableDescription', 'table created');

-- ---- the direct path, and its results ----
SELECT pg_temp.mark();
SELECT is((SELECT count(*) FROM generate_series(1, 200) i WHERE pg_temp.put('ins', 'p' || i, i) = '{}'),
	200::bigint, 'direct path: 200 PutItems of new items');
SELECT is(pg_temp.since(), 0::bigint, 'direct path: no statement ran (the guard never fired)');
SELECT is((SELECT count(*) FROM item_data.ins), 200::bigint, 'all 200 rows are in the table');
SELECT is((SELECT count(*) FROM generate_series(1, 200) i WHERE pg_temp.by_index('ins', 'p' || i) = 1),
	200::bigint, 'the primary key index finds each of them, once');
SELECT is((SELECT item FROM item_data.ins WHERE key OPERATOR(item_table.=) 'S"p7"'::item_key),
	normalize_item(pg_temp.item('p7', 7)), 'the stored item is the item put');
SELECT is(pg_temp.put('ins', 'p7', 70), '{}'::jsonb, 'PutItem of an existing key replaces it');
SELECT is(pg_temp.n_of('ins', 'p7'), '70', 'replaced');

-- conditional PutItem of a new item, then of the same key again
SELECT pg_temp.mark();
SELECT is(put_item('{"TableName": "ins", "Item": {"pk": {"S": "c1"}, "n": {"N": "1"}},
	"ConditionExpression": "attribute_not_exists(pk)", "ReturnValues": "ALL_OLD"}'),
	'{}'::jsonb, 'attribute_not_exists on a new key: put, no old attributes');
SELECT is(pg_temp.err('put_item', '{"TableName": "ins", "Item": {"pk": {"S": "c1"}, "n": {"N": "2"}},
	"ConditionExpression": "attribute_not_exists(pk)"}'),
	'ConditionalCheckFailedException: The conditional request failed', 'and the same key again fails the condition');
SELECT is(pg_temp.since(), 0::bigint, 'both direct');
SELECT is(pg_temp.n_of('ins', 'c1'), '1', 'the item of the first put stays');

-- UpdateItem creating an item
SELECT is(update_item('{"TableName": "ins", "Key": {"pk": {"S": "u1"}}, "UpdateExpression": "SET n = :v",
	"ExpressionAttributeValues": {":v": {"N": "5"}}, "ReturnValues": "ALL_NEW"}')->'Attributes',
	'{"pk": {"S": "u1"}, "n": {"N": "5"}}'::jsonb, 'UpdateItem of a missing item creates it (ALL_NEW)');
SELECT is(update_item('{"TableName": "ins", "Key": {"pk": {"S": "u2"}}, "UpdateExpression": "SET n = :v",
	"ExpressionAttributeValues": {":v": {"N": "5"}}, "ReturnValues": "ALL_OLD"}'),
	'{}'::jsonb, 'UpdateItem of a missing item, ALL_OLD: no attributes');
SELECT is(pg_temp.since(), 0::bigint, 'UpdateItem created both directly');

-- TransactWriteItems: Puts of new items, a failed condition, duplicates
SELECT is(transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "t1"}, "n": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(pk)"}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "t2"}, "n": {"N": "2"}}}},
	{"Update": {"TableName": "ins", "Key": {"pk": {"S": "t3"}}, "UpdateExpression": "SET n = :v", "ExpressionAttributeValues": {":v": {"N": "3"}}}}]}'),
	'{}'::jsonb, 'TransactWriteItems: two Puts and an Update of new items');
SELECT is(pg_temp.n_of('ins', 't1') || pg_temp.n_of('ins', 't2') || pg_temp.n_of('ins', 't3'), '123', 'all three written');
SELECT is(pg_temp.since(), 0::bigint, 'directly');
SELECT is(pg_temp.err('transact_write_items', '{"TransactItems": [
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "t4"}, "n": {"N": "4"}}, "ConditionExpression": "attribute_not_exists(pk)"}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "t1"}, "n": {"N": "9"}}, "ConditionExpression": "attribute_not_exists(pk)"}}]}'),
	'TransactionCanceledException: Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]',
	'TransactWriteItems: a failed condition cancels the whole transaction');
SELECT is(pg_temp.n_of('ins', 't4'), NULL, 'and its new item is not written');
SELECT is(pg_temp.err('transact_write_items', '{"TransactItems": [
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "t5"}, "n": {"N": "1"}}}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "t5"}, "n": {"N": "2"}}}}]}'),
	'ValidationException: Transaction request cannot include multiple operations on one item',
	'TransactWriteItems: two Puts of one new key are refused');
SELECT is(pg_temp.n_of('ins', 't5'), NULL, 'and nothing is written');

-- BatchWriteItem: new items, duplicates
SELECT is(batch_write_item('{"RequestItems": {"ins": [{"PutRequest": {"Item": {"pk": {"S": "b1"}, "n": {"N": "1"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "b2"}, "n": {"N": "2"}}}}, {"PutRequest": {"Item": {"pk": {"S": "p1"}, "n": {"N": "3"}}}}]}}')->'UnprocessedItems',
	'{}'::jsonb, 'BatchWriteItem: two new items and a replacement');
SELECT is(pg_temp.n_of('ins', 'b1') || pg_temp.n_of('ins', 'b2') || pg_temp.n_of('ins', 'p1'), '123', 'all three written');
SELECT is(pg_temp.since(), 0::bigint, 'directly');
SELECT is(pg_temp.err('batch_write_item', '{"RequestItems": {"ins": [{"PutRequest": {"Item": {"pk": {"S": "b3"}, "n": {"N": "1"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "b3"}, "n": {"N": "2"}}}}]}}'),
	'ValidationException: Provided list of item keys contains duplicates', 'BatchWriteItem: duplicate new keys are refused');
SELECT is(pg_temp.n_of('ins', 'b3'), NULL, 'and nothing is written');

-- ---- each case that needs the statement ----
-- a user trigger: the statement fires it, so every new-item write must
CREATE TABLE pg_temp.ins_log (k text, n text);
CREATE FUNCTION pg_temp.ins_logger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO pg_temp.ins_log VALUES (NEW.item->'pk'->>'S', NEW.item->'n'->>'N');
	RETURN NEW;
END $$;
CREATE TRIGGER ins_after AFTER INSERT ON item_data.ins FOR EACH ROW EXECUTE FUNCTION pg_temp.ins_logger();
SELECT pg_temp.put('ins', 'tr1', 1);
SELECT put_item('{"TableName": "ins", "Item": {"pk": {"S": "tr2"}, "n": {"N": "2"}}, "ConditionExpression": "attribute_not_exists(pk)"}');
SELECT update_item('{"TableName": "ins", "Key": {"pk": {"S": "tr3"}}, "UpdateExpression": "SET n = :v", "ExpressionAttributeValues": {":v": {"N": "3"}}}');
SELECT transact_write_items('{"TransactItems": [{"Put": {"TableName": "ins", "Item": {"pk": {"S": "tr4"}, "n": {"N": "4"}}}}]}');
SELECT batch_write_item('{"RequestItems": {"ins": [{"PutRequest": {"Item": {"pk": {"S": "tr5"}, "n": {"N": "5"}}}}]}}');
SELECT results_eq('SELECT k, n FROM pg_temp.ins_log ORDER BY k',
	$$VALUES ('tr1', '1'), ('tr2', '2'), ('tr3', '3'), ('tr4', '4'), ('tr5', '5')$$,
	'a user INSERT trigger fires for every kind of new-item write');
DROP TRIGGER ins_after ON item_data.ins;
SELECT pg_temp.mark();
SELECT pg_temp.put('ins', 'tr6', 6);
SELECT is(pg_temp.since(), 0::bigint, 'the trigger dropped, the direct path again');

-- a rule: the statement refuses ON CONFLICT on a table with INSERT rules
CREATE TABLE pg_temp.rule_log (k text);
CREATE RULE ins_rule AS ON INSERT TO item_data.ins DO ALSO INSERT INTO pg_temp.rule_log VALUES (NEW.item->'pk'->>'S');
SELECT is(pg_temp.st('put_item', '{"TableName": "ins", "Item": {"pk": {"S": "r1"}, "n": {"N": "1"}}}'),
	'0A000', 'a rule on INSERT: PutItem of a new item is refused as INSERT ... ON CONFLICT is');
DROP RULE ins_rule ON item_data.ins;
SELECT is(pg_temp.n_of('ins', 'r1'), NULL, 'nothing written');

-- a CHECK constraint: the statement checks it
ALTER TABLE item_data.ins ADD CONSTRAINT n_not_7 CHECK (item->'n'->>'N' <> '7');
SELECT pg_temp.mark();
SELECT is(pg_temp.st('put_item', '{"TableName": "ins", "Item": {"pk": {"S": "x7"}, "n": {"N": "7"}}}'),
	'23514', 'a CHECK constraint refuses a new item');
SELECT is(pg_temp.since(), 1::bigint, 'through the statement');
SELECT is(pg_temp.n_of('ins', 'x7'), NULL, 'the refused insert wrote nothing');
SELECT is(pg_temp.put('ins', 'x8', 8), '{}'::jsonb, 'a new item the constraint allows is put');
ALTER TABLE item_data.ins DROP CONSTRAINT n_not_7;

-- another index (an expression index): the statement maintains it
CREATE INDEX ins_n ON item_data.ins ((item->'n'->>'N'));
SELECT pg_temp.mark();
SELECT pg_temp.put('ins', 'e1', 4242);
SELECT is(pg_temp.since(), 1::bigint, 'an expression index on the table: the statement');
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT is((SELECT item->'pk'->>'S' FROM item_data.ins WHERE item->'n'->>'N' = '4242'), 'e1',
	'and the expression index has the new item');
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP INDEX item_data.ins_n;

-- row-level security: the statement applies the INSERT policy's WITH CHECK
CREATE ROLE item_table_tap_ins;
GRANT USAGE ON SCHEMA item_data TO item_table_tap_ins;
GRANT SELECT, INSERT, UPDATE ON item_data.ins TO item_table_tap_ins;
ALTER TABLE item_data.ins ENABLE ROW LEVEL SECURITY;
CREATE POLICY ins_sel ON item_data.ins FOR SELECT USING (true);
CREATE POLICY ins_upd ON item_data.ins FOR UPDATE USING (true);
CREATE POLICY ins_ins ON item_data.ins FOR INSERT WITH CHECK (item->'n'->>'N' <> '13');
SET LOCAL ROLE item_table_tap_ins;
SELECT is(pg_temp.put('ins', 's12', 12), '{}'::jsonb, 'with RLS, a new item the policy allows');
SELECT is(pg_temp.st('put_item', '{"TableName": "ins", "Item": {"pk": {"S": "s13"}, "n": {"N": "13"}}}'),
	'42501', 'with RLS, the policy''s WITH CHECK refuses the new item');
RESET ROLE;
SELECT is(pg_temp.n_of('ins', 's13'), NULL, 'the refused insert wrote nothing');
ALTER TABLE item_data.ins DISABLE ROW LEVEL SECURITY;

-- privileges: column grants are enough for the statement, so for PutItem
REVOKE SELECT, INSERT, UPDATE ON item_data.ins FROM item_table_tap_ins;
GRANT SELECT (key, item), INSERT (key, item), UPDATE (item) ON item_data.ins TO item_table_tap_ins;
SET LOCAL ROLE item_table_tap_ins;
SELECT pg_temp.mark();
SELECT is(pg_temp.put('ins', 'cg1', 1), '{}'::jsonb, 'column privileges on key and item are enough for a new item');
SELECT is(pg_temp.since(), 1::bigint, 'through the statement');
RESET ROLE;
REVOKE INSERT (key, item) ON item_data.ins FROM item_table_tap_ins;
SET LOCAL ROLE item_table_tap_ins;
SELECT is(pg_temp.st('put_item', '{"TableName": "ins", "Item": {"pk": {"S": "cg2"}, "n": {"N": "1"}}}'),
	'42501', 'without INSERT a new item is refused');
SELECT is(pg_temp.st('put_item', '{"TableName": "ins", "Item": {"pk": {"S": "cg3"}, "n": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(pk)"}'),
	'42501', 'also with a condition (INSERT ... ON CONFLICT DO NOTHING)');
RESET ROLE;
SELECT is(pg_temp.n_of('ins', 'cg2') || pg_temp.n_of('ins', 'cg3'), NULL, 'the refused puts wrote nothing');
-- table-wide SELECT and INSERT without UPDATE: enough for DO NOTHING, not for DO UPDATE
REVOKE ALL ON item_data.ins FROM item_table_tap_ins;
GRANT SELECT, INSERT ON item_data.ins TO item_table_tap_ins;
SET LOCAL ROLE item_table_tap_ins;
SELECT is(pg_temp.st('put_item', '{"TableName": "ins", "Item": {"pk": {"S": "cg4"}, "n": {"N": "1"}}}'),
	'42501', 'an unconditional PutItem (ON CONFLICT DO UPDATE) needs UPDATE, even of a new item');
RESET ROLE;

-- a published table without replica identity: an INSERT needs none
CREATE PUBLICATION ins_pub FOR TABLE item_data.ins;
ALTER TABLE item_data.ins REPLICA IDENTITY NOTHING;
SELECT pg_temp.mark();
SELECT is(pg_temp.put('ins', 'pub1', 1), '{}'::jsonb, 'a published table without replica identity takes a new item, as INSERT does');
SELECT is(pg_temp.since(), 0::bigint, 'directly');
ALTER TABLE item_data.ins REPLICA IDENTITY DEFAULT;
DROP PUBLICATION ins_pub;

-- a read-only transaction
SAVEPOINT ro;
SET TRANSACTION READ ONLY;
SELECT is(pg_temp.st('put_item', '{"TableName": "ins", "Item": {"pk": {"S": "ro1"}, "n": {"N": "1"}}}'),
	'25006', 'a read-only transaction refuses a new item');
ROLLBACK TO SAVEPOINT ro;

-- a table with a GSI and an LSI: the direct insert writes their rows as
-- its index trigger would (ApiDirectUpkeep)
SELECT ok(create_table('{"TableName": "insg", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}, {"AttributeName": "n", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_n", "KeySchema": [{"AttributeName": "n", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}],
	"LocalSecondaryIndexes": [{"IndexName": "lsi_n", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}') ? 'TableDescription',
	'GSI and LSI table created');
SELECT pg_temp.mark();
SELECT is(put_item('{"TableName": "insg", "Item": {"pk": {"S": "g"}, "sk": {"S": "1"}, "n": {"N": "1"}}, "ReturnItemCollectionMetrics": "SIZE"}')->'ItemCollectionMetrics',
	'{"ItemCollectionKey": {"pk": {"S": "g"}}, "SizeEstimateRangeGB": [0.0, 1.0]}'::jsonb,
	'PutItem of a new item on an LSI table: its ItemCollectionMetrics');
SELECT is(pg_temp.since(), 0::bigint, 'directly, with the index tables kept');
SELECT is(query('{"TableName": "insg", "IndexName": "by_n", "KeyConditionExpression": "n = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}')->'Count',
	'1'::jsonb, 'the GSI has the new item');
SELECT ok(update_item('{"TableName": "insg", "Key": {"pk": {"S": "g"}, "sk": {"S": "2"}}, "UpdateExpression": "SET n = :n", "ExpressionAttributeValues": {":n": {"N": "5"}}}') IS NOT NULL,
	'UpdateItem creating an item on the GSI and LSI table');
SELECT is((SELECT count(*) FROM item_table.verify('insg')), 0::bigint,
	'verify(): the directly inserted items have exactly their GSI and LSI rows');

-- a stream: the direct insert writes the trigger's record itself
SELECT ok(create_table(('{"TableName": "' || t || '", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}')::jsonb) ? 'TableDescription',
	'table ' || t || ' with a stream')
FROM unnest(ARRAY['inss', 'inss_sql']) t;
CREATE FUNCTION pg_temp.records(t text)
RETURNS TABLE (event "char", service boolean, key text, new_image jsonb, old_image jsonb) LANGUAGE sql AS $$
	SELECT r.event, r.service, r.key::text, r.new_image, r.old_image
	FROM item_table.stream_records r JOIN item_table.streams s USING (stream_id)
	WHERE s.table_name = t ORDER BY r.seq
$$;
SELECT pg_temp.mark();
SELECT pg_temp.put('inss', 'k1', 1);
SELECT put_item('{"TableName": "inss", "Item": {"pk": {"S": "k2"}, "n": {"N": "2"}}, "ConditionExpression": "attribute_not_exists(pk)"}');
SELECT transact_write_items('{"TransactItems": [{"Put": {"TableName": "inss", "Item": {"pk": {"S": "k3"}, "n": {"N": "3"}}}}]}');
SELECT is(pg_temp.since(), 0::bigint, 'new items on a stream table: directly');
INSERT INTO item_data.inss_sql (key, item) SELECT key, item FROM item_data.inss ORDER BY key;
SELECT results_eq('SELECT * FROM pg_temp.records(''inss'')', 'SELECT * FROM pg_temp.records(''inss_sql'')',
	'the direct inserts wrote the records the stream trigger writes for the same rows');
SELECT is((SELECT string_agg(event::text, '') FROM pg_temp.records('inss')), 'III', 'three INSERT records');
-- the trigger disabled: the statement would not fire it, so the direct
-- insert, which stands in only for triggers that would fire, writes none
ALTER TABLE item_data.inss DISABLE TRIGGER item_table_stream;
SELECT pg_temp.mark();
SELECT pg_temp.put('inss', 'k4', 4);
SELECT is(pg_temp.since(), 0::bigint, 'the stream trigger disabled: still directly');
SELECT is((SELECT count(*) FROM pg_temp.records('inss')), 3::bigint, 'and, as the statement, no record');
ALTER TABLE item_data.inss ENABLE TRIGGER item_table_stream;

-- ---- TransactWriteItems: each table opened once for its new items ----
-- (direct_insert.c's ApiInsertCache: kept open across the new items of one
-- table, closed before any other write, reopened after it)
SELECT ok(create_table('{"TableName": "ins2", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') ? 'TableDescription', 'second table created');
SELECT pg_temp.mark();
-- in lock order: ins a1 (new), p3 (deleted), q1, q2 (new); then ins2 a1,
-- a2 (new)
SELECT is(transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "ins2", "Item": {"pk": {"S": "a2"}, "n": {"N": "22"}}, "ConditionExpression": "attribute_not_exists(pk)"}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "q2"}, "n": {"N": "5"}}}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "a1"}, "n": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(pk)"}},
	{"Delete": {"TableName": "ins", "Key": {"pk": {"S": "p3"}}}},
	{"Put": {"TableName": "ins2", "Item": {"pk": {"S": "a1"}, "n": {"N": "21"}}}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "q1"}, "n": {"N": "4"}}}}]}'),
	'{}'::jsonb, 'TransactWriteItems: new items of two tables around a delete');
SELECT is(concat_ws(',', pg_temp.n_of('ins', 'a1'), coalesce(pg_temp.n_of('ins', 'p3'), '-'),
		pg_temp.n_of('ins', 'q1'), pg_temp.n_of('ins', 'q2'), pg_temp.n_of('ins2', 'a1'), pg_temp.n_of('ins2', 'a2')),
	'1,-,4,5,21,22', 'every action applied');
SELECT is(pg_temp.since(), 0::bigint, 'the new items directly');
SELECT is(pg_temp.by_index('ins', 'a1') + pg_temp.by_index('ins', 'q1') + pg_temp.by_index('ins', 'q2')
		+ pg_temp.by_index('ins2', 'a1') + pg_temp.by_index('ins2', 'a2'), 5::bigint,
	'each new item has its primary key entry');
-- a replacement between new items of one table (ins a3 new, p2 replaced,
-- q3 new)
SELECT is(transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "q3"}, "n": {"N": "3"}}}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "p2"}, "n": {"N": "2000"}}, "ConditionExpression": "attribute_exists(pk)"}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "a3"}, "n": {"N": "1"}}}}]}'),
	'{}'::jsonb, 'TransactWriteItems: new items around a replacement');
SELECT is(concat_ws(',', pg_temp.n_of('ins', 'a3'), pg_temp.n_of('ins', 'p2'), pg_temp.n_of('ins', 'q3'),
		pg_temp.by_index('ins', 'a3') + pg_temp.by_index('ins', 'p2') + pg_temp.by_index('ins', 'q3')),
	'1,2000,3,3', 'all three written, one index entry each');
-- one ConditionExpression text in several actions (parsed once per call
-- when it has no placeholders): each evaluated on its own item
SELECT is(pg_temp.err('transact_write_items', '{"TransactItems": [
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "y1"}, "n": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(pk)"}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "p6"}, "n": {"N": "6"}}, "ConditionExpression": "attribute_exists(pk)"}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "y2"}, "n": {"N": "2"}}, "ConditionExpression": "attribute_not_exists(#k)", "ExpressionAttributeNames": {"#k": "pk"}}},
	{"ConditionCheck": {"TableName": "ins", "Key": {"pk": {"S": "p7"}}, "ConditionExpression": "attribute_not_exists(pk)"}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "y3"}, "n": {"N": "3"}}, "ConditionExpression": "attribute_not_exists(pk)"}}]}'),
	'TransactionCanceledException: Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, None, ConditionalCheckFailed, None]',
	'a repeated condition text fails only where its item fails it');
SELECT is(transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "y1"}, "n": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(pk)"}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "p6"}, "n": {"N": "6"}}, "ConditionExpression": "attribute_exists(pk)"}},
	{"ConditionCheck": {"TableName": "ins", "Key": {"pk": {"S": "p7"}}, "ConditionExpression": "attribute_exists(pk)"}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "y3"}, "n": {"N": "3"}}, "ConditionExpression": "attribute_not_exists(pk)"}}]}'),
	'{}'::jsonb, 'and the call passes when every item satisfies it');
SELECT is(pg_temp.n_of('ins', 'y1') || pg_temp.n_of('ins', 'y3'), '13', 'written');
-- a Put's item is stored as PutItem stores it (numbers and sets canonical)
SELECT put_item('{"TableName": "ins", "Item": {"pk": {"S": "nc1"}, "n": {"N": "01.50"}, "ss": {"SS": ["b", "a"]}, "m": {"M": {"x": {"N": "2e1"}}}}}');
SELECT transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "nc2"}, "n": {"N": "01.50"}, "ss": {"SS": ["b", "a"]}, "m": {"M": {"x": {"N": "2e1"}}}}}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "nc3"}, "n": {"N": "1.5"}, "ss": {"SS": ["a", "b"]}, "m": {"M": {"x": {"N": "20"}}}}}}]}');
SELECT is((SELECT item - 'pk' FROM item_data.ins WHERE key OPERATOR(item_table.=) 'S"nc2"'::item_key),
	(SELECT item - 'pk' FROM item_data.ins WHERE key OPERATOR(item_table.=) 'S"nc1"'::item_key),
	'TransactWriteItems stores a non-canonical Put item as PutItem does');
SELECT is((SELECT item - 'pk' FROM item_data.ins WHERE key OPERATOR(item_table.=) 'S"nc3"'::item_key),
	(SELECT item - 'pk' FROM item_data.ins WHERE key OPERATOR(item_table.=) 'S"nc1"'::item_key),
	'and a canonical one, as given, the same');
-- the next table needs the statement (a user trigger): the first table's
-- new items directly, the second's through the statement, all written
CREATE TRIGGER ins2_after AFTER INSERT ON item_data.ins2 FOR EACH ROW EXECUTE FUNCTION pg_temp.ins_logger();
DELETE FROM pg_temp.ins_log;
SELECT pg_temp.mark();
SELECT is(transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "v1"}, "n": {"N": "1"}}}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "v2"}, "n": {"N": "2"}}}},
	{"Put": {"TableName": "ins2", "Item": {"pk": {"S": "v3"}, "n": {"N": "3"}}}},
	{"Put": {"TableName": "ins2", "Item": {"pk": {"S": "v4"}, "n": {"N": "4"}}}}]}'),
	'{}'::jsonb, 'TransactWriteItems: a direct table, then one with a trigger');
SELECT is(pg_temp.since(), 2::bigint, 'the statement ran for the second table''s two items only');
SELECT results_eq('SELECT k, n FROM pg_temp.ins_log ORDER BY k', $$VALUES ('v3', '3'), ('v4', '4')$$,
	'its trigger fired for them');
SELECT is(pg_temp.n_of('ins', 'v1') || pg_temp.n_of('ins', 'v2'), '12', 'the first table''s items written');
-- the trigger raising: the whole call fails, nothing written, the first
-- table's items included
CREATE FUNCTION pg_temp.ins_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'refused %', NEW.item->'pk'->>'S' USING ERRCODE = 'P0042';
END $$;
CREATE TRIGGER ins2_refuse BEFORE INSERT ON item_data.ins2 FOR EACH ROW EXECUTE FUNCTION pg_temp.ins_refuse();
SELECT is(pg_temp.st('transact_write_items', '{"TransactItems": [
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "w1"}, "n": {"N": "1"}}}},
	{"Put": {"TableName": "ins", "Item": {"pk": {"S": "w2"}, "n": {"N": "2"}}}},
	{"Put": {"TableName": "ins2", "Item": {"pk": {"S": "w3"}, "n": {"N": "3"}}}}]}'),
	'P0042', 'a trigger''s error in the second table fails the call');
SELECT is(coalesce(pg_temp.n_of('ins', 'w1'), '') || coalesce(pg_temp.n_of('ins', 'w2'), '') || coalesce(pg_temp.n_of('ins2', 'w3'), ''),
	'', 'and nothing is written');
DROP TRIGGER ins2_refuse ON item_data.ins2;
DROP TRIGGER ins2_after ON item_data.ins2;
-- an error while the table is held open (a GSI key of the wrong type, found
-- when the third new item's index row is written): cancelled, nothing written
SELECT is(pg_temp.err('transact_write_items', '{"TransactItems": [
	{"Put": {"TableName": "insg", "Item": {"pk": {"S": "h"}, "sk": {"S": "1"}, "n": {"N": "1"}}}},
	{"Put": {"TableName": "insg", "Item": {"pk": {"S": "h"}, "sk": {"S": "2"}, "n": {"N": "2"}}}},
	{"Put": {"TableName": "insg", "Item": {"pk": {"S": "h"}, "sk": {"S": "3"}, "n": {"S": "x"}}}}]}'),
	'TransactionCanceledException: Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, ValidationError]',
	'TransactWriteItems: a failure on the third new item of a table cancels the call');
SELECT is(query('{"TableName": "insg", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "h"}}}')->'Count',
	'0'::jsonb, 'and none of its items is written');
SELECT is(transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "insg", "Item": {"pk": {"S": "h"}, "sk": {"S": "1"}, "n": {"N": "1"}}}},
	{"Put": {"TableName": "insg", "Item": {"pk": {"S": "h"}, "sk": {"S": "2"}, "n": {"N": "2"}}}},
	{"Put": {"TableName": "insg", "Item": {"pk": {"S": "h"}, "sk": {"S": "3"}, "n": {"N": "3"}}}}]}'),
	'{}'::jsonb, 'the same call with valid items succeeds');
SELECT is((SELECT count(*) FROM item_table.verify('insg')), 0::bigint,
	'verify(): the new items of one call have exactly their GSI and LSI rows');

-- BatchWriteItem: the table also held open across its new items, closed
-- before a delete; replacements and other tables in between
SELECT pg_temp.mark();
SELECT is(batch_write_item('{"RequestItems": {"ins": [{"PutRequest": {"Item": {"pk": {"S": "bb1"}, "n": {"N": "1"}}}},
	{"DeleteRequest": {"Key": {"pk": {"S": "p10"}}}}, {"PutRequest": {"Item": {"pk": {"S": "bb2"}, "n": {"N": "2"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "p11"}, "n": {"N": "1100"}}}}, {"PutRequest": {"Item": {"pk": {"S": "bb3"}, "n": {"N": "3"}}}}],
	"ins2": [{"PutRequest": {"Item": {"pk": {"S": "bb4"}, "n": {"N": "4"}}}}, {"PutRequest": {"Item": {"pk": {"S": "bb5"}, "n": {"N": "5"}}}}]}}')->'UnprocessedItems',
	'{}'::jsonb, 'BatchWriteItem: new items of two tables around a delete and a replacement');
SELECT is(concat_ws(',', pg_temp.n_of('ins', 'bb1'), coalesce(pg_temp.n_of('ins', 'p10'), '-'), pg_temp.n_of('ins', 'bb2'),
		pg_temp.n_of('ins', 'p11'), pg_temp.n_of('ins', 'bb3'), pg_temp.n_of('ins2', 'bb4'), pg_temp.n_of('ins2', 'bb5')),
	'1,-,2,1100,3,4,5', 'every request applied');
SELECT is(pg_temp.since(), 0::bigint, 'directly');
SELECT is(pg_temp.by_index('ins', 'bb1') + pg_temp.by_index('ins', 'bb2') + pg_temp.by_index('ins', 'bb3')
		+ pg_temp.by_index('ins', 'p11') + pg_temp.by_index('ins2', 'bb4') + pg_temp.by_index('ins2', 'bb5'), 6::bigint,
	'one primary key entry each');
SELECT is(batch_write_item('{"RequestItems": {"insg": [{"PutRequest": {"Item": {"pk": {"S": "bw"}, "sk": {"S": "1"}, "n": {"N": "7"}}}},
	{"PutRequest": {"Item": {"pk": {"S": "bw"}, "sk": {"S": "2"}, "n": {"N": "8"}}}}, {"PutRequest": {"Item": {"pk": {"S": "bw"}, "sk": {"S": "3"}}}}]}}')->'UnprocessedItems',
	'{}'::jsonb, 'BatchWriteItem: three new items on the GSI and LSI table');
SELECT is((SELECT count(*) FROM item_table.verify('insg')), 0::bigint,
	'verify(): with exactly their GSI and LSI rows');

SELECT * FROM finish();
ROLLBACK;
