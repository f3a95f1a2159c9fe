-- item_key text and binary I/O, constructors and accessors.
SET search_path = item_table, public;

-- text form round-trips: every output reads back to an equal key
CREATE TEMP TABLE io_cases (txt text);
INSERT INTO io_cases VALUES
	('S"USER#1"'),
	('S"USER#1"|S"ORDER#2024-01-01"'),
	('S"USER#1"|N42'),
	('N-12.5|S"x"'),
	('B"AP8="|B"/w=="'),
	('S"caf\u00e9"|S"\ud83d\ude00"'),
	('S"tab\there"|S"quote\" backslash\\ slash\/"'),
	('S"nul\u0000inside"|S"\u0000"'),
	('S"ctl\u0001\u001f\u007f"'),
	('N0'),
	('N"-0"'),
	('N1e-130'),
	('N9.9999999999999999999999999999999999999E+125'),
	('N-9.9999999999999999999999999999999999999E+125'),
	('N12345678901234567890123456789012345678'),
	('N0.00012345678901234567890123456789012345678'),
	('  S "spaced" | N 7  '),
	('S"x"|~'),
	('N3|~'),
	('S"x"|S"pre"~'),
	('B"AA=="|B"AP8="~');
SELECT txt, txt::item_key AS key,
	   txt::item_key::text::item_key = txt::item_key AS round_trips
FROM io_cases;

-- reference §8.1/8.2: numbers are canonical and compared by value
SELECT n, ('N"' || n || '"')::item_key AS key
FROM unnest(ARRAY['1.50', '-0', '1e3', '007', '+3', '1.0', '100.000', '1.10',
				  '-0.0', '0e5', '.5', '-.5', '1E+3', '1.0e3', '123e-2', '1e-3',
				  '1e-20', '5.']) n;
SELECT 'N1e3'::item_key = 'N1000'::item_key AS e3_is_1000,
	   'S"a"|N1e3'::item_key = item_key('{"S":"a"}', '{"N":"1000.0"}') AS sort_1000,
	   'N1e125'::item_key::text = 'N1' || repeat('0', 125) AS e125_plain;

-- constructors from DynamoDB attribute values, and accessors back
SELECT k, partition_value(k), sort_value(k), partition_key(k)
FROM (VALUES (item_key('{"S":"USER#1"}'::jsonb)),
			 (item_key('{"S":"USER#1"}', '{"S":"ORDER#1"}')),
			 (item_key('{"N":"007"}', '{"B":"3q2+7w=="}')),
			 (item_key('{"B":"AA=="}', NULL)),
			 (item_key('{"N":"-0.50"}', NULL)),
			 (item_key('{"S":"é𝄞"}', '{"N":"-1e-5"}'))) v(k);

-- U+0000 lives in keys; in jsonb a string holds it in the stored form
-- (U+0000 -> U+0001 U+0001, U+0001 -> U+0001 U+0002), decode_item() reads it
SELECT partition_value('S"a\u0000b"'), sort_value('S"k"|S"\u0001x"');
SELECT decode_item(partition_value('S"a\u0000b"'));
SELECT item_key(encode_item('{"S": "a\u0000b"}'), encode_item('{"S": "\u0001"}'));
SELECT item_key(encode_item('{"S": "a\u0000b"}')) = 'S"a\u0000b"'::item_key AS same_key;
-- a U+0001 that starts no code word is itself (as in items stored before the escape)
SELECT item_key('{"S": "a\u0001b"}'::jsonb), item_key('{"S": "a\u0001"}'::jsonb);

-- ranges are bounds, not values
SELECT sort_value('S"x"|S"pre"~');

-- binary send/recv: write with client-side COPY BINARY (psql runs in the build directory), read back, compare
CREATE TEMP TABLE io_keys AS SELECT txt::item_key AS k FROM io_cases;
\copy io_keys TO 'results/key_io.bin' WITH (FORMAT binary)
CREATE TEMP TABLE io_back (k item_key);
\copy io_back FROM 'results/key_io.bin' WITH (FORMAT binary)
SELECT count(*) AS n,
	   count(*) FILTER (WHERE a.k = b.k) AS equal
FROM (SELECT k, row_number() OVER () r FROM io_keys) a
JOIN (SELECT k, row_number() OVER () r FROM io_back) b USING (r);
SELECT item_key_send('S"a"|N-1.5');

-- limits: partition 2048 bytes, sort 1024 bytes (reference §8.9)
SELECT length(partition_value(item_key(jsonb_build_object('S', repeat('p', 2048))))->>'S') AS pk_2048,
	   length(sort_value(item_key('{"S":"p"}', jsonb_build_object('S', repeat('s', 1024))))->>'S') AS sk_1024,
	   octet_length(decode(sort_value(item_key('{"S":"p"}',
			jsonb_build_object('B', translate(encode(decode(repeat('ff', 1024), 'hex'), 'base64'), E'\n', ''))))->>'B', 'base64')) AS b_1024;
-- a bare literal in item_key(...) is a cast from the text form
SELECT item_key('S"USER#1"|N1');
-- multi-byte: 1024 bytes of 'é' (2 bytes each) is 512 characters
SELECT length(sort_value(item_key('{"S":"p"}', jsonb_build_object('S', repeat('é', 512))))->>'S') AS sk_512_chars;
