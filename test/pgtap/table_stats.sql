-- item_table.table_stats: one row per item table the caller may read, with
-- its items (estimate), sizes, backfill progress, stream lag, Time to Live
-- deletions and the last consumer error.  Nothing here commits, so the
-- background worker sees none of it.
BEGIN;
SELECT plan(23);
SET search_path = item_table, public;

SELECT has_view('item_table', 'table_stats', 'the view exists');

SELECT ok(create_table('{"TableName": "stats_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}') ? 'TableDescription',
	'a table with a GSI and a stream');
SELECT ok(create_table('{"TableName": "stats_other", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') ? 'TableDescription',
	'a plain table');

SELECT is((SELECT (items_estimate, index_sizes ? 'by_g', stream_records, stream_consumers, ttl_status,
		ttl_items_deleted, last_consumer_error, indexes_backfilling)::text
	FROM table_stats WHERE table_name = 'stats_t'),
	'(0,t,0,0,,0,,0)',
	'a new table: no items, its index listed, an empty stream, no consumer, no TTL, no backfill');
SELECT is((SELECT (stream_label, stream_records, index_bytes, index_sizes)::text
	FROM table_stats WHERE table_name = 'stats_other'),
	'(,0,0,{})', 'a table without stream or index');

-- five items, two of them expired at T = 2100-01-01 00:00:00 UTC
SELECT put_item(jsonb_build_object('TableName', 'stats_t', 'Item',
	jsonb_build_object('pk', jsonb_build_object('S', 'k' || i), 'g', jsonb_build_object('S', 'g' || (i % 3)),
		'pad', jsonb_build_object('S', repeat('x', 3000)),
		'exp', jsonb_build_object('N', CASE WHEN i <= 2 THEN '4102444700' ELSE '4102444900' END))))
	FROM generate_series(1, 5) i \g /dev/null
ANALYZE item_data.stats_t;

SELECT is((SELECT items_estimate FROM table_stats WHERE table_name = 'stats_t'), 5::bigint,
	'after ANALYZE, the estimate counts the five items');
SELECT is((SELECT table_bytes FROM table_stats WHERE table_name = 'stats_t'),
	pg_total_relation_size('item_data.stats_t'), 'table_bytes: the table with its TOAST and key index');
SELECT is((SELECT index_bytes FROM table_stats WHERE table_name = 'stats_t'),
	(SELECT sum(pg_total_relation_size(relid))::bigint FROM indexes WHERE table_name = 'stats_t'),
	'index_bytes: the sum of the index tables');
SELECT is((SELECT (index_sizes->>'by_g')::bigint FROM table_stats WHERE table_name = 'stats_t'),
	(SELECT pg_total_relation_size(relid) FROM indexes WHERE table_name = 'stats_t' AND index_name = 'by_g'),
	'index_sizes: each index by name');
SELECT cmp_ok((SELECT index_bytes FROM table_stats WHERE table_name = 'stats_t'), '>', 8192::bigint,
	'the index grew with the items');
SELECT is((SELECT stream_records FROM table_stats WHERE table_name = 'stats_t'), 5::bigint,
	'five stream records');

-- a consumer that fails: its lag and its error
CREATE FUNCTION public.stats_failing_consumer(records jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'downstream is down';
END
$$;
CREATE ROLE item_table_stats_consumer;
GRANT SELECT ON item_data.stats_t TO item_table_stats_consumer;
SET ROLE item_table_stats_consumer;
SELECT is(item_table.add_stream_consumer('stats_t', 'public.stats_failing_consumer(jsonb)', 'stats_c'), 'stats_c', 'a consumer');
RESET ROLE;
SELECT is((SELECT (stream_consumers, stream_lag_records, stream_consumers_parked)::text FROM table_stats WHERE table_name = 'stats_t'),
	'(1,5,0)', 'the consumer lags by the five records');
SELECT cmp_ok((SELECT stream_lag_seconds FROM table_stats WHERE table_name = 'stats_t'), '>', 0::double precision,
	'and by the age of the oldest');
SELECT lives_ok($$SELECT run_stream_consumers(1)$$, 'a round of the consumers');
SELECT matches((SELECT last_consumer_error FROM table_stats WHERE table_name = 'stats_t'), 'downstream is down',
	'the last consumer error');
SELECT is((SELECT last_consumer_error_consumer FROM table_stats WHERE table_name = 'stats_t'), 'stats_c',
	'and whose it is');

-- Time to Live deletions
SELECT ok(update_time_to_live('{"TableName": "stats_t", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "exp"}}') ? 'TimeToLiveSpecification',
	'TTL enabled');
SELECT is(expire_items('stats_t', '2100-01-01 00:00:00+00'), 2::bigint, 'two items expire');
SELECT is((SELECT (ttl_status, ttl_items_deleted, ttl_last_deleted_at IS NOT NULL)::text FROM table_stats WHERE table_name = 'stats_t'),
	'(ENABLED,2,t)', 'the deletions are counted');

-- an index being built
SELECT ok(update_table('{"TableName": "stats_other", "AttributeDefinitions": [{"AttributeName": "h", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}}]}') ? 'TableDescription', 'an index is added');
SELECT is((SELECT (indexes_backfilling, backfill_items_done)::text FROM table_stats WHERE table_name = 'stats_other'),
	'(1,0)', 'its backfill is shown');

-- only the tables the caller may read
CREATE ROLE item_table_stats_reader;
GRANT SELECT ON item_data.stats_other TO item_table_stats_reader;
SET ROLE item_table_stats_reader;
SELECT is(ARRAY(SELECT table_name::text FROM item_table.table_stats WHERE table_name LIKE 'stats%'),
	ARRAY['stats_other'], 'a role sees only the tables it may read');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
