-- The direct write paths on a table with a stream (api_common.c:
-- update_item_direct, ApiReplaceItemDirect, delete_item_direct) write the
-- stream's record themselves instead of running the statement
-- (stream.c, ItemStreamCaptureDirect): the trigger does not fire, and the
-- records are exactly those the trigger writes for the same changes made
-- by plain SQL.  Where the trigger would not fire as made (disabled, a
-- replica session) or another trigger needs the statement, the statement
-- runs, and writes what it always wrote.
BEGIN;
SELECT plan(25);
SET search_path = item_table, public;
SET LOCAL track_functions = 'all';

-- calls of the stream trigger in this transaction
CREATE FUNCTION pg_temp.trigger_calls() RETURNS bigint LANGUAGE sql AS $$
	SELECT coalesce(pg_stat_get_xact_function_calls('item_table.stream_trigger()'::regprocedure), 0)
$$;
-- a table's records after a sequence number, in order, without the stream
CREATE FUNCTION pg_temp.records(t text, after bigint)
RETURNS TABLE (event "char", service boolean, key text, new_image jsonb, old_image jsonb) LANGUAGE sql AS $$
	SELECT r.event, r.service, r.key::text, r.new_image, r.old_image
	FROM item_table.stream_records r JOIN item_table.streams s USING (stream_id)
	WHERE s.table_name = t AND r.seq > after ORDER BY r.seq
$$;
CREATE FUNCTION pg_temp.last_seq() RETURNS bigint LANGUAGE sql AS $$
	SELECT coalesce(max(seq), 0) FROM item_table.stream_records
$$;
CREATE FUNCTION pg_temp.item(k text, n int, pad text DEFAULT 'x') RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('pk', jsonb_build_object('S', k), 'n', jsonb_build_object('N', n::text),
		'pad', jsonb_build_object('S', pad))
$$;
CREATE FUNCTION pg_temp.put(t text, k text, n int, pad text DEFAULT 'x') RETURNS jsonb LANGUAGE sql AS $$
	SELECT item_table.put_item(jsonb_build_object('TableName', t, 'Item', pg_temp.item(k, n, pad)))
$$;

SELECT ok(create_table(('{"TableName": "' || t || '", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}')::jsonb) ? 'TableDescription',
	'table ' || t || ' with a stream')
FROM unnest(ARRAY['sdir', 'sdir_sql']) t;
-- the same items in both (inserts: the statement and the trigger, as always)
SELECT count(*) FROM (SELECT pg_temp.put(t, 'k' || g, 0) FROM unnest(ARRAY['sdir', 'sdir_sql']) t, generate_series(1, 10) g) x;
-- one large item (compressed, then toasted: 200 kB of digits)
SELECT count(*) FROM (SELECT pg_temp.put(t, 'big', 0, (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 6000) g))
	FROM unnest(ARRAY['sdir', 'sdir_sql']) t) x;
SELECT is((SELECT count(*) FROM pg_temp.records('sdir', 0) WHERE event = 'I'), 11::bigint, 'inserts captured');

-- the changes through the API on sdir: the direct paths, no trigger call
CREATE FUNCTION pg_temp.unlocked() RETURNS bigint LANGUAGE c
	AS '$libdir/item_table', 'item_table_test_unlocked_deletes';
CREATE TEMP TABLE mark AS SELECT pg_temp.last_seq() AS seq, pg_temp.trigger_calls() AS calls,
	pg_temp.unlocked() AS unlocked;
SELECT pg_temp.put('sdir', 'k1', 1);
SELECT update_item('{"TableName": "sdir", "Key": {"pk": {"S": "k2"}}, "UpdateExpression": "SET n = :v, extra = :e",
	"ExpressionAttributeValues": {":v": {"N": "2"}, ":e": {"L": [{"S": "a"}, {"N": "1"}]}}}');
SELECT delete_item('{"TableName": "sdir", "Key": {"pk": {"S": "k3"}}}');
SELECT pg_temp.put('sdir', 'k4', 0);	-- the same item again: no record
SELECT update_item('{"TableName": "sdir", "Key": {"pk": {"S": "k5"}}, "UpdateExpression": "SET n = :v",
	"ConditionExpression": "n = :z", "ExpressionAttributeValues": {":v": {"N": "0"}, ":z": {"N": "0"}}}');	-- changes nothing
SELECT pg_temp.put('sdir', 'k1', 11);	-- k1 again, after its first change
SELECT put_item('{"TableName": "sdir", "Item": {"pk": {"S": "big"}, "n": {"N": "1"}}}');
SELECT batch_write_item('{"RequestItems": {"sdir": [{"PutRequest": {"Item": {"pk": {"S": "k6"}, "n": {"N": "6"}}}},
	{"DeleteRequest": {"Key": {"pk": {"S": "k7"}}}}]}}');
SELECT delete_item('{"TableName": "sdir", "Key": {"pk": {"S": "missing"}}}');
-- (BatchWriteItem's DeleteRequest locks nothing first: it is the one
-- DELETE statement here, and its trigger call the one counted)
SELECT is(pg_temp.trigger_calls() - (SELECT calls FROM mark), 1::bigint,
	'the direct paths fire no stream trigger');
SELECT is(pg_temp.unlocked() - (SELECT unlocked FROM mark), 2::bigint,
	'both DeleteItems took the unlocked path (its old image is the version it deleted)');
SELECT is((SELECT count(*) FROM pg_temp.records('sdir', (SELECT seq FROM mark))), 7::bigint,
	'they write one record per change, none for a write that changes nothing or deletes nothing');

-- the same changes by plain SQL on sdir_sql: the trigger writes them
CREATE TEMP TABLE mark_sql AS SELECT pg_temp.last_seq() AS seq, pg_temp.trigger_calls() AS calls;
UPDATE item_data.sdir_sql SET item = normalize_item(pg_temp.item('k1', 1)) WHERE key = 'S"k1"'::item_key;
UPDATE item_data.sdir_sql SET item = (SELECT item FROM item_data.sdir WHERE key = 'S"k2"'::item_key) WHERE key = 'S"k2"'::item_key;
DELETE FROM item_data.sdir_sql WHERE key = 'S"k3"'::item_key;
UPDATE item_data.sdir_sql SET item = item WHERE key IN ('S"k4"'::item_key, 'S"k5"'::item_key);
UPDATE item_data.sdir_sql SET item = normalize_item(pg_temp.item('k1', 11)) WHERE key = 'S"k1"'::item_key;
UPDATE item_data.sdir_sql SET item = normalize_item('{"pk": {"S": "big"}, "n": {"N": "1"}}') WHERE key = 'S"big"'::item_key;
UPDATE item_data.sdir_sql SET item = normalize_item('{"pk": {"S": "k6"}, "n": {"N": "6"}}') WHERE key = 'S"k6"'::item_key;
DELETE FROM item_data.sdir_sql WHERE key = 'S"k7"'::item_key;
SELECT ok(pg_temp.trigger_calls() > (SELECT calls FROM mark_sql), 'plain SQL fires the trigger');
SELECT results_eq(
	$$SELECT event, service, key, new_image, old_image FROM pg_temp.records('sdir', (SELECT seq FROM mark))$$,
	$$SELECT event, service, key, new_image, old_image FROM pg_temp.records('sdir_sql', (SELECT seq FROM mark_sql))$$,
	'the direct paths write exactly the records the trigger writes, in the same order');
SELECT results_eq($$SELECT key, item FROM item_data.sdir ORDER BY key$$,
	$$SELECT key, item FROM item_data.sdir_sql ORDER BY key$$, 'and the same items');
SELECT is((SELECT old_image->'pad'->>'S' FROM pg_temp.records('sdir', (SELECT seq FROM mark)) WHERE key = 'S"big"'),
	(SELECT string_agg(md5(g::text), '') FROM generate_series(1, 6000) g), 'a toasted old image is captured whole');
SELECT is((SELECT new_image FROM pg_temp.records('sdir', (SELECT seq FROM mark)) WHERE key = 'S"k2"'),
	'{"n": {"N": "2"}, "pk": {"S": "k2"}, "pad": {"S": "x"}, "extra": {"L": [{"S": "a"}, {"N": "1"}]}}'::jsonb,
	'UpdateItem''s new image');

-- an aborted subtransaction leaves no record
CREATE TEMP TABLE mark2 AS SELECT pg_temp.last_seq() AS seq;
DO $$
BEGIN
	PERFORM pg_temp.put('sdir', 'k8', 8);
	PERFORM item_table.delete_item('{"TableName": "sdir", "Key": {"pk": {"S": "k9"}}}');
	RAISE EXCEPTION 'undo';
EXCEPTION WHEN raise_exception THEN
	NULL;
END $$;
SELECT is((SELECT count(*) FROM pg_temp.records('sdir', (SELECT seq FROM mark2))), 0::bigint,
	'a rolled back direct write leaves no record');
SELECT is((SELECT item->'n'->>'N' FROM item_data.sdir WHERE key = 'S"k8"'::item_key), '0', 'nor a change');

-- fallbacks.  Another trigger: the statement runs, the trigger captures
CREATE FUNCTION pg_temp.noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
CREATE TRIGGER other AFTER UPDATE OR DELETE ON item_data.sdir FOR EACH ROW EXECUTE FUNCTION pg_temp.noop();
TRUNCATE mark; INSERT INTO mark SELECT pg_temp.last_seq(), pg_temp.trigger_calls();
SELECT pg_temp.put('sdir', 'k8', 80);
SELECT delete_item('{"TableName": "sdir", "Key": {"pk": {"S": "k9"}}}');
SELECT is(pg_temp.trigger_calls() - (SELECT calls FROM mark), 2::bigint, 'with another trigger the stream trigger fires');
SELECT results_eq($$SELECT event::text, key FROM pg_temp.records('sdir', (SELECT seq FROM mark))$$,
	$$VALUES ('M', 'S"k8"'), ('R', 'S"k9"')$$, 'and captures the changes');
DROP TRIGGER other ON item_data.sdir;

-- the stream trigger disabled: the statement runs and nothing is captured
ALTER TABLE item_data.sdir DISABLE TRIGGER item_table_stream;
TRUNCATE mark; INSERT INTO mark SELECT pg_temp.last_seq(), pg_temp.trigger_calls();
SELECT pg_temp.put('sdir', 'k8', 81);
SELECT delete_item('{"TableName": "sdir", "Key": {"pk": {"S": "k10"}}}');
SELECT is((SELECT count(*) FROM pg_temp.records('sdir', (SELECT seq FROM mark))), 0::bigint,
	'a disabled stream trigger captures nothing, as for the statement');
SELECT is((SELECT item->'n'->>'N' FROM item_data.sdir WHERE key = 'S"k8"'::item_key), '81', 'the write is made');
ALTER TABLE item_data.sdir ENABLE TRIGGER item_table_stream;

-- a replica session does not fire the (origin) trigger: neither does the API
SET LOCAL session_replication_role = replica;
SELECT pg_temp.put('sdir', 'k8', 82);
RESET session_replication_role;
SELECT is((SELECT count(*) FROM pg_temp.records('sdir', (SELECT seq FROM mark))), 0::bigint,
	'in a replica session nothing is captured, as for the statement');
-- ENABLE ALWAYS: it fires there too, and the direct path captures
ALTER TABLE item_data.sdir ENABLE ALWAYS TRIGGER item_table_stream;
SET LOCAL session_replication_role = replica;
SELECT pg_temp.put('sdir', 'k8', 83);
RESET session_replication_role;
SELECT is((SELECT count(*) FROM pg_temp.records('sdir', (SELECT seq FROM mark))), 1::bigint,
	'a trigger enabled ALWAYS captures in a replica session');
SELECT is(pg_temp.trigger_calls() - (SELECT calls FROM mark), 0::bigint, 'through the direct path');
ALTER TABLE item_data.sdir ENABLE TRIGGER item_table_stream;

-- a trigger of that name that is not the one made for the stream (here:
-- with a WHEN clause) is left to the statement
ALTER TABLE item_data.sdir DISABLE TRIGGER item_table_stream;
ALTER TRIGGER item_table_stream ON item_data.sdir RENAME TO saved_stream;
CREATE TRIGGER item_table_stream AFTER INSERT OR UPDATE OR DELETE ON item_data.sdir FOR EACH ROW
	WHEN (pg_catalog.now() IS NOT NULL) EXECUTE FUNCTION item_table.stream_trigger();
TRUNCATE mark; INSERT INTO mark SELECT pg_temp.last_seq(), pg_temp.trigger_calls();
SELECT pg_temp.put('sdir', 'k8', 84);
SELECT is(pg_temp.trigger_calls() - (SELECT calls FROM mark), 1::bigint, 'a trigger with a WHEN clause: the statement fires it');
SELECT is((SELECT count(*) FROM pg_temp.records('sdir', (SELECT seq FROM mark))), 1::bigint, 'and it captures');
DROP TRIGGER item_table_stream ON item_data.sdir;
ALTER TRIGGER saved_stream ON item_data.sdir RENAME TO item_table_stream;
ALTER TABLE item_data.sdir ENABLE TRIGGER item_table_stream;

-- a disabled stream: the trigger stays, the direct path writes nothing
SELECT ok(update_table('{"TableName": "sdir", "StreamSpecification": {"StreamEnabled": false}}') ? 'TableDescription', 'stream disabled');
TRUNCATE mark; INSERT INTO mark SELECT pg_temp.last_seq(), pg_temp.trigger_calls();
SELECT pg_temp.put('sdir', 'k8', 85);
SELECT delete_item('{"TableName": "sdir", "Key": {"pk": {"S": "k8"}}}');
SELECT is((SELECT count(*) FROM item_table.stream_records WHERE seq > (SELECT seq FROM mark)), 0::bigint,
	'a table whose stream is disabled gets no record');
SELECT is(pg_temp.trigger_calls() - (SELECT calls FROM mark), 0::bigint, 'and keeps the direct paths');

SELECT * FROM finish();
ROLLBACK;
