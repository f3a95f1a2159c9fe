-- Legacy AttributeUpdates on UpdateItem (reference 4.16): PUT, ADD on
-- numbers, sets and lists and on missing attributes, DELETE of a whole
-- attribute and of set members; their type rules and errors; key
-- attributes; ReturnValues; missing items.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.upd(updates jsonb, more jsonb DEFAULT '{}', k text DEFAULT 'x') RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	msg text;
BEGIN
	RETURN item_table.update_item(jsonb_build_object('TableName', 'lgu', 'Key', jsonb_build_object('pk', jsonb_build_object('S', k)),
		'AttributeUpdates', updates) || more)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
	RETURN msg;
END $$;
CREATE FUNCTION pg_temp.item(k text DEFAULT 'x') RETURNS text LANGUAGE sql AS $$
	SELECT coalesce((item_table.get_item(jsonb_build_object('TableName', 'lgu', 'Key', jsonb_build_object('pk', jsonb_build_object('S', k))))->'Item')::text, 'no item')
$$;

SELECT create_table('{"TableName": "lgu", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;

-- ---------------------------------------------------------------- PUT
-- on a missing item: the item is created; Action defaults to PUT
SELECT pg_temp.upd('{"a": {"Action": "PUT", "Value": {"N": "1"}}, "b": {"Value": {"S": "two"}}}', '{"ReturnValues": "ALL_NEW"}');
SELECT pg_temp.upd('{"a": {"Action": "PUT", "Value": {"L": [{"N": "1"}]}}, "c": {"Value": {"M": {"x": {"BOOL": true}}}}}', '{"ReturnValues": "UPDATED_OLD"}');
SELECT pg_temp.upd('{"a": {"Action": "PUT", "Value": {"N": "3"}}, "d": {"Value": {"NULL": true}}}', '{"ReturnValues": "UPDATED_NEW"}');
-- a name with a dot is one attribute
SELECT pg_temp.upd('{"e.f": {"Value": {"S": "dotted"}}}', '{"ReturnValues": "ALL_OLD"}');
SELECT pg_temp.item();

-- ---------------------------------------------------------------- ADD
-- numbers add; a missing attribute takes the value
SELECT pg_temp.upd('{"a": {"Action": "ADD", "Value": {"N": "2.5"}}, "n": {"Action": "ADD", "Value": {"N": "-1"}}}', '{"ReturnValues": "UPDATED_NEW"}');
-- sets unite
SELECT pg_temp.upd('{"ss": {"Action": "ADD", "Value": {"SS": ["b", "a"]}}}', '{"ReturnValues": "UPDATED_NEW"}');
SELECT pg_temp.upd('{"ss": {"Action": "ADD", "Value": {"SS": ["c", "a"]}}, "ns": {"Action": "ADD", "Value": {"NS": ["1", "2"]}},
	"bs": {"Action": "ADD", "Value": {"BS": ["AQ=="]}}}', '{"ReturnValues": "UPDATED_NEW"}');
-- lists append (legacy ADD only; UpdateExpression's ADD refuses lists)
SELECT pg_temp.upd('{"l": {"Action": "ADD", "Value": {"L": [{"S": "p"}]}}}', '{"ReturnValues": "UPDATED_NEW"}');
SELECT pg_temp.upd('{"l": {"Action": "ADD", "Value": {"L": [{"S": "q"}, {"N": "1"}]}}}', '{"ReturnValues": "UPDATED_NEW"}');
-- a value of another type than the attribute's
SELECT pg_temp.upd('{"a": {"Action": "ADD", "Value": {"NS": ["1"]}}}');
SELECT pg_temp.upd('{"ss": {"Action": "ADD", "Value": {"NS": ["1"]}}}');
SELECT pg_temp.upd('{"ss": {"Action": "ADD", "Value": {"N": "1"}}}');
SELECT pg_temp.upd('{"b": {"Action": "ADD", "Value": {"N": "1"}}}');
SELECT pg_temp.upd('{"l": {"Action": "ADD", "Value": {"N": "1"}}}');
SELECT pg_temp.upd('{"a": {"Action": "ADD", "Value": {"L": [{"N": "1"}]}}}');
-- types ADD never takes
SELECT pg_temp.upd(jsonb_build_object('a', jsonb_build_object('Action', 'ADD', 'Value', v))) AS add_refused
FROM (VALUES ('{"S": "x"}'::jsonb), ('{"B": "AQ=="}'), ('{"BOOL": true}'), ('{"NULL": true}'), ('{"M": {}}')) t(v);
-- number limits
SELECT pg_temp.upd('{"a": {"Action": "ADD", "Value": {"N": "9.9999999999999999999999999999999999999E+125"}}}');

-- ---------------------------------------------------------------- DELETE
-- set members; deleting the last member removes the attribute
SELECT pg_temp.upd('{"ss": {"Action": "DELETE", "Value": {"SS": ["a", "zz"]}}}', '{"ReturnValues": "UPDATED_NEW"}');
SELECT pg_temp.upd('{"ns": {"Action": "DELETE", "Value": {"NS": ["1", "2"]}}, "bs": {"Action": "DELETE", "Value": {"BS": ["AQ=="]}}}',
	'{"ReturnValues": "UPDATED_OLD"}');
-- members of a missing attribute: nothing happens
SELECT pg_temp.upd('{"nothere": {"Action": "DELETE", "Value": {"SS": ["a"]}}}', '{"ReturnValues": "ALL_NEW"}');
-- another set type
SELECT pg_temp.upd('{"ss": {"Action": "DELETE", "Value": {"NS": ["1"]}}}');
SELECT pg_temp.upd('{"a": {"Action": "DELETE", "Value": {"NS": ["1"]}}}');
-- types DELETE with a value never takes
SELECT pg_temp.upd(jsonb_build_object('a', jsonb_build_object('Action', 'DELETE', 'Value', v))) AS delete_refused
FROM (VALUES ('{"S": "x"}'::jsonb), ('{"N": "1"}'), ('{"B": "AQ=="}'), ('{"BOOL": true}'), ('{"NULL": true}'), ('{"M": {}}'), ('{"L": []}')) t(v);
-- a whole attribute (present or not)
SELECT pg_temp.upd('{"c": {"Action": "DELETE"}, "nothere": {"Action": "DELETE"}}', '{"ReturnValues": "UPDATED_OLD"}');
SELECT pg_temp.item();

-- ---------------------------------------------------------------- refusals
SELECT pg_temp.upd('{"a": {"Action": "PUT"}}');
SELECT pg_temp.upd('{"a": {}}');
SELECT pg_temp.upd('{"a": {"Action": "ADD"}}');
SELECT pg_temp.upd('{"a": {"Action": "REMOVE", "Value": {"N": "1"}}, "b": {"Action": "set", "Value": {"N": "1"}}}');
SELECT pg_temp.upd('{"a": "x"}');
SELECT pg_temp.upd('{"a": {"Action": 1, "Value": {"N": "1"}}}');
SELECT pg_temp.upd('{"a": {"Value": {"S": "x", "N": "1"}}}');
SELECT pg_temp.upd('{"a": {"Value": {"SS": ["x", "x"]}}}');
SELECT pg_temp.upd('[]');
SELECT pg_temp.upd('{"": {"Value": {"N": "1"}}}');
SELECT pg_temp.upd('{"": {"Action": "DELETE"}}');
SELECT pg_temp.upd(jsonb_build_object(repeat('a', 65536), '{"Value": {"N": "1"}}'::jsonb));
-- key attributes cannot be updated, by any action
SELECT pg_temp.upd('{"pk": {"Action": "PUT", "Value": {"S": "y"}}}');
SELECT pg_temp.upd('{"pk": {"Action": "DELETE"}}');
SELECT pg_temp.upd('{"a": {"Value": {"N": "1"}}, "pk": {"Action": "ADD", "Value": {"SS": ["y"]}}}');
-- with expression parameters
SELECT pg_temp.upd('{"a": {"Value": {"N": "1"}}}', '{"UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}');
SELECT pg_temp.upd('{"a": {"Value": {"N": "1"}}}', '{"ConditionExpression": "attribute_exists(a)"}');
SELECT pg_temp.upd('{"a": {"Value": {"N": "1"}}}', '{"ExpressionAttributeNames": {"#a": "a"}}');
SELECT pg_temp.upd('{"a": {"Value": {"N": "1"}}}', '{"Expected": {"a": {"Value": {"N": "1"}}},
	"ConditionalOperator": "AND", "UpdateExpression": "SET a = :v", "ConditionExpression": "attribute_exists(a)",
	"ExpressionAttributeValues": {":v": {"N": "1"}}}');
-- the item is as it was
SELECT pg_temp.item();

-- ---------------------------------------------------------------- missing items
-- DELETE only: nothing is created
SELECT pg_temp.upd('{"a": {"Action": "DELETE"}, "s": {"Action": "DELETE", "Value": {"SS": ["a"]}}}', '{"ReturnValues": "ALL_NEW"}', 'm1');
SELECT pg_temp.item('m1');
-- no updates at all, or an empty map: a key-only item
SELECT update_item('{"TableName": "lgu", "Key": {"pk": {"S": "m2"}}, "ReturnValues": "ALL_NEW"}');
SELECT pg_temp.upd('{}', '{"ReturnValues": "ALL_NEW"}', 'm3');
-- ADD creates
SELECT pg_temp.upd('{"cnt": {"Action": "ADD", "Value": {"N": "1"}}}', '{"ReturnValues": "ALL_NEW"}', 'm4');
-- with Expected: conditional on the missing item
SELECT pg_temp.upd('{"cnt": {"Action": "ADD", "Value": {"N": "1"}}}', '{"Expected": {"cnt": {"Exists": false}}, "ReturnValues": "ALL_NEW"}', 'm4');
SELECT pg_temp.upd('{"cnt": {"Action": "ADD", "Value": {"N": "1"}}}', '{"Expected": {"cnt": {"Value": {"N": "1"}}}, "ReturnValues": "ALL_NEW"}', 'm4');
SELECT pg_temp.upd('{"cnt": {"Action": "ADD", "Value": {"N": "1"}}}', '{"Expected": {"cnt": {"Exists": false}}, "ReturnValues": "ALL_NEW"}', 'm5');

-- ---------------------------------------------------------------- indexes
-- an index key written through AttributeUpdates is checked as any write
SELECT create_table('{"TableName": "lgu_idx", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;
SELECT update_item('{"TableName": "lgu_idx", "Key": {"pk": {"S": "i"}}, "AttributeUpdates": {"g": {"Value": {"S": "G1"}}}}');
SELECT query('{"TableName": "lgu_idx", "IndexName": "by_g", "KeyConditions": {"g": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "G1"}]}}}');
SELECT pg_temp.upd('{"g": {"Value": {"N": "1"}}}', '{"TableName": "lgu_idx"}', 'i');
SELECT update_item('{"TableName": "lgu_idx", "Key": {"pk": {"S": "i"}}, "AttributeUpdates": {"g": {"Action": "DELETE"}}}');
SELECT query('{"TableName": "lgu_idx", "IndexName": "by_g", "KeyConditions": {"g": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "G1"}]}}}');

SELECT delete_table('{"TableName": "lgu"}') IS NOT NULL AS dropped;
SELECT delete_table('{"TableName": "lgu_idx"}') IS NOT NULL AS dropped;
