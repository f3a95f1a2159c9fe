#!/usr/bin/env bash
# Exports and imports survive crashes: kill -9 of the background worker
# while it writes an export (ExportTableToPointInTime answered IN_PROGRESS;
# the worker writes a data file per transaction, DescribeExport shows the
# items written so far) leaves the export IN_PROGRESS, and after the
# restart the worker goes on from its last committed file (the file it
# was writing is written again from the start) to COMPLETED, with every
# item once, the files' item counts summing to the export's, and no file
# the manifest does not list;
# kill -9 of the postmaster in the middle of an ImportTable leaves no
# half-loaded table -- neither in the catalog (so no ACTIVE table for
# DescribeTable or ListTables) nor as a physical table -- and no import
# marked IN_PROGRESS, and the same import then succeeds with every item.
#
# Starts its own throw-away cluster (it kills the server) with
# shared_preload_libraries = 'item_table', fsync on.  A table of
# EXPORT_CRASH_ITEMS items (default 100000) with a GSI and point-in-time
# recovery; a writer changes it during the export.
#
#   EXPORT_CRASH_ITEMS=1000000 bash test/stress/export_import_crash.sh
set -uo pipefail

EC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$EC_ROOT/scripts/lib.sh"

ITEMS=${EXPORT_CRASH_ITEMS:-100000}
CC_DB=ec
CC_TAG=exportcrash
CC_CONF=""
# shellcheck source=test/stress/include/crash_cluster.sh
. "$EC_ROOT/test/stress/include/crash_cluster.sh"
cc_start

psql -v items="$ITEMS" <<'SQL' >/dev/null || die "setup"
SET client_min_messages = warning;
CREATE EXTENSION item_table;
CREATE TEMP TABLE sh (line text);
SELECT format('mkdir -p %s/ec_bucket', current_setting('data_directory')) AS mk \gset
COPY sh FROM PROGRAM :'mk';
SELECT item_table.create_bucket('ec-bucket', current_setting('data_directory') || '/ec_bucket');
SELECT item_table.create_table('{"TableName": "ec_src", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}]}');
SELECT item_table.update_continuous_backups('{"TableName": "ec_src",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}');
INSERT INTO item_data.ec_src (key, item)
SELECT NULL, jsonb_build_object('pk', jsonb_build_object('S', 'k' || g), 'g', jsonb_build_object('S', 'g' || (g % 97)),
	'pad', jsonb_build_object('S', repeat('x', 100)))
FROM generate_series(1, :items) g;
SQL

# a writer, so that the export runs beside writes
(
	i=0
	while [ ! -e "$CC_TMP/stop" ]; do
		i=$((i + 1))
		q "SELECT item_table.put_item('{\"TableName\": \"ec_src\", \"Item\": {\"pk\": {\"S\": \"w$((i % 50))\"}, \"g\": {\"S\": \"w\"}, \"n\": {\"N\": \"$i\"}}}')" >/dev/null
		sleep 0.02
	done
) &

# several data files, so that the crash falls between two of them
FILE_ITEMS=$((ITEMS / 8))
export_call="SET item_table.export_file_items = $FILE_ITEMS; SELECT item_table.export_table_to_point_in_time('{\"TableArn\": \"arn:aws:dynamodb:local:000000000000:table/ec_src\", \"S3Bucket\": \"ec-bucket\", \"S3Prefix\": \"crash\"}') #>> '{ExportDescription,ExportStatus}'"
status_of() { q "SELECT item_table.describe_export(jsonb_build_object('ExportArn', export_arn)) #>> '{ExportDescription,$1}' FROM item_table.exports"; }

# ---------------------------------------------------------------- export
status=$(q "$export_call" | tail -n 1)
[ "$status" = IN_PROGRESS ] || die "the export call answered $status, not IN_PROGRESS"
# the worker writes it: killed (kill -9) once a file is committed and
# while it writes the next
rpid=$(await 120 "SELECT a.pid FROM pg_stat_activity a, item_table.exports e
	WHERE a.backend_type = 'item_table worker' AND a.query LIKE 'item_table: export %'
	AND pg_catalog.jsonb_array_length(e.data_files) >= 2 AND e.status = 'IN_PROGRESS'")
[ -n "$rpid" ] || die "the worker did not run the export long enough to be killed (raise EXPORT_CRASH_ITEMS)"
before=$(status_of ItemCount)
[ "$(status_of ExportStatus)" = IN_PROGRESS ] && [ "$before" -gt 0 ] ||
	die "DescribeExport does not show the progress of the export (ItemCount $before)"
pg_user kill -KILL "$rpid"
crashed "$rpid" || die "the server log does not show the worker's death by kill -9"
echo "export killed in the worker, IN_PROGRESS with $before items written"
wait_ready 120 || die "the server did not come back after the worker was killed"
# the worker comes back and goes on from the last committed file
done_status=$(await 300 "SELECT status FROM item_table.exports WHERE status <> 'IN_PROGRESS'")
[ "$done_status" = COMPLETED ] || die "the export was not completed after the crash: ${done_status:-still IN_PROGRESS}"
count=$(q "SELECT item_count FROM item_table.exports")
[ "$count" -ge "$ITEMS" ] || die "the export has $count items, fewer than $ITEMS"
base=$(q "SELECT current_setting('data_directory') || '/ec_bucket/' || replace(manifest_key, '/manifest-summary.json', '') FROM item_table.exports")
manifest=$(pg_user cat "$base/manifest-files.json") || die "no manifest-files.json"
nfiles=$(printf '%s\n' "$manifest" | grep -c dataFileS3Key)
[ "$nfiles" -ge 8 ] || die "the export has $nfiles data files, not several"
[ "$(pg_user sh -c "ls '$base/data' | wc -l")" = "$nfiles" ] || die "the data folder holds files the manifest does not list"
sum=$(printf '%s\n' "$manifest" | sed -n 's/.*"itemCount": \([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s }')
[ "$sum" = "$count" ] || die "the files' itemCounts sum to $sum, the export says $count"
keys=$(pg_user sh -c "zcat '$base'/data/*.json.gz | grep -o '\"pk\": {\"S\": \"[^\"]*\"}' | sort -u | wc -l")
lines=$(pg_user sh -c "zcat '$base'/data/*.json.gz | wc -l")
[ "$lines" = "$count" ] && [ "$keys" = "$count" ] ||
	die "the data files have $lines lines and $keys distinct keys, the export says $count items"
[ "$(pg_user sh -c "zcat '$base'/data/*.json.gz | grep -c '\"pk\": {\"S\": \"k[0-9]*\"}'")" = "$ITEMS" ] ||
	die "the export lacks some of the table's $ITEMS items"
echo "export resumed: COMPLETED, $count items in $nfiles files, every item once"
: >"$CC_TMP/stop"

# ---------------------------------------------------------------- import
prefix=$(q "SELECT replace(manifest_key, 'manifest-summary.json', 'data/') FROM item_table.exports")
import_call="SELECT item_table.import_table('{\"S3BucketSource\": {\"S3Bucket\": \"ec-bucket\", \"S3KeyPrefix\": \"$prefix\"},
	\"InputFormat\": \"DYNAMODB_JSON\", \"InputCompressionType\": \"GZIP\",
	\"TableCreationParameters\": {\"TableName\": \"ec_dst\", \"BillingMode\": \"PAY_PER_REQUEST\",
		\"AttributeDefinitions\": [{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}, {\"AttributeName\": \"g\", \"AttributeType\": \"S\"}],
		\"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"}],
		\"GlobalSecondaryIndexes\": [{\"IndexName\": \"by_g\", \"KeySchema\": [{\"AttributeName\": \"g\", \"KeyType\": \"HASH\"}],
			\"Projection\": {\"ProjectionType\": \"ALL\"}}]}}')"
gone() {
	[ "$(q "SELECT count(*) FROM item_table.tables WHERE table_name = '$1'")" = 0 ] &&
		[ "$(q "SELECT count(*) FROM pg_class WHERE relname IN ('$1', '$1#by_g') AND relnamespace = 'item_data'::regnamespace")" = 0 ] &&
		[ "$(q "SELECT count(*) FROM item_table.imports")" = 0 ]
}
q "$import_call" >/dev/null 2>&1 &
qpid=$!
rpid=$(await 60 "SELECT pid FROM pg_stat_activity WHERE query LIKE '%import_table%' AND pid <> pg_backend_pid() AND clock_timestamp() - query_start > interval '300 ms'")
[ -n "$rpid" ] || die "the import did not run long enough to be killed"
kill_all
pg_start || die "could not restart the cluster"
wait_ready 120 || die "the server did not come back"
wait "$qpid"
gone ec_dst || die "a half-loaded table or an IN_PROGRESS import is left after kill -9 of the postmaster"
echo "import killed with the postmaster: no table, no import left"
q "$import_call" >/dev/null || die "the import failed after the crash"
[ "$(q "SELECT count(*) FROM item_data.ec_dst")" = "$count" ] || die "the imported table does not have every item"
[ "$(q "SELECT imported_item_count FROM item_table.imports WHERE status = 'COMPLETED'")" = "$count" ] ||
	die "the import's description does not count every item"
[ "$(q "SELECT count(*) FROM item_data.\"ec_dst#by_g\"")" = "$count" ] || die "the imported index does not have every row"
echo "import again: $count items, $count index rows"
echo "ok"
