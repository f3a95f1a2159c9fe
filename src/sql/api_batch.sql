
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
