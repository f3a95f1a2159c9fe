-- A session whose cached definition of a table predates another session's
-- distribute_table() must not take the undistributed path (the plans of a
-- local table, the index trigger, direct heap writes) once it writes.
-- Citus processes invalidations whenever it plans a statement, so the
-- window is inside a statement: here this session's statement waits, after
-- it was planned, for an advisory lock that the other session (a psql in
-- the background, \! "$IT_PSQL", see test/citus/run.sh) holds while it
-- distributes the table, and writes as soon as that session has committed.
-- The item must be on the shards with its index row, the coordinator's
-- shell tables empty and verify() clean.  Then the same the other way
-- round, with undistribute_table().
SET client_min_messages = warning;
\set VERBOSITY terse
\setenv PGDATABASE :DBNAME
SELECT item_table.create_table('{
  "TableName": "Stale",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                           {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "byG",
     "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
     "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}') ->> 'TableDescription' IS NOT NULL AS created;
SELECT item_table.put_item('{"TableName": "Stale", "Item": {"pk": {"S": "a"}, "g": {"S": "x"}}}');

-- this session's definition: undistributed
SELECT item_table.get_item('{"TableName": "Stale", "Key": {"pk": {"S": "a"}}}') -> 'Item' AS cached;
-- the other session: lock 4242, wait until this session waits for it (30 s
-- at most), distribute (the local rows removed), commit
\! ("$IT_PSQL" -X -q -v ON_ERROR_STOP=1 -o /dev/null -c "SET client_min_messages = warning" -c "BEGIN" -c "SELECT pg_catalog.pg_advisory_xact_lock(4242)" -c "DO \$\$ BEGIN FOR i IN 1..600 LOOP EXIT WHEN EXISTS (SELECT FROM pg_catalog.pg_locks l WHERE l.locktype = 'advisory' AND l.objid = 4242 AND NOT l.granted); PERFORM pg_catalog.pg_sleep(0.05); END LOOP; END \$\$" -c "SELECT item_table.distribute_table('Stale', 4)" -c "SELECT truncate_local_data_after_distributing_table(t) FROM (VALUES ('item_data.\"Stale\"'::regclass), ('item_data.\"Stale#byG\"')) v (t)" -c "COMMIT" 2>"${TMPDIR:-/tmp}/item_table_stale.$PPID" &)
-- waits until the other session holds advisory lock 4242 (30 s at most)
DO $$
BEGIN
  FOR i IN 1..600 LOOP
    IF EXISTS (SELECT FROM pg_catalog.pg_locks l WHERE l.locktype = 'advisory'
               AND l.objid = 4242 AND l.granted AND l.pid <> pg_catalog.pg_backend_pid()) THEN
      RETURN;
    END IF;
    PERFORM pg_catalog.pg_sleep(0.05);
  END LOOP;
  RAISE EXCEPTION 'the other session never took the advisory lock';
END $$;
-- planned now, writes once the other session has committed
SELECT item_table.put_item('{"TableName": "Stale", "Item": {"pk": {"S": "b"}, "g": {"S": "y"}}}') AS put
  FROM pg_catalog.pg_advisory_xact_lock(4242);
\! cat "${TMPDIR:-/tmp}/item_table_stale.$PPID"; rm -f "${TMPDIR:-/tmp}/item_table_stale.$PPID"
SELECT count(*) AS distributed FROM pg_catalog.pg_dist_partition
  WHERE logicalrelid IN ('item_data."Stale"'::regclass, 'item_data."Stale#byG"'::regclass);
SELECT pg_catalog.pg_relation_size('item_data."Stale"') AS shell_bytes,
       pg_catalog.pg_relation_size('item_data."Stale#byG"') AS shell_index_bytes;
SELECT string_agg((item -> 'pk' ->> 'S') || '=' || (item -> 'g' ->> 'S'), ' ' ORDER BY item -> 'pk' ->> 'S') AS items
  FROM item_data."Stale";
SELECT item_table.query('{"TableName": "Stale", "IndexName": "byG", "KeyConditionExpression": "g = :g",
  "ExpressionAttributeValues": {":g": {"S": "y"}}}') -> 'Count' AS by_g_y;
SELECT * FROM item_table.verify('Stale');

-- the other way: this session's definition distributed, the other session
-- undistributes the table, this session updates an item
SELECT item_table.get_item('{"TableName": "Stale", "Key": {"pk": {"S": "a"}}}') -> 'Item' AS cached;
\! ("$IT_PSQL" -X -q -v ON_ERROR_STOP=1 -o /dev/null -c "SET client_min_messages = warning" -c "BEGIN" -c "SELECT pg_catalog.pg_advisory_xact_lock(4242)" -c "DO \$\$ BEGIN FOR i IN 1..600 LOOP EXIT WHEN EXISTS (SELECT FROM pg_catalog.pg_locks l WHERE l.locktype = 'advisory' AND l.objid = 4242 AND NOT l.granted); PERFORM pg_catalog.pg_sleep(0.05); END LOOP; END \$\$" -c "SELECT item_table.undistribute_table('Stale')" -c "COMMIT" 2>"${TMPDIR:-/tmp}/item_table_stale.$PPID" &)
-- waits until the other session holds advisory lock 4242 (30 s at most)
DO $$
BEGIN
  FOR i IN 1..600 LOOP
    IF EXISTS (SELECT FROM pg_catalog.pg_locks l WHERE l.locktype = 'advisory'
               AND l.objid = 4242 AND l.granted AND l.pid <> pg_catalog.pg_backend_pid()) THEN
      RETURN;
    END IF;
    PERFORM pg_catalog.pg_sleep(0.05);
  END LOOP;
  RAISE EXCEPTION 'the other session never took the advisory lock';
END $$;
SELECT item_table.update_item('{"TableName": "Stale", "Key": {"pk": {"S": "a"}},
  "UpdateExpression": "SET g = :g", "ExpressionAttributeValues": {":g": {"S": "z"}}}') AS updated
  FROM pg_catalog.pg_advisory_xact_lock(4242);
\! cat "${TMPDIR:-/tmp}/item_table_stale.$PPID"; rm -f "${TMPDIR:-/tmp}/item_table_stale.$PPID"
SELECT count(*) AS distributed FROM pg_catalog.pg_dist_partition
  WHERE logicalrelid IN ('item_data."Stale"'::regclass, 'item_data."Stale#byG"'::regclass);
SELECT string_agg((item -> 'pk' ->> 'S') || '=' || (item -> 'g' ->> 'S'), ' ' ORDER BY item -> 'pk' ->> 'S') AS items
  FROM item_data."Stale";
SELECT item_table.query('{"TableName": "Stale", "IndexName": "byG", "KeyConditionExpression": "g = :g",
  "ExpressionAttributeValues": {":g": {"S": "z"}}}') -> 'Count' AS by_g_z;
SELECT * FROM item_table.verify('Stale');
SELECT item_table.delete_table('{"TableName": "Stale"}') -> 'TableDescription' ->> 'TableStatus' AS deleted;
