-- The table and the data of examples/letters_toys.sql, loaded by the example and by
-- its test (sql/example_letters_toys.sql).  Runs with search_path = item_table.
SELECT create_table('{"TableName": "LettersToys", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
	                         {"AttributeName": "SK", "AttributeType": "S"},
	                         {"AttributeName": "STRING1", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
	              {"AttributeName": "SK", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "GSI1",
		"KeySchema": [{"AttributeName": "STRING1", "KeyType": "HASH"},
		              {"AttributeName": "SK", "KeyType": "RANGE"}],
		"Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["Quantity"]}}]}')->'TableDescription'->>'TableStatus' AS status;

\echo '== The data: 5 toys and 2 letters (prices at receipt = prices of the day)'
SELECT batch_write_item('{"RequestItems": {"LettersToys": [
	{"PutRequest": {"Item": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0001"}, "ToyName": {"S": "Wooden train"},  "Price": {"N": "24.90"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0002"}, "ToyName": {"S": "Kite"},          "Price": {"N": "12.50"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0003"}, "ToyName": {"S": "Jigsaw puzzle"}, "Price": {"N": "9.99"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0004"}, "ToyName": {"S": "Teddy bear"},    "Price": {"N": "19"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "TOY"}, "SK": {"S": "TOY#0005"}, "ToyName": {"S": "Chemistry set"}, "Price": {"N": "34"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "LETTER"}, "SK": {"S": "LETTER#0001"}, "ChildName": {"S": "Emma"}, "City": {"S": "Lyon"}, "ReceivedOn": {"S": "2024-11-02"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "LETTER"}, "SK": {"S": "LETTER#0001#TOY#0001"}, "STRING1": {"S": "TOY#0001"}, "ToyName": {"S": "Wooden train"},  "Quantity": {"N": "1"}, "PriceAtReceipt": {"N": "24.90"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "LETTER"}, "SK": {"S": "LETTER#0001#TOY#0003"}, "STRING1": {"S": "TOY#0003"}, "ToyName": {"S": "Jigsaw puzzle"}, "Quantity": {"N": "2"}, "PriceAtReceipt": {"N": "9.99"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "LETTER"}, "SK": {"S": "LETTER#0002"}, "ChildName": {"S": "Noah"}, "City": {"S": "Porto"}, "ReceivedOn": {"S": "2024-11-05"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "LETTER"}, "SK": {"S": "LETTER#0002#TOY#0002"}, "STRING1": {"S": "TOY#0002"}, "ToyName": {"S": "Kite"},          "Quantity": {"N": "1"}, "PriceAtReceipt": {"N": "12.50"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "LETTER"}, "SK": {"S": "LETTER#0002#TOY#0003"}, "STRING1": {"S": "TOY#0003"}, "ToyName": {"S": "Jigsaw puzzle"}, "Quantity": {"N": "1"}, "PriceAtReceipt": {"N": "9.99"}}}},
	{"PutRequest": {"Item": {"PK": {"S": "LETTER"}, "SK": {"S": "LETTER#0002#TOY#0004"}, "STRING1": {"S": "TOY#0004"}, "ToyName": {"S": "Teddy bear"},    "Quantity": {"N": "1"}, "PriceAtReceipt": {"N": "19"}}}}]}}');
