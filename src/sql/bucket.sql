-- ---------------------------------------------------------------------
-- Buckets: server directories registered by a superuser for the server to
-- read (import) and write (export) files in, and the roles that may
-- (bucket.c; docs/backups.md, "Buckets")
-- ---------------------------------------------------------------------

CREATE TABLE buckets (
	bucket_name text COLLATE "C" PRIMARY KEY,
	-- only server directories today; a type for S3-compatible storage can
	-- join under the same calls
	bucket_type text NOT NULL DEFAULT 'directory' CHECK (bucket_type IN ('directory')),
	location text NOT NULL,		-- the directory's canonical path
	created_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE buckets IS 'item_table catalog: buckets (server directories for export and import files)';
SELECT pg_catalog.pg_extension_config_dump('buckets', '');
REVOKE ALL ON buckets FROM PUBLIC;

-- Who may read and write a bucket: the role by OID and name (a grant
-- counts only while the role of that OID has that name).
CREATE TABLE bucket_grants (
	bucket_name text COLLATE "C" NOT NULL REFERENCES buckets ON DELETE CASCADE,
	grantee oid NOT NULL,
	grantee_name name NOT NULL,
	can_read boolean NOT NULL,
	can_write boolean NOT NULL,
	PRIMARY KEY (bucket_name, grantee)
);
COMMENT ON TABLE bucket_grants IS 'item_table catalog: the roles that may read or write each bucket';
SELECT pg_catalog.pg_extension_config_dump('bucket_grants', '');
REVOKE ALL ON bucket_grants FROM PUBLIC;

CREATE FUNCTION create_bucket(name text, directory text) RETURNS text
	AS 'MODULE_PATHNAME', 'item_table_create_bucket' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION create_bucket(text, text) IS
	'register a directory of the server as a bucket (superusers only); its canonical path';
REVOKE ALL ON FUNCTION create_bucket(text, text) FROM PUBLIC;

CREATE FUNCTION drop_bucket(name text) RETURNS boolean
	LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
		RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = 'permission denied to drop a bucket';
	END IF;
	DELETE FROM item_table.buckets b WHERE b.bucket_name = name;
	RETURN FOUND;
END $$;
COMMENT ON FUNCTION drop_bucket(text) IS 'forget a bucket and its grants (superusers only; the files stay); whether it existed';
REVOKE ALL ON FUNCTION drop_bucket(text) FROM PUBLIC;

CREATE FUNCTION grant_bucket(name text, role regrole, can_read boolean DEFAULT true, can_write boolean DEFAULT false)
	RETURNS void
	LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
		RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = 'permission denied to grant rights on a bucket';
	END IF;
	IF NOT EXISTS (SELECT FROM item_table.buckets b WHERE b.bucket_name = name) THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object', MESSAGE = format('bucket "%s" does not exist', name);
	END IF;
	INSERT INTO item_table.bucket_grants AS g (bucket_name, grantee, grantee_name, can_read, can_write)
	VALUES (name, role, (SELECT rolname FROM pg_roles WHERE oid = role), grant_bucket.can_read, grant_bucket.can_write)
	ON CONFLICT (bucket_name, grantee) DO UPDATE
		SET grantee_name = EXCLUDED.grantee_name, can_read = EXCLUDED.can_read, can_write = EXCLUDED.can_write;
END $$;
COMMENT ON FUNCTION grant_bucket(text, regrole, boolean, boolean) IS
	'let a role (and the roles with its privileges) read and/or write a bucket (superusers only); replaces its earlier grant';
REVOKE ALL ON FUNCTION grant_bucket(text, regrole, boolean, boolean) FROM PUBLIC;

CREATE FUNCTION revoke_bucket(name text, role regrole) RETURNS boolean
	LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
		RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = 'permission denied to revoke rights on a bucket';
	END IF;
	DELETE FROM item_table.bucket_grants g WHERE g.bucket_name = name AND g.grantee = role;
	RETURN FOUND;
END $$;
COMMENT ON FUNCTION revoke_bucket(text, regrole) IS 'take a role''s rights on a bucket away (superusers only); whether it had any';
REVOKE ALL ON FUNCTION revoke_bucket(text, regrole) FROM PUBLIC;

-- The buckets the caller may use (a superuser: all), with its rights.
CREATE FUNCTION list_buckets_json() RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_list_buckets' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION list_buckets_json() IS 'the buckets the caller may read or write, as a JSON array';
CREATE FUNCTION list_buckets()
	RETURNS TABLE (bucket_name text, bucket_type text, location text, can_read boolean, can_write boolean)
	LANGUAGE sql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
	SELECT b.bucket_name, b.bucket_type, b.location, b.can_read, b.can_write
	FROM jsonb_to_recordset(item_table.list_buckets_json())
		AS b(bucket_name text, bucket_type text, location text, can_read boolean, can_write boolean)
$$;
COMMENT ON FUNCTION list_buckets() IS 'the buckets the caller may read or write (a superuser: all), with its rights';

-- A path inside a bucket, checked: the file name the server reads or
-- writes (bucket.c).
CREATE FUNCTION bucket_path(bucket text, key text, mode text DEFAULT 'read') RETURNS text
	AS 'MODULE_PATHNAME', 'item_table_bucket_path' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bucket_path(text, text, text) IS
	'the server file name of a path inside a bucket, for reading or writing (mode ''read'' or ''write''), if the caller may and the path stays inside';
