\set id random(2000000000, 9000000000000000000)
\set c random(0, 999)
-- the base row and both index rows in one statement (one round trip)
WITH b AS (
  INSERT INTO gsib_plain (key, item) VALUES (('S"USER#' || :id || '"')::item_table.item_key, ('{"pk": {"S": "USER#' || :id || '"}, "city": {"S": "CITY#' || :c || '"}, "csk": {"S": "USER#' || :id || '"}, "email": {"S": "user' || :id || '@example.com"}, "name": {"S": "user number ' || :id || '"}, "n": {"N": "' || :c || '"}}')::jsonb)
  ON CONFLICT (key) DO UPDATE SET item = EXCLUDED.item RETURNING key, item),
c AS (
  INSERT INTO gsib_plain_city (ikey, key, item) SELECT ('S"CITY#' || :c || '"|S"USER#' || :id || '"')::item_table.item_key, key, item FROM b
  ON CONFLICT (ikey, key) DO UPDATE SET item = EXCLUDED.item RETURNING 1),
e AS (
  INSERT INTO gsib_plain_email (ikey, key, item) SELECT ('S"user' || :id || '@example.com"')::item_table.item_key, key, jsonb_build_object('pk', item->'pk', 'email', item->'email') FROM b
  ON CONFLICT (ikey, key) DO UPDATE SET item = EXCLUDED.item RETURNING 1)
SELECT (SELECT count(*) FROM c) + (SELECT count(*) FROM e);
