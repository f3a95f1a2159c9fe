-- item_key order is DynamoDB's order.  The expected order is computed here
-- independently of the type: S by UTF-8 bytes (bytea), N by numeric value,
-- B by bytes, type rank N < S < B, partition-only keys first in their
-- partition.
SET search_path = item_table, public;

-- reference §8.12 and §8.13
SELECT s.k FROM unnest(ARRAY['S"p"|S"a"', 'S"p"|S"B"', 'S"p"|S"é"',
							 'S"p"|S"\uff5e"', 'S"p"|S"\ud83d\ude00"']::item_key[]) s(k)
ORDER BY s.k;
SELECT s.k FROM unnest(ARRAY['S"p"|B"gA=="', 'S"p"|B"fw=="', 'S"p"|B"AA=="',
							 'S"p"|N10', 'S"p"|N9', 'S"p"|N-1']::item_key[]) s(k)
ORDER BY s.k;

-- value generators
-- pseudo-random numbers in [0, 1) fixed by their arguments, so that the data
-- is the same whatever order a plan evaluates the rows in
CREATE FUNCTION pg_temp.rnd(VARIADIC a text[]) RETURNS float8
	LANGUAGE sql IMMUTABLE STRICT
	AS $$ SELECT ('x' || left(md5(array_to_string(a, ',')), 8))::bit(32)::bigint / 4294967296.0 $$;

CREATE TEMP TABLE parts (id serial, t text, num numeric, bytes bytea, av jsonb);

-- strings: short words over a small alphabet (so that many are prefixes of
-- one another) mixing ASCII, 2-, 3- and 4-byte UTF-8 and U+10FFFF
INSERT INTO parts (t, bytes)
SELECT 'S', convert_to(w, 'UTF8')
FROM (SELECT string_agg(
				(ARRAY['a', 'b', 'Z', '#', 'é', 'ж', '中', '\uff5e', '😀', '𝄞',
					   U&'\+10FFFF', U&'\+00007F', '~'])[1 + floor(pg_temp.rnd('w', g::text, c::text) * 13)::int], '' ORDER BY c)
				 AS w, g
	  FROM generate_series(1, 3000) g, generate_series(1, 1 + (g % 6)) c
	  GROUP BY g) words
ORDER BY g;

-- numbers: random digits (1..38) and exponents over the whole range, both
-- signs, plus zero and the extremes
INSERT INTO parts (t, num)
SELECT 'N', (sign || digits || 'e' || ex)::numeric
FROM (SELECT CASE WHEN pg_temp.rnd('sign', g::text) < 0.5 THEN '-' ELSE '' END AS sign,
			 (SELECT string_agg((floor(pg_temp.rnd('d', g::text, d::text) * 10))::int::text, '' ORDER BY d)
			  FROM generate_series(1, 1 + (g % 38)) d) AS digits,
			 floor(pg_temp.rnd('ex', g::text) * 250 - 125)::int - (g % 38) AS ex,
			 g
	  FROM generate_series(1, 3000) g) r
WHERE (digits || 'e' || ex)::numeric <> 0
  AND abs((digits || 'e' || ex)::numeric) BETWEEN 1e-130 AND 9.9999999999999999999999999999999999999e125;
INSERT INTO parts (t, num) VALUES
	('N', 0), ('N', 1e-130), ('N', -1e-130),
	('N', 9.9999999999999999999999999999999999999e125),
	('N', -9.9999999999999999999999999999999999999e125),
	('N', 1), ('N', 10), ('N', 9), ('N', -1), ('N', 0.5), ('N', 1.5),
	('N', 12345678901234567890123456789012345678),
	('N', 1.2345678901234567890123456789012345678);

-- binary: random bytes biased towards 0x00, 0x01, 0xFE and 0xFF
INSERT INTO parts (t, bytes)
SELECT 'B', decode(string_agg(
			(ARRAY['00', '01', 'fe', 'ff', '7f', '80', lpad(to_hex(floor(pg_temp.rnd('b', g::text, c::text) * 256)::int), 2, '0')])
				[1 + floor(pg_temp.rnd('bi', g::text, c::text) * 7)::int], '' ORDER BY c), 'hex')
FROM generate_series(1, 2000) g, generate_series(1, 1 + (g % 5)) c
GROUP BY g
ORDER BY g;

UPDATE parts SET av = CASE t
	WHEN 'S' THEN jsonb_build_object('S', convert_from(bytes, 'UTF8'))
	WHEN 'N' THEN jsonb_build_object('N', num::text)
	ELSE jsonb_build_object('B', translate(encode(bytes, 'base64'), E'\n', '')) END;

-- keys: random partition/sort pairs, some partition-only
CREATE TEMP TABLE keys AS
SELECT p.t AS pt, p.num AS pn, p.bytes AS pb,
	   s.t AS st, s.num AS sn, s.bytes AS sb,
	   item_key(p.av, s.av) AS k
FROM (SELECT g, 1 + floor(pg_temp.rnd('p', g::text) * 400)::int AS pid,
			 CASE WHEN pg_temp.rnd('po', g::text) < 0.1 THEN NULL
				  ELSE 1 + floor(pg_temp.rnd('s', g::text) * (SELECT max(id) FROM parts))::int END AS sid
	  FROM generate_series(1, 12000) g) r
JOIN parts p ON p.id = (SELECT min(id) FROM parts) + r.pid * 17 % (SELECT count(*) FROM parts)
LEFT JOIN parts s ON s.id = r.sid;

SELECT count(*) AS keys, count(DISTINCT k) AS distinct_keys,
	   count(*) FILTER (WHERE st IS NULL) AS partition_only,
	   count(DISTINCT pt) AS partition_types, count(DISTINCT st) AS sort_types
FROM keys;

-- equal keys exactly when equal values
SELECT count(*) AS pairs_disagreeing
FROM (SELECT DISTINCT ON (k) * FROM keys) a
JOIN keys b ON (a.k = b.k) <> (a.pt IS NOT DISTINCT FROM b.pt AND a.pn IS NOT DISTINCT FROM b.pn
		AND a.pb IS NOT DISTINCT FROM b.pb AND a.st IS NOT DISTINCT FROM b.st
		AND a.sn IS NOT DISTINCT FROM b.sn AND a.sb IS NOT DISTINCT FROM b.sb)
WHERE b.ctid IN (SELECT ctid FROM keys TABLESAMPLE BERNOULLI (5) REPEATABLE (7));

-- the order by the type equals the independently computed order
CREATE TEMP TABLE distinct_keys AS SELECT DISTINCT ON (k) * FROM keys;
WITH by_type AS (
	SELECT k, row_number() OVER (ORDER BY k) AS r FROM distinct_keys
), by_values AS (
	SELECT k, row_number() OVER (
		ORDER BY array_position(ARRAY['N', 'S', 'B'], pt), pn, pb,
				 st IS NOT NULL, array_position(ARRAY['N', 'S', 'B'], st), sn, sb) AS r
	FROM distinct_keys
)
SELECT count(*) AS compared,
	   count(*) FILTER (WHERE by_type.r <> by_values.r) AS out_of_order
FROM by_type JOIN by_values USING (k);

-- the comparison operators agree with each other on neighbours
WITH ordered AS (SELECT k, lead(k) OVER (ORDER BY k) AS nxt FROM distinct_keys)
SELECT count(*) FILTER (WHERE NOT (k < nxt AND k <= nxt AND nxt > k AND nxt >= k
									AND k <> nxt AND NOT k = nxt
									AND item_key_cmp(k, nxt) < 0
									AND item_key_cmp(nxt, k) > 0)) AS inconsistent
FROM ordered WHERE nxt IS NOT NULL;

-- sorting uses sortsupport; a btree built on the keys returns the same order
CREATE TEMP TABLE sorted_keys (k item_key PRIMARY KEY);
INSERT INTO sorted_keys SELECT k FROM distinct_keys;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM sorted_keys ORDER BY k;
SELECT (SELECT array_agg(k) FROM (SELECT k FROM sorted_keys ORDER BY k) s) =
	   (SELECT array_agg(k ORDER BY k) FROM distinct_keys) AS index_order_matches;
RESET enable_seqscan;
RESET enable_bitmapscan;
