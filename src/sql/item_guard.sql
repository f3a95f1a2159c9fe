
-- ---------------------------------------------------------------------
-- Guards: what plain SQL writes to an item table is a DynamoDB item, and
-- DDL keeps the shape of item and index tables (see item_guard.c)
-- ---------------------------------------------------------------------

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
