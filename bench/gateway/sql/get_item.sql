\set id random(1, :scale)
SELECT item_table.dynamodb('GetItem', ('{"TableName": "bench", "Key": {"pk": {"S": "USER#' || :id || '"}}}')::jsonb);
