-- ---------------------------------------------------------------------
-- On-demand backups and point-in-time recovery (backup.c; the calls are
-- PL/pgSQL here: request checks and response shapes, the target table
-- made by create_table() as the caller, the privileged copies in C)
-- ---------------------------------------------------------------------

-- On-demand backups: one row each, readable by everyone like the table
-- catalog; their items are in backup_items, readable by no one but the
-- extension's owner (restores go through backup_restore(), which checks
-- the caller's rights).  owner: the source table's owner when the backup
-- was taken; its members may describe, restore and delete it.
CREATE TABLE backups (
	backup_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	-- arn:...:table/<name>/backup/<milliseconds, 14 digits>-<8 hex>
	backup_arn text COLLATE "C" NOT NULL UNIQUE,
	backup_name text COLLATE "C" NOT NULL,
	table_name text COLLATE "C" NOT NULL,
	table_id uuid NOT NULL,
	owner oid NOT NULL,
	owner_name name NOT NULL,	-- the owner counts while its role has this name
	source jsonb NOT NULL,	-- DescribeTable's Table of the source, when taken
	created_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
	item_count bigint NOT NULL DEFAULT 0,
	size_bytes bigint NOT NULL DEFAULT 0
);
CREATE INDEX backups_table ON backups (table_name, created_at);
COMMENT ON TABLE backups IS 'item_table catalog: on-demand backups (CreateBackup)';
SELECT pg_catalog.pg_extension_config_dump('backups', '');
REVOKE ALL ON backups FROM PUBLIC;
GRANT SELECT ON backups TO PUBLIC;

CREATE TABLE backup_items (
	backup_id bigint NOT NULL,
	key item_key NOT NULL,
	item jsonb NOT NULL,
	PRIMARY KEY (backup_id, key)
);
COMMENT ON TABLE backup_items IS 'item_table: the items of on-demand backups';
SELECT pg_catalog.pg_extension_config_dump('backup_items', '');
REVOKE ALL ON backup_items FROM PUBLIC;

-- Point-in-time recovery: one row per table that has it enabled.
CREATE TABLE continuous_backups (
	table_name text COLLATE "C" PRIMARY KEY
		REFERENCES tables (table_name) ON DELETE CASCADE,
	table_id uuid NOT NULL UNIQUE,
	relid regclass NOT NULL,	-- by name in a dump, as tables.relid
	enabled_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
	recovery_period_days integer NOT NULL CHECK (recovery_period_days BETWEEN 1 AND 35)
);
COMMENT ON TABLE continuous_backups IS 'item_table catalog: tables with point-in-time recovery enabled';
SELECT pg_catalog.pg_extension_config_dump('continuous_backups', '');
REVOKE ALL ON continuous_backups FROM PUBLIC;
GRANT SELECT ON continuous_backups TO PUBLIC;

-- The history point-in-time recovery restores from: per change of an
-- item, the item before it (NULL: none), written by pitr_trigger() (or
-- the API's direct writes in its place) in the writer's transaction; trimmed past the recovery period by the
-- background worker (backup.c describes the restore).
CREATE TABLE pitr_history (
	relid regclass NOT NULL,		-- the item table (by name in a dump)
	changed_at timestamptz NOT NULL,
	key item_key NOT NULL,
	old_item jsonb
);
CREATE INDEX pitr_history_time ON pitr_history (relid, changed_at);
COMMENT ON TABLE pitr_history IS 'item_table: point-in-time recovery history (old images of changed items)';
SELECT pg_catalog.pg_extension_config_dump('pitr_history', '');
REVOKE ALL ON pitr_history FROM PUBLIC;

-- Restored tables: DescribeTable's RestoreSummary.
CREATE TABLE table_restores (
	table_name text COLLATE "C" PRIMARY KEY
		REFERENCES tables (table_name) ON DELETE CASCADE,
	table_id uuid NOT NULL,
	source_backup_arn text,
	source_table_arn text NOT NULL,
	restore_date_time timestamptz NOT NULL
);
COMMENT ON TABLE table_restores IS 'item_table catalog: tables made by a restore (RestoreSummary)';
SELECT pg_catalog.pg_extension_config_dump('table_restores', '');
REVOKE ALL ON table_restores FROM PUBLIC;
GRANT SELECT ON table_restores TO PUBLIC;

-- The privileged steps (backup.c): each checks the caller's rights first.
CREATE FUNCTION backup_copy(source regclass, table_name text, table_id uuid, backup_name text,
		source_description jsonb) RETURNS bigint
	AS 'MODULE_PATHNAME', 'item_table_backup_copy' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION backup_copy(regclass, text, uuid, text, jsonb) IS
	'a backup of a table the caller owns: its catalog row and items (CreateBackup''s step)';
CREATE FUNCTION backup_drop(backup_id bigint) RETURNS void
	AS 'MODULE_PATHNAME', 'item_table_backup_drop' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION backup_drop(bigint) IS 'a backup deleted (DeleteBackup''s step; members of its owner only)';
CREATE FUNCTION backup_restore(backup_id bigint, target regclass, target_id uuid, backup_arn text,
		table_arn text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'item_table_backup_restore' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION backup_restore(bigint, regclass, uuid, text, text) IS
	'a backup''s items written into a new table the caller owns (RestoreTableFromBackup''s step)';
CREATE FUNCTION pitr_set(source regclass, table_name text, table_id uuid, enabled boolean, days integer)
	RETURNS void
	AS 'MODULE_PATHNAME', 'item_table_pitr_set' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION pitr_set(regclass, text, uuid, boolean, integer) IS
	'point-in-time recovery of a table the caller owns switched on or off (UpdateContinuousBackups''s step)';
CREATE FUNCTION pitr_restore(source regclass, source_id uuid, as_of timestamptz, target regclass,
		target_id uuid, table_arn text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'item_table_pitr_restore' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION pitr_restore(regclass, uuid, timestamptz, regclass, uuid, text) IS
	'a table the caller owns as it was at a time, written into a new table the caller owns (RestoreTableToPointInTime''s step)';
CREATE FUNCTION pitr_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME', 'item_table_pitr_trigger' LANGUAGE C;
COMMENT ON FUNCTION pitr_trigger() IS 'writes the point-in-time recovery history of an item table''s changes';

-- ---------------------------------------------------------------------
-- helpers of the calls
-- ---------------------------------------------------------------------

-- A DynamoDB exception, as errors.c raises them (SQLSTATE class XD, the
-- error body in DETAIL).
CREATE FUNCTION backup_raise(exception text, message text) RETURNS void
	LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	code text;
	ns text := 'com.amazonaws.dynamodb.v20120810';
BEGIN
	code := CASE exception
		WHEN 'ValidationException' THEN 'XD001'
		WHEN 'SerializationException' THEN 'XD002'
		WHEN 'ResourceNotFoundException' THEN 'XD004'
		WHEN 'ResourceInUseException' THEN 'XD005'
		WHEN 'TableNotFoundException' THEN 'XD017'
		WHEN 'TableAlreadyExistsException' THEN 'XD022'
		WHEN 'BackupNotFoundException' THEN 'XD023'
		WHEN 'PointInTimeRecoveryUnavailableException' THEN 'XD024'
		WHEN 'InvalidRestoreTimeException' THEN 'XD025'
		ELSE 'XD016' END;
	IF exception = 'ValidationException' THEN
		ns := 'com.amazon.coral.validate';
	ELSIF exception = 'SerializationException' THEN
		ns := 'com.amazon.coral.service';
	END IF;
	RAISE EXCEPTION USING ERRCODE = code, MESSAGE = exception || ': ' || message,
		DETAIL = '{"__type":' || to_json(ns || '#' || exception)::text
			|| ',"message":' || to_json(message)::text || '}';
END $$;

-- A member of the wrong JSON type: SerializationException, worded as
-- the C calls word it (api_request.c, wrong_type).
CREATE FUNCTION backup_wrong_type(member text, v jsonb, expected text) RETURNS void
	LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	PERFORM item_table.backup_raise('SerializationException', format('Unexpected %s for member %s; expected %s',
		CASE jsonb_typeof(v) WHEN 'string' THEN 'STRING_VALUE' WHEN 'number' THEN 'NUMBER_VALUE'
			WHEN 'boolean' THEN 'BOOLEAN_VALUE' WHEN 'array' THEN 'START_ARRAY' WHEN 'object' THEN 'START_OBJECT'
			ELSE 'VALUE' END, member, expected));
END $$;

-- Problems found in a request, raised as one ValidationException
-- ("1 validation error detected: ..." / "N validation errors detected: a; b").
CREATE FUNCTION backup_check(problems text[]) RETURNS void
	LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	n integer := coalesce(cardinality(problems), 0);
BEGIN
	IF n > 0 THEN
		PERFORM item_table.backup_raise('ValidationException',
			n || CASE WHEN n = 1 THEN ' validation error detected: ' ELSE ' validation errors detected: ' END
			|| array_to_string(problems, '; '));
	END IF;
END $$;

-- The problems of a name (table or backup) by DynamoDB's rules: pattern,
-- then lengths.  NULL: none.  allow_arn: a table name may be a table ARN.
CREATE FUNCTION backup_name_problems(v jsonb, field text, required boolean, allow_arn boolean DEFAULT false)
	RETURNS text[]
	LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	s text;
	p text[] := '{}';
BEGIN
	IF v IS NULL OR jsonb_typeof(v) = 'null' THEN
		IF required THEN
			p := p || format('Value null at ''%s'' failed to satisfy constraint: Member must not be null', field);
		END IF;
		RETURN p;
	END IF;
	IF jsonb_typeof(v) <> 'string' THEN
		PERFORM item_table.backup_wrong_type(upper(left(field, 1)) || substr(field, 2), v, 'a string');
	END IF;
	s := v #>> '{}';
	IF allow_arn AND s LIKE 'arn:aws:dynamodb:%:table/%' THEN
		RETURN p;
	END IF;
	IF s !~ '^[a-zA-Z0-9_.-]*$' THEN
		p := p || format('Value ''%s'' at ''%s'' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+', s, field);
	END IF;
	IF length(s) < 3 THEN
		p := p || format('Value ''%s'' at ''%s'' failed to satisfy constraint: Member must have length greater than or equal to 3', s, field);
	ELSIF length(s) > 255 THEN
		p := p || format('Value ''%s'' at ''%s'' failed to satisfy constraint: Member must have length less than or equal to 255', s, field);
	END IF;
	RETURN p;
END $$;

-- A table name or table ARN to the table's name.
CREATE FUNCTION backup_table_name(s text) RETURNS text
	LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT CASE WHEN s LIKE 'arn:aws:dynamodb:%:table/%'
		THEN split_part(substr(s, strpos(s, ':table/') + 7), '/', 1) ELSE s END
$$;

-- DynamoDB's timestamps: epoch seconds with milliseconds
CREATE FUNCTION backup_epoch(t timestamptz) RETURNS jsonb
	LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT to_jsonb(round(extract(epoch FROM t)::numeric, 3))
$$;

-- A timestamp of a request: epoch seconds (the SDKs' form) or ISO 8601 text.
CREATE FUNCTION backup_time(v jsonb, field text) RETURNS timestamptz
	LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF v IS NULL OR jsonb_typeof(v) = 'null' THEN
		RETURN NULL;
	ELSIF jsonb_typeof(v) = 'number' THEN
		RETURN to_timestamp((v #>> '{}')::double precision);
	ELSIF jsonb_typeof(v) = 'string' THEN
		BEGIN
			RETURN (v #>> '{}')::timestamptz;
		EXCEPTION WHEN others THEN
			NULL;
		END;
	END IF;
	PERFORM item_table.backup_wrong_type(field, v, 'a timestamp');
	RETURN NULL;
END $$;

-- The table's catalog row, or TableNotFoundException.
CREATE FUNCTION backup_source(name text) RETURNS item_table.tables
	LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	t item_table.tables;
BEGIN
	SELECT * INTO t FROM item_table.tables WHERE table_name = name;
	IF NOT FOUND THEN
		PERFORM item_table.backup_raise('TableNotFoundException', 'Table not found: ' || name);
	END IF;
	RETURN t;
END $$;

-- A request must be an object; members a call does not know are ignored,
-- as the C calls ignore them (allowed: the call's members, for the record).
CREATE FUNCTION backup_members(request jsonb, allowed text[]) RETURNS void
	LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF jsonb_typeof(request) <> 'object' THEN
		PERFORM item_table.backup_wrong_type('request', request, 'an object');
	END IF;
END $$;

-- The caller must have the rights of the table's owner (checked again by
-- the C steps; here before anything is made).
CREATE FUNCTION backup_check_owner(relid oid, what text) RETURNS void
	LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF NOT pg_has_role(current_user, (SELECT c.relowner FROM pg_class c WHERE c.oid = relid), 'USAGE') THEN
		RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = 'permission denied for ' || what,
			DETAIL = 'Only members of the role that owns the table may use its backups and point-in-time recovery.';
	END IF;
END $$;

-- ---------------------------------------------------------------------
-- point-in-time recovery
-- ---------------------------------------------------------------------

-- ContinuousBackupsDescription of a table (its catalog row)
CREATE FUNCTION backup_continuous_description(t item_table.tables) RETURNS jsonb
	LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	c item_table.continuous_backups;
	now_ts timestamptz := date_trunc('milliseconds', clock_timestamp());
BEGIN
	SELECT * INTO c FROM item_table.continuous_backups WHERE table_id = t.table_id;
	IF NOT FOUND THEN
		RETURN jsonb_build_object('ContinuousBackupsDescription', jsonb_build_object(
			'ContinuousBackupsStatus', 'ENABLED',
			'PointInTimeRecoveryDescription', jsonb_build_object('PointInTimeRecoveryStatus', 'DISABLED')));
	END IF;
	RETURN jsonb_build_object('ContinuousBackupsDescription', jsonb_build_object(
		'ContinuousBackupsStatus', 'ENABLED',
		'PointInTimeRecoveryDescription', jsonb_build_object(
			'PointInTimeRecoveryStatus', 'ENABLED',
			'RecoveryPeriodInDays', c.recovery_period_days,
			'EarliestRestorableDateTime', item_table.backup_epoch(
				date_trunc('milliseconds', greatest(c.enabled_at, now_ts - make_interval(days => c.recovery_period_days)))
				+ interval '1 millisecond' * (greatest(c.enabled_at, now_ts - make_interval(days => c.recovery_period_days))
					<> date_trunc('milliseconds', greatest(c.enabled_at, now_ts - make_interval(days => c.recovery_period_days))))::int),
			'LatestRestorableDateTime', item_table.backup_epoch(now_ts))));
END $$;

CREATE FUNCTION describe_continuous_backups(request jsonb) RETURNS jsonb
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	PERFORM item_table.backup_members(request, '{TableName}');
	PERFORM item_table.backup_check(item_table.backup_name_problems(request -> 'TableName', 'tableName', true, true));
	RETURN item_table.backup_continuous_description(
		item_table.backup_source(item_table.backup_table_name(request ->> 'TableName')));
END $$;
COMMENT ON FUNCTION describe_continuous_backups(jsonb) IS 'DynamoDB DescribeContinuousBackups';

CREATE FUNCTION update_continuous_backups(request jsonb) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	spec jsonb := request -> 'PointInTimeRecoverySpecification';
	enabled jsonb;
	days jsonb;
	p text[];
	t item_table.tables;
BEGIN
	PERFORM item_table.backup_members(request, '{TableName,PointInTimeRecoverySpecification}');
	p := item_table.backup_name_problems(request -> 'TableName', 'tableName', true, true);
	IF spec IS NULL OR jsonb_typeof(spec) = 'null' THEN
		p := p || 'Value null at ''pointInTimeRecoverySpecification'' failed to satisfy constraint: Member must not be null'::text;
	ELSE
		IF jsonb_typeof(spec) <> 'object' THEN
			PERFORM item_table.backup_wrong_type('PointInTimeRecoverySpecification', spec, 'an object');
		END IF;
		PERFORM item_table.backup_members(spec, '{PointInTimeRecoveryEnabled,RecoveryPeriodInDays}');
		enabled := spec -> 'PointInTimeRecoveryEnabled';
		days := spec -> 'RecoveryPeriodInDays';
		IF enabled IS NULL OR jsonb_typeof(enabled) = 'null' THEN
			p := p || 'Value null at ''pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled'' failed to satisfy constraint: Member must not be null'::text;
		ELSIF jsonb_typeof(enabled) <> 'boolean' THEN
			PERFORM item_table.backup_wrong_type('PointInTimeRecoveryEnabled', enabled, 'a boolean');
		END IF;
		IF days IS NOT NULL AND jsonb_typeof(days) <> 'null' THEN
			IF jsonb_typeof(days) <> 'number' OR (days #>> '{}')::numeric <> trunc((days #>> '{}')::numeric) THEN
				PERFORM item_table.backup_wrong_type('RecoveryPeriodInDays', days, 'an integer');
			ELSIF (days #>> '{}')::numeric < 1 THEN
				p := p || format('Value ''%s'' at ''pointInTimeRecoverySpecification.recoveryPeriodInDays'' failed to satisfy constraint: Member must have value greater than or equal to 1', days #>> '{}');
			ELSIF (days #>> '{}')::numeric > 35 THEN
				p := p || format('Value ''%s'' at ''pointInTimeRecoverySpecification.recoveryPeriodInDays'' failed to satisfy constraint: Member must have value less than or equal to 35', days #>> '{}');
			END IF;
		ELSE
			days := NULL;
		END IF;
	END IF;
	PERFORM item_table.backup_check(p);
	IF days IS NOT NULL AND NOT (enabled)::text::boolean THEN
		PERFORM item_table.backup_raise('ValidationException',
			'RecoveryPeriodInDays can only be specified when PointInTimeRecoveryEnabled is true');
	END IF;
	t := item_table.backup_source(item_table.backup_table_name(request ->> 'TableName'));
	PERFORM item_table.backup_check_owner(t.relid, 'table ' || t.table_name);
	-- a distributed table (distribute_table(): its column part) has no
	-- triggers on its shards for the history
	IF (enabled)::text::boolean AND EXISTS (SELECT FROM pg_attribute a
			WHERE a.attrelid = t.relid AND a.attname = 'part' AND NOT a.attisdropped) THEN
		PERFORM item_table.backup_raise('ValidationException',
			'Point-in-time recovery is not available for a distributed table: ' || t.table_name);
	END IF;
	PERFORM item_table.pitr_set(t.relid, t.table_name, t.table_id, (enabled)::text::boolean,
		coalesce((days #>> '{}')::integer,
			(SELECT c.recovery_period_days FROM item_table.continuous_backups c WHERE c.table_id = t.table_id),
			35));
	RETURN item_table.backup_continuous_description(t);
END $$;
COMMENT ON FUNCTION update_continuous_backups(jsonb) IS 'DynamoDB UpdateContinuousBackups';

-- Trimming: the history older than each table's recovery period (and any
-- left by a table whose recovery was switched off or which was dropped),
-- except what an export in progress still reads.
CREATE FUNCTION trim_pitr_history(as_of timestamptz DEFAULT pg_catalog.now(), max_rows integer DEFAULT 10000)
	RETURNS bigint
	LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	n bigint;
BEGIN
	WITH doomed AS (
		SELECT h.ctid FROM item_table.pitr_history h
		LEFT JOIN item_table.continuous_backups c ON c.relid = h.relid
		WHERE c.relid IS NULL
			OR (h.changed_at < as_of - make_interval(days => c.recovery_period_days)
				-- an export in progress reads its table as of its time
				-- (export_jobs.c): the history after that time is kept
				AND NOT EXISTS (SELECT FROM item_table.exports e
					WHERE e.table_id = c.table_id AND e.status = 'IN_PROGRESS'
						AND h.changed_at > coalesce(e.export_time, e.from_time)))
		LIMIT max_rows)
	DELETE FROM item_table.pitr_history h USING doomed WHERE h.ctid = doomed.ctid;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END $$;
COMMENT ON FUNCTION trim_pitr_history(timestamptz, integer) IS
	'delete point-in-time recovery history older than each table''s recovery period as of a given time (the background worker does this); the number deleted';
REVOKE ALL ON FUNCTION trim_pitr_history(timestamptz, integer) FROM PUBLIC;

-- ---------------------------------------------------------------------
-- restores
-- ---------------------------------------------------------------------

-- The CreateTable request of a restore: the source's definition (as
-- DescribeTable showed it), with the request's overrides.
CREATE FUNCTION backup_create_request(target text, src jsonb, request jsonb) RETURNS jsonb
	LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	billing text := coalesce(request ->> 'BillingModeOverride',
		src -> 'BillingModeSummary' ->> 'BillingMode', 'PROVISIONED');
	provisioned boolean;
	throughput jsonb;
	gsis jsonb;
	lsis jsonb;
	used text[];
	req jsonb;
BEGIN
	IF billing NOT IN ('PROVISIONED', 'PAY_PER_REQUEST') THEN
		PERFORM item_table.backup_check(ARRAY[format('Value ''%s'' at ''billingModeOverride'' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]', billing)]);
	END IF;
	provisioned := billing = 'PROVISIONED';
	throughput := coalesce(request -> 'ProvisionedThroughputOverride',
		jsonb_build_object('ReadCapacityUnits', greatest((src #>> '{ProvisionedThroughput,ReadCapacityUnits}')::bigint, 1),
			'WriteCapacityUnits', greatest((src #>> '{ProvisionedThroughput,WriteCapacityUnits}')::bigint, 1)));
	IF request ? 'GlobalSecondaryIndexOverride' THEN
		gsis := request -> 'GlobalSecondaryIndexOverride';
	ELSE
		SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object('IndexName', g ->> 'IndexName',
				'KeySchema', g -> 'KeySchema', 'Projection', g -> 'Projection',
				'ProvisionedThroughput', CASE WHEN provisioned THEN jsonb_build_object(
					'ReadCapacityUnits', greatest((g #>> '{ProvisionedThroughput,ReadCapacityUnits}')::bigint, 1),
					'WriteCapacityUnits', greatest((g #>> '{ProvisionedThroughput,WriteCapacityUnits}')::bigint, 1)) END)))
			INTO gsis FROM jsonb_array_elements(coalesce(src -> 'GlobalSecondaryIndexes', '[]')) g;
	END IF;
	IF request ? 'LocalSecondaryIndexOverride' THEN
		lsis := request -> 'LocalSecondaryIndexOverride';
	ELSE
		SELECT jsonb_agg(jsonb_build_object('IndexName', l ->> 'IndexName',
				'KeySchema', l -> 'KeySchema', 'Projection', l -> 'Projection'))
			INTO lsis FROM jsonb_array_elements(coalesce(src -> 'LocalSecondaryIndexes', '[]')) l;
	END IF;
	IF jsonb_typeof(gsis) = 'array' AND jsonb_array_length(gsis) = 0 THEN gsis := NULL; END IF;
	IF jsonb_typeof(lsis) = 'array' AND jsonb_array_length(lsis) = 0 THEN lsis := NULL; END IF;
	-- the attribute definitions the remaining keys use
	SELECT array_agg(DISTINCT k ->> 'AttributeName') INTO used
	FROM (SELECT jsonb_array_elements(src -> 'KeySchema') k
		UNION ALL SELECT jsonb_array_elements(i -> 'KeySchema')
			FROM jsonb_array_elements(CASE WHEN jsonb_typeof(gsis) = 'array' THEN gsis ELSE '[]' END) i
		UNION ALL SELECT jsonb_array_elements(i -> 'KeySchema')
			FROM jsonb_array_elements(CASE WHEN jsonb_typeof(lsis) = 'array' THEN lsis ELSE '[]' END) i) ks;
	req := jsonb_build_object('TableName', target, 'KeySchema', src -> 'KeySchema',
		'BillingMode', billing,
		'AttributeDefinitions', (SELECT jsonb_agg(a) FROM jsonb_array_elements(src -> 'AttributeDefinitions') a
			WHERE a ->> 'AttributeName' = ANY (used)));
	IF provisioned THEN
		req := req || jsonb_build_object('ProvisionedThroughput', throughput);
	END IF;
	IF gsis IS NOT NULL THEN
		req := req || jsonb_build_object('GlobalSecondaryIndexes', gsis);
	END IF;
	IF lsis IS NOT NULL THEN
		req := req || jsonb_build_object('LocalSecondaryIndexes', lsis);
	END IF;
	RETURN req;
END $$;

-- The vector indexes of the source's definition (DescribeTable's
-- VectorIndexes) made again on the restored table, after its items: each
-- created by UpdateTable as the caller (who owns the new table), built from
-- the items in this transaction (vector_backfill_batch: an item whose
-- attribute is not a vector of the index is left out, as a build leaves
-- it), then its HNSW graph built at once (vector_build_graph): the restored
-- table answers SearchVectors as soon as the restore commits.
CREATE FUNCTION backup_restore_vector_indexes(target text, src jsonb) RETURNS void
	LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	v jsonb;
BEGIN
	FOR v IN SELECT x FROM jsonb_array_elements(coalesce(src -> 'VectorIndexes', '[]')) x LOOP
		PERFORM item_table.update_table(jsonb_build_object('TableName', target,
			'AttributeDefinitions', coalesce(src -> 'AttributeDefinitions', '[]'),
			'VectorIndexUpdates', jsonb_build_array(jsonb_build_object('Create', jsonb_strip_nulls(jsonb_build_object(
				'IndexName', v -> 'IndexName', 'VectorAttribute', v -> 'VectorAttribute',
				'Dimensions', v -> 'Dimensions', 'DistanceFunction', v -> 'DistanceFunction',
				'SearchSchema', v -> 'SearchSchema', 'Projection', v -> 'Projection'))))));
		WHILE item_table.vector_backfill_batch(target, v ->> 'IndexName', 10000) LOOP
		END LOOP;
		PERFORM item_table.vector_build_graph(target, v ->> 'IndexName');
	END LOOP;
END $$;

-- The checks shared by both restores: the target's name and the overrides
CREATE FUNCTION backup_restore_problems(request jsonb) RETURNS text[]
	LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	p text[] := item_table.backup_name_problems(request -> 'TargetTableName', 'targetTableName', true);
	f text;
BEGIN
	FOREACH f IN ARRAY ARRAY['GlobalSecondaryIndexOverride', 'LocalSecondaryIndexOverride'] LOOP
		IF request ? f AND jsonb_typeof(request -> f) NOT IN ('array', 'null') THEN
			PERFORM item_table.backup_wrong_type(f, request -> f, 'an array');
		END IF;
	END LOOP;
	IF request ? 'BillingModeOverride' AND jsonb_typeof(request -> 'BillingModeOverride') <> 'string' THEN
		PERFORM item_table.backup_wrong_type('BillingModeOverride', request -> 'BillingModeOverride', 'a string');
	END IF;
	RETURN p;
END $$;

-- DescribeTable of the restored table, as the restore's TableDescription
CREATE FUNCTION backup_restored_description(target text) RETURNS jsonb
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT jsonb_build_object('TableDescription',
		item_table.describe_table(jsonb_build_object('TableName', target)) -> 'Table')
$$;

CREATE FUNCTION restore_table_to_point_in_time(request jsonb) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	p text[];
	src_name text;
	target text := request ->> 'TargetTableName';
	t item_table.tables;
	c item_table.continuous_backups;
	src jsonb;
	latest_flag boolean := false;
	at timestamptz;
	earliest timestamptz;
	latest timestamptz := date_trunc('milliseconds', clock_timestamp());
	n item_table.tables;
BEGIN
	PERFORM item_table.backup_members(request, '{SourceTableArn,SourceTableName,TargetTableName,UseLatestRestorableTime,RestoreDateTime,BillingModeOverride,GlobalSecondaryIndexOverride,LocalSecondaryIndexOverride,ProvisionedThroughputOverride,OnDemandThroughputOverride,SSESpecificationOverride}');
	p := item_table.backup_name_problems(request -> 'SourceTableName', 'sourceTableName', false)
		|| item_table.backup_restore_problems(request);
	PERFORM item_table.backup_check(p);
	IF request ? 'UseLatestRestorableTime' AND jsonb_typeof(request -> 'UseLatestRestorableTime') NOT IN ('boolean', 'null') THEN
		PERFORM item_table.backup_wrong_type('UseLatestRestorableTime', request -> 'UseLatestRestorableTime', 'a boolean');
	END IF;
	latest_flag := coalesce((request ->> 'UseLatestRestorableTime')::boolean, false);
	at := item_table.backup_time(request -> 'RestoreDateTime', 'RestoreDateTime');
	src_name := coalesce(request ->> 'SourceTableName', item_table.backup_table_name(request ->> 'SourceTableArn'));
	IF src_name IS NULL THEN
		PERFORM item_table.backup_raise('ValidationException',
			'Either SourceTableArn or SourceTableName must be specified');
	END IF;
	IF request ->> 'SourceTableName' IS NOT NULL AND request ->> 'SourceTableArn' IS NOT NULL THEN
		PERFORM item_table.backup_raise('ValidationException',
			'Only one of SourceTableArn or SourceTableName can be specified');
	END IF;
	IF latest_flag AND at IS NOT NULL THEN
		PERFORM item_table.backup_raise('ValidationException',
			'Only one of RestoreDateTime or UseLatestRestorableTime can be specified');
	END IF;
	t := item_table.backup_source(src_name);
	PERFORM item_table.backup_check_owner(t.relid, 'table ' || t.table_name);
	IF EXISTS (SELECT FROM item_table.tables x WHERE x.table_name = target) THEN
		PERFORM item_table.backup_raise('TableAlreadyExistsException', 'Table already exists: ' || target);
	END IF;
	SELECT * INTO c FROM item_table.continuous_backups x WHERE x.table_id = t.table_id;
	IF NOT FOUND THEN
		PERFORM item_table.backup_raise('PointInTimeRecoveryUnavailableException',
			format('Point in time recovery is not enabled for table ''%s''', t.table_name));
	END IF;
	earliest := greatest(c.enabled_at, latest - make_interval(days => c.recovery_period_days));
	IF NOT latest_flag AND at IS NULL THEN
		PERFORM item_table.backup_raise('ValidationException',
			'Either RestoreDateTime or UseLatestRestorableTime must be specified');
	END IF;
	IF latest_flag THEN
		at := latest;
	ELSIF at < date_trunc('milliseconds', earliest) OR at > latest THEN
		PERFORM item_table.backup_raise('InvalidRestoreTimeException',
			format('Restore time must be between EarliestRestorableDateTime (%s) and LatestRestorableDateTime (%s)',
				to_char(earliest AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
				to_char(latest AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')));
	END IF;
	-- the new table, as the caller (who owns it), then its items, then its
	-- vector indexes
	src := item_table.describe_table(jsonb_build_object('TableName', t.table_name)) -> 'Table';
	PERFORM item_table.create_table(item_table.backup_create_request(target, src, request));
	SELECT * INTO n FROM item_table.tables x WHERE x.table_name = target;
	PERFORM item_table.pitr_restore(t.relid, t.table_id, at, n.relid, n.table_id,
		'arn:aws:dynamodb:local:000000000000:table/' || t.table_name);
	PERFORM item_table.backup_restore_vector_indexes(target, src);
	RETURN item_table.backup_restored_description(target);
END $$;
COMMENT ON FUNCTION restore_table_to_point_in_time(jsonb) IS 'DynamoDB RestoreTableToPointInTime';

-- ---------------------------------------------------------------------
-- on-demand backups
-- ---------------------------------------------------------------------

CREATE FUNCTION backup_details(b item_table.backups, status text DEFAULT 'AVAILABLE') RETURNS jsonb
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT jsonb_build_object('BackupArn', b.backup_arn, 'BackupName', b.backup_name,
		'BackupSizeBytes', b.size_bytes, 'BackupStatus', status, 'BackupType', 'USER',
		'BackupCreationDateTime', item_table.backup_epoch(b.created_at))
$$;

CREATE FUNCTION backup_description(b item_table.backups, status text DEFAULT 'AVAILABLE') RETURNS jsonb
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT jsonb_build_object('BackupDescription', jsonb_build_object(
		'BackupDetails', item_table.backup_details(b, status),
		'SourceTableDetails', jsonb_strip_nulls(jsonb_build_object(
			'TableName', b.table_name, 'TableId', b.table_id,
			'TableArn', 'arn:aws:dynamodb:local:000000000000:table/' || b.table_name,
			'TableSizeBytes', b.size_bytes, 'ItemCount', b.item_count,
			'KeySchema', b.source -> 'KeySchema',
			'TableCreationDateTime', b.source -> 'CreationDateTime',
			'ProvisionedThroughput', jsonb_build_object(
				'ReadCapacityUnits', b.source #> '{ProvisionedThroughput,ReadCapacityUnits}',
				'WriteCapacityUnits', b.source #> '{ProvisionedThroughput,WriteCapacityUnits}'),
			'BillingMode', coalesce(b.source #>> '{BillingModeSummary,BillingMode}', 'PROVISIONED'))),
		'SourceTableFeatureDetails', jsonb_strip_nulls(jsonb_build_object(
			'LocalSecondaryIndexes', (SELECT jsonb_agg(jsonb_build_object('IndexName', l -> 'IndexName',
					'KeySchema', l -> 'KeySchema', 'Projection', l -> 'Projection'))
				FROM jsonb_array_elements(b.source -> 'LocalSecondaryIndexes') l),
			'GlobalSecondaryIndexes', (SELECT jsonb_agg(jsonb_build_object('IndexName', g -> 'IndexName',
					'KeySchema', g -> 'KeySchema', 'Projection', g -> 'Projection',
					'ProvisionedThroughput', jsonb_build_object(
						'ReadCapacityUnits', g #> '{ProvisionedThroughput,ReadCapacityUnits}',
						'WriteCapacityUnits', g #> '{ProvisionedThroughput,WriteCapacityUnits}')))
				FROM jsonb_array_elements(b.source -> 'GlobalSecondaryIndexes') g),
			'VectorIndexes', (SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object('IndexName', v -> 'IndexName',
					'VectorAttribute', v -> 'VectorAttribute', 'Dimensions', v -> 'Dimensions',
					'DistanceFunction', v -> 'DistanceFunction', 'SearchSchema', v -> 'SearchSchema',
					'Projection', v -> 'Projection')))
				FROM jsonb_array_elements(b.source -> 'VectorIndexes') v),
			'StreamDescription', b.source -> 'StreamSpecification'))))
$$;

-- A backup by its ARN, or BackupNotFoundException
CREATE FUNCTION backup_by_arn(request jsonb) RETURNS item_table.backups
	LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	b item_table.backups;
	v jsonb := request -> 'BackupArn';
BEGIN
	IF v IS NULL OR jsonb_typeof(v) = 'null' THEN
		PERFORM item_table.backup_check(ARRAY['Value null at ''backupArn'' failed to satisfy constraint: Member must not be null']);
	ELSIF jsonb_typeof(v) <> 'string' THEN
		PERFORM item_table.backup_wrong_type('BackupArn', v, 'a string');
	ELSIF length(v #>> '{}') < 37 OR length(v #>> '{}') > 1024 THEN
		PERFORM item_table.backup_check(ARRAY[format('Value ''%s'' at ''backupArn'' failed to satisfy constraint: Member must have length %s',
			v #>> '{}', CASE WHEN length(v #>> '{}') < 37 THEN 'greater than or equal to 37' ELSE 'less than or equal to 1024' END)]);
	END IF;
	SELECT * INTO b FROM item_table.backups x WHERE x.backup_arn = v #>> '{}';
	IF NOT FOUND THEN
		PERFORM item_table.backup_raise('BackupNotFoundException', 'Backup not found: ' || (v #>> '{}'));
	END IF;
	RETURN b;
END $$;

CREATE FUNCTION create_backup(request jsonb) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	t item_table.tables;
	id bigint;
	b item_table.backups;
BEGIN
	PERFORM item_table.backup_members(request, '{TableName,BackupName}');
	PERFORM item_table.backup_check(item_table.backup_name_problems(request -> 'TableName', 'tableName', true, true)
		|| item_table.backup_name_problems(request -> 'BackupName', 'backupName', true));
	t := item_table.backup_source(item_table.backup_table_name(request ->> 'TableName'));
	id := item_table.backup_copy(t.relid, t.table_name, t.table_id, request ->> 'BackupName',
		item_table.describe_table(jsonb_build_object('TableName', t.table_name)) -> 'Table');
	SELECT * INTO b FROM item_table.backups x WHERE x.backup_id = id;
	RETURN jsonb_build_object('BackupDetails', item_table.backup_details(b));
END $$;
COMMENT ON FUNCTION create_backup(jsonb) IS 'DynamoDB CreateBackup';

CREATE FUNCTION describe_backup(request jsonb) RETURNS jsonb
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	PERFORM item_table.backup_members(request, '{BackupArn}');
	RETURN item_table.backup_description(item_table.backup_by_arn(request));
END $$;
COMMENT ON FUNCTION describe_backup(jsonb) IS 'DynamoDB DescribeBackup';

CREATE FUNCTION delete_backup(request jsonb) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	b item_table.backups;
BEGIN
	PERFORM item_table.backup_members(request, '{BackupArn}');
	b := item_table.backup_by_arn(request);
	PERFORM item_table.backup_drop(b.backup_id);
	RETURN item_table.backup_description(b, 'DELETED');
END $$;
COMMENT ON FUNCTION delete_backup(jsonb) IS 'DynamoDB DeleteBackup';

CREATE FUNCTION list_backups(request jsonb DEFAULT '{}') RETURNS jsonb
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	lim integer := 100;
	lower_t timestamptz := item_table.backup_time(request -> 'TimeRangeLowerBound', 'TimeRangeLowerBound');
	upper_t timestamptz := item_table.backup_time(request -> 'TimeRangeUpperBound', 'TimeRangeUpperBound');
	kind text := coalesce(request ->> 'BackupType', 'USER');
	tname text;
	start_id bigint;
	summaries jsonb;
	last item_table.backups;
	more boolean;
BEGIN
	PERFORM item_table.backup_members(request, '{TableName,Limit,TimeRangeLowerBound,TimeRangeUpperBound,ExclusiveStartBackupArn,BackupType}');
	IF request ? 'Limit' AND jsonb_typeof(request -> 'Limit') <> 'null' THEN
		IF jsonb_typeof(request -> 'Limit') <> 'number' THEN
			PERFORM item_table.backup_wrong_type('Limit', request -> 'Limit', 'an integer');
		END IF;
		lim := (request ->> 'Limit')::numeric::integer;
		IF lim < 1 THEN
			PERFORM item_table.backup_check(ARRAY[format('Value ''%s'' at ''limit'' failed to satisfy constraint: Member must have value greater than or equal to 1', request ->> 'Limit')]);
		ELSIF lim > 100 THEN
			PERFORM item_table.backup_check(ARRAY[format('Value ''%s'' at ''limit'' failed to satisfy constraint: Member must have value less than or equal to 100', request ->> 'Limit')]);
		END IF;
	END IF;
	IF kind NOT IN ('USER', 'SYSTEM', 'AWS_BACKUP', 'ALL') THEN
		PERFORM item_table.backup_check(ARRAY[format('Value ''%s'' at ''backupType'' failed to satisfy constraint: Member must satisfy enum value set: [USER, SYSTEM, AWS_BACKUP, ALL]', kind)]);
	END IF;
	PERFORM item_table.backup_check(item_table.backup_name_problems(request -> 'TableName', 'tableName', false, true));
	tname := item_table.backup_table_name(request ->> 'TableName');
	IF request ->> 'ExclusiveStartBackupArn' IS NOT NULL THEN
		start_id := (item_table.backup_by_arn(jsonb_build_object('BackupArn', request -> 'ExclusiveStartBackupArn'))).backup_id;
	END IF;
	IF lower_t IS NOT NULL AND upper_t IS NOT NULL AND lower_t > upper_t THEN
		PERFORM item_table.backup_raise('ValidationException',
			'TimeRangeLowerBound must be less than or equal to TimeRangeUpperBound');
	END IF;
	-- only USER backups exist here: the other types list nothing
	WITH page AS (
		SELECT b.* FROM item_table.backups b
		WHERE kind IN ('USER', 'ALL')
			AND (tname IS NULL OR b.table_name = tname)
			AND (lower_t IS NULL OR b.created_at >= lower_t)
			AND (upper_t IS NULL OR b.created_at <= upper_t)
			AND (start_id IS NULL OR b.backup_id > start_id)
		ORDER BY b.backup_id
		LIMIT lim + 1),
	shown AS (SELECT * FROM page ORDER BY backup_id LIMIT lim)
	SELECT coalesce(jsonb_agg(jsonb_build_object('TableName', s.table_name, 'TableId', s.table_id,
			'TableArn', 'arn:aws:dynamodb:local:000000000000:table/' || s.table_name,
			'BackupArn', s.backup_arn, 'BackupName', s.backup_name,
			'BackupCreationDateTime', item_table.backup_epoch(s.created_at),
			'BackupStatus', 'AVAILABLE', 'BackupType', 'USER', 'BackupSizeBytes', s.size_bytes)
			ORDER BY s.backup_id), '[]'),
		(SELECT count(*) > lim FROM page)
	INTO summaries, more FROM shown s;
	IF more THEN
		SELECT s.* INTO last FROM item_table.backups s
		WHERE s.backup_arn = (summaries -> (jsonb_array_length(summaries) - 1) ->> 'BackupArn');
		RETURN jsonb_build_object('BackupSummaries', summaries, 'LastEvaluatedBackupArn', last.backup_arn);
	END IF;
	RETURN jsonb_build_object('BackupSummaries', summaries);
END $$;
COMMENT ON FUNCTION list_backups(jsonb) IS 'DynamoDB ListBackups';

CREATE FUNCTION restore_table_from_backup(request jsonb) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	target text := request ->> 'TargetTableName';
	b item_table.backups;
	n item_table.tables;
BEGIN
	PERFORM item_table.backup_members(request, '{TargetTableName,BackupArn,BillingModeOverride,GlobalSecondaryIndexOverride,LocalSecondaryIndexOverride,ProvisionedThroughputOverride,OnDemandThroughputOverride,SSESpecificationOverride}');
	PERFORM item_table.backup_check(item_table.backup_restore_problems(request));
	b := item_table.backup_by_arn(request);
	IF NOT (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user)
			AND NOT coalesce((SELECT pg_has_role(current_user, r.oid, 'USAGE') FROM pg_roles r
				WHERE r.oid = b.owner AND r.rolname = b.owner_name), false) THEN
		RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = 'permission denied for backup ' || b.backup_arn,
			DETAIL = 'Only members of the role that owned the backed-up table may use its backups.';
	END IF;
	IF EXISTS (SELECT FROM item_table.tables x WHERE x.table_name = target) THEN
		PERFORM item_table.backup_raise('TableAlreadyExistsException', 'Table already exists: ' || target);
	END IF;
	PERFORM item_table.create_table(item_table.backup_create_request(target, b.source, request));
	SELECT * INTO n FROM item_table.tables x WHERE x.table_name = target;
	PERFORM item_table.backup_restore(b.backup_id, n.relid, n.table_id, b.backup_arn,
		'arn:aws:dynamodb:local:000000000000:table/' || b.table_name);
	PERFORM item_table.backup_restore_vector_indexes(target, b.source);
	RETURN item_table.backup_restored_description(target);
END $$;
COMMENT ON FUNCTION restore_table_from_backup(jsonb) IS 'DynamoDB RestoreTableFromBackup';
