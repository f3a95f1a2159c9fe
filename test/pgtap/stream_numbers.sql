-- Stream records' sequence numbers (stream_number.c): with the library
-- preloaded, numbers come from one counter in shared memory that every
-- session shares, refilled a block of 100 at a time from
-- item_table.stream_sequence (INCREMENT BY 100); one session's records
-- are numbered consecutively, in the order they were written, whichever
-- stream they belong to and whichever path wrote them (the API's direct
-- writes, the trigger of a plain SQL write); a sequence set back by hand
-- below the numbers handed out is refused.  setval() is not undone by
-- the ROLLBACK: the sequence is left ahead of every number handed out.
BEGIN;
SELECT plan(11);
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.preloaded() RETURNS boolean LANGUAGE sql AS $$
	SELECT 'item_table' = ANY (string_to_array(replace(current_setting('shared_preload_libraries'), ' ', ''), ',')) $$;
CREATE FUNCTION pg_temp.last_value() RETURNS bigint LANGUAGE sql AS $$
	SELECT coalesce(pg_sequence_last_value('item_table.stream_sequence'), 0) $$;
-- writes first .. last: new items and replacements through the API, every
-- tenth by plain SQL (the trigger's path), alternating between the two
-- tables' streams; n is the write's number
CREATE FUNCTION pg_temp.write(first int, last int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN first .. last LOOP
		IF i % 10 = 0 THEN
			INSERT INTO item_data.snum_a (key, item) VALUES (('S"sql' || i || '"')::item_table.item_key,
				jsonb_build_object('pk', jsonb_build_object('S', 'sql' || i), 'n', jsonb_build_object('N', i::text)));
		ELSE
			PERFORM item_table.put_item(jsonb_build_object('TableName',
				CASE WHEN i % 2 = 0 THEN 'snum_a' ELSE 'snum_b' END, 'Item',
				jsonb_build_object('pk', jsonb_build_object('S', 'k' || (i % 20)), 'n', jsonb_build_object('N', i::text))));
		END IF;
	END LOOP;
END $$;
-- (seq, n) of both tables' records
CREATE FUNCTION pg_temp.recs() RETURNS TABLE (seq bigint, n int) LANGUAGE sql AS $$
	SELECT r.seq, (coalesce(r.new_image, r.old_image)->'n'->>'N')::int
	FROM item_table.stream_records r JOIN item_table.streams s USING (stream_id)
	WHERE s.table_name IN ('snum_a', 'snum_b') $$;

SELECT is((SELECT seqincrement FROM pg_sequence WHERE seqrelid = 'item_table.stream_sequence'::regclass),
	100::bigint, 'each nextval on the sequence reserves a block of 100 numbers');
SELECT ok(create_table('{"TableName": "snum_a", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}') ? 'TableDescription'
	AND create_table('{"TableName": "snum_b", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}') ? 'TableDescription',
	'two tables with streams');

CREATE TEMP TABLE before AS SELECT pg_temp.last_value() AS lv;
SELECT pg_temp.write(1, 250);

SELECT is((SELECT count(*) FROM pg_temp.recs()), 250::bigint, 'one record per write');
SELECT is((SELECT array_agg(n ORDER BY seq) FROM pg_temp.recs()),
	(SELECT array_agg(i) FROM generate_series(1, 250) i),
	'numbered in the order they were written, across both streams and both paths');
SELECT CASE WHEN pg_temp.preloaded() THEN
	is((SELECT max(seq) - min(seq) FROM pg_temp.recs()), 249::bigint,
		'numbered consecutively: one counter, nothing lost in one session')
	ELSE skip('the library is not preloaded: each record takes a nextval') END;
SELECT CASE WHEN pg_temp.preloaded() THEN
	cmp_ok(pg_temp.last_value() - (SELECT lv FROM before), '<=', 300::bigint,
		'the sequence moved by at most three blocks for 250 records')
	ELSE skip('the library is not preloaded: each record takes a nextval') END;
SELECT is((SELECT count(*) FROM item_table.stream_records('snum_a')) +
	(SELECT count(*) FROM item_table.stream_records('snum_b')), 250::bigint,
	'stream_records() reads them all: the horizon is the counter''s last number');

-- the sequence jumps ahead (setval), then is set back below the numbers
-- handed out since: the next block the counter needs is refused
CREATE TEMP TABLE mark AS SELECT pg_temp.last_value() AS lv, (SELECT max(seq) FROM pg_temp.recs()) AS top;
SELECT setval('item_table.stream_sequence', (SELECT lv FROM mark) + 1000000);
SELECT pg_temp.write(251, 360);
SELECT cmp_ok((SELECT max(seq) FROM pg_temp.recs()), '>', (SELECT lv FROM mark) + 1000000,
	'after the jump, numbers come from the new blocks');
SELECT setval('item_table.stream_sequence', (SELECT lv FROM mark));
SELECT CASE WHEN pg_temp.preloaded() THEN
	throws_ok('SELECT pg_temp.write(361, 470)', '55000',
		'item_table.stream_sequence is behind the stream numbers already handed out',
		'a sequence set back below the numbers handed out is refused')
	ELSE skip('the library is not preloaded: nextval hands out what the sequence says') END;
SELECT is((SELECT count(*) FROM pg_temp.recs()), 360::bigint, 'the refused writes left no record');
SELECT setval('item_table.stream_sequence', (SELECT lv FROM mark) + 2000000);
SELECT pg_temp.write(361, 470);
SELECT is((SELECT array_agg(n ORDER BY seq) FROM pg_temp.recs()),
	(SELECT array_agg(i) FROM generate_series(1, 470) i),
	'set ahead again, numbers go on increasing');

SELECT * FROM finish();
ROLLBACK;
