-- Legacy Expected and ConditionalOperator (reference 4.16): every
-- ComparisonOperator, true and false, on present, missing and mistyped
-- attributes; the Exists/Value form; AND/OR; every refusal with DynamoDB's
-- message; PutItem, UpdateItem and DeleteItem alike.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	msg text;
	det text;
BEGIN
	RETURN item_table.dynamodb(action, request)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	RETURN msg || CASE WHEN det LIKE '%"Item"%' THEN E'\n  body: ' || det ELSE '' END;
END $$;

-- the outcome of a conditional UpdateItem: true (written), false
-- (ConditionalCheckFailedException) or the error
CREATE FUNCTION pg_temp.cond(expected jsonb, more jsonb DEFAULT '{}') RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	msg text;
BEGIN
	PERFORM item_table.update_item(jsonb_build_object('TableName', 'lgx', 'Key', '{"pk": {"S": "x"}}'::jsonb,
		'AttributeUpdates', '{"z": {"Action": "PUT", "Value": {"N": "1"}}}'::jsonb, 'Expected', expected) || more);
	RETURN 'true';
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
	IF msg LIKE 'ConditionalCheckFailedException:%' THEN
		RETURN 'false';
	END IF;
	RETURN msg;
END $$;

SELECT create_table('{"TableName": "lgx", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
SELECT put_item('{"TableName": "lgx", "Item": {"pk": {"S": "x"}, "n": {"N": "5"}, "s": {"S": "hello"},
	"b": {"B": "aGkgdGhlcmU="}, "ss": {"SS": ["dog", "chinchilla", "cat"]}, "ns": {"NS": ["2", "4", "7"]},
	"l": {"L": [{"N": "2"}, {"N": "4"}, {"S": "seven"}]}, "nul": {"NULL": true}, "bo": {"BOOL": true},
	"m": {"M": {"k": {"S": "v"}}}, "a.b": {"S": "dotted"}}}');

-- ---------------------------------------------------------------- every operator
CREATE TEMP TABLE cases (id serial, attr text, op text, vals jsonb);
INSERT INTO cases (attr, op, vals) VALUES
	-- EQ: scalars, sets in any order, another type, a missing attribute
	('n', 'EQ', '[{"N": "5"}]'), ('n', 'EQ', '[{"N": "5.0"}]'), ('n', 'EQ', '[{"N": "6"}]'), ('n', 'EQ', '[{"S": "5"}]'),
	('ss', 'EQ', '[{"SS": ["cat", "chinchilla", "dog"]}]'), ('ss', 'EQ', '[{"SS": ["cat", "dog"]}]'),
	('ns', 'EQ', '[{"NS": ["7", "2", "4"]}]'), ('q', 'EQ', '[{"N": "5"}]'),
	-- EQ and NE take any type: lists, maps, BOOL, NULL
	('l', 'EQ', '[{"L": [{"N": "2"}, {"N": "4"}, {"S": "seven"}]}]'), ('m', 'EQ', '[{"M": {"k": {"S": "v"}}}]'),
	('bo', 'EQ', '[{"BOOL": true}]'), ('nul', 'EQ', '[{"NULL": true}]'), ('bo', 'NE', '[{"BOOL": false}]'),
	('m', 'NE', '[{"M": {"k": {"S": "v"}}}]'),
	-- NE: true for another value, another type and a missing attribute
	('n', 'NE', '[{"N": "5"}]'), ('n', 'NE', '[{"N": "6"}]'), ('n', 'NE', '[{"S": "5"}]'), ('q', 'NE', '[{"N": "5"}]'),
	-- LE LT GE GT on N, S, B; another type is false
	('n', 'LE', '[{"N": "5"}]'), ('n', 'LE', '[{"N": "4"}]'), ('s', 'LE', '[{"S": "help"}]'), ('b', 'LE', '[{"B": "aGk="}]'),
	('n', 'LT', '[{"N": "5"}]'), ('n', 'LT', '[{"N": "6"}]'), ('s', 'LT', '[{"S": "z"}]'), ('n', 'LT', '[{"S": "6"}]'),
	('n', 'GE', '[{"N": "5"}]'), ('n', 'GE', '[{"N": "6"}]'), ('s', 'GE', '[{"S": "hello"}]'), ('b', 'GE', '[{"B": "aGk="}]'),
	('n', 'GT', '[{"N": "4.99"}]'), ('n', 'GT', '[{"N": "5"}]'), ('s', 'GT', '[{"S": "a"}]'), ('q', 'GT', '[{"N": "0"}]'),
	-- NULL / NOT_NULL test existence (a NULL value exists)
	('q', 'NULL', '[]'), ('n', 'NULL', '[]'), ('nul', 'NULL', '[]'),
	('n', 'NOT_NULL', '[]'), ('nul', 'NOT_NULL', '[]'), ('q', 'NOT_NULL', '[]'),
	-- CONTAINS: substring, subsequence, set member, list element
	('s', 'CONTAINS', '[{"S": "ell"}]'), ('s', 'CONTAINS', '[{"S": "dog"}]'), ('s', 'CONTAINS', '[{"N": "1"}]'),
	('b', 'CONTAINS', '[{"B": "dGhlcmU="}]'), ('ss', 'CONTAINS', '[{"S": "cat"}]'), ('ss', 'CONTAINS', '[{"S": "ca"}]'),
	('ns', 'CONTAINS', '[{"N": "4"}]'), ('ns', 'CONTAINS', '[{"N": "5"}]'), ('l', 'CONTAINS', '[{"N": "4"}]'),
	('l', 'CONTAINS', '[{"S": "seven"}]'), ('n', 'CONTAINS', '[{"N": "5"}]'), ('q', 'CONTAINS', '[{"N": "5"}]'),
	('l', 'CONTAINS', '[{"BOOL": true}]'), ('l', 'NOT_CONTAINS', '[{"NULL": true}]'),
	-- NOT_CONTAINS: the negation, but false for a missing attribute
	('s', 'NOT_CONTAINS', '[{"S": "dog"}]'), ('s', 'NOT_CONTAINS', '[{"S": "ell"}]'), ('s', 'NOT_CONTAINS', '[{"N": "1"}]'),
	('ss', 'NOT_CONTAINS', '[{"S": "cow"}]'), ('ns', 'NOT_CONTAINS', '[{"N": "4"}]'), ('l', 'NOT_CONTAINS', '[{"N": "9"}]'),
	('b', 'NOT_CONTAINS', '[{"B": "dGhlcmU="}]'), ('q', 'NOT_CONTAINS', '[{"N": "1"}]'),
	-- BEGINS_WITH on S and B; a number attribute is false
	('s', 'BEGINS_WITH', '[{"S": "hell"}]'), ('s', 'BEGINS_WITH', '[{"S": "ello"}]'), ('b', 'BEGINS_WITH', '[{"B": "aGk="}]'),
	('n', 'BEGINS_WITH', '[{"S": "5"}]'), ('q', 'BEGINS_WITH', '[{"S": "h"}]'),
	-- IN: the value is one of the list (not: the list is in a set)
	('n', 'IN', '[{"N": "3"}, {"N": "5"}, {"N": "8"}]'), ('n', 'IN', '[{"N": "1"}]'), ('s', 'IN', '[{"S": "hello"}, {"S": "bye"}]'),
	('ns', 'IN', '[{"N": "2"}]'), ('q', 'IN', '[{"N": "5"}]'),
	-- BETWEEN inclusive bounds, another type false
	('n', 'BETWEEN', '[{"N": "1"}, {"N": "9"}]'), ('n', 'BETWEEN', '[{"N": "5"}, {"N": "5"}]'), ('n', 'BETWEEN', '[{"N": "6"}, {"N": "9"}]'),
	('s', 'BETWEEN', '[{"S": "a"}, {"S": "i"}]'), ('b', 'BETWEEN', '[{"B": "YQ=="}, {"B": "aQ=="}]'), ('n', 'BETWEEN', '[{"S": "1"}, {"S": "9"}]'),
	('q', 'BETWEEN', '[{"N": "1"}, {"N": "9"}]'),
	-- a name with a dot is one top-level attribute, not a path
	('a.b', 'EQ', '[{"S": "dotted"}]'), ('m', 'NOT_NULL', '[]');
SELECT id, attr, op, vals::text AS values,
	pg_temp.cond(jsonb_build_object(attr, jsonb_build_object('ComparisonOperator', op, 'AttributeValueList', vals))) AS outcome
FROM cases ORDER BY id;

-- Value in place of AttributeValueList with an operator
SELECT pg_temp.cond('{"n": {"ComparisonOperator": "GT", "Value": {"N": "1"}}}');
SELECT pg_temp.cond('{"n": {"ComparisonOperator": "LT", "Value": {"N": "1"}}}');

-- ---------------------------------------------------------------- Exists / Value
SELECT pg_temp.cond('{"n": {"Value": {"N": "5"}}}') AS value_equal,
	   pg_temp.cond('{"n": {"Value": {"N": "6"}}}') AS value_differs,
	   pg_temp.cond('{"q": {"Value": {"N": "5"}}}') AS value_missing,
	   pg_temp.cond('{"n": {"Exists": true, "Value": {"N": "5"}}}') AS exists_true_value,
	   pg_temp.cond('{"q": {"Exists": false}}') AS not_exists_missing,
	   pg_temp.cond('{"n": {"Exists": false}}') AS not_exists_present,
	   pg_temp.cond('{"m": {"Value": {"M": {"k": {"S": "v"}}}}}') AS value_map,
	   pg_temp.cond('{"l": {"Value": {"L": [{"N": "2"}, {"N": "4"}, {"S": "seven"}]}}}') AS value_list,
	   pg_temp.cond('{}') AS empty_expected;

-- ---------------------------------------------------------------- AND / OR
SELECT pg_temp.cond('{"n": {"Value": {"N": "5"}}, "s": {"Value": {"S": "hello"}}, "q": {"Exists": false}}') AS and_all,
	   pg_temp.cond('{"n": {"Value": {"N": "5"}}, "s": {"Value": {"S": "bye"}}}') AS and_one_false,
	   pg_temp.cond('{"n": {"Value": {"N": "5"}}, "s": {"Value": {"S": "bye"}}}', '{"ConditionalOperator": "AND"}') AS explicit_and,
	   pg_temp.cond('{"n": {"Value": {"N": "6"}}, "s": {"Value": {"S": "hello"}}}', '{"ConditionalOperator": "OR"}') AS or_one_true,
	   pg_temp.cond('{"n": {"Value": {"N": "6"}}, "s": {"Value": {"S": "bye"}}}', '{"ConditionalOperator": "OR"}') AS or_none;

-- ---------------------------------------------------------------- refusals
-- (checked before the condition is evaluated; nothing is written)
SELECT pg_temp.cond('{"n": {}}');
SELECT pg_temp.cond('{"n": {"Exists": true}}');
SELECT pg_temp.cond('{"n": {"Exists": false, "Value": {"N": "5"}}}');
SELECT pg_temp.cond('{"n": {"Value": {"N": "5"}, "AttributeValueList": [{"N": "5"}]}}');
SELECT pg_temp.cond('{"n": {"Value": {"N": "5"}, "AttributeValueList": [{"N": "5"}], "ComparisonOperator": "EQ"}}');
SELECT pg_temp.cond('{"n": {"Exists": true, "ComparisonOperator": "NOT_NULL"}}');
SELECT pg_temp.cond('{"n": {"ComparisonOperator": "EQ"}}');
SELECT pg_temp.cond('{"n": {"AttributeValueList": [{"N": "5"}]}}');
SELECT pg_temp.cond('{"n": {"ComparisonOperator": "LIKE", "AttributeValueList": [{"N": "5"}]}}');
SELECT pg_temp.cond('{"n": {"ComparisonOperator": "eq", "AttributeValueList": [{"N": "5"}]}, "s": {"ComparisonOperator": "NONE"}}');
SELECT pg_temp.cond(jsonb_build_object('n', jsonb_build_object('ComparisonOperator', op, 'AttributeValueList', vals))) AS refused
FROM (VALUES ('EQ', '[{"N": "1"}, {"N": "2"}]'::jsonb), ('NE', '[]'), ('LE', '[{"N": "1"}, {"N": "2"}]'),
	('LT', '[]'), ('GE', '[{"N": "1"}, {"N": "2"}]'), ('GT', '[]'), ('NULL', '[{"N": "1"}]'), ('NOT_NULL', '[{"N": "1"}]'),
	('CONTAINS', '[]'), ('NOT_CONTAINS', '[{"N": "1"}, {"N": "2"}]'), ('BEGINS_WITH', '[]'), ('IN', '[]'),
	('BETWEEN', '[{"N": "1"}]'), ('BETWEEN', '[{"N": "1"}, {"N": "2"}, {"N": "3"}]'),
	-- one type for all values
	('IN', '[{"N": "1"}, {"S": "x"}]'), ('BETWEEN', '[{"N": "1"}, {"S": "x"}]'),
	-- types each operator takes
	('LE', '[{"SS": ["a"]}]'), ('LT', '[{"BOOL": false}]'), ('GE', '[{"L": []}]'), ('GT', '[{"NS": ["1"]}]'),
	('LE', '[{"NULL": true}]'), ('GT', '[{"M": {}}]'),
	('CONTAINS', '[{"L": [{"N": "1"}]}]'), ('CONTAINS', '[{"SS": ["a"]}]'), ('NOT_CONTAINS', '[{"BS": ["AQ=="]}]'),
	('NOT_CONTAINS', '[{"M": {}}]'), ('CONTAINS', '[{"NS": ["1"]}]'),
	('BEGINS_WITH', '[{"N": "1"}]'), ('BEGINS_WITH', '[{"SS": ["a"]}]'), ('IN', '[{"L": []}, {"L": []}]'),
	('IN', '[{"SS": ["a"]}]'), ('BETWEEN', '[{"M": {}}, {"M": {}}]'),
	-- bounds in order
	('BETWEEN', '[{"N": "9"}, {"N": "1"}]'), ('BETWEEN', '[{"S": "b"}, {"S": "a"}]'),
	-- invalid values
	('EQ', '[{}]'), ('EQ', '[{"N": "x"}]'), ('EQ', '[{"S": "a", "N": "1"}]')) t(op, vals);
SELECT pg_temp.cond('{"n": {"Value": {"SS": []}}}');
SELECT pg_temp.cond('{"n": "x"}');
SELECT pg_temp.cond('{"": {"Exists": false}}');
SELECT pg_temp.cond('{"n": {"Exists": "no"}}');
SELECT pg_temp.cond('{"n": {"ComparisonOperator": "EQ", "AttributeValueList": {"N": "5"}}}');
-- ConditionalOperator needs two or more conditions
SELECT pg_temp.cond('{}', '{"ConditionalOperator": "OR"}');
SELECT pg_temp.cond('{"n": {"Value": {"N": "5"}}}', '{"ConditionalOperator": "AND"}');
SELECT pg_temp.cond('{"n": {"Value": {"N": "5"}}, "s": {"Value": {"S": "hello"}}}', '{"ConditionalOperator": "XOR"}');
SELECT pg_temp.try('PutItem', '{"TableName": "lgx", "Item": {"pk": {"S": "y"}}, "ConditionalOperator": "AND"}');
-- with expression parameters: refused, the parameters in DynamoDB's order
SELECT pg_temp.try('PutItem', '{"TableName": "lgx", "Item": {"pk": {"S": "y"}}, "Expected": {"a": {"Exists": false}},
	"ConditionalOperator": "AND", "ConditionExpression": "attribute_not_exists(pk)"}');
SELECT pg_temp.try('DeleteItem', '{"TableName": "lgx", "Key": {"pk": {"S": "y"}}, "ConditionalOperator": "AND",
	"ConditionExpression": "attribute_not_exists(pk)"}');
SELECT pg_temp.cond('{"n": {"Value": {"N": "5"}}}', '{"ConditionExpression": "attribute_exists(n)"}');
SELECT pg_temp.try('UpdateItem', '{"TableName": "lgx", "Key": {"pk": {"S": "x"}}, "Expected": {"n": {"Value": {"N": "5"}}},
	"UpdateExpression": "SET z = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}');
-- placeholders without any expression
SELECT pg_temp.cond('{"n": {"Value": {"N": "5"}}}', '{"ExpressionAttributeValues": {":v": {"N": "1"}}}');
SELECT pg_temp.try('PutItem', '{"TableName": "lgx", "Item": {"pk": {"S": "y"}}, "Expected": {"a": {"Exists": false}},
	"ExpressionAttributeNames": {"#a": "a"}}');
-- TransactWriteItems takes no Expected
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": [{"Put": {"TableName": "lgx", "Item": {"pk": {"S": "y"}},
	"Expected": {"a": {"Exists": false}}, "ConditionalOperator": "AND"}}]}');
-- the item is as it was, but for z
SELECT (get_item('{"TableName": "lgx", "Key": {"pk": {"S": "x"}}}')->'Item') - 'z' =
	'{"pk": {"S": "x"}, "n": {"N": "5"}, "s": {"S": "hello"}, "b": {"B": "aGkgdGhlcmU="}, "ss": {"SS": ["cat", "chinchilla", "dog"]},
	  "ns": {"NS": ["2", "4", "7"]}, "l": {"L": [{"N": "2"}, {"N": "4"}, {"S": "seven"}]}, "nul": {"NULL": true},
	  "bo": {"BOOL": true}, "m": {"M": {"k": {"S": "v"}}}, "a.b": {"S": "dotted"}}'::jsonb AS unchanged;

-- ---------------------------------------------------------------- PutItem and DeleteItem
SELECT pg_temp.try('PutItem', '{"TableName": "lgx", "Item": {"pk": {"S": "p"}, "v": {"N": "1"}}, "Expected": {"pk": {"Exists": false}}}');
SELECT pg_temp.try('PutItem', '{"TableName": "lgx", "Item": {"pk": {"S": "p"}, "v": {"N": "2"}}, "Expected": {"pk": {"Exists": false}},
	"ReturnValuesOnConditionCheckFailure": "ALL_OLD"}');
SELECT pg_temp.try('PutItem', '{"TableName": "lgx", "Item": {"pk": {"S": "p"}, "v": {"N": "2"}}, "Expected": {"v": {"Value": {"N": "1"}}},
	"ReturnValues": "ALL_OLD"}');
SELECT pg_temp.try('DeleteItem', '{"TableName": "lgx", "Key": {"pk": {"S": "p"}}, "Expected": {"v": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "2"}]}}}');
SELECT pg_temp.try('DeleteItem', '{"TableName": "lgx", "Key": {"pk": {"S": "p"}}, "Expected": {"v": {"ComparisonOperator": "LE", "AttributeValueList": [{"N": "2"}]},
	"w": {"ComparisonOperator": "NULL"}}, "ConditionalOperator": "AND", "ReturnValues": "ALL_OLD"}');
-- on a missing item every attribute is missing
SELECT pg_temp.try('DeleteItem', '{"TableName": "lgx", "Key": {"pk": {"S": "p"}}, "Expected": {"v": {"ComparisonOperator": "NE", "AttributeValueList": [{"N": "2"}]}}}');
SELECT pg_temp.try('DeleteItem', '{"TableName": "lgx", "Key": {"pk": {"S": "p"}}, "Expected": {"v": {"Value": {"N": "2"}}}}');

SELECT delete_table('{"TableName": "lgx"}') IS NOT NULL AS dropped;
