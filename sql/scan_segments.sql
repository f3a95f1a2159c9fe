-- Parallel scan: for TotalSegments 1, 2, 7 and 64, every segment is read
-- page by page (random Limit, ExclusiveStartKey = the previous
-- LastEvaluatedKey); the union of all segments must be the full scan, with
-- no item twice, every item collection in one segment, and every page of a
-- segment resuming where the previous one stopped.
SET search_path = item_table, public;
SELECT setseed(0.77);

SELECT create_table('{"TableName": "segs", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
SELECT create_table('{"TableName": "segh", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "B"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;

-- segs: 400 item collections of 1 to 20 items; segh: 1,000 items, hash key only
INSERT INTO item_data.segs (key, item)
SELECT item_key(jsonb_build_object('S', 'P' || p), jsonb_build_object('N', s::text)),
	   jsonb_build_object('pk', jsonb_build_object('S', 'P' || p), 'sk', jsonb_build_object('N', s::text),
						  'v', jsonb_build_object('S', repeat('v', (random() * 200)::int)))
FROM (SELECT p, 1 + floor(random() * 20)::int AS n FROM generate_series(1, 400) p) c,
	 LATERAL generate_series(1, c.n) s;
INSERT INTO item_data.segh (key, item)
SELECT item_key(jsonb_build_object('B', b)), jsonb_build_object('pk', jsonb_build_object('B', b))
FROM (SELECT encode(decode(md5(g::text), 'hex'), 'base64') AS b FROM generate_series(1, 1000) g) x;
SELECT (SELECT count(*) FROM item_data.segs) AS segs_items,
	   (SELECT count(DISTINCT item_table.partition_key(key)) FROM item_data.segs) AS segs_collections,
	   (SELECT count(*) FROM item_data.segh) AS segh_items;

-- every page of one segment: (page number, response)
CREATE FUNCTION pg_temp.segment_pages(tbl text, seg int, total int)
RETURNS TABLE (page int, response jsonb) LANGUAGE plpgsql AS $$
DECLARE
	req jsonb := jsonb_build_object('TableName', tbl, 'Segment', seg, 'TotalSegments', total,
									'ProjectionExpression', 'pk, sk');
	r jsonb;
BEGIN
	page := 0;
	LOOP
		page := page + 1;
		r := scan(req || jsonb_build_object('Limit', 1 + floor(random() * 40)::int)
				  || CASE WHEN r ? 'LastEvaluatedKey' THEN jsonb_build_object('ExclusiveStartKey', r->'LastEvaluatedKey') ELSE '{}' END);
		response := r;
		RETURN NEXT;
		EXIT WHEN NOT r ? 'LastEvaluatedKey';
	END LOOP;
END $$;

CREATE TEMP TABLE seen (tbl text, total int, seg int, page int, ord int, key item_key, lek_ok boolean);
INSERT INTO seen
SELECT t.tbl, t.total, s.seg, p.page, i.o,
	   CASE WHEN t.tbl = 'segs' THEN item_key(i.it->'pk', i.it->'sk') ELSE item_key(i.it->'pk') END,
	   -- a page's LastEvaluatedKey is its last item, which lies in the segment
	   NOT p.response ? 'LastEvaluatedKey' OR
	   (i.o < jsonb_array_length(p.response->'Items') OR p.response->'LastEvaluatedKey' = i.it)
FROM (VALUES ('segs'), ('segh')) tb(tbl)
CROSS JOIN (VALUES (1), (2), (7), (64)) tt(total)
CROSS JOIN LATERAL (SELECT tb.tbl, tt.total) t
CROSS JOIN LATERAL generate_series(0, t.total - 1) s(seg)
CROSS JOIN LATERAL pg_temp.segment_pages(t.tbl, s.seg, t.total) p
CROSS JOIN LATERAL jsonb_array_elements(p.response->'Items') WITH ORDINALITY i(it, o);

CREATE TEMP TABLE full_scan AS
SELECT 'segs' AS tbl, key FROM item_data.segs UNION ALL SELECT 'segh', key FROM item_data.segh;

SELECT s.tbl, s.total,
	   count(DISTINCT s.seg) FILTER (WHERE s.key IS NOT NULL) AS non_empty_segments,
	   count(DISTINCT (s.seg, s.page)) > count(DISTINCT s.seg) AS pages_resumed,
	   count(*) AS items_returned,
	   count(DISTINCT s.key) AS distinct_items,
	   count(*) = (SELECT count(*) FROM full_scan f WHERE f.tbl = s.tbl) AS count_is_full_scan,
	   NOT EXISTS (SELECT key FROM full_scan f WHERE f.tbl = s.tbl
				   EXCEPT SELECT key FROM seen x WHERE x.tbl = s.tbl AND x.total = s.total) AS covers_table,
	   bool_and(s.lek_ok) AS start_keys_ok
FROM seen s GROUP BY s.tbl, s.total ORDER BY s.tbl, s.total;

-- each item collection lies in exactly one segment, the one item_key_segment() names
SELECT total, count(*) AS collections,
	   count(*) FILTER (WHERE segments <> 1) AS split_collections,
	   count(*) FILTER (WHERE NOT right_segment) AS wrong_segment
FROM (SELECT total, partition_key(key) AS p, count(DISTINCT seg) AS segments,
			 bool_and(seg = item_key_segment(key, total)) AS right_segment
	  FROM seen WHERE tbl = 'segs' GROUP BY total, partition_key(key)) c
GROUP BY total ORDER BY total;

-- within a segment the pages continue in key order: no gaps, no repeats
SELECT tbl, total, bool_and(in_order) AS pages_in_key_order
FROM (SELECT tbl, total, key > lag(key) OVER (PARTITION BY tbl, total, seg ORDER BY page, ord)
			 OR lag(key) OVER (PARTITION BY tbl, total, seg ORDER BY page, ord) IS NULL AS in_order
	  FROM seen) x
GROUP BY tbl, total ORDER BY tbl, total;

-- segment sizes are balanced by the hash of the partition key
SELECT total, min(n) > 0 AS no_empty_segment, round(max(n)::numeric / avg(n), 1) < 2.5 AS balanced
FROM (SELECT total, seg, count(*) AS n FROM seen WHERE tbl = 'segh' GROUP BY total, seg) x
WHERE total > 1 GROUP BY total ORDER BY total;

-- a start key from another segment is refused; from its own it resumes
SELECT item_key_segment('S"P1"', 7) AS seg \gset
SELECT scan(jsonb_build_object('TableName', 'segs', 'Segment', :seg, 'TotalSegments', 7, 'Select', 'COUNT',
	'ExclusiveStartKey', '{"pk": {"S": "P1"}, "sk": {"N": "1"}}'::jsonb))->'Count' =
	to_jsonb((SELECT count(*) FROM item_data.segs WHERE item_key_segment(key, 7) = :seg AND key > 'S"P1"|N1'))
	AS resumes_in_segment;
DO $$
BEGIN
	PERFORM scan(jsonb_build_object('TableName', 'segs', 'Segment', (item_key_segment('S"P1"', 7) + 3) % 7,
		'TotalSegments', 7, 'ExclusiveStartKey', '{"pk": {"S": "P1"}, "sk": {"N": "1"}}'::jsonb));
	RAISE NOTICE 'not refused';
EXCEPTION WHEN sqlstate 'XD001' THEN
	RAISE NOTICE 'refused: %', regexp_replace(SQLERRM, 'Segment: \d+$', 'Segment: <n>');
END $$;

SELECT delete_table('{"TableName": "segs"}') IS NOT NULL AS dropped;
SELECT delete_table('{"TableName": "segh"}') IS NOT NULL AS dropped;
