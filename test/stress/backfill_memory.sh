#!/usr/bin/env bash
# Backfill memory: CALL item_table.backfill_indexes on BACKFILL_ITEMS items
# (default 50,000) of about 2 kB must run in bounded backend memory.  A GSI
# is added with UpdateTable (status CREATING); one psql session warms up,
# reports its backend pid and runs the backfill, while this script samples
# that backend's /proc/<pid>/status every 0.2 s.
#
# The bound is on private memory (RssAnon): VmRSS also counts the pages of
# shared_buffers the backend touches, which grow with the table read and
# the index written whatever the backfill allocates.  Both are printed.
# The test fails when the peak RssAnon exceeds the value before the
# backfill by more than BACKFILL_MAX_GROWTH_KB (default 32 MB: the backfill
# needs about 1 MB here, an unbounded one grew by 700 MB), or when the
# index is not complete and consistent (verify()) afterwards.
set -euo pipefail
DB=item_table_stress_backfill_mem
ITEMS=${BACKFILL_ITEMS:-50000}
MAX_GROWTH_KB=${BACKFILL_MAX_GROWTH_KB:-32768}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/backfill_mem.XXXXXX")
chmod 755 "$TMP"
sampler=""
session=""
# shellcheck disable=SC2317  # called by the trap
cleanup() {
	if [ -n "$sampler" ]; then kill "$sampler" 2>/dev/null || true; fi
	if [ -n "$session" ]; then kill "$session" 2>/dev/null || true; fi
	rm -rf "$TMP"
}
trap cleanup EXIT
"$PGBIN/dropdb" --if-exists "$DB"
"$PGBIN/createdb" "$DB"
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }

start=$(date +%s.%N)
psql -v items="$ITEMS" <<'SQL'
CREATE EXTENSION item_table;
SELECT item_table.create_table('{"TableName": "docs", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
-- about 2 kB of hex digits per item, hardly compressible
INSERT INTO item_data.docs
SELECT item_table.item_key(jsonb_build_object('S', 'DOC#' || g)),
	   jsonb_build_object('pk', jsonb_build_object('S', 'DOC#' || g),
		   'owner', jsonb_build_object('S', 'USER#' || (g % 500)),
		   'body', jsonb_build_object('S', (SELECT string_agg(md5(g::text || ':' || i), '')
											  FROM generate_series(1, 62) i)))
FROM generate_series(1, :items) g;
ANALYZE item_data.docs;
SET item_table.index_backfill = manual;	-- the procedure is measured here
SELECT item_table.update_table('{"TableName": "docs",
	"AttributeDefinitions": [{"AttributeName": "owner", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_owner",
		"KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}}]}')
	->'TableDescription'->'GlobalSecondaryIndexes'->0->>'IndexStatus' AS status_after_update_table;
SQL
psql -At -c "SELECT 'loaded ' || count(*) || ' items, ' || pg_size_pretty(pg_total_relation_size('item_data.docs')) FROM item_data.docs"

# The session: load the library and warm the caches (an API read),
# report the pid, wait until the sampler has its baseline (the first
# sample; 60 s at most), then backfill.
cat >"$TMP/session.sql" <<SQL
SELECT item_table.describe_table('{"TableName": "docs"}') IS NOT NULL AS warm;
SELECT item_table.get_item('{"TableName": "docs", "Key": {"pk": {"S": "DOC#1"}}}') ? 'Item' AS warm;
SELECT pg_backend_pid() \g $TMP/pid
\! n=0; while [ ! -s "$TMP/samples" ] && [ \$n -lt 600 ]; do sleep 0.1; n=\$((n + 1)); done
CALL item_table.backfill_indexes('docs', 1000);
SQL
psql -At -f "$TMP/session.sql" >"$TMP/session.out" 2>&1 &
session=$!

# sample: RssAnon and VmRSS (kB) of the session's backend until it is done
for _ in $(seq 1 600); do
	[ -s "$TMP/pid" ] && break
	sleep 0.1
done
pid=$(tr -dc '0-9' <"$TMP/pid")
[ -n "$pid" ] || { echo "no backend pid"; cat "$TMP/session.out"; exit 1; }
(
	while kill -0 "$session" 2>/dev/null && [ -r "/proc/$pid/status" ]; do
		awk '/^RssAnon:/ { a = $2 } /^VmRSS:/ { r = $2 } END { if (a != "") print a, r }' \
			"/proc/$pid/status" 2>/dev/null || true
		sleep 0.2
	done
) >"$TMP/samples" &
sampler=$!
if ! wait "$session"; then
	session=""
	echo "backfill session failed:"
	cat "$TMP/session.out"
	exit 1
fi
session=""
wait "$sampler" || true
sampler=""
end=$(date +%s.%N)
grep -E 'NOTICE:  index|NOTICE:  backfilling.* \(100%\)' "$TMP/session.out" | sed 's/^psql:[^ ]* //' || true

read -r base_anon base_rss < <(awk 'NR == 1 { print $1, $2 } END { if (NR == 0) print 0, 0 }' "$TMP/samples")
read -r peak_anon peak_rss < <(awk '$1 > a { a = $1 } $2 > r { r = $2 } END { print a + 0, r + 0 }' "$TMP/samples")
nsamples=$(wc -l <"$TMP/samples")
growth=$((peak_anon - base_anon))
mb() { awk -v k="$1" 'BEGIN { printf "%.1f MB", k / 1024 }'; }
echo "backend $pid, $nsamples samples: RssAnon $(mb "$base_anon") before, peak $(mb "$peak_anon") (+$(mb "$growth"), bound +$(mb "$MAX_GROWTH_KB")); VmRSS $(mb "$base_rss") before, peak $(mb "$peak_rss")"

status=$(psql -At -c "SELECT item_table.describe_table('{\"TableName\": \"docs\"}')->'Table'->'GlobalSecondaryIndexes'->0->>'IndexStatus'")
indexed=$(psql -At -c 'SELECT count(*) FROM item_data."docs#by_owner"')
problems=$(psql -At -c "SELECT count(*) FROM item_table.verify('docs')")
echo "status after backfill: $status; index rows: $indexed; verify: $problems problem(s); $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"
"$PGBIN/dropdb" "$DB"

fail=0
if [ "$nsamples" -lt 3 ]; then
	echo "FAIL: too few samples to judge"; fail=1
fi
if [ "$growth" -gt "$MAX_GROWTH_KB" ]; then
	echo "FAIL: backend memory grew by $(mb "$growth") during the backfill"; fail=1
fi
if [ "$status" != "ACTIVE" ] || [ "$indexed" -ne "$ITEMS" ] || [ "$problems" -ne 0 ]; then
	echo "FAIL: the index is not complete and consistent"; fail=1
fi
exit "$fail"
