-- ---------------------------------------------------------------------
-- JSON text forms: U+0000 in strings (src/types/nul_escape.c)
--
-- jsonb cannot hold U+0000, so item_table keeps every string in a stored
-- form (U+0000 -> U+0001 U+0001, U+0001 -> U+0001 U+0002).  These take and
-- give JSON text with the strings as DynamoDB has them.
-- ---------------------------------------------------------------------
CREATE FUNCTION dynamodb_json(action text, request json) RETURNS json
	AS 'MODULE_PATHNAME', 'item_table_dynamodb_json' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION dynamodb_json(text, json) IS
	'dynamodb() for JSON text: strings may hold U+0000 (\u0000) in the request and the answer';

CREATE FUNCTION decode_item(item jsonb) RETURNS json
	AS 'MODULE_PATHNAME', 'item_table_decode_item'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decode_item(jsonb) IS
	'a stored item (or any jsonb of item_table) as JSON text with its strings decoded: U+0000 as \u0000';

CREATE FUNCTION encode_item(item json) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_encode_item'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION encode_item(json) IS
	'JSON text whose strings may hold U+0000 (\u0000) as the jsonb item_table stores';
