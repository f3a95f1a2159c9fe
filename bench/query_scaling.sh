#!/usr/bin/env bash
# Query cost against table size.
#
#   bash bench/query_scaling.sh
#
# Runs the query10 and query_desc_limit1 workloads (item_table Query vs
# plain SQL, see bench/README.md) with the qbench table holding 10,000,
# 1,000,000 and 10,000,000 items (BENCH_SCALE), one bench/run.sh per size,
# and prints how the time per Query changes with the table size.  The goal
# is no growth: a Query reads one index range, whatever the table size.
#
# Environment: everything bench/run.sh takes (BENCH_RUNS, BENCH_SECONDS,
# ...), plus QUERY_SCALES (default "10000 1000000 10000000") and
# QUERY_SCALE_WORKLOADS (default "query10 query_desc_limit1").  Loading 10
# million items takes a few minutes (the primary key is built after the
# load).  The summary is also written to bench/results/query_scaling.txt.
set -euo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$IT_ROOT"
SCALES=${QUERY_SCALES:-"10000 1000000 10000000"}
WORKLOADS=${QUERY_SCALE_WORKLOADS:-"query10 query_desc_limit1"}
RESULTS=bench/results
mkdir -p "$RESULTS"

# shellcheck disable=SC2086  # word splitting of the lists is intended
for s in $SCALES; do
    echo "== query scaling: BENCH_SCALE=$s"
    BENCH_SCALE=$s bash bench/run.sh $WORKLOADS
    cp "$RESULTS/latest.txt" "$RESULTS/query_scale_$s.txt"
done

summary=$(mktemp)
{
    echo "item_table Query time vs table size  $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "time ratio = TPS at the smallest size / TPS at this size (1.00 = no growth)"
    echo
    printf '%-20s | %10s | %14s | %15s | %16s | %16s\n' workload items "ext median tps" "base median tps" "ext time ratio" "base time ratio"
    printf '%s\n' "---------------------+------------+----------------+-----------------+------------------+-----------------"
    for w in $WORKLOADS; do
        first_ext=""
        first_base=""
        for s in $SCALES; do
            row=$(awk -F'|' -v w="$w" '{ gsub(/ /, "", $1) } $1 == w { print $2, $3; exit }' "$RESULTS/query_scale_$s.txt")
            read -r e b <<<"$row"
            [ -n "$first_ext" ] || { first_ext=$e; first_base=$b; }
            printf '%-20s | %10s | %14s | %15s | %16s | %16s\n' "$w" "$s" "$e" "$b" \
                "$(awk -v a="$first_ext" -v b="$e" 'BEGIN { printf "%.2f", a / b }')" \
                "$(awk -v a="$first_base" -v b="$b" 'BEGIN { printf "%.2f", a / b }')"
        done
    done
} >"$summary"
echo
cat "$summary"
cp "$summary" "$RESULTS/query_scaling.txt"
rm -f "$summary"
