-- ExportTableToPointInTime and ImportTable: the call answers IN_PROGRESS
-- and the background worker writes the export (the test commits and
-- waits for it: pg_temp.wait_export); an export
-- writes DynamoDB's layout (manifest-summary.json, manifest-files.json
-- with the data file's item count and MD5, gzipped {"Item": ...} lines),
-- and importing it gives an equal table (every attribute type, sets,
-- nested maps, binary, U+0000 in strings, a ~350 KB item, GSI and LSI
-- rows); an export as of an earlier time is the table as it was then; an
-- incremental export has the changes of its window; files written by the
-- test itself in DynamoDB's format (gzip, zstd, plain) and CSV (header
-- line, HeaderList, another delimiter) import; bad lines are counted,
-- skipped and described in the error file.  The bucket is a directory
-- under the data directory, made by COPY TO PROGRAM and removed at the end,
-- with the tables, the bucket and the catalog rows the test made.
SELECT plan(57);
SET search_path = item_table, public;
\set bucket exp-test
\set dir it_export
\ir include/bucket.sql

-- the source: a GSI, an LSI, recovery on
SELECT ok(create_table('{"TableName": "ex_src", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
		{"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "l", "AttributeType": "B"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}],
	"LocalSecondaryIndexes": [{"IndexName": "by_l", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
		{"AttributeName": "l", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}]}') ? 'TableDescription',
	'a table with a GSI and an LSI');
SELECT throws_ok($$SELECT item_table.dynamodb('ExportTableToPointInTime',
	'{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_src", "S3Bucket": "exp-test"}')$$,
	'XD024', 'PointInTimeRecoveryUnavailableException: Point in time recovery is not enabled for table ''ex_src''',
	'no export without point-in-time recovery');
SELECT ok(dynamodb('UpdateContinuousBackups', '{"TableName": "ex_src",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}') IS NOT NULL, 'recovery on');

-- every type, U+0000 (through dynamodb_json), a large item
SELECT ok(dynamodb_json('PutItem', '{"TableName": "ex_src", "Item": {"pk": {"S": "a\u0000b"}, "sk": {"N": "1"},
	"g": {"S": "x"}, "l": {"B": "AAEC"}, "s": {"S": "nul \u0000 and \u0001"}, "n": {"N": "-1.5E+10"},
	"ss": {"SS": ["p", "q\u0000"]}, "ns": {"NS": ["1", "2.5"]}, "bs": {"BS": ["AA==", "AQ=="]},
	"t": {"BOOL": true}, "z": {"NULL": true},
	"m": {"M": {"inner": {"M": {"list": {"L": [{"S": "x"}, {"N": "3"}, {"M": {}}, {"L": []}]}}}}}}}') IS NOT NULL,
	'an item of every type');
SELECT put_item(jsonb_build_object('TableName', 'ex_src', 'Item', jsonb_build_object(
	'pk', jsonb_build_object('S', 'p' || (i % 7)), 'sk', jsonb_build_object('N', i::text),
	'g', jsonb_build_object('S', 'g' || (i % 3)), 'l', jsonb_build_object('B', encode(int4send(i), 'base64')),
	'v', jsonb_build_object('N', i::text))))
FROM generate_series(1, 2500) i;
SELECT ok(put_item(jsonb_build_object('TableName', 'ex_src', 'Item', jsonb_build_object(
	'pk', '{"S": "big"}'::jsonb, 'sk', '{"N": "0"}'::jsonb, 'g', '{"S": "gbig"}'::jsonb,
	'blob', jsonb_build_object('S', repeat('0123456789', 35000))))) IS NOT NULL, 'a 350 KB item');

-- the state now, and a full export of it
CREATE TEMP TABLE before AS SELECT key, item FROM item_data.ex_src;
CREATE TEMP TABLE before_g AS SELECT ikey, key, item FROM item_data."ex_src#by_g";
SELECT dynamodb('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_src",
	"S3Bucket": "exp-test", "S3Prefix": "full/run1", "ClientToken": "tok-1"}') AS e0 \gset
SELECT is(jsonb_build_array(:'e0'::jsonb #>> '{ExportDescription,ExportStatus}', :'e0'::jsonb #>> '{ExportDescription,ItemCount}',
		:'e0'::jsonb #> '{ExportDescription,ExportManifest}'),
	'["IN_PROGRESS", "0", null]', 'the call answers IN_PROGRESS: the worker exports');
-- writers go on meanwhile: the export is the table as of the call
SELECT update_item('{"TableName": "ex_src", "Key": {"pk": {"S": "p0"}, "sk": {"N": "7"}},
	"UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": "-7"}}}') IS NOT NULL AS updated;
SELECT pg_temp.wait_export(:'e0'::jsonb #>> '{ExportDescription,ExportArn}') AS e \gset
SELECT is(:'e'::jsonb #>> '{ExportDescription,ExportStatus}', 'COMPLETED', 'the export completed');
SELECT is((:'e'::jsonb #>> '{ExportDescription,ItemCount}')::int, 2502, 'its item count');
SELECT split_part(:'e'::jsonb #>> '{ExportDescription,ExportArn}', '/export/', 2) AS id \gset
SELECT is(:'e'::jsonb #>> '{ExportDescription,ExportManifest}', 'full/run1/AWSDynamoDB/' || :'id' || '/manifest-summary.json',
	'the manifest is where DynamoDB puts it');
SELECT is(dynamodb('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_src",
	"S3Bucket": "exp-test", "S3Prefix": "full/run1", "ClientToken": "tok-1"}'), :'e'::jsonb,
	'the same ClientToken: the same export');
SELECT throws_ok($$SELECT item_table.dynamodb('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_src",
	"S3Bucket": "exp-test", "S3Prefix": "other", "ClientToken": "tok-1"}')$$, 'XD030', NULL,
	'the same ClientToken with other parameters: ExportConflictException');
SELECT (SELECT l FROM pg_temp.lines('full/run1/AWSDynamoDB/' || :'id' || '/manifest-summary.json') l)::jsonb AS summary \gset
SELECT is(jsonb_build_array(:'summary'::jsonb ->> 'itemCount', :'summary'::jsonb ->> 'exportType',
		:'summary'::jsonb ->> 'outputFormat', :'summary'::jsonb ->> 'manifestFilesS3Key'),
	jsonb_build_array('2502', 'FULL_EXPORT', 'DYNAMODB_JSON', 'full/run1/AWSDynamoDB/' || :'id' || '/manifest-files.json'),
	'manifest-summary.json');
SELECT (SELECT l FROM pg_temp.lines('full/run1/AWSDynamoDB/' || :'id' || '/manifest-files.json') l)::jsonb AS files \gset
SELECT is((:'files'::jsonb ->> 'itemCount')::int, 2502, 'manifest-files.json: the data file''s item count');
TRUNCATE sh;
SELECT format('md5sum %s/b/%s', :'root', :'files'::jsonb ->> 'dataFileS3Key') AS md5cmd \gset
COPY sh FROM PROGRAM :'md5cmd';
SELECT is(split_part((SELECT line FROM sh), ' ', 1), :'files'::jsonb ->> 'etag', 'the etag is the data file''s MD5');
SELECT is(encode(decode(:'files'::jsonb ->> 'etag', 'hex'), 'base64'), :'files'::jsonb ->> 'md5Checksum',
	'md5Checksum is the same MD5 in base64');
SELECT is((SELECT count(*) FROM pg_temp.lines(:'files'::jsonb ->> 'dataFileS3Key', true) l
		WHERE l LIKE '{"Item": {%}}'), 2502::bigint, 'one {"Item": ...} line per item');
SELECT ok((SELECT bool_or(strpos(l, '"a\u0000b"') > 0) FROM pg_temp.lines(:'files'::jsonb ->> 'dataFileS3Key', true) l),
	'U+0000 is written as \u0000');

-- several data files: at most item_table.export_file_items items each
-- (taken when the export is asked for), each listed in manifest-files.json
SET item_table.export_file_items = 1000;
SELECT dynamodb('ExportTableToPointInTime', '{"TableArn": "ex_src", "S3Bucket": "exp-test", "S3Prefix": "multi"}') AS m0 \gset
RESET item_table.export_file_items;
CREATE TEMP TABLE multi_before AS SELECT key, item FROM item_data.ex_src;
SELECT pg_temp.wait_export(:'m0'::jsonb #>> '{ExportDescription,ExportArn}') AS m \gset
SELECT split_part(:'m'::jsonb #>> '{ExportDescription,ExportArn}', '/export/', 2) AS mid \gset
CREATE TEMP TABLE mfiles AS SELECT l::jsonb AS f FROM pg_temp.lines('multi/AWSDynamoDB/' || :'mid' || '/manifest-files.json') l;
SELECT is((SELECT array_agg((f ->> 'itemCount')::int ORDER BY (f ->> 'itemCount')::int DESC) FROM mfiles),
	'{1000,1000,502}', 'several data files of export_file_items items, each in manifest-files.json');
SELECT is((SELECT array_agg((SELECT count(*) FROM pg_temp.lines(f ->> 'dataFileS3Key', true))::int
		ORDER BY (f ->> 'itemCount')::int DESC) FROM mfiles), '{1000,1000,502}', 'each file has its itemCount lines');
SELECT dynamodb('ImportTable', jsonb_build_object(
	'S3BucketSource', jsonb_build_object('S3Bucket', 'exp-test', 'S3KeyPrefix', 'multi/AWSDynamoDB/' || :'mid' || '/data/'),
	'InputFormat', 'DYNAMODB_JSON', 'InputCompressionType', 'GZIP',
	'TableCreationParameters', '{"TableName": "ex_multi", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
		"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}'::jsonb)) AS mi \gset
SELECT is(jsonb_build_array(:'m'::jsonb #>> '{ExportDescription,ItemCount}',
		:'mi'::jsonb #>> '{ImportTableDescription,ImportedItemCount}'), '["2502", "2502"]',
	'the summed ItemCount; every file imported');
SELECT is((SELECT array_agg(item ORDER BY key) FROM item_data.ex_multi),
	(SELECT array_agg(item ORDER BY key) FROM multi_before), 'export in several files -> import: an equal table');

-- writers change the table after the export; the import is of the export
SELECT update_item('{"TableName": "ex_src", "Key": {"pk": {"S": "p1"}, "sk": {"N": "1"}},
	"UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": "-1"}}}');
SELECT delete_item('{"TableName": "ex_src", "Key": {"pk": {"S": "p2"}, "sk": {"N": "2"}}}');
SELECT dynamodb('ImportTable', jsonb_build_object(
	'S3BucketSource', jsonb_build_object('S3Bucket', 'exp-test', 'S3KeyPrefix', 'full/run1/AWSDynamoDB/' || :'id' || '/data/'),
	'InputFormat', 'DYNAMODB_JSON', 'InputCompressionType', 'GZIP',
	'TableCreationParameters', (SELECT jsonb_build_object('TableName', 'ex_dst', 'BillingMode', 'PAY_PER_REQUEST',
		'AttributeDefinitions', d -> 'AttributeDefinitions', 'KeySchema', d -> 'KeySchema',
		'GlobalSecondaryIndexes', '[{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
			"Projection": {"ProjectionType": "ALL"}}]'::jsonb,
		'LocalSecondaryIndexes', '[{"IndexName": "by_l", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
			{"AttributeName": "l", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}]'::jsonb)
		FROM (SELECT describe_table('{"TableName": "ex_src"}') -> 'Table' AS d) x))) AS imp \gset
SELECT is(jsonb_build_array(:'imp'::jsonb #>> '{ImportTableDescription,ImportStatus}',
		:'imp'::jsonb #>> '{ImportTableDescription,ImportedItemCount}',
		:'imp'::jsonb #>> '{ImportTableDescription,ErrorCount}'),
	'["COMPLETED", "2502", "0"]', 'the import of the export completed, every item');
SELECT is((SELECT array_agg(item ORDER BY key) FROM item_data.ex_dst),
	(SELECT array_agg(item ORDER BY key) FROM before), 'export -> import: an equal table');
SELECT is((SELECT array_agg(row(ikey, key, item)::text ORDER BY ikey, key) FROM item_data."ex_dst#by_g"),
	(SELECT array_agg(row(ikey, key, item)::text ORDER BY ikey, key) FROM before_g), 'its GSI rows');
SELECT is((SELECT count(*) FROM item_data."ex_dst#by_l"), 2501::bigint, 'its LSI rows (the large item has no LSI key)');
SELECT is(dynamodb('DescribeImport', jsonb_build_object('ImportArn', :'imp'::jsonb #>> '{ImportTableDescription,ImportArn}')),
	:'imp'::jsonb, 'DescribeImport');

-- an export as of an earlier time: the table before the two changes
SELECT dynamodb('ExportTableToPointInTime', jsonb_build_object('TableArn', 'arn:aws:dynamodb:local:000000000000:table/ex_src',
	'S3Bucket', 'exp-test', 'S3Prefix', 'asof', 'ExportTime',
	extract(epoch FROM (SELECT max(changed_at) FROM pitr_history WHERE relid = 'item_data.ex_src'::regclass
		AND key <> item_key('{"S": "p1"}', '{"N": "1"}') AND key <> item_key('{"S": "p2"}', '{"N": "2"}')
		AND key <> item_key('{"S": "p0"}', '{"N": "7"}'))))) AS e2 \gset
SELECT is(pg_temp.wait_export(:'e2'::jsonb #>> '{ExportDescription,ExportArn}') #>> '{ExportDescription,ExportStatus}',
	'COMPLETED', 'an export as of an earlier time completed');
SELECT ok(dynamodb('ImportTable', jsonb_build_object(
	'S3BucketSource', jsonb_build_object('S3Bucket', 'exp-test', 'S3KeyPrefix', 'asof/'),
	'InputFormat', 'DYNAMODB_JSON', 'InputCompressionType', 'GZIP',
	'TableCreationParameters', '{"TableName": "ex_asof", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
		"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}'::jsonb))
	#>> '{ImportTableDescription,ImportStatus}' = 'COMPLETED', 'an export''s whole folder imports (manifests skipped)');
SELECT is((SELECT array_agg(item ORDER BY key) FROM item_data.ex_asof),
	(SELECT array_agg(item ORDER BY key) FROM before), 'an export as of a time: the table as it was then');

-- an incremental export: the history is moved back so that the window
-- is DynamoDB's 15 minutes at least
UPDATE continuous_backups SET enabled_at = enabled_at - interval '3 hours' WHERE table_name = 'ex_src';
UPDATE pitr_history SET changed_at = changed_at - interval '2 hours' WHERE relid = 'item_data.ex_src'::regclass;
SELECT update_item('{"TableName": "ex_src", "Key": {"pk": {"S": "p3"}, "sk": {"N": "3"}},
	"UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": "33"}}}');
SELECT update_item('{"TableName": "ex_src", "Key": {"pk": {"S": "p4"}, "sk": {"N": "4"}},
	"UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": "44"}}}');
SELECT delete_item('{"TableName": "ex_src", "Key": {"pk": {"S": "p5"}, "sk": {"N": "5"}}}');
SELECT put_item('{"TableName": "ex_src", "Item": {"pk": {"S": "new"}, "sk": {"N": "1"}}}');
UPDATE pitr_history SET changed_at = changed_at - interval '1 hour'
	WHERE relid = 'item_data.ex_src'::regclass AND changed_at > clock_timestamp() - interval '10 minutes';
-- after the window: p4 changes again
SELECT update_item('{"TableName": "ex_src", "Key": {"pk": {"S": "p4"}, "sk": {"N": "4"}},
	"UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": "444"}}}');
SELECT dynamodb('ExportTableToPointInTime', jsonb_build_object('TableArn', 'arn:aws:dynamodb:local:000000000000:table/ex_src',
	'S3Bucket', 'exp-test', 'S3Prefix', 'inc', 'ExportType', 'INCREMENTAL_EXPORT',
	'IncrementalExportSpecification', jsonb_build_object(
		'ExportFromTime', extract(epoch FROM clock_timestamp() - interval '90 minutes'),
		'ExportToTime', extract(epoch FROM clock_timestamp() - interval '30 minutes')))) AS inc0 \gset
SELECT pg_temp.wait_export(:'inc0'::jsonb #>> '{ExportDescription,ExportArn}') AS inc \gset
SELECT is(:'inc'::jsonb #>> '{ExportDescription,ItemCount}', '4', 'the incremental export has the window''s four changes');
SELECT (SELECT l FROM pg_temp.lines('inc/AWSDynamoDB/' || split_part(:'inc'::jsonb #>> '{ExportDescription,ExportArn}', '/export/', 2)
	|| '/manifest-files.json') l)::jsonb ->> 'dataFileS3Key' AS incfile \gset
CREATE TEMP TABLE inc AS SELECT l::jsonb AS r FROM pg_temp.lines(:'incfile', true) l;
SELECT is((SELECT jsonb_agg(jsonb_build_array(r #>> '{Keys,pk,S}', r #>> '{OldImage,v,N}', r #>> '{NewImage,v,N}',
		r ? 'OldImage', r ? 'NewImage') ORDER BY r #>> '{Keys,pk,S}') FROM inc),
	'[["new", null, null, false, true], ["p3", "3", "33", true, true], ["p4", "4", "44", true, true], ["p5", "5", null, true, false]]',
	'Keys, OldImage as at the start, NewImage as at the end (a later change not in it), a removal without NewImage');
SELECT ok((SELECT bool_and(r #>> '{Metadata,WriteTimestampMicros,N}' ~ '^[0-9]{16}$') FROM inc), 'WriteTimestampMicros');
SELECT is(dynamodb('ListExports', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_src", "MaxResults": 2}')
	-> 'ExportSummaries' -> 0 ->> 'ExportArn', :'e'::jsonb #>> '{ExportDescription,ExportArn}', 'ListExports, oldest first');

-- hand-written files in DynamoDB's format: gzip, zstd, plain, a bad line
SELECT pg_temp.write('hand/data/one.json.gz', ARRAY['{"Item":{"id":{"S":"h1"},"v":{"N":"1"},"s":{"SS":["a","b"]}}}',
	'{"Item":{"id":{"S":"h2"},"b":{"B":"AP8="},"nul":{"S":"x\u0000y"}}}'], 'gzip');
SELECT pg_temp.write('hand/data/two.json.gz', ARRAY['{"Item":{"id":{"S":"h3"}}}', 'not json',
	'{"Item":{"v":{"N":"1"}}}', NULL, '{"Item":{"id":{"N":"7"}}}', '{"Item":{"id":{"S":"h4"},"m":{"M":{"k":{"L":[{"NULL":true}]}}}}}'], 'gzip');
SELECT dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-test", "S3KeyPrefix": "hand/data"},
	"InputFormat": "DYNAMODB_JSON", "InputCompressionType": "GZIP",
	"TableCreationParameters": {"TableName": "ex_hand", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}') AS hand \gset
SELECT is(jsonb_build_array(:'hand'::jsonb #>> '{ImportTableDescription,ImportedItemCount}',
		:'hand'::jsonb #>> '{ImportTableDescription,ErrorCount}', :'hand'::jsonb #>> '{ImportTableDescription,ProcessedItemCount}'),
	'["4", "3", "7"]', 'a hand-written export: four items, three bad lines counted (a blank line is none)');
SELECT is((SELECT decode_item(item)::text FROM item_data.ex_hand WHERE key = item_key('{"S": "h2"}'::jsonb)),
	'{"b": {"B": "AP8="}, "id": {"S": "h2"}, "nul": {"S": "x\u0000y"}}', 'its items, U+0000 decoded');
SELECT is((SELECT array_agg((l::jsonb ->> 'line') || ':' || (l::jsonb ->> 'file') ORDER BY l) FROM pg_temp.lines(
		:'hand'::jsonb #>> '{ImportTableDescription,ErrorLogS3Location,S3Key}') l),
	'{2:hand/data/two.json.gz,3:hand/data/two.json.gz,5:hand/data/two.json.gz}', 'the bad lines are in the error file');
SELECT pg_temp.write('zst/a.json.zst', ARRAY['{"Item":{"id":{"S":"z1"}}}', '{"Item":{"id":{"S":"z2"}}}'], 'zstd -q -c');
SELECT pg_temp.write('plain/a.json', ARRAY['{"Item":{"id":{"S":"p1"}}}']);
SELECT is(dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-test", "S3KeyPrefix": "zst/"},
	"InputFormat": "DYNAMODB_JSON", "InputCompressionType": "ZSTD",
	"TableCreationParameters": {"TableName": "ex_zst", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}') #>> '{ImportTableDescription,ImportedItemCount}', '2',
	'a zstd file imports');
SELECT is(dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-test", "S3KeyPrefix": "plain/a"},
	"InputFormat": "DYNAMODB_JSON",
	"TableCreationParameters": {"TableName": "ex_plain", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}') #>> '{ImportTableDescription,ImportedItemCount}', '1',
	'an uncompressed file imports (a key prefix that is part of a file name)');

-- CSV: a header line; HeaderList and another delimiter
SELECT pg_temp.write('csv1/a.csv', ARRAY['id,n,note', '1,x,"a, quoted ""note"""', '2,y,', 'bad,z,w', '3,only']);
SELECT dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-test", "S3KeyPrefix": "csv1/"},
	"InputFormat": "CSV",
	"TableCreationParameters": {"TableName": "ex_csv1", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
		"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}') AS csv1 \gset
SELECT is(jsonb_build_array(:'csv1'::jsonb #>> '{ImportTableDescription,ImportedItemCount}',
		:'csv1'::jsonb #>> '{ImportTableDescription,ErrorCount}'), '["2", "2"]',
	'CSV with a header line: a non-number key and a short line are errors');
SELECT is((SELECT jsonb_agg(item ORDER BY key) FROM item_data.ex_csv1),
	'[{"id": {"N": "1"}, "n": {"S": "x"}, "note": {"S": "a, quoted \"note\""}}, {"id": {"N": "2"}, "n": {"S": "y"}}]',
	'key columns typed by AttributeDefinitions, the others strings, an empty value no attribute');
SELECT pg_temp.write('csv2/a.csv.gz', ARRAY['k1|5|v', 'k2|6|w'], 'gzip');
SELECT is(dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-test", "S3KeyPrefix": "csv2"},
	"InputFormat": "CSV", "InputCompressionType": "GZIP",
	"InputFormatOptions": {"Csv": {"Delimiter": "|", "HeaderList": ["pk", "sk", "val"]}},
	"TableCreationParameters": {"TableName": "ex_csv2", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
		"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}}')
	#>> '{ImportTableDescription,ImportedItemCount}', '2', 'CSV with HeaderList and delimiter |');
SELECT is((SELECT item FROM item_data.ex_csv2 WHERE key = item_key('{"S": "k2"}', '{"N": "6"}')),
	'{"pk": {"S": "k2"}, "sk": {"N": "6"}, "val": {"S": "w"}}', 'its items');
-- a file that cannot be read fails the import: FAILED, its message, no table
SELECT pg_temp.write('broken/a.json.gz', ARRAY['{"Item":{"id":{"S":"b1"}}}'], 'gzip | head -c 20');
SELECT dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-test", "S3KeyPrefix": "broken/"},
	"InputFormat": "DYNAMODB_JSON", "InputCompressionType": "GZIP",
	"TableCreationParameters": {"TableName": "ex_broken", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}') AS broken \gset
SELECT is(:'broken'::jsonb #>> '{ImportTableDescription,ImportStatus}', 'FAILED', 'a truncated gzip file: the import FAILED');
SELECT matches(:'broken'::jsonb #>> '{ImportTableDescription,FailureMessage}', 'gzip', 'with the reason');
SELECT ok(NOT EXISTS (SELECT FROM tables WHERE table_name = 'ex_broken') AND to_regclass('item_data.ex_broken') IS NULL,
	'and no table');
-- so does a zstd file cut short (its frame never ends)
SELECT pg_temp.write('broken_zst/a.json.zst', ARRAY['{"Item":{"id":{"S":"c1"}}}', '{"Item":{"id":{"S":"c2"}}}'], 'zstd -q -c | head -c 30');
SELECT dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "exp-test", "S3KeyPrefix": "broken_zst/"},
	"InputFormat": "DYNAMODB_JSON", "InputCompressionType": "ZSTD",
	"TableCreationParameters": {"TableName": "ex_broken_zst", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}') AS broken \gset
SELECT is(:'broken'::jsonb #>> '{ImportTableDescription,ImportStatus}', 'FAILED', 'a truncated zstd file: the import FAILED');
SELECT matches(:'broken'::jsonb #>> '{ImportTableDescription,FailureMessage}', 'zstd', 'with the reason');
SELECT ok(NOT EXISTS (SELECT FROM tables WHERE table_name = 'ex_broken_zst') AND to_regclass('item_data.ex_broken_zst') IS NULL,
	'and no table');
-- a bucket path that cannot be written fails the export
SELECT pg_temp.write('blocked/AWSDynamoDB', ARRAY['a file where a directory goes']);
SELECT dynamodb('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ex_src",
	"S3Bucket": "exp-test", "S3Prefix": "blocked"}') AS blocked \gset
SELECT pg_temp.wait_export(:'blocked'::jsonb #>> '{ExportDescription,ExportArn}') AS blocked \gset
SELECT is(jsonb_build_array(:'blocked'::jsonb #>> '{ExportDescription,ExportStatus}',
		:'blocked'::jsonb #>> '{ExportDescription,FailureCode}'), '["FAILED", "UNKNOWN"]',
	'an export whose files cannot be written: FAILED');
SELECT matches(:'blocked'::jsonb #>> '{ExportDescription,FailureMessage}', 'AWSDynamoDB', 'with the reason');
-- the trimming of the history keeps what an export in progress reads (the
-- export is rolled back: the worker never sees it)
BEGIN;
SELECT dynamodb('ExportTableToPointInTime', '{"TableArn": "ex_src", "S3Bucket": "exp-test", "S3Prefix": "trim"}')
	IS NOT NULL AS started;
SELECT update_item('{"TableName": "ex_src", "Key": {"pk": {"S": "p6"}, "sk": {"N": "6"}},
	"UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": "-6"}}}') IS NOT NULL AS updated;
SELECT cmp_ok(trim_pitr_history(clock_timestamp() + interval '40 days', 1000000000), '>', 0::bigint,
	'trimming as of 40 days on: the history past the recovery period goes');
SELECT is((SELECT count(*) FROM pitr_history WHERE relid = 'item_data.ex_src'::regclass), 1::bigint,
	'but not the change made after the time of an export in progress');
ROLLBACK;
-- point-in-time recovery switched off before the worker ran the export:
-- it FAILED (the switch commits with the call, so the worker sees both)
BEGIN;
SELECT dynamodb('ExportTableToPointInTime', '{"TableArn": "ex_src", "S3Bucket": "exp-test", "S3Prefix": "off"}') AS pitr_off \gset
SELECT dynamodb('UpdateContinuousBackups', '{"TableName": "ex_src",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": false}}') IS NOT NULL AS switched_off;
COMMIT;
SELECT pg_temp.wait_export(:'pitr_off'::jsonb #>> '{ExportDescription,ExportArn}') AS pitr_off \gset
SELECT is(jsonb_build_array(:'pitr_off'::jsonb #>> '{ExportDescription,ExportStatus}',
		:'pitr_off'::jsonb #>> '{ExportDescription,FailureCode}'), '["FAILED", "PointInTimeRecoveryUnavailableException"]',
	'point-in-time recovery switched off while the export runs: FAILED');
SELECT is(:'pitr_off'::jsonb #>> '{ExportDescription,FailureMessage}',
	'Point in time recovery was disabled for table ''ex_src'' while it was being exported', 'with the reason');
SELECT is(jsonb_array_length(dynamodb('ListImports', '{}') -> 'ImportSummaryList'), 10, 'ListImports');
SELECT is(dynamodb('ListImports', '{"PageSize": 3}') -> 'NextToken' IS NOT NULL, true, 'ListImports pages');

SELECT * FROM finish();

-- what the test made
SELECT count(delete_table(jsonb_build_object('TableName', t))) AS dropped
FROM unnest('{ex_src,ex_dst,ex_asof,ex_hand,ex_zst,ex_plain,ex_csv1,ex_csv2,ex_multi}'::text[]) t;
DELETE FROM exports WHERE s3_bucket = 'exp-test';
DELETE FROM imports WHERE call_request #>> '{S3BucketSource,S3Bucket}' = 'exp-test';
SELECT drop_bucket('exp-test');
SELECT format('rm -rf %s', :'root') AS rm \gset
COPY sh FROM PROGRAM :'rm';
