-- ---------------------------------------------------------------------
-- item_key: the composite DynamoDB key (partition part + optional sort
-- part), encoded so that byte order is DynamoDB's order.
-- ---------------------------------------------------------------------

-- Type and I/O
CREATE TYPE item_key;

CREATE FUNCTION item_key_in(cstring) RETURNS item_key
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_out(item_key) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_recv(internal) RETURNS item_key
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_send(item_key) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION item_key_analyze(internal) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE TYPE item_key (
	INPUT = item_key_in,
	ANALYZE = item_key_analyze,
	OUTPUT = item_key_out,
	RECEIVE = item_key_recv,
	SEND = item_key_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = extended
);
COMMENT ON TYPE item_key IS
	'DynamoDB composite key: partition part and optional sort part (S, N or B), ordered as DynamoDB orders them';

-- Constructors and accessors
CREATE FUNCTION item_key(partition_value jsonb) RETURNS item_key
	AS 'MODULE_PATHNAME', 'item_key_from_values'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION item_key(jsonb) IS
	'partition-only key from a DynamoDB attribute value such as {"S": "USER#1"}';

CREATE FUNCTION item_key(partition_value jsonb, sort_value jsonb) RETURNS item_key
	AS 'MODULE_PATHNAME', 'item_key_from_values'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION item_key(jsonb, jsonb) IS
	'key from DynamoDB attribute values; a NULL sort value gives a partition-only key';

CREATE FUNCTION partition_value(item_key) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_key_partition_value'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION partition_value(item_key) IS
	'the partition part as a DynamoDB attribute value';

CREATE FUNCTION sort_value(item_key) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_key_sort_value'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sort_value(item_key) IS
	'the sort part as a DynamoDB attribute value, or NULL when the key has none';

CREATE FUNCTION partition_key(item_key) RETURNS item_key
	AS 'MODULE_PATHNAME', 'item_key_partition_key'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION partition_key(item_key) IS
	'the key without its sort part (the first position of its partition)';

-- Comparison functions
CREATE FUNCTION item_key_cmp(item_key, item_key) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_lt(item_key, item_key) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION item_key_le(item_key, item_key) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION item_key_eq(item_key, item_key) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION item_key_ne(item_key, item_key) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION item_key_ge(item_key, item_key) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION item_key_gt(item_key, item_key) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION item_key_sortsupport(internal) RETURNS void
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_hash(item_key) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_hash_extended(item_key, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- begins_with and its planner support
CREATE FUNCTION item_key_begins_with_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_prefix_sel(internal, oid, internal, integer) RETURNS float8
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION item_key_prefix_upper(item_key) RETURNS item_key
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION item_key_prefix_upper(item_key) IS
	'exclusive upper bound of the keys that begin with the given prefix (used in index conditions)';

CREATE FUNCTION begins_with(key item_key, prefix item_key) RETURNS boolean
	AS 'MODULE_PATHNAME', 'item_key_begins_with'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT item_key_begins_with_support;
COMMENT ON FUNCTION begins_with(item_key, item_key) IS
	'true when key is in the partition of prefix and, if prefix has a string or binary sort part, key''s sort part begins with it';

-- Operators
CREATE OPERATOR < (
	LEFTARG = item_key, RIGHTARG = item_key, PROCEDURE = item_key_lt,
	COMMUTATOR = >, NEGATOR = >=,
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
	LEFTARG = item_key, RIGHTARG = item_key, PROCEDURE = item_key_le,
	COMMUTATOR = >=, NEGATOR = >,
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
	LEFTARG = item_key, RIGHTARG = item_key, PROCEDURE = item_key_eq,
	COMMUTATOR = =, NEGATOR = <>,
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
	LEFTARG = item_key, RIGHTARG = item_key, PROCEDURE = item_key_ne,
	COMMUTATOR = <>, NEGATOR = =,
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR >= (
	LEFTARG = item_key, RIGHTARG = item_key, PROCEDURE = item_key_ge,
	COMMUTATOR = <=, NEGATOR = <,
	RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
	LEFTARG = item_key, RIGHTARG = item_key, PROCEDURE = item_key_gt,
	COMMUTATOR = <, NEGATOR = <=,
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR ^@ (
	LEFTARG = item_key, RIGHTARG = item_key, PROCEDURE = begins_with,
	RESTRICT = item_key_prefix_sel, JOIN = contjoinsel
);
COMMENT ON OPERATOR ^@ (item_key, item_key) IS 'begins_with: key is in the prefix''s partition and its sort part starts with the prefix''s';

-- Operator classes
CREATE OPERATOR CLASS item_key_ops
	DEFAULT FOR TYPE item_key USING btree AS
		OPERATOR 1 <,
		OPERATOR 2 <=,
		OPERATOR 3 =,
		OPERATOR 4 >=,
		OPERATOR 5 >,
		FUNCTION 1 item_key_cmp(item_key, item_key),
		FUNCTION 2 item_key_sortsupport(internal),
		FUNCTION 4 btequalimage(oid);
COMMENT ON OPERATOR CLASS item_key_ops USING btree IS
	'DynamoDB key order; begins_with becomes an index range through planner support';

CREATE OPERATOR CLASS item_key_hash_ops
	DEFAULT FOR TYPE item_key USING hash AS
		OPERATOR 1 =,
		FUNCTION 1 item_key_hash(item_key),
		FUNCTION 2 item_key_hash_extended(item_key, bigint);
COMMENT ON OPERATOR CLASS item_key_hash_ops USING hash IS
	'hashes only the partition part, so every item of a partition hashes alike';
