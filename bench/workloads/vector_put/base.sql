\set id random(2000000000, 9000000000000000000)
\set q random(1, 100)
SELECT item_table.put_item(jsonb_build_object('TableName', 'vecp_none', 'Item',
	jsonb_build_object('pk', jsonb_build_object('S', 'DOC#' || :id), 'emb', emb))) FROM vecp_vectors WHERE id = :q;
