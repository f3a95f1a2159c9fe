
-- ---------------------------------------------------------------------
-- Background work: the worker, Time to Live, progress (worker.c, ttl.c)
-- ---------------------------------------------------------------------

-- Time to Live, one row per table that has had it enabled.
CREATE TABLE time_to_live (
	table_name text COLLATE "C" PRIMARY KEY REFERENCES tables (table_name) ON DELETE CASCADE,
	attribute_name text NOT NULL,
	status text NOT NULL CHECK (status IN ('ENABLED', 'DISABLED')),
	updated_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	items_expired bigint NOT NULL DEFAULT 0,
	last_expired_at timestamptz
);
COMMENT ON TABLE time_to_live IS 'item_table catalog: the Time to Live attribute of each table and what expiry has deleted';
SELECT pg_catalog.pg_extension_config_dump('time_to_live', '');
REVOKE ALL ON time_to_live FROM PUBLIC;
GRANT SELECT ON time_to_live TO PUBLIC;

CREATE FUNCTION update_time_to_live(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_update_time_to_live' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION update_time_to_live(jsonb) IS 'DynamoDB UpdateTimeToLive';
CREATE FUNCTION describe_time_to_live(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_describe_time_to_live' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION describe_time_to_live(jsonb) IS 'DynamoDB DescribeTimeToLive';

CREATE FUNCTION expire_items(table_name text, as_of timestamptz DEFAULT pg_catalog.now(),
		max_items integer DEFAULT 1000) RETURNS bigint
	AS 'MODULE_PATHNAME', 'item_table_expire_items' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION expire_items(text, timestamptz, integer) IS
	'one Time to Live expiry batch as of a given time: delete up to max_items expired items (through the index triggers); the number deleted';

CREATE FUNCTION start_worker() RETURNS boolean
	AS 'MODULE_PATHNAME', 'item_table_start_worker' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION start_worker() IS
	'start the background worker of the current database (needed only without shared_preload_libraries, after a server restart)';
REVOKE ALL ON FUNCTION start_worker() FROM PUBLIC;

-- What the background worker has to do, and how far it got.
CREATE VIEW background_work AS
	SELECT 'backfill'::text AS work, i.table_name, i.index_name, i.status, i.backfill_by AS done_by,
		i.backfilled AS items_done, i.backfill_after AS position, i.created_at AS since, NULL::timestamptz AS last_progress_at
	FROM indexes i WHERE i.status OPERATOR(pg_catalog.=) 'CREATING'
	UNION ALL
	SELECT 'time to live', t.table_name, t.attribute_name, t.status, 'worker',
		t.items_expired, NULL, t.updated_at, t.last_expired_at
	FROM time_to_live t WHERE t.status OPERATOR(pg_catalog.=) 'ENABLED';
COMMENT ON VIEW background_work IS
	'background work: indexes being backfilled (items done, resume position) and tables with Time to Live enabled (items expired)';
GRANT SELECT ON background_work TO PUBLIC;
