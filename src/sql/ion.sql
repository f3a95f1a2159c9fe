-- ---------------------------------------------------------------------
-- Amazon Ion text (src/api/ion.c): the line format of ION exports and
-- imports, callable to read or write one line.
-- ---------------------------------------------------------------------
CREATE FUNCTION ion_to_item(value text) RETURNS json
	AS 'MODULE_PATHNAME', 'item_table_ion_to_item'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ion_to_item(text) IS
	'one Ion value of an ION export''s data file ({Item:{...}}) as DynamoDB JSON text (U+0000 as \u0000)';

CREATE FUNCTION item_to_ion(line jsonb) RETURNS text
	AS 'MODULE_PATHNAME', 'item_table_item_to_ion'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION item_to_ion(jsonb) IS
	'a line''s object ({"Item": {...}}, as item_table stores it) as the Ion text line an ION export writes';
