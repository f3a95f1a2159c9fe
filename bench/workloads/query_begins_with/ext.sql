\set id random(0, :scale / 200 - 1)
\set d random(0, 9)
SELECT item_table.query((E'{"TableName": "qbench", "KeyConditionExpression": "pk = \x3apk AND begins_with(sk, \x3apre)", "ExpressionAttributeValues": {"\x3apk": {"S": "P100#' || :id || E'"}, "\x3apre": {"S": "ITEM#00' || :d || '"}}}')::jsonb);
