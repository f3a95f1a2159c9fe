-- btree over item_key: structure checked by amcheck, scans agree with
-- sequential scans, range conditions use the index.
SET search_path = item_table, public;
CREATE EXTENSION IF NOT EXISTS amcheck;
-- pseudo-random numbers in [0, 1) fixed by their arguments, so that the data
-- is the same whatever order a plan evaluates the rows in
CREATE FUNCTION pg_temp.rnd(VARIADIC a text[]) RETURNS float8
	LANGUAGE sql IMMUTABLE STRICT
	AS $$ SELECT ('x' || left(md5(array_to_string(a, ',')), 8))::bit(32)::bigint / 4294967296.0 $$;

-- 100,000 random keys: S, N and B partitions, S/N/B sort parts, some
-- partition-only; string parts share prefixes on purpose
CREATE TABLE bt_items (key item_key PRIMARY KEY, n int);
INSERT INTO bt_items
SELECT DISTINCT ON (k) k, g FROM (
	SELECT g, item_key(
		CASE g % 3
			WHEN 0 THEN jsonb_build_object('S', 'USER#' || floor(pg_temp.rnd('u', g::text) * 2000)::int)
			WHEN 1 THEN jsonb_build_object('N', (floor(pg_temp.rnd('n', g::text) * 2000)::int - 1000)::text || 'e' || floor(pg_temp.rnd('e', g::text) * 60 - 30)::int)
			ELSE jsonb_build_object('B', translate(encode(decode(md5((g % 500)::text), 'hex'), 'base64'), E'\n', '')) END,
		CASE WHEN g % 11 = 0 THEN NULL
			 WHEN g % 4 = 0 THEN jsonb_build_object('N', (pg_temp.rnd('sn', g::text) * 1e6)::numeric(20, 4)::text)
			 WHEN g % 4 = 1 THEN jsonb_build_object('B', translate(encode(decode(md5(g::text) || 'ff00', 'hex'), 'base64'), E'\n', ''))
			 ELSE jsonb_build_object('S', 'ORDER#' || lpad(floor(pg_temp.rnd('ss', g::text) * 1e6)::int::text, 7, '0') || repeat('é', g % 4)) END) AS k
	FROM generate_series(1, 106000) g) s
ORDER BY k, g;
SELECT count(*) >= 100000 AS at_least_100k FROM bt_items;
ANALYZE bt_items;

-- structure and heap/index agreement
SELECT bt_index_parent_check('bt_items_pkey', true);

-- a deduplicating secondary index with many equal keys
CREATE TABLE bt_dups (key item_key);
INSERT INTO bt_dups SELECT item_key(jsonb_build_object('S', 'P' || (g % 50)), jsonb_build_object('N', (g % 7)::text)) FROM generate_series(1, 20000) g;
CREATE INDEX bt_dups_key ON bt_dups (key);
SELECT bt_index_parent_check('bt_dups_key', true);
SELECT count(*) FROM bt_dups WHERE key = 'S"P7"|N0';

-- point lookups, ranges within a partition and BETWEEN use the index
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM bt_items WHERE key = 'S"USER#7"|S"ORDER#0000001"';
EXPLAIN (COSTS OFF) SELECT * FROM bt_items
	WHERE key BETWEEN 'S"USER#7"|S"ORDER#0000000"' AND 'S"USER#7"|S"ORDER#0500000"' ORDER BY key DESC;
EXPLAIN (COSTS OFF) SELECT * FROM bt_items WHERE key > 'N-5' AND key <= 'N5|~';

-- index scans return what a sequential scan returns
CREATE TEMP TABLE bt_probes AS
SELECT lo, hi FROM (
	SELECT key AS lo, lead(key, 37) OVER (ORDER BY key) AS hi, n FROM bt_items) s
WHERE hi IS NOT NULL AND n % 400 = 0;
CREATE TEMP TABLE bt_index_results AS
SELECT p.lo, (SELECT count(*) FROM bt_items WHERE key >= p.lo AND key < p.hi) AS ge_lt,
	   (SELECT count(*) FROM bt_items WHERE key > p.lo AND key <= p.hi) AS gt_le,
	   (SELECT count(*) FROM bt_items WHERE key = p.lo) AS eq
FROM bt_probes p;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_seqscan = on;
SELECT count(*) AS probes,
	   count(*) FILTER (WHERE r.ge_lt <> (SELECT count(*) FROM bt_items WHERE key >= p.lo AND key < p.hi)
						 OR r.gt_le <> (SELECT count(*) FROM bt_items WHERE key > p.lo AND key <= p.hi)
						 OR r.eq <> 1) AS mismatches,
	   count(*) FILTER (WHERE r.ge_lt = 37 AND r.gt_le = 37) AS exact_37
FROM bt_probes p JOIN bt_index_results r USING (lo);
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexscan;
RESET enable_indexonlyscan;
DROP TABLE bt_dups;
