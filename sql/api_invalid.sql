-- A corpus of more than 300 invalid requests.  Each must fail with the
-- right DynamoDB exception and leave the table exactly as it was (compared
-- by a fingerprint of every row before and after); none may crash the
-- backend.
SET search_path = item_table, public;

SELECT create_table('{"TableName": "inv", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
SELECT put_item('{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "n": {"N": "5"}, "s": {"S": "str"},
	"l": {"L": [{"N": "1"}, {"N": "2"}]}, "m": {"M": {"x": {"S": "y"}}}, "ss": {"SS": ["p", "q"]}}}') IS NOT NULL AS seeded;
SELECT put_item('{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "2"}, "v": {"N": "1"}}}') IS NOT NULL AS seeded;

CREATE TEMP TABLE corpus (id serial, action text, request jsonb, expected text);

-- invalid attribute values, each in five places
CREATE TEMP TABLE bad_values (val jsonb, expected text);
INSERT INTO bad_values VALUES
	('{"N": 12}', 'SerializationException'), ('{"N": "NaN"}', 'ValidationException'),
	('{}', 'ValidationException'), ('{"S": "a", "N": "1"}', 'ValidationException'),
	('{"NULL": false}', 'ValidationException'), ('{"SS": []}', 'ValidationException'),
	('{"SS": ["a", "a"]}', 'ValidationException'), ('{"NS": ["1", "1.0"]}', 'ValidationException'),
	('{"B": "!!!!"}', 'SerializationException'), ('{"BOOL": "yes"}', 'SerializationException'),
	('{"L": {}}', 'SerializationException'), ('{"M": []}', 'SerializationException'),
	('{"N": "1e200"}', 'ValidationException'), ('{"N": "1e-200"}', 'ValidationException'),
	('{"N": "123456789012345678901234567890123456789"}', 'ValidationException'),
	('{"X": "a"}', 'ValidationException'), ('"str"', 'SerializationException'),
	('5', 'SerializationException'), ('[]', 'SerializationException'),
	('{"L": [{}]}', 'ValidationException'), ('{"M": {"a": {"NULL": false}}}', 'ValidationException'),
	('{"BS": []}', 'ValidationException'), ('{"NS": []}', 'ValidationException'),
	('{"NS": ["x"]}', 'ValidationException'), ('{"SS": [1]}', 'SerializationException'),
	('{"S": null}', 'SerializationException'), ('{"N": ""}', 'ValidationException'),
	('{"N": " 1"}', 'ValidationException'), ('{"B": "QQ"}', 'SerializationException'),
	('{"N": "1.2.3"}', 'ValidationException'), ('{"N": "0x1A"}', 'ValidationException'),
	('{"NULL": "true"}', 'SerializationException');
INSERT INTO corpus (action, request, expected)
SELECT 'PutItem', jsonb_build_object('TableName', 'inv', 'Item',
	jsonb_build_object('pk', '{"S": "new"}'::jsonb, 'sk', '{"N": "1"}'::jsonb, 'bad', val)), expected FROM bad_values;
INSERT INTO corpus (action, request, expected)
SELECT 'PutItem', jsonb_build_object('TableName', 'inv', 'Item', '{"pk": {"S": "a"}, "sk": {"N": "1"}}'::jsonb,
	'ConditionExpression', 'n = :v', 'ExpressionAttributeValues', jsonb_build_object(':v', val)), expected FROM bad_values;
INSERT INTO corpus (action, request, expected)
SELECT 'UpdateItem', jsonb_build_object('TableName', 'inv', 'Key', '{"pk": {"S": "a"}, "sk": {"N": "1"}}'::jsonb,
	'UpdateExpression', 'SET n = :v', 'ExpressionAttributeValues', jsonb_build_object(':v', val)), expected FROM bad_values;
INSERT INTO corpus (action, request, expected)
SELECT 'GetItem', jsonb_build_object('TableName', 'inv', 'Key', jsonb_build_object('pk', val, 'sk', '{"N": "1"}'::jsonb)), expected FROM bad_values;
INSERT INTO corpus (action, request, expected)
SELECT 'DeleteItem', jsonb_build_object('TableName', 'inv', 'Key', jsonb_build_object('pk', '{"S": "a"}'::jsonb, 'sk', val)), expected FROM bad_values;

-- invalid conditions, each in PutItem, DeleteItem and UpdateItem
CREATE TEMP TABLE bad_conditions (expr text, names jsonb, vals jsonb);
INSERT INTO bad_conditions VALUES
	('', NULL, NULL), ('   ', NULL, NULL), ('a', NULL, NULL), ('size(a)', NULL, NULL),
	('a = ', NULL, NULL), ('= :v', NULL, '{":v": {"N": "1"}}'), ('a = :v', NULL, NULL),
	('#a = :v', NULL, '{":v": {"N": "1"}}'), ('status = :v', NULL, '{":v": {"N": "1"}}'),
	('Begins_With(a, :v)', NULL, '{":v": {"S": "x"}}'), ('a = a', NULL, NULL),
	('contains(a, a)', NULL, NULL), ('((a = :v))', NULL, '{":v": {"N": "1"}}'),
	('a IN ()', NULL, NULL), ('a < :v', NULL, '{":v": {"L": []}}'),
	('a BETWEEN :hi AND :lo', NULL, '{":hi": {"N": "9"}, ":lo": {"N": "1"}}'),
	('a BETWEEN :x AND :y', NULL, '{":x": {"N": "1"}, ":y": {"S": "z"}}'),
	('begins_with(a, :n)', NULL, '{":n": {"N": "1"}}'), ('size(:n) > :n', NULL, '{":n": {"N": "1"}}'),
	('attribute_exists(:v)', NULL, '{":v": {"S": "x"}}'),
	('attribute_type(a, :t)', NULL, '{":t": {"S": "DOG"}}'),
	('attribute_exists(a) = :v', NULL, '{":v": {"BOOL": true}}'),
	('size(a, a) > :v', NULL, '{":v": {"N": "1"}}'), ('nofunc(a)', NULL, NULL),
	('if_not_exists(a, :v) = :v', NULL, '{":v": {"N": "1"}}'),
	('a = :v AND', NULL, '{":v": {"N": "1"}}'), ('a = :v OR OR b = :v', NULL, '{":v": {"N": "1"}}'),
	('a[-1] = :v', NULL, '{":v": {"N": "1"}}'), ('a.#b = :v', '{"#b": "x", "#c": "y"}', '{":v": {"N": "1"}}'),
	('a = :v', NULL, '{":v": {"N": "1"}, ":w": {"N": "2"}}'),
	('a = :v', '{}', '{":v": {"N": "1"}}'), ('a = :v', NULL, '{}'),
	('a = :v', '{"bad": "x"}', '{":v": {"N": "1"}}'), ('a = :v', NULL, '{"v": {"N": "1"}}'),
	('size(size(a)) > :v', NULL, '{":v": {"N": "1"}}');
INSERT INTO corpus (action, request, expected)
SELECT 'PutItem', jsonb_strip_nulls(jsonb_build_object('TableName', 'inv', 'Item', '{"pk": {"S": "a"}, "sk": {"N": "1"}}'::jsonb,
	'ConditionExpression', expr, 'ExpressionAttributeNames', names, 'ExpressionAttributeValues', vals)), 'ValidationException' FROM bad_conditions;
INSERT INTO corpus (action, request, expected)
SELECT 'DeleteItem', jsonb_strip_nulls(jsonb_build_object('TableName', 'inv', 'Key', '{"pk": {"S": "a"}, "sk": {"N": "1"}}'::jsonb,
	'ConditionExpression', expr, 'ExpressionAttributeNames', names, 'ExpressionAttributeValues', vals)), 'ValidationException' FROM bad_conditions;
INSERT INTO corpus (action, request, expected)
SELECT 'UpdateItem', jsonb_strip_nulls(jsonb_build_object('TableName', 'inv', 'Key', '{"pk": {"S": "a"}, "sk": {"N": "1"}}'::jsonb,
	'UpdateExpression', 'REMOVE zz', 'ConditionExpression', expr, 'ExpressionAttributeNames', names, 'ExpressionAttributeValues', vals)), 'ValidationException' FROM bad_conditions;

-- invalid update expressions (syntax, structure and data)
INSERT INTO corpus (action, request, expected)
SELECT 'UpdateItem', jsonb_strip_nulls(jsonb_build_object('TableName', 'inv', 'Key', '{"pk": {"S": "a"}, "sk": {"N": "1"}}'::jsonb,
	'UpdateExpression', u, 'ExpressionAttributeValues', vals)), 'ValidationException'
FROM (VALUES
	('', NULL::jsonb), ('SET', NULL), ('SET a', NULL), ('SET a = ', NULL), ('SET a = :v SET b = :v', '{":v": {"N": "1"}}'),
	('SET a = :v REMOVE a', '{":v": {"N": "1"}}'), ('SET a.b = :v, a[1] = :v', '{":v": {"N": "1"}}'),
	('SET a = :v, a.b = :v', '{":v": {"N": "1"}}'), ('SET pk = :v', '{":v": {"S": "x"}}'), ('REMOVE sk', NULL),
	('ADD pk :v', '{":v": {"N": "1"}}'), ('SET a = b + c + d', NULL), ('SET a = size(b)', NULL),
	('SET n = n + :s', '{":s": {"S": "x"}}'), ('SET zz = zz + :one', '{":one": {"N": "1"}}'),
	('SET s = list_append(s, :l)', '{":l": {"L": []}}'), ('SET zz = list_append(zz, :l)', '{":l": {"L": []}}'),
	('ADD s :one', '{":one": {"N": "1"}}'), ('ADD ss :ns', '{":ns": {"NS": ["1"]}}'), ('ADD l :l', '{":l": {"L": []}}'),
	('DELETE n :ss', '{":ss": {"SS": ["x"]}}'), ('DELETE ss :s', '{":s": {"S": "p"}}'),
	('SET zz.a = :v', '{":v": {"N": "1"}}'), ('SET s[0] = :v', '{":v": {"N": "1"}}'),
	('SET a = :v', '{":v": {"N": "1"}, ":w": {"N": "2"}}'), ('SET a = :e', '{":e": {"SS": []}}'),
	('SET n = :big + :big', '{":big": {"N": "9.9999999999999999999999999999999999999E+125"}}'),
	('SET a = :v DELETE', '{":v": {"N": "1"}}'), ('UPSERT a = :v', '{":v": {"N": "1"}}'), ('SET a = if_not_exists(:v, :v)', '{":v": {"N": "1"}}')
) t(u, vals);

-- invalid projections
INSERT INTO corpus (action, request, expected)
SELECT 'GetItem', jsonb_strip_nulls(jsonb_build_object('TableName', 'inv', 'Key', '{"pk": {"S": "a"}, "sk": {"N": "1"}}'::jsonb,
	'ProjectionExpression', p, 'ExpressionAttributeNames', names)), 'ValidationException'
FROM (VALUES ('', NULL::jsonb), (',', NULL), ('a,', NULL), (',a', NULL), ('a,,b', NULL), ('a, a', NULL),
	('a, a.b', NULL), ('a.b, a[1]', NULL), ('#x', NULL), ('a', '{"#x": "y"}'), ('status', NULL),
	('a[', NULL), ('a.', NULL), ('a[x]', NULL), ('size(a)', NULL)) t(p, names);

-- invalid shapes, enums and parameters
INSERT INTO corpus (action, request, expected) VALUES
	('PutItem', '{}', 'ValidationException'),
	('PutItem', '{"TableName": "inv"}', 'ValidationException'),
	('PutItem', '{"TableName": "i", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}}', 'ValidationException'),
	('PutItem', '{"TableName": "inv!", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}}', 'ValidationException'),
	('PutItem', '{"TableName": "nope", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}}', 'ResourceNotFoundException'),
	('PutItem', '{"TableName": 1, "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}}', 'SerializationException'),
	('PutItem', '{"TableName": "inv", "Item": []}', 'SerializationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ReturnValues": "ALL_NEW"}', 'ValidationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ReturnValues": "all_old"}', 'ValidationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ReturnConsumedCapacity": "SOME"}', 'ValidationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ReturnValuesOnConditionCheckFailure": "ALL_NEW"}', 'ValidationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "Expected": {"n": {"Exists": false}}}', 'ConditionalCheckFailedException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ExpressionAttributeNames": {"#n": "n"}}', 'ValidationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}}}', 'ValidationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"N": "1"}, "sk": {"N": "1"}}}', 'ValidationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": ""}, "sk": {"N": "1"}}}', 'ValidationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"S": "1"}}}', 'ValidationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "": {"S": "x"}}}', 'ValidationException'),
	('GetItem', '{"TableName": "inv"}', 'ValidationException'),
	('GetItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}}}', 'ValidationException'),
	('GetItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"N": "1"}}}', 'ValidationException'),
	('GetItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributesToGet": ["n", "n"]}', 'ValidationException'),
	('GetItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ConsistentRead": "yes"}', 'SerializationException'),
	('GetItem', '{"TableName": "nope", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}}', 'ResourceNotFoundException'),
	('DeleteItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ReturnValues": "ALL_NEW"}', 'ValidationException'),
	('DeleteItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ConditionExpression": "n = :six", "ExpressionAttributeValues": {":six": {"N": "6"}}}', 'ConditionalCheckFailedException'),
	('DeleteItem', '{"TableName": "inv", "Key": {"pk": {"S": ""}, "sk": {"N": "1"}}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ReturnValues": "EVERYTHING"}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"n": {"Action": "PUT"}}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "UpdateExpression": "SET n = :v", "ConditionExpression": "n = :v", "ExpressionAttributeValues": {":v": {"N": "6"}}}', 'ConditionalCheckFailedException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ExpressionAttributeValues": {":v": {"N": "6"}}}', 'ValidationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(pk)"}', 'ConditionalCheckFailedException'),
	('CreateTable', '{"TableName": "inv", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}', 'ResourceInUseException'),
	('Scan2', '{"TableName": "inv"}', 'UnknownOperationException');
-- legacy parameters: every refusal (their messages: legacy_*.sql)
INSERT INTO corpus (action, request, expected)
SELECT 'PutItem', jsonb_build_object('TableName', 'inv', 'Item', '{"pk": {"S": "a"}, "sk": {"N": "1"}, "z": {"N": "9"}}'::jsonb,
	'Expected', jsonb_build_object('n', e)), 'ValidationException'
FROM (VALUES ('{}'::jsonb), ('{"Exists": true}'), ('{"Exists": false, "Value": {"N": "5"}}'),
	('{"Value": {"N": "5"}, "AttributeValueList": [{"N": "5"}]}'), ('{"Exists": true, "ComparisonOperator": "NOT_NULL"}'),
	('{"ComparisonOperator": "EQ"}'), ('{"AttributeValueList": [{"N": "5"}]}'), ('{"ComparisonOperator": "LIKE", "AttributeValueList": [{"N": "5"}]}'),
	('{"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "5"}, {"N": "6"}]}'), ('{"ComparisonOperator": "NULL", "AttributeValueList": [{"N": "5"}]}'),
	('{"ComparisonOperator": "NOT_NULL", "AttributeValueList": [{"N": "5"}]}'), ('{"ComparisonOperator": "IN", "AttributeValueList": []}'),
	('{"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "5"}]}'), ('{"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "6"}, {"N": "5"}]}'),
	('{"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "5"}, {"S": "6"}]}'), ('{"ComparisonOperator": "IN", "AttributeValueList": [{"N": "5"}, {"S": "x"}]}'),
	('{"ComparisonOperator": "LT", "AttributeValueList": [{"BOOL": true}]}'), ('{"ComparisonOperator": "GE", "AttributeValueList": [{"SS": ["a"]}]}'),
	('{"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"N": "5"}]}'), ('{"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"L": []}]}'),
	('{"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"SS": ["a"]}]}'), ('{"ComparisonOperator": "GT", "AttributeValueList": [{"M": {}}]}'),
	('{"ComparisonOperator": "LE", "AttributeValueList": [{"NULL": true}]}'), ('{"ComparisonOperator": "IN", "AttributeValueList": [{"L": []}]}'),
	('{"ComparisonOperator": "EQ", "AttributeValueList": [{}]}'), ('{"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "x"}]}'),
	('{"Value": {"SS": []}}')) t(e);
INSERT INTO corpus (action, request, expected) VALUES
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "Expected": {"n": "x"}}', 'SerializationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "Expected": []}', 'SerializationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "Expected": {"n": {"Exists": "no"}}}', 'SerializationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ConditionalOperator": "AND"}', 'ValidationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ConditionalOperator": "XOR", "Expected": {"a": {"Exists": false}, "b": {"Exists": false}}}', 'ValidationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ConditionalOperator": "OR", "Expected": {"a": {"Exists": false}}}', 'ValidationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "Expected": {"a": {"Exists": false}}, "ConditionExpression": "attribute_exists(pk)"}', 'ValidationException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "Expected": {"n": {"Value": {"N": "6"}}}}', 'ConditionalCheckFailedException'),
	('PutItem', '{"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "Expected": {"n": {"Value": {"N": "6"}}}, "ExpressionAttributeValues": {":v": {"N": "1"}}}', 'ValidationException'),
	('DeleteItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "Expected": {"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "5"}]}}}', 'ConditionalCheckFailedException'),
	('DeleteItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "Expected": {"s": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "st"}]}, "q": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"N": "5"}]}}, "ConditionalOperator": "OR"}', 'ConditionalCheckFailedException'),
	('DeleteItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ConditionalOperator": "OR"}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"n": {"Action": "ADD"}}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"n": {"Action": "REMOVE"}}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"n": {"Action": "ADD", "Value": {"S": "x"}}}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"n": {"Action": "ADD", "Value": {"M": {}}}}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"n": {"Action": "DELETE", "Value": {"N": "5"}}}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"n": {"Action": "ADD", "Value": {"SS": ["x"]}}}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"ss": {"Action": "ADD", "Value": {"N": "1"}}}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"ss": {"Action": "DELETE", "Value": {"NS": ["1"]}}}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"l": {"Action": "ADD", "Value": {"N": "1"}}}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"sk": {"Action": "PUT", "Value": {"N": "2"}}}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"pk": {"Action": "DELETE"}}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"n": {"Value": {"N": "1"}}}, "UpdateExpression": "SET n = :v", "ExpressionAttributeValues": {":v": {"N": "6"}}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"n": {"Value": {"N": "1"}}}, "ExpressionAttributeNames": {"#n": "n"}}', 'ValidationException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"n": {"Value": {"N": "1"}}}, "Expected": {"n": {"Value": {"N": "4"}}}}', 'ConditionalCheckFailedException'),
	('UpdateItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {"n": {"Value": {"N": "1"}}}, "Expected": {"n": {"Value": {"N": "4"}}}, "ConditionExpression": "attribute_exists(n)"}', 'ValidationException'),
	('GetItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributesToGet": []}', 'ValidationException'),
	('GetItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributesToGet": [1]}', 'SerializationException'),
	('GetItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributesToGet": ["n"], "ProjectionExpression": "n"}', 'ValidationException'),
	('GetItem', '{"TableName": "inv", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributesToGet": ["n"], "ExpressionAttributeNames": {"#n": "n"}}', 'ValidationException'),
	('BatchGetItem', '{"RequestItems": {"inv": {"Keys": [{"pk": {"S": "a"}, "sk": {"N": "1"}}], "AttributesToGet": ["n", "n"]}}}', 'ValidationException'),
	('BatchGetItem', '{"RequestItems": {"inv": {"Keys": [{"pk": {"S": "a"}, "sk": {"N": "1"}}], "AttributesToGet": ["n"], "ProjectionExpression": "n"}}}', 'ValidationException'),
	('TransactWriteItems', '{"TransactItems": [{"Put": {"TableName": "inv", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "Expected": {"n": {"Exists": false}}}}]}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {}}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {"pk": {"AttributeValueList": [{"S": "a"}]}}}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {"pk": {"ComparisonOperator": "NE", "AttributeValueList": [{"S": "a"}]}}}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {"pk": {"ComparisonOperator": "GT", "AttributeValueList": [{"S": "a"}]}}}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {"sk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}]}}}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}]}}}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}, "sk": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "1"}]}}}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}, "sk": {"ComparisonOperator": "IN", "AttributeValueList": [{"N": "1"}]}}}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}, "sk": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}, "n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}}}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}}, "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}}, "QueryFilter": {"sk": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "0"}]}}}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}}, "QueryFilter": {"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "0"}]}}, "ConditionalOperator": "OR"}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}}, "AttributesToGet": ["n"], "Select": "ALL_ATTRIBUTES"}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}}, "AttributesToGet": ["n"], "Select": "COUNT"}', 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}}, "ExpressionAttributeValues": {":p": {"S": "a"}}}', 'ValidationException'),
	('Query', '{"TableName": "inv", "ConditionalOperator": "AND"}', 'ValidationException'),
	('Scan', '{"TableName": "inv", "ScanFilter": {"n": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "5"}]}}, "FilterExpression": "n = :v", "ExpressionAttributeValues": {":v": {"N": "5"}}}', 'ValidationException'),
	('Scan', '{"TableName": "inv", "ScanFilter": {"n": {"ComparisonOperator": "EQ"}}}', 'ValidationException'),
	('Scan', '{"TableName": "inv", "ScanFilter": {"n": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"L": []}]}}}', 'ValidationException'),
	('Scan', '{"TableName": "inv", "ScanFilter": {"n": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "5"}]}}, "ConditionalOperator": "AND"}', 'ValidationException'),
	('Scan', '{"TableName": "inv", "AttributesToGet": ["n"], "ProjectionExpression": "s"}', 'ValidationException'),
	('Scan', '{"TableName": "inv", "AttributesToGet": ["n"], "Select": "ALL_PROJECTED_ATTRIBUTES"}', 'ValidationException'),
	('Scan', '{"TableName": "inv", "ScanFilter": {"n": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "5"}]}}, "ExpressionAttributeNames": {"#n": "n"}}', 'ValidationException');
-- oversize items
INSERT INTO corpus (action, request, expected) VALUES
	('PutItem', jsonb_build_object('TableName', 'inv', 'Item', jsonb_build_object('pk', '{"S": "a"}'::jsonb, 'sk', '{"N": "1"}'::jsonb, 'd', jsonb_build_object('S', repeat('x', 409600)))), 'ValidationException'),
	('PutItem', jsonb_build_object('TableName', 'inv', 'Item', jsonb_build_object('pk', jsonb_build_object('S', repeat('k', 2049)), 'sk', '{"N": "1"}'::jsonb)), 'ValidationException'),
	('UpdateItem', jsonb_build_object('TableName', 'inv', 'Key', '{"pk": {"S": "a"}, "sk": {"N": "1"}}'::jsonb, 'UpdateExpression', 'SET d = :d', 'ExpressionAttributeValues', jsonb_build_object(':d', jsonb_build_object('S', repeat('x', 409600)))), 'ValidationException'),
	('PutItem', jsonb_build_object('TableName', 'inv', 'Item', '{"pk": {"S": "a"}, "sk": {"N": "1"}}'::jsonb, 'ConditionExpression', repeat('a = :v OR ', 400) || 'a = :v', 'ExpressionAttributeValues', '{":v": {"N": "1"}}'::jsonb), 'ValidationException');
-- key attribute names over 255 bytes; Limit over 2^31 - 1
INSERT INTO corpus (action, request, expected) VALUES
	('CreateTable', jsonb_build_object('TableName', 'inv_long', 'BillingMode', 'PAY_PER_REQUEST',
		'AttributeDefinitions', jsonb_build_array(jsonb_build_object('AttributeName', 'pk', 'AttributeType', 'S')),
		'KeySchema', jsonb_build_array(jsonb_build_object('AttributeName', repeat('k', 256), 'KeyType', 'HASH'))), 'ValidationException'),
	('CreateTable', jsonb_build_object('TableName', 'inv_long', 'BillingMode', 'PAY_PER_REQUEST',
		'AttributeDefinitions', jsonb_build_array(jsonb_build_object('AttributeName', repeat('k', 256), 'AttributeType', 'S')),
		'KeySchema', '[{"AttributeName": "pk", "KeyType": "HASH"}]'::jsonb), 'ValidationException'),
	('CreateTable', jsonb_build_object('TableName', 'inv_long', 'BillingMode', 'PAY_PER_REQUEST',
		'AttributeDefinitions', jsonb_build_array('{"AttributeName": "pk", "AttributeType": "S"}'::jsonb,
			jsonb_build_object('AttributeName', repeat('g', 256), 'AttributeType', 'S')),
		'KeySchema', '[{"AttributeName": "pk", "KeyType": "HASH"}]'::jsonb,
		'GlobalSecondaryIndexes', jsonb_build_array(jsonb_build_object('IndexName', 'g', 'Projection', '{"ProjectionType": "ALL"}'::jsonb,
			'KeySchema', jsonb_build_array(jsonb_build_object('AttributeName', repeat('g', 256), 'KeyType', 'HASH'))))), 'ValidationException'),
	('UpdateTable', jsonb_build_object('TableName', 'inv',
		'AttributeDefinitions', jsonb_build_array(jsonb_build_object('AttributeName', repeat('g', 256), 'AttributeType', 'S')),
		'GlobalSecondaryIndexUpdates', jsonb_build_array(jsonb_build_object('Create', jsonb_build_object('IndexName', 'g',
			'Projection', '{"ProjectionType": "ALL"}'::jsonb,
			'KeySchema', jsonb_build_array(jsonb_build_object('AttributeName', repeat('g', 256), 'KeyType', 'HASH')))))), 'ValidationException'),
	('Query', '{"TableName": "inv", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}, "Limit": 2147483648}', 'ValidationException'),
	('Scan', '{"TableName": "inv", "Limit": 2147483648}', 'ValidationException'),
	('Scan', '{"TableName": "inv", "Limit": 9223372036854775807}', 'ValidationException');

-- run everything
CREATE FUNCTION pg_temp.fingerprint() RETURNS text LANGUAGE sql AS
	$$ SELECT md5(string_agg(key::text || item::text, ',' ORDER BY key)) FROM item_data.inv $$;
CREATE FUNCTION pg_temp.outcome(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	det text;
BEGIN
	PERFORM item_table.dynamodb(action, request);
	RETURN 'succeeded';
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS det = PG_EXCEPTION_DETAIL;
	RETURN coalesce(split_part(det::jsonb->>'__type', '#', 2), 'not a DynamoDB error: ' || SQLERRM);
END $$;

CREATE TEMP TABLE before AS SELECT pg_temp.fingerprint() AS f;
CREATE TEMP TABLE outcomes AS
SELECT c.id, c.action, c.request, c.expected, pg_temp.outcome(c.action, c.request) AS got,
	   pg_temp.fingerprint() = (SELECT f FROM before) AS unchanged
FROM corpus c ORDER BY c.id;

SELECT count(*) >= 300 AS at_least_300, count(*) FILTER (WHERE got = expected) AS right_exception,
	   count(*) FILTER (WHERE unchanged) AS table_unchanged
FROM outcomes;
SELECT expected, count(*) FROM outcomes GROUP BY 1 ORDER BY 1;
-- any request that did not fail as expected, or that changed the table
SELECT id, action, left(request::text, 120) AS request, expected, got, unchanged
FROM outcomes WHERE got <> expected OR NOT unchanged ORDER BY id;

SELECT delete_table('{"TableName": "inv"}') IS NOT NULL AS dropped;
