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

-- Display helpers: DynamoDB JSON as plain JSON, Query Items as rows
\ir display.sql

\echo '== The table'
\ir users_orders_groups.data.sql

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
