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
# the stream; no (key, v) has two records; the consumer logged every record
# of the stream exactly once, and it never failed.
#
#   STREAM_CRASH_SECONDS=10 bash test/stress/streams_crash.sh
set -uo pipefail

SC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$SC_ROOT/scripts/lib.sh"

LOAD_SECS=${STREAM_CRASH_SECONDS:-4}
SC_TMP=""
SC_PGDATA=""
SC_DONE=0

die() { echo "FAILED: $*"; exit 1; }

it_need_root || exit 1
if [ -z "${PGBIN:-}" ]; then
	it_pg_env || exit 1
fi

pg_user() { it_as_postgres "$@"; }
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d sc "$@"; }
q() { "$PGBIN/psql" -X -q -At -d sc -c "$1" 2>/dev/null; }

cluster_pids() {
	# shellcheck disable=SC2016  # expanded by the inner shell
	pg_user bash -c 'for p in /proc/[0-9]*; do
		[ "$(readlink "$p/cwd" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"
	done; true' _ "$SC_PGDATA"
}

kill_all() {
	local p i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		p=$(cluster_pids)
		[ -z "$p" ] && break
		# shellcheck disable=SC2086
		pg_user kill -KILL $p 2>/dev/null || true
		sleep 0.3
	done
	$SUDO rm -f "$SC_PGDATA/postmaster.pid" "$SC_TMP/pg/.s.PGSQL.$PGPORT.lock"
}

wait_ready() {
	local i
	for i in $(seq 1 $((${1:-60} * 5))); do
		"$PGBIN/pg_isready" -q -t 2 >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}

pg_start() {
	pg_user "$PGBIN/pg_ctl" -D "$SC_PGDATA" -l "$SC_TMP/pg/server.log" -w -t 60 start \
		>>"$SC_TMP/pg_ctl.log" 2>&1
}

cleanup() {
	local rc=$?
	[ "$SC_DONE" = 1 ] && return
	SC_DONE=1
	[ -n "$SC_TMP" ] && : >"$SC_TMP/stop"
	sleep 0.5
	if [ -n "$SC_PGDATA" ] && $SUDO test -d "$SC_PGDATA"; then
		pg_user "$PGBIN/pg_ctl" -D "$SC_PGDATA" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
		kill_all
	fi
	if [ "$rc" -ne 0 ] && [ -n "$SC_TMP" ]; then
		echo "---- server log (last 40 lines) ----"
		$SUDO tail -n 40 "$SC_TMP/pg/server.log" 2>/dev/null
	fi
	[ -n "$SC_TMP" ] && $SUDO rm -rf -- "$SC_TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

SC_TMP=$(mktemp -d /tmp/item_table_streamcrash.XXXXXX) || die "mktemp"
chmod 755 "$SC_TMP"
{ mkdir "$SC_TMP/pg" && $SUDO chown postgres: "$SC_TMP/pg"; } || die "cannot prepare the cluster dir"
SC_PGDATA=$(realpath "$SC_TMP/pg")/data
pg_user "$PGBIN/initdb" -D "$SC_PGDATA" --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
	-U postgres >"$SC_TMP/initdb.log" 2>&1 || { cat "$SC_TMP/initdb.log"; die "initdb"; }
PORT=$(IT_TMP=$SC_TMP/pg it_pick_port) || die "no free port"
pg_user tee -a "$SC_PGDATA/postgresql.conf" >/dev/null <<EOF
listen_addresses = ''
unix_socket_directories = '$SC_TMP/pg'
port = $PORT
shared_buffers = 128MB
max_connections = 20
shared_preload_libraries = 'item_table'
item_table.worker_naptime = 1
restart_after_crash = on
EOF
unset PGHOSTADDR PGSERVICE PGOPTIONS PGDATABASE
export PGHOST="$SC_TMP/pg" PGPORT="$PORT" PGUSER=postgres
pg_start || { cat "$SC_TMP/pg_ctl.log"; die "could not start the cluster"; }
"$PGBIN/createdb" sc || die "createdb"


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
	while [ ! -e "$SC_TMP/stop" ]; do
		b=$((b + 1))
		{
			for i in $(seq 1 20); do
				n=$((b * 20 + i))
				echo "BEGIN;"
				echo "SELECT item_table.put_item('{\"TableName\": \"crashy\", \"Item\": {\"pk\": {\"S\": \"w${w}k$((n % 16))\"}, \"v\": {\"N\": \"$n\"}}}') IS NULL;"
				echo "COMMIT;"
				echo "\\echo A w${w}k$((n % 16)) $n"
			done
		} | "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d sc >>"$SC_TMP/w$w.out" 2>>"$SC_TMP/w$w.err" || sleep 0.2
	done
}
writer 1 & W1=$!
writer 2 & W2=$!

sleep "$LOAD_SECS"
wpid=$(q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'item_table worker' AND datname = 'sc'")
before=$(q "SELECT count(*) FROM public.applied")
[ -n "$wpid" ] || die "no worker running the consumer after $LOAD_SECS s"
pg_user kill -KILL "$wpid"
echo "killed the worker (pid $wpid) after $before records applied"
wait_ready 60 || die "the server did not come back after the worker was killed"
sleep "$LOAD_SECS"
pm=$($SUDO head -n 1 "$SC_PGDATA/postmaster.pid")
pg_user kill -KILL "$pm"
kill_all
echo "killed the postmaster after $(grep -h -c '^A ' "$SC_TMP"/w*.out | paste -sd+ | bc) acknowledged writes"
pg_start || die "could not restart the cluster"
wait_ready 60 || die "the server did not come back"
sleep 2
: >"$SC_TMP/stop"
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

grep -h '^A ' "$SC_TMP"/w*.out | awk '{print $2 "\t" $3}' >"$SC_TMP/acked.tsv"
psql -c "CREATE TABLE acked (pk text, v int)" -c "\\copy acked FROM '$SC_TMP/acked.tsv'" || die "acked"
psql -At >"$SC_TMP/check.out" <<'SQL' || die "the checks failed to run"

SELECT 'acknowledged writes: ' || count(*) FROM acked;
SELECT 'stream records: ' || count(*) FROM item_table.stream_records;
SELECT 'records applied by the consumer: ' || count(*) FROM public.applied;
SELECT 'consumer: ' || status || ', ' || failures || ' failures, ' || batches_done || ' batches' FROM item_table.stream_consumers;
SELECT 'PROBLEM missing from the stream: ' || a.pk || ' v=' || a.v FROM acked a
WHERE NOT EXISTS (SELECT FROM item_table.stream_records r WHERE r.new_image->'pk'->>'S' = a.pk
	AND (r.new_image->'v'->>'N')::int = a.v);
SELECT 'PROBLEM two records of ' || (new_image->'pk'->>'S') || ' v=' || (new_image->'v'->>'N')
FROM item_table.stream_records GROUP BY new_image->'pk'->>'S', new_image->'v'->>'N' HAVING count(*) > 1;
SELECT 'PROBLEM applied twice: ' || seq FROM public.applied GROUP BY seq HAVING count(*) > 1;
SELECT 'PROBLEM not applied: ' || r.seq FROM item_table.stream_records r
WHERE NOT EXISTS (SELECT FROM public.applied a WHERE a.seq = r.seq);
SELECT 'PROBLEM applied but not in the stream: ' || a.seq FROM public.applied a
WHERE NOT EXISTS (SELECT FROM item_table.stream_records r WHERE r.seq = a.seq);
SELECT 'PROBLEM consumer failed: ' || coalesce(last_error, status) FROM item_table.stream_consumers
WHERE failures > 0 OR status <> 'ACTIVE';
SQL
[ -s "$SC_TMP/check.out" ] || die "the checks failed to run"
grep -v PROBLEM "$SC_TMP/check.out"
if grep -q PROBLEM "$SC_TMP/check.out"; then
	grep PROBLEM "$SC_TMP/check.out" | head -20
	die "$(grep -c PROBLEM "$SC_TMP/check.out") problem(s)"
fi
echo "ok: no committed change missing from the stream, no consumer batch applied twice"
