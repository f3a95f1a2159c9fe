\set t random(0, 9)
\set r random(0, 4)
\set d random(0, 9)
\set rnd random(1, 20)
-- one bracket's matches of one round: = on the three partition attributes and the first sort attribute
SELECT item_table.query(('{"TableName": "mgsib", "IndexName": "by_bracket",
	"KeyConditionExpression": "tournament = :t AND #g = :r AND division = :d AND #n = :n",
	"ExpressionAttributeNames": {"#g": "region", "#n": "round"},
	"ExpressionAttributeValues": {":t": {"S": "T' || :t || '"}, ":r": {"S": "R' || :r || '"}, ":d": {"N": "' || :d || '"}, ":n": {"N": "' || :rnd || '"}}}')::jsonb);
