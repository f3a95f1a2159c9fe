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

SELECT create_table('{"TableName": "UsersOrders", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
	                         {"AttributeName": "SK", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
	              {"AttributeName": "SK", "KeyType": "RANGE"}]}')->'TableDescription'->>'TableStatus' AS status;

SELECT batch_write_item('{"RequestItems": {"UsersOrders": [
	{"PutRequest": {"Item": {"PK": {"S": "USER#alice"}, "SK": {"S": "METADATA"}, "FullName": {"S": "Alice Martin"}, "Email": {"S": "alice@example.com"}, "JoinedOn": {"S": "2023-04-02"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#bruno"}, "SK": {"S": "METADATA"}, "FullName": {"S": "Bruno Silva"}, "Email": {"S": "bruno@example.com"}, "JoinedOn": {"S": "2023-06-19"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#chen"},  "SK": {"S": "METADATA"}, "FullName": {"S": "Chen Wei"},     "Email": {"S": "chen@example.com"},  "JoinedOn": {"S": "2023-09-30"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#dana"},  "SK": {"S": "METADATA"}, "FullName": {"S": "Dana Kim"},     "Email": {"S": "dana@example.com"},  "JoinedOn": {"S": "2024-01-08"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#alice"}, "SK": {"S": "ORDER#1001"}, "PlacedOn": {"S": "2024-01-15"}, "Amount": {"N": "42.50"}, "OrderStatus": {"S": "DELIVERED"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#bruno"}, "SK": {"S": "ORDER#1002"}, "PlacedOn": {"S": "2024-01-18"}, "Amount": {"N": "12"},    "OrderStatus": {"S": "DELIVERED"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#dana"},  "SK": {"S": "ORDER#1003"}, "PlacedOn": {"S": "2024-02-02"}, "Amount": {"N": "7.25"},  "OrderStatus": {"S": "DELIVERED"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#alice"}, "SK": {"S": "ORDER#1004"}, "PlacedOn": {"S": "2024-02-20"}, "Amount": {"N": "18"},    "OrderStatus": {"S": "DELIVERED"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#bruno"}, "SK": {"S": "ORDER#1005"}, "PlacedOn": {"S": "2024-02-28"}, "Amount": {"N": "250"},   "OrderStatus": {"S": "CANCELLED"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#dana"},  "SK": {"S": "ORDER#1006"}, "PlacedOn": {"S": "2024-03-01"}, "Amount": {"N": "64.10"}, "OrderStatus": {"S": "SHIPPED"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "USER#alice"}, "SK": {"S": "ORDER#1007"}, "PlacedOn": {"S": "2024-03-05"}, "Amount": {"N": "99.90"}, "OrderStatus": {"S": "SHIPPED"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "GROUP#admins"},  "SK": {"S": "METADATA"}, "GroupName": {"S": "Administrators"}, "MemberCount": {"N": "0"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "GROUP#beta"},    "SK": {"S": "METADATA"}, "GroupName": {"S": "Beta testers"},   "MemberCount": {"N": "0"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "GROUP#support"}, "SK": {"S": "METADATA"}, "GroupName": {"S": "Support"},        "MemberCount": {"N": "0"}}}}]}}');

-- joining a group: both membership rows and the counter, one transaction
CREATE FUNCTION pg_temp.join_group(usr text, grp text, group_name text, full_name text, member_role text, joined_on text)
RETURNS jsonb LANGUAGE sql AS $$
	SELECT item_table.transact_write_items(jsonb_build_object('TransactItems', jsonb_build_array(
		jsonb_build_object('ConditionCheck', jsonb_build_object('TableName', 'UsersOrders',
			'Key', jsonb_build_object('PK', jsonb_build_object('S', 'USER#' || usr), 'SK', '{"S": "METADATA"}'::jsonb),
			'ConditionExpression', 'attribute_exists(PK)')),
		jsonb_build_object('Put', jsonb_build_object('TableName', 'UsersOrders',
			'Item', jsonb_build_object('PK', jsonb_build_object('S', 'USER#' || usr), 'SK', jsonb_build_object('S', 'GROUP#' || grp),
				'GroupName', jsonb_build_object('S', group_name), 'MemberRole', jsonb_build_object('S', member_role),
				'JoinedOn', jsonb_build_object('S', joined_on)),
			'ConditionExpression', 'attribute_not_exists(PK)')),
		jsonb_build_object('Put', jsonb_build_object('TableName', 'UsersOrders',
			'Item', jsonb_build_object('PK', jsonb_build_object('S', 'GROUP#' || grp), 'SK', jsonb_build_object('S', 'USER#' || usr),
				'FullName', jsonb_build_object('S', full_name), 'MemberRole', jsonb_build_object('S', member_role),
				'JoinedOn', jsonb_build_object('S', joined_on)),
			'ConditionExpression', 'attribute_not_exists(PK)')),
		jsonb_build_object('Update', jsonb_build_object('TableName', 'UsersOrders',
			'Key', jsonb_build_object('PK', jsonb_build_object('S', 'GROUP#' || grp), 'SK', '{"S": "METADATA"}'::jsonb),
			'UpdateExpression', 'ADD MemberCount :one',
			'ConditionExpression', 'attribute_exists(PK)',
			'ExpressionAttributeValues', '{":one": {"N": "1"}}'::jsonb)))))
$$;
SELECT pg_temp.join_group('alice', 'admins',  'Administrators', 'Alice Martin', 'owner',  '2023-04-02');
SELECT pg_temp.join_group('alice', 'beta',    'Beta testers',   'Alice Martin', 'member', '2023-05-11');
SELECT pg_temp.join_group('bruno', 'beta',    'Beta testers',   'Bruno Silva',  'member', '2023-07-01');
SELECT pg_temp.join_group('chen',  'beta',    'Beta testers',   'Chen Wei',     'owner',  '2023-10-02');
SELECT pg_temp.join_group('chen',  'support', 'Support',        'Chen Wei',     'member', '2023-10-03');
SELECT pg_temp.join_group('dana',  'support', 'Support',        'Dana Kim',     'owner',  '2024-01-09');
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
