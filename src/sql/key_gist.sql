-- ---------------------------------------------------------------------
-- GiST operator class for item_key (src/types/key_gist.c): a range tree over
-- the key encoding.  Supports the comparison operators, <> and begins_with
-- (^@); leaf entries are exact keys, so no recheck and index-only scans.
-- ---------------------------------------------------------------------

CREATE FUNCTION item_key_gist_consistent(internal, item_key, smallint, oid, internal)
	RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_union(internal, internal) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_compress(internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_decompress(internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_penalty(internal, internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_picksplit(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_same(bytea, bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_fetch(internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_gist_sortsupport(internal) RETURNS void
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR CLASS item_key_gist_ops
	DEFAULT FOR TYPE item_key USING gist AS
		OPERATOR 1 <,
		OPERATOR 2 <=,
		OPERATOR 3 =,
		OPERATOR 4 >=,
		OPERATOR 5 >,
		OPERATOR 6 <>,
		OPERATOR 28 ^@,
		FUNCTION 1 item_key_gist_consistent(internal, item_key, smallint, oid, internal),
		FUNCTION 2 item_key_gist_union(internal, internal),
		FUNCTION 3 item_key_gist_compress(internal),
		FUNCTION 4 item_key_gist_decompress(internal),
		FUNCTION 5 item_key_gist_penalty(internal, internal, internal),
		FUNCTION 6 item_key_gist_picksplit(internal, internal),
		FUNCTION 7 item_key_gist_same(bytea, bytea, internal),
		FUNCTION 9 item_key_gist_fetch(internal),
		FUNCTION 11 item_key_gist_sortsupport(internal),
		STORAGE bytea;
COMMENT ON OPERATOR CLASS item_key_gist_ops USING gist IS
	'range tree over DynamoDB key order: <, <=, =, >=, >, <> and begins_with (^@); exact, supports index-only scans and sorted builds';
