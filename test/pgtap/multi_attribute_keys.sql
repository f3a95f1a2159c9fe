-- Multi-attribute GSI keys (up to four HASH and four RANGE attributes).
--
-- Reference list: each rule checked here against DynamoDB's developer
-- guide ("Using Global Secondary Indexes", section "Multi-attribute key
-- schema") and the API reference (CreateTable, UpdateTable, Query), with
-- the message text used:
--
--  R1  A GSI KeySchema has 1 to 4 HASH elements and 0 to 4 RANGE elements;
--      the element order is the key's order.  More than four:
--      "One or more parameter values were invalid: The KeySchema exceeds the
--      maximum allowed number of HASH key attributes" (RANGE alike).
--  R2  Every HASH element comes before every RANGE element:
--      "One or more parameter values were invalid: All HASH key attributes
--      must precede RANGE key attributes in the KeySchema".
--  R3  The first element is a HASH: "Invalid KeySchema: The first
--      KeySchemaElement is not a HASH key type".
--  R4  No attribute twice: "The KeySchema contains multiple key attributes
--      with the same name".
--  R5  Every key attribute is in AttributeDefinitions (S, N or B): "One or
--      more parameter values were invalid: Some index key attributes are not
--      defined in AttributeDefinitions. Keys: [...], AttributeDefinitions:
--      [...]".
--  R6  LSIs and the table's own key keep one HASH and at most one RANGE
--      (LSI: "Member must have length less than or equal to 2").
--  R7  DescribeTable returns the KeySchema as given.
--  R8  An item is in the index only with every key attribute, each of its
--      declared type (sparse); a present key attribute of another type is
--      refused on write ("Type mismatch for Index Key").
--  R9  Query: every HASH attribute with `=` (else "Query condition missed
--      key schema element: <attr>"; another operator: "Query key condition
--      not supported"); RANGE attributes left to right without gaps (a gap:
--      "Query condition missed key schema element: <first skipped>"), `=`
--      on each but the last used, which may have <, <=, >, >=, BETWEEN or
--      begins_with (an inequality before the last: "Query key condition
--      not supported").
--  R10 Results in the order of the RANGE attributes, part by part in each
--      type's order (N numerically, S and B by bytes); ScanIndexForward,
--      Limit, ExclusiveStartKey/LastEvaluatedKey (every key attribute of
--      the index and of the table).
--  R11 UpdateTable Create of such an index backfills existing items.
BEGIN;
SELECT plan(61);
SET search_path = item_table, public;

\ir include/err.sql

CREATE FUNCTION pg_temp.gsi_req(ks jsonb, defs jsonb DEFAULT NULL) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('TableName', 'mak_bad', 'BillingMode', 'PAY_PER_REQUEST',
		'KeySchema', '[{"AttributeName": "pk", "KeyType": "HASH"}]'::jsonb,
		'AttributeDefinitions', coalesce(defs, '[{"AttributeName": "pk", "AttributeType": "S"},
			{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "N"},
			{"AttributeName": "c", "AttributeType": "B"}, {"AttributeName": "d", "AttributeType": "S"},
			{"AttributeName": "e", "AttributeType": "S"}, {"AttributeName": "f", "AttributeType": "S"},
			{"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "h", "AttributeType": "S"},
			{"AttributeName": "i", "AttributeType": "S"}]'::jsonb),
		'GlobalSecondaryIndexes', jsonb_build_array(jsonb_build_object('IndexName', 'gsi', 'KeySchema', ks,
			'Projection', '{"ProjectionType": "ALL"}'::jsonb)))
$$;
CREATE FUNCTION pg_temp.ks(spec text) RETURNS jsonb LANGUAGE sql AS $$
	-- 'a:H b:H c:R' -> KeySchema
	SELECT jsonb_agg(jsonb_build_object('AttributeName', split_part(e, ':', 1),
		'KeyType', CASE split_part(e, ':', 2) WHEN 'H' THEN 'HASH' ELSE 'RANGE' END) ORDER BY o)
	FROM unnest(string_to_array(spec, ' ')) WITH ORDINALITY u(e, o)
$$;
CREATE FUNCTION pg_temp.msg(j jsonb) RETURNS text LANGUAGE sql AS $$ SELECT j->>'message' $$;

-- ---------------------------------------------------------------- R1-R6 refusals
SELECT is(pg_temp.msg(pg_temp.err('CreateTable', pg_temp.gsi_req(pg_temp.ks('a:H b:H c:H d:H e:H')))),
	'ValidationException: One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of HASH key attributes',
	'R1: five HASH attributes');
SELECT is(pg_temp.msg(pg_temp.err('CreateTable', pg_temp.gsi_req(pg_temp.ks('a:H b:R c:R d:R e:R f:R')))),
	'ValidationException: One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of RANGE key attributes',
	'R1: five RANGE attributes');
SELECT is(pg_temp.msg(pg_temp.err('CreateTable', pg_temp.gsi_req(pg_temp.ks('a:H b:R c:H')))),
	'ValidationException: One or more parameter values were invalid: All HASH key attributes must precede RANGE key attributes in the KeySchema',
	'R2: a HASH after a RANGE');
SELECT is(pg_temp.msg(pg_temp.err('CreateTable', pg_temp.gsi_req(pg_temp.ks('a:R b:H c:H')))),
	'ValidationException: Invalid KeySchema: The first KeySchemaElement is not a HASH key type',
	'R3: a RANGE first');
SELECT is(pg_temp.msg(pg_temp.err('CreateTable', pg_temp.gsi_req(pg_temp.ks('a:H b:H a:R')))),
	'ValidationException: The KeySchema contains multiple key attributes with the same name',
	'R4: an attribute twice');
SELECT is(pg_temp.msg(pg_temp.err('CreateTable', pg_temp.gsi_req(pg_temp.ks('a:H b:H zz:R')))),
	'ValidationException: One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [a, b, zz], AttributeDefinitions: [pk, a, b, c, d, e, f, g, h, i]',
	'R5: an undefined key attribute');
SELECT is(pg_temp.msg(pg_temp.err('CreateTable', pg_temp.gsi_req(pg_temp.ks('a:H b:H c:H d:H e:R f:R g:R h:R i:R')))),
	'ValidationException: 1 validation error detected: Value at ''globalSecondaryIndexes.1.member.keySchema'' failed to satisfy constraint: Member must have length less than or equal to 8 and greater than or equal to 1',
	'R1: nine elements fail the shape check');
SELECT is(pg_temp.msg(pg_temp.err('CreateTable', '{"TableName": "mak_bad", "BillingMode": "PAY_PER_REQUEST",
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}, {"AttributeName": "a", "AttributeType": "S"}],
	"LocalSecondaryIndexes": [{"IndexName": "lsi", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}, {"AttributeName": "a", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "ALL"}}]}')),
	'ValidationException: 1 validation error detected: Value at ''localSecondaryIndexes.1.member.keySchema'' failed to satisfy constraint: Member must have length less than or equal to 2 and greater than or equal to 1',
	'R6: an LSI keeps two elements at most');
SELECT is(pg_temp.msg(pg_temp.err('CreateTable', '{"TableName": "mak_bad", "BillingMode": "PAY_PER_REQUEST",
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "a", "KeyType": "HASH"}],
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "a", "AttributeType": "S"}]}')),
	'ValidationException: Invalid KeySchema: The second KeySchemaElement is not a RANGE key type',
	'R6: the table key keeps one HASH');
SELECT is(pg_temp.err('DescribeTable', '{"TableName": "mak_bad"}')->>'sqlstate', 'XD004', 'no table was made by the refusals');

-- ---------------------------------------------------------------- R7 a 2+2 index, described
SELECT ok(create_table('{"TableName": "mak", "BillingMode": "PAY_PER_REQUEST",
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "tour", "AttributeType": "S"},
		{"AttributeName": "area", "AttributeType": "S"}, {"AttributeName": "round", "AttributeType": "N"},
		{"AttributeName": "tag", "AttributeType": "B"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_region", "KeySchema": [{"AttributeName": "tour", "KeyType": "HASH"},
		{"AttributeName": "area", "KeyType": "HASH"}, {"AttributeName": "round", "KeyType": "RANGE"}, {"AttributeName": "tag", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}]}') ? 'TableDescription', 'CreateTable with a 2+2 GSI');
SELECT is(describe_table('{"TableName": "mak"}')->'Table'->'GlobalSecondaryIndexes'->0->'KeySchema',
	'[{"AttributeName": "tour", "KeyType": "HASH"}, {"AttributeName": "area", "KeyType": "HASH"},
	  {"AttributeName": "round", "KeyType": "RANGE"}, {"AttributeName": "tag", "KeyType": "RANGE"}]'::jsonb,
	'R7: DescribeTable gives the KeySchema as given');
SELECT is((SELECT jsonb_agg(d ORDER BY d->>'AttributeName') FROM jsonb_array_elements(describe_table('{"TableName": "mak"}')->'Table'->'AttributeDefinitions') d),
	'[{"AttributeName": "area", "AttributeType": "S"}, {"AttributeName": "pk", "AttributeType": "S"},
	  {"AttributeName": "round", "AttributeType": "N"}, {"AttributeName": "tag", "AttributeType": "B"},
	  {"AttributeName": "tour", "AttributeType": "S"}]'::jsonb,
	'R7: every key attribute in AttributeDefinitions');

-- ---------------------------------------------------------------- R8 upkeep, sparse
-- 60 items: tour W, areas E/W, rounds -2..2, tags of one or two bytes
SELECT is(count(*), 60::bigint, 'items stored') FROM (
	SELECT put_item(jsonb_build_object('TableName', 'mak', 'Item', jsonb_build_object(
		'pk', jsonb_build_object('S', 'p' || i), 'tour', '{"S": "W"}'::jsonb,
		'area', jsonb_build_object('S', CASE WHEN i % 2 = 0 THEN 'E' ELSE 'W' END),
		'round', jsonb_build_object('N', (i % 5 - 2)::text),
		'tag', jsonb_build_object('B', encode(CASE WHEN i % 3 = 0 THEN '\x00'::bytea ELSE '\xff'::bytea || set_byte('\x00'::bytea, 0, i) END, 'base64')))))
	FROM generate_series(1, 60) i) s;
SELECT is(put_item('{"TableName": "mak", "Item": {"pk": {"S": "nokey"}, "tour": {"S": "W"}, "area": {"S": "E"}, "round": {"N": "1"}}}'), '{}'::jsonb,
	'an item without every key attribute is stored');
SELECT is((SELECT count(*) FROM item_data."mak#by_region"), 60::bigint, 'R8: ... and is not in the index (sparse)');
SELECT is(pg_temp.msg(pg_temp.err('PutItem', '{"TableName": "mak", "Item": {"pk": {"S": "bad"}, "tour": {"S": "W"}, "round": {"S": "x"}}}')),
	'ValidationException: One or more parameter values were invalid: Type mismatch for Index Key round Expected: N Actual: S IndexName: by_region',
	'R8: a present key attribute of another type is refused');
SELECT is(update_item('{"TableName": "mak", "Key": {"pk": {"S": "p1"}}, "UpdateExpression": "SET #r = :r", "ExpressionAttributeNames": {"#r": "round"}, "ExpressionAttributeValues": {":r": {"N": "7"}}}'),
	'{}'::jsonb, 'UpdateItem of a sort attribute');
SELECT is(delete_item('{"TableName": "mak", "Key": {"pk": {"S": "p2"}}}'), '{}'::jsonb, 'DeleteItem');
SELECT is(update_item('{"TableName": "mak", "Key": {"pk": {"S": "p3"}}, "UpdateExpression": "REMOVE area"}'), '{}'::jsonb, 'UpdateItem removing a partition attribute');
SELECT is((SELECT count(*) FROM item_data."mak#by_region"), 58::bigint, 'the index follows deletes and removals');
SELECT is((SELECT ikey::text FROM item_data."mak#by_region" WHERE key = 'S"p1"'), '(S"W", S"W" | N7, B"/wE=")', 'the index key follows an update');
SELECT is_empty('SELECT * FROM item_table.verify(''mak'')', 'verify() finds the index consistent');

-- ---------------------------------------------------------------- R9 key conditions
CREATE FUNCTION pg_temp.q(kce text, vals jsonb, more jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('TableName', 'mak', 'IndexName', 'by_region', 'KeyConditionExpression', kce,
		'ExpressionAttributeValues', vals)
		|| CASE WHEN kce || coalesce(more->>'FilterExpression', '') LIKE '%#r%'
			THEN '{"ExpressionAttributeNames": {"#r": "round"}}'::jsonb ELSE '{}' END || more
$$;
SELECT is(pg_temp.msg(pg_temp.err('Query', pg_temp.q('tour = :t', '{":t": {"S": "W"}}'))),
	'ValidationException: Query condition missed key schema element: area', 'R9: a partition attribute missing');
SELECT is(pg_temp.msg(pg_temp.err('Query', pg_temp.q('tour = :t AND area > :r', '{":t": {"S": "W"}, ":r": {"S": "E"}}'))),
	'ValidationException: Query key condition not supported', 'R9: a partition attribute with >');
SELECT is(pg_temp.msg(pg_temp.err('Query', pg_temp.q('tour = :t AND area = :r AND tag = :g', '{":t": {"S": "W"}, ":r": {"S": "E"}, ":g": {"B": "AA=="}}'))),
	'ValidationException: Query condition missed key schema element: round', 'R9: a gap in the sort attributes');
SELECT is(pg_temp.msg(pg_temp.err('Query', pg_temp.q('tour = :t AND area = :r AND #r > :n AND tag = :g', '{":t": {"S": "W"}, ":r": {"S": "E"}, ":n": {"N": "0"}, ":g": {"B": "AA=="}}'))),
	'ValidationException: Query key condition not supported', 'R9: an inequality before the last sort attribute used');
SELECT is(pg_temp.msg(pg_temp.err('Query', pg_temp.q('tour = :t AND area = :r AND #r = :n', '{":t": {"S": "W"}, ":r": {"S": "E"}, ":n": {"S": "0"}}'))),
	'ValidationException: One or more parameter values were invalid: Condition parameter type does not match schema type', 'R9: a value of another type');
SELECT is(pg_temp.msg(pg_temp.err('Query', pg_temp.q('tour = :t AND area = :r AND pk = :n', '{":t": {"S": "W"}, ":r": {"S": "E"}, ":n": {"S": "0"}}'))),
	'ValidationException: Query condition missed key schema element: round', 'R9: a condition on a non-key attribute');
SELECT is(pg_temp.msg(pg_temp.err('Query', pg_temp.q('tour = :t AND area = :r', '{":t": {"S": "W"}, ":r": {"S": "E"}}', '{"FilterExpression": "#r > :t"}'))),
	'ValidationException: Filter Expression can only contain non-primary key attributes: Primary key attribute: round', 'R9: a filter on an index key attribute');

-- ---------------------------------------------------------------- R10 ranges, order, pages
-- every key condition shape against the same condition as a Scan filter
CREATE FUNCTION pg_temp.keys_of(resp jsonb) RETURNS text[] LANGUAGE sql AS $$
	SELECT coalesce(array_agg(i->'pk'->>'S' ORDER BY o), '{}') FROM jsonb_array_elements(resp->'Items') WITH ORDINALITY x(i, o)
$$;
CREATE TEMP TABLE shapes (kce text, vals jsonb);
INSERT INTO shapes VALUES
	('tour = :t AND area = :r', '{":t": {"S": "W"}, ":r": {"S": "E"}}'),
	('tour = :t AND area = :r AND #r = :n', '{":t": {"S": "W"}, ":r": {"S": "E"}, ":n": {"N": "0"}}'),
	('tour = :t AND area = :r AND #r < :n', '{":t": {"S": "W"}, ":r": {"S": "W"}, ":n": {"N": "0"}}'),
	('tour = :t AND area = :r AND #r <= :n', '{":t": {"S": "W"}, ":r": {"S": "W"}, ":n": {"N": "0"}}'),
	('tour = :t AND area = :r AND #r > :n', '{":t": {"S": "W"}, ":r": {"S": "E"}, ":n": {"N": "-1"}}'),
	('tour = :t AND area = :r AND #r >= :n', '{":t": {"S": "W"}, ":r": {"S": "E"}, ":n": {"N": "-1"}}'),
	('tour = :t AND area = :r AND #r BETWEEN :n AND :m', '{":t": {"S": "W"}, ":r": {"S": "E"}, ":n": {"N": "-1"}, ":m": {"N": "1"}}'),
	('tour = :t AND area = :r AND #r = :n AND tag < :g', '{":t": {"S": "W"}, ":r": {"S": "W"}, ":n": {"N": "-1"}, ":g": {"B": "/w=="}}'),
	('tour = :t AND area = :r AND #r = :n AND tag >= :g', '{":t": {"S": "W"}, ":r": {"S": "W"}, ":n": {"N": "-1"}, ":g": {"B": "/w=="}}'),
	('tour = :t AND area = :r AND #r = :n AND begins_with(tag, :g)', '{":t": {"S": "W"}, ":r": {"S": "W"}, ":n": {"N": "-1"}, ":g": {"B": "/w=="}}'),
	('tour = :t AND area = :r AND #r = :n AND tag BETWEEN :g AND :h', '{":t": {"S": "W"}, ":r": {"S": "E"}, ":n": {"N": "1"}, ":g": {"B": "AA=="}, ":h": {"B": "/ww="}}'),
	('tour = :t AND area = :r AND #r = :n AND tag = :g', '{":t": {"S": "W"}, ":r": {"S": "E"}, ":n": {"N": "1"}, ":g": {"B": "AA=="}}');
CREATE FUNCTION pg_temp.expected(kce text, vals jsonb) RETURNS text[] LANGUAGE sql AS $$
	-- a Scan of the table with the key condition as its filter, in the
	-- index's order: round numerically, then tag by bytes, then the table key
	SELECT coalesce(array_agg(i->'pk'->>'S' ORDER BY (i->'round'->>'N')::numeric, decode(i->'tag'->>'B', 'base64'), convert_to(i->'pk'->>'S', 'UTF8')), '{}')
	FROM jsonb_array_elements(scan(jsonb_build_object('TableName', 'mak', 'FilterExpression', kce || ' AND attribute_exists(tag) AND attribute_exists(#r)',
		'ExpressionAttributeNames', '{"#r": "round"}'::jsonb, 'ExpressionAttributeValues', vals))->'Items') i
$$;
SELECT is((SELECT count(*) FROM shapes WHERE pg_temp.keys_of(query(pg_temp.q(kce, vals))) IS DISTINCT FROM pg_temp.expected(kce, vals)),
	0::bigint, 'R9/R10: every key condition shape gives the filter''s items in the index''s order');
SELECT is((SELECT count(*) FROM shapes WHERE pg_temp.keys_of(query(pg_temp.q(kce, vals, '{"ScanIndexForward": false}'))) IS DISTINCT FROM
	(SELECT coalesce(array_agg(x ORDER BY o DESC), '{}') FROM unnest(pg_temp.expected(kce, vals)) WITH ORDINALITY u(x, o))),
	0::bigint, 'R10: ScanIndexForward false reverses each');
SELECT ok((SELECT bool_and(cardinality(pg_temp.expected(kce, vals)) > 0) FROM shapes), 'every shape matches some items');

-- pages of two through LastEvaluatedKey
CREATE FUNCTION pg_temp.paged(kce text, vals jsonb, fwd boolean) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	r jsonb;
	esk jsonb := NULL;
	acc text[] := '{}';
BEGIN
	LOOP
		r := query(pg_temp.q(kce, vals, jsonb_build_object('Limit', 2, 'ScanIndexForward', fwd)
			|| CASE WHEN esk IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('ExclusiveStartKey', esk) END));
		acc := acc || pg_temp.keys_of(r);
		esk := r->'LastEvaluatedKey';
		EXIT WHEN esk IS NULL;
	END LOOP;
	RETURN acc;
END $$;
SELECT is((SELECT count(*) FROM shapes WHERE pg_temp.paged(kce, vals, true) IS DISTINCT FROM pg_temp.expected(kce, vals)),
	0::bigint, 'R10: pages of two, forward, through ExclusiveStartKey');
SELECT is((SELECT count(*) FROM shapes WHERE pg_temp.paged(kce, vals, false) IS DISTINCT FROM
	(SELECT coalesce(array_agg(x ORDER BY o DESC), '{}') FROM unnest(pg_temp.expected(kce, vals)) WITH ORDINALITY u(x, o))),
	0::bigint, 'R10: pages of two, backward');
SELECT is((SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(query(pg_temp.q('tour = :t AND area = :r', '{":t": {"S": "W"}, ":r": {"S": "E"}}', '{"Limit": 1}'))->'LastEvaluatedKey') k),
	'{area,pk,round,tag,tour}'::text[], 'R10: LastEvaluatedKey carries every key attribute of the index and the table');
SELECT is(pg_temp.msg(pg_temp.err('Query', pg_temp.q('tour = :t AND area = :r AND #r > :n', '{":t": {"S": "W"}, ":r": {"S": "E"}, ":n": {"N": "0"}}',
	'{"ExclusiveStartKey": {"pk": {"S": "p4"}, "tour": {"S": "W"}, "area": {"S": "E"}, "round": {"N": "-1"}, "tag": {"B": "/wQ="}}}'))),
	'ValidationException: The provided starting key does not match the range key predicate', 'an ExclusiveStartKey outside the sort condition');
SELECT is(jsonb_array_length(scan('{"TableName": "mak", "IndexName": "by_region"}')->'Items'), 58, 'Scan of the index');
SELECT is(jsonb_array_length(scan(jsonb_build_object('TableName', 'mak', 'IndexName', 'by_region',
	'ExclusiveStartKey', scan('{"TableName": "mak", "IndexName": "by_region", "Limit": 20}')->'LastEvaluatedKey'))->'Items'), 38,
	'a Scan of the index continues after its LastEvaluatedKey');
SELECT is((SELECT sum(jsonb_array_length(scan(jsonb_build_object('TableName', 'mak', 'IndexName', 'by_region',
	'Segment', g, 'TotalSegments', 3))->'Items')) FROM generate_series(0, 2) g), 58::bigint,
	'parallel Scan segments of the index cover it once');

-- ---------------------------------------------------------------- R11 UpdateTable Create backfills
SELECT ok(update_table('{"TableName": "mak", "AttributeDefinitions": [{"AttributeName": "area", "AttributeType": "S"}, {"AttributeName": "pk", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_region_pk", "KeySchema": [{"AttributeName": "area", "KeyType": "HASH"}, {"AttributeName": "pk", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}}]}') ? 'TableDescription', 'UpdateTable creates a 2+0 GSI');
CALL backfill_indexes('mak');
SELECT is((SELECT count(*) FROM item_data."mak#by_region_pk"), 59::bigint, 'R11: backfilled (every item with area)');
SELECT is(query('{"TableName": "mak", "IndexName": "by_region_pk", "KeyConditionExpression": "area = :r AND pk = :p",
	"ExpressionAttributeValues": {":r": {"S": "E"}, ":p": {"S": "p4"}}, "Select": "COUNT"}'), '{"Count": 1, "ScannedCount": 1}'::jsonb,
	'a Query on two partition attributes');

-- ---------------------------------------------------------------- one index range; legacy; PartiQL; TTL
SELECT is((SELECT string_agg(l, ' ') FROM explain_query(pg_temp.q('tour = :t AND area = :r AND #r = :n AND begins_with(tag, :g)',
	'{":t": {"S": "W"}, ":r": {"S": "W"}, ":n": {"N": "-1"}, ":g": {"B": "/w=="}}')) l WHERE l LIKE 'key range:%'),
	'key range: ikey >= (S"W", S"W" | N-1, B"/w==") AND ikey < (S"W", S"W" | N-1, B"/w=="~)',
	'a Query is one range of the index table');
SELECT is(query('{"TableName": "mak", "IndexName": "by_region", "Select": "COUNT", "KeyConditions": {
	"tour": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "W"}]},
	"area": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "E"}]},
	"round": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "-1"}, {"N": "1"}]}}}'),
	jsonb_build_object('Count', cardinality(pg_temp.expected('tour = :t AND area = :r AND #r BETWEEN :n AND :m',
		'{":t": {"S": "W"}, ":r": {"S": "E"}, ":n": {"N": "-1"}, ":m": {"N": "1"}}')),
		'ScannedCount', cardinality(pg_temp.expected('tour = :t AND area = :r AND #r BETWEEN :n AND :m',
		'{":t": {"S": "W"}, ":r": {"S": "E"}, ":n": {"N": "-1"}, ":m": {"N": "1"}}'))),
	'legacy KeyConditions on three key attributes');
SELECT is(pg_temp.msg(pg_temp.err('Query', '{"TableName": "mak", "IndexName": "by_region", "KeyConditions": {
	"tour": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "W"}]},
	"area": {"ComparisonOperator": "NE", "AttributeValueList": [{"S": "E"}]}}}')),
	'ValidationException: Attempted conditional constraint is not an indexable operation', 'legacy: NE on a partition attribute');
SELECT is(pg_temp.msg(pg_temp.err('Query', '{"TableName": "mak", "IndexName": "by_region", "KeyConditions": {
	"tour": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "W"}]},
	"area": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "E"}]},
	"tag": {"ComparisonOperator": "EQ", "AttributeValueList": [{"B": "AA=="}]}}}')),
	'ValidationException: Query condition missed key schema element: round', 'legacy: the same gap rule');
SELECT is((SELECT array_agg(i->'pk'->>'S' ORDER BY o) FROM jsonb_array_elements(execute_statement($$ {"Statement":
	"SELECT pk FROM \"mak\".\"by_region\" WHERE tour = 'W' AND area = 'E' AND \"round\" = 1 AND tag < ?", "Parameters": [{"B": "/w=="}]} $$)->'Items')
	WITH ORDINALITY x(i, o)),
	pg_temp.expected('tour = :t AND area = :r AND #r = :n AND tag < :g', '{":t": {"S": "W"}, ":r": {"S": "E"}, ":n": {"N": "1"}, ":g": {"B": "/w=="}}'),
	'PartiQL SELECT on the index: the same items in the same order');
SELECT ok(update_time_to_live('{"TableName": "mak", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "exp"}}') IS NOT NULL, 'TTL on');
SELECT is((SELECT count(*) FROM (SELECT update_item(jsonb_build_object('TableName', 'mak', 'Key', jsonb_build_object('pk', jsonb_build_object('S', 'p' || i)),
	'UpdateExpression', 'SET #e = :e', 'ExpressionAttributeNames', '{"#e": "exp"}'::jsonb, 'ExpressionAttributeValues', jsonb_build_object(':e', jsonb_build_object('N', (floor(extract(epoch FROM now())) - 3600)::bigint::text))))
	FROM generate_series(4, 8) i) s), 5::bigint, 'five items expired an hour ago');
SELECT is(expire_items('mak'), 5::bigint, 'TTL deletes them');
SELECT is((SELECT count(*) FROM item_data."mak#by_region"), 53::bigint, 'TTL expiry removes the index entries');

-- a stream on a table with such an index: one record per write (read from
-- the records table: the readers' horizon hides this open transaction's)
SELECT ok(create_table('{"TableName": "mak_s", "BillingMode": "PAY_PER_REQUEST",
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "N"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_ab", "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}') ? 'TableDescription', 'a table with a stream and a 2+0 GSI');
SELECT is((SELECT count(put_item(jsonb_build_object('TableName', 'mak_s', 'Item', jsonb_build_object('pk', jsonb_build_object('S', 'k' || g),
		'a', '{"S": "x"}'::jsonb, 'b', jsonb_build_object('N', g::text))))) FROM generate_series(1, 3) g), 3::bigint, 'three items');
SELECT is((SELECT count(*) FROM item_table.stream_records r JOIN item_table.streams s USING (stream_id)
		WHERE s.table_name = 'mak_s' AND r.event = 'I' AND r.new_image ? 'b')
	+ (SELECT count(*) FROM item_data."mak_s#by_ab"), 6::bigint, 'a stream record and an index row of each');

-- ---------------------------------------------------------------- the codec's order invariant
-- (key_codec.c, property 4a): for random tuples of every mix of N, S and B
-- over four parts (two partition parts, two sort parts), the order of the encoded tuples is the order of the
-- tuples, part by part (N numerically, S by UTF-8 bytes, B by bytes), and
-- equal encodings are equal tuples.  Small value domains make equal
-- leading parts, prefixes and the escaped bytes (00-07, FE, FF) common.
SELECT setseed(0.32);
CREATE FUNCTION pg_temp.rnd_part(t char) RETURNS text LANGUAGE sql VOLATILE AS $$
	SELECT CASE t
		WHEN 'N' THEN (ARRAY['-1E+10', '-100', '-1.5', '-1', '-0.001', '0', '0.001', '1', '1.5', '10', '100', '123456789012345678901234567890', '1E-20'])[1 + floor(random() * 13)::int]
		WHEN 'S' THEN (SELECT string_agg((ARRAY['a', 'b', chr(1), chr(7), chr(8), 'é', '~', '€'])[1 + floor(random() * 8)::int], '')
			FROM generate_series(1, 1 + floor(random() * 3)::int))
		ELSE (SELECT encode(string_agg((ARRAY['\x00', '\x01', '\x07', '\x08', '\x61', '\xfe', '\xff'])[1 + floor(random() * 7)::int]::bytea, ''::bytea), 'base64')
			FROM generate_series(1, 1 + floor(random() * 3)::int))
	END
$$;
CREATE FUNCTION pg_temp.part_text(t char, v text) RETURNS text LANGUAGE sql AS $$
	SELECT CASE t WHEN 'N' THEN 'N' || v WHEN 'S' THEN 'S' || to_json(v)::text ELSE 'B"' || v || '"' END
$$;
CREATE FUNCTION pg_temp.part_cmp(t char, a text, b text) RETURNS int LANGUAGE sql AS $$
	SELECT CASE t
		WHEN 'N' THEN sign(a::numeric - b::numeric)::int
		WHEN 'S' THEN CASE WHEN convert_to(a, 'UTF8') < convert_to(b, 'UTF8') THEN -1 WHEN a = b THEN 0 ELSE 1 END
		ELSE CASE WHEN decode(a, 'base64') < decode(b, 'base64') THEN -1 WHEN a = b THEN 0 ELSE 1 END
	END
$$;
CREATE FUNCTION pg_temp.tuple_cmp(mix text, a text[], b text[]) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	c int;
BEGIN
	FOR i IN 1 .. length(mix) LOOP
		c := pg_temp.part_cmp(substr(mix, i, 1)::char, a[i], b[i]);
		IF c <> 0 THEN RETURN c; END IF;
	END LOOP;
	RETURN 0;
END $$;
CREATE TEMP TABLE mixes AS
	SELECT a || b || c || d AS mix FROM unnest('{N,S,B}'::text[]) a, unnest('{N,S,B}'::text[]) b,
		unnest('{N,S,B}'::text[]) c, unnest('{N,S,B}'::text[]) d;
CREATE TEMP TABLE tuples AS
	SELECT mix, n, vals, ('(' || (SELECT string_agg(pg_temp.part_text(substr(mix, i, 1)::char, vals[i]),
		CASE i WHEN 3 THEN ' | ' ELSE ', ' END ORDER BY i) FROM generate_series(1, 4) i) || ')')::item_key AS k
	FROM (SELECT mix, n, ARRAY(SELECT pg_temp.rnd_part(substr(mix, i, 1)::char) FROM generate_series(1, 4) i WHERE n > 0) AS vals
		FROM mixes, generate_series(1, 40) n) s;
SELECT is((SELECT count(DISTINCT mix) FROM tuples), 81::bigint, 'tuples of all 81 type mixes of four parts');
-- neighbours in the item_key order must be in the tuples' order
SELECT is((SELECT count(*) FROM (
	SELECT mix, vals, k, lag(vals) OVER w AS pv, lag(k) OVER w AS pk FROM tuples WINDOW w AS (PARTITION BY mix ORDER BY k)) s
	WHERE pv IS NOT NULL AND (pg_temp.tuple_cmp(mix, pv, vals) > 0 OR (pg_temp.tuple_cmp(mix, pv, vals) = 0) <> (pk = k))),
	0::bigint, 'the order of encoded tuples is the order of the tuples (3240 random tuples)');
-- and random pairs (not only neighbours): the comparison signs agree
SELECT is((SELECT count(*) FROM tuples a JOIN tuples b ON a.mix = b.mix AND b.n = (a.n * 7) % 40 + 1
	WHERE sign(item_key_cmp(a.k, b.k)) <> pg_temp.tuple_cmp(a.mix, a.vals, b.vals)), 0::bigint,
	'random pairs compare as their tuples');
-- text and binary forms give the key back
SELECT is((SELECT count(*) FROM tuples WHERE k::text::item_key <> k), 0::bigint, 'the text form of a tuple key reads back');
-- the partition: partition_key() is the two partition parts
SELECT is((SELECT count(*) FROM tuples WHERE partition_key(k) <> ('(' || pg_temp.part_text(substr(mix, 1, 1)::char, vals[1]) || ', '
	|| pg_temp.part_text(substr(mix, 2, 1)::char, vals[2]) || ')')::item_key), 0::bigint, 'partition_key() is the partition parts');
-- a range for `=` on the first two parts: [P, P || 06) holds exactly those
SELECT is((SELECT count(*) FROM tuples t, LATERAL (SELECT ('(' || pg_temp.part_text(substr(t.mix, 1, 1)::char, t.vals[1]) || ', '
		|| pg_temp.part_text(substr(t.mix, 2, 1)::char, t.vals[2]) || ')')::item_key AS lo,
		('(' || pg_temp.part_text(substr(t.mix, 1, 1)::char, t.vals[1]) || ', '
		|| pg_temp.part_text(substr(t.mix, 2, 1)::char, t.vals[2]) || ', ~)')::item_key AS hi) b, tuples u
	WHERE u.mix = t.mix AND t.n <= 5
	AND (u.k >= b.lo AND u.k < b.hi) <> (pg_temp.part_cmp(substr(t.mix, 1, 1)::char, u.vals[1], t.vals[1]) = 0
		AND pg_temp.part_cmp(substr(t.mix, 2, 1)::char, u.vals[2], t.vals[2]) = 0)),
	0::bigint, 'a range of two leading parts holds exactly the tuples that begin with them');

SELECT * FROM finish();
ROLLBACK;
