\set b random(1, 1000)
\set s 1 + (:b % 1000)
\set asset random(1, 50)
\set q random(1, 100)
\set txn random(1, 2000000000)
SELECT item_table.transact_write_items(('{"TransactItems": [
 {"Put": {"TableName": "Register", "Item": {"PK": {"S": "ACCOUNT#' || :b || '"}, "SK": {"S": "STOCKPOSTING#AS' || :asset || '#2025-01-01T00:00:00Z#X' || :txn || '"}, "SK2": {"S": "STOCKPOSTING#2025-01-01T00:00:00Z#X' || :txn || '"}, "AssetId": {"S": "AS' || :asset || '"}, "Quantity": {"N": "' || :q || '"}, "Cost": {"N": "' || :q || '.5"}, "TxnId": {"S": "X' || :txn || '"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Put": {"TableName": "Register", "Item": {"PK": {"S": "ACCOUNT#' || :s || '"}, "SK": {"S": "STOCKPOSTING#AS' || :asset || '#2025-01-01T00:00:00Z#Y' || :txn || '"}, "SK2": {"S": "STOCKPOSTING#2025-01-01T00:00:00Z#Y' || :txn || '"}, "AssetId": {"S": "AS' || :asset || '"}, "Quantity": {"N": "-' || :q || '"}, "Cost": {"N": "-' || :q || '.5"}, "TxnId": {"S": "Y' || :txn || '"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
 {"Update": {"TableName": "Register", "Key": {"PK": {"S": "ACCOUNT#' || :b || '"}, "SK": {"S": "STOCKBALANCE#AS' || :asset || '"}}, "UpdateExpression": "ADD Quantity ' || chr(58) || 'q, NetExpenditure ' || chr(58) || 'c", "ExpressionAttributeValues": {"' || chr(58) || 'q": {"N": "' || :q || '"}, "' || chr(58) || 'c": {"N": "' || :q || '.5"}}}},
 {"Update": {"TableName": "Register", "Key": {"PK": {"S": "ACCOUNT#' || :s || '"}, "SK": {"S": "STOCKBALANCE#AS' || :asset || '"}}, "UpdateExpression": "ADD Quantity ' || chr(58) || 'q, NetExpenditure ' || chr(58) || 'c", "ExpressionAttributeValues": {"' || chr(58) || 'q": {"N": "-' || :q || '"}, "' || chr(58) || 'c": {"N": "-' || :q || '.5"}}}}]}')::jsonb);
