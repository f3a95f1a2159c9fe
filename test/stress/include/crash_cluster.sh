# shellcheck shell=bash
# The throw-away cluster of the crash scripts (background_crash.sh,
# streams_crash.sh): they kill the server, so each runs its own, never the
# shared test cluster.  Sourced after scripts/lib.sh, with:
#   CC_DB    the database to create
#   CC_TAG   a word for the temp directory's name
#   CC_CONF  extra postgresql.conf lines (may be empty)
# cc_start makes the cluster (fsync on, item_table preloaded, naptime 1 s,
# restart_after_crash on), starts it, exports PGHOST/PGPORT/PGUSER and
# creates CC_DB.  The EXIT trap stops and removes it; a script's writers
# stop when the file "$CC_TMP/stop" appears.  Also defined: die, pg_user,
# psql and q (on CC_DB), cluster_pids, kill_all (kill -9 of every process
# of the cluster), wait_ready [SECONDS], pg_start, crashed and await (below).

CC_TMP=""
CC_PGDATA=""
CC_DONE=0

die() { echo "FAILED: $*"; exit 1; }

it_need_root || exit 1
if [ -z "${PGBIN:-}" ]; then
	it_pg_env || exit 1
fi

pg_user() { it_as_postgres "$@"; }
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$CC_DB" "$@"; }
q() { "$PGBIN/psql" -X -q -At -d "$CC_DB" -c "$1" 2>/dev/null; }

cluster_pids() {
	# shellcheck disable=SC2016  # expanded by the inner shell
	pg_user bash -c 'for p in /proc/[0-9]*; do
		[ "$p/cwd" -ef "$1" ] && echo "${p#/proc/}"
	done; true' _ "$CC_PGDATA"
}

kill_all() {
	local p i
	for i in $(seq 1 100); do
		p=$(cluster_pids)
		[ -z "$p" ] && break
		# shellcheck disable=SC2086
		pg_user kill -KILL $p 2>/dev/null || true
		sleep 0.3
	done
	$SUDO rm -f "$CC_PGDATA/postmaster.pid" "$CC_TMP/pg/.s.PGSQL.$PGPORT.lock"
}

wait_ready() {
	local deadline=$((SECONDS + ${1:-120}))
	while [ "$SECONDS" -lt "$deadline" ]; do
		"$PGBIN/pg_isready" -q -t 2 >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}

# crashed PID: wait (60 s at most) until the postmaster has logged that
# process's death by kill -9, so that the crash restart has begun (until
# then the server may still accept connections, which the restart ends)
crashed() {
	local deadline=$((SECONDS + 60))
	while [ "$SECONDS" -lt "$deadline" ]; do
		$SUDO grep -q "(PID $1) was terminated by signal 9" "$CC_TMP/pg/server.log" && return 0
		sleep 0.1
	done
	return 1
}

# await SECONDS SQL: run SQL (one value) until it returns a value that is
# neither empty nor NULL, and print it; fails after SECONDS.  The loop runs
# on the server, so that what it waits for is caught the moment it shows
# (no client started per try), and the caller acts on it at once.
await() {
	q "SELECT public.cc_await(\$cc\$$2\$cc\$, $1)"
}

pg_start() {
	pg_user "$PGBIN/pg_ctl" -D "$CC_PGDATA" -l "$CC_TMP/pg/server.log" -w -t 120 start \
		>>"$CC_TMP/pg_ctl.log" 2>&1
}

cc_cleanup() {
	local rc=$?
	[ "$CC_DONE" = 1 ] && return
	CC_DONE=1
	[ -n "$CC_TMP" ] && : >"$CC_TMP/stop"
	sleep 0.5
	if [ -n "$CC_PGDATA" ] && $SUDO test -d "$CC_PGDATA"; then
		pg_user "$PGBIN/pg_ctl" -D "$CC_PGDATA" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
		kill_all
	fi
	if [ "$rc" -ne 0 ] && [ -n "$CC_TMP" ]; then
		echo "---- server log (last 40 lines) ----"
		$SUDO tail -n 40 "$CC_TMP/pg/server.log" 2>/dev/null
	fi
	[ -n "$CC_TMP" ] && $SUDO rm -rf -- "$CC_TMP"
	exit "$rc"
}
trap cc_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cc_start() {
	local port
	CC_TMP=$(mktemp -d "/tmp/item_table_$CC_TAG.XXXXXX") || die "mktemp"
	chmod 755 "$CC_TMP"
	{ mkdir "$CC_TMP/pg" && $SUDO chown postgres: "$CC_TMP/pg"; } || die "cannot prepare the cluster dir"
	CC_PGDATA=$(realpath "$CC_TMP/pg")/data
	pg_user "$PGBIN/initdb" -D "$CC_PGDATA" --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
		-U postgres >"$CC_TMP/initdb.log" 2>&1 || { cat "$CC_TMP/initdb.log"; die "initdb"; }
	port=$(IT_TMP=$CC_TMP/pg it_pick_port) || die "no free port"
	pg_user tee -a "$CC_PGDATA/postgresql.conf" >/dev/null <<CONF
listen_addresses = ''
unix_socket_directories = '$CC_TMP/pg'
port = $port
shared_buffers = 128MB
max_connections = 20
shared_preload_libraries = 'item_table'
item_table.worker_naptime = 1
restart_after_crash = on
${CC_CONF:-}
CONF
	unset PGHOSTADDR PGSERVICE PGOPTIONS PGDATABASE
	export PGHOST="$CC_TMP/pg" PGPORT="$port" PGUSER=postgres
	pg_start || { cat "$CC_TMP/pg_ctl.log"; die "could not start the cluster"; }
	"$PGBIN/createdb" "$CC_DB" || die "createdb"
	psql -f - >/dev/null <<'SQL' || die "setup of cc_await()"
CREATE FUNCTION public.cc_await(query text, secs float8) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	v text;
	give_up timestamptz := clock_timestamp() + secs * interval '1 second';
BEGIN
	LOOP
		PERFORM pg_stat_clear_snapshot();
		EXECUTE query INTO v;
		IF v <> '' OR clock_timestamp() > give_up THEN
			RETURN v;
		END IF;
		PERFORM pg_sleep(0.005);
	END LOOP;
END $$;
SQL
}
