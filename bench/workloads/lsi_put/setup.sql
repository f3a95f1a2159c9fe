-- PutItem on a table with an LSI: "lsib" (pk S, sk S), LSI by_ts (pk, ts)
-- projection ALL, :scale items in collections of 10.  Baseline: a base
-- table and one index table of the same shape, written by one statement.
SELECT item_table.delete_table('{"TableName": "lsib"}') FROM item_table.tables WHERE table_name = 'lsib';
SELECT item_table.create_table('{"TableName": "lsib", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
		{"AttributeName": "ts", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"LocalSecondaryIndexes": [
		{"IndexName": "by_ts", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "ts", "KeyType": "RANGE"}],
		 "Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;
CREATE TEMP TABLE lsib_src AS
SELECT 'P#' || (g / 10) AS pk, 'S#' || g AS sk, 'T#' || lpad((g * 7919 % 1000000)::text, 7, '0') AS ts,
	   jsonb_build_object('pk', jsonb_build_object('S', 'P#' || (g / 10)),
		'sk', jsonb_build_object('S', 'S#' || g),
		'ts', jsonb_build_object('S', 'T#' || lpad((g * 7919 % 1000000)::text, 7, '0')),
		'name', jsonb_build_object('S', 'user number ' || g),
		'n', jsonb_build_object('N', (g % 1000)::text)) AS item
FROM generate_series(1, :scale) g;
INSERT INTO item_data.lsib (key, item)
SELECT item_table.item_key(jsonb_build_object('S', pk), jsonb_build_object('S', sk)), item FROM lsib_src;
DROP TABLE IF EXISTS lsib_plain, lsib_plain_ts;
CREATE TABLE lsib_plain (key item_table.item_key PRIMARY KEY, item jsonb NOT NULL);
CREATE TABLE lsib_plain_ts (ikey item_table.item_key, key item_table.item_key, item jsonb NOT NULL, PRIMARY KEY (ikey, key));
INSERT INTO lsib_plain SELECT item_table.item_key(jsonb_build_object('S', pk), jsonb_build_object('S', sk)), item FROM lsib_src;
INSERT INTO lsib_plain_ts SELECT item_table.item_key(jsonb_build_object('S', pk), jsonb_build_object('S', ts)),
	item_table.item_key(jsonb_build_object('S', pk), jsonb_build_object('S', sk)), item FROM lsib_src;
VACUUM ANALYZE item_data.lsib;
VACUUM ANALYZE item_data."lsib#by_ts";
VACUUM ANALYZE lsib_plain;
VACUUM ANALYZE lsib_plain_ts;
