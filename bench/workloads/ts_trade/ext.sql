\set b random(1, 1000)
\set s 1 + (:b % 1000)
\set asset random(1, 50)
\set q random(1, 100)
\set txn random(1, 2000000000)
-- The request is built by one format() call, as a client sends it whole:
-- a chain of || would copy the growing text once per piece (quadratic in
-- the request's size), a cost of the script, not of the call measured.
SELECT item_table.transact_write_items(format('{"TransactItems": [
 {"Put": {"TableName": "Register", "Item": {"PK": {"S": "ACCOUNT#%1$s"}, "SK": {"S": "STOCKPOSTING#AS%2$s#2025-01-01T00:00:00Z#X%3$s"}, "SK2": {"S": "STOCKPOSTING#2025-01-01T00:00:00Z#X%3$s"}, "AssetId": {"S": "AS%2$s"}, "Quantity": {"N": "%4$s"}, "Cost": {"N": "%4$s.5"}, "TxnId": {"S": "X%3$s"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Put": {"TableName": "Register", "Item": {"PK": {"S": "ACCOUNT#%5$s"}, "SK": {"S": "STOCKPOSTING#AS%2$s#2025-01-01T00:00:00Z#Y%3$s"}, "SK2": {"S": "STOCKPOSTING#2025-01-01T00:00:00Z#Y%3$s"}, "AssetId": {"S": "AS%2$s"}, "Quantity": {"N": "-%4$s"}, "Cost": {"N": "-%4$s.5"}, "TxnId": {"S": "Y%3$s"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Update": {"TableName": "Register", "Key": {"PK": {"S": "ACCOUNT#%1$s"}, "SK": {"S": "STOCKBALANCE#AS%2$s"}}, "UpdateExpression": "ADD Quantity %6$sq, NetExpenditure %6$sc", "ExpressionAttributeValues": {"%6$sq": {"N": "%4$s"}, "%6$sc": {"N": "%4$s.5"}}}},
 {"Update": {"TableName": "Register", "Key": {"PK": {"S": "ACCOUNT#%5$s"}, "SK": {"S": "STOCKBALANCE#AS%2$s"}}, "UpdateExpression": "ADD Quantity %6$sq, NetExpenditure %6$sc", "ExpressionAttributeValues": {"%6$sq": {"N": "-%4$s"}, "%6$sc": {"N": "-%4$s.5"}}}}]}', :b::text, :asset::text, :txn::text, :q::text, :s::text, chr(58))::jsonb);
