\set c random(0, 999)
SELECT item_table.query((E'{"TableName": "gsib", "IndexName": "by_city", "KeyConditionExpression": "city = \x3ac", "ExpressionAttributeValues": {"\x3ac": {"S": "CITY#' || :c || '"}}, "Limit": 10}')::jsonb);
