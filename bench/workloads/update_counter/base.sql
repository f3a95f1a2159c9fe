\set id random(1, :scale)
UPDATE item_data.bench SET item = jsonb_set(item, '{n,N}', to_jsonb(((item->'n'->>'N')::numeric + 1)::text)) WHERE key OPERATOR(item_table.=) ('S"USER#' || :id || '"')::item_table.item_key;
