\set id random(1, :scale)
-- chr(58) is ':' (pgbench would take a literal :name for one of its variables)
SELECT item_table.update_item(('{"TableName": "bench", "Key": {"pk": {"S": "USER#' || :id || '"}}, "UpdateExpression": "SET n = n + ' || chr(58) || 'one", "ExpressionAttributeValues": {"' || chr(58) || 'one": {"N": "1"}}}')::jsonb);
