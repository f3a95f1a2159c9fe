-- ReturnItemCollectionMetrics: SIZE.  Tables with a local secondary index
-- have item collections (the items of one partition key value with their
-- LSI entries); their writes report the collection's key and its size as a
-- range of whole gigabytes.  Tables without one report nothing.
SET search_path = item_table, public;

SELECT create_table('{"TableName": "icm_lsi", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
		{"AttributeName": "l", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"LocalSecondaryIndexes": [{"IndexName": "by_l", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
		{"AttributeName": "l", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}]}') ? 'TableDescription' AS created;
SELECT create_table('{"TableName": "icm_num", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}, {"AttributeName": "at", "AttributeType": "N"},
		{"AttributeName": "b", "AttributeType": "B"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}, {"AttributeName": "at", "KeyType": "RANGE"}],
	"LocalSecondaryIndexes": [{"IndexName": "by_b", "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"},
		{"AttributeName": "b", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}') ? 'TableDescription' AS created;
SELECT create_table('{"TableName": "icm_plain", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}]}') ? 'TableDescription' AS created;

-- single writes
SELECT put_item('{"TableName": "icm_lsi", "Item": {"pk": {"S": "p1"}, "sk": {"S": "a"}, "l": {"N": "1"}, "x": {"S": "hello"}},
	"ReturnItemCollectionMetrics": "SIZE"}');
SELECT put_item('{"TableName": "icm_lsi", "Item": {"pk": {"S": "p1"}, "sk": {"S": "b"}}, "ReturnItemCollectionMetrics": "NONE"}');
SELECT put_item('{"TableName": "icm_lsi", "Item": {"pk": {"S": "p1"}, "sk": {"S": "c"}}}');
SELECT put_item('{"TableName": "icm_lsi", "Item": {"pk": {"S": "p1"}, "sk": {"S": "a"}, "l": {"N": "2"}},
	"ReturnItemCollectionMetrics": "SIZE", "ReturnValues": "ALL_OLD", "ReturnConsumedCapacity": "TOTAL"}');
SELECT update_item('{"TableName": "icm_lsi", "Key": {"pk": {"S": "p2"}, "sk": {"S": "a"}}, "UpdateExpression": "SET l = :l",
	"ExpressionAttributeValues": {":l": {"N": "5"}}, "ReturnItemCollectionMetrics": "SIZE", "ReturnValues": "UPDATED_NEW"}');
SELECT update_item('{"TableName": "icm_lsi", "Key": {"pk": {"S": "p3"}, "sk": {"S": "a"}}, "UpdateExpression": "REMOVE nothing",
	"ReturnItemCollectionMetrics": "SIZE"}');
SELECT delete_item('{"TableName": "icm_lsi", "Key": {"pk": {"S": "p2"}, "sk": {"S": "a"}}, "ReturnItemCollectionMetrics": "SIZE"}');
SELECT delete_item('{"TableName": "icm_lsi", "Key": {"pk": {"S": "none"}, "sk": {"S": "a"}}, "ReturnItemCollectionMetrics": "SIZE"}');
-- a number partition key comes back in canonical form
SELECT put_item('{"TableName": "icm_num", "Item": {"id": {"N": "1.50e1"}, "at": {"N": "1"}, "b": {"B": "AAE="}},
	"ReturnItemCollectionMetrics": "SIZE"}');
-- a table without an LSI: nothing, even when asked
SELECT put_item('{"TableName": "icm_plain", "Item": {"pk": {"S": "q"}, "g": {"S": "x"}}, "ReturnItemCollectionMetrics": "SIZE"}');
SELECT delete_item('{"TableName": "icm_plain", "Key": {"pk": {"S": "q"}}, "ReturnItemCollectionMetrics": "SIZE"}');
-- a failed condition reports the failure only
SELECT put_item('{"TableName": "icm_lsi", "Item": {"pk": {"S": "p1"}, "sk": {"S": "a"}}, "ConditionExpression": "attribute_not_exists(pk)",
	"ReturnItemCollectionMetrics": "SIZE"}');

-- BatchWriteItem: per table with an LSI, one entry per partition written
SELECT batch_write_item('{"RequestItems": {
	"icm_lsi": [{"PutRequest": {"Item": {"pk": {"S": "p4"}, "sk": {"S": "a"}}}}, {"PutRequest": {"Item": {"pk": {"S": "p4"}, "sk": {"S": "b"}}}},
		{"DeleteRequest": {"Key": {"pk": {"S": "p1"}, "sk": {"S": "c"}}}}],
	"icm_num": [{"PutRequest": {"Item": {"id": {"N": "2"}, "at": {"N": "1"}}}}],
	"icm_plain": [{"PutRequest": {"Item": {"pk": {"S": "r"}}}}]},
	"ReturnItemCollectionMetrics": "SIZE"}');
SELECT batch_write_item('{"RequestItems": {"icm_lsi": [{"PutRequest": {"Item": {"pk": {"S": "p5"}, "sk": {"S": "a"}}}}]}}');
SELECT batch_write_item('{"RequestItems": {"icm_plain": [{"PutRequest": {"Item": {"pk": {"S": "s"}}}}]}, "ReturnItemCollectionMetrics": "SIZE"}');

-- TransactWriteItems: the written items' collections (not ConditionChecks)
SELECT transact_write_items('{"TransactItems": [
	{"Put": {"TableName": "icm_lsi", "Item": {"pk": {"S": "p6"}, "sk": {"S": "a"}, "l": {"N": "3"}}}},
	{"Update": {"TableName": "icm_lsi", "Key": {"pk": {"S": "p6"}, "sk": {"S": "b"}}, "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"S": "w"}}}},
	{"Delete": {"TableName": "icm_num", "Key": {"id": {"N": "2"}, "at": {"N": "1"}}}},
	{"ConditionCheck": {"TableName": "icm_lsi", "Key": {"pk": {"S": "p1"}, "sk": {"S": "a"}}, "ConditionExpression": "attribute_exists(pk)"}},
	{"Put": {"TableName": "icm_plain", "Item": {"pk": {"S": "t"}}}}],
	"ReturnItemCollectionMetrics": "SIZE"}');
SELECT transact_write_items('{"TransactItems": [{"Put": {"TableName": "icm_lsi", "Item": {"pk": {"S": "p7"}, "sk": {"S": "a"}}}}],
	"ReturnItemCollectionMetrics": "NONE"}');

-- the same through dynamodb()
SELECT dynamodb('PutItem', '{"TableName": "icm_lsi", "Item": {"pk": {"S": "p8"}, "sk": {"S": "a"}}, "ReturnItemCollectionMetrics": "SIZE"}');

SELECT delete_table('{"TableName": "icm_lsi"}') ? 'TableDescription' AS dropped;
SELECT delete_table('{"TableName": "icm_num"}') ? 'TableDescription' AS dropped;
SELECT delete_table('{"TableName": "icm_plain"}') ? 'TableDescription' AS dropped;
