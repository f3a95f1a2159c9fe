-- BatchGetItem, BatchWriteItem, TransactGetItems, TransactWriteItems:
-- responses, limits, errors, cancellation reasons (reference §4.10-4.13,
-- §8.50-55).
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
BEGIN
	RETURN item_table.dynamodb(action, request)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	RETURN st || ' ' || msg ||
		CASE WHEN det LIKE '%CancellationReasons%' THEN E'\n  reasons: ' || (det::jsonb->'CancellationReasons')::text ELSE '' END;
END $$;

SELECT create_table('{"TableName": "bat", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
SELECT create_table('{"TableName": "oth", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}') IS NOT NULL AS created;

-- ---------------------------------------------------------------- BatchWriteItem
SELECT batch_write_item('{"RequestItems": {
	"bat": [{"PutRequest": {"Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"S": "one"}}}},
			{"PutRequest": {"Item": {"pk": {"S": "a"}, "sk": {"N": "2"}, "v": {"S": "two"}}}},
			{"PutRequest": {"Item": {"pk": {"S": "a"}, "sk": {"N": "3"}}}}],
	"oth": [{"PutRequest": {"Item": {"id": {"S": "x"}, "n": {"N": "1.50"}}}}]},
	"ReturnConsumedCapacity": "TOTAL"}');
SELECT batch_write_item('{"RequestItems": {"bat": [{"DeleteRequest": {"Key": {"pk": {"S": "a"}, "sk": {"N": "3"}}}}]}}');
-- §8.50 put+delete of one key, 26 requests, one bad key: VE and nothing written
SELECT pg_temp.try('BatchWriteItem', '{"RequestItems": {"bat": [{"PutRequest": {"Item": {"pk": {"S": "z"}, "sk": {"N": "1"}}}}, {"DeleteRequest": {"Key": {"pk": {"S": "z"}, "sk": {"N": "1"}}}}]}}');
SELECT pg_temp.try('BatchWriteItem', '{"RequestItems": {"bat": [{"PutRequest": {"Item": {"pk": {"S": "z"}, "sk": {"N": "1e3"}}}}, {"PutRequest": {"Item": {"pk": {"S": "z"}, "sk": {"N": "1000"}}}}]}}');
SELECT pg_temp.try('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object('bat',
	(SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', '{"S": "z"}'::jsonb, 'sk', jsonb_build_object('N', g::text)))))
	 FROM generate_series(1, 26) g))));
SELECT pg_temp.try('BatchWriteItem', '{"RequestItems": {"bat": [{"PutRequest": {"Item": {"pk": {"S": "z"}, "sk": {"N": "1"}}}}, {"PutRequest": {"Item": {"pk": {"N": "1"}, "sk": {"N": "2"}}}}]}}');
SELECT pg_temp.try('BatchWriteItem', '{"RequestItems": {"bat": [{"PutRequest": {"Item": {"pk": {"S": "z"}, "sk": {"N": "1"}}}}], "nope": [{"PutRequest": {"Item": {"pk": {"S": "z"}}}}]}}');
SELECT pg_temp.try('BatchWriteItem', '{"RequestItems": {}}');
SELECT pg_temp.try('BatchWriteItem', '{"RequestItems": {"bat": []}}');
SELECT pg_temp.try('BatchWriteItem', '{"RequestItems": {"bat": [{"PutRequest": {"Item": {"pk": {"S": "z"}, "sk": {"N": "1"}}}, "DeleteRequest": {"Key": {"pk": {"S": "z"}, "sk": {"N": "1"}}}}]}}');
SELECT count(*) AS z_items FROM item_data.bat WHERE key ^@ 'S"z"';

-- ---------------------------------------------------------------- BatchGetItem
SELECT batch_get_item('{"RequestItems": {
	"bat": {"Keys": [{"pk": {"S": "a"}, "sk": {"N": "1"}}, {"pk": {"S": "a"}, "sk": {"N": "2"}}, {"pk": {"S": "a"}, "sk": {"N": "9"}}], "ProjectionExpression": "#v", "ExpressionAttributeNames": {"#v": "v"}},
	"oth": {"Keys": [{"id": {"S": "x"}}], "ConsistentRead": true}}}');
-- §8.51 same key twice, 101 keys, a missing item
SELECT pg_temp.try('BatchGetItem', '{"RequestItems": {"bat": {"Keys": [{"pk": {"S": "a"}, "sk": {"N": "1"}}, {"pk": {"S": "a"}, "sk": {"N": "1"}}]}}}');
SELECT pg_temp.try('BatchGetItem', jsonb_build_object('RequestItems', jsonb_build_object('bat', jsonb_build_object('Keys',
	(SELECT jsonb_agg(jsonb_build_object('pk', '{"S": "a"}'::jsonb, 'sk', jsonb_build_object('N', g::text))) FROM generate_series(1, 101) g)))));
SELECT pg_temp.try('BatchGetItem', '{"RequestItems": {}}');
SELECT pg_temp.try('BatchGetItem', '{"RequestItems": {"nope": {"Keys": [{"pk": {"S": "a"}}]}}}');
SELECT pg_temp.try('BatchGetItem', '{"RequestItems": {"bat": {"Keys": [{"pk": {"S": "a"}}]}}}');

-- ---------------------------------------------------------------- TransactGetItems
-- §8.55 a missing key gives {} at its position
SELECT transact_get_items('{"TransactItems": [
	{"Get": {"TableName": "bat", "Key": {"pk": {"S": "a"}, "sk": {"N": "2"}}}},
	{"Get": {"TableName": "bat", "Key": {"pk": {"S": "a"}, "sk": {"N": "99"}}}},
	{"Get": {"TableName": "oth", "Key": {"id": {"S": "x"}}, "ProjectionExpression": "n"}}],
	"ReturnConsumedCapacity": "TOTAL"}');
SELECT pg_temp.try('TransactGetItems', '{"TransactItems": []}');
SELECT pg_temp.try('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "nope", "Key": {"pk": {"S": "a"}}}}]}');
SELECT pg_temp.try('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "oth", "Key": {"id": {"S": "x"}}}}, {"Get": {"TableName": "oth", "Key": {"id": {"S": "x"}}}}]}');

-- ---------------------------------------------------------------- TransactWriteItems
SELECT transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "bat", "Item": {"pk": {"S": "t"}, "sk": {"N": "1"}, "bal": {"N": "100"}}, "ConditionExpression": "attribute_not_exists(pk)"}},
	{"Update": {"TableName": "oth", "Key": {"id": {"S": "x"}}, "UpdateExpression": "SET n = n + :d", "ExpressionAttributeValues": {":d": {"N": "1"}}}},
	{"Delete": {"TableName": "bat", "Key": {"pk": {"S": "a"}, "sk": {"N": "2"}}}},
	{"ConditionCheck": {"TableName": "bat", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ConditionExpression": "v = :one", "ExpressionAttributeValues": {":one": {"S": "one"}}}}],
	"ReturnConsumedCapacity": "TOTAL"}');
SELECT key, item FROM item_data.bat ORDER BY key;
SELECT key, item FROM item_data.oth ORDER BY key;
-- §8.53 [ok, fail, fail]: every failed condition reported, nothing written
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": [
	{"Update": {"TableName": "bat", "Key": {"pk": {"S": "t"}, "sk": {"N": "1"}}, "UpdateExpression": "SET bal = bal - :x", "ExpressionAttributeValues": {":x": {"N": "10"}}}},
	{"ConditionCheck": {"TableName": "oth", "Key": {"id": {"S": "x"}}, "ConditionExpression": "n > :big", "ExpressionAttributeValues": {":big": {"N": "100"}}, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
	{"Put": {"TableName": "bat", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(pk)"}}]}');
SELECT item->'bal' AS bal_unchanged FROM item_data.bat WHERE key = 'S"t"|N1';
-- a data error is a ValidationError reason; later actions are not examined
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": [
	{"ConditionCheck": {"TableName": "oth", "Key": {"id": {"S": "x"}}, "ConditionExpression": "n > :big", "ExpressionAttributeValues": {":big": {"N": "100"}}}},
	{"Update": {"TableName": "bat", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "UpdateExpression": "SET v = v + :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}},
	{"ConditionCheck": {"TableName": "oth", "Key": {"id": {"S": "absent"}}, "ConditionExpression": "attribute_exists(id)"}}]}');
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": [
	{"Put": {"TableName": "bat", "Item": {"pk": {"N": "1"}, "sk": {"N": "1"}}}},
	{"Put": {"TableName": "oth", "Item": {"id": {"S": "y"}}}}]}');
-- §8.52 two actions on one item, 101 actions, ConditionCheck without condition
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": [
	{"Put": {"TableName": "bat", "Item": {"pk": {"S": "k1"}, "sk": {"N": "1"}}}},
	{"ConditionCheck": {"TableName": "bat", "Key": {"pk": {"S": "k1"}, "sk": {"N": "1"}}, "ConditionExpression": "attribute_exists(pk)"}}]}');
SELECT pg_temp.try('TransactWriteItems', jsonb_build_object('TransactItems',
	(SELECT jsonb_agg(jsonb_build_object('Put', jsonb_build_object('TableName', 'bat', 'Item', jsonb_build_object('pk', '{"S": "m"}'::jsonb, 'sk', jsonb_build_object('N', g::text))))) FROM generate_series(1, 101) g)));
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": [{"ConditionCheck": {"TableName": "bat", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}}}]}');
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": []}');
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": [{"Put": {"TableName": "bat", "Item": {"pk": {"S": "a"}, "sk": {"N": "5"}}}, "Delete": {"TableName": "bat", "Key": {"pk": {"S": "a"}, "sk": {"N": "5"}}}}]}');
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": [{"Update": {"TableName": "bat", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "UpdateExpression": "SET a = :v"}}]}');
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": [{"Update": {"TableName": "nope", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "REMOVE a"}}]}');
SELECT pg_temp.try('TransactWriteItems', '{"ClientRequestToken": "", "TransactItems": [{"Put": {"TableName": "oth", "Item": {"id": {"S": "q"}}}}]}');
SELECT pg_temp.try('TransactWriteItems', jsonb_build_object('ClientRequestToken', repeat('t', 37), 'TransactItems', '[{"Put": {"TableName": "oth", "Item": {"id": {"S": "q"}}}}]'::jsonb));
-- §8.54 the same token and request twice: applied once; another request: mismatch
SELECT transact_write_items('{"ClientRequestToken": "tok-8.54", "TransactItems": [{"Update": {"TableName": "oth", "Key": {"id": {"S": "ctr"}}, "UpdateExpression": "ADD c :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}}]}');
SELECT transact_write_items('{"ClientRequestToken": "tok-8.54", "TransactItems": [{"Update": {"TableName": "oth", "Key": {"id": {"S": "ctr"}}, "UpdateExpression": "ADD c :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}}]}');
SELECT item->'c' AS counter_once FROM item_data.oth WHERE key = 'S"ctr"';
SELECT pg_temp.try('TransactWriteItems', '{"ClientRequestToken": "tok-8.54", "TransactItems": [{"Update": {"TableName": "oth", "Key": {"id": {"S": "ctr"}}, "UpdateExpression": "ADD c :two", "ExpressionAttributeValues": {":two": {"N": "2"}}}}]}');

-- composition with SQL: the caller's transaction decides
CREATE TABLE ledger (note text);
BEGIN;
SELECT transact_write_items('{"TransactItems": [{"Put": {"TableName": "oth", "Item": {"id": {"S": "rolled-back"}}}}]}');
INSERT INTO ledger VALUES ('rolled back with the item');
ROLLBACK;
BEGIN;
SELECT put_item('{"TableName": "oth", "Item": {"id": {"S": "committed"}}}');
INSERT INTO ledger VALUES ('committed with the item');
COMMIT;
SELECT (SELECT count(*) FROM item_data.oth WHERE key = 'S"rolled-back"') AS rolled_back_items,
	   (SELECT count(*) FROM item_data.oth WHERE key = 'S"committed"') AS committed_items,
	   (SELECT string_agg(note, ', ') FROM ledger) AS ledger;
DROP TABLE ledger;

SELECT delete_table('{"TableName": "bat"}') IS NOT NULL AS dropped;
SELECT delete_table('{"TableName": "oth"}') IS NOT NULL AS dropped;
DELETE FROM item_table.transaction_tokens;
