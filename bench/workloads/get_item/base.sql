\set id random(1, :scale)
SELECT item FROM item_data.bench WHERE key OPERATOR(item_table.=) ('S"USER#' || :id || '"')::item_table.item_key;
