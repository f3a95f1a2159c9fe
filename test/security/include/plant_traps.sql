-- The traps of the search_path tests (search_path.sql, search_path_1_2.sql):
-- for each operator of the common types (and of item_key), and for the
-- functions the C code calls by name, an object in schema evil (the
-- attacker's) that records in public.trap_log who runs it, unless it is
-- sec_sp_attacker, and then does the real work.  Expects the role
-- sec_sp_attacker, its schema evil and the table public.trap_log; leaves
-- the session as sec_sp_attacker.
-- the traps: for each operator and type, a function that records who runs
-- it (unless it is the attacker) and then does the real work
SET ROLE sec_sp_attacker;
DO $do$
DECLARE
	op record;
	n int := 0;
BEGIN
	FOR op IN
		SELECT o.oprname, o.oprleft::regtype AS l, o.oprright::regtype AS r, o.oprresult::regtype AS res
		FROM pg_catalog.pg_operator o
		WHERE o.oprnamespace = 'pg_catalog'::regnamespace
		  AND o.oprname IN ('=', '<>', '<', '>', '<=', '>=', '-', '+', '*', '||', '~~')
		  AND o.oprleft <> 0 AND o.oprright <> 0
		  AND o.oprleft::regtype::text IN ('text', 'name', 'oid', 'regclass', 'integer', 'bigint',
			'timestamp with time zone', 'interval', 'jsonb', 'uuid', 'boolean', '"char"', 'double precision')
		  AND o.oprright::regtype::text IN ('text', 'name', 'oid', 'regclass', 'integer', 'bigint',
			'timestamp with time zone', 'interval', 'jsonb', 'uuid', 'boolean', '"char"', 'double precision')
	LOOP
		n := n + 1;
		EXECUTE format($f$CREATE FUNCTION evil.trap_%s(a %s, b %s) RETURNS %s LANGUAGE plpgsql SET search_path = pg_catalog, public AS $b$
			BEGIN
				IF current_user <> 'sec_sp_attacker' THEN
					INSERT INTO public.trap_log VALUES (current_user, %L);
				END IF;
				RETURN a OPERATOR(pg_catalog.%s) b;
			END $b$$f$, n, op.l, op.r, op.res, op.l || ' ' || op.oprname || ' ' || op.r, op.oprname);
		EXECUTE format('CREATE OPERATOR evil.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = evil.trap_%s)',
			op.oprname, op.l, op.r, n);
	END LOOP;
END
$do$;
-- item_key comparison operators too
DO $do$
DECLARE
	o text;
	n int := 1000;
BEGIN
	FOREACH o IN ARRAY ARRAY['=', '<>', '<', '>', '<=', '>=', '^@'] LOOP
		n := n + 1;
		EXECUTE format($f$CREATE FUNCTION evil.trap_%s(a item_table.item_key, b item_table.item_key) RETURNS boolean
			LANGUAGE plpgsql SET search_path = pg_catalog, public AS $b$
			BEGIN
				IF current_user <> 'sec_sp_attacker' THEN
					INSERT INTO public.trap_log VALUES (current_user, %L);
				END IF;
				RETURN a OPERATOR(item_table.%s) b;
			END $b$$f$, n, 'item_key ' || o, o);
		EXECUTE format('CREATE OPERATOR evil.%s (LEFTARG = item_table.item_key, RIGHTARG = item_table.item_key, FUNCTION = evil.trap_%s)', o, n);
	END LOOP;
END
$do$;
-- functions the C code calls by name
CREATE FUNCTION evil.now() RETURNS timestamptz LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
	IF current_user <> 'sec_sp_attacker' THEN INSERT INTO public.trap_log VALUES (current_user, 'now()'); END IF;
	RETURN pg_catalog.now();
END $$;
CREATE FUNCTION evil.hashtext(text) RETURNS integer LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
	IF current_user <> 'sec_sp_attacker' THEN INSERT INTO public.trap_log VALUES (current_user, 'hashtext'); END IF;
	RETURN pg_catalog.hashtext($1);
END $$;
CREATE FUNCTION evil.pg_try_advisory_xact_lock(integer, integer) RETURNS boolean LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
	IF current_user <> 'sec_sp_attacker' THEN INSERT INTO public.trap_log VALUES (current_user, 'advisory lock'); END IF;
	RETURN pg_catalog.pg_try_advisory_xact_lock($1, $2);
END $$;
CREATE FUNCTION evil.set_config(text, text, boolean) RETURNS text LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
	IF current_user <> 'sec_sp_attacker' THEN INSERT INTO public.trap_log VALUES (current_user, 'set_config'); END IF;
	RETURN pg_catalog.set_config($1, $2, $3);
END $$;
CREATE FUNCTION evil.current_setting(text) RETURNS text LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
	IF current_user <> 'sec_sp_attacker' THEN INSERT INTO public.trap_log VALUES (current_user, 'current_setting'); END IF;
	RETURN pg_catalog.current_setting($1);
END $$;
CREATE FUNCTION evil.gen_random_uuid() RETURNS uuid LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
	IF current_user <> 'sec_sp_attacker' THEN INSERT INTO public.trap_log VALUES (current_user, 'gen_random_uuid'); END IF;
	RETURN pg_catalog.gen_random_uuid();
END $$;
CREATE FUNCTION evil.date_part(text, timestamptz) RETURNS double precision LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
	IF current_user <> 'sec_sp_attacker' THEN INSERT INTO public.trap_log VALUES (current_user, 'date_part'); END IF;
	RETURN pg_catalog.date_part($1, $2);
END $$;
CREATE FUNCTION evil.jsonb_build_object(text, jsonb, text, jsonb) RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
	IF current_user <> 'sec_sp_attacker' THEN INSERT INTO public.trap_log VALUES (current_user, 'jsonb_build_object'); END IF;
	RETURN '{}'::jsonb;
END $$;

