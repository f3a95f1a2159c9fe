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
