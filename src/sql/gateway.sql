
-- ---------------------------------------------------------------------
-- Access keys of item_table_gateway (gateway/): AWS-style access key ids
-- and secrets, each mapped to the PostgreSQL role whose privileges its
-- requests run with.
--
-- The secrets are kept as they are, because SigV4 needs them to compute
-- the signature.  So PUBLIC has no right on the table: an administrator
-- manages keys (these functions run as the caller, like the rest of the
-- API, so the caller needs INSERT, DELETE and SELECT on the table), and
-- grants SELECT on it to the gateway's login role only.
-- ---------------------------------------------------------------------
CREATE TABLE access_keys (
	access_key_id text COLLATE "C" PRIMARY KEY
		CHECK (access_key_id OPERATOR(pg_catalog.~) '^[A-Z0-9]{16,128}$'),
	secret_access_key text COLLATE "C" NOT NULL,
	role regrole NOT NULL,		-- requests signed with the key run as this role
	created_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE access_keys IS 'item_table: access keys of item_table_gateway (access key id, secret, role)';
REVOKE ALL ON access_keys FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('access_keys', '');

-- A new key for a role: a 20-character id (AKIT and 16 of A-Z, 2-7) and a
-- 40-character secret (A-Z, a-z, 0-9), both from gen_random_uuid(), that
-- is from pg_strong_random().  Only the bytes of a UUID that are wholly
-- random are used (not the version and variant bits).
CREATE FUNCTION create_access_key(role regrole)
	RETURNS TABLE (access_key_id text, secret_access_key text)
	LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
	AS $$
	WITH r AS (
		SELECT pg_catalog.uuid_send(pg_catalog.gen_random_uuid())
			OPERATOR(pg_catalog.||) pg_catalog.uuid_send(pg_catalog.gen_random_uuid())
			OPERATOR(pg_catalog.||) pg_catalog.uuid_send(pg_catalog.gen_random_uuid()) AS b),
	pos AS (		-- the 42 wholly random byte positions of three UUIDs
		SELECT p, pg_catalog.row_number() OVER (ORDER BY p) AS n
		FROM pg_catalog.generate_series(0, 47) p
		WHERE NOT ((p OPERATOR(pg_catalog.%) 16) OPERATOR(pg_catalog.=) ANY (ARRAY[6, 8]))),
	k AS (
		SELECT 'AKIT' OPERATOR(pg_catalog.||) pg_catalog.string_agg(
				pg_catalog.substr('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567',
					(pg_catalog.get_byte(r.b, pos.p) OPERATOR(pg_catalog.%) 32) OPERATOR(pg_catalog.+) 1, 1),
				'' ORDER BY pos.p) FILTER (WHERE pos.n OPERATOR(pg_catalog.<=) 16) AS id,
			pg_catalog.translate(pg_catalog.encode(pg_catalog.string_agg(
				pg_catalog.substr(r.b, pos.p OPERATOR(pg_catalog.+) 1, 1), ''::bytea ORDER BY pos.p)
				FILTER (WHERE pos.n OPERATOR(pg_catalog.>) 12), 'base64'), '+/', 'xz') AS secret
		FROM r, pos)
	INSERT INTO item_table.access_keys (access_key_id, secret_access_key, role)
	SELECT k.id, k.secret, $1 FROM k
	RETURNING access_keys.access_key_id, access_keys.secret_access_key
	$$;
COMMENT ON FUNCTION create_access_key(regrole) IS
	'item_table_gateway: a new access key id and secret whose requests run as the role (needs INSERT on item_table.access_keys)';

CREATE FUNCTION delete_access_key(access_key_id text) RETURNS boolean
	LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
	AS $$
	WITH d AS (
		DELETE FROM item_table.access_keys k
		WHERE k.access_key_id OPERATOR(pg_catalog.=) $1
		RETURNING 1)
	SELECT pg_catalog.count(*) OPERATOR(pg_catalog.>) 0 FROM d
	$$;
COMMENT ON FUNCTION delete_access_key(text) IS
	'item_table_gateway: remove an access key; true if it existed (needs DELETE and SELECT on item_table.access_keys)';

CREATE FUNCTION list_access_keys()
	RETURNS TABLE (access_key_id text, role regrole, created_at timestamptz)
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	AS $$
	SELECT k.access_key_id, k.role, k.created_at
	FROM item_table.access_keys k
	ORDER BY k.created_at, k.access_key_id
	$$;
COMMENT ON FUNCTION list_access_keys() IS
	'item_table_gateway: the access keys without their secrets (needs SELECT on the columns listed)';

-- The gateway's one data call: dynamodb(action, request) run as role, for
-- a caller that may SET ROLE to it (the gateway's login role).  The
-- role's own code that the request reaches (triggers, defaults, policies)
-- cannot leave the role, its settings and its session-level advisory
-- locks end with the call, statements whose effect would outlive the
-- request are refused, and deferred triggers fire before it returns.
-- reusable is false when the call left temporary objects in the session:
-- close it (or DISCARD ALL) before it serves another role.  See
-- src/api/gateway_call.c and docs/security.md ("Tenants of one gateway").
CREATE FUNCTION dynamodb_as(role regrole, action text, request jsonb,
		OUT response jsonb, OUT reusable boolean)
	AS 'MODULE_PATHNAME', 'item_table_dynamodb_as' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION dynamodb_as(regrole, text, jsonb) IS
	'item_table_gateway: dynamodb(action, request) as a role the caller may SET ROLE to, confined to it; reusable is false when the session must not serve another request';
