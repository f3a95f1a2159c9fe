-- item_table 1.1 -> 1.2
--
-- An installation updated with ALTER EXTENSION item_table UPDATE ends with
-- the same objects as a fresh 1.2 installation (test/upgrade checks it).
-- Each part below adds what one feature of 1.2 needs.

\echo Use "ALTER EXTENSION item_table UPDATE TO '1.2'" to load this file. \quit
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
		WHERE (p OPERATOR(pg_catalog.%) 16) NOT IN (6, 8)),
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


-- control plane (tags, deletion protection, table class, limits, endpoints,
-- continuous backups)
ALTER TABLE tables
	ADD COLUMN deletion_protection boolean NOT NULL DEFAULT false,
	ADD COLUMN table_class text CHECK (table_class IN ('STANDARD', 'STANDARD_INFREQUENT_ACCESS')),
	ADD COLUMN table_class_updated_at timestamptz;

-- BillingModeSummary.LastUpdateToPayPerRequestDateTime
ALTER TABLE tables ADD COLUMN pay_per_request_at timestamptz;

CREATE TABLE tags (
	table_name text COLLATE "C" NOT NULL
		REFERENCES tables (table_name) ON DELETE CASCADE,
	tag_key text COLLATE "C" NOT NULL,
	tag_value text NOT NULL,
	PRIMARY KEY (table_name, tag_key)
);
COMMENT ON TABLE tags IS 'item_table catalog: tags of tables (TagResource)';
SELECT pg_catalog.pg_extension_config_dump('tags', '');
REVOKE ALL ON tags FROM PUBLIC;
GRANT SELECT ON tags TO PUBLIC;

CREATE FUNCTION tag_resource(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_tag_resource' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION tag_resource(jsonb) IS 'DynamoDB TagResource';
CREATE FUNCTION untag_resource(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_untag_resource' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION untag_resource(jsonb) IS 'DynamoDB UntagResource';
CREATE FUNCTION list_tags_of_resource(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_list_tags_of_resource' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION list_tags_of_resource(jsonb) IS 'DynamoDB ListTagsOfResource';
CREATE FUNCTION describe_limits(request jsonb DEFAULT '{}') RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_describe_limits' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION describe_limits(jsonb) IS 'DynamoDB DescribeLimits';
CREATE FUNCTION describe_endpoints(request jsonb DEFAULT '{}') RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_describe_endpoints' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION describe_endpoints(jsonb) IS 'DynamoDB DescribeEndpoints';
CREATE FUNCTION describe_continuous_backups(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_describe_continuous_backups' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION describe_continuous_backups(jsonb) IS 'DynamoDB DescribeContinuousBackups';

-- PartiQL
CREATE FUNCTION execute_statement(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_execute_statement' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION execute_statement(jsonb) IS 'DynamoDB ExecuteStatement (PartiQL)';
CREATE FUNCTION batch_execute_statement(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_batch_execute_statement' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION batch_execute_statement(jsonb) IS 'DynamoDB BatchExecuteStatement (PartiQL; each statement succeeds or fails alone)';
CREATE FUNCTION execute_transaction(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_execute_transaction' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION execute_transaction(jsonb) IS 'DynamoDB ExecuteTransaction (PartiQL; all or nothing, inside the caller''s transaction)';

-- ---------------------------------------------------------------------
-- background work (worker, backfill, TTL)

-- The backfill of an index being created is resumable and done by the
-- background worker unless the session that created it said manual.
ALTER TABLE indexes
	ADD COLUMN backfill_by text NOT NULL DEFAULT 'worker' CHECK (backfill_by IN ('worker', 'manual')),
	ADD COLUMN backfill_after item_key;
COMMENT ON PROCEDURE backfill_indexes(text, integer) IS
	'fill the indexes that UpdateTable created (status CREATING) from existing items, committing every batch, then mark them ACTIVE (resumes where the last committed batch ended)';
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

-- ---------------------------------------------------------------------
-- DynamoDB Streams: streams, their records, the Streams API, SQL readers
-- and stream consumers (stream.c, api_stream.c, stream_consumer.c)
-- ---------------------------------------------------------------------

-- Sequence numbers of stream records, one counter for every stream (a
-- record's number is taken in the writing transaction; see stream.c for
-- when a number becomes readable).  Readers compute their horizon from
-- its last value, so it is readable by everyone: it is only a counter.
CREATE SEQUENCE stream_sequence;
SELECT pg_catalog.pg_extension_config_dump('stream_sequence', '');
REVOKE ALL ON SEQUENCE stream_sequence FROM PUBLIC;
GRANT SELECT ON SEQUENCE stream_sequence TO PUBLIC;

-- One row per stream a table has had: enabling makes one, disabling closes
-- it (end_seq, disabled_at); a closed stream stays readable until its
-- records are trimmed (24 hours), then its row goes.
CREATE TABLE streams (
	stream_id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	table_name text COLLATE "C" NOT NULL,
	table_id uuid NOT NULL,
	relid oid NOT NULL,
	label text COLLATE "C" NOT NULL,
	view_type text NOT NULL CHECK (view_type IN ('KEYS_ONLY', 'NEW_IMAGE', 'OLD_IMAGE', 'NEW_AND_OLD_IMAGES')),
	hash_key text NOT NULL,
	range_key text,
	owner oid NOT NULL,
	created_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
	start_seq bigint NOT NULL,
	end_seq bigint,
	disabled_at timestamptz,
	trimmed_seq bigint NOT NULL DEFAULT 0,
	UNIQUE (table_name, label),
	CHECK ((end_seq IS NULL) = (disabled_at IS NULL))
);
CREATE UNIQUE INDEX streams_enabled ON streams (table_name) WHERE end_seq IS NULL;
COMMENT ON TABLE streams IS 'item_table catalog: the streams of tables (DynamoDB Streams), open and closed';
SELECT pg_catalog.pg_extension_config_dump('streams', '');
REVOKE ALL ON streams FROM PUBLIC;
GRANT SELECT ON streams TO PUBLIC;

-- The records, written by the stream trigger in the writer's transaction.
-- Readable only through the functions below, which check the reader's
-- rights on the table.
CREATE TABLE stream_records (
	stream_id integer NOT NULL,
	seq bigint NOT NULL,
	created_at timestamptz NOT NULL,
	event "char" NOT NULL CHECK (event IN ('I', 'M', 'R')),
	service boolean NOT NULL,
	key item_key NOT NULL,
	new_image jsonb,
	old_image jsonb,
	PRIMARY KEY (stream_id, seq)
);
COMMENT ON TABLE stream_records IS 'item_table: stream records (one per changed item), trimmed after 24 hours';
REVOKE ALL ON stream_records FROM PUBLIC;

-- The key that authenticates shard iterators (HMAC-SHA256), made at
-- installation; readable by no one but the extension's owner.
CREATE TABLE stream_secret (
	secret bytea NOT NULL
);
COMMENT ON TABLE stream_secret IS 'item_table: the key that signs shard iterators';
REVOKE ALL ON stream_secret FROM PUBLIC;
INSERT INTO stream_secret
	SELECT pg_catalog.uuid_send(pg_catalog.gen_random_uuid()) OPERATOR(pg_catalog.||)
		pg_catalog.uuid_send(pg_catalog.gen_random_uuid()) OPERATOR(pg_catalog.||)
		pg_catalog.uuid_send(pg_catalog.gen_random_uuid());

-- AFTER row trigger on tables that have (had) a stream.
CREATE FUNCTION stream_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME', 'item_table_stream_trigger' LANGUAGE C;
COMMENT ON FUNCTION stream_trigger() IS 'writes the stream records of an item table''s changes';

-- The Streams API (DynamoDBStreams_20120810); as_of stands for the
-- current time (tests of iterator expiry).
CREATE FUNCTION list_streams(request jsonb DEFAULT '{}') RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_list_streams' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION list_streams(jsonb) IS 'DynamoDB Streams ListStreams';
CREATE FUNCTION describe_stream(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_describe_stream' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION describe_stream(jsonb) IS 'DynamoDB Streams DescribeStream';
CREATE FUNCTION get_shard_iterator(request jsonb, as_of timestamptz DEFAULT NULL) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_get_shard_iterator' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION get_shard_iterator(jsonb, timestamptz) IS 'DynamoDB Streams GetShardIterator';
CREATE FUNCTION get_records(request jsonb, as_of timestamptz DEFAULT NULL) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_get_records' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION get_records(jsonb, timestamptz) IS 'DynamoDB Streams GetRecords';

-- A stream read from SQL: the records after a sequence number, in order.
CREATE FUNCTION stream_records(table_name text, after_sequence_number bigint DEFAULT NULL,
		max_records integer DEFAULT 1000, stream_label text DEFAULT NULL)
	RETURNS TABLE (sequence_number bigint, event_name text, keys jsonb, new_image jsonb,
		old_image jsonb, created_at timestamptz, user_identity jsonb, record jsonb)
	AS 'MODULE_PATHNAME', 'item_table_stream_records' LANGUAGE C VOLATILE PARALLEL UNSAFE ROWS 100;
COMMENT ON FUNCTION stream_records(text, bigint, integer, text) IS
	'the records of a table''s stream after a sequence number (by default from the oldest kept), in order, as far as they are final (the latest stream unless a label is given)';

CREATE FUNCTION trim_streams(as_of timestamptz DEFAULT pg_catalog.now(), max_records integer DEFAULT 10000)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'item_table_trim_streams' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION trim_streams(timestamptz, integer) IS
	'delete stream records older than 24 hours as of a given time (the background worker does this); the number deleted';
REVOKE ALL ON FUNCTION trim_streams(timestamptz, integer) FROM PUBLIC;

-- Stream consumers: SQL functions the background worker calls with
-- batches of records.
CREATE TABLE stream_consumers (
	consumer_name text COLLATE "C" PRIMARY KEY,
	table_name text COLLATE "C" NOT NULL,
	stream_id integer NOT NULL,
	function regprocedure NOT NULL,
	run_as regrole NOT NULL,
	batch_size integer NOT NULL CHECK (batch_size BETWEEN 1 AND 10000),
	max_failures integer NOT NULL CHECK (max_failures >= 1),
	last_sequence_number bigint NOT NULL,
	status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'PARKED')),
	failures integer NOT NULL DEFAULT 0,
	batches_done bigint NOT NULL DEFAULT 0,
	records_done bigint NOT NULL DEFAULT 0,
	last_error text,
	failed_batch_first bigint,
	failed_batch_last bigint,
	created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	last_run_at timestamptz
);
COMMENT ON TABLE stream_consumers IS 'item_table: stream consumers, their checkpoint (position) and failures';
SELECT pg_catalog.pg_extension_config_dump('stream_consumers', '');
REVOKE ALL ON stream_consumers FROM PUBLIC;
GRANT SELECT ON stream_consumers TO PUBLIC;

CREATE FUNCTION add_stream_consumer(table_name text, function regprocedure,
		consumer_name text DEFAULT NULL, batch_size integer DEFAULT 100,
		max_failures integer DEFAULT 5, start_at text DEFAULT 'TRIM_HORIZON')
	RETURNS text
	AS 'MODULE_PATHNAME', 'item_table_add_stream_consumer' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION add_stream_consumer(text, regprocedure, text, integer, integer, text) IS
	'register a function f(records jsonb) on a table''s stream: the background worker calls it, as the caller, with batches of records in order';
CREATE FUNCTION remove_stream_consumer(consumer_name text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'item_table_remove_stream_consumer' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION remove_stream_consumer(text) IS 'unregister a stream consumer; true if it existed';
CREATE FUNCTION resume_stream_consumer(consumer_name text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'item_table_resume_stream_consumer' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION resume_stream_consumer(text) IS 'make a parked stream consumer active again (it retries the batch that failed)';
CREATE FUNCTION list_stream_consumers()
	RETURNS TABLE (consumer_name text, table_name text, function regprocedure, run_as regrole,
		status text, last_sequence_number bigint, failures integer, batches_done bigint,
		records_done bigint, last_error text, failed_batch_first bigint, failed_batch_last bigint)
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	AS $$
	SELECT c.consumer_name, c.table_name, c.function, c.run_as, c.status, c.last_sequence_number, c.failures, c.batches_done, c.records_done, c.last_error, c.failed_batch_first, c.failed_batch_last
	FROM item_table.stream_consumers c ORDER BY c.consumer_name
	$$;
COMMENT ON FUNCTION list_stream_consumers() IS 'the stream consumers, their checkpoint and failures';
CREATE FUNCTION run_stream_consumers(max_batches integer DEFAULT 1000) RETURNS bigint
	AS 'MODULE_PATHNAME', 'item_table_run_stream_consumers' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION run_stream_consumers(integer) IS
	'run the stream consumers now, in this transaction, until they are caught up or max_batches batches ran; the number of records delivered (tests; the background worker does this)';
REVOKE ALL ON FUNCTION run_stream_consumers(integer) FROM PUBLIC;
-- Distributed tables (Citus): see src/distributed.c and the README
-- ---------------------------------------------------------------------

-- distribute_table: an item table and its index tables distributed with
-- Citus by their partition part.  Each gets a distribution column (part,
-- ipart for index tables) equal to partition_key() of its key, checked by a
-- constraint and included in the primary key; the maintenance triggers go
-- (the API keeps the index rows itself); a GSI is distributed by its own
-- partition key, an LSI co-located with its table.
CREATE FUNCTION distribute_table(table_name text, shard_count integer DEFAULT 32)
	RETURNS void
	LANGUAGE plpgsql VOLATILE STRICT
	SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	base regclass;
	pk name;
	idx record;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension e
			WHERE e.extname OPERATOR(pg_catalog.=) 'citus') THEN
		RAISE EXCEPTION 'Citus is not installed in this database'
			USING ERRCODE = 'feature_not_supported',
				HINT = 'Install Citus from its own packages, preload it and CREATE EXTENSION citus on the coordinator and every worker (README, "Distributed tables (Citus)").';
	END IF;
	IF shard_count OPERATOR(pg_catalog.<) 1 OR shard_count OPERATOR(pg_catalog.>) 64000 THEN
		RAISE EXCEPTION 'shard_count must be between 1 and 64000' USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT t.relid INTO base FROM item_table.tables t
		WHERE t.table_name OPERATOR(pg_catalog.=) distribute_table.table_name;
	IF base IS NULL THEN
		RAISE EXCEPTION 'item table "%" does not exist', distribute_table.table_name
			USING ERRCODE = 'undefined_table';
	END IF;
	IF NOT pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c
			WHERE c.oid OPERATOR(pg_catalog.=) base), 'USAGE') THEN
		RAISE EXCEPTION 'must be owner of item table "%"', distribute_table.table_name
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition p
			WHERE p.logicalrelid OPERATOR(pg_catalog.=) base) THEN
		RAISE EXCEPTION 'item table "%" is already distributed', distribute_table.table_name
			USING ERRCODE = 'object_in_use';
	END IF;
	IF EXISTS (SELECT 1 FROM item_table.indexes i
			WHERE i.table_name OPERATOR(pg_catalog.=) distribute_table.table_name
			AND i.status OPERATOR(pg_catalog.<>) 'ACTIVE') THEN
		RAISE EXCEPTION 'item table "%" has an index being created', distribute_table.table_name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				HINT = 'Wait until backfill_indexes() has made every index ACTIVE.';
	END IF;

	IF EXISTS (SELECT 1 FROM item_table.streams s
			WHERE s.table_name OPERATOR(pg_catalog.=) distribute_table.table_name
			AND s.end_seq IS NULL) THEN
		RAISE EXCEPTION 'item table "%" has an enabled stream', distribute_table.table_name
			USING ERRCODE = 'feature_not_supported',
				HINT = 'Streams are captured by a trigger, which Citus cannot run on shards: disable the stream (UpdateTable StreamSpecification) before distributing.';
	END IF;

	-- the base table: part, its check, the primary key (key, part), no triggers
	EXECUTE pg_catalog.format('ALTER TABLE %s ADD COLUMN part item_table.item_key'
		' GENERATED ALWAYS AS (item_table.partition_key(key)) STORED', base);
	EXECUTE pg_catalog.format('ALTER TABLE %s ALTER COLUMN part DROP EXPRESSION', base);
	SELECT c.conname INTO pk FROM pg_catalog.pg_constraint c
		WHERE c.conrelid OPERATOR(pg_catalog.=) base AND c.contype OPERATOR(pg_catalog.=) 'p';
	EXECUTE pg_catalog.format('ALTER TABLE %s ADD CONSTRAINT part_is_partition_key'
		' CHECK (part OPERATOR(item_table.=) item_table.partition_key(key)),'
		' DROP CONSTRAINT %I, ADD PRIMARY KEY (key, part)', base, pk);
	EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS item_table_indexes ON %s', base);
	EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS item_table_indexes_truncate ON %s', base);
	EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS zz_item_guard ON %s', base);
	EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS item_table_stream ON %s', base);
	PERFORM pg_catalog.create_distributed_table(base, 'part',
		shard_count => distribute_table.shard_count);

	-- index tables: ipart, by their own partition key
	FOR idx IN SELECT i.relid, i.kind FROM item_table.indexes i
			WHERE i.table_name OPERATOR(pg_catalog.=) distribute_table.table_name
			ORDER BY i.index_name LOOP
		EXECUTE pg_catalog.format('ALTER TABLE %s ADD COLUMN ipart item_table.item_key'
			' GENERATED ALWAYS AS (item_table.partition_key(ikey)) STORED', idx.relid);
		EXECUTE pg_catalog.format('ALTER TABLE %s ALTER COLUMN ipart DROP EXPRESSION', idx.relid);
		SELECT c.conname INTO pk FROM pg_catalog.pg_constraint c
			WHERE c.conrelid OPERATOR(pg_catalog.=) idx.relid AND c.contype OPERATOR(pg_catalog.=) 'p';
		EXECUTE pg_catalog.format('ALTER TABLE %s ADD CONSTRAINT ipart_is_partition_key'
			' CHECK (ipart OPERATOR(item_table.=) item_table.partition_key(ikey)),'
			' DROP CONSTRAINT %I, ADD PRIMARY KEY (ikey, key, ipart)', idx.relid, pk);
		IF idx.kind OPERATOR(pg_catalog.=) 'LSI' THEN
			-- same partition as its table: on the same shards
			PERFORM pg_catalog.create_distributed_table(idx.relid, 'ipart',
				colocate_with => base::text);
		ELSE
			PERFORM pg_catalog.create_distributed_table(idx.relid, 'ipart',
				shard_count => distribute_table.shard_count);
		END IF;
	END LOOP;
END;
$$;
COMMENT ON FUNCTION distribute_table(text, integer) IS
	'distribute an item table and its index tables with Citus by partition key (see the README, "Distributed tables (Citus)")';


-- the plans of the item statements the API sends for one key
CREATE FUNCTION explain_item(table_name text, key jsonb) RETURNS SETOF text
	AS 'MODULE_PATHNAME', 'item_table_explain_item' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION explain_item(text, jsonb) IS
	'the plans (EXPLAIN) of the item statements (GetItem, PutItem, UpdateItem, DeleteItem) the API runs on a distributed table for one key: each should show Task Count: 1';

CREATE FUNCTION undistribute_table(table_name text) RETURNS void
	AS 'MODULE_PATHNAME', 'item_table_undistribute_table' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION undistribute_table(text) IS
	'bring a table distributed with distribute_table() and its index tables back to the coordinator, as ordinary item tables';
