-- A writer that does not own the table: granted SELECT, INSERT, UPDATE,
-- DELETE on the item table and its index tables, it writes a distributed
-- table with a GSI and an LSI through every write call.  The index rows are
-- written as the caller (Citus cannot mix two users' writes to co-located
-- shards in one transaction), so a writer without rights on the index
-- tables is refused clearly.
SET client_min_messages = warning;
\set VERBOSITY terse
SELECT item_table.create_table('{
  "TableName": "Writers",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"},
                           {"AttributeName": "sk", "AttributeType": "S"},
                           {"AttributeName": "owner", "AttributeType": "S"},
                           {"AttributeName": "n", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "byOwner",
     "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
     "Projection": {"ProjectionType": "ALL"}}],
  "LocalSecondaryIndexes": [{"IndexName": "byN",
     "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "BillingMode": "PAY_PER_REQUEST"}') ->> 'TableDescription' IS NOT NULL AS created;
SELECT item_table.distribute_table('Writers', 8);
CREATE ROLE regress_citus_writer LOGIN;  -- Citus connects to the workers as the user
CREATE ROLE regress_citus_base_only LOGIN;
GRANT USAGE ON SCHEMA item_data TO regress_citus_writer, regress_citus_base_only;
GRANT SELECT, INSERT, UPDATE, DELETE ON item_data."Writers", item_data."Writers#byOwner", item_data."Writers#byN"
  TO regress_citus_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON item_data."Writers" TO regress_citus_base_only;

SET ROLE regress_citus_writer;
-- many keys and owners, so that base rows and index rows share co-located
-- shards within one transaction
SELECT count(*) AS puts FROM (
  SELECT item_table.dynamodb('PutItem', pg_catalog.jsonb_build_object('TableName', 'Writers', 'Item',
    pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', 'k' || i), 'sk', '{"S": "a"}'::jsonb,
      'owner', pg_catalog.jsonb_build_object('S', 'o' || (i % 5)), 'n', pg_catalog.jsonb_build_object('N', i::text))))
  FROM generate_series(1, 24) i) p;
SELECT count(*) AS updates FROM (
  SELECT item_table.dynamodb('UpdateItem', pg_catalog.jsonb_build_object('TableName', 'Writers',
    'Key', pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', 'k' || i), 'sk', '{"S": "a"}'::jsonb),
    'UpdateExpression', 'SET #o = :o, n = n + :one', 'ConditionExpression', 'attribute_exists(id)',
    'ExpressionAttributeNames', '{"#o": "owner"}'::jsonb,
    'ExpressionAttributeValues', pg_catalog.jsonb_build_object(':o', pg_catalog.jsonb_build_object('S', 'p' || (i % 7)),
      ':one', '{"N": "1"}'::jsonb)))
  FROM generate_series(1, 24) i) u;
SELECT count(*) AS deletes FROM (
  SELECT item_table.dynamodb('DeleteItem', pg_catalog.jsonb_build_object('TableName', 'Writers',
    'Key', pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', 'k' || i), 'sk', '{"S": "a"}'::jsonb)))
  FROM generate_series(1, 24, 3) i) d;
-- transactions over many shards, index rows on others
SELECT item_table.dynamodb('TransactWriteItems', pg_catalog.jsonb_build_object('TransactItems',
  (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('Put', pg_catalog.jsonb_build_object('TableName', 'Writers', 'Item',
    pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', 't' || i), 'sk', '{"S": "a"}'::jsonb,
      'owner', pg_catalog.jsonb_build_object('S', 'o' || i), 'n', '{"N": "1"}'::jsonb))))
   FROM generate_series(1, 12) i)));
SELECT item_table.dynamodb('TransactWriteItems', pg_catalog.jsonb_build_object('TransactItems',
  (SELECT pg_catalog.jsonb_agg(CASE WHEN i % 2 = 0 THEN
      pg_catalog.jsonb_build_object('Update', pg_catalog.jsonb_build_object('TableName', 'Writers',
        'Key', pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', 't' || i), 'sk', '{"S": "a"}'::jsonb),
        'UpdateExpression', 'SET #o = :o', 'ExpressionAttributeNames', '{"#o": "owner"}'::jsonb,
        'ExpressionAttributeValues', '{":o": {"S": "moved"}}'::jsonb))
    ELSE pg_catalog.jsonb_build_object('Delete', pg_catalog.jsonb_build_object('TableName', 'Writers',
        'Key', pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', 't' || i), 'sk', '{"S": "a"}'::jsonb))) END)
   FROM generate_series(1, 12) i)));
-- a write and a GSI Query of it in one transaction block
BEGIN;
SELECT item_table.dynamodb('PutItem', '{"TableName": "Writers", "Item": {"id": {"S": "blk"}, "sk": {"S": "a"}, "owner": {"S": "moved"}, "n": {"N": "5"}}}');
SELECT item_table.dynamodb('Query', '{"TableName": "Writers", "IndexName": "byOwner", "KeyConditionExpression": "#o = :o",
  "ExpressionAttributeNames": {"#o": "owner"}, "ExpressionAttributeValues": {":o": {"S": "moved"}}, "Select": "COUNT"}');
COMMIT;
RESET ROLE;
SELECT (SELECT count(*) FROM item_data."Writers") AS items,
       (SELECT count(*) FROM item_data."Writers#byOwner") AS by_owner,
       (SELECT count(*) FROM item_data."Writers#byN") AS by_n;
SELECT * FROM item_table.verify('Writers');

-- without rights on the index tables: refused, nothing written
SET ROLE regress_citus_base_only;
SELECT item_table.dynamodb('PutItem', '{"TableName": "Writers", "Item": {"id": {"S": "nope"}, "sk": {"S": "a"}, "owner": {"S": "x"}}}');
SELECT item_table.dynamodb('DeleteItem', '{"TableName": "Writers", "Key": {"id": {"S": "k2"}, "sk": {"S": "a"}}}');
RESET ROLE;
SELECT count(*) AS items FROM item_data."Writers";
SELECT * FROM item_table.verify('Writers');

SELECT item_table.dynamodb('DeleteTable', '{"TableName": "Writers"}')->'TableDescription'->>'TableName' AS deleted;
DROP OWNED BY regress_citus_writer, regress_citus_base_only;
DROP ROLE regress_citus_writer, regress_citus_base_only;
