-- item_table install script, assembled from src/sql/*.sql at build time.

\echo Use "CREATE EXTENSION item_table" to load this file. \quit
-- ---------------------------------------------------------------------
-- item_key: the composite DynamoDB key (partition part + optional sort
-- part), encoded so that byte order is DynamoDB's order.
-- ---------------------------------------------------------------------

-- Type and I/O
CREATE TYPE item_key;

CREATE FUNCTION item_key_in(cstring) RETURNS item_key
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_out(item_key) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_recv(internal) RETURNS item_key
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_send(item_key) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION item_key_analyze(internal) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE TYPE item_key (
	INPUT = item_key_in,
	ANALYZE = item_key_analyze,
	OUTPUT = item_key_out,
	RECEIVE = item_key_recv,
	SEND = item_key_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = extended
);
COMMENT ON TYPE item_key IS
	'DynamoDB composite key: partition part and optional sort part (S, N or B), ordered as DynamoDB orders them';

-- Constructors and accessors
CREATE FUNCTION item_key(partition_value jsonb) RETURNS item_key
	AS 'MODULE_PATHNAME', 'item_key_from_values'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION item_key(jsonb) IS
	'partition-only key from a DynamoDB attribute value such as {"S": "USER#1"}';

CREATE FUNCTION item_key(partition_value jsonb, sort_value jsonb) RETURNS item_key
	AS 'MODULE_PATHNAME', 'item_key_from_values'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION item_key(jsonb, jsonb) IS
	'key from DynamoDB attribute values; a NULL sort value gives a partition-only key';

CREATE FUNCTION partition_value(item_key) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_key_partition_value'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION partition_value(item_key) IS
	'the partition part as a DynamoDB attribute value';

CREATE FUNCTION sort_value(item_key) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_key_sort_value'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sort_value(item_key) IS
	'the sort part as a DynamoDB attribute value, or NULL when the key has none';

CREATE FUNCTION partition_key(item_key) RETURNS item_key
	AS 'MODULE_PATHNAME', 'item_key_partition_key'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION partition_key(item_key) IS
	'the key without its sort part (the first position of its partition)';

-- Comparison functions
CREATE FUNCTION item_key_cmp(item_key, item_key) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_lt(item_key, item_key) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION item_key_le(item_key, item_key) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION item_key_eq(item_key, item_key) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION item_key_ne(item_key, item_key) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION item_key_ge(item_key, item_key) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION item_key_gt(item_key, item_key) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION item_key_sortsupport(internal) RETURNS void
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_hash(item_key) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_hash_extended(item_key, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- begins_with and its planner support
CREATE FUNCTION item_key_begins_with_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_prefix_sel(internal, oid, internal, integer) RETURNS float8
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_prefix_upper(item_key) RETURNS item_key
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION item_key_prefix_upper(item_key) IS
	'exclusive upper bound of the keys that begin with the given prefix (used in index conditions)';

CREATE FUNCTION begins_with(key item_key, prefix item_key) RETURNS boolean
	AS 'MODULE_PATHNAME', 'item_key_begins_with'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT item_key_begins_with_support;
COMMENT ON FUNCTION begins_with(item_key, item_key) IS
	'true when key is in the partition of prefix and, if prefix has a string or binary sort part, key''s sort part begins with it';

-- Operators
CREATE OPERATOR < (
	LEFTARG = item_key, RIGHTARG = item_key, PROCEDURE = item_key_lt,
	COMMUTATOR = >, NEGATOR = >=,
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
	LEFTARG = item_key, RIGHTARG = item_key, PROCEDURE = item_key_le,
	COMMUTATOR = >=, NEGATOR = >,
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
	LEFTARG = item_key, RIGHTARG = item_key, PROCEDURE = item_key_eq,
	COMMUTATOR = =, NEGATOR = <>,
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
	LEFTARG = item_key, RIGHTARG = item_key, PROCEDURE = item_key_ne,
	COMMUTATOR = <>, NEGATOR = =,
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR >= (
	LEFTARG = item_key, RIGHTARG = item_key, PROCEDURE = item_key_ge,
	COMMUTATOR = <=, NEGATOR = <,
	RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
	LEFTARG = item_key, RIGHTARG = item_key, PROCEDURE = item_key_gt,
	COMMUTATOR = <, NEGATOR = <=,
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR ^@ (
	LEFTARG = item_key, RIGHTARG = item_key, PROCEDURE = begins_with,
	RESTRICT = item_key_prefix_sel, JOIN = contjoinsel
);
COMMENT ON OPERATOR ^@ (item_key, item_key) IS 'begins_with: key is in the prefix''s partition and its sort part starts with the prefix''s';

-- Operator classes
CREATE OPERATOR CLASS item_key_ops
	DEFAULT FOR TYPE item_key USING btree AS
		OPERATOR 1 <,
		OPERATOR 2 <=,
		OPERATOR 3 =,
		OPERATOR 4 >=,
		OPERATOR 5 >,
		FUNCTION 1 item_key_cmp(item_key, item_key),
		FUNCTION 2 item_key_sortsupport(internal),
		FUNCTION 4 btequalimage(oid);
COMMENT ON OPERATOR CLASS item_key_ops USING btree IS
	'DynamoDB key order; begins_with becomes an index range through planner support';

CREATE OPERATOR CLASS item_key_hash_ops
	DEFAULT FOR TYPE item_key USING hash AS
		OPERATOR 1 =,
		FUNCTION 1 item_key_hash(item_key),
		FUNCTION 2 item_key_hash_extended(item_key, bigint);
COMMENT ON OPERATOR CLASS item_key_hash_ops USING hash IS
	'hashes only the partition part, so every item of a partition hashes alike';
-- ---------------------------------------------------------------------
-- GiST operator class for item_key (src/key_gist.c): a range tree over
-- the key encoding.  Supports the comparison operators, <> and begins_with
-- (^@); leaf entries are exact keys, so no recheck and index-only scans.
-- ---------------------------------------------------------------------

CREATE FUNCTION item_key_gist_consistent(internal, item_key, smallint, oid, internal)
	RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_union(internal, internal) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_compress(internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_decompress(internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_penalty(internal, internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_picksplit(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_same(bytea, bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_fetch(internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_sortsupport(internal) RETURNS void
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR CLASS item_key_gist_ops
	DEFAULT FOR TYPE item_key USING gist AS
		OPERATOR 1 <,
		OPERATOR 2 <=,
		OPERATOR 3 =,
		OPERATOR 4 >=,
		OPERATOR 5 >,
		OPERATOR 6 <>,
		OPERATOR 28 ^@,
		FUNCTION 1 item_key_gist_consistent(internal, item_key, smallint, oid, internal),
		FUNCTION 2 item_key_gist_union(internal, internal),
		FUNCTION 3 item_key_gist_compress(internal),
		FUNCTION 4 item_key_gist_decompress(internal),
		FUNCTION 5 item_key_gist_penalty(internal, internal, internal),
		FUNCTION 6 item_key_gist_picksplit(internal, internal),
		FUNCTION 7 item_key_gist_same(bytea, bytea, internal),
		FUNCTION 9 item_key_gist_fetch(internal),
		FUNCTION 11 item_key_gist_sortsupport(internal),
		STORAGE bytea;
COMMENT ON OPERATOR CLASS item_key_gist_ops USING gist IS
	'range tree over DynamoDB key order: <, <=, =, >=, >, <> and begins_with (^@); exact, supports index-only scans and sorted builds';
-- ---------------------------------------------------------------------
-- Attribute values and items in DynamoDB JSON
-- ---------------------------------------------------------------------
CREATE FUNCTION normalize_item(item jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_normalize_item'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION normalize_item(jsonb) IS
	'validate an item in DynamoDB JSON as PutItem does and return its canonical form';

CREATE FUNCTION item_size(item jsonb) RETURNS bigint
	AS 'MODULE_PATHNAME', 'item_table_item_size'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION item_size(jsonb) IS
	'size of an item in bytes by DynamoDB''s formula (the 400 KB limit is 409600)';
-- ---------------------------------------------------------------------
-- DynamoDB expressions
-- ---------------------------------------------------------------------
CREATE FUNCTION explain_expression(kind text, expression text,
								   names jsonb DEFAULT NULL, vals jsonb DEFAULT NULL)
	RETURNS text
	AS 'MODULE_PATHNAME', 'item_table_explain_expression'
	LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION explain_expression(text, text, jsonb, jsonb) IS
	'parse a DynamoDB expression (kind: ConditionExpression, FilterExpression, KeyConditionExpression, UpdateExpression or ProjectionExpression) with its ExpressionAttributeNames/Values as DynamoDB would, and show how it reads: precedence, resolved names and values; raises DynamoDB''s ValidationException for an invalid one';
-- ---------------------------------------------------------------------
-- Expression evaluation over items in DynamoDB JSON: conditions,
-- projections and updates, with DynamoDB's semantics.  names and vals are
-- ExpressionAttributeNames / ExpressionAttributeValues (NULL when unused).
-- ---------------------------------------------------------------------
CREATE FUNCTION evaluate_condition(item jsonb, expression text,
								   names jsonb DEFAULT NULL, vals jsonb DEFAULT NULL)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'item_table_evaluate_condition'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION evaluate_condition(jsonb, text, jsonb, jsonb) IS
	'evaluate a DynamoDB condition or filter expression against an item (a missing item is {}); NULL if item or expression is NULL';

CREATE FUNCTION project_item(item jsonb, projection text, names jsonb DEFAULT NULL)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_project_item'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION project_item(jsonb, text, jsonb) IS
	'the attributes of an item named by a DynamoDB ProjectionExpression, nested as in the item; NULL if item or projection is NULL';

CREATE FUNCTION apply_update(item jsonb, update_expression text,
							 names jsonb DEFAULT NULL, vals jsonb DEFAULT NULL,
							 item_exists boolean DEFAULT true)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_apply_update'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION apply_update(jsonb, text, jsonb, jsonb, boolean) IS
	'the item after a DynamoDB UpdateExpression (item_exists => false: item holds only the key of a missing item); NULL if item or expression is NULL';

CREATE FUNCTION updated_attributes(item jsonb, update_expression text,
								   names jsonb DEFAULT NULL, vals jsonb DEFAULT NULL,
								   new_values boolean DEFAULT true)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_updated_attributes'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION updated_attributes(jsonb, text, jsonb, jsonb, boolean) IS
	'what ReturnValues UPDATED_NEW (new_values => true) or UPDATED_OLD reports for an update of an item; {} when DynamoDB returns no Attributes';
-- ---------------------------------------------------------------------
-- The DynamoDB API: catalog and one function per operation.
-- ---------------------------------------------------------------------

-- Physical tables live here, one per DynamoDB table, named after it.
CREATE SCHEMA item_data;
COMMENT ON SCHEMA item_data IS 'item_table: one physical table per DynamoDB table (key item_key, item jsonb)';
-- USAGE only: a role that is to create tables through the API is granted
-- CREATE on item_data by an administrator (see README, Security).
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

-- ---------------------------------------------------------------------
-- Guards: what plain SQL writes to an item table is a DynamoDB item, and
-- DDL keeps the shape of item and index tables (see item_guard.c)
-- ---------------------------------------------------------------------

-- BEFORE INSERT OR UPDATE row trigger on every base table (CreateTable
-- installs it): validates the row, fills in a NULL key, stores the item in
-- stored form; 23514 when the row is not a valid item of the table.
CREATE FUNCTION item_guard() RETURNS trigger
	AS 'MODULE_PATHNAME', 'item_table_item_guard' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION item_guard() IS
	'validates items written to an item table with plain SQL (DynamoDB item, key attributes, key column) and stores them in stored form';

-- Refuses (42P16) DDL that would change what the C code relies on: the
-- key/item columns, the primary key, the guard trigger, inheritance.
CREATE FUNCTION ddl_guard() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'item_table_ddl_guard' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ddl_guard() IS
	'refuses DDL that would change the columns, primary key or guard trigger of an item table or index table';

CREATE EVENT TRIGGER item_table_ddl_guard ON ddl_command_end
	WHEN TAG IN ('ALTER TABLE', 'CREATE TABLE', 'CREATE TRIGGER', 'ALTER TRIGGER', 'CREATE RULE')
	EXECUTE FUNCTION ddl_guard();
COMMENT ON EVENT TRIGGER item_table_ddl_guard IS
	'item_table: keeps the shape of item and index tables';
CREATE EVENT TRIGGER item_table_drop_guard ON sql_drop
	WHEN TAG IN ('DROP TRIGGER')
	EXECUTE FUNCTION ddl_guard();
COMMENT ON EVENT TRIGGER item_table_drop_guard IS
	'item_table: keeps the guard trigger of item tables';
-- Item operations
CREATE FUNCTION put_item(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_put_item' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION put_item(jsonb) IS 'DynamoDB PutItem';
CREATE FUNCTION get_item(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_get_item' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION get_item(jsonb) IS 'DynamoDB GetItem';
CREATE FUNCTION delete_item(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_delete_item' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION delete_item(jsonb) IS 'DynamoDB DeleteItem';
CREATE FUNCTION update_item(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_update_item' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION update_item(jsonb) IS 'DynamoDB UpdateItem';

-- One entry point for every operation, by DynamoDB action name
CREATE FUNCTION dynamodb(action text, request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_dynamodb' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION dynamodb(text, jsonb) IS
	'dispatch a DynamoDB API request by action name (''PutItem'', ''Query'', ...); unknown actions raise UnknownOperationException';

-- Batches and transactions
CREATE FUNCTION batch_get_item(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_batch_get_item' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION batch_get_item(jsonb) IS 'DynamoDB BatchGetItem';
CREATE FUNCTION batch_write_item(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_batch_write_item' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION batch_write_item(jsonb) IS 'DynamoDB BatchWriteItem';
CREATE FUNCTION transact_get_items(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_transact_get_items' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION transact_get_items(jsonb) IS 'DynamoDB TransactGetItems (one snapshot for every read)';
CREATE FUNCTION transact_write_items(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_transact_write_items' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION transact_write_items(jsonb) IS 'DynamoDB TransactWriteItems (all or nothing, inside the caller''s transaction)';

-- ClientRequestToken memory for TransactWriteItems (10 minutes)
CREATE TABLE transaction_tokens (
	role_id oid NOT NULL,		-- the role that used the token (tokens are per role)
	token text COLLATE "C" NOT NULL,
	request_hash text NOT NULL,
	created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	PRIMARY KEY (role_id, token)
);
COMMENT ON TABLE transaction_tokens IS 'item_table: recent TransactWriteItems ClientRequestTokens and a hash of their requests';
REVOKE ALL ON transaction_tokens FROM PUBLIC;

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
	'fill the indexes that UpdateTable created (status CREATING) from existing items, committing every batch, then mark them ACTIVE';

CREATE FUNCTION update_table(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_update_table' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION update_table(jsonb) IS 'DynamoDB UpdateTable (GlobalSecondaryIndexUpdates Create/Delete, billing, throughput)';
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
