-- Exports and imports: exporting needs SELECT on the table and the write
-- right on the bucket; importing needs the read right on the bucket and
-- CREATE on item_data (as CreateTable), and the imported table belongs to
-- the caller.  The file steps check the rights themselves when called
-- directly.  The bucket is a directory under the data directory, made by
-- the test (COPY TO PROGRAM, as the superuser) and removed at the end.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP ROLE IF EXISTS sec_ex_owner;
DROP ROLE IF EXISTS sec_ex_reader;
DROP ROLE IF EXISTS sec_ex_noselect;
DROP ROLE IF EXISTS sec_ex_nocreate;

BEGIN;
CREATE ROLE sec_ex_owner;
CREATE ROLE sec_ex_reader;
CREATE ROLE sec_ex_noselect;
CREATE ROLE sec_ex_nocreate;
GRANT CREATE ON SCHEMA item_data TO sec_ex_owner, sec_ex_reader, sec_ex_noselect;
SET search_path = public, item_table;
SELECT plan(14);

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
SELECT is(dynamodb('ExportTableToPointInTime', '{"TableArn": "ex_sec", "S3Bucket": "exp-sec", "S3Prefix": "own"}')
	#>> '{ExportDescription,ExportStatus}', 'COMPLETED', 'the owner exports to a bucket it may write');
RESET ROLE;

-- SELECT but only the read right on the bucket: refused, no file
SET ROLE sec_ex_reader;
SELECT throws_ok($$SELECT item_table.dynamodb('ExportTableToPointInTime',
	'{"TableArn": "ex_sec", "S3Bucket": "exp-sec", "S3Prefix": "reader"}')$$, '42501',
	'permission denied to write bucket "exp-sec"', 'no export without the write right on the bucket');
SELECT throws_ok($$SELECT item_table.bucket_write_text('exp-sec', 'x.txt', 'x')$$, '42501',
	'permission denied to write bucket "exp-sec"', 'nor a file written directly');
SELECT throws_ok($$SELECT item_table.export_data_file('item_data.ex_sec', NULL, NULL, NULL, NULL, 'exp-sec', 'y.json.gz')$$,
	'42501', 'permission denied to write bucket "exp-sec"', 'nor a data file written directly');
RESET ROLE;

-- the write right but no SELECT on the table: refused
SET ROLE sec_ex_noselect;
SELECT throws_ok($$SELECT item_table.dynamodb('ExportTableToPointInTime',
	'{"TableArn": "ex_sec", "S3Bucket": "exp-sec", "S3Prefix": "nosel"}')$$, '42501',
	'permission denied for table ex_sec', 'no export without SELECT on the table');
SELECT throws_ok($$SELECT item_table.export_data_file('item_data.ex_sec', NULL, NULL, NULL, NULL, 'exp-sec', 'z.json.gz')$$,
	'42501', 'permission denied for table ex_sec', 'nor a data file written directly');
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

SELECT format('rm -rf %s', :'root') AS rm \gset
COPY sh FROM PROGRAM :'rm';
SELECT * FROM finish();
ROLLBACK;
