#!/usr/bin/env bash
# Background work benchmark (not a test: it prints numbers).
#
#   bash bench/background.sh            # BG_BENCH_ITEMS=1000000 by default
#   BG_BENCH_ITEMS=200000 bash bench/background.sh
#
# Starts a throw-away cluster with shared_preload_libraries = 'item_table'
# (scripts/lib.sh) and measures, in one run:
#   1. TTL deletion rate: a table with two GSIs, every item expired; the
#      time until the worker has deleted them all (goal >= 10,000 items/s).
#   2. Writers on a table with TTL enabled and nothing expiring, against the
#      same table with TTL disabled: pgbench PutItem tps, ratio (goal ~1).
#   3. Backfill of BG_BENCH_ITEMS items: the worker, with two pgbench
#      clients writing, against CALL backfill_indexes() alone, same table
#      size (goal: the worker under writes within 2x of the procedure).
# BG_BENCH_SECONDS (default 15) is the length of each pgbench run;
# BG_BENCH_ONLY (e.g. "2 3") runs only those parts.  Part 2 runs twice:
# with item_table.worker_naptime = 1 s (the tests' setting: a pass over the
# table every second) and at the default, 10 s.
set -uo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"

ITEMS=${BG_BENCH_ITEMS:-1000000}
SECS=${BG_BENCH_SECONDS:-15}
ONLY=${BG_BENCH_ONLY:-1 2 3}
part() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }

it_need_root || it_die "root or sudo is required"
it_pg_env || it_die "PostgreSQL tools not found"
it_build_install || it_die "build failed"
it_start_cluster || it_die "could not start a PostgreSQL cluster"
# the worker's batches at their defaults
"$PGBIN/psql" -X -q -c "ALTER SYSTEM SET item_table.worker_naptime = 1" -c "SELECT pg_reload_conf()" >/dev/null
"$PGBIN/createdb" bench || it_die "createdb"
export PGDATABASE=bench
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
q() { "$PGBIN/psql" -X -q -At -c "$1"; }
now_s() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
TMP=$(mktemp -d /tmp/item_table_bgbench.XXXXXX)
trap 'rm -rf "$TMP"; it_cleanup' EXIT

psql -c "CREATE EXTENSION item_table" >/dev/null

# load N items into table T: pk, g (GSI by_g), h (GSI by_h), exp
load() {  # load TABLE N EXP_SQL
	psql -v n="$2" <<SQL >/dev/null
INSERT INTO item_data.$1 (key, item)
SELECT NULL, jsonb_build_object('pk', jsonb_build_object('S', 'k' || g),
	'g', jsonb_build_object('S', 'g' || (g % 1000)), 'h', jsonb_build_object('N', (g % 5000)::text),
	'exp', jsonb_build_object('N', ($3)::text), 'pad', jsonb_build_object('S', repeat('x', 100)))
FROM generate_series(1, :n) g;
ANALYZE item_data.$1;
SQL
}
mktable() {  # mktable NAME WITH_GSIS
	local gsis="" defs=""
	[ "$2" = 1 ] && defs=', {"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "h", "AttributeType": "N"}'
	[ "$2" = 1 ] && gsis=', "GlobalSecondaryIndexes": [
		{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}},
		{"IndexName": "by_h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}]'
	q "SELECT item_table.create_table('{\"TableName\": \"$1\", \"BillingMode\": \"PAY_PER_REQUEST\",
		\"AttributeDefinitions\": [{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}$defs],
		\"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"}]$gsis}') IS NOT NULL" >/dev/null
}

if part 1; then
echo "== 1. TTL deletion, two GSIs, $ITEMS expired items"
mktable ttl_del 1
load ttl_del "$ITEMS" "extract(epoch from now())::bigint - 60"
t0=$(now_s)
q "SELECT item_table.update_time_to_live('{\"TableName\": \"ttl_del\", \"TimeToLiveSpecification\": {\"AttributeName\": \"exp\", \"Enabled\": true}}')" >/dev/null
while [ "$(q "SELECT count(*) > 0 FROM item_data.ttl_del")" = "t" ]; do sleep 0.2; done
t1=$(now_s)
el=$(secs "$t0" "$t1")
echo "deleted $ITEMS items in $el s: $(awk -v n="$ITEMS" -v s="$el" 'BEGIN { printf "%.0f", n / s }') items/s (includes up to one worker_naptime of start-up)"
echo "verify: $(q "SELECT count(*) FROM item_table.verify('ttl_del')") problems"
fi

writer() {  # writer TABLE: pgbench tps of PutItem
	cat >"$TMP/w_$1.sql" <<EOF
\set k random(1, 200000)
SELECT item_table.put_item(jsonb_build_object('TableName', '$1', 'Item', jsonb_build_object(
	'pk', jsonb_build_object('S', 'k' || :k), 'g', jsonb_build_object('S', 'g' || (:k % 1000)),
	'h', jsonb_build_object('N', (:k % 5000)::text), 'exp', jsonb_build_object('N', '4102444800'))));
EOF
	"$PGBIN/pgbench" -n -c 2 -j 2 -T "$SECS" -f "$TMP/w_$1.sql" 2>/dev/null |
		sed -nE 's/^tps = ([0-9.]+).*/\1/p' | head -n 1
}
if part 2; then
echo "== 2. writers, TTL enabled with nothing expiring vs TTL off ($SECS s each, 2 clients)"
mktable w_on 1
mktable w_off 1
load w_on 100000 "extract(epoch from now())::bigint + 86400"
load w_off 100000 "extract(epoch from now())::bigint + 86400"
q "SELECT item_table.update_time_to_live('{\"TableName\": \"w_on\", \"TimeToLiveSpecification\": {\"AttributeName\": \"exp\", \"Enabled\": true}}')" >/dev/null
for nap in 1 10; do
	q "ALTER SYSTEM SET item_table.worker_naptime = $nap" >/dev/null
	q "SELECT pg_reload_conf()" >/dev/null
	sleep $((nap + 1))		# the worker's next round takes the new interval
	off1=$(writer w_off); on1=$(writer w_on); off2=$(writer w_off); on2=$(writer w_on)
	echo "worker_naptime $nap s: TTL off: $off1, $off2 tps; TTL on: $on1, $on2 tps"
	echo "worker_naptime $nap s: ratio on/off: $(awk -v a="$on1" -v b="$on2" -v c="$off1" -v d="$off2" 'BEGIN { printf "%.3f", (a + b) / (c + d) }')"
	# the same cost measured in CPU time, which other load on the machine
	# disturbs far less than throughput: what the worker's passes over
	# the TTL table use, no client running (the postmaster's children's
	# CPU, counted as each restarted worker exits)
	pm=$($SUDO head -n 1 "$IT_PGDATA/postmaster.pid")
	sleep 3		# the writers' backends reaped first (their CPU is counted then)
	c0=$(awk '{ print $16 + $17 }' "/proc/$pm/stat"); sleep 30
	c1=$(awk '{ print $16 + $17 }' "/proc/$pm/stat")
	echo "worker_naptime $nap s: the worker's CPU with TTL on and no writers: $(awk -v a="$c0" -v b="$c1" -v t="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", (b - a) * 1000 / t / 30 }') ms of CPU per second"
done
q "ALTER SYSTEM SET item_table.worker_naptime = 1" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
fi

if part 3; then
echo "== 3. backfill of $ITEMS items: the worker under 2 writing clients vs CALL backfill_indexes alone"
mktable bf_proc 0
mktable bf_work 0
load bf_proc "$ITEMS" "0"
load bf_work "$ITEMS" "0"
create_idx() {
	q "SET item_table.index_backfill = $2; SELECT item_table.update_table('{\"TableName\": \"$1\",
		\"AttributeDefinitions\": [{\"AttributeName\": \"g\", \"AttributeType\": \"S\"}],
		\"GlobalSecondaryIndexUpdates\": [{\"Create\": {\"IndexName\": \"by_g\", \"KeySchema\": [{\"AttributeName\": \"g\", \"KeyType\": \"HASH\"}],
			\"Projection\": {\"ProjectionType\": \"ALL\"}}}]}') IS NOT NULL" >/dev/null
}
create_idx bf_proc manual
t0=$(now_s)
psql -c "CALL item_table.backfill_indexes('bf_proc')" >/dev/null 2>&1
t1=$(now_s)
proc=$(secs "$t0" "$t1")
echo "procedure alone: $proc s"
cat >"$TMP/bfw.sql" <<EOF
\set k random(1, $ITEMS)
SELECT item_table.update_item(jsonb_build_object('TableName', 'bf_work',
	'Key', jsonb_build_object('pk', jsonb_build_object('S', 'k' || :k)),
	'UpdateExpression', 'SET g = :g', 'ExpressionAttributeValues', jsonb_build_object(':g', jsonb_build_object('S', 'w' || (:k % 77)))));
EOF
"$PGBIN/pgbench" -n -c 2 -j 2 -T 100000 -f "$TMP/bfw.sql" >"$TMP/bfw.out" 2>&1 &
pgb=$!
sleep 1
t0=$(now_s)
create_idx bf_work worker
while [ "$(q "SELECT status FROM item_table.indexes WHERE table_name = 'bf_work'")" != "ACTIVE" ]; do sleep 0.2; done
t1=$(now_s)
kill -TERM "$pgb" 2>/dev/null; wait "$pgb" 2>/dev/null
work=$(secs "$t0" "$t1")
echo "worker under 2 writers: $work s (from UpdateTable to ACTIVE)"
echo "ratio worker/procedure: $(awk -v a="$work" -v b="$proc" 'BEGIN { printf "%.2f", a / b }')"
echo "verify: $(q "SELECT count(*) FROM item_table.verify('bf_work')") problems"
fi
