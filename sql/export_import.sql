-- ExportTableToPointInTime, DescribeExport, ListExports, ImportTable,
-- DescribeImport, ListImports: the validation messages and the response
-- shapes (behaviour: test/pgtap/export_import.sql; rights:
-- test/security/export_import.sql).  Times, ids and ARNs vary from run to
-- run, so the shapes are shown by their keys.  The bucket is a directory
-- under the data directory, made and removed by the test.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	det text;
BEGIN
	RETURN item_table.dynamodb(action, request)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, det = PG_EXCEPTION_DETAIL;
	RETURN st || ' ' || det;
END $$;
CREATE FUNCTION pg_temp.shape(j jsonb, path text DEFAULT '') RETURNS text LANGUAGE sql AS $$
	SELECT string_agg(CASE WHEN jsonb_typeof(v) = 'object' THEN pg_temp.shape(v, path || k || '.')
		ELSE path || k END, ' ' ORDER BY k)
	FROM jsonb_each(j) AS e(k, v)
$$;
-- an export once the background worker has ended it (at most 60 s)
CREATE FUNCTION pg_temp.wait_export(arn text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	d jsonb;
BEGIN
	FOR i IN 1..600 LOOP
		d := item_table.dynamodb('DescribeExport', jsonb_build_object('ExportArn', arn));
		EXIT WHEN d #>> '{ExportDescription,ExportStatus}' <> 'IN_PROGRESS';
		PERFORM pg_sleep(0.1);
	END LOOP;
	RETURN d;
END $$;
CREATE TEMP TABLE sh (line text);
SELECT format('rm -rf %1$s/it_export_regress && mkdir -p %1$s/it_export_regress', current_setting('data_directory')) AS mk \gset
COPY sh FROM PROGRAM :'mk';
SELECT create_bucket('exp-regress', current_setting('data_directory') || '/it_export_regress') IS NOT NULL AS bucket;

SELECT create_table('{"TableName": "ex_r", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
SELECT put_item('{"TableName": "ex_r", "Item": {"pk": {"S": "a"}, "v": {"N": "1"}}}');

-- ExportTableToPointInTime: members, enums, the table, recovery
SELECT pg_temp.try('ExportTableToPointInTime', '{}');
SELECT pg_temp.try('ExportTableToPointInTime', '{"TableArn": 5, "S3Bucket": "exp-regress"}');
SELECT pg_temp.try('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_r",
	"S3Bucket": "exp-regress", "ExportFormat": "CSV", "ExportType": "PARTIAL"}');
SELECT pg_temp.try('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_r",
	"S3Bucket": "exp-regress", "ExportFormat": "ION"}');
SELECT pg_temp.try('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/nope",
	"S3Bucket": "exp-regress"}');
SELECT pg_temp.try('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_r",
	"S3Bucket": "exp-regress"}');
SELECT dynamodb('UpdateContinuousBackups', '{"TableName": "ex_r",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}') IS NOT NULL AS pitr;
SELECT regexp_replace(pg_temp.try('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_r",
	"S3Bucket": "exp-regress", "ExportTime": 1000}'), '[0-9T:.-]+Z', '<time>', 'g');
SELECT pg_temp.try('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_r",
	"S3Bucket": "exp-regress", "ExportType": "INCREMENTAL_EXPORT"}');
SELECT pg_temp.try('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_r",
	"S3Bucket": "exp-regress", "ExportType": "INCREMENTAL_EXPORT",
	"IncrementalExportSpecification": {"ExportFromTime": 2000, "ExportToTime": 2060, "ExportViewType": "OLD_IMAGE"}}');
SELECT pg_temp.try('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_r",
	"S3Bucket": "exp-regress", "ExportType": "INCREMENTAL_EXPORT",
	"IncrementalExportSpecification": {"ExportFromTime": 2000, "ExportToTime": 2060}}');
SELECT pg_temp.try('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_r",
	"S3Bucket": "exp-regress", "ExportTime": 1000, "ExportType": "INCREMENTAL_EXPORT"}');
SELECT pg_temp.try('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_r",
	"S3Bucket": "no-such-bucket"}');

-- a full export: the description
SELECT dynamodb('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_r",
	"S3Bucket": "exp-regress", "S3Prefix": "p"}') AS e \gset
SELECT pg_temp.shape(:'e');
SELECT :'e'::jsonb #>> '{ExportDescription,ExportStatus}' AS status, :'e'::jsonb #>> '{ExportDescription,ItemCount}' AS items,
	:'e'::jsonb #>> '{ExportDescription,ExportFormat}' AS format, :'e'::jsonb #>> '{ExportDescription,ExportType}' AS type,
	:'e'::jsonb #>> '{ExportDescription,ExportArn}' ~ '^arn:aws:dynamodb:local:000000000000:table/ex_r/export/[0-9]{14}-[0-9a-f]{8}$' AS arn;
-- the background worker writes the files: the description once it is done
SELECT pg_temp.wait_export(:'e'::jsonb #>> '{ExportDescription,ExportArn}') AS e \gset
SELECT pg_temp.shape(:'e');
SELECT :'e'::jsonb #>> '{ExportDescription,ExportStatus}' AS status, :'e'::jsonb #>> '{ExportDescription,ItemCount}' AS items;
SELECT dynamodb('DescribeExport', jsonb_build_object('ExportArn', :'e'::jsonb #>> '{ExportDescription,ExportArn}')) = :'e'::jsonb AS same;
SELECT pg_temp.try('DescribeExport', '{}');
SELECT pg_temp.try('DescribeExport', '{"ExportArn": "arn:aws:dynamodb:local:000000000000:table/ex_r/export/x"}');
SELECT pg_temp.shape(dynamodb('ListExports', '{}') -> 'ExportSummaries' -> 0);
SELECT pg_temp.try('ListExports', '{"MaxResults": 0}');
SELECT pg_temp.try('ListExports', '{"MaxResults": 26}');

-- ImportTable: members, enums, formats
SELECT pg_temp.try('ImportTable', '{}');
SELECT pg_temp.try('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-regress"}, "InputFormat": "XML",
	"InputCompressionType": "BZIP2", "TableCreationParameters": {"TableName": "x"}}');
SELECT pg_temp.try('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-regress"}, "InputFormat": "ION",
	"TableCreationParameters": {"TableName": "ex_i"}}');
SELECT pg_temp.try('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-regress"}, "InputFormat": "DYNAMODB_JSON",
	"InputFormatOptions": {"Csv": {"Delimiter": ","}}, "TableCreationParameters": {"TableName": "ex_i"}}');
SELECT pg_temp.try('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-regress"}, "InputFormat": "CSV",
	"InputFormatOptions": {"Csv": {"Delimiter": "x"}}, "TableCreationParameters": {"TableName": "ex_i"}}');
SELECT pg_temp.try('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-regress"}, "InputFormat": "DYNAMODB_JSON",
	"TableCreationParameters": {"TableName": "ex_r"}}');

-- an import of the export: the description
SELECT dynamodb('ImportTable', jsonb_build_object('S3BucketSource', jsonb_build_object('S3Bucket', 'exp-regress',
	'S3KeyPrefix', 'p/AWSDynamoDB/'), 'InputFormat', 'DYNAMODB_JSON', 'InputCompressionType', 'GZIP',
	'TableCreationParameters', '{"TableName": "ex_i", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}'::jsonb)) AS i \gset
SELECT pg_temp.shape(:'i');
SELECT :'i'::jsonb #>> '{ImportTableDescription,ImportStatus}' AS status,
	:'i'::jsonb #>> '{ImportTableDescription,ImportedItemCount}' AS imported,
	:'i'::jsonb #>> '{ImportTableDescription,ErrorCount}' AS errors;
SELECT item FROM item_data.ex_i;
SELECT pg_temp.try('DescribeImport', '{"ImportArn": "arn:aws:dynamodb:local:000000000000:table/ex_i/import/x"}');
SELECT pg_temp.shape(dynamodb('ListImports', '{}') -> 'ImportSummaryList' -> 0);
SELECT pg_temp.try('ListImports', '{"PageSize": 30}');

SELECT delete_table('{"TableName": "ex_i"}') IS NOT NULL AS dropped;
SELECT delete_table('{"TableName": "ex_r"}') IS NOT NULL AS dropped;
DELETE FROM exports WHERE s3_bucket = 'exp-regress';
DELETE FROM imports WHERE call_request #>> '{S3BucketSource,S3Bucket}' = 'exp-regress';
SELECT drop_bucket('exp-regress');
SELECT format('rm -rf %1$s/it_export_regress', current_setting('data_directory')) AS rm \gset
COPY sh FROM PROGRAM :'rm';
