# shellcheck shell=bash
# A Citus loopback cluster for the distributed tests (test/citus/run.sh) and
# the Citus benchmark (bench/citus.sh): Citus built from its source release
# into the PostgreSQL that PG_CONFIG names, one coordinator and two workers
# on free loopback ports, each with citus and item_table in one database.
#
# Source after scripts/lib.sh, with it_need_root and it_pg_env done.
# Functions return non-zero on failure (with a message on stderr).
#
#   citus_tarball          print the path of the Citus source release, or
#                          return 1 when it is not beside the repository
#   citus_build            build and install Citus (skipped when the same
#                          release is already installed)
#   citus_start_cluster    initdb and start 3 nodes, join them; exports
#                          CITUS_TMP, CITUS_PORTS (coordinator first),
#                          CITUS_DB, PGHOST, PGPORT (the coordinator), PGUSER
#   citus_stop_cluster     stop the nodes, keep their logs, remove the temp dir

CITUS_VERSION=13.0.5
CITUS_PKGS=(liblz4-dev libzstd-dev libkrb5-dev)
CITUS_DB=item_table_citus
CITUS_TMP=""
CITUS_PORTS=()

# The release is looked for beside the repository (CI: a fresh clone with
# the shared folder next to it); CITUS_TARBALL overrides.
citus_tarball() {
    local t=${CITUS_TARBALL:-$IT_ROOT/../shared/vendor/citus-$CITUS_VERSION.tar.gz}
    [ -f "$t" ] || return 1
    printf '%s\n' "$(cd "$(dirname "$t")" && pwd)/$(basename "$t")"
}

# Is this Citus release installed in PG_CONFIG's PostgreSQL?
citus_installed() {
    local lib share
    lib=$("$PG_CONFIG" --pkglibdir) && share=$("$PG_CONFIG" --sharedir) || return 1
    [ -f "$lib/citus.so" ] && [ -f "$share/extension/citus.control" ] &&
        [ -f "$lib/citus-build-$CITUS_VERSION.stamp" ]
}

citus_build() {
    local tarball log dir
    tarball=$(citus_tarball) || { it_warn "Citus source release not found"; return 1; }
    if citus_installed; then
        it_say "citus: $CITUS_VERSION already installed in $("$PG_CONFIG" --pkglibdir)"
        return 0
    fi
    it_install_deps "${CITUS_PKGS[@]}" || return 1
    it_log_dir || return 1
    log="$IT_LOG_DIR/citus-build.log"
    dir="$IT_LOG_DIR/citus-build"
    rm -rf "$dir"
    mkdir -p "$dir" || return 1
    it_say "citus: building $CITUS_VERSION (log: ${log#"$IT_ROOT"/})"
    if ! (
        tar -xzf "$tarball" -C "$dir" &&
        cd "$dir/citus-$CITUS_VERSION" &&
        ./configure PG_CONFIG="$PG_CONFIG" --without-libcurl &&
        make -j2 &&
        $SUDO make install PG_CONFIG="$PG_CONFIG"
    ) </dev/null >"$log" 2>&1; then
        tail -n 40 "$log"
        it_warn "the Citus build failed (log: ${log#"$IT_ROOT"/})"
        return 1
    fi
    $SUDO touch "$("$PG_CONFIG" --pkglibdir)/citus-build-$CITUS_VERSION.stamp"
    rm -rf "$dir"
}

citus_psql() {  # citus_psql PORT ARGS...: psql as postgres on one node
    local port=$1
    shift
    "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$CITUS_TMP" -p "$port" -U postgres "$@" </dev/null
}

citus_start_cluster() {
    local n port dir
    CITUS_TMP=$(mktemp -d /tmp/item_table_citus.XXXXXX) || return 1
    $SUDO chown postgres: "$CITUS_TMP" && $SUDO chmod 755 "$CITUS_TMP" || return 1
    CITUS_PORTS=()
    for n in 0 1 2; do
        dir="$CITUS_TMP/node$n"
        if ! it_as_postgres "$PGBIN/initdb" -D "$dir" --auth=trust --encoding=UTF8 \
                --locale=C.UTF-8 -U postgres >"$CITUS_TMP/initdb$n.log" 2>&1; then
            $SUDO cat "$CITUS_TMP/initdb$n.log"
            it_warn "initdb of Citus node $n failed"
            return 1
        fi
        port=$(IT_TMP=$CITUS_TMP it_pick_port) || { it_warn "no free port"; return 1; }
        while printf '%s\n' "${CITUS_PORTS[@]}" | grep -qx "$port"; do
            port=$(IT_TMP=$CITUS_TMP it_pick_port) || return 1
        done
        CITUS_PORTS+=("$port")
        it_as_postgres tee -a "$dir/postgresql.conf" >/dev/null <<EOF

# --- throw-away Citus test node $n ---
listen_addresses = '127.0.0.1'
unix_socket_directories = '$CITUS_TMP'
port = $port
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 128MB
max_connections = 100
max_prepared_transactions = 100
log_min_messages = warning
shared_preload_libraries = 'citus,item_table'
citus.enable_statistics_collection = off
citus.shard_count = 8
EOF
        if ! it_as_postgres "$PGBIN/pg_ctl" -D "$dir" -l "$CITUS_TMP/node$n.log" -w -t 120 start \
                >"$CITUS_TMP/pg_ctl$n.log" 2>&1; then
            $SUDO tail -n 30 "$CITUS_TMP/node$n.log"
            it_warn "Citus node $n did not start"
            return 1
        fi
        if ! citus_psql "$port" -d postgres -c "CREATE DATABASE $CITUS_DB" >"$CITUS_TMP/setup$n.log" 2>&1 ||
           ! citus_psql "$port" -d "$CITUS_DB" -c 'CREATE EXTENSION citus' \
                -c 'CREATE EXTENSION item_table' >>"$CITUS_TMP/setup$n.log" 2>&1; then
            $SUDO cat "$CITUS_TMP/setup$n.log"
            it_warn "could not create the extensions on Citus node $n"
            return 1
        fi
    done
    if ! citus_psql "${CITUS_PORTS[0]}" -d "$CITUS_DB" \
            -c "SELECT pg_catalog.citus_set_coordinator_host('127.0.0.1', ${CITUS_PORTS[0]})" \
            -c "SELECT pg_catalog.citus_add_node('127.0.0.1', ${CITUS_PORTS[1]})" \
            -c "SELECT pg_catalog.citus_add_node('127.0.0.1', ${CITUS_PORTS[2]})" \
            >"$CITUS_TMP/join.log" 2>&1; then
        cat "$CITUS_TMP/join.log"
        it_warn "could not join the Citus nodes"
        return 1
    fi
    unset PGHOSTADDR PGSERVICE PGSERVICEFILE PGPASSWORD PGOPTIONS PGSSLMODE PGCONNECT_TIMEOUT
    export PGHOST="$CITUS_TMP" PGPORT="${CITUS_PORTS[0]}" PGUSER=postgres PGDATABASE="$CITUS_DB"
    export CITUS_TMP CITUS_DB
    it_say "citus: coordinator on port ${CITUS_PORTS[0]}, workers on ${CITUS_PORTS[1]} and ${CITUS_PORTS[2]}"
}

citus_stop_cluster() {
    local n
    [ -n "$CITUS_TMP" ] && [ -d "$CITUS_TMP" ] || return 0
    for n in 2 1 0; do
        if $SUDO test -f "$CITUS_TMP/node$n/postmaster.pid"; then
            it_as_postgres "$PGBIN/pg_ctl" -D "$CITUS_TMP/node$n" -m immediate -w -t 30 stop \
                >/dev/null 2>&1 || true
        fi
    done
    if [ -d "$IT_LOG_DIR" ]; then
        mkdir -p "$IT_LOG_DIR/citus"
        for n in 0 1 2; do
            $SUDO cat "$CITUS_TMP/node$n.log" >"$IT_LOG_DIR/citus/node$n.log" 2>/dev/null || true
        done
    fi
    $SUDO rm -rf -- "$CITUS_TMP" || true
    CITUS_TMP=""
}
