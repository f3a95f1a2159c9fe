-- item_key vs a two-column text key (COLLATE "C"), same data:
-- :scale items in partitions of 100 (USER#<n> / ORDER#<6 digits>).
DROP TABLE IF EXISTS bench_ik, bench_tt;
CREATE TABLE bench_tt (pk text COLLATE "C", sk text COLLATE "C", v int NOT NULL);
CREATE TABLE bench_ik (key item_table.item_key NOT NULL, v int NOT NULL);
INSERT INTO bench_tt
SELECT 'USER#' || (g / 100), 'ORDER#' || lpad((g % 100)::text, 6, '0'), g
FROM generate_series(0, :scale - 1) g;
INSERT INTO bench_ik
SELECT item_table.item_key(jsonb_build_object('S', pk), jsonb_build_object('S', sk)), v
FROM bench_tt;
-- keys added after loading: both indexes get a sorted build, so their
-- sizes compare the encodings, not the order the rows arrived in
ALTER TABLE bench_tt ADD PRIMARY KEY (pk, sk);
ALTER TABLE bench_ik ADD PRIMARY KEY (key);
VACUUM ANALYZE bench_tt;
VACUUM ANALYZE bench_ik;
