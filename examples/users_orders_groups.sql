-- Users, orders and groups: a one-to-many and a many-to-many relationship
-- in one table.
--
--   item                PK             SK             attributes
--   user                USER#<id>      METADATA       FullName, Email, JoinedOn
--   order of a user     USER#<id>      ORDER#<id>     PlacedOn, Amount, OrderStatus
--   group               GROUP#<id>     METADATA       GroupName, MemberCount
--   membership          USER#<id>      GROUP#<id>     GroupName, MemberRole, JoinedOn
--   (the same, mirrored) GROUP#<id>    USER#<id>      FullName, MemberRole, JoinedOn
--
-- A user's partition holds the user, their group memberships and their
-- orders, in sort key order: GROUP#... < METADATA < ORDER#...  So "a user
-- and their orders" is the range SK >= 'METADATA', and "a user's groups"
-- is begins_with(SK, 'GROUP#').  Membership is stored both ways, so "a
-- group's users" is a Query on the group's partition; both rows are written
-- in one transaction, so they never disagree.  Each row carries a copy of
-- the other side's name, so a list needs no second read.
--
-- Run with:  psql -X -v ON_ERROR_STOP=1 -f examples/users_orders_groups.sql
-- in a database where CREATE EXTENSION item_table was run.

SET search_path = item_table, public;
\pset footer off

-- Display helpers: DynamoDB JSON as plain JSON ({"S": "x"} -> "x",
-- {"N": "2.5"} -> 2.5, maps and lists recursively), and the Items of a
-- Query response as rows, in response order.
CREATE FUNCTION pg_temp.plain(v jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN v ? 'S' THEN v->'S'
		WHEN v ? 'N' THEN to_jsonb((v->>'N')::numeric)
		WHEN v ? 'BOOL' THEN v->'BOOL'
		WHEN v ? 'NULL' THEN 'null'::jsonb
		WHEN v ? 'M' THEN (SELECT coalesce(jsonb_object_agg(k, pg_temp.plain(e)), '{}') FROM jsonb_each(v->'M') AS m(k, e))
		WHEN v ? 'L' THEN (SELECT coalesce(jsonb_agg(pg_temp.plain(e) ORDER BY n), '[]') FROM jsonb_array_elements(v->'L') WITH ORDINALITY AS l(e, n))
		WHEN v ? 'NS' THEN (SELECT jsonb_agg(to_jsonb(e::numeric)) FROM jsonb_array_elements_text(v->'NS') AS s(e))
		ELSE coalesce(v->'SS', v->'B', v->'BS', v)
	END $$;
CREATE FUNCTION pg_temp.items(response jsonb) RETURNS TABLE (item jsonb) LANGUAGE sql AS $$
	SELECT pg_temp.plain(jsonb_build_object('M', i))
	FROM jsonb_array_elements(response->'Items') WITH ORDINALITY AS a(i, n) ORDER BY n $$;

\echo '== The table'
SELECT create_table('{"TableName": "UsersOrders", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
	                         {"AttributeName": "SK", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
	              {"AttributeName": "SK", "KeyType": "RANGE"}]}')->'TableDescription'->>'TableStatus' AS status;

\echo '== The data: 4 users, 7 orders, 3 groups'
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

-- Joining a group: both membership rows and the group's counter in one
-- transaction, on condition that the user exists and is not yet a member.
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
SELECT m.usr, m.grp, pg_temp.join_group(m.usr, m.grp, m.group_name, m.full_name, m.member_role, m.joined_on) AS response
FROM (VALUES
	('alice', 'admins',  'Administrators', 'Alice Martin', 'owner',  '2023-04-02'),
	('alice', 'beta',    'Beta testers',   'Alice Martin', 'member', '2023-05-11'),
	('bruno', 'beta',    'Beta testers',   'Bruno Silva',  'member', '2023-07-01'),
	('chen',  'beta',    'Beta testers',   'Chen Wei',     'owner',  '2023-10-02'),
	('chen',  'support', 'Support',        'Chen Wei',     'member', '2023-10-03'),
	('dana',  'support', 'Support',        'Dana Kim',     'owner',  '2024-01-09')
) AS m(usr, grp, group_name, full_name, member_role, joined_on);

\echo
\echo '== 1. A user and their orders: one Query, SK >= METADATA (GROUP# rows sort before it)'
SELECT item FROM pg_temp.items(query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :u AND SK >= :m",
	"ExpressionAttributeValues": {":u": {"S": "USER#alice"}, ":m": {"S": "METADATA"}}}'));

\echo '   ... the user alone: GetItem'
SELECT pg_temp.plain(jsonb_build_object('M', get_item('{"TableName": "UsersOrders",
	"Key": {"PK": {"S": "USER#alice"}, "SK": {"S": "METADATA"}}}')->'Item')) AS item;

\echo '   ... the two latest orders: descending, Limit 2; LastEvaluatedKey pages on'
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :u AND begins_with(SK, :o)",
	"ExpressionAttributeValues": {":u": {"S": "USER#alice"}, ":o": {"S": "ORDER#"}},
	"ProjectionExpression": "SK, Amount",
	"ScanIndexForward": false, "Limit": 2}') AS response;

\echo '   ... orders not yet delivered: FilterExpression (ScannedCount counts what was read)'
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :u AND begins_with(SK, :o)",
	"FilterExpression": "OrderStatus <> :d",
	"ExpressionAttributeValues": {":u": {"S": "USER#alice"}, ":o": {"S": "ORDER#"}, ":d": {"S": "DELIVERED"}},
	"ProjectionExpression": "SK, OrderStatus"}') AS response;

\echo
\echo '== 2. A user''s groups: begins_with(SK, GROUP#) in the user''s partition'
SELECT item FROM pg_temp.items(query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :u AND begins_with(SK, :g)",
	"ExpressionAttributeValues": {":u": {"S": "USER#chen"}, ":g": {"S": "GROUP#"}}}'));

\echo
\echo '== 3. A group''s users: the mirrored rows, in the group''s partition'
SELECT item FROM pg_temp.items(query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :g AND begins_with(SK, :u)",
	"ExpressionAttributeValues": {":g": {"S": "GROUP#beta"}, ":u": {"S": "USER#"}}}'));

\echo '   ... the group and its users together: the whole partition (METADATA < USER#...)'
SELECT item FROM pg_temp.items(query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :g",
	"ExpressionAttributeValues": {":g": {"S": "GROUP#support"}}}'));

\echo '   ... how many: Select COUNT'
SELECT query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :g AND begins_with(SK, :u)",
	"ExpressionAttributeValues": {":g": {"S": "GROUP#beta"}, ":u": {"S": "USER#"}},
	"Select": "COUNT"}') AS response;

\echo
\echo '== Joining twice is refused: the transaction is cancelled as a whole'
DO $$
BEGIN
	PERFORM item_table.transact_write_items('{"TransactItems": [
		{"Put": {"TableName": "UsersOrders", "Item": {"PK": {"S": "USER#bruno"}, "SK": {"S": "GROUP#beta"}, "GroupName": {"S": "Beta testers"}, "MemberRole": {"S": "member"}, "JoinedOn": {"S": "2024-04-01"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
		{"Put": {"TableName": "UsersOrders", "Item": {"PK": {"S": "GROUP#beta"}, "SK": {"S": "USER#bruno"}, "FullName": {"S": "Bruno Silva"}, "MemberRole": {"S": "member"}, "JoinedOn": {"S": "2024-04-01"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
		{"Update": {"TableName": "UsersOrders", "Key": {"PK": {"S": "GROUP#beta"}, "SK": {"S": "METADATA"}}, "UpdateExpression": "ADD MemberCount :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}}]}');
EXCEPTION WHEN others THEN
	RAISE NOTICE '%', SQLERRM;
END $$;

\echo '== Leaving a group: both rows and the counter, in one transaction'
SELECT transact_write_items('{"TransactItems": [
	{"Delete": {"TableName": "UsersOrders", "Key": {"PK": {"S": "USER#alice"}, "SK": {"S": "GROUP#beta"}}, "ConditionExpression": "attribute_exists(PK)"}},
	{"Delete": {"TableName": "UsersOrders", "Key": {"PK": {"S": "GROUP#beta"}, "SK": {"S": "USER#alice"}}}},
	{"Update": {"TableName": "UsersOrders", "Key": {"PK": {"S": "GROUP#beta"}, "SK": {"S": "METADATA"}}, "UpdateExpression": "ADD MemberCount :minus", "ExpressionAttributeValues": {":minus": {"N": "-1"}}}}]}') AS response;
SELECT item FROM pg_temp.items(query('{"TableName": "UsersOrders",
	"KeyConditionExpression": "PK = :g",
	"ExpressionAttributeValues": {":g": {"S": "GROUP#beta"}}}'));

\echo
\echo '== The same data with SQL: spending per user, over every partition at once'
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

\echo '== verify(): the table has no indexes to check, so no rows'
SELECT * FROM verify('UsersOrders');

SELECT delete_table('{"TableName": "UsersOrders"}')->'TableDescription'->>'TableStatus' AS status;
