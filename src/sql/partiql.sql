
-- PartiQL: ExecuteStatement, BatchExecuteStatement, ExecuteTransaction
-- (each statement is compiled into the request of the operation above
-- that serves it; see docs/partiql.md)
CREATE FUNCTION execute_statement(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_execute_statement' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION execute_statement(jsonb) IS 'DynamoDB ExecuteStatement (PartiQL)';
CREATE FUNCTION batch_execute_statement(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_batch_execute_statement' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION batch_execute_statement(jsonb) IS 'DynamoDB BatchExecuteStatement (PartiQL; each statement succeeds or fails alone)';
CREATE FUNCTION execute_transaction(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_execute_transaction' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION execute_transaction(jsonb) IS 'DynamoDB ExecuteTransaction (PartiQL; all or nothing, inside the caller''s transaction)';
