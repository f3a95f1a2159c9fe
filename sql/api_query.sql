-- Query and Scan: exact responses in every mode, the plans they run, the
-- SQL-native item_collection(), and the reference §8 edge cases about them
-- (each named by its number).
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
BEGIN
	RETURN item_table.dynamodb(action, request)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
	RETURN st || ' ' || msg;
END $$;
-- a Query on table t with partition value p (S) and more request members
CREATE FUNCTION pg_temp.q(t text, kce text, vals jsonb, more jsonb DEFAULT '{}') RETURNS text
LANGUAGE sql AS $$
	SELECT pg_temp.try('Query', jsonb_build_object('TableName', t, 'KeyConditionExpression', kce,
		'ExpressionAttributeValues', vals) || more)
$$;
-- just the sort keys of a response's Items, and the rest of it
CREATE FUNCTION pg_temp.sks(r text) RETURNS text LANGUAGE sql AS $$
	SELECT CASE WHEN r LIKE 'XD%' THEN r ELSE
		coalesce((SELECT string_agg(coalesce(e->'sk'->>'S', e->'sk'->>'N', e->'sk'->>'B', '-'), ' ' ORDER BY o)
			FROM jsonb_array_elements(r::jsonb->'Items') WITH ORDINALITY x(e, o)), '(none)')
		|| '  ' || (r::jsonb - 'Items')::text END
$$;

SELECT create_table('{"TableName": "qnum", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
SELECT create_table('{"TableName": "qstr", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
SELECT create_table('{"TableName": "qbin", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "N"}, {"AttributeName": "sk", "AttributeType": "B"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
SELECT create_table('{"TableName": "qhash", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;

-- qnum: partition "a" with sk 1..6, partition "b" with sk 1..3, partition "c" empty
SELECT put_item(jsonb_build_object('TableName', 'qnum', 'Item', jsonb_build_object(
	'pk', jsonb_build_object('S', p), 'sk', jsonb_build_object('N', s::text),
	'v', jsonb_build_object('N', (s * 10)::text), 'even', jsonb_build_object('BOOL', s % 2 = 0)))) AS put
FROM (SELECT 'a' AS p, generate_series(1, 6) AS s UNION ALL SELECT 'b', generate_series(1, 3)) x ORDER BY p, s;

-- ---------------------------------------------------------------- key conditions
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}');
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p AND sk = :s', '{":p": {"S": "a"}, ":s": {"N": "3"}}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p AND sk < :s', '{":p": {"S": "a"}, ":s": {"N": "3"}}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p AND sk <= :s', '{":p": {"S": "a"}, ":s": {"N": "3"}}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p AND sk > :s', '{":p": {"S": "a"}, ":s": {"N": "3"}}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p AND sk >= :s', '{":p": {"S": "a"}, ":s": {"N": "3"}}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p AND sk BETWEEN :lo AND :hi', '{":p": {"S": "a"}, ":lo": {"N": "2"}, ":hi": {"N": "4"}}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p AND sk BETWEEN :lo AND :hi', '{":p": {"S": "a"}, ":lo": {"N": "4"}, ":hi": {"N": "4"}}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p AND sk > :s', '{":p": {"S": "a"}, ":s": {"N": "2.5"}}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p AND sk < :s', '{":p": {"S": "a"}, ":s": {"N": "-1"}}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "c"}}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "b"}}'));
-- names, parentheses, any case of keywords, conditions in either order
SELECT pg_temp.sks(pg_temp.q('qnum', '(#s between :lo and :hi) AnD (#k = :p)', '{":p": {"S": "a"}, ":lo": {"N": "5"}, ":hi": {"N": "9"}}',
	'{"ExpressionAttributeNames": {"#k": "pk", "#s": "sk"}}'));
-- §8.21 the key on the right: :p = pk AND :lo < sk means sk > :lo
SELECT pg_temp.sks(pg_temp.q('qnum', ':p = pk AND :lo < sk', '{":p": {"S": "a"}, ":lo": {"N": "4"}}'));
SELECT pg_temp.sks(pg_temp.q('qnum', ':p = pk AND :hi >= sk', '{":p": {"S": "a"}, ":hi": {"N": "2"}}'));

-- ---------------------------------------------------------------- direction, Limit, paging
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ScanIndexForward": false}'));
-- §8.14 ScanIndexForward=false, Limit=1: the greatest sort key and LastEvaluatedKey
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ScanIndexForward": false, "Limit": 1}');
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}',
	'{"ScanIndexForward": false, "Limit": 2, "ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "6"}}}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p AND sk < :s', '{":p": {"S": "a"}, ":s": {"N": "5"}}',
	'{"ScanIndexForward": false, "Limit": 2, "ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "4"}}}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Limit": 4}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Limit": 4, "ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "4"}}}'));
-- the start key need not be an existing item
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "2.5"}}}'));
-- §8.16 Limit = the number of items: all of them and LastEvaluatedKey; the next page is empty, without a key
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "b"}}', '{"Limit": 3}'));
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "b"}}', '{"Limit": 3, "ExclusiveStartKey": {"pk": {"S": "b"}, "sk": {"N": "3"}}}');
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "b"}}', '{"Limit": 4}'));

-- ---------------------------------------------------------------- FilterExpression (after Limit)
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":t": {"BOOL": true}}', '{"FilterExpression": "even = :t"}');
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":t": {"BOOL": true}}', '{"FilterExpression": "even = :t", "Limit": 3}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":v": {"N": "35"}}', '{"FilterExpression": "v > :v AND NOT even = :t", "ExpressionAttributeValues": {":p": {"S": "a"}, ":v": {"N": "35"}, ":t": {"BOOL": true}}}'));
-- §8.15 Limit=2 and a filter matching nothing: no items, Count 0, ScannedCount 2, LastEvaluatedKey
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":x": {"S": "nothing"}}', '{"FilterExpression": "v = :x", "Limit": 2}');
-- §8.23 filters on a missing attribute: a <> :v is true, NOT (a < :v) is true, a = b false, a <> b true
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "b"}, ":v": {"N": "1"}}', '{"FilterExpression": "gone <> :v"}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "b"}, ":v": {"N": "1"}}', '{"FilterExpression": "NOT (gone < :v)"}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "b"}}', '{"FilterExpression": "gone = lost"}'));
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "b"}}', '{"FilterExpression": "gone <> lost"}'));
-- §8.22 a type mismatch with item data is false; a list constant in < is refused
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":s": {"S": "70"}}', '{"FilterExpression": "v < :s"}'));
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":l": {"L": []}}', '{"FilterExpression": "v < :l"}');
-- §8.24 reversed constant bounds are refused; bounds from item data that are reversed are just false
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":lo": {"N": "1"}, ":hi": {"N": "9"}}', '{"FilterExpression": "v BETWEEN :hi AND :lo"}');
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":m": {"N": "15"}, ":lo": {"N": "5"}}', '{"FilterExpression": ":m BETWEEN v AND :lo"}'));
-- §8.25 identical operands, §8.26 size() alone and size() of a number
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"FilterExpression": "v = v"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"FilterExpression": "size(v)"}');
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":n": {"N": "0"}}', '{"FilterExpression": "size(v) > :n"}'));
-- §8.18 a filter on a key attribute: refused by Query, accepted by Scan
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":s": {"N": "2"}}', '{"FilterExpression": "sk > :s"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":s": {"S": "x"}}', '{"FilterExpression": "begins_with(#k, :s)", "ExpressionAttributeNames": {"#k": "pk"}}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":s": {"N": "2"}}', '{"FilterExpression": "v > :s OR size(sk) > :s"}');
SELECT pg_temp.sks(pg_temp.try('Scan', '{"TableName": "qnum", "FilterExpression": "sk > :s", "ExpressionAttributeValues": {":s": {"N": "4"}}}'));

-- ---------------------------------------------------------------- ProjectionExpression and Select
SELECT pg_temp.q('qnum', 'pk = :p AND sk <= :s', '{":p": {"S": "a"}, ":s": {"N": "2"}}', '{"ProjectionExpression": "v, nothing"}');
SELECT pg_temp.q('qnum', 'pk = :p AND sk <= :s', '{":p": {"S": "a"}, ":s": {"N": "2"}}', '{"ProjectionExpression": "#s", "ExpressionAttributeNames": {"#s": "sk"}, "Select": "SPECIFIC_ATTRIBUTES"}');
-- the filter may name attributes that are not returned
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":t": {"BOOL": true}}', '{"ProjectionExpression": "sk", "FilterExpression": "even = :t"}');
-- §8.45 projection of a nested path; a projection matching nothing gives {}
SELECT put_item('{"TableName": "qstr", "Item": {"pk": {"S": "nest"}, "sk": {"S": "1"}, "a": {"M": {"b": {"L": [{"S": "x"}, {"S": "y"}]}, "c": {"N": "1"}}}}}');
SELECT pg_temp.q('qstr', 'pk = :p', '{":p": {"S": "nest"}}', '{"ProjectionExpression": "a.b[0], a.c, zz"}');
SELECT pg_temp.q('qstr', 'pk = :p', '{":p": {"S": "nest"}}', '{"ProjectionExpression": "zz"}');
SELECT pg_temp.q('qstr', 'pk = :p', '{":p": {"S": "nest"}}', '{"ProjectionExpression": "a, a.b"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Select": "ALL_ATTRIBUTES", "Limit": 1}');
-- §8.61 Select=COUNT: Count and ScannedCount, no Items
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Select": "COUNT"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":t": {"BOOL": true}}', '{"Select": "COUNT", "FilterExpression": "even = :t", "Limit": 5}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "Select": "COUNT"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Select": "COUNT", "ProjectionExpression": "v"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Select": "ALL_ATTRIBUTES", "ProjectionExpression": "v"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Select": "ALL_PROJECTED_ATTRIBUTES", "ProjectionExpression": "v"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Select": "SPECIFIC_ATTRIBUTES"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Select": "ALL_PROJECTED_ATTRIBUTES"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Select": "all_attributes"}');

-- ---------------------------------------------------------------- ConsistentRead, ReturnConsumedCapacity
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Select": "COUNT", "ReturnConsumedCapacity": "TOTAL"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Select": "COUNT", "ReturnConsumedCapacity": "TOTAL", "ConsistentRead": true}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Select": "COUNT", "ReturnConsumedCapacity": "INDEXES", "ConsistentRead": false}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "c"}}', '{"ReturnConsumedCapacity": "TOTAL"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Select": "COUNT", "ReturnConsumedCapacity": "NONE"}');
-- capacity is charged on the whole items read, before filter and projection: 3 items of 6,000 bytes = 18,000 → 5 units
SELECT put_item(jsonb_build_object('TableName', 'qstr', 'Item', jsonb_build_object('pk', '{"S": "cap"}'::jsonb,
	'sk', jsonb_build_object('S', 'k' || g), 'd', jsonb_build_object('S', repeat('x', 6000 - 2 - 3 - 2 - 2 - 1))))) AS put
FROM generate_series(1, 3) g;
SELECT sum(item_size(item)) AS bytes FROM item_data.qstr WHERE key ^@ 'S"cap"';
SELECT pg_temp.q('qstr', 'pk = :p', '{":p": {"S": "cap"}, ":x": {"S": "none"}}', '{"ReturnConsumedCapacity": "TOTAL", "ConsistentRead": true, "FilterExpression": "d = :x", "ProjectionExpression": "sk"}');

-- ---------------------------------------------------------------- the 1 MB page
-- five items of 300,000 bytes: a page holds 3 (900,000); a 4th would pass 1,048,576
SELECT put_item(jsonb_build_object('TableName', 'qstr', 'Item', jsonb_build_object('pk', '{"S": "big"}'::jsonb,
	'sk', jsonb_build_object('S', 'k' || g), 'd', jsonb_build_object('S', repeat(chr(96 + g), 300000 - 2 - 3 - 2 - 2 - 1))))) AS put
FROM generate_series(1, 5) g;
SELECT key, item_size(item) FROM item_data.qstr WHERE key ^@ 'S"big"' ORDER BY key;
SELECT pg_temp.sks(pg_temp.q('qstr', 'pk = :p', '{":p": {"S": "big"}}', '{"ReturnConsumedCapacity": "TOTAL"}'));
SELECT pg_temp.sks(pg_temp.q('qstr', 'pk = :p', '{":p": {"S": "big"}}', '{"ExclusiveStartKey": {"pk": {"S": "big"}, "sk": {"S": "k3"}}}'));
SELECT pg_temp.sks(pg_temp.q('qstr', 'pk = :p', '{":p": {"S": "big"}}', '{"ScanIndexForward": false, "Select": "COUNT"}'));
-- Limit stops first: no more than Limit items even under the cap
SELECT pg_temp.sks(pg_temp.q('qstr', 'pk = :p', '{":p": {"S": "big"}}', '{"Limit": 2, "ProjectionExpression": "sk"}'));
-- items summing to exactly 1,048,576 bytes fill one page; one more byte starts a second
SELECT put_item(jsonb_build_object('TableName', 'qstr', 'Item', jsonb_build_object('pk', '{"S": "mb"}'::jsonb,
	'sk', jsonb_build_object('S', 'k' || g), 'd', jsonb_build_object('S', repeat('m', 262144 - 2 - 2 - 2 - 2 - 1))))) AS put
FROM generate_series(1, 4) g;
SELECT sum(item_size(item)) AS bytes FROM item_data.qstr WHERE key ^@ 'S"mb"';
SELECT pg_temp.sks(pg_temp.q('qstr', 'pk = :p', '{":p": {"S": "mb"}}', '{"ProjectionExpression": "sk"}'));
SELECT put_item('{"TableName": "qstr", "Item": {"pk": {"S": "mb"}, "sk": {"S": "k5"}}}');
SELECT pg_temp.sks(pg_temp.q('qstr', 'pk = :p', '{":p": {"S": "mb"}}', '{"ProjectionExpression": "sk"}'));
SELECT pg_temp.sks(pg_temp.q('qstr', 'pk = :p', '{":p": {"S": "mb"}}', '{"ProjectionExpression": "sk", "ExclusiveStartKey": {"pk": {"S": "mb"}, "sk": {"S": "k4"}}}'));
-- an item larger than what is left of the page still comes first on the next one
SELECT pg_temp.sks(pg_temp.try('Scan', '{"TableName": "qstr", "ProjectionExpression": "pk, sk", "ExclusiveStartKey": {"pk": {"S": "big"}, "sk": {"S": "k1"}}}'));

-- ---------------------------------------------------------------- orders (§8.12, §8.13) and begins_with
-- §8.12 S sort keys: B, a, é, U+FF5E, U+1F600 (UTF-8 byte order)
SELECT put_item(jsonb_build_object('TableName', 'qstr', 'Item', jsonb_build_object('pk', '{"S": "ord"}'::jsonb, 'sk', jsonb_build_object('S', s)))) AS put
FROM unnest(ARRAY['a', 'B', 'é', U&'\FF5E', U&'\+01F600']) s;
SELECT pg_temp.sks(pg_temp.q('qstr', 'pk = :p', '{":p": {"S": "ord"}}'));
SELECT pg_temp.sks(pg_temp.q('qstr', 'pk = :p', '{":p": {"S": "ord"}}', '{"ScanIndexForward": false}'));
SELECT pg_temp.sks(pg_temp.q('qstr', 'pk = :p AND sk > :s', jsonb_build_object(':p', '{"S": "ord"}'::jsonb, ':s', jsonb_build_object('S', 'é'))));
-- §8.13 B sort keys 0x80, 0x7F, 0x00 ascend as 0x00, 0x7F, 0x80; N sort keys 10, 9, -1 as -1, 9, 10
SELECT put_item(jsonb_build_object('TableName', 'qbin', 'Item', jsonb_build_object('pk', '{"N": "7"}'::jsonb, 'sk', jsonb_build_object('B', b)))) AS put
FROM unnest(ARRAY['gA==', 'fw==', 'AA==']) b;
SELECT pg_temp.sks(pg_temp.q('qbin', 'pk = :p', '{":p": {"N": "7.0"}}'));
SELECT pg_temp.sks(pg_temp.q('qbin', 'pk = :p AND sk BETWEEN :a AND :b', '{":p": {"N": "7"}, ":a": {"B": "fw=="}, ":b": {"B": "gA=="}}'));
SELECT pg_temp.sks(pg_temp.q('qbin', 'pk = :p AND sk < :b', '{":p": {"N": "7"}, ":b": {"B": "fw=="}}'));
SELECT put_item(jsonb_build_object('TableName', 'qnum', 'Item', jsonb_build_object('pk', '{"S": "nums"}'::jsonb, 'sk', jsonb_build_object('N', n)))) AS put
FROM unnest(ARRAY['10', '9', '-1']) n;
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "nums"}}'));
-- §8.1, §8.2 numbers: 1e3 is read back as 1000; Put with 1000.0 overwrites it (Query Count 1)
SELECT put_item('{"TableName": "qnum", "Item": {"pk": {"S": "e3"}, "sk": {"N": "1e3"}, "x": {"N": "1.50"}}}');
SELECT put_item('{"TableName": "qnum", "Item": {"pk": {"S": "e3"}, "sk": {"N": "1000.0"}, "x": {"N": "007"}}}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "e3"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND sk = :s', '{":p": {"S": "e3"}, ":s": {"N": "1E+3"}}', '{"Select": "COUNT"}');
-- begins_with on S and B sort keys
SELECT put_item(jsonb_build_object('TableName', 'qstr', 'Item', jsonb_build_object('pk', '{"S": "pre"}'::jsonb, 'sk', jsonb_build_object('S', s)))) AS put
FROM unnest(ARRAY['ORDER#1', 'ORDER#2', 'ORDER', 'ORDEQ', 'ORDER#10', 'ORDF', 'PROFILE']) s;
SELECT pg_temp.sks(pg_temp.q('qstr', 'pk = :p AND begins_with(sk, :s)', '{":p": {"S": "pre"}, ":s": {"S": "ORDER#"}}'));
SELECT pg_temp.sks(pg_temp.q('qstr', 'pk = :p AND begins_with(sk, :s)', '{":p": {"S": "pre"}, ":s": {"S": "ORDER"}}', '{"ScanIndexForward": false, "Limit": 2}'));
SELECT pg_temp.sks(pg_temp.q('qstr', 'pk = :p AND begins_with(sk, :s)', '{":p": {"S": "pre"}, ":s": {"S": "ORDER"}}',
	'{"ScanIndexForward": false, "Limit": 2, "ExclusiveStartKey": {"pk": {"S": "pre"}, "sk": {"S": "ORDER#10"}}}'));
SELECT pg_temp.sks(pg_temp.q('qstr', 'pk = :p AND begins_with(sk, :s)', '{":p": {"S": "pre"}, ":s": {"S": "Z"}}'));
SELECT put_item(jsonb_build_object('TableName', 'qbin', 'Item', jsonb_build_object('pk', '{"N": "8"}'::jsonb, 'sk', jsonb_build_object('B', b)))) AS put
FROM unnest(ARRAY['/w==', '//8=', '/wA=', '/v8=', 'AP8=']) b;
SELECT pg_temp.sks(pg_temp.q('qbin', 'pk = :p AND begins_with(sk, :b)', '{":p": {"N": "8"}, ":b": {"B": "/w=="}}'));

-- ---------------------------------------------------------------- hash-only tables
SELECT put_item('{"TableName": "qhash", "Item": {"pk": {"S": "one"}, "v": {"S": "x"}}}');
SELECT put_item('{"TableName": "qhash", "Item": {"pk": {"S": "onex"}, "v": {"S": "y"}}}');
SELECT pg_temp.q('qhash', 'pk = :p', '{":p": {"S": "one"}}');
SELECT pg_temp.q('qhash', 'pk = :p', '{":p": {"S": "one"}}', '{"Limit": 1}');
SELECT pg_temp.q('qhash', 'pk = :p', '{":p": {"S": "one"}}', '{"ExclusiveStartKey": {"pk": {"S": "one"}}}');
SELECT pg_temp.q('qhash', 'pk = :p', '{":p": {"S": "none"}}');

-- ---------------------------------------------------------------- key condition errors
-- §8.20 pk=:p AND pk=:p, sk <> :x, pk < :p, pk=:p OR sk=:s, begins_with on an N sort key, N value for an S pk
SELECT pg_temp.q('qnum', 'pk = :p AND pk = :p', '{":p": {"S": "a"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND sk <> :x', '{":p": {"S": "a"}, ":x": {"N": "1"}}');
SELECT pg_temp.q('qnum', 'pk < :p', '{":p": {"S": "a"}}');
SELECT pg_temp.q('qnum', 'pk = :p OR sk = :s', '{":p": {"S": "a"}, ":s": {"N": "1"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND begins_with(sk, :n)', '{":p": {"S": "a"}, ":n": {"N": "1"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND begins_with(sk, :s)', '{":p": {"S": "a"}, ":s": {"S": "1"}}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"N": "1"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND sk = :s', '{":p": {"S": "a"}, ":s": {"S": "1"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND sk BETWEEN :a AND :b', '{":p": {"S": "a"}, ":a": {"N": "1"}, ":b": {"S": "1"}}');
-- the rest of §3.7: operators, shapes, keys
SELECT pg_temp.q('qnum', 'NOT pk = :p', '{":p": {"S": "a"}}');
SELECT pg_temp.q('qnum', 'pk IN (:p)', '{":p": {"S": "a"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND attribute_exists(sk)', '{":p": {"S": "a"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND attribute_not_exists(sk)', '{":p": {"S": "a"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND contains(sk, :s)', '{":p": {"S": "a"}, ":s": {"N": "1"}}');
SELECT pg_temp.q('qnum', 'attribute_type(pk, :t)', '{":t": {"S": "S"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND dog(sk, :p)', '{":p": {"S": "a"}}');
-- §8.35 function names are case-sensitive
SELECT pg_temp.q('qnum', 'pk = :p AND Begins_With(sk, :p)', '{":p": {"S": "a"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND size(sk) > :p', '{":p": {"S": "a"}}');
SELECT pg_temp.q('qnum', ':p BETWEEN sk AND :p', '{":p": {"S": "a"}}');
SELECT pg_temp.q('qnum', 'begins_with(:p, sk)', '{":p": {"S": "a"}}');
SELECT pg_temp.q('qnum', 'pk = sk', NULL);
SELECT pg_temp.q('qnum', ':p = :q', '{":p": {"S": "a"}, ":q": {"S": "b"}}');
SELECT pg_temp.q('qnum', 'pk.x = :p', '{":p": {"S": "a"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND sk[0] = :p', '{":p": {"S": "a"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND sk > :s AND sk < :s', '{":p": {"S": "a"}, ":s": {"N": "1"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND sk > :s AND v < :s', '{":p": {"S": "a"}, ":s": {"N": "1"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND v < :s', '{":p": {"S": "a"}, ":s": {"N": "1"}}');
SELECT pg_temp.q('qhash', 'pk = :p AND v < :s', '{":p": {"S": "a"}, ":s": {"N": "1"}}');
SELECT pg_temp.q('qnum', 'sk = :s', '{":s": {"N": "1"}}');
-- §8.24 reversed BETWEEN bounds in a key condition; §8.30 doubled parentheses
SELECT pg_temp.q('qnum', 'pk = :p AND sk BETWEEN :hi AND :lo', '{":p": {"S": "a"}, ":lo": {"N": "1"}, ":hi": {"N": "2"}}');
SELECT pg_temp.q('qnum', '((pk = :p))', '{":p": {"S": "a"}}');
SELECT pg_temp.sks(pg_temp.q('qnum', '(pk = :p) AND (sk = :s)', '{":p": {"S": "a"}, ":s": {"N": "2"}}'));
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":unused": {"N": "1"}}');
SELECT pg_temp.q('qnum', 'pk = :p', '{}');
SELECT pg_temp.q('qnum', 'pk = :p', NULL);
SELECT pg_temp.q('qnum', '', '{":p": {"S": "a"}}');
SELECT pg_temp.q('qnum', 'pk = :p AND', '{":p": {"S": "a"}}');
SELECT pg_temp.try('Query', '{"TableName": "qnum"}');
SELECT pg_temp.try('Query', '{"TableName": "qnum", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}}, "AttributesToGet": ["v"], "Select": "ALL_ATTRIBUTES"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"QueryFilter": {}}');
-- §8.8, §8.9 key values in conditions
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": ""}}');
SELECT pg_temp.q('qstr', 'pk = :p AND begins_with(sk, :s)', '{":p": {"S": "pre"}, ":s": {"S": ""}}');
SELECT pg_temp.q('qnum', 'pk = :p', jsonb_build_object(':p', jsonb_build_object('S', repeat('p', 2048))));
SELECT pg_temp.q('qnum', 'pk = :p', jsonb_build_object(':p', jsonb_build_object('S', repeat('p', 2049))));
SELECT pg_temp.q('qstr', 'pk = :p AND sk > :s', jsonb_build_object(':p', '{"S": "a"}'::jsonb, ':s', jsonb_build_object('S', repeat('s', 1025))));
-- §8.34 reserved words, §8.35 function names, §8.32 unused placeholders across expressions
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":s": {"S": "x"}}', '{"FilterExpression": "status = :s"}');
SELECT pg_temp.q('qnum', '#k = :p', '{":p": {"S": "a"}, ":s": {"S": "x"}}', '{"FilterExpression": "#s = :s", "ExpressionAttributeNames": {"#k": "pk", "#s": "status"}}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}, ":s": {"S": "x"}}', '{"FilterExpression": "v = :s OR even = :t"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ExpressionAttributeNames": {"#n": "v"}}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"FilterExpression": ""}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ProjectionExpression": ""}');

-- ---------------------------------------------------------------- ExclusiveStartKey errors
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ExclusiveStartKey": {"pk": {"S": "a"}}}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"N": "1"}}}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"S": "1"}}}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ExclusiveStartKey": {"pk": {"S": "b"}, "sk": {"N": "1"}}}');
SELECT pg_temp.q('qnum', 'pk = :p AND sk > :s', '{":p": {"S": "a"}, ":s": {"N": "3"}}', '{"ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "2"}}}');
SELECT pg_temp.q('qnum', 'pk = :p AND sk > :s', '{":p": {"S": "a"}, ":s": {"N": "3"}}', '{"ExclusiveStartKey": {"pk": {"S": "b"}, "sk": {"N": "2"}}}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "NaN"}}}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ExclusiveStartKey": {"pk": {"S": ""}, "sk": {"N": "1"}}}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": 1}}}');
SELECT pg_temp.q('qhash', 'pk = :p', '{":p": {"S": "one"}}', '{"ExclusiveStartKey": {"pk": {"S": "two"}}}');

-- ---------------------------------------------------------------- request shape, tables, indexes
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Limit": 0}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Limit": 0, "Select": "NONE", "TableName": "x"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"Limit": "5"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ScanIndexForward": "no"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ConsistentRead": 1}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"ReturnConsumedCapacity": "ALL"}');
-- §8.62 unknown table → ResourceNotFoundException; unknown IndexName on a known table → ValidationException
SELECT pg_temp.q('nope', 'pk = :p', '{":p": {"S": "a"}}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"IndexName": "gsi9"}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "IndexName": "gsi9"}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"IndexName": "g9"}');
-- §8.17, §8.19 need Query on a secondary index, which is not there yet: any IndexName of a table
-- without indexes is refused as above; an existing index is refused as not supported
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"IndexName": "gsi1", "ConsistentRead": true, "Limit": 1}');
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "a"}}', '{"IndexName": "lsi1", "Select": "ALL_PROJECTED_ATTRIBUTES"}');

SELECT create_table('{"TableName": "qidx", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "gk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_gk", "KeySchema": [{"AttributeName": "gk", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;
SELECT put_item('{"TableName": "qidx", "Item": {"pk": {"S": "p1"}, "gk": {"S": "g"}}}');
SELECT pg_temp.q('qidx', 'pk = :p', '{":p": {"S": "p1"}}');
SELECT pg_temp.q('qidx', 'gk = :g', '{":g": {"S": "g"}}', '{"IndexName": "by_nothing"}');
SELECT pg_temp.q('qidx', 'gk = :g', '{":g": {"S": "g"}}', '{"IndexName": "by_gk"}');
SELECT pg_temp.try('Scan', '{"TableName": "qidx", "IndexName": "by_gk"}');
SELECT delete_table('{"TableName": "qidx"}') IS NOT NULL AS dropped;

-- ---------------------------------------------------------------- Scan
SELECT pg_temp.sks(pg_temp.try('Scan', '{"TableName": "qnum", "Limit": 4}'));
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "Limit": 2, "ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "6"}}, "ReturnConsumedCapacity": "TOTAL"}');
SELECT pg_temp.try('Scan', '{"TableName": "qhash"}');
SELECT pg_temp.try('Scan', '{"TableName": "qhash", "Limit": 1, "ProjectionExpression": "v"}');
SELECT pg_temp.try('Scan', '{"TableName": "qhash", "FilterExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "onex"}}}');
SELECT pg_temp.try('Scan', '{"TableName": "qhash", "ExclusiveStartKey": {"pk": {"S": "one"}}, "Select": "COUNT"}');
SELECT pg_temp.sks(pg_temp.try('Scan', '{"TableName": "qnum", "FilterExpression": "#v >= :v", "ExpressionAttributeNames": {"#v": "v"}, "ExpressionAttributeValues": {":v": {"N": "50"}}, "ProjectionExpression": "pk, sk"}'));
-- §8.28 contains() in a filter: on a list element, on a number set with 1.0
SELECT put_item('{"TableName": "qhash", "Item": {"pk": {"S": "c1"}, "l": {"L": [{"L": [{"N": "1"}, {"N": "2"}]}]}, "ns": {"NS": ["1"]}, "m": {"M": {"k": {"S": "v"}}}}}');
SELECT pg_temp.try('Scan', '{"TableName": "qhash", "FilterExpression": "contains(l, :x) AND contains(ns, :n) AND NOT contains(m, :k)", "ExpressionAttributeValues": {":x": {"L": [{"N": "1"}, {"N": "2"}]}, ":n": {"N": "1.0"}, ":k": {"S": "k"}}, "ProjectionExpression": "pk"}');
-- §8.60 Segment/TotalSegments (the union of all segments is checked in scan_segments)
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "Segment": 5, "TotalSegments": 5}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "Segment": 0}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "TotalSegments": 2}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "Segment": -1, "TotalSegments": 0}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "Segment": 1000000, "TotalSegments": 1000001}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "Segment": 0, "TotalSegments": 1, "Select": "COUNT"}');
SELECT count(DISTINCT item_key_segment(key, 4)) AS segments, count(*) AS items FROM item_data.qnum WHERE key ^@ 'S"a"';
SELECT pg_temp.try('Scan', jsonb_build_object('TableName', 'qnum', 'Select', 'COUNT', 'TotalSegments', 4,
	'Segment', (SELECT item_key_segment('S"a"'::item_key, 4))));
SELECT pg_temp.try('Scan', jsonb_build_object('TableName', 'qnum', 'Limit', 1, 'TotalSegments', 4, 'ProjectionExpression', 'pk, sk',
	'Segment', (SELECT item_key_segment('S"a"'::item_key, 4)),
	'ExclusiveStartKey', '{"pk": {"S": "a"}, "sk": {"N": "5"}}'::jsonb));
SELECT pg_temp.try('Scan', jsonb_build_object('TableName', 'qnum', 'TotalSegments', 4,
	'Segment', (SELECT (item_key_segment('S"a"'::item_key, 4) + 1) % 4),
	'ExclusiveStartKey', '{"pk": {"S": "a"}, "sk": {"N": "5"}}'::jsonb)) ~ 'correct Segment. TotalSegments: 4 Segment: \d' AS wrong_segment;
-- other Scan errors
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "ExclusiveStartKey": {"pk": {"S": "a"}}}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"S": "1"}}}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "1e999"}}}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "ExpressionAttributeValues": {":v": {"N": "1"}}}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "ProjectionExpression": "#p", "ExpressionAttributeNames": {"#p": "pk"}, "ExpressionAttributeValues": {":v": {"N": "1"}}}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "ExpressionAttributeNames": {"#p": "pk"}}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "ScanFilter": {}, "ConditionalOperator": "AND"}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "Select": "ALL_PROJECTED_ATTRIBUTES"}');
SELECT pg_temp.try('Scan', '{"TableName": "qnum", "Select": "SPECIFIC_ATTRIBUTES"}');
SELECT pg_temp.try('Scan', '{"TableName": "nope"}');
SELECT pg_temp.try('Scan', '{}');

-- ---------------------------------------------------------------- plans: one ordered index range scan, no Sort
SELECT * FROM explain_query('{"TableName": "qnum", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}');
SELECT * FROM explain_query('{"TableName": "qnum", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}, "ScanIndexForward": false, "Limit": 1}');
SELECT * FROM explain_query('{"TableName": "qnum", "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b", "ExpressionAttributeValues": {":p": {"S": "a"}, ":a": {"N": "2"}, ":b": {"N": "4"}}, "ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "3"}}}');
SELECT * FROM explain_query('{"TableName": "qstr", "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)", "ExpressionAttributeValues": {":p": {"S": "pre"}, ":s": {"S": "ORDER#"}}, "ScanIndexForward": false}');
SELECT * FROM explain_query('{"TableName": "qnum", "KeyConditionExpression": "pk = :p AND sk < :s", "ExpressionAttributeValues": {":p": {"S": "a"}, ":s": {"N": "3"}, ":t": {"BOOL": true}}, "FilterExpression": "even = :t"}');
SELECT * FROM explain_scan('{"TableName": "qnum"}');
SELECT * FROM explain_scan('{"TableName": "qnum", "ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "3"}}}');
SELECT * FROM explain_scan('{"TableName": "qnum", "Segment": 1, "TotalSegments": 3}');
SELECT * FROM explain_query('{"TableName": "qnum", "KeyConditionExpression": "pk < :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}');
-- with many rows and fresh statistics the plans do not change (they are generic plans)
CREATE TABLE pg_temp.many AS SELECT g FROM generate_series(1, 20000) g;
INSERT INTO item_data.qnum (key, item)
SELECT item_key(jsonb_build_object('S', 'many'), jsonb_build_object('N', g::text)),
	   jsonb_build_object('pk', '{"S": "many"}'::jsonb, 'sk', jsonb_build_object('N', g::text))
FROM pg_temp.many;
ANALYZE item_data.qnum;
SELECT * FROM explain_query('{"TableName": "qnum", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "many"}}, "ScanIndexForward": false}');
SELECT * FROM explain_scan('{"TableName": "qnum", "Limit": 1}');
SELECT pg_temp.sks(pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "many"}}', '{"ScanIndexForward": false, "Limit": 3}'));
SELECT pg_temp.q('qnum', 'pk = :p', '{":p": {"S": "many"}}', '{"Select": "COUNT", "ReturnConsumedCapacity": "TOTAL"}');
-- the same statements written by hand, as generic plans: ordered index scans
SET plan_cache_mode = force_generic_plan;
PREPARE fwd(item_key, item_key) AS SELECT key, item FROM item_data.qnum
	WHERE key OPERATOR(item_table.>=) $1 AND key OPERATOR(item_table.<) $2 ORDER BY key USING OPERATOR(item_table.<);
PREPARE bwd(item_key, item_key) AS SELECT key, item FROM item_data.qnum
	WHERE key OPERATOR(item_table.>=) $1 AND key OPERATOR(item_table.<) $2 ORDER BY key USING OPERATOR(item_table.>);
EXPLAIN (COSTS OFF) EXECUTE fwd('S"many"', 'S"many"|~');
EXPLAIN (COSTS OFF) EXECUTE bwd('S"many"', 'S"many"|~');
DEALLOCATE fwd;
DEALLOCATE bwd;
RESET plan_cache_mode;

-- ---------------------------------------------------------------- SQL-native access
-- item_collection(): the collection as rows, usable in FROM and in joins
SELECT key, item->'v' AS v FROM item_collection('qnum', '{"S": "a"}');
SELECT key FROM item_collection('qnum', '{"S": "a"}', scan_forward => false) LIMIT 2;
SELECT key FROM item_collection('qstr', '{"S": "pre"}', '{"S": "ORDER#"}');
SELECT key FROM item_collection('qbin', '{"N": "8"}', '{"B": "/w=="}');
SELECT key FROM item_collection('qhash', '{"S": "one"}');
SELECT count(*) FROM item_collection('qnum', '{"S": "many"}');
CREATE TEMP TABLE users (name text, partition text);
INSERT INTO users VALUES ('Ann', 'a'), ('Bob', 'b'), ('Cid', 'c');
SELECT u.name, count(c.key) AS items, max((c.item->'sk'->>'N')::int) AS last
FROM users u LEFT JOIN LATERAL item_collection('qnum', jsonb_build_object('S', u.partition)) c ON true
GROUP BY u.name ORDER BY u.name;
-- in a select list the rows stream: an early stop leaves the rest unread
SELECT item_collection('qnum', '{"S": "many"}') IS NOT NULL AS row LIMIT 2;
SELECT count(*) FROM (SELECT item_collection('qnum', '{"S": "many"}', NULL, false) LIMIT 5) s;
-- errors
SELECT * FROM item_collection('qnum', '{"N": "1"}');
SELECT * FROM item_collection('qnum', '{"S": "a"}', '{"N": "1"}');
SELECT * FROM item_collection('qhash', '{"S": "a"}', '{"S": "x"}');
SELECT * FROM item_collection('nope', '{"S": "a"}');
SELECT * FROM item_collection('qnum', NULL);
-- plain SQL on the physical table: begins_with and key ranges use the primary key
EXPLAIN (COSTS OFF) SELECT key, item FROM item_data.qstr WHERE key ^@ 'S"pre"|S"ORDER#"' ORDER BY key LIMIT 10;
EXPLAIN (COSTS OFF) SELECT key, item FROM item_data.qstr WHERE begins_with(key, item_key('{"S": "pre"}', '{"S": "ORDER"}')) ORDER BY key DESC LIMIT 1;
SELECT key FROM item_data.qstr WHERE key ^@ 'S"pre"|S"ORDER#"' ORDER BY key;

SELECT delete_table('{"TableName": "qnum"}') IS NOT NULL AS dropped;
SELECT delete_table('{"TableName": "qstr"}') IS NOT NULL AS dropped;
SELECT delete_table('{"TableName": "qbin"}') IS NOT NULL AS dropped;
SELECT delete_table('{"TableName": "qhash"}') IS NOT NULL AS dropped;
