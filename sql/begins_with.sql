-- begins_with: the operator (^@) and function forms, exact index ranges
-- through the btree (planner support) and through GiST, checked against
-- sequential scans for more than 1,000 random prefixes.
SET search_path = item_table, public;
-- pseudo-random numbers in [0, 1) fixed by their arguments, so that the data
-- is the same whatever order a plan evaluates the rows in
CREATE FUNCTION pg_temp.rnd(VARIADIC a text[]) RETURNS float8
	LANGUAGE sql IMMUTABLE STRICT
	AS $$ SELECT ('x' || left(md5(array_to_string(a, ',')), 8))::bit(32)::bigint / 4294967296.0 $$;

-- semantics
SELECT k, p, k ^@ p AS begins_with
FROM (VALUES ('S"u"|S"ORDER#1"'::item_key, 'S"u"|S"ORDER#"'::item_key),
			 ('S"u"|S"ORDER#1"', 'S"u"|S"ORDER#1"'),
			 ('S"u"|S"ORDER#1"', 'S"u"|S"ORDER#12"'),
			 ('S"u"|S"ORDER#1"', 'S"v"|S"ORDER#"'),
			 ('S"u"|S"ORDER#1"', 'S"u"'),
			 ('S"u"', 'S"u"'),
			 ('S"u"|S"ORDER#1"', 'S"u"|B"T1JE"'),
			 ('S"u"|N5', 'S"u"'),
			 ('S"uu"|S"x"', 'S"u"'),
			 ('B"AP8="|B"AP8A"', 'B"AP8="|B"AP8="'),
			 ('B"AP8="|B"AP8="', 'B"AP8="|B"AP//"'),
			 ('S"u"|S"a\u0000b"', 'S"u"|S"a\u0000"'),
			 ('S"u"|S"a"', 'S"u"|S"a\u0000"')) v(k, p);
SELECT begins_with('S"u"|S"ab"', 'S"u"|S"a"') AS function_form;
-- numbers have no prefixes (DynamoDB: begins_with on S and B only)
SELECT 'S"u"|N12'::item_key ^@ 'S"u"|N1'::item_key;
SELECT item_key_prefix_upper('S"u"|N1');
SELECT 'S"u"|S"a"'::item_key ^@ 'S"u"|~'::item_key;
-- the bounds of a range
SELECT p, item_key_prefix_upper(p)
FROM unnest(ARRAY['S"u"|S"ab"', 'S"u"', 'N-2', 'B"/w=="|B"/w=="', 'S"\udbff\udfff"|S"\udbff\udfff"']::item_key[]) p;

-- data: string partitions with string sort keys drawn from a small alphabet
-- (many prefixes of one another, multi-byte, U+10FFFF) and binary
-- partitions with binary sort keys heavy in 0x00 and 0xFF
CREATE TABLE bw_items (key item_key PRIMARY KEY);
INSERT INTO bw_items
SELECT DISTINCT k FROM (
	SELECT item_key(jsonb_build_object('S', 'P' || (g % 13)),
					jsonb_build_object('S', string_agg(
						(ARRAY['a', 'b', 'é', '中', '😀', U&'\+10FFFF', '#', '0'])[1 + floor(pg_temp.rnd('s', g::text, c::text) * 8)::int], '' ORDER BY c))) AS k
	FROM generate_series(1, 15000) g, generate_series(1, 1 + (g % 7)) c
	GROUP BY g
	UNION ALL
	SELECT item_key(jsonb_build_object('B', translate(encode(decode(lpad(to_hex(g % 5), 2, '0'), 'hex'), 'base64'), E'\n', '')),
					jsonb_build_object('B', translate(encode(decode(string_agg(
						(ARRAY['00', 'ff', 'fe', '01', '7f', '80'])[1 + floor(pg_temp.rnd('b', g::text, c::text) * 6)::int], '' ORDER BY c), 'hex'), 'base64'), E'\n', '')))
	FROM generate_series(1, 5000) g, generate_series(1, 1 + (g % 5)) c
	GROUP BY g) s
ORDER BY k;
INSERT INTO bw_items SELECT DISTINCT partition_key(key) FROM bw_items ORDER BY 1;
ANALYZE bw_items;

-- prefixes: truncations of existing sort values (by characters for S, by
-- bytes for B), some values that exist nowhere, and whole partitions
CREATE TEMP TABLE bw_prefixes (id serial, p item_key);
INSERT INTO bw_prefixes (p)
SELECT item_key(partition_value(key),
				jsonb_build_object('S', left(sort_value(key)->>'S', 1 + floor(pg_temp.rnd('ps', key::text) * length(sort_value(key)->>'S'))::int)))
FROM bw_items TABLESAMPLE BERNOULLI (9) REPEATABLE (1)
WHERE sort_value(key) ? 'S';
INSERT INTO bw_prefixes (p)
SELECT item_key(partition_value(key),
				jsonb_build_object('B', translate(encode(substr(b, 1, 1 + floor(pg_temp.rnd('pb', key::text) * length(b))::int), 'base64'), E'\n', '')))
FROM (SELECT key, decode(sort_value(key)->>'B', 'base64') AS b
	  FROM bw_items TABLESAMPLE BERNOULLI (10) REPEATABLE (2)
	  WHERE sort_value(key) ? 'B') s;
INSERT INTO bw_prefixes (p) VALUES
	('S"P1"|S"\udbff\udfff"'), ('S"P2"|S"a\udbff\udfff"'), ('S"P3"|S"\udbff\udfff\udbff\udfff"'),
	('B"AA=="|B"/w=="'), ('B"AQ=="|B"//8="'), ('B"Ag=="|B"AP8="'), ('B"Aw=="|B"/w=="'),
	('S"P4"|S"zzz"'), ('S"nope"|S"a"'), ('S"P5"|B"AA=="');
INSERT INTO bw_prefixes (p) SELECT DISTINCT partition_key(key) FROM bw_items;
SELECT count(*) >= 1000 AS at_least_1000,
	   count(*) FILTER (WHERE sort_value(p) IS NULL) AS whole_partitions,
	   count(*) FILTER (WHERE sort_value(p) ? 'B'
						AND right(encode(decode(sort_value(p)->>'B', 'base64'), 'hex'), 2) = 'ff') AS ending_in_ff,
	   count(*) FILTER (WHERE right(sort_value(p)->>'S', 1) = U&'\+10FFFF') AS ending_in_max_code_point
FROM bw_prefixes;

-- reference answer: sequential scan
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
CREATE TEMP TABLE bw_seq AS
SELECT x.id, count(i.key) AS n, md5(string_agg(i.key::text, ',' ORDER BY i.key)) AS h
FROM bw_prefixes x LEFT JOIN bw_items i ON i.key ^@ x.p GROUP BY x.id;
SELECT count(*) FILTER (WHERE n > 0) AS prefixes_matching, sum(n) AS rows_matched FROM bw_seq;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;

-- btree index scan: constant prefix, then one parameterized scan per prefix
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT key FROM bw_items WHERE key ^@ 'S"P1"|S"ab"';
EXPLAIN (COSTS OFF) SELECT key FROM bw_items WHERE begins_with(key, 'S"P1"') ORDER BY key DESC LIMIT 1;
EXPLAIN (COSTS OFF)
SELECT x.id, count(i.key) FROM bw_prefixes x LEFT JOIN bw_items i ON i.key ^@ x.p GROUP BY x.id;
SELECT count(*) AS prefixes, count(*) FILTER (WHERE s.n <> r.n OR s.h IS DISTINCT FROM r.h) AS mismatches
FROM bw_seq s JOIN (
	SELECT x.id, count(i.key) AS n, md5(string_agg(i.key::text, ',' ORDER BY i.key)) AS h
	FROM bw_prefixes x LEFT JOIN bw_items i ON i.key ^@ x.p GROUP BY x.id) r USING (id);

-- btree bitmap scan
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT key FROM bw_items WHERE key ^@ 'B"AA=="|B"/w=="';
EXPLAIN (COSTS OFF)
SELECT x.id, count(i.key) FROM bw_prefixes x LEFT JOIN bw_items i ON i.key ^@ x.p GROUP BY x.id;
SELECT count(*) AS prefixes, count(*) FILTER (WHERE s.n <> r.n OR s.h IS DISTINCT FROM r.h) AS mismatches
FROM bw_seq s JOIN (
	SELECT x.id, count(i.key) AS n, md5(string_agg(i.key::text, ',' ORDER BY i.key)) AS h
	FROM bw_prefixes x LEFT JOIN bw_items i ON i.key ^@ x.p GROUP BY x.id) r USING (id);
RESET enable_indexscan;
RESET enable_indexonlyscan;

-- GiST: the same rows through a GiST index (^@ is a GiST operator)
CREATE TABLE bw_gist AS SELECT key FROM bw_items;
CREATE INDEX bw_gist_key ON bw_gist USING gist (key);
ANALYZE bw_gist;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT key FROM bw_gist WHERE key ^@ 'S"P1"|S"ab"';
-- the function form becomes the GiST operator through planner support
EXPLAIN (COSTS OFF) SELECT key FROM bw_gist WHERE begins_with(key, 'S"P1"|S"ab"');
SELECT (SELECT count(*) FROM bw_gist WHERE begins_with(key, 'S"P1"|S"ab"')) =
	   (SELECT count(*) FROM bw_items WHERE key ^@ 'S"P1"|S"ab"') AS function_form_same_rows;
EXPLAIN (COSTS OFF)
SELECT x.id, count(i.key) FROM bw_prefixes x LEFT JOIN bw_gist i ON i.key ^@ x.p GROUP BY x.id;
SELECT count(*) AS prefixes, count(*) FILTER (WHERE s.n <> r.n OR s.h IS DISTINCT FROM r.h) AS mismatches
FROM bw_seq s JOIN (
	SELECT x.id, count(i.key) AS n, md5(string_agg(i.key::text, ',' ORDER BY i.key)) AS h
	FROM bw_prefixes x LEFT JOIN bw_gist i ON i.key ^@ x.p GROUP BY x.id) r USING (id);
RESET enable_seqscan;
RESET enable_bitmapscan;

-- a generic plan keeps the range with a run-time upper bound
PREPARE bw_q(item_key) AS SELECT count(*) FROM bw_items WHERE key ^@ $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE bw_q('S"P1"|S"a"');
EXECUTE bw_q('S"P1"|S"a"');
SELECT count(*) FROM bw_items WHERE key ^@ 'S"P1"|S"a"';
EXECUTE bw_q('S"P1"|N1');
RESET plan_cache_mode;
DEALLOCATE bw_q;
DROP TABLE bw_gist;

-- ANALYZE records the number of partitions of an item_key column, and a
-- whole-partition prefix (constant or parameter) is estimated as one
-- partition: 200 partitions of 10 items, read whole by ANALYZE
CREATE TABLE bw_parts (key item_key PRIMARY KEY);
INSERT INTO bw_parts SELECT item_key(jsonb_build_object('S', 'P' || p), jsonb_build_object('N', i::text))
FROM generate_series(1, 200) p, generate_series(1, 10) i;
ANALYZE bw_parts;
SELECT n[1] AS partitions
FROM pg_statistic s, LATERAL (VALUES (stakind1, stanumbers1), (stakind2, stanumbers2),
	(stakind3, stanumbers3), (stakind4, stanumbers4), (stakind5, stanumbers5)) v(kind, n)
WHERE starelid = 'bw_parts'::regclass AND kind = 10741;
CREATE FUNCTION pg_temp.plan_rows(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN (j -> 0 -> 'Plan' ->> 'Plan Rows')::int;
END $$;
SELECT pg_temp.plan_rows($$SELECT * FROM bw_parts WHERE key ^@ 'S"P7"'$$) AS whole_partition,
	pg_temp.plan_rows($$SELECT * FROM bw_parts WHERE begins_with(key, 'S"P7"')$$) AS function_form;
PREPARE bw_param(item_key) AS SELECT * FROM bw_parts WHERE key ^@ $1;
SET plan_cache_mode = force_generic_plan;
SELECT pg_temp.plan_rows('EXECUTE bw_param(''S"P7"'')') AS parameter;
RESET plan_cache_mode;
DEALLOCATE bw_param;
-- a key with one partition per row gives -1 (as many partitions as rows)
CREATE TABLE bw_unique (key item_key PRIMARY KEY);
INSERT INTO bw_unique SELECT item_key(jsonb_build_object('S', 'U' || p)) FROM generate_series(1, 500) p;
ANALYZE bw_unique;
SELECT pg_temp.plan_rows($$SELECT * FROM bw_unique WHERE key ^@ 'S"U7"'$$) AS unique_partition;
DROP TABLE bw_parts, bw_unique;

-- a range whose bounds are unknown at plan time (a generic plan) is priced
-- as one partition, not as PostgreSQL's default 0.5% of the table, so the
-- plan cache keeps the generic plan without plan_cache_mode: 2,500
-- partitions of 10 items (fewer rows than ANALYZE samples, so the
-- statistics are exact).  At 0.5% the index scan would be priced at 125
-- rows and as many random heap pages (a cost above 400); at one partition
-- it costs what 10 rows cost.
CREATE TABLE bw_big (key item_key PRIMARY KEY, v int NOT NULL);
INSERT INTO bw_big SELECT item_key(jsonb_build_object('S', 'P' || p), jsonb_build_object('N', i::text)), i
FROM generate_series(1, 2500) p, generate_series(1, 10) i;
ANALYZE bw_big;
CREATE FUNCTION pg_temp.plan_cost(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN (j -> 0 -> 'Plan' ->> 'Total Cost')::float8;
END $$;
PREPARE bw_rng(item_key, item_key) AS SELECT v FROM bw_big WHERE key >= $1 AND key < $2 ORDER BY key;
PREPARE bw_pre(item_key) AS SELECT v FROM bw_big WHERE key ^@ $1 ORDER BY key;
SET plan_cache_mode = force_generic_plan;
SELECT pg_temp.plan_cost($$EXECUTE bw_rng('S"P7"', 'S"P7"|~')$$) < 100 AS range_priced_as_one_partition,
	   pg_temp.plan_cost($$EXECUTE bw_pre('S"P7"')$$) < 100 AS prefix_priced_as_one_partition,
	   pg_temp.plan_rows($$EXECUTE bw_pre('S"P7"')$$) AS prefix_rows;
-- the same bounds known at plan time: the histogram (the generic price
-- does not leak into custom plans)
RESET plan_cache_mode;
SELECT pg_temp.plan_rows($$SELECT v FROM bw_big WHERE key >= 'S"P1"' AND key < 'S"P5"'$$) > 10000 AS wide_constant_range;
-- with default settings, after the five custom plans the cache keeps the
-- generic one
DO $$
BEGIN
	FOR i IN 1..10 LOOP
		EXECUTE format('EXECUTE bw_rng(%L, %L)', 'S"P' || i || '"', 'S"P' || i || '"|~');
		EXECUTE format('EXECUTE bw_pre(%L)', 'S"P' || i || '"');
	END LOOP;
END $$;
SELECT name, generic_plans >= 5 AS generic_kept, custom_plans <= 5 AS custom_stopped
FROM pg_prepared_statements WHERE name IN ('bw_rng', 'bw_pre') ORDER BY name;
EXPLAIN (COSTS OFF) EXECUTE bw_rng('S"P1"', 'S"P1"|~');
EXECUTE bw_rng('S"P3"', 'S"P3"|~');
EXECUTE bw_pre('S"P3"');
DEALLOCATE bw_rng;
DEALLOCATE bw_pre;
DROP TABLE bw_big;
