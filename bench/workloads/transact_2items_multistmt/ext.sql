\set acct random(1, 1000)
\set other random(1, 1000)
\set asset random(1, 50)
\set txn random(1, 2000000000)
\set qty random(1, 100)
-- chr(58) is ':' (pgbench would take a literal :name for one of its variables)
SELECT item_table.transact_write_items(('{"TransactItems": [
 {"Put": {"TableName": "register", "Item": {"PK": {"S": "ACCOUNT#' || :acct || '"}, "SK": {"S": "STOCKPOSTING#' || :asset || '#' || :txn || '#B"}, "Quantity": {"N": "' || :qty || '"}, "Cost": {"N": "' || :qty || '.25"}, "TxnId": {"S": "' || :txn || '"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Put": {"TableName": "register", "Item": {"PK": {"S": "ACCOUNT#' || :other || '"}, "SK": {"S": "STOCKPOSTING#' || :asset || '#' || :txn || '#S"}, "Quantity": {"N": "-' || :qty || '"}, "Cost": {"N": "-' || :qty || '.25"}, "TxnId": {"S": "' || :txn || '"}}, "ConditionExpression": "attribute_not_exists(PK)"}}]}')::jsonb);
