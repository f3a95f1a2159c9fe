
-- ---------------------------------------------------------------------
-- The roles of access keys and stream consumers (role_guard.c).  While a
-- role has an access key or a stream consumer here, it holds USAGE on this
-- domain: an ACL entry, so PostgreSQL's own dependency check refuses
-- DROP ROLE of it (in every database of the cluster) until DROP OWNED BY
-- in this database.  PUBLIC has USAGE on the domain anyway: the grant
-- gives nothing.  A key or consumer whose role does not hold it is never
-- used.  The trigger grants and revokes it, with the extension owner's
-- rights.
-- ---------------------------------------------------------------------
CREATE DOMAIN role_of_access_keys_or_consumers AS boolean;
COMMENT ON DOMAIN role_of_access_keys_or_consumers IS
	'item_table: granted (USAGE) to each role that has access keys or stream consumers, so that it cannot be dropped before them';

CREATE FUNCTION role_guard_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME', 'item_table_role_guard_trigger' LANGUAGE C;
COMMENT ON FUNCTION role_guard_trigger() IS
	'grants the role of an access key or stream consumer USAGE on role_of_access_keys_or_consumers while it has any';
CREATE TRIGGER role_guard AFTER INSERT OR DELETE OR UPDATE OF role ON access_keys
	FOR EACH ROW EXECUTE FUNCTION role_guard_trigger('role');
CREATE TRIGGER role_guard AFTER INSERT OR DELETE OR UPDATE OF run_as ON stream_consumers
	FOR EACH ROW EXECUTE FUNCTION role_guard_trigger('run_as');
