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
# shellcheck source=bench/gateway/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
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
THREADS=$((PROF_CLIENTS < NCPU ? PROF_CLIENTS : NCPU))

gw_bench_need_wrk
for t in wrk strace valgrind callgrind_control python3 curl; do
    command -v "$t" >/dev/null 2>&1 || it_die "$t is required"
done
it_need_root || it_die "root or sudo is required"
it_pg_env || it_die "PostgreSQL tools not found"
GATEWAY=${GATEWAY:-$("$PG_CONFIG" --bindir)/item_table_gateway}
[ -x "$GATEWAY" ] || it_die "no gateway at $GATEWAY (make install first)"
rm -rf "$BLOG"
mkdir -p "$BLOG" "$(dirname "$RESULTS")"

gw_bench_cluster "$PROF_SCALE" "$BLOG/setup.log"
if [ "$PROF_AUTH" = sigv4 ]; then
    gw_bench_key
fi

# start_gateway [WRAPPER...]: the gateway on a fresh port, GW_PID/GW_URL set
start_gateway() { gw_bench_start "$BLOG/gateway.log" "$PROF_AUTH" "$GATEWAY_ARGS" "$@" "$GATEWAY"; }
stop_gateway() { gw_bench_stop; }
# wrk_run WORKLOAD SECONDS LOG -> requests served (fails on a non-2xx answer)
wrk_run() { gw_bench_wrk "$1" "$2" "$3" "$PROF_SCALE" "$PROF_CLIENTS" "$THREADS"; }
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
