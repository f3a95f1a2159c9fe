-- ALTER EXTENSION item_table UPDATE from the released 1.1: the background
-- work of 1.2 (resumable backfill, Time to Live, background_work) is there
-- afterwards and works on tables made under 1.1, including an index 1.1
-- left CREATING.  (update_1_0.sql checks that the objects match a fresh
-- installation.)
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET search_path = public;

DROP EXTENSION item_table CASCADE;
CREATE EXTENSION item_table VERSION '1.1';
SELECT item_table.create_table('{"TableName": "old", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created \gset
SELECT count(item_table.put_item(jsonb_build_object('TableName', 'old', 'Item',
	jsonb_build_object('pk', jsonb_build_object('S', 'k' || i), 'g', jsonb_build_object('S', 'g' || (i % 3)),
		'exp', jsonb_build_object('N', (4102444000 + i)::text))))) AS put FROM generate_series(1, 30) i \gset
-- an index 1.1 created and left for the procedure
SELECT item_table.update_table('{"TableName": "old", "AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}}]}') IS NOT NULL AS updated \gset

-- the state right after the update, read before any worker can act on it
BEGIN;
ALTER EXTENSION item_table UPDATE TO '1.2';
SELECT (SELECT backfill_by || ' ' || status || ' ' || coalesce(backfill_after::text, 'start')
		FROM item_table.indexes WHERE index_name = 'by_g') AS idx_state,
	(SELECT count(*) FROM item_table.background_work WHERE index_name = 'by_g') AS listed \gset
COMMIT;

-- the worker fills the index 1.1 left, by itself (started on demand here,
-- in case the cluster does not preload the library)
SELECT item_table.start_worker() AS started \gset
DO $$
BEGIN
	FOR i IN 1 .. 600 LOOP
		EXIT WHEN (SELECT status FROM item_table.indexes WHERE index_name = 'by_g') = 'ACTIVE';
		PERFORM pg_sleep(0.05);
	END LOOP;
END $$;

BEGIN;
SELECT plan(10);
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'item_table'), '1.2', 'updated to 1.2');
SELECT is(:'idx_state'::text, 'worker CREATING start', 'the index 1.1 left CREATING is the worker''s, from the start');
SELECT is(:'listed'::text, '1', 'background_work lists it');
SELECT is((SELECT status FROM item_table.indexes WHERE index_name = 'by_g'), 'ACTIVE', 'the worker made it ACTIVE');
SELECT is((SELECT count(*) FROM item_table.verify('old')), 0::bigint, 'and it is consistent');
SELECT is(item_table.describe_time_to_live('{"TableName": "old"}'),
	'{"TimeToLiveDescription": {"TimeToLiveStatus": "DISABLED"}}'::jsonb, 'DescribeTimeToLive on a 1.1 table');
SELECT is(item_table.dynamodb('UpdateTimeToLive', '{"TableName": "old", "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}'),
	'{"TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}'::jsonb, 'UpdateTimeToLive through the dispatcher');
SELECT is(item_table.expire_items('old', '2100-01-01 00:00:00+00', 100), 30::bigint, 'expiry deletes the expired items of a 1.1 table');
SELECT is((SELECT count(*) FROM item_data."old#by_g"), 0::bigint, 'and their index entries');
SELECT ok(has_function_privilege('public', 'item_table.expire_items(text, timestamptz, integer)', 'EXECUTE')
	AND NOT has_function_privilege('public', 'item_table.start_worker()', 'EXECUTE'),
	'expire_items is public (it checks ownership), start_worker is not');
SELECT * FROM finish();
ROLLBACK;
