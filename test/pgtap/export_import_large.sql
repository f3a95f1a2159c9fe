-- ImportTable of files larger than one read: 60,000 lines compressed with
-- zstd and with gzip (many 64 KB input buffers, output buffers filled to
-- the brim), and a gzip file of two members, as gzip makes when files are
-- concatenated (the second member holds one bad line): every item is
-- read, the bad line is counted.  The bucket is a directory under the data
-- directory, made by COPY TO PROGRAM and removed at the end.
BEGIN;
SELECT plan(5);
SET search_path = item_table, public;
SELECT current_setting('data_directory') || '/it_big' AS root \gset
CREATE TEMP TABLE sh (line text);
SELECT format('rm -rf %1$s && mkdir -p %1$s/b', :'root') AS mk \gset
COPY sh FROM PROGRAM :'mk';
SELECT ok(create_bucket('big-test', :'root' || '/b') IS NOT NULL, 'a bucket');
CREATE FUNCTION pg_temp.write(key text, program text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('COPY (SELECT format(''{"Item":{"id":{"S":"i%%s"},"pad":{"S":"%%s"}}}'', g, md5(g::text) || md5((g+1)::text)) FROM generate_series(1, 60000) g) TO PROGRAM %L WITH (FORMAT csv, QUOTE E''\x01'', DELIMITER E''\x02'')',
		format('mkdir -p $(dirname %1$s) && %2$s > %1$s', current_setting('data_directory') || '/it_big/b/' || key, program));
END $$;
SELECT pg_temp.write('z/a.json.zst', 'zstd -q -c');
SELECT pg_temp.write('g/a.json.gz', 'gzip -c');
SELECT pg_temp.write('g2/a.json.gz', '(gzip -c; echo x | gzip -c) | cat');
SELECT is(dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "big-test", "S3KeyPrefix": "z/"},
	"InputFormat": "DYNAMODB_JSON", "InputCompressionType": "ZSTD",
	"TableCreationParameters": {"TableName": "big_z", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}') #>> '{ImportTableDescription,ImportedItemCount}', '60000', 'big zstd');
SELECT is(dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "big-test", "S3KeyPrefix": "g/"},
	"InputFormat": "DYNAMODB_JSON", "InputCompressionType": "GZIP",
	"TableCreationParameters": {"TableName": "big_g", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}') #>> '{ImportTableDescription,ImportedItemCount}', '60000', 'big gzip');
SELECT is(dynamodb('ImportTable', '{"S3BucketSource": {"S3Bucket": "big-test", "S3KeyPrefix": "g2/"},
	"InputFormat": "DYNAMODB_JSON", "InputCompressionType": "GZIP",
	"TableCreationParameters": {"TableName": "big_g2", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
		"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}') #>> '{ImportTableDescription,ErrorCount}', '1', 'two gzip members: 60000 items and one bad line');
SELECT is((SELECT count(*) FROM item_data.big_g2)::int, 60000, 'second member read');
SELECT format('rm -rf %s', :'root') AS rm \gset
COPY sh FROM PROGRAM :'rm';
SELECT * FROM finish();
ROLLBACK;
