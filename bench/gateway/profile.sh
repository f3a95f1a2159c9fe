#!/usr/bin/env bash
# Where the gateway's CPU goes, in measures that do not depend on how busy
# the machine is: per request served,
#   - CPU time of the gateway process (user + system, /proc/PID/stat),
#   - system calls (strace -c -f attached to the gateway),
#   - instructions in user space (valgrind's callgrind, counters zeroed
#     after a warm-up), split by component (bench/gateway/cg_split.py),
#   - where the CPU time goes, kernel included: perf record's samples of
#     the gateway's threads, the share of each function (log/bench-profile/
#     WORKLOAD.perf.txt), the io_uring path as it runs, which callgrind
#     cannot follow.
# Each for GET / (the HTTP floor, no database), GetItem, PutItem and the
# 10-item Query, at PROF_CLIENTS connections, one measurement at a time.
#
#   bash bench/gateway/profile.sh [root|get_item|put_item|query10 ...]
#
# Environment:
#   PROF_SCALE     items per table                  (default 10000)
#   PROF_CLIENTS   connections                      (default 16)
#   PROF_SECONDS   seconds of wrk for the CPU time  (default 5)
#   PROF_CG_SECONDS  seconds of wrk under callgrind (default 6)
#   PROF_STRACE_SECONDS  seconds of wrk under strace (default 3)
#   GATEWAY        the gateway program (default: pg_config --bindir's)
#   GATEWAY_ARGS   extra arguments for the gateway
#   PROF_SKIP      any of "cpu strace callgrind perf" to leave out (perf
#                  is left out by itself where the perf tool is missing)
#   PROF_PERF_SECONDS  seconds of wrk under perf record (default 4)
#   PROF_AUTH      none (default) or sigv4: the gateway checks signatures,
#                  the requests are signed beforehand by sign.py (one key:
#                  its role's jobs are under --pool-per-role, which
#                  --auth none's are not; GATEWAY_ARGS="--pool-per-role N"
#                  with N the pool's size compares SigV4 alone, PROFILE.md)
# Output: bench/results/profile.txt (the table), the callgrind files in
# log/bench-profile/ (callgrind_annotate reads them).
set -euo pipefail
IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$IT_ROOT"
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"
HERE="$IT_ROOT/bench/gateway"
PROF_SCALE=${PROF_SCALE:-10000}
PROF_CLIENTS=${PROF_CLIENTS:-16}
PROF_SECONDS=${PROF_SECONDS:-5}
PROF_CG_SECONDS=${PROF_CG_SECONDS:-6}
PROF_STRACE_SECONDS=${PROF_STRACE_SECONDS:-3}
PROF_SKIP=${PROF_SKIP:-}
PROF_PERF_SECONDS=${PROF_PERF_SECONDS:-4}
command -v perf >/dev/null 2>&1 || PROF_SKIP="$PROF_SKIP perf"
GATEWAY_ARGS=${GATEWAY_ARGS:-}
PROF_AUTH=${PROF_AUTH:-none}
case "$PROF_AUTH" in none|sigv4) ;; *) it_die "PROF_AUTH must be none or sigv4" ;; esac
WORKLOADS=("$@")
[ "${#WORKLOADS[@]}" -gt 0 ] || WORKLOADS=(root get_item put_item query10)
BLOG="$IT_LOG_DIR/bench-profile"
RESULTS="$IT_ROOT/bench/results/profile.txt"
NCPU=$(nproc 2>/dev/null || echo 2)
THREADS=$((PROF_CLIENTS < NCPU ? PROF_CLIENTS : NCPU))
CLK_TCK=$(getconf CLK_TCK 2>/dev/null || echo 100)

command -v wrk >/dev/null 2>&1 || it_install_deps wrk || it_die "could not install wrk"
for t in wrk strace valgrind callgrind_control python3 curl; do
    command -v "$t" >/dev/null 2>&1 || it_die "$t is required"
done
it_need_root || it_die "root or sudo is required"
it_pg_env || it_die "PostgreSQL tools not found"
GATEWAY=${GATEWAY:-$("$PG_CONFIG" --bindir)/item_table_gateway}
[ -x "$GATEWAY" ] || it_die "no gateway at $GATEWAY (make install first)"
rm -rf "$BLOG"
mkdir -p "$BLOG" "$(dirname "$RESULTS")"

it_start_cluster || it_die "could not start a PostgreSQL cluster"
GW_PID=""
stop_gateway() {
    if [ -n "$GW_PID" ]; then
        kill "$GW_PID" 2>/dev/null || true
        wait "$GW_PID" 2>/dev/null || true
        GW_PID=""
    fi
}
on_exit() {
    local rc=$?
    stop_gateway
    it_cleanup
    exit "$rc"
}
trap on_exit EXIT

"$PGBIN/createdb" item_table_bench
export PGDATABASE=item_table_bench
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION item_table' </dev/null
for setup in bench/workloads/get_item/setup.sql bench/workloads/query10/setup.sql; do
    "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -v scale="$PROF_SCALE" -f "$setup" </dev/null \
        >>"$BLOG/setup.log" 2>&1 || { tail -n 20 "$BLOG/setup.log"; it_die "setup failed ($setup)"; }
done
"$PGBIN/psql" -X -q -c 'VACUUM ANALYZE' -c 'CHECKPOINT' </dev/null >>"$BLOG/setup.log" 2>&1
SIG_KEY=""
if [ "$PROF_AUTH" = sigv4 ]; then
    SIG_KEY=$("$PGBIN/psql" -X -qAt -F ' ' -v ON_ERROR_STOP=1 \
        -c "SELECT access_key_id, secret_access_key FROM item_table.create_access_key(current_user::regrole)" </dev/null)
fi

# start_gateway [WRAPPER...]: the gateway on a fresh port, GW_PID/GW_URL set
start_gateway() {
    local port
    port=$(it_pick_port) || it_die "no free port"
    # shellcheck disable=SC2086
    "$@" "$GATEWAY" --auth "$PROF_AUTH" --listen 127.0.0.1 --port "$port" $GATEWAY_ARGS \
        >"$BLOG/gateway.log" 2>&1 &
    GW_PID=$!
    GW_URL="http://127.0.0.1:$port/"
    for _ in $(seq 1 600); do
        curl -s -o /dev/null --max-time 2 "$GW_URL" && return 0
        sleep 0.1
    done
    tail -n 20 "$BLOG/gateway.log"
    it_die "the gateway did not start"
}
# wrk_run WORKLOAD SECONDS LOG -> requests served (fails on a non-2xx answer)
wrk_run() {
    local signed=() host=${GW_URL#http://}
    if [ -n "$SIG_KEY" ] && [ "$1" != root ]; then
        # shellcheck disable=SC2086  # SIG_KEY is "id secret"
        python3 "$HERE/sign.py" "${host%/}" $SIG_KEY "$1" "$PROF_SCALE" 20000 "$3.signed" || return 1
        signed=("$3.signed")
    fi
    wrk -t"$THREADS" -c"$PROF_CLIENTS" -d"$2"s -s "$HERE/wrk/dynamodb.lua" "$GW_URL" -- "$1" "$PROF_SCALE" "${signed[@]}" \
        </dev/null >"$3" 2>&1 || { tail -n 20 "$3" >&2; return 1; }
    if grep -q 'Non-2xx' "$3"; then grep 'Non-2xx' "$3" >&2; return 1; fi
    awk '/requests in/ { print $1 }' "$3"
}
ticks() { awk '{ print $14, $15 }' "/proc/$1/stat"; }  # user system

rows=()
for w in "${WORKLOADS[@]}"; do
    cpu=n/a; cpuu=n/a; cpus=n/a; sc=n/a; scw=""; ir=n/a
    case " $PROF_SKIP " in *" cpu "*) ;; *)
        start_gateway
        wrk_run "$w" 2 "$BLOG/$w.cpu.warmup.log" >/dev/null
        read -r u0 s0 <<<"$(ticks "$GW_PID")"
        n=$(wrk_run "$w" "$PROF_SECONDS" "$BLOG/$w.cpu.log")
        read -r u1 s1 <<<"$(ticks "$GW_PID")"
        read -r cpu cpuu cpus <<<"$(awk -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v n="$n" -v hz="$CLK_TCK" \
            'BEGIN { f = 1e6 / hz / n; printf "%.1f %.1f %.1f", (u + s) * f, u * f, s * f }')"
        stop_gateway
        it_say "$w: $n requests, gateway CPU $cpu us/request (user $cpuu, system $cpus)" ;;
    esac
    case " $PROF_SKIP " in *" strace "*) ;; *)
        start_gateway
        wrk_run "$w" 1 "$BLOG/$w.strace.warmup.log" >/dev/null
        strace -c -f -q -p "$GW_PID" -o "$BLOG/$w.strace.txt" &
        st=$!
        sleep 1
        n=$(wrk_run "$w" "$PROF_STRACE_SECONDS" "$BLOG/$w.strace.log")
        kill -INT "$st"; wait "$st" || true
        sc=$(awk -v n="$n" '$NF == "total" { printf "%.2f", $4 / n }' "$BLOG/$w.strace.txt")
        # the most frequent calls, per request
        scw=$(awk -v n="$n" 'NF >= 5 && $1 ~ /^[0-9.]+$/ && $NF != "total" { printf "%s %.2f\n", $NF, $4 / n }' "$BLOG/$w.strace.txt" |
            sort -k2 -gr | head -n 6 | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')
        stop_gateway
        it_say "$w: $n requests, $sc system calls/request ($scw)" ;;
    esac
    case " $PROF_SKIP " in *" callgrind "*) ;; *)
        # valgrind does not follow io_uring's shared rings (the loop would
        # wait in them and not answer callgrind_control): the loops use
        # epoll under it, so user-space instructions are the epoll path's
        GATEWAY_ARGS="$GATEWAY_ARGS --io epoll" \
            start_gateway valgrind --tool=callgrind --callgrind-out-file="$BLOG/$w.callgrind.%p" -q
        wrk_run "$w" 2 "$BLOG/$w.cg.warmup.log" >/dev/null
        callgrind_control -z "$GW_PID" >/dev/null
        n=$(wrk_run "$w" "$PROF_CG_SECONDS" "$BLOG/$w.cg.log")
        callgrind_control -d "$GW_PID" >/dev/null
        stop_gateway
        f=$(ls -t "$BLOG/$w".callgrind.*.* 2>/dev/null | head -n 1)
        python3 "$HERE/cg_split.py" "$f" "$n" >"$BLOG/$w.split.txt"
        ir=$(awk '$1 == "total" { print $2 }' "$BLOG/$w.split.txt")
        it_say "$w: $n requests, $ir instructions/request"
        sed 's/^/      /' "$BLOG/$w.split.txt" ;;
    esac
    case " $PROF_SKIP " in *" perf "*) ;; *)
        start_gateway
        wrk_run "$w" 1 "$BLOG/$w.perf.warmup.log" >/dev/null
        perf record -q -F 4999 -g -p "$GW_PID" -o "$BLOG/$w.perf.data" \
            >"$BLOG/$w.perf.record.log" 2>&1 &
        pr=$!
        n=$(wrk_run "$w" "$PROF_PERF_SECONDS" "$BLOG/$w.perf.log")
        kill -INT "$pr"; wait "$pr" || true
        stop_gateway
        # the functions where the samples fell (self time), kernel and user
        perf report -q -i "$BLOG/$w.perf.data" --no-children --sort sym --stdio -g none \
            2>/dev/null | awk 'NF >= 3 && $1 ~ /%$/' | head -n 40 >"$BLOG/$w.perf.txt" || true
        kpct=$(awk '$2 == "[k]" { s += $1 } END { printf "%.0f", s }' "$BLOG/$w.perf.txt")
        it_say "$w: $n requests under perf, top functions (${kpct}% of samples in the kernel's top ones):"
        head -n 12 "$BLOG/$w.perf.txt" | sed 's/^/      /' ;;
    esac
    rows+=("$(printf '%-9s | %8s | %8s | %8s | %8s | %10s | %s' "$w" "$cpu" "$cpuu" "$cpus" "$sc" "$ir" "$scw")")
done

{
    echo "item_table gateway profile  $(date -u '+%Y-%m-%d %H:%M UTC')  commit $(git rev-parse --short HEAD 2>/dev/null || echo none)"
    echo "$NCPU cores; $PROF_CLIENTS connections; --auth $PROF_AUTH; scale=$PROF_SCALE; load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "per request: gateway CPU us (user+system, and each), system calls (strace -f), user-space instructions (callgrind)"
    printf '%-9s | %8s | %8s | %8s | %8s | %10s | %s\n' workload "cpu us" "user us" "sys us" syscalls instr "top system calls per request"
    echo "----------+----------+----------+----------+----------+------------+------------------------------"
    printf '%s\n' "${rows[@]}"
    for w in "${WORKLOADS[@]}"; do
        [ -s "$BLOG/$w.split.txt" ] || continue
        echo
        echo "$w: instructions per request by component"
        cat "$BLOG/$w.split.txt"
    done
    for w in "${WORKLOADS[@]}"; do
        [ -s "$BLOG/$w.perf.txt" ] || continue
        echo
        echo "$w: share of the gateway's samples by function (perf, self time, kernel [k] and user [.])"
        head -n 25 "$BLOG/$w.perf.txt"
    done
} >"$RESULTS"
echo
cat "$RESULTS"
