-- Twins: each legacy request and its expression-form twin, run over the
-- same data, must give identical responses (or identical errors) and
-- leave identical items.  Any difference is printed.  (Where DynamoDB words
-- a legacy refusal its own way -- BETWEEN bounds out of order, ADD of a
-- mistyped value -- the pair is not a twin; legacy_*.sql test those.)
SET search_path = item_table, public;

SELECT create_table('{"TableName": "lgt", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
		{"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["n"]}}]}') IS NOT NULL AS created;
-- the item every write starts from, and a partition to read
CREATE TEMP TABLE base (item jsonb);
INSERT INTO base VALUES ('{"pk": {"S": "w"}, "sk": {"N": "0"}, "n": {"N": "5"}, "s": {"S": "hello"}, "b": {"B": "aGkgdGhlcmU="},
	"ss": {"SS": ["cat", "dog"]}, "ns": {"NS": ["2", "4"]}, "l": {"L": [{"N": "2"}, {"S": "x"}]}, "nul": {"NULL": true},
	"m": {"M": {"k": {"S": "v"}}}}');
SELECT count(put_item(jsonb_build_object('TableName', 'lgt', 'Item', jsonb_build_object('pk', '{"S": "r"}'::jsonb,
	'sk', jsonb_build_object('N', i::text), 'n', jsonb_build_object('N', (i * 10)::text),
	'g', jsonb_build_object('S', CASE WHEN i % 2 = 0 THEN 'even' ELSE 'odd' END),
	's', jsonb_build_object('S', 'item' || i::text))))) FROM generate_series(1, 12) i;

-- the outcome of one request: the response or the error, and for writes the item after it
CREATE FUNCTION pg_temp.outcome(action text, request jsonb, is_write boolean) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	res jsonb;
	det text;
BEGIN
	IF is_write THEN
		PERFORM item_table.put_item(jsonb_build_object('TableName', 'lgt', 'Item', (SELECT item FROM base)));
	END IF;
	BEGIN
		res := jsonb_build_object('response', item_table.dynamodb(action, request));
	EXCEPTION WHEN others THEN
		GET STACKED DIAGNOSTICS det = PG_EXCEPTION_DETAIL;
		res := jsonb_build_object('error', det::jsonb);
	END;
	IF is_write THEN
		res := res || jsonb_build_object('after', item_table.get_item('{"TableName": "lgt", "Key": {"pk": {"S": "w"}, "sk": {"N": "0"}}}'));
	END IF;
	RETURN res;
END $$;

CREATE TEMP TABLE twins (id serial, action text, legacy jsonb, expr jsonb);
CREATE TEMP TABLE conds (id serial, cond jsonb, expr text, vals jsonb);
-- one condition per operator, true and false, on present, missing and mistyped attributes
INSERT INTO conds (cond, expr, vals) VALUES
	('{"n": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "5"}]}}', '#n = :a', '{":a": {"N": "5"}}'),
	('{"n": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "5"}]}}', '#n = :a', '{":a": {"S": "5"}}'),
	('{"ss": {"ComparisonOperator": "EQ", "AttributeValueList": [{"SS": ["dog", "cat"]}]}}', '#ss = :a', '{":a": {"SS": ["dog", "cat"]}}'),
	('{"l": {"ComparisonOperator": "EQ", "AttributeValueList": [{"L": [{"N": "2"}, {"S": "x"}]}]}}', '#l = :a', '{":a": {"L": [{"N": "2"}, {"S": "x"}]}}'),
	('{"nul": {"ComparisonOperator": "EQ", "AttributeValueList": [{"NULL": true}]}}', '#nul = :a', '{":a": {"NULL": true}}'),
	('{"m": {"ComparisonOperator": "NE", "AttributeValueList": [{"M": {"k": {"S": "v"}}}]}}', '#m <> :a', '{":a": {"M": {"k": {"S": "v"}}}}'),
	('{"l": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"BOOL": true}]}}', 'contains(#l, :a)', '{":a": {"BOOL": true}}'),
	('{"n": {"ComparisonOperator": "NE", "AttributeValueList": [{"N": "5"}]}}', '#n <> :a', '{":a": {"N": "5"}}'),
	('{"q": {"ComparisonOperator": "NE", "AttributeValueList": [{"N": "5"}]}}', '#q <> :a', '{":a": {"N": "5"}}'),
	('{"n": {"ComparisonOperator": "LE", "AttributeValueList": [{"N": "5"}]}}', '#n <= :a', '{":a": {"N": "5"}}'),
	('{"n": {"ComparisonOperator": "LT", "AttributeValueList": [{"N": "5"}]}}', '#n < :a', '{":a": {"N": "5"}}'),
	('{"s": {"ComparisonOperator": "GE", "AttributeValueList": [{"S": "hello"}]}}', '#s >= :a', '{":a": {"S": "hello"}}'),
	('{"b": {"ComparisonOperator": "GT", "AttributeValueList": [{"B": "aGk="}]}}', '#b > :a', '{":a": {"B": "aGk="}}'),
	('{"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"S": "1"}]}}', '#n > :a', '{":a": {"S": "1"}}'),
	('{"q": {"ComparisonOperator": "NULL"}}', 'attribute_not_exists(#q)', NULL),
	('{"nul": {"ComparisonOperator": "NULL"}}', 'attribute_not_exists(#nul)', NULL),
	('{"nul": {"ComparisonOperator": "NOT_NULL"}}', 'attribute_exists(#nul)', NULL),
	('{"q": {"ComparisonOperator": "NOT_NULL"}}', 'attribute_exists(#q)', NULL),
	('{"s": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"S": "ell"}]}}', 'contains(#s, :a)', '{":a": {"S": "ell"}}'),
	('{"ns": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"N": "4"}]}}', 'contains(#ns, :a)', '{":a": {"N": "4"}}'),
	('{"l": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"S": "x"}]}}', 'contains(#l, :a)', '{":a": {"S": "x"}}'),
	('{"s": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "ell"}]}}', 'attribute_exists(#s) AND NOT contains(#s, :a)', '{":a": {"S": "ell"}}'),
	('{"ss": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "cow"}]}}', 'attribute_exists(#ss) AND NOT contains(#ss, :a)', '{":a": {"S": "cow"}}'),
	('{"q": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "cow"}]}}', 'attribute_exists(#q) AND NOT contains(#q, :a)', '{":a": {"S": "cow"}}'),
	('{"s": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "he"}]}}', 'begins_with(#s, :a)', '{":a": {"S": "he"}}'),
	('{"b": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"B": "aGk="}]}}', 'begins_with(#b, :a)', '{":a": {"B": "aGk="}}'),
	('{"n": {"ComparisonOperator": "IN", "AttributeValueList": [{"N": "1"}, {"N": "5"}]}}', '#n IN (:a, :b)', '{":a": {"N": "1"}, ":b": {"N": "5"}}'),
	('{"s": {"ComparisonOperator": "IN", "AttributeValueList": [{"S": "bye"}]}}', '#s IN (:a)', '{":a": {"S": "bye"}}'),
	('{"n": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "1"}, {"N": "5"}]}}', '#n BETWEEN :a AND :b', '{":a": {"N": "1"}, ":b": {"N": "5"}}'),
	('{"n": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "6"}, {"N": "9"}]}}', '#n BETWEEN :a AND :b', '{":a": {"N": "6"}, ":b": {"N": "9"}}'),
	('{"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}, "s": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "bye"}]}}',
		'#n > :a AND #s = :b', '{":a": {"N": "1"}, ":b": {"S": "bye"}}'),
	('{"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}, "s": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "item3"}]}}',
		'#n > :a AND #s = :b', '{":a": {"N": "1"}, ":b": {"S": "item3"}}');
-- names used by the expressions
CREATE FUNCTION pg_temp.names(expr text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_object_agg('#' || m[1], m[1]) FROM regexp_matches(expr, '#([a-z0-9]+)', 'g') m
$$;
CREATE FUNCTION pg_temp.with_expr(req jsonb, param text, expr text, vals jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_strip_nulls(req || jsonb_build_object(param, expr, 'ExpressionAttributeNames', pg_temp.names(expr),
		'ExpressionAttributeValues', vals))
$$;

-- Expected vs ConditionExpression on PutItem, DeleteItem, UpdateItem (AND and OR)
INSERT INTO twins (action, legacy, expr)
SELECT 'PutItem', jsonb_build_object('TableName', 'lgt', 'Item', '{"pk": {"S": "w"}, "sk": {"N": "0"}, "new": {"BOOL": true}}'::jsonb,
		'Expected', cond, 'ReturnValues', 'ALL_OLD', 'ReturnValuesOnConditionCheckFailure', 'ALL_OLD'),
	pg_temp.with_expr(jsonb_build_object('TableName', 'lgt', 'Item', '{"pk": {"S": "w"}, "sk": {"N": "0"}, "new": {"BOOL": true}}'::jsonb,
		'ReturnValues', 'ALL_OLD', 'ReturnValuesOnConditionCheckFailure', 'ALL_OLD'), 'ConditionExpression', expr, vals)
FROM conds ORDER BY id;
INSERT INTO twins (action, legacy, expr)
SELECT 'DeleteItem', jsonb_build_object('TableName', 'lgt', 'Key', '{"pk": {"S": "w"}, "sk": {"N": "0"}}'::jsonb, 'Expected', cond,
		'ReturnValues', 'ALL_OLD', 'ReturnConsumedCapacity', 'TOTAL'),
	pg_temp.with_expr(jsonb_build_object('TableName', 'lgt', 'Key', '{"pk": {"S": "w"}, "sk": {"N": "0"}}'::jsonb,
		'ReturnValues', 'ALL_OLD', 'ReturnConsumedCapacity', 'TOTAL'), 'ConditionExpression', expr, vals)
FROM conds ORDER BY id;
INSERT INTO twins (action, legacy, expr)
SELECT 'UpdateItem', jsonb_build_object('TableName', 'lgt', 'Key', '{"pk": {"S": "w"}, "sk": {"N": "0"}}'::jsonb, 'Expected', cond,
		'ConditionalOperator', 'OR', 'AttributeUpdates', '{"z": {"Action": "PUT", "Value": {"N": "1"}}}'::jsonb, 'ReturnValues', 'ALL_NEW'),
	pg_temp.with_expr(jsonb_build_object('TableName', 'lgt', 'Key', '{"pk": {"S": "w"}, "sk": {"N": "0"}}'::jsonb,
		'ReturnValues', 'ALL_NEW', 'UpdateExpression', 'SET #z = :zz'), 'ConditionExpression', replace(expr, ' AND #s', ' OR #s'),
		coalesce(vals, '{}') || '{":zz": {"N": "1"}}')
		|| jsonb_build_object('ExpressionAttributeNames', pg_temp.names(expr || ' #z'))
FROM conds WHERE (SELECT count(*) FROM jsonb_object_keys(cond)) = 2 ORDER BY id;
-- QueryFilter and ScanFilter vs FilterExpression, with Limit
INSERT INTO twins (action, legacy, expr)
SELECT 'Query', jsonb_build_object('TableName', 'lgt', 'KeyConditions', '{"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "r"}]}}'::jsonb,
		'QueryFilter', cond, 'Limit', 7),
	pg_temp.with_expr(jsonb_build_object('TableName', 'lgt', 'KeyConditions', '{"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "r"}]}}'::jsonb,
		'Limit', 7), 'FilterExpression', expr, vals)
FROM conds ORDER BY id;
INSERT INTO twins (action, legacy, expr)
SELECT 'Scan', jsonb_build_object('TableName', 'lgt', 'ScanFilter', cond, 'Limit', 9, 'ReturnConsumedCapacity', 'TOTAL'),
	pg_temp.with_expr(jsonb_build_object('TableName', 'lgt', 'Limit', 9, 'ReturnConsumedCapacity', 'TOTAL'), 'FilterExpression', expr, vals)
FROM conds ORDER BY id;

-- AttributeUpdates vs UpdateExpression, every ReturnValues
INSERT INTO twins (action, legacy, expr)
SELECT 'UpdateItem', jsonb_build_object('TableName', 'lgt', 'Key', '{"pk": {"S": "w"}, "sk": {"N": "0"}}'::jsonb, 'AttributeUpdates', au, 'ReturnValues', rv),
	pg_temp.with_expr(jsonb_build_object('TableName', 'lgt', 'Key', '{"pk": {"S": "w"}, "sk": {"N": "0"}}'::jsonb, 'ReturnValues', rv),
		'UpdateExpression', ue, uv)
FROM (VALUES
	('{"n": {"Action": "PUT", "Value": {"N": "7"}}, "new": {"Value": {"S": "x"}}}'::jsonb, 'SET #n = :a, #new = :b', '{":a": {"N": "7"}, ":b": {"S": "x"}}'::jsonb),
	('{"n": {"Action": "ADD", "Value": {"N": "-2.5"}}, "cnt": {"Action": "ADD", "Value": {"N": "1"}}}', 'ADD #n :a, #cnt :b', '{":a": {"N": "-2.5"}, ":b": {"N": "1"}}'),
	('{"ss": {"Action": "ADD", "Value": {"SS": ["eel", "cat"]}}, "ns": {"Action": "ADD", "Value": {"NS": ["9"]}}}', 'ADD #ss :a, #ns :b', '{":a": {"SS": ["eel", "cat"]}, ":b": {"NS": ["9"]}}'),
	('{"ss": {"Action": "DELETE", "Value": {"SS": ["cat"]}}, "ns": {"Action": "DELETE", "Value": {"NS": ["2", "4"]}}}', 'DELETE #ss :a, #ns :b', '{":a": {"SS": ["cat"]}, ":b": {"NS": ["2", "4"]}}'),
	('{"s": {"Action": "DELETE"}, "q": {"Action": "DELETE"}, "m": {"Action": "DELETE"}}', 'REMOVE #s, #q, #m', NULL),
	('{"l": {"Action": "ADD", "Value": {"L": [{"N": "3"}]}}, "l2": {"Action": "ADD", "Value": {"L": [{"N": "3"}]}}}',
		'SET #l = list_append(if_not_exists(#l, :e), :a), #l2 = list_append(if_not_exists(#l2, :e), :a)', '{":a": {"L": [{"N": "3"}]}, ":e": {"L": []}}'),
	('{"sk": {"Action": "PUT", "Value": {"N": "1"}}}', 'SET #sk = :a', '{":a": {"N": "1"}}'),
	('{"g": {"Action": "PUT", "Value": {"S": "odd"}}, "n": {"Action": "DELETE"}}', 'SET #g = :a REMOVE #n', '{":a": {"S": "odd"}}'),
	('{"g": {"Action": "PUT", "Value": {"N": "1"}}}', 'SET #g = :a', '{":a": {"N": "1"}}')) t(au, ue, uv),
	(VALUES ('NONE'), ('ALL_OLD'), ('UPDATED_OLD'), ('ALL_NEW'), ('UPDATED_NEW')) r(rv);

-- KeyConditions vs KeyConditionExpression, AttributesToGet vs ProjectionExpression
INSERT INTO twins (action, legacy, expr)
SELECT 'Query', jsonb_build_object('TableName', 'lgt', 'KeyConditions', kc) || more || coalesce(jsonb_build_object('AttributesToGet', atg), '{}'),
	pg_temp.with_expr(jsonb_build_object('TableName', 'lgt', 'KeyConditionExpression', kce) || more, 'ProjectionExpression',
		(SELECT string_agg('#' || a, ', ') FROM jsonb_array_elements_text(atg) a), kv)
		|| jsonb_build_object('ExpressionAttributeNames', pg_temp.names(kce || coalesce(' #' || (SELECT string_agg(a, ' #') FROM jsonb_array_elements_text(atg) a), '')))
FROM (VALUES
	('{"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "r"}]}}'::jsonb, '#pk = :p', '{":p": {"S": "r"}}'::jsonb),
	('{"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "r"}]}, "sk": {"ComparisonOperator": "LT", "AttributeValueList": [{"N": "4"}]}}', '#pk = :p AND #sk < :s', '{":p": {"S": "r"}, ":s": {"N": "4"}}'),
	('{"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "r"}]}, "sk": {"ComparisonOperator": "GE", "AttributeValueList": [{"N": "4"}]}}', '#pk = :p AND #sk >= :s', '{":p": {"S": "r"}, ":s": {"N": "4"}}'),
	('{"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "r"}]}, "sk": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "2"}, {"N": "9"}]}}', '#pk = :p AND #sk BETWEEN :s AND :t', '{":p": {"S": "r"}, ":s": {"N": "2"}, ":t": {"N": "9"}}'),
	('{"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "zz"}]}}', '#pk = :p', '{":p": {"S": "zz"}}'),
	('{"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}]}}', '#pk = :p', '{":p": {"N": "1"}}'),
	('{"sk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}]}}', '#sk = :s', '{":s": {"N": "1"}}'),
	('{"pk": {"ComparisonOperator": "GT", "AttributeValueList": [{"S": "r"}]}}', '#pk > :p', '{":p": {"S": "r"}}')) k(kc, kce, kv),
	(VALUES ('{}'::jsonb), ('{"ScanIndexForward": false, "Limit": 4}'), ('{"Limit": 3, "ExclusiveStartKey": {"pk": {"S": "r"}, "sk": {"N": "5"}}}'),
		('{"Select": "COUNT"}'), ('{"ReturnConsumedCapacity": "INDEXES"}')) m(more),
	(VALUES (NULL::jsonb), ('["n", "sk"]'), ('["zz"]')) p(atg)
WHERE NOT (more ? 'Select' AND atg IS NOT NULL);
-- an index
INSERT INTO twins (action, legacy, expr) VALUES
	('Query', '{"TableName": "lgt", "IndexName": "by_g", "KeyConditions": {"g": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "odd"}]},
		"sk": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "3"}]}}, "AttributesToGet": ["n", "g"], "Limit": 2}',
	 '{"TableName": "lgt", "IndexName": "by_g", "KeyConditionExpression": "g = :g AND sk > :s", "ProjectionExpression": "n, g", "Limit": 2,
		"ExpressionAttributeValues": {":g": {"S": "odd"}, ":s": {"N": "3"}}}'),
	('Query', '{"TableName": "lgt", "IndexName": "by_g", "KeyConditions": {"g": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "odd"}]}},
		"AttributesToGet": ["s"]}',
	 '{"TableName": "lgt", "IndexName": "by_g", "KeyConditionExpression": "g = :g", "ProjectionExpression": "s",
		"ExpressionAttributeValues": {":g": {"S": "odd"}}}'),
	('Scan', '{"TableName": "lgt", "IndexName": "by_g", "AttributesToGet": ["sk", "n"], "ScanFilter": {"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "60"}]}}}',
	 '{"TableName": "lgt", "IndexName": "by_g", "ProjectionExpression": "sk, n", "FilterExpression": "n > :n", "ExpressionAttributeValues": {":n": {"N": "60"}}}'),
	('Scan', '{"TableName": "lgt", "AttributesToGet": ["s"], "Segment": 1, "TotalSegments": 3}',
	 '{"TableName": "lgt", "ProjectionExpression": "s", "Segment": 1, "TotalSegments": 3}'),
	('GetItem', '{"TableName": "lgt", "Key": {"pk": {"S": "r"}, "sk": {"N": "3"}}, "AttributesToGet": ["s", "n", "zz"], "ReturnConsumedCapacity": "TOTAL"}',
	 '{"TableName": "lgt", "Key": {"pk": {"S": "r"}, "sk": {"N": "3"}}, "ProjectionExpression": "s, n, zz", "ReturnConsumedCapacity": "TOTAL"}'),
	('GetItem', '{"TableName": "lgt", "Key": {"pk": {"S": "r"}, "sk": {"N": "99"}}, "AttributesToGet": ["s"]}',
	 '{"TableName": "lgt", "Key": {"pk": {"S": "r"}, "sk": {"N": "99"}}, "ProjectionExpression": "s"}'),
	('BatchGetItem', '{"RequestItems": {"lgt": {"Keys": [{"pk": {"S": "r"}, "sk": {"N": "1"}}, {"pk": {"S": "r"}, "sk": {"N": "2"}}], "AttributesToGet": ["n"]}}}',
	 '{"RequestItems": {"lgt": {"Keys": [{"pk": {"S": "r"}, "sk": {"N": "1"}}, {"pk": {"S": "r"}, "sk": {"N": "2"}}], "ProjectionExpression": "n"}}}');

-- run every pair
CREATE TEMP TABLE results AS
SELECT id, action, legacy, expr,
	pg_temp.outcome(action, legacy, action IN ('PutItem', 'DeleteItem', 'UpdateItem')) AS l_out,
	pg_temp.outcome(action, expr, action IN ('PutItem', 'DeleteItem', 'UpdateItem')) AS e_out
FROM twins ORDER BY id;

-- how many of each kind ran, and what they did
SELECT action, count(*) AS pairs,
	count(*) FILTER (WHERE l_out ? 'response') AS succeeded,
	count(*) FILTER (WHERE l_out->'error'->>'__type' LIKE '%ConditionalCheckFailed%') AS condition_failed,
	count(*) FILTER (WHERE l_out->'error'->>'__type' LIKE '%Validation%') AS refused
FROM results GROUP BY action ORDER BY action;
-- any difference (must be none)
SELECT id, action, legacy, expr, l_out, e_out FROM results WHERE l_out IS DISTINCT FROM e_out ORDER BY id;

SELECT delete_table('{"TableName": "lgt"}') IS NOT NULL AS dropped;
