-- Included by the upgrade tests (\ir include/extension_shape.sql).
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
