-- Example "users, orders and groups" (examples/users_orders_groups.sql):
-- the same data, and the exact response of every access pattern.
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
	RETURN st || ' ' || msg ||
		CASE WHEN det LIKE '%CancellationReasons%' THEN E'\n  reasons: ' || (det::jsonb->'CancellationReasons')::text ELSE '' END;
END $$;

\i examples/users_orders_groups.data.sql
SELECT count(*) AS items FROM item_data."UsersOrders";

-- 1. a user and their orders: SK >= METADATA skips the GROUP# rows
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :u AND SK >= :m",
	"ExpressionAttributeValues": {":u": {"S": "USER#alice"}, ":m": {"S": "METADATA"}}}');
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :u AND SK >= :m",
	"ExpressionAttributeValues": {":u": {"S": "USER#chen"}, ":m": {"S": "METADATA"}}}');
-- the user alone
SELECT get_item('{"TableName": "UsersOrders", "Key": {"PK": {"S": "USER#alice"}, "SK": {"S": "METADATA"}}}');
-- the two latest orders, then the next page
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :u AND begins_with(SK, :o)",
	"ExpressionAttributeValues": {":u": {"S": "USER#alice"}, ":o": {"S": "ORDER#"}},
	"ProjectionExpression": "SK, Amount",
	"ScanIndexForward": false, "Limit": 2}');
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :u AND begins_with(SK, :o)",
	"ExpressionAttributeValues": {":u": {"S": "USER#alice"}, ":o": {"S": "ORDER#"}},
	"ProjectionExpression": "SK, Amount",
	"ScanIndexForward": false, "Limit": 2,
	"ExclusiveStartKey": {"PK": {"S": "USER#alice"}, "SK": {"S": "ORDER#1004"}}}');
-- orders not yet delivered
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :u AND begins_with(SK, :o)",
	"FilterExpression": "OrderStatus <> :d",
	"ExpressionAttributeValues": {":u": {"S": "USER#alice"}, ":o": {"S": "ORDER#"}, ":d": {"S": "DELIVERED"}},
	"ProjectionExpression": "SK, OrderStatus"}');

-- 2. a user's groups
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :u AND begins_with(SK, :g)",
	"ExpressionAttributeValues": {":u": {"S": "USER#chen"}, ":g": {"S": "GROUP#"}}}');
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :u AND begins_with(SK, :g)",
	"ExpressionAttributeValues": {":u": {"S": "USER#alice"}, ":g": {"S": "GROUP#"}},
	"ProjectionExpression": "GroupName"}');

-- 3. a group's users
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :g AND begins_with(SK, :u)",
	"ExpressionAttributeValues": {":g": {"S": "GROUP#beta"}, ":u": {"S": "USER#"}}}');
-- the group and its users together
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :g",
	"ExpressionAttributeValues": {":g": {"S": "GROUP#support"}}}');
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :g AND begins_with(SK, :u)",
	"ExpressionAttributeValues": {":g": {"S": "GROUP#beta"}, ":u": {"S": "USER#"}},
	"Select": "COUNT"}');
-- both directions agree: every USER#/GROUP# row has its GROUP#/USER# mirror
SELECT count(*) AS memberships,
	   count(*) FILTER (WHERE NOT EXISTS (
		   SELECT 1 FROM item_data."UsersOrders" g
		   WHERE g.key = item_key(sort_value(u.key), partition_value(u.key)))) AS without_mirror
FROM item_data."UsersOrders" u
WHERE starts_with(partition_value(u.key)->>'S', 'USER#') AND starts_with(sort_value(u.key)->>'S', 'GROUP#');

-- joining twice is refused as a whole; a missing user too
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": [
	{"Put": {"TableName": "UsersOrders", "Item": {"PK": {"S": "USER#bruno"}, "SK": {"S": "GROUP#beta"}, "GroupName": {"S": "Beta testers"}, "MemberRole": {"S": "member"}, "JoinedOn": {"S": "2024-04-01"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
	{"Put": {"TableName": "UsersOrders", "Item": {"PK": {"S": "GROUP#beta"}, "SK": {"S": "USER#bruno"}, "FullName": {"S": "Bruno Silva"}, "MemberRole": {"S": "member"}, "JoinedOn": {"S": "2024-04-01"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
	{"Update": {"TableName": "UsersOrders", "Key": {"PK": {"S": "GROUP#beta"}, "SK": {"S": "METADATA"}}, "UpdateExpression": "ADD MemberCount :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}}]}');
SELECT pg_temp.try('TransactWriteItems', '{"TransactItems": [
	{"ConditionCheck": {"TableName": "UsersOrders", "Key": {"PK": {"S": "USER#zoe"}, "SK": {"S": "METADATA"}}, "ConditionExpression": "attribute_exists(PK)"}},
	{"Put": {"TableName": "UsersOrders", "Item": {"PK": {"S": "USER#zoe"}, "SK": {"S": "GROUP#beta"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
	{"Put": {"TableName": "UsersOrders", "Item": {"PK": {"S": "GROUP#beta"}, "SK": {"S": "USER#zoe"}}, "ConditionExpression": "attribute_not_exists(PK)"}}]}');
SELECT get_item('{"TableName": "UsersOrders", "Key": {"PK": {"S": "GROUP#beta"}, "SK": {"S": "METADATA"}}, "ProjectionExpression": "MemberCount"}');

-- leaving a group
SELECT transact_write_items('{"TransactItems": [
	{"Delete": {"TableName": "UsersOrders", "Key": {"PK": {"S": "USER#alice"}, "SK": {"S": "GROUP#beta"}}, "ConditionExpression": "attribute_exists(PK)"}},
	{"Delete": {"TableName": "UsersOrders", "Key": {"PK": {"S": "GROUP#beta"}, "SK": {"S": "USER#alice"}}}},
	{"Update": {"TableName": "UsersOrders", "Key": {"PK": {"S": "GROUP#beta"}, "SK": {"S": "METADATA"}}, "UpdateExpression": "ADD MemberCount :minus", "ExpressionAttributeValues": {":minus": {"N": "-1"}}}}]}');
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :g",
	"ExpressionAttributeValues": {":g": {"S": "GROUP#beta"}}}');
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :u AND begins_with(SK, :g)",
	"ExpressionAttributeValues": {":u": {"S": "USER#alice"}, ":g": {"S": "GROUP#"}},
	"ProjectionExpression": "GroupName"}');

-- the same data with SQL: spending per user
SELECT partition_value(u.key)->>'S' AS user_pk,
	   u.item->'FullName'->>'S' AS full_name,
	   count(o.key) AS orders,
	   coalesce(sum((o.item->'Amount'->>'N')::numeric) FILTER (WHERE o.item->'OrderStatus'->>'S' <> 'CANCELLED'), 0) AS spent
FROM item_data."UsersOrders" u
LEFT JOIN item_data."UsersOrders" o ON o.key ^@ item_key(partition_value(u.key), '{"S": "ORDER#"}')
WHERE starts_with(partition_value(u.key)->>'S', 'USER#')
  AND sort_value(u.key)->>'S' = 'METADATA'
GROUP BY 1, 2
ORDER BY 1;

SELECT * FROM verify('UsersOrders');
SELECT delete_table('{"TableName": "UsersOrders"}')->'TableDescription'->>'TableStatus' AS status;
