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
