#!/usr/bin/env bash
# The project's demo command:  bash scripts/demo.sh
#
# Installs dependencies if missing, builds and installs the extension, starts a
# throw-away PostgreSQL cluster, runs examples/demo.sql with psql in a fresh
# database item_table_demo, then stops and removes the cluster.
set -euo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$IT_ROOT"
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"

DEMO_SQL=${DEMO_SQL:-examples/demo.sql}
DEMO_DB=item_table_demo

t0=$(date +%s.%N)
echo "== item_table demo: $DEMO_SQL"
[ -f "$DEMO_SQL" ] || it_die "$DEMO_SQL not found"

it_need_root || it_die "root or sudo is required"
it_install_deps || it_die "dependency installation failed"
it_pg_env || it_die "PostgreSQL tools not found"
it_build_install || it_die "build failed"
it_start_cluster || it_die "could not start a PostgreSQL cluster"

"$PGBIN/createdb" "$DEMO_DB"
it_say "running $DEMO_SQL in database $DEMO_DB"
echo
rc=0
"$PGBIN/psql" -X -v ON_ERROR_STOP=1 -d "$DEMO_DB" -f "$DEMO_SQL" </dev/null || rc=$?
echo
if [ "$rc" -ne 0 ]; then
    it_server_running || it_server_log_tail 40
    it_warn "demo failed (psql exit status $rc)"
fi
it_cleanup
it_say "demo finished in $(it_elapsed "$t0") s"
exit "$rc"
