-- SearchVectors workload: a table "vecb" (pk S) with a 128-dimension
-- EUCLIDEAN vector index (pgvector HNSW, default settings) over :scale
-- random items, loaded through the physical table (the vector index
-- trigger fills the index table), and 100 query vectors.  Baseline: the
-- same pgvector query written by hand on the index table, its rows joined
-- with their items (view vecb_plain).
-- Needs pgvector (CREATE EXTENSION vector).
CREATE EXTENSION IF NOT EXISTS vector;
SELECT item_table.delete_table('{"TableName": "vecb"}') FROM item_table.tables WHERE table_name = 'vecb';
SELECT item_table.create_table('{"TableName": "vecb", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"VectorIndexes": [{"IndexName": "emb-idx", "VectorAttribute": {"AttributeName": "emb"},
		"Dimensions": 128, "DistanceFunction": "EUCLIDEAN", "Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;
SELECT setseed(0.5);
INSERT INTO item_data.vecb (key, item)
SELECT item_table.item_key(jsonb_build_object('S', 'DOC#' || g)),
	   jsonb_build_object('pk', jsonb_build_object('S', 'DOC#' || g),
		'emb', jsonb_build_object('L', (SELECT jsonb_agg(jsonb_build_object('N', round(random()::numeric, 5)::text))
										   FROM generate_series(1, 128) WHERE g > 0)))
FROM generate_series(1, :scale) g;
DROP TABLE IF EXISTS vecb_queries;
CREATE TABLE vecb_queries AS
SELECT q AS id, v, jsonb_build_object('TableName', 'vecb', 'IndexName', 'emb-idx', 'TopK', 10,
		'SearchVector', (SELECT jsonb_agg(jsonb_build_object('N', x::text)) FROM unnest(v) x)) AS request
  FROM (SELECT q, (SELECT array_agg(round(random()::numeric, 5)::real) FROM generate_series(1, 128) WHERE q > 0) AS v
		  FROM generate_series(1, 100) q) s;
ALTER TABLE vecb_queries ADD PRIMARY KEY (id);
-- the index table's vectors beside the items (the index rows hold no copy
-- of the item: SearchVectors reads the items it finds from the item table too)
SELECT format('CREATE OR REPLACE VIEW vecb_plain AS SELECT v.key, v.embedding, b.item FROM %s v'
			  ' JOIN item_data.vecb b ON b.key OPERATOR(item_table.=) v.key', relid)
  FROM item_table.vector_indexes WHERE table_name = 'vecb' \gexec
-- the written vectors wait in pending: into the HNSW graph before measuring
-- (built at once by CREATE INDEX, in memory)
SET maintenance_work_mem = '1GB';
CALL item_table.backfill_indexes('vecb');
VACUUM ANALYZE item_data.vecb;
ANALYZE vecb_queries;
