\set b random(1, 1000)
\set s 1 + (:b % 1000)
\set asset random(1, 50)
\set q random(1, 100)
\set txn random(1, 2000000000)
-- the trade's four writes as one statement (one round trip, like the API call)
WITH p AS (
  INSERT INTO rel_postings VALUES (:b, 'AS' || :asset, '2025-01-01T00:00:00Z', 'X' || :txn, :q, :q + 0.5),
                                  (:s, 'AS' || :asset, '2025-01-01T00:00:00Z', 'Y' || :txn, 0 - :q, 0 - :q - 0.5) RETURNING 1),
bal AS (
  INSERT INTO rel_balances VALUES (:b, 'AS' || :asset, :q, :q + 0.5), (:s, 'AS' || :asset, 0 - :q, 0 - :q - 0.5)
  ON CONFLICT (account_id, asset_id) DO UPDATE SET quantity = rel_balances.quantity + EXCLUDED.quantity, net_expenditure = rel_balances.net_expenditure + EXCLUDED.net_expenditure RETURNING 1)
SELECT (SELECT count(*) FROM p) + (SELECT count(*) FROM bal);
