\set acct random(1, 1000)
\set other random(1, 1000)
\set asset random(1, 50)
\set txn random(1, 2000000000)
\set qty random(1, 100)
BEGIN;
INSERT INTO register_plain VALUES (('S"ACCOUNT#' || :acct || '"|S"STOCKPOSTING#' || :asset || '#' || :txn || '#B"')::item_table.item_key, ('{"PK": {"S": "ACCOUNT#' || :acct || '"}, "SK": {"S": "STOCKPOSTING#' || :asset || '#' || :txn || '#B"}, "Quantity": {"N": "' || :qty || '"}, "Cost": {"N": "' || :qty || '.25"}, "TxnId": {"S": "' || :txn || '"}}')::jsonb);
INSERT INTO register_plain VALUES (('S"ACCOUNT#' || :other || '"|S"STOCKPOSTING#' || :asset || '#' || :txn || '#S"')::item_table.item_key, ('{"PK": {"S": "ACCOUNT#' || :other || '"}, "SK": {"S": "STOCKPOSTING#' || :asset || '#' || :txn || '#S"}, "Quantity": {"N": "-' || :qty || '"}, "Cost": {"N": "-' || :qty || '.25"}, "TxnId": {"S": "' || :txn || '"}}')::jsonb);
COMMIT;
