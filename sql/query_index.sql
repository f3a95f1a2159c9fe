-- Query and Scan with IndexName: GSIs (inverted, overloaded, element),
-- an LSI, projections, ExclusiveStartKey with index + table keys, segments.
-- Reference 4.7, 5, §8.17, §8.19, §8.57.
SET search_path = item_table, public;
CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
BEGIN
	RETURN item_table.dynamodb(action, request)::text;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
	RETURN st || ' ' || msg;
END $$;
SELECT create_table('{"TableName": "social", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [
		{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
		{"AttributeName": "GSI1PK", "AttributeType": "S"}, {"AttributeName": "GSI1SK", "AttributeType": "S"},
		{"AttributeName": "tags", "AttributeType": "S"}, {"AttributeName": "joined", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [
		{"IndexName": "inverted", "KeySchema": [{"AttributeName": "SK", "KeyType": "HASH"}, {"AttributeName": "PK", "KeyType": "RANGE"}],
		 "Projection": {"ProjectionType": "ALL"}},
		{"IndexName": "gsi1", "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}, {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
		 "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["name"]}},
		{"IndexName": "by_tag", "KeySchema": [{"AttributeName": "tags", "KeyType": "HASH"}],
		 "Projection": {"ProjectionType": "KEYS_ONLY"}, "ItemTableElementIndex": true}],
	"LocalSecondaryIndexes": [
		{"IndexName": "by_joined", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "joined", "KeyType": "RANGE"}],
		 "Projection": {"ProjectionType": "KEYS_ONLY"}}]}') IS NOT NULL;
SELECT batch_write_item('{"RequestItems": {"social": [
	{"PutRequest": {"Item": {"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}, "name": {"S": "Ada"}, "GSI1PK": {"S": "NAME"}, "GSI1SK": {"S": "Ada"}, "tags": {"SS": ["math", "engines"]}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#2"}, "SK": {"S": "PROFILE"}, "name": {"S": "Grace"}, "GSI1PK": {"S": "NAME"}, "GSI1SK": {"S": "Grace"}, "tags": {"L": [{"S": "compilers"}, {"S": "math"}, {"N": "7"}]}}}},
	{"PutRequest": {"Item": {"PK": {"S": "GROUP#1"}, "SK": {"S": "PROFILE"}, "name": {"S": "Analysts"}, "GSI1PK": {"S": "GROUPNAME"}, "GSI1SK": {"S": "Analysts"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#1"}, "SK": {"S": "GROUP#1"}, "joined": {"N": "1843"}, "role": {"S": "founder"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#2"}, "SK": {"S": "GROUP#1"}, "joined": {"N": "1952"}, "role": {"S": "member"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#2"}, "SK": {"S": "GROUP#2"}, "joined": {"N": "1959"}}}}]}}') IS NOT NULL;
-- an inverted index: the users of a group; Limit and ExclusiveStartKey both ways
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"inverted","KeyConditionExpression":"SK = :g","ExpressionAttributeValues":{":g":{"S":"GROUP#1"}}}');
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"inverted","KeyConditionExpression":"SK = :g","ExpressionAttributeValues":{":g":{"S":"PROFILE"}},"Limit":2}');
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"inverted","KeyConditionExpression":"SK = :g","ExpressionAttributeValues":{":g":{"S":"PROFILE"}},"Limit":2, "ExclusiveStartKey":{"SK":{"S":"PROFILE"},"PK":{"S":"GROUP#1"}}}');
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"inverted","KeyConditionExpression":"SK = :g","ExpressionAttributeValues":{":g":{"S":"PROFILE"}},"ScanIndexForward":false,"Limit":1, "ExclusiveStartKey":{"SK":{"S":"PROFILE"},"PK":{"S":"USER#2"}}}');
-- §8.17 an overloaded GSI with Limit: LastEvaluatedKey holds GSI1PK, GSI1SK, PK and SK
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n","ExpressionAttributeValues":{":n":{"S":"NAME"}},"Limit":1}');
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n","ExpressionAttributeValues":{":n":{"S":"NAME"}},"Limit":1,"ExclusiveStartKey":{"GSI1PK":{"S":"NAME"},"GSI1SK":{"S":"Ada"},"PK":{"S":"USER#1"},"SK":{"S":"PROFILE"}}}');
-- §8.57 an INCLUDE GSI does not project tags: ProjectionExpression, FilterExpression
-- and Select=ALL_ATTRIBUTES naming more are refused
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n","ExpressionAttributeValues":{":n":{"S":"NAME"}},"ProjectionExpression":"tags"}');
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n","ExpressionAttributeValues":{":n":{"S":"NAME"},":m":{"S":"x"}},"FilterExpression":"contains(tags, :m) or nick = :m"}');
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n","ExpressionAttributeValues":{":n":{"S":"NAME"}},"Select":"ALL_ATTRIBUTES"}');
-- §8.19 ConsistentRead on a GSI is refused (unless the GUC accepts it); on an LSI it is fine
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n","ExpressionAttributeValues":{":n":{"S":"NAME"}},"ConsistentRead":true}');
SET item_table.consistent_index_reads = on;
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n","ExpressionAttributeValues":{":n":{"S":"NAME"}},"ConsistentRead":true, "Select":"COUNT"}');
RESET item_table.consistent_index_reads;
-- an element index: every item whose tags hold "math"
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"by_tag","KeyConditionExpression":"tags = :t","ExpressionAttributeValues":{":t":{"S":"math"}}}');
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"by_tag","KeyConditionExpression":"tags = :t","ExpressionAttributeValues":{":t":{"S":"math"}},"Limit":1}');
-- §8.57 a KEYS_ONLY LSI asked for an unprojected attribute reads it from the table
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"by_joined","KeyConditionExpression":"PK = :u AND joined > :y","ExpressionAttributeValues":{":u":{"S":"USER#2"},":y":{"N":"1900"}}}');
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"by_joined","KeyConditionExpression":"PK = :u AND joined > :y","ExpressionAttributeValues":{":u":{"S":"USER#2"},":y":{"N":"1900"}},"ProjectionExpression":"#r, joined","ExpressionAttributeNames":{"#r":"role"}}');
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"by_joined","KeyConditionExpression":"PK = :u","ExpressionAttributeValues":{":u":{"S":"USER#2"}},"Select":"ALL_ATTRIBUTES","ConsistentRead":true,"ScanIndexForward":false,"Limit":1}');
-- Scan of indexes: index order, paging, segments
SELECT pg_temp.try('Scan', '{"TableName":"social","IndexName":"gsi1"}');
SELECT pg_temp.try('Scan', '{"TableName":"social","IndexName":"by_tag","Limit":2}');
SELECT pg_temp.try('Scan', '{"TableName":"social","IndexName":"by_tag","Limit":2,"ExclusiveStartKey":{"tags":{"S":"engines"},"PK":{"S":"USER#1"},"SK":{"S":"PROFILE"}}}');
SELECT pg_temp.try('Scan', '{"TableName":"social","IndexName":"by_tag","TotalSegments":2,"Segment":0}');
SELECT pg_temp.try('Scan', '{"TableName":"social","IndexName":"by_tag","TotalSegments":2,"Segment":1}');
-- ExclusiveStartKey of an index read: all four key attributes, inside the partition
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n","ExpressionAttributeValues":{":n":{"S":"NAME"}},"ExclusiveStartKey":{"GSI1PK":{"S":"NAME"},"GSI1SK":{"S":"Ada"}}}');
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n","ExpressionAttributeValues":{":n":{"S":"NAME"}},"ExclusiveStartKey":{"GSI1PK":{"S":"OTHER"},"GSI1SK":{"S":"Ada"},"PK":{"S":"USER#1"},"SK":{"S":"PROFILE"}}}');
SELECT * FROM explain_query('{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n AND begins_with(GSI1SK, :a)","ExpressionAttributeValues":{":n":{"S":"NAME"},":a":{"S":"A"}}}');

-- paging an index with every Limit gives the unpaged result, in order, once
CREATE FUNCTION pg_temp.paged(req jsonb, lim int, action text DEFAULT 'Query') RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	r jsonb;
	acc jsonb := '[]';
	esk jsonb := NULL;
BEGIN
	LOOP
		r := item_table.dynamodb(action, req || jsonb_build_object('Limit', lim) ||
			CASE WHEN esk IS NULL THEN '{}' ELSE jsonb_build_object('ExclusiveStartKey', esk) END);
		acc := acc || coalesce(r->'Items', '[]');
		esk := r->'LastEvaluatedKey';
		EXIT WHEN esk IS NULL;
	END LOOP;
	RETURN acc;
END $$;
SELECT count(*) FROM generate_series(1, 60) i WHERE put_item(jsonb_build_object('TableName', 'social', 'Item', jsonb_build_object(
	'PK', jsonb_build_object('S', 'USER#' || (i % 7)), 'SK', jsonb_build_object('S', 'POST#' || i),
	'GSI1PK', jsonb_build_object('S', 'POSTS'), 'GSI1SK', jsonb_build_object('S', 'D' || (i % 5)),
	'name', jsonb_build_object('S', 'p' || i), 'joined', jsonb_build_object('N', (i % 3)::text),
	'tags', jsonb_build_object('SS', jsonb_build_array('t' || (i % 4), 'u' || (i % 6))))))
	IS NOT NULL;
WITH reqs(action, req) AS (VALUES
	('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n","ExpressionAttributeValues":{":n":{"S":"POSTS"}}}'::jsonb),
	('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n","ExpressionAttributeValues":{":n":{"S":"POSTS"}},"ScanIndexForward":false}'),
	('Query', '{"TableName":"social","IndexName":"by_tag","KeyConditionExpression":"tags = :t","ExpressionAttributeValues":{":t":{"S":"t1"}}}'),
	('Query', '{"TableName":"social","IndexName":"by_joined","KeyConditionExpression":"PK = :u AND joined <= :j","ExpressionAttributeValues":{":u":{"S":"USER#3"},":j":{"N":"1"}},"ScanIndexForward":false}'),
	('Query', '{"TableName":"social","IndexName":"inverted","KeyConditionExpression":"SK = :s","ExpressionAttributeValues":{":s":{"S":"PROFILE"}}}'),
	('Scan', '{"TableName":"social","IndexName":"by_tag"}'),
	('Scan', '{"TableName":"social","IndexName":"gsi1"}'))
SELECT r.action, jsonb_array_length(full_items) AS items,
	bool_and(pg_temp.paged(r.req, lim, r.action) = full_items) AS every_limit_agrees
FROM reqs r, LATERAL (SELECT item_table.dynamodb(r.action, r.req)->'Items' AS full_items) f,
	generate_series(1, 7) lim
GROUP BY r.action, r.req, full_items ORDER BY 1, 2;
-- the segments of an index scan together return every index entry
SELECT count(*) AS entries, count(DISTINCT e) AS distinct_items FROM (
	SELECT jsonb_array_elements(item_table.dynamodb('Scan', jsonb_build_object('TableName', 'social',
		'IndexName', 'by_tag', 'TotalSegments', 4, 'Segment', s))->'Items') e FROM generate_series(0, 3) s) x;
SELECT count(*) FROM item_data."social#by_tag";
-- an index entry written in this transaction is read by the next Query
BEGIN;
SELECT update_item('{"TableName":"social","Key":{"PK":{"S":"USER#1"},"SK":{"S":"PROFILE"}},
	"UpdateExpression":"SET GSI1SK = :z","ExpressionAttributeValues":{":z":{"S":"Zed"}}}') IS NOT NULL;
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n AND GSI1SK > :a","ExpressionAttributeValues":{":n":{"S":"NAME"},":a":{"S":"H"}}}');
ROLLBACK;
-- invalid requests against indexes
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"nope","KeyConditionExpression":"PK = :n","ExpressionAttributeValues":{":n":{"S":"x"}}}');
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"PK = :n","ExpressionAttributeValues":{":n":{"S":"x"}}}');
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n","FilterExpression":"GSI1SK = :n","ExpressionAttributeValues":{":n":{"S":"x"}}}');
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n","ExpressionAttributeValues":{":n":{"S":"NAME"}},"ExclusiveStartKey":{"GSI1PK":{"S":"NAME"},"GSI1SK":{"S":"Ada"},"PK":{"S":"USER#1"},"SK":{"N":"1"}}}');
SELECT pg_temp.try('Query', '{"TableName":"social","IndexName":"gsi1","KeyConditionExpression":"GSI1PK = :n","ExpressionAttributeValues":{":n":{"S":"NAME"}},"ExclusiveStartKey":{"GSI1PK":{"S":"NAME"},"GSI1SK":{"S":"Ada"},"PK":{"S":"USER#1"},"SK":{"S":"P"},"x":{"S":"y"}}}');
SELECT pg_temp.try('Scan', '{"TableName":"social","IndexName":"gsi1","ExclusiveStartKey":{"GSI1PK":{"S":"NAME"},"GSI1SK":{"S":"Ada"}}}');
SELECT pg_temp.try('Scan', '{"TableName":"social","IndexName":"gsi1","Select":"ALL_ATTRIBUTES"}');
SELECT pg_temp.try('Scan', '{"TableName":"social","IndexName":"inverted","Select":"ALL_PROJECTED_ATTRIBUTES","Limit":1}');
SELECT pg_temp.try('Scan', '{"TableName":"social","Select":"ALL_PROJECTED_ATTRIBUTES"}');
-- §8.57 exactly: a KEYS_ONLY GSI on gk and a KEYS_ONLY LSI; b is projected by neither
SELECT create_table('{"TableName": "t857", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
		{"AttributeName": "gk", "AttributeType": "S"}, {"AttributeName": "lk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "gsi_g", "KeySchema": [{"AttributeName": "gk", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}],
	"LocalSecondaryIndexes": [{"IndexName": "lsi_l", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "lk", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}]}') IS NOT NULL AS created;
SELECT put_item('{"TableName": "t857", "Item": {"pk": {"S": "p"}, "sk": {"S": "s"}, "gk": {"S": "g1"}, "lk": {"N": "1"}, "b": {"S": "bee"}}}');
SELECT pg_temp.try('Query', '{"TableName":"t857","IndexName":"gsi_g","KeyConditionExpression":"gk = :g","ExpressionAttributeValues":{":g":{"S":"g1"}}}');
SELECT pg_temp.try('Query', '{"TableName":"t857","IndexName":"gsi_g","KeyConditionExpression":"gk = :g","ExpressionAttributeValues":{":g":{"S":"g1"}},"ProjectionExpression":"b"}');
SELECT pg_temp.try('Query', '{"TableName":"t857","IndexName":"gsi_g","KeyConditionExpression":"gk = :g","ExpressionAttributeValues":{":g":{"S":"g1"}},"Select":"ALL_ATTRIBUTES"}');
SELECT pg_temp.try('Scan', '{"TableName":"t857","IndexName":"gsi_g","FilterExpression":"b = :b","ExpressionAttributeValues":{":b":{"S":"bee"}}}');
SELECT pg_temp.try('Query', '{"TableName":"t857","IndexName":"lsi_l","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p"}},"ProjectionExpression":"b, lk"}');
SELECT pg_temp.try('Query', '{"TableName":"t857","IndexName":"lsi_l","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p"}},"FilterExpression":"b = :b","ExpressionAttributeValues":{":p":{"S":"p"},":b":{"S":"bee"}}}');
SELECT pg_temp.try('Query', '{"TableName":"t857","IndexName":"lsi_l","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p"}},"Select":"ALL_ATTRIBUTES"}');
