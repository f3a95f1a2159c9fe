-- Vector indexes added and removed by UpdateTable (VectorIndexUpdates):
-- the request's shape and rules with their messages, the index CREATING
-- then built batch by batch (item_table.vector_backfill_batch, which the
-- background worker and CALL backfill_indexes run) while items are
-- written, inserted, changed and deleted on both sides of the build's
-- position, ACTIVE at the end with every item once (verify(), the exact
-- search), Delete; then streams (no vector index rows in their records),
-- Time to Live (expired items leave the index) and the billing mode.
-- In one transaction, rolled back: the worker never sees this work (the
-- stress step vector_online.sh runs the worker's build, and kill -9).
-- Skipped when pgvector is not installed.
SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS have_vector \gset
\if :have_vector
BEGIN;
SELECT plan(45);
SET search_path = item_table, public;
CREATE EXTENSION IF NOT EXISTS vector;

CREATE FUNCTION pg_temp.vec(i int, dims int DEFAULT 4) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('L', jsonb_agg(jsonb_build_object('N', round(sin(i * 7 + d)::numeric, 4)::text) ORDER BY d))
	  FROM generate_series(1, dims) d
$$;
CREATE FUNCTION pg_temp.put(i int, with_vec boolean DEFAULT true) RETURNS jsonb LANGUAGE sql AS $$
	SELECT dynamodb('PutItem', jsonb_build_object('TableName', 'vup', 'Item',
		jsonb_build_object('id', jsonb_build_object('S', 'k' || lpad(i::text, 4, '0')), 'g', jsonb_build_object('S', 'g' || (i % 2)))
		|| CASE WHEN with_vec THEN jsonb_build_object('emb', pg_temp.vec(i)) ELSE '{}' END))
$$;
CREATE FUNCTION pg_temp.upd(req jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT dynamodb('UpdateTable', jsonb_build_object('TableName', 'vup') || req)
$$;
CREATE FUNCTION pg_temp.create_spec(name text, dims int DEFAULT 4, dist text DEFAULT 'EUCLIDEAN') RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('VectorIndexUpdates', jsonb_build_array(jsonb_build_object('Create', jsonb_build_object(
		'IndexName', name, 'VectorAttribute', '{"AttributeName": "emb"}'::jsonb, 'Dimensions', dims,
		'DistanceFunction', dist, 'Projection', '{"ProjectionType": "ALL"}'::jsonb))))
$$;
CREATE FUNCTION pg_temp.vi(name text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT d FROM jsonb_array_elements(dynamodb('DescribeTable', '{"TableName": "vup"}') -> 'Table' -> 'VectorIndexes') d
	 WHERE d ->> 'IndexName' = name
$$;
CREATE FUNCTION pg_temp.build(name text, batch int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE n int := 0;
BEGIN
	WHILE vector_backfill_batch('vup', name, batch) LOOP
		n := n + 1;
	END LOOP;
	RETURN n + 1;
END $$;

SELECT ok(dynamodb('CreateTable', '{"TableName": "vup", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}') ? 'TableDescription',
	'a table with a GSI and a stream, no vector index');
SELECT is((SELECT count(*)::int FROM (SELECT pg_temp.put(i, i % 10 <> 0) FROM generate_series(1, 100) i) s), 100,
	'100 items, 90 of them with a 4-dimension vector');
SELECT lives_ok($$SELECT dynamodb('PutItem', '{"TableName": "vup", "Item": {"id": {"S": "k9999"}, "emb": {"S": "not a vector"}}}')$$,
	'before any vector index, an item whose emb is no vector is written');

-- 1. the request's shape and rules
SELECT throws_ok($$SELECT pg_temp.upd('{"VectorIndexUpdates": [{}]}')$$, 'XD001',
	'ValidationException: One or more parameter values were invalid: One of VectorIndexUpdate.Create or VectorIndexUpdate.Delete must be specified',
	'an update with neither Create nor Delete');
SELECT throws_ok($$SELECT pg_temp.upd('{"VectorIndexUpdates": [{"Create": {}, "Delete": {"IndexName": "abc"}}]}')$$, 'XD001',
	'ValidationException: One or more parameter values were invalid: One of VectorIndexUpdate.Create or VectorIndexUpdate.Delete must be specified',
	'an update with both');
SELECT throws_ok($$SELECT pg_temp.upd(pg_temp.create_spec('vi1') || '{"GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "by-g"}}]}')$$, 'XD015',
	'LimitExceededException: Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table',
	'a vector index and a GSI change in one request: one online index change at a time');
SELECT throws_ok($$SELECT pg_temp.upd(pg_temp.create_spec('vi1', 0))$$, 'XD001',
	'ValidationException: 1 validation error detected: Value ''0'' at ''vectorIndexUpdates.1.member.create.dimensions'' failed to satisfy constraint: Member must have value greater than or equal to 1',
	'the model''s constraints, at the Create''s place in the request');
SELECT throws_ok($$SELECT pg_temp.upd(pg_temp.create_spec('by-g'))$$, 'XD001',
	'ValidationException: One or more parameter values were invalid: Attempting to create an index which already exists',
	'the name of a GSI');
SELECT throws_ok($$SELECT pg_temp.upd('{"VectorIndexUpdates": [{"Delete": {"IndexName": "nope"}}]}')$$, 'XD004',
	'ResourceNotFoundException: Requested resource not found: Requested index nope not found',
	'Delete of an unknown vector index');
SELECT throws_ok($$SELECT pg_temp.upd('{"VectorIndexUpdates": [{"Delete": {"IndexName": "by-g"}}]}')$$, 'XD004',
	'ResourceNotFoundException: Requested resource not found: Requested index by-g not found',
	'VectorIndexUpdates Delete does not delete a GSI');

-- 2. Create: CREATING, not searchable, kept for writes, built batch by batch
SET LOCAL item_table.index_backfill = manual;
SELECT is(pg_temp.upd(pg_temp.create_spec('vi1')) -> 'TableDescription' -> 'VectorIndexes' -> 0 ->> 'IndexStatus', 'CREATING',
	'UpdateTable answers the new vector index CREATING');
SELECT is((SELECT status || ' ' || backfill_by FROM vector_indexes WHERE table_name = 'vup'), 'CREATING manual',
	'the catalog: CREATING, for CALL backfill_indexes (item_table.index_backfill = manual)');
SELECT is((SELECT work || ' ' || done_by || ' ' || items_done FROM background_work WHERE table_name = 'vup'), 'vector index build manual 0',
	'background_work lists the build');
SELECT is((pg_temp.vi('vi1') ->> 'ItemCount')::int, 0, 'nothing is in it before the build');
SELECT is(pg_temp.vi('vi1') -> 'Backfilling', 'true', 'DescribeTable: Backfilling while CREATING');
SELECT throws_ok($$SELECT dynamodb('SearchVectors', jsonb_build_object('TableName', 'vup', 'IndexName', 'vi1', 'TopK', 3, 'SearchVector', pg_temp.vec(1) -> 'L'))$$,
	'XD001', 'ValidationException: The vector index is not ACTIVE: vi1', 'a CREATING index is not searched');
SELECT throws_ok($$SELECT pg_temp.upd(pg_temp.create_spec('vi1'))$$, 'XD001',
	'ValidationException: One or more parameter values were invalid: Attempting to create an index which already exists',
	'the same vector index again');
SELECT throws_ok($$SELECT pg_temp.upd(pg_temp.create_spec('vi2', 5))$$, 'XD001',
	'ValidationException: One or more parameter values were invalid: Vector indexes on the same attribute must have the same number of dimensions. Attribute: emb',
	'a second index on the attribute with other dimensions');

-- the first batch: k0001 .. k0030
SELECT is(vector_backfill_batch('vup', 'vi1', 30), true, 'a batch of 30: more to do');
SELECT is((SELECT backfilled::int FROM vector_indexes WHERE index_name = 'vi1'), 30, 'the catalog counts the items read');
SELECT is((pg_temp.vi('vi1') ->> 'ItemCount')::int, 27, 'the first 30 items are in (27 with a vector)');
-- writes on both sides of the position while the index is CREATING
SELECT pg_temp.put(5000);                              -- new, ahead
SELECT pg_temp.put(10);                                -- behind: had no vector, has one now
SELECT dynamodb('DeleteItem', '{"TableName": "vup", "Key": {"id": {"S": "k0003"}}}');   -- behind
SELECT dynamodb('DeleteItem', '{"TableName": "vup", "Key": {"id": {"S": "k0050"}}}');   -- ahead
SELECT dynamodb('UpdateItem', jsonb_build_object('TableName', 'vup', 'Key', '{"id": {"S": "k0060"}}'::jsonb,
	'UpdateExpression', 'SET emb = :e', 'ExpressionAttributeValues', jsonb_build_object(':e', pg_temp.vec(600))));  -- ahead
SELECT dynamodb('UpdateItem', '{"TableName": "vup", "Key": {"id": {"S": "k0011"}}, "UpdateExpression": "REMOVE emb"}');  -- behind
UPDATE item_data.vup SET item = item || jsonb_build_object('emb', pg_temp.vec(700)) WHERE key = item_key('{"S": "k0007"}'::jsonb);  -- plain SQL, behind
SELECT is((pg_temp.vi('vi1') ->> 'ItemCount')::int, 28,
	'writes behind the position are kept at once (+k0010 +k5000 -k0003 -k0011), ahead of it too');
SELECT is(pg_temp.build('vi1', 30), 3, 'the rest in three batches');
SELECT throws_ok($$SELECT dynamodb('PutItem', '{"TableName": "vup", "Item": {"id": {"S": "k9998"}, "emb": {"S": "not a vector"}}}')$$, 'XD001',
	'ValidationException: One or more parameter values were invalid: The vector attribute emb must be a list of 4 numbers that fit a 32-bit float. IndexName: vi1',
	'with the index, such a write is refused');
SELECT is(vector_backfill_batch('vup', 'vi1', 30), false, 'nothing left to build');
SELECT is(pg_temp.vi('vi1') ->> 'IndexStatus' || ' ' || coalesce(pg_temp.vi('vi1') ->> 'Backfilling', 'none'), 'ACTIVE none', 'ACTIVE when built, no longer Backfilling');
SELECT is((SELECT count(*)::int FROM verify('vup')), 0, 'verify(): every item once, none missing, none stale');
SELECT is((pg_temp.vi('vi1') ->> 'ItemCount')::int,
	(SELECT count(*)::int FROM item_data.vup WHERE item -> 'emb' ? 'L'), 'the index holds exactly the items with a vector (the build leaves the item without one out)');
SELECT is((SELECT array_agg(r -> 'Item' -> 'id' ->> 'S' ORDER BY o) FROM jsonb_array_elements(dynamodb('SearchVectors',
			jsonb_build_object('TableName', 'vup', 'IndexName', 'vi1', 'TopK', 5, 'SearchVector', pg_temp.vec(600) -> 'L')) -> 'SearchResults')
			WITH ORDINALITY t(r, o)),
	(SELECT array_agg(id ORDER BY d, id) FROM (
		SELECT item -> 'id' ->> 'S' AS id,
			   (SELECT array_agg((e ->> 'N')::real) FROM jsonb_array_elements(item -> 'emb' -> 'L') e)::vector
			   <-> (SELECT array_agg((e ->> 'N')::real) FROM jsonb_array_elements(pg_temp.vec(600) -> 'L') e)::vector AS d
		  FROM item_data.vup WHERE item -> 'emb' ? 'L' ORDER BY 2, 1 LIMIT 5) s),
	'SearchVectors on the built index: the exact top 5 (k0060 first, its vector changed during the build)');

-- 3. rights: a build batch is the table owner's
CREATE ROLE vup_stranger;
GRANT USAGE ON SCHEMA item_table TO vup_stranger;
SET LOCAL ROLE vup_stranger;
SELECT throws_ok($$SELECT vector_backfill_batch('vup', 'vi1', 10)$$, '42501', NULL, 'vector_backfill_batch needs the table''s ownership');
RESET ROLE;

-- 4. Delete: the index and its table go; a build in progress stops
SELECT ok(NOT (pg_temp.upd('{"VectorIndexUpdates": [{"Delete": {"IndexName": "vi1"}}]}') -> 'TableDescription' ? 'VectorIndexes'),
	'Delete: the table has no vector index left');
SELECT is((SELECT count(*)::int FROM vector_indexes WHERE table_name = 'vup'), 0, 'the catalog row is gone');
SELECT is((SELECT count(*)::int FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = 'item_data' AND c.relname = 'vector_' || md5('vup/vi1')), 0, 'the index table is gone');
SELECT lives_ok($$SELECT pg_temp.put(1)$$, 'writes go on without it');
SELECT is(pg_temp.upd(pg_temp.create_spec('vi3', 4, 'COSINE')) -> 'TableDescription' -> 'VectorIndexes' -> 0 ->> 'IndexStatus', 'CREATING',
	'a new vector index (COSINE)');
SELECT is(vector_backfill_batch('vup', 'vi3', 10), true, 'its build under way');
SELECT lives_ok($$SELECT pg_temp.upd('{"VectorIndexUpdates": [{"Delete": {"IndexName": "vi3"}}]}')$$, 'deleted while CREATING');
SELECT is(vector_backfill_batch('vup', 'vi3', 10), false, 'the build of a deleted index has nothing to do');

-- 5. streams: the index rows never show in stream records
SELECT lives_ok($$SELECT pg_temp.upd(pg_temp.create_spec('vi4')); SELECT pg_temp.build('vi4', 1000)$$, 'a vector index built on the table with a stream');
SELECT is((SELECT count(*)::int FROM stream_records r JOIN streams s USING (stream_id) WHERE s.table_name <> 'vup'), 0,
	'no stream record of any table but the item table');
SELECT is((SELECT count(*)::int FROM stream_records r JOIN streams s USING (stream_id)
			WHERE s.table_name = 'vup' AND (coalesce(r.new_image, r.old_image) ? 'id') IS NOT TRUE), 0,
	'every record of the item table''s stream is an item''s (no index row)');

-- 6. Time to Live: expired items leave the vector index
SELECT lives_ok($$SELECT update_time_to_live('{"TableName": "vup", "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}');
	UPDATE item_data.vup SET item = item || '{"exp": {"N": "4102444700"}}' WHERE item -> 'g' ->> 'S' = 'g1'$$, 'TTL on, half the items expiring');
SELECT ok(expire_items('vup', '2100-01-01 00:00:00+00') > 0, 'expire_items deletes them');
SELECT is((SELECT count(*)::int FROM verify('vup')), 0, 'verify(): the vector index lost exactly the expired items');

-- 7. the billing mode: vector indexes are for on-demand tables
SELECT throws_ok($$SELECT pg_temp.upd('{"BillingMode": "PROVISIONED", "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}')$$, 'XD001',
	'ValidationException: One or more parameter values were invalid: Vector indexes are supported only for tables with BillingMode PAY_PER_REQUEST',
	'a table with vector indexes stays on demand');

SELECT * FROM finish();
ROLLBACK;
\else
SELECT plan(1);
SELECT skip('pgvector is not installed (build it from the vendored source, or install postgresql-NN-pgvector): vector index tests skipped', 1);
\endif
