-- Access keys (item_table.access_keys.role) and stream consumers
-- (stream_consumers.run_as) name a role by OID.  DROP ROLE once left them
-- behind, and a later CREATE ROLE that got the same OID would have been
-- handed them.  Now a role with keys or consumers holds USAGE on the
-- anchor domain (a pg_shdepend entry, so DROP ROLE fails in every
-- database); with the library loaded DROP ROLE names them (2BP01) and
-- DROP OWNED BY removes them; a key or consumer whose role lost the anchor
-- is never used (the gateway's key query finds nothing, the consumer is
-- parked) and cannot be revived by a new key for the same OID; the
-- worker deletes rows whose role no longer exists.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP ROLE IF EXISTS sec_dr_app;
DROP ROLE IF EXISTS sec_dr_cons;
DROP ROLE IF EXISTS sec_dr_reuse;
DROP ROLE IF EXISTS sec_dr_admin;

-- ---------------------------------------------------------------------
-- the worker deletes keys and consumers whose role does not exist (left
-- where the library was not loaded: here written with triggers off)
-- ---------------------------------------------------------------------
BEGIN;
SET LOCAL session_replication_role = replica;
INSERT INTO item_table.access_keys VALUES ('AKITDANGLING00000000', 's', '4000000001'::regrole);
INSERT INTO item_table.stream_consumers (consumer_name, table_name, stream_id, function, run_as,
	batch_size, max_failures, last_sequence_number)
VALUES ('dr_dangling', 'no_table', 0, 'item_table.list_stream_consumers()', '4000000001'::regrole, 1, 1, 0);
COMMIT;
-- a key left by an earlier transaction for a role that then lost the
-- anchor (what a role that got a dropped role's OID finds)
CREATE ROLE sec_dr_reuse;
CREATE TABLE public.dr_old_key AS SELECT * FROM item_table.create_access_key('sec_dr_reuse');
REVOKE USAGE ON TYPE item_table.role_of_access_keys_or_consumers FROM sec_dr_reuse;
SELECT item_table.start_worker() IS NOT NULL AS started \gset
DO $$
BEGIN
	FOR i IN 1 .. 300 LOOP
		EXIT WHEN NOT EXISTS (SELECT FROM item_table.access_keys WHERE access_key_id = 'AKITDANGLING00000000')
			AND NOT EXISTS (SELECT FROM item_table.stream_consumers WHERE consumer_name = 'dr_dangling');
		PERFORM pg_sleep(0.1);
	END LOOP;
END $$;
BEGIN;
SET search_path = public, item_table;
SELECT plan(27);
CREATE ROLE sec_dr_app;
CREATE ROLE sec_dr_cons;
-- an administrator of keys who is not a superuser
CREATE ROLE sec_dr_admin;
GRANT SELECT, INSERT, DELETE ON item_table.access_keys TO sec_dr_admin;
GRANT CREATE ON SCHEMA item_data, public TO sec_dr_cons;

-- the error of a statement: SQLSTATE, message and detail
CREATE FUNCTION pg_temp.error_of(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
BEGIN
	EXECUTE stmt;
	RETURN 'no error';
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	RETURN st || ': ' || msg || ' / ' || det;
END $$;
-- the gateway's key lookup (gateway/pool.c, statement "key"): the role
-- a key's requests run as, none when the key is unknown
CREATE FUNCTION pg_temp.gateway_key(text) RETURNS name LANGUAGE sql AS $$
SELECT r.rolname FROM item_table.access_keys k
JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) k.role
WHERE k.access_key_id OPERATOR(pg_catalog.=) $1
AND EXISTS (SELECT FROM pg_catalog.pg_type t, pg_catalog.aclexplode(t.typacl) a
WHERE t.oid OPERATOR(pg_catalog.=) 'item_table.role_of_access_keys_or_consumers'::pg_catalog.regtype
AND a.grantee OPERATOR(pg_catalog.=) k.role AND a.privilege_type OPERATOR(pg_catalog.=) 'USAGE') $$;
-- the recorded dependencies of a role on the anchor, in this database
CREATE FUNCTION pg_temp.anchored(r regrole) RETURNS boolean LANGUAGE sql AS $$
	SELECT EXISTS (SELECT FROM pg_catalog.pg_shdepend d
		WHERE d.dbid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())
		  AND d.classid = 'pg_catalog.pg_type'::regclass
		  AND d.objid = 'item_table.role_of_access_keys_or_consumers'::regtype
		  AND d.refclassid = 'pg_catalog.pg_authid'::regclass AND d.refobjid = r) $$;

-- ---------------------------------------------------------------------
-- access keys
-- ---------------------------------------------------------------------
SET ROLE sec_dr_admin;
CREATE TEMP TABLE app_keys AS SELECT * FROM item_table.create_access_key('sec_dr_app') UNION ALL
	SELECT * FROM item_table.create_access_key('sec_dr_app');
RESET ROLE;
SELECT ok(pg_temp.anchored('sec_dr_app'), 'a role with access keys has a recorded dependency (pg_shdepend), made for a key administrator who is not a superuser');
SELECT is((SELECT array_agg(DISTINCT pg_temp.gateway_key(access_key_id)) FROM app_keys), ARRAY['sec_dr_app'::name],
	'the gateway finds the keys');
SELECT matches(pg_temp.error_of('DROP ROLE sec_dr_app'),
	'^2BP01: role "sec_dr_app" cannot be dropped because some objects depend on it / access key AKIT[A-Z2-7]{16} in database \S+\naccess key AKIT[A-Z2-7]{16} in database \S+$',
	'DROP ROLE of a role with access keys is refused (2BP01), naming the keys');
SELECT ok(pg_temp.error_of('DROP ROLE sec_dr_app') LIKE '%' || (SELECT min(access_key_id) FROM app_keys) || '%',
	'the detail names the key ids');
SET ROLE sec_dr_admin;
SELECT ok(item_table.delete_access_key((SELECT min(access_key_id) FROM app_keys)), 'one key is deleted');
RESET ROLE;
SELECT ok(pg_temp.anchored('sec_dr_app'), 'the role still has a key: the dependency stays');
SAVEPOINT one_left;
SET ROLE sec_dr_admin;
SELECT ok(item_table.delete_access_key((SELECT max(access_key_id) FROM app_keys)), 'the last key is deleted');
RESET ROLE;
SELECT ok(NOT pg_temp.anchored('sec_dr_app'), 'with no key left the dependency goes');
SELECT is(pg_temp.error_of('DROP ROLE sec_dr_app'), 'no error', 'and the role can be dropped');
ROLLBACK TO SAVEPOINT one_left;
-- the usual sequence
REASSIGN OWNED BY sec_dr_app TO sec_dr_admin;
DROP OWNED BY sec_dr_app;
SELECT is((SELECT count(*) FROM item_table.access_keys WHERE role = 'sec_dr_app'::regrole), 0::bigint,
	'DROP OWNED BY removes the role''s access keys');
SELECT is(pg_temp.error_of('DROP ROLE sec_dr_app'), 'no error', 'after REASSIGN OWNED and DROP OWNED, DROP ROLE succeeds');

-- ---------------------------------------------------------------------
-- stream consumers
-- ---------------------------------------------------------------------
SET ROLE sec_dr_cons;
SELECT ok(item_table.create_table('{"TableName": "dr_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}') ? 'TableDescription',
	'the consumer role makes a table with a stream');
CREATE TABLE public.dr_seen (n int);
CREATE FUNCTION public.dr_consume(records jsonb) RETURNS void LANGUAGE sql
	AS $$ INSERT INTO public.dr_seen SELECT pg_catalog.jsonb_array_length(records) $$;
SELECT is(item_table.add_stream_consumer('dr_t', 'public.dr_consume(jsonb)', 'dr_consumer'), 'dr_consumer',
	'and registers a consumer');
RESET ROLE;
SELECT ok(pg_temp.anchored('sec_dr_cons'), 'a role with a stream consumer has a recorded dependency');
SELECT is(pg_temp.error_of('DROP ROLE sec_dr_cons'),
	'2BP01: role "sec_dr_cons" cannot be dropped because some objects depend on it / '
	|| 'stream consumer dr_consumer on table dr_t in database ' || current_database(),
	'DROP ROLE of a consumer''s role is refused, naming the consumer');
SAVEPOINT consumer_kept;
REASSIGN OWNED BY sec_dr_cons TO sec_dr_admin;
DROP OWNED BY sec_dr_cons;
SELECT is((SELECT count(*) FROM item_table.stream_consumers WHERE consumer_name = 'dr_consumer'), 0::bigint,
	'DROP OWNED BY removes the role''s consumers');
SELECT is(pg_temp.error_of('DROP ROLE sec_dr_cons'), 'no error', 'and the role can be dropped');
ROLLBACK TO SAVEPOINT consumer_kept;

-- ---------------------------------------------------------------------
-- a role that lost the anchor, as when DROP OWNED and DROP ROLE ran
-- where this library was not loaded and a new role got the old OID
-- ---------------------------------------------------------------------
SELECT item_table.put_item('{"TableName": "dr_t", "Item": {"pk": {"S": "a"}}}') IS NOT NULL AS written \gset
REVOKE USAGE ON TYPE item_table.role_of_access_keys_or_consumers FROM sec_dr_cons;
SELECT ok(item_table.run_stream_consumers() = 0, 'a consumer whose role lost the anchor is not run');
SELECT is((SELECT status || ': ' || last_error FROM item_table.stream_consumers WHERE consumer_name = 'dr_consumer'),
	'PARKED: the role the consumer runs as (OID ' || 'sec_dr_cons'::regrole::oid
	|| ') was dropped, or lost its grant on item_table.role_of_access_keys_or_consumers',
	'it is parked, with the reason');
SELECT is((SELECT count(*) FROM public.dr_seen), 0::bigint, 'and its function never ran');

SELECT is(pg_temp.gateway_key((SELECT access_key_id FROM public.dr_old_key)), NULL,
	'the gateway does not know a key whose role lost the anchor');
CREATE TEMP TABLE new_key AS SELECT * FROM item_table.create_access_key('sec_dr_reuse');
SELECT is(pg_temp.gateway_key((SELECT access_key_id FROM new_key)), 'sec_dr_reuse'::name,
	'a new key for the role''s OID works');
SELECT is((SELECT count(*) FROM item_table.access_keys WHERE access_key_id = (SELECT access_key_id FROM public.dr_old_key)), 0::bigint,
	'and the key left from before is deleted, not revived');
SELECT is(pg_temp.gateway_key((SELECT access_key_id FROM public.dr_old_key)), NULL, 'it stays unknown');
SELECT throws_ok($$INSERT INTO item_table.access_keys VALUES ('AKITNOROLE0000000000', 's', '4000000000'::regrole)$$,
	'42704', 'role with OID 4000000000 does not exist', 'a key must name an existing role');

-- (the worker's sweep, started at the top)
SELECT is((SELECT count(*) FROM item_table.access_keys WHERE access_key_id = 'AKITDANGLING00000000'), 0::bigint,
	'the worker deleted the access key of a role that does not exist');
SELECT is((SELECT count(*) FROM item_table.stream_consumers WHERE consumer_name = 'dr_dangling'), 0::bigint,
	'and the consumer');
SELECT * FROM finish();
ROLLBACK;

DELETE FROM item_table.access_keys WHERE access_key_id = 'AKITDANGLING00000000';
DELETE FROM item_table.stream_consumers WHERE consumer_name = 'dr_dangling';
DELETE FROM item_table.access_keys WHERE role = 'sec_dr_reuse'::regrole;
DROP TABLE public.dr_old_key;
DROP ROLE IF EXISTS sec_dr_app;
DROP ROLE IF EXISTS sec_dr_cons;
DROP ROLE IF EXISTS sec_dr_reuse;
DROP ROLE IF EXISTS sec_dr_admin;
