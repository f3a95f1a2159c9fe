-- The hash opclass hashes only the partition part: every item of one
-- partition hashes alike (what hash partitioning and distribution need).
SET search_path = item_table, public;

CREATE TEMP TABLE hk AS
SELECT item_key(jsonb_build_object('S', 'USER#' || (g % 200)),
				CASE WHEN g % 10 = 0 THEN NULL
					 WHEN g % 3 = 0 THEN jsonb_build_object('N', g::text)
					 ELSE jsonb_build_object('S', 'ITEM#' || g) END) AS key
FROM generate_series(1, 20000) g
UNION ALL
SELECT item_key(jsonb_build_object('N', (g % 50)::text || 'e-3'), jsonb_build_object('B', 'AP8=')) FROM generate_series(1, 1000) g
UNION ALL
SELECT item_key('{"B":"AP8A"}', jsonb_build_object('S', g::text)) FROM generate_series(1, 100) g;

-- one hash per partition, and partitions spread over many hashes
SELECT count(*) AS partitions,
	   count(*) FILTER (WHERE hashes <> 1) AS partitions_with_several_hashes
FROM (SELECT partition_key(key), count(DISTINCT item_key_hash(key)) AS hashes
	  FROM hk GROUP BY 1) s;
SELECT count(DISTINCT item_key_hash(partition_key(key))) AS distinct_partition_hashes FROM hk;

-- extended hash: seed 0 agrees with the 32-bit hash, other seeds differ
SELECT count(*) FILTER (WHERE (item_key_hash_extended(key, 0) & 4294967295)::bit(32)
						 <> item_key_hash(key)::bit(32)) AS seed0_mismatch,
	   count(*) FILTER (WHERE item_key_hash_extended(key, 1) = item_key_hash_extended(key, 0)) AS seed1_same
FROM hk;

-- hash partitioning keeps each item collection in one partition
CREATE TABLE hk_parted (key item_key PRIMARY KEY) PARTITION BY HASH (key);
CREATE TABLE hk_p0 PARTITION OF hk_parted FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE hk_p1 PARTITION OF hk_parted FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE hk_p2 PARTITION OF hk_parted FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE hk_p3 PARTITION OF hk_parted FOR VALUES WITH (MODULUS 4, REMAINDER 3);
INSERT INTO hk_parted SELECT DISTINCT key FROM hk;
SELECT count(*) AS collections_split_across_partitions
FROM (SELECT partition_key(key) FROM hk_parted GROUP BY 1 HAVING count(DISTINCT tableoid) > 1) s;
SELECT count(DISTINCT tableoid) AS partitions_used FROM hk_parted;
-- a lookup prunes to one partition
EXPLAIN (COSTS OFF) SELECT * FROM hk_parted WHERE key = 'S"USER#7"|S"ITEM#7"';

-- a hash index and hash joins work
CREATE INDEX hk_hash ON hk USING hash (key);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM hk WHERE key = 'S"USER#7"|S"ITEM#7"';
SELECT * FROM hk WHERE key = 'S"USER#7"|S"ITEM#7"';
RESET enable_seqscan;
RESET enable_bitmapscan;
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM hk a JOIN hk_parted b USING (key);
SELECT count(*) FROM hk a JOIN hk_parted b USING (key);
RESET enable_mergejoin;
RESET enable_nestloop;
DROP TABLE hk_parted;
