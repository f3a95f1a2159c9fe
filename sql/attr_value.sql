-- Attribute values: validation and normalisation as DynamoDB does it
-- (reference §1), through normalize_item() and item_size().
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try_item(item jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
BEGIN
	RETURN item_table.normalize_item(item)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
	RETURN st || ' ' || msg;
END $$;

-- all ten types, canonical output
SELECT normalize_item('{
	"s": {"S": "héllo"}, "n": {"N": "-012.50"}, "b": {"B": "AP8="},
	"t": {"BOOL": true}, "f": {"BOOL": false}, "z": {"NULL": true},
	"m": {"M": {"k": {"S": "v"}, "e": {"M": {}}}}, "l": {"L": [{"N": "1"}, {"S": "x"}, {"L": []}]},
	"ss": {"SS": ["b", "a", "é"]}, "ns": {"NS": ["10", "9.0", "-1e2"]}, "bs": {"BS": ["gA==", "AA==", "fw=="]}}');

-- §8.1 numbers come back canonical
SELECT n, normalize_item(jsonb_build_object('n', jsonb_build_object('N', n)))->'n'->>'N' AS canonical
FROM unnest(ARRAY['1.50', '-0', '1e3', '007', '+3', '100.000', '-0.0', '.5', '-.5', '123e-2',
				  '1e-20', '1E+3', '0e5', '1e125', '-9.9999999999999999999999999999999999999E+125']) n;

-- §8.3, §8.4 number limits and syntax
SELECT n, pg_temp.try_item(jsonb_build_object('n', jsonb_build_object('N', n))) AS result
FROM unnest(ARRAY['123456789012345678901234567890123456789', '12345678901234567890123456789012345678',
				  '1E+126', '1E-130', '1E-131', 'NaN', ' 1', '1e', 'Infinity', '0x10', '1.2.3',
				  '++5', '', '1 ', '1_000']) n;

-- §8.4 wrong JSON types are SerializationException
SELECT v, pg_temp.try_item(jsonb_build_object('a', v)) AS result
FROM unnest(ARRAY['{"N": 12}', '{"S": 1}', '{"B": "not base64"}', '{"B": "QQ"}', '{"BOOL": "true"}',
				  '{"M": []}', '{"L": {}}', '{"SS": "a"}', '{"NS": [1]}', '"S"', '[]', '{"NULL": 1}']::jsonb[]) v;

-- §8.6 sets
SELECT v, pg_temp.try_item(jsonb_build_object('a', v)) AS result
FROM unnest(ARRAY['{"SS": ["a", "a"]}', '{"NS": ["1", "1.0"]}', '{"BS": ["AA==", "AA=="]}',
				  '{"SS": []}', '{"NS": []}', '{"BS": []}', '{"SS": ["", "x"]}',
				  '{"L": [{"SS": []}]}', '{"M": {"x": {"NS": ["1e1", "10"]}}}']::jsonb[]) v;

-- §8.7 malformed attribute values
SELECT v, pg_temp.try_item(jsonb_build_object('a', v)) AS result
FROM unnest(ARRAY['{"NULL": false}', '{"S": "x", "N": "1"}', '{}', '{"X": "a"}', '{"s": "a"}']::jsonb[]) v;

-- §8.8 empty strings and binaries are fine outside keys, at any depth
SELECT normalize_item('{"a": {"S": ""}, "b": {"B": ""}, "c": {"L": [{"S": ""}]}, "d": {"M": {"": {"S": ""}}}}');
SELECT pg_temp.try_item('{"": {"S": "x"}}') AS empty_attribute_name;

-- §8.11 nesting: 32 levels OK, 33 rejected
CREATE FUNCTION pg_temp.nested(levels int) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	v jsonb := '{"S": "leaf"}';
BEGIN
	FOR i IN 1..levels LOOP
		v := jsonb_build_object('M', jsonb_build_object('x', v));
	END LOOP;
	RETURN jsonb_build_object('a', v);
END $$;
SELECT length(pg_temp.try_item(pg_temp.nested(32))) > 0 AND pg_temp.try_item(pg_temp.nested(32)) NOT LIKE 'XD%' AS depth_32_ok,
	   pg_temp.try_item(pg_temp.nested(33)) AS depth_33;
SELECT pg_temp.try_item(jsonb_build_object('a', jsonb_build_object('L', jsonb_build_array(pg_temp.nested(32)->'a')))) AS list_then_32_maps;

-- sizes (reference §1.4)
SELECT item, item_size(item)
FROM unnest(ARRAY[
	'{"pk": {"S": "abc"}}', '{"n": {"N": "12345"}}', '{"n": {"N": "0"}}', '{"n": {"N": "-1.5"}}',
	'{"b": {"BOOL": true}, "z": {"NULL": true}}', '{"l": {"L": [{"S": "ab"}, {"N": "1"}]}}',
	'{"m": {"M": {"k": {"S": "v"}}}}', '{"ss": {"SS": ["a", "bc"]}}', '{"bs": {"BS": ["AP8="]}}',
	'{"s": {"S": "é𝄞"}}']::jsonb[]) item;

-- §8.10 item size limit: exactly 409,600 bytes is fine, one more is not
SELECT item_size(jsonb_build_object('pk', jsonb_build_object('S', 'k'), 'data', jsonb_build_object('S', repeat('x', 409600 - 7)))) AS size,
	   left(pg_temp.try_item(jsonb_build_object('pk', jsonb_build_object('S', 'k'), 'data', jsonb_build_object('S', repeat('x', 409600 - 7)))), 20) AS at_limit,
	   pg_temp.try_item(jsonb_build_object('pk', jsonb_build_object('S', 'k'), 'data', jsonb_build_object('S', repeat('x', 409600 - 6)))) AS over_limit;

-- jsonb rejects U+0000; encode_item() takes JSON text to the stored form
-- (U+0000 -> U+0001 U+0001, U+0001 -> U+0001 U+0002), decode_item() back
SELECT '{"a": {"S": "x\u0000y"}}'::jsonb;
SELECT encode_item('{"a\u0000": {"S": "x\u0000y\u0001"}, "s": {"SS": ["\u0001", "\u0000", "\\u0000"]}}');
SELECT decode_item(normalize_item(encode_item('{"a\u0000": {"S": "x\u0000y\u0001"}, "s": {"SS": ["\u0001", "\u0000", "\\u0000"]}}')));
-- sizes count U+0000 as one byte: a\u0000 2 + 4, s 1 + (1 + 1 + 6)
SELECT item_size(encode_item('{"a\u0000": {"S": "x\u0000y\u0001"}, "s": {"SS": ["\u0001", "\u0000", "\\u0000"]}}'));
-- a U+0001 that starts no code word is itself: stored as U+0001 U+0002
SELECT normalize_item('{"a": {"S": "x\u0001y\u0001"}}'),
       decode_item(normalize_item('{"a": {"S": "x\u0001y\u0001"}}')),
       item_size('{"a": {"S": "x\u0001y\u0001"}}');
