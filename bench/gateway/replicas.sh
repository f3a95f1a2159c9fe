#!/usr/bin/env bash
# Replica reads and the cost of /metrics, in one run:
#   - GetItem and a 10-item Query (eventually consistent) at BENCH_CLIENTS
#     connections through item_table_gateway on the primary alone, then
#     through one with --replica (a hot standby made here with pg_basebackup,
#     on the same machine), alternating, BENCH_RUNS runs each, median;
#   - GetItem requests/s through the primary-only gateway without, then with,
#     a scrape of GET /metrics every second.
#
#   bash bench/gateway/replicas.sh
#
# Environment: PG_CONFIG, BENCH_SCALE (items, default 10000), BENCH_SECONDS
# (default 10), BENCH_RUNS (default 1), BENCH_CLIENTS (default 16).  It builds
# and installs into PG_CONFIG's PostgreSQL as the test command does, starts a
# throw-away primary and standby, and prints the table (also written to
# bench/results/replicas.txt); logs in log/bench-replicas/.
set -euo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$IT_ROOT"
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"

HERE="$IT_ROOT/bench/gateway"
BENCH_SCALE=${BENCH_SCALE:-10000}
BENCH_SECONDS=${BENCH_SECONDS:-10}
BENCH_RUNS=${BENCH_RUNS:-1}
BENCH_CLIENTS=${BENCH_CLIENTS:-16}
BENCH_DB=item_table_bench
RESULTS="$IT_ROOT/bench/results/replicas.txt"

it_need_root || it_die "root or sudo is required"
command -v wrk >/dev/null 2>&1 || it_install_deps wrk || it_die "could not install wrk"
command -v curl >/dev/null 2>&1 || it_install_deps curl || it_die "could not install curl"
it_pg_env || it_die "PostgreSQL tools not found"
it_build_install || it_die "build failed"
BLOG="$IT_LOG_DIR/bench-replicas"
rm -rf "$BLOG"
mkdir -p "$BLOG" "$(dirname "$RESULTS")"
GATEWAY="$("$PG_CONFIG" --bindir)/item_table_gateway"

it_start_cluster || it_die "could not start a PostgreSQL cluster"
PIDS=()
STANDBY=""
on_exit() {
    local rc=$? p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    if [ -n "$STANDBY" ]; then
        it_as_postgres "$PGBIN/pg_ctl" -D "$STANDBY" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    it_cleanup
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$PGBIN/createdb" "$BENCH_DB"
export PGDATABASE=$BENCH_DB
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION item_table' </dev/null
for setup in bench/workloads/get_item/setup.sql bench/workloads/query10/setup.sql; do
    "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -v scale="$BENCH_SCALE" -f "$setup" </dev/null \
        >>"$BLOG/setup.log" 2>&1 || { tail -n 20 "$BLOG/setup.log"; it_die "setup failed ($setup)"; }
done
"$PGBIN/psql" -X -q -c 'CHECKPOINT' </dev/null >>"$BLOG/setup.log" 2>&1

# the standby: a base backup of the primary, on its own port
STANDBY="$IT_TMP/standby"
SPORT=$(it_pick_port) || it_die "no free port"
it_as_postgres "$PGBIN/pg_basebackup" -h "$PGHOST" -p "$PGPORT" -U postgres -D "$STANDBY" \
    -R -X stream -c fast >"$BLOG/basebackup.log" 2>&1 || { cat "$BLOG/basebackup.log"; it_die "pg_basebackup failed"; }
printf '\nport = %s\nhot_standby = on\n' "$SPORT" | it_as_postgres tee -a "$STANDBY/postgresql.auto.conf" >/dev/null
it_as_postgres "$PGBIN/pg_ctl" -D "$STANDBY" -l "$IT_TMP/standby.log" -w -t 120 start \
    >"$BLOG/standby-start.log" 2>&1 || { cat "$BLOG/standby-start.log"; it_die "the standby did not start"; }
it_say "standby on port $SPORT"

wait_http() {
    local i
    for i in $(seq 1 300); do
        curl -s -o /dev/null --max-time 1 "$1" && return 0
        sleep 0.1
    done
    return 1
}

# start_gateway NAME ARGS...: sets URL_<NAME>
start_gateway() {
    local name=$1 port
    shift
    port=$(it_pick_port) || it_die "no free port"
    "$GATEWAY" --auth none --listen 127.0.0.1 --port "$port" --dbname "dbname=$BENCH_DB" "$@" \
        >"$BLOG/gateway-$name.log" 2>&1 &
    PIDS+=($!)
    printf -v "URL_$name" '%s' "http://127.0.0.1:$port/"
    wait_http "http://127.0.0.1:$port/" || { cat "$BLOG/gateway-$name.log"; it_die "gateway $name did not start"; }
}

start_gateway primary
start_gateway replica --replica "host=$PGHOST port=$SPORT dbname=$BENCH_DB"

# rps URL WORKLOAD LOG: requests/s of one wrk run (non-2xx answers fail the run)
rps() {
    local t=2
    wrk -t"$t" -c"$BENCH_CLIENTS" -d"$BENCH_SECONDS"s -s "$HERE/wrk/dynamodb.lua" "$1" -- "$2" "$BENCH_SCALE" \
        >"$3" 2>&1 || { cat "$3"; it_die "wrk failed"; }
    if grep -q 'Non-2xx' "$3"; then
        cat "$3"
        it_die "errors in $3"
    fi
    awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$3"
}

median() { tr ' ' '\n' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# a warm-up of each
for w in get_item query10; do
    BENCH_SECONDS=2 rps "$URL_primary" "$w" "$BLOG/warmup-primary-$w.log" >/dev/null
    BENCH_SECONDS=2 rps "$URL_replica" "$w" "$BLOG/warmup-replica-$w.log" >/dev/null
done

{
    echo "# item_table_gateway, $BENCH_CLIENTS connections, ${BENCH_SECONDS}s runs, median of $BENCH_RUNS, $(nproc) cores; primary and standby on this machine"
    printf '%-28s %12s\n' "workload" "requests/s"
    for w in get_item query10; do
        p=() r=()
        for i in $(seq 1 "$BENCH_RUNS"); do
            p+=("$(rps "$URL_primary" "$w" "$BLOG/primary-$w-$i.log")")
            r+=("$(rps "$URL_replica" "$w" "$BLOG/replica-$w-$i.log")")
        done
        printf '%-28s %12s\n' "$w primary only" "$(echo "${p[*]}" | median)"
        printf '%-28s %12s\n' "$w with one replica" "$(echo "${r[*]}" | median)"
    done
    routed=$(curl -s "${URL_replica}metrics" | awk '/^item_table_gateway_pool_requests_total/ { printf "%s ", $0 }')
    echo "# routed: $routed"
    n=() s=()
    for i in $(seq 1 "$BENCH_RUNS"); do
        n+=("$(rps "$URL_primary" get_item "$BLOG/noscrape-$i.log")")
        ( while :; do curl -s -o /dev/null "${URL_primary}metrics"; sleep 1; done ) &
        scraper=$!
        s+=("$(rps "$URL_primary" get_item "$BLOG/scrape-$i.log")")
        kill "$scraper" 2>/dev/null || true
        wait "$scraper" 2>/dev/null || true
    done
    printf '%-28s %12s\n' "get_item, no scrape" "$(echo "${n[*]}" | median)"
    printf '%-28s %12s\n' "get_item, /metrics every 1s" "$(echo "${s[*]}" | median)"
} | tee "$RESULTS"
