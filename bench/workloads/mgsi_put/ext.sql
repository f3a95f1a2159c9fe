\set id random(2000000000, 9000000000000000000)
\set t random(0, 9)
\set r random(0, 4)
\set d random(0, 9)
\set rnd random(1, 20)
SELECT item_table.put_item(('{"TableName": "mgsib", "Item": {"pk": {"S": "MATCH#' || :id || '"},
	"tournament": {"S": "T' || :t || '"}, "region": {"S": "R' || :r || '"}, "division": {"N": "' || :d || '"},
	"round": {"N": "' || :rnd || '"}, "match": {"S": "M' || :id || '"}, "score": {"N": "' || :d || '"}}}')::jsonb);
