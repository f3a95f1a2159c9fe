
-- ---------------------------------------------------------------------
-- Secondary indexes: catalog, maintenance trigger, verification, backfill
-- ---------------------------------------------------------------------
CREATE TABLE indexes (
	table_name text COLLATE "C" NOT NULL REFERENCES tables (table_name) ON DELETE CASCADE,
	index_name text COLLATE "C" NOT NULL,
	kind text NOT NULL CHECK (kind IN ('GSI', 'LSI')),
	relid regclass NOT NULL,
	hash_key text NOT NULL,
	hash_type text NOT NULL CHECK (hash_type IN ('S', 'N', 'B')),
	range_key text,
	range_type text CHECK (range_type IN ('S', 'N', 'B')),
	projection_type text NOT NULL CHECK (projection_type IN ('ALL', 'KEYS_ONLY', 'INCLUDE')),
	non_key_attributes text[],
	element_index boolean NOT NULL DEFAULT false,
	status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('CREATING', 'ACTIVE')),
	backfilled bigint NOT NULL DEFAULT 0,
	read_capacity bigint NOT NULL DEFAULT 0,
	write_capacity bigint NOT NULL DEFAULT 0,
	created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	-- the backfill of an index being created: who fills it (the background
	-- worker, or only CALL backfill_indexes) and the key it has reached
	backfill_by text NOT NULL DEFAULT 'worker' CHECK (backfill_by IN ('worker', 'manual')),
	backfill_after item_key,
	-- a multi-attribute key schema (a GSI with more than one HASH or RANGE
	-- attribute): its KeySchema elements in order, each an object with
	-- AttributeName, KeyType and AttributeType; hash_key and range_key then
	-- name the first HASH and the first RANGE attribute.  NULL otherwise.
	key_schema jsonb,
	PRIMARY KEY (table_name, index_name),
	CHECK ((range_key IS NULL) = (range_type IS NULL))
);
COMMENT ON TABLE indexes IS 'item_table catalog: secondary indexes (GSI, LSI) and their index tables';
SELECT pg_catalog.pg_extension_config_dump('indexes', '');
REVOKE ALL ON indexes FROM PUBLIC;
GRANT SELECT ON indexes TO PUBLIC;

-- Row trigger on every table with indexes: keeps the index tables in step
-- with the base table in the same transaction (also for plain SQL writes).
CREATE FUNCTION index_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME', 'item_table_index_trigger' LANGUAGE C;
COMMENT ON FUNCTION index_trigger() IS 'maintains the secondary-index tables of an item table';

CREATE FUNCTION index_entries(table_name text, index_name text, key item_key, item jsonb)
	RETURNS TABLE (ikey item_key, projected jsonb)
	AS 'MODULE_PATHNAME', 'item_table_index_entries' LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1;
COMMENT ON FUNCTION index_entries(text, text, item_key, jsonb) IS
	'the entries an item has (or would have) in an index: index key and projected attributes';

CREATE FUNCTION verify(table_name text)
	RETURNS TABLE (index_name text, problem text, index_key item_key, base_key item_key, detail jsonb)
	AS 'MODULE_PATHNAME', 'item_table_verify' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION verify(text) IS
	'rebuild every index of a table in memory from the base items and list each mismatch (missing, extra, stale); no rows means consistent';

CREATE PROCEDURE backfill_indexes(table_name text, batch_size integer DEFAULT 1000)
	AS 'MODULE_PATHNAME', 'item_table_backfill_indexes' LANGUAGE C;
COMMENT ON PROCEDURE backfill_indexes(text, integer) IS
	'fill the indexes that UpdateTable created (status CREATING) from existing items, committing every batch, then mark them ACTIVE (resumes where the last committed batch ended)';

CREATE FUNCTION update_table(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_update_table' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION update_table(jsonb) IS 'DynamoDB UpdateTable (GlobalSecondaryIndexUpdates Create/Delete, billing, throughput)';
