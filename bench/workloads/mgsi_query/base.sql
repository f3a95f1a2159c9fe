\set t random(0, 9)
\set r random(0, 4)
\set d random(0, 9)
\set rnd random(1, 20)
-- the same matches through the concatenated key: = on gpk, begins_with on gsk
SELECT item_table.query(('{"TableName": "mgsic", "IndexName": "by_bracket",
	"KeyConditionExpression": "gpk = :p AND begins_with(gsk, :s)",
	"ExpressionAttributeValues": {":p": {"S": "T#T' || :t || '#R#R' || :r || '#D#' || :d || '"}, ":s": {"S": "ROUND#' || lpad(:rnd::text, 4, '0') || '#"}}}')::jsonb);
