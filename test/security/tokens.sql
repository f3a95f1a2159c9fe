-- Defect: ClientRequestTokens were shared by all roles: replaying another
-- role's request returned success without any right on the table, and a
-- different request with someone else's token was refused, so one role
-- could observe and block another's tokens.  Tokens are now per role, and
-- a replay answers success only to a caller who could make the request.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP ROLE IF EXISTS sec_tok_a;
DROP ROLE IF EXISTS sec_tok_b;
CREATE ROLE sec_tok_a;
CREATE ROLE sec_tok_b;
GRANT CREATE ON SCHEMA item_data TO sec_tok_a, sec_tok_b;

BEGIN;
SELECT plan(9);
SET search_path = public, item_table;

SET ROLE sec_tok_a;
SELECT lives_ok($$SELECT create_table('{"TableName": "tok_a", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}')$$, 'role a creates its table');
SELECT is(transact_write_items('{"ClientRequestToken": "shared-token", "TransactItems": [
	{"Put": {"TableName": "tok_a", "Item": {"pk": {"S": "k1"}, "v": {"N": "1"}}}}]}'), '{}'::jsonb,
	'role a writes with a token');
RESET ROLE;

SET ROLE sec_tok_b;
SELECT lives_ok($$SELECT create_table('{"TableName": "tok_b", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}')$$, 'role b creates its table');
SELECT throws_ok($$SELECT transact_write_items('{"ClientRequestToken": "shared-token", "TransactItems": [
	{"Put": {"TableName": "tok_a", "Item": {"pk": {"S": "k1"}, "v": {"N": "1"}}}}]}')$$,
	'42501', NULL, 'replaying role a''s request as role b is no success: b has no right on the table');
SELECT is(transact_write_items('{"ClientRequestToken": "shared-token", "TransactItems": [
	{"Put": {"TableName": "tok_b", "Item": {"pk": {"S": "k9"}}}}]}'), '{}'::jsonb,
	'role b may use the same token for its own, different request');
SELECT is(get_item('{"TableName": "tok_b", "Key": {"pk": {"S": "k9"}}}') -> 'Item', '{"pk": {"S": "k9"}}'::jsonb,
	'and that request was carried out');
RESET ROLE;

SET ROLE sec_tok_a;
SELECT is(transact_write_items('{"ClientRequestToken": "shared-token", "TransactItems": [
	{"Put": {"TableName": "tok_a", "Item": {"pk": {"S": "k1"}, "v": {"N": "1"}}}}]}'), '{}'::jsonb,
	'role a''s own replay still succeeds');
SELECT throws_ok($$SELECT transact_write_items('{"ClientRequestToken": "shared-token", "TransactItems": [
	{"Put": {"TableName": "tok_a", "Item": {"pk": {"S": "k2"}}}}]}')$$,
	'XD010', NULL, 'role a''s token with another request is still a mismatch for role a');
REVOKE INSERT ON item_data.tok_a FROM sec_tok_a;
SELECT throws_ok($$SELECT transact_write_items('{"ClientRequestToken": "shared-token", "TransactItems": [
	{"Put": {"TableName": "tok_a", "Item": {"pk": {"S": "k1"}, "v": {"N": "1"}}}}]}')$$,
	'42501', NULL, 'a replay by a role that has lost the right to write is refused');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
REVOKE CREATE ON SCHEMA item_data FROM sec_tok_a, sec_tok_b;
DROP ROLE sec_tok_a;
DROP ROLE sec_tok_b;
