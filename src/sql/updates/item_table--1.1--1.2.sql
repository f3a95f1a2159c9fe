-- item_table 1.1 -> 1.2
--
-- An installation updated with ALTER EXTENSION item_table UPDATE ends with
-- the same objects as a fresh 1.2 installation (test/upgrade checks it).
-- Each part below adds what one feature of 1.2 needs.

\echo Use "ALTER EXTENSION item_table UPDATE TO '1.2'" to load this file. \quit

-- control plane (tags, deletion protection, table class, limits, endpoints,
-- continuous backups)
ALTER TABLE tables
	ADD COLUMN deletion_protection boolean NOT NULL DEFAULT false,
	ADD COLUMN table_class text CHECK (table_class IN ('STANDARD', 'STANDARD_INFREQUENT_ACCESS')),
	ADD COLUMN table_class_updated_at timestamptz;

CREATE TABLE tags (
	table_name text COLLATE "C" NOT NULL
		REFERENCES tables (table_name) ON DELETE CASCADE,
	tag_key text COLLATE "C" NOT NULL,
	tag_value text NOT NULL,
	PRIMARY KEY (table_name, tag_key)
);
COMMENT ON TABLE tags IS 'item_table catalog: tags of tables (TagResource)';
SELECT pg_catalog.pg_extension_config_dump('tags', '');
REVOKE ALL ON tags FROM PUBLIC;
GRANT SELECT ON tags TO PUBLIC;

CREATE FUNCTION tag_resource(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_tag_resource' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION tag_resource(jsonb) IS 'DynamoDB TagResource';
CREATE FUNCTION untag_resource(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_untag_resource' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION untag_resource(jsonb) IS 'DynamoDB UntagResource';
CREATE FUNCTION list_tags_of_resource(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_list_tags_of_resource' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION list_tags_of_resource(jsonb) IS 'DynamoDB ListTagsOfResource';
CREATE FUNCTION describe_limits(request jsonb DEFAULT '{}') RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_describe_limits' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION describe_limits(jsonb) IS 'DynamoDB DescribeLimits';
CREATE FUNCTION describe_endpoints(request jsonb DEFAULT '{}') RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_describe_endpoints' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION describe_endpoints(jsonb) IS 'DynamoDB DescribeEndpoints';
CREATE FUNCTION describe_continuous_backups(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_describe_continuous_backups' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION describe_continuous_backups(jsonb) IS 'DynamoDB DescribeContinuousBackups';

-- PartiQL
CREATE FUNCTION execute_statement(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_execute_statement' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION execute_statement(jsonb) IS 'DynamoDB ExecuteStatement (PartiQL)';
CREATE FUNCTION batch_execute_statement(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_batch_execute_statement' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION batch_execute_statement(jsonb) IS 'DynamoDB BatchExecuteStatement (PartiQL; each statement succeeds or fails alone)';
CREATE FUNCTION execute_transaction(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_execute_transaction' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION execute_transaction(jsonb) IS 'DynamoDB ExecuteTransaction (PartiQL; all or nothing, inside the caller''s transaction)';
