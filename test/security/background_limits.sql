-- What a stream consumer runs as, checked on every batch, and what it
-- leaves behind.  In one transaction: item_table.run_stream_consumers()
-- runs the batches (the same batch code the background worker runs); the
-- time limit of background work needs the worker and real time, and is
-- test/stress/consumer_timeout.sh.
--
-- A consumer went on calling its function after EXECUTE on it was revoked
-- from the consumer's role (as the owner, for a SECURITY DEFINER
-- function), after the role lost USAGE on the function's schema, became a
-- superuser or was dropped.  Each batch now checks these first, as the
-- consumer's role, and a consumer that lost them is parked with the reason
-- in last_error.  A consumer calling set_config(..., false) changed the
-- setting for the rest of the session that ran it (the worker's, or the
-- caller's of run_stream_consumers): settings are now undone after every
-- call.
\set ON_ERROR_STOP 1
BEGIN;
SELECT plan(25);
SET client_min_messages = warning;
SET search_path = item_table, public;
SET work_mem = '4MB';
SET application_name = 'bl_session';

SELECT ok(item_table.create_table('{"TableName": "bl_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}') ? 'TableDescription',
	'a table with a stream');

CREATE ROLE bl_app;
CREATE ROLE bl_owner;
CREATE ROLE bl_gone;
CREATE ROLE bl_promoted;
GRANT SELECT ON item_data.bl_t TO bl_app, bl_gone, bl_promoted;
-- each call writes who ran it, with which search_path and work_mem
CREATE TABLE public.bl_seen (consumer text, who text, path text, wm text, app text);
GRANT INSERT ON public.bl_seen TO PUBLIC;
CREATE SCHEMA bl_fn;
CREATE SCHEMA bl_fn2;
GRANT USAGE ON SCHEMA bl_fn, bl_fn2 TO PUBLIC;
CREATE FUNCTION bl_fn.note(c text) RETURNS void LANGUAGE sql AS $$
	INSERT INTO public.bl_seen VALUES (c, pg_catalog.current_user(),
		pg_catalog.current_setting('search_path'), pg_catalog.current_setting('work_mem'),
		pg_catalog.current_setting('application_name')) $$;
CREATE FUNCTION bl_fn.plain(records jsonb) RETURNS void LANGUAGE sql AS $$ SELECT bl_fn.note('plain') $$;
CREATE FUNCTION bl_fn.definer(records jsonb) RETURNS void LANGUAGE sql SECURITY DEFINER
	SET search_path = pg_catalog AS $$ SELECT bl_fn.note('definer') $$;
ALTER FUNCTION bl_fn.definer(jsonb) OWNER TO bl_owner;
CREATE FUNCTION bl_fn.leaky(records jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_catalog.set_config('work_mem', '1234kB', false);
	PERFORM pg_catalog.set_config('search_path', 'bl_fn, public', false);
	PERFORM pg_catalog.set_config('application_name', 'leaked', false);
	PERFORM bl_fn.note('leaky');
END $$;
CREATE FUNCTION bl_fn2.other(records jsonb) RETURNS void LANGUAGE sql AS $$ SELECT bl_fn.note('other') $$;
CREATE FUNCTION bl_fn.gone(records jsonb) RETURNS void LANGUAGE sql AS $$ SELECT bl_fn.note('gone') $$;
CREATE FUNCTION bl_fn.promoted(records jsonb) RETURNS void LANGUAGE sql AS $$ SELECT bl_fn.note('promoted') $$;
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA bl_fn, bl_fn2 FROM PUBLIC;
GRANT EXECUTE ON FUNCTION bl_fn.note(text) TO PUBLIC;
GRANT EXECUTE ON FUNCTION bl_fn.plain(jsonb), bl_fn.definer(jsonb), bl_fn.leaky(jsonb),
	bl_fn2.other(jsonb) TO bl_app;
GRANT EXECUTE ON FUNCTION bl_fn.gone(jsonb) TO bl_gone;
GRANT EXECUTE ON FUNCTION bl_fn.promoted(jsonb) TO bl_promoted;

\o /dev/null
SET ROLE bl_app;
SELECT item_table.add_stream_consumer('bl_t', 'bl_fn.definer(jsonb)', 'a_definer');
SELECT item_table.add_stream_consumer('bl_t', 'bl_fn.leaky(jsonb)', 'b_leaky');
SELECT item_table.add_stream_consumer('bl_t', 'bl_fn.plain(jsonb)', 'c_plain');
SELECT item_table.add_stream_consumer('bl_t', 'bl_fn2.other(jsonb)', 'd_other');
SET ROLE bl_gone;
SELECT item_table.add_stream_consumer('bl_t', 'bl_fn.gone(jsonb)', 'e_gone');
SET ROLE bl_promoted;
SELECT item_table.add_stream_consumer('bl_t', 'bl_fn.promoted(jsonb)', 'f_promoted');
RESET ROLE;

-- first batch: everyone has their rights
SELECT item_table.put_item('{"TableName": "bl_t", "Item": {"pk": {"S": "one"}}}') IS NOT NULL AS put;
\o
SELECT is(item_table.run_stream_consumers(), 6::bigint, 'every consumer got the first record');
SELECT results_eq($$SELECT who, path FROM public.bl_seen WHERE consumer IN ('plain', 'leaky', 'other') ORDER BY consumer$$,
	$$VALUES ('bl_app'::text, 'bl_fn, public'::text), ('bl_app', 'pg_catalog, pg_temp'), ('bl_app', 'pg_catalog, pg_temp')$$,
	'a consumer runs as its role with search_path pinned');
SELECT is((SELECT who FROM public.bl_seen WHERE consumer = 'definer'), 'bl_owner',
	'a SECURITY DEFINER consumer runs as the function''s owner, as any call would');
SELECT is((SELECT wm || ' ' || app FROM public.bl_seen WHERE consumer = 'plain'), '4MB bl_session',
	'the consumer after one that called set_config(..., false) sees none of its settings');
SELECT is(current_setting('work_mem'), '4MB', 'work_mem is not left changed in the session that ran the consumers');
SELECT is(current_setting('application_name'), 'bl_session', 'nor application_name');
SELECT is(current_setting('search_path'), 'item_table, public', 'nor search_path');

-- the rights go
REVOKE EXECUTE ON FUNCTION bl_fn.plain(jsonb) FROM bl_app;
REVOKE EXECUTE ON FUNCTION bl_fn.definer(jsonb) FROM bl_app;
REVOKE USAGE ON SCHEMA bl_fn2 FROM PUBLIC;
ALTER ROLE bl_promoted SUPERUSER;
REVOKE ALL ON item_data.bl_t FROM bl_gone;
REVOKE ALL ON FUNCTION bl_fn.gone(jsonb) FROM bl_gone;
-- DROP ROLE is refused while the role has a consumer (dropped_roles.sql);
-- the state a role dropped without the library loaded leaves: no anchor grant
REVOKE USAGE ON DOMAIN item_table.role_of_access_keys_or_consumers FROM bl_gone;
TRUNCATE public.bl_seen;
\o /dev/null
SELECT item_table.put_item('{"TableName": "bl_t", "Item": {"pk": {"S": "two"}}}') IS NOT NULL AS put;
\o
SELECT is(item_table.run_stream_consumers(), 1::bigint, 'only the consumer that kept its rights got the second record');
SELECT results_eq($$SELECT consumer FROM public.bl_seen ORDER BY 1$$, $$VALUES ('leaky'::text)$$,
	'no function was called without the right to call it');

SELECT results_eq($$SELECT consumer_name COLLATE "default", status FROM item_table.stream_consumers ORDER BY 1$$,
	$$VALUES ('a_definer'::text, 'PARKED'::text), ('b_leaky', 'ACTIVE'), ('c_plain', 'PARKED'),
		('d_other', 'PARKED'), ('e_gone', 'PARKED'), ('f_promoted', 'PARKED')$$,
	'each consumer that lost a right is parked at once');
SELECT matches((SELECT last_error FROM item_table.list_stream_consumers() WHERE consumer_name = 'c_plain'),
	'may no longer execute .*bl_fn\.plain', 'the reason: EXECUTE revoked');
SELECT matches((SELECT last_error FROM item_table.list_stream_consumers() WHERE consumer_name = 'a_definer'),
	'may no longer execute .*bl_fn\.definer', 'the reason, for a SECURITY DEFINER function too');
SELECT matches((SELECT last_error FROM item_table.list_stream_consumers() WHERE consumer_name = 'd_other'),
	'may no longer use schema "?bl_fn2"?', 'the reason: USAGE on the function''s schema revoked');
SELECT matches((SELECT last_error FROM item_table.list_stream_consumers() WHERE consumer_name = 'e_gone'),
	'was dropped, or lost its grant', 'the reason: the role was dropped');
SELECT matches((SELECT last_error FROM item_table.list_stream_consumers() WHERE consumer_name = 'f_promoted'),
	'superuser', 'the reason: the role became a superuser');
SELECT is((SELECT count(*) FROM item_table.stream_consumers WHERE status = 'PARKED' AND failures = 0
	AND last_sequence_number < (SELECT last_sequence_number FROM item_table.stream_consumers WHERE consumer_name = 'b_leaky')), 5::bigint,
	'parking is not a failure of the function, and the checkpoints did not move');
SELECT is(current_setting('work_mem') || ' ' || current_setting('application_name'), '4MB bl_session',
	'the session''s settings are still its own');

-- given back, the consumer resumes where it stopped
GRANT EXECUTE ON FUNCTION bl_fn.plain(jsonb) TO bl_app;
SET ROLE bl_app;
SELECT ok(item_table.resume_stream_consumer('c_plain'), 'resumed');
RESET ROLE;
SELECT is(item_table.run_stream_consumers(), 1::bigint, 'the resumed consumer gets the record it had not had');
SELECT is((SELECT status FROM item_table.stream_consumers WHERE consumer_name = 'c_plain'), 'ACTIVE', 'and stays active');
SELECT results_eq($$SELECT consumer, who FROM public.bl_seen ORDER BY 1$$,
	$$VALUES ('leaky'::text, 'bl_app'::text), ('plain', 'bl_app')$$, 'called as its role again');

-- a function dropped under the consumer
\o /dev/null
SELECT item_table.put_item('{"TableName": "bl_t", "Item": {"pk": {"S": "three"}}}') IS NOT NULL AS put;
\o
DROP FUNCTION bl_fn.plain(jsonb);
SELECT is(item_table.run_stream_consumers(), 1::bigint, 'a consumer whose function is gone delivers nothing');
SELECT is((SELECT status FROM item_table.stream_consumers WHERE consumer_name = 'c_plain'), 'PARKED',
	'it is parked');
SELECT matches((SELECT last_error FROM item_table.stream_consumers WHERE consumer_name = 'c_plain'),
	'function .*no longer exists', 'the reason: the function was dropped');

SELECT * FROM finish();
ROLLBACK;
