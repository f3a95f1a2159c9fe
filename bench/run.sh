#!/usr/bin/env bash
# pgbench-based benchmark: item_table variant vs. plain-SQL baseline.
#
#   bash bench/run.sh [workload ...]      (default: every workload but selftest)
#
# See bench/README.md for the workload layout.  Environment:
#   BENCH_RUNS     runs of each variant, alternating ext/base   (default 5)
#   BENCH_SECONDS  seconds per run                              (default 10)
#   BENCH_CLIENTS  pgbench clients                              (default 1)
#   BENCH_JOBS     pgbench threads (-j)                         (default: BENCH_CLIENTS)
#   BENCH_SCALE    psql variable :scale for setup.sql, and pgbench
#                  variable :scale for ext.sql/base.sql          (default 1000000)
#   BENCH_WARMUP   seconds of unrecorded warm-up per variant     (default 2; 0 = none)
#   BENCH_SERVER_SETTINGS  "name=value ..." set by ALTER SYSTEM for the run
#                  (e.g. item_table.vector_drain=manual)         (default none)
#   BENCH_P99      1: log every transaction, print the p99 latency (default 0)
# The table is printed and written to bench/results/latest.txt; pgbench logs
# go to log/bench/.
set -euo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$IT_ROOT"
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"

BENCH_RUNS=${BENCH_RUNS:-5}
BENCH_SECONDS=${BENCH_SECONDS:-10}
BENCH_CLIENTS=${BENCH_CLIENTS:-1}
BENCH_JOBS=${BENCH_JOBS:-$BENCH_CLIENTS}
BENCH_SCALE=${BENCH_SCALE:-1000000}
BENCH_WARMUP=${BENCH_WARMUP:-2}
BENCH_DB=item_table_bench
WL_DIR=bench/workloads
WL_PGOPTIONS=""
RESULTS_DIR=bench/results
BLOG="$IT_LOG_DIR/bench"

usage() {
    sed -n '2,18s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    echo
    echo "workloads:"
    local d
    for d in "$WL_DIR"/*/; do
        [ -d "$d" ] && echo "  $(basename "$d")"
    done
}

case "${1:-}" in
    -h|--help) usage; exit 0 ;;
esac

for v in BENCH_RUNS BENCH_SECONDS BENCH_CLIENTS BENCH_JOBS BENCH_SCALE BENCH_WARMUP; do
    [[ ${!v} =~ ^[0-9]+$ ]] || it_die "$v must be a non-negative integer (got '${!v}')"
done
if [ "$BENCH_RUNS" -lt 1 ] || [ "$BENCH_SECONDS" -lt 1 ] || [ "$BENCH_CLIENTS" -lt 1 ] || [ "$BENCH_JOBS" -lt 1 ]; then
    it_die "BENCH_RUNS, BENCH_SECONDS, BENCH_CLIENTS and BENCH_JOBS must be >= 1"
fi
[ "$BENCH_JOBS" -le "$BENCH_CLIENTS" ] || BENCH_JOBS=$BENCH_CLIENTS

# ---- choose workloads -------------------------------------------------------
workloads=()
if [ "$#" -gt 0 ]; then
    workloads=("$@")
else
    for d in "$WL_DIR"/*/; do
        [ -d "$d" ] || continue
        name=$(basename "$d")
        [ "$name" = selftest ] && continue
        workloads+=("$name")
    done
fi
if [ "${#workloads[@]}" -eq 0 ]; then
    echo "no workloads in $WL_DIR/ (besides selftest); nothing to do"
    exit 0
fi

# Group of a workload: contents of its 'group' file, else its own name.
wl_group() {
    local g=""
    if [ -f "$WL_DIR/$1/group" ]; then
        g=$(tr -d '[:space:]' <"$WL_DIR/$1/group")
    fi
    printf '%s\n' "${g:-$1}"
}

# Setup script for a workload: its own setup.sql, else that of the workload
# directory named like its group.
wl_setup() {
    local g
    g=$(wl_group "$1")
    if [ -f "$WL_DIR/$1/setup.sql" ]; then
        printf '%s\n' "$WL_DIR/$1/setup.sql"
    elif [ -f "$WL_DIR/$g/setup.sql" ]; then
        printf '%s\n' "$WL_DIR/$g/setup.sql"
    fi
}

# Directory holding a workload's ext.sql/base.sql: its own, or that of the
# workload named in its 'scripts' file (same scripts, other settings).
wl_scripts() {
    if [ -f "$WL_DIR/$1/scripts" ]; then
        printf '%s\n' "$WL_DIR/$(tr -d '[:space:]' <"$WL_DIR/$1/scripts")"
    else
        printf '%s\n' "$WL_DIR/$1"
    fi
}

for w in "${workloads[@]}"; do
    [ -d "$WL_DIR/$w" ] || it_die "unknown workload '$w' (no directory $WL_DIR/$w)"
    for f in ext.sql base.sql; do
        [ -f "$(wl_scripts "$w")/$f" ] || it_die "workload '$w' has no $f"
    done
    [ -n "$(wl_setup "$w")" ] ||
        it_die "workload '$w': no setup.sql (neither $WL_DIR/$w/setup.sql nor $WL_DIR/$(wl_group "$w")/setup.sql)"
done

# ---- set up -------------------------------------------------------------------
t0=$(date +%s.%N)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "== item_table benchmark: ${workloads[*]}"
echo "== runs=$BENCH_RUNS seconds=$BENCH_SECONDS clients=$BENCH_CLIENTS jobs=$BENCH_JOBS scale=$BENCH_SCALE warmup=$BENCH_WARMUP"
it_need_root || it_die "root or sudo is required"
it_install_deps || it_die "dependency installation failed"
it_pg_env || it_die "PostgreSQL tools not found"
it_build_install || it_die "build failed"
# pgvector, when a chosen workload needs it (never fatal: without it those
# workloads are skipped)
if cat "${workloads[@]/#/$WL_DIR/}"/needs 2>/dev/null | grep -qw vector; then
    # shellcheck source=scripts/pgvector.sh
    . "$IT_ROOT/scripts/pgvector.sh"
    it_install_pgvector
fi
it_start_cluster || it_die "could not start a PostgreSQL cluster"
# server-wide settings for the whole run (BENCH_SERVER_SETTINGS: "name=value"
# separated by spaces, e.g. item_table.vector_drain=manual), by ALTER SYSTEM
for kv in ${BENCH_SERVER_SETTINGS:-}; do
    "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d postgres \
        -c "ALTER SYSTEM SET ${kv%%=*} = '${kv#*=}'" </dev/null || it_die "could not set $kv"
done
[ -z "${BENCH_SERVER_SETTINGS:-}" ] || "$PGBIN/psql" -X -q -d postgres -c 'SELECT pg_reload_conf()' </dev/null >/dev/null

rm -rf "$BLOG"
mkdir -p "$BLOG" "$RESULTS_DIR"
"$PGBIN/createdb" "$BENCH_DB"
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$BENCH_DB" -c 'CREATE EXTENSION item_table' </dev/null

# run_pgbench SCRIPT SECONDS LOG -> prints tps, non-zero on failure
# (server settings of the workload, if any, are in $WL_PGOPTIONS)
run_pgbench() {
    local rc=0 txlog=()
    [ "${BENCH_P99:-0}" = 1 ] && { rm -f "$3".tx.*; txlog=(-l --log-prefix="$3.tx"); }
    PGOPTIONS="$WL_PGOPTIONS" "$PGBIN/pgbench" -n -M prepared -c "${WL_CLIENTS:-$BENCH_CLIENTS}" \
        -j "${WL_CLIENTS:-$BENCH_JOBS}" -T "$2" \
        "${txlog[@]}" -D scale="$BENCH_SCALE" -f "$1" "$BENCH_DB" </dev/null >"$3" 2>&1 || rc=$?
    # the p99 latency in ms of the run's transactions (column 3: microseconds)
    if [ "${BENCH_P99:-0}" = 1 ]; then
        cat "$3".tx.* 2>/dev/null | awk '{ print $3 }' | sort -n |
            awk '{ a[NR] = $1 } END { if (NR) { i = int(NR * 0.99 + 0.5); if (i < 1) i = 1; printf "%.1f\n", a[i] / 1000 } }' >"$3.p99"
        rm -f "$3".tx.*
    fi
    local tps
    tps=$(awk '/^tps = .*(without initial connection time|excluding connections establishing)/ { printf "%.1f\n", $3; exit }' "$3")
    if [ "$rc" -ne 0 ] || [ -z "$tps" ] || grep -q 'aborted in command\|Run was aborted' "$3"; then
        echo "---- pgbench failed ($1), last lines of $3 ----" >&2
        tail -n 20 "$3" >&2
        return 1
    fi
    printf '%s\n' "$tps"
}

median() {  # median of the numbers given as arguments
    printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END {
        if (NR == 0) { print "nan"; exit }
        if (NR % 2) printf "%.1f\n", a[(NR + 1) / 2]
        else        printf "%.1f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

ratio() {  # ratio A B -> A/B with 2 decimals
    awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "n/a"; else printf "%.2f\n", a / b }'
}

declare -A group_done=()
rows=()
size_rows=()
p99_rows=()
failed=()
skipped=()

for w in "${workloads[@]}"; do
    g=$(wl_group "$w")
    # optional 'needs': PostgreSQL extensions the workload needs beside
    # item_table (e.g. vector); without one of them it is skipped, not failed
    missing=""
    if [ -f "$WL_DIR/$w/needs" ]; then
        for e in $(tr -s '[:space:]' ' ' <"$WL_DIR/$w/needs"); do
            [ -f "$("$PG_CONFIG" --sharedir)/extension/$e.control" ] || missing+="${missing:+ }$e"
        done
    fi
    if [ -n "$missing" ]; then
        it_warn "workload '$w' skipped: the extension(s) $missing are not installed"
        skipped+=("$w (no $missing)")
        continue
    fi
    if [ -z "${group_done[$g]:-}" ]; then
        setup=$(wl_setup "$w")
        ts=$(date +%s.%N)
        it_say "setup group '$g' ($setup, scale=$BENCH_SCALE)"
        if ! "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -v scale="$BENCH_SCALE" -d "$BENCH_DB" \
                -f "$setup" </dev/null >"$BLOG/setup-$g.log" 2>&1; then
            tail -n 20 "$BLOG/setup-$g.log"
            it_warn "setup of group '$g' failed; skipping workload '$w'"
            group_done[$g]=failed
            failed+=("$w")
            continue
        fi
        "$PGBIN/psql" -X -q -d "$BENCH_DB" -c 'VACUUM ANALYZE' -c 'CHECKPOINT' </dev/null >>"$BLOG/setup-$g.log" 2>&1
        group_done[$g]=ok
        it_say "setup group '$g' done in $(it_elapsed "$ts") s"
    elif [ "${group_done[$g]}" = failed ]; then
        it_warn "setup of group '$g' failed earlier; skipping workload '$w'"
        failed+=("$w")
        continue
    fi

    ext="$(wl_scripts "$w")/ext.sql"
    base="$(wl_scripts "$w")/base.sql"
    # optional 'clients': this workload's pgbench clients (and threads)
    WL_CLIENTS=""
    if [ -f "$WL_DIR/$w/clients" ]; then
        WL_CLIENTS=$(tr -d '[:space:]' <"$WL_DIR/$w/clients")
        [[ $WL_CLIENTS =~ ^[1-9][0-9]*$ ]] || it_die "workload '$w': its clients file must hold a positive integer"
        it_say "workload '$w' runs with $WL_CLIENTS clients"
    fi
    # optional 'settings': one "name = value" per line, for both variants
    WL_PGOPTIONS=""
    if [ -f "$WL_DIR/$w/settings" ]; then
        while IFS='=' read -r sname svalue; do
            sname=$(tr -d '[:space:]' <<<"$sname")
            svalue=$(tr -d '[:space:]' <<<"$svalue")
            [ -n "$sname" ] && [ "${sname#\#}" = "$sname" ] || continue
            WL_PGOPTIONS+="${WL_PGOPTIONS:+ }-c $sname=$svalue"
        done <"$WL_DIR/$w/settings"
        it_say "workload '$w' runs both variants with: $WL_PGOPTIONS"
    fi
    ok=1
    if [ "$BENCH_WARMUP" -gt 0 ]; then
        run_pgbench "$ext" "$BENCH_WARMUP" "$BLOG/$w.ext.warmup.log" >/dev/null &&
            run_pgbench "$base" "$BENCH_WARMUP" "$BLOG/$w.base.warmup.log" >/dev/null || ok=0
    fi
    ext_tps=()
    base_tps=()
    ext_p99=()
    base_p99=()
    r=1
    while [ "$ok" = 1 ] && [ "$r" -le "$BENCH_RUNS" ]; do
        if e=$(run_pgbench "$ext" "$BENCH_SECONDS" "$BLOG/$w.ext.$r.log") &&
           b=$(run_pgbench "$base" "$BENCH_SECONDS" "$BLOG/$w.base.$r.log"); then
            ext_tps+=("$e")
            base_tps+=("$b")
            printf '   %-24s run %d/%d  ext %12s tps   base %12s tps\n' "$w" "$r" "$BENCH_RUNS" "$e" "$b"
            if [ "${BENCH_P99:-0}" = 1 ]; then
                ext_p99+=("$(cat "$BLOG/$w.ext.$r.log.p99")")
                base_p99+=("$(cat "$BLOG/$w.base.$r.log.p99")")
                printf '   %-24s run %d/%d  ext p99 %8s ms   base p99 %8s ms\n' "$w" "$r" "$BENCH_RUNS" "${ext_p99[-1]}" "${base_p99[-1]}"
            fi
        else
            ok=0
        fi
        r=$((r + 1))
    done
    if [ "$ok" != 1 ]; then
        it_warn "workload '$w' failed (logs in ${BLOG#"$IT_ROOT"/}/)"
        failed+=("$w")
        continue
    fi

    em=$(median "${ext_tps[@]}")
    bm=$(median "${base_tps[@]}")
    # each ext run against the base run right after it: load that drifts
    # over a workload's runs moves both sides of a pair alike
    pr=()
    for i in "${!ext_tps[@]}"; do
        pr+=("$(awk -v a="${base_tps[$i]}" -v b="${ext_tps[$i]}" 'BEGIN { if (b + 0 > 0) printf "%.4f\n", a / b }')")
    done
    rows+=("$(printf '%-24s | %14s | %15s | %16s | %12s | %s | %s' "$w" "$em" "$bm" "$(ratio "$bm" "$em")" \
        "$(printf '%s\n' "${pr[@]}" | sort -g | awk '{ a[NR] = $1 } END {
            if (NR == 0) print "n/a"; else if (NR % 2) printf "%.2f", a[(NR + 1) / 2];
            else printf "%.2f", (a[NR / 2] + a[NR / 2 + 1]) / 2 }')" \
        "$(IFS=,; echo "${ext_tps[*]}")" "$(IFS=,; echo "${base_tps[*]}")")")

    [ "${BENCH_P99:-0}" != 1 ] ||
        p99_rows+=("$(printf '%-24s | %14s | %15s' "$w" "$(median "${ext_p99[@]}")" "$(median "${base_p99[@]}")")")

    if [ -f "$WL_DIR/$w/size.sql" ]; then
        label=$w
        [ -f "$WL_DIR/$w/size.label" ] && label=$(head -n 1 "$WL_DIR/$w/size.label")
        if sz=$("$PGBIN/psql" -X -A -t -q -F ' ' -v ON_ERROR_STOP=1 -v scale="$BENCH_SCALE" \
                -d "$BENCH_DB" -f "$WL_DIR/$w/size.sql" </dev/null 2>"$BLOG/$w.size.log"); then
            read -r sext sbase _ <<<"$(printf '%s\n' "$sz" | tail -n 1 | tr '|' ' ')"
            size_rows+=("$(printf '%-40s | %14s | %15s | %16s' "$label" "${sext:-?}" "${sbase:-?}" \
                "$(ratio "${sext:-0}" "${sbase:-0}")")")
        else
            cat "$BLOG/$w.size.log" >&2
            it_warn "size.sql of workload '$w' failed"
            failed+=("$w (size)")
        fi
    fi
done

# ---- report -------------------------------------------------------------------
report=$(mktemp)
{
    echo "item_table benchmark  $(date -u '+%Y-%m-%d %H:%M UTC')  commit $(git rev-parse --short HEAD 2>/dev/null || echo none)"
    echo "PostgreSQL $("$PGBIN/postgres" --version | sed -E 's/.* ([0-9][0-9.]*).*/\1/'); pgbench -M prepared -n; runs=$BENCH_RUNS x ${BENCH_SECONDS}s alternating ext/base; clients=$BENCH_CLIENTS jobs=$BENCH_JOBS; scale=$BENCH_SCALE"
    echo "load average at start: $load_start; at end: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "time ratio ext/base = base tps / ext tps  (> 1: the item_table variant is slower)"
    echo "paired ratio = median over the runs of base tps / ext tps of each ext run and the base run after it"
    echo
    printf '%-24s | %14s | %15s | %16s | %12s | %s | %s\n' workload "ext median tps" "base median tps" "time ext/base" "paired ratio" "ext tps runs" "base tps runs"
    printf '%s\n' "-------------------------+----------------+-----------------+------------------+--------------+--------------+--------------"
    for row in "${rows[@]}"; do printf '%s\n' "$row"; done
    if [ "${#p99_rows[@]}" -gt 0 ]; then
        echo
        printf '%-24s | %14s | %15s\n' workload "ext p99 ms" "base p99 ms"
        printf '%s\n' "-------------------------+----------------+----------------"
        for row in "${p99_rows[@]}"; do printf '%s\n' "$row"; done
    fi
    if [ "${#size_rows[@]}" -gt 0 ]; then
        echo
        printf '%-40s | %14s | %15s | %16s\n' "size" "ext" "base" "ratio ext/base"
        printf '%s\n' "-----------------------------------------+----------------+-----------------+-----------------"
        for row in "${size_rows[@]}"; do printf '%s\n' "$row"; done
    fi
    if [ "${#skipped[@]}" -gt 0 ]; then
        echo
        echo "skipped: ${skipped[*]}"
    fi
    if [ "${#failed[@]}" -gt 0 ]; then
        echo
        echo "FAILED: ${failed[*]}"
    fi
} >"$report"
echo
cat "$report"
cp "$report" "$RESULTS_DIR/latest.txt"
rm -f "$report"
it_cleanup
echo
it_say "benchmark finished in $(it_elapsed "$t0") s; table written to $RESULTS_DIR/latest.txt"
[ "${#failed[@]}" -eq 0 ]
