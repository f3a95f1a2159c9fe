-- item_table 1.0 -> 1.1: the security release.
--
-- An installation updated with ALTER EXTENSION item_table UPDATE ends with
-- the same objects as a fresh 1.1 installation (test/upgrade checks it),
-- and its existing tables are brought to 1.1's rules: index tables renamed
-- to <table>#<index>, owned by their base table's owner and dependent on
-- it, long names ending in ~<md5>.

\echo Use "ALTER EXTENSION item_table UPDATE TO '1.1'" to load this file. \quit

-- Creating tables through the API is granted, not public.
REVOKE CREATE ON SCHEMA item_data FROM PUBLIC;

-- Tokens are remembered per role.  They live ten minutes: the table is
-- made anew rather than migrated.
DROP TABLE transaction_tokens;
CREATE TABLE transaction_tokens (
	role_id oid NOT NULL,		-- the role that used the token (tokens are per role)
	token text COLLATE "C" NOT NULL,
	request_hash text NOT NULL,
	created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	PRIMARY KEY (role_id, token)
);
COMMENT ON TABLE transaction_tokens IS 'item_table: recent TransactWriteItems ClientRequestTokens and a hash of their requests';
REVOKE ALL ON transaction_tokens FROM PUBLIC;

-- verify() sets a planner setting (in a nest level of its own).
ALTER FUNCTION verify(text) VOLATILE PARALLEL UNSAFE;

-- A plain DROP TABLE of an item table (or index table) removes its catalog
-- rows in the same transaction.
CREATE FUNCTION on_sql_drop() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'item_table_on_sql_drop' LANGUAGE C;
COMMENT ON FUNCTION on_sql_drop() IS 'event trigger: forget item tables and index tables dropped by plain DDL';
CREATE EVENT TRIGGER item_table_sql_drop ON sql_drop EXECUTE FUNCTION on_sql_drop();

-- Guards: plain SQL writes to an item table are validated, DDL that would
-- break an item or index table is refused (item_guard.c).

-- BEFORE INSERT OR UPDATE row trigger on every base table (CreateTable
-- installs it): validates the row, fills in a NULL key, stores the item in
-- stored form; 23514 when the row is not a valid item of the table.
CREATE FUNCTION item_guard() RETURNS trigger
	AS 'MODULE_PATHNAME', 'item_table_item_guard' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION item_guard() IS
	'validates items written to an item table with plain SQL (DynamoDB item, key attributes, key column) and stores them in stored form';

-- Refuses (42P16) DDL that would change what the C code relies on: the
-- key/item columns, the primary key, the guard trigger, inheritance.
CREATE FUNCTION ddl_guard() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'item_table_ddl_guard' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ddl_guard() IS
	'refuses DDL that would change the columns, primary key or guard trigger of an item table or index table';

CREATE EVENT TRIGGER item_table_ddl_guard ON ddl_command_end
	WHEN TAG IN ('ALTER TABLE', 'CREATE TABLE', 'CREATE TRIGGER', 'ALTER TRIGGER', 'CREATE RULE')
	EXECUTE FUNCTION ddl_guard();
COMMENT ON EVENT TRIGGER item_table_ddl_guard IS
	'item_table: keeps the shape of item and index tables';
CREATE EVENT TRIGGER item_table_drop_guard ON sql_drop
	WHEN TAG IN ('DROP TRIGGER')
	EXECUTE FUNCTION ddl_guard();
COMMENT ON EVENT TRIGGER item_table_drop_guard IS
	'item_table: keeps the guard trigger of item tables';

-- Existing physical tables under 1.1's names, owners, dependencies and
-- guard triggers.
DO $upgrade$
DECLARE
	r record;
	want name;
	full_name text;
BEGIN
	SET LOCAL search_path = pg_catalog, pg_temp;
	-- long table names: <54 characters>~<md5> (was _<md5>)
	FOR r IN SELECT t.table_name, t.relid::oid AS relid, c.relname
			 FROM item_table.tables t JOIN pg_class c ON c.oid = t.relid::oid
			 WHERE octet_length(t.table_name) >= 64
	LOOP
		want := left(r.table_name, 54) || '~' || left(md5(r.table_name), 8);
		IF r.relname <> want THEN
			EXECUTE format('ALTER TABLE item_data.%I RENAME TO %I', r.relname, want);
		END IF;
	END LOOP;
	-- the guard trigger on every base table
	FOR r IN SELECT c.relname FROM item_table.tables t JOIN pg_class c ON c.oid = t.relid::oid
			 WHERE NOT EXISTS (SELECT FROM pg_trigger g WHERE g.tgrelid = c.oid AND g.tgname = 'zz_item_guard')
	LOOP
		EXECUTE format('CREATE TRIGGER zz_item_guard BEFORE INSERT OR UPDATE ON item_data.%I'
					   ' FOR EACH ROW EXECUTE FUNCTION item_table.item_guard()', r.relname);
	END LOOP;
	-- index tables: <table>#<index> (was <table>.<index>), the base
	-- table's owner, dropped with the base table
	FOR r IN SELECT i.table_name, i.index_name, i.relid::oid AS relid, c.relname,
					c.relowner, b.relid::oid AS base, bc.relowner AS base_owner
			 FROM item_table.indexes i
			 JOIN item_table.tables b ON b.table_name = i.table_name
			 JOIN pg_class c ON c.oid = i.relid::oid
			 JOIN pg_class bc ON bc.oid = b.relid::oid
	LOOP
		full_name := r.table_name || '#' || r.index_name;
		want := CASE WHEN octet_length(full_name) < 64 THEN full_name
				ELSE left(full_name, 53) || '#~' || left(md5(full_name), 8) END;
		IF r.relname <> want THEN
			EXECUTE format('ALTER TABLE item_data.%I RENAME TO %I', r.relname, want);
		END IF;
		IF r.relowner <> r.base_owner THEN
			EXECUTE format('ALTER TABLE item_data.%I OWNER TO %I', want,
						   (SELECT rolname FROM pg_roles WHERE oid = r.base_owner));
		END IF;
		IF NOT EXISTS (SELECT FROM pg_depend
					   WHERE classid = 'pg_class'::regclass AND objid = r.relid AND objsubid = 0
						 AND refclassid = 'pg_class'::regclass AND refobjid = r.base AND deptype = 'a') THEN
			INSERT INTO pg_depend (classid, objid, objsubid, refclassid, refobjid, refobjsubid, deptype)
			VALUES ('pg_class'::regclass, r.relid, 0, 'pg_class'::regclass, r.base, 0, 'a');
		END IF;
	END LOOP;
END
$upgrade$;
