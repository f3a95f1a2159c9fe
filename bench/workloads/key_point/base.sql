\set p random(0, :scale / 100 - 1)
\set o random(0, 99)
SELECT v FROM bench_tt WHERE pk = 'USER#' || :p AND sk = 'ORDER#' || lpad(:o::text, 6, '0');
