-- PutItem, GetItem, DeleteItem, UpdateItem: exact responses for each
-- operation and mode, and the reference §8 edge cases that concern them.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
BEGIN
	RETURN item_table.dynamodb(action, request)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	RETURN st || ' ' || msg || CASE WHEN det LIKE '%"Item"%' THEN E'\n  body: ' || det ELSE '' END;
END $$;

SELECT create_table('{"TableName": "tbl", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
SELECT create_table('{"TableName": "hsh", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;

-- ---------------------------------------------------------------- PutItem
SELECT put_item('{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"S": "one"}}}');
SELECT put_item('{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"S": "uno"}}, "ReturnValues": "ALL_OLD"}');
SELECT put_item('{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "2"}}, "ReturnValues": "ALL_OLD"}');
SELECT put_item('{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "3"}, "big": {"S": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}, "ReturnConsumedCapacity": "TOTAL"}');
SELECT put_item('{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "4"}}, "ReturnConsumedCapacity": "INDEXES"}');
-- conditional put
SELECT pg_temp.try('PutItem', '{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(pk)"}');
SELECT pg_temp.try('PutItem', '{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "9"}}, "ConditionExpression": "attribute_not_exists(pk)"}');
SELECT pg_temp.try('PutItem', '{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"S": "eins"}}, "ConditionExpression": "v = :old", "ExpressionAttributeValues": {":old": {"S": "uno"}}, "ReturnValues": "ALL_OLD"}');
-- §8.49 ReturnValuesOnConditionCheckFailure
SELECT pg_temp.try('PutItem', '{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ConditionExpression": "v = :x", "ExpressionAttributeValues": {":x": {"S": "nope"}}, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}');
SELECT pg_temp.try('PutItem', '{"TableName": "tbl", "Item": {"pk": {"S": "zz"}, "sk": {"N": "1"}}, "ConditionExpression": "attribute_exists(pk)", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}');
-- §8.47 ReturnValues for PutItem
SELECT pg_temp.try('PutItem', '{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ReturnValues": "ALL_NEW"}');
SELECT pg_temp.try('PutItem', '{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ReturnValues": "none"}');
-- §8.33 values without an expression
SELECT pg_temp.try('PutItem', '{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ExpressionAttributeValues": {":v": {"S": "x"}}}');
-- §8.32 unused placeholders
SELECT pg_temp.try('PutItem', '{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ConditionExpression": "attribute_exists(pk)", "ExpressionAttributeValues": {":v": {"S": "x"}}}');
-- key problems
SELECT pg_temp.try('PutItem', '{"TableName": "tbl", "Item": {"pk": {"S": "a"}}}');
SELECT pg_temp.try('PutItem', '{"TableName": "tbl", "Item": {"pk": {"N": "1"}, "sk": {"N": "1"}}}');
-- §8.8 empty key values
SELECT pg_temp.try('PutItem', '{"TableName": "tbl", "Item": {"pk": {"S": ""}, "sk": {"N": "1"}}}');
SELECT pg_temp.try('PutItem', '{"TableName": "hsh", "Item": {"pk": {"S": "k"}, "empty": {"S": ""}, "eb": {"B": ""}}}');
-- §8.9 key sizes
SELECT pg_temp.try('PutItem', jsonb_build_object('TableName', 'hsh', 'Item', jsonb_build_object('pk', jsonb_build_object('S', repeat('p', 2048)))));
SELECT pg_temp.try('PutItem', jsonb_build_object('TableName', 'hsh', 'Item', jsonb_build_object('pk', jsonb_build_object('S', repeat('p', 2049)))));
-- §8.10 item size
SELECT pg_temp.try('PutItem', jsonb_build_object('TableName', 'hsh', 'Item', jsonb_build_object('pk', '{"S": "k1"}'::jsonb, 'd', jsonb_build_object('S', repeat('x', 409600 - 4 - 1)))));
SELECT pg_temp.try('PutItem', jsonb_build_object('TableName', 'hsh', 'Item', jsonb_build_object('pk', '{"S": "k2"}'::jsonb, 'd', jsonb_build_object('S', repeat('x', 409600 - 4)))));
-- §8.62 unknown table
SELECT pg_temp.try('PutItem', '{"TableName": "nope", "Item": {"pk": {"S": "a"}}}');

-- ---------------------------------------------------------------- §8.1, §8.2 numbers
SELECT put_item('{"TableName": "tbl", "Item": {"pk": {"S": "n"}, "sk": {"N": "1e3"}, "a": {"N": "1.50"}, "b": {"N": "-0"}, "c": {"N": "007"}, "ns": {"NS": ["10", "9", "1.5"]}}}');
SELECT get_item('{"TableName": "tbl", "Key": {"pk": {"S": "n"}, "sk": {"N": "1000"}}}');
SELECT put_item('{"TableName": "tbl", "Item": {"pk": {"S": "n"}, "sk": {"N": "1000.0"}, "a": {"N": "2"}}, "ReturnValues": "ALL_OLD"}');
SELECT count(*) AS items_for_n FROM item_data.tbl WHERE key ^@ 'S"n"';
-- an Item already in stored form is stored as given; any non-canonical
-- number, unordered set or binary value (also nested) is normalised first
CREATE TEMP TABLE norm_in (id int, item jsonb);
INSERT INTO norm_in VALUES
 (1, '{"pk": {"S": "norm"}, "sk": {"N": "1"}, "a": {"N": "1.5"}, "ss": {"SS": ["a", "b"]}, "m": {"M": {"x": {"L": [{"N": "2"}, {"NULL": true}]}}}}'),
 (2, '{"pk": {"S": "norm"}, "sk": {"N": "2"}, "m": {"M": {"x": {"L": [{"N": "2.0"}]}}}}'),
 (3, '{"pk": {"S": "norm"}, "sk": {"N": "3"}, "l": {"L": [{"M": {"ns": {"NS": ["2", "10"]}}}]}}'),
 (4, '{"pk": {"S": "norm"}, "sk": {"N": "4"}, "ss": {"SS": ["b", "a"]}, "bs": {"BS": ["AQ==", "AA=="]}}'),
 (5, '{"pk": {"S": "norm"}, "sk": {"N": "5"}, "b": {"B": "AAEC"}, "n": {"N": "-0.0"}}');
SELECT put_item(jsonb_build_object('TableName', 'tbl', 'Item', item)) FROM norm_in WHERE id <= 3 ORDER BY id;
SELECT batch_write_item(jsonb_build_object('RequestItems', jsonb_build_object('tbl',
	jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item', item)))))) FROM norm_in WHERE id > 3;
SELECT n.id, d.item = normalize_item(n.item) AS stored_normalised, d.item = n.item AS stored_as_given
FROM norm_in n JOIN item_data.tbl d ON d.key = item_key(n.item->'pk', n.item->'sk') ORDER BY n.id;
SELECT d.item->'m', d.item->'l', d.item->'ss', d.item->'bs', d.item->'n'
FROM item_data.tbl d WHERE d.key ^@ 'S"norm"' ORDER BY d.key;
SELECT delete_item(jsonb_build_object('TableName', 'tbl', 'Key', jsonb_build_object('pk', item->'pk', 'sk', item->'sk')))
FROM norm_in ORDER BY id;

-- ---------------------------------------------------------------- GetItem
SELECT get_item('{"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}}');
SELECT get_item('{"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "42"}}}');
SELECT get_item('{"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "3"}}, "ReturnConsumedCapacity": "TOTAL"}');
SELECT get_item('{"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "3"}}, "ReturnConsumedCapacity": "TOTAL", "ConsistentRead": true}');
SELECT get_item('{"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "42"}}, "ReturnConsumedCapacity": "TOTAL"}');
-- §8.45 projection
SELECT put_item('{"TableName": "tbl", "Item": {"pk": {"S": "p"}, "sk": {"N": "1"}, "a": {"M": {"b": {"L": [{"N": "2"}, {"N": "4"}, {"M": {"x": {"S": "X"}, "y": {"S": "Y"}}}]}, "c": {"S": "C"}}}, "d": {"S": "D"}}}');
SELECT get_item('{"TableName": "tbl", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "ProjectionExpression": "a.b[2].y, d"}');
SELECT get_item('{"TableName": "tbl", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "ProjectionExpression": "a.b[0], a.c"}');
SELECT get_item('{"TableName": "tbl", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "ProjectionExpression": "nothing"}');
SELECT get_item('{"TableName": "tbl", "Key": {"pk": {"S": "p"}, "sk": {"N": "99"}}, "ProjectionExpression": "a"}');
SELECT get_item('{"TableName": "tbl", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "ProjectionExpression": "#k, sk", "ExpressionAttributeNames": {"#k": "pk"}}');
SELECT pg_temp.try('GetItem', '{"TableName": "tbl", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "ProjectionExpression": "a, a.b"}');
-- §8.46 Key must match the schema
SELECT pg_temp.try('GetItem', '{"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"S": "extra"}}}');
SELECT pg_temp.try('GetItem', '{"TableName": "tbl", "Key": {"pk": {"S": "a"}}}');
SELECT pg_temp.try('GetItem', '{"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"S": "1"}}}');
SELECT pg_temp.try('GetItem', '{"TableName": "tbl"}');
SELECT pg_temp.try('GetItem', '{"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributesToGet": ["v"], "ProjectionExpression": "v"}');

-- ---------------------------------------------------------------- DeleteItem
SELECT delete_item('{"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "4"}}, "ReturnValues": "ALL_OLD"}');
SELECT delete_item('{"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "4"}}, "ReturnValues": "ALL_OLD"}');
SELECT delete_item('{"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "4"}}, "ReturnConsumedCapacity": "TOTAL"}');
SELECT pg_temp.try('DeleteItem', '{"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "2"}}, "ConditionExpression": "attribute_exists(v)", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}');
SELECT pg_temp.try('DeleteItem', '{"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "2"}}, "ReturnValues": "UPDATED_NEW"}');
SELECT delete_item('{"TableName": "tbl", "Key": {"pk": {"S": "a"}, "sk": {"N": "2"}}, "ConditionExpression": "attribute_not_exists(v)", "ReturnValues": "ALL_OLD"}');

-- ---------------------------------------------------------------- UpdateItem
SELECT update_item('{"TableName": "tbl", "Key": {"pk": {"S": "u"}, "sk": {"N": "1"}}, "UpdateExpression": "SET a = :a, n = :n", "ExpressionAttributeValues": {":a": {"S": "A"}, ":n": {"N": "10"}}, "ReturnValues": "ALL_NEW"}');
SELECT update_item('{"TableName": "tbl", "Key": {"pk": {"S": "u"}, "sk": {"N": "1"}}, "UpdateExpression": "SET n = n + :one", "ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"}');
SELECT update_item('{"TableName": "tbl", "Key": {"pk": {"S": "u"}, "sk": {"N": "1"}}, "UpdateExpression": "SET n = n - :one REMOVE a", "ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_OLD"}');
SELECT update_item('{"TableName": "tbl", "Key": {"pk": {"S": "u"}, "sk": {"N": "1"}}, "UpdateExpression": "ADD s :s", "ExpressionAttributeValues": {":s": {"SS": ["x", "y"]}}, "ReturnValues": "ALL_OLD"}');
SELECT update_item('{"TableName": "tbl", "Key": {"pk": {"S": "u"}, "sk": {"N": "1"}}, "UpdateExpression": "DELETE s :s", "ExpressionAttributeValues": {":s": {"SS": ["x"]}}, "ReturnValues": "UPDATED_NEW"}');
SELECT update_item('{"TableName": "tbl", "Key": {"pk": {"S": "u"}, "sk": {"N": "1"}}, "UpdateExpression": "SET n = :n", "ExpressionAttributeValues": {":n": {"N": "10"}}, "ReturnValues": "NONE", "ReturnConsumedCapacity": "TOTAL"}');
-- §8.48 UPDATED_OLD when only creating; UPDATED_NEW on an upsert has no keys
SELECT update_item('{"TableName": "tbl", "Key": {"pk": {"S": "u"}, "sk": {"N": "1"}}, "UpdateExpression": "SET brand_new = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}, "ReturnValues": "UPDATED_OLD"}');
SELECT update_item('{"TableName": "tbl", "Key": {"pk": {"S": "u"}, "sk": {"N": "2"}}, "UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}, "ReturnValues": "UPDATED_NEW"}');
-- §8.38 UpdateItem on a missing item
SELECT update_item('{"TableName": "tbl", "Key": {"pk": {"S": "m"}, "sk": {"N": "1"}}, "UpdateExpression": "REMOVE a", "ReturnValues": "ALL_NEW"}');
SELECT get_item('{"TableName": "tbl", "Key": {"pk": {"S": "m"}, "sk": {"N": "1"}}}');
SELECT update_item('{"TableName": "tbl", "Key": {"pk": {"S": "m"}, "sk": {"N": "2"}}, "UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}, "ReturnValues": "ALL_NEW"}');
SELECT update_item('{"TableName": "tbl", "Key": {"pk": {"S": "m"}, "sk": {"N": "3"}}, "ReturnValues": "ALL_NEW"}');
-- §8.37 key attributes are immutable
SELECT pg_temp.try('UpdateItem', '{"TableName": "tbl", "Key": {"pk": {"S": "u"}, "sk": {"N": "1"}}, "UpdateExpression": "SET pk = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}}');
SELECT pg_temp.try('UpdateItem', '{"TableName": "tbl", "Key": {"pk": {"S": "u"}, "sk": {"N": "1"}}, "UpdateExpression": "REMOVE sk"}');
SELECT pg_temp.try('UpdateItem', '{"TableName": "tbl", "Key": {"pk": {"S": "u"}, "sk": {"N": "1"}}, "UpdateExpression": "ADD pk :n", "ExpressionAttributeValues": {":n": {"N": "1"}}}');
-- §8.41 counters
SELECT pg_temp.try('UpdateItem', '{"TableName": "tbl", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "UpdateExpression": "SET n = n + :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}');
SELECT update_item('{"TableName": "tbl", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"}');
SELECT update_item('{"TableName": "tbl", "Key": {"pk": {"S": "c"}, "sk": {"N": "2"}}, "UpdateExpression": "SET n = if_not_exists(n, :zero) + :one", "ExpressionAttributeValues": {":zero": {"N": "0"}, ":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"}');
-- §8.5 arithmetic past 38 digits
SELECT pg_temp.try('UpdateItem', '{"TableName": "tbl", "Key": {"pk": {"S": "c"}, "sk": {"N": "3"}}, "UpdateExpression": "SET n = :a + :b", "ExpressionAttributeValues": {":a": {"N": "1e50"}, ":b": {"N": "1"}}}');
-- conditional update, CCF leaves the item unchanged
SELECT pg_temp.try('UpdateItem', '{"TableName": "tbl", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "UpdateExpression": "SET n = :v", "ConditionExpression": "n > :ten", "ExpressionAttributeValues": {":v": {"N": "100"}, ":ten": {"N": "10"}}, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}');
SELECT get_item('{"TableName": "tbl", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}}');
-- §8.36 overlapping paths and repeated clauses
SELECT pg_temp.try('UpdateItem', '{"TableName": "tbl", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "UpdateExpression": "SET a = :v REMOVE a", "ExpressionAttributeValues": {":v": {"S": "x"}}}');
SELECT pg_temp.try('UpdateItem', '{"TableName": "tbl", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "UpdateExpression": "SET a = :v SET b = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}}');
-- values with no expression at all
SELECT pg_temp.try('UpdateItem', '{"TableName": "tbl", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "ExpressionAttributeValues": {":v": {"S": "x"}}}');
-- item size after update
SELECT pg_temp.try('UpdateItem', jsonb_build_object('TableName', 'tbl', 'Key', '{"pk": {"S": "c"}, "sk": {"N": "1"}}'::jsonb, 'UpdateExpression', 'SET big = :b', 'ExpressionAttributeValues', jsonb_build_object(':b', jsonb_build_object('S', repeat('x', 409600)))));

-- the table after everything: failed calls left no trace
SELECT key, item FROM item_data.tbl ORDER BY key;

-- cleanup
SELECT delete_table('{"TableName": "tbl"}') IS NOT NULL AS dropped;
SELECT delete_table('{"TableName": "hsh"}') IS NOT NULL AS dropped;
