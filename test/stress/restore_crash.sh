#!/usr/bin/env bash
# Restores survive crashes: kill -9 of the server in the middle of a
# RestoreTableFromBackup and of a RestoreTableToPointInTime leaves no
# half-made table behind -- neither in the catalog (so no ACTIVE table for
# DescribeTable or ListTables) nor as a physical table -- and the same
# restore then succeeds, with every item.
#
# Starts its own throw-away cluster (it kills the server) with
# shared_preload_libraries = 'item_table', fsync on.  A table of
# RESTORE_CRASH_ITEMS items (default 100000) with a GSI gets a backup and
# point-in-time recovery; while a writer changes it, a restore from the
# backup is started and, once its backend has run for a moment, the
# backend is killed with kill -9 (the postmaster resets every backend);
# then a restore to a point in time, and the postmaster itself is killed
# (kill -9, then pg_ctl start).
#
#   RESTORE_CRASH_ITEMS=1000000 bash test/stress/restore_crash.sh
set -uo pipefail

RC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$RC_ROOT/scripts/lib.sh"

ITEMS=${RESTORE_CRASH_ITEMS:-100000}
CC_DB=rc
CC_TAG=restorecrash
CC_CONF=""
# shellcheck source=test/stress/include/crash_cluster.sh
. "$RC_ROOT/test/stress/include/crash_cluster.sh"
cc_start

psql -v items="$ITEMS" <<'SQL' >/dev/null || die "setup"
SET client_min_messages = warning;
CREATE EXTENSION item_table;
SELECT item_table.create_table('{"TableName": "rc_src", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}]}');
INSERT INTO item_data.rc_src (key, item)
SELECT NULL, jsonb_build_object('pk', jsonb_build_object('S', 'k' || g), 'g', jsonb_build_object('S', 'g' || (g % 97)),
	'pad', jsonb_build_object('S', repeat('x', 100)))
FROM generate_series(1, :items) g;
SELECT item_table.create_backup('{"TableName": "rc_src", "BackupName": "crash-test"}');
SELECT item_table.update_continuous_backups('{"TableName": "rc_src",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}');
SQL

# a writer, so that the restores run beside writes
(
	i=0
	while [ ! -e "$CC_TMP/stop" ]; do
		i=$((i + 1))
		q "SELECT item_table.put_item('{\"TableName\": \"rc_src\", \"Item\": {\"pk\": {\"S\": \"w$((i % 50))\"}, \"g\": {\"S\": \"w\"}, \"n\": {\"N\": \"$i\"}}}')" >/dev/null
		sleep 0.02
	done
) &

# no trace of a table: not in the catalog, no physical table
gone() {
	[ "$(q "SELECT count(*) FROM item_table.tables WHERE table_name = '$1'")" = 0 ] &&
		[ "$(q "SELECT count(*) FROM pg_class WHERE relname IN ('$1', '$1#by_g') AND relnamespace = 'item_data'::regnamespace")" = 0 ] &&
		[ "$(q "SELECT count(*) FROM item_table.table_restores WHERE table_name = '$1'")" = 0 ]
}

# ---------------------------------------------------------------- from a backup
arn=$(q "SELECT backup_arn FROM item_table.backups WHERE backup_name = 'crash-test'")
[ -n "$arn" ] || die "no backup"
q "SELECT item_table.restore_table_from_backup('{\"TargetTableName\": \"rc_back\", \"BackupArn\": \"$arn\"}')" \
	>/dev/null 2>&1 &
qpid=$!
rpid=$(await 60 "SELECT pid FROM pg_stat_activity WHERE query LIKE '%restore_table_from_backup%' AND pid <> pg_backend_pid() AND clock_timestamp() - query_start > interval '300 ms'")
[ -n "$rpid" ] || die "the restore from the backup did not run long enough to be killed (raise RESTORE_CRASH_ITEMS)"
pg_user kill -KILL "$rpid"
crashed "$rpid" || die "the server log does not show the restore's death by kill -9"
wait_ready 120 || die "the server did not come back after the restore was killed"
wait "$qpid"
gone rc_back || die "a half-made restored table is left after kill -9"
echo "restore from a backup killed: no table left"
q "SELECT item_table.restore_table_from_backup('{\"TargetTableName\": \"rc_back\", \"BackupArn\": \"$arn\"}')" >/dev/null ||
	die "the restore from the backup failed after the crash"
[ "$(q "SELECT count(*) FROM item_data.rc_back")" = "$ITEMS" ] || die "the restored table does not have every item"
[ "$(q "SELECT count(*) FROM item_data.\"rc_back#by_g\"")" = "$ITEMS" ] || die "the restored index does not have every row"
echo "restore from a backup again: $ITEMS items, $ITEMS index rows"

# ---------------------------------------------------------------- to a point in time
at=$(q "SELECT extract(epoch FROM clock_timestamp())")
sleep 0.1
# items written after that time, which the restore must not show
(
	i=0
	while [ ! -e "$CC_TMP/stop2" ]; do
		i=$((i + 1))
		q "SELECT item_table.put_item('{\"TableName\": \"rc_src\", \"Item\": {\"pk\": {\"S\": \"v$((i % 50))\"}, \"g\": {\"S\": \"v\"}}}')" >/dev/null
		sleep 0.02
	done
) &
wpid2=$!
q "SELECT item_table.restore_table_to_point_in_time('{\"SourceTableName\": \"rc_src\", \"TargetTableName\": \"rc_pitr\", \"RestoreDateTime\": $at}')" \
	>/dev/null 2>&1 &
qpid=$!
rpid=$(await 60 "SELECT pid FROM pg_stat_activity WHERE query LIKE '%restore_table_to_point_in_time%' AND pid <> pg_backend_pid() AND clock_timestamp() - query_start > interval '300 ms'")
[ -n "$rpid" ] || die "the restore to a point in time did not run long enough to be killed"
kill_all
pg_start || die "could not restart the cluster"
wait_ready 120 || die "the server did not come back"
: >"$CC_TMP/stop2"
wait "$qpid" "$wpid2"
gone rc_pitr || die "a half-made table is left after kill -9 of the postmaster during a restore"
echo "restore to a point in time killed with the postmaster: no table left"
q "SELECT item_table.restore_table_to_point_in_time('{\"SourceTableName\": \"rc_src\", \"TargetTableName\": \"rc_pitr\", \"RestoreDateTime\": $at}')" >/dev/null ||
	die "the restore to a point in time failed after the crash"
[ "$(q "SELECT count(*) FROM item_data.rc_pitr WHERE key::text LIKE 'S\"k%'")" = "$ITEMS" ] ||
	die "the table restored to a point in time lacks items"
[ "$(q "SELECT count(*) FROM item_data.rc_pitr WHERE key::text LIKE 'S\"v%'")" = 0 ] ||
	die "the table restored to a point in time has items written after that time"
echo "restore to a point in time again: the $ITEMS items, none written later"
: >"$CC_TMP/stop"
echo "ok"
