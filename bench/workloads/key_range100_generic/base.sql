\set p random(0, :scale / 100 - 1)
SELECT v FROM bench_tt WHERE pk = 'USER#' || :p ORDER BY pk, sk;
