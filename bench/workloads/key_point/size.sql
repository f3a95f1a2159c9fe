SELECT pg_relation_size('bench_ik_pkey'), pg_relation_size('bench_tt_pkey');
