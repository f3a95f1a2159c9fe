-- ---------------------------------------------------------------------
-- Control-plane calls beside the table operations: tags, limits,
-- endpoints (continuous backups: backup.sql).
-- ---------------------------------------------------------------------

-- Tags of tables, as TagResource sets them.  Written by the API functions
-- as the extension owner after checking that the caller owns the table;
-- readable by everyone, like the table catalog.
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
