#!/bin/bash
# Distributed item tables (Citus) on a loopback cluster of one coordinator
# and two workers (test/citus/cluster.sh), 32 shards:
#
#   GetItem, PutItem and a 10-item Query through the API on a table
#   distributed with item_table.distribute_table(), against the same
#   statements on a plain Citus table (pk text, sk text, item jsonb)
#   distributed by pk -- the routing cost Citus itself has.  Goal: at most
#   1.2x.
#
#   The design alternative: the same Query on an item table distributed on
#   key itself (no partition column), which Citus cannot prune for a range.
#
#   Throughput of GetItem with 1, 2 and 4 clients (docs/distributed.md,
#   "How far it scales": where the coordinator becomes the limit).
#
# Each measurement is pgbench for BENCH_SECONDS (default 5) seconds with
# prepared statements, API and plain alternating for BENCH_ROUNDS (default
# 3) rounds; prints median tps and the ratios.  Usage:
#   PG_CONFIG=... bash bench/citus.sh
set -uo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$IT_ROOT" || exit 1
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"
# shellcheck source=test/citus/cluster.sh
. "$IT_ROOT/test/citus/cluster.sh"

SECS=${BENCH_SECONDS:-5}
ROUNDS=${BENCH_ROUNDS:-3}
PARTITIONS=${BENCH_PARTITIONS:-1000}

citus_tarball >/dev/null || it_die "the Citus source release is not beside the repository"
it_need_root || exit 1
it_pg_env || exit 1
IT_LOG_DIR=${IT_LOG_DIR:-$IT_ROOT/log}
mkdir -p "$IT_LOG_DIR/bench-citus" || exit 1
W="$IT_LOG_DIR/bench-citus"
trap 'citus_stop_cluster' EXIT
citus_build || exit 1
citus_start_cluster || exit 1

psql_c() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }

it_say "loading $PARTITIONS partitions x 10 items into each table"
psql_c >"$W/setup.out" 2>&1 <<EOF || { cat "$W/setup.out"; exit 1; }
SET client_min_messages = warning;
SET citus.shard_count = 32;
SELECT item_table.create_table('{"TableName": "Bench",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
  "BillingMode": "PAY_PER_REQUEST"}') IS NOT NULL;
SELECT count(item_table.dynamodb('PutItem', pg_catalog.format(
  '{"TableName": "Bench", "Item": {"pk": {"S": "p%s"}, "sk": {"S": "s%s"}, "v": {"S": "%s"}}}',
  p, s, repeat('x', 100))::jsonb))
FROM generate_series(1, $PARTITIONS) p, generate_series(10, 19) s;
SELECT item_table.distribute_table('Bench', 32);

CREATE TABLE plain_items (pk text, sk text, item jsonb, PRIMARY KEY (pk, sk));
INSERT INTO plain_items SELECT b.item->'pk'->>'S', b.item->'sk'->>'S', b.item FROM item_data."Bench" b;
SELECT create_distributed_table('plain_items', 'pk', shard_count => 32);

-- the alternative design: distributed on key itself
CREATE TABLE by_key (key item_table.item_key PRIMARY KEY, item jsonb NOT NULL);
INSERT INTO by_key SELECT key, item FROM item_data."Bench";
SELECT create_distributed_table('by_key', 'key', shard_count => 32);
ANALYZE;
EOF

cat >"$W/get_api.sql" <<'EOF'
\set p random(1, :parts)
\set s random(10, 19)
SELECT item_table.dynamodb('GetItem', ('{"TableName": "Bench", "Key": {"pk": {"S": "p' || :p || '"}, "sk": {"S": "s' || :s || '"}}}')::jsonb);
EOF
cat >"$W/get_plain.sql" <<'EOF'
\set p random(1, :parts)
\set s random(10, 19)
SELECT item FROM plain_items WHERE pk = 'p' || :p AND sk = 's' || :s;
EOF
cat >"$W/put_api.sql" <<'EOF'
\set p random(1, :parts)
\set s random(10, 19)
SELECT item_table.dynamodb('PutItem', ('{"TableName": "Bench", "Item": {"pk": {"S": "p' || :p || '"}, "sk": {"S": "s' || :s || '"}, "v": {"S": "' || repeat('y', 100) || '"}}}')::jsonb);
EOF
cat >"$W/put_plain.sql" <<'EOF'
\set p random(1, :parts)
\set s random(10, 19)
INSERT INTO plain_items VALUES ('p' || :p, 's' || :s, ('{"pk": {"S": "p' || :p || '"}, "sk": {"S": "s' || :s || '"}, "v": {"S": "' || repeat('y', 100) || '"}}')::jsonb)
  ON CONFLICT (pk, sk) DO UPDATE SET item = EXCLUDED.item;
EOF
cat >"$W/query_api.sql" <<'EOF'
\set p random(1, :parts)
-- (chr(58) is the colon of the placeholder :v, which pgbench would take for a variable)
SELECT item_table.dynamodb('Query', jsonb_build_object('TableName', 'Bench',
  'KeyConditionExpression', 'pk = ' || chr(58) || 'v',
  'ExpressionAttributeValues', jsonb_build_object(chr(58) || 'v', jsonb_build_object('S', 'p' || :p))));
EOF
cat >"$W/query_plain.sql" <<'EOF'
\set p random(1, :parts)
SELECT item FROM plain_items WHERE pk = 'p' || :p ORDER BY sk;
EOF
cat >"$W/query_by_key.sql" <<'EOF'
\set p random(1, :parts)
SELECT item FROM by_key WHERE key OPERATOR(item_table.>=) ('S"p' || :p || '"')::item_table.item_key
  AND key OPERATOR(item_table.<) ('S"p' || :p || '"|~')::item_table.item_key ORDER BY key USING OPERATOR(item_table.<);
EOF

# run NAME CLIENTS: prints tps
run() {
    "$PGBIN/pgbench" -n -M prepared -c "$2" -j "$2" -T "$SECS" -D parts="$PARTITIONS" \
        -f "$W/$1.sql" >"$W/$1.c$2.out" 2>&1 </dev/null || { tail -5 "$W/$1.c$2.out" >&2; echo 0; return; }
    sed -nE 's/^tps = ([0-9.]+).*/\1/p' "$W/$1.c$2.out" | head -n 1
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) print 0; else print a[int((NR + 1) / 2)] }'; }

echo
echo "== one client, $ROUNDS alternating rounds of $SECS s, 32 shards, 2 workers"
echo "   (median tps; ratio = plain tps / API tps, the API's cost over Citus's own routing)"
for op in get put query; do
    a=()
    p=()
    for _ in $(seq 1 "$ROUNDS"); do
        a+=("$(run "${op}_api" 1)")
        p+=("$(run "${op}_plain" 1)")
    done
    api=$(printf '%s\n' "${a[@]}" | median)
    plain=$(printf '%s\n' "${p[@]}" | median)
    printf '  %-6s API %8.1f   plain Citus table %8.1f   ratio %s   (API runs: %s; plain: %s)\n' \
        "$op" "$api" "$plain" "$(ratio "$plain" "$api")" "${a[*]}" "${p[*]}"
done
bykey=$(run query_by_key 1)
routed=$(run query_api 1)
printf '  Query on an item table distributed on key (all 32 shards): %8.1f tps\n' "$bykey"
printf '  Query routed by the partition column:                      %8.1f tps (%sx)\n' "$routed" "$(ratio "$routed" "$bykey")"

echo
echo "== GetItem through the API with more clients (2 cores for all 3 nodes and pgbench)"
for c in 1 2 4; do
    printf '  %d client(s): %8.1f tps\n' "$c" "$(run get_api "$c")"
done
