-- Legacy AttributesToGet (reference 4.16) on GetItem, BatchGetItem, Query
-- and Scan: what is returned, Select, index projections, refusals.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	msg text;
BEGIN
	RETURN item_table.dynamodb(action, request)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
	RETURN msg;
END $$;

SELECT create_table('{"TableName": "lgp", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
		{"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "lk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "g_keys", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}},
		{"IndexName": "g_incl", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a"]}}],
	"LocalSecondaryIndexes": [{"IndexName": "by_lk", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "lk", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}]}') IS NOT NULL AS created;
SELECT put_item('{"TableName": "lgp", "Item": {"pk": {"S": "p"}, "sk": {"N": "1"}, "g": {"S": "G"}, "lk": {"N": "10"},
	"a": {"S": "alpha"}, "b": {"M": {"c": {"N": "1"}}}, "x.y": {"S": "dotted"}, "x": {"M": {"y": {"S": "nested"}}}}}');
SELECT put_item('{"TableName": "lgp", "Item": {"pk": {"S": "p"}, "sk": {"N": "2"}, "g": {"S": "G"}, "lk": {"N": "20"}, "b": {"N": "2"}}}');

-- ---------------------------------------------------------------- GetItem
SELECT pg_temp.try('GetItem', '{"TableName": "lgp", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "AttributesToGet": ["a", "b"]}');
-- missing attributes are left out; key attributes only when asked
SELECT pg_temp.try('GetItem', '{"TableName": "lgp", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "AttributesToGet": ["zz", "sk"]}');
SELECT pg_temp.try('GetItem', '{"TableName": "lgp", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "AttributesToGet": ["zz"]}');
-- names are attribute names, not paths
SELECT pg_temp.try('GetItem', '{"TableName": "lgp", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "AttributesToGet": ["x.y"]}');
SELECT pg_temp.try('GetItem', '{"TableName": "lgp", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "AttributesToGet": ["b.c", "a[0]"]}');
-- a missing item; consumed capacity is the whole item's
SELECT pg_temp.try('GetItem', '{"TableName": "lgp", "Key": {"pk": {"S": "p"}, "sk": {"N": "9"}}, "AttributesToGet": ["a"]}');
SELECT pg_temp.try('GetItem', '{"TableName": "lgp", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "AttributesToGet": ["a"],
	"ReturnConsumedCapacity": "TOTAL", "ConsistentRead": true}');
-- refusals
SELECT pg_temp.try('GetItem', '{"TableName": "lgp", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "AttributesToGet": []}');
SELECT pg_temp.try('GetItem', '{"TableName": "lgp", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "AttributesToGet": ["a", "b", "a"]}');
SELECT pg_temp.try('GetItem', '{"TableName": "lgp", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "AttributesToGet": "a"}');
SELECT pg_temp.try('GetItem', '{"TableName": "lgp", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "AttributesToGet": [true]}');
SELECT pg_temp.try('GetItem', '{"TableName": "lgp", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "AttributesToGet": ["a", ""]}');
SELECT pg_temp.try('GetItem', '{"TableName": "lgp", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "AttributesToGet": ["a"], "ProjectionExpression": "a"}');
SELECT pg_temp.try('GetItem', '{"TableName": "lgp", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "AttributesToGet": ["a"], "ExpressionAttributeNames": {"#a": "a"}}');
SELECT pg_temp.try('GetItem', '{"TableName": "lg", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "AttributesToGet": []}');

-- ---------------------------------------------------------------- BatchGetItem
SELECT pg_temp.try('BatchGetItem', '{"RequestItems": {"lgp": {"Keys": [{"pk": {"S": "p"}, "sk": {"N": "1"}}, {"pk": {"S": "p"}, "sk": {"N": "2"}}],
	"AttributesToGet": ["sk", "b"], "ConsistentRead": true}}}');
SELECT pg_temp.try('BatchGetItem', '{"RequestItems": {"lgp": {"Keys": [{"pk": {"S": "p"}, "sk": {"N": "1"}}], "AttributesToGet": []}}}');
SELECT pg_temp.try('BatchGetItem', '{"RequestItems": {"lgp": {"Keys": [{"pk": {"S": "p"}, "sk": {"N": "1"}}], "AttributesToGet": ["a", "a"]}}}');
SELECT pg_temp.try('BatchGetItem', '{"RequestItems": {"lgp": {"Keys": [{"pk": {"S": "p"}, "sk": {"N": "1"}}], "AttributesToGet": ["a"],
	"ProjectionExpression": "#a", "ExpressionAttributeNames": {"#a": "a"}}}}');

-- ---------------------------------------------------------------- Query and Scan
SELECT pg_temp.try('Query', '{"TableName": "lgp", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}},
	"AttributesToGet": ["b", "sk"]}');
SELECT pg_temp.try('Query', '{"TableName": "lgp", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}},
	"AttributesToGet": ["b", "sk"], "Select": "SPECIFIC_ATTRIBUTES"}');
SELECT pg_temp.try('Query', '{"TableName": "lgp", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}},
	"AttributesToGet": ["b"]}');
SELECT pg_temp.try('Scan', '{"TableName": "lgp", "AttributesToGet": ["a"], "Select": "SPECIFIC_ATTRIBUTES"}');
SELECT pg_temp.try('Scan', '{"TableName": "lgp", "AttributesToGet": ["a"], "Select": "ALL_ATTRIBUTES"}');
SELECT pg_temp.try('Scan', '{"TableName": "lgp", "AttributesToGet": ["a"], "Select": "COUNT"}');
SELECT pg_temp.try('Scan', '{"TableName": "lgp", "AttributesToGet": ["a"], "Select": "ALL_PROJECTED_ATTRIBUTES", "IndexName": "g_keys"}');
SELECT pg_temp.try('Query', '{"TableName": "lgp", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}},
	"Select": "SPECIFIC_ATTRIBUTES"}');
SELECT pg_temp.try('Scan', '{"TableName": "lgp", "AttributesToGet": ["a", "a"]}');
SELECT pg_temp.try('Scan', '{"TableName": "lgp", "AttributesToGet": []}');
-- index projections: what a global index does not project is refused,
-- a local index fetches it from the table
SELECT pg_temp.try('Query', '{"TableName": "lgp", "IndexName": "g_keys", "KeyConditions": {"g": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "G"}]}},
	"AttributesToGet": ["sk", "g"]}');
SELECT pg_temp.try('Query', '{"TableName": "lgp", "IndexName": "g_keys", "KeyConditions": {"g": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "G"}]}},
	"AttributesToGet": ["a"]}');
SELECT pg_temp.try('Query', '{"TableName": "lgp", "IndexName": "g_incl", "KeyConditions": {"g": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "G"}]}},
	"AttributesToGet": ["a", "pk"]}');
SELECT pg_temp.try('Query', '{"TableName": "lgp", "IndexName": "g_keys", "KeyConditions": {"g": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "G"}]}},
	"QueryFilter": {"a": {"ComparisonOperator": "NOT_NULL"}}}');
SELECT pg_temp.try('Query', '{"TableName": "lgp", "IndexName": "by_lk", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]},
	"lk": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "15"}]}}, "AttributesToGet": ["b", "lk"]}');
SELECT pg_temp.try('Scan', '{"TableName": "lgp", "IndexName": "by_lk", "AttributesToGet": ["a"], "ScanFilter": {"b": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "2"}]}}}');

SELECT delete_table('{"TableName": "lgp"}') IS NOT NULL AS dropped;
