\set id random(1, :scale)
\set v random(1, 1000000)
SELECT item_table.put_item(('{"TableName": "bench_nopitr", "Item": {"pk": {"S": "USER#' || :id || '"}, "name": {"S": "user number ' || :id || '"}, "email": {"S": "user' || :id || '@example.com"}, "n": {"N": "' || :v || '"}, "score": {"N": "' || :v || '.5"}, "tags": {"SS": ["a", "b", "tag1"]}, "address": {"M": {"street": {"S": "' || :id || ' Main Street"}, "city": {"S": "Springfield"}}}}}')::jsonb);
