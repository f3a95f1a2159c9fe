\set id random(0, :scale / 20 - 1)
SELECT item_table.dynamodb('Query', (E'{"TableName": "qbench", "KeyConditionExpression": "pk = \x3apk", "ExpressionAttributeValues": {"\x3apk": {"S": "P10#' || :id || '"}}}')::jsonb);
