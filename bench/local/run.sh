#!/usr/bin/env bash
# item_table_local beside DynamoDB Local and dynalite, in the same run:
#
#   - startup to ready: item_table_local on first use (initdb included), with
#     an existing data directory, and -inMemory; DynamoDB Local -inMemory
#     (time until each answers HTTP);
#   - PutItem, GetItem and a 10-item Query over HTTP (wrk, the gateway
#     benchmark's script and data: bench/gateway/wrk/dynamodb.lua and
#     load.mjs) at 1 and 16 connections against item_table_local -inMemory,
#     DynamoDB Local -inMemory and dynalite.
#
#   DYNAMODB_LOCAL_JAR=.../DynamoDBLocal.jar bash bench/local/run.sh
#
# Environment:
#   DYNAMODB_LOCAL_JAR  DynamoDB Local's jar (its DynamoDBLocal_lib beside
#                       it; Java 17, Debian's openjdk-17-jre-headless); unset:
#                       the DynamoDB Local column is skipped, with a message
#   BENCH_SCALE    items per table                  (default 10000)
#   BENCH_SECONDS  seconds per measured run         (default 5)
#   BENCH_STARTS   startups measured of each kind, median reported (default 5)
#   BENCH_CLIENTS  connection counts                (default "1 16")
#   BENCH_RUNS     runs of each target, in turn, median reported (default 3)
# The table is printed and written to bench/results/local.txt; logs go to
# log/bench-local/.
set -euo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$IT_ROOT"
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"

case "${1:-}" in
    -h|--help) sed -n '2,25s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    "") ;;
    *) it_die "unknown argument '$1' (try --help)" ;;
esac
BENCH_SCALE=${BENCH_SCALE:-10000}
BENCH_SECONDS=${BENCH_SECONDS:-5}
BENCH_STARTS=${BENCH_STARTS:-5}
BENCH_CLIENTS=${BENCH_CLIENTS:-1 16}
BENCH_RUNS=${BENCH_RUNS:-3}
for v in BENCH_SCALE BENCH_SECONDS BENCH_STARTS BENCH_RUNS; do
    [[ ${!v} =~ ^[0-9]+$ ]] && [ "${!v}" -ge 1 ] || it_die "$v must be a positive integer (got '${!v}')"
done
GW="$IT_ROOT/bench/gateway"
BLOG="$IT_LOG_DIR/bench-local"
RESULTS="$IT_ROOT/bench/results/local.txt"
WORKLOADS=(put_item get_item query10)

it_need_root || it_die "root or sudo is required"
it_install_deps "postgresql-$IT_PG_MAJOR" "postgresql-server-dev-$IT_PG_MAJOR" build-essential \
    libmicrohttpd-dev liburing-dev zlib1g-dev libzstd-dev libssl-dev libpq-dev curl || it_die "dependency installation failed"
command -v wrk >/dev/null 2>&1 || it_install_deps wrk || it_die "could not install wrk"
it_install_node || it_die "could not install nodejs and npm"
it_pg_env || it_die "PostgreSQL tools not found"
it_build_install || it_die "build failed"
LOCAL="$("$PG_CONFIG" --bindir)/item_table_local"
[ -x "$LOCAL" ] || it_die "$LOCAL was not installed"

rm -rf "$BLOG"
mkdir -p "$BLOG" "$(dirname "$RESULTS")"
want=$(node -p 'require(process.argv[1]).dependencies.dynalite' "$GW/package.json")
have=$(node -p 'try { require(process.argv[1]).version } catch { "" }' "$GW/node_modules/dynalite/package.json" 2>/dev/null || true)
if [ "$have" != "$want" ]; then
    it_say "installing dynalite $want (npm)"
    (cd "$GW" && npm install --no-audit --no-fund --package-lock=false --loglevel=error) \
        >"$BLOG/npm-install.log" 2>&1 || { tail -n 30 "$BLOG/npm-install.log"; it_die "npm install failed"; }
fi
JAR=${DYNAMODB_LOCAL_JAR:-}
if [ -n "$JAR" ]; then
    [ -f "$JAR" ] || it_die "DYNAMODB_LOCAL_JAR: $JAR not found"
    command -v java >/dev/null 2>&1 || it_die "java not found (Debian: openjdk-17-jre-headless)"
else
    it_say "DYNAMODB_LOCAL_JAR is not set: DynamoDB Local is not measured"
fi

# a directory the instance's user reaches (as root: postgres)
WORK=$(mktemp -d)
chmod 755 "$WORK"
PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_http URL: until it answers HTTP (any status), polling every 10 ms
wait_http() {
    local i
    for i in $(seq 1 6000); do
        curl -s -o /dev/null --max-time 1 "$1" && return 0
        sleep 0.01
    done
    return 1
}
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", a - b }'; }
median() {
    printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END {
        if (NR == 0) { print "n/a"; exit }
        if (NR % 2) printf "%.2f\n", a[(NR + 1) / 2]
        else        printf "%.2f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# start_local LOG ARGS...: start, wait for the ready line; sets LPID, LURL
start_local() {
    local log=$1 i line
    shift
    (cd "$WORK" && exec "$LOCAL" --port 0 "$@") </dev/null >"$log" 2>"$log.err" &
    LPID=$!
    LURL=""
    for i in $(seq 1 6000); do
        line=$(grep -m 1 '^item_table_local: listening on ' "$log" 2>/dev/null || true)
        if [ -n "$line" ]; then
            LURL=${line#item_table_local: listening on }
            LURL="${LURL%% *}/"
            return 0
        fi
        kill -0 "$LPID" 2>/dev/null || break
        sleep 0.01
    done
    cat "$log.err" >&2
    return 1
}
stop_pid() { kill -TERM "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# ---- startup ---------------------------------------------------------------
first=(); again=(); mem=(); ddbl=()
for i in $(seq 1 "$BENCH_STARTS"); do
    rm -rf "$WORK/data"
    t=$(now); start_local "$BLOG/start-first.log" --data-dir "$WORK/data" || it_die "item_table_local did not start"
    first+=("$(sub "$(now)" "$t")"); stop_pid "$LPID"
    t=$(now); start_local "$BLOG/start-again.log" --data-dir "$WORK/data" || it_die "item_table_local did not start again"
    again+=("$(sub "$(now)" "$t")"); stop_pid "$LPID"
    t=$(now); start_local "$BLOG/start-mem.log" -inMemory || it_die "item_table_local -inMemory did not start"
    mem+=("$(sub "$(now)" "$t")"); stop_pid "$LPID"
    if [ -n "$JAR" ]; then
        port=$(it_pick_port)
        t=$(now)
        (cd "$WORK" && exec java -Djava.library.path="$(dirname "$JAR")/DynamoDBLocal_lib" -jar "$JAR" \
            -inMemory -port "$port") </dev/null >"$BLOG/ddblocal-start.log" 2>&1 &
        p=$!
        wait_http "http://127.0.0.1:$port/" || it_die "DynamoDB Local did not start"
        ddbl+=("$(sub "$(now)" "$t")"); stop_pid "$p"
    fi
    it_say "startup $i/$BENCH_STARTS: first use ${first[-1]} s, again ${again[-1]} s, -inMemory ${mem[-1]} s${JAR:+, DynamoDB Local ${ddbl[-1]:-} s}"
done
rm -rf "$WORK/data"

# ---- requests ----------------------------------------------------------------
declare -A URL
start_local "$BLOG/local.log" -inMemory || it_die "item_table_local -inMemory did not start"
PIDS+=("$LPID"); URL[item_table_local]=$LURL
port=$(it_pick_port)
node "$GW/node_modules/dynalite/cli.js" --host 127.0.0.1 --port "$port" \
    --createTableMs 0 --deleteTableMs 0 --updateTableMs 0 >"$BLOG/dynalite.log" 2>&1 &
PIDS+=("$!"); URL[dynalite]="http://127.0.0.1:$port/"
targets=(item_table_local dynalite)
if [ -n "$JAR" ]; then
    port=$(it_pick_port)
    (cd "$WORK" && exec java -Djava.library.path="$(dirname "$JAR")/DynamoDBLocal_lib" -jar "$JAR" \
        -inMemory -port "$port") </dev/null >"$BLOG/ddblocal.log" 2>&1 &
    PIDS+=("$!"); URL[dynamodb_local]="http://127.0.0.1:$port/"
    targets=(item_table_local dynamodb_local dynalite)
fi
for t in "${targets[@]}"; do
    wait_http "${URL[$t]}" || it_die "$t did not start"
    ts=$(now)
    node "$GW/load.mjs" "${URL[$t]}" "$BENCH_SCALE" >"$BLOG/$t-load.log" 2>&1 ||
        { tail -n 20 "$BLOG/$t-load.log"; it_die "loading $t failed"; }
    it_say "$t loaded ($BENCH_SCALE items per table) in $(sub "$(now)" "$ts") s"
done

declare -A RPS
for w in "${WORKLOADS[@]}"; do
    for c in $BENCH_CLIENTS; do
        thr=$(( c < 2 ? 1 : 2 ))
        declare -A runs=()
        for t in "${targets[@]}"; do
            wrk -t "$thr" -c "$c" -d 1 -s "$GW/wrk/dynamodb.lua" "${URL[$t]}" -- "$w" "$BENCH_SCALE" >/dev/null 2>&1 || true
        done
        # the targets in turn, BENCH_RUNS times: a burst of load from
        # elsewhere on the machine falls on all of them
        for r in $(seq 1 "$BENCH_RUNS"); do
            for t in "${targets[@]}"; do
                out="$BLOG/$w-c$c.$t.$r.log"
                wrk -t "$thr" -c "$c" -d "$BENCH_SECONDS" -s "$GW/wrk/dynamodb.lua" "${URL[$t]}" -- "$w" "$BENCH_SCALE" >"$out" 2>&1 || true
                if grep -q 'Non-2xx' "$out"; then
                    it_warn "$t answered errors ($out)"
                else
                    runs[$t]+=" $(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$out")"
                fi
            done
        done
        for t in "${targets[@]}"; do
            # shellcheck disable=SC2086  # the list of runs
            RPS[$w.$c.$t]=$(median ${runs[$t]:-} | awk '{ printf "%.0f", $1 }')
            it_say "$w c=$c $t: ${RPS[$w.$c.$t]}/s (runs:${runs[$t]:-})"
        done
        unset runs
    done
done

{
    echo "item_table_local benchmark, $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores; PostgreSQL $("$PGBIN/postgres" --version | sed -E 's/.* ([0-9][0-9.]*).*/\1/'); dynalite $want${JAR:+; DynamoDB Local (the jar given)}"
    echo
    echo "startup to ready, seconds (median of $BENCH_STARTS)"
    printf '  %-36s %s\n' "item_table_local, first use (initdb)" "$(median "${first[@]}")"
    printf '  %-36s %s\n' "item_table_local, existing data dir" "$(median "${again[@]}")"
    printf '  %-36s %s\n' "item_table_local -inMemory" "$(median "${mem[@]}")"
    if [ -n "$JAR" ]; then
        printf '  %-36s %s\n' "DynamoDB Local -inMemory" "$(median "${ddbl[@]}")"
    else
        printf '  %-36s %s\n' "DynamoDB Local -inMemory" "not measured (DYNAMODB_LOCAL_JAR unset)"
    fi
    echo
    echo "requests/s over HTTP (wrk, median of $BENCH_RUNS runs of ${BENCH_SECONDS} s, $BENCH_SCALE items; all in memory)"
    printf '  %-9s %5s' workload conn
    for t in item_table_local dynamodb_local dynalite; do printf ' %17s' "$t"; done
    echo
    for w in "${WORKLOADS[@]}"; do
        for c in $BENCH_CLIENTS; do
            printf '  %-9s %5s' "$w" "$c"
            for t in item_table_local dynamodb_local dynalite; do printf ' %17s' "${RPS[$w.$c.$t]:-n/a}"; done
            echo
        done
    done
} | tee "$RESULTS"
