-- The tables of the replica suite (test/replica/run.sh), made on the
-- primary after test/gateway/setup.sql, as the gateway's role gw_app.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

-- what the stream consumer applied: one row per record, so a record
-- applied twice would fail its batch
CREATE TABLE public.consumed (seq numeric PRIMARY KEY, event text NOT NULL);
GRANT INSERT ON public.consumed TO gw_app;
CREATE FUNCTION public.consume(records jsonb) RETURNS void LANGUAGE sql AS $$
	INSERT INTO public.consumed
	SELECT (r->'dynamodb'->>'SequenceNumber')::numeric, r->>'eventName'
	FROM pg_catalog.jsonb_array_elements(records) r
$$;

SET ROLE gw_app;
-- the writers' table, with a stream and its consumer
SELECT item_table.create_table('{"TableName": "failover", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}') IS NOT NULL AS created;
SELECT item_table.add_stream_consumer('failover', 'public.consume(jsonb)', 'failover_log', batch_size => 50) AS consumer;

-- the standby's reads: a GSI, a stream, Time to Live
SELECT item_table.create_table('{"TableName": "reads", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
		{"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
		{"AttributeName": "sk", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}') IS NOT NULL AS created;
SELECT item_table.update_time_to_live('{"TableName": "reads", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "exp"}}') IS NOT NULL AS ttl;
SELECT count(item_table.put_item(jsonb_build_object('TableName', 'reads', 'Item', jsonb_build_object(
	'pk', jsonb_build_object('S', 'p' || (i % 4)), 'sk', jsonb_build_object('N', i::text),
	'g', jsonb_build_object('S', 'g' || (i % 3)), 'v', jsonb_build_object('S', repeat('v', i)))))) AS items
	FROM generate_series(1, 40) i;
SELECT item_table.update_item('{"TableName": "reads", "Key": {"pk": {"S": "p1"}, "sk": {"N": "1"}},
	"UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"S": "changed"}}}') IS NOT NULL AS updated;
SELECT item_table.delete_item('{"TableName": "reads", "Key": {"pk": {"S": "p2"}, "sk": {"N": "2"}}}') IS NOT NULL AS deleted;

-- an index will be added to this one just before the first kill
SELECT item_table.create_table('{"TableName": "backfill", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
SELECT count(item_table.put_item(jsonb_build_object('TableName', 'backfill', 'Item', jsonb_build_object(
	'pk', jsonb_build_object('S', 'k' || i), 'g', jsonb_build_object('S', 'g' || (i % 50)))))) AS items
	FROM generate_series(1, 5000) i;
RESET ROLE;
ANALYZE;
