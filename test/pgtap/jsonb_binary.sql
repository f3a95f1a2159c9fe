-- Query and Scan responses, GetItem's, BatchGetItem's and TransactGetItems'
-- are assembled in jsonb's binary format directly
-- (src/types/jsonb_binary.c): every response must have, byte for byte, the
-- layout jsonb_in gives its text.  jsonb = jsonb compares values, not
-- bytes, so the bytes are compared through a test hook of the library
-- (item_table_test_jsonb_bytes, declared here in pg_temp only).  The items
-- are random (seeded): nested maps and lists, numbers, sets, binary, empty
-- containers, long and non-ASCII strings, names needing sort; pages of
-- many items cross the JB_OFFSET_STRIDE (32) boundaries of the Items array.
BEGIN;
SELECT plan(61);
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.bytes(jsonb) RETURNS bytea LANGUAGE c STRICT
	AS '$libdir/item_table', 'item_table_test_jsonb_bytes';

CREATE FUNCTION pg_temp.stored_size(jsonb) RETURNS bigint LANGUAGE c STRICT
	AS '$libdir/item_table', 'item_table_test_stored_item_size';

-- the response's bytes against those of its text read back
CREATE FUNCTION pg_temp.same(r jsonb, what text) RETURNS text LANGUAGE sql AS $$
	SELECT is(pg_temp.bytes(r), pg_temp.bytes(r::text::jsonb), what)
$$;

-- ---------------------------------------------------------------- random values
CREATE FUNCTION pg_temp.rstr(long boolean DEFAULT false) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce(string_agg(substr(a, 1 + floor(random() * length(a))::int, 1), ''), '')
	FROM (SELECT E'abcdXYZ019 _-#"\\\n\té日本語😀' AS a) s, generate_series(1, CASE WHEN long THEN 1000 + floor(random() * 4000)::int
								 ELSE 1 + floor(random() * 12)::int END)
$$;
CREATE FUNCTION pg_temp.rname() RETURNS text LANGUAGE sql AS $$
	SELECT (ARRAY['a', 'B', 'zz', 'aa', 'Ab', 'name', 'key', 'longer_name', 'x' || floor(random() * 50)::int,
		repeat('n', 1 + floor(random() * 90)::int), 'é', '日本'])[1 + floor(random() * 12)::int]
$$;
CREATE FUNCTION pg_temp.rnum() RETURNS text LANGUAGE sql AS $$
	SELECT (ARRAY[(floor(random() * 2e9) - 1e9)::bigint::text, '0', round((random() * 1000)::numeric, 5)::text,
		'-' || round(random()::numeric, 12)::text, '1.5E+40', '-7E-20',
		'12345678901234567890123456789012345678', floor(random() * 100)::int::text])[1 + floor(random() * 8)::int]
$$;
CREATE FUNCTION pg_temp.rbin() RETURNS text LANGUAGE sql AS $$
	SELECT translate(encode(decode(md5(random()::text) || md5(random()::text), 'hex'), 'base64'), E'\n', '')
$$;
CREATE FUNCTION pg_temp.rval(depth int) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	k int := floor(random() * CASE WHEN depth >= 4 THEN 7 ELSE 10 END);
	n int := floor(random() * 6);
	r jsonb;
BEGIN
	CASE k
	WHEN 0 THEN RETURN jsonb_build_object('S', pg_temp.rstr(random() < 0.05));
	WHEN 1 THEN RETURN jsonb_build_object('N', pg_temp.rnum());
	WHEN 2 THEN RETURN jsonb_build_object('B', pg_temp.rbin());
	WHEN 3 THEN RETURN jsonb_build_object('BOOL', random() < 0.5);
	WHEN 4 THEN RETURN '{"NULL": true}';
	WHEN 5 THEN RETURN jsonb_build_object('SS', (SELECT jsonb_agg(DISTINCT pg_temp.rstr() || g) FROM generate_series(0, n) g));
	WHEN 6 THEN RETURN jsonb_build_object('NS', (SELECT jsonb_agg(DISTINCT (g * 7 - 3)::text) FROM generate_series(0, n) g));
	WHEN 7 THEN
		SELECT coalesce(jsonb_object_agg(pg_temp.rname() || g, pg_temp.rval(depth + 1)), '{}') INTO r
		FROM generate_series(1, n) g;
		RETURN jsonb_build_object('M', r);
	WHEN 8 THEN
		SELECT coalesce(jsonb_agg(pg_temp.rval(depth + 1)), '[]') INTO r FROM generate_series(1, n);
		RETURN jsonb_build_object('L', r);
	ELSE RETURN jsonb_build_object('BS', (SELECT jsonb_agg(DISTINCT pg_temp.rbin()) FROM generate_series(0, n)));
	END CASE;
END $$;

-- an item: key attributes, the index key g, nattrs random attributes
CREATE FUNCTION pg_temp.ritem(pk text, sk int, nattrs int) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('pk', jsonb_build_object('S', pk), 'sk', jsonb_build_object('N', sk::text),
		'g', jsonb_build_object('S', 'g' || (sk % 3)))
		|| coalesce((SELECT jsonb_object_agg(pg_temp.rname() || a, pg_temp.rval(1)) FROM generate_series(1, nattrs) a), '{}')
$$;

SELECT setseed(0.1717);
SELECT ok(create_table('{"TableName": "jbin", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
		{"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "byg", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "ALL"}}]}') ? 'TableDescription', 'table created');
-- 'many': 700 small items; 'rich': 150 random ones; 'huge': 3 items with long strings
SELECT is(count(put_item(jsonb_build_object('TableName', 'jbin', 'Item', pg_temp.ritem('many', i, 1)))), 700::bigint, 'small items stored')
	FROM generate_series(0, 699) i;
SELECT is(count(put_item(jsonb_build_object('TableName', 'jbin', 'Item', pg_temp.ritem('rich', i, 1 + floor(random() * 8)::int)))), 150::bigint,
	'random items stored') FROM generate_series(0, 149) i;
SELECT is(count(put_item(jsonb_build_object('TableName', 'jbin', 'Item', pg_temp.ritem('huge', i, 0)
	|| jsonb_build_object('text', jsonb_build_object('S', repeat(pg_temp.rstr(true), 12)))))), 3::bigint, 'large items stored')
	FROM generate_series(0, 2) i;

-- DynamoDB's item size: the walk over stored items gives what item_size()
-- gives from the parsed item (one set of rules, two walks)
SELECT is(count(*) FILTER (WHERE pg_temp.stored_size(item) IS DISTINCT FROM item_size(item)), 0::bigint,
	'stored item sizes = item_size() on every random item') FROM item_data.jbin;
SELECT is(pg_temp.stored_size('{"a": {"X": "1"}}'), -1::bigint, 'stored item size: -1 for what is not an item');

-- the hook shows a datum's bytes
SELECT is(length(pg_temp.bytes('{"a": [1, "x"]}')), pg_column_size('{"a": [1, "x"]}'::jsonb) - 4, 'the hook returns the datum''s bytes');
SELECT isnt(pg_temp.bytes('{"a": 1}'), pg_temp.bytes('{"a": 2}'), 'the hook tells different values apart');

-- ---------------------------------------------------------------- Query
CREATE FUNCTION pg_temp.q(pk text, more jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
	SELECT query(jsonb_build_object('TableName', 'jbin', 'KeyConditionExpression', 'pk = :p',
		'ExpressionAttributeValues', jsonb_build_object(':p', jsonb_build_object('S', pk))) || more)
$$;
SELECT pg_temp.same(pg_temp.q('many'), 'Query: 700 items (crossing the stride 21 times)');
SELECT is(jsonb_array_length(pg_temp.q('many') -> 'Items'), 700, 'Query: all 700 items in the page');
SELECT pg_temp.same(pg_temp.q('many', jsonb_build_object('Limit', n)), format('Query: Limit %s', n))
	FROM unnest(ARRAY[1, 31, 32, 33, 63, 64, 65, 97]) n;
SELECT pg_temp.same(pg_temp.q('many', '{"ScanIndexForward": false, "Limit": 100, "ReturnConsumedCapacity": "TOTAL"}'),
	'Query: backward, LastEvaluatedKey and ConsumedCapacity');
SELECT pg_temp.same(pg_temp.q('rich'), 'Query: random items');
SELECT pg_temp.same(pg_temp.q('rich', '{"ReturnConsumedCapacity": "INDEXES", "ConsistentRead": true}'), 'Query: random items, capacity by index');
SELECT pg_temp.same(pg_temp.q('rich', '{"ProjectionExpression": "sk, g, a1, #n", "ExpressionAttributeNames": {"#n": "name2"}}'),
	'Query: projected items');
SELECT pg_temp.same(pg_temp.q('rich', '{"FilterExpression": "attribute_exists(a1) OR attribute_exists(B2)", "Limit": 90}'),
	'Query: filtered items');
SELECT pg_temp.same(pg_temp.q('huge'), 'Query: items with long strings');
SELECT pg_temp.same(pg_temp.q('none'), 'Query: no items (empty Items)');
SELECT pg_temp.same(pg_temp.q('many', '{"Select": "COUNT"}'), 'Query: Select COUNT');

-- every page of a paginated Query with random limits
CREATE FUNCTION pg_temp.walk(pk text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r jsonb;
	esk jsonb;
	pages int := 0;
	seen int := 0;
BEGIN
	LOOP
		r := pg_temp.q(pk, jsonb_build_object('Limit', 1 + floor(random() * 70)::int)
			|| CASE WHEN esk IS NULL THEN '{}' ELSE jsonb_build_object('ExclusiveStartKey', esk) END);
		IF pg_temp.bytes(r) <> pg_temp.bytes(r::text::jsonb) THEN
			RETURN format('page %s differs: %s', pages, r::text);
		END IF;
		pages := pages + 1;
		seen := seen + jsonb_array_length(r -> 'Items');
		esk := r -> 'LastEvaluatedKey';
		EXIT WHEN esk IS NULL;
	END LOOP;
	RETURN format('%s items', seen);
END $$;
SELECT is(pg_temp.walk('many'), '700 items', 'Query: every page of a walk with random limits');
SELECT is(pg_temp.walk('rich'), '150 items', 'Query: every page of a walk over random items');

-- ---------------------------------------------------------------- GetItem
-- the response is built around the stored item's container (JsonbWithMember)
CREATE FUNCTION pg_temp.g(pk text, sk int, more jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
	SELECT get_item(jsonb_build_object('TableName', 'jbin', 'Key', jsonb_build_object('pk', jsonb_build_object('S', pk),
		'sk', jsonb_build_object('N', sk::text))) || more)
$$;
SELECT is(count(*) FILTER (WHERE pg_temp.bytes(r) <> pg_temp.bytes(r::text::jsonb)), 0::bigint, 'GetItem: 150 random items')
FROM (SELECT pg_temp.g('rich', i) AS r FROM generate_series(0, 149) i) s;
SELECT is(count(*) FILTER (WHERE pg_temp.bytes(r) <> pg_temp.bytes(r::text::jsonb)), 0::bigint,
	'GetItem: random items with ConsumedCapacity (a member before and after Item)')
FROM (SELECT pg_temp.g('rich', i, '{"ReturnConsumedCapacity": "INDEXES"}') AS r FROM generate_series(0, 149) i) s;
SELECT pg_temp.same(pg_temp.g('huge', 1, '{"ReturnConsumedCapacity": "TOTAL"}'), 'GetItem: an item with long strings');
SELECT pg_temp.same(pg_temp.g('many', 5, '{"ProjectionExpression": "sk"}'), 'GetItem: projected (the JsonbValue path)');

-- ---------------------------------------------------------------- index reads and Scan
SELECT pg_temp.same(query('{"TableName": "jbin", "IndexName": "byg", "KeyConditionExpression": "g = :g",
	"ExpressionAttributeValues": {":g": {"S": "g1"}}, "Limit": 77}'), 'Query of a GSI: four-key LastEvaluatedKey');
SELECT pg_temp.same(query('{"TableName": "jbin", "IndexName": "byg", "KeyConditionExpression": "g = :g AND sk > :s",
	"ExpressionAttributeValues": {":g": {"S": "g2"}, ":s": {"N": "100"}}}'), 'Query of a GSI: a range');
SELECT pg_temp.same(scan('{"TableName": "jbin", "Limit": 250}'), 'Scan: 250 items');
SELECT pg_temp.same(scan('{"TableName": "jbin"}'), 'Scan: up to the page cap');
SELECT pg_temp.same(scan(jsonb_build_object('TableName', 'jbin', 'TotalSegments', 3, 'Segment', s, 'Limit', 40)),
	format('Scan: segment %s of 3', s)) FROM generate_series(0, 2) s;
SELECT pg_temp.same(scan('{"TableName": "jbin", "IndexName": "byg", "Limit": 33, "ProjectionExpression": "pk, sk"}'),
	'Scan of a GSI, projected');
SELECT pg_temp.same(scan('{"TableName": "jbin", "FilterExpression": "sk < :z", "ExpressionAttributeValues": {":z": {"N": "0"}}}'),
	'Scan: nothing passes the filter');

-- many more random items, in one page each
SELECT is(count(put_item(jsonb_build_object('TableName', 'jbin', 'Item', pg_temp.ritem('fresh' || i, 0, 2 + floor(random() * 10)::int)))),
	60::bigint, 'fresh random items stored') FROM generate_series(1, 60) i;
SELECT is(count(*) FILTER (WHERE pg_temp.bytes(r) <> pg_temp.bytes(r::text::jsonb) OR jsonb_array_length(r -> 'Items') <> 1), 0::bigint,
	'Query: 60 single-item pages of fresh random items')
FROM (SELECT pg_temp.q('fresh' || i) AS r FROM generate_series(1, 60) i) s;

-- ---------------------------------------------------------------- BatchGetItem, TransactGetItems
-- without a projection the Responses are built around the stored items'
-- containers (JsonbArrayOf, JsonbObjectOf, JsonbWithMember); with one, the
-- projected items are serialised one by one and the arrays built around them
CREATE TABLE pg_temp.jbin_keys AS
	SELECT item -> 'pk' ->> 'S' AS pk, (item -> 'sk' ->> 'N')::int AS sk, item FROM item_data.jbin;
CREATE FUNCTION pg_temp.keys(pk text, sks int[]) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_agg(jsonb_build_object('pk', jsonb_build_object('S', pk), 'sk', jsonb_build_object('N', s::text)))
	FROM unnest(sks) s
$$;
CREATE FUNCTION pg_temp.bg(req jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT batch_get_item(jsonb_build_object('RequestItems', req))
$$;
-- how many of a response's items are, as values, stored items
CREATE FUNCTION pg_temp.stored(items jsonb) RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM jsonb_array_elements(items) e WHERE e.value IN (SELECT item FROM pg_temp.jbin_keys)
$$;
SELECT ok(create_table('{"TableName": "jbin2", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}') ? 'TableDescription', 'second table created');
SELECT is(count(put_item(jsonb_build_object('TableName', 'jbin2', 'Item',
	jsonb_build_object('id', jsonb_build_object('S', 'i' || i), 'v', pg_temp.rval(1))))), 20::bigint, 'second table: random items stored')
	FROM generate_series(1, 20) i;

SELECT pg_temp.same(r, 'BatchGetItem: 100 random items') FROM (SELECT pg_temp.bg(jsonb_build_object('jbin',
	jsonb_build_object('Keys', pg_temp.keys('rich', (SELECT array_agg(i) FROM generate_series(0, 99) i))))) AS r) s;
SELECT is(pg_temp.stored(pg_temp.bg(jsonb_build_object('jbin',
	jsonb_build_object('Keys', pg_temp.keys('rich', (SELECT array_agg(i) FROM generate_series(0, 99) i))))) -> 'Responses' -> 'jbin'),
	100::bigint, 'BatchGetItem: the 100 items are the stored items');
SELECT pg_temp.same(r, 'BatchGetItem: two tables, missing keys, capacity, 70 items crossing the stride')
FROM (SELECT batch_get_item(jsonb_build_object('ReturnConsumedCapacity', 'TOTAL', 'RequestItems', jsonb_build_object(
	'jbin', jsonb_build_object('Keys', pg_temp.keys('many', (SELECT array_agg(i * 7) FROM generate_series(0, 69) i)), 'ConsistentRead', true),
	'jbin2', jsonb_build_object('Keys', (SELECT jsonb_agg(jsonb_build_object('id', jsonb_build_object('S', 'i' || i))) FROM generate_series(1, 30) i)))))
	AS r) s;
SELECT is(jsonb_array_length(r -> 'Responses' -> 'jbin') || '/' || jsonb_array_length(r -> 'Responses' -> 'jbin2'), '70/20',
	'BatchGetItem: 70 and 20 items found')
FROM (SELECT pg_temp.bg(jsonb_build_object(
	'jbin', jsonb_build_object('Keys', pg_temp.keys('many', (SELECT array_agg(i * 7) FROM generate_series(0, 69) i))),
	'jbin2', jsonb_build_object('Keys', (SELECT jsonb_agg(jsonb_build_object('id', jsonb_build_object('S', 'i' || i))) FROM generate_series(1, 30) i))))
	AS r) s;
SELECT pg_temp.same(pg_temp.bg(jsonb_build_object('jbin', jsonb_build_object('Keys', pg_temp.keys('huge', ARRAY[0, 1, 2, 3])))),
	'BatchGetItem: items with long strings');
SELECT pg_temp.same(pg_temp.bg(jsonb_build_object('jbin', jsonb_build_object('Keys', pg_temp.keys('nothing', ARRAY[1, 2])),
	'jbin2', jsonb_build_object('Keys', '[{"id": {"S": "none"}}]'::jsonb))), 'BatchGetItem: nothing found (empty arrays)');
SELECT pg_temp.same(r, 'BatchGetItem: one table projected, one not')
FROM (SELECT pg_temp.bg(jsonb_build_object(
	'jbin', jsonb_build_object('Keys', pg_temp.keys('rich', (SELECT array_agg(i) FROM generate_series(0, 49) i)),
		'ProjectionExpression', 'sk, g, a1, #n', 'ExpressionAttributeNames', '{"#n": "name2"}'::jsonb),
	'jbin2', jsonb_build_object('Keys', (SELECT jsonb_agg(jsonb_build_object('id', jsonb_build_object('S', 'i' || i))) FROM generate_series(1, 20) i))))
	AS r) s;
SELECT is(r -> 'Responses' -> 'jbin' -> 0, (SELECT jsonb_build_object('sk', item -> 'sk', 'g', item -> 'g') FROM pg_temp.jbin_keys
	WHERE pk = 'many' AND sk = 3), 'BatchGetItem: a projected item')
FROM (SELECT pg_temp.bg(jsonb_build_object('jbin', jsonb_build_object('Keys', pg_temp.keys('many', ARRAY[3]),
	'AttributesToGet', '["sk", "g"]'::jsonb))) AS r) s;

-- BatchGetItem's 16 MB cut: 50 items of about 390 KB, the keys after the
-- item that crosses 16 MB (16,777,216 / 399,005 bytes: the 43rd) left in
-- UnprocessedKeys
SELECT is(count(put_item(jsonb_build_object('TableName', 'jbin2', 'Item', jsonb_build_object('id', jsonb_build_object('S', 'big' || i),
	'v', jsonb_build_object('S', repeat(chr(97 + i % 26), 399000)))))), 50::bigint, 'large items stored for the 16 MB cut')
	FROM generate_series(1, 50) i;
CREATE TABLE pg_temp.cut AS SELECT pg_temp.bg(jsonb_build_object('jbin2', jsonb_build_object('Keys',
	(SELECT jsonb_agg(jsonb_build_object('id', jsonb_build_object('S', 'big' || i)) ORDER BY i) FROM generate_series(1, 50) i)))) AS r;
SELECT pg_temp.same(r, 'BatchGetItem: cut at 16 MB, with UnprocessedKeys') FROM pg_temp.cut;
SELECT is(jsonb_array_length(r -> 'Responses' -> 'jbin2') || '/' || jsonb_array_length(r -> 'UnprocessedKeys' -> 'jbin2' -> 'Keys'), '43/7',
	'BatchGetItem: 43 items returned, 7 keys unprocessed') FROM pg_temp.cut;
SELECT is((SELECT count(DISTINCT id) || '/' || count(*) FROM (
		SELECT e -> 'id' ->> 'S' AS id FROM jsonb_array_elements(r -> 'Responses' -> 'jbin2') e
		UNION ALL SELECT k -> 'id' ->> 'S' FROM jsonb_array_elements(r -> 'UnprocessedKeys' -> 'jbin2' -> 'Keys') k) x), '50/50',
	'BatchGetItem: every key either returned or unprocessed, once') FROM pg_temp.cut;

CREATE FUNCTION pg_temp.tg(n int, proj_every int DEFAULT 0, more jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
	SELECT transact_get_items(jsonb_build_object('TransactItems', jsonb_agg(jsonb_build_object('Get',
		jsonb_build_object('TableName', 'jbin', 'Key', jsonb_build_object('pk', jsonb_build_object('S', CASE WHEN i % 5 = 4 THEN 'none' ELSE 'rich' END),
			'sk', jsonb_build_object('N', i::text)))
		|| CASE WHEN proj_every > 0 AND i % proj_every = 0 THEN '{"ProjectionExpression": "sk, a2"}'::jsonb ELSE '{}' END))) || more)
	FROM generate_series(0, n - 1) i
$$;
SELECT pg_temp.same(pg_temp.tg(100), 'TransactGetItems: 100 gets, random items and missing ones');
SELECT is(pg_temp.stored(r -> 'Responses') || '/' || (SELECT count(*) FROM jsonb_array_elements(r -> 'Responses') e
	WHERE e.value = '{}'), '0/20', 'TransactGetItems: responses are {"Item": ...} or {}')
	FROM (SELECT pg_temp.tg(100) AS r) s;
SELECT is((SELECT count(*) FROM jsonb_array_elements(r -> 'Responses') e WHERE e.value -> 'Item' IN (SELECT item FROM pg_temp.jbin_keys)),
	80::bigint, 'TransactGetItems: the 80 items found are the stored items') FROM (SELECT pg_temp.tg(100) AS r) s;
SELECT pg_temp.same(pg_temp.tg(60, 3, '{"ReturnConsumedCapacity": "INDEXES"}'), 'TransactGetItems: some projected, with capacity');

SELECT * FROM finish();
ROLLBACK;
