-- Two tables alike, one with point-in-time recovery enabled, each with
-- :scale items of ~200 bytes, for PutItem with and without the history.
SELECT item_table.delete_table(jsonb_build_object('TableName', table_name))
FROM item_table.tables WHERE table_name IN ('bench_pitr', 'bench_nopitr');
SELECT item_table.create_table('{"TableName": "bench_pitr", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
SELECT item_table.create_table('{"TableName": "bench_nopitr", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
INSERT INTO item_data.bench_nopitr (key, item)
SELECT item_table.item_key(jsonb_build_object('S', 'USER#' || g)),
	   item_table.normalize_item(jsonb_build_object(
		'pk', jsonb_build_object('S', 'USER#' || g),
		'name', jsonb_build_object('S', 'user number ' || g),
		'n', jsonb_build_object('N', '0')))
FROM generate_series(1, :scale) g;
-- loaded before recovery is enabled: the same rows in both, no history yet
INSERT INTO item_data.bench_pitr SELECT * FROM item_data.bench_nopitr;
SELECT item_table.update_continuous_backups('{"TableName": "bench_pitr",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}') IS NOT NULL AS enabled;
VACUUM ANALYZE item_data.bench_pitr;
VACUUM ANALYZE item_data.bench_nopitr;
