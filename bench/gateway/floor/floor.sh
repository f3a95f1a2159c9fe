#!/usr/bin/env bash
# The floor: what the kernel alone charges a gateway-shaped process on this
# machine.  Builds floor.c (an io_uring HTTP server doing almost no work in
# user space, see its header) and measures, for each configuration, the
# CPU per request of the server process and, separately, of its backend
# processes, with wrk at 16 connections and 2 threads sending a DynamoDB
# GetItem-like POST (post.lua).
#
#   direct     the server answers each request itself
#   hop 2 0    requests batched to 2 backend processes over Unix sockets,
#              which answer at once
#   hop 4 0    the same with 4 backends
#   hop 4 20   4 backends spending 20 us of CPU per request (about what
#              PostgreSQL spends on a GetItem)
#
# The configurations are measured in turn, FLOOR_ROUNDS times, so that all
# see the same machine; the table at the end gives the median and the range
# of each measure.  CPU is utime+stime from /proc/PID/stat (fields 14 and
# 15) read before and after the wrk run: the server process alone, and the
# sum over its backend children.  The mean batch size (requests per send to
# a backend) is the server's own count over its whole life, warm-up
# included.
#
#   bash bench/gateway/floor/floor.sh
#
# Environment: FLOOR_SECONDS (5) per measured run, FLOOR_ROUNDS (3),
# FLOOR_WARMUP (1) seconds of wrk before each measured run, FLOOR_PORT
# (18480), CC (cc).

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
seconds=${FLOOR_SECONDS:-5}
rounds=${FLOOR_ROUNDS:-3}
warmup=${FLOOR_WARMUP:-1}
port=${FLOOR_PORT:-18480}
url="http://127.0.0.1:$port/"
configs=("direct" "hop 2 0" "hop 4 0" "hop 4 20")

# wrk (and liburing's headers for floor.c), from Debian's packages where
# missing, as the other gateway benchmarks install them
# shellcheck source=bench/gateway/lib.sh
. "$here/../lib.sh"
gw_bench_need_wrk
[ -e /usr/include/liburing.h ] || it_install_deps liburing-dev || it_die "could not install liburing-dev"
clk_tck=$(getconf CLK_TCK)

tmp=$(mktemp -d)
server_pid=""
kids=()

# Stop the server (SIGTERM: it prints its counts and exits; its backends
# see end of file and exit), by force if it does not within 3 s.
stop_server() {
    local i kid
    if [[ -n $server_pid ]]; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for ((i = 0; i < 30; i++)); do
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
    for kid in "${kids[@]}"; do
        kill -KILL "$kid" 2>/dev/null || true
    done
    kids=()
}
cleanup() {
    stop_server
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"${CC:-cc}" -O2 -Wall -Wextra -o "$tmp/floor" "$here/floor.c" -luring

# utime+stime of one process, in clock ticks
cpu_ticks() {
    local line rest
    local -a f
    read -r line <"/proc/$1/stat"
    rest=${line##*) }           # fields from the 3rd on
    read -ra f <<<"$rest"
    echo $((f[11] + f[12]))
}
kids_ticks() {
    local kid sum=0
    for kid in "${kids[@]}"; do
        sum=$((sum + $(cpu_ticks "$kid")))
    done
    echo "$sum"
}

start_server() {
    local i
    # shellcheck disable=SC2086  # the configuration is words
    "$tmp/floor" "$port" $1 2>"$tmp/server.err" &
    server_pid=$!
    for ((i = 0; i < 50; i++)); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            break
        fi
        sleep 0.1
    done
    mapfile -t kids < <(pgrep -P "$server_pid" || true)
}

# microseconds from wrk's "1.23ms", "456.00us", "1.02s"
to_us() {
    awk -v v="$1" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) m = 1; else if (v ~ /ms$/) m = 1000;
        else if (v ~ /m$/) m = 60000000; else m = 1000000
        printf "%.0f", n * m }'
}

results=$tmp/results            # config, rps, server us, backends us, p99 us, batch
: >"$results"

echo "floor: $rounds rounds of ${seconds}s per configuration, wrk -t2 -c16, CLK_TCK $clk_tck"
echo "load before: $(uptime)"
for ((round = 1; round <= rounds; round++)); do
    for config in "${configs[@]}"; do
        start_server "$config"
        wrk -t2 -c16 -d"${warmup}s" -s "$here/post.lua" "$url" >/dev/null
        s0=$(cpu_ticks "$server_pid")
        k0=$(kids_ticks)
        wrk -t2 -c16 -d"${seconds}s" --latency -s "$here/post.lua" "$url" >"$tmp/wrk.out"
        s1=$(cpu_ticks "$server_pid")
        k1=$(kids_ticks)
        stop_server

        requests=$(awk '/ requests in / {print $1}' "$tmp/wrk.out")
        rps=$(awk '/^Requests\/sec:/ {print $2}' "$tmp/wrk.out")
        p99=$(to_us "$(awk '$1 == "99%" {print $2}' "$tmp/wrk.out")")
        batch=$(sed -n 's/.*mean batch size \([0-9.]*\).*/\1/p' "$tmp/server.err")
        read -r server_us kids_us < <(awk -v s=$((s1 - s0)) -v k=$((k1 - k0)) \
            -v t="$clk_tck" -v n="$requests" \
            'BEGIN { printf "%.2f %.2f\n", s * 1e6 / t / n, k * 1e6 / t / n }')
        notes=$(grep -E 'Socket errors|Non-2xx' "$tmp/wrk.out" | tr -s ' \n' ' ' || true)
        printf '%-9s round %d: %8.0f req/s  server %6.2f us/req  backends %6.2f us/req  p99 %6d us  batch %-5s %s\n' \
            "$config" "$round" "$rps" "$server_us" "$kids_us" "$p99" "${batch:--}" "$notes"
        if [[ -s $tmp/server.err ]]; then
            sed 's/^/    /' "$tmp/server.err"
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$config" "$rps" "$server_us" "$kids_us" \
            "$p99" "${batch:--}" >>"$results"
    done
done
echo "load after: $(uptime)"

# "median [min-max]" of column $2 for configuration $1, printf format $3
stat_of() {
    awk -F'\t' -v c="$1" -v col="$2" '$1 == c {print $col}' "$results" | sort -g |
        awk -v f="$3" '{ v[NR] = $1 } END {
            if (NR == 0 || v[1] == "-") { print "-"; exit }
            m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf f " [" f "-" f "]\n", m, v[1], v[NR] }'
}

echo
echo "medians [ranges] over $rounds rounds:"
printf '%-9s | %-24s | %-24s | %-24s | %-20s | %s\n' config "req/s" \
    "server us CPU/req" "backends us CPU/req" "p99 us" "mean batch"
for config in "${configs[@]}"; do
    printf '%-9s | %-24s | %-24s | %-24s | %-20s | %s\n' "$config" \
        "$(stat_of "$config" 2 %.0f)" "$(stat_of "$config" 3 %.2f)" \
        "$(stat_of "$config" 4 %.2f)" "$(stat_of "$config" 5 %.0f)" \
        "$(stat_of "$config" 6 %.2f)"
done
