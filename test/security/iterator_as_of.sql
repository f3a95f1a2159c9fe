-- Shard iterators expire 15 minutes after they are issued, by the
-- server's clock.  The Streams API once took an optional as_of time from
-- every caller, so anyone could issue an iterator dated far in the future
-- (or read with a time in the past) and never see it expire.  Now only the
-- as_of variants take a time, and PUBLIC may not run them; the functions
-- item_table.dynamodb() (and so the gateway) calls take none.  Also: the
-- ExpiredIteratorException message once printed the same time twice.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP ROLE IF EXISTS sec_it_reader;

BEGIN;
CREATE ROLE sec_it_reader;
GRANT CREATE ON SCHEMA item_data TO sec_it_reader;
SET search_path = public, item_table;
SELECT plan(13);

-- the reader's own table, with a stream and one record
SET ROLE sec_it_reader;
SELECT ok(create_table('{"TableName": "it_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}') ? 'TableDescription',
	'the reader makes a table with a stream');
SELECT ok(put_item('{"TableName": "it_t", "Item": {"pk": {"S": "a"}}}') IS NOT NULL, 'and writes an item');
RESET ROLE;
CREATE TEMP TABLE req AS
SELECT jsonb_build_object('StreamArn', d -> 'StreamDescription' ->> 'StreamArn',
	'ShardId', d -> 'StreamDescription' -> 'Shards' -> 0 ->> 'ShardId',
	'ShardIteratorType', 'TRIM_HORIZON') AS r
FROM (SELECT describe_stream(jsonb_build_object('StreamArn',
	describe_table('{"TableName": "it_t"}') -> 'Table' ->> 'LatestStreamArn')) AS d) x;
GRANT SELECT ON req TO sec_it_reader;

-- no caller-chosen time for PUBLIC
SELECT ok(NOT has_function_privilege('public', 'item_table.get_shard_iterator(jsonb, timestamptz)', 'EXECUTE'),
	'PUBLIC may not run get_shard_iterator(request, as_of)');
SELECT ok(NOT has_function_privilege('public', 'item_table.get_records(jsonb, timestamptz)', 'EXECUTE'),
	'PUBLIC may not run get_records(request, as_of)');
SELECT is((SELECT array_agg(p.oid::regprocedure::text ORDER BY p.oid::regprocedure::text) FROM pg_catalog.pg_proc p
		   WHERE p.pronamespace = 'item_table'::regnamespace
		     AND p.proname IN ('get_shard_iterator', 'get_records')
		     AND has_function_privilege('public', p.oid, 'EXECUTE')),
	ARRAY['get_records(jsonb)', 'get_shard_iterator(jsonb)'],
	'the Streams functions PUBLIC may run take no time');

SET ROLE sec_it_reader;
SELECT throws_ok($$SELECT item_table.get_shard_iterator((SELECT r FROM req), '2100-01-01 00:00:00+00')$$,
	'42501', NULL, 'the reader cannot issue an iterator dated in the future');
SELECT throws_ok($$SELECT item_table.get_shard_iterator(request => (SELECT r FROM req), as_of => now() + interval '1 year')$$,
	'42501', NULL, 'nor with named arguments');
SELECT ok(get_shard_iterator((SELECT r FROM req)) ? 'ShardIterator', 'the reader gets an iterator at the server''s time');
SELECT throws_ok($$SELECT item_table.get_records(jsonb_build_object('ShardIterator',
		item_table.get_shard_iterator((SELECT r FROM req)) ->> 'ShardIterator'), now() - interval '1 year')$$,
	'42501', NULL, 'the reader cannot read with a time of its choosing');
SELECT is(jsonb_array_length(get_records(jsonb_build_object('ShardIterator',
		get_shard_iterator((SELECT r FROM req)) ->> 'ShardIterator')) -> 'Records'), 1,
	'and reads the record at the server''s time');
RESET ROLE;

-- a superuser (tests of expiry) still may; the message names both times
SET LOCAL TimeZone = 'UTC';
SET LOCAL DateStyle = 'ISO, YMD';
CREATE TEMP TABLE old_it AS
SELECT get_shard_iterator((SELECT r FROM req), now() - interval '16 minutes') ->> 'ShardIterator' AS it;
SELECT is(jsonb_array_length(get_records(jsonb_build_object('ShardIterator', (SELECT it FROM old_it)),
		now() - interval '2 minutes') -> 'Records'), 1,
	'a superuser reads with as_of 14 minutes after the iterator was issued');
CREATE FUNCTION pg_temp.expired_message(it text, as_of timestamptz) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	det text;
BEGIN
	PERFORM item_table.get_records(jsonb_build_object('ShardIterator', it), as_of);
	RETURN 'no error';
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS det = PG_EXCEPTION_DETAIL;
	RETURN det;
END $$;
SELECT is(pg_temp.expired_message(
		(SELECT get_shard_iterator((SELECT r FROM req), '2031-05-06 07:08:09.5+00') ->> 'ShardIterator'),
		'2031-05-06 07:24:10+00'),
	'{"__type":"com.amazonaws.dynamodb.v20120810#ExpiredIteratorException","message":"Iterator expired. The iterator was created at time 2031-05-06 07:08:09.5+00 while right now it''s 2031-05-06 07:24:10+00 which is further in the future than the tolerated delay of 900000 milliseconds."}',
	'ExpiredIteratorException names the time the iterator was issued and the time now, each right');
SELECT alike(pg_temp.expired_message((SELECT it FROM old_it), NULL),
	'%created at time % while right now it''s % which is further%', 'an old iterator expires at the server''s time too');

SELECT * FROM finish();
ROLLBACK;
DROP ROLE IF EXISTS sec_it_reader;
