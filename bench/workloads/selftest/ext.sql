\set id random(1, 10000)
SELECT v FROM bench_selftest WHERE id = :id;
