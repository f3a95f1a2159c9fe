\set acct random(1, 1000)
\set asset random(1, 50)
\set txn random(1, 2000000000)
\set qty random(1, 100)
-- chr(58) is ':' (pgbench would take a literal :name for one of its variables)
-- The request is built by one format() call, as a client sends it whole:
-- a chain of || would copy the growing text once per piece (quadratic in
-- the request's size), a cost of the script, not of the call measured.
SELECT item_table.transact_write_items(format('{"TransactItems": [{"Put": {"TableName": "register", "Item": {"PK": {"S": "ACCOUNT#%1$s"}, "SK": {"S": "STOCKPOSTING#%2$s#%3$s#1"}, "Quantity": {"N": "%4$s"}, "Cost": {"N": "%4$s.25"}, "TxnId": {"S": "%3$s"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Put": {"TableName": "register", "Item": {"PK": {"S": "ACCOUNT#%1$s"}, "SK": {"S": "STOCKPOSTING#%2$s#%3$s#2"}, "Quantity": {"N": "%4$s"}, "Cost": {"N": "%4$s.25"}, "TxnId": {"S": "%3$s"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Put": {"TableName": "register", "Item": {"PK": {"S": "ACCOUNT#%1$s"}, "SK": {"S": "STOCKPOSTING#%2$s#%3$s#3"}, "Quantity": {"N": "%4$s"}, "Cost": {"N": "%4$s.25"}, "TxnId": {"S": "%3$s"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Put": {"TableName": "register", "Item": {"PK": {"S": "ACCOUNT#%1$s"}, "SK": {"S": "STOCKPOSTING#%2$s#%3$s#4"}, "Quantity": {"N": "%4$s"}, "Cost": {"N": "%4$s.25"}, "TxnId": {"S": "%3$s"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Put": {"TableName": "register", "Item": {"PK": {"S": "ACCOUNT#%1$s"}, "SK": {"S": "STOCKPOSTING#%2$s#%3$s#5"}, "Quantity": {"N": "%4$s"}, "Cost": {"N": "%4$s.25"}, "TxnId": {"S": "%3$s"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Put": {"TableName": "register", "Item": {"PK": {"S": "ACCOUNT#%1$s"}, "SK": {"S": "STOCKPOSTING#%2$s#%3$s#6"}, "Quantity": {"N": "%4$s"}, "Cost": {"N": "%4$s.25"}, "TxnId": {"S": "%3$s"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Put": {"TableName": "register", "Item": {"PK": {"S": "ACCOUNT#%1$s"}, "SK": {"S": "STOCKPOSTING#%2$s#%3$s#7"}, "Quantity": {"N": "%4$s"}, "Cost": {"N": "%4$s.25"}, "TxnId": {"S": "%3$s"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Put": {"TableName": "register", "Item": {"PK": {"S": "ACCOUNT#%1$s"}, "SK": {"S": "STOCKPOSTING#%2$s#%3$s#8"}, "Quantity": {"N": "%4$s"}, "Cost": {"N": "%4$s.25"}, "TxnId": {"S": "%3$s"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Put": {"TableName": "register", "Item": {"PK": {"S": "ACCOUNT#%1$s"}, "SK": {"S": "STOCKPOSTING#%2$s#%3$s#9"}, "Quantity": {"N": "%4$s"}, "Cost": {"N": "%4$s.25"}, "TxnId": {"S": "%3$s"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Put": {"TableName": "register", "Item": {"PK": {"S": "ACCOUNT#%1$s"}, "SK": {"S": "STOCKPOSTING#%2$s#%3$s#10"}, "Quantity": {"N": "%4$s"}, "Cost": {"N": "%4$s.25"}, "TxnId": {"S": "%3$s"}}, "ConditionExpression": "attribute_not_exists(PK)"}}]}', :acct::text, :asset::text, :txn::text, :qty::text)::jsonb);
