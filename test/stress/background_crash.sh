#!/usr/bin/env bash
# Background work survives crashes: an index backfill and a Time to Live
# pass, each interrupted by kill -9, finish by themselves.
#
# Starts its own throw-away cluster (it kills the server, so it never
# touches the shared test cluster) with shared_preload_libraries =
# 'item_table', fsync on, and small worker batches so that the work takes
# long enough to be interrupted.  An item table of BG_CRASH_ITEMS items
# (default 100000) gets a GSI by UpdateTable while two clients keep
# writing; once the worker has committed some batches, the worker is
# killed (kill -9: the postmaster resets every backend), then, once it has
# resumed, the postmaster itself (kill -9, then pg_ctl start).  Nobody
# calls anything: the index must reach ACTIVE by itself, with its progress
# never going back past a committed batch, and verify() must find
# nothing.  Then Time to Live is enabled on an attribute that has expired
# on half the items (others: in the future, a string, absent); the worker
# is killed in the middle of the pass, and after the restart every expired
# item must be gone, every other item still there, and verify() clean.
#
#   BG_CRASH_ITEMS=1000000 bash test/stress/background_crash.sh
set -uo pipefail

BG_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$BG_ROOT/scripts/lib.sh"

ITEMS=${BG_CRASH_ITEMS:-100000}
WAIT_SECS=${BG_CRASH_WAIT:-180}
CC_DB=bg
CC_TAG=bgcrash
CC_CONF=$'item_table.backfill_batch_size = 200\nitem_table.ttl_batch_size = 200'
# shellcheck source=test/stress/include/crash_cluster.sh
. "$BG_ROOT/test/stress/include/crash_cluster.sh"
cc_start

now=$(date +%s)
psql -v items="$ITEMS" -v now="$now" <<'SQL' || die "setup"
SET client_min_messages = warning;
CREATE EXTENSION item_table;
SELECT item_table.create_table('{"TableName": "bgc", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "o", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_o", "KeySchema": [{"AttributeName": "o", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}]}') IS NOT NULL AS created \gset
-- exp: g % 4 = 0 expired, 1 in the future, 2 a string, 3 absent
INSERT INTO item_data.bgc (key, item)
SELECT NULL, jsonb_build_object('pk', jsonb_build_object('S', 'k' || g),
		'o', jsonb_build_object('S', 'o' || (g % 97)),
		'g', jsonb_build_object('S', 'g' || (g % 13)))
	|| CASE g % 4
		WHEN 0 THEN jsonb_build_object('exp', jsonb_build_object('N', (:now - 3600 - g % 1000)::text))
		WHEN 1 THEN jsonb_build_object('exp', jsonb_build_object('N', (:now + 864000)::text))
		WHEN 2 THEN jsonb_build_object('exp', jsonb_build_object('S', (:now - 3600)::text))
		ELSE '{}'::jsonb END
FROM generate_series(1, :items) g;
ANALYZE item_data.bgc;
SQL

# ---------------------------------------------------------------- backfill
# two writers: new values of g (the new index key) and o, on any item, with
# an exp in the future (they never make an item expire)
cat >"$CC_TMP/writer.sql" <<EOF
\set k random(1, $ITEMS)
\set v random(1, 50)
SELECT item_table.update_item(jsonb_build_object('TableName', 'bgc',
	'Key', jsonb_build_object('pk', jsonb_build_object('S', 'k' || :k)),
	'UpdateExpression', 'SET g = :g, o = :o',
	'ExpressionAttributeValues', jsonb_build_object(':g', jsonb_build_object('S', 'w' || :v),
		':o', jsonb_build_object('S', 'o' || :v))));
EOF
(
	while [ ! -e "$CC_TMP/stop" ]; do
		"$PGBIN/pgbench" -n -d bg -c 2 -T 3 -f "$CC_TMP/writer.sql" >>"$CC_TMP/pgbench.log" 2>&1
		sleep 0.2
	done
) &
WRITERS=$!
sleep 1

psql -At -c "SELECT 'UpdateTable Create: ' || (item_table.update_table('{\"TableName\": \"bgc\",
	\"AttributeDefinitions\": [{\"AttributeName\": \"g\", \"AttributeType\": \"S\"}],
	\"GlobalSecondaryIndexUpdates\": [{\"Create\": {\"IndexName\": \"by_g\", \"KeySchema\": [{\"AttributeName\": \"g\", \"KeyType\": \"HASH\"}],
		\"Projection\": {\"ProjectionType\": \"ALL\"}}}]}')->'TableDescription'->'GlobalSecondaryIndexes'->0->>'IndexStatus')" ||
	die "UpdateTable"

PROGRESS_SQL="coalesce((SELECT backfilled FROM item_table.indexes WHERE table_name = 'bgc' AND index_name = 'by_g' AND status = 'CREATING'), -1)"
WORKER_SQL="SELECT pid FROM pg_stat_activity WHERE backend_type = 'item_table worker' AND datname = 'bg' LIMIT 1"
progress() { q "SELECT $PROGRESS_SQL"; }
status() { q "SELECT item_table.describe_table('{\"TableName\": \"bgc\"}')->'Table'->'GlobalSecondaryIndexes'->0->>'IndexStatus'"; }
worker_pid() { q "$WORKER_SQL"; }

# wait_progress MIN: wait (on the server, WAIT_SECS at most) until the
# committed progress is above MIN or the backfill is done; prints the
# progress (-1: done) and the worker's pid, both seen at that moment
wait_progress() {
	await "$WAIT_SECS" "SELECT CASE WHEN p > $1 OR p = -1 THEN p || ' ' || coalesce(($WORKER_SQL)::text, '') END
		FROM (SELECT $PROGRESS_SQL AS p) s"
}
# committed progress, then kill the worker at once
read -r p1 wpid <<<"$(wait_progress 0)"
[ -n "$p1" ] || die "the worker made no progress on the backfill in $WAIT_SECS s"
[ "$p1" = "-1" ] && die "the backfill finished before it could be interrupted (raise BG_CRASH_ITEMS)"
[ -n "$wpid" ] || die "no item_table worker in pg_stat_activity"
$SUDO kill -KILL "$wpid"
crashed "$wpid" || die "the server log does not show the worker's death by kill -9"
echo "backfill: killed the worker (pid $wpid) at $p1 items"
wait_ready 120 || die "the server did not come back after the worker was killed"
p2=$(progress)
[ "$p2" = "-1" ] || [ "$p2" -ge "$p1" ] || die "the backfill went back from $p1 to $p2 items"
read -r p3 _ <<<"$(wait_progress "$p2")"
[ -n "$p3" ] || die "the backfill did not resume after the crash within $WAIT_SECS s"
[ "$p3" = "-1" ] && die "the backfill finished before the postmaster could be killed (raise BG_CRASH_ITEMS)"
pm=$($SUDO head -n 1 "$CC_PGDATA/postmaster.pid")
pg_user kill -KILL "$pm"
kill_all
echo "backfill: resumed to $p3 items; killed the postmaster"
pg_start || die "could not restart the server"
wait_ready 120 || die "the server did not come back"

deadline=$(($(date +%s) + WAIT_SECS))
while [ "$(status)" != "ACTIVE" ]; do
	[ "$(date +%s)" -lt "$deadline" ] || die "the index is not ACTIVE after $WAIT_SECS s (at $(progress) items)"
	sleep 0.5
done
echo "backfill: ACTIVE by itself after the restart ($(q "SELECT backfilled FROM item_table.indexes WHERE index_name = 'by_g'") items scanned)"
: >"$CC_TMP/stop"
wait "$WRITERS" 2>/dev/null
rm -f "$CC_TMP/stop"
writes=$(grep -h 'number of transactions actually processed' "$CC_TMP/pgbench.log" | awk '{ s += $NF } END { print s + 0 }')
writes=${writes%%/*}
echo "backfill: $writes acknowledged writes ran beside it"
bad=$(q "SELECT count(*) FROM item_table.verify('bgc')")
[ "$bad" = "0" ] || { q "SELECT index_name, problem, count(*) FROM item_table.verify('bgc') GROUP BY 1, 2"; die "verify() found $bad problems after the backfill"; }
echo "backfill: verify() clean"

# ---------------------------------------------------------------- TTL
expired_sql="SELECT count(*) FROM item_data.bgc WHERE (item->'exp'->>'N')::numeric <= extract(epoch FROM now())"
kept_sql="SELECT count(*) FROM item_data.bgc WHERE NOT coalesce((item->'exp'->>'N')::numeric <= extract(epoch FROM now()), false)"
expired0=$(q "$expired_sql")
kept0=$(q "$kept_sql")
psql -At -c "SELECT 'UpdateTimeToLive: ' || item_table.update_time_to_live('{\"TableName\": \"bgc\", \"TimeToLiveSpecification\": {\"AttributeName\": \"exp\", \"Enabled\": true}}')::text" ||
	die "UpdateTimeToLive"
# the first committed deletions, and the worker's pid at that moment: kill
# it at once
read -r d wpid <<<"$(await "$WAIT_SECS" "SELECT CASE WHEN items_expired > 0 THEN items_expired || ' ' || coalesce(($WORKER_SQL)::text, '') END
	FROM item_table.time_to_live WHERE table_name = 'bgc'")"
[ "${d:-0}" -gt 0 ] || die "the worker deleted nothing in $WAIT_SECS s"
[ "$d" -lt "$expired0" ] || die "the TTL pass finished before it could be interrupted (raise BG_CRASH_ITEMS)"
if [ -n "$wpid" ]; then
	$SUDO kill -KILL "$wpid"
	crashed "$wpid" || die "the server log does not show the worker's death by kill -9"
fi
echo "ttl: killed the worker (pid ${wpid:-none}) after $d of $expired0 expired items"
wait_ready 120 || die "the server did not come back"
# SIGTERM (pg_terminate_backend) ends the worker promptly; it comes back
# (the deadline below): wait for the restarted worker while expired items
# are left for it
wpid=$(await "$WAIT_SECS" "SELECT coalesce(($WORKER_SQL)::text, CASE WHEN ($expired_sql) = 0 THEN 'done' END)")
[ "$wpid" = "done" ] && wpid=""
if [ -n "$wpid" ]; then
	t0=$(date +%s.%N)
	t=$(q "SELECT pg_terminate_backend($wpid)")
	[ "$t" = "t" ] || die "pg_terminate_backend of the worker failed"
	[ "$(await 30 "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $wpid) THEN 'gone' END")" = gone ] ||
		die "the worker (pid $wpid) is still there 30 s after pg_terminate_backend"
	echo "ttl: pg_terminate_backend ended the worker (pid $wpid) within $(it_elapsed "$t0") s"
elif [ "$(q "$expired_sql")" != "0" ]; then
	die "no item_table worker came back after the crash within $WAIT_SECS s"
else
	echo "ttl: the restarted worker finished before it could be terminated (raise BG_CRASH_ITEMS)"
fi
deadline=$(($(date +%s) + WAIT_SECS))
while [ "$(q "$expired_sql")" != "0" ]; do
	[ "$(date +%s)" -lt "$deadline" ] || die "$(q "$expired_sql") expired items are left after $WAIT_SECS s"
	sleep 0.5
done
kept=$(q "$kept_sql")
[ "$kept" = "$kept0" ] || die "$kept items that had not expired are left, expected $kept0"
echo "ttl: every expired item deleted by itself, the $kept others kept"
bad=$(q "SELECT count(*) FROM item_table.verify('bgc')")
[ "$bad" = "0" ] || die "verify() found $bad problems after the TTL pass"
echo "ttl: verify() clean"
echo "background_crash: ok"
