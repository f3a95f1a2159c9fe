#!/usr/bin/env bash
# The DynamoDB endpoint benchmark: the same GetItem, PutItem and 10-item
# Query, in the same run,
#   - over HTTP to item_table_gateway (--auth none), driven by wrk,
#   - as SELECT item_table.dynamodb(action, request) through pgbench,
#   - over HTTP to dynalite (the in-memory emulator), driven by wrk,
# at 1 and 16 connections (clients), and the gateway's memory (RSS) before
# and after a soak of a million requests.  Also GET / (the health check:
# the HTTP floor, no database) beside pgbench's SELECT 1, and the gateway
# checking SigV4 signatures (target "sigv4") beside --auth none.
#
#   bash bench/gateway/run.sh [--quick]
#
# Environment:
#   BENCH_SCALE    items per table                 (default 100000; --quick 10000)
#   BENCH_SECONDS  seconds per measured run        (default 10; --quick 3)
#   BENCH_RUNS     runs of each target, alternating, median reported
#                                                  (default 3; --quick 1)
#   BENCH_CLIENTS  connection counts               (default "1 16")
#   BENCH_SOAK     requests of the memory soak     (default 1000000; --quick 100000)
#   GATEWAY        the gateway program             (default: item_table_gateway on
#                  the PATH, else in pg_config --bindir; without it, the gateway
#                  columns are n/a and the rest still runs)
#   GATEWAY_ARGS   extra arguments for the gateway
#   GATEWAY_BASE   a second gateway program (e.g. an earlier build), measured
#                  in the same run, alternating, as target "base"
#   BENCH_SIGV4    1: also measure the gateway with --auth sigv4 (requests
#                  signed beforehand by sign.py), target "sigv4" (default 1)
#   BENCH_WORKLOADS  the calls (default "root get_item put_item query10")
# The table is printed and written to bench/results/gateway.txt; logs go to
# log/bench-gateway/.
set -euo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$IT_ROOT"
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"

HERE="$IT_ROOT/bench/gateway"
QUICK=0
case "${1:-}" in
    -h|--help) sed -n '2,28s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    --quick) QUICK=1 ;;
    "") ;;
    *) it_die "unknown argument '$1' (try --help)" ;;
esac
if [ "$QUICK" = 1 ]; then
    BENCH_SCALE=${BENCH_SCALE:-10000}; BENCH_SECONDS=${BENCH_SECONDS:-3}
    BENCH_RUNS=${BENCH_RUNS:-1};       BENCH_SOAK=${BENCH_SOAK:-100000}
else
    BENCH_SCALE=${BENCH_SCALE:-100000}; BENCH_SECONDS=${BENCH_SECONDS:-10}
    BENCH_RUNS=${BENCH_RUNS:-3};        BENCH_SOAK=${BENCH_SOAK:-1000000}
fi
BENCH_CLIENTS=${BENCH_CLIENTS:-1 16}
GATEWAY_ARGS=${GATEWAY_ARGS:-}
for v in BENCH_SCALE BENCH_SECONDS BENCH_RUNS BENCH_SOAK; do
    [[ ${!v} =~ ^[0-9]+$ ]] && [ "${!v}" -ge 1 ] || it_die "$v must be a positive integer (got '${!v}')"
done
[ "$BENCH_SCALE" -ge 100 ] || it_die "BENCH_SCALE must be at least 100"
for c in $BENCH_CLIENTS; do
    [[ $c =~ ^[0-9]+$ ]] && [ "$c" -ge 1 ] || it_die "BENCH_CLIENTS must list positive integers (got '$BENCH_CLIENTS')"
done
read -r -a WORKLOADS <<<"${BENCH_WORKLOADS:-root get_item put_item query10}"
for w in "${WORKLOADS[@]}"; do
    [ -f "$HERE/sql/$w.sql" ] || it_die "unknown workload '$w' (BENCH_WORKLOADS)"
done
BENCH_SIGV4=${BENCH_SIGV4:-1}
BENCH_DB=item_table_bench
BLOG="$IT_LOG_DIR/bench-gateway"
RESULTS="$IT_ROOT/bench/results/gateway.txt"
NCPU=$(nproc 2>/dev/null || echo 2)

# ---- set up -------------------------------------------------------------------
t0=$(date +%s.%N)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "== gateway benchmark: ${WORKLOADS[*]}; clients: $BENCH_CLIENTS"
echo "== scale=$BENCH_SCALE seconds=$BENCH_SECONDS runs=$BENCH_RUNS soak=$BENCH_SOAK"
it_need_root || it_die "root or sudo is required"
it_install_deps || it_die "dependency installation failed"
command -v wrk >/dev/null 2>&1 || it_install_deps wrk || it_die "could not install wrk"
it_install_node || it_die "could not install nodejs and npm"
command -v curl >/dev/null 2>&1 || it_install_deps curl || it_die "could not install curl"
it_pg_env || it_die "PostgreSQL tools not found"
it_build_install || it_die "build failed"

rm -rf "$BLOG"
mkdir -p "$BLOG" "$(dirname "$RESULTS")"

# dynalite, pinned in bench/gateway/package.json, installed beside it.
want=$(node -p 'require(process.argv[1]).dependencies.dynalite' "$HERE/package.json")
have=$(node -p 'try { require(process.argv[1]).version } catch { "" }' "$HERE/node_modules/dynalite/package.json" 2>/dev/null || true)
if [ "$have" != "$want" ]; then
    it_say "installing dynalite $want (npm)"
    (cd "$HERE" && npm install --no-audit --no-fund --package-lock=false --loglevel=error) \
        >"$BLOG/npm-install.log" 2>&1 || { tail -n 30 "$BLOG/npm-install.log"; it_die "npm install failed"; }
fi

GATEWAY=${GATEWAY:-}
if [ -z "$GATEWAY" ]; then
    if command -v item_table_gateway >/dev/null 2>&1; then
        GATEWAY=$(command -v item_table_gateway)
    elif [ -x "$("$PG_CONFIG" --bindir)/item_table_gateway" ]; then
        GATEWAY="$("$PG_CONFIG" --bindir)/item_table_gateway"
    fi
fi
if [ -n "$GATEWAY" ]; then
    it_say "gateway: $GATEWAY"
else
    it_warn "item_table_gateway not found (PATH, $("$PG_CONFIG" --bindir)): the gateway columns are n/a"
fi

it_start_cluster || it_die "could not start a PostgreSQL cluster"

GW_PID=""
DL_PID=""
BASE_PID=""
SIG_PID=""
stop_servers() {
    local p
    for p in "$GW_PID" "$DL_PID" "$BASE_PID" "$SIG_PID"; do
        [ -n "$p" ] && kill "$p" 2>/dev/null || true
    done
    for p in "$GW_PID" "$DL_PID" "$BASE_PID" "$SIG_PID"; do
        [ -n "$p" ] && wait "$p" 2>/dev/null || true
    done
    GW_PID=""
    DL_PID=""
    BASE_PID=""
    SIG_PID=""
}
on_exit() {
    local rc=$?
    stop_servers
    it_cleanup
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$PGBIN/createdb" "$BENCH_DB"
export PGDATABASE=$BENCH_DB
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION item_table' </dev/null
ts=$(date +%s.%N)
for setup in bench/workloads/get_item/setup.sql bench/workloads/query10/setup.sql; do
    "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -v scale="$BENCH_SCALE" -f "$setup" </dev/null \
        >>"$BLOG/setup.log" 2>&1 || { tail -n 20 "$BLOG/setup.log"; it_die "setup failed ($setup)"; }
done
"$PGBIN/psql" -X -q -c 'VACUUM ANALYZE' -c 'CHECKPOINT' </dev/null >>"$BLOG/setup.log" 2>&1
it_say "PostgreSQL loaded ($BENCH_SCALE items per table) in $(it_elapsed "$ts") s"

# wait_http URL: until GET answers (any status), at most 30 s
wait_http() {
    local i
    for i in $(seq 1 300); do
        curl -s -o /dev/null --max-time 1 "$1" && return 0
        sleep 0.1
    done
    return 1
}

# check_calls URL NAME: each workload's request answers 200 with a result
check_calls() {
    local out
    out=$(curl -s -w '\n%{http_code}' -X POST "$1" -H 'Content-Type: application/x-amz-json-1.0' \
        -H 'X-Amz-Target: DynamoDB_20120810.GetItem' -H "X-Amz-Date: $(date -u +%Y%m%dT%H%M%SZ)" \
        -H "Authorization: AWS4-HMAC-SHA256 Credential=bench/$(date -u +%Y%m%d)/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=$(printf '0%.0s' {1..64})" \
        -d '{"TableName": "bench", "Key": {"pk": {"S": "USER#1"}}}')
    case "$out" in
        *'"user number 1"'*200) return 0 ;;
    esac
    it_warn "$2 did not answer a GetItem of a loaded item: $out"
    return 1
}

DL_PORT=$(it_pick_port) || it_die "no free port"
node "$HERE/node_modules/dynalite/cli.js" --host 127.0.0.1 --port "$DL_PORT" \
    --createTableMs 0 --deleteTableMs 0 --updateTableMs 0 >"$BLOG/dynalite.log" 2>&1 &
DL_PID=$!
DL_URL="http://127.0.0.1:$DL_PORT/"
wait_http "$DL_URL" || { cat "$BLOG/dynalite.log"; it_die "dynalite did not start"; }
ts=$(date +%s.%N)
node "$HERE/load.mjs" "$DL_URL" "$BENCH_SCALE" >"$BLOG/dynalite-load.log" 2>&1 ||
    { cat "$BLOG/dynalite-load.log"; it_die "loading dynalite failed"; }
it_say "dynalite loaded in $(it_elapsed "$ts") s ($DL_URL)"
check_calls "$DL_URL" dynalite || it_die "dynalite check failed"

GW_URL=""
if [ -n "$GATEWAY" ]; then
    GW_PORT=$(it_pick_port) || it_die "no free port"
    # shellcheck disable=SC2086  # GATEWAY_ARGS is a list of arguments
    "$GATEWAY" --auth none --listen 127.0.0.1 --port "$GW_PORT" $GATEWAY_ARGS >"$BLOG/gateway.log" 2>&1 &
    GW_PID=$!
    GW_URL="http://127.0.0.1:$GW_PORT/"
    if ! wait_http "$GW_URL" || ! check_calls "$GW_URL" gateway; then
        tail -n 20 "$BLOG/gateway.log"
        it_die "the gateway did not start or answer ($GATEWAY --auth none --listen 127.0.0.1 --port $GW_PORT $GATEWAY_ARGS)"
    fi
    it_say "gateway started ($GW_URL, pid $GW_PID)"
fi

BASE_URL=""
GATEWAY_BASE=${GATEWAY_BASE:-}
if [ -n "$GATEWAY_BASE" ]; then
    BASE_PORT=$(it_pick_port) || it_die "no free port"
    # shellcheck disable=SC2086
    "$GATEWAY_BASE" --auth none --listen 127.0.0.1 --port "$BASE_PORT" $GATEWAY_ARGS >"$BLOG/base.log" 2>&1 &
    BASE_PID=$!
    BASE_URL="http://127.0.0.1:$BASE_PORT/"
    if ! wait_http "$BASE_URL" || ! check_calls "$BASE_URL" base; then
        tail -n 20 "$BLOG/base.log"
        it_die "the base gateway did not start or answer ($GATEWAY_BASE)"
    fi
    it_say "base gateway started ($BASE_URL, pid $BASE_PID)"
fi

# The same gateway checking SigV4 signatures, with an access key whose
# requests run as the bootstrap superuser (as --auth none's do here); the
# requests are signed beforehand by sign.py (run_wrk).
SIG_URL=""
SIG_KEY=""
if [ -n "$GATEWAY" ] && [ "$BENCH_SIGV4" = 1 ]; then
    SIG_KEY=$("$PGBIN/psql" -X -qAt -F ' ' -v ON_ERROR_STOP=1 \
        -c "SELECT access_key_id, secret_access_key FROM item_table.create_access_key(current_user::regrole)" </dev/null)
    SIG_PORT=$(it_pick_port) || it_die "no free port"
    # shellcheck disable=SC2086
    "$GATEWAY" --auth sigv4 --listen 127.0.0.1 --port "$SIG_PORT" $GATEWAY_ARGS >"$BLOG/sigv4.log" 2>&1 &
    SIG_PID=$!
    SIG_URL="http://127.0.0.1:$SIG_PORT/"
    wait_http "$SIG_URL" || { tail -n 20 "$BLOG/sigv4.log"; it_die "the sigv4 gateway did not start"; }
    # shellcheck disable=SC2086  # SIG_KEY is "id secret"
    python3 "$HERE/sign.py" "127.0.0.1:$SIG_PORT" $SIG_KEY get_item 1 1 "$BLOG/sigv4-check.txt"
    IFS=$'\t' read -r st sd sa sb <"$BLOG/sigv4-check.txt"
    out=$(curl -s -w '\n%{http_code}' -X POST "$SIG_URL" -H 'Content-Type: application/x-amz-json-1.0' \
        -H "X-Amz-Target: $st" -H "X-Amz-Date: $sd" -H "Authorization: $sa" -d "$sb")
    case "$out" in
        *'"user number 1"'*200) ;;
        *) tail -n 20 "$BLOG/sigv4.log"; it_die "the sigv4 gateway did not answer a signed GetItem: $out" ;;
    esac
    it_say "sigv4 gateway started ($SIG_URL, pid $SIG_PID)"
fi

# ---- CPU accounting -------------------------------------------------------------
# CPU time (user + system) per request of each process on the path: the
# driver (wrk or pgbench, timed by bash), the HTTP server (gateway or
# dynalite: /proc/PID/stat) and PostgreSQL (the postmaster, its live
# children and the children it reaped: /proc/PID/stat fields 14-17).
CLK_TCK=$(getconf CLK_TCK 2>/dev/null || echo 100)
PM_PID=$($SUDO head -n 1 "$IT_PGDATA/postmaster.pid")
pid_ticks() {
    [ -n "${1:-}" ] && [ -r "/proc/$1/stat" ] || { echo 0; return; }
    awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}
pg_ticks() {
    local t p
    t=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$PM_PID/stat")
    for p in $(pgrep -P "$PM_PID"); do
        t=$((t + $(pid_ticks "$p")))
    done
    echo "$t"
}
# cpu_per_request N DRIVER_SECONDS SERVER_TICKS PG_TICKS -> "driver server pg" in us
cpu_per_request() {
    awk -v n="$1" -v d="$2" -v s="$3" -v p="$4" -v hz="$CLK_TCK" 'BEGIN {
        if (n + 0 <= 0) { print "nan nan nan"; exit }
        printf "%.1f %.1f %.1f\n", d * 1e6 / n, s * 1e6 / hz / n, p * 1e6 / hz / n }'
}

# ---- measuring ------------------------------------------------------------------
threads_for() {  # wrk/pgbench threads for N connections: at most the cores
    if [ "$1" -lt "$NCPU" ]; then echo "$1"; else echo "$NCPU"; fi
}

# to_ms VALUE-WITH-UNIT (wrk's "1.23ms", "850.00us", "1.02s") -> milliseconds
to_ms() {
    awk -v v="$1" 'BEGIN {
        if (v ~ /us$/) { sub(/us$/, "", v); printf "%.3f\n", v / 1000 }
        else if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.3f\n", v }
        else if (v ~ /m$/) { sub(/m$/, "", v); printf "%.3f\n", v * 60000 }
        else if (v ~ /s$/) { sub(/s$/, "", v); printf "%.3f\n", v * 1000 }
        else print "nan" }'
}

# run_wrk URL WORKLOAD CLIENTS SECONDS LOG SERVER_PID [SIGNED]
#   -> "rps p50ms p99ms cpu_driver cpu_server cpu_pg"
# SIGNED (any value): the requests are signed with $SIG_KEY beforehand
run_wrk() {
    local t rc=0 s0 p0 TIMEFORMAT='%U %S' times signed=()
    t=$(threads_for "$3")
    if [ -n "${7:-}" ] && [ "$2" != root ]; then
        local host=${1#http://}
        # shellcheck disable=SC2086  # SIG_KEY is "id secret"
        python3 "$HERE/sign.py" "${host%/}" $SIG_KEY "$2" "$BENCH_SCALE" 20000 "$5.signed" || return 1
        signed=("$5.signed")
    fi
    s0=$(pid_ticks "$6"); p0=$(pg_ticks)
    { time wrk -t"$t" -c"$3" -d"$4"s --latency -s "$HERE/wrk/dynamodb.lua" "$1" -- "$2" "$BENCH_SCALE" "${signed[@]}" \
            </dev/null >"$5" 2>&1; } 2>"$5.time" || rc=$?
    rm -f "$5.signed"
    times=$(cat "$5.time")
    if [ "$rc" -ne 0 ]; then
        tail -n 20 "$5" >&2
        return 1
    fi
    local cpu
    cpu=$(cpu_per_request "$(awk '/requests in/ { print $1 }' "$5")" "$(awk '{ print $1 + $2 }' <<<"$times")" \
        $(($(pid_ticks "$6") - s0)) $(($(pg_ticks) - p0)))
    if grep -q 'Non-2xx or 3xx responses' "$5"; then
        echo "---- $(grep 'Non-2xx' "$5") ($5) ----" >&2
        return 1
    fi
    local rps p50 p99
    rps=$(awk '/^Requests\/sec:/ { print $2 }' "$5")
    p50=$(awk '$1 == "50%" { print $2 }' "$5")
    p99=$(awk '$1 == "99%" { print $2 }' "$5")
    [ -n "$rps" ] && [ -n "$p50" ] && [ -n "$p99" ] || { cat "$5" >&2; return 1; }
    printf '%s %s %s %s\n' "$rps" "$(to_ms "$p50")" "$(to_ms "$p99")" "$cpu"
}

# run_pgbench WORKLOAD CLIENTS SECONDS LOG -> "tps p50ms p99ms cpu_driver cpu_server cpu_pg"
# (p50 and p99 from the per-transaction log, whose third field is the latency in
# microseconds; no server between pgbench and PostgreSQL: cpu_server 0)
run_pgbench() {
    local t prefix="$BLOG/pgbench-$1-$2" rc=0 p0 TIMEFORMAT='%U %S' times
    t=$(threads_for "$2")
    rm -f "$prefix".*
    p0=$(pg_ticks)
    { time "$PGBIN/pgbench" -n -M prepared -c "$2" -j "$t" -T "$3" -D scale="$BENCH_SCALE" \
        -l --log-prefix="$prefix" -f "$HERE/sql/$1.sql" </dev/null >"$4" 2>&1; } 2>"$4.time" || rc=$?
    times=$(cat "$4.time")
    local cpu
    cpu=$(cpu_per_request "$(awk '/number of transactions actually processed/ { split($6, a, "/"); print a[1] }' "$4")" \
        "$(awk '{ print $1 + $2 }' <<<"$times")" 0 $(($(pg_ticks) - p0)))
    local tps
    tps=$(awk '/^tps = .*(without initial connection time|excluding connections establishing)/ { printf "%.1f\n", $3; exit }' "$4")
    if [ "$rc" -ne 0 ] || [ -z "$tps" ] || grep -q 'aborted in command\|Run was aborted' "$4"; then
        tail -n 20 "$4" >&2
        return 1
    fi
    local pct
    pct=$(cat "$prefix".* | awk '{ print $3 }' | sort -n | awk '{ a[NR] = $1 } END {
        if (NR == 0) { print "nan nan"; exit }
        i = int(NR * 0.5); if (i < NR * 0.5) i++; if (i < 1) i = 1
        j = int(NR * 0.99); if (j < NR * 0.99) j++; if (j < 1) j = 1
        printf "%.3f %.3f\n", a[i] / 1000, a[j] / 1000 }')
    rm -f "$prefix".*
    printf '%s %s %s\n' "$tps" "$pct" "$cpu"
}

median() {
    printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END {
        if (NR == 0) { print "n/a"; exit }
        if (NR % 2) printf "%.1f\n", a[(NR + 1) / 2]
        else        printf "%.1f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
median3() {  # like median, 3 decimals (latencies in ms)
    printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END {
        if (NR == 0) { print "n/a"; exit }
        if (NR % 2) printf "%.3f\n", a[(NR + 1) / 2]
        else        printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a" || b + 0 == 0) print "n/a"; else printf "%.2f\n", a / b }'
}

rows=()
base_rows=()
sig_rows=()
cpu_rows=()
failed=()
# cpu_row WORKLOAD CLIENTS TARGET "drv srv pg" lists (one per run) -> medians
cpu_row() {
    local w=$1 c=$2 target=$3; shift 3
    [ "$#" -gt 0 ] || return 0
    local d=() s=() p=() x a b e
    for x in "$@"; do read -r a b e <<<"$x"; d+=("$a"); s+=("$b"); p+=("$e"); done
    local md ms mp
    md=$(median "${d[@]}"); ms=$(median "${s[@]}"); mp=$(median "${p[@]}")
    cpu_rows+=("$(printf '%-9s | %4s | %-8s | %8s | %8s | %8s | %8s' "$w" "$c" "$target" "$md" "$ms" "$mp" \
        "$(awk -v a="$md" -v b="$ms" -v e="$mp" 'BEGIN { printf "%.1f", a + b + e }')")")
}
# measure TARGET URL PID W C R [SIGNED]: one run; appends to that target's
# entries of RPS, P50, P99 and CPU and sets MV to the rate ("fail": status 1)
declare -A RPS P50 P99 CPU
measure() {
    local target=$1 url=$2 pid=$3 w=$4 c=$5 r=$6 out a m b x
    if [ "$target" = sql ]; then
        out=$(run_pgbench "$w" "$c" "$BENCH_SECONDS" "$BLOG/$w-c$c.sql.$r.log") || { MV=fail; return 1; }
    else
        out=$(run_wrk "$url" "$w" "$c" "$BENCH_SECONDS" "$BLOG/$w-c$c.$target.$r.log" "$pid" "${7:-}") ||
            { MV=fail; return 1; }
    fi
    read -r a m b x <<<"$out"
    RPS[$target]+=" $a"; P50[$target]+=" $m"; P99[$target]+=" $b"; CPU[$target]+="$x|"
    MV=$a
}
# target_stat TARGET -> "rps p50 p99" medians (n/a without runs)
target_stat() {
    [ -n "${RPS[$1]:-}" ] || { echo "n/a n/a n/a"; return; }
    # shellcheck disable=SC2086  # word lists
    echo "$(median ${RPS[$1]}) $(median3 ${P50[$1]}) $(median3 ${P99[$1]})"
}
for w in "${WORKLOADS[@]}"; do
    for c in $BENCH_CLIENTS; do
        RPS=(); P50=(); P99=(); CPU=()
        # the targets of this call: dynalite has no health check to compare
        dl=$DL_URL
        [ "$w" = root ] && dl=""
        # unrecorded warm-up of each target
        run_pgbench "$w" "$c" 2 "$BLOG/$w-c$c.sql.warmup.log" >/dev/null || true
        [ -n "$GW_URL" ] && { run_wrk "$GW_URL" "$w" "$c" 2 "$BLOG/$w-c$c.gateway.warmup.log" "$GW_PID" >/dev/null || true; }
        [ -n "$SIG_URL" ] && { run_wrk "$SIG_URL" "$w" "$c" 2 "$BLOG/$w-c$c.sigv4.warmup.log" "$SIG_PID" signed >/dev/null || true; }
        [ -n "$BASE_URL" ] && { run_wrk "$BASE_URL" "$w" "$c" 2 "$BLOG/$w-c$c.base.warmup.log" "$BASE_PID" >/dev/null || true; }
        [ -n "$dl" ] && { run_wrk "$dl" "$w" "$c" 2 "$BLOG/$w-c$c.dynalite.warmup.log" "$DL_PID" >/dev/null || true; }
        ok=1
        for r in $(seq 1 "$BENCH_RUNS"); do
            sv=n/a; gv=n/a; dv=n/a; bv=n/a; kv=n/a
            measure sql "" "" "$w" "$c" "$r" || ok=0; sv=$MV
            if [ -n "$GW_URL" ]; then measure gateway "$GW_URL" "$GW_PID" "$w" "$c" "$r" || ok=0; gv=$MV; fi
            if [ -n "$SIG_URL" ]; then measure sigv4 "$SIG_URL" "$SIG_PID" "$w" "$c" "$r" signed || ok=0; kv=$MV; fi
            if [ -n "$BASE_URL" ]; then measure base "$BASE_URL" "$BASE_PID" "$w" "$c" "$r" || ok=0; bv=$MV; fi
            if [ -n "$dl" ]; then measure dynalite "$dl" "$DL_PID" "$w" "$c" "$r" || ok=0; dv=$MV; fi
            printf '   %-9s c=%-3s run %d/%d  sql %9s/s  gateway %9s/s  sigv4 %9s/s  base %9s/s  dynalite %9s/s\n' \
                "$w" "$c" "$r" "$BENCH_RUNS" "$sv" "$gv" "$kv" "$bv" "$dv"
        done
        [ "$ok" = 1 ] || failed+=("$w c=$c")
        read -r s sm sp <<<"$(target_stat sql)"
        read -r g gm gp <<<"$(target_stat gateway)"
        read -r d dm dp <<<"$(target_stat dynalite)"
        read -r bsv _ bsp <<<"$(target_stat base)"
        read -r k km kp <<<"$(target_stat sigv4)"
        rows+=("$(printf '%-9s | %4s | %10s | %7s | %7s | %10s | %7s | %7s | %10s | %7s | %7s | %11s | %16s | %12s' \
            "$w" "$c" "$g" "$gm" "$gp" "$s" "$sm" "$sp" "$d" "$dm" "$dp" "$(ratio "$g" "$s")" "$(ratio "$g" "$d")" "$(ratio "$s" "$d")")")
        [ -n "$BASE_URL" ] && base_rows+=("$(printf '%-9s | %4s | %10s | %8s | %10s | %8s | %11s | %12s | %13s' \
            "$w" "$c" "$bsv" "$bsp" "$g" "$gp" "$(ratio "$bsv" "$s")" "$(ratio "$g" "$s")" "$(ratio "$g" "$bsv")")")
        [ -n "$SIG_URL" ] && sig_rows+=("$(printf '%-9s | %4s | %10s | %7s | %7s | %10s | %7s | %7s | %12s' \
            "$w" "$c" "$k" "$km" "$kp" "$g" "$gm" "$gp" "$(ratio "$k" "$g")")")
        for target in sql gateway sigv4 base dynalite; do
            [ -n "${CPU[$target]:-}" ] || continue
            IFS='|' read -r -a runs <<<"${CPU[$target]%|}"
            cpu_row "$w" "$c" "$target" "${runs[@]}"
        done
    done
done

# ---- memory: the gateway's RSS over a soak of BENCH_SOAK requests -------------------
soak_line="gateway memory: n/a (no gateway)"
if [ -n "$GW_URL" ]; then
    rss_kb() { ps -o rss= -p "$GW_PID" | tr -d ' '; }
    c=16
    rss0=$(rss_kb)
    done_requests=0
    chunk=0
    it_say "memory soak: $BENCH_SOAK requests (GetItem, PutItem, Query in turn) at $c connections; RSS before: ${rss0} kB"
    rss_mid=""
    while [ "$done_requests" -lt "$BENCH_SOAK" ]; do
        chunk=$((chunk + 1))
        log="$BLOG/soak.$chunk.log"
        wrk -t"$(threads_for $c)" -c"$c" -d10s -s "$HERE/wrk/dynamodb.lua" "$GW_URL" -- mix "$BENCH_SCALE" </dev/null >"$log" 2>&1 ||
            { tail -n 20 "$log"; failed+=("soak"); break; }
        if grep -q 'Non-2xx' "$log"; then failed+=("soak: $(grep 'Non-2xx' "$log")"); break; fi
        n=$(awk '/requests in/ { print $1 }' "$log")
        done_requests=$((done_requests + ${n:-0}))
        [ "${n:-0}" -gt 0 ] || { failed+=("soak: no requests"); break; }
        # the RSS after the first tenth is the warmed-up baseline
        if [ -z "$rss_mid" ] && [ "$done_requests" -ge $((BENCH_SOAK / 10)) ]; then rss_mid=$(rss_kb); fi
    done
    rss1=$(rss_kb)
    soak_line=$(printf 'gateway RSS: %s kB at start, %s kB after %s requests (warm), %s kB after %s requests' \
        "$rss0" "${rss_mid:-?}" "$((BENCH_SOAK / 10))" "$rss1" "$done_requests")
    it_say "$soak_line"
fi

# ---- report -----------------------------------------------------------------------
report=$(mktemp)
{
    echo "item_table gateway benchmark  $(date -u '+%Y-%m-%d %H:%M UTC')  commit $(git rev-parse --short HEAD 2>/dev/null || echo none)"
    echo "PostgreSQL $("$PGBIN/postgres" --version | sed -E 's/.* ([0-9][0-9.]*).*/\1/'); $NCPU cores; scale=$BENCH_SCALE; ${BENCH_RUNS} x ${BENCH_SECONDS}s per target, median; dynalite $want; node $(node --version)"
    echo "gateway = HTTP to item_table_gateway --auth none (wrk); sql = SELECT item_table.dynamodb(...) (pgbench -M prepared); dynalite = HTTP (wrk)"
    echo "requests/s and p99 latency (ms); wrk and pgbench use min(connections, cores) threads and share the cores with the servers"
    echo "load average at start: $LOAD0; at the end: $(cut -d' ' -f1-3 /proc/loadavg) (anything else running on the machine skews all three targets)"
    echo
    echo "(root = GET /, the health check, beside pgbench's SELECT 1: the HTTP floor)"
    printf '%-9s | %4s | %10s | %7s | %7s | %10s | %7s | %7s | %10s | %7s | %7s | %11s | %16s | %12s\n' workload conn "gateway/s" "p50 ms" "p99 ms" "sql/s" "p50 ms" "p99 ms" "dynalite/s" "p50 ms" "p99 ms" "gateway/sql" "gateway/dynalite" "sql/dynalite"
    printf '%s\n' "----------+------+------------+---------+---------+------------+---------+---------+------------+---------+---------+-------------+------------------+-------------"
    for row in "${rows[@]}"; do printf '%s\n' "$row"; done
    if [ "${#base_rows[@]}" -gt 0 ]; then
        echo
        echo "base = $GATEWAY_BASE, measured in the same run"
        printf '%-9s | %4s | %10s | %8s | %10s | %8s | %11s | %12s | %13s\n' workload conn "base/s" "p99 ms" "gateway/s" "p99 ms" "base/sql" "gateway/sql" "gateway/base"
        printf '%s\n' "----------+------+------------+----------+------------+----------+-------------+--------------+--------------"
        for row in "${base_rows[@]}"; do printf '%s\n' "$row"; done
    fi
    if [ "${#sig_rows[@]}" -gt 0 ]; then
        echo
        echo "sigv4 = the same gateway with --auth sigv4 (every request's signature checked), same run"
        printf '%-9s | %4s | %10s | %7s | %7s | %10s | %7s | %7s | %12s\n' workload conn "sigv4/s" "p50 ms" "p99 ms" "gateway/s" "p50 ms" "p99 ms" "sigv4/gateway"
        printf '%s\n' "----------+------+------------+---------+---------+------------+---------+---------+--------------"
        for row in "${sig_rows[@]}"; do printf '%s\n' "$row"; done
    fi
    echo
    echo "CPU time per request (us, user + system, median over the runs): driver = wrk or pgbench,"
    echo "server = the gateway or dynalite process, postgres = postmaster and all backends"
    printf '%-9s | %4s | %-8s | %8s | %8s | %8s | %8s\n' workload conn target driver server postgres total
    printf '%s\n' "----------+------+----------+----------+----------+----------+---------"
    for row in "${cpu_rows[@]}"; do printf '%s\n' "$row"; done
    echo
    echo "$soak_line"
    if [ "${#failed[@]}" -gt 0 ]; then
        echo
        echo "FAILED: ${failed[*]}"
    fi
} >"$report"
echo
cat "$report"
cp "$report" "$RESULTS"
rm -f "$report"
stop_servers
it_cleanup
it_say "benchmark finished in $(it_elapsed "$t0") s; table written to ${RESULTS#"$IT_ROOT"/}"
[ "${#failed[@]}" -eq 0 ]
