-- The search_path traps of search_path.sql and search_path_1_2.sql
-- (include/plant_traps.sql), with more traps (the functions, aggregates
-- and operators the newer code uses, on the types it uses), over the
-- paths not driven there: access keys (made, listed and deleted by a key
-- administrator who is not a superuser; the role guard's trigger), the
-- gateway's own statements (gateway/pool.c: the same SQL, prepared under
-- the hostile path by the gateway's login role), DROP ROLE and DROP OWNED
-- of a role with keys (role_guard.c's hook), tags and the other
-- control-plane calls, UpdateTable (deletion protection, table class,
-- streams, a new index) and backfill_indexes(), verify(), Time to Live of
-- one's own table, the Streams API through dynamodb(), PartiQL through
-- dynamodb(), a consumer's registration, resumption and removal, stream
-- trimming, and the distributed helpers without Citus (explain_item,
-- distribute_table, undistribute_table).  A trap that ever runs as anyone
-- but the attacker is recorded.  Also catalog checks over every function
-- and trigger of the extension.  One transaction, rolled back.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

DROP ROLE IF EXISTS sec_sp_victim;
DROP ROLE IF EXISTS sec_sp_attacker;
DROP ROLE IF EXISTS sec_sp_gw;
DROP ROLE IF EXISTS sec_sp_keyrole;
-- indexes that UpdateTable creates are left to backfill_indexes()
SET item_table.index_backfill = manual;

-- the set-up is committed (backfill_indexes() commits between batches);
-- the roles and what they own are dropped at the end
CREATE ROLE sec_sp_victim;
CREATE ROLE sec_sp_attacker;
CREATE ROLE sec_sp_keyrole;
-- the gateway's login role: a member of the roles its keys map to, SELECT
-- on the key table (as test/gateway/setup.sql sets gw_login up)
CREATE ROLE sec_sp_gw NOINHERIT;
GRANT sec_sp_victim TO sec_sp_gw;
GRANT SELECT ON item_table.access_keys TO sec_sp_gw;
-- the victim administers the access keys
GRANT SELECT, INSERT, DELETE ON item_table.access_keys TO sec_sp_victim;
GRANT CREATE ON SCHEMA item_data TO sec_sp_attacker, sec_sp_victim;
CREATE SCHEMA evil AUTHORIZATION sec_sp_attacker;
CREATE TABLE public.trap_log (who name, what text, during text);
GRANT INSERT, SELECT, UPDATE ON public.trap_log TO PUBLIC;
CREATE TABLE public.outcomes (id int, who name, action text, outcome text);
GRANT INSERT, SELECT ON public.outcomes TO PUBLIC;
CREATE TABLE public.ctx (k text PRIMARY KEY, v text);
GRANT SELECT ON public.ctx TO PUBLIC;
CREATE TABLE public.consumed (n int);
GRANT INSERT, SELECT ON public.consumed TO PUBLIC;

-- the victim's table (a GSI, a stream) and items
SET ROLE sec_sp_victim;
\o /dev/null
SELECT item_table.create_table('{"TableName": "victim_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
		{"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}');
SELECT item_table.put_item(pg_catalog.jsonb_build_object('TableName', 'victim_t', 'Item',
	pg_catalog.jsonb_build_object('pk', pg_catalog.jsonb_build_object('S', 'v' || i), 'sk', '{"S": "1"}'::jsonb,
		'g', pg_catalog.jsonb_build_object('S', 'g' || (i % 2)), 'n', pg_catalog.jsonb_build_object('N', i::text))))
FROM pg_catalog.generate_series(1, 5) i;
GRANT SELECT, INSERT, UPDATE, DELETE ON item_data.victim_t TO sec_sp_attacker;
GRANT SELECT ON item_data."victim_t#by_g" TO sec_sp_attacker;
RESET ROLE;
-- the attacker's own table (a GSI, a stream, items, two of them expired
-- as of 2034) and its consumer
SET ROLE sec_sp_attacker;
SELECT item_table.create_table('{"TableName": "own_t", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "KEYS_ONLY"}}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}');
SELECT item_table.put_item(pg_catalog.jsonb_build_object('TableName', 'own_t', 'Item',
	pg_catalog.jsonb_build_object('pk', pg_catalog.jsonb_build_object('S', 'o' || i), 'g', '{"S": "x"}'::jsonb,
		'h', pg_catalog.jsonb_build_object('S', 'h' || i))
	|| CASE WHEN i <= 2 THEN '{"exp": {"N": "2000000000"}}'::jsonb ELSE '{}'::jsonb END))
FROM pg_catalog.generate_series(1, 4) i;
CREATE FUNCTION evil.consume(records jsonb) RETURNS void LANGUAGE sql
	AS $$ INSERT INTO public.consumed SELECT pg_catalog.jsonb_array_length(records) $$;
\o
RESET ROLE;
INSERT INTO public.ctx
SELECT 'arn', item_table.describe_table('{"TableName": "victim_t"}') -> 'Table' ->> 'LatestStreamArn'
UNION ALL SELECT 'own_arn', item_table.describe_table('{"TableName": "own_t"}') -> 'Table' ->> 'TableArn';
INSERT INTO public.ctx
SELECT 'shard', item_table.describe_stream(pg_catalog.jsonb_build_object('StreamArn', v))
	-> 'StreamDescription' -> 'Shards' -> 0 ->> 'ShardId'
FROM public.ctx WHERE k = 'arn';
INSERT INTO public.ctx
SELECT 'iterator', item_table.get_shard_iterator(pg_catalog.jsonb_build_object('StreamArn', a.v, 'ShardId', s.v,
	'ShardIteratorType', 'TRIM_HORIZON')) ->> 'ShardIterator'
FROM public.ctx a, public.ctx s WHERE a.k = 'arn' AND s.k = 'shard';
-- the victim's access key, which the gateway's statements look up
INSERT INTO public.ctx SELECT 'victim_key', access_key_id FROM item_table.create_access_key('sec_sp_victim');

-- the traps of the earlier tests (as the attacker, who stays the current role)
\ir include/plant_traps.sql
-- and more: operators on the types the newer code compares
DO $do$
DECLARE
	op record;
	n int := 2000;
BEGIN
	FOR op IN
		SELECT o.oprname, o.oprleft::regtype AS l, o.oprright::regtype AS r, o.oprresult::regtype AS res
		FROM pg_catalog.pg_operator o
		WHERE o.oprnamespace = 'pg_catalog'::regnamespace AND o.oprleft <> 0 AND o.oprright <> 0
		  AND (o.oprleft = o.oprright OR o.oprleft = 'jsonb'::regtype)
	LOOP
		CONTINUE WHEN op.oprname NOT IN ('=', '<>', '<', '>', '<=', '>=', '%', '/', '~', '!~', '~*', '^@',
			'->', '->>', '?', '@>', '<@', '#>', '#>>', '-', '||', '?|', '?&');
		CONTINUE WHEN op.l::text NOT IN ('tid', 'xid', 'bytea', 'smallint', 'numeric', 'name', 'aclitem',
			'timestamp without time zone', 'character varying', 'integer', 'bigint', 'text', 'jsonb');
		-- (plant_traps.sql has these already)
		CONTINUE WHEN EXISTS (SELECT FROM pg_catalog.pg_operator e WHERE e.oprnamespace = 'evil'::regnamespace
			AND e.oprname = op.oprname AND e.oprleft = op.l AND e.oprright = op.r);
		n := n + 1;
		EXECUTE format($f$CREATE FUNCTION evil.trap_%s(a %s, b %s) RETURNS %s LANGUAGE plpgsql SET search_path = pg_catalog, public AS $b$
			BEGIN
				IF current_user <> 'sec_sp_attacker' THEN
					INSERT INTO public.trap_log VALUES (current_user, %L);
				END IF;
				RETURN a OPERATOR(pg_catalog.%s) b;
			END $b$$f$, n, op.l, op.r, op.res, op.l || ' ' || op.oprname || ' ' || op.r, op.oprname);
		EXECUTE format('CREATE OPERATOR evil.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = evil.trap_%s)',
			op.oprname, op.l, op.r, n);
	END LOOP;
END
$do$;
-- and functions and aggregates the newer code calls by name
DO $do$
DECLARE
	f record;
BEGIN
	FOR f IN SELECT * FROM (VALUES
		('format', 'text, text', 'text', 'pg_catalog.format($1, $2)'),
		('format', 'text, text, text', 'text', 'pg_catalog.format($1, $2, $3)'),
		('uuid_send', 'uuid', 'bytea', 'pg_catalog.uuid_send($1)'),
		('clock_timestamp', '', 'timestamptz', 'pg_catalog.clock_timestamp()'),
		('substr', 'text, integer, integer', 'text', 'pg_catalog.substr($1, $2, $3)'),
		('substr', 'bytea, integer, integer', 'bytea', 'pg_catalog.substr($1, $2, $3)'),
		('translate', 'text, text, text', 'text', 'pg_catalog.translate($1, $2, $3)'),
		('get_byte', 'bytea, integer', 'integer', 'pg_catalog.get_byte($1, $2)'),
		('encode', 'bytea, text', 'text', 'pg_catalog.encode($1, $2)'),
		('jsonb_array_length', 'jsonb', 'integer', 'pg_catalog.jsonb_array_length($1)'),
		('jsonb_build_object', 'text, text', 'jsonb', 'pg_catalog.jsonb_build_object($1, $2)'),
		('jsonb_build_object', 'text, text, text, text', 'jsonb', 'pg_catalog.jsonb_build_object($1, $2, $3, $4)'),
		('pg_has_role', 'oid, text', 'boolean', 'pg_catalog.pg_has_role($1, $2)'),
		('pg_has_role', 'name, text', 'boolean', 'pg_catalog.pg_has_role($1, $2)'),
		('has_table_privilege', 'oid, text', 'boolean', 'pg_catalog.has_table_privilege($1, $2)'),
		('pg_try_advisory_xact_lock', 'bigint', 'boolean', 'pg_catalog.pg_try_advisory_xact_lock($1)'),
		('pg_advisory_xact_lock', 'bigint', 'void', 'pg_catalog.pg_advisory_xact_lock($1)'),
		('nextval', 'regclass', 'bigint', 'pg_catalog.nextval($1)'),
		('lower', 'text', 'text', 'pg_catalog.lower($1)'),
		('length', 'text', 'integer', 'pg_catalog.length($1)'),
		('to_timestamp', 'double precision', 'timestamptz', 'pg_catalog.to_timestamp($1)'),
		('quote_ident', 'text', 'text', 'pg_catalog.quote_ident($1)'),
		('to_jsonb', 'text', 'jsonb', 'pg_catalog.to_jsonb($1)'),
		('jsonb_typeof', 'jsonb', 'text', 'pg_catalog.jsonb_typeof($1)')
	) AS t(name, args, ret, body) LOOP
		EXECUTE format($f$CREATE FUNCTION evil.%I(%s) RETURNS %s LANGUAGE plpgsql SET search_path = pg_catalog, public AS $b$
			BEGIN
				IF current_user <> 'sec_sp_attacker' THEN
					INSERT INTO public.trap_log VALUES (current_user, %L);
				END IF;
				%s %s;
			END $b$$f$, f.name, f.args, f.ret, f.name || '(' || f.args || ')',
			CASE WHEN f.ret = 'void' THEN 'PERFORM' ELSE 'RETURN' END, f.body);
	END LOOP;
END
$do$;
CREATE FUNCTION evil.count_step(bigint) RETURNS bigint LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
	IF current_user <> 'sec_sp_attacker' THEN INSERT INTO public.trap_log VALUES (current_user, 'count(*)'); END IF;
	RETURN $1 + 1;
END $$;
CREATE AGGREGATE evil.count(*) (SFUNC = evil.count_step, STYPE = bigint, INITCOND = '0');
CREATE FUNCTION evil.sum_step(bigint, bigint) RETURNS bigint LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
	IF current_user <> 'sec_sp_attacker' THEN INSERT INTO public.trap_log VALUES (current_user, 'sum(bigint)'); END IF;
	RETURN coalesce($1, 0) + $2;
END $$;
CREATE AGGREGATE evil.sum(bigint) (SFUNC = evil.sum_step, STYPE = bigint);
CREATE FUNCTION evil.text_step(text, text, text) RETURNS text LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
	IF current_user <> 'sec_sp_attacker' THEN INSERT INTO public.trap_log VALUES (current_user, 'string_agg'); END IF;
	RETURN coalesce($1 || $3, '') || $2;
END $$;
CREATE AGGREGATE evil.string_agg(text, text) (SFUNC = evil.text_step, STYPE = text);
-- a schema everyone may use, as a shared schema on everyone's path would
-- be: the traps reach the key administrator and the gateway's login role
-- too, not only superusers
GRANT USAGE ON SCHEMA evil TO PUBLIC;
-- a new index of the attacker's table, backfilled by the procedure
\o /dev/null
SET search_path = evil, pg_catalog, item_table, public;
SELECT item_table.dynamodb('UpdateTable', '{"TableName": "own_t",
	"AttributeDefinitions": [{"AttributeName": "h", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
		"Projection": {"ProjectionType": "ALL"}}}]}');
CALL item_table.backfill_indexes('own_t', 2);
RESET search_path;
\o
RESET ROLE;
UPDATE public.trap_log SET during = 'UpdateTable and backfill_indexes' WHERE during IS NULL;
INSERT INTO public.ctx SELECT 'by_h', i.status || ' ' || (SELECT count(*) FROM item_data."own_t#by_h")
FROM item_table.indexes i WHERE i.table_name = 'own_t' AND i.index_name = 'by_h';

BEGIN;
-- every call, made with the hostile search_path (set only inside the
-- blocks: pgTAP's own PL/pgSQL must not run under it); group by group, in
-- order
CREATE TABLE public.calls (id serial, grp int, who name, action text, call text, expect text DEFAULT 'ok');
GRANT SELECT ON public.calls TO PUBLIC;
INSERT INTO public.calls (grp, who, action, call, expect) VALUES
	-- the attacker: tags and the control plane
	(1, 'sec_sp_attacker', 'TagResource', $$SELECT item_table.dynamodb('TagResource', pg_catalog.jsonb_build_object(
		'ResourceArn', (SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'own_arn'),
		'Tags', '[{"Key": "team", "Value": "red"}, {"Key": "env", "Value": "test"}]'::jsonb))$$, 'ok'),
	(1, 'sec_sp_attacker', 'UntagResource', $$SELECT item_table.dynamodb('UntagResource', pg_catalog.jsonb_build_object(
		'ResourceArn', (SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'own_arn'), 'TagKeys', '["env"]'::jsonb))$$, 'ok'),
	(1, 'sec_sp_attacker', 'ListTagsOfResource', $$SELECT item_table.dynamodb('ListTagsOfResource', pg_catalog.jsonb_build_object(
		'ResourceArn', (SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'own_arn')))$$, 'ok'),
	(1, 'sec_sp_attacker', 'DescribeLimits', $$SELECT item_table.dynamodb('DescribeLimits', '{}')$$, 'ok'),
	(1, 'sec_sp_attacker', 'DescribeEndpoints', $$SELECT item_table.dynamodb('DescribeEndpoints', '{}')$$, 'ok'),
	(1, 'sec_sp_attacker', 'DescribeContinuousBackups', $$SELECT item_table.dynamodb('DescribeContinuousBackups',
		'{"TableName": "victim_t"}')$$, 'ok'),
	-- UpdateTable, backfill, verify
	(1, 'sec_sp_attacker', 'UpdateTable protection on', $$SELECT item_table.dynamodb('UpdateTable',
		'{"TableName": "own_t", "DeletionProtectionEnabled": true}')$$, 'ok'),
	(1, 'sec_sp_attacker', 'UpdateTable protection off', $$SELECT item_table.dynamodb('UpdateTable',
		'{"TableName": "own_t", "DeletionProtectionEnabled": false}')$$, 'ok'),
	(1, 'sec_sp_attacker', 'UpdateTable class', $$SELECT item_table.dynamodb('UpdateTable',
		'{"TableName": "own_t", "TableClass": "STANDARD_INFREQUENT_ACCESS"}')$$, 'ok'),
	(1, 'sec_sp_attacker', 'UpdateTable delete index', $$SELECT item_table.dynamodb('UpdateTable', '{"TableName": "own_t",
		"GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "by_g"}}]}')$$, 'ok'),
	(1, 'sec_sp_attacker', 'verify', $$SELECT pg_catalog.count(*) FROM item_table.verify('own_t')$$, 'ok'),
	(1, 'sec_sp_attacker', 'UpdateTable stream off', $$SELECT item_table.dynamodb('UpdateTable',
		'{"TableName": "own_t", "StreamSpecification": {"StreamEnabled": false}}')$$, 'ok'),
	(1, 'sec_sp_attacker', 'UpdateTable stream on', $$SELECT item_table.dynamodb('UpdateTable',
		'{"TableName": "own_t", "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}')$$, 'ok'),
	-- Time to Live of its own table
	(1, 'sec_sp_attacker', 'UpdateTimeToLive', $$SELECT item_table.dynamodb('UpdateTimeToLive',
		'{"TableName": "own_t", "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}')$$, 'ok'),
	(1, 'sec_sp_attacker', 'DescribeTimeToLive', $$SELECT item_table.dynamodb('DescribeTimeToLive', '{"TableName": "own_t"}')$$, 'ok'),
	(1, 'sec_sp_attacker', 'expire_items', $$SELECT item_table.expire_items('own_t', '2034-01-01 00:00:00+00')$$, 'ok'),
	-- the Streams API and PartiQL through dynamodb()
	(1, 'sec_sp_attacker', 'ListStreams', $$SELECT item_table.dynamodb('ListStreams', '{}')$$, 'ok'),
	(1, 'sec_sp_attacker', 'DescribeStream', $$SELECT item_table.dynamodb('DescribeStream', pg_catalog.jsonb_build_object('StreamArn',
		(SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'arn')))$$, 'ok'),
	(1, 'sec_sp_attacker', 'GetShardIterator', $$SELECT item_table.dynamodb('GetShardIterator', pg_catalog.jsonb_build_object(
		'StreamArn', (SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'arn'),
		'ShardId', (SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'shard'),
		'ShardIteratorType', 'AT_SEQUENCE_NUMBER', 'SequenceNumber',
		(SELECT ((item_table.get_records(pg_catalog.jsonb_build_object('ShardIterator',
			(SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'iterator'))) OPERATOR(pg_catalog.->) 'Records')
			OPERATOR(pg_catalog.->) 0 OPERATOR(pg_catalog.->) 'dynamodb') OPERATOR(pg_catalog.->>) 'SequenceNumber')))$$, 'ok'),
	(1, 'sec_sp_attacker', 'GetRecords', $$SELECT item_table.dynamodb('GetRecords', pg_catalog.jsonb_build_object('ShardIterator',
		(SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'iterator'), 'Limit', 2))$$, 'ok'),
	(1, 'sec_sp_attacker', 'stream_records', $$SELECT pg_catalog.count(*) FROM item_table.stream_records('victim_t', NULL, 2)$$, 'ok'),
	(1, 'sec_sp_attacker', 'ExecuteStatement', $$SELECT item_table.dynamodb('ExecuteStatement', '{"Statement":
		"SELECT pk, n FROM victim_t WHERE pk = ? AND sk BETWEEN ''0'' AND ''9''", "Parameters": [{"S": "v2"}]}')$$, 'ok'),
	(1, 'sec_sp_attacker', 'ExecuteTransaction', $$SELECT item_table.dynamodb('ExecuteTransaction', '{"TransactStatements": [
		{"Statement": "UPDATE victim_t SET n = n + 1 WHERE pk = ''v3'' AND sk = ''1''"},
		{"Statement": "INSERT INTO own_t VALUE {''pk'': ''p1'', ''g'': ''x''}"}]}')$$, 'ok'),
	-- a consumer of its own
	(1, 'sec_sp_attacker', 'add_stream_consumer', $$SELECT item_table.add_stream_consumer('own_t', 'evil.consume(jsonb)', 'att_cons')$$, 'ok'),
	(1, 'sec_sp_attacker', 'resume_stream_consumer', $$SELECT item_table.resume_stream_consumer('att_cons')$$, 'ok'),
	(1, 'sec_sp_attacker', 'list_stream_consumers', $$SELECT pg_catalog.count(*) FROM item_table.list_stream_consumers()$$, 'ok'),
	-- the distributed helpers, without Citus
	(1, 'sec_sp_attacker', 'explain_item', $$SELECT pg_catalog.count(*) FROM item_table.explain_item('own_t', '{"pk": {"S": "o3"}}')$$, '0A000'),
	(1, 'sec_sp_attacker', 'distribute_table', $$SELECT item_table.distribute_table('own_t')$$, 'error'),
	(1, 'sec_sp_attacker', 'undistribute_table', $$SELECT item_table.undistribute_table('own_t')$$, 'error'),
	-- the key administrator (not a superuser): access keys, and the role
	-- guard's trigger behind them
	(2, 'sec_sp_victim', 'create_access_key', $$SELECT pg_catalog.count(*) FROM item_table.create_access_key('sec_sp_keyrole')$$, 'ok'),
	(2, 'sec_sp_victim', 'list_access_keys', $$SELECT pg_catalog.count(*) FROM item_table.list_access_keys()$$, 'ok'),
	(2, 'sec_sp_victim', 'delete_access_key', $$SELECT item_table.delete_access_key((SELECT k.access_key_id FROM item_table.access_keys k
		WHERE k.role OPERATOR(pg_catalog.=) 'sec_sp_keyrole'::pg_catalog.regrole))$$, 'ok'),
	(2, 'sec_sp_victim', 'create_access_key again', $$SELECT pg_catalog.count(*) FROM item_table.create_access_key('sec_sp_keyrole')$$, 'ok'),
	-- the victim, on its own table: the API as the caller, with the
	-- caller's own (hostile) path; a trap here runs with the victim's rights
	(2, 'sec_sp_victim', 'DescribeTable', $$SELECT item_table.dynamodb('DescribeTable', '{"TableName": "victim_t"}')$$, 'ok'),
	(2, 'sec_sp_victim', 'ListTables', $$SELECT item_table.dynamodb('ListTables', '{"Limit": 5}')$$, 'ok'),
	(2, 'sec_sp_victim', 'PutItem', $$SELECT item_table.dynamodb('PutItem', '{"TableName": "victim_t",
		"Item": {"pk": {"S": "w1"}, "sk": {"S": "1"}, "g": {"S": "g1"}, "n": {"N": "1"}},
		"ConditionExpression": "attribute_not_exists(pk)", "ReturnConsumedCapacity": "TOTAL"}')$$, 'ok'),
	(2, 'sec_sp_victim', 'UpdateItem', $$SELECT item_table.dynamodb('UpdateItem', '{"TableName": "victim_t",
		"Key": {"pk": {"S": "w1"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = n + :one, tags = :t",
		"ExpressionAttributeValues": {":one": {"N": "1"}, ":t": {"SS": ["a"]}}, "ReturnValues": "ALL_NEW",
		"ReturnItemCollectionMetrics": "SIZE"}')$$, 'ok'),
	(2, 'sec_sp_victim', 'GetItem', $$SELECT item_table.dynamodb('GetItem', '{"TableName": "victim_t",
		"Key": {"pk": {"S": "w1"}, "sk": {"S": "1"}}, "ProjectionExpression": "n, g"}')$$, 'ok'),
	(2, 'sec_sp_victim', 'Query', $$SELECT item_table.dynamodb('Query', '{"TableName": "victim_t",
		"KeyConditionExpression": "pk = :p AND begins_with(sk, :s)", "FilterExpression": "n > :z",
		"ExpressionAttributeValues": {":p": {"S": "v3"}, ":s": {"S": "1"}, ":z": {"N": "0"}}, "Limit": 1}')$$, 'ok'),
	(2, 'sec_sp_victim', 'Query index', $$SELECT item_table.dynamodb('Query', '{"TableName": "victim_t", "IndexName": "by_g",
		"KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "g1"}}, "Select": "COUNT"}')$$, 'ok'),
	(2, 'sec_sp_victim', 'Scan', $$SELECT item_table.dynamodb('Scan', '{"TableName": "victim_t", "Segment": 0, "TotalSegments": 2,
		"FilterExpression": "contains(pk, :v)", "ExpressionAttributeValues": {":v": {"S": "v"}}}')$$, 'ok'),
	(2, 'sec_sp_victim', 'Query legacy', $$SELECT item_table.dynamodb('Query', '{"TableName": "victim_t",
		"KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "v4"}]}},
		"QueryFilter": {"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}}, "AttributesToGet": ["pk"]}')$$, 'ok'),
	(2, 'sec_sp_victim', 'BatchWriteItem', $$SELECT item_table.dynamodb('BatchWriteItem', '{"RequestItems": {"victim_t": [
		{"PutRequest": {"Item": {"pk": {"S": "w2"}, "sk": {"S": "1"}}}}, {"DeleteRequest": {"Key": {"pk": {"S": "w2"}, "sk": {"S": "2"}}}}]}}')$$, 'ok'),
	(2, 'sec_sp_victim', 'BatchGetItem', $$SELECT item_table.dynamodb('BatchGetItem', '{"RequestItems": {"victim_t":
		{"Keys": [{"pk": {"S": "w1"}, "sk": {"S": "1"}}, {"pk": {"S": "v1"}, "sk": {"S": "1"}}]}}}')$$, 'ok'),
	(2, 'sec_sp_victim', 'TransactWriteItems', $$SELECT item_table.dynamodb('TransactWriteItems', '{"ClientRequestToken": "victim-tok",
		"TransactItems": [{"Update": {"TableName": "victim_t", "Key": {"pk": {"S": "w1"}, "sk": {"S": "1"}},
			"UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}},
		{"ConditionCheck": {"TableName": "victim_t", "Key": {"pk": {"S": "v1"}, "sk": {"S": "1"}},
			"ConditionExpression": "attribute_exists(pk)"}}]}')$$, 'ok'),
	(2, 'sec_sp_victim', 'TransactGetItems', $$SELECT item_table.dynamodb('TransactGetItems', '{"TransactItems": [
		{"Get": {"TableName": "victim_t", "Key": {"pk": {"S": "w1"}, "sk": {"S": "1"}}}}]}')$$, 'ok'),
	(2, 'sec_sp_victim', 'DeleteItem', $$SELECT item_table.dynamodb('DeleteItem', '{"TableName": "victim_t",
		"Key": {"pk": {"S": "w2"}, "sk": {"S": "1"}}, "ReturnValues": "ALL_OLD"}')$$, 'ok'),
	(2, 'sec_sp_victim', 'TagResource', $$SELECT item_table.dynamodb('TagResource', pg_catalog.jsonb_build_object(
		'ResourceArn', item_table.describe_table('{"TableName": "victim_t"}') OPERATOR(pg_catalog.->) 'Table' OPERATOR(pg_catalog.->>) 'TableArn',
		'Tags', '[{"Key": "k", "Value": "v"}]'::jsonb))$$, 'ok'),
	(2, 'sec_sp_victim', 'ListTagsOfResource', $$SELECT item_table.dynamodb('ListTagsOfResource', pg_catalog.jsonb_build_object(
		'ResourceArn', item_table.describe_table('{"TableName": "victim_t"}') OPERATOR(pg_catalog.->) 'Table' OPERATOR(pg_catalog.->>) 'TableArn'))$$, 'ok'),
	(2, 'sec_sp_victim', 'UpdateTable', $$SELECT item_table.dynamodb('UpdateTable', '{"TableName": "victim_t", "DeletionProtectionEnabled": true}')$$, 'ok'),
	(2, 'sec_sp_victim', 'UpdateTimeToLive', $$SELECT item_table.dynamodb('UpdateTimeToLive', '{"TableName": "victim_t",
		"TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}')$$, 'ok'),
	(2, 'sec_sp_victim', 'DescribeTimeToLive', $$SELECT item_table.dynamodb('DescribeTimeToLive', '{"TableName": "victim_t"}')$$, 'ok'),
	(2, 'sec_sp_victim', 'expire_items', $$SELECT item_table.expire_items('victim_t', '2001-01-01 00:00:00+00')$$, 'ok'),
	(2, 'sec_sp_victim', 'ListStreams', $$SELECT item_table.dynamodb('ListStreams', '{"TableName": "victim_t"}')$$, 'ok'),
	(2, 'sec_sp_victim', 'DescribeStream', $$SELECT item_table.dynamodb('DescribeStream', pg_catalog.jsonb_build_object('StreamArn',
		(SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'arn')))$$, 'ok'),
	(2, 'sec_sp_victim', 'GetShardIterator', $$SELECT item_table.dynamodb('GetShardIterator', pg_catalog.jsonb_build_object(
		'StreamArn', (SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'arn'),
		'ShardId', (SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'shard'), 'ShardIteratorType', 'LATEST'))$$, 'ok'),
	(2, 'sec_sp_victim', 'GetRecords', $$SELECT item_table.dynamodb('GetRecords', pg_catalog.jsonb_build_object('ShardIterator',
		(SELECT v FROM public.ctx WHERE k OPERATOR(pg_catalog.=) 'iterator')))$$, 'ok'),
	(2, 'sec_sp_victim', 'stream_records', $$SELECT pg_catalog.count(*) FROM item_table.stream_records('victim_t')$$, 'ok'),
	(2, 'sec_sp_victim', 'BatchExecuteStatement', $$SELECT item_table.dynamodb('BatchExecuteStatement', '{"Statements": [
		{"Statement": "UPDATE victim_t SET n = 9 WHERE pk = ''w1'' AND sk = ''1''"},
		{"Statement": "DELETE FROM victim_t WHERE pk = ''w3'' AND sk = ''1''"}]}')$$, 'ok'),
	(2, 'sec_sp_victim', 'ExecuteStatement index', $$SELECT item_table.dynamodb('ExecuteStatement', '{"Statement":
		"SELECT pk FROM victim_t.by_g WHERE g = ''g1''"}')$$, 'ok'),
	(2, 'sec_sp_victim', 'explain_query', $$SELECT item_table.explain_query('{"TableName": "victim_t",
		"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "v1"}}}')$$, 'ok'),
	(2, 'sec_sp_victim', 'item_collection', $$SELECT pg_catalog.count(*) FROM item_table.item_collection('victim_t', '{"S": "v1"}')$$, 'ok'),
	(2, 'sec_sp_victim', 'verify', $$SELECT pg_catalog.count(*) FROM item_table.verify('victim_t')$$, 'ok'),
	(2, 'sec_sp_victim', 'explain_item', $$SELECT pg_catalog.count(*) FROM item_table.explain_item('victim_t',
		'{"pk": {"S": "v1"}, "sk": {"S": "1"}}')$$, '0A000'),
	(2, 'sec_sp_victim', 'UpdateTable protection off', $$SELECT item_table.dynamodb('UpdateTable', '{"TableName": "victim_t", "DeletionProtectionEnabled": false}')$$, 'ok'),
	-- a superuser: the consumers, trimming, DROP ROLE and DROP OWNED of a
	-- role with a key
	(3, 'postgres', 'run_stream_consumers', $$SELECT item_table.run_stream_consumers()$$, 'ok'),
	(3, 'postgres', 'DROP ROLE refused', $$DROP ROLE sec_sp_keyrole$$, '2BP01'),
	(3, 'postgres', 'DROP OWNED', $$DROP OWNED BY sec_sp_keyrole$$, 'ok'),
	(3, 'postgres', 'trim_streams', $$SELECT item_table.trim_streams(pg_catalog.now() OPERATOR(pg_catalog.+) '2 days'::pg_catalog.interval)$$, 'ok'),
	-- the attacker again: its consumer and table go
	(4, 'sec_sp_attacker', 'remove_stream_consumer', $$SELECT item_table.remove_stream_consumer('att_cons')$$, 'ok'),
	(4, 'sec_sp_attacker', 'DeleteTable', $$SELECT item_table.dynamodb('DeleteTable', '{"TableName": "own_t"}')$$, 'ok');

-- run the calls of a group as the current role
CREATE FUNCTION public.run_group(g int) RETURNS void LANGUAGE plpgsql AS $do$
DECLARE
	c record;
BEGIN
	SET LOCAL search_path = evil, pg_catalog, item_table, public;
	FOR c IN SELECT * FROM public.calls WHERE grp OPERATOR(pg_catalog.=) g ORDER BY id LOOP
		BEGIN
			EXECUTE c.call;
			INSERT INTO public.outcomes VALUES (c.id, c.who, c.action, 'ok');
		EXCEPTION WHEN OTHERS THEN
			INSERT INTO public.outcomes VALUES (c.id, c.who, c.action,
				pg_catalog.concat(SQLSTATE, ' ', SQLERRM));
		END;
		-- (no operator here: this block runs under the hostile path too)
		UPDATE public.trap_log SET during = c.action WHERE during IS NULL;
	END LOOP;
	SET LOCAL search_path = public, item_table;	-- (set_config itself is trapped)
END
$do$;
GRANT EXECUTE ON FUNCTION public.run_group(int) TO PUBLIC;

SET ROLE sec_sp_attacker;
SELECT public.run_group(1) AS done \gset
RESET ROLE;
SET ROLE sec_sp_victim;
SELECT public.run_group(2) AS done \gset
RESET ROLE;

-- the gateway's statements (gateway/pool.c), prepared and run as its
-- login role under the hostile path, as the gateway runs them
SELECT v AS victim_key_id FROM public.ctx WHERE k = 'victim_key' \gset
SELECT pg_catalog.jsonb_build_object('ShardIterator', v, 'Limit', 2)::text AS gw_records FROM public.ctx WHERE k = 'iterator' \gset
\o /dev/null
SET ROLE sec_sp_gw;
SET search_path = evil, pg_catalog, item_table, public;
PREPARE gw_key(text) AS SELECT k.secret_access_key, r.rolname FROM item_table.access_keys k JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) k.role WHERE k.access_key_id OPERATOR(pg_catalog.=) $1 AND EXISTS (SELECT FROM pg_catalog.pg_type t, pg_catalog.aclexplode(t.typacl) a WHERE t.oid OPERATOR(pg_catalog.=) 'item_table.role_of_access_keys_or_consumers'::pg_catalog.regtype AND a.grantee OPERATOR(pg_catalog.=) k.role AND a.privilege_type OPERATOR(pg_catalog.=) 'USAGE');
PREPARE gw_dyn AS SELECT item_table.dynamodb($1, $2);
PREPARE gw_role AS SELECT pg_catalog.set_config('role', $1, false);
SELECT pg_catalog.current_user() AS gw_login \gset
EXECUTE gw_key(:'victim_key_id') \gset gw_
EXECUTE gw_role(:'gw_rolname');
EXECUTE gw_dyn('PutItem', '{"TableName": "victim_t", "Item": {"pk": {"S": "gw1"}, "sk": {"S": "1"}, "g": {"S": "g1"}}}');
EXECUTE gw_dyn('GetRecords', :'gw_records');
EXECUTE gw_dyn('ExecuteStatement', '{"Statement": "SELECT * FROM victim_t WHERE pk = ''gw1''"}');
RESET search_path;
RESET ROLE;
\o
UPDATE public.trap_log SET during = 'the gateway''s statements' WHERE during IS NULL;

SELECT public.run_group(3) AS done \gset
SET ROLE sec_sp_attacker;
SELECT public.run_group(4) AS done \gset
RESET ROLE;

SET LOCAL search_path = public, item_table;
SELECT plan(15);

SELECT ok((SELECT count(*) FROM pg_catalog.pg_operator WHERE oprnamespace = 'evil'::regnamespace) >= 100,
	'at least 100 hostile operators are planted ahead of pg_catalog');
SELECT ok((SELECT count(*) FROM pg_catalog.pg_proc WHERE pronamespace = 'evil'::regnamespace AND prokind = 'a') = 3,
	'and hostile count(*), sum(bigint) and string_agg(text, text)');
SELECT is((SELECT array_agg(o.action || ': ' || o.outcome ORDER BY o.id) FROM public.outcomes o JOIN public.calls c ON c.id = o.id
		   WHERE CASE c.expect WHEN 'ok' THEN o.outcome <> 'ok' WHEN 'error' THEN o.outcome = 'ok'
				ELSE o.outcome NOT LIKE c.expect || ' %' END),
	NULL, 'every call had its expected outcome under the hostile search_path');
SELECT is((SELECT count(*) FROM public.outcomes), (SELECT count(*) FROM public.calls),
	'every call was made');
SELECT is((SELECT array_agg(DISTINCT who::text || ': ' || what || ' during ' || during) FROM public.trap_log), NULL,
	'no planted operator, function or aggregate ever ran with anyone''s rights but the attacker''s');
-- the calls did their work
SELECT is(:'gw_rolname'::text, 'sec_sp_victim', 'the gateway''s key statement found the key''s role');
SELECT is(:'gw_login'::text, 'sec_sp_gw', 'and its current_user statement the login role');
SELECT ok((SELECT item -> 'pk' ->> 'S' FROM item_data.victim_t WHERE item -> 'pk' ->> 'S' = 'gw1') IS NOT NULL,
	'the gateway''s statements wrote as the key''s role');
SELECT ok((SELECT count(*) FROM public.consumed) >= 1, 'the attacker''s consumer got records');
SELECT is((SELECT count(*) FROM item_table.access_keys WHERE role = 'sec_sp_keyrole'::regrole), 0::bigint,
	'DROP OWNED removed the key');
SELECT is((SELECT count(*) FROM item_table.tables WHERE table_name = 'own_t'), 0::bigint,
	'the attacker''s table went');
SELECT is((SELECT v FROM public.ctx WHERE k = 'by_h'), 'ACTIVE 4',
	'backfill_indexes() filled the new index under the hostile search_path');
SELECT is((SELECT count(*) FROM verify('victim_t')), 0::bigint, 'the victim''s index is consistent');

-- catalog checks over every function and trigger of the extension
SELECT is((SELECT array_agg(p.oid::regprocedure::text ORDER BY p.oid::regprocedure::text) FROM pg_catalog.pg_proc p
		   JOIN pg_catalog.pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
		   JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'item_table'
		   JOIN pg_catalog.pg_language l ON l.oid = p.prolang
		   WHERE p.prosecdef OR (p.proconfig IS NOT NULL AND p.proconfig <> ARRAY['search_path=pg_catalog, pg_temp'])
		      OR (l.lanname NOT IN ('c', 'internal') AND p.proconfig IS NULL
			      AND p.oid::regprocedure::text NOT IN ('create_access_key(regrole)', 'delete_access_key(text)',
					  'list_access_keys()', 'list_stream_consumers()'))),
	NULL, 'every function of the extension is C, or pins search_path to pg_catalog, pg_temp, or is one of the reviewed, fully qualified SQL functions; none is SECURITY DEFINER');
SELECT is((SELECT array_agg(x ORDER BY x) FROM (
			SELECT t.tgname || ' on ' || t.tgrelid::regclass::text || ': ' || l.lanname AS x
			FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
			JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid JOIN pg_catalog.pg_language l ON l.oid = p.prolang
			WHERE NOT t.tgisinternal AND l.lanname <> 'c'
			  AND (c.relnamespace IN ('item_table'::regnamespace, 'item_data'::regnamespace)
				   OR p.pronamespace = 'item_table'::regnamespace)
			UNION ALL
			SELECT 'event trigger ' || et.evtname || ': ' || l.lanname
			FROM pg_catalog.pg_event_trigger et JOIN pg_catalog.pg_proc p ON p.oid = et.evtfoid
			JOIN pg_catalog.pg_language l ON l.oid = p.prolang
			WHERE p.pronamespace = 'item_table'::regnamespace AND l.lanname <> 'c') y),
	NULL, 'the triggers and event triggers of the extension and of item tables run C functions (which pin search_path themselves)');

SELECT * FROM finish();
ROLLBACK;
DROP OWNED BY sec_sp_attacker, sec_sp_victim, sec_sp_gw, sec_sp_keyrole CASCADE;
DROP TABLE public.trap_log, public.ctx, public.consumed;
DROP ROLE sec_sp_attacker;
DROP ROLE sec_sp_victim;
DROP ROLE sec_sp_gw;
DROP ROLE sec_sp_keyrole;
