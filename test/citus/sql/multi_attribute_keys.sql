-- A GSI with a multi-attribute key (two partition, two sort attributes) on
-- a distributed table: its index table is distributed by ipart, the
-- partition parts of the index key (partition_key() of a tuple key), so a
-- Query on it is routed to one shard; writes after distribution keep it,
-- and verify() finds it consistent.
SET client_min_messages = warning;
\set VERBOSITY terse
SELECT item_table.create_table('{"TableName": "Matches", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
    {"AttributeName": "tour", "AttributeType": "S"}, {"AttributeName": "area", "AttributeType": "S"},
    {"AttributeName": "rnd", "AttributeType": "N"}, {"AttributeName": "bracket", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "byArea", "KeySchema": [
    {"AttributeName": "tour", "KeyType": "HASH"}, {"AttributeName": "area", "KeyType": "HASH"},
    {"AttributeName": "rnd", "KeyType": "RANGE"}, {"AttributeName": "bracket", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}]}') ->> 'TableDescription' IS NOT NULL AS created;
-- items before and after distribution
SELECT count(item_table.put_item(pg_catalog.format('{"TableName": "Matches", "Item": {"pk": {"S": "m%s"}, "tour": {"S": "W"},
  "area": {"S": "%s"}, "rnd": {"N": "%s"}, "bracket": {"S": "%s"}}}', g, CASE WHEN g % 2 = 0 THEN 'E' ELSE 'N' END, g % 3, CASE WHEN g % 4 < 2 THEN 'up' ELSE 'low' END)::jsonb))
FROM generate_series(1, 12) g;
SELECT item_table.distribute_table('Matches', shard_count => 4);
SELECT count(item_table.put_item(pg_catalog.format('{"TableName": "Matches", "Item": {"pk": {"S": "m%s"}, "tour": {"S": "W"},
  "area": {"S": "%s"}, "rnd": {"N": "%s"}, "bracket": {"S": "%s"}}}', g, CASE WHEN g % 2 = 0 THEN 'E' ELSE 'N' END, g % 3, CASE WHEN g % 4 < 2 THEN 'up' ELSE 'low' END)::jsonb))
FROM generate_series(13, 24) g;
SELECT item_table.delete_item('{"TableName": "Matches", "Key": {"pk": {"S": "m2"}}}');
-- the distribution column of the index table holds the partition parts
SELECT DISTINCT ipart::text FROM item_data."Matches#byArea" ORDER BY 1;
-- a Query: one shard, the right items in order
SELECT line FROM item_table.explain_query('{"TableName": "Matches", "IndexName": "byArea",
  "KeyConditionExpression": "tour = :t AND area = :a AND rnd = :r",
  "ExpressionAttributeValues": {":t": {"S": "W"}, ":a": {"S": "E"}, ":r": {"N": "1"}}}') AS line
WHERE line LIKE '%Task Count%' OR line LIKE '%range%';
SELECT string_agg(i->'pk'->>'S' || ':' || (i->'bracket'->>'S'), ' ' ORDER BY o) AS items
FROM jsonb_array_elements(item_table.query('{"TableName": "Matches", "IndexName": "byArea",
  "KeyConditionExpression": "tour = :t AND area = :a AND rnd = :r",
  "ExpressionAttributeValues": {":t": {"S": "W"}, ":a": {"S": "E"}, ":r": {"N": "1"}}}')->'Items') WITH ORDINALITY x(i, o);
SELECT count(*) AS index_problems FROM item_table.verify('Matches');
SELECT item_table.delete_table('{"TableName": "Matches"}')->'TableDescription'->'TableStatus';
