#!/usr/bin/env bash
# The time limit of background work (item_table.batch_timeout), with the
# worker running and real time: before it, one stream consumer that slept
# or waited on a lock held the database's worker for as long as it liked,
# and Time to Live, every other consumer and remove_stream_consumer waited.
#
# Starts its own throw-away cluster (item_table preloaded, naptime 1 s,
# batch_timeout 1 s).  Consumers, called in name order in each round:
#   a_sleeper  (role ct_slow, max_failures 3) sleeps 60 s on every batch;
#   b_sleeper  (ct_slow, max_failures 100)    the same, removed while it runs
#                                             (first, before a_sleeper);
#   c_locker   (ct_lock, max_failures 2)      updates a row another session
#                                             holds for 40 s;
#   d_catcher  (ct_slow, max_failures 2)      catches every cancellation and
#                                             goes on sleeping;
#   x_leaky    (ct_fast)                      set_config('work_mem', ..., false);
#   z_fast     (ct_fast)                      notes when it got each record
#                                             and the work_mem it saw.
# Checks: while a_sleeper sleeps, z_fast gets a record and an expired item
# is deleted within the limit plus slack; a_sleeper is timed out, each
# time counted as a failure, and parked after max_failures with the reason;
# remove_stream_consumer on b_sleeper returns while its batch runs, within
# the limit plus slack; c_locker's lock wait is timed out and it is parked;
# d_catcher, which ignores its cancellation, ends the worker's process at
# twice the limit and is parked after max_failures such batches, z_fast
# going on meanwhile; z_fast never sees x_leaky's work_mem.
#
#   bash test/stress/consumer_timeout.sh
set -uo pipefail

CT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$CT_ROOT/scripts/lib.sh"

LIMIT_MS=1000
SLACK_MS=${CT_SLACK_MS:-10000}	# a worker restart (naptime 1 s) and a loaded machine; the sleepers sleep 60 s
CC_DB=ct
CC_TAG=consumertimeout
CC_CONF="item_table.batch_timeout = '${LIMIT_MS}ms'"
# shellcheck source=test/stress/include/crash_cluster.sh
. "$CT_ROOT/test/stress/include/crash_cluster.sh"
cc_start

PROBLEMS=0
problem() { echo "PROBLEM: $*"; PROBLEMS=$((PROBLEMS + 1)); }
now_ms() { date +%s%3N; }
# wait_for SECONDS SQL: until SQL returns t; 0 if it did
wait_for() {
	local end=$(($(now_ms) + $1 * 1000))
	while [ "$(now_ms)" -lt "$end" ]; do
		[ "$(q "$2")" = t ] && return 0
		sleep 0.1
	done
	return 1
}
consumer() { q "SELECT status || ' failures=' || failures || ' ' || coalesce(last_error, '') FROM item_table.stream_consumers WHERE consumer_name = '$1'"; }

psql <<'SQL' >/dev/null || die "setup"
SET client_min_messages = warning;
CREATE EXTENSION item_table;
SELECT item_table.create_table('{"TableName": "ct_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}');
SELECT item_table.create_table('{"TableName": "ct_ttl", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}');
SELECT item_table.update_time_to_live('{"TableName": "ct_ttl",
	"TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}');
CREATE ROLE ct_slow;
CREATE ROLE ct_lock;
CREATE ROLE ct_fast;
GRANT SELECT ON item_data.ct_t TO ct_slow, ct_lock, ct_fast;
CREATE TABLE public.got (consumer text, seq bigint, at timestamptz DEFAULT clock_timestamp(), wm text);
GRANT INSERT ON public.got TO ct_fast;
CREATE TABLE public.locked (id int PRIMARY KEY, n int);
INSERT INTO public.locked VALUES (1, 0);
GRANT SELECT, UPDATE ON public.locked TO ct_lock;
CREATE FUNCTION public.sleeper(records jsonb) RETURNS void LANGUAGE sql AS 'SELECT pg_catalog.pg_sleep(60)';
CREATE FUNCTION public.locker(records jsonb) RETURNS void LANGUAGE sql AS
	'UPDATE public.locked SET n = n OPERATOR(pg_catalog.+) 1 WHERE id OPERATOR(pg_catalog.=) 1';
CREATE FUNCTION public.catcher(records jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..600 LOOP
		BEGIN
			PERFORM pg_catalog.pg_sleep(0.1);
		EXCEPTION WHEN query_canceled THEN
			NULL;
		END;
	END LOOP;
END $$;
CREATE FUNCTION public.leaky(records jsonb) RETURNS void LANGUAGE sql AS
	$$SELECT pg_catalog.set_config('work_mem', '1234kB', false)$$;
CREATE FUNCTION public.fast(records jsonb) RETURNS void LANGUAGE sql AS $$
	INSERT INTO public.got (consumer, seq, wm)
	SELECT 'fast', (r OPERATOR(pg_catalog.->) 'dynamodb' OPERATOR(pg_catalog.->>) 'SequenceNumber')::pg_catalog.int8,
		pg_catalog.current_setting('work_mem')
	FROM pg_catalog.jsonb_array_elements(records) r $$;
SET ROLE ct_fast;
SELECT item_table.add_stream_consumer('ct_t', 'public.leaky(jsonb)', 'x_leaky');
SELECT item_table.add_stream_consumer('ct_t', 'public.fast(jsonb)', 'z_fast');
RESET ROLE;
SQL

put() { q "SELECT item_table.put_item('{\"TableName\": \"ct_t\", \"Item\": {\"pk\": {\"S\": \"$1\"}}}') IS NOT NULL"; }
last_seq() { q "SELECT max(seq) FROM item_table.stream_records"; }
# fast_within MS: z_fast got the latest record within MS of now
fast_within() {
	local seq t0
	seq=$(last_seq)
	t0=$(now_ms)
	if wait_for $((($1 + 999) / 1000 + 5)) "SELECT EXISTS (SELECT FROM public.got WHERE seq = $seq)"; then
		local took=$(($(now_ms) - t0))
		[ "$took" -le "$1" ] || problem "$2: z_fast got its record after $took ms (limit + slack $1 ms)"
		echo "$2: z_fast got its record after $took ms"
	else
		problem "$2: z_fast did not get its record"
	fi
}

# ---- b_sleeper: removed while its batch runs ----
psql -c "SET ROLE ct_slow" -c "SELECT item_table.add_stream_consumer('ct_t', 'public.sleeper(jsonb)', 'b_sleeper', max_failures => 100)" >/dev/null || die "b_sleeper"
put zero >/dev/null
if wait_for 10 "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'item_table worker'
		AND query = 'item_table: stream consumer \"b_sleeper\"' AND wait_event = 'PgSleep')"; then
	t0=$(now_ms)
	out=$(PGOPTIONS="-c statement_timeout=20s" "$PGBIN/psql" -X -q -At -d ct -c "SET ROLE ct_slow" \
		-c "SELECT item_table.remove_stream_consumer('b_sleeper')" 2>&1)
	took=$(($(now_ms) - t0))
	echo "remove_stream_consumer while b_sleeper's batch ran: $out after $took ms"
	[ "$out" = t ] || problem "remove_stream_consumer failed: $out"
	[ "$took" -le $((LIMIT_MS + 1500)) ] || problem "remove_stream_consumer took $took ms (limit $LIMIT_MS ms)"
else
	problem "b_sleeper's batch never ran"
fi


# ---- a_sleeper: timed out, counted, parked; others go on meanwhile ----
psql -c "SET ROLE ct_slow" -c "SELECT item_table.add_stream_consumer('ct_t', 'public.sleeper(jsonb)', 'a_sleeper', max_failures => 3, start_at => 'LATEST')" >/dev/null || die "a_sleeper"
put one >/dev/null
sleep 0.5					# a_sleeper's first batch is running
q "SELECT item_table.put_item('{\"TableName\": \"ct_ttl\", \"Item\": {\"pk\": {\"S\": \"old\"}, \"exp\": {\"N\": \"$(($(date +%s) - 10))\"}}}') IS NOT NULL" >/dev/null
put two >/dev/null
t0=$(now_ms)
fast_within $((LIMIT_MS + SLACK_MS)) "while a_sleeper sleeps"
if wait_for $(((LIMIT_MS + SLACK_MS) / 1000)) "SELECT NOT EXISTS (SELECT FROM item_data.ct_ttl)"; then
	echo "while a_sleeper sleeps: the expired item was deleted after $(($(now_ms) - t0)) ms"
else
	problem "while a_sleeper sleeps: the expired item was not deleted within $((LIMIT_MS + SLACK_MS)) ms"
fi
if wait_for $((3 * (LIMIT_MS + SLACK_MS) / 1000)) "SELECT status = 'PARKED' FROM item_table.stream_consumers WHERE consumer_name = 'a_sleeper'"; then
	echo "a_sleeper: $(consumer a_sleeper)"
	[ "$(q "SELECT failures = 3 AND last_error LIKE '%item_table.batch_timeout%' FROM item_table.stream_consumers WHERE consumer_name = 'a_sleeper'")" = t ] ||
		problem "a_sleeper parked without 3 timeouts counted: $(consumer a_sleeper)"
else
	problem "a_sleeper was not parked after 3 timeouts: $(consumer a_sleeper)"
fi

# ---- c_locker: a lock wait is timed out ----
PGAPPNAME=ct_holder "$PGBIN/psql" -X -q -d ct -c "BEGIN" -c "SELECT n FROM public.locked WHERE id = 1 FOR UPDATE" \
	-c "SELECT pg_sleep(40)" -c "COMMIT" >/dev/null 2>&1 &
HOLDER=$!
sleep 0.5
psql -c "SET ROLE ct_lock" -c "SELECT item_table.add_stream_consumer('ct_t', 'public.locker(jsonb)', 'c_locker', max_failures => 2, start_at => 'LATEST')" >/dev/null || die "c_locker"
put four >/dev/null
t0=$(now_ms)
if wait_for $((2 * (LIMIT_MS + SLACK_MS) / 1000)) "SELECT status = 'PARKED' FROM item_table.stream_consumers WHERE consumer_name = 'c_locker'"; then
	echo "c_locker: parked after $(($(now_ms) - t0)) ms: $(consumer c_locker)"
	[ "$(q "SELECT failures = 2 AND last_error LIKE '%item_table.batch_timeout%' FROM item_table.stream_consumers WHERE consumer_name = 'c_locker'")" = t ] ||
		problem "c_locker parked without 2 timeouts: $(consumer c_locker)"
else
	problem "c_locker waiting on a row lock was not timed out and parked: $(consumer c_locker)"
fi
[ "$(q "SELECT n FROM public.locked")" = 0 ] || problem "c_locker's update went through"
# (its open transaction holds back every consumer's records: end it)
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'ct_holder'" >/dev/null
wait "$HOLDER" 2>/dev/null

# ---- d_catcher: ignores its cancellation ----
psql -c "SET ROLE ct_slow" -c "SELECT item_table.add_stream_consumer('ct_t', 'public.catcher(jsonb)', 'd_catcher', max_failures => 2, start_at => 'LATEST')" >/dev/null || die "d_catcher"
put five >/dev/null
sleep 0.5
put six >/dev/null
fast_within $((2 * LIMIT_MS + SLACK_MS)) "while d_catcher ignores its cancellation"
sleep 0.5
put six_b >/dev/null
fast_within $((2 * LIMIT_MS + SLACK_MS)) "while d_catcher ignores its cancellation, after the worker it ended"
t0=$(now_ms)
if wait_for $((4 * (2 * LIMIT_MS + SLACK_MS) / 1000)) "SELECT status = 'PARKED' FROM item_table.stream_consumers WHERE consumer_name = 'd_catcher'"; then
	echo "d_catcher: parked after $(($(now_ms) - t0)) ms more: $(consumer d_catcher)"
else
	problem "d_catcher was not parked: $(consumer d_catcher)"
fi
put seven >/dev/null
fast_within $((LIMIT_MS + SLACK_MS)) "after d_catcher"

# ---- settings ----
wm=$(q "SELECT string_agg(DISTINCT wm, ',') FROM public.got")
echo "work_mem seen by z_fast: $wm"
[ "$wm" = 4MB ] || problem "z_fast saw work_mem $wm after x_leaky set it"
[ "$(q "SELECT count(*) FROM public.got")" = 8 ] || problem "z_fast got $(q "SELECT count(*) FROM public.got") records, not 8"

if [ "$PROBLEMS" -gt 0 ]; then
	die "$PROBLEMS problem(s)"
fi
echo "ok: every unit of background work that runs user code is held to item_table.batch_timeout"
