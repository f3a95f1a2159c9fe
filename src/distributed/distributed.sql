
-- ---------------------------------------------------------------------
-- Distributed tables (Citus): see src/distributed/distributed.c and docs/distributed.md
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
				HINT = 'Install Citus from its own packages, preload it and CREATE EXTENSION citus on the coordinator and every worker (docs/distributed.md).';
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

	IF EXISTS (SELECT 1 FROM item_table.vector_indexes v
			WHERE v.table_name OPERATOR(pg_catalog.=) distribute_table.table_name) THEN
		RAISE EXCEPTION 'item table "%" has vector indexes', distribute_table.table_name
			USING ERRCODE = 'feature_not_supported',
				HINT = 'Vector indexes are kept by a trigger and searched with statements of undistributed tables: delete them (UpdateTable VectorIndexUpdates Delete) before distributing.';
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
	'distribute an item table and its index tables with Citus by partition key (see docs/distributed.md)';


-- the plans of the item statements the API sends for one key
CREATE FUNCTION explain_item(table_name text, key jsonb) RETURNS SETOF text
	AS 'MODULE_PATHNAME', 'item_table_explain_item' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION explain_item(text, jsonb) IS
	'the plans (EXPLAIN) of the item statements (GetItem, PutItem, UpdateItem, DeleteItem) the API runs on a distributed table for one key: each should show Task Count: 1';

CREATE FUNCTION undistribute_table(table_name text) RETURNS void
	AS 'MODULE_PATHNAME', 'item_table_undistribute_table' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION undistribute_table(text) IS
	'bring a table distributed with distribute_table() and its index tables back to the coordinator, as ordinary item tables';
