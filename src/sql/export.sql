-- ---------------------------------------------------------------------
-- Exports and imports: ExportTableToPointInTime, DescribeExport,
-- ListExports, ImportTable, DescribeImport, ListImports (export_import.c
-- writes and reads the files; the calls are PL/pgSQL here; docs/backups.md,
-- "Export and import")
-- ---------------------------------------------------------------------

CREATE TABLE exports (
	export_id text COLLATE "C" PRIMARY KEY,		-- <milliseconds, 14 digits>-<8 hex>
	export_arn text COLLATE "C" NOT NULL UNIQUE,
	table_name text COLLATE "C" NOT NULL,
	table_id uuid NOT NULL,
	owner oid NOT NULL,			-- the role that asked for it
	status text NOT NULL CHECK (status IN ('IN_PROGRESS', 'COMPLETED', 'FAILED')),
	export_type text NOT NULL,
	export_format text NOT NULL,
	export_time timestamptz,
	from_time timestamptz,
	to_time timestamptz,
	view_type text,
	s3_bucket text NOT NULL,
	s3_prefix text,
	client_token text,
	call_request jsonb NOT NULL,
	start_time timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
	end_time timestamptz,
	item_count bigint NOT NULL DEFAULT 0,
	billed_size_bytes bigint NOT NULL DEFAULT 0,
	manifest_key text,
	failure_code text,
	failure_message text,
	-- the worker's progress (export_jobs.c): items per data file (the
	-- caller's item_table.export_file_items), the files written (their
	-- manifest-files.json lines) and the key the next one starts after
	file_items integer NOT NULL DEFAULT 100000 CHECK (file_items > 0),
	data_files jsonb NOT NULL DEFAULT '[]',
	resume_key item_key
);
CREATE INDEX exports_table ON exports (table_name, export_id);
COMMENT ON TABLE exports IS 'item_table catalog: exports (ExportTableToPointInTime)';
SELECT pg_catalog.pg_extension_config_dump('exports', '');
REVOKE ALL ON exports FROM PUBLIC;
GRANT SELECT ON exports TO PUBLIC;

CREATE TABLE imports (
	import_id text COLLATE "C" PRIMARY KEY,
	import_arn text COLLATE "C" NOT NULL UNIQUE,
	table_name text COLLATE "C" NOT NULL,
	table_id uuid,
	owner oid NOT NULL,
	status text NOT NULL CHECK (status IN ('IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLING', 'CANCELLED')),
	call_request jsonb NOT NULL,
	client_token text,
	start_time timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
	end_time timestamptz,
	processed_item_count bigint NOT NULL DEFAULT 0,
	processed_size_bytes bigint NOT NULL DEFAULT 0,
	imported_item_count bigint NOT NULL DEFAULT 0,
	error_count bigint NOT NULL DEFAULT 0,
	error_file_key text,	-- the bucket key of the bad lines' descriptions
	failure_message text
);
CREATE INDEX imports_table ON imports (table_name, import_id);
COMMENT ON TABLE imports IS 'item_table catalog: imports (ImportTable)';
SELECT pg_catalog.pg_extension_config_dump('imports', '');
REVOKE ALL ON imports FROM PUBLIC;
GRANT SELECT ON imports TO PUBLIC;

-- the file steps (export_import.c): each resolves its files through
-- bucket_path(), which checks the caller's right on the bucket
CREATE FUNCTION bucket_write_text(bucket text, key text, content text) RETURNS void
	AS 'MODULE_PATHNAME', 'item_table_bucket_write_text' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION bucket_write_text(text, text, text) IS 'a small text file written into a bucket (needs write on it)';
CREATE FUNCTION bucket_files(bucket text, prefix text) RETURNS SETOF text
	AS 'MODULE_PATHNAME', 'item_table_bucket_files' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION bucket_files(text, text) IS 'the files under a key prefix of a bucket, in name order (needs read on it)';
CREATE FUNCTION import_load_file(import_id text, key text, format text, compression text,
		delimiter text, header text[], key_types jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_import_load_file' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_load_file(text, text, text, text, text, text[], jsonb) IS
	'one file of the caller''s import in progress loaded into its table by PutItem, bad lines counted and skipped, the counts added to the import (needs read on the bucket)';

CREATE FUNCTION import_build_indexes(table_name text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'item_table_import_build_indexes' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION import_build_indexes(text) IS
	'the index rows of a table just loaded by import_load_file() built in one pass (only a table made in this transaction)';

-- the catalog rows (export_jobs.c): made and moved on only by these
-- steps, which fill in ids, owner (the caller), status, times and counts
-- themselves; an export's end state is the background worker's
CREATE FUNCTION export_begin(table_name text, export_type text, export_format text, export_time timestamptz,
		from_time timestamptz, to_time timestamptz, view_type text, bucket text, prefix text,
		client_token text, request jsonb) RETURNS text
	AS 'MODULE_PATHNAME', 'item_table_export_begin' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION export_begin(text, text, text, timestamptz, timestamptz, timestamptz, text, text, text, text, jsonb) IS
	'a new export of the caller''s, IN_PROGRESS, for the background worker (needs SELECT on the table and write on the bucket); its id';
CREATE FUNCTION import_begin(table_name text, client_token text, request jsonb) RETURNS text
	AS 'MODULE_PATHNAME', 'item_table_import_begin' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_begin(text, text, jsonb) IS 'a new import of the caller''s, IN_PROGRESS; its id';
CREATE FUNCTION import_finish(import_id text, failure text, error_file boolean) RETURNS void
	AS 'MODULE_PATHNAME', 'item_table_import_finish' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_finish(text, text, boolean) IS
	'the caller''s import in progress ended: COMPLETED with its counts, or FAILED (failure)';

-- an export's folder: <S3Prefix>/AWSDynamoDB/<export id>
CREATE FUNCTION export_base_key(prefix text, id text) RETURNS text
	LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT coalesce(nullif(rtrim(prefix, '/'), '') || '/', '') || 'AWSDynamoDB/' || id
$$;

-- the exceptions of these calls that backup_raise() does not know
CREATE FUNCTION export_raise(exception text, message text) RETURNS void
	LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	code text := CASE exception
		WHEN 'ExportNotFoundException' THEN 'XD027'
		WHEN 'InvalidExportTimeException' THEN 'XD028'
		WHEN 'ImportNotFoundException' THEN 'XD029'
		WHEN 'ExportConflictException' THEN 'XD030'
		WHEN 'ImportConflictException' THEN 'XD031'
		ELSE NULL END;
BEGIN
	IF code IS NULL THEN
		PERFORM item_table.backup_raise(exception, message);
	END IF;
	RAISE EXCEPTION USING ERRCODE = code, MESSAGE = exception || ': ' || message,
		DETAIL = '{"__type":' || to_json('com.amazonaws.dynamodb.v20120810#' || exception)::text
			|| ',"message":' || to_json(message)::text || '}';
END $$;

-- a string member's problems: type, then enum or length; NULL allowed
CREATE FUNCTION export_enum_problem(v jsonb, member text, field text, allowed text[]) RETURNS text[]
	LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF v IS NULL OR jsonb_typeof(v) = 'null' THEN
		RETURN '{}';
	END IF;
	IF jsonb_typeof(v) <> 'string' THEN
		PERFORM item_table.backup_wrong_type(member, v, 'a string');
	END IF;
	IF NOT (v #>> '{}') = ANY (allowed) THEN
		RETURN ARRAY[format('Value ''%s'' at ''%s'' failed to satisfy constraint: Member must satisfy enum value set: [%s]',
			v #>> '{}', field, array_to_string(allowed, ', '))];
	END IF;
	RETURN '{}';
END $$;

CREATE FUNCTION export_string_problem(v jsonb, member text, field text, required boolean, max_len integer)
	RETURNS text[]
	LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF v IS NULL OR jsonb_typeof(v) = 'null' THEN
		IF required THEN
			RETURN ARRAY[format('Value null at ''%s'' failed to satisfy constraint: Member must not be null', field)];
		END IF;
		RETURN '{}';
	END IF;
	IF jsonb_typeof(v) <> 'string' THEN
		PERFORM item_table.backup_wrong_type(member, v, 'a string');
	END IF;
	IF length(v #>> '{}') > max_len THEN
		RETURN ARRAY[format('Value ''%s'' at ''%s'' failed to satisfy constraint: Member must have length less than or equal to %s',
			v #>> '{}', field, max_len)];
	END IF;
	RETURN '{}';
END $$;

-- a bucket the caller may use (bucket_path() checks the right itself
-- when the files are opened): AccessDeniedException when it may not see it
CREATE FUNCTION export_check_bucket(name text) RETURNS void
	LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF NOT EXISTS (SELECT FROM item_table.list_buckets() b WHERE b.bucket_name = name) THEN
		RAISE EXCEPTION USING ERRCODE = 'XD018',
			MESSAGE = 'AccessDeniedException: ' || format('No bucket ''%s'' that the caller may use', name),
			DETAIL = '{"__type":"com.amazon.coral.service#AccessDeniedException","Message":'
				|| to_json(format('No bucket ''%s'' that the caller may use', name))::text || '}';
	END IF;
END $$;

-- a new export or import id: <milliseconds, 14 digits>-<8 hex>
CREATE FUNCTION export_new_id() RETURNS text
	LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
	SELECT lpad(floor(date_part('epoch', clock_timestamp()) * 1000)::int8::text, 14, '0')
		|| '-' || substr(md5(gen_random_uuid()::text), 1, 8)
$$;

CREATE FUNCTION export_iso(t timestamptz) RETURNS text
	LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

CREATE FUNCTION export_table_arn(name text) RETURNS text
	LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT 'arn:aws:dynamodb:local:000000000000:table/' || name
$$;

-- ---------------------------------------------------------------------
-- exports
-- ---------------------------------------------------------------------

CREATE FUNCTION export_description(e item_table.exports) RETURNS jsonb
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT jsonb_strip_nulls(jsonb_build_object(
		'ExportArn', e.export_arn, 'ExportStatus', e.status,
		'StartTime', item_table.backup_epoch(e.start_time),
		'EndTime', item_table.backup_epoch(e.end_time),
		'ExportManifest', e.manifest_key,
		'TableArn', item_table.export_table_arn(e.table_name), 'TableId', e.table_id,
		'ExportTime', item_table.backup_epoch(e.export_time),
		'ClientToken', e.client_token,
		'S3Bucket', e.s3_bucket, 'S3Prefix', e.s3_prefix,
		'S3BucketOwner', e.call_request -> 'S3BucketOwner',
		'S3SseAlgorithm', coalesce(e.call_request ->> 'S3SseAlgorithm', 'AES256'),
		'FailureCode', e.failure_code, 'FailureMessage', e.failure_message,
		'ExportFormat', e.export_format, 'BilledSizeBytes', e.billed_size_bytes,
		'ItemCount', e.item_count, 'ExportType', e.export_type,
		'IncrementalExportSpecification', CASE WHEN e.export_type = 'INCREMENTAL_EXPORT' THEN jsonb_build_object(
			'ExportFromTime', item_table.backup_epoch(e.from_time),
			'ExportToTime', item_table.backup_epoch(e.to_time),
			'ExportViewType', e.view_type) END))
$$;

-- the manifests of a finished export: {manifest-summary.json,
-- manifest-files.json} (the worker writes them, export_jobs.c)
CREATE FUNCTION export_manifests(id text) RETURNS text[]
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT ARRAY[jsonb_build_object('version', CASE WHEN e.export_type = 'FULL_EXPORT' THEN '2020-06-30' ELSE '2023-08-01' END,
			'exportArn', e.export_arn,
			'startTime', item_table.export_iso(e.start_time), 'endTime', item_table.export_iso(e.end_time),
			'tableArn', item_table.export_table_arn(e.table_name), 'tableId', e.table_id,
			'exportTime', item_table.export_iso(coalesce(e.export_time, e.to_time)),
			's3Bucket', e.s3_bucket, 's3Prefix', e.s3_prefix,
			's3SseAlgorithm', coalesce(e.call_request ->> 'S3SseAlgorithm', 'AES256'), 's3SseKmsKeyId', NULL,
			'manifestFilesS3Key', item_table.export_base_key(e.s3_prefix, e.export_id) || '/manifest-files.json',
			'billedSizeBytes', e.billed_size_bytes, 'itemCount', e.item_count,
			'outputFormat', e.export_format, 'exportType', e.export_type)::text || E'\n',
		coalesce((SELECT string_agg(f::text, E'\n' ORDER BY n) || E'\n'
			FROM jsonb_array_elements(e.data_files) WITH ORDINALITY AS x(f, n)), '')]
	FROM item_table.exports e WHERE e.export_id = id
$$;

CREATE FUNCTION export_table_to_point_in_time(request jsonb) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	p text[];
	inc jsonb := request -> 'IncrementalExportSpecification';
	kind text := coalesce(request ->> 'ExportType', 'FULL_EXPORT');
	fmt text := coalesce(request ->> 'ExportFormat', 'DYNAMODB_JSON');
	view_type text;
	t item_table.tables;
	c item_table.continuous_backups;
	now_ts timestamptz := date_trunc('milliseconds', clock_timestamp());
	earliest timestamptz;
	at timestamptz;
	from_t timestamptz;
	to_t timestamptz;
	id text;
	e item_table.exports;
BEGIN
	PERFORM item_table.backup_members(request, '{}');
	p := item_table.export_string_problem(request -> 'TableArn', 'TableArn', 'tableArn', true, 1024)
		|| item_table.export_string_problem(request -> 'S3Bucket', 'S3Bucket', 's3Bucket', true, 255)
		|| item_table.export_string_problem(request -> 'S3Prefix', 'S3Prefix', 's3Prefix', false, 1024)
		|| item_table.export_string_problem(request -> 'ClientToken', 'ClientToken', 'clientToken', false, 36)
		|| item_table.export_enum_problem(request -> 'ExportFormat', 'ExportFormat', 'exportFormat', '{DYNAMODB_JSON,ION}')
		|| item_table.export_enum_problem(request -> 'ExportType', 'ExportType', 'exportType', '{FULL_EXPORT,INCREMENTAL_EXPORT}')
		|| item_table.export_enum_problem(request -> 'S3SseAlgorithm', 'S3SseAlgorithm', 's3SseAlgorithm', '{AES256,KMS}');
	IF inc IS NOT NULL AND jsonb_typeof(inc) <> 'null' THEN
		IF jsonb_typeof(inc) <> 'object' THEN
			PERFORM item_table.backup_wrong_type('IncrementalExportSpecification', inc, 'an object');
		END IF;
		p := p || item_table.export_enum_problem(inc -> 'ExportViewType', 'ExportViewType',
			'incrementalExportSpecification.exportViewType', '{NEW_IMAGE,NEW_AND_OLD_IMAGES}');
	END IF;
	PERFORM item_table.backup_check(p);
	at := item_table.backup_time(request -> 'ExportTime', 'ExportTime');
	-- a repeated request with the same ClientToken: the same export
	IF request ->> 'ClientToken' IS NOT NULL THEN
		SELECT * INTO e FROM item_table.exports x WHERE x.client_token = request ->> 'ClientToken'
			AND x.owner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
			AND x.start_time > now_ts - interval '8 hours';
		IF FOUND THEN
			IF e.call_request - 'ClientToken' IS DISTINCT FROM request - 'ClientToken' THEN
				PERFORM item_table.export_raise('ExportConflictException',
					'There was a conflict when writing to the specified S3 bucket.');
			END IF;
			RETURN jsonb_build_object('ExportDescription', item_table.export_description(e));
		END IF;
	END IF;
	t := item_table.backup_source(item_table.backup_table_name(request ->> 'TableArn'));
	PERFORM item_table.export_check_bucket(request ->> 'S3Bucket');
	SELECT * INTO c FROM item_table.continuous_backups x WHERE x.table_id = t.table_id;
	IF NOT FOUND THEN
		PERFORM item_table.backup_raise('PointInTimeRecoveryUnavailableException',
			format('Point in time recovery is not enabled for table ''%s''', t.table_name));
	END IF;
	earliest := greatest(c.enabled_at, now_ts - make_interval(days => c.recovery_period_days));
	IF kind = 'FULL_EXPORT' THEN
		IF inc IS NOT NULL AND jsonb_typeof(inc) <> 'null' THEN
			PERFORM item_table.backup_raise('ValidationException',
				'IncrementalExportSpecification is not allowed with ExportType FULL_EXPORT');
		END IF;
		IF at IS NOT NULL AND (at < date_trunc('milliseconds', earliest) OR at > now_ts) THEN
			PERFORM item_table.export_raise('InvalidExportTimeException',
				format('Export time must be between %s and %s',
					item_table.export_iso(earliest), item_table.export_iso(now_ts)));
		END IF;
	ELSE
		IF at IS NOT NULL THEN
			PERFORM item_table.backup_raise('ValidationException',
				'ExportTime is not allowed with ExportType INCREMENTAL_EXPORT');
		END IF;
		IF inc IS NULL OR jsonb_typeof(inc) = 'null' THEN
			PERFORM item_table.backup_raise('ValidationException',
				'IncrementalExportSpecification is required with ExportType INCREMENTAL_EXPORT');
		END IF;
		from_t := item_table.backup_time(inc -> 'ExportFromTime', 'ExportFromTime');
		to_t := item_table.backup_time(inc -> 'ExportToTime', 'ExportToTime');
		view_type := coalesce(inc ->> 'ExportViewType', 'NEW_AND_OLD_IMAGES');
		IF from_t IS NULL OR to_t IS NULL THEN
			PERFORM item_table.backup_raise('ValidationException',
				'ExportFromTime and ExportToTime are required for an incremental export');
		END IF;
		IF from_t >= to_t THEN
			PERFORM item_table.backup_raise('ValidationException', 'ExportFromTime must be before ExportToTime');
		END IF;
		IF to_t - from_t < interval '15 minutes' OR to_t - from_t > interval '24 hours' THEN
			PERFORM item_table.backup_raise('ValidationException',
				'The period between ExportFromTime and ExportToTime must be at least 15 minutes and at most 24 hours');
		END IF;
		IF from_t < date_trunc('milliseconds', earliest) OR to_t > now_ts THEN
			PERFORM item_table.export_raise('InvalidExportTimeException',
				format('Export period must be between %s and %s',
					item_table.export_iso(earliest), item_table.export_iso(now_ts)));
		END IF;
	END IF;

	-- the row, IN_PROGRESS: the background worker writes the files
	-- (export_jobs.c) and the end state
	id := item_table.export_begin(t.table_name, kind, fmt,
		CASE WHEN kind = 'FULL_EXPORT' THEN coalesce(at, now_ts) END, from_t, to_t, view_type,
		request ->> 'S3Bucket', request ->> 'S3Prefix', request ->> 'ClientToken', request);
	SELECT * INTO e FROM item_table.exports x WHERE x.export_id = id;
	RETURN jsonb_build_object('ExportDescription', item_table.export_description(e));
END $$;
COMMENT ON FUNCTION export_table_to_point_in_time(jsonb) IS 'DynamoDB ExportTableToPointInTime';

CREATE FUNCTION describe_export(request jsonb) RETURNS jsonb
	LANGUAGE plpgsql STABLE STRICT SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	e item_table.exports;
BEGIN
	PERFORM item_table.backup_members(request, '{ExportArn}');
	PERFORM item_table.backup_check(item_table.export_string_problem(request -> 'ExportArn', 'ExportArn', 'exportArn', true, 1024));
	SELECT * INTO e FROM item_table.exports x WHERE x.export_arn = request ->> 'ExportArn';
	IF NOT FOUND THEN
		PERFORM item_table.export_raise('ExportNotFoundException', 'Export not found: ' || (request ->> 'ExportArn'));
	END IF;
	RETURN jsonb_build_object('ExportDescription', item_table.export_description(e));
END $$;
COMMENT ON FUNCTION describe_export(jsonb) IS 'DynamoDB DescribeExport';

-- a page of a listing: at most lim rows after the token (an id)
CREATE FUNCTION export_page_size(v jsonb, member text, field text, max_value integer) RETURNS integer
	LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	n numeric;
BEGIN
	IF v IS NULL OR jsonb_typeof(v) = 'null' THEN
		RETURN max_value;
	END IF;
	IF jsonb_typeof(v) <> 'number' THEN
		PERFORM item_table.backup_wrong_type(member, v, 'an integer');
	END IF;
	n := (v #>> '{}')::numeric;
	IF n < 1 THEN
		PERFORM item_table.backup_check(ARRAY[format('Value ''%s'' at ''%s'' failed to satisfy constraint: Member must have value greater than or equal to 1', v #>> '{}', field)]);
	ELSIF n > max_value THEN
		PERFORM item_table.backup_check(ARRAY[format('Value ''%s'' at ''%s'' failed to satisfy constraint: Member must have value less than or equal to %s', v #>> '{}', field, max_value)]);
	END IF;
	RETURN n::integer;
END $$;

CREATE FUNCTION list_exports(request jsonb DEFAULT '{}') RETURNS jsonb
	LANGUAGE plpgsql STABLE STRICT SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	lim integer;
	tname text;
	after text := request ->> 'NextToken';
	page jsonb;
	more boolean;
BEGIN
	PERFORM item_table.backup_members(request, '{TableArn,MaxResults,NextToken}');
	lim := item_table.export_page_size(request -> 'MaxResults', 'MaxResults', 'maxResults', 25);
	PERFORM item_table.backup_check(item_table.export_string_problem(request -> 'TableArn', 'TableArn', 'tableArn', false, 1024));
	tname := item_table.backup_table_name(request ->> 'TableArn');
	WITH rows AS (
		SELECT x.* FROM item_table.exports x
		WHERE (tname IS NULL OR x.table_name = tname) AND (after IS NULL OR x.export_id > after)
		ORDER BY x.export_id LIMIT lim + 1)
	SELECT coalesce(jsonb_agg(jsonb_build_object('ExportArn', r.export_arn, 'ExportStatus', r.status,
			'ExportType', r.export_type) ORDER BY r.export_id) FILTER (WHERE r.n <= lim), '[]'),
		count(*) > lim
	INTO page, more
	FROM (SELECT rows.*, row_number() OVER (ORDER BY rows.export_id) AS n FROM rows) r;
	IF more THEN
		RETURN jsonb_build_object('ExportSummaries', page,
			'NextToken', split_part(page -> (lim - 1) ->> 'ExportArn', '/export/', 2));
	END IF;
	RETURN jsonb_build_object('ExportSummaries', page);
END $$;
COMMENT ON FUNCTION list_exports(jsonb) IS 'DynamoDB ListExports';

-- ---------------------------------------------------------------------
-- imports
-- ---------------------------------------------------------------------

CREATE FUNCTION import_description(i item_table.imports) RETURNS jsonb
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT jsonb_strip_nulls(jsonb_build_object(
		'ImportArn', i.import_arn, 'ImportStatus', i.status,
		'TableArn', item_table.export_table_arn(i.table_name), 'TableId', i.table_id,
		'ClientToken', i.client_token,
		'S3BucketSource', i.call_request -> 'S3BucketSource',
		'ErrorCount', i.error_count,
		-- DynamoDB logs bad lines to CloudWatch; item_table writes them to this file
		'ErrorLogS3Location', CASE WHEN i.error_file_key IS NOT NULL THEN jsonb_build_object(
			'S3Bucket', i.call_request #> '{S3BucketSource,S3Bucket}', 'S3Key', i.error_file_key) END,
		'InputFormat', i.call_request -> 'InputFormat',
		'InputFormatOptions', i.call_request -> 'InputFormatOptions',
		'InputCompressionType', coalesce(i.call_request ->> 'InputCompressionType', 'NONE'),
		'TableCreationParameters', i.call_request -> 'TableCreationParameters',
		'StartTime', item_table.backup_epoch(i.start_time),
		'EndTime', item_table.backup_epoch(i.end_time),
		'ProcessedSizeBytes', i.processed_size_bytes,
		'ProcessedItemCount', i.processed_item_count,
		'ImportedItemCount', i.imported_item_count,
		'FailureMessage', i.failure_message))
$$;

-- the data files of an import's prefix: an export's own manifests, its
-- _started marker and checksum files, and import error files are not data
CREATE FUNCTION import_is_data_file(key text) RETURNS boolean
	LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT NOT (key ~ '(^|/)(manifest-summary\.json|manifest-files\.json|manifest-summary\.md5|manifest-files\.md5|_started)$'
		OR key ~ '(^|/)AWSDynamoDBImportErrors/')
$$;

CREATE FUNCTION import_table(request jsonb) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	p text[];
	src jsonb := request -> 'S3BucketSource';
	tcp jsonb := request -> 'TableCreationParameters';
	csv jsonb := request #> '{InputFormatOptions,Csv}';
	fmt text := request ->> 'InputFormat';
	comp text := coalesce(request ->> 'InputCompressionType', 'NONE');
	bucket text;
	prefix text;
	tname text;
	id text;
	i item_table.imports;
	f text;
	r jsonb;
	key_types jsonb;
	header text[];
	delim text;
	errors bigint := 0;
	messages jsonb := '[]';
	stream jsonb;
	err_key text;
	failure text;
	n item_table.tables;
BEGIN
	PERFORM item_table.backup_members(request, '{}');
	IF src IS NULL OR jsonb_typeof(src) = 'null' THEN
		p := p || 'Value null at ''s3BucketSource'' failed to satisfy constraint: Member must not be null'::text;
	ELSIF jsonb_typeof(src) <> 'object' THEN
		PERFORM item_table.backup_wrong_type('S3BucketSource', src, 'an object');
	ELSE
		p := p || item_table.export_string_problem(src -> 'S3Bucket', 'S3Bucket', 's3BucketSource.s3Bucket', true, 255)
			|| item_table.export_string_problem(src -> 'S3KeyPrefix', 'S3KeyPrefix', 's3BucketSource.s3KeyPrefix', false, 1024);
	END IF;
	IF fmt IS NULL THEN
		p := p || 'Value null at ''inputFormat'' failed to satisfy constraint: Member must not be null'::text;
	END IF;
	p := p || item_table.export_enum_problem(request -> 'InputFormat', 'InputFormat', 'inputFormat', '{DYNAMODB_JSON,ION,CSV}')
		|| item_table.export_enum_problem(request -> 'InputCompressionType', 'InputCompressionType',
			'inputCompressionType', '{GZIP,ZSTD,NONE}')
		|| item_table.export_string_problem(request -> 'ClientToken', 'ClientToken', 'clientToken', false, 36);
	IF tcp IS NULL OR jsonb_typeof(tcp) = 'null' THEN
		p := p || 'Value null at ''tableCreationParameters'' failed to satisfy constraint: Member must not be null'::text;
	ELSIF jsonb_typeof(tcp) <> 'object' THEN
		PERFORM item_table.backup_wrong_type('TableCreationParameters', tcp, 'an object');
	ELSE
		p := p || item_table.backup_name_problems(tcp -> 'TableName', 'tableCreationParameters.tableName', true);
	END IF;
	PERFORM item_table.backup_check(p);
	IF csv IS NOT NULL AND fmt <> 'CSV' THEN
		PERFORM item_table.backup_raise('ValidationException',
			'InputFormatOptions.Csv is only valid with InputFormat CSV');
	END IF;
	IF csv IS NOT NULL AND csv ? 'Delimiter' THEN
		delim := csv ->> 'Delimiter';
		IF delim IS NULL OR length(delim) <> 1 OR delim !~ '^[,;:| \t]$' THEN
			PERFORM item_table.backup_check(ARRAY[format('Value ''%s'' at ''inputFormatOptions.csv.delimiter'' failed to satisfy constraint: Member must satisfy regular expression pattern: [,;:|\t ]', delim)]);
		END IF;
	END IF;
	IF csv IS NOT NULL AND jsonb_typeof(csv -> 'HeaderList') = 'array' THEN
		header := ARRAY(SELECT jsonb_array_elements_text(csv -> 'HeaderList'));
	END IF;
	bucket := src ->> 'S3Bucket';
	prefix := coalesce(src ->> 'S3KeyPrefix', '');
	tname := tcp ->> 'TableName';

	-- a repeated request with the same ClientToken: the same import
	IF request ->> 'ClientToken' IS NOT NULL THEN
		SELECT * INTO i FROM item_table.imports x WHERE x.client_token = request ->> 'ClientToken'
			AND x.owner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
			AND x.start_time > clock_timestamp() - interval '8 hours';
		IF FOUND THEN
			IF i.call_request - 'ClientToken' IS DISTINCT FROM request - 'ClientToken' THEN
				PERFORM item_table.export_raise('ImportConflictException',
					'There was a conflict when importing from the specified S3 source.');
			END IF;
			RETURN jsonb_build_object('ImportTableDescription', item_table.import_description(i));
		END IF;
	END IF;
	IF EXISTS (SELECT FROM item_table.tables x WHERE x.table_name = tname) THEN
		PERFORM item_table.backup_raise('ResourceInUseException', 'Table already exists: ' || tname);
	END IF;
	PERFORM item_table.export_check_bucket(bucket);

	-- the row, IN_PROGRESS; import_load_file() adds each file's counts
	id := item_table.import_begin(tname, request ->> 'ClientToken', request);

	-- the table, as the caller (who owns it; CreateTable's rights), with
	-- its stream switched on only after the load: an import makes no
	-- stream records
	stream := tcp -> 'StreamSpecification';
	PERFORM item_table.create_table(tcp - 'StreamSpecification');
	SELECT * INTO n FROM item_table.tables x WHERE x.table_name = tname;
	SELECT jsonb_object_agg(d ->> 'AttributeName', d ->> 'AttributeType') INTO key_types
	FROM jsonb_array_elements(tcp -> 'AttributeDefinitions') d
	WHERE d ->> 'AttributeName' IN (n.hash_key, n.range_key);

	-- the files; a failure of theirs (a file that cannot be read, a
	-- broken compressed stream; not a refusal, not a cancel) is the
	-- import's FAILED status and leaves no table, as in DynamoDB
	BEGIN
		FOR f IN SELECT k FROM item_table.bucket_files(bucket, prefix) k WHERE item_table.import_is_data_file(k) LOOP
			r := item_table.import_load_file(id, f, fmt, comp, delim, header, key_types);
			errors := errors + (r ->> 'errors')::bigint;
			IF jsonb_array_length(messages) < 100 THEN
				messages := messages || (r -> 'messages');
			END IF;
		END LOOP;
		PERFORM item_table.import_build_indexes(tname);
	EXCEPTION WHEN insufficient_privilege OR query_canceled THEN
		RAISE;
	WHEN others THEN
		failure := SQLERRM;
	END;
	IF failure IS NOT NULL THEN
		PERFORM item_table.delete_table(jsonb_build_object('TableName', tname));
		PERFORM item_table.import_finish(id, failure, false);
		SELECT * INTO i FROM item_table.imports x WHERE x.import_id = id;
		RETURN jsonb_build_object('ImportTableDescription', item_table.import_description(i));
	END IF;
	IF errors > 0 THEN
		err_key := 'AWSDynamoDBImportErrors/' || id || '/errors.json';
		BEGIN
			PERFORM item_table.bucket_write_text(bucket, err_key,
				(SELECT string_agg(m::text, E'\n') || E'\n' FROM jsonb_array_elements(messages) m)
				|| CASE WHEN errors > jsonb_array_length(messages)
					THEN jsonb_build_object('omitted', errors - jsonb_array_length(messages))::text || E'\n' ELSE '' END);
		EXCEPTION WHEN insufficient_privilege THEN
			-- no write right on the source bucket: no error file
			err_key := NULL;
		END;
	END IF;
	IF stream IS NOT NULL AND jsonb_typeof(stream) = 'object' AND coalesce((stream ->> 'StreamEnabled')::boolean, false) THEN
		PERFORM item_table.update_table(jsonb_build_object('TableName', tname, 'StreamSpecification', stream));
	END IF;
	PERFORM item_table.import_finish(id, NULL, err_key IS NOT NULL);
	SELECT * INTO i FROM item_table.imports x WHERE x.import_id = id;
	RETURN jsonb_build_object('ImportTableDescription', item_table.import_description(i));
END $$;
COMMENT ON FUNCTION import_table(jsonb) IS 'DynamoDB ImportTable';

CREATE FUNCTION describe_import(request jsonb) RETURNS jsonb
	LANGUAGE plpgsql STABLE STRICT SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	i item_table.imports;
BEGIN
	PERFORM item_table.backup_members(request, '{ImportArn}');
	PERFORM item_table.backup_check(item_table.export_string_problem(request -> 'ImportArn', 'ImportArn', 'importArn', true, 1024));
	SELECT * INTO i FROM item_table.imports x WHERE x.import_arn = request ->> 'ImportArn';
	IF NOT FOUND THEN
		PERFORM item_table.export_raise('ImportNotFoundException', 'Import not found: ' || (request ->> 'ImportArn'));
	END IF;
	RETURN jsonb_build_object('ImportTableDescription', item_table.import_description(i));
END $$;
COMMENT ON FUNCTION describe_import(jsonb) IS 'DynamoDB DescribeImport';

CREATE FUNCTION list_imports(request jsonb DEFAULT '{}') RETURNS jsonb
	LANGUAGE plpgsql STABLE STRICT SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	lim integer;
	tname text;
	after text := request ->> 'NextToken';
	page jsonb;
	more boolean;
BEGIN
	PERFORM item_table.backup_members(request, '{TableArn,PageSize,NextToken}');
	lim := item_table.export_page_size(request -> 'PageSize', 'PageSize', 'pageSize', 25);
	PERFORM item_table.backup_check(item_table.export_string_problem(request -> 'TableArn', 'TableArn', 'tableArn', false, 1024));
	tname := item_table.backup_table_name(request ->> 'TableArn');
	WITH rows AS (
		SELECT x.* FROM item_table.imports x
		WHERE (tname IS NULL OR x.table_name = tname) AND (after IS NULL OR x.import_id > after)
		ORDER BY x.import_id LIMIT lim + 1)
	SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('ImportArn', r.import_arn,
			'ImportStatus', r.status, 'TableArn', item_table.export_table_arn(r.table_name),
			'S3BucketSource', r.call_request -> 'S3BucketSource', 'InputFormat', r.call_request -> 'InputFormat',
			'StartTime', item_table.backup_epoch(r.start_time), 'EndTime', item_table.backup_epoch(r.end_time)))
			ORDER BY r.import_id) FILTER (WHERE r.n <= lim), '[]'),
		count(*) > lim
	INTO page, more
	FROM (SELECT rows.*, row_number() OVER (ORDER BY rows.import_id) AS n FROM rows) r;
	IF more THEN
		RETURN jsonb_build_object('ImportSummaryList', page,
			'NextToken', split_part(page -> (lim - 1) ->> 'ImportArn', '/import/', 2));
	END IF;
	RETURN jsonb_build_object('ImportSummaryList', page);
END $$;
COMMENT ON FUNCTION list_imports(jsonb) IS 'DynamoDB ListImports';
