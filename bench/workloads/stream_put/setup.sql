-- Two tables alike, one with a NEW_AND_OLD_IMAGES stream, each with
-- :scale items of ~200 bytes, for PutItem with and without a stream.
SELECT item_table.delete_table(jsonb_build_object('TableName', table_name))
FROM item_table.tables WHERE table_name IN ('bench_stream', 'bench_nostream');
SELECT item_table.create_table('{"TableName": "bench_stream", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}') IS NOT NULL AS created;
SELECT item_table.create_table('{"TableName": "bench_nostream", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
INSERT INTO item_data.bench_nostream (key, item)
SELECT item_table.item_key(jsonb_build_object('S', 'USER#' || g)),
	   item_table.normalize_item(jsonb_build_object(
		'pk', jsonb_build_object('S', 'USER#' || g),
		'name', jsonb_build_object('S', 'user number ' || g),
		'n', jsonb_build_object('N', '0')))
FROM generate_series(1, :scale) g;
-- loaded without the trigger's records: the same rows in both
ALTER TABLE item_data.bench_stream DISABLE TRIGGER item_table_stream;
INSERT INTO item_data.bench_stream SELECT * FROM item_data.bench_nostream;
ALTER TABLE item_data.bench_stream ENABLE TRIGGER item_table_stream;
VACUUM ANALYZE item_data.bench_stream;
VACUUM ANALYZE item_data.bench_nostream;
