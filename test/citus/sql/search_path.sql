-- The search_path traps of the security suite (test/security/include/
-- plant_traps.sql) over the distributed paths: distribute_table(),
-- explain_item(), the API's statements on a distributed table (index rows
-- kept by the API) and undistribute_table().  The attacker's schema comes
-- first on the search_path of every call, the table owner's and a
-- superuser's (distribute_table(), undistribute_table()) included; a trap
-- that runs as anyone but the attacker is recorded, with the call it ran
-- in.
SET client_min_messages = warning;
\set VERBOSITY terse
CREATE ROLE sec_sp_victim LOGIN;    -- Citus connects to the workers as the user
CREATE ROLE sec_sp_attacker LOGIN;
GRANT CREATE, USAGE ON SCHEMA item_data TO sec_sp_victim;
GRANT USAGE ON SCHEMA item_data TO sec_sp_attacker;
CREATE SCHEMA evil AUTHORIZATION sec_sp_attacker;
CREATE TABLE public.trap_log (who name, what text, during text);
GRANT INSERT, SELECT, UPDATE ON public.trap_log TO PUBLIC;
CREATE TABLE public.outcomes (id serial, who name, action text, outcome text);
GRANT INSERT, SELECT ON public.outcomes TO PUBLIC;
GRANT USAGE ON SEQUENCE public.outcomes_id_seq TO PUBLIC;
-- trap_log and outcomes stay local to the coordinator
SET citus.enable_ddl_propagation = off;

SET ROLE sec_sp_victim;
SELECT item_table.create_table('{"TableName": "cit_victim", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
    {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"}}]}') ->> 'TableDescription' IS NOT NULL AS created;
SELECT count(item_table.put_item(pg_catalog.jsonb_build_object('TableName', 'cit_victim', 'Item',
  pg_catalog.jsonb_build_object('pk', pg_catalog.jsonb_build_object('S', 'v' || i), 'sk', '{"S": "1"}'::jsonb,
    'g', pg_catalog.jsonb_build_object('S', 'g' || (i % 2)))))) AS puts
FROM pg_catalog.generate_series(1, 6) i;
GRANT SELECT, INSERT, UPDATE, DELETE ON item_data.cit_victim, item_data."cit_victim#by_g" TO sec_sp_attacker;
RESET ROLE;

-- the traps, planted by the attacker (pg_regress gives psql the file on
-- its standard input: \i is relative to the repository's root, where
-- test/citus/run.sh runs)
\i test/security/include/plant_traps.sql
RESET ROLE;
SELECT count(*) >= 60 AS traps_planted FROM pg_catalog.pg_operator
  WHERE oprnamespace = 'evil'::regnamespace;

-- (no operator in the blocks below: they run under the hostile path)
CREATE FUNCTION pg_temp.hostile(who name, action text, call text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_catalog.set_config('role', who::text, true);
  PERFORM pg_catalog.set_config('search_path', 'evil, pg_catalog, item_table, public', true);
  BEGIN
    EXECUTE call;
    INSERT INTO public.outcomes (who, action, outcome) VALUES (who, action, 'ok');
  EXCEPTION WHEN OTHERS THEN
    INSERT INTO public.outcomes (who, action, outcome) VALUES (who, action, pg_catalog.concat(SQLSTATE, ' ', SQLERRM));
  END;
  UPDATE public.trap_log SET during = action WHERE during IS NULL;
END $$;
RESET citus.enable_ddl_propagation;
-- each call in a transaction of its own, as distribute_table() must be
BEGIN;
SELECT pg_temp.hostile('postgres', 'distribute_table', $$SELECT item_table.distribute_table('cit_victim', 4)$$);
COMMIT;
BEGIN;
SELECT pg_temp.hostile('sec_sp_attacker', 'explain_item', $$SELECT pg_catalog.count(*) FROM item_table.explain_item('cit_victim', '{"pk": {"S": "v1"}, "sk": {"S": "1"}}')$$);
COMMIT;
BEGIN;
SELECT pg_temp.hostile('sec_sp_attacker', 'PutItem', $$SELECT item_table.put_item('{"TableName": "cit_victim",
  "Item": {"pk": {"S": "a1"}, "sk": {"S": "1"}, "g": {"S": "g1"}, "n": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(pk)"}')$$);
COMMIT;
BEGIN;
SELECT pg_temp.hostile('sec_sp_attacker', 'UpdateItem', $$SELECT item_table.update_item('{"TableName": "cit_victim",
  "Key": {"pk": {"S": "v2"}, "sk": {"S": "1"}}, "UpdateExpression": "SET g = :g ADD n :one",
  "ExpressionAttributeValues": {":g": {"S": "g7"}, ":one": {"N": "1"}}}')$$);
COMMIT;
BEGIN;
SELECT pg_temp.hostile('sec_sp_attacker', 'DeleteItem', $$SELECT item_table.delete_item('{"TableName": "cit_victim",
  "Key": {"pk": {"S": "v3"}, "sk": {"S": "1"}}}')$$);
COMMIT;
BEGIN;
SELECT pg_temp.hostile('sec_sp_attacker', 'Query', $$SELECT item_table.query('{"TableName": "cit_victim",
  "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "v1"}}}')$$);
COMMIT;
BEGIN;
SELECT pg_temp.hostile('sec_sp_attacker', 'Query GSI', $$SELECT item_table.query('{"TableName": "cit_victim", "IndexName": "by_g",
  "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "g1"}}}')$$);
COMMIT;
BEGIN;
SELECT pg_temp.hostile('sec_sp_attacker', 'Scan', $$SELECT item_table.scan('{"TableName": "cit_victim", "Limit": 3}')$$);
COMMIT;
BEGIN;
SELECT pg_temp.hostile('sec_sp_attacker', 'TransactWriteItems', $$SELECT item_table.transact_write_items('{"TransactItems": [
  {"Put": {"TableName": "cit_victim", "Item": {"pk": {"S": "t1"}, "sk": {"S": "1"}, "g": {"S": "g0"}}}},
  {"Delete": {"TableName": "cit_victim", "Key": {"pk": {"S": "v4"}, "sk": {"S": "1"}}}}]}')$$);
COMMIT;
BEGIN;
SELECT pg_temp.hostile('sec_sp_victim', 'explain_item', $$SELECT pg_catalog.count(*) FROM item_table.explain_item('cit_victim', '{"pk": {"S": "v1"}, "sk": {"S": "1"}}')$$);
COMMIT;
BEGIN;
SELECT pg_temp.hostile('sec_sp_victim', 'verify', $$SELECT pg_catalog.count(*) FROM item_table.verify('cit_victim')$$);
COMMIT;
BEGIN;
SELECT pg_temp.hostile('postgres', 'undistribute_table', $$SELECT item_table.undistribute_table('cit_victim')$$);
COMMIT;

SELECT who, action, outcome FROM public.outcomes ORDER BY id;
SELECT who, what, during FROM public.trap_log ORDER BY during, what;
SELECT count(*) AS distributed FROM pg_catalog.pg_dist_partition
  WHERE logicalrelid IN ('item_data.cit_victim'::regclass, 'item_data."cit_victim#by_g"'::regclass);
SELECT string_agg(item -> 'pk' ->> 'S', ' ' ORDER BY item -> 'pk' ->> 'S') AS items FROM item_data.cit_victim;
SELECT * FROM item_table.verify('cit_victim');

SELECT item_table.delete_table('{"TableName": "cit_victim"}') ->> 'TableDescription' IS NOT NULL AS deleted;
DROP TABLE public.trap_log, public.outcomes;
DROP OWNED BY sec_sp_attacker, sec_sp_victim CASCADE;
DROP ROLE sec_sp_attacker;
DROP ROLE sec_sp_victim;
