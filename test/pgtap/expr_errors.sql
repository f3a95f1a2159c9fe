-- Expression errors carry DynamoDB's exception as their SQLSTATE:
-- ValidationException XD001, SerializationException XD002 (reference §3,
-- §6).  The messages themselves are covered by sql/expr_parse.sql.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS item_table;
SET search_path = item_table, public;

SELECT plan(26);

SELECT has_function('item_table', 'explain_expression',
					ARRAY['text', 'text', 'jsonb', 'jsonb'], 'explain_expression exists');
SELECT function_returns('item_table', 'explain_expression',
						ARRAY['text', 'text', 'jsonb', 'jsonb'], 'text', 'it returns text');

-- valid expressions
SELECT lives_ok($$SELECT explain_expression('ConditionExpression', 'a = :v', NULL, '{":v": {"N": "1"}}')$$,
				'a plain comparison parses');
SELECT lives_ok($$SELECT explain_expression('UpdateExpression', 'SET n = if_not_exists(n, :z) + :one',
											NULL, '{":z": {"N": "0"}, ":one": {"N": "1"}}')$$,
				'§8.41 counter with if_not_exists');
SELECT lives_ok($$SELECT explain_expression('KeyConditionExpression', ':p = pk AND :lo < sk',
											NULL, '{":p": {"S": "x"}, ":lo": {"N": "1"}}')$$,
				'§8.21 key on the right');
SELECT is(explain_expression('ConditionExpression', '#s = :s', '{"#s": "status"}', '{":s": {"S": "on"}}'),
		  '(= status :s{S:on})', '§8.34 a reserved word through a name');
SELECT is(explain_expression('ProjectionExpression', 'a.b[0], a.c'),
		  'a.b[0], a.c', '§3.8 paths that merge into one map');

-- ValidationException
SELECT throws_ok($$SELECT explain_expression('FilterExpression', '')$$,
				 'XD001', 'ValidationException: Invalid FilterExpression: The expression can not be empty;',
				 'an empty expression');
SELECT throws_ok($$SELECT explain_expression('ConditionExpression', 'a IN ()')$$,
				 'XD001', NULL, '§8.31 IN () is a syntax error');
SELECT throws_ok($$SELECT explain_expression('ConditionExpression', 'status = :s', NULL, '{":s": {"S": "on"}}')$$,
				 'XD001', 'ValidationException: Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status',
				 '§8.34 a bare reserved word');
SELECT throws_ok($$SELECT explain_expression('ConditionExpression', 'Begins_With(a, :p)', NULL, '{":p": {"S": "x"}}')$$,
				 'XD001', 'ValidationException: Invalid ConditionExpression: Invalid function name; function: Begins_With',
				 '§8.35 function names are case-sensitive');
SELECT throws_ok($$SELECT explain_expression('ConditionExpression', '((a = :v))', NULL, '{":v": {"N": "1"}}')$$,
				 'XD001', 'ValidationException: Invalid ConditionExpression: The expression has redundant parentheses;',
				 '§8.30 doubled parentheses');
SELECT throws_ok($$SELECT explain_expression('ConditionExpression', 'contains(a, a)')$$,
				 'XD001', NULL, '§8.25 identical operands');
SELECT throws_ok($$SELECT explain_expression('ConditionExpression', 'size(a)')$$,
				 'XD001', NULL, '§8.26 size() alone');
SELECT throws_ok($$SELECT explain_expression('ConditionExpression', 'a < :l', NULL, '{":l": {"L": []}}')$$,
				 'XD001', NULL, '§8.22 a list constant in <');
SELECT throws_ok($$SELECT explain_expression('ConditionExpression', 'a BETWEEN :hi AND :lo', NULL,
											 '{":lo": {"N": "2"}, ":hi": {"N": "3"}}')$$,
				 'XD001', 'ValidationException: Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:3}, upper bound operand: AttributeValue: {N:2}',
				 '§8.24 reversed constant bounds');
SELECT throws_ok($$SELECT explain_expression('ConditionExpression', 'attribute_type(a, :t)', NULL, '{":t": {"S": "DOG"}}')$$,
				 'XD001', NULL, '§8.29 an unknown type name');
SELECT throws_ok($$SELECT explain_expression('KeyConditionExpression', 'pk = :p OR sk = :s', NULL,
											 '{":p": {"S": "x"}, ":s": {"S": "y"}}')$$,
				 'XD001', 'ValidationException: Invalid operator used in KeyConditionExpression: OR',
				 '§8.20 OR in a key condition');
SELECT throws_ok($$SELECT explain_expression('UpdateExpression', 'SET a = :v REMOVE a', NULL, '{":v": {"N": "1"}}')$$,
				 'XD001', NULL, '§8.36 overlapping update paths');
SELECT throws_ok($$SELECT explain_expression('UpdateExpression', 'SET a.b = :x, a[1] = :y', NULL,
											 '{":x": {"N": "1"}, ":y": {"N": "2"}}')$$,
				 'XD001', NULL, '§8.36 conflicting update paths');
SELECT throws_ok($$SELECT explain_expression('UpdateExpression', 'SET a=:v SET b=:v', NULL, '{":v": {"N": "1"}}')$$,
				 'XD001', 'ValidationException: Invalid UpdateExpression: The "SET" section can only be used once in an update expression;',
				 '§8.36 a repeated clause');
SELECT throws_ok($$SELECT explain_expression('ProjectionExpression', 'a, a.b')$$,
				 'XD001', NULL, '§8.45 overlapping projected paths');
SELECT throws_ok($$SELECT explain_expression('ConditionExpression', 'a = :v', NULL, '{":v": {"N": "1"}, ":w": {"N": "2"}}')$$,
				 'XD001', 'ValidationException: Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}',
				 '§8.32 an unused value');

-- SerializationException and plain SQL errors
SELECT throws_ok($$SELECT explain_expression('ConditionExpression', 'a = :v', NULL, '{":v": {"N": 1}}')$$,
				 'XD002', NULL, 'a number that is not a JSON string');
SELECT throws_ok($$SELECT explain_expression('ConditionExpression', '#n = a', '{"#n": true}')$$,
				 'XD002', NULL, 'a name that is not a JSON string');
SELECT throws_ok($$SELECT explain_expression('Condition', 'a = b')$$,
				 '22023', 'unknown expression kind "Condition"', 'an unknown kind of expression');

SELECT * FROM finish();
ROLLBACK;
