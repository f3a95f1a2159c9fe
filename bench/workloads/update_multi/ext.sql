\set id random(1, :scale)
\set d random(1, 100)
-- chr(58) is ':' (pgbench would take a literal :name for one of its variables)
SELECT item_table.update_item(('{"TableName": "bench", "Key": {"pk": {"S": "USER#' || :id || '"}}, "UpdateExpression": "SET #nm = ' || chr(58) || 'nm, score = score + ' || chr(58) || 'd, address.city = ' || chr(58) || 'c REMOVE tags", "ExpressionAttributeNames": {"#nm": "name"}, "ExpressionAttributeValues": {"' || chr(58) || 'nm": {"S": "renamed ' || :d || '"}, "' || chr(58) || 'd": {"N": "' || :d || '"}, "' || chr(58) || 'c": {"S": "Shelbyville"}}}')::jsonb);
