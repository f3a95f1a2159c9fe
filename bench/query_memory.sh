#!/usr/bin/env bash
# Peak backend memory of Query, Scan and item_collection() over one large
# item collection.
#
#   bash bench/query_memory.sh
#
# Builds and installs the extension, starts a throw-away cluster (as
# bench/run.sh does), loads one item collection of MEM_ITEMS items
# (default 100,000) of about MEM_ITEM_BYTES bytes (default 1,000), then, for
# each statement below, in a fresh session: reads the collection once so its
# pages are mapped, notes the backend's peak resident size (VmHWM in
# /proc/self/status), runs the statement and reports how much the peak grew.
# A Query reads one page (at most 1 MB of items) whatever the size of the
# collection, so its growth must stay near the size of one page; the last
# statement (jsonb_agg over the whole collection) shows what an unbounded
# read costs.  Results go to bench/results/query_memory.txt.
set -euo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$IT_ROOT"
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"

MEM_ITEMS=${MEM_ITEMS:-100000}
MEM_ITEM_BYTES=${MEM_ITEM_BYTES:-1000}
DB=item_table_mem
RESULTS=bench/results
mkdir -p "$RESULTS"

it_need_root || it_die "root or sudo is required"
it_install_deps || it_die "dependency installation failed"
it_pg_env || it_die "PostgreSQL tools not found"
it_build_install || it_die "build failed"
it_start_cluster || it_die "could not start a PostgreSQL cluster"

psql_q() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }

"$PGBIN/createdb" "$DB"
it_say "loading one item collection of $MEM_ITEMS items of ~$MEM_ITEM_BYTES bytes"
psql_q -v items="$MEM_ITEMS" -v bytes="$MEM_ITEM_BYTES" <<'SQL' 2>&1 | tail -n 5
CREATE EXTENSION item_table;
SELECT item_table.create_table('{"TableName": "mem", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
INSERT INTO item_data.mem (key, item)
SELECT item_table.item_key('{"S": "big"}', jsonb_build_object('N', g::text)),
	   jsonb_build_object('pk', '{"S": "big"}'::jsonb, 'sk', jsonb_build_object('N', g::text),
						  'd', jsonb_build_object('S', md5(g::text) || repeat('x', :bytes - 50)))
FROM generate_series(1, :items) g;
-- a small neighbour partition
INSERT INTO item_data.mem (key, item)
SELECT item_table.item_key('{"S": "small"}', jsonb_build_object('N', g::text)),
	   jsonb_build_object('pk', '{"S": "small"}'::jsonb, 'sk', jsonb_build_object('N', g::text))
FROM generate_series(1, 10) g;
VACUUM ANALYZE item_data.mem;
CREATE FUNCTION mem_kb(field text) RETURNS bigint LANGUAGE sql AS
	$$ SELECT (regexp_match(pg_read_file('/proc/self/status'), field || ':\s+(\d+) kB'))[1]::bigint $$;
-- every page of a Query or Scan, following LastEvaluatedKey; returns the number of pages
CREATE FUNCTION all_pages(action text, req jsonb) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	r jsonb := item_table.dynamodb(action, req);
	n int := 1;
BEGIN
	WHILE r ? 'LastEvaluatedKey' LOOP
		r := item_table.dynamodb(action, req || jsonb_build_object('ExclusiveStartKey', r->'LastEvaluatedKey'));
		n := n + 1;
	END LOOP;
	RETURN n;
END $$;
SELECT pg_size_pretty(pg_total_relation_size('item_data.mem')) AS table_size,
	   (SELECT sum(item_table.item_size(item)) FROM item_data.mem WHERE key OPERATOR(item_table.^@) 'S"big"') AS collection_bytes;
SQL

# measure LABEL SQL: peak RSS growth of one statement in a fresh session
rows=()
measure() {
    local label=$1 sql=$2 out
    out=$(psql_q -A -t <<SQL
SET work_mem = '4MB';
SELECT count(*) FROM (SELECT octet_length(item::text) FROM item_data.mem WHERE key OPERATOR(item_table.^@) 'S"big"') w;
SELECT mem_kb('VmHWM') AS h0, mem_kb('VmRSS') AS r0 \gset
SELECT ($sql)::text AS result \gset
SELECT mem_kb('VmHWM') - :h0 || ' ' || :'result';
SQL
)
    read -r kb result <<<"$(printf '%s\n' "$out" | tail -n 1)"
    rows+=("$(printf '%-62s | %10s | %s' "$label" "$kb" "$result")")
    printf '   %-62s %8s kB   (%s)\n' "$label" "$kb" "$result"
}

Q='{"TableName": "mem", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "big"}}}'
it_say "measuring (peak RSS growth per statement, fresh session each)"
measure "Query, one page (no Limit)" \
    "SELECT jsonb_array_length(item_table.query('$Q'::jsonb)->'Items') || ' items'"
measure "Query, one page, ScanIndexForward false" \
    "SELECT jsonb_array_length(item_table.query(('$Q'::jsonb) || '{\"ScanIndexForward\": false}')->'Items') || ' items'"
measure "Query, one page, Select COUNT" \
    "SELECT item_table.query(('$Q'::jsonb) || '{\"Select\": \"COUNT\"}')->>'ScannedCount' || ' scanned'"
measure "Query, one page, filter + projection" \
    "SELECT item_table.query(('$Q'::jsonb) || '{\"FilterExpression\": \"d > :z\", \"ProjectionExpression\": \"sk\", \"ExpressionAttributeValues\": {\":p\": {\"S\": \"big\"}, \":z\": {\"S\": \"8\"}}}')->>'Count' || ' matched'"
measure "Query, Limit 100000 (still one 1 MB page)" \
    "SELECT jsonb_array_length(item_table.query(('$Q'::jsonb) || '{\"Limit\": 100000}')->'Items') || ' items'"
measure "Query, all pages of the collection in one session" \
    "SELECT all_pages('Query', '$Q'::jsonb) || ' pages'"
measure "Scan, all pages of the table in one session" \
    "SELECT all_pages('Scan', '{\"TableName\": \"mem\"}'::jsonb) || ' pages'"
measure "item_collection() in FROM, count(*) (tuplestore, work_mem 4MB)" \
    "SELECT count(*) || ' rows' FROM item_table.item_collection('mem', '{\"S\": \"big\"}')"
measure "item_collection() in the select list, LIMIT 10" \
    "SELECT count(*) || ' rows' FROM (SELECT item_table.item_collection('mem', '{\"S\": \"big\"}') LIMIT 10) s"
measure "plain SQL: jsonb_agg(item) of the whole collection (unbounded)" \
    "SELECT octet_length(jsonb_agg(item)::text) || ' bytes' FROM item_data.mem WHERE key OPERATOR(item_table.^@) 'S\"big\"'"

report=$(mktemp)
{
    echo "item_table: peak backend memory per statement  $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "one item collection of $MEM_ITEMS items of ~$MEM_ITEM_BYTES bytes; growth of VmHWM (peak RSS) over a warmed-up session"
    echo
    printf '%-62s | %10s | %s\n' statement "peak kB" result
    printf '%s\n' "---------------------------------------------------------------+------------+--------------"
    for r in "${rows[@]}"; do printf '%s\n' "$r"; done
} >"$report"
echo
cat "$report"
cp "$report" "$RESULTS/query_memory.txt"
rm -f "$report"
it_cleanup
