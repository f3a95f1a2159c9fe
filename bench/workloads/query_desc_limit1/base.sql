\set id random(0, :scale / 200 - 1)
SELECT key, item FROM item_data.qbench WHERE key OPERATOR(item_table.>=) ('S"P100#' || :id || '"')::item_table.item_key AND key OPERATOR(item_table.<) ('S"P100#' || :id || '"|~')::item_table.item_key ORDER BY key DESC LIMIT 1;
