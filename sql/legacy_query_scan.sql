-- Legacy KeyConditions, QueryFilter and ScanFilter (reference 4.16): every
-- key operator DynamoDB takes and the refusal of the others, filters with
-- AND/OR, Limit before the filter, paging, indexes, and the mixing rules.
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
-- the sort keys (or the error) of a Query with these KeyConditions
CREATE FUNCTION pg_temp.kc(t text, kc jsonb, more jsonb DEFAULT '{}') RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r jsonb;
	msg text;
BEGIN
	r := item_table.query(jsonb_build_object('TableName', t, 'KeyConditions', kc) || more);
	RETURN (SELECT coalesce(string_agg(coalesce(i->'sk'->>'N', i->'sk'->>'S', '-'), ' ' ORDER BY o), '(none)')
			FROM jsonb_array_elements(r->'Items') WITH ORDINALITY e(i, o))
		|| ' count=' || (r->>'Count') || ' scanned=' || (r->>'ScannedCount')
		|| coalesce(' last=' || (r->'LastEvaluatedKey')::text, '');
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
	RETURN msg;
END $$;
CREATE FUNCTION pg_temp.eq(attr text, v jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object(attr, jsonb_build_object('ComparisonOperator', 'EQ', 'AttributeValueList', jsonb_build_array(v)))
$$;
CREATE FUNCTION pg_temp.c(attr text, op text, vals jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object(attr, jsonb_build_object('ComparisonOperator', op, 'AttributeValueList', vals))
$$;

SELECT create_table('{"TableName": "lgq", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
		{"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}]}') IS NOT NULL AS created;
SELECT create_table('{"TableName": "lgs", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
SELECT count(put_item(jsonb_build_object('TableName', 'lgq', 'Item', jsonb_build_object('pk', '{"S": "a"}'::jsonb,
	'sk', jsonb_build_object('N', i::text), 'v', jsonb_build_object('N', (i * 10)::text),
	'g', jsonb_build_object('S', CASE WHEN i % 2 = 0 THEN 'even' ELSE 'odd' END),
	'tag', jsonb_build_object('S', 'tag' || (i % 3)::text))))) FROM generate_series(1, 9) i;
SELECT count(put_item(jsonb_build_object('TableName', 'lgq', 'Item', jsonb_build_object('pk', '{"S": "b"}'::jsonb,
	'sk', jsonb_build_object('N', i::text))))) FROM generate_series(1, 3) i;
SELECT count(put_item(jsonb_build_object('TableName', 'lgs', 'Item', jsonb_build_object('pk', '{"S": "a"}'::jsonb,
	'sk', jsonb_build_object('S', s))))) FROM unnest(ARRAY['apple', 'apricot', 'banana', 'ap', 'b']) s;

-- ---------------------------------------------------------------- KeyConditions
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "b"}'));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "zz"}'));
SELECT op, vals::text, pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}') || pg_temp.c('sk', op, vals)) AS result
FROM (VALUES ('EQ', '[{"N": "4"}]'::jsonb), ('LE', '[{"N": "4"}]'), ('LT', '[{"N": "4"}]'), ('GE', '[{"N": "7"}]'),
	('GT', '[{"N": "7"}]'), ('BETWEEN', '[{"N": "3"}, {"N": "5"}]'), ('BETWEEN', '[{"N": "5"}, {"N": "5"}]'),
	('GT', '[{"N": "100"}]')) t(op, vals);
SELECT op, vals::text, pg_temp.kc('lgs', pg_temp.eq('pk', '{"S": "a"}') || pg_temp.c('sk', op, vals)) AS result
FROM (VALUES ('BEGINS_WITH', '[{"S": "ap"}]'::jsonb), ('BEGINS_WITH', '[{"S": "b"}]'), ('BEGINS_WITH', '[{"S": "c"}]'),
	('BETWEEN', '[{"S": "ap"}, {"S": "apz"}]'), ('LT', '[{"S": "apple"}]'), ('GE', '[{"S": "b"}]')) t(op, vals);
-- backwards, Limit and paging
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}') || pg_temp.c('sk', 'GT', '[{"N": "2"}]'), '{"ScanIndexForward": false, "Limit": 3}');
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}') || pg_temp.c('sk', 'GT', '[{"N": "2"}]'),
	'{"ScanIndexForward": false, "Limit": 3, "ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "7"}}}');
-- the key range is the index range a KeyConditionExpression gives
SELECT * FROM explain_query('{"TableName": "lgq", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]},
	"sk": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "3"}, {"N": "5"}]}}}') LIMIT 1;
SELECT * FROM explain_query('{"TableName": "lgq", "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b",
	"ExpressionAttributeValues": {":p": {"S": "a"}, ":a": {"N": "3"}, ":b": {"N": "5"}}}') LIMIT 1;
-- an index
SELECT pg_temp.kc('lgq', pg_temp.eq('g', '{"S": "even"}'), '{"IndexName": "by_g"}');
SELECT pg_temp.kc('lgq', pg_temp.eq('g', '{"S": "odd"}') || pg_temp.c('sk', 'GE', '[{"N": "5"}]'), '{"IndexName": "by_g"}');
-- with expression parameters other than KeyConditionExpression: accepted
SELECT pg_temp.try('Query', '{"TableName": "lgq", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}},
	"FilterExpression": "v > :v", "ProjectionExpression": "sk, v", "ExpressionAttributeValues": {":v": {"N": "70"}}}');
-- refusals: operators no key range can serve
SELECT op, pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}') || pg_temp.c('sk', op, vals)) AS refused
FROM (VALUES ('NE', '[{"N": "4"}]'::jsonb), ('IN', '[{"N": "4"}]'), ('NULL', '[]'), ('NOT_NULL', '[]'),
	('CONTAINS', '[{"N": "4"}]'), ('NOT_CONTAINS', '[{"N": "4"}]')) t(op, vals);
-- ... only once the table is known, and only on key attributes
SELECT pg_temp.kc('nosuchtable', pg_temp.eq('pk', '{"S": "a"}') || pg_temp.c('sk', 'NE', '[{"N": "4"}]'));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}') || pg_temp.c('v', 'IN', '[{"N": "4"}]'));
SELECT pg_temp.kc('lgq', pg_temp.c('sk', 'NOT_NULL', '[]'));
-- ... on the partition key
SELECT op, pg_temp.kc('lgq', pg_temp.c('pk', op, vals)) AS refused
FROM (VALUES ('GT', '[{"S": "a"}]'::jsonb), ('BEGINS_WITH', '[{"S": "a"}]'), ('BETWEEN', '[{"S": "a"}, {"S": "b"}]'),
	('NE', '[{"S": "a"}]')) t(op, vals);
-- attributes, counts, types
SELECT pg_temp.kc('lgq', '{}');
SELECT pg_temp.kc('lgq', pg_temp.eq('sk', '{"N": "1"}'));
SELECT pg_temp.kc('lgq', pg_temp.eq('v', '{"N": "1"}'));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}') || pg_temp.eq('v', '{"N": "1"}'));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}') || pg_temp.eq('sk', '{"N": "1"}') || pg_temp.eq('v', '{"N": "1"}'));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"N": "1"}'));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}') || pg_temp.c('sk', 'GT', '[{"S": "1"}]'));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": ""}'));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}') || pg_temp.c('sk', 'BETWEEN', '[{"N": "5"}, {"N": "3"}]'));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}') || pg_temp.c('sk', 'BEGINS_WITH', '[{"N": "5"}]'));
SELECT pg_temp.kc('lgs', pg_temp.eq('pk', '{"S": "a"}') || pg_temp.c('sk', 'EQ', '[{"S": "a"}, {"S": "b"}]'));
SELECT pg_temp.kc('lgq', '{"pk": {"AttributeValueList": [{"S": "a"}]}, "sk": {"ComparisonOperator": "GREATER", "AttributeValueList": [{"N": "1"}]}}');
SELECT pg_temp.try('Query', '{"TableName": "lgq"}');
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), '{"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}');
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), '{"ExpressionAttributeValues": {":p": {"S": "a"}}}');
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), '{"ExpressionAttributeNames": {"#p": "pk"}}');

-- ---------------------------------------------------------------- QueryFilter
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('QueryFilter', pg_temp.c('v', 'GT', '[{"N": "50"}]')));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('QueryFilter',
	pg_temp.c('v', 'GT', '[{"N": "20"}]') || pg_temp.eq('tag', '{"S": "tag0"}')));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('ConditionalOperator', 'AND', 'QueryFilter',
	pg_temp.c('v', 'GT', '[{"N": "20"}]') || pg_temp.eq('tag', '{"S": "tag0"}')));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('ConditionalOperator', 'OR', 'QueryFilter',
	pg_temp.c('v', 'LT', '[{"N": "20"}]') || pg_temp.eq('tag', '{"S": "tag0"}')));
-- Limit counts items read before the filter; the filter with paging
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('Limit', 4, 'QueryFilter', pg_temp.eq('tag', '{"S": "tag1"}')));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('Limit', 4, 'QueryFilter', pg_temp.eq('tag', '{"S": "tag1"}'),
	'ExclusiveStartKey', '{"pk": {"S": "a"}, "sk": {"N": "4"}}'::jsonb));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('Select', 'COUNT', 'QueryFilter', pg_temp.c('tag', 'IN', '[{"S": "tag1"}, {"S": "tag2"}]')));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "b"}'), jsonb_build_object('QueryFilter', pg_temp.c('v', 'NULL', '[]')));
-- refusals
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('QueryFilter', pg_temp.c('sk', 'GT', '[{"N": "1"}]')));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('QueryFilter', pg_temp.c('pk', 'NOT_NULL', '[]')));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('QueryFilter', pg_temp.c('v', 'GT', '[{"N": "1"}, {"N": "2"}]')));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('QueryFilter', pg_temp.c('v', 'GT', '[{"BOOL": true}]')));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('QueryFilter', '{"v": {"AttributeValueList": [{"N": "1"}]}}'::jsonb));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('ConditionalOperator', 'OR', 'QueryFilter', pg_temp.c('v', 'GT', '[{"N": "1"}]')));
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('ConditionalOperator', 'OR'));
SELECT pg_temp.try('Query', '{"TableName": "lgq", "ConditionalOperator": "AND"}');
-- QueryFilter and AttributesToGet are checked before the key condition is looked for
SELECT pg_temp.try('Query', '{"TableName": "lgq", "QueryFilter": {"v": {"ComparisonOperator": "EQ"}}}');
SELECT pg_temp.try('Query', '{"TableName": "lgq", "AttributesToGet": ["v", "v"]}');
SELECT pg_temp.kc('lgq', pg_temp.eq('pk', '{"S": "a"}'), jsonb_build_object('QueryFilter', pg_temp.c('v', 'GT', '[{"N": "1"}]'),
	'FilterExpression', 'v > :v', 'ExpressionAttributeValues', '{":v": {"N": "1"}}'::jsonb));
-- every legacy and expression parameter at once: each side in DynamoDB's order
SELECT pg_temp.try('Query', '{"TableName": "lgq", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}},
	"QueryFilter": {"v": {"ComparisonOperator": "NOT_NULL"}}, "ConditionalOperator": "AND", "AttributesToGet": ["v"],
	"KeyConditionExpression": "pk = :p", "FilterExpression": "v > :v", "ProjectionExpression": "v",
	"ExpressionAttributeValues": {":p": {"S": "a"}, ":v": {"N": "1"}}}');
SELECT pg_temp.try('Query', '{"TableName": "lgq", "QueryFilter": {"v": {"ComparisonOperator": "NOT_NULL"}},
	"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}, ":unused": {"N": "1"}}}');

-- ---------------------------------------------------------------- ScanFilter
SELECT pg_temp.try('Scan', jsonb_build_object('TableName', 'lgq', 'Select', 'COUNT', 'ScanFilter', pg_temp.c('g', 'BEGINS_WITH', '[{"S": "ev"}]')));
SELECT pg_temp.try('Scan', jsonb_build_object('TableName', 'lgq', 'ScanFilter', pg_temp.c('v', 'BETWEEN', '[{"N": "20"}, {"N": "40"}]'),
	'AttributesToGet', '["sk", "v"]'::jsonb));
SELECT pg_temp.try('Scan', jsonb_build_object('TableName', 'lgq', 'ConditionalOperator', 'OR', 'ScanFilter',
	pg_temp.c('v', 'GE', '[{"N": "90"}]') || pg_temp.c('pk', 'EQ', '[{"S": "b"}]'), 'AttributesToGet', '["pk", "sk"]'::jsonb));
SELECT pg_temp.try('Scan', jsonb_build_object('TableName', 'lgq', 'ScanFilter', pg_temp.c('tag', 'CONTAINS', '[{"S": "2"}]')
	|| pg_temp.c('v', 'NE', '[{"N": "20"}]'), 'Select', 'COUNT'));
SELECT pg_temp.try('Scan', jsonb_build_object('TableName', 'lgq', 'ScanFilter', pg_temp.c('tag', 'NOT_CONTAINS', '[{"S": "2"}]'), 'Select', 'COUNT'));
-- a parallel segment, Limit before the filter
SELECT pg_temp.try('Scan', jsonb_build_object('TableName', 'lgq', 'Segment', 0, 'TotalSegments', 1, 'Limit', 2,
	'ScanFilter', pg_temp.c('sk', 'GE', '[{"N": "2"}]'), 'AttributesToGet', '["sk"]'::jsonb));
-- an index
SELECT pg_temp.try('Scan', jsonb_build_object('TableName', 'lgq', 'IndexName', 'by_g', 'Select', 'COUNT',
	'ScanFilter', pg_temp.c('sk', 'LT', '[{"N": "3"}]')));
-- refusals
SELECT pg_temp.try('Scan', jsonb_build_object('TableName', 'lgq', 'ScanFilter', pg_temp.c('v', 'IN', '[]')));
SELECT pg_temp.try('Scan', jsonb_build_object('TableName', 'lgq', 'ScanFilter', '{"v": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "5"}, {"N": "1"}]}}'::jsonb));
SELECT pg_temp.try('Scan', '{"TableName": "lgq", "ScanFilter": {"v": {}}}');
SELECT pg_temp.try('Scan', '{"TableName": "lgq", "ScanFilter": {"": {"ComparisonOperator": "NULL"}}}');
SELECT pg_temp.try('Scan', '{"TableName": "lgq", "ScanFilter": {"v": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}]}}, "ConditionalOperator": "AND"}');
SELECT pg_temp.try('Scan', '{"TableName": "lgq", "ScanFilter": {}, "ConditionalOperator": "OR"}');
SELECT pg_temp.try('Scan', '{"TableName": "lgq", "ConditionalOperator": "OR", "AttributesToGet": ["v", "sk"]}');
SELECT pg_temp.try('Scan', '{"TableName": "lgq", "ScanFilter": {"v": {"ComparisonOperator": "NOT_NULL"}}, "ExpressionAttributeValues": {":v": {"N": "1"}}}');
SELECT pg_temp.try('Scan', '{"TableName": "lgq", "AttributesToGet": ["v"], "ScanFilter": {"v": {"ComparisonOperator": "NOT_NULL"}},
	"ConditionalOperator": "AND", "FilterExpression": "v > :v", "ProjectionExpression": "v", "ExpressionAttributeValues": {":v": {"N": "1"}}}');
SELECT pg_temp.try('Scan', '{"TableName": "lgq", "ConditionalOperator": "AND", "ProjectionExpression": "v"}');

SELECT delete_table('{"TableName": "lgq"}') IS NOT NULL AS dropped;
SELECT delete_table('{"TableName": "lgs"}') IS NOT NULL AS dropped;
