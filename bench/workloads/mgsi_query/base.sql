\set t random(0, 9)
\set r random(0, 4)
\set d random(0, 9)
\set rnd random(1, 20)
-- the same matches through the concatenated key: = on gpk, begins_with on gsk
SELECT item_table.query((E'{"TableName": "mgsic", "IndexName": "by_bracket", "KeyConditionExpression": "gpk = \x3avp AND begins_with(gsk, \x3avs)", "ExpressionAttributeValues": {"\x3avp": {"S": "T#T' || :t || '#R#R' || :r || '#D#' || :d || E'"}, "\x3avs": {"S": "ROUND#' || lpad(:rnd::text, 4, '0') || E'#"}}}')::jsonb);
