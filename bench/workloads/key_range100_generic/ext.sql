\set p random(0, :scale / 100 - 1)
SELECT v FROM bench_ik WHERE key OPERATOR(item_table.^@) ('S"USER#' || :p || '"')::item_table.item_key ORDER BY key;
