-- The message catalogue: requests DynamoDB refuses, each with the exact
-- message DynamoDB gives (recorded against the service where the reference
-- or a conformance capture has it).  One line per case: the exception and
-- its message; echoed collections render as DynamoDB's Java model does.
SET search_path = item_table, public;

CREATE FUNCTION pg_temp.try(action text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	msg text;
	det text;
BEGIN
	PERFORM item_table.dynamodb(action, request);
	RETURN 'succeeded';
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	-- the exception name from the body, the message as DynamoDB's text
	RETURN split_part(det::jsonb->>'__type', '#', 2) || ': ' ||
		coalesce(det::jsonb->>'message', det::jsonb->>'Message');
END $$;

SELECT create_table('{"TableName": "msg", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') ? 'TableDescription' AS created;
SELECT create_table('{"TableName": "msg_prov", "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') ? 'TableDescription' AS created;

CREATE TEMP TABLE cases (id serial, action text, request jsonb);

-- CreateTable: required TableName, name lengths, shapes
INSERT INTO cases (action, request) VALUES
('CreateTable', '{"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}'),
('CreateTable', '{}'),
('CreateTable', '{"TableName": "ab", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}'),
('CreateTable', '{"TableName": "", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}, {"AttributeName": "extra", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}, {"AttributeName": "extra", "KeyType": "RANGE"}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "INVALID"}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "INVALID"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "FREE", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}'),
-- CreateTable: key schema against the definitions, in DynamoDB's order
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "pk", "KeyType": "RANGE"}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "b", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "b", "AttributeType": "S"}, {"AttributeName": "a", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "c", "KeyType": "RANGE"}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "HASH"}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "a", "KeyType": "RANGE"}, {"AttributeName": "b", "KeyType": "HASH"}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "x", "AttributeType": "S"}, {"AttributeName": "x", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}]}'),
-- CreateTable: indexes
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "unused", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "h", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "h", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {}}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "b", "a"]}}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "SOME"}}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "INCLUDE"}}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "l", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"LocalSecondaryIndexes": [{"IndexName": "lsi", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "l", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "h", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "same", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}},
		{"IndexName": "same", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}]}'),
('CreateTable', '{"TableName": "ct3", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}'),
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}, "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}'),
('CreateTable', '{"TableName": "ct3", "ProvisionedThroughput": {"ReadCapacityUnits": -1, "WriteCapacityUnits": 0}, "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}'),
-- billing is checked before the key schema
('CreateTable', '{"TableName": "ct3", "BillingMode": "PAY_PER_REQUEST", "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}, "AttributeDefinitions": [],
	"KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "a", "KeyType": "HASH"}]}'),
('CreateTable', '{"TableName": "ct3", "AttributeDefinitions": [], "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}]}'),
('CreateTable', '{"TableName": "ct3", "ProvisionedThroughput": {"ReadCapacityUnits": 1000000000001, "WriteCapacityUnits": 1000000000001}, "AttributeDefinitions": [], "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}]}'),
('CreateTable', '{"TableName": "ct3", "ProvisionedThroughput": {"ReadCapacityUnits": 1000000000000, "WriteCapacityUnits": 1000000000001}, "AttributeDefinitions": [], "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}]}');

-- UpdateTable: billing mode and throughput
INSERT INTO cases (action, request) VALUES
('UpdateTable', '{"TableName": "msg_prov", "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}'),
('UpdateTable', '{"TableName": "msg_prov", "BillingMode": "PROVISIONED", "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}'),
('UpdateTable', '{"TableName": "msg_prov", "BillingMode": "PROVISIONED"}'),
('UpdateTable', '{"TableName": "msg_prov", "ProvisionedThroughput": {"ReadCapacityUnits": 0, "WriteCapacityUnits": 5}}'),
('UpdateTable', '{"TableName": "msg_prov", "ProvisionedThroughput": {"ReadCapacityUnits": -3, "WriteCapacityUnits": -4}}'),
('UpdateTable', '{"TableName": "msg_prov", "ProvisionedThroughput": {"ReadCapacityUnits": 5}}'),
('UpdateTable', '{"TableName": "msg_prov", "BillingMode": "PAY_PER_REQUEST", "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}'),
('UpdateTable', '{"TableName": "msg", "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}'),
('UpdateTable', '{"TableName": "msg", "BillingMode": "PROVISIONED"}'),
('UpdateTable', '{"TableName": "msg", "BillingMode": "FREE"}'),
('UpdateTable', '{"TableName": "msg", "AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {}}}]}'),
('UpdateTable', '{"TableName": "msg", "AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}}]}');

-- data plane: TableName, Limit, enums in DynamoDB's order
INSERT INTO cases (action, request) VALUES
('PutItem', '{"TableName": "", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}}'),
('PutItem', '{"Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}}'),
('PutItem', '{"TableName": "msg", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ReturnValues": "hi"}'),
('PutItem', '{"TableName": "msg", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ReturnItemCollectionMetrics": "hi", "ReturnConsumedCapacity": "hi"}'),
('GetItem', '{"TableName": "", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}}'),
('GetItem', '{"TableName": "a;", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}}'),
('Query', '{"TableName": "msg", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}, "Limit": 0}'),
('Query', '{"TableName": "msg", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}, "Select": "INVALID_VALUE"}'),
('Scan', '{"TableName": "msg", "Limit": -1}'),
('Scan', '{"TableName": "msg", "Select": "ALL"}');

-- batches and transactions: required parameters, lengths with the value echoed
INSERT INTO cases (action, request) VALUES
('BatchWriteItem', '{"RequestItems": {}}'),
('BatchWriteItem', '{}'),
('BatchWriteItem', '{"RequestItems": {"msg": []}}'),
('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object('msg',
	(SELECT jsonb_agg(CASE WHEN i % 2 = 0 THEN jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', jsonb_build_object('S', 'k' || i), 'sk', '{"N": "1"}'::jsonb)))
		ELSE jsonb_build_object('DeleteRequest', jsonb_build_object('Key', jsonb_build_object('pk', jsonb_build_object('S', 'k' || i), 'sk', '{"N": "1"}'::jsonb))) END ORDER BY i)
	 FROM generate_series(1, 26) i)))),
('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object(
	'msg', (SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', jsonb_build_object('S', 'k' || i), 'sk', '{"N": "1"}'::jsonb)))) FROM generate_series(1, 13) i),
	'msg_prov', (SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', jsonb_build_object('S', 'k' || i))))) FROM generate_series(1, 13) i)))),
('BatchWriteItem', '{"RequestItems": {"msg": [{"PutRequest": {"Item": {"pk": {"N": "5"}, "sk": {"N": "1"}}}}]}}'),
('BatchWriteItem', '{"RequestItems": {"msg": [{"PutRequest": {"Item": {"pk": {"S": "a"}, "sk": {"L": [{"N": "1"}]}}}}]}}'),
('BatchWriteItem', '{"RequestItems": {"msg": [{"PutRequest": {"Item": {"pk": {"S": ""}, "sk": {"N": "1"}}}}]}}'),
('PutItem', '{"TableName": "msg", "Item": {"pk": {"N": "5"}, "sk": {"N": "1"}}}'),
('BatchGetItem', '{"RequestItems": {}}'),
('TransactGetItems', '{"TransactItems": []}'),
('TransactGetItems', jsonb_build_object('TransactItems',
	(SELECT jsonb_agg(jsonb_build_object('Get', jsonb_build_object('TableName', 'msg', 'Key', jsonb_build_object('pk', jsonb_build_object('S', 'k' || i), 'sk', '{"N": "1"}'::jsonb),
		'ProjectionExpression', CASE WHEN i = 1 THEN '#a' END, 'ExpressionAttributeNames', CASE WHEN i = 1 THEN '{"#a": "a"}'::jsonb END)) ORDER BY i)
	 FROM generate_series(1, 101) i))),
('TransactWriteItems', jsonb_build_object('TransactItems',
	(SELECT jsonb_agg(CASE i % 4
		WHEN 0 THEN jsonb_build_object('Put', jsonb_build_object('TableName', 'msg', 'Item', jsonb_build_object('pk', jsonb_build_object('S', 'k' || i), 'sk', '{"N": "1"}'::jsonb)))
		WHEN 1 THEN jsonb_build_object('Delete', jsonb_build_object('TableName', 'msg', 'Key', jsonb_build_object('pk', jsonb_build_object('S', 'k' || i), 'sk', '{"N": "1"}'::jsonb)))
		WHEN 2 THEN jsonb_build_object('Update', jsonb_build_object('TableName', 'msg', 'Key', jsonb_build_object('pk', jsonb_build_object('S', 'k' || i), 'sk', '{"N": "1"}'::jsonb),
			'UpdateExpression', 'SET a = :v', 'ExpressionAttributeValues', '{":v": {"N": "1"}}'::jsonb))
		ELSE jsonb_build_object('ConditionCheck', jsonb_build_object('TableName', 'msg', 'Key', jsonb_build_object('pk', jsonb_build_object('S', 'k' || i), 'sk', '{"N": "1"}'::jsonb),
			'ConditionExpression', 'attribute_exists(pk)', 'ReturnValuesOnConditionCheckFailure', 'ALL_OLD')) END ORDER BY i)
	 FROM generate_series(1, 101) i))),
('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "msg", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}}},
	{"Get": {"TableName": "msg", "Key": {"pk": {"N": "1"}, "sk": {"N": "1"}}}}, {"Get": {"TableName": "msg", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}}}]}'),
('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "msg", "Key": {"pk": {"S": "a"}}}}]}');

SELECT id, action, pg_temp.try(action, request) AS outcome FROM cases ORDER BY id;

-- the body of a TransactGetItems cancelled by a key that does not fit
SELECT pg_temp.try('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "msg", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}}},
	{"Get": {"TableName": "msg", "Key": {"pk": {"S": "b"}, "sk": {"S": "1"}}}}]}');
DO $$
DECLARE
	det text;
BEGIN
	PERFORM item_table.transact_get_items('{"TransactItems": [{"Get": {"TableName": "msg", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}}},
		{"Get": {"TableName": "msg", "Key": {"pk": {"S": "b"}, "sk": {"S": "1"}}}}]}');
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS det = PG_EXCEPTION_DETAIL;
	RAISE NOTICE 'reasons: %', det::jsonb->'CancellationReasons';
END $$;

-- nothing was created or changed by any of the above
SELECT NOT (list_tables('{}')->'TableNames' ?| ARRAY['ct3', 'ab', '']) AS none_created;
SELECT describe_table('{"TableName": "msg_prov"}')->'Table'->'ProvisionedThroughput' AS throughput,
	describe_table('{"TableName": "msg_prov"}')->'Table' ? 'BillingModeSummary' AS has_summary;
SELECT count(*) AS items FROM item_data.msg;

-- BillingModeSummary: on-demand tables carry the time they became so
SELECT describe_table('{"TableName": "msg"}')->'Table'->'BillingModeSummary'->>'BillingMode' AS mode,
	(describe_table('{"TableName": "msg"}')->'Table'->'BillingModeSummary'->>'LastUpdateToPayPerRequestDateTime')::numeric =
	(describe_table('{"TableName": "msg"}')->'Table'->>'CreationDateTime')::numeric AS since_creation;
SELECT update_table('{"TableName": "msg_prov", "BillingMode": "PAY_PER_REQUEST"}')->'TableDescription'->'BillingModeSummary'->>'BillingMode' AS switched;
SELECT (describe_table('{"TableName": "msg_prov"}')->'Table'->'BillingModeSummary'->>'LastUpdateToPayPerRequestDateTime')::numeric >=
	(describe_table('{"TableName": "msg_prov"}')->'Table'->>'CreationDateTime')::numeric AS switch_time_recorded,
	describe_table('{"TableName": "msg_prov"}')->'Table'->'ProvisionedThroughput' AS throughput;
SELECT pg_temp.try('UpdateTable', '{"TableName": "msg_prov", "BillingMode": "PAY_PER_REQUEST"}') AS same_mode_again;
SELECT update_table('{"TableName": "msg_prov", "BillingMode": "PROVISIONED", "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 3}}')->'TableDescription'->'BillingModeSummary'->>'BillingMode' AS back;
SELECT describe_table('{"TableName": "msg_prov"}')->'Table'->'BillingModeSummary' ? 'LastUpdateToPayPerRequestDateTime' AS still_shown,
	describe_table('{"TableName": "msg_prov"}')->'Table'->'ProvisionedThroughput' AS throughput;

SELECT delete_table('{"TableName": "msg"}') ? 'TableDescription' AS dropped;
SELECT delete_table('{"TableName": "msg_prov"}') ? 'TableDescription' AS dropped;
