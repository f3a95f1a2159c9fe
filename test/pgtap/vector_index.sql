-- Vector indexes (CreateTable VectorIndexes, SearchVectors) on pgvector:
-- the answer without pgvector, CreateTable's rules and messages,
-- DescribeTable, upkeep on every write (sparse: an item without the vector
-- attribute is not in the index; a write of an invalid vector is refused), SearchVectors' results against an exact
-- search (a brute-force ORDER BY distance over the same items) for each
-- distance function, the HASH search-schema condition, projections,
-- ConsumedCapacity, rights, and the rows of item_table.vector_search()
-- joined with item reads.  Skipped when pgvector is not installed.
SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS have_vector \gset
\if :have_vector
BEGIN;
SELECT plan(61);
SET search_path = item_table, public;
-- (rolled back at the end, as everything here)
DROP EXTENSION IF EXISTS vector CASCADE;

CREATE FUNCTION pg_temp.spec(extra jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('TableName', 'vtab', 'BillingMode', 'PAY_PER_REQUEST',
		'AttributeDefinitions', '[{"AttributeName": "id", "AttributeType": "S"}]'::jsonb,
		'KeySchema', '[{"AttributeName": "id", "KeyType": "HASH"}]'::jsonb) || extra
$$;
CREATE FUNCTION pg_temp.vi(name text, dims int, dist text, more jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('IndexName', name, 'VectorAttribute', '{"AttributeName": "emb"}'::jsonb,
		'Dimensions', dims, 'DistanceFunction', dist, 'Projection', '{"ProjectionType": "ALL"}'::jsonb) || more
$$;

-- 1. without pgvector: the table is refused with what to install
SELECT throws_ok($$SELECT dynamodb('CreateTable', pg_temp.spec(jsonb_build_object('VectorIndexes',
		jsonb_build_array(pg_temp.vi('emb-idx', 3, 'COSINE')))))$$,
	'XD001', 'ValidationException: Vector indexes need the pgvector extension in this database: install pgvector (the postgresql-NN-pgvector package, or from source) and run CREATE EXTENSION vector',
	'without pgvector a vector index is refused, saying what to install');
SELECT lives_ok($$SELECT dynamodb('CreateTable', pg_temp.spec('{}')); SELECT dynamodb('DeleteTable', '{"TableName": "vtab"}')$$,
	'without pgvector a table without vector indexes is made as ever');

CREATE EXTENSION vector;

-- 2. CreateTable's rules
SELECT throws_ok($$SELECT dynamodb('CreateTable', pg_temp.spec(jsonb_build_object('VectorIndexes',
		jsonb_build_array(pg_temp.vi('emb-idx', 0, 'COSINE')))))$$,
	'XD001', 'ValidationException: 1 validation error detected: Value ''0'' at ''vectorIndexes.1.member.dimensions'' failed to satisfy constraint: Member must have value greater than or equal to 1',
	'Dimensions below 1');
SELECT throws_ok($$SELECT dynamodb('CreateTable', pg_temp.spec(jsonb_build_object('VectorIndexes',
		jsonb_build_array(pg_temp.vi('emb-idx', 4097, 'COSINE')))))$$,
	'XD001', 'ValidationException: 1 validation error detected: Value ''4097'' at ''vectorIndexes.1.member.dimensions'' failed to satisfy constraint: Member must have value less than or equal to 4096',
	'Dimensions above 4096');
SELECT throws_ok($$SELECT dynamodb('CreateTable', pg_temp.spec(jsonb_build_object('VectorIndexes',
		jsonb_build_array(pg_temp.vi('ab', 3, 'MANHATTAN')))))$$,
	'XD001', 'ValidationException: 2 validation errors detected: Value ''ab'' at ''vectorIndexes.1.member.indexName'' failed to satisfy constraint: Member must have length greater than or equal to 3; Value ''MANHATTAN'' at ''vectorIndexes.1.member.distanceFunction'' failed to satisfy constraint: Member must satisfy enum value set: [COSINE, DOT_PRODUCT, EUCLIDEAN]',
	'a short name and an unknown distance function, collected');
SELECT throws_ok($$SELECT dynamodb('CreateTable', pg_temp.spec(jsonb_build_object('VectorIndexes',
		jsonb_build_array(pg_temp.vi('emb-idx', 3, 'COSINE') - 'Projection'))))$$,
	'XD001', 'ValidationException: 1 validation error detected: Value null at ''vectorIndexes.1.member.projection'' failed to satisfy constraint: Member must not be null',
	'Projection is required');
SELECT throws_ok($$SELECT dynamodb('CreateTable', pg_temp.spec(jsonb_build_object('VectorIndexes',
		jsonb_build_array(pg_temp.vi('emb-idx', 3, 'COSINE'), pg_temp.vi('emb-idx', 3, 'EUCLIDEAN')))))$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Duplicate index name: emb-idx',
	'two vector indexes of one name');
SELECT throws_ok($$SELECT dynamodb('CreateTable', pg_temp.spec(jsonb_build_object('VectorIndexes',
		jsonb_build_array(pg_temp.vi('emb-idx', 3, 'COSINE'), pg_temp.vi('emb-l2', 4, 'EUCLIDEAN')))))$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Vector indexes on the same attribute must have the same number of dimensions. Attribute: emb',
	'one vector attribute, two dimensions');
SELECT throws_ok($$SELECT dynamodb('CreateTable', pg_temp.spec(jsonb_build_object('VectorIndexes',
		jsonb_build_array(pg_temp.vi('emb-idx', 3, 'COSINE', '{"SearchSchema": [{"AttributeName": "a", "SearchSchemaElementType": "HASH"}, {"AttributeName": "b", "SearchSchemaElementType": "HASH"}]}')))))$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: A vector index can have at most one HASH search schema element. IndexName: emb-idx',
	'two HASH search-schema elements');
SELECT throws_ok($$SELECT dynamodb('CreateTable', pg_temp.spec(jsonb_build_object('VectorIndexes',
		jsonb_build_array(pg_temp.vi('emb-idx', 3, 'COSINE')), 'BillingMode', 'PROVISIONED',
		'ProvisionedThroughput', '{"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}'::jsonb)))$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Vector indexes are supported only for tables with BillingMode PAY_PER_REQUEST',
	'vector indexes are for on-demand tables');
SELECT ok(NOT EXISTS (SELECT 1 FROM tables WHERE table_name = 'vtab'), 'a refused CreateTable leaves no table');

-- 3. the table: three indexes over one 8-dimension attribute
SELECT is(jsonb_array_length(dynamodb('CreateTable', pg_temp.spec(jsonb_build_object(
		'AttributeDefinitions', '[{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "cat", "AttributeType": "S"}]'::jsonb,
		'VectorIndexes', jsonb_build_array(
		pg_temp.vi('cos-idx', 8, 'COSINE', '{"SearchSchema": [{"AttributeName": "cat", "SearchSchemaElementType": "HASH"}]}'),
		pg_temp.vi('l2-idx', 8, 'EUCLIDEAN', '{"Projection": {"ProjectionType": "KEYS_ONLY"}}'),
		pg_temp.vi('dot-idx', 8, 'DOT_PRODUCT', '{"Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["n"]}}')))))
		-> 'TableDescription' -> 'VectorIndexes'), 3, 'CreateTable answers the three vector indexes');
SELECT is((dynamodb('DescribeTable', '{"TableName": "vtab"}') -> 'Table' -> 'VectorIndexes' -> 0) - 'IndexSizeBytes',
	'{"IndexArn": "arn:aws:dynamodb:local:000000000000:table/vtab/index/cos-idx", "IndexName": "cos-idx", "ItemCount": 0,
	  "Dimensions": 8, "Projection": {"ProjectionType": "ALL"}, "IndexStatus": "ACTIVE",
	  "SearchSchema": [{"AttributeName": "cat", "SearchSchemaElementType": "HASH"}],
	  "VectorAttribute": {"AttributeName": "emb"}, "DistanceFunction": "COSINE"}'::jsonb,
	'DescribeTable describes a vector index');

-- 4. 120 items with vectors (seeded), and five without a valid one
SELECT setseed(0.34);
CREATE TEMP TABLE vecs AS
	SELECT i, 'c' || (i % 3) AS cat,
		   (SELECT array_agg(round((random() * 2 - 1)::numeric, 4)::real) FROM generate_series(1, 8) WHERE i > 0) AS v
	  FROM generate_series(1, 120) i;
SELECT lives_ok($$SELECT dynamodb('PutItem', jsonb_build_object('TableName', 'vtab', 'Item', jsonb_build_object(
		'id', jsonb_build_object('S', 'i' || i), 'cat', jsonb_build_object('S', cat), 'n', jsonb_build_object('N', i::text),
		'emb', jsonb_build_object('L', (SELECT jsonb_agg(jsonb_build_object('N', x::text)) FROM unnest(v) x)))))
	FROM vecs$$, '120 PutItems with vectors');
SELECT lives_ok($$
	SELECT dynamodb('PutItem', '{"TableName": "vtab", "Item": {"id": {"S": "x1"}}}');
	SELECT dynamodb('PutItem', '{"TableName": "vtab", "Item": {"id": {"S": "x5"}, "emb": {"L": [{"N": "0"}, {"N": "0"}, {"N": "0"}, {"N": "0"}, {"N": "0"}, {"N": "0"}, {"N": "0"}, {"N": "0"}]}}}')
	$$, 'an item without the vector attribute, and one with the zero vector, are written');
SELECT throws_ok(format($$SELECT dynamodb('PutItem', '{"TableName": "vtab", "Item": {"id": {"S": "x9"}, "emb": %s}}')$$, e), 'XD001',
	'ValidationException: One or more parameter values were invalid: The vector attribute emb must be a list of 8 numbers that fit a 32-bit float. IndexName: ' || i,
	'a write of ' || what || ' is refused')
  FROM (VALUES ('{"L": [{"N": "1"}, {"N": "2"}]}', 'cos-idx', 'a vector of other dimensions'),
			   ('{"L": [{"N": "1"}, {"N": "2"}, {"N": "3"}, {"N": "4"}, {"N": "5"}, {"N": "6"}, {"N": "7"}, {"S": "8"}]}', 'cos-idx', 'a list with a string'),
			   ('{"NS": ["1", "2", "3", "4", "5", "6", "7", "8"]}', 'cos-idx', 'a number set'),
			   ('{"L": [{"N": "1E+50"}, {"N": "2"}, {"N": "3"}, {"N": "4"}, {"N": "5"}, {"N": "6"}, {"N": "7"}, {"N": "8"}]}', 'cos-idx', 'a number beyond a 32-bit float')) v(e, i, what);
SELECT throws_ok($$UPDATE item_data.vtab SET item = item || '{"emb": {"S": "x"}}' WHERE key = item_key('{"S": "i1"}'::jsonb)$$, 'XD001', NULL,
	'a plain SQL write of an invalid vector is refused too');
SELECT is((SELECT array_agg((d ->> 'ItemCount')::int ORDER BY d ->> 'IndexName')
			 FROM jsonb_array_elements(dynamodb('DescribeTable', '{"TableName": "vtab"}') -> 'Table' -> 'VectorIndexes') d),
	ARRAY[120, 121, 121], 'sparse: only valid vectors are indexed (the zero vector not for COSINE)');

-- 5. SearchVectors against the exact search
CREATE FUNCTION pg_temp.q(i int) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_agg(jsonb_build_object('N', x::text)) FROM unnest((SELECT v FROM vecs WHERE vecs.i = q.i)) x
$$;
CREATE FUNCTION pg_temp.search(idx text, qi int, k int, extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
	SELECT dynamodb('SearchVectors', jsonb_build_object('TableName', 'vtab', 'IndexName', idx, 'TopK', k,
		'SearchVector', pg_temp.q(qi)) || extra)
$$;
CREATE FUNCTION pg_temp.ids(r jsonb) RETURNS text[] LANGUAGE sql AS $$
	SELECT array_agg(e -> 'Item' -> 'id' ->> 'S' ORDER BY o) FROM jsonb_array_elements(r -> 'SearchResults') WITH ORDINALITY t(e, o)
$$;
CREATE FUNCTION pg_temp.exact(op text, qi int, k int, only_cat text DEFAULT NULL) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE r text[];
BEGIN
	EXECUTE format('SELECT array_agg(id ORDER BY d, id) FROM (SELECT a.id, a.v::vector %s b.v::vector AS d
		FROM (SELECT ''i'' || i AS id, v, cat FROM vecs UNION ALL SELECT ''x5'', array_fill(0::real, ARRAY[8]), NULL) a, vecs b WHERE b.i = $1 AND ($3::text IS NULL OR a.cat = $3) ORDER BY 2, 1 LIMIT $2) s', op)
	  INTO r USING qi, k, only_cat;
	RETURN r;
END $$;

SELECT is(pg_temp.ids(pg_temp.search('l2-idx', q, 10)), pg_temp.exact('<->', q, 10), 'EUCLIDEAN: the exact top 10, query ' || q)
  FROM (VALUES (7), (50), (111)) s(q);
SELECT is(pg_temp.ids(pg_temp.search('dot-idx', q, 10)), pg_temp.exact('<#>', q, 10), 'DOT_PRODUCT: the exact top 10, query ' || q)
  FROM (VALUES (7), (50)) s(q);
SELECT is(pg_temp.ids(pg_temp.search('cos-idx', q, 10, '{"SearchConditionExpression": "cat = :c", "ExpressionAttributeValues": {":c": {"S": "c1"}}}')),
		  pg_temp.exact('<=>', q, 10, 'c1'), 'COSINE with the HASH condition: the exact top 10 of that partition, query ' || q)
  FROM (VALUES (7), (50)) s(q);
SELECT is(pg_temp.ids(pg_temp.search('l2-idx', 3, 200)), pg_temp.exact('<->', 3, 200), 'TopK beyond the index size: every indexed item, in order');

-- Scores: distances ascending, dot products descending, the query itself first
SELECT is((pg_temp.search('l2-idx', 9, 1) -> 'SearchResults' -> 0 ->> 'Score')::float8, 0::float8, 'EUCLIDEAN: the item itself scores 0');
SELECT ok((SELECT bool_and((a -> 'Score')::float8 <= (b -> 'Score')::float8)
			 FROM (SELECT e AS a, lead(e) OVER (ORDER BY o) AS b
					 FROM jsonb_array_elements(pg_temp.search('cos-idx', 9, 10, '{"SearchConditionExpression": "#c = :c", "ExpressionAttributeNames": {"#c": "cat"}, "ExpressionAttributeValues": {":c": {"S": "c0"}}}') -> 'SearchResults') WITH ORDINALITY t(e, o)) s
			WHERE b IS NOT NULL), 'COSINE: scores ascend (best first)');
SELECT ok((SELECT bool_and((a -> 'Score')::float8 >= (b -> 'Score')::float8)
			 FROM (SELECT e AS a, lead(e) OVER (ORDER BY o) AS b
					 FROM jsonb_array_elements(pg_temp.search('dot-idx', 9, 10) -> 'SearchResults') WITH ORDINALITY t(e, o)) s
			WHERE b IS NOT NULL), 'DOT_PRODUCT: scores descend (best first)');
SELECT is((pg_temp.search('dot-idx', 9, 1) -> 'SearchResults' -> 0 ->> 'Score')::float8,
		  (SELECT -(a.v::vector <#> b.v::vector) FROM vecs a, vecs b WHERE a.i = 9 AND b.i::text = ltrim((pg_temp.ids(pg_temp.search('dot-idx', 9, 1)))[1], 'i')),
		  'DOT_PRODUCT: the score is the inner product');

-- Projections
SELECT is(pg_temp.search('l2-idx', 9, 1) -> 'SearchResults' -> 0 -> 'Item', '{"id": {"S": "i9"}}', 'KEYS_ONLY projects the key');
SELECT is(pg_temp.search('dot-idx', 9, 1, '{"ProjectionExpression": "#n, id", "ExpressionAttributeNames": {"#n": "n"}}') -> 'SearchResults' -> 0 -> 'Item' ? 'n',
		  true, 'ProjectionExpression with names');
SELECT is(pg_temp.search('l2-idx', 9, 1, '{"ReturnConsumedCapacity": "TOTAL"}') -> 'ConsumedCapacity', '{"VectorSearchRequestBytes": 32}',
		  'ConsumedCapacity carries VectorSearchRequestBytes');

-- SearchVectors' own rules
SELECT throws_ok($$SELECT pg_temp.search('cos-idx', 1, 3)$$, 'XD001',
	'ValidationException: Invalid SearchConditionExpression: the HASH attribute of the search schema must be given with =: cat',
	'the HASH attribute is required');
SELECT throws_ok($$SELECT pg_temp.search('l2-idx', 1, 0)$$, 'XD001',
	'ValidationException: 1 validation error detected: Value ''0'' at ''topK'' failed to satisfy constraint: Member must have value greater than or equal to 1',
	'TopK at least 1');
SELECT throws_ok($$SELECT dynamodb('SearchVectors', '{"TableName": "vtab", "IndexName": "l2-idx", "TopK": 1, "SearchVector": [{"N": "1"}]}')$$, 'XD001',
	'ValidationException: Invalid SearchVector: the index l2-idx has 8 dimensions, the search vector has 1',
	'the search vector has the index''s dimensions');
SELECT throws_ok($$SELECT pg_temp.search('nope-idx', 1, 3)$$, 'XD001',
	'ValidationException: The table does not have the specified index: nope-idx', 'an unknown index');

-- 6. writes are searchable at once; updates and deletes leave the index
SELECT dynamodb('UpdateItem', '{"TableName": "vtab", "Key": {"id": {"S": "x1"}}, "UpdateExpression": "SET emb = :e",
	"ExpressionAttributeValues": {":e": {"L": [{"N": "9"}, {"N": "9"}, {"N": "9"}, {"N": "9"}, {"N": "9"}, {"N": "9"}, {"N": "9"}, {"N": "9"}]}}}');
SELECT is(pg_temp.ids(dynamodb('SearchVectors', '{"TableName": "vtab", "IndexName": "l2-idx", "TopK": 1,
	"SearchVector": [{"N": "9"}, {"N": "9"}, {"N": "9"}, {"N": "9"}, {"N": "9"}, {"N": "9"}, {"N": "9"}, {"N": "9"}]}')), ARRAY['x1'],
	'an UpdateItem that sets a vector is searchable at once');
DELETE FROM item_data.vtab WHERE key = item_key('{"S": "x1"}'::jsonb);
SELECT dynamodb('DeleteItem', '{"TableName": "vtab", "Key": {"id": {"S": "i5"}}}');
SELECT dynamodb('UpdateItem', '{"TableName": "vtab", "Key": {"id": {"S": "i6"}}, "UpdateExpression": "REMOVE emb"}');
SELECT is((SELECT array_agg((d ->> 'ItemCount')::int ORDER BY d ->> 'IndexName')
			 FROM jsonb_array_elements(dynamodb('DescribeTable', '{"TableName": "vtab"}') -> 'Table' -> 'VectorIndexes') d),
	ARRAY[118, 119, 119], 'plain SQL DELETE, DeleteItem and REMOVE take items out');

-- verify() covers the vector indexes: consistent, then a lost row, a changed vector, a row too many
SELECT is((SELECT count(*)::int FROM verify('vtab')), 0, 'verify(): the vector indexes match the items');
DO $$
DECLARE r regclass := (SELECT relid FROM vector_indexes WHERE table_name = 'vtab' AND index_name = 'l2-idx');
BEGIN
	EXECUTE format('DELETE FROM %s WHERE key = item_key(''{"S": "i7"}''::jsonb)', r);
	EXECUTE format('UPDATE %s SET embedding = embedding + embedding, pending = pending + pending WHERE key = item_key(''{"S": "i8"}''::jsonb)', r);
	EXECUTE format('INSERT INTO %s (key, part, filters, embedding, pending) SELECT item_key(''{"S": "ghost"}''::jsonb), part, filters, embedding, pending FROM %s WHERE key = item_key(''{"S": "i9"}''::jsonb)', r, r);
END $$;
SELECT is((SELECT array_agg(index_name || ' ' || problem || ' ' || (index_key = base_key)::text ORDER BY problem) FROM verify('vtab')),
	ARRAY['l2-idx extra true', 'l2-idx missing true', 'l2-idx stale true'], 'verify(): a missing, an extra and a stale vector index row');
SELECT is((SELECT detail -> 'expected' FROM verify('vtab') WHERE problem = 'missing'), '{"id": {"S": "i7"}}',
	'verify(): the expected row, as the index projects it');

-- 7. rights: SearchVectors needs SELECT on the table
CREATE ROLE vt_reader_none;
SET LOCAL ROLE vt_reader_none;
SELECT throws_ok($$SELECT dynamodb('SearchVectors', '{"TableName": "vtab", "IndexName": "l2-idx", "TopK": 1, "SearchVector": [{"N": "1"}]}')$$, 'XD018', NULL, 'without SELECT on the table: AccessDeniedException');
RESET ROLE;

-- 8. the same search as rows, joined with item reads
SELECT is((SELECT count(*)::int FROM vector_search('vtab', 'dot-idx', (SELECT v FROM vecs WHERE i = 20), 5) s
			 JOIN item_data.vtab t ON t.item -> 'id' = s.item -> 'id'
			WHERE t.item -> 'cat' IS NOT NULL), 5, 'vector_search() rows join with the item table');
SELECT is((SELECT array_agg(s.item -> 'id' ->> 'S') FROM vector_search('vtab', 'cos-idx', (SELECT v FROM vecs WHERE i = 20), 4, '{"S": "c2"}') s),
		  pg_temp.exact('<=>', 20, 4, 'c2'), 'vector_search() with a partition value');

-- TRUNCATE of the item table empties its vector indexes
TRUNCATE item_data.vtab;
SELECT is((SELECT array_agg((d ->> 'ItemCount')::int ORDER BY d ->> 'IndexName')
			 FROM jsonb_array_elements(dynamodb('DescribeTable', '{"TableName": "vtab"}') -> 'Table' -> 'VectorIndexes') d),
	ARRAY[0, 0, 0], 'TRUNCATE of the item table empties its vector indexes');

-- 9. DeleteTable drops the index tables
SELECT dynamodb('DeleteTable', '{"TableName": "vtab"}');
SELECT is((SELECT count(*)::int FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = 'item_data' AND c.relname LIKE 'vector\_%'), 0, 'DeleteTable drops the vector index tables');

-- 10. the same name again (a new index table: a new plan), an INLINE_FILTER, and the search's settings
SELECT is(dynamodb('CreateTable', pg_temp.spec(jsonb_build_object(
		'AttributeDefinitions', '[{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "cat", "AttributeType": "S"},
			{"AttributeName": "odd", "AttributeType": "S"}]'::jsonb,
		'VectorIndexes', jsonb_build_array(
		pg_temp.vi('l2-idx', 8, 'EUCLIDEAN', '{"SearchSchema": [{"AttributeName": "cat", "SearchSchemaElementType": "HASH"},
			{"AttributeName": "odd", "SearchSchemaElementType": "INLINE_FILTER"}]}')))))
		-> 'TableDescription' -> 'VectorIndexes' -> 0 ->> 'IndexName', 'l2-idx', 'a table of the same name with an index of the same name');
SELECT lives_ok($$SELECT dynamodb('PutItem', jsonb_build_object('TableName', 'vtab', 'Item', jsonb_build_object(
		'id', jsonb_build_object('S', 'i' || i), 'cat', jsonb_build_object('S', cat), 'odd', jsonb_build_object('S', CASE WHEN i % 2 = 1 THEN 'yes' ELSE 'no' END),
		'emb', jsonb_build_object('L', (SELECT jsonb_agg(jsonb_build_object('N', x::text)) FROM unnest(v) x)))))
	FROM vecs WHERE i <= 60$$, '60 PutItems into the new table');
CREATE FUNCTION pg_temp.exact_odd(qi int, k int, c text, odd boolean) RETURNS text[] LANGUAGE sql AS $$
	SELECT array_agg(id ORDER BY d, id) FROM (SELECT 'i' || a.i AS id, a.v::vector <-> b.v::vector AS d FROM vecs a, vecs b
		WHERE b.i = qi AND a.i <= 60 AND a.cat = c AND (a.i % 2 = 1) = odd ORDER BY 2, 1 LIMIT k) s
$$;
SELECT is(pg_temp.ids(pg_temp.search('l2-idx', 7, 5, '{"SearchConditionExpression": "cat = :c", "ExpressionAttributeValues": {":c": {"S": "c1"}}}')),
		  (SELECT array_agg(id ORDER BY d, id) FROM (SELECT 'i' || a.i AS id, a.v::vector <-> b.v::vector AS d FROM vecs a, vecs b
			 WHERE b.i = 7 AND a.i <= 60 AND a.cat = 'c1' ORDER BY 2, 1 LIMIT 5) s),
		  'the index of the new table answers (HASH only)');
SELECT is(pg_temp.ids(pg_temp.search('l2-idx', 7, 5, '{"SearchConditionExpression": "cat = :c  and #o = :t",
			"ExpressionAttributeNames": {"#o": "odd"}, "ExpressionAttributeValues": {":c": {"S": "c1"}, ":t": {"S": "yes"}}}')),
		  pg_temp.exact_odd(7, 5, 'c1', true), 'HASH and INLINE_FILTER: the exact top 5 of the items matching both');
SELECT is(pg_temp.ids(pg_temp.search('l2-idx', 8, 5, '{"SearchConditionExpression": "odd = :f AND cat = :c",
			"ExpressionAttributeValues": {":c": {"S": "c2"}, ":f": {"S": "no"}}}')),
		  pg_temp.exact_odd(8, 5, 'c2', false), 'the conditions in either order');
SELECT throws_ok($$SELECT pg_temp.search('l2-idx', 7, 5, '{"SearchConditionExpression": "cat = :c OR odd = :t",
			"ExpressionAttributeValues": {":c": {"S": "c1"}, ":t": {"S": "yes"}}}')$$, 'XD001',
	'ValidationException: Invalid SearchConditionExpression: only equality conditions on search schema attributes joined by AND are supported: cat = :c OR odd = :t',
	'only equalities joined by AND');
SELECT throws_ok($$SELECT pg_temp.search('l2-idx', 7, 5, '{"SearchConditionExpression": "cat = :c AND n = :c",
			"ExpressionAttributeValues": {":c": {"S": "c1"}}}')$$, 'XD001',
	'ValidationException: Invalid SearchConditionExpression: n is not an attribute of the search schema of index l2-idx',
	'only search-schema attributes');
SELECT throws_ok($$SELECT pg_temp.search('l2-idx', 7, 5, '{"SearchConditionExpression": "cat = :x"}')$$, 'XD001',
	'ValidationException: Invalid SearchConditionExpression: An expression attribute value used in expression is not defined; attribute value: :x',
	'an undefined value');
SELECT throws_ok($$SELECT dynamodb('SearchVectors', '{"TableName": "vtab", "IndexName": "l2-idx", "TopK": 1, "SearchConditionExpression": "cat = :c",
	"ExpressionAttributeValues": {":c": {"S": "c1"}}, "SearchVector": [{"N": "1"}, {"N": "2"}, {"N": "3"}, {"N": "4"}, {"N": "5"}, {"N": "6"}, {"N": "7"}, {"S": "8"}]}')$$, 'XD001',
	'ValidationException: Invalid SearchVector: every element must be a number (N) in the range of a 32-bit float', 'a search vector of numbers only');
SET LOCAL hnsw.ef_search = 77;
SELECT lives_ok($$SELECT pg_temp.search('l2-idx', 7, 5, '{"SearchConditionExpression": "cat = :c", "ExpressionAttributeValues": {":c": {"S": "c1"}}}')$$,
	'a search with the session''s own ef_search');
SELECT is(current_setting('hnsw.ef_search') || '/' || current_setting('hnsw.iterative_scan'), '77/off',
	'the search''s settings are its own: the session''s are as they were');

SELECT * FROM finish();
ROLLBACK;
\else
SELECT plan(1);
SELECT skip('pgvector is not installed (build it from the vendored source, or install postgresql-NN-pgvector): vector index tests skipped', 1);
\endif
