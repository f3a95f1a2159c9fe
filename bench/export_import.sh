#!/usr/bin/env bash
# Export and import benchmark (not a test: it prints numbers).
#
#   bash bench/export_import.sh            # EI_BENCH_ITEMS=1000000 by default
#   EI_BENCH_ITEMS=200000 bash bench/export_import.sh
#
# Starts a throw-away cluster with shared_preload_libraries = 'item_table'
# (scripts/lib.sh) and measures, in one run, with EI_BENCH_ITEMS items of
# about 100 bytes in a table with two GSIs and point-in-time recovery:
#   1. ExportTableToPointInTime (gzip DynamoDB JSON into a bucket, written
#      by the background worker: timed from the call to COMPLETED) against
#      COPY (SELECT item ...) TO PROGRAM 'gzip > file' of the same rows
#      (goal: within 2x);
#   2. ImportTable of that export into a new table with the same two GSIs
#      against COPY FROM of the same items into an item table with the
#      same two GSIs (the issue's baseline; goal: within 2x), and against
#      COPY FROM of the same rows into a plain table with a primary key
#      and two btree indexes (a stricter baseline: its indexes hold one
#      column where a GSI projecting ALL holds the item).
set -uo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"

ITEMS=${EI_BENCH_ITEMS:-1000000}

it_need_root || it_die "root or sudo is required"
it_pg_env || it_die "PostgreSQL tools not found"
it_build_install || it_die "build failed"
it_start_cluster || it_die "could not start a PostgreSQL cluster"
"$PGBIN/createdb" bench || it_die "createdb"
export PGDATABASE=bench
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
q() { "$PGBIN/psql" -X -q -At -c "$1"; }
now_s() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
trap 'it_cleanup' EXIT

DATA=$(q "SHOW data_directory")
psql -v items="$ITEMS" <<'SQL' >/dev/null || it_die "setup"
SET client_min_messages = warning;
CREATE EXTENSION item_table;
CREATE TEMP TABLE sh (line text);
SELECT format('rm -rf %1$s/ei_bucket && mkdir -p %1$s/ei_bucket', current_setting('data_directory')) AS mk \gset
COPY sh FROM PROGRAM :'mk';
SELECT item_table.create_bucket('ei-bench', current_setting('data_directory') || '/ei_bucket');
SELECT item_table.create_table('{"TableName": "ei_src", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"},
		{"AttributeName": "h", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [
		{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}},
		{"IndexName": "by_h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}]}');
SELECT item_table.update_continuous_backups('{"TableName": "ei_src",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}');
INSERT INTO item_data.ei_src (key, item)
SELECT NULL, jsonb_build_object('pk', jsonb_build_object('S', 'k' || g), 'g', jsonb_build_object('S', 'g' || (g % 1000)),
	'h', jsonb_build_object('N', (g % 5000)::text), 'pad', jsonb_build_object('S', repeat('x', 40)))
FROM generate_series(1, :items) g;
-- the item table of the first baseline: the same two GSIs, loaded by COPY
SELECT item_table.create_table('{"TableName": "ei_copy", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"},
		{"AttributeName": "h", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [
		{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}},
		{"IndexName": "by_h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}]}');
-- the plain table of the second baseline: the same rows, a primary key and two indexes
CREATE TABLE plain (pk text PRIMARY KEY, g text, h numeric, item jsonb);
CREATE INDEX plain_g ON plain (g);
CREATE INDEX plain_h ON plain (h);
VACUUM ANALYZE item_data.ei_src;
CHECKPOINT;
SQL
avg=$(q "SELECT round(avg(octet_length(item::text))) FROM item_data.ei_src")
echo "== $ITEMS items, ${avg} bytes each as JSON text, two GSIs"

# ------------------------------------------------------------ export
t0=$(now_s)
q "SELECT item_table.export_table_to_point_in_time('{\"TableArn\": \"arn:aws:dynamodb:local:000000000000:table/ei_src\",
	\"S3Bucket\": \"ei-bench\", \"S3Prefix\": \"bench\"}')" >/dev/null || it_die "export"
# the background worker writes the export: timed from the call to COMPLETED
while [ "$(q "SELECT status FROM item_table.exports")" = IN_PROGRESS ]; do
	sleep 0.05
done
t1=$(now_s)
[ "$(q "SELECT status FROM item_table.exports")" = COMPLETED ] || it_die "the export did not complete"
export_s=$(secs "$t0" "$t1")
t0=$(now_s)
q "COPY (SELECT item FROM item_data.ei_src) TO PROGRAM 'gzip -6 > $DATA/ei_bucket/copy.gz'" >/dev/null || it_die "copy to"
t1=$(now_s)
copyto_s=$(secs "$t0" "$t1")
echo "export:  ExportTableToPointInTime ${export_s} s ($(rate "$ITEMS" "$export_s") items/s);" \
	"COPY TO + gzip ${copyto_s} s ($(rate "$ITEMS" "$copyto_s") items/s); ratio $(ratio "$export_s" "$copyto_s")x"

# ------------------------------------------------------------ import
prefix=$(q "SELECT replace(manifest_key, 'manifest-summary.json', 'data/') FROM item_table.exports")
q "COPY (SELECT item ->> 'pk', item -> 'g' ->> 'S', (item -> 'h' ->> 'N')::numeric, item FROM item_data.ei_src)
	TO '$DATA/ei_bucket/plain.copy'" >/dev/null || it_die "copy of the baseline rows"
q "COPY (SELECT item FROM item_data.ei_src) TO '$DATA/ei_bucket/items.copy'" >/dev/null || it_die "copy of the baseline items"
q "CHECKPOINT" >/dev/null
t0=$(now_s)
q "SELECT item_table.import_table('{\"S3BucketSource\": {\"S3Bucket\": \"ei-bench\", \"S3KeyPrefix\": \"$prefix\"},
	\"InputFormat\": \"DYNAMODB_JSON\", \"InputCompressionType\": \"GZIP\",
	\"TableCreationParameters\": {\"TableName\": \"ei_dst\", \"BillingMode\": \"PAY_PER_REQUEST\",
		\"AttributeDefinitions\": [{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}, {\"AttributeName\": \"g\", \"AttributeType\": \"S\"},
			{\"AttributeName\": \"h\", \"AttributeType\": \"N\"}],
		\"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"}],
		\"GlobalSecondaryIndexes\": [
			{\"IndexName\": \"by_g\", \"KeySchema\": [{\"AttributeName\": \"g\", \"KeyType\": \"HASH\"}], \"Projection\": {\"ProjectionType\": \"ALL\"}},
			{\"IndexName\": \"by_h\", \"KeySchema\": [{\"AttributeName\": \"h\", \"KeyType\": \"HASH\"}], \"Projection\": {\"ProjectionType\": \"ALL\"}}]}}')" \
	>/dev/null || it_die "import"
t1=$(now_s)
import_s=$(secs "$t0" "$t1")
[ "$(q "SELECT count(*) FROM item_data.ei_dst")" = "$ITEMS" ] || it_die "the import does not have every item"
q "CHECKPOINT" >/dev/null
t0=$(now_s)
q "COPY item_data.ei_copy (item) FROM '$DATA/ei_bucket/items.copy'" >/dev/null || it_die "copy into the item table"
t1=$(now_s)
copyitems_s=$(secs "$t0" "$t1")
[ "$(q "SELECT count(*) FROM item_data.ei_copy")" = "$ITEMS" ] || it_die "the COPY did not load every item"
q "CHECKPOINT" >/dev/null
t0=$(now_s)
q "COPY plain FROM '$DATA/ei_bucket/plain.copy'" >/dev/null || it_die "copy from"
t1=$(now_s)
copyfrom_s=$(secs "$t0" "$t1")
echo "import:  ImportTable ${import_s} s ($(rate "$ITEMS" "$import_s") items/s);" \
	"COPY FROM into an item table with the two GSIs ${copyitems_s} s ($(rate "$ITEMS" "$copyitems_s") items/s); ratio $(ratio "$import_s" "$copyitems_s")x"
echo "         COPY FROM into a plain table (primary key + two indexes) ${copyfrom_s} s ($(rate "$ITEMS" "$copyfrom_s") items/s); ratio $(ratio "$import_s" "$copyfrom_s")x"
