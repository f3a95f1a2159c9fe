\set id random(0, :scale / 200 - 1)
\set d random(0, 9)
SELECT key, item FROM item_data.qbench WHERE key OPERATOR(item_table.^@) ('S"P100#' || :id || '"|S"ITEM#00' || :d || '"')::item_table.item_key ORDER BY key;
