SELECT pg_relation_size('bench_selftest_pkey'), pg_relation_size('bench_selftest');
