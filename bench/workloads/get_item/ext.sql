\set id random(1, :scale)
SELECT item_table.get_item(('{"TableName": "bench", "Key": {"pk": {"S": "USER#' || :id || '"}}}')::jsonb);
