-- Pagination property test.  For pseudo-random item collections (1 to 5,000
-- items of up to 50 KB) and random key conditions, Limit, filter,
-- projection, Select and direction, Query is called page after page
-- (ExclusiveStartKey = the previous LastEvaluatedKey) and the pages are
-- checked against a model computed here in SQL, independently of the C code:
--   * the concatenated pages equal the one-shot result (every item in the
--     key range, in order, filtered and projected), Count and ScannedCount
--     add up;
--   * every page reads at most 1 MB (1,048,576 bytes by DynamoDB's item
--     size) and is as large as Limit and the cap allow (a page stops before
--     the item that would pass 1 MB, and the first item is always taken);
--   * LastEvaluatedKey appears exactly when the page stopped on Limit or on
--     the cap (also when nothing is left), and is the last item's key.
-- The checker must notice broken page sequences: it is run on deliberately
-- mutated pages at the end and must report every mutation.
SET search_path = item_table, public;
SELECT setseed(0.4242);

SELECT create_table('{"TableName": "pager", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;

-- scenarios: collection sizes log-uniform in 1..5000, with both extremes;
-- scenario 19 holds 12 items of 300,000 bytes (pages of 3 items)
CREATE TEMP TABLE scenario AS
SELECT k, CASE k WHEN 1 THEN 1 WHEN 2 THEN 5000 WHEN 3 THEN 3 WHEN 19 THEN 12
		   ELSE greatest(1, least(5000, floor(exp(random() * ln(5000)))::int)) END AS n
FROM generate_series(1, 30) k;

-- items: sk A#/B#/C# + number; d of up to ~50 KB (skewed towards small);
-- f BOOL, n N, and sometimes M, L, SS, NS, B, BS, NULL attributes
INSERT INTO item_data.pager (key, item)
SELECT item_key(jsonb_build_object('S', 'c' || s.k), jsonb_build_object('S', x.sk)),
	   normalize_item(jsonb_build_object(
		'pk', jsonb_build_object('S', 'c' || s.k),
		'sk', jsonb_build_object('S', x.sk),
		'd', jsonb_build_object('S', repeat(chr(97 + (i % 26)),
			CASE WHEN s.k = 19 THEN 300000 ELSE floor(power(random(), 3) * 51000)::int END)),
		'f', jsonb_build_object('BOOL', random() < 0.5),
		'n', jsonb_build_object('N', (floor(random() * 1000) / (CASE WHEN random() < 0.3 THEN 100 ELSE 1 END))::text))
		|| CASE WHEN random() < 0.3 THEN jsonb_build_object('m', jsonb_build_object('M', jsonb_build_object(
				'x', jsonb_build_object('NS', jsonb_build_array('1', (i + 2)::text, '-0.5')),
				'y', jsonb_build_object('L', jsonb_build_array(jsonb_build_object('S', 'é' || i), jsonb_build_object('NULL', true),
					jsonb_build_object('BOOL', false), jsonb_build_object('N', '1e10')))))) ELSE '{}' END
		|| CASE WHEN random() < 0.3 THEN jsonb_build_object('b', jsonb_build_object('B', encode(decode(md5(i::text), 'hex'), 'base64')),
				'bs', jsonb_build_object('BS', jsonb_build_array('AA==', 'AAE=', encode(decode(md5(i::text), 'hex'), 'base64'))),
				'ss', jsonb_build_object('SS', jsonb_build_array('p', 'q' || i))) ELSE '{}' END)
FROM scenario s
CROSS JOIN LATERAL generate_series(1, s.n) i
CROSS JOIN LATERAL (SELECT (ARRAY['A#', 'B#', 'C#'])[1 + i % 3] || lpad(i::text, 5, '0') AS sk) x;
ANALYZE item_data.pager;
SELECT count(*) AS items, count(DISTINCT key) AS keys,
	   max(item_size(item)) FILTER (WHERE NOT key ^@ 'S"c19"') <= 51200 AS sizes_ok,
	   sum(item_size(item)) > 50 * 1048576 AS over_50mb
FROM item_data.pager;

-- the requests: random key condition, Limit, filter, projection/Select, direction
CREATE TEMP TABLE plan AS
SELECT k, n, kc, lim, flt, proj, count_only, fwd, lo, hi FROM (
	SELECT s.k, s.n,
		   (ARRAY['all', 'prefix', 'between', 'gt', 'le'])[1 + floor(random() * 5)::int] AS kc,
		   CASE WHEN r1 < 0.4 THEN NULL WHEN r1 < 0.7 THEN 1 + floor(random() * 50)::int
				ELSE 1 + floor(random() * (s.n + 2))::int END AS lim,
		   (ARRAY[NULL, 'f = :t', 'attribute_exists(m)', 'n < :v'])[1 + floor(random() * 4)::int] AS flt,
		   CASE WHEN r2 < 0.25 THEN 'sk, f, m.x' END AS proj,
		   r2 >= 0.25 AND r2 < 0.4 AS count_only,
		   random() < 0.5 AS fwd,
		   (ARRAY['A#', 'B#', 'C#'])[1 + floor(random() * 3)::int] || lpad(floor(random() * s.n)::text, 5, '0') AS lo,
		   (ARRAY['A#', 'B#', 'C#'])[1 + floor(random() * 3)::int] || lpad(floor(random() * s.n)::text, 5, '0') AS hi
	FROM (SELECT scenario.*, random() AS r1, random() AS r2 FROM scenario) s) p;
UPDATE plan SET lo = hi, hi = lo WHERE lo > hi;
-- scenario 2 (5,000 items) reads everything forward without Limit: about 60 full pages
UPDATE plan SET kc = 'all', lim = NULL, flt = NULL, proj = NULL, count_only = false, fwd = true WHERE k IN (2, 19);
-- scenario 3 (3 items) with Limit 3: a full page with LastEvaluatedKey, then an empty one without
UPDATE plan SET kc = 'all', lim = 3, flt = NULL WHERE k = 3;

-- the request of a scenario, without ExclusiveStartKey
CREATE FUNCTION pg_temp.request(p plan) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_strip_nulls(jsonb_build_object(
		'TableName', 'pager',
		'KeyConditionExpression', 'pk = :p' || CASE p.kc WHEN 'prefix' THEN ' AND begins_with(sk, :lo)'
			WHEN 'between' THEN ' AND sk BETWEEN :lo AND :hi' WHEN 'gt' THEN ' AND sk > :lo'
			WHEN 'le' THEN ' AND :hi >= sk' ELSE '' END,
		'ExpressionAttributeValues', jsonb_build_object(':p', jsonb_build_object('S', 'c' || p.k))
			|| CASE WHEN p.kc IN ('prefix', 'between', 'gt') THEN jsonb_build_object(':lo', jsonb_build_object('S', CASE p.kc WHEN 'prefix' THEN left(p.lo, 2) ELSE p.lo END)) ELSE '{}' END
			|| CASE WHEN p.kc IN ('between', 'le') THEN jsonb_build_object(':hi', jsonb_build_object('S', p.hi)) ELSE '{}' END
			|| CASE p.flt WHEN 'f = :t' THEN '{":t": {"BOOL": true}}'::jsonb WHEN 'n < :v' THEN '{":v": {"N": "500"}}' ELSE '{}' END,
		'FilterExpression', p.flt,
		'ProjectionExpression', p.proj,
		'Select', CASE WHEN p.count_only THEN 'COUNT' END,
		'Limit', p.lim,
		'ScanIndexForward', p.fwd))
$$;

-- the one-shot result, computed without the C range code: the rows of the
-- key range in order, with their size, whether they pass, and what is returned
CREATE FUNCTION pg_temp.expected(p plan)
RETURNS TABLE (pos int, key item_key, sz bigint, pass boolean, returned jsonb) LANGUAGE sql AS $$
	WITH part AS (SELECT item_key(jsonb_build_object('S', 'c' || p.k)) AS pk),
	rows AS (
		SELECT t.key, t.item FROM item_data.pager t, part
		WHERE CASE p.kc
			WHEN 'all' THEN t.key ^@ part.pk
			WHEN 'prefix' THEN t.key ^@ item_key(jsonb_build_object('S', 'c' || p.k), jsonb_build_object('S', left(p.lo, 2)))
			WHEN 'between' THEN t.key >= item_key(jsonb_build_object('S', 'c' || p.k), jsonb_build_object('S', p.lo))
							AND t.key <= item_key(jsonb_build_object('S', 'c' || p.k), jsonb_build_object('S', p.hi))
			WHEN 'gt' THEN t.key ^@ part.pk AND t.key > item_key(jsonb_build_object('S', 'c' || p.k), jsonb_build_object('S', p.lo))
			WHEN 'le' THEN t.key ^@ part.pk AND t.key <= item_key(jsonb_build_object('S', 'c' || p.k), jsonb_build_object('S', p.hi))
		END)
	SELECT (row_number() OVER (ORDER BY CASE WHEN p.fwd THEN r.key END, r.key DESC))::int,
		   r.key, item_size(r.item),
		   p.flt IS NULL OR evaluate_condition(r.item, p.flt, NULL,
				CASE p.flt WHEN 'f = :t' THEN '{":t": {"BOOL": true}}'::jsonb WHEN 'n < :v' THEN '{":v": {"N": "500"}}' END),
		   CASE WHEN p.proj IS NULL THEN r.item ELSE project_item(r.item, p.proj) END
	FROM rows r
$$;

-- all pages of a Query, following LastEvaluatedKey
CREATE TEMP TABLE got (o int, r jsonb);
CREATE FUNCTION pg_temp.pages(req jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	r jsonb := query(req);
	o int := 1;
BEGIN
	TRUNCATE got;
	INSERT INTO got VALUES (o, r);
	WHILE r ? 'LastEvaluatedKey' LOOP
		r := query(req || jsonb_build_object('ExclusiveStartKey', r->'LastEvaluatedKey'));
		o := o + 1;
		INSERT INTO got VALUES (o, r);
	END LOOP;
	RETURN (SELECT jsonb_agg(g.r ORDER BY g.o) FROM got g);
END $$;

-- mismatches between pages and the model of the expected rows in exp
CREATE FUNCTION pg_temp.check_pages(pages jsonb, lim int, count_only boolean)
RETURNS TABLE (mismatches int, max_page_bytes bigint) LANGUAGE plpgsql AS $$
DECLARE
	pages_ jsonb := pages;	-- detoasted once
	total int := (SELECT count(*) FROM exp);
	done int := 0;		-- items consumed by the pages seen so far
	mpos int;			-- where the model ends this page
	bytes bigint;
	s bigint;
	page jsonb;
	sc int;
	want_lek boolean;
	i int;
BEGIN
	mismatches := 0;
	max_page_bytes := 0;
	FOR i IN 0 .. jsonb_array_length(pages_) - 1 LOOP
		page := pages_->i;
		sc := (page->>'ScannedCount')::int;
		-- the model: Limit items, or up to 1 MB, the first item always
		mpos := done;
		bytes := 0;
		LOOP
			EXIT WHEN mpos >= total OR (lim IS NOT NULL AND mpos - done >= lim) OR bytes >= 1048576;
			SELECT e.sz INTO s FROM exp e WHERE e.pos = mpos + 1;
			EXIT WHEN mpos > done AND bytes + s > 1048576;
			bytes := bytes + s;
			mpos := mpos + 1;
		END LOOP;
		want_lek := mpos < total OR (lim IS NOT NULL AND mpos - done = lim) OR bytes >= 1048576;
		IF sc IS DISTINCT FROM mpos - done THEN
			mismatches := mismatches + 1;
		END IF;
		IF (page ? 'LastEvaluatedKey') <> want_lek THEN
			mismatches := mismatches + 1;
		END IF;
		-- what the page itself read: at most 1 MB
		SELECT coalesce(sum(e.sz), 0) INTO s FROM exp e WHERE e.pos > done AND e.pos <= done + coalesce(sc, 0);
		max_page_bytes := greatest(max_page_bytes, s);
		IF s > 1048576 THEN
			mismatches := mismatches + 1;
		END IF;
		IF page ? 'LastEvaluatedKey' AND (page->'LastEvaluatedKey') IS DISTINCT FROM
			(SELECT jsonb_build_object('pk', partition_value(e.key), 'sk', sort_value(e.key))
			 FROM exp e WHERE e.pos = done + sc) THEN
			mismatches := mismatches + 1;
		END IF;
		IF (page->>'Count')::int IS DISTINCT FROM
			(SELECT count(*)::int FROM exp e WHERE e.pos > done AND e.pos <= done + sc AND e.pass) THEN
			mismatches := mismatches + 1;
		END IF;
		IF count_only THEN
			IF page ? 'Items' THEN
				mismatches := mismatches + 1;
			END IF;
		ELSIF (page->'Items') IS DISTINCT FROM
			(SELECT coalesce(jsonb_agg(e.returned ORDER BY e.pos), '[]')
			 FROM exp e WHERE e.pos > done AND e.pos <= done + sc AND e.pass) THEN
			mismatches := mismatches + 1;
		END IF;
		done := done + coalesce(sc, 0);
	END LOOP;
	-- the pages end exactly at the end of the range, and only there
	IF done <> total OR (pages_->-1) ? 'LastEvaluatedKey' THEN
		mismatches := mismatches + 1;
	END IF;
	RETURN NEXT;
END $$;

CREATE TEMP TABLE exp (pos int PRIMARY KEY, key item_key, sz bigint, pass boolean, returned jsonb);
CREATE TEMP TABLE result (k int, n int, kc text, lim int, flt text, proj text, count_only boolean, fwd boolean,
	in_range int, pages int, items int, mismatches int, max_page_bytes bigint,
	concat_equal boolean, counts_equal boolean);

CREATE FUNCTION pg_temp.run(p plan) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	pages jsonb;
	c record;
BEGIN
	TRUNCATE exp;
	INSERT INTO exp SELECT * FROM pg_temp.expected(p);
	pages := pg_temp.pages(pg_temp.request(p));
	SELECT * INTO c FROM pg_temp.check_pages(pages, p.lim, p.count_only);
	INSERT INTO result VALUES (p.k, p.n, p.kc, p.lim, p.flt, p.proj, p.count_only, p.fwd,
		(SELECT count(*) FROM exp), jsonb_array_length(pages),
		(SELECT count(*) FROM jsonb_array_elements(pages) pg, jsonb_array_elements(coalesce(pg->'Items', '[]')) it),
		c.mismatches, c.max_page_bytes,
		-- concatenating the pages gives the one-shot result
		p.count_only OR (SELECT coalesce(jsonb_agg(it ORDER BY o, io), '[]')
			FROM jsonb_array_elements(pages) WITH ORDINALITY pg(v, o),
				 jsonb_array_elements(pg.v->'Items') WITH ORDINALITY x(it, io))
			= (SELECT coalesce(jsonb_agg(returned ORDER BY pos), '[]') FROM exp WHERE pass),
		(SELECT sum((v->>'ScannedCount')::int) FROM jsonb_array_elements(pages) v) = (SELECT count(*) FROM exp)
		AND (SELECT sum((v->>'Count')::int) FROM jsonb_array_elements(pages) v) = (SELECT count(*) FROM exp WHERE pass));
END $$;

SELECT pg_temp.run(p) FROM plan p ORDER BY k;

-- one line per scenario
SELECT k, n, kc, lim, coalesce(flt, '-') AS filter, CASE WHEN count_only THEN 'COUNT' ELSE coalesce(proj, '*') END AS returns,
	   CASE WHEN fwd THEN 'fwd' ELSE 'bwd' END AS dir, in_range, pages, items, max_page_bytes <= 1048576 AS max_1mb,
	   concat_equal, counts_equal, mismatches
FROM result ORDER BY k;
SELECT count(*) AS scenarios, sum(pages) AS pages, sum(in_range) AS items_read,
	   count(*) FILTER (WHERE pages > 1 AND lim IS NULL) AS paged_by_size,
	   max(max_page_bytes) <= 1048576 AS all_pages_within_1mb,
	   bool_and(concat_equal) AS concat_equal, bool_and(counts_equal) AS counts_equal,
	   sum(mismatches) AS mismatches
FROM result;

-- the checker notices broken page sequences: the pages of scenario 19
-- (4 pages of 3 items) with one mutation at a time must fail
CREATE TEMP TABLE mutation (name text, pages jsonb);
TRUNCATE exp;
INSERT INTO exp SELECT * FROM pg_temp.expected((SELECT p FROM plan p WHERE k = 19));
CREATE TEMP TABLE good AS SELECT pg_temp.pages(pg_temp.request(p)) AS pages FROM plan p WHERE k = 19;
INSERT INTO mutation
SELECT 'no mutation', pages FROM good
UNION ALL SELECT 'LastEvaluatedKey dropped from page 1', jsonb_set(pages, '{0}', (pages->0) - 'LastEvaluatedKey') FROM good
UNION ALL SELECT 'LastEvaluatedKey added to the last page', jsonb_set(pages, '{-1}', (pages->-1) || jsonb_build_object('LastEvaluatedKey', pages->0->'LastEvaluatedKey')) FROM good
UNION ALL SELECT 'page 1 stops one item early', jsonb_set(jsonb_set(jsonb_set(pages,
		'{0,ScannedCount}', to_jsonb((pages->0->>'ScannedCount')::int - 1)),
		'{0,Count}', to_jsonb((pages->0->>'Count')::int - 1)),
		'{0,Items}', (pages->0->'Items') - -1) FROM good
UNION ALL SELECT 'pages 1 and 2 merged (over 1 MB)', jsonb_build_array((pages->1) || jsonb_build_object(
		'Items', (pages->0->'Items') || (pages->1->'Items'),
		'Count', (pages->0->>'Count')::int + (pages->1->>'Count')::int,
		'ScannedCount', (pages->0->>'ScannedCount')::int + (pages->1->>'ScannedCount')::int)) || (pages - 0 - 0) FROM good
UNION ALL SELECT 'an item of page 2 replaced', jsonb_set(pages, '{1,Items,1}', pages->1->'Items'->2) FROM good
UNION ALL SELECT 'the last page missing', pages - -1 FROM good;
SELECT name, (SELECT mismatches FROM pg_temp.check_pages(pages, NULL, false)) > 0 AS detected
FROM mutation ORDER BY name;

SELECT delete_table('{"TableName": "pager"}') IS NOT NULL AS dropped;
