
-- ---------------------------------------------------------------------
-- DynamoDB Streams: streams, their records, the Streams API, SQL readers
-- and stream consumers (stream.c, api_stream.c, stream_consumer.c)
-- ---------------------------------------------------------------------

-- Sequence numbers of stream records, one counter for every stream (a
-- record's number is taken in the writing transaction; see stream.c for
-- when a number becomes readable).  Each nextval reserves a block of 100
-- numbers, handed out by a counter in shared memory when the library is
-- preloaded (stream_number.c); otherwise each record takes one nextval.
-- Readers compute their horizon from its last value, so it is readable by
-- everyone: it is only a counter.
CREATE SEQUENCE stream_sequence INCREMENT BY 100;
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

-- The Streams API (DynamoDBStreams_20120810).  Iterators are issued and
-- checked at the server's time; the as_of variants, which take the time to
-- use as now (tests of iterator expiry), are not for PUBLIC: whoever may
-- choose the time can make an iterator that never expires.
CREATE FUNCTION list_streams(request jsonb DEFAULT '{}') RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_list_streams' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION list_streams(jsonb) IS 'DynamoDB Streams ListStreams';
CREATE FUNCTION describe_stream(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_describe_stream' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION describe_stream(jsonb) IS 'DynamoDB Streams DescribeStream';
CREATE FUNCTION get_shard_iterator(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_get_shard_iterator' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION get_shard_iterator(jsonb) IS 'DynamoDB Streams GetShardIterator';
CREATE FUNCTION get_records(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_get_records' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION get_records(jsonb) IS 'DynamoDB Streams GetRecords';
CREATE FUNCTION get_shard_iterator(request jsonb, as_of timestamptz) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_get_shard_iterator_as_of' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION get_shard_iterator(jsonb, timestamptz) IS
	'DynamoDB Streams GetShardIterator as if the time were as_of (tests of iterator expiry; superusers only)';
REVOKE ALL ON FUNCTION get_shard_iterator(jsonb, timestamptz) FROM PUBLIC;
CREATE FUNCTION get_records(request jsonb, as_of timestamptz) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_get_records_as_of' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION get_records(jsonb, timestamptz) IS
	'DynamoDB Streams GetRecords as if the time were as_of (tests of iterator expiry; superusers only)';
REVOKE ALL ON FUNCTION get_records(jsonb, timestamptz) FROM PUBLIC;

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
