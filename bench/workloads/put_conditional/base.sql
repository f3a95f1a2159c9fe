\set id random(1, :scale)
\set v random(1, 1000000)
UPDATE item_data.bench SET item = ('{"pk": {"S": "USER#' || :id || '"}, "name": {"S": "user number ' || :id || '"}, "email": {"S": "user' || :id || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}, "tags": {"SS": ["a", "b", "tag1"]}, "address": {"M": {"street": {"S": "' || :id || ' Main Street"}, "city": {"S": "Springfield"}}}}')::jsonb
WHERE key OPERATOR(item_table.=) ('S"USER#' || :id || '"')::item_table.item_key;
