#!/usr/bin/env bash
# Backend memory over many API calls: does a backend running MEM_CALLS
# calls of each kind keep a flat RSS?
#
#   bash bench/memory.sh [workload ...]   (default: the API workloads below)
#
# Starts a throw-away cluster (as bench/run.sh does), loads the workloads'
# setups at MEM_SCALE items (default 100000), then runs each workload's
# ext.sql MEM_CALLS times (default 1000000) through ONE pgbench connection
# (-M prepared, one backend) and samples that backend's /proc/<pid>/status
# every MEM_INTERVAL seconds (default 2).  Prints, per workload, RssAnon
# (the backend's private memory) and VmRSS after the first 10% of the calls
# (warm: caches, plans, catalog entries are made by then), at the peak and
# at the end; "growth" is end minus warm.  A leak of even 100 bytes a call
# shows as about 100 MB over a million calls.
set -euo pipefail
IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$IT_ROOT"
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"
MEM_SCALE=${MEM_SCALE:-100000}
MEM_CALLS=${MEM_CALLS:-1000000}
MEM_INTERVAL=${MEM_INTERVAL:-2}
WL_DIR=bench/workloads
workloads=("$@")
[ "${#workloads[@]}" -gt 0 ] || workloads=(get_item put_item put_conditional update_counter update_multi delete_item
    query10 query100 batch_get25 batch_write25 transact_2items gsi_put)

it_need_root || it_die "root or sudo is required"
it_pg_env || it_die "PostgreSQL tools not found"
it_build_install || it_die "build failed"
it_start_cluster || it_die "could not start a PostgreSQL cluster"
DB=item_table_mem
"$PGBIN/createdb" "$DB"
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DB" -c 'CREATE EXTENSION item_table' >/dev/null
declare -A done_setup=()
for w in "${workloads[@]}"; do
    g=$w; [ -f "$WL_DIR/$w/group" ] && g=$(tr -d '[:space:]' <"$WL_DIR/$w/group")
    [ -n "${done_setup[$g]:-}" ] && continue
    s="$WL_DIR/$w/setup.sql"; [ -f "$s" ] || s="$WL_DIR/$g/setup.sql"
    "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -v scale="$MEM_SCALE" -d "$DB" -f "$s" >/dev/null 2>&1 ||
        it_die "setup $s failed"
    done_setup[$g]=1
done
"$PGBIN/psql" -X -q -d "$DB" -c 'VACUUM ANALYZE' >/dev/null

kb() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$2/status" 2>/dev/null || true; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

printf '%-18s | %9s | %27s | %27s | %s\n' workload calls "RssAnon MB warm/peak/end" "VmRSS MB warm/peak/end" "growth (RssAnon)"
for w in "${workloads[@]}"; do
    "$PGBIN/pgbench" -n -M prepared -c 1 -j 1 -t "$MEM_CALLS" -D scale="$MEM_SCALE" \
        -f "$WL_DIR/$w/ext.sql" "$DB" >"$IT_LOG_DIR/memory-$w.log" 2>&1 &
    bpid=$!
    pid=""
    for _ in $(seq 1 100); do
        pid=$("$PGBIN/psql" -X -A -t -d "$DB" -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench' LIMIT 1" 2>/dev/null || true)
        [ -n "$pid" ] && break
        sleep 0.1
    done
    [ -n "$pid" ] || it_die "no pgbench backend found for $w"
    t0=$(date +%s)
    samples=()
    while kill -0 "$bpid" 2>/dev/null; do
        a=$(kb RssAnon "$pid"); r=$(kb VmRSS "$pid")
        [ -n "$a" ] && samples+=("$a $r")
        sleep "$MEM_INTERVAL"
    done
    wait "$bpid" || { tail -5 "$IT_LOG_DIR/memory-$w.log"; it_die "pgbench failed for $w"; }
    secs=$(( $(date +%s) - t0 ))
    n=${#samples[@]}
    [ "$n" -ge 3 ] || { it_warn "$w: too few samples ($n)"; continue; }
    warm=${samples[$(( n / 10 ))]}
    last=${samples[$(( n - 1 ))]}
    peak_a=0; peak_r=0
    for x in "${samples[@]}"; do
        read -r a r <<<"$x"
        [ "$a" -gt "$peak_a" ] && peak_a=$a
        [ "$r" -gt "$peak_r" ] && peak_r=$r
    done
    read -r wa wr <<<"$warm"; read -r la lr <<<"$last"
    printf '%-18s | %9s | %27s | %27s | %+.1f MB (%d samples, %d s)\n' "$w" "$MEM_CALLS" \
        "$(mb "$wa") / $(mb "$peak_a") / $(mb "$la")" "$(mb "$wr") / $(mb "$peak_r") / $(mb "$lr")" \
        "$(awk -v a="$la" -v b="$wa" 'BEGIN { print (a - b) / 1024 }')" "$n" "$secs"
done
it_cleanup
