-- Vector indexes: deferred insertion into the HNSW graph.  A write puts
-- its vector in the index row's pending column (the graph is not touched);
-- SearchVectors reads the graph and, exactly, the pending rows; the
-- background worker (item_table.vector_drain_batch, which CALL
-- backfill_indexes runs too) moves pending vectors into the graph.  Here:
-- a write searched in its own transaction (pending), found again once
-- drained (embedding), an update of a drained row (only the new vector's
-- score), a delete of a pending row, verify() on both states, the results
-- equal to an exact search with pending and drained rows mixed, the
-- pending count in background_work, the drain's rights; the items read
-- from the item table (the index rows hold no copy); the graph built at
-- once by vector_build_graph (a bulk load).  In one transaction, rolled
-- back.  Skipped when pgvector is not installed.
SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS have_vector \gset
\if :have_vector
BEGIN;
SELECT plan(42);
SET search_path = item_table, public;
CREATE EXTENSION IF NOT EXISTS vector;

CREATE FUNCTION pg_temp.vec(i int, dims int DEFAULT 6) RETURNS real[] LANGUAGE sql AS $$
	SELECT array_agg(round(sin(i * 7.3 + d * 1.7)::numeric, 4)::real ORDER BY d) FROM generate_series(1, dims) d
$$;
CREATE FUNCTION pg_temp.attr(v real[]) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('L', jsonb_agg(jsonb_build_object('N', x::text))) FROM unnest(v) x
$$;
CREATE FUNCTION pg_temp.put(id text, v real[]) RETURNS jsonb LANGUAGE sql AS $$
	SELECT dynamodb('PutItem', jsonb_build_object('TableName', 'vpend', 'Item',
		jsonb_build_object('id', jsonb_build_object('S', id), 'emb', pg_temp.attr(v))))
$$;
CREATE FUNCTION pg_temp.search(idx text, v real[], k int) RETURNS jsonb LANGUAGE sql AS $$
	SELECT dynamodb('SearchVectors', jsonb_build_object('TableName', 'vpend', 'IndexName', idx, 'TopK', k,
		'SearchVector', (SELECT jsonb_agg(jsonb_build_object('N', x::text)) FROM unnest(v) x))) -> 'SearchResults'
$$;
CREATE FUNCTION pg_temp.ids(r jsonb) RETURNS text[] LANGUAGE sql AS $$
	SELECT array_agg(e -> 'Item' -> 'id' ->> 'S' ORDER BY o) FROM jsonb_array_elements(r) WITH ORDINALITY x(e, o)
$$;
-- the exact TopK over the items as they are (a brute-force ORDER BY distance)
CREATE FUNCTION pg_temp.exact(op text, v real[], k int) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE out text[];
BEGIN
	EXECUTE format('SELECT array_agg(id ORDER BY d, key) FROM (SELECT key, item -> ''id'' ->> ''S'' AS id,'
				   ' (SELECT array_agg((e ->> ''N'')::real) FROM jsonb_array_elements(item -> ''emb'' -> ''L'') e)::vector %s $1::vector AS d'
				   ' FROM item_data.vpend ORDER BY 3, key LIMIT $2) s', op)
		INTO out USING v, k;
	RETURN out;
END $$;
CREATE FUNCTION pg_temp.rel(idx text) RETURNS regclass LANGUAGE sql AS $$
	SELECT relid FROM vector_indexes WHERE table_name = 'vpend' AND index_name = idx
$$;
CREATE FUNCTION pg_temp.states(idx text) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE out int[];
BEGIN
	EXECUTE format('SELECT ARRAY[count(*) FILTER (WHERE pending IS NOT NULL), count(*) FILTER (WHERE embedding IS NOT NULL)]::int[] FROM %s',
				   pg_temp.rel(idx)) INTO out;
	RETURN out;
END $$;
CREATE FUNCTION pg_temp.state_of(idx text, id text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE out text;
BEGIN
	EXECUTE format('SELECT CASE WHEN pending IS NOT NULL THEN ''pending'' ELSE ''embedding'' END FROM %s'
				   ' WHERE key = item_key(jsonb_build_object(''S'', $1))', pg_temp.rel(idx)) INTO out USING id;
	RETURN out;
END $$;
CREATE FUNCTION pg_temp.drain(idx text, batch int DEFAULT 1000) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE total bigint := 0; n bigint;
BEGIN
	LOOP
		n := vector_drain_batch('vpend', idx, batch);
		total := total + n;
		EXIT WHEN n < batch;
	END LOOP;
	RETURN total;
END $$;

SELECT ok(dynamodb('CreateTable', '{"TableName": "vpend", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
	"VectorIndexes": [
		{"IndexName": "l2-idx", "VectorAttribute": {"AttributeName": "emb"}, "Dimensions": 6, "DistanceFunction": "EUCLIDEAN", "Projection": {"ProjectionType": "ALL"}},
		{"IndexName": "cos-idx", "VectorAttribute": {"AttributeName": "emb"}, "Dimensions": 6, "DistanceFunction": "COSINE", "Projection": {"ProjectionType": "KEYS_ONLY"}}]}')
	? 'TableDescription', 'a table with a EUCLIDEAN and a COSINE vector index');

-- 1. the index table's layout: embedding nullable, pending, exactly one of
-- them, and no copy of the item (a search reads it from the item table)
SELECT is((SELECT array_agg(attname || ':' || attnotnull ORDER BY attnum) FROM pg_attribute
			WHERE attrelid = pg_temp.rel('l2-idx') AND attnum > 0 AND NOT attisdropped),
	ARRAY['key:true', 'part:false', 'filters:true', 'embedding:false', 'pending:false'],
	'the index table: embedding may be NULL (not in the graph), pending beside it, no item copy');
SELECT ok((SELECT count(*) = 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE i.indrelid = pg_temp.rel('l2-idx') AND i.indpred IS NOT NULL),
	'a partial index finds the pending rows');

-- 2. a write is searchable in its own transaction, from pending
SELECT is((SELECT count(*)::int FROM (SELECT pg_temp.put('p' || lpad(i::text, 3, '0'), pg_temp.vec(i)) FROM generate_series(1, 150) i) s), 150,
	'150 PutItems');
SELECT is(pg_temp.states('l2-idx'), ARRAY[150, 0], 'every written vector waits in pending, none in the graph');
SELECT is(pg_temp.ids(pg_temp.search('l2-idx', pg_temp.vec(17), 1)), ARRAY['p017'],
	'a vector written in this transaction is found at once (pending)');
SELECT is(pg_temp.ids(pg_temp.search('l2-idx', pg_temp.vec(42), 10)), pg_temp.exact('<->', pg_temp.vec(42), 10),
	'all pending: the results are the exact search''s');
SELECT is(pg_temp.ids(pg_temp.search('cos-idx', pg_temp.vec(42), 10)), pg_temp.exact('<=>', pg_temp.vec(42), 10),
	'all pending, COSINE: the results are the exact search''s');
SELECT is((SELECT items_done::int FROM background_work WHERE work = 'vector index draining' AND index_name = 'l2-idx'), 150,
	'background_work shows the vectors waiting for the worker');
SELECT is((SELECT count(*)::int FROM verify('vpend')), 0, 'verify(): pending rows are consistent');

-- 3. draining: into the graph, found again
SELECT is(vector_drain_batch('vpend', 'l2-idx', 100), 100::bigint, 'a drain batch of 100 moves 100 vectors');
SELECT is(pg_temp.states('l2-idx'), ARRAY[50, 100], '50 pending, 100 in the graph');
SELECT is(pg_temp.ids(pg_temp.search('l2-idx', pg_temp.vec(42), 10)), pg_temp.exact('<->', pg_temp.vec(42), 10),
	'pending and drained mixed: the results are the exact search''s');
SELECT is(pg_temp.drain('l2-idx', 100) + pg_temp.drain('cos-idx'), 200::bigint, 'the rest of both indexes drained');
SELECT is(pg_temp.states('l2-idx'), ARRAY[0, 150], 'nothing pending, all in the graph');
SELECT is(pg_temp.state_of('l2-idx', 'p017') || ' ' || array_to_string(pg_temp.ids(pg_temp.search('l2-idx', pg_temp.vec(17), 1)), ','), 'embedding p017',
	'the vector written before is found again, from the graph');
SELECT is((SELECT count(*)::int FROM background_work WHERE work = 'vector index draining'), 0,
	'background_work: no vector waiting');
SELECT is((SELECT count(*)::int FROM verify('vpend')), 0, 'verify(): drained rows are consistent');

-- 4. an update of a drained row: only the new vector counts
SELECT pg_temp.put('p017', pg_temp.vec(1017));
SELECT is(pg_temp.state_of('l2-idx', 'p017'), 'pending', 'the updated item''s vector waits in pending again');
SELECT is((SELECT count(*)::int FROM jsonb_array_elements(pg_temp.search('l2-idx', pg_temp.vec(17), 150)) e
			WHERE e -> 'Item' -> 'id' ->> 'S' = 'p017'), 1,
	'a search over every item finds the updated item once');
SELECT is((SELECT round((e ->> 'Score')::numeric, 4) FROM jsonb_array_elements(pg_temp.search('l2-idx', pg_temp.vec(17), 150)) e
			WHERE e -> 'Item' -> 'id' ->> 'S' = 'p017'),
	round((pg_temp.vec(1017)::vector <-> pg_temp.vec(17)::vector)::numeric, 4),
	'its score is the new vector''s distance, not the old one''s');
SELECT is(pg_temp.ids(pg_temp.search('l2-idx', pg_temp.vec(1017), 1)), ARRAY['p017'], 'found by its new vector');

-- an update of other attributes leaves the index row (and the graph) alone,
-- on the API's direct path and through the trigger
SELECT dynamodb('UpdateItem', '{"TableName": "vpend", "Key": {"id": {"S": "p020"}},
	"UpdateExpression": "SET tag = :t", "ExpressionAttributeValues": {":t": {"S": "x"}}}');
UPDATE item_data.vpend SET item = item || '{"tag": {"S": "y"}}' WHERE key = item_key('{"S": "p023"}'::jsonb);
SELECT is(pg_temp.state_of('l2-idx', 'p020') || ' ' || pg_temp.state_of('l2-idx', 'p023'), 'embedding embedding',
	'updates of other attributes leave the vectors in the graph (no rewrite, no new pending)');
SELECT throws_ok($$SELECT dynamodb('PutItem', '{"TableName": "vpend", "Item": {"id": {"S": "p020"}, "emb": {"S": "no vector"}}}')$$,
	'XD001', NULL, 'a write of an item whose vector is not one is still refused');

-- 5. a delete of a pending row
SELECT pg_temp.put('q001', pg_temp.vec(5000));
SELECT dynamodb('DeleteItem', '{"TableName": "vpend", "Key": {"id": {"S": "q001"}}}');
SELECT is(pg_temp.ids(pg_temp.search('l2-idx', pg_temp.vec(5000), 150)) @> ARRAY['q001'], false,
	'a pending row deleted with its item is not found');

-- 6. more writes over drained rows, mixed, against the exact search
SELECT count(*) FROM (SELECT pg_temp.put('p' || lpad(i::text, 3, '0'), pg_temp.vec(i + 300)) FROM generate_series(1, 150, 3) i) s;
SELECT is((SELECT bool_and(pg_temp.ids(pg_temp.search('l2-idx', pg_temp.vec(q), 8)) = pg_temp.exact('<->', pg_temp.vec(q), 8)
					   AND pg_temp.ids(pg_temp.search('cos-idx', pg_temp.vec(q), 8)) = pg_temp.exact('<=>', pg_temp.vec(q), 8))
			 FROM generate_series(400, 420) q), true,
	'21 searches over updated (pending) and drained rows: the exact search''s results, EUCLIDEAN and COSINE');
SELECT is((SELECT count(*)::int FROM verify('vpend')), 0, 'verify(): pending and drained rows mixed are consistent');

-- 7. verify() sees a row with both or neither
SELECT throws_ok(format('UPDATE %s SET pending = embedding WHERE pending IS NULL', pg_temp.rel('l2-idx')), '23514', NULL,
	'a row cannot hold its vector in both places');

-- 8. the drain is the table owner's
CREATE ROLE vpend_other;
SET LOCAL ROLE vpend_other;
SELECT throws_ok($$SELECT vector_drain_batch('vpend', 'l2-idx', 10)$$, '42501', NULL, 'vector_drain_batch needs the table''s ownership');
SELECT throws_ok($$SELECT vector_build_graph('vpend', 'l2-idx')$$, '42501', NULL, 'vector_build_graph needs the table''s ownership');
RESET ROLE;

-- 9. the items come from the item table: a reader with SELECT only gets
-- them, projected as the index projects them, as they are now
GRANT SELECT ON item_data.vpend TO vpend_other;
SELECT dynamodb('UpdateItem', '{"TableName": "vpend", "Key": {"id": {"S": "p019"}},
	"UpdateExpression": "SET note = :n", "ExpressionAttributeValues": {":n": {"S": "read from the item table"}}}');
SET LOCAL ROLE vpend_other;
SELECT is(pg_temp.search('l2-idx', pg_temp.vec(19 + 300), 1) -> 0 -> 'Item' -> 'note' ->> 'S', 'read from the item table',
	'a reader with SELECT on the table gets the item as it is (ProjectionType ALL)');
SELECT is(pg_temp.search('cos-idx', pg_temp.vec(19 + 300), 1) -> 0 -> 'Item', '{"id": {"S": "p019"}}',
	'KEYS_ONLY: the key only');
RESET ROLE;

-- 10. the graph built at once (a bulk load): vector_build_graph
SELECT count(*) FROM (SELECT pg_temp.put('b' || lpad(i::text, 4, '0'), pg_temp.vec(i + 2000)) FROM generate_series(1, 1200) i) s;
CREATE TEMP TABLE before_build AS
	SELECT pg_temp.states('l2-idx') AS states,
		   (SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			  JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = pg_temp.rel('l2-idx') AND a.amname = 'hnsw') AS def;
SELECT is(vector_build_graph('vpend', 'l2-idx', true), (SELECT states[1]::bigint FROM before_build),
	'when_cheaper, more pending than in the graph: every pending vector moved');
SELECT is(pg_temp.states('l2-idx'), (SELECT ARRAY[0, states[1] + states[2]] FROM before_build), 'nothing pending, all in the graph');
SELECT is((SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			  JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = pg_temp.rel('l2-idx') AND a.amname = 'hnsw'),
	(SELECT def FROM before_build), 'the HNSW index built again from its own definition');
SELECT is((SELECT bool_and(pg_temp.ids(pg_temp.search('l2-idx', pg_temp.vec(q), 8)) = pg_temp.exact('<->', pg_temp.vec(q), 8))
			 FROM generate_series(2100, 2110) q), true,
	'11 searches on the rebuilt graph: the exact search''s results');
SELECT pg_temp.put('c' || i, pg_temp.vec(i + 9000)) FROM generate_series(1, 5) i;
SELECT is(vector_build_graph('vpend', 'l2-idx', true), 0::bigint, 'when_cheaper, 5 pending: nothing done');
SELECT is(pg_temp.states('l2-idx') OPERATOR(pg_catalog.&&) ARRAY[5], true, 'the 5 still pending');
CREATE TEMP TABLE cos_before AS SELECT pg_temp.states('cos-idx') AS states;
SELECT is(vector_build_graph('vpend', 'cos-idx'), (SELECT states[1]::bigint FROM cos_before),
	'forced, fewer pending than in the graph: every pending vector of the COSINE index moved');
SELECT is(pg_temp.states('cos-idx'), (SELECT ARRAY[0, states[1] + states[2]] FROM cos_before), 'COSINE: nothing pending');
SELECT is(pg_temp.ids(pg_temp.search('cos-idx', pg_temp.vec(2050), 1)), ARRAY['b0050'], 'found in the rebuilt COSINE graph');
SELECT is((SELECT count(*)::int FROM verify('vpend')), 0, 'verify(): consistent after the builds');

SELECT * FROM finish();
ROLLBACK;
\else
SELECT plan(1);
SELECT skip('pgvector is not installed (build it from the vendored source, or install postgresql-NN-pgvector): vector index tests skipped', 1);
\endif
