\set p random(0, :scale / 100 - 1)
SELECT v FROM bench_tt WHERE (pk, sk) >= ('USER#' || :p, 'ORDER#000000') AND (pk, sk) <= ('USER#' || :p, 'ORDER#000099') ORDER BY pk, sk;
