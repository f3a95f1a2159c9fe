-- Query and Scan
CREATE FUNCTION query(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_query' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION query(jsonb) IS 'DynamoDB Query';
CREATE FUNCTION scan(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_scan' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION scan(jsonb) IS 'DynamoDB Scan (also one segment of a parallel scan)';

-- What a request runs: its key range and the plan of its statement
CREATE FUNCTION explain_query(request jsonb) RETURNS SETOF text
	AS 'MODULE_PATHNAME', 'item_table_explain_query' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION explain_query(jsonb) IS
	'the key range and the plan (EXPLAIN, COSTS OFF) a Query request runs; reads nothing';
CREATE FUNCTION explain_scan(request jsonb) RETURNS SETOF text
	AS 'MODULE_PATHNAME', 'item_table_explain_scan' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION explain_scan(jsonb) IS
	'the key range and the plan (EXPLAIN, COSTS OFF) a Scan request runs; reads nothing';

-- SQL-native access: an item collection as rows
CREATE FUNCTION item_collection(table_name text, partition_value jsonb,
								sort_prefix jsonb DEFAULT NULL,
								scan_forward boolean DEFAULT true)
	RETURNS TABLE (key item_key, item jsonb)
	AS 'MODULE_PATHNAME', 'item_table_item_collection'
	LANGUAGE C STABLE PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION item_collection(text, jsonb, jsonb, boolean) IS
	'the items of one partition of a DynamoDB table (those whose sort key begins with sort_prefix, when given) in key order (descending when scan_forward is false)';

-- Parallel scan segments
CREATE FUNCTION item_key_segment(key item_key, total_segments integer) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION item_key_segment(item_key, integer) IS
	'the parallel-scan segment (0 .. total_segments - 1) of a key: a hash of its partition part, so an item collection lies in one segment';
