\set id random(1, :scale)
SELECT item_table.update_item(('{"TableName": "bench", "Key": {"pk": {"S": "USER#' || :id || '"}}, "UpdateExpression": "SET n = n + :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}')::jsonb);
