\set p random(0, :scale / 10)
\set id random(2000000000, 9000000000000000000)
\set t random(0, 999999)
SELECT item_table.put_item(('{"TableName": "lsib", "Item": {"pk": {"S": "P#' || :p || '"}, "sk": {"S": "N#' || :id || '"}, "ts": {"S": "T#' || :t || '"}, "name": {"S": "user number ' || :id || '"}, "n": {"N": "' || :t || '"}}}')::jsonb);
