\set id random(0, :scale / 200 - 1)
SELECT item_table.query((E'{"TableName": "qbench", "KeyConditionExpression": "pk = \x3apk", "ExpressionAttributeValues": {"\x3apk": {"S": "P100#' || :id || '"}}}')::jsonb);
