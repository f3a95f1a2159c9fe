-- On-demand backups and point-in-time recovery: the response shapes and
-- the validation messages (behaviour: test/pgtap/backups.sql; rights:
-- test/security/backups.sql).  Times, ids and ARNs vary from run to run,
-- so the shapes are shown by their keys and the values checked apart.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	det text;
BEGIN
	RETURN item_table.dynamodb(action, request)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, det = PG_EXCEPTION_DETAIL;
	RETURN st || ' ' || det;
END $$;
-- the keys of an object, sorted, nested objects by path
CREATE FUNCTION pg_temp.shape(j jsonb, path text DEFAULT '') RETURNS text LANGUAGE sql AS $$
	SELECT string_agg(CASE WHEN jsonb_typeof(v) = 'object' THEN pg_temp.shape(v, path || k || '.')
		ELSE path || k END, ' ' ORDER BY k)
	FROM jsonb_each(j) AS e(k, v)
$$;

SELECT create_table('{"TableName": "bk_src", "BillingMode": "PROVISIONED",
	"ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 6},
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
		{"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "l", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}, "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 3}}],
	"LocalSecondaryIndexes": [{"IndexName": "by_l", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "l", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;
SELECT put_item('{"TableName": "bk_src", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "g": {"S": "x"}, "l": {"S": "y"}}}');

-- DescribeContinuousBackups: backups always on, recovery off
SELECT pg_temp.try('DescribeContinuousBackups', '{"TableName": "bk_src"}');
SELECT pg_temp.try('DescribeContinuousBackups', '{"TableName": "arn:aws:dynamodb:local:000000000000:table/bk_src"}');
SELECT pg_temp.try('DescribeContinuousBackups', '{"TableName": "nope"}');
SELECT pg_temp.try('DescribeContinuousBackups', '{}');
SELECT pg_temp.try('DescribeContinuousBackups', '{"TableName": "bk_src", "Extra": 1}');
SELECT pg_temp.try('DescribeContinuousBackups', '{"TableName": 7}');
SELECT pg_temp.try('UpdateContinuousBackups', '{"TableName": "bk_src", "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": "yes"}}');

-- UpdateContinuousBackups: validation
SELECT pg_temp.try('UpdateContinuousBackups', '{"TableName": "bk_src"}');
SELECT pg_temp.try('UpdateContinuousBackups', '{"TableName": "bk_src", "PointInTimeRecoverySpecification": {}}');
SELECT pg_temp.try('UpdateContinuousBackups', '{"TableName": "bk_src",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 0}}');
SELECT pg_temp.try('UpdateContinuousBackups', '{"TableName": "bk_src",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 36}}');
SELECT pg_temp.try('UpdateContinuousBackups', '{"TableName": "x",
	"PointInTimeRecoverySpecification": {"RecoveryPeriodInDays": 36}}');
SELECT pg_temp.try('UpdateContinuousBackups', '{"TableName": "bk_src",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": false, "RecoveryPeriodInDays": 3}}');
SELECT pg_temp.try('UpdateContinuousBackups', '{"TableName": "nope",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}');
-- enabled: the description's members, the period, the window
SELECT pg_temp.shape(d), d #> '{ContinuousBackupsDescription,PointInTimeRecoveryDescription,RecoveryPeriodInDays}' AS days,
	(d #>> '{ContinuousBackupsDescription,PointInTimeRecoveryDescription,EarliestRestorableDateTime}')::numeric
		<= (d #>> '{ContinuousBackupsDescription,PointInTimeRecoveryDescription,LatestRestorableDateTime}')::numeric AS ordered
FROM (SELECT dynamodb('UpdateContinuousBackups', '{"TableName": "bk_src",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 7}}') AS d) x;
-- enabled again without a period: the period stays
SELECT dynamodb('UpdateContinuousBackups', '{"TableName": "bk_src",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}')
	#> '{ContinuousBackupsDescription,PointInTimeRecoveryDescription,RecoveryPeriodInDays}' AS days;

-- RestoreTableToPointInTime: validation
SELECT pg_temp.try('RestoreTableToPointInTime', '{"SourceTableName": "bk_src"}');
SELECT pg_temp.try('RestoreTableToPointInTime', '{"SourceTableName": "bk_src", "TargetTableName": "t!"}');
SELECT pg_temp.try('RestoreTableToPointInTime', '{"TargetTableName": "bk_new", "UseLatestRestorableTime": true}');
SELECT pg_temp.try('RestoreTableToPointInTime', '{"SourceTableName": "bk_src", "TargetTableName": "bk_new"}');
SELECT pg_temp.try('RestoreTableToPointInTime', '{"SourceTableName": "bk_src", "TargetTableName": "bk_new",
	"UseLatestRestorableTime": true, "RestoreDateTime": 1700000000}');
SELECT pg_temp.try('RestoreTableToPointInTime', '{"SourceTableName": "bk_src", "TargetTableName": "bk_src",
	"UseLatestRestorableTime": true}');
SELECT pg_temp.try('RestoreTableToPointInTime', '{"SourceTableName": "nope", "TargetTableName": "bk_new",
	"UseLatestRestorableTime": true}');
SELECT regexp_replace(pg_temp.try('RestoreTableToPointInTime', '{"SourceTableName": "bk_src", "TargetTableName": "bk_new",
	"RestoreDateTime": 1000000000}'), '\d{4}-\d\d-\d\dT[0-9:.]+Z', 'TIME', 'g');
-- the restore: a new table with the source's definition and items
SELECT pg_temp.shape(d -> 'TableDescription' -> 'RestoreSummary') AS summary,
	d #> '{TableDescription,RestoreSummary,SourceTableArn}' AS source_arn,
	d #> '{TableDescription,TableStatus}' AS status,
	d #> '{TableDescription,KeySchema}' AS key_schema,
	d #> '{TableDescription,ProvisionedThroughput,ReadCapacityUnits}' AS rcu,
	jsonb_path_query_array(d, '$.TableDescription.GlobalSecondaryIndexes[*].IndexName') AS gsis,
	jsonb_path_query_array(d, '$.TableDescription.LocalSecondaryIndexes[*].IndexName') AS lsis
FROM (SELECT dynamodb('RestoreTableToPointInTime', '{"SourceTableName": "bk_src", "TargetTableName": "bk_pitr",
	"UseLatestRestorableTime": true}') AS d) x;
SELECT key, item FROM item_data.bk_pitr;
-- overrides: on demand, no indexes
SELECT d #> '{TableDescription,BillingModeSummary,BillingMode}' AS billing,
	d -> 'TableDescription' ? 'GlobalSecondaryIndexes' AS has_gsi,
	d -> 'TableDescription' ? 'LocalSecondaryIndexes' AS has_lsi,
	d #> '{TableDescription,AttributeDefinitions}' AS attrs
FROM (SELECT dynamodb('RestoreTableToPointInTime', '{"SourceTableArn": "arn:aws:dynamodb:local:000000000000:table/bk_src",
	"TargetTableName": "bk_pitr2", "UseLatestRestorableTime": true, "BillingModeOverride": "PAY_PER_REQUEST",
	"GlobalSecondaryIndexOverride": [], "LocalSecondaryIndexOverride": []}') AS d) x;
-- switched off: history gone, restores refused
SELECT dynamodb('UpdateContinuousBackups', '{"TableName": "bk_src",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": false}}');
SELECT pg_temp.try('RestoreTableToPointInTime', '{"SourceTableName": "bk_src", "TargetTableName": "bk_new",
	"UseLatestRestorableTime": true}');

-- CreateBackup
SELECT pg_temp.try('CreateBackup', '{"TableName": "bk_src"}');
SELECT pg_temp.try('CreateBackup', '{"TableName": "bk_src", "BackupName": "a b"}');
SELECT pg_temp.try('CreateBackup', '{"TableName": "bk_src", "BackupName": "ab"}');
SELECT pg_temp.try('CreateBackup', '{"TableName": "nope", "BackupName": "one"}');
SELECT pg_temp.shape(d) AS shape, d #> '{BackupDetails,BackupName}' AS name,
	d #> '{BackupDetails,BackupStatus}' AS status, d #> '{BackupDetails,BackupType}' AS type,
	d #>> '{BackupDetails,BackupArn}' ~ '^arn:aws:dynamodb:local:000000000000:table/bk_src/backup/\d{14}-[0-9a-f]{8}$' AS arn_ok
FROM (SELECT dynamodb('CreateBackup', '{"TableName": "bk_src", "BackupName": "first"}') AS d) x;
SELECT put_item('{"TableName": "bk_src", "Item": {"pk": {"S": "b"}, "sk": {"N": "2"}}}');
SELECT dynamodb('CreateBackup', '{"TableName": "bk_src", "BackupName": "second"}') IS NOT NULL AS second;
SELECT create_table('{"TableName": "bk_other", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
SELECT dynamodb('CreateBackup', '{"TableName": "bk_other", "BackupName": "third"}') IS NOT NULL AS third;

-- DescribeBackup
SELECT pg_temp.try('DescribeBackup', '{}');
SELECT pg_temp.try('DescribeBackup', '{"BackupArn": "short"}');
SELECT pg_temp.try('DescribeBackup', '{"BackupArn": "arn:aws:dynamodb:local:000000000000:table/bk_src/backup/01234567890123-abcdef01"}');
SELECT pg_temp.shape(d) AS shape,
	d #> '{BackupDescription,SourceTableDetails,ItemCount}' AS items,
	d #> '{BackupDescription,SourceTableDetails,ProvisionedThroughput}' AS throughput,
	d #> '{BackupDescription,SourceTableFeatureDetails}' AS features
FROM (SELECT dynamodb('DescribeBackup', jsonb_build_object('BackupArn', backup_arn)) AS d
	FROM backups WHERE backup_name = 'first') x;

-- ListBackups: filters, pagination
SELECT pg_temp.try('ListBackups', '{"Limit": 0}');
SELECT pg_temp.try('ListBackups', '{"Limit": 101}');
SELECT pg_temp.try('ListBackups', '{"BackupType": "OTHER"}');
SELECT pg_temp.try('ListBackups', '{"TimeRangeLowerBound": 2000000000, "TimeRangeUpperBound": 1000000000}');
SELECT jsonb_path_query_array(dynamodb('ListBackups', '{}'), '$.BackupSummaries[*].BackupName') AS all_user;
SELECT jsonb_path_query_array(dynamodb('ListBackups', '{"TableName": "bk_src"}'), '$.BackupSummaries[*].BackupName') AS of_src;
SELECT jsonb_path_query_array(dynamodb('ListBackups', '{"BackupType": "SYSTEM"}'), '$.BackupSummaries[*].BackupName') AS system;
SELECT jsonb_path_query_array(dynamodb('ListBackups', '{"TimeRangeUpperBound": 1000000000}'), '$.BackupSummaries[*].BackupName') AS before_2001;
SELECT pg_temp.shape(d -> 'BackupSummaries' -> 0) AS summary_shape,
	jsonb_path_query_array(d, '$.BackupSummaries[*].BackupName') AS page1,
	d ->> 'LastEvaluatedBackupArn' = (SELECT backup_arn FROM backups WHERE backup_name = 'second') AS last_is_second
FROM (SELECT dynamodb('ListBackups', '{"Limit": 2}') AS d) x;
SELECT jsonb_path_query_array(dynamodb('ListBackups', jsonb_build_object('Limit', 2,
	'ExclusiveStartBackupArn', (SELECT backup_arn FROM backups WHERE backup_name = 'second'))), '$.BackupSummaries[*].BackupName') AS page2,
	dynamodb('ListBackups', jsonb_build_object('Limit', 2,
	'ExclusiveStartBackupArn', (SELECT backup_arn FROM backups WHERE backup_name = 'second'))) ? 'LastEvaluatedBackupArn' AS more;

-- RestoreTableFromBackup, after the source is gone
SELECT delete_table('{"TableName": "bk_src"}') IS NOT NULL AS deleted;
SELECT pg_temp.try('RestoreTableFromBackup', '{"TargetTableName": "bk_back"}');
SELECT pg_temp.try('RestoreTableFromBackup', jsonb_build_object('BackupArn',
	(SELECT backup_arn FROM backups WHERE backup_name = 'first'), 'TargetTableName', 'bk_other'));
SELECT pg_temp.shape(d -> 'TableDescription' -> 'RestoreSummary') AS summary,
	d #>> '{TableDescription,RestoreSummary,SourceBackupArn}' = (SELECT backup_arn FROM backups WHERE backup_name = 'first') AS from_first,
	(d #>> '{TableDescription,RestoreSummary,RestoreDateTime}')::numeric
		= (SELECT round(extract(epoch FROM date_trunc('milliseconds', created_at))::numeric, 3) FROM backups WHERE backup_name = 'first') AS at_backup_time,
	jsonb_path_query_array(d, '$.TableDescription.GlobalSecondaryIndexes[*].IndexName') AS gsis
FROM (SELECT dynamodb('RestoreTableFromBackup', jsonb_build_object('BackupArn',
	(SELECT backup_arn FROM backups WHERE backup_name = 'first'), 'TargetTableName', 'bk_back')) AS d) x;
SELECT key, item FROM item_data.bk_back;
SELECT ikey, key FROM item_data."bk_back#by_g";
SELECT describe_table('{"TableName": "bk_back"}') -> 'Table' -> 'RestoreSummary' ? 'SourceBackupArn' AS described;
SELECT describe_table('{"TableName": "bk_other"}') -> 'Table' ? 'RestoreSummary' AS plain_has_summary;

-- DeleteBackup
SELECT d #> '{BackupDescription,BackupDetails,BackupStatus}' AS status
FROM (SELECT dynamodb('DeleteBackup', jsonb_build_object('BackupArn', backup_arn)) AS d
	FROM backups WHERE backup_name = 'first') x;
SELECT count(*) AS left_backups FROM backups;
SELECT pg_temp.try('DeleteBackup', '{"BackupArn": "arn:aws:dynamodb:local:000000000000:table/bk_src/backup/01234567890123-abcdef01"}');

-- clean up
SELECT dynamodb('DeleteBackup', jsonb_build_object('BackupArn', backup_arn)) IS NOT NULL FROM backups ORDER BY backup_id;
SELECT delete_table(jsonb_build_object('TableName', t)) IS NOT NULL
FROM unnest(ARRAY['bk_pitr', 'bk_pitr2', 'bk_back', 'bk_other']) t;
SELECT count(*) AS restores_left FROM table_restores t JOIN tables USING (table_id);
