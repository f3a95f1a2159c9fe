#!/usr/bin/env bash
# Instructions per call (valgrind callgrind), for per-call comparisons that
# a shared, noisy machine hides from pgbench.
#
#   bash bench/callgrind.sh [case ...]     (default: every case below)
#
# Makes a throw-away cluster with the installed extension (PG_CONFIG or
# pg_config on PATH), loads bench/workloads/get_item/setup.sql and
# .../transact_2items/setup.sql and .../query10/setup.sql (and the setups of
# the gsi_put, lsi_put and ts_trade cases when they run) at CG_SCALE items (default 20000), then
# runs each case's statement prepared, one transaction per call, in a single-user
# backend under callgrind, CG_SMALL and CG_LARGE times (default 200 and 1200), and
# prints (Ir(large) - Ir(small)) / (CG_LARGE - CG_SMALL): the instructions
# of one call, start-up and warm-up cancelled.  CG_KEEP=dir keeps each run's
# callgrind output there (callgrind.<calls>.<offset>.out, for
# callgrind_annotate).  Each case has an ext and a
# base statement (the plain SQL of the same work); $1 in a statement is
# the loop counter (the stream_* cases compare a table with a stream,
# ext, to the same table without, base).  Needs root or sudo (the cluster runs as postgres).
set -euo pipefail
IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$IT_ROOT"
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"
CG_SCALE=${CG_SCALE:-20000}
CG_SMALL=${CG_SMALL:-200}
CG_LARGE=${CG_LARGE:-1200}
command -v valgrind >/dev/null || it_die "valgrind is required"
it_need_root || it_die "root or sudo is required"
it_pg_env || it_die "PostgreSQL tools not found"

declare -A EXT BASE
ORDER=(update_counter update_multi get_item put_item delete_item transact_2items)
EXT[update_counter]="SELECT item_table.update_item(('{\"TableName\": \"bench\", \"Key\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}}, \"UpdateExpression\": \"SET n = n + :one\", \"ExpressionAttributeValues\": {\":one\": {\"N\": \"1\"}}}')::jsonb)"
BASE[update_counter]="UPDATE item_data.bench SET item = jsonb_set(item, '{n,N}', to_jsonb(((item->'n'->>'N')::numeric + 1)::text)) WHERE key OPERATOR(item_table.=) ('S\"USER#' || (1 + \$1 % $CG_SCALE) || '\"')::item_table.item_key"
EXT[update_multi]="SELECT item_table.update_item(('{\"TableName\": \"bench\", \"Key\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}}, \"UpdateExpression\": \"SET #nm = :nm, score = score + :d, address.city = :c REMOVE tags\", \"ExpressionAttributeNames\": {\"#nm\": \"name\"}, \"ExpressionAttributeValues\": {\":nm\": {\"S\": \"renamed\"}, \":d\": {\"N\": \"3\"}, \":c\": {\"S\": \"Shelbyville\"}}}')::jsonb)"
BASE[update_multi]="UPDATE item_data.bench SET item = jsonb_set(jsonb_set(jsonb_set(item - 'tags', '{name}', jsonb_build_object('S', 'renamed')), '{score,N}', to_jsonb(((item->'score'->>'N')::numeric + 3)::text)), '{address,M,city}', '{\"S\": \"Shelbyville\"}') WHERE key OPERATOR(item_table.=) ('S\"USER#' || (1 + \$1 % $CG_SCALE) || '\"')::item_table.item_key"
EXT[get_item]="SELECT item_table.get_item(('{\"TableName\": \"bench\", \"Key\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}}}')::jsonb)"
BASE[get_item]="SELECT item FROM item_data.bench WHERE key OPERATOR(item_table.=) ('S\"USER#' || (1 + \$1 % $CG_SCALE) || '\"')::item_table.item_key"
EXT[put_item]="SELECT item_table.put_item(('{\"TableName\": \"bench\", \"Item\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}, \"name\": {\"S\": \"user\"}, \"n\": {\"N\": \"' || \$1 || '\"}}}')::jsonb)"
BASE[put_item]="INSERT INTO item_data.bench (key, item) VALUES (('S\"USER#' || (1 + \$1 % $CG_SCALE) || '\"')::item_table.item_key, ('{\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}, \"name\": {\"S\": \"user\"}, \"n\": {\"N\": \"' || \$1 || '\"}}')::jsonb) ON CONFLICT (key) DO UPDATE SET item = EXCLUDED.item"
EXT[delete_item]="SELECT item_table.delete_item(('{\"TableName\": \"bench\", \"Key\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}}}')::jsonb)"
BASE[delete_item]="DELETE FROM item_data.bench WHERE key OPERATOR(item_table.=) ('S\"USER#' || (1 + \$1 % $CG_SCALE) || '\"')::item_table.item_key"
EXT[transact_2items]="SELECT item_table.transact_write_items(('{\"TransactItems\": [{\"Put\": {\"TableName\": \"register\", \"Item\": {\"PK\": {\"S\": \"A#' || \$1 || '\"}, \"SK\": {\"S\": \"P#1\"}, \"Q\": {\"N\": \"1\"}}, \"ConditionExpression\": \"attribute_not_exists(PK)\"}}, {\"Put\": {\"TableName\": \"register\", \"Item\": {\"PK\": {\"S\": \"B#' || \$1 || '\"}, \"SK\": {\"S\": \"P#1\"}, \"Q\": {\"N\": \"-1\"}}, \"ConditionExpression\": \"attribute_not_exists(PK)\"}}]}')::jsonb)"
BASE[transact_2items]="INSERT INTO register_plain VALUES (('S\"A#' || \$1 || '\"|S\"P#1\"')::item_table.item_key, ('{\"PK\": {\"S\": \"A#' || \$1 || '\"}, \"SK\": {\"S\": \"P#1\"}, \"Q\": {\"N\": \"1\"}}')::jsonb), (('S\"B#' || \$1 || '\"|S\"P#1\"')::item_table.item_key, ('{\"PK\": {\"S\": \"B#' || \$1 || '\"}, \"SK\": {\"S\": \"P#1\"}, \"Q\": {\"N\": \"-1\"}}')::jsonb)"

# BatchWriteItem of 25 PutRequests replacing items, against one 25-row upsert
bw_ext="SELECT item_table.batch_write_item(('{\"RequestItems\": {\"bench\": ["
bw_base="INSERT INTO item_data.bench (key, item) VALUES "
for i in $(seq 1 25); do
    k="' || (1 + (\$1 * 25 + $i) % $CG_SCALE) || '"
    it="{\"pk\": {\"S\": \"USER#$k\"}, \"name\": {\"S\": \"user number $k\"}, \"n\": {\"N\": \"$i\"}}"
    [ "$i" -gt 1 ] && { bw_ext+=", "; bw_base+=", "; }
    bw_ext+="{\"PutRequest\": {\"Item\": $it}}"
    bw_base+="(('S\"USER#$k\"')::item_table.item_key, ('$it')::jsonb)"
done
EXT[batch_write25]="$bw_ext]}}')::jsonb)"
BASE[batch_write25]="$bw_base ON CONFLICT (key) DO UPDATE SET item = EXCLUDED.item"
ORDER+=(batch_write25)

# conditional PutItem (replace an existing item) against UPDATE ... SET item
EXT[put_conditional]="SELECT item_table.put_item(('{\"TableName\": \"bench\", \"ConditionExpression\": \"attribute_exists(pk)\", \"Item\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}, \"name\": {\"S\": \"user\"}, \"n\": {\"N\": \"' || \$1 || '\"}}}')::jsonb)"
BASE[put_conditional]="UPDATE item_data.bench SET item = ('{\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}, \"name\": {\"S\": \"user\"}, \"n\": {\"N\": \"' || \$1 || '\"}}')::jsonb WHERE key OPERATOR(item_table.=) ('S\"USER#' || (1 + \$1 % $CG_SCALE) || '\"')::item_table.item_key"
# Query of a 10-item and a 100-item collection, the last item of a 100-item one
for q in 10 100; do
    n=$(( q == 10 ? CG_SCALE / 20 : CG_SCALE / 200 ))
    EXT[query$q]="SELECT item_table.query(('{\"TableName\": \"qbench\", \"KeyConditionExpression\": \"pk = :pk\", \"ExpressionAttributeValues\": {\":pk\": {\"S\": \"P$q#' || (\$1 % $n) || '\"}}}')::jsonb)"
    BASE[query$q]="SELECT key, item FROM item_data.qbench WHERE key OPERATOR(item_table.>=) ('S\"P$q#' || (\$1 % $n) || '\"')::item_table.item_key AND key OPERATOR(item_table.<) ('S\"P$q#' || (\$1 % $n) || '\"|~')::item_table.item_key ORDER BY key"
    ORDER+=(query$q)
done
EXT[query_desc_limit1]="SELECT item_table.query(('{\"TableName\": \"qbench\", \"KeyConditionExpression\": \"pk = :pk\", \"ScanIndexForward\": false, \"Limit\": 1, \"ExpressionAttributeValues\": {\":pk\": {\"S\": \"P100#' || (\$1 % $((CG_SCALE / 200))) || '\"}}}')::jsonb)"
BASE[query_desc_limit1]="SELECT key, item FROM item_data.qbench WHERE key OPERATOR(item_table.>=) ('S\"P100#' || (\$1 % $((CG_SCALE / 200))) || '\"')::item_table.item_key AND key OPERATOR(item_table.<) ('S\"P100#' || (\$1 % $((CG_SCALE / 200))) || '\"|~')::item_table.item_key ORDER BY key DESC LIMIT 1"
# BatchGetItem of 25 keys against = ANY of 25 keys
bg_ext="SELECT item_table.batch_get_item(('{\"RequestItems\": {\"bench\": {\"Keys\": ["
bg_base="SELECT key, item FROM item_data.bench WHERE key OPERATOR(item_table.=) ANY (ARRAY["
for i in $(seq 1 25); do
    k="' || (1 + (\$1 * 25 + $i) % $CG_SCALE) || '"
    [ "$i" -gt 1 ] && { bg_ext+=", "; bg_base+=", "; }
    bg_ext+="{\"pk\": {\"S\": \"USER#$k\"}}"
    bg_base+="('S\"USER#$k\"')::item_table.item_key"
done
EXT[batch_get25]="$bg_ext]}}}')::jsonb)"
BASE[batch_get25]="$bg_base])"
ORDER+=(put_conditional query_desc_limit1 batch_get25)
# PutItem, UpdateItem and DeleteItem on a table with a NEW_AND_OLD_IMAGES
# stream (ext) against the same call on the same table without one (base,
# bench/workloads/stream_put): replacing an existing item, putting a new one
si="{\"name\": {\"S\": \"user\"}, \"n\": {\"N\": \"' || \$1 || '\"}}"
for t in stream nostream; do
    w=$([ "$t" = stream ] && echo EXT || echo BASE)
    declare -n m=$w
    m[stream_put]="SELECT item_table.put_item(('{\"TableName\": \"bench_$t\", \"Item\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}, ${si:1}}')::jsonb)"
    m[stream_put_new]="SELECT item_table.put_item(('{\"TableName\": \"bench_$t\", \"Item\": {\"pk\": {\"S\": \"NEW#' || \$1 || '\"}, ${si:1}}')::jsonb)"
    m[stream_update]="SELECT item_table.update_item(('{\"TableName\": \"bench_$t\", \"Key\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}}, \"UpdateExpression\": \"SET n = :n\", \"ExpressionAttributeValues\": {\":n\": {\"N\": \"' || \$1 || '\"}}}')::jsonb)"
    m[stream_delete]="SELECT item_table.delete_item(('{\"TableName\": \"bench_$t\", \"Key\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}}}')::jsonb)"
    unset -n m
done
ORDER+=(stream_put stream_put_new stream_update stream_delete)
# the same calls on a table with point-in-time recovery enabled (ext)
# against the same table without it (base, bench/workloads/pitr_put)
for t in pitr nopitr; do
    w=$([ "$t" = pitr ] && echo EXT || echo BASE)
    declare -n m=$w
    m[pitr_put]="SELECT item_table.put_item(('{\"TableName\": \"bench_$t\", \"Item\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}, ${si:1}}')::jsonb)"
    m[pitr_put_new]="SELECT item_table.put_item(('{\"TableName\": \"bench_$t\", \"Item\": {\"pk\": {\"S\": \"NEW#' || \$1 || '\"}, ${si:1}}')::jsonb)"
    m[pitr_update]="SELECT item_table.update_item(('{\"TableName\": \"bench_$t\", \"Key\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}}, \"UpdateExpression\": \"SET n = :n\", \"ExpressionAttributeValues\": {\":n\": {\"N\": \"' || \$1 || '\"}}}')::jsonb)"
    m[pitr_delete]="SELECT item_table.delete_item(('{\"TableName\": \"bench_$t\", \"Key\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}}}')::jsonb)"
    unset -n m
done
ORDER+=(pitr_put pitr_put_new pitr_update pitr_delete)

# PutItem of a new item on a table with two GSIs (gsi_put) and with an LSI
# (lsi_put), and the trading register's TransactWriteItems trade on a
# table with a GSI (ts_trade), against their one-statement baselines: the
# statements are the workloads' ext.sql and base.sql, the pgbench
# variables replaced by expressions of the loop counter
wl_stmt() {                   # wl_stmt FILE SED-SCRIPT: one line, no \set, no comments
    grep -v '^\\set' "$1" | grep -v '^--' | sed -E "$2" | tr '\n' ' ' | sed -E 's/; *$//'
}
declare -A CG_SETUP
for c in pitr_put pitr_put_new pitr_update pitr_delete; do CG_SETUP[$c]=pitr_put; done
gsi_vars='s/:id\b/(2000000000 + $1)/g; s/:c\b/($1 % 1000)/g'
lsi_vars="s/:p\\b/(\$1 % $((CG_SCALE / 10)))/g; s/:id\\b/(2000000000 + \$1)/g; s/:t\\b/(\$1 % 1000000)/g"
ts_vars='s/:b\b/(1 + $1 % 1000)/g; s/:s\b/(1 + (1 + $1 % 1000) % 1000)/g; s/:asset\b/(1 + $1 % 50)/g; s/:q\b/(1 + $1 % 100)/g; s/:txn\b/($1)/g'
# the multi-attribute GSI (3+2 attributes) against the concatenated one:
# mgsi_query and mgsi_put, whose baselines are API calls too
mgsi_vars='s/:t\b/($1 % 10)/g; s/:r\b/($1 % 5)/g; s/:d\b/($1 \/ 7 % 10)/g; s/:rnd\b/(1 + $1 % 20)/g; s/:id\b/(2000000000 + $1)/g'
for c in gsi_put lsi_put ts_trade mgsi_query mgsi_put; do
    case $c in gsi_put) v=$gsi_vars; CG_SETUP[$c]=gsi_put ;; lsi_put) v=$lsi_vars; CG_SETUP[$c]=lsi_put ;;
        ts_trade) v=$ts_vars; CG_SETUP[$c]=ts_summary ;;
        mgsi_query|mgsi_put) v=$mgsi_vars; CG_SETUP[$c]=mgsi_query ;; esac
    EXT[$c]=$(wl_stmt "bench/workloads/$c/ext.sql" "$v")
    BASE[$c]=$(wl_stmt "bench/workloads/$c/base.sql" "$v")
done
ORDER+=(gsi_put lsi_put ts_trade mgsi_query mgsi_put)
# PutItem of a new item with a 128-dimension vector on a table with a vector
# index (ext) against the same PutItem on the same table without it (base,
# bench/workloads/vector_put; needs pgvector): the write path only, as no
# background worker runs in a single-user backend (the written vectors stay
# pending)
EXT[vector_put]=$(wl_stmt bench/workloads/vector_put/ext.sql 's/:id\b/(2000000000 + $1)/g; s/:q\b/(1 + $1 % 100)/g')
BASE[vector_put]=$(wl_stmt bench/workloads/vector_put/base.sql 's/:id\b/(2000000000 + $1)/g; s/:q\b/(1 + $1 % 100)/g')
CG_SETUP[vector_put]=vector_put
ORDER+=(vector_put)
# Writes of NEW items (the direct insert): PutItem of a new key against the
# upsert statement; BatchWriteItem of 25 new items against one 25-row
# upsert; TransactWriteItems of 10 conditional Puts of new items against
# one 10-row INSERT (one round trip, as transact_2items)
EXT[put_item_new]="SELECT item_table.put_item(('{\"TableName\": \"bench\", \"Item\": {\"pk\": {\"S\": \"NEW#' || \$1 || '\"}, \"name\": {\"S\": \"user\"}, \"n\": {\"N\": \"' || \$1 || '\"}}}')::jsonb)"
BASE[put_item_new]="INSERT INTO item_data.bench (key, item) VALUES (('S\"NEW#' || \$1 || '\"')::item_table.item_key, ('{\"pk\": {\"S\": \"NEW#' || \$1 || '\"}, \"name\": {\"S\": \"user\"}, \"n\": {\"N\": \"' || \$1 || '\"}}')::jsonb) ON CONFLICT (key) DO UPDATE SET item = EXCLUDED.item"
bwn_ext="SELECT item_table.batch_write_item(('{\"RequestItems\": {\"bench\": ["
bwn_base="INSERT INTO item_data.bench (key, item) VALUES "
for i in $(seq 1 25); do
    k="BNEW#' || (\$1 * 25 + $i) || '"
    it="{\"pk\": {\"S\": \"$k\"}, \"name\": {\"S\": \"user number $i\"}, \"n\": {\"N\": \"$i\"}}"
    [ "$i" -gt 1 ] && { bwn_ext+=", "; bwn_base+=", "; }
    bwn_ext+="{\"PutRequest\": {\"Item\": $it}}"
    bwn_base+="(('S\"$k\"')::item_table.item_key, ('$it')::jsonb)"
done
EXT[batch_write25_new]="$bwn_ext]}}')::jsonb)"
BASE[batch_write25_new]="$bwn_base ON CONFLICT (key) DO UPDATE SET item = EXCLUDED.item"
tx_ext="SELECT item_table.transact_write_items(('{\"TransactItems\": ["
tx_base="INSERT INTO register_plain VALUES "
for i in $(seq 1 10); do
    [ "$i" -gt 1 ] && { tx_ext+=", "; tx_base+=", "; }
    tx_ext+="{\"Put\": {\"TableName\": \"register\", \"Item\": {\"PK\": {\"S\": \"T$i#' || \$1 || '\"}, \"SK\": {\"S\": \"P#1\"}, \"Q\": {\"N\": \"$i\"}}, \"ConditionExpression\": \"attribute_not_exists(PK)\"}}"
    tx_base+="(('S\"T$i#' || \$1 || '\"|S\"P#1\"')::item_table.item_key, ('{\"PK\": {\"S\": \"T$i#' || \$1 || '\"}, \"SK\": {\"S\": \"P#1\"}, \"Q\": {\"N\": \"$i\"}}')::jsonb)"
done
EXT[transact_10items]="$tx_ext]}')::jsonb)"
BASE[transact_10items]="$tx_base"
# PutItem of a new item with attribute_not_exists(pk) (create if absent)
# against INSERT ... ON CONFLICT DO NOTHING
EXT[put_if_absent]="SELECT item_table.put_item(('{\"TableName\": \"bench\", \"ConditionExpression\": \"attribute_not_exists(pk)\", \"Item\": {\"pk\": {\"S\": \"NEW#' || \$1 || '\"}, \"name\": {\"S\": \"user\"}, \"n\": {\"N\": \"' || \$1 || '\"}}}')::jsonb)"
BASE[put_if_absent]="INSERT INTO item_data.bench (key, item) VALUES (('S\"NEW#' || \$1 || '\"')::item_table.item_key, ('{\"pk\": {\"S\": \"NEW#' || \$1 || '\"}, \"name\": {\"S\": \"user\"}, \"n\": {\"N\": \"' || \$1 || '\"}}')::jsonb) ON CONFLICT (key) DO NOTHING"
# UpdateItem creating an item with attribute_not_exists(pk), against the
# same INSERT ... ON CONFLICT DO NOTHING
EXT[update_if_absent]="SELECT item_table.update_item(('{\"TableName\": \"bench\", \"Key\": {\"pk\": {\"S\": \"NEW#' || \$1 || '\"}}, \"ConditionExpression\": \"attribute_not_exists(pk)\", \"UpdateExpression\": \"SET #nm = :nm, n = :n\", \"ExpressionAttributeNames\": {\"#nm\": \"name\"}, \"ExpressionAttributeValues\": {\":nm\": {\"S\": \"user\"}, \":n\": {\"N\": \"' || \$1 || '\"}}}')::jsonb)"
BASE[update_if_absent]="${BASE[put_if_absent]}"
ORDER+=(put_item_new put_if_absent update_if_absent batch_write25_new transact_10items)
# Query with begins_with on the sort key (10 of a 100-item collection)
# against the same range as ^@ (bench/workloads/query_begins_with)
EXT[query_begins_with]="SELECT item_table.query(('{\"TableName\": \"qbench\", \"KeyConditionExpression\": \"pk = :pk AND begins_with(sk, :pre)\", \"ExpressionAttributeValues\": {\":pk\": {\"S\": \"P100#' || (\$1 % $((CG_SCALE / 200))) || '\"}, \":pre\": {\"S\": \"ITEM#00' || (\$1 % 10) || '\"}}}')::jsonb)"
BASE[query_begins_with]="SELECT key, item FROM item_data.qbench WHERE key OPERATOR(item_table.^@) ('S\"P100#' || (\$1 % $((CG_SCALE / 200))) || '\"|S\"ITEM#00' || (\$1 % 10) || '\"')::item_table.item_key ORDER BY key"
ORDER+=(query_begins_with)
# the gateway's call (item_table.dynamodb_as: the role switch, the settings
# level, the deferred-trigger flush and the advisory-lock release of each
# request) against the same GetItem and PutItem through item_table.dynamodb
EXT[gateway_get]="SELECT (item_table.dynamodb_as('postgres', 'GetItem', ('{\"TableName\": \"bench\", \"Key\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}}}')::jsonb)).response"
BASE[gateway_get]="SELECT item_table.dynamodb('GetItem', ('{\"TableName\": \"bench\", \"Key\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}}}')::jsonb)"
EXT[gateway_put]="SELECT (item_table.dynamodb_as('postgres', 'PutItem', ('{\"TableName\": \"bench\", \"Item\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}, \"name\": {\"S\": \"user\"}, \"n\": {\"N\": \"' || \$1 || '\"}}}')::jsonb)).response"
BASE[gateway_put]="SELECT item_table.dynamodb('PutItem', ('{\"TableName\": \"bench\", \"Item\": {\"pk\": {\"S\": \"USER#' || (1 + \$1 % $CG_SCALE) || '\"}, \"name\": {\"S\": \"user\"}, \"n\": {\"N\": \"' || \$1 || '\"}}}')::jsonb)"
ORDER+=(gateway_get gateway_put)

cases=("$@")
[ "${#cases[@]}" -gt 0 ] || cases=("${ORDER[@]}")
for c in "${cases[@]}"; do [ -n "${EXT[$c]:-}" ] || it_die "unknown case '$c' (cases: ${ORDER[*]})"; done

it_start_cluster || it_die "could not start a cluster"
"$PGBIN/createdb" cg
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d cg -c 'CREATE EXTENSION item_table' >/dev/null
setups=(get_item transact_2items query10 stream_put)
for c in "${cases[@]}"; do [ -z "${CG_SETUP[$c]:-}" ] || setups+=("${CG_SETUP[$c]}"); done
for s in "${setups[@]}"; do
    PGOPTIONS='-c client_min_messages=warning' \
        "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -v scale="$CG_SCALE" -d cg -f "bench/workloads/$s/setup.sql" >/dev/null
done
"$PGBIN/psql" -X -q -d cg -c 'VACUUM ANALYZE' -c 'CHECKPOINT' >/dev/null
it_as_postgres "$PGBIN/pg_ctl" -D "$IT_PGDATA" -w stop >/dev/null

# Ir of one single-user backend running the prepared stmt n times, one
# transaction each (as pgbench -M prepared does), $1 = off, off + 1, ...
ir() {
    local stmt=$1 n=$2 off=$3 out="$IT_TMP/cg.out" i
    {
        printf 'PREPARE p(int) AS %s\n' "$stmt"
        for ((i = off; i < off + n; i++)); do printf 'EXECUTE p(%d)\n' "$i"; done
    } >"$IT_TMP/cg.sql"
    chmod 644 "$IT_TMP/cg.sql"
    it_as_postgres bash -c "valgrind --tool=callgrind --callgrind-out-file=$out '$PGBIN/postgres' --single -D '$IT_PGDATA' cg <'$IT_TMP/cg.sql'" \
        >"$IT_TMP/cg.log" 2>&1 || { cat "$IT_TMP/cg.log" >&2; return 1; }
    if grep -q 'ERROR' "$IT_TMP/cg.log"; then grep -m3 ERROR "$IT_TMP/cg.log" >&2; return 1; fi
    [ -z "${CG_KEEP:-}" ] || cp "$out" "$CG_KEEP/callgrind.$n.$off.out"
    awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

printf '%-18s | %14s | %14s | %s\n' case "ext Ir/call" "base Ir/call" "ext/base"
off=0
for c in "${cases[@]}"; do
    r=()
    for v in EXT BASE; do
        declare -n m=$v
        a=$(ir "${m[$c]}" "$CG_SMALL" "$off"); off=$((off + CG_SMALL))
        b=$(ir "${m[$c]}" "$CG_LARGE" "$off"); off=$((off + CG_LARGE))
        r+=("$(( (b - a) / (CG_LARGE - CG_SMALL) ))")
    done
    printf '%-18s | %14s | %14s | %s\n' "$c" "${r[0]}" "${r[1]}" "$(awk -v a="${r[0]}" -v b="${r[1]}" 'BEGIN { printf "%.2f", a / b }')"
done
it_cleanup
