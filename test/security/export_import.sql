-- Exports and imports: exporting needs SELECT on the table and the write
-- right on the bucket; importing needs the read right on the bucket and
-- CREATE on item_data (as CreateTable), and the imported table belongs to
-- the caller.  The file steps check the rights themselves when called
-- directly.  The catalog rows of exports and imports cannot be forged: no
-- role writes them but through the steps, which fill in ids, owner,
-- status and counts themselves and move only the caller's own rows; an
-- export's end state is the background worker's.  The export runs in the
-- worker (the test commits and waits for it), so the test is not one
-- transaction: it removes what it made at the end.  The bucket is a
-- directory under the data directory, made by the test (COPY TO PROGRAM,
-- as the superuser) and removed at the end.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP ROLE IF EXISTS sec_ex_owner;
DROP ROLE IF EXISTS sec_ex_reader;
DROP ROLE IF EXISTS sec_ex_noselect;
DROP ROLE IF EXISTS sec_ex_nocreate;

CREATE ROLE sec_ex_owner;
CREATE ROLE sec_ex_reader;
CREATE ROLE sec_ex_noselect;
CREATE ROLE sec_ex_nocreate;
GRANT CREATE ON SCHEMA item_data TO sec_ex_owner, sec_ex_reader, sec_ex_noselect;
SET search_path = public, item_table;
SELECT plan(26);
-- an export once the worker has ended it (at most 60 s): its description
\ir ../pgtap/include/wait_export.sql

SELECT current_setting('data_directory') || '/it_export_sec' AS root \gset
CREATE TEMP TABLE sh (line text);
SELECT format('rm -rf %1$s && mkdir -p %1$s', :'root') AS mk \gset
COPY sh FROM PROGRAM :'mk';
SELECT ok(create_bucket('exp-sec', :'root') IS NOT NULL, 'a bucket');
SELECT grant_bucket('exp-sec', 'sec_ex_owner', true, true);
SELECT grant_bucket('exp-sec', 'sec_ex_reader', true, false);
SELECT grant_bucket('exp-sec', 'sec_ex_noselect', true, true);
SELECT grant_bucket('exp-sec', 'sec_ex_nocreate', true, true);

SET ROLE sec_ex_owner;
SELECT ok(create_table('{"TableName": "ex_sec", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL, 'the owner''s table');
SELECT ok(dynamodb('UpdateContinuousBackups', '{"TableName": "ex_sec",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}') IS NOT NULL, 'with recovery on');
SELECT put_item('{"TableName": "ex_sec", "Item": {"pk": {"S": "a"}}}');
GRANT SELECT ON item_data.ex_sec TO sec_ex_reader;
SELECT dynamodb('ExportTableToPointInTime', '{"TableArn": "ex_sec", "S3Bucket": "exp-sec", "S3Prefix": "own"}')
	#>> '{ExportDescription,ExportArn}' AS own_arn \gset
SELECT is(pg_temp.wait_export(:'own_arn') #>> '{ExportDescription,ExportStatus}', 'COMPLETED',
	'the owner exports to a bucket it may write');
RESET ROLE;

-- SELECT but only the read right on the bucket: refused, no file
SET ROLE sec_ex_reader;
SELECT throws_ok($$SELECT item_table.dynamodb('ExportTableToPointInTime',
	'{"TableArn": "ex_sec", "S3Bucket": "exp-sec", "S3Prefix": "reader"}')$$, '42501',
	'permission denied to write bucket "exp-sec"', 'no export without the write right on the bucket');
SELECT throws_ok($$SELECT item_table.bucket_write_text('exp-sec', 'x.txt', 'x')$$, '42501',
	'permission denied to write bucket "exp-sec"', 'nor a file written directly');
SELECT throws_ok($$SELECT item_table.export_begin('ex_sec', 'FULL_EXPORT', 'DYNAMODB_JSON', now(), NULL, NULL, NULL,
	'exp-sec', 'y', NULL, '{}')$$,
	'42501', 'permission denied to write bucket "exp-sec"', 'nor an export begun directly');
RESET ROLE;

-- the write right but no SELECT on the table: refused
SET ROLE sec_ex_noselect;
SELECT throws_ok($$SELECT item_table.dynamodb('ExportTableToPointInTime',
	'{"TableArn": "ex_sec", "S3Bucket": "exp-sec", "S3Prefix": "nosel"}')$$, '42501',
	'permission denied for table ex_sec', 'no export without SELECT on the table');
SELECT throws_ok($$SELECT item_table.export_begin('ex_sec', 'FULL_EXPORT', 'DYNAMODB_JSON', now(), NULL, NULL, NULL,
	'exp-sec', 'z', NULL, '{}')$$,
	'42501', 'permission denied for table ex_sec', 'nor an export begun directly');
-- it may import (read right, CREATE): the table is its own
SELECT is(dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-sec", "S3KeyPrefix": "own/"},
	"InputFormat": "DYNAMODB_JSON", "InputCompressionType": "GZIP",
	"TableCreationParameters": {"TableName": "ex_sec_copy", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}}') #>> '{ImportTableDescription,ImportedItemCount}',
	'1', 'an import with the read right and CREATE');
RESET ROLE;
SELECT is((SELECT relowner::regrole::text FROM pg_class WHERE oid = 'item_data.ex_sec_copy'::regclass), 'sec_ex_noselect',
	'the imported table belongs to the caller');

-- no CREATE on item_data: no import, no table
SET ROLE sec_ex_nocreate;
SELECT throws_ok($$SELECT item_table.dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-sec", "S3KeyPrefix": "own/"},
	"InputFormat": "DYNAMODB_JSON", "InputCompressionType": "GZIP",
	"TableCreationParameters": {"TableName": "ex_sec_nc", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}}')$$, '42501', NULL, 'no import without CREATE on item_data');
RESET ROLE;
-- no read right on the bucket: no import
SELECT FROM revoke_bucket('exp-sec', 'sec_ex_noselect');
SELECT grant_bucket('exp-sec', 'sec_ex_noselect', false, true);
SET ROLE sec_ex_noselect;
SELECT throws_ok($$SELECT item_table.dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-sec", "S3KeyPrefix": "own/"},
	"InputFormat": "DYNAMODB_JSON", "InputCompressionType": "GZIP",
	"TableCreationParameters": {"TableName": "ex_sec_nr", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}}')$$, '42501',
	'permission denied to read bucket "exp-sec"', 'no import without the read right on the bucket');
SELECT throws_ok($$SELECT * FROM item_table.bucket_files('exp-sec', '')$$, '42501',
	'permission denied to read bucket "exp-sec"', 'nor a listing of it');
RESET ROLE;

-- no forged catalog rows: the tables are written by the steps only
SET ROLE sec_ex_reader;
SELECT throws_ok($$INSERT INTO item_table.exports (export_id, export_arn, table_name, table_id, owner, status,
	export_type, export_format, s3_bucket, call_request, item_count)
	VALUES ('x', 'x', 'ex_sec', gen_random_uuid(), 0, 'COMPLETED', 'FULL_EXPORT', 'DYNAMODB_JSON', 'exp-sec', '{}', 99)$$,
	'42501', NULL, 'a role cannot write an export row');
SELECT throws_ok($$UPDATE item_table.exports SET status = 'COMPLETED', item_count = 99$$,
	'42501', NULL, 'nor mark an export COMPLETED');
SELECT throws_ok($$UPDATE item_table.imports SET imported_item_count = 99$$,
	'42501', NULL, 'nor change an import''s counts');
SELECT throws_ok($$SELECT item_table.export_catalog_write('exports', 'x', '{"status": "COMPLETED", "item_count": 99}')$$,
	'42883', NULL, 'the general-purpose catalog write is gone');
RESET ROLE;
-- an export begun directly: the step fills in the row itself; the
-- owner's write right on the bucket is taken back before the worker sees
-- it (one transaction), and the worker, checking as the owner, fails it
BEGIN;
SET ROLE sec_ex_owner;
SELECT item_table.export_begin('ex_sec', 'FULL_EXPORT', 'DYNAMODB_JSON', now(), NULL, NULL, NULL,
	'exp-sec', 'direct', NULL, '{"ItemCount": 99, "ExportStatus": "COMPLETED"}') AS direct_id \gset
SELECT is((SELECT jsonb_build_array(status, item_count, billed_size_bytes, owner::regrole::text, manifest_key)
		FROM item_table.exports WHERE export_id = :'direct_id'),
	'["IN_PROGRESS", 0, 0, "sec_ex_owner", null]', 'a row begun directly: IN_PROGRESS, no counts, the caller''s');
RESET ROLE;
SELECT FROM revoke_bucket('exp-sec', 'sec_ex_owner');
SELECT grant_bucket('exp-sec', 'sec_ex_owner', true, false);
COMMIT;
-- the owner's own import, then others' steps on it
SET ROLE sec_ex_owner;
SELECT item_table.import_begin('ex_sec_forged', NULL, '{"S3BucketSource": {"S3Bucket": "exp-sec", "S3KeyPrefix": "own/"}}')
	AS imp_id \gset
RESET ROLE;
SET ROLE sec_ex_reader;
SELECT throws_ok(format($$SELECT item_table.import_finish(%L, NULL, true)$$, :'imp_id'), '42501',
	format('no import "%s" of the current role in progress', :'imp_id'), 'a role cannot end another role''s import');
SELECT throws_ok(format($$SELECT item_table.import_load_file(%L, 'own/x.json.gz', 'DYNAMODB_JSON', 'GZIP', NULL, NULL, NULL)$$,
		:'imp_id'), '42501', format('no import "%s" of the current role in progress', :'imp_id'),
	'nor add counts to it');
RESET ROLE;
SET ROLE sec_ex_owner;
SELECT throws_ok(format($$SELECT item_table.import_load_file(%L, 'elsewhere/x.json.gz', 'DYNAMODB_JSON', 'GZIP', NULL, NULL, NULL)$$,
		:'imp_id'), '42501', format('"elsewhere/x.json.gz" is not under the key prefix of import "%s"', :'imp_id'),
	'its owner loads only files under its prefix');
SELECT lives_ok(format($$SELECT item_table.import_finish(%L, NULL, true)$$, :'imp_id'), 'its owner ends it');
SELECT is((SELECT jsonb_build_array(status, imported_item_count, error_count, error_file_key)
		FROM item_table.imports WHERE import_id = :'imp_id'),
	'["COMPLETED", 0, 0, null]', 'with the counts its loads added (none), whatever it claimed');
SELECT throws_ok(format($$SELECT item_table.import_finish(%L, 'again', false)$$, :'imp_id'), '42501',
	format('no import "%s" of the current role in progress', :'imp_id'), 'an ended import stays as it ended');
RESET ROLE;
SELECT is(pg_temp.wait_export((SELECT export_arn FROM item_table.exports WHERE export_id = :'direct_id'))
		-> 'ExportDescription' ->> 'ExportStatus', 'FAILED', 'the worker exports with its owner''s rights only');
SELECT * FROM finish();

-- what the test made
SELECT delete_table('{"TableName": "ex_sec"}') IS NOT NULL AS dropped;
SELECT delete_table('{"TableName": "ex_sec_copy"}') IS NOT NULL AS dropped;
DELETE FROM exports WHERE s3_bucket = 'exp-sec';
DELETE FROM imports WHERE call_request #>> '{S3BucketSource,S3Bucket}' = 'exp-sec';
SELECT drop_bucket('exp-sec');
REVOKE CREATE ON SCHEMA item_data FROM sec_ex_owner, sec_ex_reader, sec_ex_noselect;
DROP ROLE sec_ex_owner;
DROP ROLE sec_ex_reader;
DROP ROLE sec_ex_noselect;
DROP ROLE sec_ex_nocreate;
SELECT format('rm -rf %s', :'root') AS rm \gset
COPY sh FROM PROGRAM :'rm';
