-- A trading register: each trade writes two stock postings.
SELECT item_table.delete_table('{"TableName": "register"}') FROM item_table.tables WHERE table_name = 'register';
SELECT item_table.create_table('{"TableName": "register", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
DROP TABLE IF EXISTS register_plain;
CREATE TABLE register_plain (key item_table.item_key PRIMARY KEY, item jsonb NOT NULL);
