-- ALTER EXTENSION item_table UPDATE from 1.1 to 1.2 (the access keys of
-- item_table_gateway), directly and stepwise from 1.0: the objects end as a
-- fresh installation of the current version makes them, and the key
-- functions work on the updated installation.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET search_path = public;

-- Everything that makes up the extension, one text row per fact: member
-- objects, and for functions, tables, schemas and event triggers the
-- properties that matter (volatility, columns, constraints, privileges).
CREATE FUNCTION pg_temp.extension_shape() RETURNS SETOF text LANGUAGE sql AS $$
	WITH members AS (
		SELECT d.classid, d.objid, d.objsubid
		FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
		WHERE e.extname = 'item_table' AND d.deptype = 'e')
	SELECT 'member ' || pg_describe_object(classid, objid, objsubid) FROM members
	UNION ALL
	SELECT format('function %s: %s %s strict=%s secdef=%s config=%s returns %s symbol=%s acl=%s',
			p.oid::regprocedure, p.provolatile, p.proparallel, p.proisstrict, p.prosecdef,
			p.proconfig, p.prorettype::regtype, p.prosrc, p.proacl)
	FROM pg_proc p JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = p.oid
	UNION ALL
	SELECT format('column %s.%s %s notnull=%s default=%s', c.oid::regclass, a.attname,
			format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(ad.adbin, ad.adrelid))
	FROM pg_class c JOIN members m ON m.classid = 'pg_class'::regclass AND m.objid = c.oid
	JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
	LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
	UNION ALL
	SELECT format('constraint %s %s', co.conrelid::regclass, pg_get_constraintdef(co.oid))
	FROM pg_constraint co JOIN members m ON m.classid = 'pg_class'::regclass AND m.objid = co.conrelid
	UNION ALL
	SELECT format('relation %s kind=%s acl=%s', c.oid::regclass, c.relkind, c.relacl)
	FROM pg_class c JOIN members m ON m.classid = 'pg_class'::regclass AND m.objid = c.oid
	UNION ALL
	SELECT format('schema %s acl=%s', n.nspname, n.nspacl)
	FROM pg_namespace n WHERE n.nspname IN ('item_table', 'item_data')
	UNION ALL
	SELECT format('event trigger %s on %s runs %s enabled=%s tags=%s', t.evtname, t.evtevent,
			t.evtfoid::regproc, t.evtenabled, t.evttags)
	FROM pg_event_trigger t JOIN members m ON m.classid = 'pg_event_trigger'::regclass AND m.objid = t.oid
$$;

CREATE TABLE fresh_shape AS SELECT * FROM pg_temp.extension_shape() s;
SELECT extversion AS fresh_version FROM pg_extension WHERE extname = 'item_table' \gset

-- 1.0 -> 1.1 -> 1.2, one step at a time
DROP EXTENSION item_table CASCADE;
CREATE EXTENSION item_table VERSION '1.0';
ALTER EXTENSION item_table UPDATE TO '1.1';
SELECT extversion AS mid_version FROM pg_extension WHERE extname = 'item_table' \gset
ALTER EXTENSION item_table UPDATE TO '1.2';
CREATE TABLE stepwise_shape AS SELECT * FROM pg_temp.extension_shape() s;

-- 1.1 -> 1.2, with a table made under 1.1
DROP EXTENSION item_table CASCADE;
CREATE EXTENSION item_table VERSION '1.1';
SELECT item_table.create_table('{"TableName": "upd11", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created \gset
SELECT item_table.put_item('{"TableName": "upd11", "Item": {"pk": {"S": "a"}}}') IS NOT NULL AS put \gset
SELECT count(*) AS keys_table_before FROM pg_class WHERE relname = 'access_keys' \gset
ALTER EXTENSION item_table UPDATE TO '1.2';

BEGIN;
SELECT plan(12);
SELECT is(:'mid_version'::text, '1.1'::text, 'the stepwise update passed through 1.1');
SELECT is((SELECT array_agg(s ORDER BY s) FROM (SELECT * FROM stepwise_shape EXCEPT SELECT * FROM fresh_shape) x(s)),
	NULL, '1.0 -> 1.1 -> 1.2 made nothing a fresh installation lacks');
SELECT is((SELECT array_agg(s ORDER BY s) FROM (SELECT * FROM fresh_shape EXCEPT SELECT * FROM stepwise_shape) x(s)),
	NULL, 'a fresh installation has nothing 1.0 -> 1.1 -> 1.2 lacks');
SELECT is(:keys_table_before::int, 0, '1.1 had no access key table');
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'item_table'), :'fresh_version',
	'1.1 updated to the current version');
SELECT is((SELECT array_agg(s ORDER BY s) FROM (SELECT * FROM pg_temp.extension_shape() EXCEPT SELECT * FROM fresh_shape) x(s)),
	NULL, '1.1 -> 1.2 made nothing a fresh installation lacks');
SELECT is((SELECT array_agg(s ORDER BY s) FROM (SELECT * FROM fresh_shape EXCEPT SELECT * FROM pg_temp.extension_shape()) x(s)),
	NULL, 'a fresh installation has nothing 1.1 -> 1.2 lacks');
SELECT is(item_table.get_item('{"TableName": "upd11", "Key": {"pk": {"S": "a"}}}'),
	'{"Item": {"pk": {"S": "a"}}}'::jsonb, 'the 1.1 table is read after the update');
SELECT is((SELECT count(*) FROM item_table.create_access_key(current_user::regrole)), 1::bigint,
	'create_access_key works after the update');
SELECT is((SELECT count(*) FROM item_table.list_access_keys()), 1::bigint, 'and list_access_keys');
SELECT ok(item_table.delete_access_key((SELECT access_key_id FROM item_table.list_access_keys())),
	'and delete_access_key');
SELECT ok(NOT has_table_privilege('public', 'item_table.access_keys', 'SELECT'),
	'PUBLIC cannot read the secrets');
SELECT * FROM finish();
ROLLBACK;
