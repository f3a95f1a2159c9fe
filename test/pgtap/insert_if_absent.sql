-- A create that must not replace -- a Put (or an UpdateItem making an
-- item) whose condition holds only when the key has no item,
-- attribute_not_exists of a key attribute (or legacy Expected Exists false
-- on it), alone, in an AND, or in both branches of an OR -- is inserted
-- first, without the probe and row lock that would only find nothing
-- (ApiInsertIfAbsent, api_common.c; tx_insert_first, api_batch.c;
-- update_insert_first, api_item.c).  Which path ran shows in the primary
-- key's index scans (pg_stat_get_xact_numscans): none for a create of a
-- new key, at least one when the key has an item or the condition is not
-- of that kind.  The results are the probing path's: the item,
-- ConditionalCheckFailed with the old item when asked, nothing written on
-- failure, TransactWriteItems all or nothing, index rows and stream
-- records, the update's own errors on no item, and the rights (UPDATE is
-- needed as for the locked read, whether or not the item exists).
BEGIN;
SELECT plan(34);
SET search_path = item_table, public;

SELECT ok(create_table('{"TableName": "iab", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
		{"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}') ? 'TableDescription',
	'a table with a range key, a GSI and a stream');

-- index scans of ia's primary key in this transaction
CREATE FUNCTION pg_temp.scans() RETURNS bigint LANGUAGE sql AS $$
	SELECT pg_stat_get_xact_numscans(i.indexrelid) FROM pg_index i
	WHERE i.indrelid = 'item_data.iab'::regclass AND i.indisprimary $$;
CREATE TEMP TABLE s (n bigint);
GRANT ALL ON s TO PUBLIC;
CREATE FUNCTION pg_temp.mark() RETURNS void LANGUAGE sql AS $$
	DELETE FROM s; INSERT INTO s SELECT pg_temp.scans() $$;
CREATE FUNCTION pg_temp.since() RETURNS bigint LANGUAGE sql AS $$
	SELECT pg_temp.scans() - (SELECT n FROM s) $$;
CREATE FUNCTION pg_temp.item(pk text, sk text, v int) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('pk', jsonb_build_object('S', pk), 'sk', jsonb_build_object('S', sk),
		'g', jsonb_build_object('S', 'G' || pk), 'v', jsonb_build_object('N', v::text)) $$;
CREATE FUNCTION pg_temp.put(pk text, sk text, v int, extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
	SELECT item_table.put_item(jsonb_build_object('TableName', 'iab', 'Item', pg_temp.item(pk, sk, v),
		'ConditionExpression', 'attribute_not_exists(pk)') || extra) $$;
\ir include/err.sql
CREATE FUNCTION pg_temp.msg(action text, request jsonb) RETURNS text LANGUAGE sql AS $$
	SELECT pg_temp.err(action, request)->>'message' $$;
CREATE FUNCTION pg_temp.state(action text, request jsonb) RETURNS text LANGUAGE sql AS $$
	SELECT pg_temp.err(action, request)->>'sqlstate' $$;
CREATE FUNCTION pg_temp.body(action text, request jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT pg_temp.err(action, request)->'body' $$;
CREATE FUNCTION pg_temp.tx_put(pk text, sk text, v int) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('Put', jsonb_build_object('TableName', 'iab', 'Item', pg_temp.item(pk, sk, v),
		'ConditionExpression', 'attribute_not_exists(pk)', 'ReturnValuesOnConditionCheckFailure', 'ALL_OLD')) $$;
CREATE FUNCTION pg_temp.v_of(pk text, sk text) RETURNS text LANGUAGE sql AS $$
	SELECT item->'v'->>'N' FROM item_data.iab WHERE key = item_key(jsonb_build_object('S', pk), jsonb_build_object('S', sk)) $$;

-- PutItem
SELECT pg_temp.mark();
SELECT is(pg_temp.put('a', '1', 1), '{}'::jsonb, 'a create of a new key succeeds');
SELECT is(pg_temp.since(), 0::bigint, '... without an index scan: inserted first');
SELECT is(pg_temp.v_of('a', '1'), '1', '... and the item is there');
SELECT pg_temp.mark();
SELECT is(pg_temp.msg('PutItem', jsonb_build_object('TableName', 'iab', 'Item', pg_temp.item('a', '1', 2),
	'ConditionExpression', 'attribute_not_exists(pk)')),
	'ConditionalCheckFailedException: The conditional request failed', 'a create of an existing key fails its condition');
SELECT cmp_ok(pg_temp.since(), '>', 0::bigint, '... after reading the item');
SELECT is(pg_temp.v_of('a', '1'), '1', '... and changes nothing');
SELECT is(pg_temp.body('PutItem', jsonb_build_object('TableName', 'iab', 'Item', pg_temp.item('a', '1', 2),
	'ConditionExpression', 'attribute_not_exists(pk)', 'ReturnValuesOnConditionCheckFailure', 'ALL_OLD'))->'Item'->'v'->>'N',
	'1', '... with the old item when asked');

-- the other shapes of the idiom, and conditions that are not of it
SELECT pg_temp.mark();
SELECT is(pg_temp.put('b', '1', 1, '{"ConditionExpression": "attribute_not_exists(#s)", "ExpressionAttributeNames": {"#s": "sk"}}'),
	'{}'::jsonb, 'attribute_not_exists of the range key, through a name placeholder');
SELECT pg_temp.put('c', '1', 1, '{"ConditionExpression": "attribute_not_exists(pk) OR attribute_not_exists(sk)"}');
SELECT item_table.put_item(jsonb_build_object('TableName', 'iab', 'Item', pg_temp.item('d', '1', 1),
	'Expected', '{"pk": {"Exists": false}}'::jsonb));
SELECT is(pg_temp.since(), 0::bigint, '... in both branches of an OR, and as legacy Expected Exists false: inserted first');
SELECT is((SELECT count(*) FROM item_data.iab WHERE item->>'pk' IS NOT NULL AND item->'pk'->>'S' IN ('b', 'c', 'd')),
	3::bigint, '... all three written');
SELECT is(pg_temp.msg('PutItem', jsonb_build_object('TableName', 'iab', 'Item', pg_temp.item('e', '1', 1),
	'ConditionExpression', 'attribute_not_exists(pk) AND w > :z', 'ExpressionAttributeValues', '{":z": {"N": "0"}}'::jsonb)),
	'ConditionalCheckFailedException: The conditional request failed',
	'a condition that needs no item but is false on none fails on a new key');
SELECT is(pg_temp.v_of('e', '1'), NULL, '... writing nothing');
SELECT pg_temp.mark();
SELECT pg_temp.put('f', '1', 1, '{"ConditionExpression": "attribute_not_exists(v)"}');
SELECT cmp_ok(pg_temp.since(), '>', 0::bigint, 'attribute_not_exists of another attribute reads first');
SELECT is(pg_temp.v_of('f', '1'), '1', '... and writes');

-- what the write keeps: the GSI and the stream
SELECT is((item_table.query('{"TableName": "iab", "IndexName": "by_g", "KeyConditionExpression": "g = :g",
	"ExpressionAttributeValues": {":g": {"S": "Ga"}}}')->>'Count')::int, 1, 'the GSI has the created item');
SELECT is((SELECT count(*) FROM item_table.stream_records('iab') WHERE event_name = 'INSERT'),
	(SELECT count(*) FROM item_data.iab), 'one INSERT stream record per created item, none for the failures');

-- TransactWriteItems
SELECT pg_temp.mark();
SELECT is(item_table.transact_write_items(jsonb_build_object('TransactItems', jsonb_build_array(
	pg_temp.tx_put('t', '1', 1), pg_temp.tx_put('t', '2', 2), pg_temp.tx_put('u', '1', 3)))),
	'{}'::jsonb, 'TransactWriteItems: three creates of new keys');
SELECT is(pg_temp.since(), 0::bigint, '... inserted first');
SELECT is(pg_temp.v_of('u', '1'), '3', '... and written');
SELECT is(pg_temp.body('TransactWriteItems', jsonb_build_object('TransactItems', jsonb_build_array(
	pg_temp.tx_put('v', '1', 1), pg_temp.tx_put('a', '1', 9)))) - '__type',
	'{"Message": "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]",
	  "CancellationReasons": [{"Code": "None"}, {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed",
	  "Item": {"g": {"S": "Ga"}, "v": {"N": "1"}, "pk": {"S": "a"}, "sk": {"S": "1"}}}]}'::jsonb,
	'a create of an existing key cancels the transaction, with the old item');
SELECT is(pg_temp.v_of('v', '1'), NULL, '... and the create inserted first before it is undone');
SELECT is(pg_temp.body('TransactWriteItems', jsonb_build_object('TransactItems', jsonb_build_array(
	pg_temp.tx_put('w', '1', 1),
	jsonb_build_object('Put', jsonb_build_object('TableName', 'iab', 'ConditionExpression', 'attribute_not_exists(pk)',
		'Item', pg_temp.item('w', '2', 1) || jsonb_build_object('big', jsonb_build_object('S', repeat('x', 410000))))))))->'CancellationReasons',
	'[{"Code": "None"}, {"Code": "ValidationError", "Message": "Item size has exceeded the maximum allowed size"}]'::jsonb,
	'an item over the size limit is a ValidationError reason');
SELECT is(pg_temp.v_of('w', '1'), NULL, '... nothing written');

-- UpdateItem creating an item
CREATE FUNCTION pg_temp.upd(pk text, sk text, expr text, vals jsonb, extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('TableName', 'iab', 'Key', jsonb_build_object('pk', jsonb_build_object('S', pk), 'sk', jsonb_build_object('S', sk)),
		'ConditionExpression', 'attribute_not_exists(pk)', 'UpdateExpression', expr, 'ExpressionAttributeValues', vals) || extra $$;
SELECT pg_temp.mark();
SELECT is(item_table.update_item(pg_temp.upd('m', '1', 'SET v = :v, g = :g', '{":v": {"N": "5"}, ":g": {"S": "Gm"}}',
	'{"ReturnValues": "ALL_NEW"}'))->'Attributes',
	'{"g": {"S": "Gm"}, "v": {"N": "5"}, "pk": {"S": "m"}, "sk": {"S": "1"}}'::jsonb,
	'UpdateItem: a create of a new key returns the new item');
SELECT is(pg_temp.since(), 0::bigint, '... inserted first');
SELECT is(pg_temp.msg('UpdateItem', pg_temp.upd('m', '1', 'SET v = :v', '{":v": {"N": "6"}}')),
	'ConditionalCheckFailedException: The conditional request failed', '... and of an existing key fails its condition');
SELECT is(pg_temp.v_of('m', '1'), '5', '... changing nothing');
SELECT is(pg_temp.msg('UpdateItem', pg_temp.upd('n', '1', 'SET v = w + :v', '{":v": {"N": "1"}}')),
	'ValidationException: The provided expression refers to an attribute that does not exist in the item',
	'an update that cannot be made on no item raises its error for a new key');
SELECT is(pg_temp.msg('UpdateItem', pg_temp.upd('m', '1', 'SET v = w + :v', '{":v": {"N": "1"}}')),
	'ConditionalCheckFailedException: The conditional request failed', '... and fails the condition for an existing key');

-- rights: UPDATE is needed as by the locked read, whether or not the item exists
CREATE ROLE ia_writer;
GRANT SELECT, INSERT ON item_data.iab TO ia_writer;
SET ROLE ia_writer;
SELECT is(pg_temp.state('PutItem', jsonb_build_object('TableName', 'iab', 'Item', pg_temp.item('x', '1', 1),
	'ConditionExpression', 'attribute_not_exists(pk)')), '42501', 'without UPDATE: a create of a new key is refused');
SELECT is(pg_temp.state('PutItem', jsonb_build_object('TableName', 'iab', 'Item', pg_temp.item('a', '1', 1),
	'ConditionExpression', 'attribute_not_exists(pk)')), '42501', '... as a create of an existing key');
RESET ROLE;
GRANT UPDATE ON item_data.iab TO ia_writer;
SET ROLE ia_writer;
SELECT pg_temp.mark();
SELECT is(pg_temp.put('x', '1', 1), '{}'::jsonb, 'with UPDATE the create succeeds');
SELECT is(pg_temp.since(), 0::bigint, '... inserted first');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
