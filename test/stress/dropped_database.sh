#!/usr/bin/env bash
# A dropped database's worker stops for good and frees its slot.
#
# The worker of a database with Time to Live enabled exits with status 1
# after each round, so that the postmaster starts it again after
# worker_naptime.  Before the fix, once its database was dropped, every
# restart failed to connect ("database N does not exist", FATAL, status 1
# again): it was started every naptime for as long as the server ran and
# kept its slot of max_worker_processes.
#
# Its own throw-away cluster (include/crash_cluster.sh: item_table in
# shared_preload_libraries as docs/background.md says, naptime 1 s) with
# max_worker_processes = 4, so that one lost slot shows.  Two phases:
#   1. with the launcher: a database whose worker expires items (TTL) is
#      dropped WITH (FORCE); after a few naptimes no worker for it runs, no
#      connection attempt to it is logged (but the one a restart already
#      due may make), and the two slots the
#      launcher and the logical replication launcher leave are both free
#      (two start_worker() at once succeed).
#   2. without preloading (the worker started on demand by
#      UpdateTimeToLive, no launcher to end its registration): the same,
#      with the three slots left by the logical replication launcher.
set -uo pipefail

DD_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$DD_ROOT/scripts/lib.sh"

NAPS=${DD_NAPS:-6}			# naptimes (1 s) watched after the drop
CC_DB=dd_other
CC_TAG=dropdb
CC_CONF='max_worker_processes = 4'
# shellcheck source=test/stress/include/crash_cluster.sh
. "$DD_ROOT/test/stress/include/crash_cluster.sh"
cc_start

LOG="$CC_TMP/pg/server.log"
on() { "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }
log_count() { $SUDO grep -c -- "$1" "$LOG" 2>/dev/null || true; }

psql -c 'CREATE EXTENSION item_table' || die "extension in $CC_DB"

# a database whose worker has periodic work (TTL), and has done a round
make_ttl_db() {  # make_ttl_db NAME
	"$PGBIN/createdb" "$1" || die "createdb $1"
	on "$1" "SET client_min_messages = warning; CREATE EXTENSION item_table;
		SELECT item_table.create_table('{\"TableName\": \"ttl_t\", \"BillingMode\": \"PAY_PER_REQUEST\",
			\"AttributeDefinitions\": [{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}],
			\"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"}]}') IS NOT NULL;
		SELECT item_table.put_item('{\"TableName\": \"ttl_t\", \"Item\": {\"pk\": {\"S\": \"old\"}, \"exp\": {\"N\": \"$(( $(date +%s) - 3600 ))\"}}}') IS NOT NULL;
		SELECT item_table.update_time_to_live('{\"TableName\": \"ttl_t\", \"TimeToLiveSpecification\": {\"AttributeName\": \"exp\", \"Enabled\": true}}') IS NOT NULL" \
		>/dev/null || die "setup of $1"
	local deadline=$((SECONDS + 120))
	while [ "$SECONDS" -lt "$deadline" ]; do
		[ "$(on "$1" "SELECT count(*) FROM item_data.ttl_t")" = 0 ] && return 0
		sleep 0.5
	done
	die "the worker of $1 never expired the item (120 s)"
}

# drop NAME and watch 2 + NAPS naptimes: no worker, and no connection
# attempt but the one a restart already due may still make (whenever it
# comes: on a loaded machine it may come late)
drop_and_watch() {  # drop_and_watch NAME PHASE
	local oid before after running
	oid=$(q "SELECT oid FROM pg_database WHERE datname = '$1'")
	[ -n "$oid" ] || die "no oid for $1"
	before=$(log_count "database $oid does not exist")
	on postgres "DROP DATABASE $1 WITH (FORCE)" || die "DROP DATABASE $1"
	sleep $((2 + NAPS))
	after=$(log_count "database $oid does not exist")
	running=$(q "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'item_table worker' AND datid = $oid")
	echo "phase $2: database $1 ($oid) dropped; failed connections logged in $((2 + NAPS)) s: $((after - before)) (at most the one already due; before the fix: one per naptime); workers for it: $running"
	[ "$((after - before))" -le 1 ] || die "phase $2: the dropped database's worker is still being started ($((after - before)) failed connections in $((2 + NAPS)) s)"
	[ "$running" = 0 ] || die "phase $2: a worker for the dropped database runs"
}

# every slot max_worker_processes leaves is free: N registrations at once
slots_free() {  # slots_free N PHASE
	local calls got
	calls=$(printf 'item_table.start_worker()::int + %.0s' $(seq 1 "$1"))
	got=$(q "SELECT ${calls}0")
	echo "phase $2: start_worker() succeeded $got time(s) of $1"
	[ "$got" = "$1" ] || die "phase $2: only $got of $1 free worker slots: the dropped database's registration holds one"
}

# ------------------------------------------------------------- 1. launcher
[ "$(q "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'item_table launcher'")" = 1 ] ||
	die "phase 1: no item_table launcher (shared_preload_libraries)"
make_ttl_db dd_gone1
drop_and_watch dd_gone1 1
slots_free 2 1

# ------------------------------------------------- 2. without preloading
pg_user tee -a "$CC_PGDATA/postgresql.conf" >/dev/null <<<"shared_preload_libraries = ''"
pg_user "$PGBIN/pg_ctl" -D "$CC_PGDATA" -w -t 60 -m fast restart -l "$LOG" >>"$CC_TMP/pg_ctl.log" 2>&1 ||
	die "could not restart without preloading"
wait_ready 120 || die "the server did not come back"
[ "$(q "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'item_table launcher'")" = 0 ] ||
	die "phase 2: a launcher runs without preloading"
make_ttl_db dd_gone2
drop_and_watch dd_gone2 2
slots_free 3 2
[ "$(log_count "no longer exists, its worker stops for good")" -ge 1 ] ||
	die "phase 2: the worker never noticed that its database was gone"

echo "ok: the workers of dropped databases stopped for good and freed their slots"
