-- ---------------------------------------------------------------------
-- The DynamoDB API: catalog and one function per operation.
-- ---------------------------------------------------------------------

-- Physical tables live here, one per DynamoDB table, named after it.
CREATE SCHEMA item_data;
COMMENT ON SCHEMA item_data IS 'item_table: one physical table per DynamoDB table (key item_key, item jsonb)';
-- USAGE only: a role that is to create tables through the API is granted
-- CREATE on item_data by an administrator (see docs/security.md).
GRANT USAGE ON SCHEMA item_data TO PUBLIC;

-- The catalog.  Written only by the API functions (as the extension owner,
-- after checking the caller's rights on the physical table); readable by
-- everyone, like PostgreSQL's own catalogs.
CREATE TABLE tables (
	table_name text COLLATE "C" PRIMARY KEY,
	table_id uuid NOT NULL,
	relid regclass NOT NULL,
	hash_key text NOT NULL,
	hash_type text NOT NULL CHECK (hash_type IN ('S', 'N', 'B')),
	range_key text,
	range_type text CHECK (range_type IN ('S', 'N', 'B')),
	billing_mode text NOT NULL,
	read_capacity bigint NOT NULL DEFAULT 0,
	write_capacity bigint NOT NULL DEFAULT 0,
	created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	deletion_protection boolean NOT NULL DEFAULT false,
	table_class text CHECK (table_class IN ('STANDARD', 'STANDARD_INFREQUENT_ACCESS')),
	table_class_updated_at timestamptz,
	pay_per_request_at timestamptz,	-- last switch to PAY_PER_REQUEST (UpdateTable)
	CHECK ((range_key IS NULL) = (range_type IS NULL))
);
COMMENT ON TABLE tables IS 'item_table catalog: DynamoDB tables, their key schema and physical table';
SELECT pg_catalog.pg_extension_config_dump('tables', '');
REVOKE ALL ON tables FROM PUBLIC;
GRANT SELECT ON tables TO PUBLIC;

-- Table operations
CREATE FUNCTION create_table(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_create_table' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION create_table(jsonb) IS 'DynamoDB CreateTable';
CREATE FUNCTION describe_table(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_describe_table' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION describe_table(jsonb) IS 'DynamoDB DescribeTable';
CREATE FUNCTION delete_table(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_delete_table' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION delete_table(jsonb) IS 'DynamoDB DeleteTable';
CREATE FUNCTION list_tables(request jsonb DEFAULT '{}') RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_list_tables' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION list_tables(jsonb) IS 'DynamoDB ListTables';


-- Every role may call the API; what it may do is decided by its rights on
-- the physical tables (the functions run as the caller).
GRANT USAGE ON SCHEMA item_table TO PUBLIC;

-- A plain DROP TABLE of an item table (or index table) removes its catalog
-- rows in the same transaction.
CREATE FUNCTION on_sql_drop() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'item_table_on_sql_drop' LANGUAGE C;
COMMENT ON FUNCTION on_sql_drop() IS 'event trigger: forget item tables and index tables dropped by plain DDL';
CREATE EVENT TRIGGER item_table_sql_drop ON sql_drop EXECUTE FUNCTION on_sql_drop();
