-- Defect found with the security review: the direct read that starts
-- UpdateItem, DeleteItem and conditional writes checked the caller's rights
-- with "any of SELECT, UPDATE", so a role granted UPDATE but not SELECT read
-- items it may not see (ReturnValues ALL_OLD, conditions).  Each right the
-- SQL statement would need is now required, as the statement requires it.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP ROLE IF EXISTS sec_priv_writer;
DROP ROLE IF EXISTS sec_priv_reader;
CREATE ROLE sec_priv_writer;
CREATE ROLE sec_priv_reader;

BEGIN;
SELECT plan(9);
SET search_path = public, item_table;
SELECT lives_ok($$SELECT create_table('{"TableName": "priv_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}')$$, 'table created');
SELECT lives_ok($$SELECT put_item('{"TableName": "priv_t", "Item": {"pk": {"S": "k"}, "secret": {"S": "s3cr3t"}}}')$$, 'item stored');
GRANT UPDATE ON item_data.priv_t TO sec_priv_writer;
GRANT SELECT ON item_data.priv_t TO sec_priv_reader;

SET ROLE sec_priv_writer;
SELECT throws_ok($$SELECT update_item('{"TableName": "priv_t", "Key": {"pk": {"S": "k"}}, "UpdateExpression": "SET v = :v",
	"ExpressionAttributeValues": {":v": {"N": "1"}}, "ReturnValues": "ALL_OLD"}')$$,
	'42501', NULL, 'UPDATE without SELECT: UpdateItem cannot read the old item');
SELECT throws_ok($$SELECT update_item('{"TableName": "priv_t", "Key": {"pk": {"S": "k"}}, "UpdateExpression": "SET v = :v",
	"ConditionExpression": "secret = :s", "ExpressionAttributeValues": {":v": {"N": "1"}, ":s": {"S": "s3cr3t"}}}')$$,
	'42501', NULL, 'UPDATE without SELECT: no condition on the stored item');
SELECT throws_ok($$SELECT get_item('{"TableName": "priv_t", "Key": {"pk": {"S": "k"}}}')$$,
	'42501', NULL, 'UPDATE without SELECT: no GetItem');
RESET ROLE;

SET ROLE sec_priv_reader;
SELECT is(get_item('{"TableName": "priv_t", "Key": {"pk": {"S": "k"}}}') -> 'Item' -> 'secret', '{"S": "s3cr3t"}'::jsonb,
	'SELECT: GetItem reads');
SELECT throws_ok($$SELECT delete_item('{"TableName": "priv_t", "Key": {"pk": {"S": "k"}}, "ReturnValues": "ALL_OLD"}')$$,
	'42501', NULL, 'SELECT without UPDATE or DELETE: DeleteItem is refused');
SELECT throws_ok($$SELECT transact_write_items('{"TransactItems": [{"ConditionCheck": {"TableName": "priv_t",
	"Key": {"pk": {"S": "k"}}, "ConditionExpression": "attribute_exists(pk)"}}]}')$$,
	'42501', NULL, 'SELECT without UPDATE: a ConditionCheck cannot lock the row');
RESET ROLE;
SELECT is(get_item('{"TableName": "priv_t", "Key": {"pk": {"S": "k"}}}') -> 'Item',
	'{"pk": {"S": "k"}, "secret": {"S": "s3cr3t"}}'::jsonb, 'the item is unchanged');

SELECT * FROM finish();
ROLLBACK;
DROP ROLE sec_priv_writer;
DROP ROLE sec_priv_reader;
