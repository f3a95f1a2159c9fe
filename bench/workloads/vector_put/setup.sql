-- PutItem with a vector index: a table "vecp" (pk S) with a 128-dimension
-- EUCLIDEAN vector index (pgvector HNSW, default settings) over :scale
-- random items, and "vecp_none", the same table and items without the
-- vector index, and 100 random vectors to write.  Unlike most workloads,
-- the baseline here is the same PutItem on the table without the index
-- (the cost of the index is what is measured).  Needs pgvector.
CREATE EXTENSION IF NOT EXISTS vector;
SELECT item_table.delete_table(jsonb_build_object('TableName', table_name)) FROM item_table.tables
 WHERE table_name IN ('vecp', 'vecp_none');
SELECT item_table.create_table('{"TableName": "vecp", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"VectorIndexes": [{"IndexName": "emb-idx", "VectorAttribute": {"AttributeName": "emb"},
		"Dimensions": 128, "DistanceFunction": "EUCLIDEAN", "Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;
SELECT item_table.create_table('{"TableName": "vecp_none", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
SELECT setseed(0.25);
CREATE TEMP TABLE vecp_src AS
SELECT g, jsonb_build_object('pk', jsonb_build_object('S', 'DOC#' || g),
	'emb', jsonb_build_object('L', (SELECT jsonb_agg(jsonb_build_object('N', round(random()::numeric, 5)::text))
									   FROM generate_series(1, 128) WHERE g > 0))) AS item
  FROM generate_series(1, :scale) g;
INSERT INTO item_data.vecp (key, item) SELECT item_table.item_key(item -> 'pk'), item FROM vecp_src;
INSERT INTO item_data.vecp_none (key, item) SELECT item_table.item_key(item -> 'pk'), item FROM vecp_src;
DROP TABLE IF EXISTS vecp_vectors;
CREATE TABLE vecp_vectors AS
SELECT q AS id, jsonb_build_object('L', (SELECT jsonb_agg(jsonb_build_object('N', round(random()::numeric, 5)::text))
										   FROM generate_series(1, 128) WHERE q > 0)) AS emb
  FROM generate_series(1, 100) q;
ALTER TABLE vecp_vectors ADD PRIMARY KEY (id);
-- the written vectors wait in pending: into the HNSW graph before measuring
-- (built at once by CREATE INDEX, in memory)
SET maintenance_work_mem = '1GB';
CALL item_table.backfill_indexes('vecp');
VACUUM ANALYZE item_data.vecp;
VACUUM ANALYZE item_data.vecp_none;
ANALYZE vecp_vectors;
