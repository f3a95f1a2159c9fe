#!/usr/bin/env bash
# Streams survive crashes: kill -9 in the middle of a write load with a
# stream consumer running, then no committed change is missing from the
# stream and no consumer batch has been applied twice.
#
# Starts its own throw-away cluster (it kills the server) with
# shared_preload_libraries = 'item_table', fsync on.  A table with a
# NEW_IMAGE stream has a consumer (batches of 20, run by the background
# worker as a role of its own) that appends every record it gets to a log
# table, with no unique constraint: a batch applied twice would show as a
# sequence number logged twice.  Two writers commit PutItems in a loop
# (psql prints "A <key> <v>" after each COMMIT returned).  After
# STREAM_CRASH_SECONDS (default 4) seconds the worker is killed with kill -9
# (the postmaster resets every backend), and after as many again the
# postmaster itself (kill -9, then pg_ctl start); the writers reconnect and
# go on, then stop.  Nobody runs the consumer by hand: the worker must
# catch up by itself.  Checks: every acknowledged write has its record in
# the stream; no (key, v) has two records; each key's records are numbered
# in the order its writer wrote them, across both crashes (the counter
# that hands out numbers lives in shared memory and starts again after
# each); the consumer logged every record
# of the stream exactly once, and it never failed.
#
#   STREAM_CRASH_SECONDS=10 bash test/stress/streams_crash.sh
set -uo pipefail

SC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$SC_ROOT/scripts/lib.sh"

LOAD_SECS=${STREAM_CRASH_SECONDS:-4}
CC_DB=sc
CC_TAG=streamcrash
CC_CONF=""
# shellcheck source=test/stress/include/crash_cluster.sh
. "$SC_ROOT/test/stress/include/crash_cluster.sh"
cc_start


psql <<'SQL' || die "setup"
SET client_min_messages = warning;
CREATE EXTENSION item_table;
SELECT item_table.create_table('{"TableName": "crashy", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}') IS NOT NULL;
CREATE ROLE sc_app;
GRANT SELECT ON item_data.crashy TO sc_app;
CREATE TABLE public.applied (seq bigint, pk text, v int, at timestamptz DEFAULT clock_timestamp());
GRANT INSERT ON public.applied TO sc_app;
CREATE FUNCTION public.apply(records jsonb) RETURNS void LANGUAGE sql AS $$
	INSERT INTO public.applied (seq, pk, v)
	SELECT (r OPERATOR(pg_catalog.->) 'dynamodb' OPERATOR(pg_catalog.->>) 'SequenceNumber')::pg_catalog.int8,
		r OPERATOR(pg_catalog.->) 'dynamodb' OPERATOR(pg_catalog.->) 'Keys' OPERATOR(pg_catalog.->) 'pk' OPERATOR(pg_catalog.->>) 'S',
		(r OPERATOR(pg_catalog.->) 'dynamodb' OPERATOR(pg_catalog.->) 'NewImage' OPERATOR(pg_catalog.->) 'v' OPERATOR(pg_catalog.->>) 'N')::pg_catalog.int4
	FROM pg_catalog.jsonb_array_elements(records) r $$;
SET ROLE sc_app;
SELECT item_table.add_stream_consumer('crashy', 'public.apply(jsonb)', 'apply', batch_size => 20);
RESET ROLE;
SQL

# writer w: batches of 20 transactions, one PutItem each, v counting up
writer() {
	local w=$1 b=0 n i
	while [ ! -e "$CC_TMP/stop" ]; do
		b=$((b + 1))
		{
			for i in $(seq 1 20); do
				n=$((b * 20 + i))
				echo "BEGIN;"
				echo "SELECT item_table.put_item('{\"TableName\": \"crashy\", \"Item\": {\"pk\": {\"S\": \"w${w}k$((n % 16))\"}, \"v\": {\"N\": \"$n\"}}}') IS NULL;"
				echo "COMMIT;"
				echo "\\echo A w${w}k$((n % 16)) $n"
			done
		} | "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d sc >>"$CC_TMP/w$w.out" 2>>"$CC_TMP/w$w.err" || sleep 0.2
	done
}
writer 1 & W1=$!
writer 2 & W2=$!

sleep "$LOAD_SECS"
# the worker (it may be between two rounds: wait for it, 120 s at most),
# killed the moment it is seen
wpid=$(await 120 "SELECT pid FROM pg_stat_activity WHERE backend_type = 'item_table worker' AND datname = 'sc'")
[ -n "$wpid" ] || die "no worker running the consumer after $LOAD_SECS + 120 s"
$SUDO kill -KILL "$wpid"
crashed "$wpid" || die "the server log does not show the worker's death by kill -9"
wait_ready 120 || die "the server did not come back after the worker was killed"
# what the consumer had committed when it was killed
before=$(q "SELECT count(*) FROM public.applied")
echo "killed the worker (pid $wpid) after $before records applied"
sleep "$LOAD_SECS"
pm=$($SUDO head -n 1 "$CC_PGDATA/postmaster.pid")
pg_user kill -KILL "$pm"
kill_all
echo "killed the postmaster after $(grep -h -c '^A ' "$CC_TMP"/w*.out | paste -sd+ | bc) acknowledged writes"
pg_start || die "could not restart the cluster"
wait_ready 120 || die "the server did not come back"
sleep 2
: >"$CC_TMP/stop"
wait "$W1" "$W2"

# the worker catches up by itself
caught=0
for i in $(seq 1 600); do
	if [ "$(q "SELECT c.last_sequence_number >= coalesce((SELECT max(seq) FROM item_table.stream_records r
			WHERE r.stream_id = c.stream_id), 0) FROM item_table.stream_consumers c")" = t ]; then
		caught=1
		break
	fi
	sleep 0.2
done
[ "$caught" = 1 ] || die "the consumer did not catch up in 120 s: $(q "SELECT status, last_error FROM item_table.stream_consumers")"

grep -h '^A ' "$CC_TMP"/w*.out | awk '{print $2 "\t" $3}' >"$CC_TMP/acked.tsv"
psql -c "CREATE TABLE acked (pk text, v int)" -c "\\copy acked FROM '$CC_TMP/acked.tsv'" || die "acked"
psql -At >"$CC_TMP/check.out" <<'SQL' || die "the checks failed to run"

SELECT 'acknowledged writes: ' || count(*) FROM acked;
SELECT 'stream records: ' || count(*) FROM item_table.stream_records;
SELECT 'records applied by the consumer: ' || count(*) FROM public.applied;
SELECT 'consumer: ' || status || ', ' || failures || ' failures, ' || batches_done || ' batches' FROM item_table.stream_consumers;
SELECT 'PROBLEM missing from the stream: ' || a.pk || ' v=' || a.v FROM acked a
WHERE NOT EXISTS (SELECT FROM item_table.stream_records r WHERE r.new_image->'pk'->>'S' = a.pk
	AND (r.new_image->'v'->>'N')::int = a.v);
SELECT 'PROBLEM two records of ' || (new_image->'pk'->>'S') || ' v=' || (new_image->'v'->>'N')
FROM item_table.stream_records GROUP BY new_image->'pk'->>'S', new_image->'v'->>'N' HAVING count(*) > 1;
SELECT 'PROBLEM out of order: ' || pk || ' v=' || v || ' numbered after v=' || prev FROM (
	SELECT new_image->'pk'->>'S' AS pk, (new_image->'v'->>'N')::int AS v,
		lag((new_image->'v'->>'N')::int) OVER (PARTITION BY new_image->'pk'->>'S' ORDER BY seq) AS prev
	FROM item_table.stream_records) x
WHERE v <= prev;
SELECT 'PROBLEM applied twice: ' || seq FROM public.applied GROUP BY seq HAVING count(*) > 1;
SELECT 'PROBLEM not applied: ' || r.seq FROM item_table.stream_records r
WHERE NOT EXISTS (SELECT FROM public.applied a WHERE a.seq = r.seq);
SELECT 'PROBLEM applied but not in the stream: ' || a.seq FROM public.applied a
WHERE NOT EXISTS (SELECT FROM item_table.stream_records r WHERE r.seq = a.seq);
SELECT 'PROBLEM consumer failed: ' || coalesce(last_error, status) FROM item_table.stream_consumers
WHERE failures > 0 OR status <> 'ACTIVE';
SQL
[ -s "$CC_TMP/check.out" ] || die "the checks failed to run"
grep -v PROBLEM "$CC_TMP/check.out"
if grep -q PROBLEM "$CC_TMP/check.out"; then
	grep PROBLEM "$CC_TMP/check.out" | head -20
	die "$(grep -c PROBLEM "$CC_TMP/check.out") problem(s)"
fi
echo "ok: no committed change missing from the stream, no consumer batch applied twice"
