#!/usr/bin/env bash
# The project's test command:  bash scripts/test.sh
#
# Installs the build/test dependencies (Debian packages) if missing, builds and
# installs the extension, starts a throw-away PostgreSQL cluster in a temp dir,
# then runs:
#   1. pg_regress            REGRESS tests from the Makefile   (counted per test)
#   2. pg_isolation_regress  ISOLATION specs from the Makefile (counted per spec)
#   3. pgTAP                 test/pgtap/*.sql via pg_prove     (counted per assertion)
#   4. security              test/security/*.sql via pg_prove  (counted per assertion)
#   5. upgrade               test/upgrade/*.sql via pg_prove   (counted per assertion)
#   6. stress                test/stress/*.sh (pgbench soaks)  (counted per script)
#   7. gateway               item_table_gateway with boto3 (pytest), the AWS CLI
#                            and test/gateway/js/run.sh if present
#                                                  (counted per test and check)
#      differential          test/differential/run.py: the request list against
#                            the gateway and DynamoDB Local, every difference
#                            printed; skipped when Java or DynamoDBLocal.jar
#                            is missing (scripts/dynamodb_local.sh)
#                                                  (counted per request)
#   8. citus                 test/citus/run.sh: Citus built from its source
#                            release beside the repository, a coordinator and
#                            two workers, the distributed pg_regress tests and
#                            a 4-client workload + verify(); skipped when the
#                            release is not there       (counted per test)
#   9. fuzz                  scripts/fuzz.sh, libFuzzer on the C parsers,
#                            IT_FUZZ_SECONDS in total (default 60; 0 skips)
#                                                              (counted per target)
#  10. pg17, pg18            the other PostgreSQL majors (IT_PG_VERSIONS,
#                            default "15 17 18"): regress, isolation, pgTAP,
#                            security, upgrade and gateway in a Debian chroot
#                            of the suite that ships each one (trixie, sid;
#                            made with debootstrap on first use and cached in
#                            /var/cache/item_table/chroot), compiler warnings
#                            counted as failures          (counted per test)
#      replica               test/replica/run.sh: a primary and a synchronous
#                            hot standby on loopback (pg_basebackup -R); every
#                            read on the standby, writes refused there, then
#                            failover rounds under load through the gateway
#                            (kill -9, pg_ctl promote, the old primary made
#                            again as the standby): acknowledged writes lost
#                            (must be 0), streams, verify(), the worker after
#                            promotion                  (counted per check)
#  11. meta                  META.json against the PGXN Meta Spec
#                            (scripts/check_meta.py)     (counted per check)
#      layers                the module map holds: no include or call up a
#                            layer, no ring of calls, no C file over 1,500
#                            lines (scripts/check_layers.py) (per check)
#  12. docs                  the SQL examples of README.md and docs/*.md run
#                            and their shown output compared
#                            (scripts/check_docs.py)   (counted per example)
#  13. deb-pg15, -17, -18    scripts/packages.sh: the Debian packages built
#                            for each major, lintian, then installed into a
#                            clean chroot, CREATE EXTENSION and a GetItem
#                            through the packaged gateway, purged
#                            (IT_PACKAGES=0 skips)        (counted per step)
# and ends with one line "N passed, N failed".  Exit status 0 only if every
# suite ran and nothing failed.  Logs go to log/ (regress.out, isolation.out,
# pgtap/*.out, build.log, server.log, fuzz.out and fuzz/).
set -uo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$IT_ROOT" || exit 1
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"
# shellcheck source=scripts/chroot.sh
. "$IT_ROOT/scripts/chroot.sh"
# shellcheck source=scripts/pgvector.sh
. "$IT_ROOT/scripts/pgvector.sh"

TOTAL_PASS=0
TOTAL_FAIL=0
SUITE_LINES=()
DIFF_CAP=300

record() {  # record SUITE UNIT PASSED FAILED [NOTE]
    TOTAL_PASS=$((TOTAL_PASS + $3))
    TOTAL_FAIL=$((TOTAL_FAIL + $4))
    SUITE_LINES+=("$(printf '  %-10s %-13s %4d passed, %d failed%s' "$1" "($2)" "$3" "$4" "${5:+  -- $5}")")
}

record_skip() {  # record_skip SUITE REASON
    SUITE_LINES+=("$(printf '  %-10s skipped: %s' "$1" "$2")")
}

finish() {
    it_cleanup
    echo
    echo "== summary"
    local l
    for l in "${SUITE_LINES[@]}"; do
        printf '%s\n' "$l"
    done
    printf '%d passed, %d failed\n' "$TOTAL_PASS" "$TOTAL_FAIL"
    trap - EXIT
    if [ "$TOTAL_FAIL" -eq 0 ]; then exit 0; else exit 1; fi
}

fatal() {  # a step before the suites failed: one failure, stop here
    it_warn "$1"
    record setup step 0 1 "$1"
    finish
}

show_capped() {  # show_capped FILE LINES
    local n
    n=$(wc -l <"$1")
    head -n "$2" "$1"
    if [ "$n" -gt "$2" ]; then
        echo "... ($((n - $2)) more lines in ${1#"$IT_ROOT"/})"
    fi
}

# The counts of a script that ends with one line "N passed, N failed", given
# its output FILE and exit status RC: prints "passed failed".  A missing
# line counts one failure (status 1), as does a non-zero status with no
# failure counted.
tail_counts() {
    local line p=0 f=1 found=1
    line=$(tail -n 1 "$1")
    if [[ "$line" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        p=${BASH_REMATCH[1]}
        f=${BASH_REMATCH[2]}
        found=0
    fi
    [ "$2" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    echo "$p $f"
    return "$found"
}

# Count pg_regress / pg_isolation_regress per-test result lines.
# PG <= 15:  "test foo   ... ok  12 ms", "     foo ... FAILED", "... failed (ignored)"
# PG >= 16:  "ok 1         - foo   12 ms", "not ok 2     + foo"
count_regress() {
    awk '
        /\.\.\. +ok( |$)/              { p++; next }
        /\.\.\. +failed \(ignored\)/   { p++; next }
        /\.\.\. +FAILED/               { f++; next }
        /^ok [0-9]+ +[-+] /            { p++; next }
        /^not ok [0-9]+ +[-+] /        { f++; next }
        END { print p + 0, f + 0 }' "$1"
}

# run_regress SUITE DRIVER OUTDIR EXPECTED_COUNT ARGS...
run_regress() {
    local suite=$1 driver=$2 outdir=$3 expected=$4
    shift 4
    local out="$IT_LOG_DIR/$suite.out" rc p f
    it_say "$suite: running $expected test(s)"
    if ! it_ensure_server; then
        record "$suite" tests 0 "$expected" "server not running"
        return
    fi
    mkdir -p "$outdir"
    rm -f "$outdir/regression.diffs" "$outdir/regression.out"
    "$driver" --bindir="$PGBIN" --outputdir="$outdir" "$@" </dev/null 2>&1 | tee "$out"
    rc=${PIPESTATUS[0]}
    read -r p f < <(count_regress "$out")
    local note=""
    if [ $((p + f)) -lt "$expected" ]; then
        note="$((expected - p - f)) test(s) did not report"
        f=$((f + expected - p - f))
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        note="$(basename "$driver") exited with status $rc"
        f=1
    fi
    if [ "$f" -gt 0 ]; then
        if [ -s "$outdir/regression.diffs" ]; then
            local shown="$outdir/regression.diffs"
            shown=${shown#./}
            echo "---- $suite: $shown (first $DIFF_CAP lines) ----"
            show_capped "$outdir/regression.diffs" "$DIFF_CAP"
            echo "---- end of diffs ----"
        fi
        it_server_running || it_server_log_tail 40
    fi
    record "$suite" tests "$p" "$f" "$note"
}

suite_regress() {
    local regress opts
    regress=$(it_make_var REGRESS) || { record regress tests 0 1 "could not read REGRESS from the Makefile"; return; }
    opts=$(it_make_var REGRESS_OPTS) || opts=""
    if [ -z "${regress// /}" ]; then
        record_skip regress "REGRESS is empty in the Makefile"
        return
    fi
    local -a tests opt_words
    read -r -a tests <<<"$regress"
    read -r -a opt_words <<<"$opts"
    run_regress regress "$PG_REGRESS" . "${#tests[@]}" \
        --inputdir=. "${opt_words[@]}" "${tests[@]}"
}

suite_isolation() {
    local isolation opts
    isolation=$(it_make_var ISOLATION) || { record isolation tests 0 1 "could not read ISOLATION from the Makefile"; return; }
    opts=$(it_make_var ISOLATION_OPTS) || opts=""
    if [ -z "${isolation// /}" ]; then
        record_skip isolation "ISOLATION is empty in the Makefile"
        return
    fi
    local -a tests opt_words
    read -r -a tests <<<"$isolation"
    read -r -a opt_words <<<"$opts"
    run_regress isolation "$PG_ISOLATION_REGRESS" test/isolation/output_iso "${#tests[@]}" \
        --inputdir=test/isolation --dbname=isolation_regression "${opt_words[@]}" "${tests[@]}"
}

# Count top-level TAP results of one pg_prove -v output.
# Prints: passed failed planned
count_tap() {
    awk '
        /^1\.\.[0-9]+/                 { if (!plan) { sub(/^1\.\./, ""); plan = $0 + 0 } ; next }
        /^not ok [0-9]+.*# *TODO/      { p++; next }
        /^not ok [0-9]+( |$)/           { f++; next }
        /^ok [0-9]+( |$)/               { p++; next }
        END { print p + 0, f + 0, plan + 0 }' "$1"
}

# run_pgtap SUITE DIR DB FRESH: every DIR/*.sql through pg_prove against
# database DB (created with pgtap and item_table); FRESH=1 makes the
# database anew before each file (for tests that commit, create roles or
# install event triggers).  Counted per assertion.
run_pgtap() {
    local suite=$1 tdir=$2 db=$3 fresh=$4
    local files=() f
    for f in "$tdir"/*.sql; do
        [ -e "$f" ] && files+=("$f")
    done
    if [ "${#files[@]}" -eq 0 ]; then
        record_skip "$suite" "no $tdir/*.sql files"
        return
    fi
    local dir="$IT_LOG_DIR/$suite"
    rm -rf "$dir"
    mkdir -p "$dir"
    it_say "$suite: ${#files[@]} file(s), database $db"
    if ! it_ensure_server; then
        record "$suite" assertions 0 "${#files[@]}" "server not running (1 failure per file)"
        return
    fi

    local tp=0 tf=0 out rc p x plan name fails made=0
    for f in "${files[@]}"; do
        name=$(basename "$f" .sql)
        out="$dir/$name.out"
        if [ "$fresh" = 1 ] || [ "$made" = 0 ]; then
            if ! {
                "$PGBIN/dropdb" --if-exists "$db" &&
                "$PGBIN/createdb" "$db" &&
                "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" \
                    -c 'CREATE EXTENSION IF NOT EXISTS pgtap' \
                    -c 'CREATE EXTENSION IF NOT EXISTS item_table'
            } </dev/null >"$dir/setup.out" 2>&1; then
                cat "$dir/setup.out"
                tf=$((tf + 1))
                printf '  %-40s FAILED  database setup failed\n' "$f"
                continue
            fi
            made=1
        fi
        pg_prove -v -b "$PGBIN/psql" -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -d "$db" "$f" \
            </dev/null >"$out" 2>&1
        rc=$?
        read -r p x plan < <(count_tap "$out")
        fails=$x
        if [ "$plan" -gt $((p + x)) ]; then
            fails=$((fails + plan - p - x))
        fi
        if [ "$rc" -ne 0 ] && [ "$fails" -eq 0 ]; then
            fails=1
        fi
        tp=$((tp + p))
        tf=$((tf + fails))
        if [ "$fails" -eq 0 ]; then
            printf '  %-40s ok      %d assertion(s)\n' "$f" "$p"
        else
            printf '  %-40s FAILED  %d passed, %d failed (planned %d, pg_prove status %d)\n' \
                "$f" "$p" "$fails" "$plan" "$rc"
            echo "---- $f: pg_prove output (first 150 lines) ----"
            show_capped "$out" 150
            echo "---- end of output ----"
        fi
    done
    it_server_running || it_server_log_tail 40
    record "$suite" assertions "$tp" "$tf" "${#files[@]} file(s)"
}

suite_pgtap() {
    run_pgtap pgtap test/pgtap item_table_tap 0
}

# Hostile-user tests: roles without grants, operators and functions planted
# on search_path, cross-role attempts.  A fresh database per file.
suite_security() {
    run_pgtap security test/security item_table_sec 1
}

# ALTER EXTENSION UPDATE from each released version: a fresh database per
# file (the files drop and recreate the extension).
suite_upgrade() {
    run_pgtap upgrade test/upgrade item_table_upgrade 1
}

# Concurrency and soak tests: each test/stress/*.sh runs against the test
# cluster (PGHOST/PGPORT/PGUSER/PGBIN are set), prints what it measured and
# exits 0 on success.  One test per script.
suite_stress() {
    local files=() f name out rc tp=0 tf=0
    for f in test/stress/*.sh; do
        [ -e "$f" ] && files+=("$f")
    done
    if [ "${#files[@]}" -eq 0 ]; then
        record_skip stress "no test/stress/*.sh files"
        return
    fi
    mkdir -p "$IT_LOG_DIR/stress"
    it_say "stress: ${#files[@]} script(s)"
    for f in "${files[@]}"; do
        name=$(basename "$f" .sh)
        out="$IT_LOG_DIR/stress/$name.out"
        if ! it_ensure_server; then
            tf=$((tf + 1))
            continue
        fi
        PGBIN="$PGBIN" bash "$f" </dev/null >"$out" 2>&1
        rc=$?
        if [ "$rc" -eq 0 ]; then
            tp=$((tp + 1))
            printf '  %-40s ok\n' "$f"
            sed 's/^/    /' "$out" | tail -n 8
        else
            tf=$((tf + 1))
            printf '  %-40s FAILED (status %d)\n' "$f" "$rc"
            show_capped "$out" 80
        fi
    done
    record stress tests "$tp" "$tf" "${#files[@]} script(s)"
}

# Coverage-guided fuzzing of the parsers (test/fuzz/README.md): no database
# needed.  One test per target; a crash, sanitizer report or broken
# invariant fails it and leaves a reproducer in log/fuzz/.
suite_fuzz() {
    local secs=${IT_FUZZ_SECONDS:-60} out="$IT_LOG_DIR/fuzz.out" rc tp tf note
    case "$secs" in
        ''|*[!0-9]*) record fuzz targets 0 1 "IT_FUZZ_SECONDS is not a number: $secs"; return ;;
        0) record_skip fuzz "IT_FUZZ_SECONDS=0"; return ;;
    esac
    it_say "fuzz: libFuzzer targets, $secs s in total"
    IT_LOG_DIR="$IT_LOG_DIR" bash scripts/fuzz.sh "$secs" </dev/null >"$out" 2>&1
    rc=$?
    grep -E '^(fuzz: |    )' "$out"
    tp=$(grep -cE '^fuzz: [a-z_]+ +ok ' "$out")
    tf=$(grep -cE '^fuzz: [a-z_]+ +FAILED ' "$out")
    note=$(sed -nE 's/^fuzz: ([0-9]+ executions clean in [0-9]+ targets)$/\1/p' "$out")
    if [ "$rc" -ne 0 ] && [ "$tf" -eq 0 ]; then
        tail -n 20 "$out"
        tf=1
        note="scripts/fuzz.sh exited with status $rc (log: ${out#"$IT_ROOT"/})"
    fi
    record fuzz targets "$tp" "$tf" "$note"
}

# item_table_gateway (gateway/) against the test cluster: a database made
# by test/gateway/setup.sql, one gateway started here as its login role on a
# free loopback port, then boto3 tests (pytest, counted per test), the AWS
# CLI script and, when present, the JavaScript tests (counted per check),
# and a graceful stop (one test).
# A new database DB for the gateway's tests (test/gateway/setup.sql: its
# roles, grants and a key), the output in DIR/setup.out, shown on failure.
gateway_db() {
    local db=$1 dir=$2
    if ! {
        "$PGBIN/dropdb" --if-exists "$db" &&
        "$PGBIN/createdb" "$db" &&
        "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" -f test/gateway/setup.sql
    } </dev/null >"$dir/setup.out" 2>&1; then
        cat "$dir/setup.out"
        return 1
    fi
}

# Start the installed gateway BIN on a free loopback port, its output in
# DIR (gateway.out, gateway.log), the other arguments its own; wait up to
# 15 s for its "listening on" line.  Sets IT_GATEWAY_PID (stopped by the
# caller, or by the cleanup on exit) and GW_ENDPOINT (empty when it did not
# start).
gateway_start() {
    local bin=$1 dir=$2 line i
    shift 2
    GW_ENDPOINT=""
    # IT_GW_ENGINE (mhd or loop): the gateway's HTTP engine, here and in
    # the gateways the tests start (test/gateway/conftest.py)
    [ -n "${IT_GW_ENGINE:-}" ] && set -- --engine "$IT_GW_ENGINE" "$@"
    "$bin" --listen 127.0.0.1 --port 0 "$@" </dev/null >"$dir/gateway.out" 2>"$dir/gateway.log" &
    IT_GATEWAY_PID=$!
    for i in $(seq 1 150); do
        line=$(grep -m 1 'listening on ' "$dir/gateway.out" 2>/dev/null)
        if [ -n "$line" ]; then
            GW_ENDPOINT=${line##*listening on }
            return 0
        fi
        kill -0 "$IT_GATEWAY_PID" 2>/dev/null || break
        sleep 0.1
    done
    return 1
}

suite_gateway() {
    local dir="$IT_LOG_DIR/gateway" bin tp=0 tf=0 p f rc line
    local db=item_table_gw
    rm -rf "$dir"
    mkdir -p "$dir"
    bin="$("$PG_CONFIG" --bindir)/item_table_gateway"
    if [ ! -x "$bin" ]; then
        record gateway tests 0 1 "$bin not installed"
        return
    fi
    it_say "gateway: $bin"
    if ! it_ensure_server; then
        record gateway tests 0 1 "server not running"
        return
    fi
    if ! gateway_db "$db" "$dir"; then
        record gateway tests 0 1 "database setup failed"
        return
    fi
    local key key_id secret
    key=$("$PGBIN/psql" -X -qAt -v ON_ERROR_STOP=1 -d "$db" -F ' ' \
        -c "SELECT * FROM item_table.create_access_key('gw_app')" </dev/null) || key=""
    read -r key_id secret <<<"$key"
    if [ -z "${secret:-}" ]; then
        record gateway tests 0 1 "create_access_key() failed"
        return
    fi

    local conninfo="host=$PGHOST port=$PGPORT dbname=$db user=gw_login"
    gateway_start "$bin" "$dir" --log --dbname "$conninfo"
    local endpoint=$GW_ENDPOINT
    if [ -z "$endpoint" ]; then
        tail -n 20 "$dir/gateway.log"
        record gateway tests 0 1 "the gateway did not start"
        kill -TERM "$IT_GATEWAY_PID" 2>/dev/null
        IT_GATEWAY_PID=""
        return
    fi
    it_say "gateway: listening on $endpoint"

    # pg_ctl as the postgres user, for the restart test
    local as_pg stop start
    if [ "$(id -u)" -eq 0 ]; then as_pg="runuser -u postgres --"; else as_pg="sudo -u postgres --"; fi
    stop="cd / && $as_pg $(printf '%q' "$PGBIN/pg_ctl") -D $(printf '%q' "$IT_PGDATA") -w -t 60 -m fast stop"
    start="cd / && $as_pg $(printf '%q' "$PGBIN/pg_ctl") -D $(printf '%q' "$IT_PGDATA") -l $(printf '%q' "$IT_TMP/server.log") -w -t 120 start"

    IT_GW_BIN="$bin" IT_GW_CONNINFO="$conninfo" \
    IT_GW_ADMIN="host=$PGHOST port=$PGPORT dbname=$db user=$PGUSER" \
    IT_GW_PSQL="$PGBIN/psql" IT_GW_ENDPOINT="$endpoint" \
    IT_GW_KEY_ID="$key_id" IT_GW_SECRET="$secret" \
    IT_GW_PG_STOP="$stop" IT_GW_PG_START="$start" \
    IT_GW_PGBIN="$PGBIN" IT_GW_AS_PG="$as_pg" \
        /usr/bin/python3 -m pytest -p no:cacheprovider -q -rA --tb=short \
            --junitxml="$dir/junit.xml" ${IT_GW_TESTS:-test/gateway} </dev/null >"$dir/pytest.out" 2>&1
    rc=$?
    read -r p f < <(/usr/bin/python3 - "$dir/junit.xml" <<'PY'
import sys
import xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception:
    print(0, 0)
    sys.exit()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
t = sum(int(s.get("tests", 0)) for s in suites)
bad = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
skip = sum(int(s.get("skipped", 0)) for s in suites)
print(t - bad - skip, bad)
PY
)
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
    fi
    tp=$((tp + p))
    tf=$((tf + f))
    if [ "$f" -eq 0 ]; then
        printf '  %-40s ok      %d test(s)\n' "test/gateway (pytest, boto3)" "$p"
    else
        printf '  %-40s FAILED  %d passed, %d failed (pytest status %d)\n' "test/gateway (pytest, boto3)" "$p" "$f" "$rc"
        echo "---- pytest output (first 200 lines) ----"
        show_capped "$dir/pytest.out" 200
        echo "---- end of output ----"
    fi

    # shell checks that end with "N passed, N failed"
    local script name
    for script in ${IT_GW_SCRIPTS-test/gateway/awscli.sh test/gateway/js/run.sh}; do
        [ -f "$script" ] || continue
        name=$(basename "$(dirname "$script")")/$(basename "$script")
        IT_GW_ADMIN="host=$PGHOST port=$PGPORT dbname=$db user=$PGUSER" IT_GW_PSQL="$PGBIN/psql" \
            bash "$script" "$endpoint" "$key_id" "$secret" </dev/null >"$dir/${name//\//_}.out" 2>&1
        rc=$?
        read -r p f <<<"$(tail_counts "$dir/${name//\//_}.out" "$rc")"
        tp=$((tp + p))
        tf=$((tf + f))
        if [ "$f" -eq 0 ]; then
            printf '  %-40s ok      %d check(s)\n' "$script" "$p"
        else
            printf '  %-40s FAILED  %d passed, %d failed (status %d)\n' "$script" "$p" "$f" "$rc"
            show_capped "$dir/${name//\//_}.out" 80
        fi
    done

    # sigv4.c's own test program (gateway/sigv4_check.c), when the
    # gateway was built from this tree
    if [ -f gateway/sigv4.o ]; then
        make -C gateway PG_CONFIG="$PG_CONFIG" selftest </dev/null >"$dir/selftest.out" 2>&1
        rc=$?
        if [ "$rc" -eq 0 ]; then
            tp=$((tp + 1))
            printf '  %-40s ok      %s\n' "gateway/sigv4_check (make selftest)" \
                "$(grep -o '[0-9]* checks' "$dir/selftest.out" | tail -n 1)"
        else
            tf=$((tf + 1))
            printf '  %-40s FAILED (status %d)\n' "gateway/sigv4_check (make selftest)" "$rc"
            show_capped "$dir/selftest.out" 40
        fi
    fi

    # SIGTERM: it stops, exit status 0
    kill -TERM "$IT_GATEWAY_PID" 2>/dev/null
    wait "$IT_GATEWAY_PID"
    rc=$?
    IT_GATEWAY_PID=""
    if [ "$rc" -eq 0 ]; then
        tp=$((tp + 1))
        printf '  %-40s ok\n' "gateway stops on SIGTERM"
    else
        tf=$((tf + 1))
        printf '  %-40s FAILED (status %d)\n' "gateway stops on SIGTERM" "$rc"
        tail -n 20 "$dir/gateway.log"
    fi
    it_server_running || it_server_log_tail 40
    record gateway tests "$tp" "$tf" "log: ${dir#"$IT_ROOT"/}"
}

# Item tables distributed with Citus (test/citus/run.sh, which builds Citus
# and runs its own 3-node cluster beside the test cluster).
suite_differential() {
    # test/differential/run.py: the request list against our gateway and
    # DynamoDB Local (scripts/dynamodb_local.sh); skipped without Java or
    # the jar (DYNAMODB_LOCAL_JAR, or the script's cache directory)
    local dir="$IT_LOG_DIR/differential" bin db=item_table_diff jar port gwport p f rc line
    rm -rf "$dir"
    mkdir -p "$dir"
    if ! command -v java >/dev/null 2>&1; then
        record_skip differential "java not found (bash scripts/dynamodb_local.sh install)"
        return
    fi
    if ! jar=$(bash scripts/dynamodb_local.sh find); then
        record_skip differential "DynamoDBLocal.jar not found (set DYNAMODB_LOCAL_JAR, or bash scripts/dynamodb_local.sh install)"
        return
    fi
    it_say "differential: $jar"
    bin="$("$PG_CONFIG" --bindir)/item_table_gateway"
    if [ ! -x "$bin" ] || ! it_ensure_server; then
        record differential requests 0 1 "gateway not installed or server not running"
        return
    fi
    if ! gateway_db "$db" "$dir"; then
        record differential requests 0 1 "database setup failed"
        return
    fi
    local key
    key=$("$PGBIN/psql" -X -qAt -v ON_ERROR_STOP=1 -d "$db" -F : \
        -c "SELECT * FROM item_table.create_access_key('gw_app')" </dev/null) || key=""
    port=$(it_pick_port) || port=""
    IT_DDBLOCAL_PIDFILE="$dir/dynamodb_local.pid"
    if [ -z "$key" ] || [ -z "$port" ] ||
        ! DYNAMODB_LOCAL_JAR="$jar" bash scripts/dynamodb_local.sh start "$port" "$IT_DDBLOCAL_PIDFILE" \
            >/dev/null 2>"$dir/dynamodb_local.err"; then
        cat "$dir/dynamodb_local.err"
        record differential requests 0 1 "DynamoDB Local did not start"
        bash scripts/dynamodb_local.sh stop "$IT_DDBLOCAL_PIDFILE"
        IT_DDBLOCAL_PIDFILE=""
        return
    fi
    gateway_start "$bin" "$dir" --dbname "host=$PGHOST port=$PGPORT dbname=$db user=gw_login"
    local endpoint=$GW_ENDPOINT
    if [ -n "$endpoint" ]; then
        /usr/bin/python3 test/differential/run.py --ours "$endpoint" --ours-key "$key" \
            --theirs "http://127.0.0.1:$port" </dev/null >"$dir/run.out" 2>&1
        rc=$?
        read -r p f <<<"$(tail_counts "$dir/run.out" "$rc")"
        line=$(grep '^differential: ' "$dir/run.out" | tail -n 1)
        if [ "$f" -ne 0 ]; then
            show_capped "$dir/run.out" 200
        fi
        record differential requests "$p" "$f" "${line#differential: }"
    else
        tail -n 20 "$dir/gateway.log"
        record differential requests 0 1 "the gateway did not start"
    fi
    kill -TERM "$IT_GATEWAY_PID" 2>/dev/null
    wait "$IT_GATEWAY_PID" 2>/dev/null
    IT_GATEWAY_PID=""
    bash scripts/dynamodb_local.sh stop "$IT_DDBLOCAL_PIDFILE"
    IT_DDBLOCAL_PIDFILE=""
}

# Hot standby and failover (test/replica/run.sh, which runs its own two
# clusters and gateway beside the test cluster).
suite_replica() {
    local out="$IT_LOG_DIR/replica.out" rc p f line
    it_say "replica: hot standby and failover (test/replica/run.sh)"
    PG_CONFIG="$PG_CONFIG" IT_LOG_DIR="$IT_LOG_DIR" bash test/replica/run.sh </dev/null >"$out" 2>&1
    rc=$?
    read -r p f <<<"$(tail_counts "$out" "$rc")"
    grep -E '^(FAILED|round [0-9]+: [0-9.]+ s|failover: |replica suite: )' "$out" | sed 's/^/  /'
    [ "$f" -gt 0 ] && show_capped "$out" 120
    line=$(sed -n 's/^failover: //p' "$out" | tail -n 1)
    record replica checks "$p" "$f" "${line:+$line; }log: ${IT_LOG_DIR#"$IT_ROOT"/}/replica"
}

suite_citus() {
    local out="$IT_LOG_DIR/citus.out" rc p f
    it_say "citus: distributed tables (test/citus/run.sh)"
    PG_CONFIG="$PG_CONFIG" IT_LOG_DIR="$IT_LOG_DIR" bash test/citus/run.sh </dev/null 2>&1 | tee "$out"
    rc=${PIPESTATUS[0]}
    if [ "$rc" -eq 77 ]; then
        record_skip citus "$(sed -n 's/^SKIP: //p' "$out" | head -n 1)"
        return
    fi
    read -r p f <<<"$(tail_counts "$out" "$rc")"
    record citus tests "$p" "$f" "log: ${IT_LOG_DIR#"$IT_ROOT"/}/citus"
}

# The version matrix.  IT_PG_VERSIONS lists the PostgreSQL majors to test
# (default "15 17 18"): the host's own major ($IT_PG_MAJOR) ran every suite
# above; each other one runs MATRIX_SUITES in a Debian chroot of the suite
# that ships it (scripts/chroot.sh: made with debootstrap on first use,
# cached after), from a fresh copy of this tree, with this same script.
# IT_PG_VERSIONS=15 tests the host's major only.
MATRIX_SUITES="regress isolation pgtap security upgrade gateway"

debian_suite_of_major() {
    case "$1" in
        15) echo bookworm ;;
        17) echo trixie ;;
        18) echo sid ;;
        *) return 1 ;;
    esac
}

# Copy the working tree (tracked and new files, not ignored ones) to DIR.
copy_tree() {
    local dest=$1
    $SUDO rm -rf -- "$dest" && $SUDO mkdir -p "$dest" || return 1
    if git -C "$IT_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
        (cd "$IT_ROOT" && git ls-files -z -co --exclude-standard |
            xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
            tar --null -T - -cf -) | $SUDO tar -C "$dest" -xf -
    else
        (cd "$IT_ROOT" && tar --exclude=./log --exclude='*.o' --exclude='*.so' \
            --exclude='*.bc' --exclude=./results --exclude=node_modules -cf - .) |
            $SUDO tar -C "$dest" -xf -
    fi
}

# Compiler warnings in a build log (0 is the rule on every major).
count_warnings() {
    grep -c 'warning:' "$1" 2>/dev/null || true
}

matrix_version() {
    local major=$1 suite dir out rc t0 counts p f note warn
    t0=$(date +%s.%N)
    if ! suite=$(debian_suite_of_major "$major"); then
        record "pg$major" tests 0 1 "no Debian suite here ships PostgreSQL $major"
        return
    fi
    it_say "pg$major: the per-version suites in a Debian $suite chroot"
    if ! dir=$(it_chroot_build "$suite"); then
        record "pg$major" tests 0 1 "could not make the $suite chroot"
        return
    fi
    if ! copy_tree "$dir/build/item_table"; then
        record "pg$major" tests 0 1 "could not copy the tree into the $suite chroot"
        return
    fi
    out="$IT_LOG_DIR/pg$major.out"
    it_chroot_run "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        LANG=C.UTF-8 TERM=dumb CI="${CI:-}" NODE_EXTRA_CA_CERTS="$IT_CHROOT_HOST_CA" \
        IT_PG_MAJOR="$major" IT_PG_VERSIONS="$major" IT_PACKAGES=0 \
        IT_SUITES="$MATRIX_SUITES" IT_FUZZ_SECONDS=0 \
        bash /build/item_table/scripts/test.sh </dev/null >"$out" 2>&1
    rc=$?
    rm -rf "$IT_LOG_DIR/pg$major"
    $SUDO cp -a "$dir/build/item_table/log" "$IT_LOG_DIR/pg$major" 2>/dev/null
    # the inner run's summary: its suite lines, then "N passed, N failed"
    sed -n '/^== summary$/,$p' "$out" | sed '1d;$d' | sed "s/^/    pg$major /"
    counts=$(tail_counts "$out" "$rc") || tail -n 40 "$out"
    read -r p f <<<"$counts"
    if [ "$f" -gt 0 ]; then
        echo "---- pg$major: failures (from ${out#"$IT_ROOT"/}) ----"
        grep -E 'FAILED|failed|ERROR' "$out" | grep -v ' 0 failed' | head -n 40
        echo "---- end ----"
    fi
    warn=$(count_warnings "$IT_LOG_DIR/pg$major/build.log")
    note="$(sed -nE 's/^== PostgreSQL ([0-9.]+) started.*/PostgreSQL \1/p' "$out" | head -n 1) in $suite"
    note="$note, $warn compiler warning(s), $(it_elapsed "$t0") s"
    # (the inner run counted them already, as its "build warnings" failure)
    if [ "${warn:-0}" -gt 0 ]; then
        grep 'warning:' "$IT_LOG_DIR/pg$major/build.log" | head -n 20
    fi
    record "pg$major" tests "$p" "$f" "$note"
    if packages_wanted; then
        run_packages "$major" "$suite" "$dir"
    fi
}

# The Debian packages of one major (scripts/packages.sh): built where that
# major's server headers are (the host, or the major's chroot DIR), then
# installed into a clean chroot of SUITE and used there.  Counted per step.
run_packages() {
    local major=$1 suite=$2 dir=${3:-} debs out rc p f tp=0 tf=0
    it_say "packages: PostgreSQL $major ($suite)"
    mkdir -p "$IT_LOG_DIR/packages"
    out="$IT_LOG_DIR/packages/build-pg$major.out"
    if [ -z "$dir" ]; then
        debs="$IT_LOG_DIR/debs/$suite"
        rm -rf "$debs"
        bash scripts/packages.sh build "$debs" </dev/null >"$out" 2>&1
        rc=$?
    else
        $SUDO rm -rf "$dir/build/debs"
        it_chroot_run "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
            LANG=C.UTF-8 TERM=dumb bash /build/item_table/scripts/packages.sh build /build/debs \
            </dev/null >"$out" 2>&1
        rc=$?
        debs="$IT_LOG_DIR/debs/$suite"
        rm -rf "$debs"
        mkdir -p "$debs" && cp "$dir"/build/debs/*.deb "$debs"/ 2>/dev/null
    fi
    for step in build check; do
        if [ "$step" = check ]; then
            out="$IT_LOG_DIR/packages/check-pg$major.out"
            bash scripts/packages.sh check "$suite" "$debs" </dev/null >"$out" 2>&1
            rc=$?
        fi
        read -r p f <<<"$(tail_counts "$out" "$rc")"
        tp=$((tp + p))
        tf=$((tf + f))
        if [ "$f" -eq 0 ]; then
            printf '  %-40s ok      %d step(s)\n' "packages.sh $step (pg$major)" "$p"
        else
            printf '  %-40s FAILED  %d passed, %d failed (status %d)\n' "packages.sh $step (pg$major)" "$p" "$f" "$rc"
            show_capped "$out" 80
            [ "$step" = build ] && break
        fi
    done
    record "deb-pg$major" steps "$tp" "$tf" "build in ${dir:+the }$suite${dir:+ chroot}, install into a clean $suite"
}

packages_wanted() {
    [ "${IT_PACKAGES:-1}" != 0 ]
}

# META.json against the PGXN Meta Spec (scripts/check_meta.py).
suite_meta() {
    local out="$IT_LOG_DIR/meta.out" rc p f
    it_say "meta: META.json"
    /usr/bin/python3 scripts/check_meta.py </dev/null >"$out" 2>&1
    rc=$?
    read -r p f <<<"$(tail_counts "$out" "$rc")"
    [ "$f" -gt 0 ] && show_capped "$out" 60
    record meta checks "$p" "$f"
}

# The documentation's SQL examples (scripts/check_docs.py): each page's
# ```sql blocks run in order on a fresh database of the test cluster, and
# the output a page shows after a statement is compared with psql's.
suite_docs() {
    local out="$IT_LOG_DIR/docs.out" rc p f note
    it_say "docs: the SQL examples of README.md and docs/*.md"
    if ! it_ensure_server; then
        record docs examples 0 1 "server not running"
        return
    fi
    PGBIN="$PGBIN" /usr/bin/python3 scripts/check_docs.py </dev/null >"$out" 2>&1
    rc=$?
    read -r p f <<<"$(tail_counts "$out" "$rc")"
    if [ "$f" -gt 0 ]; then
        show_capped "$out" 80
    else
        grep -v '^  ' "$out" | sed 's/^/  /'
    fi
    note=$(sed -n 's/^not checked: \([0-9]*\) block(s)$/\1/p' "$out")
    note="${note:-0} block(s) not checked (log: ${out#"$IT_ROOT"/})"
    record docs examples "$p" "$f" "$note"
}

# The house's shape (scripts/check_layers.py): includes and calls follow the
# layers of src/README.md, no rings of calls, no C file over 1,500 lines.
suite_layers() {
    local out="$IT_LOG_DIR/layers.out" rc p f
    it_say "layers: includes, calls and sizes against the module map"
    /usr/bin/python3 scripts/check_layers.py </dev/null >"$out" 2>&1
    rc=$?
    read -r p f <<<"$(tail_counts "$out" "$rc")"
    [ "$f" -gt 0 ] && show_capped "$out" 60
    record layers checks "$p" "$f"
}

main() {
    local t0
    t0=$(date +%s.%N)
    echo "== item_table tests ($(date -u '+%Y-%m-%d %H:%M:%S UTC'))"
    it_log_dir || fatal "cannot create log dir $IT_LOG_DIR"
    it_need_root || fatal "root or sudo is required"
    it_install_deps || fatal "dependency installation failed"
    it_install_node || fatal "nodejs/npm installation failed"
    it_pg_env || fatal "PostgreSQL tools not found"
    it_build_install || fatal "build failed"
    # the vector-index tests' pgvector (they skip without it)
    it_install_pgvector
    local warn
    warn=$(count_warnings "$IT_LOG_DIR/build.log")
    if [ "${warn:-0}" -gt 0 ]; then
        record build warnings 0 1 "$warn compiler warning(s) (log/build.log)"
    fi
    it_start_cluster || fatal "could not start the test cluster"

    # IT_SUITES (a space-separated subset, for development) picks suites;
    # the README's command runs them all.
    local s
    for s in ${IT_SUITES:-regress isolation pgtap security upgrade stress gateway differential replica citus fuzz meta layers docs}; do
        if ! declare -F "suite_$s" >/dev/null; then
            fatal "unknown suite: $s"
        fi
        "suite_$s"
    done

    # the other majors, each in its chroot (the host's cluster is not needed)
    local v others=()
    for v in ${IT_PG_VERSIONS:-15 17 18}; do
        [ "$v" = "$IT_PG_MAJOR" ] || others+=("$v")
    done
    if [ "${#others[@]}" -gt 0 ] || packages_wanted; then
        it_cleanup
        # it_cleanup ignores INT, TERM and HUP while it works; the run goes
        # on, and must stay interruptible
        it_register_cleanup
    fi
    if packages_wanted; then
        run_packages "$IT_PG_MAJOR" "$(debian_suite_of_major "$IT_PG_MAJOR")"
    fi
    for v in "${others[@]}"; do
        matrix_version "$v"
    done

    it_say "tests finished in $(it_elapsed "$t0") s (logs in ${IT_LOG_DIR#"$IT_ROOT"/}/)"
    finish
}

main "$@"
