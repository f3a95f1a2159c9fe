--
-- GiST operator class item_key_gist_ops: every operator through the index
-- (plain index scan, bitmap scan, index-only scan) must return exactly what
-- a sequential scan returns.  Only counts and booleans are printed.
--
CREATE SCHEMA gist_test;
SET search_path = gist_test, item_table, public;

SELECT opcname, opcdefault, amvalidate(oid)
FROM pg_opclass WHERE opcname = 'item_key_gist_ops';

-- DynamoDB attribute value from a type and a text value (B given in hex)
CREATE FUNCTION av(t text, v text) RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT CASE t
		WHEN 'B' THEN jsonb_build_object('B',
			translate(encode(decode(v, 'hex'), 'base64'), E'\n', ''))
		ELSE jsonb_build_object(t, v)
	END
$$;

-- 20,000 deterministic keys: S, N and B parts, multi-byte UTF-8 (up to
-- U+10FFFF), values that are prefixes of each other, binary values with
-- 0x00, 0xFE and 0xFF bytes, duplicates, a few NULLs, long keys whose
-- encodings exceed the internal bound length (one kind made of 0x00 bytes,
-- encoded 00 FF, so truncated upper bounds end in 0xFF), and huge keys.
CREATE TABLE gk (
	id	int PRIMARY KEY,
	pt	text NOT NULL,
	pv	text NOT NULL,
	st	text,
	sv	text,
	k	item_key
);

CREATE FUNCTION gen_rows(first int, last int) RETURNS SETOF gk
LANGUAGE sql AS $$
	WITH g AS (
		SELECT i, decode(md5('p' || i), 'hex') AS hp,
			   md5('s' || i) AS h2, decode(md5('s' || i), 'hex') AS hs
		FROM generate_series(first, last) i
	), parts AS (
		SELECT i,
			CASE WHEN i % 20 < 12 THEN 'S'
				 WHEN i % 20 < 16 THEN 'N'
				 WHEN i % 20 < 18 THEN 'B'
				 WHEN i % 20 = 18 THEN 'S'
				 ELSE 'B' END AS pt,
			CASE WHEN i % 20 < 12 THEN
					(ARRAY['USER#', 'ORG#', 'über#', '日本語#', '😀#',
						   U&'\+10FFFF', 'USER#1', 'z' || U&'\+10FFFF'])
						[1 + get_byte(hp, 0) % 8]
					|| CASE WHEN get_byte(hp, 1) % 7 = 0 THEN ''
							ELSE (get_byte(hp, 1) % 60)::text END
				 WHEN i % 20 < 16 THEN
					trim_scale(((get_byte(hp, 0) * 256 + get_byte(hp, 1)) % 2001
								- 1000)::numeric / 4)::text
				 WHEN i % 20 < 18 THEN
					CASE get_byte(hp, 3) % 3
						WHEN 0 THEN
							encode(substr(hp, 1, 1 + get_byte(hp, 2) % 4), 'hex')
							|| 'ff'
						WHEN 1 THEN
							'ff'
							|| encode(substr(hp, 1, get_byte(hp, 2) % 3), 'hex')
						ELSE
							encode(substr(hp, 1, 1 + get_byte(hp, 2) % 4), 'hex')
					END
				 WHEN i % 20 = 18 THEN
					repeat('long-partition-', 12) || (get_byte(hp, 1) % 5)::text
				 ELSE
					repeat('00', 80)
					|| encode(substr(hp, 1, 1 + get_byte(hp, 2) % 3), 'hex')
			END AS pv,
			CASE (i / 20) % 6
				WHEN 0 THEN NULL
				WHEN 3 THEN 'N'
				WHEN 4 THEN 'B'
				ELSE 'S' END AS st,
			CASE (i / 20) % 6
				WHEN 0 THEN NULL
				WHEN 3 THEN
					trim_scale(((get_byte(hs, 0) * 256 + get_byte(hs, 1))
								% 100001 - 50000)::numeric / 100)::text
				WHEN 4 THEN
					(ARRAY['ff', 'ffff', '00', 'fe', '7f', 'ff00ff', '01'])
						[1 + get_byte(hs, 0) % 7]
					|| substr(h2, 3, 2 * (get_byte(hs, 1) % 5))
				WHEN 5 THEN
					repeat('sort-', 30) || left(h2, get_byte(hs, 1) % 6)
				ELSE
					(ARRAY['ORDER#', 'ORDER#2023-', 'ITEM#', 'ü', '日付#',
						   U&'\+10FFFF', 'x' || U&'\+10FFFF', 'A'])
						[1 + get_byte(hs, 0) % 8]
					|| left(h2, get_byte(hs, 1) % 10)
			END AS sv
		FROM g
	), huge AS (
		-- near DynamoDB's size limits: compressible and random keys, which
		-- the index stores compressed or uncompressed
		SELECT i,
			CASE WHEN i % 1000 = 499 THEN 'B'
				 WHEN i % 200 = 199 THEN 'S' ELSE pt END AS pt,
			CASE WHEN i % 1000 = 499 THEN
					(SELECT string_agg(md5(i || 'p' || j), '')
					 FROM generate_series(1, 64) j)
				 WHEN i % 200 = 199 THEN repeat('P', 1500) || (i % 7)::text
				 ELSE pv END AS pv,
			CASE WHEN (i % 200 = 199 OR i % 1000 = 499) AND st IS NOT NULL THEN
					CASE WHEN i % 1000 = 499 THEN 'B' ELSE 'S' END
				 ELSE st END AS st,
			CASE WHEN (i % 200 = 199 OR i % 1000 = 499) AND st IS NOT NULL THEN
					CASE WHEN i % 1000 = 499 THEN
						(SELECT string_agg(md5(i || 's' || j), '')
						 FROM generate_series(1, 64) j)
					ELSE repeat('s', 900) || left(md5(i::text), i % 9) END
				 ELSE sv END AS sv
		FROM parts
	)
	SELECT i, pt, pv, st, sv,
		   CASE WHEN i % 997 = 0 THEN NULL
				ELSE item_key(av(pt, pv), av(st, sv)) END
	FROM huge
$$;

-- queries: operator and right operand
CREATE TABLE gq (
	qid		serial PRIMARY KEY,
	op		text NOT NULL,
	qk		item_key NOT NULL
);

-- results of each run, compared with the sequential scan
CREATE TABLE gr (
	phase	text,
	mode	text,
	op		text,
	qid		int,
	n		bigint,
	hid		text,				-- md5 of the matching ids
	hk		text				-- md5 of the matching keys
);

-- Run every query of gq in one mode and store the results.  Returns, per
-- operator, whether the plan used the GiST index as the mode requires.
CREATE FUNCTION run_queries(phase text, mode text)
RETURNS TABLE (op text, plan_ok bool)
LANGUAGE plpgsql AS $$
DECLARE
	o		text;
	sel		text;
	agg		text;
	q		text;
	plan	text;
	line	text;
	want	text;
BEGIN
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_indexonlyscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	PERFORM set_config('enable_hashjoin', 'off', true);
	PERFORM set_config('enable_mergejoin', 'off', true);
	PERFORM set_config('jit', 'off', true);
	-- one index scan per query: no caching of inner results
	PERFORM set_config('enable_memoize', 'off', true);
	PERFORM set_config('enable_material', (mode = 'seq')::text, true);
	CASE mode
		WHEN 'seq' THEN
			PERFORM set_config('enable_indexscan', 'off', true);
			PERFORM set_config('enable_bitmapscan', 'off', true);
			want := 'Seq Scan on gk';
		WHEN 'index' THEN
			PERFORM set_config('enable_seqscan', 'off', true);
			PERFORM set_config('enable_bitmapscan', 'off', true);
			PERFORM set_config('enable_indexonlyscan', 'off', true);
			want := 'Index Scan using gk_k_gist on gk';
		WHEN 'bitmap' THEN
			PERFORM set_config('enable_seqscan', 'off', true);
			PERFORM set_config('enable_indexscan', 'off', true);
			want := 'Bitmap Index Scan on gk_k_gist';
		WHEN 'indexonly' THEN
			PERFORM set_config('enable_seqscan', 'off', true);
			PERFORM set_config('enable_bitmapscan', 'off', true);
			want := 'Index Only Scan using gk_k_gist on gk';
	END CASE;

	FOR o IN SELECT DISTINCT gq.op FROM gq ORDER BY 1 LOOP
		IF mode = 'indexonly' THEN
			sel := 'gk.k';
			agg := 'count(g.k), NULL, '
				|| 'md5(string_agg(g.k::text, '','' ORDER BY g.k))';
		ELSIF mode = 'seq' THEN
			sel := 'gk.id, gk.k';
			agg := 'count(g.id), '
				|| 'md5(string_agg(g.id::text, '','' ORDER BY g.id)), '
				|| 'md5(string_agg(g.k::text, '','' ORDER BY g.k))';
		ELSE
			sel := 'gk.id';
			agg := 'count(g.id), '
				|| 'md5(string_agg(g.id::text, '','' ORDER BY g.id)), NULL';
		END IF;
		q := format('SELECT q.qid, %s '
					'FROM gq q LEFT JOIN LATERAL '
					'(SELECT %s FROM gk WHERE gk.k %s q.qk) g ON true '
					'WHERE q.op = %L GROUP BY q.qid',
					agg, sel, o, o);

		plan := '';
		FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
			plan := plan || line || E'\n';
		END LOOP;
		op := o;
		-- the index must be used, with the operator as its condition
		plan_ok := position(want IN plan) > 0
			AND CASE WHEN mode = 'seq' THEN position('gk_k_gist' IN plan) = 0
					 ELSE position(format('Index Cond: (k %s q.qk)', o) IN plan) > 0
				END;
		RETURN NEXT;

		EXECUTE format('INSERT INTO gr SELECT %L, %L, %L, r.* FROM (%s) r',
					   phase, mode, o, q);
	END LOOP;
END
$$;

-- Compare every mode of a phase with the sequential scan of phase ref.
CREATE FUNCTION compare_phase(p text, ref text DEFAULT 'reference')
RETURNS TABLE (mode text, op text, queries bigint, matched numeric,
			   nonempty bigint, same_rows bool)
LANGUAGE sql AS $$
	SELECT r.mode, r.op, count(*), sum(s.n),
		   count(*) FILTER (WHERE s.n > 0),
		   bool_and(r.n = s.n AND
					CASE WHEN r.mode = 'indexonly'
						 THEN r.hk IS NOT DISTINCT FROM s.hk
						 ELSE r.hid IS NOT DISTINCT FROM s.hid END)
		   AND count(*) = (SELECT count(*) FROM gq WHERE gq.op = r.op)
	FROM gr r JOIN gr s ON s.phase = ref AND s.mode = 'seq'
		AND s.op = r.op AND s.qid = r.qid
	WHERE r.phase = p
	GROUP BY r.mode, r.op
	ORDER BY r.mode, r.op
$$;

-- Phase 1: index created on the empty table, rows inserted afterwards
-- (insertion path: penalty, picksplit, union).
CREATE INDEX gk_k_gist ON gk USING gist (k);
INSERT INTO gk SELECT * FROM gen_rows(1, 20000);
VACUUM ANALYZE gk;

SELECT count(*) AS rows, count(k) AS keys, count(DISTINCT k) AS distinct_keys,
	   count(*) FILTER (WHERE pt = 'S') AS s_partitions,
	   count(*) FILTER (WHERE pt = 'N') AS n_partitions,
	   count(*) FILTER (WHERE pt = 'B') AS b_partitions,
	   count(*) FILTER (WHERE st IS NULL) AS no_sort,
	   count(*) FILTER (WHERE st = 'S') AS s_sorts,
	   count(*) FILTER (WHERE st = 'N') AS n_sorts,
	   count(*) FILTER (WHERE st = 'B') AS b_sorts,
	   count(*) FILTER (WHERE octet_length(item_key_send(k)) > 128)
		   AS long_keys,
	   count(*) FILTER (WHERE octet_length(item_key_send(k)) > 2000)
		   AS huge_keys
FROM gk;
SELECT pg_relation_size('gk_k_gist') > 100 * 8192 AS index_has_many_pages;

-- begins_with prefixes taken from the data: a sort prefix of the row's
-- sort value (S: 1..all characters, B: 1..all bytes), or the partition
INSERT INTO gq (op, qk)
SELECT '^@',
	CASE WHEN st = 'S' THEN
			item_key(av(pt, pv), av('S', left(sv, 1 + (id / 100) % length(sv))))
		 WHEN st = 'B' THEN
			item_key(av(pt, pv), av('B',
				left(sv, 2 * (1 + (id / 100) % (length(sv) / 2)))))
		 ELSE item_key(av(pt, pv)) END
FROM gk WHERE id % 100 = 0
ORDER BY id;
-- fixed sort prefixes, including ones ending in U+10FFFF and 0xFF, on the
-- partitions of a sample of rows
INSERT INTO gq (op, qk)
SELECT '^@', item_key(av(pt, pv), av(t, v))
FROM (SELECT DISTINCT pt, pv FROM gk WHERE id % 2000 = 7) p,
	 (VALUES ('S', U&'\+10FFFF'), ('S', 'x' || U&'\+10FFFF'),
			 ('S', 'ORDER#'), ('S', 'ORDER#2023-'), ('S', 'ü'), ('S', '日'),
			 ('S', repeat('sort-', 29) || 'sort'),
			 ('B', 'ff'), ('B', 'ffff'), ('B', 'ff00'), ('B', 'fe'),
			 ('B', '00'), ('B', 'ff00ff')) s(t, v)
ORDER BY pt, pv, t, v;
-- prefixes of the huge keys
INSERT INTO gq (op, qk)
SELECT '^@',
	CASE WHEN st IS NULL OR id % 1000 = 599 THEN item_key(av(pt, pv))
		 WHEN st = 'B' THEN
			item_key(av(pt, pv), av('B', left(sv, 2 * (300 + id % 200))))
		 ELSE item_key(av(pt, pv), av(st, left(sv, 600 + id % 400))) END
FROM gk WHERE id % 1000 IN (199, 499, 599, 999)
ORDER BY id;
-- partition prefixes ending in U+10FFFF and 0xFF, long partitions, and
-- partitions that do not occur
INSERT INTO gq (op, qk)
SELECT '^@', item_key(av(t, v))
FROM (VALUES ('S', U&'\+10FFFF'), ('S', 'z' || U&'\+10FFFF'),
			 ('S', 'USER#1'), ('S', 'USER#'), ('S', 'nope'),
			 ('S', repeat('long-partition-', 12) || '3'),
			 ('S', repeat('long-partition-', 12)),
			 ('B', 'ff'), ('B', 'ffff'), ('B', '00'),
			 ('B', repeat('00', 80) || 'ff'), ('B', repeat('00', 80)),
			 ('N', '0'), ('N', '-250'), ('N', '0.25'), ('N', '99999')) p(t, v);
SELECT count(*) AS prefix_queries FROM gq WHERE op = '^@';

-- comparison operands: keys from the data, their partitions, begins_with
-- upper bounds (not keys at all) and keys that do not occur
INSERT INTO gq (op, qk)
SELECT o, v
FROM (VALUES ('<'), ('<='), ('='), ('>='), ('>'), ('<>')) ops(o),
	 (SELECT k AS v FROM gk WHERE id % 5000 = 1 AND k IS NOT NULL
	  UNION ALL
	  SELECT item_key(av(pt, pv)) FROM gk WHERE id % 5000 = 2
	  UNION ALL
	  SELECT item_key_prefix_upper(item_key(av(pt, pv)))
	  FROM gk WHERE id % 5000 = 3
	  UNION ALL
	  SELECT item_key_prefix_upper(qk) FROM gq WHERE op = '^@' AND qid % 150 = 0
	  UNION ALL
	  SELECT item_key(av(t, v)) FROM (VALUES ('N', '-1000000'), ('S', 'USER#1'),
		('S', 'nope'), ('B', 'ffffffff')) x(t, v)) vals;
-- more equality operands
INSERT INTO gq (op, qk)
SELECT '=', k FROM gk WHERE id % 150 = 5 AND k IS NOT NULL;
ANALYZE gq;
SELECT op, count(*) AS queries FROM gq GROUP BY op ORDER BY op;

SELECT * FROM run_queries('reference', 'seq');
SELECT count(*) AS huge_prefixes, sum(n) AS huge_prefix_matches
FROM gr JOIN gq USING (qid)
WHERE phase = 'reference' AND gq.op = '^@'
	AND octet_length(item_key_send(qk)) > 500;
SELECT * FROM run_queries('inserted', 'index');
SELECT * FROM run_queries('inserted', 'bitmap');
SELECT * FROM run_queries('inserted', 'indexonly');
SELECT * FROM compare_phase('reference');
SELECT * FROM compare_phase('inserted');

-- Phase 2: sorted build (sortsupport)
REINDEX INDEX gk_k_gist;
SELECT * FROM run_queries('sorted', 'index');
SELECT * FROM compare_phase('sorted');

-- Phase 3: buffered build (penalty and picksplit in bulk)
DROP INDEX gk_k_gist;
CREATE INDEX gk_k_gist ON gk USING gist (k) WITH (buffering = on);
SELECT * FROM run_queries('buffered', 'index');
SELECT * FROM compare_phase('buffered');

-- One plan per strategy
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM gk WHERE k < 'S"USER#5"';
EXPLAIN (COSTS OFF) SELECT id FROM gk WHERE k <= 'S"USER#5"';
EXPLAIN (COSTS OFF) SELECT id FROM gk WHERE k = 'S"USER#5"|S"A"';
EXPLAIN (COSTS OFF) SELECT id FROM gk WHERE k >= 'B"/w=="';
EXPLAIN (COSTS OFF) SELECT id FROM gk WHERE k > 'B"/w=="';
EXPLAIN (COSTS OFF) SELECT id FROM gk WHERE k <> 'N0';
EXPLAIN (COSTS OFF) SELECT id FROM gk WHERE k ^@ 'S"USER#5"|S"ORDER#"';
EXPLAIN (COSTS OFF) SELECT k FROM gk WHERE k ^@ 'S"USER#5"';
SELECT count(*) FROM gk WHERE k ^@ 'S"USER#5"';
SELECT count(*) FROM gk WHERE k ^@ 'S"USER#5"|S"ORDER#"';

-- begins_with prefixes the operator rejects are rejected through the index
SELECT count(*) FROM gk WHERE k ^@ 'S"USER#5"|N1';
SELECT count(*) FROM gk WHERE k ^@ 'S"USER#5"|~';
SET enable_indexscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM gk WHERE k ^@ 'S"USER#5"|S"ORDER#"';
SELECT count(*) FROM gk WHERE k ^@ 'S"USER#5"|S"ORDER#"';
SELECT count(*) FROM gk WHERE k ^@ 'S"USER#5"|N1';

-- NULL keys are indexed and found
SET enable_bitmapscan = off;
SET enable_indexscan = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM gk WHERE k IS NULL;
SELECT count(*) AS null_keys FROM gk WHERE k IS NULL;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_bitmapscan;

-- Phase 4: rows inserted into and deleted from the built index
INSERT INTO gk SELECT * FROM gen_rows(20001, 23000);
DELETE FROM gk WHERE id % 3 = 0;
VACUUM gk;
INSERT INTO gk SELECT * FROM gen_rows(30001, 31000);
SELECT count(*) AS rows FROM gk;
SELECT * FROM run_queries('changed-reference', 'seq');
SELECT * FROM run_queries('changed', 'index');
SELECT * FROM run_queries('changed', 'bitmap');
SELECT * FROM run_queries('changed', 'indexonly');
SELECT * FROM compare_phase('changed', 'changed-reference');

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA gist_test CASCADE;
RESET client_min_messages;
