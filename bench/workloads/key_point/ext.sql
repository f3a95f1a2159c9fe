\set p random(0, :scale / 100 - 1)
\set o random(0, 99)
SELECT v FROM bench_ik WHERE key OPERATOR(item_table.=) ('S"USER#' || :p || '"|S"ORDER#' || lpad(:o::text, 6, '0') || '"')::item_table.item_key;
