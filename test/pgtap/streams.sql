-- Streams, in one transaction: stream consumers (who may register one,
-- batches in order, exactly once, the role they run as, failures retried,
-- reported and parked, resumed), the order of one item's changes, and
-- reads before the trim horizon.  Nothing here commits, so the background
-- worker never sees these consumers: item_table.run_stream_consumers()
-- runs them.
BEGIN;
SELECT plan(38);
SET search_path = item_table, public;

SELECT ok(create_table('{"TableName": "cons_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}') ? 'TableDescription',
	'a table with a stream');
SELECT ok(create_table('{"TableName": "nostream_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') ? 'TableDescription',
	'a table without one');

-- what the consumers see: one row per record, with the batch it came in
-- and the role it ran as
CREATE TABLE public.consumed (id serial PRIMARY KEY, consumer text, batch int, seq bigint,
	pk text, event text, v text, run_as text);
CREATE FUNCTION public.log_batch(records jsonb) RETURNS void LANGUAGE sql AS $$
	INSERT INTO public.consumed (consumer, batch, seq, pk, event, v, run_as)
	SELECT 'log', (SELECT coalesce(max(c.batch), 0) OPERATOR(pg_catalog.+) 1 FROM public.consumed c),
		(r OPERATOR(pg_catalog.->) 'dynamodb' OPERATOR(pg_catalog.->>) 'SequenceNumber')::pg_catalog.int8,
		r OPERATOR(pg_catalog.->) 'dynamodb' OPERATOR(pg_catalog.->) 'Keys' OPERATOR(pg_catalog.->) 'pk' OPERATOR(pg_catalog.->>) 'S',
		r OPERATOR(pg_catalog.->>) 'eventName',
		r OPERATOR(pg_catalog.->) 'dynamodb' OPERATOR(pg_catalog.->) 'NewImage' OPERATOR(pg_catalog.->) 'v' OPERATOR(pg_catalog.->>) 'N',
		pg_catalog.current_user()
	FROM pg_catalog.jsonb_array_elements(records) r $$;
-- fails on a batch holding an item "bad", after writing its rows
CREATE FUNCTION public.picky(records jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.consumed (consumer, seq) SELECT 'picky', 0;
	IF pg_catalog.jsonb_path_exists(records, '$[*].dynamodb.Keys.pk.S ? (@ == "bad")') THEN
		RAISE EXCEPTION 'picky does not like item bad';
	END IF;
END $$;
CREATE FUNCTION public.wrong_args(records text) RETURNS void LANGUAGE sql AS $$ SELECT $$;

CREATE ROLE stream_app;
CREATE ROLE stream_other;
GRANT SELECT ON item_data.cons_t TO stream_app, stream_other;
GRANT SELECT ON item_data.nostream_t TO stream_app;
GRANT ALL ON public.consumed TO stream_app;
GRANT USAGE ON SEQUENCE public.consumed_id_seq TO stream_app;

-- who may register
SELECT throws_ok($$SELECT add_stream_consumer('cons_t', 'public.log_batch(jsonb)')$$, '42501',
	'a stream consumer may not run as a superuser', 'a superuser cannot register a consumer');
SET ROLE stream_app;
SELECT throws_ok($$SELECT add_stream_consumer('cons_t', 'public.wrong_args(text)')$$, '42P13', NULL,
	'the function must take one jsonb');
SELECT throws_ok($$SELECT add_stream_consumer('nostream_t', 'public.log_batch(jsonb)')$$, '55000',
	'table "nostream_t" has no enabled stream', 'the table needs an enabled stream');
RESET ROLE;
REVOKE EXECUTE ON FUNCTION public.log_batch(jsonb) FROM PUBLIC;
SET ROLE stream_app;
SELECT throws_ok($$SELECT add_stream_consumer('cons_t', 'public.log_batch(jsonb)')$$, '42501', NULL,
	'registering needs EXECUTE on the function');
RESET ROLE;
GRANT EXECUTE ON FUNCTION public.log_batch(jsonb) TO stream_app;
REVOKE SELECT ON item_data.cons_t FROM stream_app;
SET ROLE stream_app;
SELECT throws_ok($$SELECT add_stream_consumer('cons_t', 'public.log_batch(jsonb)')$$, '42501', NULL,
	'registering needs the right to read the stream (SELECT on the table)');
RESET ROLE;
GRANT SELECT ON item_data.cons_t TO stream_app;

-- changes before the consumer exists are read too (TRIM_HORIZON)
SELECT put_item('{"TableName": "cons_t", "Item": {"pk": {"S": "early"}, "v": {"N": "0"}}}');
SET ROLE stream_app;
SELECT is(add_stream_consumer('cons_t', 'public.log_batch(jsonb)', 'log', batch_size => 10), 'log',
	'registered, named');
SELECT throws_ok($$SELECT add_stream_consumer('cons_t', 'public.log_batch(jsonb)', 'log')$$, '42710',
	'stream consumer "log" already exists', 'names are unique');
RESET ROLE;

-- 24 more changes: 3 items, each updated 8 times in turn
SELECT count(put_item(jsonb_build_object('TableName', 'cons_t', 'Item',
	jsonb_build_object('pk', jsonb_build_object('S', 'item' || i), 'v', jsonb_build_object('N', r::text)))))
FROM generate_series(1, 8) r, generate_series(1, 3) i;

SELECT is(run_stream_consumers(), 25::bigint, 'the consumer got every record');
SELECT is((SELECT count(DISTINCT batch) FROM public.consumed WHERE consumer = 'log'), 3::bigint,
	'in batches of at most batch_size (10, 10, 5)');
SELECT is((SELECT max(n) FROM (SELECT count(*) AS n FROM public.consumed WHERE consumer = 'log' GROUP BY batch) b), 10::bigint,
	'no batch larger than batch_size');
SELECT ok((SELECT bool_and(ordered) FROM (SELECT seq > lag(seq, 1, 0::bigint) OVER (ORDER BY id) AS ordered
	FROM public.consumed WHERE consumer = 'log') o), 'records arrive in sequence order');
SELECT is((SELECT array_agg(v::int ORDER BY id) FROM public.consumed WHERE pk = 'item2'),
	ARRAY[1, 2, 3, 4, 5, 6, 7, 8], 'one item''s changes in the order they were made');
SELECT is((SELECT array_agg(DISTINCT run_as) FROM public.consumed WHERE consumer = 'log'), ARRAY['stream_app']::text[],
	'the consumer ran as the role that registered it');
SELECT is((SELECT event FROM public.consumed WHERE pk = 'early'), 'INSERT', 'the earlier change came first');

-- exactly once: nothing new, nothing again
SELECT is(run_stream_consumers(), 0::bigint, 'caught up: nothing delivered');
SELECT is((SELECT count(*) FROM public.consumed WHERE consumer = 'log'), 25::bigint, 'no record delivered twice');
SELECT is((SELECT last_sequence_number FROM stream_consumers WHERE consumer_name = 'log'),
	(SELECT max(seq) FROM public.consumed WHERE consumer = 'log'), 'the checkpoint is the last record delivered');
-- a no-op write adds nothing; a delete adds a REMOVE
SELECT put_item('{"TableName": "cons_t", "Item": {"pk": {"S": "item1"}, "v": {"N": "8"}}}');
SELECT delete_item('{"TableName": "cons_t", "Key": {"pk": {"S": "item3"}}}');
SELECT is(run_stream_consumers(), 1::bigint, 'a no-op write has no record, a delete has one');
SELECT is((SELECT event FROM public.consumed ORDER BY id DESC LIMIT 1), 'REMOVE', 'the delete as REMOVE');

-- failures: retried with the same batch, reported, parked after max_failures
GRANT EXECUTE ON FUNCTION public.picky(jsonb) TO stream_app;
SET ROLE stream_app;
SELECT is(add_stream_consumer('cons_t', 'public.picky(jsonb)', max_failures => 2, start_at => 'LATEST'), 'picky',
	'a second consumer, from the latest record');
RESET ROLE;
SELECT put_item('{"TableName": "cons_t", "Item": {"pk": {"S": "good"}}}');
SELECT put_item('{"TableName": "cons_t", "Item": {"pk": {"S": "bad"}}}');
SELECT is(run_stream_consumers(), 2::bigint, 'log consumes both; picky fails');
SELECT results_eq($$SELECT status, failures, last_error, failed_batch_last - failed_batch_first
	FROM stream_consumers WHERE consumer_name = 'picky'$$,
	$$VALUES ('ACTIVE'::text, 1, 'picky does not like item bad'::text, 1::bigint)$$,
	'the failure and the failing batch are reported');
SELECT is((SELECT count(*) FROM public.consumed WHERE consumer = 'picky'), 0::bigint,
	'what the failing batch wrote was rolled back');
SELECT is((SELECT last_sequence_number FROM stream_consumers WHERE consumer_name = 'picky'),
	(SELECT last_sequence_number FROM stream_consumers WHERE consumer_name = 'log') - 2,
	'the checkpoint did not move');
SELECT run_stream_consumers();
SELECT is((SELECT status FROM stream_consumers WHERE consumer_name = 'picky'), 'PARKED',
	'parked after max_failures failures in a row');
SELECT is(run_stream_consumers(), 0::bigint, 'a parked consumer is left alone');
SET ROLE stream_other;
SELECT throws_ok($$SELECT resume_stream_consumer('picky')$$, '42501', NULL,
	'only the consumer''s role may resume it');
SELECT throws_ok($$SELECT remove_stream_consumer('picky')$$, '42501', NULL,
	'or remove it');
RESET ROLE;
SET ROLE stream_app;
SELECT ok(resume_stream_consumer('picky'), 'resumed');
RESET ROLE;
SELECT is((SELECT status FROM stream_consumers WHERE consumer_name = 'picky'), 'ACTIVE', 'active again');

-- a role that lost the right to read the stream gets no more records
REVOKE SELECT ON item_data.cons_t FROM stream_app;
SELECT put_item('{"TableName": "cons_t", "Item": {"pk": {"S": "secret"}}}');
SELECT is(run_stream_consumers(), 0::bigint, 'nothing delivered to a role without SELECT on the table');
SELECT matches((SELECT last_error FROM stream_consumers WHERE consumer_name = 'log'), '^permission denied',
	'the consumer''s failure says why');
GRANT SELECT ON item_data.cons_t TO stream_app;

-- GetRecords and consumers' batches are built from the stored images
-- copied as they are: the bytes are what jsonb_in makes of their text
CREATE FUNCTION pg_temp.jsonb_bytes(jsonb) RETURNS bytea LANGUAGE C STRICT
	AS '$libdir/item_table', 'item_table_test_jsonb_bytes';
SELECT is(pg_temp.jsonb_bytes(g), pg_temp.jsonb_bytes(g::text::jsonb), 'GetRecords: the bytes of jsonb_in')
FROM (SELECT get_records(jsonb_build_object('ShardIterator', get_shard_iterator(jsonb_build_object(
		'StreamArn', describe_table('{"TableName": "cons_t"}')->'Table'->>'LatestStreamArn',
		'ShardId', describe_stream(jsonb_build_object('StreamArn', describe_table('{"TableName": "cons_t"}')->'Table'->>'LatestStreamArn'))->'StreamDescription'->'Shards'->0->>'ShardId',
		'ShardIteratorType', 'TRIM_HORIZON'))->>'ShardIterator')) AS g) x;
SELECT is((SELECT count(*) FROM stream_records('cons_t') r WHERE pg_temp.jsonb_bytes(r.record) <> pg_temp.jsonb_bytes(r.record::text::jsonb)),
	0::bigint, 'each record: the bytes of jsonb_in');

-- stream_records(): a position before the trim horizon is refused
SELECT ok(trim_streams(now() + interval '25 hours') > 0, 'records trimmed after 24 hours');
SELECT throws_ok($$SELECT * FROM stream_records('cons_t', 1)$$, '55000', NULL,
	'reading from before the trim horizon is refused');

SELECT * FROM finish();
ROLLBACK;
