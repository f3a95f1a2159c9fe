\set a random(1, 1000)
\set s random(1, 50)
SELECT jsonb_agg(to_jsonb(p) ORDER BY p.ts DESC, p.txn_id DESC) FROM rel_postings p WHERE p.account_id = :a AND p.asset_id = 'AS' || :s;
