\set a random(1, 1000)
SELECT jsonb_build_object('account', to_jsonb(a),
	'balances', (SELECT jsonb_agg(to_jsonb(b) ORDER BY b.asset_id) FROM rel_balances b WHERE b.account_id = a.account_id),
	'postings', (SELECT jsonb_agg(to_jsonb(p) ORDER BY p.asset_id, p.ts, p.txn_id) FROM rel_postings p WHERE p.account_id = a.account_id))
FROM rel_accounts a WHERE a.account_id = :a;
