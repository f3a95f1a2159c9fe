-- DynamoDB Streams: StreamSpecification in CreateTable, UpdateTable and
-- DescribeTable; what each write leaves in the stream; ListStreams,
-- DescribeStream, GetShardIterator, GetRecords (shapes and errors);
-- trimming; Time to Live deletions as service deletions; rights.
-- Labels, ARNs and times change from run to run: they are checked
-- against their patterns, and sequence numbers are shown relative to the
-- stream's start.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	det text;
BEGIN
	RETURN item_table.dynamodb(action, request)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS det = PG_EXCEPTION_DETAIL;
	RETURN coalesce(nullif(det, ''), SQLERRM);
END $$;
-- GetRecords and GetShardIterator at a given time
CREATE FUNCTION pg_temp.try_at(action text, request jsonb, as_of timestamptz) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	det text;
BEGIN
	IF action = 'GetRecords' THEN
		RETURN item_table.get_records(request, as_of)::text;
	END IF;
	RETURN item_table.get_shard_iterator(request, as_of)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS det = PG_EXCEPTION_DETAIL;
	RETURN coalesce(nullif(det, ''), SQLERRM);
END $$;
-- the records of a table's latest stream: event, keys, images
CREATE FUNCTION pg_temp.events(t text) RETURNS TABLE (n bigint, event text, keys jsonb, new_image jsonb, old_image jsonb)
LANGUAGE sql AS $$
	SELECT r.sequence_number - s.start_seq, r.event_name, r.keys, r.new_image, r.old_image
	FROM item_table.stream_records(t) r,
		(SELECT start_seq FROM item_table.streams WHERE table_name = t ORDER BY stream_id DESC LIMIT 1) s
	ORDER BY 1 $$;
-- a stream's ARN, shard and an iterator
CREATE FUNCTION pg_temp.arn(t text) RETURNS text LANGUAGE sql AS $$
	SELECT item_table.describe_table(jsonb_build_object('TableName', t))->'Table'->>'LatestStreamArn' $$;
CREATE FUNCTION pg_temp.shard(arn text) RETURNS text LANGUAGE sql AS $$
	SELECT item_table.describe_stream(jsonb_build_object('StreamArn', arn))
		->'StreamDescription'->'Shards'->0->>'ShardId' $$;
CREATE FUNCTION pg_temp.iterator(t text, type text, seq text DEFAULT NULL) RETURNS text LANGUAGE sql AS $$
	SELECT item_table.get_shard_iterator(jsonb_strip_nulls(jsonb_build_object('StreamArn', pg_temp.arn(t),
		'ShardId', pg_temp.shard(pg_temp.arn(t)), 'ShardIteratorType', type, 'SequenceNumber', seq)))->>'ShardIterator' $$;
-- GetRecords, records shown as (event, relative sequence number, keys)
CREATE FUNCTION pg_temp.read(it text, lim int DEFAULT 1000)
RETURNS TABLE (event text, n bigint, keys jsonb, has_new boolean, has_old boolean, next_iterator boolean)
LANGUAGE sql AS $$
	WITH r AS (SELECT item_table.get_records(jsonb_build_object('ShardIterator', it, 'Limit', lim)) AS res)
	SELECT e->>'eventName', (e->'dynamodb'->>'SequenceNumber')::bigint -
			(SELECT s.start_seq FROM item_table.streams s
			 WHERE s.stream_id = split_part(convert_from(decode(it, 'base64'), 'UTF8'), ':', 1)::int),
		e->'dynamodb'->'Keys', e->'dynamodb' ? 'NewImage', e->'dynamodb' ? 'OldImage', r.res ? 'NextShardIterator'
	FROM r LEFT JOIN LATERAL jsonb_array_elements(r.res->'Records') e ON true $$;

-- ---------------------------------------------------------------------
-- StreamSpecification
-- ---------------------------------------------------------------------
-- shape errors
SELECT pg_temp.try('CreateTable', '{"TableName": "orders", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamViewType": "NEW_IMAGE"}}');
SELECT pg_temp.try('CreateTable', '{"TableName": "orders", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "ALL"}}');
SELECT pg_temp.try('CreateTable', '{"TableName": "orders", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true}}');
-- a failed CreateTable made nothing
SELECT count(*) FROM item_table.tables WHERE table_name = 'orders';
SELECT count(*) FROM item_table.streams WHERE table_name = 'orders';

-- created with a stream
SELECT create_table('{"TableName": "orders", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}')->'TableDescription'->'StreamSpecification';
SELECT d->'StreamSpecification' AS spec,
	d->>'LatestStreamArn' ~ '^arn:aws:dynamodb:local:000000000000:table/orders/stream/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$' AS arn_ok,
	d->>'LatestStreamArn' = 'arn:aws:dynamodb:local:000000000000:table/orders/stream/' || (d->>'LatestStreamLabel') AS label_ok
FROM (SELECT describe_table('{"TableName": "orders"}')->'Table' AS d) x;
-- a table without one shows none of it
SELECT create_table('{"TableName": "plain", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": false}}')->'TableDescription' ?| ARRAY['StreamSpecification', 'LatestStreamArn'] AS shows_stream;

-- UpdateTable: enabling when enabled, disabling when disabled
SELECT regexp_replace(pg_temp.try('UpdateTable', '{"TableName": "orders", "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}'),
	'stream/[0-9T:.-]+', 'stream/<label>');
SELECT pg_temp.try('UpdateTable', '{"TableName": "plain", "StreamSpecification": {"StreamEnabled": false}}');
SELECT pg_temp.try('UpdateTable', '{"TableName": "plain", "StreamSpecification": {"StreamEnabled": true}}');
SELECT pg_temp.try('UpdateTable', '{"TableName": "nosuch", "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}');

-- ---------------------------------------------------------------------
-- capture: one record per changed item, none for a write that changes nothing
-- ---------------------------------------------------------------------
SELECT put_item('{"TableName": "orders", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "qty": {"N": "1"}}}');
-- identical Put: no record
SELECT put_item('{"TableName": "orders", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "qty": {"N": "1"}}}');
-- overwrite: MODIFY with both images
SELECT put_item('{"TableName": "orders", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "qty": {"N": "2"}}}');
-- UpdateItem that changes nothing (same value, removing an absent attribute): no record
SELECT update_item('{"TableName": "orders", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "UpdateExpression": "SET qty = :q REMOVE nothere", "ExpressionAttributeValues": {":q": {"N": "2"}}}');
SELECT update_item('{"TableName": "orders", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "UpdateExpression": "ADD qty :q", "ExpressionAttributeValues": {":q": {"N": "5"}}}');
-- a failed conditional write, an aborted transaction: nothing
SELECT pg_temp.try('PutItem', '{"TableName": "orders", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(pk)"}');
BEGIN;
SELECT put_item('{"TableName": "orders", "Item": {"pk": {"S": "rolled"}, "sk": {"N": "1"}}}');
ROLLBACK;
-- a transaction of two items: two records
SELECT transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "orders", "Item": {"pk": {"S": "b"}, "sk": {"N": "1"}}}},
	{"Delete": {"TableName": "orders", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}}}]}');
-- deleting a missing item: nothing
SELECT delete_item('{"TableName": "orders", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}}');
-- plain SQL writes are captured too, a key change as REMOVE + INSERT
INSERT INTO item_data.orders VALUES (item_key('{"S": "c"}', '{"N": "1"}'), '{"pk": {"S": "c"}, "sk": {"N": "1"}}');
UPDATE item_data.orders SET item = item || '{"x": {"S": "y"}}' WHERE key = item_key('{"S": "c"}', '{"N": "1"}');
UPDATE item_data.orders SET item = item WHERE key = item_key('{"S": "c"}', '{"N": "1"}');
UPDATE item_data.orders SET key = item_key('{"S": "c"}', '{"N": "2"}'), item = '{"pk": {"S": "c"}, "sk": {"N": "2"}}'
WHERE key = item_key('{"S": "c"}', '{"N": "1"}');
DELETE FROM item_data.orders WHERE key = item_key('{"S": "c"}', '{"N": "2"}');
SELECT * FROM pg_temp.events('orders');

-- view types: KEYS_ONLY, NEW_IMAGE, OLD_IMAGE keep what they say
SELECT create_table(('{"TableName": "v_' || lower(v) || '", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "' || v || '"}}')::jsonb) IS NOT NULL
FROM unnest(ARRAY['KEYS_ONLY', 'NEW_IMAGE', 'OLD_IMAGE']) v;
SELECT put_item(('{"TableName": "' || t || '", "Item": {"pk": {"S": "k"}, "a": {"N": "1"}}}')::jsonb),
	put_item(('{"TableName": "' || t || '", "Item": {"pk": {"S": "k"}, "a": {"N": "2"}}}')::jsonb),
	delete_item(('{"TableName": "' || t || '", "Key": {"pk": {"S": "k"}}}')::jsonb)
FROM unnest(ARRAY['v_keys_only', 'v_new_image', 'v_old_image']) t;
SELECT t, e.event, e.new_image, e.old_image
FROM unnest(ARRAY['v_keys_only', 'v_new_image', 'v_old_image']) t, pg_temp.events(t) e ORDER BY t, e.n;

-- ---------------------------------------------------------------------
-- ListStreams, DescribeStream
-- ---------------------------------------------------------------------
SELECT count(*) AS streams FROM jsonb_array_elements(list_streams()->'Streams') s
WHERE s->>'TableName' IN ('orders', 'plain', 'v_keys_only', 'v_new_image', 'v_old_image');
SELECT s->>'TableName' AS table_name, s->>'StreamArn' = pg_temp.arn(s->>'TableName') AS latest
FROM jsonb_array_elements(list_streams('{"TableName": "orders"}')->'Streams') s;
-- pages
SELECT (list_streams('{"Limit": 2}')->'Streams')->1->>'StreamArn' = list_streams('{"Limit": 2}')->>'LastEvaluatedStreamArn' AS last_is_key,
	2 + jsonb_array_length(list_streams(jsonb_build_object('ExclusiveStartStreamArn', list_streams('{"Limit": 2}')->>'LastEvaluatedStreamArn'))->'Streams')
		= jsonb_array_length(list_streams()->'Streams') AS pages_cover_all;
SELECT pg_temp.try('ListStreams', '{"TableName": "nosuch"}');
SELECT pg_temp.try('ListStreams', '{"Limit": 0}');
SELECT pg_temp.try('ListStreams', '{"TableName": "plain"}');

SELECT d - 'StreamArn'::text - 'StreamLabel'::text - 'CreationRequestDateTime'::text - 'Shards'::text AS description,
	jsonb_array_length(d->'Shards') AS shards,
	d->'Shards'->0->>'ShardId' ~ '^shardId-\d{20}-[0-9a-f]{8}$' AS shard_id_ok,
	d->'Shards'->0 ? 'ParentShardId' AS has_parent,
	d->'Shards'->0->'SequenceNumberRange' ? 'EndingSequenceNumber' AS closed,
	d->'Shards'->0->'SequenceNumberRange'->>'StartingSequenceNumber' ~ '^\d{21}$' AS start_ok
FROM (SELECT describe_stream(jsonb_build_object('StreamArn', pg_temp.arn('orders')))->'StreamDescription' AS d) x;
SELECT pg_temp.try('DescribeStream', '{}');
SELECT pg_temp.try('DescribeStream', '{"StreamArn": "arn:aws:dynamodb:local:000000000000:table/orders/stream/2000-01-01T00:00:00.000"}');
SELECT describe_stream(jsonb_build_object('StreamArn', pg_temp.arn('orders'),
	'ExclusiveStartShardId', pg_temp.shard(pg_temp.arn('orders'))))->'StreamDescription'->'Shards' AS after_last_shard;

-- ---------------------------------------------------------------------
-- GetShardIterator, GetRecords
-- ---------------------------------------------------------------------
SELECT * FROM pg_temp.read(pg_temp.iterator('orders', 'TRIM_HORIZON'));
SELECT * FROM pg_temp.read(pg_temp.iterator('orders', 'TRIM_HORIZON'), 2);
-- LATEST: nothing yet, then what comes after
SELECT pg_temp.iterator('orders', 'LATEST') AS latest \gset
SELECT * FROM pg_temp.read(:'latest');
SELECT put_item('{"TableName": "orders", "Item": {"pk": {"S": "d"}, "sk": {"N": "1"}}}');
SELECT * FROM pg_temp.read(:'latest');
-- AT and AFTER a sequence number
SELECT lpad((start_seq + 3)::text, 21, '0') AS third FROM item_table.streams WHERE table_name = 'orders' ORDER BY stream_id DESC LIMIT 1 \gset
SELECT * FROM pg_temp.read(pg_temp.iterator('orders', 'AT_SEQUENCE_NUMBER', :'third'), 2);
SELECT * FROM pg_temp.read(pg_temp.iterator('orders', 'AFTER_SEQUENCE_NUMBER', :'third'), 2);
-- NextShardIterator continues where the last page ended
SELECT get_records(jsonb_build_object('ShardIterator', pg_temp.iterator('orders', 'TRIM_HORIZON'), 'Limit', 3))->>'NextShardIterator' AS next \gset
SELECT * FROM pg_temp.read(:'next', 2);
-- the record's shape
SELECT r - 'eventID'::text - 'dynamodb'::text AS record, r->>'eventID' ~ '^[0-9a-f]{32}$' AS event_id_ok,
	(r->'dynamodb') - 'ApproximateCreationDateTime'::text - 'SequenceNumber'::text AS dynamodb,
	abs((r->'dynamodb'->>'ApproximateCreationDateTime')::numeric - extract(epoch FROM now())) < 600 AS time_ok
FROM jsonb_array_elements(get_records(jsonb_build_object('ShardIterator', pg_temp.iterator('orders', 'TRIM_HORIZON'), 'Limit', 2))->'Records') r;
-- errors
SELECT pg_temp.try('GetShardIterator', jsonb_build_object('StreamArn', pg_temp.arn('orders'), 'ShardId', pg_temp.shard(pg_temp.arn('orders'))));
SELECT pg_temp.try('GetShardIterator', jsonb_build_object('StreamArn', pg_temp.arn('orders'), 'ShardId', pg_temp.shard(pg_temp.arn('orders')), 'ShardIteratorType', 'AT_SEQUENCE_NUMBER'));
SELECT pg_temp.try('GetShardIterator', jsonb_build_object('StreamArn', pg_temp.arn('orders'), 'ShardId', pg_temp.shard(pg_temp.arn('orders')), 'ShardIteratorType', 'LATEST', 'SequenceNumber', :'third'));
SELECT pg_temp.try('GetShardIterator', jsonb_build_object('StreamArn', pg_temp.arn('orders'), 'ShardId', 'shardId-00000000000000000000-00000000', 'ShardIteratorType', 'LATEST'));
SELECT pg_temp.try('GetShardIterator', jsonb_build_object('StreamArn', pg_temp.arn('orders'), 'ShardId', pg_temp.shard(pg_temp.arn('orders')), 'ShardIteratorType', 'AT_SEQUENCE_NUMBER', 'SequenceNumber', '000000000000000000000'));
SELECT pg_temp.try('GetShardIterator', jsonb_build_object('StreamArn', pg_temp.arn('orders'), 'ShardId', pg_temp.shard(pg_temp.arn('orders')), 'ShardIteratorType', 'NEWEST'));
SELECT pg_temp.try('GetRecords', '{}');
SELECT pg_temp.try('GetRecords', jsonb_build_object('ShardIterator', :'latest', 'Limit', 1001));
-- a forged iterator: another position, signed with a guessed key
SELECT pg_temp.try('GetRecords', jsonb_build_object('ShardIterator',
	encode(convert_to(regexp_replace(convert_from(decode(:'latest', 'base64'), 'UTF8'), '^(\d+):\d+:', '\1:0:'), 'UTF8'), 'base64')));
SELECT pg_temp.try('GetRecords', '{"ShardIterator": "not an iterator"}');
-- 15 minutes later the iterator has expired
SELECT pg_temp.try_at('GetRecords', jsonb_build_object('ShardIterator', :'latest'), now() + interval '14 minutes') LIKE '{"Records": [%' AS fresh;
SELECT regexp_replace(pg_temp.try_at('GetRecords', jsonb_build_object('ShardIterator', :'latest'), now() + interval '16 minutes'),
	'created at time .* while right now it''s .* which', 'created at time <t> while right now it''s <t> which');

-- ---------------------------------------------------------------------
-- disable and enable again: a new stream; the old shard is closed
-- ---------------------------------------------------------------------
SELECT pg_temp.arn('orders') AS old_arn \gset
SELECT update_table('{"TableName": "orders", "StreamSpecification": {"StreamEnabled": false}}')->'TableDescription' ? 'StreamSpecification' AS enabled_after_disable;
SELECT put_item('{"TableName": "orders", "Item": {"pk": {"S": "not-streamed"}, "sk": {"N": "1"}}}');
SELECT d->>'StreamStatus' AS status, d->'Shards'->0->'SequenceNumberRange' ? 'EndingSequenceNumber' AS closed
FROM (SELECT describe_stream(jsonb_build_object('StreamArn', :'old_arn'))->'StreamDescription' AS d) x;
-- a closed shard read to its end has no NextShardIterator
SELECT * FROM pg_temp.read(pg_temp.iterator('orders', 'LATEST'));
SELECT update_table('{"TableName": "orders", "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}')->'TableDescription'->'StreamSpecification';
SELECT pg_temp.arn('orders') <> :'old_arn' AS new_arn, jsonb_array_length(list_streams('{"TableName": "orders"}')->'Streams') AS streams;
SELECT put_item('{"TableName": "orders", "Item": {"pk": {"S": "e"}, "sk": {"N": "1"}}}');
SELECT * FROM pg_temp.events('orders');

-- ---------------------------------------------------------------------
-- Time to Live deletions are service deletions
-- ---------------------------------------------------------------------
SELECT update_time_to_live('{"TableName": "v_new_image", "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}') IS NOT NULL;
-- expiring in an hour, expired "as of" two hours from now (so the real
-- worker, which expires as of now, leaves it alone)
SELECT put_item(jsonb_build_object('TableName', 'v_new_image', 'Item', jsonb_build_object('pk', '{"S": "old"}'::jsonb,
	'exp', jsonb_build_object('N', (extract(epoch FROM now())::bigint + 3600)::text))));
SELECT expire_items('v_new_image', now() + interval '2 hours');
SELECT event_name, keys, user_identity, record->'userIdentity' AS in_record
FROM stream_records('v_new_image') ORDER BY sequence_number DESC LIMIT 2;

-- ---------------------------------------------------------------------
-- rights: reading a stream needs SELECT on the table
-- ---------------------------------------------------------------------
CREATE ROLE stream_reader;
SET ROLE stream_reader;
SELECT pg_temp.try('GetShardIterator', jsonb_build_object('StreamArn', pg_temp.arn('v_keys_only'), 'ShardId', pg_temp.shard(pg_temp.arn('v_keys_only')), 'ShardIteratorType', 'TRIM_HORIZON'));
SELECT * FROM stream_records('v_keys_only');
RESET ROLE;
GRANT SELECT ON item_data.v_keys_only TO stream_reader;
SET ROLE stream_reader;
SELECT count(*) FROM stream_records('v_keys_only');
SELECT count(*) FROM item_table.stream_records;
RESET ROLE;
DROP OWNED BY stream_reader;
DROP ROLE stream_reader;

-- DeleteTable closes the stream, readable until trimmed
SELECT pg_temp.arn('v_old_image') AS gone_arn \gset
SELECT delete_table('{"TableName": "v_old_image"}') IS NOT NULL AS deleted;
SELECT describe_stream(jsonb_build_object('StreamArn', :'gone_arn'))->'StreamDescription'->>'StreamStatus' AS status;
SELECT event_name FROM stream_records('v_old_image');

-- ---------------------------------------------------------------------
-- trimming after 24 hours
-- ---------------------------------------------------------------------
SELECT pg_temp.iterator('orders', 'TRIM_HORIZON') AS before_trim \gset
SELECT trim_streams(now() + interval '23 hours') AS trimmed_early;
SELECT trim_streams(now() + interval '25 hours') > 0 AS trimmed;
-- the closed stream went with its records; the open one keeps its row
SELECT count(*) AS orders_streams FROM item_table.streams WHERE table_name = 'orders';
SELECT pg_temp.try('DescribeStream', jsonb_build_object('StreamArn', :'old_arn')) LIKE '%ResourceNotFoundException%' AS old_gone;
SELECT pg_temp.try('GetRecords', jsonb_build_object('ShardIterator', :'before_trim'));
SELECT * FROM pg_temp.read(pg_temp.iterator('orders', 'TRIM_HORIZON'));

