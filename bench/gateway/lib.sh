# shellcheck shell=bash
# Shared by the gateway's CPU benchmarks (profile.sh, ab.sh): a throw-away
# cluster with the benchmark's tables, gateways started and stopped on fresh
# ports, wrk runs with SigV4-signed requests where the gateway checks them.
# Sourcing it also sources scripts/lib.sh, moves to the top of the tree
# (IT_ROOT) and sets HERE to this directory.

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$IT_ROOT" || exit 1
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"
HERE="$IT_ROOT/bench/gateway"

# Globals the functions set: GW_PID, GW_URL, GW_AUTH (the running gateway),
# SIG_KEY ("id secret" of the access key made by gw_bench_key).

# shellcheck disable=SC2034  # NCPU and CLK_TCK are the sourcing scripts'
NCPU=$(nproc 2>/dev/null || echo 2)
# shellcheck disable=SC2034
CLK_TCK=$(getconf CLK_TCK 2>/dev/null || echo 100)
GW_PID=""
GW_URL=""
GW_AUTH=none
SIG_KEY=""

# wrk, installed from Debian's packages where missing
gw_bench_need_wrk() {
    command -v wrk >/dev/null 2>&1 || it_install_deps wrk || it_die "could not install wrk"
}

# stop the running gateway, if any
gw_bench_stop() {
    if [ -n "$GW_PID" ]; then
        kill "$GW_PID" 2>/dev/null || true
        wait "$GW_PID" 2>/dev/null || true
        GW_PID=""
    fi
}

gw_bench_exit() {
    local rc=$?
    gw_bench_stop
    it_cleanup
    exit "$rc"
}

# gw_bench_cluster SCALE LOG: a cluster (stopped and removed at exit) with
# database item_table_bench (PGDATABASE) holding the GetItem/PutItem and
# Query tables of SCALE items, vacuumed and checkpointed
gw_bench_cluster() {
    local setup
    it_start_cluster || it_die "could not start a PostgreSQL cluster"
    trap gw_bench_exit EXIT
    "$PGBIN/createdb" item_table_bench
    export PGDATABASE=item_table_bench
    "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION item_table' </dev/null
    for setup in bench/workloads/get_item/setup.sql bench/workloads/query10/setup.sql; do
        "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -v scale="$1" -f "$setup" </dev/null \
            >>"$2" 2>&1 || { tail -n 20 "$2"; it_die "setup failed ($setup)"; }
    done
    "$PGBIN/psql" -X -q -c 'VACUUM ANALYZE' -c 'CHECKPOINT' </dev/null >>"$2" 2>&1
}

# an access key of the current role, into SIG_KEY
gw_bench_key() {
    SIG_KEY=$("$PGBIN/psql" -X -qAt -F ' ' -v ON_ERROR_STOP=1 \
        -c "SELECT access_key_id, secret_access_key FROM item_table.create_access_key(current_user::regrole)" </dev/null)
}

# gw_bench_start LOG AUTH ARGS COMMAND...: COMMAND (the gateway program,
# after any wrapper: env, valgrind) with --auth AUTH, a fresh port and the
# word list ARGS; returns once it answers GET /
gw_bench_start() {
    local log=$1 port
    GW_AUTH=$2
    local args=$3
    shift 3
    port=$(it_pick_port) || it_die "no free port"
    # shellcheck disable=SC2086  # args is a word list
    "$@" --auth "$GW_AUTH" --listen 127.0.0.1 --port "$port" $args >"$log" 2>&1 &
    GW_PID=$!
    GW_URL="http://127.0.0.1:$port/"
    for _ in $(seq 1 600); do
        curl -s -o /dev/null --max-time 2 "$GW_URL" && return 0
        sleep 0.1
    done
    tail -n 20 "$log"
    it_die "the gateway did not start"
}

# gw_bench_wrk WORKLOAD SECONDS LOG SCALE CLIENTS THREADS [WRK OPTION...]
# -> requests served; fails on a non-2xx answer.  Requests signed by
# sign.py when the running gateway checks signatures.
gw_bench_wrk() {
    local w=$1 secs=$2 log=$3 scale=$4 clients=$5 threads=$6 signed=() host=${GW_URL#http://}
    shift 6
    if [ "$GW_AUTH" = sigv4 ] && [ "$w" != root ]; then
        # shellcheck disable=SC2086  # SIG_KEY is "id secret"
        python3 "$HERE/sign.py" "${host%/}" $SIG_KEY "$w" "$scale" 20000 "$log.signed" || return 1
        signed=("$log.signed")
    fi
    wrk "$@" -t"$threads" -c"$clients" -d"$secs"s -s "$HERE/wrk/dynamodb.lua" "$GW_URL" -- "$w" "$scale" \
        "${signed[@]}" </dev/null >"$log" 2>&1 || { tail -n 20 "$log" >&2; return 1; }
    if grep -q 'Non-2xx' "$log"; then grep 'Non-2xx' "$log" >&2; return 1; fi
    awk '/requests in/ { print $1 }' "$log"
}
