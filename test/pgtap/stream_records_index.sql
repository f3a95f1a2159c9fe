-- The records table's indexes (stream.c, insert_record): a record goes
-- into the heap and the primary key with the key's IndexInfo kept, and
-- the table's index list is looked at again only after an invalidation of
-- the records table or its key.  An index made by hand on the records
-- table after this session wrote records (so with the key cached) gets
-- every later record, through the direct paths and the trigger alike;
-- once it is dropped, records go through the kept key again.  Compared:
-- the records counted through the hand-made index against a sequential
-- scan of the heap.
BEGIN;
SELECT plan(9);
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.put(k text, n int) RETURNS jsonb LANGUAGE sql AS $$
	SELECT item_table.put_item(jsonb_build_object('TableName', 'srix', 'Item',
		jsonb_build_object('pk', jsonb_build_object('S', k), 'n', jsonb_build_object('N', n::text))))
$$;
-- the records of srix counted by a sequential scan and through the index
-- on created_at (an index scan that visits the heap)
CREATE FUNCTION pg_temp.count_seq() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off;
	SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexonlyscan = off;
	SELECT count(*) INTO n FROM item_table.stream_records r JOIN item_table.streams s USING (stream_id)
		WHERE s.table_name = 'srix' AND r.created_at > '-infinity';
	RETURN n;
END $$;
CREATE FUNCTION pg_temp.count_index() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = on;
	SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexonlyscan = off;
	SELECT count(*) INTO n FROM item_table.stream_records r
		WHERE r.stream_id = (SELECT stream_id FROM item_table.streams WHERE table_name = 'srix')
		AND r.created_at > '-infinity';
	RETURN n;
END $$;
CREATE FUNCTION pg_temp.uses_probe() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE l text; found boolean := false;
BEGIN
	SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = on;
	SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexonlyscan = off;
	FOR l IN EXPLAIN SELECT count(*) FROM item_table.stream_records r
		WHERE r.stream_id = 1 AND r.created_at > '-infinity'
	LOOP
		found := found OR l LIKE '%stream_records_probe%';
	END LOOP;
	RETURN found;
END $$;

SELECT ok(create_table('{"TableName": "srix", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}') ? 'TableDescription',
	'table srix with a stream');
-- records written before the index exists: the key's IndexInfo is kept
SELECT count(*) FROM (SELECT pg_temp.put('k' || g, 0) FROM generate_series(1, 5) g) x;	-- trigger (new items)
SELECT count(*) FROM (SELECT pg_temp.put('k' || g, 1) FROM generate_series(1, 5) g) x;	-- direct (replacing)

CREATE INDEX stream_records_probe ON item_table.stream_records (stream_id, created_at);
SELECT ok(pg_temp.uses_probe(), 'the index scan goes through the hand-made index');
SELECT is(pg_temp.count_index(), pg_temp.count_seq(), 'the records written before it are in it (CREATE INDEX)');

-- records after it: the direct paths and the trigger must write its entries too
SELECT count(*) FROM (SELECT pg_temp.put('k' || g, 2) FROM generate_series(1, 5) g) x;	-- direct
SELECT count(*) FROM (SELECT pg_temp.put('n' || g, 0) FROM generate_series(1, 5) g) x;	-- trigger
SELECT delete_item('{"TableName": "srix", "Key": {"pk": {"S": "k1"}}}') IS NOT NULL AS deleted;
SELECT update_item('{"TableName": "srix", "Key": {"pk": {"S": "k2"}}, "UpdateExpression": "SET n = :v",
	"ExpressionAttributeValues": {":v": {"N": "9"}}}') IS NOT NULL AS updated;
SELECT is(pg_temp.count_seq(), 22::bigint, 'every change has its record');
SELECT is(pg_temp.count_index(), pg_temp.count_seq(), 'the records written after the index was made are in it');
-- and the primary key has them all (an index scan on it)
SELECT is((SELECT count(*) FROM item_table.stream_records r
	WHERE r.stream_id = (SELECT stream_id FROM item_table.streams WHERE table_name = 'srix')
	AND r.seq > 0), 22::bigint, 'the primary key has them all');

-- dropped again: records go through the kept key, and stay readable in order
DROP INDEX item_table.stream_records_probe;
SELECT count(*) FROM (SELECT pg_temp.put('k' || g, 3) FROM generate_series(2, 5) g) x;	-- direct
SELECT is(pg_temp.count_seq(), 26::bigint, 'records after the index is dropped');
SELECT is((SELECT count(*) FROM item_table.stream_records('srix')), 26::bigint,
	'stream_records() reads them all');
SELECT is((SELECT array_agg(sequence_number ORDER BY sequence_number) = array_agg(sequence_number)
	FROM item_table.stream_records('srix')), true, 'in sequence order');

SELECT * FROM finish();
ROLLBACK;
