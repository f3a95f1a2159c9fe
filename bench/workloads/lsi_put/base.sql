\set p random(0, :scale / 10)
\set id random(2000000000, 9000000000000000000)
\set t random(0, 999999)
-- the base row and the index row in one statement (one round trip)
WITH b AS (
  INSERT INTO lsib_plain (key, item) VALUES (('S"P#' || :p || '"|S"N#' || :id || '"')::item_table.item_key, ('{"pk": {"S": "P#' || :p || '"}, "sk": {"S": "N#' || :id || '"}, "ts": {"S": "T#' || :t || '"}, "name": {"S": "user number ' || :id || '"}, "n": {"N": "' || :t || '"}}')::jsonb)
  ON CONFLICT (key) DO UPDATE SET item = EXCLUDED.item RETURNING key, item)
INSERT INTO lsib_plain_ts (ikey, key, item) SELECT ('S"P#' || :p || '"|S"T#' || :t || '"')::item_table.item_key, key, item FROM b
ON CONFLICT (ikey, key) DO UPDATE SET item = EXCLUDED.item;
