\set id random(2000000000, 9000000000000000000)
\set c random(0, 999)
SELECT item_table.put_item(('{"TableName": "gsib", "Item": {"pk": {"S": "USER#' || :id || '"}, "city": {"S": "CITY#' || :c || '"}, "csk": {"S": "USER#' || :id || '"}, "email": {"S": "user' || :id || '@example.com"}, "name": {"S": "user number ' || :id || '"}, "n": {"N": "' || :c || '"}}}')::jsonb);
