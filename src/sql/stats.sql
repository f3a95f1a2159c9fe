-- ---------------------------------------------------------------------
-- Statistics per table, for psql users and exporters (docs/operations.md)
-- ---------------------------------------------------------------------

-- One row per item table the caller may read (SELECT on its physical
-- table).  items_estimate is PostgreSQL's estimate (pg_class.reltuples,
-- kept by VACUUM and ANALYZE: 0 until the table's first), the number
-- DescribeTable's ItemCount gives; every size is exact, in bytes, from
-- the relations themselves (heap, TOAST and their btree).  Stream lag is
-- that of the table's slowest consumer: the records after its checkpoint,
-- and the age of the oldest of them.  The view reads the stream records
-- and consumer rows with its owner's rights, and shows only the tables
-- the caller may read.
CREATE VIEW table_stats AS
	SELECT t.table_name,
		pg_catalog.int8(GREATEST(c.reltuples, 0)) AS items_estimate,
		pg_catalog.pg_total_relation_size(t.relid) AS table_bytes,
		COALESCE(ix.index_bytes, 0) AS index_bytes,
		COALESCE(ix.index_sizes, '{}') AS index_sizes,
		COALESCE(ix.creating, 0) AS indexes_backfilling,
		COALESCE(ix.backfilled, 0) AS backfill_items_done,
		s.label AS stream_label,
		COALESCE(sr.records, 0) AS stream_records,
		cs.consumers AS stream_consumers,
		cs.parked AS stream_consumers_parked,
		cs.lag_records AS stream_lag_records,
		cs.lag_seconds AS stream_lag_seconds,
		ttl.status AS ttl_status,
		COALESCE(ttl.items_expired, 0) AS ttl_items_deleted,
		ttl.last_expired_at AS ttl_last_deleted_at,
		ce.last_error AS last_consumer_error,
		ce.consumer_name AS last_consumer_error_consumer,
		ce.last_run_at AS last_consumer_error_at
	FROM item_table.tables t
	JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.relid
	LEFT JOIN LATERAL (
		SELECT pg_catalog.sum(pg_catalog.pg_total_relation_size(i.relid))::bigint AS index_bytes,
			pg_catalog.jsonb_object_agg(i.index_name, pg_catalog.pg_total_relation_size(i.relid)) AS index_sizes,
			pg_catalog.count(*) FILTER (WHERE i.status OPERATOR(pg_catalog.=) 'CREATING') AS creating,
			pg_catalog.sum(i.backfilled) FILTER (WHERE i.status OPERATOR(pg_catalog.=) 'CREATING')::bigint AS backfilled
		FROM item_table.indexes i
		WHERE i.table_name OPERATOR(pg_catalog.=) t.table_name
	) ix ON true
	LEFT JOIN item_table.streams s
		ON s.table_name OPERATOR(pg_catalog.=) t.table_name AND s.end_seq IS NULL
	LEFT JOIN LATERAL (
		SELECT pg_catalog.count(*) AS records
		FROM item_table.stream_records r
		WHERE r.stream_id OPERATOR(pg_catalog.=) s.stream_id
	) sr ON true
	LEFT JOIN LATERAL (
		SELECT pg_catalog.count(*) AS consumers,
			pg_catalog.count(*) FILTER (WHERE k.status OPERATOR(pg_catalog.=) 'PARKED') AS parked,
			pg_catalog.max(l.records) AS lag_records,
			pg_catalog.max(l.seconds) AS lag_seconds
		FROM item_table.stream_consumers k
		CROSS JOIN LATERAL (
			SELECT pg_catalog.count(*) AS records,
				GREATEST(COALESCE(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) pg_catalog.min(r.created_at)), 0), 0) AS seconds
			FROM item_table.stream_records r
			WHERE r.stream_id OPERATOR(pg_catalog.=) k.stream_id
				AND r.seq OPERATOR(pg_catalog.>) k.last_sequence_number
		) l
		WHERE k.table_name OPERATOR(pg_catalog.=) t.table_name
	) cs ON true
	LEFT JOIN item_table.time_to_live ttl ON ttl.table_name OPERATOR(pg_catalog.=) t.table_name
	LEFT JOIN LATERAL (
		SELECT k.consumer_name, k.last_error, k.last_run_at
		FROM item_table.stream_consumers k
		WHERE k.table_name OPERATOR(pg_catalog.=) t.table_name AND k.last_error IS NOT NULL
		ORDER BY k.last_run_at DESC NULLS LAST, k.consumer_name
		LIMIT 1
	) ce ON true
	WHERE pg_catalog.has_table_privilege(t.relid, 'SELECT');
COMMENT ON VIEW table_stats IS
	'per item table the caller may read: items (estimate), bytes of the table and its indexes, backfill progress, stream records and consumer lag, Time to Live deletions, the last consumer error';
GRANT SELECT ON table_stats TO PUBLIC;
