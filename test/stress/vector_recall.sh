#!/usr/bin/env bash
# Recall of SearchVectors against an exact search, with item_table's default
# settings: VEC_RECALL_ITEMS (default 100,000) random 128-dimension vectors
# in a table with a COSINE and a EUCLIDEAN vector index; for 100 random query
# vectors, the TopK 10 of SearchVectors beside the exact top 10 (a
# brute-force ORDER BY distance over the same rows, index scans off).
# recall@10 must be at least 0.95 for each distance function.
#
# The vectors are random: each component drawn from the standard normal
# distribution (VEC_RECALL_DIST=uniform draws them uniform in [0, 1]
# instead), the queries alike.  Such vectors have no structure at all,
# the hard case for HNSW: the index's build settings (m, ef_construction)
# and the search's ef_search are item_table's defaults, chosen for this
# (docs/vectors.md, "Recall").
#
# The graphs are built as a user bulk-loading a table would build them:
# the items are loaded by plain SQL (the upkeep trigger writes each index
# row with its vector pending, the graph untouched), then CALL
# item_table.backfill_indexes builds each HNSW graph at once
# (item_table.vector_build_graph: the pending vectors moved, the HNSW index
# built again by CREATE INDEX from its own definition, with item_table's m
# and ef_construction), with maintenance_work_mem large enough for the
# graph to be built in memory, and the parallel maintenance workers
# PostgreSQL's defaults allow.  The background worker's draining is off
# meanwhile (item_table.vector_drain = manual, restored at the end), so
# that it does not insert vectors one by one into the graphs being built.
# Skips (and says so) without pgvector.
set -euo pipefail
DB=item_table_stress_recall
ITEMS=${VEC_RECALL_ITEMS:-100000}
DIST=${VEC_RECALL_DIST:-normal}
case "$DIST" in normal|uniform) ;; *) echo "VEC_RECALL_DIST must be normal or uniform"; exit 1 ;; esac
if [ ! -f "$("$PGBIN/pg_config" --sharedir)/extension/vector.control" ]; then
	echo "vector_recall: skipped: pgvector is not installed (scripts/pgvector.sh builds it)"
	exit 0
fi
"$PGBIN/dropdb" --if-exists --force "$DB"
"$PGBIN/createdb" "$DB"
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
drain_reset() { "$PGBIN/psql" -X -q -d "$DB" -c 'ALTER SYSTEM RESET item_table.vector_drain' -c 'SELECT pg_reload_conf()' >/dev/null 2>&1 || true; }
trap drain_reset EXIT
start=$(date +%s)
psql -v items="$ITEMS" -v dist="$DIST" <<'SQL'
SET client_min_messages = warning;
ALTER SYSTEM SET item_table.vector_drain = 'manual';
SELECT pg_reload_conf() \gset
CREATE EXTENSION item_table;
CREATE EXTENSION vector;
SELECT item_table.create_table('{"TableName": "recall", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
	"VectorIndexes": [
		{"IndexName": "cos-idx", "VectorAttribute": {"AttributeName": "emb"}, "Dimensions": 128,
		 "DistanceFunction": "COSINE", "Projection": {"ProjectionType": "KEYS_ONLY"}},
		{"IndexName": "l2-idx", "VectorAttribute": {"AttributeName": "emb"}, "Dimensions": 128,
		 "DistanceFunction": "EUCLIDEAN", "Projection": {"ProjectionType": "KEYS_ONLY"}}]}') IS NOT NULL AS created \gset
SELECT setseed(0.2026) \gset
-- a random component: standard normal (Box-Muller) or uniform in [0, 1]
SELECT :'dist' = 'uniform' AS uniform \gset
CREATE TABLE vecs AS
	SELECT g, array_agg(CASE WHEN :'uniform'::boolean THEN random()
						ELSE sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) END::real) AS v
	  FROM generate_series(1, :items + 100) g, generate_series(1, 128) d
	 GROUP BY g;
-- the items, each index row written with its vector pending
INSERT INTO item_data.recall (key, item)
SELECT NULL, jsonb_build_object('id', jsonb_build_object('S', 'i' || g),
		'emb', jsonb_build_object('L', (SELECT jsonb_agg(jsonb_build_object('N', x::text)) FROM unnest(v) x)))
  FROM vecs WHERE g <= :items;
CREATE TABLE queries AS SELECT g - :items AS q, v FROM vecs WHERE g > :items;
SQL
ploaded=$(date +%s)
echo "loaded $ITEMS items ($DIST) in $((ploaded - start)) s"
psql <<'SQL'
SET client_min_messages = warning;
SET maintenance_work_mem = '1GB';
CALL item_table.backfill_indexes('recall');
SELECT 'pending after the build: ' || string_agg(index_name || ' ' || item_table.vector_pending('recall', index_name), ', ')
  FROM item_table.vector_indexes WHERE table_name = 'recall';
ANALYZE;
SQL
loaded=$(date +%s)
echo "HNSW graphs built (CALL backfill_indexes) in $((loaded - ploaded)) s"
psql -At <<'SQL' >"${TMPDIR:-/tmp}/vector_recall_$$.out"
-- SearchVectors first, with its own plans and settings
CREATE TEMP TABLE approx AS
	SELECT idx, q.q, r -> 'Item' -> 'id' ->> 'S' AS id
	  FROM (VALUES ('cos-idx'), ('l2-idx')) i(idx), queries q,
		   jsonb_array_elements(item_table.search_vectors(jsonb_build_object('TableName', 'recall', 'IndexName', idx, 'TopK', 10,
			   'SearchVector', (SELECT jsonb_agg(jsonb_build_object('N', x::text)) FROM unnest(q.v) x))) -> 'SearchResults') r;
-- then the exact search: every row's distance, sorted
SET enable_indexscan = off;
SET enable_bitmapscan = off;
CREATE TEMP TABLE exact (idx text, q integer, id text);
DO $$
DECLARE
	rel regclass;
	op text;
BEGIN
	FOR rel, op IN SELECT v.relid, CASE v.distance_function WHEN 'COSINE' THEN '<=>' ELSE '<->' END
					 FROM item_table.vector_indexes v WHERE v.table_name = 'recall' LOOP
		EXECUTE format('INSERT INTO exact SELECT $1, q.q, b.item -> ''id'' ->> ''S'' FROM queries q,'
					   ' LATERAL (SELECT r.key FROM %s r'
					   '          ORDER BY r.embedding %s q.v::vector LIMIT 10) e'
					   ' JOIN item_data.recall b ON b.key OPERATOR(item_table.=) e.key', rel, op)
			USING (SELECT index_name FROM item_table.vector_indexes WHERE relid = rel);
	END LOOP;
END $$;
SELECT idx || ' ' || round(count(a.id)::numeric / count(*), 3) || ' ' || count(*)
  FROM exact e LEFT JOIN approx a USING (idx, q, id) GROUP BY idx ORDER BY idx;
SQL
out="${TMPDIR:-/tmp}/vector_recall_$$.out"
end=$(date +%s)
ok=1
while read -r idx recall n; do
	echo "recall@10 of $idx: $recall ($n exact neighbours of 100 queries, $ITEMS $DIST items)"
	[ "$n" = "1000" ] || { echo "FAILED: $idx: $n exact neighbours, expected 1000"; ok=0; }
	awk -v r="$recall" 'BEGIN { exit !(r >= 0.95) }' || { echo "FAILED: $idx: recall@10 $recall is below 0.95"; ok=0; }
done <"$out"
[ "$(wc -l <"$out")" = "2" ] || { cat "$out"; echo "FAILED: expected the recall of two indexes"; ok=0; }
rm -f "$out"
echo "searches and exact searches in $((end - loaded)) s; the step in $((end - start)) s"
# the worker may be in the database (its vector indexes): --force ends it
"$PGBIN/dropdb" --force "$DB"
[ "$ok" = 1 ] && echo "vector_recall: ok"
[ "$ok" = 1 ]
