\set b random(1, 1000)
\set s 1 + (:b % 1000)
\set asset random(1, 50)
\set q random(1, 100)
\set txn random(1, 2000000000)
BEGIN;
INSERT INTO rel_postings VALUES (:b, 'AS' || :asset, '2025-01-01T00:00:00Z', 'X' || :txn, :q, :q + 0.5);
INSERT INTO rel_postings VALUES (:s, 'AS' || :asset, '2025-01-01T00:00:00Z', 'Y' || :txn, 0 - :q, 0 - :q - 0.5);
INSERT INTO rel_balances VALUES (:b, 'AS' || :asset, :q, :q + 0.5)
	ON CONFLICT (account_id, asset_id) DO UPDATE SET quantity = rel_balances.quantity + EXCLUDED.quantity, net_expenditure = rel_balances.net_expenditure + EXCLUDED.net_expenditure;
INSERT INTO rel_balances VALUES (:s, 'AS' || :asset, 0 - :q, 0 - :q - 0.5)
	ON CONFLICT (account_id, asset_id) DO UPDATE SET quantity = rel_balances.quantity + EXCLUDED.quantity, net_expenditure = rel_balances.net_expenditure + EXCLUDED.net_expenditure;
COMMIT;
