-- Time to Live on a distributed table: an expiry batch deletes the expired
-- items through statements routed to their shards, with their index rows,
-- and checks the expiry again on the row it deletes.
SET client_min_messages = warning;
\set VERBOSITY terse
SELECT item_table.create_table('{
  "TableName": "Sessions",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"},
                           {"AttributeName": "user", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "byUser",
     "KeySchema": [{"AttributeName": "user", "KeyType": "HASH"}],
     "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}') ->> 'TableDescription' IS NOT NULL AS created;
SELECT item_table.dynamodb('UpdateTimeToLive', '{"TableName": "Sessions",
  "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}');
-- enabled before distribution, distributed afterwards: both work
SELECT item_table.distribute_table('Sessions', 8);
-- 20 sessions: s1..s10 expire at 1000, s11..s16 at 5000, s17..s18 have no
-- expiry, s19 a String expiry (never expires), s20 expires at 1000 too
SELECT item_table.dynamodb('PutItem', pg_catalog.jsonb_build_object('TableName', 'Sessions', 'Item',
  pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', 's' || i),
    'user', pg_catalog.jsonb_build_object('S', 'u' || (i % 3)))
  || CASE WHEN i <= 10 OR i = 20 THEN '{"exp": {"N": "1000"}}'::jsonb
          WHEN i <= 16 THEN '{"exp": {"N": "5000"}}'::jsonb
          WHEN i = 19 THEN '{"exp": {"S": "1000"}}'::jsonb
          ELSE '{}'::jsonb END))
FROM generate_series(1, 20) i;
-- s20 is given a later expiry before the batch: it stays
SELECT item_table.dynamodb('UpdateItem', '{"TableName": "Sessions", "Key": {"id": {"S": "s20"}},
  "UpdateExpression": "SET exp = :e", "ExpressionAttributeValues": {":e": {"N": "9000"}}}');

-- as of 2000: at most 4 per batch, then the rest
SELECT item_table.expire_items('Sessions', to_timestamp(2000), 4) AS first_batch;
SELECT item_table.expire_items('Sessions', to_timestamp(2000), 100) AS second_batch;
SELECT item_table.expire_items('Sessions', to_timestamp(2000), 100) AS nothing_left;
SELECT (SELECT count(*) FROM item_data."Sessions") AS items,
       (SELECT count(*) FROM item_data."Sessions#byUser") AS index_rows;
SELECT string_agg(item -> 'id' ->> 'S', ' ' ORDER BY (item -> 'id' ->> 'S')) AS remaining FROM item_data."Sessions";
SELECT * FROM item_table.verify('Sessions');
-- a GSI Query no longer finds them
SELECT jsonb_array_length(item_table.dynamodb('Query', '{"TableName": "Sessions", "IndexName": "byUser",
  "KeyConditionExpression": "#u = :u", "ExpressionAttributeNames": {"#u": "user"},
  "ExpressionAttributeValues": {":u": {"S": "u1"}}}') -> 'Items') AS u1_sessions;
-- as of 6000: s11..s16
SELECT item_table.expire_items('Sessions', to_timestamp(6000), 100) AS later;
SELECT * FROM item_table.verify('Sessions');
SELECT items_expired FROM item_table.time_to_live WHERE table_name = 'Sessions';
-- in a transaction that rolls back, nothing is deleted
BEGIN;
SELECT item_table.expire_items('Sessions', to_timestamp(10000), 100) AS in_block;
ROLLBACK;
SELECT count(*) AS items FROM item_data."Sessions";
-- TTL enabled after distribution: the same
SELECT item_table.dynamodb('UpdateTimeToLive', '{"TableName": "Sessions",
  "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": false}}');
SELECT item_table.dynamodb('UpdateTimeToLive', '{"TableName": "Sessions",
  "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}');
SELECT item_table.expire_items('Sessions', to_timestamp(10000), 100) AS after_reenable;
SELECT string_agg(item -> 'id' ->> 'S', ' ' ORDER BY (item -> 'id' ->> 'S')) AS remaining FROM item_data."Sessions";
SELECT * FROM item_table.verify('Sessions');
-- the background worker expires items of the distributed table as well
-- (as of now): s30 expired a minute ago, s31 expires tomorrow
SELECT item_table.dynamodb('PutItem', pg_catalog.jsonb_build_object('TableName', 'Sessions', 'Item',
  pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', 's' || i), 'user', '{"S": "u0"}'::jsonb,
    'exp', pg_catalog.jsonb_build_object('N', (extract(epoch FROM now())::bigint + d)::text))))
FROM (VALUES (30, -60), (31, 86400)) v(i, d);
-- a worker now: the one UpdateTimeToLive started may have done its round
-- before s30 was written, and the launcher's next comes only within a
-- minute
SELECT item_table.start_worker() AS worker_started;
DO $$
BEGIN
  FOR i IN 1 .. 480 LOOP
    EXIT WHEN NOT EXISTS (SELECT 1 FROM item_data."Sessions" WHERE item -> 'id' ->> 'S' = 's30');
    PERFORM pg_sleep(0.25);
  END LOOP;
END $$;
SELECT string_agg(item -> 'id' ->> 'S', ' ' ORDER BY (item -> 'id' ->> 'S')) AS remaining FROM item_data."Sessions";
SELECT count(*) AS index_rows FROM item_data."Sessions#byUser";
SELECT * FROM item_table.verify('Sessions');
SELECT item_table.dynamodb('DeleteTable', '{"TableName": "Sessions"}')->'TableDescription'->>'TableName' AS deleted;
