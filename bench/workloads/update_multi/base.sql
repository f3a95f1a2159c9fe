\set id random(1, :scale)
\set d random(1, 100)
UPDATE item_data.bench SET item = jsonb_set(jsonb_set(jsonb_set(item - 'tags', '{name}', jsonb_build_object('S', 'renamed ' || :d)),
	'{score,N}', to_jsonb(((item->'score'->>'N')::numeric + :d)::text)), '{address,M,city}', '{"S": "Shelbyville"}')
WHERE key OPERATOR(item_table.=) ('S"USER#' || :id || '"')::item_table.item_key;
