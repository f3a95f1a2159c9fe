-- selftest: a tiny plain table, only to exercise the benchmark harness.
DROP TABLE IF EXISTS bench_selftest;
CREATE TABLE bench_selftest (id int PRIMARY KEY, v text NOT NULL);
INSERT INTO bench_selftest SELECT g, md5(g::text) FROM generate_series(1, 10000) AS g;
