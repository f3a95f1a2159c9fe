#!/bin/bash
# Hot standby and failover (scripts/test.sh suite "replica"; docs/operations.md).
#
# Two clusters on loopback made with the installed PostgreSQL: a primary
# (wal_level replica, synchronous_standby_names = '*', the library
# preloaded) and a standby made from it with pg_basebackup -R.  Then:
#   1. the standby: every read-only call answers as on the primary (the
#      DynamoDB API, the Streams API, item_collection(), verify(),
#      table_stats), through SQL and through a gateway connected to the
#      standby alone; writes fail with ServiceUnavailable (XD026); the
#      background worker does not run there and logs nothing
#   2. ROUNDS failover rounds: item_table_gateway on a multi-host
#      connection string (target_session_attrs=read-write) and WRITERS
#      writers through it (test/replica/load.py); kill -9 of the primary
#      under load, pg_ctl promote of the standby, the gateway finding the
#      new primary by itself, the old primary made again as the new
#      standby with pg_basebackup; after each round every acknowledged
#      write present, the stream exactly once and in order per item,
#      verify() clean
#   3. after the first promotion: the worker takes over (Time to Live
#      deletes items that expired after the kill, an index backfill cut by
#      the kill completes, stream numbers go on above every number handed
#      out before) and, at the end, the stream consumer has applied every
#      record exactly once (resumed from its checkpoints)
# One line per check ("ok ..." / "FAILED ..."), then "N passed, N failed".
#
# Environment: PG_CONFIG (as scripts/test.sh), IT_LOG_DIR (logs go to
# $IT_LOG_DIR/replica), IT_REPLICA_ROUNDS (default 3), IT_REPLICA_WRITERS
# (default 4).
set -uo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$IT_ROOT" || exit 1
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"

ROUNDS=${IT_REPLICA_ROUNDS:-3}
WRITERS=${IT_REPLICA_WRITERS:-4}
DB=item_table_replica
TABLE=failover
it_need_root || exit 1
it_pg_env || exit 1
LOG="$IT_LOG_DIR/replica"
rm -rf "$LOG"
mkdir -p "$LOG" || exit 1
GW_BIN="$("$PG_CONFIG" --bindir)/item_table_gateway"

pass=0
fail=0
R_TMP=""
GW_PID=""
GW2_PID=""
LOAD_PID=""

ok() { pass=$((pass + 1)); printf 'ok      %s\n' "$1"; }
bad() { fail=$((fail + 1)); printf 'FAILED  %s\n' "$1"; }
check() { if [ "$1" = "$2" ]; then ok "$3"; else bad "$3 (expected '$2', got '$1')"; fi; }

node_dir() { echo "$R_TMP/$1"; }
node_port() { if [ "$1" = a ]; then echo "$PORT_A"; else echo "$PORT_B"; fi; }
other() { if [ "$1" = a ]; then echo b; else echo a; fi; }

start_node() {
    it_as_postgres "$PGBIN/pg_ctl" -D "$(node_dir "$1")" -o "-p $(node_port "$1")" \
        -l "$R_TMP/$1.log" -w -t 60 start >>"$LOG/pg_ctl.log" 2>&1
}

# kill -9 of a node's postmaster and of every process it started
kill_node() {
    local pm kids
    pm=$(head -n 1 "$(node_dir "$1")/postmaster.pid" 2>/dev/null) || return 1
    kids=$(ps -o pid= --ppid "$pm" 2>/dev/null | tr '\n' ' ')
    # shellcheck disable=SC2086
    kill -9 "$pm" $kids 2>/dev/null
    local i
    for i in $(seq 1 50); do
        kill -0 "$pm" 2>/dev/null || return 0
        sleep 0.1
    done
    return 1
}

stop_node() {
    [ -f "$(node_dir "$1")/postmaster.pid" ] || return 0
    it_as_postgres "$PGBIN/pg_ctl" -D "$(node_dir "$1")" -m immediate -w -t 30 stop >>"$LOG/pg_ctl.log" 2>&1
}

# node X made again as a standby of node Y
make_standby() {
    local x=$1 y=$2
    rm -rf "$(node_dir "$x")"
    it_as_postgres "$PGBIN/pg_basebackup" -h 127.0.0.1 -p "$(node_port "$y")" -U postgres \
        -D "$(node_dir "$x")" -R -X stream -c fast >>"$LOG/basebackup.log" 2>&1 || return 1
    # synchronous once promoted (a standby ignores it)
    echo "synchronous_standby_names = '*'" | it_as_postgres tee -a "$(node_dir "$x")/postgresql.conf" >/dev/null
    start_node "$x"
}

# psql NODE SQL...: the rows, as the superuser
q() {
    local n=$1
    shift
    "$PGBIN/psql" -X -qAt -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$(node_port "$n")" -U postgres -d "$DB" "$@" </dev/null
}

# wait until NODE (a standby) has replayed what its primary PRIMARY wrote
wait_replay() {
    local lsn i
    # a commit of ours flushed locally first: the WAL is then flushed (and
    # can be sent) through every earlier commit, asynchronous ones too
    q "$2" -c "SET synchronous_commit = local; SELECT pg_catalog.txid_current()" >/dev/null || return 1
    lsn=$(q "$2" -c "SELECT pg_current_wal_lsn()") || return 1
    for i in $(seq 1 100); do
        [ "$(q "$1" -c "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn")" = t ] && return 0
        sleep 0.1
    done
    return 1
}

gw_start() {  # gw_start PIDVAR OUTPREFIX CONNINFO: sets GW_URL
    local out=$LOG/$2 i line
    "$GW_BIN" --listen 127.0.0.1 --port 0 --pool 8 --log --dbname "$3" </dev/null >"$out.out" 2>"$out.log" &
    printf -v "$1" '%s' "$!"
    GW_URL=""
    for i in $(seq 1 150); do
        line=$(grep -m 1 'listening on ' "$out.out" 2>/dev/null)
        if [ -n "$line" ]; then
            GW_URL=${line##*listening on }
            return 0
        fi
        sleep 0.1
    done
    return 1
}

cleanup() {
    [ -n "$LOAD_PID" ] && kill "$LOAD_PID" 2>/dev/null
    [ -n "$GW_PID" ] && kill -TERM "$GW_PID" 2>/dev/null && wait "$GW_PID" 2>/dev/null
    [ -n "$GW2_PID" ] && kill -TERM "$GW2_PID" 2>/dev/null && wait "$GW2_PID" 2>/dev/null
    if [ -n "$R_TMP" ]; then
        stop_node a
        stop_node b
        cp "$R_TMP"/*.log "$LOG"/ 2>/dev/null
        rm -rf "$R_TMP"
    fi
}
finish() {
    cleanup
    trap - EXIT INT TERM
    printf '%d passed, %d failed\n' "$pass" "$fail"
    [ "$fail" -eq 0 ] && exit 0
    exit 1
}
trap finish EXIT
trap 'bad "interrupted"; finish' INT TERM

t0=$(date +%s.%N)
if [ ! -x "$GW_BIN" ]; then
    bad "$GW_BIN not installed"
    exit 1
fi
R_TMP=$(mktemp -d -t item_table_replica.XXXXXX) || exit 1
chown postgres: "$R_TMP" && chmod 755 "$R_TMP"
IT_TMP=$R_TMP
PORT_A=$(it_pick_port)
PORT_B=$(it_pick_port)
while [ "$PORT_B" = "$PORT_A" ]; do PORT_B=$(it_pick_port); done

# ---- the primary (a) and its standby (b)
if ! it_as_postgres "$PGBIN/initdb" -D "$(node_dir a)" --auth=trust --encoding=UTF8 \
        --locale=C.UTF-8 -U postgres >"$LOG/initdb.log" 2>&1; then
    cat "$LOG/initdb.log"
    bad "initdb"
    exit 1
fi
it_as_postgres tee -a "$(node_dir a)/postgresql.conf" >/dev/null <<EOF

# --- replica suite: a primary and a synchronous standby on loopback ---
listen_addresses = '127.0.0.1'
unix_socket_directories = '$R_TMP'
wal_level = replica
max_wal_senders = 10
hot_standby = on
synchronous_commit = on
fsync = off
full_page_writes = on
shared_buffers = 64MB
max_connections = 40
log_min_messages = warning
shared_preload_libraries = 'item_table'
item_table.worker_naptime = 1
item_table.backfill_batch_size = 20
EOF
# a free port can be taken by another program before the server binds it:
# then another port
started=0
for try in 1 2 3 4 5; do
    if start_node a; then started=1; break; fi
    grep -q 'could not bind\|could not create any TCP/IP sockets' "$R_TMP/a.log" || break
    PORT_A=$(it_pick_port)
    while [ "$PORT_B" = "$PORT_A" ]; do PORT_A=$(it_pick_port); done
done
if [ "$started" = 1 ]; then ok "primary started (port $PORT_A)"; else bad "primary started"; tail -n 20 "$R_TMP/a.log"; exit 1; fi

setup_ok=1
{
    "$PGBIN/createdb" -h 127.0.0.1 -p "$PORT_A" -U postgres "$DB" &&
        q a -f test/gateway/setup.sql &&
        q a -f test/replica/setup.sql
} >"$LOG/setup.out" 2>&1 || setup_ok=0
read -r KEY_ID SECRET <<<"$(q a -F ' ' -c "SELECT * FROM item_table.create_access_key('gw_app')" 2>>"$LOG/setup.out")"
if [ "$setup_ok" = 1 ] && [ -n "${SECRET:-}" ]; then ok "database, roles, tables and an access key"; else bad "database setup"; cat "$LOG/setup.out"; exit 1; fi

started=0
for try in 1 2 3 4 5; do
    if make_standby b a; then started=1; break; fi
    grep -q 'could not bind\|could not create any TCP/IP sockets' "$R_TMP/b.log" 2>/dev/null || break
    it_as_postgres "$PGBIN/pg_ctl" -D "$(node_dir b)" -m immediate -w stop >/dev/null 2>&1
    PORT_B=$(it_pick_port)
    while [ "$PORT_B" = "$PORT_A" ]; do PORT_B=$(it_pick_port); done
done
if [ "$started" = 1 ]; then ok "standby made with pg_basebackup -R (port $PORT_B)"; else bad "standby made"; tail -n 20 "$LOG/basebackup.log" "$R_TMP/b.log"; exit 1; fi
check "$(q b -c "SELECT pg_is_in_recovery()")" t "the standby is in recovery (hot standby)"
# synchronous from now on (before, each commit would wait for a standby
# that is not there); ALTER SYSTEM's file goes with every base backup
q a -c "ALTER SYSTEM SET synchronous_standby_names = '*'" -c "SELECT pg_reload_conf()" >/dev/null
wait_sync() {
    local i
    for i in $(seq 1 100); do
        [ "$(q "$1" -c "SELECT sync_state FROM pg_stat_replication")" = sync ] && return 0
        sleep 0.1
    done
    return 1
}
wait_sync a
check "$(q a -c "SELECT sync_state FROM pg_stat_replication")" sync "the standby is synchronous"

# ---- 1. the standby
wait_replay b a || bad "the standby replays the primary's WAL"
while IFS='|' read -r name sql; do
    [ -z "$name" ] && continue
    p=$(q a -c "$sql" 2>&1)
    s=$(q b -c "$sql" 2>&1)
    if [ -n "$p" ] && [ "$p" = "$s" ] && [[ "$p" != *ERROR* ]]; then
        ok "standby: $name answers as on the primary"
    else
        bad "standby: $name answers as on the primary (primary: ${p:0:200}; standby: ${s:0:300}; standby snapshot $(q b -c "SELECT txid_current_snapshot(), pg_last_wal_replay_lsn()"), primary $(q a -c "SELECT txid_current_snapshot(), pg_current_wal_lsn()"))"
    fi
done <test/replica/standby_reads.txt

out=$(q b -c '\set VERBOSITY verbose' -c "SELECT item_table.dynamodb('PutItem', '{\"TableName\": \"reads\", \"Item\": {\"pk\": {\"S\": \"new\"}, \"sk\": {\"N\": \"1\"}}}')" 2>&1)
case "$out" in *"XD026: ServiceUnavailable: The service is currently unavailable"*) ok "standby: PutItem fails with ServiceUnavailable (XD026)" ;; *) bad "standby: PutItem fails with ServiceUnavailable (XD026): $out" ;; esac
out=$(q b -c '\set VERBOSITY verbose' -c "SELECT item_table.dynamodb('TransactWriteItems', '{\"TransactItems\": [{\"Update\": {\"TableName\": \"reads\", \"Key\": {\"pk\": {\"S\": \"a\"}, \"sk\": {\"N\": \"1\"}}, \"UpdateExpression\": \"SET x = :x\", \"ExpressionAttributeValues\": {\":x\": {\"N\": \"1\"}}}}]}')" 2>&1)
case "$out" in *"XD026: ServiceUnavailable"*) ok "standby: TransactWriteItems fails with ServiceUnavailable (XD026)" ;; *) bad "standby: TransactWriteItems fails with ServiceUnavailable: $out" ;; esac
out=$(q b -c '\set VERBOSITY verbose' -c "SELECT item_table.dynamodb('PutItem', '{\"TableName\": \"reads\", \"Item\": {\"pk\": {\"S\": \"new\"}}}')" 2>&1)
case "$out" in *"XD001: ValidationException"*) ok "standby: an invalid write is still a ValidationException" ;; *) bad "standby: an invalid write is still a ValidationException: $out" ;; esac
check "$(q b -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE 'item_table%'")" 0 \
    "standby: no background worker runs"
check "$(q a -c "SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type LIKE 'item_table%'")" t \
    "primary: the background worker runs"

# the gateway on the standby alone: reads answer, a write is ServiceUnavailable
if gw_start GW2_PID gateway_standby "host=127.0.0.1 port=$PORT_B dbname=$DB user=gw_login"; then
    /usr/bin/python3 test/replica/load.py standby "$GW_URL" "$KEY_ID" "$SECRET" >"$LOG/standby_gateway.out" 2>&1
    while read -r word rest; do
        case "$word" in ok) ok "$rest" ;; FAILED) bad "$rest" ;; esac
    done <"$LOG/standby_gateway.out"
    grep -q '^ok ' "$LOG/standby_gateway.out" || { bad "gateway on the standby"; tail -n 20 "$LOG/standby_gateway.out"; }
else
    bad "a gateway on the standby started"
fi
kill -TERM "$GW2_PID" 2>/dev/null && wait "$GW2_PID" 2>/dev/null
GW2_PID=""
check "$(grep -E 'ERROR|FATAL|PANIC' "$R_TMP/b.log" | grep -cvE 'ServiceUnavailable|ValidationException')" 0 \
    "standby: its log has no error but the refused writes"

# ---- 2. failover rounds, through one gateway on both nodes
conninfo="host=127.0.0.1,127.0.0.1 port=$PORT_A,$PORT_B dbname=$DB user=gw_login target_session_attrs=read-write connect_timeout=2"
if gw_start GW_PID gateway "$conninfo"; then ok "gateway on '$conninfo'"; else bad "gateway started"; tail -n 20 "$LOG/gateway.log"; exit 1; fi
ENDPOINT=$GW_URL

primary=a
loads=()
total_acked=0
total_lost=0
for round in $(seq 1 "$ROUNDS"); do
    standby=$(other "$primary")
    rt0=$(date +%s.%N)
    stopfile="$R_TMP/stop.$round"
    if [ "$round" = 1 ]; then
        # items that expire about 5 s from now, after the kill: only the
        # promoted standby's worker can delete them
        q "$primary" -c "SET ROLE gw_app" -c "SELECT count(item_table.put_item(jsonb_build_object('TableName', 'reads', 'Item',
            jsonb_build_object('pk', jsonb_build_object('S', 'ttl'), 'sk', jsonb_build_object('N', i::text),
                'exp', jsonb_build_object('N', (extract(epoch FROM now())::bigint + 5)::text)))))
            FROM generate_series(1, 3) i" >/dev/null 2>>"$LOG/setup.out"
    fi
    outfile="$LOG/load.$round.json"
    /usr/bin/python3 test/replica/load.py run "$ENDPOINT" "$KEY_ID" "$SECRET" "$TABLE" "$round" "$WRITERS" \
        "$stopfile" "$outfile" >"$LOG/load.$round.out" 2>&1 &
    LOAD_PID=$!
    echo "$(date -u +%T) round $round: load started (primary $primary)"
    sleep 3
    if [ "$round" = 1 ]; then
        # an index backfill under way when the primary dies
        q "$primary" -c "SET ROLE gw_app" -c "SELECT item_table.update_table('{\"TableName\": \"backfill\", \"AttributeDefinitions\": [{\"AttributeName\": \"g\", \"AttributeType\": \"S\"}], \"GlobalSecondaryIndexUpdates\": [{\"Create\": {\"IndexName\": \"by_g\", \"KeySchema\": [{\"AttributeName\": \"g\", \"KeyType\": \"HASH\"}], \"Projection\": {\"ProjectionType\": \"ALL\"}}}]}') IS NOT NULL" >/dev/null 2>>"$LOG/setup.out"
        sleep 0.3
    fi
    if kill_node "$primary"; then ok "round $round: kill -9 of the primary ($primary) under load"; else bad "round $round: kill -9 of the primary"; fi
    echo "$(date -u +%T) round $round: primary killed"
    sleep 1
    # what the standby has at promotion: the highest stream number, a backfill's progress
    seq_before=$(q "$standby" -c "SELECT coalesce(max(seq), 0) FROM item_table.stream_records")
    n_before=$(q "$standby" -c "SELECT count(*) FROM item_table.stream_records")
    [ "$round" = 1 ] && bf_before=$(q "$standby" -c "SELECT status || ' ' || backfilled FROM item_table.indexes WHERE table_name = 'backfill'")
    if it_as_postgres "$PGBIN/pg_ctl" -D "$(node_dir "$standby")" -w -t 60 promote >>"$LOG/pg_ctl.log" 2>&1; then
        ok "round $round: pg_ctl promote of the standby ($standby)"
    else
        bad "round $round: pg_ctl promote"
    fi
    primary=$standby
    echo "$(date -u +%T) round $round: promoted"
    sleep 1
    if make_standby "$(other "$primary")" "$primary"; then
        ok "round $round: the old primary made again as the standby (pg_basebackup)"
    else
        bad "round $round: the old primary made again as the standby"
        tail -n 20 "$LOG/basebackup.log"
    fi
    echo "$(date -u +%T) round $round: new standby up"
    sleep 3
    touch "$stopfile"
    wait "$LOAD_PID"
    LOAD_PID=""
    echo "$(date -u +%T) round $round: load stopped"
    cat "$LOG/load.$round.out"
    loads+=("$outfile")
    /usr/bin/python3 test/replica/load.py check "$PGBIN/psql" \
        "host=127.0.0.1 port=$(node_port "$primary") dbname=$DB user=postgres" "$TABLE" "${loads[@]}" \
        >"$LOG/check.$round.out" 2>&1
    while read -r word rest; do
        case "$word" in ok) ok "round $round: $rest" ;; FAILED) bad "round $round: $rest" ;; acknowledged) echo "round $round: $word $rest" ;; esac
    done <"$LOG/check.$round.out"
    grep -q '^ok ' "$LOG/check.$round.out" || { bad "round $round: the checks ran"; tail -n 20 "$LOG/check.$round.out"; }
    read -r _ acked _ lost < <(grep '^acknowledged ' "$LOG/check.$round.out")
    outage=$(/usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["seen"]; print(sum(v for k, v in s.items() if k != "200"))' "$outfile" 2>/dev/null)
    if [ "${outage:-0}" -gt 0 ]; then
        ok "round $round: the outage was seen by the writers ($outage retried answer(s), all 500, ThrottlingException or a broken connection)"
    else
        bad "round $round: the outage was seen by the writers"
    fi
    check "$(q "$primary" -c "SELECT count(*) FROM item_table.stream_records WHERE seq <= $seq_before")" "$n_before" \
        "round $round: stream numbers after promotion are above every number handed out before ($seq_before)"
    wait_sync "$primary"
    check "$(q "$primary" -c "SELECT sync_state FROM pg_stat_replication")" sync "round $round: the new standby is synchronous"
    echo "round $round: $(it_elapsed "$rt0") s, acknowledged ${acked:-?} (cumulative), lost ${lost:-?}"
    total_acked=${acked:-0}
    total_lost=${lost:-0}

    if [ "$round" = 1 ]; then
        # ---- 3. the worker on the promoted standby
        for i in $(seq 1 100); do
            [ "$(q "$primary" -c "SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type LIKE 'item_table%'")" = t ] && break
            sleep 0.2
        done
        check "$(q "$primary" -c "SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type LIKE 'item_table%'")" t \
            "after promotion: the background worker runs"
        for i in $(seq 1 150); do
            [ "$(q "$primary" -c "SELECT status FROM item_table.indexes WHERE table_name = 'backfill'")" = ACTIVE ] && break
            sleep 0.2
        done
        check "$(q "$primary" -c "SELECT status FROM item_table.indexes WHERE table_name = 'backfill'")" ACTIVE \
            "after promotion: the index backfill cut by the kill completes (at promotion: ${bf_before:-?})"
        check "$(q "$primary" -c "SELECT count(*) FROM item_table.verify('backfill')")" 0 "after promotion: verify('backfill') clean"
        check "$(q "$primary" -c "SELECT (xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM %s', relid), false, true, '')))[1]::text FROM item_table.indexes WHERE table_name = 'backfill'")" \
            "$(q "$primary" -c "SELECT count(*) FROM item_data.backfill")" "after promotion: the new index holds every item"
    fi
done
echo "failover: $ROUNDS round(s), $total_acked write(s) acknowledged, $total_lost lost"

# Time to Live: items that expired after the first kill, deleted by the new primary's worker
for i in $(seq 1 150); do
    [ "$(q "$primary" -c "SELECT count(*) FROM item_data.reads WHERE item ? 'exp'")" = 0 ] && break
    sleep 0.2
done
check "$(q "$primary" -c "SELECT count(*) FROM item_data.reads WHERE item ? 'exp'")" 0 \
    "after promotion: Time to Live deletes the items that expired after the first kill"
check "$(q "$primary" -c "SELECT ttl_items_deleted FROM item_table.table_stats WHERE table_name = 'reads'")" 3 \
    "table_stats counts the Time to Live deletions"

# the stream consumer: every record applied once, resumed from its checkpoints
want=$(q "$primary" -c "SELECT count(*) FROM item_table.stream_records r JOIN item_table.streams s USING (stream_id) WHERE s.table_name = '$TABLE'")
for i in $(seq 1 150); do
    [ "$(q "$primary" -c "SELECT count(*) FROM public.consumed")" = "$want" ] && break
    sleep 0.2
done
check "$(q "$primary" -c "SELECT count(*) FROM public.consumed")" "$want" \
    "the stream consumer applied every record once across $ROUNDS failovers ($want records)"
check "$(q "$primary" -c "SELECT count(*) FROM item_table.stream_records r JOIN item_table.streams s USING (stream_id) WHERE s.table_name = '$TABLE' AND r.seq NOT IN (SELECT seq FROM public.consumed)")" 0 \
    "the records it applied are the stream's"
check "$(q "$primary" -c "SELECT (status, failures, last_error IS NULL)::text FROM item_table.stream_consumers")" "(ACTIVE,0,t)" \
    "the consumer never failed"
check "$(q "$primary" -c "SELECT stream_consumers || ' ' || stream_lag_records FROM item_table.table_stats WHERE table_name = '$TABLE'")" "1 0" \
    "table_stats: the consumer has no lag"

# a restart, then a reader before any write: the records numbered from
# the last block before the restart are there (the horizon before a
# counter's first block is the end of the sequence's last block)
want=$(q "$primary" -c "SELECT count(*) FROM item_table.stream_records r JOIN item_table.streams s USING (stream_id) WHERE s.table_name = '$TABLE'")
it_as_postgres "$PGBIN/pg_ctl" -D "$(node_dir "$primary")" -m fast -w -t 60 stop >>"$LOG/pg_ctl.log" 2>&1
start_node "$primary"
# (a call returns at most 1 MB: read in pages)
got=0
after=NULL
while :; do
    read -r n last <<<"$(q "$primary" -F ' ' -c "SELECT count(*), max(sequence_number) FROM item_table.stream_records('$TABLE', $after, 5000)")"
    [ "${n:-0}" -gt 0 ] || break
    got=$((got + n))
    after=$last
done
check "$got" "$want" \
    "after a restart, before any write, stream_records() finds every record ($want)"

echo "replica suite: $(it_elapsed "$t0") s"
