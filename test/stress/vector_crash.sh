#!/usr/bin/env bash
# A vector index added by UpdateTable (VectorIndexUpdates Create) is built
# by the background worker while clients write, survives kill -9 of the
# worker in the middle of the build, and ends ACTIVE with every item with a
# vector in it exactly once.
#
# Starts its own throw-away cluster (it kills a backend, which resets the
# server: never the shared test cluster), with item_table preloaded and
# small build batches.  An item table of VEC_CRASH_ITEMS items (default
# 20000; 16-dimension vectors on nine items in ten) gets a vector index
# while two clients keep writing: new vectors on existing items, new items,
# items losing their vector, deletions.  Once the worker has committed
# some batches it is killed (kill -9); the build must resume by itself
# from its last committed batch (never going back), reach ACTIVE, and then
# verify() must find nothing (no row missing, none extra, none stale) and
# the index hold as many rows as there are items with a vector.  Then a
# second index is built by CALL backfill_indexes (index_backfill = manual).
# Skips (and says so) without pgvector.
set -uo pipefail

VC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$VC_ROOT/scripts/lib.sh"

ITEMS=${VEC_CRASH_ITEMS:-20000}
WAIT_SECS=${VEC_CRASH_WAIT:-240}
if [ -z "${PGBIN:-}" ]; then
	it_pg_env || exit 1
fi
if [ ! -f "$("$PGBIN/pg_config" --sharedir)/extension/vector.control" ]; then
	echo "vector_crash: skipped: pgvector is not installed (scripts/pgvector.sh builds it)"
	exit 0
fi
CC_DB=vc
CC_TAG=veccrash
CC_CONF=$'item_table.backfill_batch_size = 200'
# shellcheck source=test/stress/include/crash_cluster.sh
. "$VC_ROOT/test/stress/include/crash_cluster.sh"
cc_start

psql -v items="$ITEMS" <<'SQL' || die "setup"
SET client_min_messages = warning;
CREATE EXTENSION item_table;
CREATE EXTENSION vector;
SELECT item_table.create_table('{"TableName": "vct", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created \gset
CREATE FUNCTION public.vec(seed int) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT jsonb_build_object('L', jsonb_agg(jsonb_build_object('N', round(sin(seed * 13 + d)::numeric, 4)::text) ORDER BY d))
	  FROM generate_series(1, 16) d
$$;
INSERT INTO item_data.vct (key, item)
SELECT NULL, jsonb_build_object('pk', jsonb_build_object('S', 'k' || g), 'n', jsonb_build_object('N', g::text))
	|| CASE WHEN g % 10 <> 0 THEN jsonb_build_object('emb', public.vec(g)) ELSE '{}'::jsonb END
FROM generate_series(1, :items) g;
ANALYZE item_data.vct;
SQL

# two writers: on a key among the items or beyond them, a new vector, a
# PutItem without one, or a DeleteItem
cat >"$CC_TMP/writer.sql" <<EOF
\set k random(1, $((ITEMS + ITEMS / 5)))
\set v random(1, 1000000)
\set op random(1, 10)
SELECT CASE WHEN :op <= 6 THEN item_table.put_item(jsonb_build_object('TableName', 'vct',
		'Item', jsonb_build_object('pk', jsonb_build_object('S', 'k' || :k), 'emb', public.vec(:v))))
	WHEN :op <= 8 THEN item_table.put_item(jsonb_build_object('TableName', 'vct',
		'Item', jsonb_build_object('pk', jsonb_build_object('S', 'k' || :k))))
	ELSE item_table.delete_item(jsonb_build_object('TableName', 'vct',
		'Key', jsonb_build_object('pk', jsonb_build_object('S', 'k' || :k)))) END;
EOF
(
	while [ ! -e "$CC_TMP/stop" ]; do
		"$PGBIN/pgbench" -n -d vc -c 2 -T 3 -f "$CC_TMP/writer.sql" >>"$CC_TMP/pgbench.log" 2>&1
		sleep 0.2
	done
) &
WRITERS=$!
sleep 1

psql -At -c "SELECT 'UpdateTable VectorIndexUpdates Create: ' || (item_table.update_table('{\"TableName\": \"vct\",
	\"VectorIndexUpdates\": [{\"Create\": {\"IndexName\": \"emb-idx\", \"VectorAttribute\": {\"AttributeName\": \"emb\"},
		\"Dimensions\": 16, \"DistanceFunction\": \"COSINE\", \"Projection\": {\"ProjectionType\": \"KEYS_ONLY\"}}}]}')
	->'TableDescription'->'VectorIndexes'->0->>'IndexStatus')" || die "UpdateTable"

PROGRESS_SQL="coalesce((SELECT backfilled FROM item_table.vector_indexes WHERE table_name = 'vct' AND index_name = 'emb-idx' AND status = 'CREATING'), -1)"
WORKER_SQL="SELECT pid FROM pg_stat_activity WHERE backend_type = 'item_table worker' AND datname = 'vc' LIMIT 1"
progress() { q "SELECT $PROGRESS_SQL"; }
status() { q "SELECT item_table.describe_table('{\"TableName\": \"vct\"}')->'Table'->'VectorIndexes'->0->>'IndexStatus'"; }
wait_progress() {
	await "$WAIT_SECS" "SELECT CASE WHEN p > $1 OR p = -1 THEN p || ' ' || coalesce(($WORKER_SQL)::text, '') END
		FROM (SELECT $PROGRESS_SQL AS p) s"
}

read -r p1 wpid <<<"$(wait_progress 0)"
[ -n "$p1" ] || die "the worker made no progress on the build in $WAIT_SECS s"
[ "$p1" = "-1" ] && die "the build finished before it could be interrupted (raise VEC_CRASH_ITEMS)"
[ -n "$wpid" ] || die "no item_table worker in pg_stat_activity"
$SUDO kill -KILL "$wpid"
crashed "$wpid" || die "the server log does not show the worker's death by kill -9"
echo "build: killed the worker (pid $wpid) at $p1 items"
wait_ready 120 || die "the server did not come back after the worker was killed"
p2=$(progress)
[ "$p2" = "-1" ] || [ "$p2" -ge "$p1" ] || die "the build went back from $p1 to $p2 items"

deadline=$(($(date +%s) + WAIT_SECS))
while [ "$(status)" != "ACTIVE" ]; do
	[ "$(date +%s)" -lt "$deadline" ] || die "the vector index is not ACTIVE after $WAIT_SECS s (at $(progress) items)"
	sleep 0.5
done
echo "build: ACTIVE by itself after the crash ($(q "SELECT backfilled FROM item_table.vector_indexes WHERE index_name = 'emb-idx'") items scanned)"
# the vector drain process, moving the writers' vectors into the HNSW
# graph meanwhile, killed (kill -9) in the middle of its work
DRAIN_SQL="SELECT pid FROM pg_stat_activity WHERE backend_type = 'item_table vector drain' AND datname = 'vc'
	AND state = 'active' LIMIT 1"
dpid=$(await "$WAIT_SECS" "$DRAIN_SQL")
[ -n "$dpid" ] || die "no item_table vector drain process at work in $WAIT_SECS s"
$SUDO kill -KILL "$dpid"
crashed "$dpid" || die "the server log does not show the drain process's death by kill -9"
echo "drain: killed the vector drain process (pid $dpid) at work"
wait_ready 120 || die "the server did not come back after the drain process was killed"
sleep 1
: >"$CC_TMP/stop"
wait "$WRITERS" 2>/dev/null
rm -f "$CC_TMP/stop"
# a new drain process (started by the worker) moves every pending vector
pend=$(await "$WAIT_SECS" "SELECT 0 WHERE item_table.vector_pending('vct', 'emb-idx') = 0")
[ "$pend" = "0" ] || die "$(q "SELECT item_table.vector_pending('vct', 'emb-idx')") vectors still pending $WAIT_SECS s after the drain process was killed"
echo "drain: every pending vector moved into the graph after the crash"
writes=$(grep -h 'number of transactions actually processed' "$CC_TMP/pgbench.log" | awk '{ s += $NF } END { print s + 0 }')
echo "build: ${writes%%/*} acknowledged writes ran beside it"
bad=$(q "SELECT count(*) FROM item_table.verify('vct')")
[ "$bad" = "0" ] || { q "SELECT index_name, problem, count(*) FROM item_table.verify('vct') GROUP BY 1, 2"; die "verify() found $bad problems after the build"; }
rows=$(q "SELECT (item_table.describe_table('{\"TableName\": \"vct\"}')->'Table'->'VectorIndexes'->0->>'ItemCount')")
want=$(q "SELECT count(*) FROM item_data.vct WHERE item ? 'emb'")
[ "$rows" = "$want" ] || die "the index has $rows rows, the table $want items with a vector"
echo "build: verify() clean, $rows index rows for $want items with a vector"
hit=$(q "SELECT item_table.search_vectors(jsonb_build_object('TableName', 'vct', 'IndexName', 'emb-idx', 'TopK', 1,
	'SearchVector', (SELECT item -> 'emb' -> 'L' FROM item_data.vct WHERE item ? 'emb' ORDER BY key LIMIT 1))) -> 'SearchResults' -> 0 ->> 'Score'")
[ -n "$hit" ] || die "SearchVectors found nothing on the built index"
# a second index, left to the procedure (item_table.index_backfill = manual):
# CALL backfill_indexes builds it, committing batch by batch
psql -At <<'SQL' || die "UpdateTable and CALL backfill_indexes"
SET item_table.index_backfill = manual;
SELECT 'UpdateTable (manual): ' || (item_table.update_table('{"TableName": "vct",
	"VectorIndexUpdates": [{"Create": {"IndexName": "emb-l2", "VectorAttribute": {"AttributeName": "emb"},
		"Dimensions": 16, "DistanceFunction": "EUCLIDEAN", "Projection": {"ProjectionType": "KEYS_ONLY"}}}]}')
	->'TableDescription'->'VectorIndexes'->1->>'IndexStatus');
CALL item_table.backfill_indexes('vct', 5000);
SQL
[ "$(q "SELECT status FROM item_table.vector_indexes WHERE index_name = 'emb-l2'")" = "ACTIVE" ] ||
	die "CALL backfill_indexes did not make the second vector index ACTIVE"
bad=$(q "SELECT count(*) FROM item_table.verify('vct')")
[ "$bad" = "0" ] || die "verify() found $bad problems after CALL backfill_indexes"
echo "manual: CALL backfill_indexes built a second vector index, verify() clean"
echo "vector_crash: ok"
