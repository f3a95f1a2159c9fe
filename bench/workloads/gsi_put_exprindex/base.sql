\set id random(2000000000, 9000000000000000000)
\set c random(0, 999)
INSERT INTO gsib_expr (key, item) VALUES (('S"USER#' || :id || '"')::item_table.item_key, ('{"pk": {"S": "USER#' || :id || '"}, "city": {"S": "CITY#' || :c || '"}, "csk": {"S": "USER#' || :id || '"}, "email": {"S": "user' || :id || '@example.com"}, "name": {"S": "user number ' || :id || '"}, "n": {"N": "' || :c || '"}}')::jsonb);
