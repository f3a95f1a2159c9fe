-- The table and the data of examples/users_orders_groups.sql, loaded by the example and by
-- its test (sql/example_users_orders_groups.sql).  Runs with search_path = item_table.
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
