-- Backups and point-in-time recovery follow the table owner's rights: a
-- role that may write a table but does not own it cannot switch its
-- recovery on or off, back it up, restore it (to a time or from its
-- backups) or delete its backups; a member of the owner's role can.  The
-- copies (item_table.backup_items, item_table.pitr_history) are readable
-- and writable by no one but the extension's owner -- writers' history is
-- written for them, not with their rights -- and the privileged steps
-- check the caller's rights themselves when called directly.  A restored
-- table belongs to the caller, who needs CREATE on item_data as for
-- CreateTable.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP ROLE IF EXISTS sec_bk_owner;
DROP ROLE IF EXISTS sec_bk_writer;
DROP ROLE IF EXISTS sec_bk_member;
DROP ROLE IF EXISTS sec_bk_nocreate;

BEGIN;
CREATE ROLE sec_bk_owner;
CREATE ROLE sec_bk_writer;
CREATE ROLE sec_bk_member IN ROLE sec_bk_owner;
CREATE ROLE sec_bk_nocreate;
GRANT CREATE ON SCHEMA item_data TO sec_bk_owner, sec_bk_writer, sec_bk_member;
SET search_path = public, item_table;
SELECT plan(32);

-- the owner's table, with recovery on and a backup; the writer may write it
SET ROLE sec_bk_owner;
SELECT ok(create_table('{"TableName": "bk_sec", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') ? 'TableDescription', 'the owner makes a table');
SELECT ok(dynamodb('UpdateContinuousBackups', '{"TableName": "bk_sec",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}') IS NOT NULL, 'and enables its recovery');
SELECT ok(put_item('{"TableName": "bk_sec", "Item": {"pk": {"S": "secret"}}}') IS NOT NULL, 'and writes an item');
CREATE TEMP TABLE bk AS SELECT dynamodb('CreateBackup', '{"TableName": "bk_sec", "BackupName": "own"}')
	#>> '{BackupDetails,BackupArn}' AS arn;
GRANT SELECT ON bk TO PUBLIC;
GRANT SELECT, INSERT, UPDATE, DELETE ON item_data.bk_sec TO sec_bk_writer;
RESET ROLE;

-- the writer: writes, and its changes are in the history it cannot touch
SET ROLE sec_bk_writer;
SELECT ok(put_item('{"TableName": "bk_sec", "Item": {"pk": {"S": "w"}}}') IS NOT NULL, 'the writer writes (API)');
SELECT lives_ok($$INSERT INTO item_data.bk_sec (key, item) VALUES (NULL, '{"pk": {"S": "w2"}}')$$,
	'and by plain SQL');
SELECT throws_ok('SELECT * FROM item_table.pitr_history', '42501', NULL, 'the writer cannot read the history');
SELECT throws_ok($$INSERT INTO item_table.pitr_history VALUES ('item_data.bk_sec'::regclass, now(), 'S"x"', '{"pk": {"S": "x"}}')$$,
	'42501', NULL, 'nor forge it');
SELECT throws_ok('SELECT * FROM item_table.backup_items', '42501', NULL, 'nor read the backups'' items');
SELECT throws_ok($$SELECT item_table.dynamodb('UpdateContinuousBackups', '{"TableName": "bk_sec",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": false}}')$$,
	'42501', NULL, 'the writer cannot switch the recovery off');
SELECT throws_ok($$SELECT item_table.dynamodb('CreateBackup', '{"TableName": "bk_sec", "BackupName": "mine"}')$$,
	'42501', NULL, 'nor back the table up');
SELECT throws_ok($$SELECT item_table.dynamodb('RestoreTableToPointInTime', '{"SourceTableName": "bk_sec",
	"TargetTableName": "bk_stolen", "UseLatestRestorableTime": true}')$$,
	'42501', NULL, 'nor restore it to a time');
SELECT throws_ok($$SELECT item_table.dynamodb('RestoreTableFromBackup', jsonb_build_object('BackupArn', (SELECT arn FROM bk),
	'TargetTableName', 'bk_stolen'))$$, '42501', NULL, 'nor restore its backup');
SELECT throws_ok($$SELECT item_table.dynamodb('DeleteBackup', jsonb_build_object('BackupArn', (SELECT arn FROM bk)))$$,
	'42501', NULL, 'nor delete its backup');
SELECT ok(NOT EXISTS (SELECT FROM item_table.tables WHERE table_name = 'bk_stolen'), 'no table was left by the refusals');
-- the privileged steps called directly check the same
SELECT throws_ok($$SELECT item_table.backup_copy('item_data.bk_sec'::regclass, 'bk_sec',
	(SELECT table_id FROM item_table.tables WHERE table_name = 'bk_sec'), 'direct', '{}')$$,
	'42501', NULL, 'backup_copy() refuses a non-owner');
SELECT throws_ok($$SELECT item_table.pitr_set('item_data.bk_sec'::regclass, 'bk_sec',
	(SELECT table_id FROM item_table.tables WHERE table_name = 'bk_sec'), false, NULL)$$,
	'42501', NULL, 'pitr_set() refuses a non-owner');
SELECT ok(create_table('{"TableName": "bk_writer_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') ? 'TableDescription', 'the writer makes a table of its own');
SELECT throws_ok($$SELECT item_table.backup_restore((SELECT backup_id FROM item_table.backups WHERE backup_name = 'own'),
	'item_data.bk_writer_t'::regclass, (SELECT table_id FROM item_table.tables WHERE table_name = 'bk_writer_t'), 'x', 'y')$$,
	'42501', NULL, 'backup_restore() into its own table refuses another owner''s backup');
SELECT throws_ok($$SELECT item_table.pitr_restore('item_data.bk_sec'::regclass,
	(SELECT table_id FROM item_table.tables WHERE table_name = 'bk_sec'), now(),
	'item_data.bk_writer_t'::regclass, (SELECT table_id FROM item_table.tables WHERE table_name = 'bk_writer_t'), 'x')$$,
	'42501', NULL, 'pitr_restore() into its own table refuses another owner''s source');
SELECT is((SELECT count(*) FROM item_data.bk_writer_t), 0::bigint, 'nothing was copied into it');
SELECT throws_ok($$SELECT item_table.trim_pitr_history(now() + interval '100 days', 1000)$$,
	'42501', NULL, 'the writer cannot trim the history');
RESET ROLE;
SELECT is((SELECT count(*) FROM item_table.pitr_history WHERE relid = 'item_data.bk_sec'::regclass), 3::bigint,
	'the writer''s changes are in the history (written for it)');

-- a member of the owner's role may do all of it; the restored table is its own
SET ROLE sec_bk_member;
SELECT ok(dynamodb('RestoreTableToPointInTime', '{"SourceTableName": "bk_sec", "TargetTableName": "bk_member_pitr",
	"UseLatestRestorableTime": true}') ? 'TableDescription', 'a member of the owner''s role restores to a time');
SELECT ok(dynamodb('RestoreTableFromBackup', jsonb_build_object('BackupArn', (SELECT arn FROM bk),
	'TargetTableName', 'bk_member_bk')) ? 'TableDescription', 'and from the backup');
RESET ROLE;
SELECT is((SELECT relowner::regrole::text FROM pg_class WHERE oid = 'item_data.bk_member_pitr'::regclass), 'sec_bk_member',
	'the restored table belongs to the caller');
SELECT is((SELECT count(*) FROM item_data.bk_member_pitr), 3::bigint, 'with the items of the moment');
SELECT is((SELECT count(*) FROM item_data.bk_member_bk), 1::bigint, 'and the backup''s items');

-- the owner is named by OID and name: under another name (as a role made
-- later with a dropped owner's OID would be) it has no backups
ALTER ROLE sec_bk_owner RENAME TO sec_bk_owner_renamed;
SET ROLE sec_bk_member;
SELECT throws_ok($$SELECT item_table.dynamodb('RestoreTableFromBackup', jsonb_build_object('BackupArn', (SELECT arn FROM bk),
	'TargetTableName', 'bk_renamed'))$$, '42501', NULL, 'a backup is not its owner''s under another name');
SELECT throws_ok($$SELECT item_table.backup_drop((SELECT backup_id FROM item_table.backups WHERE backup_name = 'own'))$$,
	'42501', NULL, 'nor may backup_drop() delete it');
RESET ROLE;
ALTER ROLE sec_bk_owner_renamed RENAME TO sec_bk_owner;

-- without CREATE on item_data, no restore, even of one's own backup
GRANT sec_bk_owner TO sec_bk_nocreate;
REVOKE CREATE ON SCHEMA item_data FROM sec_bk_owner;
SET ROLE sec_bk_nocreate;
SELECT throws_ok($$SELECT item_table.dynamodb('RestoreTableFromBackup', jsonb_build_object('BackupArn', (SELECT arn FROM bk),
	'TargetTableName', 'bk_nocreate'))$$, '42501', NULL, 'a restore needs CREATE on item_data');
RESET ROLE;

-- the functions: no SECURITY DEFINER among them, a pinned search_path on
-- every one in SQL, the trimming not for PUBLIC
SELECT is((SELECT count(*) FROM pg_proc WHERE pronamespace = 'item_table'::regnamespace
	AND (proname LIKE 'backup%' OR proname LIKE 'pitr%' OR proname LIKE '%backup%' OR proname LIKE 'restore_table%')
	AND prosecdef), 0::bigint, 'no backup function is SECURITY DEFINER');
SELECT is((SELECT count(*) FROM pg_proc WHERE pronamespace = 'item_table'::regnamespace
	AND (proname LIKE 'backup%' OR proname LIKE '%backup%' OR proname LIKE 'restore_table%' OR proname = 'trim_pitr_history')
	AND prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql')
	AND NOT coalesce(proconfig @> ARRAY['search_path=pg_catalog, pg_temp'], false)), 0::bigint,
	'every backup function in PL/pgSQL pins its search_path');

SELECT * FROM finish();
ROLLBACK;
