-- Background work, in one transaction: Time to Live expiry as of a given
-- time (which items expire, bounded batches, indexes kept consistent, the
-- setting that stops it), and an index under construction cancelled.
-- Nothing here commits, so the background worker never sees this work.
BEGIN;
SELECT plan(27);
SET search_path = item_table, public;

SELECT ok(create_table('{"TableName": "ttl_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"},
		{"AttributeName": "h", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [
		{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}},
		{"IndexName": "by_h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}]}') ? 'TableDescription',
	'a table with two GSIs');

-- the clock of this test: T = 2100-01-01 00:00:00 UTC = 4102444800
CREATE TEMP TABLE cases (pk text, exp jsonb, expires_at_t boolean);
INSERT INTO cases VALUES
	('past_int',      '{"N": "4102444700"}',   true),
	('exactly_t',     '{"N": "4102444800"}',   true),
	('past_fraction', '{"N": "4102444799.5"}', true),
	('future',        '{"N": "4102444801"}',   false),
	('future_frac',   '{"N": "4102444800.001"}', false),
	('string',        '{"S": "4102444700"}',   false),
	('binary',        '{"B": "AAAA"}',         false),
	('number_set',    '{"NS": ["1"]}',         false),
	('list',          '{"L": [{"N": "1"}]}',   false),
	('map',           '{"M": {"N": {"N": "1"}}}', false),
	('too_old',       '{"N": "3786912000"}',   false),	-- 2090-01-01: ten years before T
	('missing',       NULL,                    false);
SELECT put_item(jsonb_build_object('TableName', 'ttl_t', 'Item',
	jsonb_build_object('pk', jsonb_build_object('S', pk), 'g', '{"S": "G"}'::jsonb, 'h', '{"N": "7"}'::jsonb)
	|| CASE WHEN exp IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('exp', exp) END))
FROM cases;

SELECT throws_ok($$SELECT expire_items('ttl_t', '2100-01-01 00:00:00+00')$$, '55000', NULL,
	'expire_items refuses a table without TTL enabled');
SELECT is(update_time_to_live('{"TableName": "ttl_t", "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}'),
	'{"TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}'::jsonb, 'TTL enabled on exp');

SELECT is(expire_items('ttl_t', '2099-01-01 00:00:00+00'), 0::bigint, 'a year before T nothing has expired');
SELECT is(expire_items('ttl_t', '2100-01-01 00:00:00+00'), 3::bigint, 'at T three items expire');
SELECT is((SELECT array_agg(pk ORDER BY pk) FROM cases c
		   WHERE NOT EXISTS (SELECT FROM item_data.ttl_t t WHERE t.item->'pk'->>'S' = c.pk)),
	(SELECT array_agg(pk ORDER BY pk) FROM cases WHERE expires_at_t),
	'exactly the items with a Number at or before T are gone');
SELECT is((SELECT count(*) FROM item_data.ttl_t), 9::bigint,
	'strings, binaries, sets, lists, maps, future, too old and missing values stay');
SELECT is(expire_items('ttl_t', '2100-01-01 00:00:00+00'), 0::bigint, 'a second pass at T finds nothing');
SELECT is((SELECT count(*) FROM verify('ttl_t')), 0::bigint, 'both indexes are consistent after expiry');
SELECT is((SELECT count(*) FROM item_data."ttl_t#by_g"), 9::bigint, 'the GSI lost the expired items');
SELECT is((SELECT items_expired FROM time_to_live WHERE table_name = 'ttl_t'), 3::bigint,
	'the catalog counts what expiry deleted');
SELECT ok((SELECT work = 'time to live' AND index_name = 'exp' AND items_done = 3 FROM background_work WHERE table_name = 'ttl_t'),
	'background_work shows the TTL table and its count');

-- bounded batches
SELECT put_item(jsonb_build_object('TableName', 'ttl_t', 'Item',
	jsonb_build_object('pk', jsonb_build_object('S', 'b' || i), 'g', jsonb_build_object('S', 'G' || (i % 5)),
		'exp', jsonb_build_object('N', (4102444000 + i)::text))))
FROM generate_series(1, 25) i;
SELECT is(expire_items('ttl_t', '2100-01-01 00:00:00+00', 10), 10::bigint, 'a batch deletes at most max_items');
SELECT is(expire_items('ttl_t', '2100-01-01 00:00:00+00', 10), 10::bigint, 'the next batch ten more');
SELECT is(expire_items('ttl_t', '2100-01-01 00:00:00+00', 10), 5::bigint, 'and the last five');
SELECT is((SELECT count(*) FROM verify('ttl_t')), 0::bigint, 'indexes consistent after the batches');

-- an item updated to a later expiry does not expire; one updated to an
-- earlier one does
SELECT update_item('{"TableName": "ttl_t", "Key": {"pk": {"S": "future"}}, "UpdateExpression": "SET #e = :e",
	"ExpressionAttributeNames": {"#e": "exp"}, "ExpressionAttributeValues": {":e": {"N": "4102444000"}}}');
SELECT update_item('{"TableName": "ttl_t", "Key": {"pk": {"S": "string"}}, "UpdateExpression": "SET #e = :e",
	"ExpressionAttributeNames": {"#e": "exp"}, "ExpressionAttributeValues": {":e": {"N": "4200000000"}}}');
SELECT is(expire_items('ttl_t', '2100-01-01 00:00:00+00'), 1::bigint, 'an item moved into the past expires');
SELECT ok(get_item('{"TableName": "ttl_t", "Key": {"pk": {"S": "string"}}}') ? 'Item', 'an item moved into the future stays');

-- until an expired item is deleted, reads return it, and the filter
-- DynamoDB users write hides it
SELECT put_item('{"TableName": "ttl_t", "Item": {"pk": {"S": "stale"}, "exp": {"N": "1000"}}}');
SELECT is((scan('{"TableName": "ttl_t", "FilterExpression": "attribute_not_exists(#e) OR #e > :now",
	"ExpressionAttributeNames": {"#e": "exp"}, "ExpressionAttributeValues": {":now": {"N": "4102444800"}}}')->>'Count')::int,
	(SELECT count(*)::int FROM item_data.ttl_t WHERE NOT item ? 'exp' OR (item->'exp'->>'N')::numeric > 4102444800),
	'a filter on the TTL attribute hides items expired but not yet deleted');
SELECT ok(get_item('{"TableName": "ttl_t", "Key": {"pk": {"S": "stale"}}}') ? 'Item', 'a GetItem still returns it');

-- disabled: nothing expires any more
SELECT is(update_time_to_live('{"TableName": "ttl_t", "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": false}}'),
	'{"TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": false}}'::jsonb, 'TTL disabled');
SELECT throws_ok($$SELECT expire_items('ttl_t', '2100-01-01 00:00:00+00')$$, '55000', NULL,
	'expire_items refuses once TTL is disabled');
SELECT ok(NOT EXISTS (SELECT FROM background_work WHERE table_name = 'ttl_t'), 'and background_work no longer lists it');

-- an index under construction, deleted: cancelled, nothing left behind
SET LOCAL item_table.index_backfill = manual;
SELECT ok(update_table('{"TableName": "ttl_t", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_k", "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}}]}') ? 'TableDescription', 'an index is being created');
SELECT is((SELECT done_by || ' ' || status FROM background_work WHERE index_name = 'by_k'), 'manual CREATING',
	'background_work shows it, left to the procedure');
SELECT ok(update_table('{"TableName": "ttl_t", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "by_k"}}]}') ? 'TableDescription',
	'and deleted before its backfill');
SELECT ok(NOT EXISTS (SELECT FROM background_work WHERE index_name = 'by_k')
	AND NOT EXISTS (SELECT FROM indexes WHERE index_name = 'by_k')
	AND to_regclass('item_data."ttl_t#by_k"') IS NULL, 'no catalog row, no work, no index table left');

SELECT * FROM finish();
ROLLBACK;
