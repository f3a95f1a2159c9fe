#!/bin/bash
# The distributed tests (scripts/test.sh suite "citus"): Citus built from its
# source release beside the repository (../shared/vendor/citus-*.tar.gz, see
# test/citus/cluster.sh) into the PostgreSQL that PG_CONFIG names, a
# coordinator and two workers on loopback ports, then
#   1. pg_regress: test/citus/sql/*.sql against the coordinator, with their
#      own expected output (test/citus/expected)        (counted per test)
#   2. a random workload from 4 clients (pgbench, test/citus/workload.sql)
#      on a distributed table with three indexes, then verify() clean
#                                                       (one test)
# and ends with one line "N passed, N failed".  Exit status 77 (and a line
# saying why) when the Citus release is not there: the suite is skipped.
#
# Environment: PG_CONFIG (as scripts/test.sh), IT_LOG_DIR (logs go to
# $IT_LOG_DIR/citus), IT_CITUS_WORKLOAD_SECONDS (default 15).
set -uo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$IT_ROOT" || exit 1
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"
# shellcheck source=test/citus/cluster.sh
. "$IT_ROOT/test/citus/cluster.sh"

if ! tarball=$(citus_tarball); then
    echo "SKIP: the Citus source release (../shared/vendor/citus-$CITUS_VERSION.tar.gz beside the repository) is not there; the distributed tests need it"
    exit 77
fi

it_need_root || exit 1
it_pg_env || exit 1
LOG="$IT_LOG_DIR/citus"
rm -rf "$LOG"
mkdir -p "$LOG" || exit 1

pass=0
fail=0
finish() {
    citus_stop_cluster
    printf '%d passed, %d failed\n' "$pass" "$fail"
    [ "$fail" -eq 0 ]
    exit $?
}
trap 'citus_stop_cluster' EXIT
trap 'citus_stop_cluster; exit 130' INT TERM

if ! citus_build; then
    fail=1
    finish
fi
if ! citus_start_cluster; then
    fail=1
    finish
fi

# 1. pg_regress on the coordinator
tests=()
for f in test/citus/sql/*.sql; do
    tests+=("$(basename "$f" .sql)")
done
it_say "citus: pg_regress ${tests[*]}"
# a second session for the tests that need one (\! "$IT_PSQL" ...)
export IT_PSQL="$PGBIN/psql"
"$PG_REGRESS" --bindir="$PGBIN" --inputdir=test/citus --outputdir="$LOG" \
    --use-existing --dbname="$CITUS_DB" --host="$PGHOST" --port="$PGPORT" --user=postgres \
    "${tests[@]}" </dev/null >"$LOG/regress.out" 2>&1
cat "$LOG/regress.out"
p=$(grep -cE '\.\.\. +ok( |$)|^ok [0-9]+ ' "$LOG/regress.out")
f=$(grep -cE '\.\.\. +FAILED|^not ok [0-9]+ ' "$LOG/regress.out")
if [ $((p + f)) -lt "${#tests[@]}" ]; then
    f=$((${#tests[@]} - p))
fi
pass=$((pass + p))
fail=$((fail + f))
if [ "$f" -gt 0 ] && [ -s "$LOG/regression.diffs" ]; then
    echo "---- citus: regression.diffs (first 200 lines) ----"
    head -n 200 "$LOG/regression.diffs"
    echo "---- end of diffs ----"
fi

# 2. a random workload from 4 clients, then verify()
secs=${IT_CITUS_WORKLOAD_SECONDS:-15}
it_say "citus: random workload, 4 clients, $secs s"
ok=1
if ! "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -f test/citus/workload_setup.sql \
        </dev/null >"$LOG/workload_setup.out" 2>&1; then
    cat "$LOG/workload_setup.out"
    ok=0
fi
if [ "$ok" = 1 ] && ! "$PGBIN/pgbench" -n -c 4 -j 2 -T "$secs" -f test/citus/workload.sql \
        </dev/null >"$LOG/workload.out" 2>&1; then
    tail -n 20 "$LOG/workload.out"
    ok=0
fi
if [ "$ok" = 1 ]; then
    grep -E '^number of transactions actually processed|^tps' "$LOG/workload.out" | sed 's/^/  /'
    problems=$("$PGBIN/psql" -X -qAt -v ON_ERROR_STOP=1 \
        -c "SELECT count(*) FROM item_table.verify('Work')" </dev/null 2>&1)
    items=$("$PGBIN/psql" -X -qAt -c 'SELECT count(*) FROM item_data."Work"' </dev/null 2>&1)
    echo "  verify('Work'): $problems problem(s) over $items item(s)"
    if [ "$problems" != 0 ]; then
        "$PGBIN/psql" -X -c "SELECT * FROM item_table.verify('Work') LIMIT 20" </dev/null
        ok=0
    fi
fi
if [ "$ok" = 1 ]; then
    pass=$((pass + 1))
    printf '  %-40s ok\n' "workload (4 clients) + verify()"
else
    fail=$((fail + 1))
    printf '  %-40s FAILED\n' "workload (4 clients) + verify()"
fi

finish
