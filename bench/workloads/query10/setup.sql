-- Query workloads: a DynamoDB table "qbench" (pk S, sk S) made through the
-- API, holding :scale items of ~200 bytes: half in item collections of 10
-- items (pk P10#<n>), half in collections of 100 (pk P100#<n>), sort keys
-- ITEM#0000.. .  The baselines read its physical table with plain SQL.
-- The primary key is dropped while loading and built afterwards, so
-- :scale = 10,000,000 loads in minutes (bench/query_scaling.sh).  item_table
-- refuses that DDL on an item table, and its item guard would check every
-- row: the load runs with session_replication_role = replica (superuser),
-- which disables both, and writes items already in stored form.
SELECT item_table.delete_table('{"TableName": "qbench"}') FROM item_table.tables WHERE table_name = 'qbench';
SELECT item_table.create_table('{"TableName": "qbench", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
SET session_replication_role = replica;
ALTER TABLE item_data.qbench DROP CONSTRAINT qbench_pkey;
-- items in canonical DynamoDB JSON (what PutItem stores), built directly
INSERT INTO item_data.qbench (key, item)
SELECT item_table.item_key(jsonb_build_object('S', pk), jsonb_build_object('S', sk)),
	   jsonb_build_object(
		'pk', jsonb_build_object('S', pk),
		'sk', jsonb_build_object('S', sk),
		'name', jsonb_build_object('S', 'user number ' || g),
		'email', jsonb_build_object('S', 'user' || g || '@example.com'),
		'n', jsonb_build_object('N', '0'),
		'score', jsonb_build_object('N', (g % 1000)::text || '.5'),
		'tags', jsonb_build_object('SS', jsonb_build_array('a', 'b', 'tag' || (g % 10))),
		'address', jsonb_build_object('M', jsonb_build_object(
			'street', jsonb_build_object('S', g || ' Main Street'),
			'city', jsonb_build_object('S', 'Springfield'))))
FROM (SELECT g,
			 CASE WHEN g < :scale / 2 THEN 'P10#' || (g / 10) ELSE 'P100#' || ((g - :scale / 2) / 100) END AS pk,
			 'ITEM#' || lpad((CASE WHEN g < :scale / 2 THEN g % 10 ELSE (g - :scale / 2) % 100 END)::text, 4, '0') AS sk
	  FROM generate_series(0, :scale - 1) g) s;
ALTER TABLE item_data.qbench ADD PRIMARY KEY (key);
RESET session_replication_role;
VACUUM ANALYZE item_data.qbench;
