-- Query and Scan of a table read their page by a direct scan of the
-- primary key (query_page.c, read_page_direct) only where that cannot
-- differ from the statement; everywhere else the statement reads it.
-- Each case below needs the statement -- column privileges only, no
-- privilege, row-level security -- and shows that the response is the
-- statement's: identical to the direct path's where the data seen is the
-- same, filtered by the policy under RLS, the statement's error without
-- the right.  The requests cover what the page reader does to rows
-- (Limit, both directions, ExclusiveStartKey, LastEvaluatedKey, filters,
-- projections, Select COUNT, ConsumedCapacity, the page cap).  GetItem's
-- response (built around the stored item's container) and DeleteItem's
-- capacity (the old item measured in place) are checked at the end.
BEGIN;
SELECT plan(43);
SET search_path = item_table, public;

SELECT ok(create_table('{"TableName": "rdt", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') ? 'TableDescription',
	'table created');
-- collection a: 60 items, every third with an attribute "odd"; b: 3 large items (the page cap)
SELECT is(count(put_item(jsonb_build_object('TableName', 'rdt', 'Item', jsonb_build_object(
		'pk', jsonb_build_object('S', 'a'), 'sk', jsonb_build_object('N', i::text),
		'v', jsonb_build_object('S', repeat('v', i)), 'n', jsonb_build_object('N', (i * 7 % 11)::text))
		|| CASE WHEN i % 3 = 0 THEN '{"odd": {"BOOL": true}}'::jsonb ELSE '{}' END))), 60::bigint, 'collection a stored')
	FROM generate_series(1, 60) i;
SELECT is(count(put_item(jsonb_build_object('TableName', 'rdt', 'Item', jsonb_build_object(
		'pk', jsonb_build_object('S', 'b'), 'sk', jsonb_build_object('N', i::text),
		'big', jsonb_build_object('S', repeat(md5(i::text), 12000)))))), 3::bigint, 'collection b stored (about 384 KB each)')
	FROM generate_series(1, 3) i;

-- the requests, by name
CREATE TEMP TABLE req (name text PRIMARY KEY, kind text, r jsonb);
INSERT INTO req VALUES
	('all', 'q', '{"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}'),
	('desc limit 1', 'q', '{"KeyConditionExpression": "pk = :p", "ScanIndexForward": false, "Limit": 1,
		"ExpressionAttributeValues": {":p": {"S": "a"}}}'),
	('limit 7 from a start key', 'q', '{"KeyConditionExpression": "pk = :p", "Limit": 7,
		"ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "20"}}, "ExpressionAttributeValues": {":p": {"S": "a"}}}'),
	('desc from a start key', 'q', '{"KeyConditionExpression": "pk = :p", "ScanIndexForward": false, "Limit": 5,
		"ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "20"}}, "ExpressionAttributeValues": {":p": {"S": "a"}}}'),
	('range', 'q', '{"KeyConditionExpression": "pk = :p AND sk BETWEEN :lo AND :hi", "ReturnConsumedCapacity": "INDEXES",
		"ExpressionAttributeValues": {":p": {"S": "a"}, ":lo": {"N": "10"}, ":hi": {"N": "29"}}}'),
	('filter', 'q', '{"KeyConditionExpression": "pk = :p", "FilterExpression": "attribute_exists(odd) AND n > :m", "Limit": 40,
		"ExpressionAttributeValues": {":p": {"S": "a"}, ":m": {"N": "4"}}}'),
	('projection', 'q', '{"KeyConditionExpression": "pk = :p AND sk < :hi", "ProjectionExpression": "sk, #n, odd",
		"ExpressionAttributeNames": {"#n": "n"}, "ExpressionAttributeValues": {":p": {"S": "a"}, ":hi": {"N": "15"}}}'),
	('count', 'q', '{"KeyConditionExpression": "pk = :p", "Select": "COUNT", "FilterExpression": "attribute_exists(odd)",
		"ExpressionAttributeValues": {":p": {"S": "a"}}}'),
	('page cap', 'q', '{"KeyConditionExpression": "pk = :p", "ReturnConsumedCapacity": "TOTAL",
		"ExpressionAttributeValues": {":p": {"S": "b"}}}'),
	('empty', 'q', '{"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "none"}}}'),
	('scan limit', 's', '{"Limit": 25, "ProjectionExpression": "pk, sk"}'),
	('scan filter', 's', '{"FilterExpression": "sk < :z", "ExpressionAttributeValues": {":z": {"N": "3"}}, "ProjectionExpression": "pk, sk"}');

CREATE FUNCTION pg_temp.run(kind text, r jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT CASE kind WHEN 'q' THEN item_table.query(r || '{"TableName": "rdt"}')
		ELSE item_table.scan(r || '{"TableName": "rdt"}') END
$$;
-- the SQLSTATE of a request, NULL when it succeeds
CREATE FUNCTION pg_temp.st(kind text, r jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_temp.run(kind, r);
	RETURN NULL;
EXCEPTION WHEN others THEN
	RETURN SQLSTATE;
END $$;

-- the direct path: the table's owner (this session)
CREATE TEMP TABLE direct AS SELECT name, pg_temp.run(kind, r) AS resp FROM req;
SELECT is((SELECT jsonb_array_length(resp->'Items') FROM direct WHERE name = 'all'), 60, 'direct: the whole collection');
SELECT is((SELECT resp FROM direct WHERE name = 'desc limit 1') - 'Items',
	'{"Count": 1, "ScannedCount": 1, "LastEvaluatedKey": {"pk": {"S": "a"}, "sk": {"N": "60"}}}',
	'direct: descending Limit 1 reads the last item and says so');
SELECT is((SELECT resp->'Items'->0->'sk'->>'N' FROM direct WHERE name = 'limit 7 from a start key'), '21',
	'direct: ExclusiveStartKey resumes after it');
SELECT is((SELECT resp->'Items'->0->'sk'->>'N' FROM direct WHERE name = 'desc from a start key'), '19',
	'direct: backward from ExclusiveStartKey');
SELECT is((SELECT resp->>'Count' FROM direct WHERE name = 'page cap'), '2',
	'direct: the page cap ends the page (two items of about 384 KB fit, three do not)');
SELECT ok((SELECT resp ? 'LastEvaluatedKey' FROM direct WHERE name = 'page cap'), 'direct: LastEvaluatedKey after the cap');
SELECT is((SELECT resp->>'ScannedCount' FROM direct WHERE name = 'count'), '60', 'direct: Select COUNT scans all');
SELECT is((SELECT resp->>'Count' FROM direct WHERE name = 'scan filter'), '4', 'direct: Scan with a filter (sk 1 and 2 of a and b)');

-- the statement: a role with SELECT on the columns only (not table-wide)
CREATE ROLE item_table_tap_rd;
GRANT USAGE ON SCHEMA item_data TO item_table_tap_rd;
GRANT SELECT (key, item) ON item_data.rdt TO item_table_tap_rd;
GRANT SELECT ON req, direct TO item_table_tap_rd;
SET LOCAL ROLE item_table_tap_rd;
CREATE TEMP TABLE by_stmt AS SELECT name, pg_temp.run(kind, r) AS resp FROM req;
RESET ROLE;
SELECT is(s.resp, d.resp, 'column grants only (the statement): same response, ' || d.name)
	FROM direct d JOIN by_stmt s USING (name) ORDER BY d.name;

-- no SELECT at all: the statement's error
REVOKE SELECT (key, item) ON item_data.rdt FROM item_table_tap_rd;
SET LOCAL ROLE item_table_tap_rd;
SELECT is(pg_temp.st('q', r), '42501', 'no SELECT: the statement''s permission error') FROM req WHERE name = 'desc limit 1';
SELECT is(pg_temp.st('s', r), '42501', 'no SELECT: the same for Scan') FROM req WHERE name = 'scan limit';
RESET ROLE;

-- row-level security: the statement, and the policy's rows only
GRANT SELECT ON item_data.rdt TO item_table_tap_rd;
ALTER TABLE item_data.rdt ENABLE ROW LEVEL SECURITY;
CREATE POLICY rd_even ON item_data.rdt FOR SELECT USING ((item->'sk'->>'N')::int % 2 = 0);
SET LOCAL ROLE item_table_tap_rd;
SELECT is(pg_temp.run(kind, r) - 'Items',
	'{"Count": 1, "ScannedCount": 1, "LastEvaluatedKey": {"pk": {"S": "a"}, "sk": {"N": "60"}}}',
	'RLS: descending Limit 1 under a policy') FROM req WHERE name = 'desc limit 1';
SELECT is((SELECT array_agg((e->'sk'->>'N')::int) FROM jsonb_array_elements(pg_temp.run(kind, r)->'Items') e),
	ARRAY[22, 24, 26, 28, 30, 32, 34], 'RLS: only the rows the policy shows, Limit counts those')
	FROM req WHERE name = 'limit 7 from a start key';
SELECT is(pg_temp.run(kind, r)->>'Count', '2', 'RLS: Scan sees the policy''s rows only (2 of 4)') FROM req WHERE name = 'scan filter';
RESET ROLE;
-- a policy that shows everything: the same responses as the direct path
DROP POLICY rd_even ON item_data.rdt;
CREATE POLICY rd_all ON item_data.rdt FOR SELECT USING (true);
SET LOCAL ROLE item_table_tap_rd;
CREATE TEMP TABLE by_rls AS SELECT name, pg_temp.run(kind, r) AS resp FROM req;
RESET ROLE;
SELECT is((SELECT count(*) FROM direct d JOIN by_rls s USING (name) WHERE s.resp IS DISTINCT FROM d.resp), 0::bigint,
	'RLS with a policy showing all rows (the statement): every response the direct path''s');
ALTER TABLE item_data.rdt DISABLE ROW LEVEL SECURITY;
DROP POLICY rd_all ON item_data.rdt;

-- table-wide SELECT, no RLS: the direct path again, the same responses
SET LOCAL ROLE item_table_tap_rd;
SELECT is((SELECT count(*) FROM req WHERE pg_temp.run(kind, r) IS DISTINCT FROM (SELECT resp FROM direct d WHERE d.name = req.name)),
	0::bigint, 'table-wide SELECT (the direct path): the same responses');
RESET ROLE;

-- snapshots: a function's statements see what it wrote before, in both paths
CREATE FUNCTION pg_temp.put_then_count() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM item_table.put_item('{"TableName": "rdt", "Item": {"pk": {"S": "c"}, "sk": {"N": "1"}}}');
	RETURN item_table.query('{"TableName": "rdt", "KeyConditionExpression": "pk = :p", "Select": "COUNT",
		"ExpressionAttributeValues": {":p": {"S": "c"}}}')->>'Count';
END $$;
SELECT is(pg_temp.put_then_count(), '1', 'direct: a read after a write in the same function sees it');
GRANT INSERT, UPDATE ON item_data.rdt TO item_table_tap_rd;
REVOKE SELECT ON item_data.rdt FROM item_table_tap_rd;
GRANT SELECT (key, item) ON item_data.rdt TO item_table_tap_rd;
SET LOCAL ROLE item_table_tap_rd;
SELECT is(pg_temp.put_then_count(), '1', 'the statement: the same');
RESET ROLE;
-- and one outer statement reads with its own snapshot: an item a CTE puts is not seen
SELECT is((WITH p AS (SELECT put_item('{"TableName": "rdt", "Item": {"pk": {"S": "d"}, "sk": {"N": "1"}}}') AS x)
	SELECT query('{"TableName": "rdt", "KeyConditionExpression": "pk = :p", "Select": "COUNT",
		"ExpressionAttributeValues": {":p": {"S": "d"}}}')->>'Count' FROM p), '0',
	'direct: the calling statement''s snapshot, as the read-only statement uses');

-- a table dropped behind the API's back (the event trigger disabled): the
-- statement's ResourceNotFoundException, not the catalog's 42P01
SELECT ok(create_table('{"TableName": "rdgone", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') ? 'TableDescription', 'a table to drop unseen');
SELECT query('{"TableName": "rdgone", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}');
ALTER EVENT TRIGGER item_table_sql_drop DISABLE;
DROP TABLE item_data.rdgone;
ALTER EVENT TRIGGER item_table_sql_drop ENABLE;
CREATE FUNCTION pg_temp.st_raw(kind text, r jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	IF kind = 'q' THEN PERFORM item_table.query(r); ELSE PERFORM item_table.scan(r); END IF;
	RETURN NULL;
EXCEPTION WHEN others THEN
	RETURN SQLSTATE;
END $$;
SELECT is(pg_temp.st_raw(k, r), 'XD004', 'dropped unseen: ' || k || ' raises ResourceNotFoundException')
	FROM (VALUES ('q', '{"TableName": "rdgone", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}'::jsonb),
				 ('s', '{"TableName": "rdgone"}'::jsonb)) v(k, r);

-- ---------------------------------------------------------------- GetItem and DeleteItem
CREATE FUNCTION pg_temp.get(sk int, more jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
	SELECT get_item(jsonb_build_object('TableName', 'rdt', 'Key', jsonb_build_object('pk', jsonb_build_object('S', 'a'),
		'sk', jsonb_build_object('N', sk::text))) || more)
$$;
SELECT is(pg_temp.get(9), jsonb_build_object('Item', (SELECT item FROM item_data.rdt WHERE key = item_key('{"S": "a"}', '{"N": "9"}'))),
	'GetItem: the stored item as Item');
SELECT is(pg_temp.get(9, '{"ReturnConsumedCapacity": "TOTAL"}'),
	jsonb_build_object('Item', (SELECT item FROM item_data.rdt WHERE key = item_key('{"S": "a"}', '{"N": "9"}')),
		'ConsumedCapacity', '{"TableName": "rdt", "CapacityUnits": 0.5}'::jsonb),
	'GetItem: Item and ConsumedCapacity');
SELECT is(get_item('{"TableName": "rdt", "Key": {"pk": {"S": "b"}, "sk": {"N": "1"}}, "ReturnConsumedCapacity": "INDEXES", "ConsistentRead": true}')
	-> 'ConsumedCapacity', '{"TableName": "rdt", "CapacityUnits": 94.0, "Table": {"CapacityUnits": 94.0}}',
	'GetItem: capacity of a large item measured in place');
SELECT is(pg_temp.get(999, '{"ReturnConsumedCapacity": "TOTAL"}'), '{"ConsumedCapacity": {"TableName": "rdt", "CapacityUnits": 0.5}}',
	'GetItem: no item');
SELECT is(delete_item('{"TableName": "rdt", "Key": {"pk": {"S": "b"}, "sk": {"N": "2"}}, "ReturnConsumedCapacity": "TOTAL"}'),
	'{"ConsumedCapacity": {"TableName": "rdt", "CapacityUnits": 376.0}}', 'DeleteItem: capacity of the old item measured in place');
SELECT is(delete_item('{"TableName": "rdt", "Key": {"pk": {"S": "b"}, "sk": {"N": "2"}}, "ReturnConsumedCapacity": "TOTAL"}'),
	'{"ConsumedCapacity": {"TableName": "rdt", "CapacityUnits": 1.0}}', 'DeleteItem: no item, one unit');
SELECT is(delete_item('{"TableName": "rdt", "Key": {"pk": {"S": "a"}, "sk": {"N": "3"}}, "ReturnValues": "ALL_OLD",
	"ConditionExpression": "attribute_exists(odd)", "ReturnConsumedCapacity": "TOTAL"}'),
	'{"Attributes": {"n": {"N": "10"}, "pk": {"S": "a"}, "sk": {"N": "3"}, "v": {"S": "vvv"}, "odd": {"BOOL": true}},
	  "ConsumedCapacity": {"TableName": "rdt", "CapacityUnits": 1.0}}', 'DeleteItem: condition, ALL_OLD and capacity');

SELECT * FROM finish();
ROLLBACK;
