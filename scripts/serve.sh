#!/usr/bin/env bash
# The project's first command:  bash scripts/serve.sh [ITEM_TABLE_LOCAL-OPTION]...
#
# A DynamoDB endpoint on http://127.0.0.1:8000: installs the apt packages it
# needs if missing, builds and installs item_table (with item_table_gateway
# and item_table_local), then runs item_table_local in the foreground with
# its data in item_table_data/ of this checkout (kept between runs, ignored by
# git), until SIGINT (Ctrl-C) or SIGTERM, which stop the endpoint and its
# PostgreSQL cluster.  Options are passed on to item_table_local (see
# docs/local.md); IT_SERVE_PORT sets the port (default 8000).
#
# As root, item_table_local runs as the postgres user, which must reach the
# data directory: when the checkout is closed to it (under /root, say), the
# data goes to /var/lib/item_table/local instead, and the script says so.
set -euo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$IT_ROOT"
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"

PORT=${IT_SERVE_PORT:-8000}
DATA_DIR="$IT_ROOT/item_table_data"

it_need_root || it_die "root or sudo is required (to install packages and item_table)"
it_install_deps "postgresql-$IT_PG_MAJOR" "postgresql-server-dev-$IT_PG_MAJOR" build-essential \
    libmicrohttpd-dev liburing-dev zlib1g-dev libzstd-dev libssl-dev libpq-dev awscli \
    || it_die "dependency installation failed"
it_pg_env || it_die "PostgreSQL tools not found"
it_build_install || it_die "build failed"

BIN="$("$PG_CONFIG" --bindir)/item_table_local"
[ -x "$BIN" ] || it_die "$BIN was not installed"

if [ "$(id -u)" -eq 0 ] && ! (cd / && runuser -u postgres -- test -x "$IT_ROOT"); then
    DATA_DIR=/var/lib/item_table/local
    mkdir -p "$DATA_DIR"
    chown postgres: "$DATA_DIR"
    chmod 700 "$DATA_DIR"
    it_say "the postgres user cannot reach $IT_ROOT: the data goes to $DATA_DIR"
fi

it_log_dir || it_die "cannot make $IT_LOG_DIR"
out="$IT_LOG_DIR/serve.out"
: >"$out"
it_say "starting $BIN on port $PORT (data in ${DATA_DIR#"$IT_ROOT"/})"
"$BIN" --port "$PORT" --data-dir "$DATA_DIR" "$@" </dev/null >"$out" &
pid=$!

# shellcheck disable=SC2317  # run by the trap
stop() {
    trap '' INT TERM HUP
    kill -TERM "$pid" 2>/dev/null || true
}
trap stop INT TERM HUP

endpoint=""
while kill -0 "$pid" 2>/dev/null; do
    line=$(grep -m 1 '^item_table_local: listening on ' "$out" 2>/dev/null || true)
    if [ -n "$line" ]; then
        cat "$out"
        endpoint=${line#item_table_local: listening on }
        endpoint=${endpoint%% *}
        break
    fi
    sleep 0.1
done
if [ -n "$endpoint" ]; then
    echo
    echo "DynamoDB endpoint: $endpoint (any credentials are accepted; Ctrl-C stops it). Try:"
    echo "  AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_DEFAULT_REGION=us-east-1 aws dynamodb list-tables --endpoint-url $endpoint"
    echo "SQL on the same data: $BIN --psql --data-dir $DATA_DIR"
fi

rc=0
# wait returns early when a trapped signal arrives: wait again for the stop
while kill -0 "$pid" 2>/dev/null; do
    wait "$pid" && rc=0 || rc=$?
done
[ -s "$out" ] && [ -z "$endpoint" ] && cat "$out"
exit "$rc"
