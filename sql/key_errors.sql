-- Malformed keys: every one gets a clear error with its SQLSTATE; none
-- crashes the backend.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try_key(txt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
BEGIN
	PERFORM txt::item_table.item_key;
	RETURN 'ok';
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	RETURN st || ' ' || msg || CASE WHEN det <> '' THEN ' | ' || det ELSE '' END;
END $$;

CREATE FUNCTION pg_temp.try_values(p jsonb, s jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
BEGIN
	PERFORM item_table.item_key(p, s);
	RETURN 'ok';
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	RETURN st || ' ' || msg || CASE WHEN det <> '' THEN ' | ' || det ELSE '' END;
END $$;

-- text input
CREATE TEMP TABLE bad_text (id serial, txt text);
INSERT INTO bad_text (txt) VALUES
	(''), ('   '), ('S'), ('S"'), ('S"abc'), ('S abc'), ('S"a"|'), ('S"a"||S"b"'),
	('S"a"|S"b"|S"c"'), ('X"a"'), ('s"a"'), ('"a"'), ('S"a" S"b"'), ('S"a"x'),
	('S""'), ('S"a"|S""'), ('B""'), ('S"a"|B""'),
	('S"\x"'), ('S"\u12"'), ('S"\u12g4"'), ('S"\ud800"'), ('S"\udc00"'), ('S"\ud800\u0041"'),
	('S"a\'), ('S"a"~'), ('S"a"|N5~'), ('~'), ('|~'), ('S"a"|~~'), ('S"a"|S"b"~~'),
	('B"A"'), ('B"AA="'), ('B"A==="'), ('B"AA==AA=="'), ('B"AA.="'), ('B"A A="'),
	('N'), ('N""'), ('N"abc"'), ('NaN'), ('NNaN'), ('NInfinity'), ('N1e'), ('N1.2.3'),
	('N++5'), ('N"+-5"'), ('N" 1"'), ('N0x10'), ('N--1'), ('N1e+'), ('N.'), ('N-'),
	('N1234567890123456789012345678901234567890'),
	('N1E+126'), ('N-1E+126'), ('N1E-131'), ('N-1E-131'), ('N1e999999999999'),
	('N"1"|N"1e-200"');
INSERT INTO bad_text (txt) VALUES
	('S"' || repeat('p', 2049) || '"'),
	('S"p"|S"' || repeat('s', 1025) || '"'),
	('S"p"|S"' || repeat('é', 513) || '"');
SELECT id, left(txt, 40) AS input, pg_temp.try_key(txt) AS result
FROM bad_text ORDER BY id;
SELECT count(*) AS malformed_texts,
	   count(*) FILTER (WHERE pg_temp.try_key(txt) = 'ok') AS accepted
FROM bad_text;

-- constructors from attribute values
CREATE TEMP TABLE bad_values (id serial, p jsonb, s jsonb);
INSERT INTO bad_values (p, s) VALUES
	('{}', NULL), ('{"S":"a","N":"1"}', NULL), ('{"BOOL":true}', NULL), ('{"NULL":true}', NULL),
	('{"SS":["a"]}', NULL), ('{"M":{}}', NULL), ('{"L":[]}', NULL), ('{"N":12}', NULL),
	('{"S":1}', NULL), ('{"S":null}', NULL), ('{"B":"not base64!"}', NULL), ('{"B":"QQ"}', NULL),
	('[]', NULL), ('"S"', NULL), ('{"s":"a"}', NULL), ('{"S":""}', NULL), ('{"B":""}', NULL),
	('{"N":"NaN"}', NULL), ('{"N":" 1"}', NULL), ('{"N":"1e"}', NULL), ('{"N":"1E+126"}', NULL),
	('{"N":"1E-131"}', NULL), ('{"N":"1234567890123456789012345678901234567891"}', NULL),
	('{"S":"a"}', '{}'), ('{"S":"a"}', '{"S":""}'), ('{"S":"a"}', '{"N":"x"}'), ('{"S":"a"}', '{"BOOL":false}');
INSERT INTO bad_values (p, s) VALUES
	(jsonb_build_object('S', repeat('p', 2049)), NULL),
	('{"S":"a"}', jsonb_build_object('S', repeat('s', 1025))),
	('{"S":"a"}', jsonb_build_object('B', translate(encode(decode(repeat('00', 1025), 'hex'), 'base64'), E'\n', '')));
SELECT id, left(p::text, 30) AS partition_value, left(s::text, 30) AS sort_value,
	   pg_temp.try_values(p, s) AS result
FROM bad_values ORDER BY id;

-- binary input is validated: feed raw bytes through COPY BINARY
CREATE TEMP TABLE raw_bytes (b bytea);
CREATE TEMP TABLE recv_target (k item_key);
INSERT INTO raw_bytes VALUES ('\x03206100'::bytea);
\copy raw_bytes TO 'results/key_errors.bin' WITH (FORMAT binary)
\copy recv_target FROM 'results/key_errors.bin' WITH (FORMAT binary)
TRUNCATE raw_bytes;
INSERT INTO raw_bytes VALUES ('\x01029a'::bytea);
\copy raw_bytes TO 'results/key_errors.bin' WITH (FORMAT binary)
\copy recv_target FROM 'results/key_errors.bin' WITH (FORMAT binary)
TRUNCATE raw_bytes;
INSERT INTO raw_bytes VALUES ('\x010383'::bytea);
\copy raw_bytes TO 'results/key_errors.bin' WITH (FORMAT binary)
\copy recv_target FROM 'results/key_errors.bin' WITH (FORMAT binary)
TRUNCATE raw_bytes;
INSERT INTO raw_bytes VALUES ('\x0104fe'::bytea);
\copy raw_bytes TO 'results/key_errors.bin' WITH (FORMAT binary)
\copy recv_target FROM 'results/key_errors.bin' WITH (FORMAT binary)
TRUNCATE raw_bytes;
-- invalid UTF-8 inside a string part
INSERT INTO raw_bytes VALUES ('\x0104c328'::bytea);
\copy raw_bytes TO 'results/key_errors.bin' WITH (FORMAT binary)
\copy recv_target FROM 'results/key_errors.bin' WITH (FORMAT binary)
SELECT count(*) AS accepted FROM recv_target;

-- the backend is still here
SELECT 'alive' AS backend;
