# shellcheck shell=bash
# pgvector for the vector-index tests (sourced by scripts/test.sh):
#   it_install_pgvector    Debian's postgresql-N-pgvector where the suite has
#                          it (trixie, sid), else pgvector built from its
#                          source release beside the repository
#                          (../shared/vendor/pgvector-$PGVECTOR_VERSION.tar.gz,
#                          PGVECTOR_TARBALL overrides) into PG_CONFIG's
#                          PostgreSQL.  Never fatal: without pgvector the
#                          vector tests skip and say so.

PGVECTOR_VERSION=0.8.6

pgvector_installed() {
    local share
    share=$("$PG_CONFIG" --sharedir) || return 1
    [ -f "$share/extension/vector.control" ]
}

it_install_pgvector() {
    local pkg="postgresql-$IT_PG_MAJOR-pgvector" tarball log dir
    if pgvector_installed; then
        it_say "pgvector: installed in $("$PG_CONFIG" --sharedir)/extension"
        return 0
    fi
    # Debian's package, when this suite has one and PG_CONFIG is Debian's
    if [ "$("$PG_CONFIG" --sharedir)" = "/usr/share/postgresql/$IT_PG_MAJOR" ] &&
        apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -qv '(none)'; then
        it_install_deps "$pkg" && pgvector_installed && return 0
    fi
    tarball=${PGVECTOR_TARBALL:-$IT_ROOT/../shared/vendor/pgvector-$PGVECTOR_VERSION.tar.gz}
    if [ ! -f "$tarball" ]; then
        it_warn "pgvector: no $pkg package and no source release; the vector-index tests will skip"
        return 0
    fi
    it_log_dir || return 0
    log="$IT_LOG_DIR/pgvector-build.log"
    dir="$IT_LOG_DIR/pgvector-build"
    rm -rf "$dir"
    mkdir -p "$dir" || return 0
    it_say "pgvector: building $PGVECTOR_VERSION (log: ${log#"$IT_ROOT"/})"
    if ! (
        tar -xzf "$tarball" -C "$dir" &&
        cd "$dir/pgvector-$PGVECTOR_VERSION" &&
        make PG_CONFIG="$PG_CONFIG" &&
        $SUDO make install PG_CONFIG="$PG_CONFIG"
    ) </dev/null >"$log" 2>&1; then
        tail -n 20 "$log"
        it_warn "pgvector: the build failed; the vector-index tests will skip"
    fi
    rm -rf "$dir"
    return 0
}
