#!/usr/bin/env bash
# Coverage-guided fuzzing of the C parsers:  bash scripts/fuzz.sh [SECONDS]
#
# Installs clang and libFuzzer (Debian packages) if missing, builds the
# libFuzzer targets of test/fuzz/ (see test/fuzz/README.md) into
# test/fuzz/build/, and runs each target for its share of SECONDS (default
# 60) on a copy of its seed corpus in a temp dir: the committed corpus never
# grows.  Prints, per
# target, the executions run, the coverage reached and the crashes found,
# then one line
#
#   fuzz: N executions clean in M targets
#
# Exit status 0 only if every target ran clean: a crash, an ASan/UBSan
# report, a leak, a failed invariant, a timeout or running out of memory is
# a failure, and libFuzzer's reproducer is kept in log/fuzz/.
#
# Environment knobs:
#   PG_CONFIG          pg_config whose server headers and libpgcommon to use
#   IT_FUZZ_TARGETS    targets to run (default: all, "expr key number attr request partiql jsonb key_tuple ion")
#   IT_FUZZ_TIMEOUT    seconds one input may take (default 10)
#   IT_FUZZ_RSS_MB     memory limit in MB (default 2048)
#   IT_FUZZ_KEEP=1     keep the grown corpora in log/fuzz/corpus/<target>/
#   IT_FUZZ_COVERAGE=1 afterwards, replay the grown corpora through a build
#                      with source-based coverage and print line and branch
#                      coverage of each src/ file (log/fuzz/coverage.txt)
#
# Reproduce a crash:  test/fuzz/build/fuzz_<target> log/fuzz/<target>-crash-...
set -uo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$IT_ROOT" || exit 1
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"

SECONDS_TOTAL=${1:-60}
case "$SECONDS_TOTAL" in
    ''|*[!0-9]*) it_die "usage: scripts/fuzz.sh [SECONDS]" ;;
esac
read -r -a TARGETS <<<"${IT_FUZZ_TARGETS:-expr key number attr request partiql jsonb key_tuple ion}"
TIMEOUT=${IT_FUZZ_TIMEOUT:-10}
RSS_MB=${IT_FUZZ_RSS_MB:-2048}
FUZZ_LOG="$IT_LOG_DIR/fuzz"

# the longest input each target tries (expressions: past the 4 KB limit)
max_len() {
    case "$1" in
        expr) echo 4200 ;;
        key) echo 4096 ;;
        number) echo 256 ;;
        *) echo 8192 ;;
    esac
}

it_need_root || it_die "root or sudo is required to install clang"
it_install_deps "${IT_FUZZ_PKGS[@]}" || it_die "could not install ${IT_FUZZ_PKGS[*]}"
it_pg_config || it_die "pg_config not found"
mkdir -p "$FUZZ_LOG" || it_die "cannot create $FUZZ_LOG"

it_say "fuzz: building ${#TARGETS[@]} target(s) (log: ${FUZZ_LOG#"$IT_ROOT"/}/build.log)"
if ! make -C test/fuzz -j2 PG_CONFIG="$PG_CONFIG" TARGETS="${TARGETS[*]}" \
        </dev/null >"$FUZZ_LOG/build.log" 2>&1; then
    tail -n 40 "$FUZZ_LOG/build.log"
    echo "fuzz: build FAILED"
    exit 1
fi

WORK=$(mktemp -d /tmp/item_table_fuzz.XXXXXX) || it_die "mktemp failed"
trap 'rm -rf -- "$WORK"' EXIT
trap 'rm -rf -- "$WORK"; echo "interrupted" >&2; exit 130' INT TERM

per=$((SECONDS_TOTAL / ${#TARGETS[@]}))
[ "$per" -ge 1 ] || per=1
it_say "fuzz: ${#TARGETS[@]} target(s), ${per} s each"

total=0
clean=0
failed=0
for t in "${TARGETS[@]}"; do
    bin="test/fuzz/build/fuzz_$t"
    out="$FUZZ_LOG/$t.log"
    corpus="$WORK/corpus-$t"
    mkdir -p "$corpus"
    cp test/fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null || true
    seeds=$(find "$corpus" -type f | wc -l)
    dict=()
    [ -f "test/fuzz/dict/$t.dict" ] && dict=(-dict="$IT_ROOT/test/fuzz/dict/$t.dict")
    rm -f "$FUZZ_LOG/$t"-crash-* "$FUZZ_LOG/$t"-leak-* "$FUZZ_LOG/$t"-timeout-* \
          "$FUZZ_LOG/$t"-oom-* "$FUZZ_LOG/$t"-slow-unit-*
    (cd "$WORK" &&
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ASAN_OPTIONS=detect_leaks=1 \
        "$IT_ROOT/$bin" "${dict[@]}" \
            -max_total_time="$per" -timeout="$TIMEOUT" -rss_limit_mb="$RSS_MB" \
            -malloc_limit_mb="$RSS_MB" -max_len="$(max_len "$t")" \
            -print_final_stats=1 -artifact_prefix="$FUZZ_LOG/$t-" \
            "$corpus") </dev/null >"$out" 2>&1
    rc=$?
    execs=$(awk '/^stat::number_of_executed_units:/ { n = $NF } END { print n + 0 }' "$out")
    cov=$(grep -E '^#[0-9]+' "$out" | tail -n 1 | sed -nE 's/.* cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+)\/.*/\1 \2 \3/p')
    read -r edges features units <<<"${cov:-0 0 0}"
    newunits=$(awk '/^stat::new_units_added:/ { n = $NF } END { print n + 0 }' "$out")
    artifacts=$(find "$FUZZ_LOG" -maxdepth 1 -name "$t-*" -type f | sort)
    total=$((total + execs))
    if [ "$rc" -eq 0 ] && [ -z "$artifacts" ] && grep -q '^Done [0-9]* runs' "$out"; then
        clean=$((clean + 1))
        printf 'fuzz: %-8s ok      %9d executions, cov %d edges / %d features, corpus %d -> %d inputs (%d new units), 0 crashes\n' \
            "$t" "$execs" "$edges" "$features" "$seeds" "$units" "$newunits"
    else
        failed=$((failed + 1))
        printf 'fuzz: %-8s FAILED  %9d executions, status %d, %d crash artifact(s)\n' \
            "$t" "$execs" "$rc" "$(printf '%s' "$artifacts" | grep -c .)"
        grep -E '==fuzz== FAILURE|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY' "$out" | head -n 8 | sed 's/^/    /'
        echo "    full log: ${out#"$IT_ROOT"/}"
        for a in $artifacts; do
            echo "    reproduce: $bin ${a#"$IT_ROOT"/}"
        done
    fi
    if [ "${IT_FUZZ_KEEP:-0}" = 1 ]; then
        rm -rf "$FUZZ_LOG/corpus/$t"
        mkdir -p "$FUZZ_LOG/corpus"
        cp -r "$corpus" "$FUZZ_LOG/corpus/$t"
    fi
done

# source-based coverage of what the grown corpora reach
coverage_report() {
    local llvm_cov llvm_profdata objs=() t srcs=()
    llvm_cov=$(command -v llvm-cov-14 || command -v llvm-cov)
    llvm_profdata=$(command -v llvm-profdata-14 || command -v llvm-profdata)
    if [ -z "$llvm_cov" ] || [ -z "$llvm_profdata" ]; then
        it_install_deps llvm-14 || { it_warn "could not install llvm-14"; return 1; }
        llvm_cov=$(command -v llvm-cov-14) && llvm_profdata=$(command -v llvm-profdata-14) || return 1
    fi
    it_say "fuzz: coverage build (log: ${FUZZ_LOG#"$IT_ROOT"/}/build-cov.log)"
    make -C test/fuzz -j2 PG_CONFIG="$PG_CONFIG" TARGETS="${TARGETS[*]}" COVERAGE=1 BUILD=build/cov \
        </dev/null >"$FUZZ_LOG/build-cov.log" 2>&1 || { tail -n 20 "$FUZZ_LOG/build-cov.log"; return 1; }
    for t in "${TARGETS[@]}"; do
        (cd "$WORK" && LLVM_PROFILE_FILE="$WORK/cov-$t.profraw" \
            "$IT_ROOT/test/fuzz/build/cov/fuzz_$t" -runs=0 "$WORK/corpus-$t") </dev/null >/dev/null 2>&1
        objs+=(-object "test/fuzz/build/cov/fuzz_$t")
    done
    "$llvm_profdata" merge -sparse "$WORK"/cov-*.profraw -o "$WORK/cov.profdata" || return 1
    # shellcheck disable=SC2016  # $(...) is make syntax, expanded by make
    read -r -a srcs <<<"$(make -s -C test/fuzz --no-print-directory --eval 'print-srcs: ; @echo $(PROJECT_SRCS:%=src/%.c)' print-srcs)"
    "$llvm_cov" report "${objs[@]:1}" -instr-profile="$WORK/cov.profdata" \
        "${srcs[@]/#/$IT_ROOT/}" >"$FUZZ_LOG/coverage.txt" 2>&1 || { cat "$FUZZ_LOG/coverage.txt"; return 1; }
    echo "fuzz: source coverage of src/ by the grown corpora (full table: ${FUZZ_LOG#"$IT_ROOT"/}/coverage.txt):"
    awk '$1 ~ /\.c$/ || $1 == "TOTAL" {
            printf "    %-16s lines %7s   branches %7s   functions %7s\n", $1, $10, $13, $7 }' \
        "$FUZZ_LOG/coverage.txt"
}

if [ "${IT_FUZZ_COVERAGE:-0}" = 1 ]; then
    coverage_report || it_warn "the coverage report failed"
fi

if [ "$failed" -eq 0 ]; then
    echo "fuzz: $total executions clean in $clean targets"
    exit 0
fi
echo "fuzz: $failed of ${#TARGETS[@]} targets FAILED ($total executions; reproducers in ${FUZZ_LOG#"$IT_ROOT"/}/)"
exit 1
