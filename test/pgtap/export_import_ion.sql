-- The ION format of ExportTableToPointInTime and ImportTable: Ion text
-- read (ion_to_item: every DynamoDB type, sets as $dynamodb_SS/NS/BS
-- annotations, numbers exact and checked by DynamoDB's rules, escapes,
-- long strings, comments, typed nulls) and refused with a message; a
-- hand-written ION export (gzip, a value spanning lines, two values on a
-- line, version markers, comments) imports, its bad values counted and
-- described; an ION export (data/*.ion.gz, outputFormat ION) imports back
-- into an equal table (every type, U+0000, a ~350 KB item); an incremental
-- ION export has Metadata, Keys, OldImage and NewImage.  The exports are
-- written by the background worker: the test commits and waits for them
-- (pg_temp.wait_export).  The bucket is a directory under the data
-- directory, made by COPY TO PROGRAM and removed at the end, with the
-- tables and the catalog rows the test made.
SELECT plan(41);
SET search_path = item_table, public;
\set bucket ion-test
\set dir it_export_ion
\ir include/bucket.sql
CREATE FUNCTION pg_temp.ion(v text) RETURNS jsonb LANGUAGE sql AS $$ SELECT item_table.ion_to_item(v)::jsonb $$;
CREATE FUNCTION pg_temp.simple_table(name text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('TableName', name, 'BillingMode', 'PAY_PER_REQUEST',
		'AttributeDefinitions', '[{"AttributeName": "id", "AttributeType": "S"}]'::jsonb,
		'KeySchema', '[{"AttributeName": "id", "KeyType": "HASH"}]'::jsonb) $$;

-- the reader
SELECT is(pg_temp.ion($i$$ion_1_0 {Item:{Authors:$dynamodb_SS::["Author1","Author2"],Id:103.,InPublication:false,Price:2d3,Title:"Book"}}$i$),
	'{"Item": {"Authors": {"SS": ["Author1", "Author2"]}, "Id": {"N": "103"}, "InPublication": {"BOOL": false},
		"Price": {"N": "2000"}, "Title": {"S": "Book"}}}', 'a line of DynamoDB''s ION export');
SELECT is(pg_temp.ion($i$ {Item:{a:-0., b:1_000, c:0x1F, d:-0b101, e:1.5e3, f:12.34d-1, g:-12.5D+2, h:0.000_1}}$i$),
	'{"Item": {"a": {"N": "0"}, "b": {"N": "1000"}, "c": {"N": "31"}, "d": {"N": "-5"}, "e": {"N": "1500"},
		"f": {"N": "1.234"}, "g": {"N": "-1250"}, "h": {"N": "0.0001"}}}',
	'ints (underscores, hex, binary), decimals, floats and negative zero as DynamoDB numbers');
SELECT is(pg_temp.ion('{Item:{n:12345678901234567890123456789012345678d-2,t:1d-130,u:9.9d125}}'),
	('{"Item": {"n": {"N": "123456789012345678901234567890123456.78"}, "t": {"N": "0.' || repeat('0', 129)
		|| '1"}, "u": {"N": "99' || repeat('0', 124) || '"}}}')::jsonb, '38 digits and the limits of the range');
SELECT is(pg_temp.ion($i${Item:{a:null, b:null.string, c:null.struct, d:true, e:{{ aGVs bG8= }}, f:[1, "x", {k:[]}],
	g:{h:{i:null.null}}, 'quoted name':'''long ''' /* c */ '''string''', "string name":"s"}} // end$i$),
	'{"Item": {"a": {"NULL": true}, "b": {"NULL": true}, "c": {"NULL": true}, "d": {"BOOL": true}, "e": {"B": "aGVsbG8="},
		"f": {"L": [{"N": "1"}, {"S": "x"}, {"M": {"k": {"L": []}}}]}, "g": {"M": {"h": {"M": {"i": {"NULL": true}}}}},
		"quoted name": {"S": "long string"}, "string name": {"S": "s"}}}',
	'nulls and typed nulls, bools, blobs, lists, structs, field names quoted and as strings, long strings concatenated');
SELECT is(ion_to_item($i${Item:{s:"\x41\u00e9\U0001F600\uD83D\uDE00 \0\t\"\\\/\'", l:'''a\
b'''}}$i$)::text,
	'{"Item":{"s":{"S":"Aé😀😀 \u0000\u0009\"\\/''"},"l":{"S":"ab"}}}', 'escapes: \x \u \U, surrogate pairs, \0 as \u0000, a continued line');
SELECT is(pg_temp.ion('{Item:{ns:$dynamodb_NS::[1, 2.5, 3d2], bs:$dynamodb_BS::[{{AA==}}, {{AQ==}}], ss:$dynamodb_SS::[''''''x'''''']}}'),
	'{"Item": {"bs": {"BS": ["AA==", "AQ=="]}, "ns": {"NS": ["1", "2.5", "300"]}, "ss": {"SS": ["x"]}}}', 'the three sets');
SELECT is(pg_temp.ion('{Metadata:{WriteTimestampMicros:1700000000000000.},Keys:{id:"a"},NewImage:{id:"a"}}'),
	'{"Keys": {"id": {"S": "a"}}, "Metadata": {"WriteTimestampMicros": {"N": "1700000000000000"}}, "NewImage": {"id": {"S": "a"}}}',
	'an incremental export''s line');
SELECT throws_ok($$SELECT item_table.ion_to_item('{Item:{a:nan}}')$$, '22P04', 'Ion''s nan is not a DynamoDB number', 'nan');
SELECT throws_ok($$SELECT item_table.ion_to_item('{Item:{a:-inf}}')$$, '22P04', 'Ion''s +inf and -inf are not DynamoDB numbers', '-inf');
SELECT throws_ok($$SELECT item_table.ion_to_item('{Item:{a:123456789012345678901234567890123456789}}')$$, '22P04',
	'Attempting to store more than 38 significant digits in a Number', '39 digits');
SELECT throws_ok($$SELECT item_table.ion_to_item('{Item:{a:1d126}}')$$, '22P04',
	'Number overflow. Attempting to store a number with magnitude larger than supported range', 'out of range');
SELECT throws_ok($$SELECT item_table.ion_to_item('{Item:{a:x::"s"}}')$$, '22P04', 'the annotation ''x'' is not a DynamoDB type',
	'an annotation other than the sets');
SELECT throws_ok($$SELECT item_table.ion_to_item('{Item:{a:2020-01-01T}}')$$, '22P04', 'an Ion timestamp is not a DynamoDB value', 'a timestamp');
SELECT throws_ok($$SELECT item_table.ion_to_item('{Item:{a:sym}}')$$, '22P04', 'an Ion symbol is not a DynamoDB value', 'a symbol');
SELECT throws_ok($$SELECT item_table.ion_to_item('{Item:{a:(1 2)}}')$$, '22P04', 'an Ion S-expression is not a DynamoDB value', 'an S-expression');
SELECT throws_ok($$SELECT item_table.ion_to_item('{Item:{a:"x}}')$$, '22P04', 'invalid Ion value: a string is not closed (at character 14)',
	'a string not closed');
SELECT throws_ok($$SELECT item_table.ion_to_item('{Item:{$10:1}}')$$, '22P04',
	'invalid Ion value: a symbol ID ($n) with no symbol table (at character 8)', 'a symbol ID');
SELECT throws_ok($$SELECT item_table.ion_to_item('[{Item:{}}]')$$, '22P04', 'the Ion value is not a struct such as {Item:{...}}', 'not a struct');

-- the writer, and back
SELECT is(item_to_ion(encode_item('{"Item": {"s": {"S": "x\u0000y\"\n"}, "n": {"N": "103"}, "d": {"N": "-1.5"},
		"e": {"N": "0.0000000001"}, "b": {"B": "AAE="}, "t": {"BOOL": true}, "z": {"NULL": true},
		"l": {"L": [{"S": "q"}, {"M": {"true": {"N": "1"}, "a b": {"S": "it''s"}}}]},
		"ss": {"SS": ["a"]}, "ns": {"NS": ["1", "2.5"]}, "bs": {"BS": ["AA=="]}}}'::json)),
	$i$$ion_1_0 {Item:{b:{{AAE=}},d:-1.5,e:1d-10,l:["q",{'a b':"it's",'true':1.}],n:103.,s:"x\x00y\"\n",t:true,z:null,bs:$dynamodb_BS::[{{AA==}}],ns:$dynamodb_NS::[1.,2.5],ss:$dynamodb_SS::["a"]}}$i$,
	'an item written as DynamoDB''s ION line (U+0000 as \x00, 103 as 103., 1E-10 as 1d-10)');

-- a hand-written ION export: gzip, markers, comments, a value over lines,
-- two values on a line, bad values between good ones
SELECT pg_temp.write('hand/data/one.ion.gz', ARRAY[
	'$ion_1_0',
	'// a comment line',
	'$ion_1_0 {Item:{id:"h1",n:-12.5d2,big:12345678901234567890123456789012345678.,tiny:1.5d-100,t:true,z:null,zs:null.string,b:{{AAEC}},l:[1,"two",[null],{x:1.}],m:{inner:{deep:"d"}}}}',
	'{Item:{id:"h2", ss:$dynamodb_SS::["a","b"], ns:$dynamodb_NS::[1., 2d1, -3.5], bs:$dynamodb_BS::[{{AQ==}}, {{Ag==}}]}} {Item:{id:"h3"}}',
	'{ /* a value over lines */ Item: {',
	'   id: "h4",',
	$i$   'quoted name': '''long ''' // a comment$i$,
	$i$      '''string''',$i$,
	$i$   "esc": "tab\there \x41\u00e9\U0001F600 nul\0end"$i$,
	'}}',
	'{Item:{id:"bad1",v:nan}}',
	'{Item:{id:"bad2",v:foo::1}}',
	'[1, 2]',
	'{Item:{v:1.}}',
	'{Item:{id:5.}}',
	'{Item:{id:"bad6",v:1234567890123456789012345678901234567890}}',
	NULL,
	'{Item:{id:"h5"}}'], 'gzip');
SELECT dynamodb('ImportTable', jsonb_build_object('S3BucketSource', '{"S3Bucket": "ion-test", "S3KeyPrefix": "hand/"}'::jsonb,
	'InputFormat', 'ION', 'InputCompressionType', 'GZIP', 'TableCreationParameters', pg_temp.simple_table('ion_hand'))) AS hand \gset
SELECT is(jsonb_build_array(:'hand'::jsonb #>> '{ImportTableDescription,ImportStatus}',
		:'hand'::jsonb #>> '{ImportTableDescription,ImportedItemCount}', :'hand'::jsonb #>> '{ImportTableDescription,ErrorCount}',
		:'hand'::jsonb #>> '{ImportTableDescription,InputFormat}'),
	'["COMPLETED", "5", "6", "ION"]', 'a hand-written ION export: five items, six bad values counted');
SELECT is((SELECT item FROM item_data.ion_hand WHERE key = item_key('{"S": "h1"}'::jsonb)),
	jsonb_build_object('id', '{"S": "h1"}'::jsonb, 'n', '{"N": "-1250"}'::jsonb,
		'big', '{"N": "12345678901234567890123456789012345678"}'::jsonb,
		'tiny', jsonb_build_object('N', (1.5e-100)::numeric::text), 't', '{"BOOL": true}'::jsonb,
		'z', '{"NULL": true}'::jsonb, 'zs', '{"NULL": true}'::jsonb, 'b', '{"B": "AAEC"}'::jsonb,
		'l', '{"L": [{"N": "1"}, {"S": "two"}, {"L": [{"NULL": true}]}, {"M": {"x": {"N": "1"}}}]}'::jsonb,
		'm', '{"M": {"inner": {"M": {"deep": {"S": "d"}}}}}'::jsonb), 'every type');
SELECT is((SELECT item FROM item_data.ion_hand WHERE key = item_key('{"S": "h2"}'::jsonb)),
	'{"id": {"S": "h2"}, "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["-3.5", "1", "20"]}, "bs": {"BS": ["AQ==", "Ag=="]}}', 'sets');
SELECT is((SELECT decode_item(item)::text FROM item_data.ion_hand WHERE key = item_key('{"S": "h4"}'::jsonb)),
	'{"id": {"S": "h4"}, "esc": {"S": "tab\there Aé😀 nul\u0000end"}, "quoted name": {"S": "long string"}}',
	'a value over lines: comments, long strings, escapes, U+0000');
SELECT is((SELECT array_agg(item #>> '{id,S}' ORDER BY key) FROM item_data.ion_hand),
	'{h1,h2,h3,h4,h5}', 'two values on a line, and the value after the bad ones');
SELECT is((SELECT array_agg((l::jsonb ->> 'line') || ':' || (l::jsonb ->> 'message') ORDER BY (l::jsonb ->> 'line')::int) FROM pg_temp.lines(
		:'hand'::jsonb #>> '{ImportTableDescription,ErrorLogS3Location,S3Key}') l),
	ARRAY['11:Ion''s nan is not a DynamoDB number', '12:the annotation ''foo'' is not a DynamoDB type',
		'13:the Ion value is not a struct such as {Item:{...}}',
		'14:ValidationException: One or more parameter values were invalid: Missing the key id in the item',
		'15:ValidationException: One or more parameter values were invalid: Type mismatch for key id expected: S actual: N',
		'16:Attempting to store more than 38 significant digits in a Number'],
	'the bad values in the error file, by the line they begin on');
SELECT pg_temp.write('zst/a.ion.zst', ARRAY['{Item:{id:"z1"}}{Item:{id:"z2"}}'], 'zstd -q -c');
SELECT pg_temp.write('plain/a.ion', ARRAY['$ion_1_0 {Item:{id:"p1"}}', '{Item:{id:"p2"}', NULL]);
SELECT is(dynamodb('ImportTable', jsonb_build_object('S3BucketSource', '{"S3Bucket": "ion-test", "S3KeyPrefix": "zst/"}'::jsonb,
	'InputFormat', 'ION', 'InputCompressionType', 'ZSTD', 'TableCreationParameters', pg_temp.simple_table('ion_zst')))
	#>> '{ImportTableDescription,ImportedItemCount}', '2', 'a zstd ION file imports');
SELECT is(dynamodb('ImportTable', jsonb_build_object('S3BucketSource', '{"S3Bucket": "ion-test", "S3KeyPrefix": "plain/"}'::jsonb,
	'InputFormat', 'ION', 'InputCompressionType', 'NONE', 'TableCreationParameters', pg_temp.simple_table('ion_plain')))
	#> '{ImportTableDescription}' OPERATOR(pg_catalog.-) ARRAY['ImportArn', 'TableArn', 'TableId', 'StartTime', 'EndTime', 'ErrorLogS3Location',
		'S3BucketSource', 'TableCreationParameters', 'ClientToken', 'ProcessedSizeBytes', 'InputFormatOptions'],
	'{"ErrorCount": 1, "InputFormat": "ION", "ImportStatus": "COMPLETED", "ImportedItemCount": 1,
		"ProcessedItemCount": 2, "InputCompressionType": "NONE"}', 'a plain ION file: a value cut off at the end is a bad one');

-- an ION export and its import: an equal table
SELECT ok(create_table('{"TableName": "ion_src", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') ? 'TableDescription',
	'a source table');
SELECT ok(dynamodb('UpdateContinuousBackups', '{"TableName": "ion_src",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}') IS NOT NULL, 'recovery on');
SELECT ok(dynamodb_json('PutItem', '{"TableName": "ion_src", "Item": {"pk": {"S": "a\u0000b"}, "sk": {"N": "1"},
	"s": {"S": "nul \u0000 and \u0001, quote \" backslash \\ newline \n é"}, "n": {"N": "-1.5E+10"},
	"big": {"N": "-9.9999999999999999999999999999999999999E+125"}, "small": {"N": "1E-130"},
	"ss": {"SS": ["p", "q\u0000"]}, "ns": {"NS": ["1", "2.5", "1E+40"]}, "bs": {"BS": ["AA==", "AQ=="]},
	"t": {"BOOL": true}, "z": {"NULL": true}, "b": {"B": "AAEC"}, "$odd name": {"S": "x"}, "true": {"N": "0"},
	"m": {"M": {"inner": {"M": {"list": {"L": [{"S": "x"}, {"N": "3"}, {"M": {}}, {"L": []}]}}}}}}}') IS NOT NULL,
	'an item of every type');
SELECT put_item(jsonb_build_object('TableName', 'ion_src', 'Item', jsonb_build_object(
	'pk', jsonb_build_object('S', 'p' || (i % 7)), 'sk', jsonb_build_object('N', (i * 1.25)::text),
	'v', jsonb_build_object('N', (i * 1000)::text), 'b', jsonb_build_object('B', encode(int4send(i), 'base64')))))
FROM generate_series(1, 600) i;
SELECT ok(put_item(jsonb_build_object('TableName', 'ion_src', 'Item', jsonb_build_object(
	'pk', '{"S": "big"}'::jsonb, 'sk', '{"N": "0"}'::jsonb,
	'blob', jsonb_build_object('S', repeat('0123456789', 35000))))) IS NOT NULL, 'a 350 KB item');
CREATE TEMP TABLE before AS SELECT key, item FROM item_data.ion_src;
SELECT dynamodb('ExportTableToPointInTime', '{"TableArn": "arn:aws:dynamodb:local:000000000000:table/ion_src",
	"S3Bucket": "ion-test", "S3Prefix": "full", "ExportFormat": "ION"}') AS e0 \gset
SELECT pg_temp.wait_export(:'e0'::jsonb #>> '{ExportDescription,ExportArn}') AS e \gset
SELECT is(jsonb_build_array(:'e'::jsonb #>> '{ExportDescription,ExportStatus}', :'e'::jsonb #>> '{ExportDescription,ExportFormat}',
		:'e'::jsonb #>> '{ExportDescription,ItemCount}'), '["COMPLETED", "ION", "602"]', 'an ION export');
SELECT split_part(:'e'::jsonb #>> '{ExportDescription,ExportArn}', '/export/', 2) AS id \gset
SELECT is(dynamodb('DescribeExport', jsonb_build_object('ExportArn', :'e'::jsonb #>> '{ExportDescription,ExportArn}'))
	#>> '{ExportDescription,ExportFormat}', 'ION', 'DescribeExport: ExportFormat ION');
SELECT (SELECT l FROM pg_temp.lines('full/AWSDynamoDB/' || :'id' || '/manifest-summary.json') l)::jsonb ->> 'outputFormat' AS fmt,
	(SELECT l FROM pg_temp.lines('full/AWSDynamoDB/' || :'id' || '/manifest-files.json') l)::jsonb AS files \gset
SELECT is(jsonb_build_array(:'fmt', :'files'::jsonb ->> 'itemCount', :'files'::jsonb ->> 'dataFileS3Key' ~ '/data/[0-9a-f]{26}\.ion\.gz$'),
	'["ION", "602", true]', 'the manifests: outputFormat ION, a data/*.ion.gz file');
SELECT is((SELECT count(*) FROM pg_temp.lines(:'files'::jsonb ->> 'dataFileS3Key', true) l WHERE l LIKE '$ion_1_0 {Item:{%}}'),
	602::bigint, 'one $ion_1_0 {Item:{...}} line per item');
SELECT ok((SELECT bool_or(strpos(l, 'pk:"a\x00b"') > 0) FROM pg_temp.lines(:'files'::jsonb ->> 'dataFileS3Key', true) l),
	'U+0000 is written as \x00');
SELECT dynamodb('ImportTable', jsonb_build_object(
	'S3BucketSource', jsonb_build_object('S3Bucket', 'ion-test', 'S3KeyPrefix', 'full/AWSDynamoDB/' || :'id' || '/'),
	'InputFormat', 'ION', 'InputCompressionType', 'GZIP',
	'TableCreationParameters', (SELECT jsonb_build_object('TableName', 'ion_dst', 'BillingMode', 'PAY_PER_REQUEST',
		'AttributeDefinitions', d -> 'AttributeDefinitions', 'KeySchema', d -> 'KeySchema')
		FROM (SELECT describe_table('{"TableName": "ion_src"}') -> 'Table' AS d) x))) AS imp \gset
SELECT is(jsonb_build_array(:'imp'::jsonb #>> '{ImportTableDescription,ImportStatus}',
		:'imp'::jsonb #>> '{ImportTableDescription,ImportedItemCount}', :'imp'::jsonb #>> '{ImportTableDescription,ErrorCount}'),
	'["COMPLETED", "602", "0"]', 'its import: every item');
SELECT is((SELECT array_agg(item ORDER BY key) FROM item_data.ion_dst),
	(SELECT array_agg(item ORDER BY key) FROM before), 'ION export -> ION import: an equal table');

-- an incremental ION export (the history moved back, as in export_import.sql)
UPDATE continuous_backups SET enabled_at = enabled_at - interval '3 hours' WHERE table_name = 'ion_src';
UPDATE pitr_history SET changed_at = changed_at - interval '2 hours' WHERE relid = 'item_data.ion_src'::regclass;
SELECT update_item('{"TableName": "ion_src", "Key": {"pk": {"S": "p3"}, "sk": {"N": "3.75"}},
	"UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": "33"}}}');
SELECT delete_item('{"TableName": "ion_src", "Key": {"pk": {"S": "p5"}, "sk": {"N": "6.25"}}}');
SELECT put_item('{"TableName": "ion_src", "Item": {"pk": {"S": "new"}, "sk": {"N": "1"}}}');
UPDATE pitr_history SET changed_at = changed_at - interval '1 hour'
	WHERE relid = 'item_data.ion_src'::regclass AND changed_at > clock_timestamp() - interval '10 minutes';
SELECT dynamodb('ExportTableToPointInTime', jsonb_build_object('TableArn', 'arn:aws:dynamodb:local:000000000000:table/ion_src',
	'S3Bucket', 'ion-test', 'S3Prefix', 'inc', 'ExportType', 'INCREMENTAL_EXPORT', 'ExportFormat', 'ION',
	'IncrementalExportSpecification', jsonb_build_object(
		'ExportFromTime', extract(epoch FROM clock_timestamp() - interval '90 minutes'),
		'ExportToTime', extract(epoch FROM clock_timestamp() - interval '30 minutes')))) AS inc0 \gset
SELECT pg_temp.wait_export(:'inc0'::jsonb #>> '{ExportDescription,ExportArn}') AS inc \gset
SELECT (SELECT l FROM pg_temp.lines('inc/AWSDynamoDB/' || split_part(:'inc'::jsonb #>> '{ExportDescription,ExportArn}', '/export/', 2)
	|| '/manifest-files.json') l)::jsonb ->> 'dataFileS3Key' AS incfile \gset
CREATE TEMP TABLE inc AS SELECT l AS line, pg_temp.ion(l) AS r FROM pg_temp.lines(:'incfile', true) l;
SELECT is((SELECT jsonb_agg(jsonb_build_array(r #>> '{Keys,pk,S}', r #>> '{OldImage,v,N}', r #>> '{NewImage,v,N}',
		r ? 'OldImage', r ? 'NewImage') ORDER BY r #>> '{Keys,pk,S}') FROM inc),
	'[["new", null, null, false, true], ["p3", "3000", "33", true, true], ["p5", "5000", null, true, false]]',
	'an incremental ION export: Keys, OldImage, NewImage');
SELECT ok((SELECT bool_and(line ~ '^\$ion_1_0 \{Keys:\{pk:"[a-z0-9]+",sk:[0-9.]+\},Metadata:\{WriteTimestampMicros:[0-9]{16}\.\},')
	AND bool_and(r #>> '{Metadata,WriteTimestampMicros,N}' ~ '^[0-9]{16}$') FROM inc), 'its lines: Metadata with WriteTimestampMicros');

SELECT * FROM finish();

-- what the test made
SELECT count(delete_table(jsonb_build_object('TableName', t))) AS dropped
FROM unnest('{ion_src,ion_dst,ion_hand,ion_plain,ion_zst}'::text[]) t
WHERE EXISTS (SELECT FROM tables x WHERE x.table_name = t);
DELETE FROM exports WHERE s3_bucket = 'ion-test';
DELETE FROM imports WHERE call_request #>> '{S3BucketSource,S3Bucket}' = 'ion-test';
SELECT drop_bucket('ion-test');
SELECT format('rm -rf %s', :'root') AS rm \gset
COPY sh FROM PROGRAM :'rm';
