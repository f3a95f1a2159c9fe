-- pg_temp.err(action, request): the error a request raises, as
-- {"sqlstate", "message", "body"} (body: the DETAIL, DynamoDB's error
-- body; NULL when the error has none, as PostgreSQL's own errors such as
-- a permission denied, and the DETAIL as a JSON string when it is not
-- JSON), or NULL when it succeeds.
CREATE FUNCTION pg_temp.err(action text, request jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
	body jsonb;
BEGIN
	PERFORM item_table.dynamodb(action, request);
	RETURN NULL;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	IF det IS NOT NULL AND det <> '' THEN
		BEGIN
			body := det::jsonb;
		EXCEPTION WHEN invalid_text_representation THEN
			body := to_jsonb(det);
		END;
	END IF;
	RETURN jsonb_build_object('sqlstate', st, 'message', msg, 'body', body);
END $$;
