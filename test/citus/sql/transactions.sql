-- Transactions over items on different workers: Citus commits them with
-- two-phase commit, and a failure on one worker leaves nothing written.
SET client_min_messages = warning;
SET citus.next_shard_id TO 300000;
\set VERBOSITY terse
SELECT item_table.create_table('{
  "TableName": "Accounts",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"},
                           {"AttributeName": "owner", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "byOwner",
     "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
     "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}') ->> 'TableDescription' IS NOT NULL AS created;
SELECT item_table.distribute_table('Accounts', 8);

-- helpers, on the coordinator only
SET citus.enable_ddl_propagation = off;
CREATE SCHEMA tx;
-- the worker (node) that holds an account
CREATE FUNCTION tx.node_of(id text) RETURNS int LANGUAGE sql AS $$
  SELECT n.nodeid FROM pg_dist_placement pl JOIN pg_dist_node n ON n.groupid = pl.groupid
  WHERE pl.shardid = pg_catalog.get_shard_id_for_distribution_column('item_data."Accounts"',
        item_table.item_key(pg_catalog.jsonb_build_object('S', id)))
$$;
-- two accounts on different workers
CREATE TEMP TABLE pair AS
SELECT a.id AS a, b.id AS b
FROM (SELECT 'acct-' || i AS id FROM generate_series(1, 20) i) a,
     (SELECT 'acct-' || i AS id FROM generate_series(1, 20) i) b
WHERE tx.node_of(a.id) <> tx.node_of(b.id)
ORDER BY a.id, b.id LIMIT 1;
SELECT count(*) AS pairs, bool_and(tx.node_of(a) <> tx.node_of(b)) AS on_different_workers FROM pair;

CREATE FUNCTION tx.put(id text, balance int, note text DEFAULT NULL) RETURNS jsonb LANGUAGE sql AS $$
  SELECT pg_catalog.jsonb_build_object('Put', pg_catalog.jsonb_build_object('TableName', 'Accounts', 'Item',
    pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', id), 'owner', '{"S": "ann"}'::jsonb,
      'balance', pg_catalog.jsonb_build_object('N', balance::text))
    || CASE WHEN note IS NULL THEN '{}'::jsonb ELSE pg_catalog.jsonb_build_object('note', pg_catalog.jsonb_build_object('S', note)) END))
$$;
CREATE FUNCTION tx.balances() RETURNS TABLE (which text, balance text, gsi_entries bigint) LANGUAGE plpgsql AS $$
DECLARE
  p record;
  id text;
BEGIN
  SELECT * INTO p FROM pair;
  FOR which, id IN VALUES ('a', p.a), ('b', p.b) LOOP
    balance := item_table.dynamodb('GetItem', pg_catalog.jsonb_build_object('TableName', 'Accounts',
      'Key', pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', id))))->'Item'->'balance'->>'N';
    SELECT count(*) INTO gsi_entries FROM item_data."Accounts#byOwner" i
      WHERE i.key OPERATOR(item_table.=) item_table.item_key(pg_catalog.jsonb_build_object('S', id));
    RETURN NEXT;
  END LOOP;
END $$;
RESET citus.enable_ddl_propagation;

-- both written, on two workers, atomically
SELECT item_table.dynamodb('TransactWriteItems', pg_catalog.jsonb_build_object('TransactItems',
  pg_catalog.jsonb_build_array(tx.put(a, 100), tx.put(b, 50)))) FROM pair;
SELECT * FROM tx.balances();

-- a forced failure on the worker of b: a constraint its shards enforce
ALTER TABLE item_data."Accounts" ADD CONSTRAINT no_poison
  CHECK ((item -> 'note' ->> 'S') IS DISTINCT FROM 'poison');
SELECT item_table.dynamodb('TransactWriteItems', pg_catalog.jsonb_build_object('TransactItems',
  pg_catalog.jsonb_build_array(tx.put(a, 70), tx.put(b, 80, 'poison')))) FROM pair;
-- nothing half-written: a still has 100, b 50, index rows unchanged
SELECT * FROM tx.balances();
-- the same with BatchWriteItem
SELECT item_table.dynamodb('BatchWriteItem', pg_catalog.jsonb_build_object('RequestItems', pg_catalog.jsonb_build_object('Accounts',
  pg_catalog.jsonb_build_array(
    pg_catalog.jsonb_build_object('PutRequest', (tx.put(a, 1)->'Put') - 'TableName'),
    pg_catalog.jsonb_build_object('DeleteRequest', pg_catalog.jsonb_build_object('Key', pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', b)))),
    pg_catalog.jsonb_build_object('PutRequest', (tx.put('acct-99', 1, 'poison')->'Put') - 'TableName'))))) FROM pair;
SELECT * FROM tx.balances();
ALTER TABLE item_data."Accounts" DROP CONSTRAINT no_poison;

-- a condition that fails on one worker cancels the transaction as DynamoDB
-- reports it, and nothing is written
SELECT item_table.dynamodb('TransactWriteItems', pg_catalog.jsonb_build_object('TransactItems',
  pg_catalog.jsonb_build_array(tx.put(a, 60),
    pg_catalog.jsonb_build_object('ConditionCheck', pg_catalog.jsonb_build_object('TableName', 'Accounts',
      'Key', pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', b)),
      'ConditionExpression', 'balance > :m', 'ExpressionAttributeValues', '{":m": {"N": "1000"}}'::jsonb))))) FROM pair;
SELECT * FROM tx.balances();
-- a transfer between the two workers
SELECT item_table.dynamodb('TransactWriteItems', pg_catalog.jsonb_build_object('TransactItems', pg_catalog.jsonb_build_array(
  pg_catalog.jsonb_build_object('Update', pg_catalog.jsonb_build_object('TableName', 'Accounts',
    'Key', pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', a)),
    'UpdateExpression', 'SET balance = balance - :x', 'ConditionExpression', 'balance >= :x',
    'ExpressionAttributeValues', '{":x": {"N": "30"}}'::jsonb)),
  pg_catalog.jsonb_build_object('Update', pg_catalog.jsonb_build_object('TableName', 'Accounts',
    'Key', pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', b)),
    'UpdateExpression', 'SET balance = balance + :x',
    'ExpressionAttributeValues', '{":x": {"N": "30"}}'::jsonb))))) FROM pair;
SELECT * FROM tx.balances();
-- an explicit transaction block over both workers rolls back as a whole
BEGIN;
SELECT item_table.dynamodb('DeleteItem', pg_catalog.jsonb_build_object('TableName', 'Accounts',
  'Key', pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', a)))) FROM pair;
SELECT item_table.dynamodb('DeleteItem', pg_catalog.jsonb_build_object('TableName', 'Accounts',
  'Key', pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', b)))) FROM pair;
ROLLBACK;
SELECT * FROM tx.balances();
SELECT * FROM item_table.verify('Accounts');

-- back to an ordinary item table: the rows, the index rows and the catalog
-- follow, plain SQL writes are accepted again and kept indexed by the trigger
SELECT item_table.undistribute_table('Accounts');
SELECT count(*) AS citus_tables_left FROM pg_dist_partition WHERE logicalrelid::text LIKE 'item_data."Accounts%';
SELECT attname FROM pg_attribute WHERE attrelid = 'item_data."Accounts"'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum;
SELECT tgname FROM pg_trigger WHERE tgrelid = 'item_data."Accounts"'::regclass ORDER BY tgname;
SELECT * FROM tx.balances();
INSERT INTO item_data."Accounts" (item) VALUES ('{"id": {"S": "acct-sql"}, "owner": {"S": "bob"}}');
SELECT item_table.dynamodb('Query', '{"TableName": "Accounts", "IndexName": "byOwner", "KeyConditionExpression": "#o = :o",
  "ExpressionAttributeNames": {"#o": "owner"}, "ExpressionAttributeValues": {":o": {"S": "bob"}}}');
SELECT * FROM item_table.verify('Accounts');
SELECT item_table.undistribute_table('Accounts');
SELECT item_table.distribute_table('Accounts', 4);
SELECT * FROM tx.balances();
SELECT * FROM item_table.verify('Accounts');
