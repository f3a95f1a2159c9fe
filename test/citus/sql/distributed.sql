-- A table with a GSI, an LSI and an element (inverted) index, distributed
-- with item_table.distribute_table() on the 3-node loopback cluster; every
-- API call on it; each item statement and Query routed to one shard.
SET client_min_messages = warning;
\set VERBOSITY terse
SELECT item_table.create_table('{
  "TableName": "Orders",
  "AttributeDefinitions": [
    {"AttributeName": "pk", "AttributeType": "S"},
    {"AttributeName": "sk", "AttributeType": "S"},
    {"AttributeName": "status", "AttributeType": "S"},
    {"AttributeName": "amount", "AttributeType": "N"},
    {"AttributeName": "tags", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [
    {"IndexName": "byStatus",
     "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "ALL"}},
    {"IndexName": "byTag", "ItemTableElementIndex": true,
     "KeySchema": [{"AttributeName": "tags", "KeyType": "HASH"}],
     "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "LocalSecondaryIndexes": [
    {"IndexName": "byAmount",
     "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "amount", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "BillingMode": "PAY_PER_REQUEST"}') ->> 'TableDescription' IS NOT NULL AS created;

-- items written before distribution move to the shards with it
SELECT item_table.dynamodb('PutItem', pg_catalog.format('{"TableName": "Orders", "Item": {"pk": {"S": "user#%s"}, "sk": {"S": "order#%s"}, "status": {"S": "%s"}, "amount": {"N": "%s"}, "tags": {"SS": ["t%s", "all"]}}}',
    u, o, CASE WHEN o % 2 = 0 THEN 'OPEN' ELSE 'SHIPPED' END, u * 10 + o, o)::jsonb)
FROM generate_series(1, 6) u, generate_series(1, 4) o;

SELECT item_table.distribute_table('Orders', shard_count => 8);
-- already distributed
SELECT item_table.distribute_table('Orders');
SELECT item_table.distribute_table('NoSuchTable');
-- a vector index cannot be added to a distributed table (and a table with
-- vector indexes is not distributed: docs/vectors.md)
SELECT item_table.update_table('{"TableName": "Orders", "VectorIndexUpdates": [{"Create": {"IndexName": "emb-idx", "VectorAttribute": {"AttributeName": "emb"}, "Dimensions": 3, "DistanceFunction": "COSINE", "Projection": {"ProjectionType": "ALL"}}}]}');
-- a table with an enabled stream is refused (its capture trigger cannot run
-- on shards); with the stream disabled it can be distributed
SELECT item_table.create_table('{"TableName": "Streamed", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST", "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}')->'TableDescription'->'StreamSpecification';
SELECT item_table.distribute_table('Streamed');
SELECT item_table.update_table('{"TableName": "Streamed", "StreamSpecification": {"StreamEnabled": false}}')->'TableDescription'->'TableName';
SELECT item_table.distribute_table('Streamed');
SELECT item_table.delete_table('{"TableName": "Streamed"}')->'TableDescription'->'TableStatus';
-- DeleteTable drops the shards on the workers too: the name can be made
-- and distributed again
SELECT item_table.create_table('{"TableName": "Streamed", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST", "GlobalSecondaryIndexes": [{"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}]}')->'TableDescription'->'TableStatus';
SELECT item_table.distribute_table('Streamed');
SELECT item_table.put_item('{"TableName": "Streamed", "Item": {"pk": {"S": "a"}, "g": {"S": "x"}}}');
SELECT item_table.delete_table('{"TableName": "Streamed"}')->'TableDescription'->'TableStatus';
SELECT count(*) AS shards_left FROM pg_dist_shard s WHERE s.logicalrelid::text LIKE '%Streamed%';
SELECT result AS worker_tables_left FROM run_command_on_workers($$SELECT string_agg(c.relkind::text || ':' || c.relname, ' ' ORDER BY c.relname) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'item_data' AND c.relname LIKE 'Streamed%' $$) ORDER BY nodeport;
SELECT item_table.create_table('{"TableName": "Streamed", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST"}')->'TableDescription'->'TableStatus';
SELECT item_table.distribute_table('Streamed');
SELECT item_table.delete_table('{"TableName": "Streamed"}')->'TableDescription'->'TableStatus';

-- what Citus distributes on: part / ipart, 8 shards each; the LSI is
-- co-located with its table
SELECT logicalrelid::text AS relation, pg_catalog.column_to_column_name(logicalrelid, partkey) AS column,
       (SELECT count(*) FROM pg_dist_shard s WHERE s.logicalrelid = p.logicalrelid) AS shards
FROM pg_dist_partition p WHERE logicalrelid::text LIKE 'item_data.%' ORDER BY 1;
SELECT (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = 'item_data."Orders"'::regclass)
     = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = 'item_data."Orders#byAmount"'::regclass)
       AS lsi_colocated;
-- every item of a collection on one shard, collections on both workers
SELECT count(*) AS collections, bool_and(shards = 1) AS each_on_one_shard, sum(items) AS items
FROM (SELECT part, count(*) AS items,
             count(DISTINCT pg_catalog.get_shard_id_for_distribution_column('item_data."Orders"', part)) AS shards
      FROM item_data."Orders" GROUP BY part) c;
SELECT count(DISTINCT n.nodeport) AS workers_used
FROM item_data."Orders" o
JOIN pg_dist_placement pl ON pl.shardid = pg_catalog.get_shard_id_for_distribution_column('item_data."Orders"', o.part)
JOIN pg_dist_node n ON n.groupid = pl.groupid;

-- single-shard routing: every item statement and every Query
SELECT line FROM item_table.explain_item('Orders', '{"pk": {"S": "user#1"}, "sk": {"S": "order#1"}}') AS line
WHERE line LIKE '%:' OR line LIKE '%Task Count%';
SELECT line FROM item_table.explain_query('{"TableName": "Orders", "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
  "ExpressionAttributeValues": {":p": {"S": "user#2"}, ":s": {"S": "order#"}}}') AS line
WHERE line LIKE '%Task Count%' OR line LIKE '%range%';
SELECT line FROM item_table.explain_query('{"TableName": "Orders", "IndexName": "byStatus", "KeyConditionExpression": "#s = :s",
  "ExpressionAttributeNames": {"#s": "status"}, "ExpressionAttributeValues": {":s": {"S": "OPEN"}}}') AS line
WHERE line LIKE '%Task Count%' OR line LIKE '%range%';
SELECT line FROM item_table.explain_query('{"TableName": "Orders", "IndexName": "byAmount", "KeyConditionExpression": "pk = :p AND amount > :t",
  "ExpressionAttributeValues": {":p": {"S": "user#3"}, ":t": {"N": "31"}}}') AS line
WHERE line LIKE '%Task Count%' OR line LIKE '%range%';
SELECT line FROM item_table.explain_query('{"TableName": "Orders", "IndexName": "byTag", "KeyConditionExpression": "tags = :t",
  "ExpressionAttributeValues": {":t": {"S": "t3"}}}') AS line
WHERE line LIKE '%Task Count%' OR line LIKE '%range%';
-- a Scan goes to every shard
SELECT line FROM item_table.explain_scan('{"TableName": "Orders"}') AS line WHERE line LIKE '%Task Count%';

-- item calls
SELECT item_table.dynamodb('GetItem', '{"TableName": "Orders", "Key": {"pk": {"S": "user#1"}, "sk": {"S": "order#2"}}}');
SELECT item_table.dynamodb('PutItem', '{"TableName": "Orders", "Item": {"pk": {"S": "user#7"}, "sk": {"S": "order#1"}, "status": {"S": "OPEN"}, "amount": {"N": "5"}, "tags": {"L": [{"S": "new"}, {"S": "all"}]}}, "ReturnValues": "ALL_OLD"}');
SELECT item_table.dynamodb('PutItem', '{"TableName": "Orders", "Item": {"pk": {"S": "user#7"}, "sk": {"S": "order#1"}, "status": {"S": "OPEN"}, "amount": {"N": "6"}}, "ConditionExpression": "attribute_not_exists(pk)"}');
SELECT item_table.dynamodb('UpdateItem', '{"TableName": "Orders", "Key": {"pk": {"S": "user#7"}, "sk": {"S": "order#1"}},
  "UpdateExpression": "SET #s = :s, amount = amount + :d REMOVE tags", "ExpressionAttributeNames": {"#s": "status"},
  "ExpressionAttributeValues": {":s": {"S": "SHIPPED"}, ":d": {"N": "1"}}, "ReturnValues": "ALL_NEW"}');
SELECT item_table.dynamodb('UpdateItem', '{"TableName": "Orders", "Key": {"pk": {"S": "user#7"}, "sk": {"S": "order#2"}},
  "UpdateExpression": "SET amount = :t", "ConditionExpression": "attribute_exists(pk)", "ExpressionAttributeValues": {":t": {"N": "1"}}}');
SELECT item_table.dynamodb('DeleteItem', '{"TableName": "Orders", "Key": {"pk": {"S": "user#1"}, "sk": {"S": "order#4"}}, "ReturnValues": "ALL_OLD"}');
SELECT item_table.dynamodb('DeleteItem', '{"TableName": "Orders", "Key": {"pk": {"S": "user#1"}, "sk": {"S": "order#3"}}, "ConditionExpression": "amount > :t", "ExpressionAttributeValues": {":t": {"N": "100"}}}');

-- Query: table, backward with a limit and its continuation, GSI, LSI, element index
SELECT item_table.dynamodb('Query', '{"TableName": "Orders", "KeyConditionExpression": "pk = :p", "ProjectionExpression": "sk, amount",
  "ExpressionAttributeValues": {":p": {"S": "user#1"}}}');
SELECT item_table.dynamodb('Query', '{"TableName": "Orders", "KeyConditionExpression": "pk = :p", "ScanIndexForward": false, "Limit": 2,
  "ProjectionExpression": "sk", "ExpressionAttributeValues": {":p": {"S": "user#2"}}}');
SELECT item_table.dynamodb('Query', '{"TableName": "Orders", "KeyConditionExpression": "pk = :p", "ScanIndexForward": false, "Limit": 2,
  "ProjectionExpression": "sk", "ExpressionAttributeValues": {":p": {"S": "user#2"}},
  "ExclusiveStartKey": {"pk": {"S": "user#2"}, "sk": {"S": "order#3"}}}');
SELECT item_table.dynamodb('Query', '{"TableName": "Orders", "IndexName": "byStatus", "KeyConditionExpression": "#s = :s AND sk = :k",
  "ExpressionAttributeNames": {"#s": "status"}, "ProjectionExpression": "pk, sk",
  "ExpressionAttributeValues": {":s": {"S": "SHIPPED"}, ":k": {"S": "order#1"}}, "Limit": 3}');
SELECT item_table.dynamodb('Query', '{"TableName": "Orders", "IndexName": "byStatus", "KeyConditionExpression": "#s = :s AND sk = :k",
  "ExpressionAttributeNames": {"#s": "status"}, "ProjectionExpression": "pk, sk",
  "ExpressionAttributeValues": {":s": {"S": "SHIPPED"}, ":k": {"S": "order#1"}}, "Limit": 3,
  "ExclusiveStartKey": {"status": {"S": "SHIPPED"}, "sk": {"S": "order#1"}, "pk": {"S": "user#3"}}}');
SELECT item_table.dynamodb('Query', '{"TableName": "Orders", "IndexName": "byAmount", "KeyConditionExpression": "pk = :p AND amount BETWEEN :a AND :b",
  "ExpressionAttributeValues": {":p": {"S": "user#4"}, ":a": {"N": "42"}, ":b": {"N": "43"}}}');
SELECT item_table.dynamodb('Query', '{"TableName": "Orders", "IndexName": "byTag", "KeyConditionExpression": "tags = :t",
  "ExpressionAttributeValues": {":t": {"S": "t3"}}, "Select": "COUNT"}');
SELECT item_table.dynamodb('Query', '{"TableName": "Orders", "IndexName": "byTag", "KeyConditionExpression": "tags = :t",
  "ExpressionAttributeValues": {":t": {"S": "all"}}, "Select": "COUNT"}');

-- Scan across shards: pages in key order, and the segments of a parallel scan
CREATE TEMP TABLE pages (n int, resp jsonb);
DO $$
DECLARE
  req jsonb := '{"TableName": "Orders", "Limit": 5, "ProjectionExpression": "pk, sk"}';
  resp jsonb;
  n int := 0;
BEGIN
  LOOP
    resp := item_table.dynamodb('Scan', req);
    n := n + 1;
    INSERT INTO pages VALUES (n, resp);
    EXIT WHEN resp->'LastEvaluatedKey' IS NULL OR n > 20;
    req := req || jsonb_build_object('ExclusiveStartKey', resp->'LastEvaluatedKey');
  END LOOP;
END $$;
SELECT count(*) AS pages, sum((resp->>'Count')::int) AS items FROM pages;
SELECT count(*) AS items, count(DISTINCT i) AS distinct_items,
       bool_and(prev IS NULL OR item_table.item_key(prev->'pk', prev->'sk') OPERATOR(item_table.<) item_table.item_key(i->'pk', i->'sk')) AS in_key_order
FROM (SELECT i, lag(i) OVER (ORDER BY n, ord) AS prev
      FROM pages, jsonb_array_elements(resp->'Items') WITH ORDINALITY AS e(i, ord)) s;
SELECT sum((item_table.dynamodb('Scan', pg_catalog.format('{"TableName": "Orders", "Segment": %s, "TotalSegments": 3, "Select": "COUNT"}', s)::jsonb)->>'Count')::int) AS scanned_by_segments
FROM generate_series(0, 2) s;
SELECT (item_table.dynamodb('Scan', '{"TableName": "Orders", "IndexName": "byStatus", "Select": "COUNT"}')->>'Count')::int AS gsi_scan_count;

-- batches and transactions
SELECT item_table.dynamodb('BatchWriteItem', '{"RequestItems": {"Orders": [
  {"PutRequest": {"Item": {"pk": {"S": "user#8"}, "sk": {"S": "order#1"}, "status": {"S": "OPEN"}}}},
  {"PutRequest": {"Item": {"pk": {"S": "user#9"}, "sk": {"S": "order#1"}, "status": {"S": "OPEN"}}}},
  {"DeleteRequest": {"Key": {"pk": {"S": "user#6"}, "sk": {"S": "order#4"}}}}]}}');
SELECT item_table.dynamodb('BatchGetItem', '{"RequestItems": {"Orders": {"Keys": [
  {"pk": {"S": "user#8"}, "sk": {"S": "order#1"}}, {"pk": {"S": "user#6"}, "sk": {"S": "order#4"}}], "ProjectionExpression": "pk"}}}');
SELECT item_table.dynamodb('TransactWriteItems', '{"TransactItems": [
  {"Put": {"TableName": "Orders", "Item": {"pk": {"S": "user#10"}, "sk": {"S": "order#1"}, "status": {"S": "OPEN"}}}},
  {"Update": {"TableName": "Orders", "Key": {"pk": {"S": "user#8"}, "sk": {"S": "order#1"}}, "UpdateExpression": "SET #s = :s",
    "ExpressionAttributeNames": {"#s": "status"}, "ExpressionAttributeValues": {":s": {"S": "SHIPPED"}}}},
  {"Delete": {"TableName": "Orders", "Key": {"pk": {"S": "user#9"}, "sk": {"S": "order#1"}}}},
  {"ConditionCheck": {"TableName": "Orders", "Key": {"pk": {"S": "user#2"}, "sk": {"S": "order#1"}}, "ConditionExpression": "attribute_exists(pk)"}}]}');
SELECT item_table.dynamodb('TransactGetItems', '{"TransactItems": [
  {"Get": {"TableName": "Orders", "Key": {"pk": {"S": "user#10"}, "sk": {"S": "order#1"}}}},
  {"Get": {"TableName": "Orders", "Key": {"pk": {"S": "user#8"}, "sk": {"S": "order#1"}}, "ProjectionExpression": "#s", "ExpressionAttributeNames": {"#s": "status"}}},
  {"Get": {"TableName": "Orders", "Key": {"pk": {"S": "user#9"}, "sk": {"S": "order#1"}}}}]}');
-- PartiQL
SELECT item_table.dynamodb('ExecuteStatement', '{"Statement": "SELECT sk FROM \"Orders\" WHERE pk = ?", "Parameters": [{"S": "user#5"}]}');
SELECT item_table.dynamodb('ExecuteStatement', '{"Statement": "UPDATE \"Orders\" SET amount = 0 WHERE pk = ? AND sk = ?", "Parameters": [{"S": "user#5"}, {"S": "order#1"}]}');

SELECT item_table.dynamodb('BatchExecuteStatement', '{"Statements": [
  {"Statement": "INSERT INTO \"Orders\" VALUE {''pk'': ?, ''sk'': ?, ''status'': ?}", "Parameters": [{"S": "user#11"}, {"S": "order#1"}, {"S": "OPEN"}]},
  {"Statement": "DELETE FROM \"Orders\" WHERE pk = ? AND sk = ?", "Parameters": [{"S": "user#10"}, {"S": "order#1"}]}]}');
SELECT item_table.dynamodb('ExecuteTransaction', '{"TransactStatements": [
  {"Statement": "UPDATE \"Orders\" SET status = ? WHERE pk = ? AND sk = ?", "Parameters": [{"S": "SHIPPED"}, {"S": "user#11"}, {"S": "order#1"}]},
  {"Statement": "INSERT INTO \"Orders\" VALUE {''pk'': ?, ''sk'': ?, ''status'': ?}", "Parameters": [{"S": "user#12"}, {"S": "order#1"}, {"S": "OPEN"}]}]}');
-- item_collection(): one collection as rows, from one shard
SELECT item->'sk'->>'S' AS sk FROM item_table.item_collection('Orders', '{"S": "user#3"}', '{"S": "order#"}', false);
SELECT item_table.dynamodb('ListTables', '{}');

-- the indexes are right: verify() rebuilds them from the items
SELECT * FROM item_table.verify('Orders');
SELECT (SELECT count(*) FROM item_data."Orders") AS items,
       (SELECT count(*) FROM item_data."Orders#byStatus") AS by_status,
       (SELECT count(*) FROM item_data."Orders#byAmount") AS by_total,
       (SELECT count(*) FROM item_data."Orders#byTag") AS by_tag;

-- plain SQL writes on the coordinator would bypass the index upkeep: refused
INSERT INTO item_data."Orders" (key, part, item) VALUES ('S"x"|S"y"', 'S"x"', '{"pk": {"S": "x"}, "sk": {"S": "y"}}');
UPDATE item_data."Orders" SET item = item WHERE part OPERATOR(item_table.=) 'S"user#1"';
DELETE FROM item_data."Orders#byStatus";
WITH d AS (DELETE FROM item_data."Orders" RETURNING 1) SELECT count(*) FROM d;
-- reads are fine
SELECT count(*) FROM item_data."Orders" WHERE part OPERATOR(item_table.=) 'S"user#2"';

-- an index cannot be added to a distributed table (its backfill writes with
-- plain statements)
SELECT item_table.dynamodb('UpdateTable', '{"TableName": "Orders",
  "AttributeDefinitions": [{"AttributeName": "sk", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "bySk",
    "KeySchema": [{"AttributeName": "sk", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}}]}');
-- DescribeTable still describes it; DeleteTable drops the distributed tables
SELECT item_table.dynamodb('DescribeTable', '{"TableName": "Orders"}')->'Table'->>'TableStatus' AS status;
SELECT item_table.dynamodb('DeleteTable', '{"TableName": "Orders"}')->'TableDescription'->>'TableName' AS deleted;
SELECT count(*) AS citus_tables_left FROM pg_dist_partition WHERE logicalrelid::text LIKE 'item_data."Orders%';
