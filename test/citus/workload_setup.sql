-- The table and the operation function of the random workload (run.sh).
SET client_min_messages = warning;
SELECT item_table.create_table('{
  "TableName": "Work",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
    {"AttributeName": "sk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"},
    {"AttributeName": "n", "AttributeType": "N"}, {"AttributeName": "tags", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [
    {"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["n"]}},
    {"IndexName": "byTag", "ItemTableElementIndex": true,
     "KeySchema": [{"AttributeName": "tags", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "LocalSecondaryIndexes": [
    {"IndexName": "byN", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}') IS NOT NULL;
SELECT item_table.distribute_table('Work', 8);

CREATE FUNCTION public.pg_temp_work_op(op int, p int, q int, s int, g int) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  k1 jsonb := pg_catalog.jsonb_build_object('pk', pg_catalog.jsonb_build_object('S', 'p' || p), 'sk', pg_catalog.jsonb_build_object('S', 's' || s));
  k2 jsonb := pg_catalog.jsonb_build_object('pk', pg_catalog.jsonb_build_object('S', 'p' || q), 'sk', pg_catalog.jsonb_build_object('S', 's' || s));
  item jsonb := k1 || pg_catalog.jsonb_build_object('g', pg_catalog.jsonb_build_object('S', 'g' || g),
      'n', pg_catalog.jsonb_build_object('N', (p * 10 + s)::text),
      'tags', pg_catalog.jsonb_build_object('SS', pg_catalog.jsonb_build_array('t' || g, 'all')));
  upd jsonb := pg_catalog.jsonb_build_object('UpdateExpression', 'SET g = :g, n = if_not_exists(n, :z) + :one ADD tags :t',
      'ExpressionAttributeValues', pg_catalog.jsonb_build_object(':g', pg_catalog.jsonb_build_object('S', 'g' || g),
        ':z', '{"N": "0"}'::jsonb, ':one', '{"N": "1"}'::jsonb,
        ':t', pg_catalog.jsonb_build_object('SS', pg_catalog.jsonb_build_array('t' || s))));
BEGIN
  CASE op
  WHEN 1 THEN
    PERFORM item_table.dynamodb('PutItem', pg_catalog.jsonb_build_object('TableName', 'Work', 'Item', item));
  WHEN 2 THEN
    PERFORM item_table.dynamodb('UpdateItem', pg_catalog.jsonb_build_object('TableName', 'Work', 'Key', k1) || upd);
  WHEN 3 THEN
    PERFORM item_table.dynamodb('DeleteItem', pg_catalog.jsonb_build_object('TableName', 'Work', 'Key', k2,
      'ConditionExpression', 'attribute_not_exists(g) OR g <> :x', 'ExpressionAttributeValues', '{":x": {"S": "g1"}}'::jsonb));
  WHEN 4 THEN
    PERFORM item_table.dynamodb('TransactWriteItems', pg_catalog.jsonb_build_object('TransactItems', pg_catalog.jsonb_build_array(
      pg_catalog.jsonb_build_object('Put', pg_catalog.jsonb_build_object('TableName', 'Work', 'Item', item)),
      pg_catalog.jsonb_build_object('Update', pg_catalog.jsonb_build_object('TableName', 'Work', 'Key', k2) || upd))));
  WHEN 5 THEN
    PERFORM item_table.dynamodb('BatchWriteItem', pg_catalog.jsonb_build_object('RequestItems', pg_catalog.jsonb_build_object('Work',
      pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('PutRequest', pg_catalog.jsonb_build_object('Item', item)),
        pg_catalog.jsonb_build_object('DeleteRequest', pg_catalog.jsonb_build_object('Key', k2))))));
  ELSE
    PERFORM item_table.dynamodb('Query', pg_catalog.jsonb_build_object('TableName', 'Work', 'IndexName', 'byG',
      'KeyConditionExpression', 'g = :g', 'ExpressionAttributeValues',
      pg_catalog.jsonb_build_object(':g', pg_catalog.jsonb_build_object('S', 'g' || g))));
  END CASE;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE;
END $$;
