-- A DynamoDB table with :scale items of ~200 bytes (hash key only), made
-- through the API; the baselines use its physical table directly.
SELECT item_table.delete_table('{"TableName": "bench"}') FROM item_table.tables WHERE table_name = 'bench';
SELECT item_table.create_table('{"TableName": "bench", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
INSERT INTO item_data.bench (key, item)
SELECT item_table.item_key(jsonb_build_object('S', 'USER#' || g)),
	   item_table.normalize_item(jsonb_build_object(
		'pk', jsonb_build_object('S', 'USER#' || g),
		'name', jsonb_build_object('S', 'user number ' || g),
		'email', jsonb_build_object('S', 'user' || g || '@example.com'),
		'n', jsonb_build_object('N', '0'),
		'score', jsonb_build_object('N', (g % 1000)::text || '.5'),
		'tags', jsonb_build_object('SS', jsonb_build_array('a', 'b', 'tag' || (g % 10))),
		'address', jsonb_build_object('M', jsonb_build_object(
			'street', jsonb_build_object('S', g || ' Main Street'),
			'city', jsonb_build_object('S', 'Springfield')))))
FROM generate_series(1, :scale) g;
VACUUM ANALYZE item_data.bench;
