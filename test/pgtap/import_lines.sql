-- ImportTable's lines and what becomes of them.  CSV records whose quoted
-- fields hold line ends (RFC 4180): such a record is one item however many
-- lines it takes, a doubled quote inside it is a quote, a bad record after
-- it is reported with the line it starts on, and a quoted field never
-- closed before the file ends is one bad record.  ClientToken.  The index
-- rows of an imported table are built after the load, in one pass: a line
-- whose index key has the wrong type is still a bad line, an item without
-- the key is in no index, a key given twice keeps its last item, and the
-- indexes equal their items (verify()) and keep working for later writes.
-- The files are written byte for byte (base64 through COPY TO PROGRAM);
-- the bucket is a directory under the data directory, removed at the end.
BEGIN;
SELECT plan(15);
SET search_path = item_table, public;
SELECT current_setting('data_directory') || '/it_csv' AS root \gset
CREATE TEMP TABLE sh (line text);
SELECT format('rm -rf %1$s && mkdir -p %1$s/b', :'root') AS mk \gset
COPY sh FROM PROGRAM :'mk';
SELECT ok(create_bucket('csv-test', :'root' || '/b') IS NOT NULL, 'a bucket');
-- a file of the bucket, exactly these bytes
CREATE FUNCTION pg_temp.write(key text, body text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('COPY (SELECT %L) TO PROGRAM %L WITH (FORMAT csv, QUOTE E''\x01'', DELIMITER E''\x02'')',
		translate(encode(convert_to(body, 'UTF8'), 'base64'), E'\n', ''),
		format('mkdir -p $(dirname %1$s) && base64 -d > %1$s', current_setting('data_directory') || '/it_csv/b/' || key));
END $$;
CREATE FUNCTION pg_temp.lines(key text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
	TRUNCATE sh;
	EXECUTE format('COPY sh FROM PROGRAM %L WITH (FORMAT csv, QUOTE E''\x01'', DELIMITER E''\x02'')',
		'cat ' || current_setting('data_directory') || '/it_csv/b/' || key);
	RETURN QUERY SELECT s.line FROM sh s;
END $$;

SELECT pg_temp.write('m/a.csv', E'id,"the\nnote",n\r\n'
	|| E'1,"line one\nline two",a\r\n'
	|| E'2,"say ""hi""\n\nand, more",b\n'
	|| E'3,plain,c\n'
	|| E'4,too,many,fields\n'
	|| E'5,"x\ny"z,d\n'
	|| E'6,"never closed\nat all,e\n');
SELECT dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "csv-test", "S3KeyPrefix": "m/"},
	"InputFormat": "CSV",
	"TableCreationParameters": {"TableName": "csv_multi", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
		"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}') AS imp \gset
SELECT is(jsonb_build_array(:'imp'::jsonb #>> '{ImportTableDescription,ImportedItemCount}',
		:'imp'::jsonb #>> '{ImportTableDescription,ErrorCount}'), '["3", "3"]',
	'three records over six lines imported; three bad records counted');
SELECT is((SELECT jsonb_agg(item ORDER BY key) FROM item_data.csv_multi),
	jsonb_build_array(
		jsonb_build_object('id', '{"N": "1"}'::jsonb, 'n', '{"S": "a"}'::jsonb, E'the\nnote', jsonb_build_object('S', E'line one\nline two')),
		jsonb_build_object('id', '{"N": "2"}'::jsonb, 'n', '{"S": "b"}'::jsonb, E'the\nnote', jsonb_build_object('S', E'say "hi"\n\nand, more')),
		jsonb_build_object('id', '{"N": "3"}'::jsonb, 'n', '{"S": "c"}'::jsonb, E'the\nnote', '{"S": "plain"}'::jsonb)),
	'line ends and doubled quotes inside quoted fields are kept, in the header too');
SELECT is((SELECT array_agg(l::jsonb ->> 'line' ORDER BY (l::jsonb ->> 'line')::int) FROM pg_temp.lines(
		:'imp'::jsonb #>> '{ImportTableDescription,ErrorLogS3Location,S3Key}') l),
	'{9,10,12}', 'bad records are reported with the line they start on');
SELECT ok((SELECT bool_and(l::jsonb ->> 'message' ~ 'fields|after a quoted|unterminated') FROM pg_temp.lines(
		:'imp'::jsonb #>> '{ImportTableDescription,ErrorLogS3Location,S3Key}') l),
	'each with its reason');
SELECT is((SELECT l::jsonb ->> 'message' FROM pg_temp.lines(
		:'imp'::jsonb #>> '{ImportTableDescription,ErrorLogS3Location,S3Key}') l WHERE l::jsonb ->> 'line' = '12'),
	'unterminated quoted field', 'a quoted field open at the end of the file');
-- ImportTable's ClientToken: the same request is the same import; other
-- parameters with the token are ImportConflictException (XD031)
SELECT pg_temp.write('t/a.csv', E'id\n1\n');
SELECT dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "csv-test", "S3KeyPrefix": "t/"},
	"InputFormat": "CSV", "ClientToken": "csv-tok",
	"TableCreationParameters": {"TableName": "csv_tok", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}') #>> '{ImportTableDescription,ImportArn}' AS tok_arn \gset
SELECT is(dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "csv-test", "S3KeyPrefix": "t/"},
	"InputFormat": "CSV", "ClientToken": "csv-tok",
	"TableCreationParameters": {"TableName": "csv_tok", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}') #>> '{ImportTableDescription,ImportArn}', :'tok_arn',
	'the same ImportTable request with its ClientToken again: the same import');
SELECT throws_ok($$SELECT dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "csv-test", "S3KeyPrefix": "t/"},
	"InputFormat": "CSV", "ClientToken": "csv-tok",
	"TableCreationParameters": {"TableName": "csv_tok2", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}')$$, 'XD031',
	'ImportConflictException: There was a conflict when importing from the specified S3 source.',
	'the token with other parameters: ImportConflictException, XD031');
-- index rows built after the load
SELECT pg_temp.write('g/a.json', E'{"Item":{"id":{"S":"a"},"g":{"S":"x"},"n":{"N":"1"}}}\n'
	|| E'{"Item":{"id":{"S":"b"},"g":{"N":"5"}}}\n'
	|| E'{"Item":{"id":{"S":"c"}}}\n'
	|| E'{"Item":{"id":{"S":"d"},"g":{"S":"y"},"n":{"N":"2"}}}\n'
	|| E'{"Item":{"id":{"S":"a"},"g":{"S":"z"},"n":{"N":"3"}}}\n'
	|| E'{"Item":{"id":{"S":"e"},"g":{"S":""}}}\n');
SELECT dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "csv-test", "S3KeyPrefix": "g/"},
	"InputFormat": "DYNAMODB_JSON",
	"TableCreationParameters": {"TableName": "imp_gsi", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"},
			{"AttributeName": "n", "AttributeType": "N"}],
		"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
		"GlobalSecondaryIndexes": [
			{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}},
			{"IndexName": "by_n", "KeySchema": [{"AttributeName": "n", "KeyType": "HASH"}],
			 "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["g"]}}]}}') AS gi \gset
SELECT is(jsonb_build_array(:'gi'::jsonb #>> '{ImportTableDescription,ImportedItemCount}',
		:'gi'::jsonb #>> '{ImportTableDescription,ErrorCount}'), '["4", "2"]',
	'an index key of the wrong type, and an empty one, are bad lines (the second a of four items overwrites the first)');
SELECT is((SELECT array_agg(l::jsonb ->> 'line' ORDER BY l) FROM pg_temp.lines(
		:'gi'::jsonb #>> '{ImportTableDescription,ErrorLogS3Location,S3Key}') l), '{2,6}', 'which are lines 2 and 6');
SELECT is((SELECT jsonb_agg(i -> 'id' ->> 'S' ORDER BY i -> 'g' ->> 'S') FROM jsonb_array_elements(
		dynamodb('Scan', '{"TableName": "imp_gsi", "IndexName": "by_g"}') -> 'Items') i), '["d", "a"]',
	'the GSI holds the items with its key, the last item of a key given twice');
SELECT is(dynamodb('Query', '{"TableName": "imp_gsi", "IndexName": "by_n", "KeyConditionExpression": "n = :n",
		"ExpressionAttributeValues": {":n": {"N": "3"}}}') -> 'Items',
	'[{"g": {"S": "z"}, "n": {"N": "3"}, "id": {"S": "a"}}]', 'an INCLUDE projection built after the load');
SELECT is((SELECT count(*) FROM verify('imp_gsi'))::int, 0, 'verify(): every index row equals its item');
SELECT throws_ok($$SELECT import_build_indexes('imp_gsi')$$, '55000',
	'the index "by_g" of item table "imp_gsi" is not new and empty', 'the bulk build refuses index tables that have rows');
SELECT dynamodb('PutItem', '{"TableName": "imp_gsi", "Item": {"id": {"S": "f"}, "g": {"S": "w"}, "n": {"N": "3"}}}');
SELECT is(dynamodb('Query', '{"TableName": "imp_gsi", "IndexName": "by_n", "KeyConditionExpression": "n = :n",
		"ExpressionAttributeValues": {":n": {"N": "3"}}}') #> '{Count}', '2', 'and a later PutItem is indexed at once');
SELECT format('rm -rf %s', :'root') AS rm \gset
COPY sh FROM PROGRAM :'rm';
SELECT * FROM finish();
ROLLBACK;
