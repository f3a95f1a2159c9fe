\set acct random(1, 1000)
\set other random(1, 1000)
\set asset random(1, 50)
\set txn random(1, 2000000000)
\set qty random(1, 100)
-- chr(58) is ':' (pgbench would take a literal :name for one of its variables)
-- The request is built by one format() call, as a client sends it whole:
-- a chain of || would copy the growing text once per piece (quadratic in
-- the request's size), a cost of the script, not of the call measured.
SELECT item_table.transact_write_items(format('{"TransactItems": [
 {"Put": {"TableName": "register", "Item": {"PK": {"S": "ACCOUNT#%1$s"}, "SK": {"S": "STOCKPOSTING#%2$s#%3$s#B"}, "Quantity": {"N": "%4$s"}, "Cost": {"N": "%4$s.25"}, "TxnId": {"S": "%3$s"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Put": {"TableName": "register", "Item": {"PK": {"S": "ACCOUNT#%5$s"}, "SK": {"S": "STOCKPOSTING#%2$s#%3$s#S"}, "Quantity": {"N": "-%4$s"}, "Cost": {"N": "-%4$s.25"}, "TxnId": {"S": "%3$s"}}, "ConditionExpression": "attribute_not_exists(PK)"}}]}', :acct::text, :asset::text, :txn::text, :qty::text, :other::text)::jsonb);
