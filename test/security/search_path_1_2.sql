-- The search_path traps of search_path.sql (include/plant_traps.sql) over
-- the paths added since: stream consumers (run as the role that registered
-- them), the Streams API and stream_records(), the legacy parameters
-- (Expected, AttributeUpdates, KeyConditions, QueryFilter, ScanFilter,
-- AttributesToGet, ConditionalOperator), PartiQL (ExecuteStatement,
-- BatchExecuteStatement, ExecuteTransaction) and Time to Live's
-- expire_items().  The attacker makes every call it may make with its
-- schema first on its search_path; a superuser runs the consumers and an
-- expiry batch with the same path; a trap that ever runs as anyone but the
-- attacker is recorded.  The victim's consumer uses operators without
-- schema: it must run with the pinned search_path, not its caller's.  Also
-- the catalog checks over every function of the extension (1.2 included).
-- Everything runs in one transaction that rolls back, so the background
-- worker never sees the consumer or the expired items.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

-- roles left by an interrupted run (their objects went with its database)
DROP ROLE IF EXISTS sec_sp_victim;
DROP ROLE IF EXISTS sec_sp_attacker;

BEGIN;
CREATE ROLE sec_sp_victim;
CREATE ROLE sec_sp_attacker;
GRANT CREATE ON SCHEMA item_data TO sec_sp_attacker, sec_sp_victim;
CREATE SCHEMA evil AUTHORIZATION sec_sp_attacker;
CREATE SCHEMA victim_s AUTHORIZATION sec_sp_victim;
-- the traps log who ran them; the blocks below add during which call
CREATE TABLE public.trap_log (who name, what text, during text);
GRANT INSERT, SELECT, UPDATE ON public.trap_log TO PUBLIC;
-- what the calls did, and the values later calls need
CREATE TABLE public.outcomes (who name, action text, outcome text);
GRANT INSERT, SELECT ON public.outcomes TO PUBLIC;
CREATE TABLE public.ctx (k text PRIMARY KEY, v text);
GRANT SELECT ON public.ctx TO PUBLIC;

-- the victim's table: a GSI, a stream, Time to Live; items, two of them
-- expired as of 2034
SET ROLE sec_sp_victim;
\o /dev/null
SELECT item_table.create_table('{"TableName": "victim_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
		{"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}');
SELECT item_table.update_time_to_live('{"TableName": "victim_t",
	"TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}');
SELECT item_table.put_item(pg_catalog.jsonb_build_object('TableName', 'victim_t', 'Item',
	pg_catalog.jsonb_build_object('pk', pg_catalog.jsonb_build_object('S', 'v' || i), 'sk', '{"S": "1"}'::jsonb,
		'g', pg_catalog.jsonb_build_object('S', 'g' || (i % 2)), 'n', pg_catalog.jsonb_build_object('N', i::text))
	|| CASE WHEN i <= 2 THEN '{"exp": {"N": "2000000000"}}'::jsonb ELSE '{}'::jsonb END))
FROM pg_catalog.generate_series(1, 5) i;
\o
-- its consumer: operators without schema, so it runs the traps if it is
-- given its caller's search_path
CREATE TABLE victim_s.seen (event text, run_as name);
CREATE FUNCTION victim_s.consume(records jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO victim_s.seen
	SELECT r ->> 'eventName', current_user FROM jsonb_array_elements(records) r
	WHERE r ->> 'eventName' = 'INSERT' OR r ->> 'eventName' <> 'INSERT';
END $$;
SELECT item_table.add_stream_consumer('victim_t', 'victim_s.consume(jsonb)', 'victim_cons') AS registered \gset
GRANT SELECT, INSERT, UPDATE, DELETE ON item_data.victim_t TO sec_sp_attacker;
GRANT SELECT ON item_data."victim_t#by_g" TO sec_sp_attacker;
RESET ROLE;

-- the stream's ARN and shard, and an iterator of the attacker's
INSERT INTO public.ctx
SELECT 'arn', item_table.describe_table('{"TableName": "victim_t"}') -> 'Table' ->> 'LatestStreamArn';
INSERT INTO public.ctx
SELECT 'shard', item_table.describe_stream(pg_catalog.jsonb_build_object('StreamArn', v))
	-> 'StreamDescription' -> 'Shards' -> 0 ->> 'ShardId'
FROM public.ctx WHERE k = 'arn';
SET ROLE sec_sp_attacker;
SELECT item_table.get_shard_iterator(pg_catalog.jsonb_build_object('StreamArn', a.v, 'ShardId', s.v,
	'ShardIteratorType', 'TRIM_HORIZON')) ->> 'ShardIterator' AS iterator
FROM public.ctx a, public.ctx s WHERE a.k = 'arn' AND s.k = 'shard' \gset
RESET ROLE;
INSERT INTO public.ctx VALUES ('iterator', :'iterator');

-- the traps (as the attacker, who stays the current role)
\ir include/plant_traps.sql
RESET ROLE;

-- every call, made with the hostile search_path (set only inside the
-- blocks: pgTAP's own PL/pgSQL must not run under it)
CREATE TABLE public.calls (id serial, who name, action text, call text);
GRANT SELECT ON public.calls TO PUBLIC;
INSERT INTO public.calls (who, action, call) VALUES
	-- the Streams API and stream_records()
	('sec_sp_attacker', 'ListStreams', $$SELECT item_table.list_streams('{"TableName": "victim_t"}')$$),
	('sec_sp_attacker', 'DescribeStream', $$SELECT item_table.describe_stream(pg_catalog.jsonb_build_object('StreamArn',
		(SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'arn')))$$),
	('sec_sp_attacker', 'GetShardIterator', $$SELECT item_table.get_shard_iterator(pg_catalog.jsonb_build_object(
		'StreamArn', (SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'arn'),
		'ShardId', (SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'shard'), 'ShardIteratorType', 'LATEST'))$$),
	('sec_sp_attacker', 'GetRecords', $$SELECT item_table.get_records(pg_catalog.jsonb_build_object('ShardIterator',
		(SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'iterator')))$$),
	('sec_sp_attacker', 'stream_records', $$SELECT pg_catalog.count(*) FROM item_table.stream_records('victim_t')$$),
	-- the legacy parameters
	('sec_sp_attacker', 'PutItem Expected', $$SELECT item_table.put_item('{"TableName": "victim_t",
		"Item": {"pk": {"S": "a1"}, "sk": {"S": "1"}, "g": {"S": "g1"}, "n": {"N": "7"}},
		"Expected": {"pk": {"Exists": false}}}')$$),
	('sec_sp_attacker', 'UpdateItem AttributeUpdates', $$SELECT item_table.update_item('{"TableName": "victim_t",
		"Key": {"pk": {"S": "a1"}, "sk": {"S": "1"}},
		"AttributeUpdates": {"n": {"Action": "ADD", "Value": {"N": "1"}}, "g": {"Action": "PUT", "Value": {"S": "g0"}},
			"tags": {"Action": "ADD", "Value": {"SS": ["x"]}}},
		"Expected": {"n": {"ComparisonOperator": "GE", "AttributeValueList": [{"N": "7"}]},
			"g": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "g"}]}},
		"ConditionalOperator": "OR", "ReturnValues": "ALL_NEW"}')$$),
	('sec_sp_attacker', 'GetItem AttributesToGet', $$SELECT item_table.get_item('{"TableName": "victim_t",
		"Key": {"pk": {"S": "a1"}, "sk": {"S": "1"}}, "AttributesToGet": ["n", "g"]}')$$),
	('sec_sp_attacker', 'Query KeyConditions', $$SELECT item_table.query('{"TableName": "victim_t",
		"KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "v3"}]},
			"sk": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"S": "0"}, {"S": "9"}]}},
		"QueryFilter": {"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]},
			"g": {"ComparisonOperator": "NOT_NULL"}},
		"ConditionalOperator": "AND", "AttributesToGet": ["pk", "n"]}')$$),
	('sec_sp_attacker', 'Query KeyConditions GSI', $$SELECT item_table.query('{"TableName": "victim_t", "IndexName": "by_g",
		"KeyConditions": {"g": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "g1"}]}},
		"QueryFilter": {"n": {"ComparisonOperator": "IN", "AttributeValueList": [{"N": "1"}, {"N": "3"}]}}}')$$),
	('sec_sp_attacker', 'Scan ScanFilter', $$SELECT item_table.scan('{"TableName": "victim_t",
		"ScanFilter": {"n": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "2"}, {"N": "8"}]},
			"pk": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"S": "v"}]}},
		"ConditionalOperator": "OR", "AttributesToGet": ["pk"]}')$$),
	('sec_sp_attacker', 'BatchGetItem AttributesToGet', $$SELECT item_table.batch_get_item('{"RequestItems": {"victim_t":
		{"Keys": [{"pk": {"S": "v1"}, "sk": {"S": "1"}}], "AttributesToGet": ["pk", "n"]}}}')$$),
	('sec_sp_attacker', 'DeleteItem Expected', $$SELECT item_table.delete_item('{"TableName": "victim_t",
		"Key": {"pk": {"S": "a1"}, "sk": {"S": "1"}},
		"Expected": {"n": {"Value": {"N": "8"}}, "g": {"Exists": true, "Value": {"S": "g0"}}}}')$$),
	-- PartiQL
	('sec_sp_attacker', 'ExecuteStatement INSERT', $$SELECT item_table.execute_statement('{"Statement":
		"INSERT INTO victim_t VALUE {''pk'': ''q1'', ''sk'': ''1'', ''g'': ''g1'', ''n'': 1}"}')$$),
	('sec_sp_attacker', 'ExecuteStatement SELECT', $$SELECT item_table.execute_statement('{"Statement":
		"SELECT pk, n FROM victim_t WHERE pk = ? AND sk >= ''0'' AND n > 0", "Parameters": [{"S": "q1"}]}')$$),
	('sec_sp_attacker', 'ExecuteStatement SELECT index', $$SELECT item_table.execute_statement('{"Statement":
		"SELECT * FROM victim_t.by_g WHERE g = ''g1''"}')$$),
	('sec_sp_attacker', 'ExecuteStatement UPDATE', $$SELECT item_table.execute_statement('{"Statement":
		"UPDATE victim_t SET n = n + 10 SET g = ''g0'' WHERE pk = ''q1'' AND sk = ''1'' AND n < 5"}')$$),
	('sec_sp_attacker', 'BatchExecuteStatement', $$SELECT item_table.batch_execute_statement('{"Statements": [
		{"Statement": "INSERT INTO victim_t VALUE {''pk'': ''q2'', ''sk'': ''1'', ''n'': 2}"},
		{"Statement": "UPDATE victim_t SET n = 5 WHERE pk = ''q1'' AND sk = ''1''"},
		{"Statement": "DELETE FROM victim_t WHERE pk = ''q2'' AND sk = ''1''"}]}')$$),
	('sec_sp_attacker', 'BatchExecuteStatement reads', $$SELECT item_table.batch_execute_statement('{"Statements": [
		{"Statement": "SELECT * FROM victim_t WHERE pk = ''q1'' AND sk = ''1''"},
		{"Statement": "SELECT n FROM victim_t WHERE pk = ''v4'' AND sk = ''1'' AND n >= 4"}]}')$$),
	('sec_sp_attacker', 'ExecuteTransaction', $$SELECT item_table.execute_transaction('{"TransactStatements": [
		{"Statement": "UPDATE victim_t SET n = 3 WHERE pk = ''q1'' AND sk = ''1''"},
		{"Statement": "INSERT INTO victim_t VALUE {''pk'': ''q3'', ''sk'': ''1'', ''g'': ''g1''}"}]}')$$),
	('sec_sp_attacker', 'ExecuteStatement DELETE', $$SELECT item_table.execute_statement('{"Statement":
		"DELETE FROM victim_t WHERE pk = ''q3'' AND sk = ''1''"}')$$),
	-- Time to Live: expire_items() is for the owner (and superusers)
	('sec_sp_attacker', 'DescribeTimeToLive', $$SELECT item_table.describe_time_to_live('{"TableName": "victim_t"}')$$),
	-- as a superuser: the consumers (each as the role that registered it)
	-- and an expiry batch
	('postgres', 'run_stream_consumers', $$SELECT item_table.run_stream_consumers()$$),
	('postgres', 'expire_items', $$SELECT item_table.expire_items('victim_t', '2034-01-01 00:00:00+00', 1)$$),
	('postgres', 'expire_items', $$SELECT item_table.expire_items('victim_t', '2034-01-01 00:00:00+00')$$),
	('postgres', 'stream_records', $$SELECT pg_catalog.count(*) FROM item_table.stream_records('victim_t')$$);

-- the attacker's calls, then the superuser's
SET ROLE sec_sp_attacker;
DO $do$
DECLARE
	c record;
BEGIN
	SET LOCAL search_path = evil, pg_catalog, item_table, public;
	FOR c IN SELECT * FROM public.calls WHERE who OPERATOR(pg_catalog.=) 'sec_sp_attacker' ORDER BY id LOOP
		BEGIN
			EXECUTE c.call;
			INSERT INTO public.outcomes VALUES (c.who, c.action, 'ok');
		EXCEPTION WHEN OTHERS THEN
			INSERT INTO public.outcomes VALUES (c.who, c.action,
				pg_catalog.concat(SQLSTATE, ' ', SQLERRM));
		END;
		-- (no operator here: this block runs under the hostile path too)
		UPDATE public.trap_log SET during = c.action WHERE during IS NULL;
	END LOOP;
	SET LOCAL search_path = public, item_table;	-- (set_config itself is trapped)
END
$do$;
RESET ROLE;
DO $do$
DECLARE
	c record;
BEGIN
	SET LOCAL search_path = evil, pg_catalog, item_table, public;
	FOR c IN SELECT * FROM public.calls WHERE who OPERATOR(pg_catalog.=) 'postgres' ORDER BY id LOOP
		BEGIN
			EXECUTE c.call;
			INSERT INTO public.outcomes VALUES (c.who, c.action, 'ok');
		EXCEPTION WHEN OTHERS THEN
			INSERT INTO public.outcomes VALUES (c.who, c.action,
				pg_catalog.concat(SQLSTATE, ' ', SQLERRM));
		END;
		-- (no operator here: this block runs under the hostile path too)
		UPDATE public.trap_log SET during = c.action WHERE during IS NULL;
	END LOOP;
	SET LOCAL search_path = public, item_table;
END
$do$;

SET LOCAL search_path = public, item_table;
SELECT plan(10);

SELECT ok((SELECT count(*) FROM pg_catalog.pg_operator WHERE oprnamespace = 'evil'::regnamespace) >= 60,
	'at least 60 hostile operators are planted ahead of pg_catalog');
SELECT is((SELECT array_agg(action || ': ' || outcome ORDER BY action) FROM public.outcomes WHERE outcome <> 'ok'),
	NULL, 'every call succeeded under the hostile search_path');
SELECT is((SELECT count(*) FROM public.outcomes), (SELECT count(*) FROM public.calls),
	'every call was made');
SELECT is((SELECT array_agg(DISTINCT who::text || ': ' || what || ' during ' || during) FROM public.trap_log), NULL,
	'no planted operator or function ever ran with anyone''s rights but the attacker''s');
-- the calls did their work (a trap test whose calls did nothing proves nothing)
SELECT ok((SELECT count(*) FROM victim_s.seen) >= 5 AND
	(SELECT array_agg(DISTINCT run_as::text) FROM victim_s.seen) = ARRAY['sec_sp_victim'],
	'the consumer got the records, as the victim');
SELECT is((SELECT array_agg(item -> 'pk' ->> 'S' ORDER BY item -> 'pk' ->> 'S') FROM item_data.victim_t),
	ARRAY['q1', 'v3', 'v4', 'v5'], 'the writes, deletions and expiries were made (v1, v2 expired)');
SELECT is((SELECT item -> 'n' FROM item_data.victim_t WHERE item -> 'pk' ->> 'S' = 'q1'), '{"N": "3"}'::jsonb,
	'the PartiQL transaction updated q1');
SELECT is((SELECT count(*) FROM verify('victim_t')), 0::bigint, 'index consistent after every call');

-- catalog checks over every function of the extension
SELECT is((SELECT array_agg(p.oid::regprocedure::text ORDER BY p.oid::regprocedure::text) FROM pg_catalog.pg_proc p
		   JOIN pg_catalog.pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
		   JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'item_table'
		   WHERE p.prosecdef),
	NULL, 'no function of the extension is SECURITY DEFINER (raised rights go through ItemAsRole*, with a pinned search_path)');
-- SQL and PL/pgSQL functions run their text under the caller's
-- search_path unless they pin it: each without a pinned path is listed
-- here after a review that every operator and function in it is
-- schema-qualified (a new one fails this test until it is reviewed)
SELECT is((SELECT array_agg(p.oid::regprocedure::text ORDER BY p.oid::regprocedure::text) FROM pg_catalog.pg_proc p
		   JOIN pg_catalog.pg_language l ON l.oid = p.prolang
		   JOIN pg_catalog.pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
		   JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'item_table'
		   WHERE l.lanname NOT IN ('c', 'internal')
		     AND NOT coalesce(p.proconfig::text[] @> ARRAY['search_path=pg_catalog, pg_temp'], false)),
	ARRAY['create_access_key(regrole)', 'delete_access_key(text)',
		'list_access_keys()', 'list_stream_consumers()'],
	'the SQL functions without a pinned search_path are the reviewed, fully qualified ones');

SELECT * FROM finish();
ROLLBACK;
DROP ROLE IF EXISTS sec_sp_attacker;
DROP ROLE IF EXISTS sec_sp_victim;
