-- DeleteItem: a table "dbench" (pk S) of 4 x :scale items; each
-- transaction deletes the next key of a sequence, so every delete (of
-- either variant) removes an existing item.  Both variants draw from the
-- same sequence; the key is computed in a sub-select so that the plain
-- DELETE still probes the primary key.
SELECT item_table.delete_table('{"TableName": "dbench"}') FROM item_table.tables WHERE table_name = 'dbench';
SELECT item_table.create_table('{"TableName": "dbench", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
INSERT INTO item_data.dbench (key, item)
SELECT item_table.item_key(jsonb_build_object('S', 'DEL#' || g)),
	   jsonb_build_object('pk', jsonb_build_object('S', 'DEL#' || g),
		'name', jsonb_build_object('S', 'user number ' || g),
		'email', jsonb_build_object('S', 'user' || g || '@example.com'),
		'n', jsonb_build_object('N', '0'))
FROM generate_series(1, 4 * :scale) g;
DROP SEQUENCE IF EXISTS dbench_seq;
CREATE SEQUENCE dbench_seq MAXVALUE 2000000000;
