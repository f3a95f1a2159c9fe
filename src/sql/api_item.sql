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
