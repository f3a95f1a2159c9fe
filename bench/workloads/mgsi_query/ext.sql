\set t random(0, 9)
\set r random(0, 4)
\set d random(0, 9)
\set rnd random(1, 20)
-- one bracket's matches of one round: = on the three partition attributes and the first sort attribute (\x3a is the colon of a placeholder, hidden from pgbench)
SELECT item_table.query((E'{"TableName": "mgsib", "IndexName": "by_bracket", "KeyConditionExpression": "tournament = \x3avt AND #g = \x3avr AND division = \x3avd AND #n = \x3avn", "ExpressionAttributeNames": {"#g": "region", "#n": "round"}, "ExpressionAttributeValues": {"\x3avt": {"S": "T' || :t || E'"}, "\x3avr": {"S": "R' || :r || E'"}, "\x3avd": {"N": "' || :d || E'"}, "\x3avn": {"N": "' || :rnd || E'"}}}')::jsonb);
