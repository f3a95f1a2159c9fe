\set acct random(1, 1000)
\set other random(1, 1000)
\set asset random(1, 50)
\set txn random(1, 2000000000)
\set qty random(1, 100)
-- the same two writes as one statement (one round trip, like the API call);
-- a duplicate key fails the whole statement as the conditions fail the call
INSERT INTO register_plain VALUES
 (('S"ACCOUNT#' || :acct || '"|S"STOCKPOSTING#' || :asset || '#' || :txn || '#B"')::item_table.item_key, ('{"PK": {"S": "ACCOUNT#' || :acct || '"}, "SK": {"S": "STOCKPOSTING#' || :asset || '#' || :txn || '#B"}, "Quantity": {"N": "' || :qty || '"}, "Cost": {"N": "' || :qty || '.25"}, "TxnId": {"S": "' || :txn || '"}}')::jsonb),
 (('S"ACCOUNT#' || :other || '"|S"STOCKPOSTING#' || :asset || '#' || :txn || '#S"')::item_table.item_key, ('{"PK": {"S": "ACCOUNT#' || :other || '"}, "SK": {"S": "STOCKPOSTING#' || :asset || '#' || :txn || '#S"}, "Quantity": {"N": "-' || :qty || '"}, "Cost": {"N": "-' || :qty || '.25"}, "TxnId": {"S": "' || :txn || '"}}')::jsonb);
