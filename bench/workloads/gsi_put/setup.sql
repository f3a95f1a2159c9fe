-- GSI workloads: a DynamoDB table "gsib" (pk S) with two GSIs:
--   by_city  (city S HASH, csk S RANGE), projection ALL
--   by_email (email S HASH), projection KEYS_ONLY
-- holding :scale items loaded through the physical table (the index
-- trigger fills both index tables).  Baselines: "gsib_plain" (a base table
-- and two index tables of the same shape, written by one transaction) and
-- "gsib_expr" (one table with two btree expression indexes on the jsonb).
SELECT item_table.delete_table('{"TableName": "gsib"}') FROM item_table.tables WHERE table_name = 'gsib';
SELECT item_table.create_table('{"TableName": "gsib", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
		{"AttributeName": "city", "AttributeType": "S"}, {"AttributeName": "csk", "AttributeType": "S"},
		{"AttributeName": "email", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [
		{"IndexName": "by_city", "KeySchema": [{"AttributeName": "city", "KeyType": "HASH"}, {"AttributeName": "csk", "KeyType": "RANGE"}],
		 "Projection": {"ProjectionType": "ALL"}},
		{"IndexName": "by_email", "KeySchema": [{"AttributeName": "email", "KeyType": "HASH"}],
		 "Projection": {"ProjectionType": "KEYS_ONLY"}}]}') IS NOT NULL AS created;
CREATE TEMP TABLE gsib_src AS
SELECT 'USER#' || g AS pk, 'CITY#' || (g % 1000) AS city, 'USER#' || g AS csk,
	   'user' || g || '@example.com' AS email,
	   jsonb_build_object('pk', jsonb_build_object('S', 'USER#' || g),
		'city', jsonb_build_object('S', 'CITY#' || (g % 1000)),
		'csk', jsonb_build_object('S', 'USER#' || g),
		'email', jsonb_build_object('S', 'user' || g || '@example.com'),
		'name', jsonb_build_object('S', 'user number ' || g),
		'n', jsonb_build_object('N', (g % 1000)::text)) AS item
FROM generate_series(1, :scale) g;
INSERT INTO item_data.gsib (key, item)
SELECT item_table.item_key(jsonb_build_object('S', pk)), item FROM gsib_src;

DROP TABLE IF EXISTS gsib_plain, gsib_plain_city, gsib_plain_email, gsib_expr;
CREATE TABLE gsib_plain (key item_table.item_key PRIMARY KEY, item jsonb NOT NULL);
CREATE TABLE gsib_plain_city (ikey item_table.item_key, key item_table.item_key, item jsonb NOT NULL, PRIMARY KEY (ikey, key));
CREATE TABLE gsib_plain_email (ikey item_table.item_key, key item_table.item_key, item jsonb NOT NULL, PRIMARY KEY (ikey, key));
INSERT INTO gsib_plain SELECT item_table.item_key(jsonb_build_object('S', pk)), item FROM gsib_src;
INSERT INTO gsib_plain_city SELECT item_table.item_key(jsonb_build_object('S', city), jsonb_build_object('S', csk)),
	item_table.item_key(jsonb_build_object('S', pk)), item FROM gsib_src;
INSERT INTO gsib_plain_email SELECT item_table.item_key(jsonb_build_object('S', email)),
	item_table.item_key(jsonb_build_object('S', pk)),
	jsonb_build_object('pk', item->'pk', 'email', item->'email') FROM gsib_src;
CREATE TABLE gsib_expr (key item_table.item_key PRIMARY KEY, item jsonb NOT NULL);
INSERT INTO gsib_expr SELECT item_table.item_key(jsonb_build_object('S', pk)), item FROM gsib_src;
CREATE INDEX ON gsib_expr ((item->'city'->>'S'), (item->'csk'->>'S'));
CREATE INDEX ON gsib_expr ((item->'email'->>'S'));
VACUUM ANALYZE item_data.gsib;
VACUUM ANALYZE item_data."gsib#by_city";
VACUUM ANALYZE item_data."gsib#by_email";
VACUUM ANALYZE gsib_plain;
VACUUM ANALYZE gsib_plain_city;
VACUUM ANALYZE gsib_plain_email;
VACUUM ANALYZE gsib_expr;
