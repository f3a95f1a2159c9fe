\set id random(1, 10000)
SELECT length(v) FROM bench_selftest WHERE id = :id;
