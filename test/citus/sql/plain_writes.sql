-- TRUNCATE and COPY FROM would write a distributed item table or its index
-- tables without the API's index upkeep: refused, on the table and on its
-- index tables; COPY TO and reads stay allowed.
SET client_min_messages = warning;
\set VERBOSITY terse
SELECT item_table.create_table('{
  "TableName": "Plain",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"},
                           {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "byG",
     "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
     "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "BillingMode": "PAY_PER_REQUEST"}') ->> 'TableDescription' IS NOT NULL AS created;
SELECT item_table.distribute_table('Plain', 4);
SELECT item_table.dynamodb('PutItem', pg_catalog.format('{"TableName": "Plain", "Item": {"id": {"S": "i%s"}, "g": {"S": "g%s"}}}', i, i % 2)::jsonb)
FROM generate_series(1, 6) i;

TRUNCATE item_data."Plain";
TRUNCATE item_data."Plain#byG";
TRUNCATE ONLY item_data."Plain", item_data."Plain#byG";
COPY item_data."Plain" (key, part, item) FROM stdin;
\.
COPY item_data."Plain#byG" FROM stdin;
\.
-- in a transaction block too
BEGIN;
TRUNCATE item_data."Plain";
ROLLBACK;
-- nothing changed
SELECT (SELECT count(*) FROM item_data."Plain") AS items, (SELECT count(*) FROM item_data."Plain#byG") AS index_rows;
SELECT * FROM item_table.verify('Plain');
-- COPY TO and COPY of a query read, and are allowed
COPY (SELECT item -> 'id' ->> 'S' AS id FROM item_data."Plain" ORDER BY 1) TO stdout;
\copy item_data."Plain#byG" (ipart) to '/dev/null'
\copy item_data."Plain" to '/dev/null'
-- an ordinary (undistributed) table is not concerned
CREATE TABLE public.plain_local (a int);
COPY public.plain_local FROM stdin;
1
\.
TRUNCATE public.plain_local;
DROP TABLE public.plain_local;
-- back on the coordinator the item table's own TRUNCATE trigger applies
SELECT item_table.undistribute_table('Plain');
TRUNCATE item_data."Plain";
SELECT (SELECT count(*) FROM item_data."Plain") AS items, (SELECT count(*) FROM item_data."Plain#byG") AS index_rows;
SELECT item_table.dynamodb('DeleteTable', '{"TableName": "Plain"}')->'TableDescription'->>'TableName' AS deleted;
