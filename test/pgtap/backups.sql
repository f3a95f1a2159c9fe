-- Backups and point-in-time recovery, in one transaction: restores to
-- three chosen times equal the table as it was then (items and index
-- rows), whichever path wrote the changes (the API's direct writes, its
-- statements, plain SQL, a key changed by plain SQL); a backup is the
-- table as it was when taken, restores after its source is deleted, and
-- its index rows are built again; the history is trimmed past the
-- recovery period.  Nothing commits: the clock moves on between the
-- chosen times (clock_timestamp), which is what the history records.
BEGIN;
SELECT plan(29);
SET search_path = item_table, public;

SELECT ok(create_table('{"TableName": "pt_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
		{"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}]}') ? 'TableDescription', 'a table with a GSI');
-- items written before recovery is enabled are the base every restore starts from
SELECT put_item(jsonb_build_object('TableName', 'pt_t', 'Item', jsonb_build_object(
	'pk', jsonb_build_object('S', 'p' || (i % 3)), 'sk', jsonb_build_object('N', i::text),
	'g', jsonb_build_object('S', 'g' || (i % 2)), 'v', jsonb_build_object('N', '0'))))
FROM generate_series(1, 12) i;
SELECT is(dynamodb('UpdateContinuousBackups', '{"TableName": "pt_t",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 2}}')
	#>> '{ContinuousBackupsDescription,PointInTimeRecoveryDescription,PointInTimeRecoveryStatus}', 'ENABLED',
	'point-in-time recovery enabled');
SELECT ok(EXISTS (SELECT FROM pg_trigger WHERE tgrelid = 'item_data.pt_t'::regclass AND tgname = 'item_pitr_history'),
	'the history trigger is on the table');

-- the states, saved as they are at each chosen time
CREATE TEMP TABLE states (n int, at timestamptz, key item_key, item jsonb);
CREATE TEMP TABLE index_states (n int, ikey item_key, key item_key, item jsonb);
CREATE FUNCTION pg_temp.mark(n int) RETURNS void LANGUAGE sql AS $$
	SELECT pg_sleep(0.002);
	INSERT INTO states SELECT n, clock_timestamp(), key, item FROM item_data.pt_t;
	INSERT INTO states SELECT n, (SELECT max(at) FROM states WHERE states.n = mark.n), NULL, NULL
		WHERE NOT EXISTS (SELECT FROM item_data.pt_t);
	INSERT INTO index_states SELECT n, ikey, key, item FROM item_data."pt_t#by_g";
	SELECT pg_sleep(0.002);
$$;
SELECT pg_temp.mark(1);

-- changes through the API: UpdateItem and DeleteItem (direct paths), a
-- replacing PutItem, a new item, a conditional write
SELECT update_item(('{"TableName": "pt_t", "Key": {"pk": {"S": "p' || (i % 3) || '"}, "sk": {"N": "' || i || '"}},
	"UpdateExpression": "SET v = v + :one, g = :g", "ExpressionAttributeValues": {":one": {"N": "1"}, ":g": {"S": "moved"}}}')::jsonb)
FROM generate_series(1, 4) i;
SELECT delete_item('{"TableName": "pt_t", "Key": {"pk": {"S": "p2"}, "sk": {"N": "5"}}}');
SELECT put_item('{"TableName": "pt_t", "Item": {"pk": {"S": "p0"}, "sk": {"N": "6"}, "v": {"N": "60"}}}');
SELECT put_item('{"TableName": "pt_t", "Item": {"pk": {"S": "new"}, "sk": {"N": "1"}, "g": {"S": "g9"}}}');
SELECT put_item('{"TableName": "pt_t", "Item": {"pk": {"S": "p1"}, "sk": {"N": "7"}, "v": {"N": "70"}},
	"ConditionExpression": "attribute_exists(pk)"}');
SELECT pg_temp.mark(2);

-- changes by plain SQL, a key changed in place among them, and by a transaction
UPDATE item_data.pt_t SET item = item || '{"v": {"N": "100"}}' WHERE key = item_key('{"S": "p2"}', '{"N": "8"}');
UPDATE item_data.pt_t SET key = NULL, item = jsonb_set(item, '{sk}', '{"N": "900"}')
	WHERE key = item_key('{"S": "p0"}', '{"N": "9"}');
DELETE FROM item_data.pt_t WHERE key = item_key('{"S": "p1"}', '{"N": "10"}');
SELECT transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "pt_t", "Item": {"pk": {"S": "tx"}, "sk": {"N": "1"}}}},
	{"Delete": {"TableName": "pt_t", "Key": {"pk": {"S": "p2"}, "sk": {"N": "11"}}}}]}');
SELECT pg_temp.mark(3);

-- and more afterwards, which no restore below may show
SELECT put_item('{"TableName": "pt_t", "Item": {"pk": {"S": "late"}, "sk": {"N": "1"}}}');
DELETE FROM item_data.pt_t WHERE key = item_key('{"S": "p0"}', '{"N": "3"}');

SELECT ok(EXISTS (SELECT FROM pitr_history WHERE relid = 'item_data.pt_t'::regclass AND old_item IS NULL)
	AND EXISTS (SELECT FROM pitr_history WHERE relid = 'item_data.pt_t'::regclass AND old_item IS NOT NULL),
	'the history holds inserts and old images');

-- restore each chosen time and compare
CREATE FUNCTION pg_temp.restore(n int) RETURNS jsonb LANGUAGE sql AS $$
	SELECT dynamodb('RestoreTableToPointInTime', jsonb_build_object('SourceTableName', 'pt_t',
		'TargetTableName', 'pt_r' || n,
		'RestoreDateTime', extract(epoch FROM (SELECT max(at) FROM states WHERE states.n = restore.n))))
$$;
SELECT ok(pg_temp.restore(1) ? 'TableDescription', 'restored to time 1');
SELECT ok(pg_temp.restore(2) ? 'TableDescription', 'restored to time 2');
SELECT ok(pg_temp.restore(3) ? 'TableDescription', 'restored to time 3');
SELECT set_eq('SELECT key, item FROM item_data.pt_r1',
	'SELECT key, item FROM states WHERE n = 1 AND key IS NOT NULL', 'time 1: the items as they were');
SELECT set_eq('SELECT key, item FROM item_data.pt_r2',
	'SELECT key, item FROM states WHERE n = 2 AND key IS NOT NULL', 'time 2: the items after the API''s writes');
SELECT set_eq('SELECT key, item FROM item_data.pt_r3',
	'SELECT key, item FROM states WHERE n = 3 AND key IS NOT NULL', 'time 3: the items after plain SQL and a transaction');
SELECT set_eq('SELECT ikey, key, item FROM item_data."pt_r1#by_g"',
	'SELECT ikey, key, item FROM index_states WHERE n = 1', 'time 1: the index rows built again');
SELECT set_eq('SELECT ikey, key, item FROM item_data."pt_r2#by_g"',
	'SELECT ikey, key, item FROM index_states WHERE n = 2', 'time 2: the index rows');
SELECT set_eq('SELECT ikey, key, item FROM item_data."pt_r3#by_g"',
	'SELECT ikey, key, item FROM index_states WHERE n = 3', 'time 3: the index rows');
SELECT isnt((SELECT count(*) FROM states WHERE n = 1), (SELECT count(*) FROM states WHERE n = 3),
	'the three times differ');
SELECT is((SELECT relowner FROM pg_class WHERE oid = 'item_data.pt_r1'::regclass), current_user::regrole::oid,
	'a restored table belongs to the caller');
SELECT ok(NOT EXISTS (SELECT FROM pg_trigger WHERE tgrelid = 'item_data.pt_r1'::regclass AND tgname = 'item_pitr_history'),
	'a restored table has no recovery of its own');
-- the latest time: the table as it is
SELECT ok(dynamodb('RestoreTableToPointInTime', '{"SourceTableName": "pt_t", "TargetTableName": "pt_now",
	"UseLatestRestorableTime": true}') ? 'TableDescription', 'restored to the latest time');
SELECT set_eq('SELECT key, item FROM item_data.pt_now', 'SELECT key, item FROM item_data.pt_t',
	'the latest time is the table now');

-- backups: the table when taken, whatever comes after, after the source is gone
CREATE TEMP TABLE at_backup AS SELECT key, item FROM item_data.pt_t;
CREATE TEMP TABLE bk AS SELECT dynamodb('CreateBackup', '{"TableName": "pt_t", "BackupName": "pt_bk"}')
	#>> '{BackupDetails,BackupArn}' AS arn;
SELECT put_item('{"TableName": "pt_t", "Item": {"pk": {"S": "after"}, "sk": {"N": "1"}, "g": {"S": "g1"}}}');
UPDATE item_data.pt_t SET item = item || '{"v": {"N": "5"}}';
SELECT is((SELECT item_count FROM backups WHERE backup_arn = (SELECT arn FROM bk)), (SELECT count(*) FROM at_backup),
	'the backup counts the items it holds');
SELECT ok(delete_table('{"TableName": "pt_t"}') ? 'TableDescription', 'the source is deleted');
SELECT is((SELECT count(*) FROM continuous_backups WHERE table_name = 'pt_t'), 0::bigint,
	'its recovery went with it');
SELECT ok(dynamodb('RestoreTableFromBackup', jsonb_build_object('BackupArn', (SELECT arn FROM bk),
	'TargetTableName', 'pt_t')) ? 'TableDescription', 'the backup restores under the deleted table''s name');
SELECT set_eq('SELECT key, item FROM item_data.pt_t', 'SELECT key, item FROM at_backup',
	'the restored items are those of the backup''s moment');
SELECT set_eq('SELECT ikey, key FROM item_data."pt_t#by_g"',
	'SELECT i.ikey, a.key FROM at_backup a, index_entries(''pt_t'', ''by_g'', a.key, a.item) i',
	'its index rows are built again');

-- trimming: nothing inside the period, everything past it (or of a table
-- without recovery)
SELECT ok(dynamodb('UpdateContinuousBackups', '{"TableName": "pt_r3",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 1}}') IS NOT NULL,
	'recovery on a restored table');
SELECT put_item('{"TableName": "pt_r3", "Item": {"pk": {"S": "h"}, "sk": {"N": "1"}}}');
SELECT ok(trim_pitr_history(now(), 100000) > 0, 'trimming deletes history');
SELECT ok(NOT EXISTS (SELECT FROM pitr_history h WHERE NOT EXISTS (SELECT FROM continuous_backups c WHERE c.relid = h.relid)),
	'the history of tables without recovery is trimmed');
SELECT is((SELECT count(*) FROM pitr_history WHERE relid = 'item_data.pt_r3'::regclass), 1::bigint,
	'the history inside the period stays');
SELECT is(trim_pitr_history(now() + interval '25 hours', 100000), 1::bigint,
	'and goes once it is past the period');

SELECT * FROM finish();
ROLLBACK;
