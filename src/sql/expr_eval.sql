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
