# shellcheck shell=bash
# shellcheck disable=SC2034  # PG_REGRESS etc. are used by the scripts sourcing this
# Shared helpers for scripts/test.sh, scripts/demo.sh and bench/run.sh.
#
# Source this file; it defines functions and a few variables, keeps copies of
# stdout/stderr on two spare file descriptors, and does not change shell
# options.  Functions return non-zero on failure.  Typical use:
#
#   . scripts/lib.sh
#   it_need_root     || it_die "root or sudo is required"
#   it_install_deps  || it_die "dependency installation failed"
#   it_pg_env        || it_die "PostgreSQL tools not found"
#   it_build_install || it_die "build failed"
#   it_start_cluster || it_die "could not start a PostgreSQL cluster"
#
# Environment knobs:
#   PG_CONFIG    pg_config to build against (default: the PostgreSQL
#                $IT_PG_MAJOR one if installed, else pg_config from PATH)
#   IT_PG_MAJOR  PostgreSQL major version whose Debian packages are installed
#                (default 15)
#   IT_LOG_DIR   where logs go (default: log/ in the repository root)
#   IT_WORKER_NAPTIME  item_table.worker_naptime of the cluster, seconds
#                (default 1)

IT_ROOT=${IT_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
IT_PG_MAJOR=${IT_PG_MAJOR:-15}
IT_LOG_DIR=${IT_LOG_DIR:-$IT_ROOT/log}

SUDO=""
IT_TMP=""          # temp dir holding the cluster (data/, socket, server.log)
IT_PGDATA=""
IT_CLEANED=0
IT_STARTING=0
IT_GATEWAY_PID=""  # item_table_gateway started by scripts/test.sh
IT_DDBLOCAL_PIDFILE=""  # DynamoDB Local started by the differential suite

# Keep the script's original stdout/stderr: a signal trap may run while a
# command's output is redirected to a log file, and its messages belong on the
# console.
exec {IT_OUT_FD}>&1 {IT_ERR_FD}>&2

it_say()  { printf '== %s\n' "$*"; }
it_warn() { printf 'WARNING: %s\n' "$*" >&2; }
it_die()  { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

it_log_dir() {
    mkdir -p "$IT_LOG_DIR" || return 1
}

# SUDO="" when root, "sudo" otherwise.
it_need_root() {
    if [ "$(id -u)" -eq 0 ]; then
        SUDO=""
    elif command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        it_warn "not running as root and 'sudo' is not available; run as root or install sudo"
        return 1
    fi
}

# Run a command as the postgres OS user, from a directory it can read.
it_as_postgres() {
    if [ "$(id -u)" -eq 0 ]; then
        (cd / && exec runuser -u postgres -- "$@") {IT_OUT_FD}>&- {IT_ERR_FD}>&-
    else
        (cd / && exec sudo -u postgres -- "$@") {IT_OUT_FD}>&- {IT_ERR_FD}>&-
    fi
}

# The libFuzzer toolchain of scripts/fuzz.sh (Debian's clang and libFuzzer).
IT_FUZZ_PKGS=(clang libfuzzer-14-dev)

# item_table_gateway's libraries (zlib and libzstd are also the
# extension's: export and import files), and the clients its tests run
# (boto3 with pytest, the AWS CLI; openssl makes a certificate for the TLS
# test; zstd compresses the import tests' hand-made files).
IT_GATEWAY_PKGS=(libmicrohttpd-dev liburing-dev zlib1g-dev libzstd-dev libssl-dev libpq-dev
    python3-boto3 python3-pytest awscli openssl zstd)

# Install the Debian packages needed to build, test, fuzz, demo and
# benchmark, or only the packages named as arguments.  apt is skipped
# entirely when everything is already installed.
# shellcheck disable=SC2120  # the package arguments are optional
# The fuzzers' toolchain only when the fuzz suite is among IT_SUITES (or
# IT_SUITES is unset); contrib (amcheck) is part of postgresql-N.
it_install_deps() {
    local pkgs=(
        "postgresql-$IT_PG_MAJOR"
        "postgresql-server-dev-$IT_PG_MAJOR"
        "postgresql-$IT_PG_MAJOR-pgtap"
        libtap-parser-sourcehandler-pgtap-perl
        build-essential
        "${IT_GATEWAY_PKGS[@]}"
    )
    case " ${IT_SUITES-fuzz} " in *" fuzz "*) pkgs+=("${IT_FUZZ_PKGS[@]}") ;; esac
    [ $# -gt 0 ] && pkgs=("$@")
    local missing=() p status
    for p in "${pkgs[@]}"; do
        status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
        [ "$status" = "installed" ] || missing+=("$p")
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        it_say "dependencies: all installed"
        return 0
    fi
    it_log_dir || return 1
    local log="$IT_LOG_DIR/apt.log"
    it_say "dependencies: installing ${missing[*]} (log: ${log#"$IT_ROOT"/})"
    : >"$log"
    if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update </dev/null >>"$log" 2>&1; then
        tail -n 30 "$log" >&2
        it_warn "apt-get update failed"
        return 1
    fi
    if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends "${missing[@]}" </dev/null >>"$log" 2>&1; then
        tail -n 30 "$log" >&2
        it_warn "apt-get install failed"
        return 1
    fi
}

# Node.js and npm, for the JavaScript client tests (test/gateway/js) and the
# gateway benchmark: Debian's nodejs and npm, installed only when `node` or
# `npm` is not on the PATH (a Node installed some other way is kept).
it_install_node() {
    if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
        return 0
    fi
    it_install_deps nodejs npm
}

# Resolve and export PG_CONFIG (the one given, else the PostgreSQL
# $IT_PG_MAJOR one, else pg_config from PATH).
it_pg_config() {
    if [ -z "${PG_CONFIG:-}" ]; then
        if [ -x "/usr/lib/postgresql/$IT_PG_MAJOR/bin/pg_config" ]; then
            PG_CONFIG="/usr/lib/postgresql/$IT_PG_MAJOR/bin/pg_config"
        else
            PG_CONFIG=pg_config
        fi
    fi
    command -v "$PG_CONFIG" >/dev/null 2>&1 || { it_warn "pg_config not found ($PG_CONFIG)"; return 1; }
    export PG_CONFIG
}

# Resolve PG_CONFIG, PGBIN (initdb, pg_ctl, psql, pgbench live there) and the
# pgxs directory.  Call after it_install_deps.
it_pg_env() {
    it_pg_config || return 1
    PGBIN=$("$PG_CONFIG" --bindir)
    if [ ! -x "$PGBIN/initdb" ]; then
        local major
        major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
        PGBIN="/usr/lib/postgresql/$major/bin"
    fi
    [ -x "$PGBIN/initdb" ] || { it_warn "initdb not found in $PGBIN"; return 1; }
    PGXS_DIR="$("$PG_CONFIG" --pkglibdir)/pgxs"
    PG_REGRESS="$PGXS_DIR/src/test/regress/pg_regress"
    PG_ISOLATION_REGRESS="$PGXS_DIR/src/test/isolation/pg_isolation_regress"
    export PGBIN
}

# Print the value of a variable as the project's Makefile (with PGXS) sees it.
it_make_var() {
    # shellcheck disable=SC2016  # $($*) is make syntax, expanded by make
    (cd "$IT_ROOT" && make -s --no-print-directory PG_CONFIG="$PG_CONFIG" \
        --eval 'it-print-%: ; @printf "%s\n" "$($*)"' "it-print-$1")
}

# Build as the invoking user, install with $SUDO.  Returns non-zero on failure.
it_build_install() {
    it_log_dir || return 1
    local log="$IT_LOG_DIR/build.log"
    it_say "building (make -j2)"
    if ! (cd "$IT_ROOT" && make -s -j2 PG_CONFIG="$PG_CONFIG") </dev/null >"$log" 2>&1; then
        tail -n 60 "$log"
        it_warn "build failed (full log: ${log#"$IT_ROOT"/})"
        return 1
    fi
    if [ -s "$log" ]; then
        head -n 100 "$log"
    fi
    it_say "installing (make install)"
    if ! (cd "$IT_ROOT" && $SUDO make -s install PG_CONFIG="$PG_CONFIG") </dev/null >>"$log" 2>&1; then
        tail -n 40 "$log"
        it_warn "make install failed (full log: ${log#"$IT_ROOT"/})"
        return 1
    fi
}

# Is a TCP port in use (listed in /proc/net/tcp*)?
it_port_in_use() {
    local hex
    hex=$(printf '%04X' "$1")
    awk -v h="$hex" 'FNR > 1 { split($2, a, ":"); if (toupper(a[2]) == h) { found = 1; exit } }
                     END { exit !found }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

it_pick_port() {
    local port i
    for i in $(seq 1 100); do
        port=$(shuf -i 40000-60000 -n 1)
        it_port_in_use "$port" && continue
        [ -e "$IT_TMP/.s.PGSQL.$port" ] && continue
        [ -e "$IT_TMP/.s.PGSQL.$port.lock" ] && continue
        printf '%s\n' "$port"
        return 0
    done
    return 1
}

# Does the postmaster process exist (and is not a zombie)?
it_postmaster_alive() {
    [ -n "$IT_PGDATA" ] || return 1
    local pid state
    pid=$($SUDO head -n 1 "$IT_PGDATA/postmaster.pid" 2>/dev/null) || return 1
    [ -n "$pid" ] || return 1
    state=$(ps -o stat= -p "$pid" 2>/dev/null) || return 1
    case "$state" in Z*|"") return 1 ;; esac
    return 0
}

# Is the server accepting connections?
it_server_running() {
    [ -n "$IT_PGDATA" ] && [ -n "${PGPORT:-}" ] &&
        "$PGBIN/pg_isready" -q -h "$PGHOST" -p "$PGPORT" -t 5 >/dev/null 2>&1
}

IT_LOG_SHOWN_SIZE=-1
it_server_log_tail() {
    [ -n "$IT_TMP" ] || return 0
    local size
    size=$($SUDO stat -c %s "$IT_TMP/server.log" 2>/dev/null || echo 0)
    if [ "$size" = "$IT_LOG_SHOWN_SIZE" ]; then
        echo "(server log unchanged since shown above)"
        return 0
    fi
    IT_LOG_SHOWN_SIZE=$size
    echo "---- server log (last ${1:-40} lines) ----"
    $SUDO tail -n "${1:-40}" "$IT_TMP/server.log" 2>/dev/null || true
    echo "---- end of server log ----"
}

# Stop the server, keep a copy of its log and remove the temp dir.
# Safe to call several times; does the work once.  Preserves $?.
it_cleanup() {
    local rc=$?
    # a chroot in use (scripts/chroot.sh): its processes and mounts
    if declare -F it_chroot_release >/dev/null; then
        it_chroot_release
    fi
    [ "$IT_CLEANED" = 1 ] && return "$rc"
    IT_CLEANED=1
    trap '' INT TERM HUP
    # a gateway started by the tests goes first (it holds connections)
    if [ -n "${IT_GATEWAY_PID:-}" ]; then
        kill -TERM "$IT_GATEWAY_PID" 2>/dev/null && wait "$IT_GATEWAY_PID" 2>/dev/null
        IT_GATEWAY_PID=""
    fi
    if [ -n "${IT_DDBLOCAL_PIDFILE:-}" ]; then
        bash "$IT_ROOT/scripts/dynamodb_local.sh" stop "$IT_DDBLOCAL_PIDFILE" 2>/dev/null
        IT_DDBLOCAL_PIDFILE=""
    fi
    if [ -n "$IT_TMP" ] && [ -d "$IT_TMP" ]; then
        if [ -n "$IT_PGDATA" ] && [ -d "$IT_PGDATA" ]; then
            local tries=1 pid
            # If we were interrupted while pg_ctl was starting the server, the
            # postmaster may still be coming up: give it a moment to write its pid.
            [ "$IT_STARTING" = 1 ] && tries=10
            while [ "$tries" -gt 0 ]; do
                if $SUDO test -f "$IT_PGDATA/postmaster.pid"; then
                    it_as_postgres "$PGBIN/pg_ctl" -D "$IT_PGDATA" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
                    pid=$($SUDO head -n 1 "$IT_PGDATA/postmaster.pid" 2>/dev/null || true)
                    if [ -n "$pid" ] && $SUDO kill -0 "$pid" 2>/dev/null; then
                        $SUDO kill -KILL "$pid" 2>/dev/null || true
                    fi
                    break
                fi
                tries=$((tries - 1))
                [ "$tries" -gt 0 ] && sleep 0.5
            done
        fi
        if [ -d "$IT_LOG_DIR" ]; then
            $SUDO cat "$IT_TMP/server.log" >"$IT_LOG_DIR/server.log" 2>/dev/null || true
        fi
        $SUDO rm -rf -- "$IT_TMP" || true
    fi
    IT_TMP=""
    IT_PGDATA=""
    return "$rc"
}

it__on_exit() {
    local rc=$?
    it_cleanup
    exit "$rc"
}

it__on_signal() {
    exec 1>&"$IT_OUT_FD" 2>&"$IT_ERR_FD"
    it_cleanup
    trap - EXIT
    echo "interrupted ($1)" >&2
    exit "$2"
}

it_register_cleanup() {
    trap it__on_exit EXIT
    trap 'it__on_signal INT 130' INT
    trap 'it__on_signal TERM 143' TERM
    trap 'it__on_signal HUP 129' HUP
}

# Create a throw-away cluster in a temp dir, start it, export PG* for it.
it_start_cluster() {
    it_log_dir || return 1
    IT_TMP=$(mktemp -d /tmp/item_table_pg.XXXXXX) || return 1
    it_register_cleanup
    IT_PGDATA="$IT_TMP/data"
    $SUDO chown postgres: "$IT_TMP" && $SUDO chmod 755 "$IT_TMP" || return 1

    if ! it_as_postgres "$PGBIN/initdb" -D "$IT_PGDATA" --auth=trust --encoding=UTF8 \
            --locale=C.UTF-8 -U postgres >"$IT_LOG_DIR/initdb.log" 2>&1; then
        cat "$IT_LOG_DIR/initdb.log"
        it_warn "initdb failed"
        return 1
    fi

    local port
    port=$(it_pick_port) || { it_warn "no free port found"; return 1; }
    it_as_postgres tee -a "$IT_PGDATA/postgresql.conf" >/dev/null <<EOF

# --- throw-away test cluster ---
listen_addresses = ''
unix_socket_directories = '$IT_TMP'
port = $port
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 512MB
max_connections = 50
max_prepared_transactions = 10
log_min_messages = warning
# the background worker starts with the server (docs/background.md);
# IT_WORKER_NAPTIME makes its rounds quick for the tests
shared_preload_libraries = 'item_table'
item_table.worker_naptime = ${IT_WORKER_NAPTIME:-1}
EOF

    IT_STARTING=1
    if ! it_as_postgres "$PGBIN/pg_ctl" -D "$IT_PGDATA" -l "$IT_TMP/server.log" -w -t 120 start \
            >"$IT_LOG_DIR/pg_ctl.log" 2>&1; then
        IT_STARTING=0
        cat "$IT_LOG_DIR/pg_ctl.log"
        it_server_log_tail 40
        it_warn "could not start PostgreSQL"
        return 1
    fi
    IT_STARTING=0

    unset PGHOSTADDR PGSERVICE PGSERVICEFILE PGPASSWORD PGOPTIONS PGSSLMODE PGCONNECT_TIMEOUT
    export PGHOST="$IT_TMP" PGPORT="$port" PGUSER=postgres PGDATABASE=postgres
    it_say "PostgreSQL $("$PGBIN/postgres" --version | sed -E 's/.* ([0-9][0-9.]*).*/\1/') started (socket dir $PGHOST, port $PGPORT)"
}

# Make sure the server accepts connections: wait while it recovers from a
# backend crash, start it again if the postmaster went away.  0 if it runs.
it_ensure_server() {
    it_server_running && return 0
    local i
    it_warn "the PostgreSQL server is not accepting connections"
    for i in $(seq 1 60); do
        it_postmaster_alive || break
        sleep 1
        it_server_running && { it_say "server is back"; return 0; }
    done
    it_server_log_tail 40
    [ -n "$IT_PGDATA" ] || return 1
    it_postmaster_alive && return 1
    for _ in $(seq 1 10); do
        if it_as_postgres "$PGBIN/pg_ctl" -D "$IT_PGDATA" -l "$IT_TMP/server.log" -w -t 120 start \
                >>"$IT_LOG_DIR/pg_ctl.log" 2>&1; then
            it_say "server restarted"
            return 0
        fi
        sleep 1
    done
    it_warn "could not restart the server"
    return 1
}

# Elapsed seconds since a `date +%s.%N` stamp, one decimal.
it_elapsed() {
    awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'
}
