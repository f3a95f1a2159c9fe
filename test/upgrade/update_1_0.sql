-- ALTER EXTENSION item_table UPDATE from the released 1.0: the objects end
-- as a fresh installation of the current version makes them, and tables
-- made under 1.0 keep working under the new rules.
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

DROP EXTENSION item_table CASCADE;
CREATE EXTENSION item_table VERSION '1.0';
-- a table made under 1.0: a GSI, a long name, items
SELECT item_table.create_table('{"TableName": "upd", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created_up \gset
SELECT item_table.create_table(('{"TableName": "' || repeat('l', 70) || '", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}')::jsonb) IS NOT NULL AS created_long \gset
SELECT item_table.put_item('{"TableName": "upd", "Item": {"pk": {"S": "a"}, "g": {"S": "x"}}}') IS NOT NULL AS put \gset
SELECT item_table.put_item('{"TableName": "upd", "Item": {"pk": {"S": "b"}, "g": {"S": "y"}}}') IS NOT NULL AS put2 \gset

ALTER EXTENSION item_table UPDATE;

BEGIN;
SELECT plan(11);
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'item_table'), :'fresh_version',
	'updated to the current version');
SELECT is((SELECT array_agg(s ORDER BY s) FROM (SELECT * FROM pg_temp.extension_shape() EXCEPT SELECT * FROM fresh_shape) x(s)),
	NULL, 'the update made nothing a fresh installation lacks');
SELECT is((SELECT array_agg(s ORDER BY s) FROM (SELECT * FROM fresh_shape EXCEPT SELECT * FROM pg_temp.extension_shape()) x(s)),
	NULL, 'a fresh installation has nothing the update lacks');
SELECT is((SELECT relname::text FROM pg_class WHERE oid = (SELECT relid FROM item_table.indexes WHERE table_name = 'upd')),
	'upd#by_g', 'the 1.0 index table has its 1.1 name');
SELECT is((SELECT relname::text FROM pg_class WHERE oid = (SELECT relid FROM item_table.tables WHERE table_name = repeat('l', 70))),
	repeat('l', 54) || '~' || left(md5(repeat('l', 70)), 8), 'a long table name has its 1.1 form');
SELECT is((SELECT count(*) FROM pg_depend WHERE objid = 'item_data."upd#by_g"'::regclass
		   AND refobjid = 'item_data.upd'::regclass AND deptype = 'a'), 1::bigint, 'the index table depends on its base');
SELECT is(item_table.put_item('{"TableName": "upd", "Item": {"pk": {"S": "c"}, "g": {"S": "x"}}}'), '{}'::jsonb,
	'the 1.0 table takes writes');
SELECT is(item_table.query('{"TableName": "upd", "IndexName": "by_g", "KeyConditionExpression": "g = :g",
	"ExpressionAttributeValues": {":g": {"S": "x"}}}') -> 'Count', '2'::jsonb, 'and index reads');
SELECT is((SELECT count(*) FROM item_table.verify('upd')), 0::bigint, 'its index is consistent');
SELECT ok(NOT has_schema_privilege('public', 'item_data', 'CREATE'), 'PUBLIC no longer creates in item_data');
SELECT throws_ok($$INSERT INTO item_data.upd VALUES ('S"z"', '{"pk": {"S": "not z"}}')$$, '23514', NULL,
	'the 1.0 table has the item guard: a plain SQL row that disagrees with its key is refused');
SELECT * FROM finish();
ROLLBACK;
