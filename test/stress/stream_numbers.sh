#!/usr/bin/env bash
# Stream records' sequence numbers across the library's two modes and a
# crash (src/storage/stream_number.c).  Its own throw-away cluster, first WITHOUT
# shared_preload_libraries: two writers interleave 150 PutItems each on
# their own keys; every record took a nextval, so the numbers are 1 modulo
# the sequence's increment (100), and they are distinct.  Then the
# library is preloaded (ALTER SYSTEM, restart): the numbers come from the
# counter in shared memory, all above those handed out before, and a
# writer alone gets consecutive ones.  Then kill -9 of the postmaster in
# the middle of a write load and a restart: the numbers go on above every
# number handed out before the crash.  Throughout, each key's records are
# numbered in the order its writer wrote them, and stream_records() reads
# every record exactly once.
set -uo pipefail

SN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$SN_ROOT/scripts/lib.sh"

CC_DB=sn
CC_TAG=streamnumbers
CC_CONF="shared_preload_libraries = ''"
# shellcheck source=test/stress/include/crash_cluster.sh
. "$SN_ROOT/test/stress/include/crash_cluster.sh"
cc_start

[ "$(q "SHOW shared_preload_libraries")" = "" ] || die "the cluster was meant to start without the preload"
psql <<'SQL' >/dev/null || die "setup"
SET client_min_messages = warning;
CREATE EXTENSION item_table;
SELECT item_table.create_table('{"TableName": "nums", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}');
SQL

# writer W FIRST LAST: PutItems v = FIRST..LAST on keys W-k0..W-k4, one
# transaction each
writer() {
	local w=$1 i
	for ((i = $2; i <= $3; i++)); do
		echo "SELECT item_table.put_item('{\"TableName\": \"nums\", \"Item\": {\"pk\": {\"S\": \"$w-k$((i % 5))\"}, \"v\": {\"N\": \"$i\"}}}') IS NULL;"
	done | "$PGBIN/psql" -X -q -At -d sn >/dev/null 2>>"$CC_TMP/writer.err"
}

# the checks on every record so far; prints PROBLEM lines
check() {
	psql -At <<'SQL'
SELECT 'PROBLEM out of order: ' || pk || ' v=' || v || ' numbered after v=' || prev FROM (
	SELECT new_image->'pk'->>'S' AS pk, (new_image->'v'->>'N')::int AS v,
		lag((new_image->'v'->>'N')::int) OVER (PARTITION BY new_image->'pk'->>'S' ORDER BY seq) AS prev
	FROM item_table.stream_records) x
WHERE v <= prev;
SELECT 'PROBLEM number used twice: ' || seq FROM item_table.stream_records GROUP BY seq HAVING count(*) > 1;
CREATE OR REPLACE FUNCTION pg_temp.read_all() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE pos bigint; n bigint := 0; page bigint; top bigint;
BEGIN
	LOOP
		SELECT count(*), max(sequence_number) INTO page, top
			FROM item_table.stream_records('nums', pos, 1000);
		EXIT WHEN page = 0;
		IF top <= pos THEN RAISE EXCEPTION 'stream_records() went back'; END IF;
		n := n + page;
		pos := top;
	END LOOP;
	RETURN n;
END $$;
SELECT 'PROBLEM stream_records() read ' || pg_temp.read_all() || ' of ' || count(*) || ' records'
FROM item_table.stream_records
HAVING count(*) <> pg_temp.read_all();
SQL
}
problems() {
	local out
	out=$(check) || die "the checks failed to run"
	if [ -n "$out" ]; then
		echo "$out" | head -20
		die "$1: $(echo "$out" | grep -c PROBLEM) problem(s)"
	fi
}

# 1. without the preload: a nextval per record
writer a 1 150 & A=$!
writer b 1 150 & B=$!
wait "$A" "$B"
[ "$(q "SELECT count(*) FROM item_table.stream_records")" = 300 ] || die "expected 300 records without the preload, got $(q "SELECT count(*) FROM item_table.stream_records")"
[ "$(q "SELECT count(*) FROM item_table.stream_records WHERE seq % 100 <> 1")" = 0 ] ||
	die "without the preload every number should be a nextval (1 modulo 100): $(q "SELECT string_agg(seq::text, ' ') FROM (SELECT seq FROM item_table.stream_records ORDER BY seq LIMIT 10) s")"
problems "without the preload"
top1=$(q "SELECT max(seq) FROM item_table.stream_records")
echo "without the preload: 300 records, every number a nextval, the highest $top1"

# 2. preloaded: the shared counter
q "ALTER SYSTEM SET shared_preload_libraries = 'item_table'" >/dev/null
pg_user "$PGBIN/pg_ctl" -D "$CC_PGDATA" -w -t 60 stop >>"$CC_TMP/pg_ctl.log" 2>&1 || die "stop"
pg_start || die "could not restart with the preload"
[ "$(q "SHOW shared_preload_libraries")" = item_table ] || die "the preload did not take"
writer a 151 250
[ "$(q "SELECT count(*) FROM item_table.stream_records WHERE seq > $top1")" = 100 ] ||
	die "with the preload the numbers should go on above $top1"
[ "$(q "SELECT max(seq) - min(seq) FROM item_table.stream_records WHERE seq > $top1")" = 99 ] ||
	die "one writer alone should get consecutive numbers from the counter: $(q "SELECT min(seq) || '..' || max(seq) FROM item_table.stream_records WHERE seq > $top1")"
problems "with the preload"
top2=$(q "SELECT max(seq) FROM item_table.stream_records")
echo "with the preload: 100 more records numbered consecutively above $top1, up to $top2"

# 3. kill -9 in the middle of a write load, restart, write again
writer a 251 30000 & A=$!
writer b 151 30000 & B=$!
# in the middle of the load: once both writers have committed records (120
# s at most; they have tens of thousands to go)
[ "$(await 120 "SELECT CASE WHEN count(DISTINCT new_image->'pk'->>'S' LIKE 'a-%') = 2 AND count(*) >= 100 THEN 'writing' END
	FROM item_table.stream_records WHERE seq > $top2")" = writing ] ||
	die "the two writers did not write within 120 s"
pm=$($SUDO head -n 1 "$CC_PGDATA/postmaster.pid")
pg_user kill -KILL "$pm"
kill_all
wait "$A" "$B" 2>/dev/null
pg_start || die "could not restart after the crash"
wait_ready 120 || die "the server did not come back"
top3=$(q "SELECT max(seq) FROM item_table.stream_records")
writer a 30001 30100 & A=$!
writer b 30001 30100 & B=$!
wait "$A" "$B"
[ "$(q "SELECT count(*) FROM item_table.stream_records WHERE seq > $top3")" = 200 ] ||
	die "after the crash the numbers should go on above $top3: $(q "SELECT count(*) FROM item_table.stream_records WHERE seq > $top3") of 200 records above it"
problems "after the crash"
echo "after kill -9 of the postmaster: $(q "SELECT count(*) FROM item_table.stream_records") records, the 200 written after the restart numbered above $top3"
echo "ok: numbers distinct and in each item's order in both modes and across the crash"
