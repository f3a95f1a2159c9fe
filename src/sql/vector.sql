
-- ---------------------------------------------------------------------
-- Vector indexes (CreateTable VectorIndexes, SearchVectors) on pgvector.
--
-- Nothing here needs pgvector to install: the type is looked up when an
-- index is created or searched (vector_type()), and every statement that
-- names it is run by EXECUTE.  The functions below run as the catalog
-- owner, called by the C entry points of src/api/api_vector.c after they
-- have checked the caller's rights on the item table; none is executable
-- by PUBLIC.
-- ---------------------------------------------------------------------
CREATE TABLE vector_indexes (
	table_name text COLLATE "C" NOT NULL REFERENCES tables (table_name) ON DELETE CASCADE,
	index_name text COLLATE "C" NOT NULL,
	attribute_name text NOT NULL,
	dimensions integer NOT NULL CHECK (dimensions BETWEEN 1 AND 4096),
	distance_function text NOT NULL CHECK (distance_function IN ('COSINE', 'EUCLIDEAN', 'DOT_PRODUCT')),
	search_schema jsonb NOT NULL DEFAULT '[]',
	hash_attribute text,
	filter_attributes text[] NOT NULL DEFAULT '{}',
	-- the AttributeDefinitions types of the search schema's attributes
	-- ({"name": "S"}): a write giving one another type is refused
	attribute_types jsonb NOT NULL DEFAULT '{}',
	projection_type text NOT NULL CHECK (projection_type IN ('ALL', 'KEYS_ONLY', 'INCLUDE')),
	non_key_attributes text[],
	relid regclass NOT NULL,
	status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('CREATING', 'ACTIVE')),
	-- the build of an index UpdateTable created (status CREATING): who fills
	-- it (the background worker, or only CALL backfill_indexes), the key it
	-- has reached and the items done so far, all written by each batch
	backfill_by text NOT NULL DEFAULT 'worker' CHECK (backfill_by IN ('worker', 'manual')),
	backfill_after item_key,
	backfilled bigint NOT NULL DEFAULT 0,
	created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	PRIMARY KEY (table_name, index_name)
);
COMMENT ON TABLE vector_indexes IS 'item_table catalog: vector indexes (pgvector HNSW) and their index tables';
SELECT pg_catalog.pg_extension_config_dump('vector_indexes', '');
REVOKE ALL ON vector_indexes FROM PUBLIC;
GRANT SELECT ON vector_indexes TO PUBLIC;

-- A DynamoDB error from PL/pgSQL, in the form errors.c gives every other one.
CREATE FUNCTION vector_raise(kind text, message text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	RAISE EXCEPTION USING
		ERRCODE = CASE kind WHEN 'ValidationException' THEN 'XD001'
							WHEN 'ResourceNotFoundException' THEN 'XD004'
							ELSE 'XD016' END,
		MESSAGE = kind || ': ' || message,
		DETAIL = '{"__type":' || to_json(CASE kind WHEN 'ValidationException'
								THEN 'com.amazon.coral.validate#' ELSE 'com.amazonaws.dynamodb.v20120810#' END
							|| kind)::text
				 || ',"message":' || to_json(message)::text || '}';
END $$;

-- The schema-qualified name of pgvector's type, or a clear error.
CREATE FUNCTION vector_type() RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	nsp name;
BEGIN
	SELECT n.nspname INTO nsp
	  FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
	 WHERE e.extname = 'vector';
	IF nsp IS NULL THEN
		PERFORM item_table.vector_raise('ValidationException',
			'Vector indexes need the pgvector extension in this database: install pgvector '
			'(the postgresql-NN-pgvector package, or from source) and run CREATE EXTENSION vector');
	END IF;
	RETURN format('%I.vector', nsp);
END $$;

-- Validate a CreateTable's VectorIndexes (or one UpdateTable Create: then
-- p_path names its place in VectorIndexUpdates and p_status is CREATING) and
-- create each index: its index table (key, search partition, filter
-- values, vector) and its HNSW index.  taken: the names of the table's GSIs
-- and LSIs; its vector indexes are read here.  attr_defs: the request's
-- AttributeDefinitions, which must define every search-schema attribute
-- (as DynamoDB requires) and so give them their types (the table's own key
-- attributes keep theirs).
CREATE FUNCTION vector_create_indexes(p_table text, p_relid oid, specs jsonb, taken text[],
									  p_path text DEFAULT 'vectorIndexes.%s.member',
									  p_status text DEFAULT 'ACTIVE', p_backfill_by text DEFAULT 'worker',
									  attr_defs jsonb DEFAULT '[]')
	RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	spec jsonb;
	i integer := 0;
	problems text[] := '{}';
	path text;
	name text;
	attr text;
	dims integer;
	dist text;
	ptype text;
	nonkey text[];
	hash text;
	filters text[];
	el jsonb;
	vtype text;
	vrel text;
	opclass text;
	seen jsonb := '{}';
	dims_of jsonb := '{}';
	existing text[];
	types jsonb;
	defs jsonb := CASE WHEN jsonb_typeof(attr_defs) = 'array' THEN attr_defs ELSE '[]' END;
	schema_names text[];
BEGIN
	IF jsonb_typeof(specs) <> 'array' THEN
		PERFORM item_table.vector_raise('SerializationException', 'Unexpected value type in payload');
	END IF;
	-- the model's constraints first, all collected as DynamoDB does
	FOR spec IN SELECT value FROM jsonb_array_elements(specs) LOOP
		i := i + 1;
		path := format(p_path, i);
		name := spec ->> 'IndexName';
		IF name IS NULL THEN
			problems := problems || format('Value null at ''%s.indexName'' failed to satisfy constraint: Member must not be null', path);
		ELSE
			IF name !~ '^[a-zA-Z0-9_.-]+$' THEN
				problems := problems || format('Value ''%s'' at ''%s.indexName'' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+', name, path);
			END IF;
			IF length(name) < 3 THEN
				problems := problems || format('Value ''%s'' at ''%s.indexName'' failed to satisfy constraint: Member must have length greater than or equal to 3', name, path);
			ELSIF length(name) > 255 THEN
				problems := problems || format('Value ''%s'' at ''%s.indexName'' failed to satisfy constraint: Member must have length less than or equal to 255', name, path);
			END IF;
		END IF;
		IF spec -> 'VectorAttribute' IS NULL OR spec -> 'VectorAttribute' ->> 'AttributeName' IS NULL THEN
			problems := problems || format('Value null at ''%s.vectorAttribute%s'' failed to satisfy constraint: Member must not be null',
				path, CASE WHEN spec -> 'VectorAttribute' IS NULL THEN '' ELSE '.attributeName' END);
		END IF;
		IF spec -> 'Dimensions' IS NULL THEN
			problems := problems || format('Value null at ''%s.dimensions'' failed to satisfy constraint: Member must not be null', path);
		ELSIF jsonb_typeof(spec -> 'Dimensions') <> 'number' THEN
			PERFORM item_table.vector_raise('SerializationException', 'NUMBER_VALUE cannot be converted to Integer');
		ELSIF (spec ->> 'Dimensions')::numeric < 1 THEN
			problems := problems || format('Value ''%s'' at ''%s.dimensions'' failed to satisfy constraint: Member must have value greater than or equal to 1', spec ->> 'Dimensions', path);
		ELSIF (spec ->> 'Dimensions')::numeric > 4096 THEN
			problems := problems || format('Value ''%s'' at ''%s.dimensions'' failed to satisfy constraint: Member must have value less than or equal to 4096', spec ->> 'Dimensions', path);
		END IF;
		dist := spec ->> 'DistanceFunction';
		IF dist IS NULL THEN
			problems := problems || format('Value null at ''%s.distanceFunction'' failed to satisfy constraint: Member must not be null', path);
		ELSIF dist NOT IN ('COSINE', 'DOT_PRODUCT', 'EUCLIDEAN') THEN
			problems := problems || format('Value ''%s'' at ''%s.distanceFunction'' failed to satisfy constraint: Member must satisfy enum value set: [COSINE, DOT_PRODUCT, EUCLIDEAN]', dist, path);
		END IF;
		IF spec -> 'Projection' IS NULL THEN
			problems := problems || format('Value null at ''%s.projection'' failed to satisfy constraint: Member must not be null', path);
		ELSIF spec -> 'Projection' ->> 'ProjectionType' IS NOT NULL
			  AND spec -> 'Projection' ->> 'ProjectionType' NOT IN ('ALL', 'KEYS_ONLY', 'INCLUDE') THEN
			problems := problems || format('Value ''%s'' at ''%s.projection.projectionType'' failed to satisfy constraint: Member must satisfy enum value set: [ALL, INCLUDE, KEYS_ONLY]',
				spec -> 'Projection' ->> 'ProjectionType', path);
		END IF;
		FOR el IN SELECT value FROM jsonb_array_elements(coalesce(spec -> 'SearchSchema', '[]')) LOOP
			IF el ->> 'SearchSchemaElementType' IS NULL OR el ->> 'SearchSchemaElementType' NOT IN ('HASH', 'INLINE_FILTER') THEN
				problems := problems || format('Value %s at ''%s.searchSchema.member.searchSchemaElementType'' failed to satisfy constraint: Member must %s',
					coalesce(quote_literal(el ->> 'SearchSchemaElementType'), 'null'), path,
					CASE WHEN el ->> 'SearchSchemaElementType' IS NULL THEN 'not be null'
						 ELSE 'satisfy enum value set: [HASH, INLINE_FILTER]' END);
			END IF;
		END LOOP;
	END LOOP;
	IF cardinality(problems) > 0 THEN
		PERFORM item_table.vector_raise('ValidationException',
			format('%s validation error%s detected: %s', cardinality(problems),
				   CASE WHEN cardinality(problems) = 1 THEN '' ELSE 's' END,
				   array_to_string(problems, '; ')));
	END IF;
	-- then the rules between members, and with the table's vector indexes
	IF (SELECT billing_mode FROM item_table.tables WHERE table_name = p_table) = 'PROVISIONED' THEN
		PERFORM item_table.vector_raise('ValidationException',
			'One or more parameter values were invalid: Vector indexes are supported only for tables with BillingMode PAY_PER_REQUEST');
	END IF;
	SELECT coalesce(array_agg(v.index_name), '{}'), coalesce(jsonb_object_agg(v.attribute_name, v.dimensions), '{}')
	  INTO existing, dims_of
	  FROM item_table.vector_indexes v WHERE v.table_name = p_table;
	FOR spec IN SELECT value FROM jsonb_array_elements(specs) LOOP
		name := spec ->> 'IndexName';
		attr := spec -> 'VectorAttribute' ->> 'AttributeName';
		dims := (spec ->> 'Dimensions')::integer;
		IF name = ANY (existing) OR (p_status = 'CREATING' AND name = ANY (taken)) THEN
			PERFORM item_table.vector_raise('ValidationException',
				'One or more parameter values were invalid: Attempting to create an index which already exists');
		END IF;
		IF name = ANY (taken) OR seen ? name THEN
			PERFORM item_table.vector_raise('ValidationException',
				'One or more parameter values were invalid: Duplicate index name: ' || name);
		END IF;
		seen := seen || jsonb_build_object(name, true);
		IF dims_of ? attr AND (dims_of ->> attr)::integer <> dims THEN
			PERFORM item_table.vector_raise('ValidationException',
				format('One or more parameter values were invalid: Vector indexes on the same attribute must have the same number of dimensions. Attribute: %s', attr));
		END IF;
		dims_of := dims_of || jsonb_build_object(attr, dims);
		SELECT array_agg(e ->> 'AttributeName') FILTER (WHERE e ->> 'SearchSchemaElementType' = 'HASH'),
			   coalesce(array_agg(e ->> 'AttributeName') FILTER (WHERE e ->> 'SearchSchemaElementType' = 'INLINE_FILTER'), '{}')
		  INTO filters, nonkey
		  FROM jsonb_array_elements(coalesce(spec -> 'SearchSchema', '[]')) e;
		IF cardinality(filters) > 1 THEN
			PERFORM item_table.vector_raise('ValidationException',
				'One or more parameter values were invalid: A vector index can have at most one HASH search schema element. IndexName: ' || name);
		END IF;
		IF attr = ANY (coalesce(filters, '{}') || nonkey) THEN
			PERFORM item_table.vector_raise('ValidationException',
				'One or more parameter values were invalid: The vector attribute cannot be part of the search schema. IndexName: ' || name);
		END IF;
		-- every search-schema attribute is defined in the request's
		-- AttributeDefinitions, as a GSI's key attributes are, with the
		-- message ApiCheckKeysDefined (api_index.c) gives for those: the
		-- index's search-schema attributes as its keys
		SELECT coalesce(array_agg(e ->> 'AttributeName' ORDER BY o), '{}') INTO schema_names
		  FROM jsonb_array_elements(coalesce(spec -> 'SearchSchema', '[]')) WITH ORDINALITY x(e, o);
		IF EXISTS (SELECT FROM unnest(schema_names) a
					WHERE NOT EXISTS (SELECT FROM jsonb_array_elements(defs) d WHERE d ->> 'AttributeName' = a)) THEN
			PERFORM item_table.vector_raise('ValidationException',
				format('One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]',
					   array_to_string(schema_names, ', '),
					   (SELECT coalesce(string_agg(d ->> 'AttributeName', ', ' ORDER BY o), '')
						  FROM jsonb_array_elements(defs) WITH ORDINALITY x(d, o))));
		END IF;
		-- and an attribute the table keys on, or another vector index's
		-- search schema types, keeps its type (as for a GSI's key)
		IF EXISTS (SELECT FROM jsonb_array_elements(defs) d, item_table.tables t
					WHERE t.table_name = p_table AND d ->> 'AttributeName' = ANY (schema_names)
					  AND ((d ->> 'AttributeName' = t.hash_key AND d ->> 'AttributeType' IS DISTINCT FROM t.hash_type)
						   OR (d ->> 'AttributeName' = t.range_key AND d ->> 'AttributeType' IS DISTINCT FROM t.range_type)
						   OR EXISTS (SELECT FROM item_table.vector_indexes v
									   WHERE v.table_name = p_table AND v.attribute_types ? (d ->> 'AttributeName')
										 AND v.attribute_types ->> (d ->> 'AttributeName') IS DISTINCT FROM d ->> 'AttributeType'))) THEN
			PERFORM item_table.vector_raise('ValidationException',
				'invalid attribute, SchemaElement redefined should be of same type as previously defined');
		END IF;
		ptype := spec -> 'Projection' ->> 'ProjectionType';
		IF ptype = 'INCLUDE' AND jsonb_typeof(spec -> 'Projection' -> 'NonKeyAttributes') IS DISTINCT FROM 'array' THEN
			PERFORM item_table.vector_raise('ValidationException',
				'One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified');
		END IF;
		IF ptype IS DISTINCT FROM 'INCLUDE' AND spec -> 'Projection' -> 'NonKeyAttributes' IS NOT NULL THEN
			PERFORM item_table.vector_raise('ValidationException',
				format('One or more parameter values were invalid: ProjectionType is %s, but NonKeyAttributes is specified', coalesce(ptype, 'null')));
		END IF;
		IF ptype IS NULL THEN
			PERFORM item_table.vector_raise('ValidationException',
				'One or more parameter values were invalid: Unknown ProjectionType: null');
		END IF;
	END LOOP;
	-- every rule holds: now pgvector is needed
	vtype := item_table.vector_type();
	FOR spec IN SELECT value FROM jsonb_array_elements(specs) LOOP
		name := spec ->> 'IndexName';
		attr := spec -> 'VectorAttribute' ->> 'AttributeName';
		dims := (spec ->> 'Dimensions')::integer;
		dist := spec ->> 'DistanceFunction';
		ptype := spec -> 'Projection' ->> 'ProjectionType';
		SELECT array_agg(value) INTO nonkey
		  FROM jsonb_array_elements_text(spec -> 'Projection' -> 'NonKeyAttributes');
		SELECT min(e ->> 'AttributeName') FILTER (WHERE e ->> 'SearchSchemaElementType' = 'HASH'),
			   coalesce(array_agg(e ->> 'AttributeName') FILTER (WHERE e ->> 'SearchSchemaElementType' = 'INLINE_FILTER'), '{}')
		  INTO hash, filters
		  FROM jsonb_array_elements(coalesce(spec -> 'SearchSchema', '[]')) e;
		vrel := 'vector_' || md5(p_table || '/' || name);
		-- m 24 and ef_construction 128 (pgvector's defaults are 16 and 64):
		-- the recall docs/vectors.md gives on random vectors, paid by the
		-- background worker, never by a write.
		-- A write puts its vector in pending (not in the HNSW graph: the
		-- graph skips NULL embeddings); the background worker moves pending
		-- vectors into embedding (the graph) batch by batch, and a search
		-- reads the graph and, exactly, the pending rows
		-- The row holds no copy of the item: a search reads the items it
		-- finds from the item table and projects them as the index does
		EXECUTE format('CREATE TABLE item_data.%I (key item_table.item_key PRIMARY KEY, part jsonb,'
					   ' filters jsonb NOT NULL, embedding %s(%s), pending %s(%s),'
					   ' CHECK ((embedding IS NULL) <> (pending IS NULL)))',
					   vrel, vtype, dims, vtype, dims);
		opclass := CASE dist WHEN 'COSINE' THEN 'vector_cosine_ops'
							 WHEN 'EUCLIDEAN' THEN 'vector_l2_ops' ELSE 'vector_ip_ops' END;
		EXECUTE format('CREATE INDEX ON item_data.%I USING hnsw (embedding %s.%I) WITH (m = %s, ef_construction = %s)',
					   vrel, split_part(vtype, '.', 1), opclass, 24, 128);
		EXECUTE format('CREATE INDEX ON item_data.%I (key) WHERE pending IS NOT NULL', vrel);
		IF hash IS NOT NULL THEN
			EXECUTE format('CREATE INDEX ON item_data.%I (part)', vrel);
		END IF;
		-- each search schema attribute's type: the request's
		-- AttributeDefinitions' (checked above: every one is defined, a key
		-- attribute of the table with its own type)
		SELECT coalesce(jsonb_object_agg(a, ty), '{}') INTO types
		  FROM (SELECT a, coalesce(CASE a WHEN t.hash_key THEN t.hash_type WHEN t.range_key THEN t.range_type END,
								   (SELECT d ->> 'AttributeType' FROM jsonb_array_elements(defs) d
									 WHERE d ->> 'AttributeName' = a LIMIT 1)) AS ty
				  FROM unnest(array_remove(ARRAY[hash], NULL) || filters) a,
					   item_table.tables t WHERE t.table_name = p_table) s
		 WHERE ty IS NOT NULL;
		INSERT INTO item_table.vector_indexes (table_name, index_name, attribute_name, dimensions,
			distance_function, search_schema, hash_attribute, filter_attributes, attribute_types,
			projection_type, non_key_attributes, relid, status, backfill_by)
		VALUES (p_table, name, attr, dims, dist, coalesce(spec -> 'SearchSchema', '[]'), hash, filters,
				types, ptype, nonkey, format('item_data.%I', vrel)::regclass, p_status, p_backfill_by);
	END LOOP;
END $$;

-- DescribeTable's VectorIndexes, or NULL.
CREATE FUNCTION vector_index_descriptions(p_table text) RETURNS jsonb
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	v item_table.vector_indexes;
	n bigint;
	out jsonb := '[]';
BEGIN
	FOR v IN SELECT * FROM item_table.vector_indexes WHERE table_name = p_table ORDER BY created_at, index_name LOOP
		EXECUTE format('SELECT count(*) FROM %s', v.relid) INTO n;
		out := out || jsonb_build_array(jsonb_strip_nulls(jsonb_build_object(
			'IndexName', v.index_name,
			'SearchSchema', CASE WHEN v.search_schema <> '[]' THEN v.search_schema END,
			'Projection', jsonb_strip_nulls(jsonb_build_object('ProjectionType', v.projection_type,
											'NonKeyAttributes', to_jsonb(v.non_key_attributes))),
			'VectorAttribute', jsonb_build_object('AttributeName', v.attribute_name),
			'Dimensions', v.dimensions,
			'DistanceFunction', v.distance_function,
			'IndexStatus', v.status,
			'Backfilling', CASE WHEN v.status = 'CREATING' THEN true END,
			'IndexSizeBytes', pg_total_relation_size(v.relid),
			'ItemCount', n,
			'IndexArn', format('arn:aws:dynamodb:local:000000000000:table/%s/index/%s', v.table_name, v.index_name))));
	END LOOP;
	RETURN CASE WHEN out = '[]' THEN NULL ELSE out END;
END $$;

-- UpdateTable's Delete of a vector index: its catalog row and its index
-- table (whose kept statements are never run again: no catalog row names
-- it).  False when the table has no such vector index.
CREATE FUNCTION vector_drop_index(p_table text, p_index text) RETURNS boolean
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	rel regclass;
BEGIN
	DELETE FROM item_table.vector_indexes WHERE table_name = p_table AND index_name = p_index
	RETURNING relid INTO rel;
	IF rel IS NULL THEN
		RETURN false;
	END IF;
	EXECUTE format('DROP TABLE %s', rel);
	RETURN true;
END $$;

REVOKE ALL ON FUNCTION vector_raise(text, text), vector_type(), vector_create_indexes(text, oid, jsonb, text[], text, text, text, jsonb),
	vector_index_descriptions(text), vector_drop_index(text, text) FROM PUBLIC;

-- The C entry points: the row trigger on a table with vector indexes, and
-- SearchVectors (also through dynamodb()).
CREATE FUNCTION vector_index_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME', 'item_table_vector_index_trigger' LANGUAGE C;
COMMENT ON FUNCTION vector_index_trigger() IS 'maintains the vector-index tables of an item table';

CREATE FUNCTION search_vectors(request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'item_table_search_vectors' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION search_vectors(jsonb) IS 'DynamoDB SearchVectors (approximate nearest neighbours on a vector index, pgvector HNSW)';

-- One batch of the build of a vector index UpdateTable created (status
-- CREATING), for the table's owner: true while more is left.  The
-- background worker runs the same batches; so does CALL backfill_indexes.
CREATE FUNCTION vector_backfill_batch(table_name text, index_name text, batch_size integer DEFAULT 1000)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'item_table_vector_backfill_batch' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION vector_backfill_batch(text, text, integer) IS
	'one batch of the build of a vector index being created: its next items indexed, ACTIVE when none is left (true while more is left)';

-- One batch of the draining of a vector index, for the table's owner: up to
-- batch_size vectors written since the last batches (kept in the index
-- table's pending column, searched exactly) moved into its HNSW graph; the
-- rows moved.  The background worker runs the same batches; so does CALL
-- backfill_indexes.
CREATE FUNCTION vector_drain_batch(table_name text, index_name text, batch_size integer DEFAULT 1000)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'item_table_vector_drain_batch' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION vector_drain_batch(text, text, integer) IS
	'one batch of the draining of a vector index: vectors written since the last batches moved from pending into the HNSW graph (the rows moved)';

-- Every pending vector of a vector index moved into its HNSW graph at once,
-- for the table's owner: the HNSW index dropped and built again by CREATE
-- INDEX over all the index table's vectors (in memory when
-- maintenance_work_mem holds the graph), much faster than the worker's
-- inserts when many vectors are pending (a bulk load, a restore); the index
-- table takes no writes meanwhile.  With when_cheaper, only when at least
-- 1,000 vectors are pending and they outnumber the graph's (what CALL
-- backfill_indexes does first).  The vectors moved.
CREATE FUNCTION vector_build_graph(table_name text, index_name text, when_cheaper boolean DEFAULT false)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'item_table_vector_build_graph' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION vector_build_graph(text, text, boolean) IS
	'the pending vectors of a vector index moved into its HNSW graph at once, the graph built again by CREATE INDEX (the vectors moved)';

-- The vectors of a vector index waiting for the worker (NULL when there is
-- no such index or the caller may not read the table).
CREATE FUNCTION vector_pending(table_name text, index_name text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'item_table_vector_pending' LANGUAGE C STABLE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION vector_pending(text, text) IS
	'the vectors of a vector index written since the worker last moved them into the HNSW graph (searched exactly meanwhile)';

-- background_work (background.sql) lists the vector indexes being built,
-- and those with vectors waiting for the worker ('vector index draining', items_done: the vectors waiting).
CREATE OR REPLACE VIEW background_work AS
	SELECT 'backfill'::text AS work, i.table_name, i.index_name, i.status, i.backfill_by AS done_by,
		i.backfilled AS items_done, i.backfill_after AS position, i.created_at AS since, NULL::timestamptz AS last_progress_at
	FROM indexes i WHERE i.status OPERATOR(pg_catalog.=) 'CREATING'
	UNION ALL
	SELECT 'time to live', t.table_name, t.attribute_name, t.status, 'worker',
		t.items_expired, NULL, t.updated_at, t.last_expired_at
	FROM time_to_live t WHERE t.status OPERATOR(pg_catalog.=) 'ENABLED'
	UNION ALL
	SELECT 'vector index build', v.table_name, v.index_name, v.status, v.backfill_by,
		v.backfilled, v.backfill_after, v.created_at, NULL
	FROM vector_indexes v WHERE v.status OPERATOR(pg_catalog.=) 'CREATING'
	UNION ALL
	SELECT 'vector index draining', p.table_name, p.index_name, p.status,
		CASE pg_catalog.current_setting('item_table.vector_drain', true) WHEN 'manual' THEN 'manual' ELSE 'vector drain' END,
		p.pending, NULL, p.created_at, NULL
	FROM (SELECT v.*, vector_pending(v.table_name, v.index_name) AS pending FROM vector_indexes v) p
	WHERE p.pending OPERATOR(pg_catalog.>) 0;
COMMENT ON VIEW background_work IS
	'background work: indexes and vector indexes being built (items done, resume position), vector indexes with vectors waiting to enter their HNSW graph (items_done: the vectors waiting) and tables with Time to Live enabled (items expired)';

-- The row an item has (or would have) in a vector index (none when it holds
-- no valid vector for it); verify() compares the index tables with it.
CREATE FUNCTION vector_index_entry(table_name text, index_name text, item jsonb)
	RETURNS TABLE (part jsonb, filters jsonb, embedding real[], item jsonb)
	AS 'MODULE_PATHNAME', 'item_table_vector_index_entry' LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1;
COMMENT ON FUNCTION vector_index_entry(text, text, jsonb) IS
	'the row an item has (or would have) in a vector index: search partition, filter values, vector and projected item';

-- The same search as rows, for joins: the TopK items nearest to
-- search_vector (projected as the index projects them) and their Score.
CREATE FUNCTION vector_search(table_name text, index_name text, search_vector real[],
							  top_k integer DEFAULT 10, partition_value jsonb DEFAULT NULL)
	RETURNS TABLE (item jsonb, score double precision)
LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
	SELECT r -> 'Item', (r ->> 'Score')::double precision
	  FROM jsonb_array_elements(item_table.search_vectors(
			jsonb_build_object('TableName', $1, 'IndexName', $2, 'TopK', $4,
							   'SearchVector', (SELECT jsonb_agg(jsonb_build_object('N', x::text))
												  FROM unnest($3) x))
			|| CASE WHEN $5 IS NULL THEN '{}'::jsonb ELSE jsonb_build_object(
				'SearchConditionExpression', '#h = :h',
				'ExpressionAttributeNames', jsonb_build_object('#h',
					(SELECT v.hash_attribute FROM item_table.vector_indexes v
					  WHERE v.table_name = $1 AND v.index_name = $2)),
				'ExpressionAttributeValues', jsonb_build_object(':h', $5)) END
		) -> 'SearchResults') AS r
$$;
COMMENT ON FUNCTION vector_search(text, text, real[], integer, jsonb) IS
	'SearchVectors as rows (item, score), best first, for joins';
