-- A worker connection lost in the middle of a distributed transaction: the
-- worker-side backend of this session is terminated (pg_terminate_backend,
-- from another connection to that worker) between the statements of a
-- transaction that wrote items on two workers; nothing is left
-- half-written, on either worker, in the items or the index rows, and no
-- prepared transaction is left behind.
SET client_min_messages = warning;
\set VERBOSITY terse
SELECT item_table.create_table('{
  "TableName": "Ledger",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"},
                           {"AttributeName": "owner", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "byOwner",
     "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
     "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}') ->> 'TableDescription' IS NOT NULL AS created;
SELECT item_table.distribute_table('Ledger', 8);

-- helpers, on the coordinator only
SET citus.enable_ddl_propagation = off;
CREATE SCHEMA wl;
-- terminate, on the worker listening on port, the backends that serve this
-- session (Citus names them "citus_internal gpid=<this session's gpid>");
-- run_command_on_workers uses connections of its own
CREATE FUNCTION wl.kill_on(port int) RETURNS bigint LANGUAGE sql AS $$
  SELECT sum(result::bigint) FROM run_command_on_workers(pg_catalog.format(
    'SELECT count(pg_catalog.pg_terminate_backend(pid, 10000)) FROM pg_catalog.pg_stat_activity'
    ' WHERE application_name OPERATOR(pg_catalog.=) %L'
    ' AND pg_catalog.current_setting(''port'')::int OPERATOR(pg_catalog.=) %s',
    'citus_internal gpid=' || pg_catalog.citus_backend_gpid(), port))
$$;
CREATE FUNCTION wl.put(id text, owner text, n int) RETURNS jsonb LANGUAGE sql AS $$
  SELECT pg_catalog.jsonb_build_object('TableName', 'Ledger', 'Item', pg_catalog.jsonb_build_object(
    'id', pg_catalog.jsonb_build_object('S', id), 'owner', pg_catalog.jsonb_build_object('S', owner),
    'n', pg_catalog.jsonb_build_object('N', n::text)))
$$;
CREATE FUNCTION wl.state() RETURNS TABLE (which text, owner text, n text, index_rows bigint) LANGUAGE plpgsql AS $$
DECLARE
  p record;
  id text;
  item jsonb;
BEGIN
  SELECT * INTO p FROM pair;
  FOR which, id IN VALUES ('a', p.a), ('b', p.b) LOOP
    item := item_table.dynamodb('GetItem', pg_catalog.jsonb_build_object('TableName', 'Ledger',
      'Key', pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', id))))->'Item';
    owner := item->'owner'->>'S';
    n := item->'n'->>'N';
    SELECT count(*) INTO index_rows FROM item_data."Ledger#byOwner" i
      WHERE i.key OPERATOR(item_table.=) item_table.item_key(pg_catalog.jsonb_build_object('S', id));
    RETURN NEXT;
  END LOOP;
END $$;
RESET citus.enable_ddl_propagation;
-- two items on different workers, and the port of b's worker
CREATE TEMP TABLE placed AS
SELECT 'l-' || i AS id, n.nodeport
FROM generate_series(1, 20) i, pg_dist_placement pl JOIN pg_dist_node n ON n.groupid = pl.groupid
WHERE pl.shardid = pg_catalog.get_shard_id_for_distribution_column('item_data."Ledger"',
        item_table.item_key(pg_catalog.jsonb_build_object('S', 'l-' || i)));
CREATE TEMP TABLE pair AS
SELECT a.id AS a, b.id AS b, b.nodeport AS bport FROM placed a, placed b
WHERE a.nodeport <> b.nodeport ORDER BY a.id, b.id LIMIT 1;
SELECT count(*) AS pairs FROM pair;
SELECT item_table.dynamodb('TransactWriteItems', pg_catalog.jsonb_build_object('TransactItems', pg_catalog.jsonb_build_array(
  pg_catalog.jsonb_build_object('Put', wl.put(a, 'ann', 100)), pg_catalog.jsonb_build_object('Put', wl.put(b, 'ann', 50))))) FROM pair;
SELECT * FROM wl.state();

-- 1. both written (a TransactWriteItems), then b's worker backend is
-- terminated before COMMIT: the commit fails (its PREPARE cannot reach b's
-- worker) and a's write is rolled back too
BEGIN;
SELECT item_table.dynamodb('TransactWriteItems', pg_catalog.jsonb_build_object('TransactItems', pg_catalog.jsonb_build_array(
  pg_catalog.jsonb_build_object('Put', wl.put(a, 'bob', 70)), pg_catalog.jsonb_build_object('Put', wl.put(b, 'bob', 80))))) FROM pair;
SELECT wl.kill_on(bport) > 0 AS terminated FROM pair;
-- (the messages name the worker's random port: SQLSTATEs only)
SET client_min_messages = error;
\set VERBOSITY sqlstate
COMMIT;
\set VERBOSITY terse
SET client_min_messages = warning;
SELECT * FROM wl.state();

-- 2. a written, b read (which opens this transaction's connection to b's
-- worker), b's worker backend terminated, then a TransactWriteItems over
-- both: it fails, and the transaction with a's first write rolls back
BEGIN;
SELECT item_table.dynamodb('PutItem', wl.put(a, 'cy', 1)) FROM pair;
SELECT item_table.dynamodb('GetItem', pg_catalog.jsonb_build_object('TableName', 'Ledger',
  'Key', pg_catalog.jsonb_build_object('id', pg_catalog.jsonb_build_object('S', b))))->'Item'->'n' AS b_n FROM pair;
SELECT wl.kill_on(bport) > 0 AS terminated FROM pair;
SET client_min_messages = error;
\set VERBOSITY sqlstate
SELECT item_table.dynamodb('TransactWriteItems', pg_catalog.jsonb_build_object('TransactItems', pg_catalog.jsonb_build_array(
  pg_catalog.jsonb_build_object('Put', wl.put(a, 'cy', 2)), pg_catalog.jsonb_build_object('Put', wl.put(b, 'cy', 3))))) FROM pair;
\set VERBOSITY terse
ROLLBACK;
SET client_min_messages = warning;
SELECT * FROM wl.state();

-- nothing half-written anywhere, no prepared transaction left on a worker,
-- and the session works again
SELECT * FROM item_table.verify('Ledger');
SELECT count(*) AS items, count(*) FILTER (WHERE item->'owner'->>'S' <> 'ann') AS changed FROM item_data."Ledger";
SELECT count(*) AS index_rows FROM item_data."Ledger#byOwner";
SELECT bool_and(success) AS ok, sum(result::int) AS prepared_left
FROM run_command_on_workers('SELECT count(*) FROM pg_catalog.pg_prepared_xacts');
SELECT item_table.dynamodb('TransactWriteItems', pg_catalog.jsonb_build_object('TransactItems', pg_catalog.jsonb_build_array(
  pg_catalog.jsonb_build_object('Put', wl.put(a, 'dee', 7)), pg_catalog.jsonb_build_object('Put', wl.put(b, 'dee', 8))))) FROM pair;
SELECT * FROM wl.state();
SELECT * FROM item_table.verify('Ledger');
