-- The database of the gateway tests (scripts/test.sh, suite "gateway"),
-- run by a superuser in a fresh database.  The grants are those the README
-- and docs/gateway.md ask of an installation: the login role reads the key catalog and is a
-- member of each role that keys map to; it has no other right itself.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS item_table;
-- pgvector, where it is installed, for the vector-index tests (which skip
-- without it)
DO $$
BEGIN
	IF EXISTS (SELECT FROM pg_available_extensions WHERE name = 'vector') THEN
		CREATE EXTENSION IF NOT EXISTS vector;
	END IF;
END
$$;
DO $$
DECLARE
	r text;
BEGIN
	FOREACH r IN ARRAY ARRAY['gw_app', 'gw_reader', 'gw_outsider'] LOOP
		IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r) THEN
			EXECUTE format('CREATE ROLE %I NOLOGIN', r);
		END IF;
	END LOOP;
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'gw_login') THEN
		CREATE ROLE gw_login LOGIN NOINHERIT;
	END IF;
END
$$;
GRANT SELECT ON item_table.access_keys TO gw_login;
GRANT gw_app, gw_reader TO gw_login;
GRANT CREATE ON SCHEMA item_data TO gw_app;
