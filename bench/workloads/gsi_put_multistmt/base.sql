\set id random(2000000000, 9000000000000000000)
\set c random(0, 999)
BEGIN;
INSERT INTO gsib_plain (key, item) VALUES (('S"USER#' || :id || '"')::item_table.item_key, ('{"pk": {"S": "USER#' || :id || '"}, "city": {"S": "CITY#' || :c || '"}, "csk": {"S": "USER#' || :id || '"}, "email": {"S": "user' || :id || '@example.com"}, "name": {"S": "user number ' || :id || '"}, "n": {"N": "' || :c || '"}}')::jsonb);
INSERT INTO gsib_plain_city (ikey, key, item) VALUES (('S"CITY#' || :c || '"|S"USER#' || :id || '"')::item_table.item_key, ('S"USER#' || :id || '"')::item_table.item_key, ('{"pk": {"S": "USER#' || :id || '"}, "city": {"S": "CITY#' || :c || '"}, "csk": {"S": "USER#' || :id || '"}, "email": {"S": "user' || :id || '@example.com"}, "name": {"S": "user number ' || :id || '"}, "n": {"N": "' || :c || '"}}')::jsonb);
INSERT INTO gsib_plain_email (ikey, key, item) VALUES (('S"user' || :id || '@example.com"')::item_table.item_key, ('S"USER#' || :id || '"')::item_table.item_key, ('{"pk": {"S": "USER#' || :id || '"}, "email": {"S": "user' || :id || '@example.com"}}')::jsonb);
COMMIT;
