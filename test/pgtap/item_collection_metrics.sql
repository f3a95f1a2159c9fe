-- ItemCollectionMetrics and the checks that go with this release's
-- validation work: the collection size the metrics come from is the
-- DynamoDB size of the partition's items plus their LSI entries (100 bytes
-- of overhead each), exactly that partition's (a partition key that is a
-- prefix of another's stays apart); refused UpdateTable calls change
-- nothing; TransactGetItems with a key that does not fit is cancelled.
BEGIN;
SELECT plan(17);
SET search_path = item_table, public;

\ir include/err.sql

CREATE FUNCTION pg_temp.collection_size(text, jsonb) RETURNS float8 LANGUAGE c STRICT
	AS '$libdir/item_table', 'item_table_test_collection_size';

SELECT ok(create_table('{"TableName": "icmt", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
		{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"LocalSecondaryIndexes": [
		{"IndexName": "by_a", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "a", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}},
		{"IndexName": "by_b", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}') ? 'TableDescription',
	'a table with two LSIs');

-- partitions p, p1 (p is its prefix) and q; items in none, one or both LSIs
SELECT lives_ok($$SELECT item_table.put_item(jsonb_build_object('TableName', 'icmt', 'Item', jsonb_strip_nulls(jsonb_build_object(
		'pk', jsonb_build_object('S', p), 'sk', jsonb_build_object('N', i::text),
		'a', CASE WHEN i % 2 = 0 THEN jsonb_build_object('S', 'a' || i) END,
		'b', CASE WHEN i % 3 = 0 THEN jsonb_build_object('N', i::text) END,
		'pad', jsonb_build_object('S', repeat('x', i * 37))))))
	FROM unnest(ARRAY['p', 'p1', 'q']) p, generate_series(1, 12) i$$, 'items written');

CREATE TEMP TABLE expected_sizes AS
SELECT p.pk,
	(SELECT coalesce(sum(item_size(t.item)), 0) FROM item_data.icmt t WHERE t.item->'pk'->>'S' = p.pk)
	+ (SELECT coalesce(sum(item_size(i.item) + 100), 0) FROM item_data."icmt#by_a" i WHERE i.item->'pk'->>'S' = p.pk)
	+ (SELECT coalesce(sum(item_size(i.item) + 100), 0) FROM item_data."icmt#by_b" i WHERE i.item->'pk'->>'S' = p.pk) AS bytes
FROM (VALUES ('p'), ('p1'), ('q'), ('none')) p(pk);

SELECT is(pg_temp.collection_size('icmt', '{"pk": {"S": "p"}, "sk": {"N": "1"}}'),
	(SELECT bytes::float8 FROM expected_sizes WHERE pk = 'p'), 'partition p: its items and LSI entries, not p1''s');
SELECT is(pg_temp.collection_size('icmt', '{"pk": {"S": "p1"}, "sk": {"N": "99"}}'),
	(SELECT bytes::float8 FROM expected_sizes WHERE pk = 'p1'), 'partition p1, whatever the sort key');
SELECT is(pg_temp.collection_size('icmt', '{"pk": {"S": "q"}, "sk": {"N": "1"}}'),
	(SELECT bytes::float8 FROM expected_sizes WHERE pk = 'q'), 'partition q');
SELECT is(pg_temp.collection_size('icmt', '{"pk": {"S": "none"}, "sk": {"N": "1"}}'), 0::float8, 'an empty partition: 0');
SELECT cmp_ok((SELECT bytes FROM expected_sizes WHERE pk = 'p') - (SELECT sum(item_size(item)) FROM item_data.icmt WHERE item->'pk'->>'S' = 'p'),
	'>', 1000::numeric, 'the LSI entries count (100 bytes of overhead each and more)');

-- the size follows writes: a deleted item leaves its table row and its entries
SELECT lives_ok($$SELECT item_table.delete_item('{"TableName": "icmt", "Key": {"pk": {"S": "q"}, "sk": {"N": "6"}}}')$$, 'an item in both LSIs deleted');
SELECT is(pg_temp.collection_size('icmt', '{"pk": {"S": "q"}, "sk": {"N": "1"}}'),
	(SELECT bytes::float8 FROM expected_sizes WHERE pk = 'q')
	- (SELECT (item_size('{"pk": {"S": "q"}, "sk": {"N": "6"}, "a": {"S": "a6"}, "b": {"N": "6"}}'::jsonb || jsonb_build_object('pad', jsonb_build_object('S', repeat('x', 222)))) * 2
		+ item_size('{"pk": {"S": "q"}, "sk": {"N": "6"}, "a": {"S": "a6"}}') + 200)::float8),
	'q shrank by the item, its ALL entry and its KEYS_ONLY entry');

-- the response
SELECT is(dynamodb('PutItem', '{"TableName": "icmt", "Item": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "ReturnItemCollectionMetrics": "SIZE"}'),
	'{"ItemCollectionMetrics": {"ItemCollectionKey": {"pk": {"S": "p"}}, "SizeEstimateRangeGB": [0.0, 1.0]}}'::jsonb,
	'PutItem answers the collection key and the GB range');
SELECT is(jsonb_array_length(dynamodb('BatchWriteItem', '{"RequestItems": {"icmt": [
	{"PutRequest": {"Item": {"pk": {"S": "p"}, "sk": {"N": "2"}}}}, {"PutRequest": {"Item": {"pk": {"S": "p"}, "sk": {"N": "3"}}}},
	{"DeleteRequest": {"Key": {"pk": {"S": "q"}, "sk": {"N": "1"}}}}]}, "ReturnItemCollectionMetrics": "SIZE"}')->'ItemCollectionMetrics'->'icmt'),
	2, 'BatchWriteItem: one entry per partition written');

-- refused UpdateTable calls change nothing
SELECT ok(create_table('{"TableName": "icmt_prov", "ProvisionedThroughput": {"ReadCapacityUnits": 4, "WriteCapacityUnits": 6},
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') ? 'TableDescription',
	'a provisioned table');
SELECT throws_ok($$SELECT item_table.update_table('{"TableName": "icmt_prov", "ProvisionedThroughput": {"ReadCapacityUnits": 4, "WriteCapacityUnits": 6}}')$$,
	'XD001', NULL, 'unchanged throughput refused');
SELECT throws_ok($$SELECT item_table.update_table('{"TableName": "icmt_prov", "BillingMode": "PAY_PER_REQUEST", "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}')$$,
	'XD001', 'ValidationException: One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST',
	'PAY_PER_REQUEST with throughput refused');
SELECT is(describe_table('{"TableName": "icmt_prov"}')->'Table'->'ProvisionedThroughput',
	'{"ReadCapacityUnits": 4, "WriteCapacityUnits": 6, "NumberOfDecreasesToday": 0}'::jsonb, 'the table is as it was');

-- TransactGetItems: a key of the wrong type cancels the transaction
SELECT throws_ok($$SELECT item_table.transact_get_items('{"TransactItems": [{"Get": {"TableName": "icmt", "Key": {"pk": {"S": "p"}, "sk": {"S": "1"}}}}]}')$$,
	'XD007', 'TransactionCanceledException: Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError]',
	'TransactGetItems: ValidationError reason');
SELECT is(pg_temp.err('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "icmt", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}}},
	{"Get": {"TableName": "icmt", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}, "x": {"S": "extra"}}}}]}')->'body'->'CancellationReasons',
	'[{"Code": "None"}, {"Code": "ValidationError", "Message": "The provided key element does not match the schema"}]'::jsonb,
	'an extra key attribute: the reason names the schema mismatch');

SELECT * FROM finish();
ROLLBACK;
