#!/usr/bin/env bash
# The vector drain process: the vectors written to a vector index wait in
# pending until a process of their own, "item_table vector drain", moves
# them into the HNSW graph at the operating system's priority
# item_table.vector_drain_nice; with item_table.vector_drain = manual they
# stay pending.
#
# On the test cluster (item_table preloaded, short naptime), in a database
# of its own: item_table.vector_drain_nice set to 13 (not the default, so
# that the check can fail), a table with a vector index, 400 items written
# (committed, every vector pending).  Checks: a process with backend_type
# "item_table vector drain" appears in the database and empties pending;
# its nice value (from /proc) is 13; the database's worker is another
# process, at its own priority.  Then vector_drain = manual: the drain
# process leaves, 100 more vectors written stay pending for several
# naptimes, and CALL item_table.backfill_indexes moves them.  The settings
# are reset at the end.  Skips (and says so) without pgvector.
set -euo pipefail
DB=item_table_stress_drain
WAIT_SECS=${VEC_DRAIN_WAIT:-120}
if [ ! -f "$("$PGBIN/pg_config" --sharedir)/extension/vector.control" ]; then
	echo "vector_drain: skipped: pgvector is not installed (scripts/pgvector.sh builds it)"
	exit 0
fi
"$PGBIN/dropdb" --if-exists --force "$DB"
"$PGBIN/createdb" "$DB"
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
q() { "$PGBIN/psql" -X -q -At -d "$DB" -c "$1"; }
settings_reset() {
	"$PGBIN/psql" -X -q -d "$DB" -c 'ALTER SYSTEM RESET item_table.vector_drain' \
		-c 'ALTER SYSTEM RESET item_table.vector_drain_nice' -c 'SELECT pg_reload_conf()' >/dev/null 2>&1 || true
}
trap settings_reset EXIT
die() { echo "FAILED: $*"; exit 1; }
nice_of() { awk '{ print $19 }' "/proc/$1/stat" 2>/dev/null; }
DRAIN_SQL="SELECT pid FROM pg_stat_activity WHERE backend_type = 'item_table vector drain' AND datname = '$DB' LIMIT 1"
PENDING_SQL="SELECT item_table.vector_pending('vdt', 'vd-idx')"

psql <<'SQL'
SET client_min_messages = warning;
ALTER SYSTEM SET item_table.vector_drain_nice = 13;
ALTER SYSTEM RESET item_table.vector_drain;
SELECT pg_reload_conf() \gset
CREATE EXTENSION item_table;
CREATE EXTENSION vector;
SELECT item_table.create_table('{"TableName": "vdt", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
	"VectorIndexes": [{"IndexName": "vd-idx", "VectorAttribute": {"AttributeName": "emb"}, "Dimensions": 32,
		"DistanceFunction": "EUCLIDEAN", "Projection": {"ProjectionType": "KEYS_ONLY"}}]}') IS NOT NULL AS created \gset
CREATE FUNCTION public.vec(seed int) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT jsonb_build_object('L', jsonb_agg(jsonb_build_object('N', round(sin(seed * 7 + d)::numeric, 4)::text) ORDER BY d))
	  FROM generate_series(1, 32) d
$$;
SQL
# each PutItem a transaction of its own (the worker is asked for by the
# first write of the session)
for i in $(seq 1 400); do
	echo "SELECT item_table.put_item(jsonb_build_object('TableName', 'vdt', 'Item', jsonb_build_object('id', jsonb_build_object('S', 'i$i'), 'emb', public.vec($i)))) IS NOT NULL;"
done | psql -At >/dev/null
echo "400 vectors written, $(q "$PENDING_SQL") pending at once"

# the drain process appears and empties pending
pid=""
deadline=$((SECONDS + WAIT_SECS))
while :; do
	p=$(q "$DRAIN_SQL")
	[ -n "$p" ] && pid=$p && nice=$(nice_of "$p") && [ -n "$nice" ] && seen_nice=$nice
	[ -n "$pid" ] && [ "$(q "$PENDING_SQL")" = "0" ] && break
	[ "$SECONDS" -lt "$deadline" ] || die "after $WAIT_SECS s: drain process ${pid:-never seen}, $(q "$PENDING_SQL") vectors pending"
	sleep 0.2
done
echo "the vector drain process (pid $pid) emptied pending"
[ "${seen_nice:-}" = "13" ] || die "the drain process's nice value is ${seen_nice:-unknown}, item_table.vector_drain_nice is 13"
echo "its nice value is item_table.vector_drain_nice's: $seen_nice"
wpid=$(q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'item_table worker' AND datname = '$DB' LIMIT 1")
if [ -n "$wpid" ]; then
	[ "$wpid" != "$pid" ] || die "the worker and the drain process are one process"
	wnice=$(nice_of "$wpid")
	[ "${wnice:-x}" != "13" ] || die "the worker runs at the drain's priority too"
	echo "the database's worker (pid $wpid) runs apart, at nice ${wnice:-?}"
fi
[ "$(q "SELECT count(*) FROM item_table.verify('vdt')")" = "0" ] || die "verify() found problems after the drain"
[ "$(q "SELECT count(*) FROM item_data.$(q "SELECT relid FROM item_table.vector_indexes WHERE table_name = 'vdt'" | sed 's/^item_data\.//') WHERE embedding IS NOT NULL")" = "400" ] ||
	die "not every vector is in the graph"

# manual: the drain process leaves, new vectors stay pending
q "ALTER SYSTEM SET item_table.vector_drain = 'manual'" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
deadline=$((SECONDS + 30))
while [ -n "$(q "$DRAIN_SQL")" ]; do
	[ "$SECONDS" -lt "$deadline" ] || die "the drain process is still there 30 s after vector_drain = manual"
	sleep 0.2
done
for i in $(seq 401 500); do
	echo "SELECT item_table.put_item(jsonb_build_object('TableName', 'vdt', 'Item', jsonb_build_object('id', jsonb_build_object('S', 'i$i'), 'emb', public.vec($i)))) IS NOT NULL;"
done | psql -At >/dev/null
naptime=$(q "SHOW item_table.worker_naptime" | sed 's/s$//')
sleep $((naptime * 3 + 2))
n=$(q "$PENDING_SQL")
[ "$n" = "100" ] || die "with vector_drain = manual, $n vectors pending after $((naptime * 3 + 2)) s (100 written)"
[ -z "$(q "$DRAIN_SQL")" ] || die "a drain process runs with vector_drain = manual"
echo "vector_drain = manual: the 100 vectors written stay pending, no drain process"
q "CALL item_table.backfill_indexes('vdt')" >/dev/null
[ "$(q "$PENDING_SQL")" = "0" ] || die "CALL backfill_indexes left vectors pending"
echo "CALL item_table.backfill_indexes moved them"
settings_reset
trap - EXIT
"$PGBIN/dropdb" --force "$DB"
echo "vector_drain: ok"
