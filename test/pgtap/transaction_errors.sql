-- Batch and transaction errors: SQLSTATEs, exception names, bodies with
-- CancellationReasons, and all-or-nothing behaviour.
BEGIN;
SELECT plan(16);
SET search_path = item_table, public;

\ir include/err.sql

SELECT ok(create_table('{"TableName": "txe", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') ? 'TableDescription', 'table created');
SELECT is(put_item('{"TableName": "txe", "Item": {"pk": {"S": "a"}, "n": {"N": "1"}}}'), '{}'::jsonb, 'item stored');

-- TransactionCanceledException: XD007, "Message" with a capital M, reasons in order
SELECT throws_ok($$SELECT item_table.transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "txe", "Item": {"pk": {"S": "b"}}}},
	{"ConditionCheck": {"TableName": "txe", "Key": {"pk": {"S": "a"}}, "ConditionExpression": "n = :two", "ExpressionAttributeValues": {":two": {"N": "2"}}}}]}')$$,
	'XD007', 'TransactionCanceledException: Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]',
	'failed condition cancels the transaction');
SELECT is((pg_temp.err('TransactWriteItems', '{"TransactItems": [
	{"Put": {"TableName": "txe", "Item": {"pk": {"S": "b"}}}},
	{"ConditionCheck": {"TableName": "txe", "Key": {"pk": {"S": "a"}}, "ConditionExpression": "n = :two", "ExpressionAttributeValues": {":two": {"N": "2"}}}}]}')->'body') - 'Message',
	'{"__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
	  "CancellationReasons": [{"Code": "None"}, {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}]}'::jsonb,
	'TransactionCanceledException body and reasons');
SELECT ok(pg_temp.err('TransactWriteItems', '{"TransactItems": [{"ConditionCheck": {"TableName": "txe", "Key": {"pk": {"S": "a"}}, "ConditionExpression": "n = :two", "ExpressionAttributeValues": {":two": {"N": "2"}}}}]}')->'body' ? 'Message',
	'TransactionCanceledException uses "Message"');
SELECT is(pg_temp.err('TransactWriteItems', '{"TransactItems": [{"ConditionCheck": {"TableName": "txe", "Key": {"pk": {"S": "a"}}, "ConditionExpression": "n = :two", "ExpressionAttributeValues": {":two": {"N": "2"}}, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}]}')->'body'->'CancellationReasons'->0->'Item',
	'{"n": {"N": "1"}, "pk": {"S": "a"}}'::jsonb, 'the old item comes with ALL_OLD');
SELECT is((SELECT count(*) FROM item_data.txe), 1::bigint, 'a cancelled transaction wrote nothing');

-- IdempotentParameterMismatchException: XD010
SELECT lives_ok($$SELECT item_table.transact_write_items('{"ClientRequestToken": "pgtap-1", "TransactItems": [{"Put": {"TableName": "txe", "Item": {"pk": {"S": "c"}}}}]}')$$,
	'first use of a token');
SELECT lives_ok($$SELECT item_table.transact_write_items('{"ClientRequestToken": "pgtap-1", "TransactItems": [{"Put": {"TableName": "txe", "Item": {"pk": {"S": "c"}}}}]}')$$,
	'same token, same request: success');
SELECT throws_ok($$SELECT item_table.transact_write_items('{"ClientRequestToken": "pgtap-1", "TransactItems": [{"Put": {"TableName": "txe", "Item": {"pk": {"S": "d"}}}}]}')$$,
	'XD010', NULL, 'same token, other request: IdempotentParameterMismatchException');
SELECT is(pg_temp.err('TransactWriteItems', '{"ClientRequestToken": "pgtap-1", "TransactItems": [{"Put": {"TableName": "txe", "Item": {"pk": {"S": "d"}}}}]}')->'body'->>'__type',
	'com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException', 'IdempotentParameterMismatchException body __type');

-- request-level problems are ValidationException for the whole call
SELECT throws_ok($$SELECT item_table.transact_write_items('{"TransactItems": [{"Put": {"TableName": "txe", "Item": {"pk": {"S": "e"}}}}, {"Delete": {"TableName": "txe", "Key": {"pk": {"S": "e"}}}}]}')$$,
	'XD001', 'ValidationException: Transaction request cannot include multiple operations on one item', 'one item twice');
SELECT throws_ok($$SELECT item_table.batch_write_item('{"RequestItems": {"txe": [{"PutRequest": {"Item": {"pk": {"S": "f"}}}}, {"PutRequest": {"Item": {"pk": {"N": "1"}}}}]}}')$$,
	'XD001', NULL, 'one bad request rejects the whole batch');
SELECT is((SELECT count(*) FROM item_data.txe WHERE key = 'S"f"'), 0::bigint, 'nothing of the rejected batch was written');
SELECT throws_ok($$SELECT item_table.batch_get_item('{"RequestItems": {"nope": {"Keys": [{"pk": {"S": "a"}}]}}}')$$,
	'XD004', NULL, 'BatchGetItem on an unknown table');
SELECT throws_ok($$SELECT item_table.transact_get_items('{"TransactItems": [{"Get": {"TableName": "nope", "Key": {"pk": {"S": "a"}}}}]}')$$,
	'XD004', NULL, 'TransactGetItems on an unknown table');

SELECT * FROM finish();
ROLLBACK;
