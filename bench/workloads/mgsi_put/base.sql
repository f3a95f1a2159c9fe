\set id random(2000000000, 9000000000000000000)
\set t random(0, 9)
\set r random(0, 4)
\set d random(0, 9)
\set rnd random(1, 20)
-- the same item with the concatenated index attributes (and the typed ones, as a client keeps them)
SELECT item_table.put_item(('{"TableName": "mgsic", "Item": {"pk": {"S": "MATCH#' || :id || '"},
	"gpk": {"S": "T#T' || :t || '#R#R' || :r || '#D#' || :d || '"}, "gsk": {"S": "ROUND#' || lpad(:rnd::text, 4, '0') || '#MATCH#M' || :id || '"},
	"tournament": {"S": "T' || :t || '"}, "region": {"S": "R' || :r || '"}, "division": {"N": "' || :d || '"},
	"round": {"N": "' || :rnd || '"}, "match": {"S": "M' || :id || '"}, "score": {"N": "' || :d || '"}}}')::jsonb);
