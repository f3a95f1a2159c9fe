-- Vector indexes in backups and restores: a backup keeps the table's vector
-- indexes in its definition (DescribeBackup lists them), and
-- RestoreTableFromBackup and RestoreTableToPointInTime make them again on
-- the restored table, built from the restored items with their HNSW graphs
-- (nothing left pending), so SearchVectors on the restored table finds the
-- items of the backup's moment, as an exact search over them does; an item
-- whose attribute is not a vector of an index (written before the index
-- existed) is left out of it, as a build leaves it.  In one transaction,
-- rolled back.  Skipped when pgvector is not installed.
SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS have_vector \gset
\if :have_vector
BEGIN;
SELECT plan(21);
SET search_path = item_table, public;
CREATE EXTENSION IF NOT EXISTS vector;

CREATE FUNCTION pg_temp.vec(i int) RETURNS real[] LANGUAGE sql AS $$
	SELECT array_agg(round(sin(i * 3.1 + d * 2.3)::numeric, 4)::real ORDER BY d) FROM generate_series(1, 4) d
$$;
CREATE FUNCTION pg_temp.attr(v real[]) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('L', jsonb_agg(jsonb_build_object('N', x::text))) FROM unnest(v) x
$$;
CREATE FUNCTION pg_temp.search(tab text, idx text, v real[], k int, extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
	SELECT dynamodb('SearchVectors', jsonb_build_object('TableName', tab, 'IndexName', idx, 'TopK', k,
		'SearchVector', (SELECT jsonb_agg(jsonb_build_object('N', x::text)) FROM unnest(v) x)) || extra) -> 'SearchResults'
$$;
CREATE FUNCTION pg_temp.ids(r jsonb) RETURNS text[] LANGUAGE sql AS $$
	SELECT array_agg(e -> 'Item' -> 'id' ->> 'S' ORDER BY o) FROM jsonb_array_elements(r) WITH ORDINALITY x(e, o)
$$;
-- the exact TopK over the items of a table (a brute-force ORDER BY distance)
CREATE FUNCTION pg_temp.exact(tab text, attr text, op text, v real[], k int, cat text DEFAULT NULL) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE out text[];
BEGIN
	EXECUTE format('SELECT array_agg(id ORDER BY d, key) FROM (SELECT key, item -> ''id'' ->> ''S'' AS id,'
				   ' (SELECT array_agg((e ->> ''N'')::real) FROM jsonb_array_elements(item -> %L -> ''L'') e)::vector %s $1::vector AS d'
				   ' FROM item_data.%I WHERE item -> %L -> ''L'' IS NOT NULL AND ($3 IS NULL OR item -> ''cat'' ->> ''S'' = $3)'
				   ' ORDER BY 3, key LIMIT $2) s', attr, op, tab, attr)
		INTO out USING v, k, cat;
	RETURN out;
END $$;
CREATE FUNCTION pg_temp.pending(tab text) RETURNS bigint LANGUAGE sql AS $$
	SELECT sum(vector_pending(tab, index_name)) FROM vector_indexes WHERE table_name = tab
$$;

-- the source: a COSINE index with a HASH search schema (KEYS_ONLY), items,
-- then an index on a second attribute added by UpdateTable and built
SELECT ok(dynamodb('CreateTable', '{"TableName": "vbk", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "cat", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
	"VectorIndexes": [{"IndexName": "cos-idx", "VectorAttribute": {"AttributeName": "emb"}, "Dimensions": 4,
		"DistanceFunction": "COSINE", "SearchSchema": [{"AttributeName": "cat", "SearchSchemaElementType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}]}') ? 'TableDescription', 'a table with a vector index');
SELECT count(*) FROM (SELECT dynamodb('PutItem', jsonb_build_object('TableName', 'vbk', 'Item',
	jsonb_build_object('id', jsonb_build_object('S', 'i' || lpad(i::text, 3, '0')), 'cat', jsonb_build_object('S', 'c' || (i % 3)),
		'emb', pg_temp.attr(pg_temp.vec(i)), 'emb2', pg_temp.attr(pg_temp.vec(i + 500)))))
	FROM generate_series(1, 90) i) s;
-- an item whose emb2 is no vector: no index on emb2 refuses it yet
SELECT dynamodb('PutItem', '{"TableName": "vbk", "Item": {"id": {"S": "odd"}, "cat": {"S": "c1"}, "emb2": {"S": "not a vector"}}}');
SET LOCAL item_table.index_backfill = 'manual';
SELECT ok(dynamodb('UpdateTable', '{"TableName": "vbk", "VectorIndexUpdates": [{"Create": {"IndexName": "l2-idx",
	"VectorAttribute": {"AttributeName": "emb2"}, "Dimensions": 4, "DistanceFunction": "EUCLIDEAN",
	"Projection": {"ProjectionType": "ALL"}}}]}') ? 'TableDescription', 'a second vector index by UpdateTable');
RESET item_table.index_backfill;
SELECT is(vector_backfill_batch('vbk', 'l2-idx', 1000), false, 'built (the odd item left out)');
SELECT ok(dynamodb('UpdateContinuousBackups', '{"TableName": "vbk",
	"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}') IS NOT NULL, 'point-in-time recovery on');

-- the backup: its definition has both vector indexes
CREATE TEMP TABLE bk AS SELECT dynamodb('CreateBackup', '{"TableName": "vbk", "BackupName": "vbk_bk"}')
	#>> '{BackupDetails,BackupArn}' AS arn;
SELECT is((SELECT jsonb_agg(v -> 'IndexName' ORDER BY v ->> 'IndexName') FROM jsonb_array_elements(
		dynamodb('DescribeBackup', jsonb_build_object('BackupArn', (SELECT arn FROM bk)))
		#> '{BackupDescription,SourceTableFeatureDetails,VectorIndexes}') v),
	'["cos-idx", "l2-idx"]', 'DescribeBackup lists the vector indexes');
SELECT is(dynamodb('DescribeBackup', jsonb_build_object('BackupArn', (SELECT arn FROM bk)))
		#> '{BackupDescription,SourceTableFeatureDetails,VectorIndexes,0}',
	'{"IndexName": "cos-idx", "VectorAttribute": {"AttributeName": "emb"}, "Dimensions": 4, "DistanceFunction": "COSINE",
	  "SearchSchema": [{"AttributeName": "cat", "SearchSchemaElementType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}',
	'with their definitions');
CREATE TEMP TABLE at_backup AS SELECT key, item FROM item_data.vbk;
-- changes after the backup are not in its restore
SELECT dynamodb('DeleteItem', '{"TableName": "vbk", "Key": {"id": {"S": "i010"}}}');
SELECT dynamodb('PutItem', jsonb_build_object('TableName', 'vbk', 'Item',
	jsonb_build_object('id', jsonb_build_object('S', 'late'), 'cat', jsonb_build_object('S', 'c0'),
		'emb', pg_temp.attr(pg_temp.vec(1010)), 'emb2', pg_temp.attr(pg_temp.vec(1510)))));

-- RestoreTableFromBackup
SELECT is((SELECT jsonb_agg(jsonb_build_object('n', v -> 'IndexName', 's', v -> 'IndexStatus', 'c', v -> 'ItemCount') ORDER BY v ->> 'IndexName')
		   FROM jsonb_array_elements(dynamodb('RestoreTableFromBackup', jsonb_build_object('BackupArn', (SELECT arn FROM bk),
				'TargetTableName', 'vbk_r')) #> '{TableDescription,VectorIndexes}') v),
	'[{"n": "cos-idx", "s": "ACTIVE", "c": 90}, {"n": "l2-idx", "s": "ACTIVE", "c": 90}]',
	'the restored table has both vector indexes, ACTIVE, with the backup''s items (the odd one left out of l2-idx)');
SELECT set_eq('SELECT key, item FROM item_data.vbk_r', 'SELECT key, item FROM at_backup', 'the backup''s items restored');
SELECT is(pg_temp.pending('vbk_r'), 0::bigint, 'the restored indexes'' vectors are in their HNSW graphs, none pending');
SELECT is((SELECT count(*)::int FROM verify('vbk_r')), 0, 'verify(): the restored vector indexes match the items');
SELECT is(pg_temp.ids(pg_temp.search('vbk_r', 'l2-idx', pg_temp.vec(510), 1)), ARRAY['i010'],
	'SearchVectors on the restored table finds an item deleted from the source after the backup');
SELECT is(pg_temp.ids(pg_temp.search('vbk_r', 'l2-idx', pg_temp.vec(1510), 90)) @> ARRAY['late'], false,
	'and not an item written after it');
SELECT is((SELECT bool_and(pg_temp.ids(pg_temp.search('vbk_r', 'l2-idx', pg_temp.vec(q), 6)) = pg_temp.exact('vbk_r', 'emb2', '<->', pg_temp.vec(q), 6))
			 FROM generate_series(700, 710) q), true,
	'11 searches of the restored EUCLIDEAN index: the exact search''s results');
SELECT is((SELECT bool_and(pg_temp.ids(pg_temp.search('vbk_r', 'cos-idx', pg_temp.vec(q), 5,
				jsonb_build_object('SearchConditionExpression', 'cat = :c', 'ExpressionAttributeValues', jsonb_build_object(':c', jsonb_build_object('S', 'c' || (q % 3))))))
			   = pg_temp.exact('vbk_r', 'emb', '<=>', pg_temp.vec(q), 5, 'c' || (q % 3)))
			 FROM generate_series(700, 710) q), true,
	'11 searches of the restored COSINE index with its HASH condition: the exact search''s results');
SELECT is(pg_temp.search('vbk_r', 'cos-idx', pg_temp.vec(7), 1, '{"SearchConditionExpression": "cat = :c", "ExpressionAttributeValues": {":c": {"S": "c1"}}}') -> 0 -> 'Item',
	'{"id": {"S": "i007"}, "cat": {"S": "c1"}}', 'the restored index projects as the source''s (KEYS_ONLY and its HASH attribute)');
SELECT ok(pg_temp.search('vbk_r', 'l2-idx', pg_temp.vec(507), 1) -> 0 -> 'Item' ? 'emb', 'ProjectionType ALL: the whole item');
SELECT is(pg_temp.ids(pg_temp.search('vbk_r', 'l2-idx', pg_temp.vec(1510), 91)) @> ARRAY['odd'], false,
	'the item without a vector is in no index');

-- RestoreTableToPointInTime (the latest time: the source as it is)
SELECT is((SELECT jsonb_agg(v -> 'IndexName' ORDER BY v ->> 'IndexName')
		   FROM jsonb_array_elements(dynamodb('RestoreTableToPointInTime', '{"SourceTableName": "vbk", "TargetTableName": "vbk_p",
				"UseLatestRestorableTime": true}') #> '{TableDescription,VectorIndexes}') v),
	'["cos-idx", "l2-idx"]', 'RestoreTableToPointInTime makes the vector indexes again');
SELECT is(pg_temp.pending('vbk_p'), 0::bigint, 'with their graphs built');
SELECT is(pg_temp.ids(pg_temp.search('vbk_p', 'l2-idx', pg_temp.vec(1510), 1)), ARRAY['late'],
	'SearchVectors on the table restored to the latest time finds the latest write');
SELECT is((SELECT count(*)::int FROM verify('vbk_p')), 0, 'verify(): consistent');

SELECT * FROM finish();
ROLLBACK;
\else
SELECT plan(1);
SELECT skip('pgvector is not installed (build it from the vendored source, or install postgresql-NN-pgvector): vector index tests skipped', 1);
\endif
