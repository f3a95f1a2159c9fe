\set a random(1, 1000)
-- chr(58) is ':' (pgbench would take a literal :name for one of its variables)
SELECT item_table.query(('{"TableName": "Register", "KeyConditionExpression": "PK = ' || chr(58) || 'pk", "ExpressionAttributeValues": {"' || chr(58) || 'pk": {"S": "ACCOUNT#' || :a || '"}}}')::jsonb);
