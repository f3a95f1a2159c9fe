-- One random operation on table Work from one of the 4 clients of
-- test/citus/run.sh (pgbench): items on every shard, cross-shard
-- transactions, index changes.  A DynamoDB error (a cancelled transaction,
-- a failed condition, a distributed deadlock) is counted, not fatal.
\set p random(1, 30)
\set q random(1, 30)
\set s random(1, 4)
\set g random(1, 5)
\set op random(1, 6)
SELECT pg_temp_work_op(:op, :p, :q, :s, :g);
