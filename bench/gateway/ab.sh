#!/usr/bin/env bash
# Two gateways (or one with two sets of arguments) compared on the same
# cluster, their measurements interleaved: A, B, A, B ... for AB_ROUNDS
# rounds per workload, each a wrk run of AB_SECONDS at AB_CLIENTS
# connections after a short warm-up.  Prints, for each side and workload,
# the median and the range of the gateway's CPU per request (user+system,
# /proc/PID/stat), of requests/s and of wrk's 99th percentile latency.
#
# Why.  On a shared or virtual machine the CPU a request costs moves by a
# third from one sitting to the next (PROFILE.md), more than most single
# changes gain; measured in turn, in the same minutes, the two sides see
# the same machine, and the median of several rounds is what the change
# did.
#
#   bash bench/gateway/ab.sh [WORKLOAD ...]   (root get_item put_item query10)
#
# Environment:
#   AB_GATEWAY_A, AB_GATEWAY_B   the programs (default: pg_config --bindir's)
#   AB_ARGS_A, AB_ARGS_B         extra arguments for each
#   AB_ENV_A, AB_ENV_B           environment for each ("NAME=value ...")
#   AB_AUTH_A, AB_AUTH_B         none (default) or sigv4: that side checks
#                                signatures, its requests signed beforehand
#                                by sign.py (one key, so its role's jobs are
#                                under --pool-per-role: give that side
#                                "--pool-per-role N", N the pool's size, to
#                                compare the signature check alone)
#   AB_ROUNDS (default 5), AB_SECONDS (4), AB_CLIENTS (16), AB_SCALE (10000)
# Output: bench/results/ab.txt (the table); the runs in log/bench-ab/.
set -euo pipefail
# shellcheck source=bench/gateway/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
AB_ROUNDS=${AB_ROUNDS:-5}
AB_SECONDS=${AB_SECONDS:-4}
AB_CLIENTS=${AB_CLIENTS:-16}
AB_SCALE=${AB_SCALE:-10000}
WORKLOADS=("$@")
[ "${#WORKLOADS[@]}" -gt 0 ] || WORKLOADS=(root get_item put_item query10)
BLOG="$IT_LOG_DIR/bench-ab"
RESULTS="$IT_ROOT/bench/results/ab.txt"
THREADS=$((AB_CLIENTS < NCPU ? AB_CLIENTS : NCPU))

gw_bench_need_wrk
command -v curl >/dev/null 2>&1 || it_die "curl is required"
it_need_root || it_die "root or sudo is required"
it_pg_env || it_die "PostgreSQL tools not found"
AB_GATEWAY_A=${AB_GATEWAY_A:-$("$PG_CONFIG" --bindir)/item_table_gateway}
AB_GATEWAY_B=${AB_GATEWAY_B:-$AB_GATEWAY_A}
for g in "$AB_GATEWAY_A" "$AB_GATEWAY_B"; do
    [ -x "$g" ] || it_die "no gateway at $g"
done
rm -rf "$BLOG"
mkdir -p "$BLOG" "$(dirname "$RESULTS")"

gw_bench_cluster "$AB_SCALE" "$BLOG/setup.log"
AB_AUTH_A=${AB_AUTH_A:-none}
AB_AUTH_B=${AB_AUTH_B:-none}
for a in "$AB_AUTH_A" "$AB_AUTH_B"; do
    case "$a" in none|sigv4) ;; *) it_die "AB_AUTH_A and AB_AUTH_B must be none or sigv4" ;; esac
done
if [ "$AB_AUTH_A" = sigv4 ] || [ "$AB_AUTH_B" = sigv4 ]; then
    gw_bench_key
fi

# start_gateway SIDE: that side's gateway on a fresh port
start_gateway() {
    if [ "$1" = A ]; then
        # shellcheck disable=SC2086  # the environment is a word list
        gw_bench_start "$BLOG/gateway.$1.log" "$AB_AUTH_A" "${AB_ARGS_A:-}" env ${AB_ENV_A:-} "$AB_GATEWAY_A"
    else
        # shellcheck disable=SC2086
        gw_bench_start "$BLOG/gateway.$1.log" "$AB_AUTH_B" "${AB_ARGS_B:-}" env ${AB_ENV_B:-} "$AB_GATEWAY_B"
    fi
}
wrk_run() { gw_bench_wrk "$1" "$2" "$3" "$AB_SCALE" "$AB_CLIENTS" "$THREADS" --latency; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# wrk's 99th percentile latency in ms, from its latency distribution
p99_ms() {
    awk '$1 == "99%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
        f = (u == "us") ? 0.001 : (u == "s") ? 1000 : (u == "m") ? 60000 : 1; printf "%.2f", v * f }' "$1"
}
# stats FORMAT: median, min and max of the numbers on standard input
stats() { sort -g | awk -v f="$1" '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
    printf f " (" f "-" f ")", m, v[1], v[NR] }'; }

for w in "${WORKLOADS[@]}"; do
    for r in $(seq 1 "$AB_ROUNDS"); do
        for side in A B; do
            start_gateway "$side"
            wrk_run "$w" 1 "$BLOG/$w.$side.$r.warmup.log" >/dev/null
            t0=$(ticks "$GW_PID")
            n=$(wrk_run "$w" "$AB_SECONDS" "$BLOG/$w.$side.$r.log")
            t1=$(ticks "$GW_PID")
            gw_bench_stop
            awk -v t=$((t1 - t0)) -v n="$n" -v hz="$CLK_TCK" -v s="$AB_SECONDS" -v m="$(p99_ms "$BLOG/$w.$side.$r.log")" \
                'BEGIN { printf "%.2f %.0f %s\n", t * 1e6 / hz / n, n / s, m }' >>"$BLOG/$w.$side.txt"
            it_say "$w round $r $side: $(tail -n 1 "$BLOG/$w.$side.txt") (us/request, requests/s, p99 ms)"
        done
    done
done

{
    echo "item_table gateway A/B  $(date -u '+%Y-%m-%d %H:%M UTC')  commit $(git rev-parse --short HEAD 2>/dev/null || echo none)"
    echo "$NCPU cores; $AB_CLIENTS connections; $AB_ROUNDS rounds of ${AB_SECONDS}s, interleaved; load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "A: ${AB_GATEWAY_A##*/} --auth $AB_AUTH_A ${AB_ARGS_A:-} ${AB_ENV_A:-}"
    echo "B: ${AB_GATEWAY_B##*/} --auth $AB_AUTH_B ${AB_ARGS_B:-} ${AB_ENV_B:-}"
    echo "median (min-max) over the rounds"
    printf '%-9s | %-4s | %-20s | %-24s | %s\n' workload side "gateway CPU us/req" "requests/s" "p99 latency ms"
    for w in "${WORKLOADS[@]}"; do
        for side in A B; do
            f="$BLOG/$w.$side.txt"
            printf '%-9s | %-4s | %-20s | %-24s | %s\n' "$w" "$side" \
                "$(cut -d' ' -f1 "$f" | stats %.1f)" "$(cut -d' ' -f2 "$f" | stats %.0f)" "$(cut -d' ' -f3 "$f" | stats %.2f)"
        done
    done
} >"$RESULTS"
echo
cat "$RESULTS"
