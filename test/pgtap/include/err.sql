-- pg_temp.err(action, request): the error a request raises, as
-- {"sqlstate", "message", "body"} (body: the DETAIL, DynamoDB's error
-- body), or NULL when it succeeds.
CREATE FUNCTION pg_temp.err(action text, request jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
BEGIN
	PERFORM item_table.dynamodb(action, request);
	RETURN NULL;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	RETURN jsonb_build_object('sqlstate', st, 'message', msg, 'body', det::jsonb);
END $$;
