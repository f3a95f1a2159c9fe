-- Tags, deletion protection and table class are the owner's to change, as
-- every other control-plane change is; reading them is everyone's.  A
-- plain DROP TABLE takes the tags with it.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP ROLE IF EXISTS sec_ctl_owner;
DROP ROLE IF EXISTS sec_ctl_other;
CREATE ROLE sec_ctl_owner;
CREATE ROLE sec_ctl_other;
GRANT CREATE ON SCHEMA item_data TO sec_ctl_owner;

BEGIN;
SELECT plan(11);
SET search_path = public, item_table;

SET ROLE sec_ctl_owner;
SELECT lives_ok($$SELECT create_table('{"TableName": "ctl_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "DeletionProtectionEnabled": true,
	"Tags": [{"Key": "env", "Value": "prod"}]}')$$, 'the owner creates a protected, tagged table');
RESET ROLE;

SET ROLE sec_ctl_other;
SELECT throws_ok($$SELECT tag_resource('{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl_t",
	"Tags": [{"Key": "env", "Value": "hacked"}]}')$$, '42501', NULL, 'another role cannot tag the table');
SELECT throws_ok($$SELECT untag_resource('{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl_t",
	"TagKeys": ["env"]}')$$, '42501', NULL, 'another role cannot untag the table');
SELECT throws_ok($$SELECT update_table('{"TableName": "ctl_t", "DeletionProtectionEnabled": false}')$$,
	'42501', NULL, 'another role cannot switch deletion protection off');
SELECT throws_ok($$SELECT update_table('{"TableName": "ctl_t", "TableClass": "STANDARD_INFREQUENT_ACCESS"}')$$,
	'42501', NULL, 'another role cannot change the table class');
SELECT is(list_tags_of_resource('{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/ctl_t"}'),
	'{"Tags": [{"Key": "env", "Value": "prod"}]}'::jsonb, 'another role reads the tags, unchanged');
SELECT throws_ok($$INSERT INTO item_table.tags VALUES ('ctl_t', 'x', 'y')$$, '42501', NULL,
	'the tag catalog is not writable directly');
RESET ROLE;

SELECT is((describe_table('{"TableName": "ctl_t"}') -> 'Table' ->> 'DeletionProtectionEnabled'), 'true',
	'deletion protection still on');
SET ROLE sec_ctl_owner;
SELECT throws_ok($$SELECT delete_table('{"TableName": "ctl_t"}')$$, 'XD001',
	'ValidationException: Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.',
	'even the owner cannot delete a protected table through the API');
SELECT lives_ok($$DROP TABLE item_data.ctl_t$$, 'a plain DROP TABLE by the owner still works (PostgreSQL privileges decide)');
RESET ROLE;
SELECT is((SELECT count(*) FROM item_table.tags WHERE table_name = 'ctl_t'), 0::bigint,
	'the dropped table''s tags are gone');

SELECT * FROM finish();
ROLLBACK;
REVOKE CREATE ON SCHEMA item_data FROM sec_ctl_owner;
DROP ROLE sec_ctl_owner;
DROP ROLE sec_ctl_other;
