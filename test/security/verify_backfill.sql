-- verify() and backfill_indexes().
--
-- verify() turned enable_hashjoin off with set_config(..., true), which
-- stayed off for the rest of the caller's transaction, and was labelled
-- STABLE PARALLEL SAFE although it changes a setting.  The setting is now
-- verify's own (a GUC nest level undone on return) and the function is
-- VOLATILE PARALLEL UNSAFE.
--
-- backfill_indexes() read the base table as the caller: an owner under
-- FORCE ROW LEVEL SECURITY filled the index with only the items its
-- policies showed, and marked it ACTIVE.  The base table is now read, as
-- the index tables are written, with the owner's rights without forced row
-- security, so the index holds every item.  The procedure commits, so the
-- table and the backfill are made before the test's transaction (and
-- removed after it).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP ROLE IF EXISTS sec_vb_owner;
CREATE ROLE sec_vb_owner;
GRANT CREATE ON SCHEMA item_data TO sec_vb_owner;
\o /dev/null
SET ROLE sec_vb_owner;
SELECT item_table.create_table('{"TableName": "vbf", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
INSERT INTO item_data.vbf
SELECT item_table.item_key(jsonb_build_object('S', 'K' || g)),
	   jsonb_build_object('pk', jsonb_build_object('S', 'K' || g), 'g', jsonb_build_object('S', 'G' || (g % 3)))
	   || CASE WHEN g % 4 = 0 THEN '{"hidden": {"BOOL": true}}'::jsonb ELSE '{}' END
FROM generate_series(1, 40) g;
ALTER TABLE item_data.vbf ENABLE ROW LEVEL SECURITY;
ALTER TABLE item_data.vbf FORCE ROW LEVEL SECURITY;
CREATE POLICY not_hidden ON item_data.vbf USING (NOT item ? 'hidden');
SET item_table.index_backfill = manual;	-- the procedure is what is tested
SELECT item_table.update_table('{"TableName": "vbf",
	"AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "S"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_g",
		"KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}}]}')
	IS NOT NULL AS updated;
CALL item_table.backfill_indexes('vbf', 7);
RESET ROLE;
\o

BEGIN;
SELECT plan(10);
SET search_path = public, item_table;

-- backfill under FORCE ROW LEVEL SECURITY
SELECT is((SELECT status FROM item_table.indexes WHERE table_name = 'vbf'), 'ACTIVE', 'the backfilled index is ACTIVE');
SELECT is((SELECT count(*)::int FROM item_data."vbf#by_g"), 40,
	'the index holds every item, those the owner''s forced policy hides included');
SELECT is((SELECT backfilled::int FROM item_table.indexes WHERE table_name = 'vbf'), 40, 'the progress counts every item');
SELECT is((SELECT count(*)::int FROM item_table.verify('vbf')), 0, 'verify() finds nothing');

-- verify() leaves enable_hashjoin as it found it
SET LOCAL enable_hashjoin = on;
SELECT is((SELECT count(*)::int FROM item_table.verify('vbf')), 0, 'verify() runs');
SELECT is(current_setting('enable_hashjoin'), 'on', 'enable_hashjoin is still on after verify() in the same transaction');
SET LOCAL enable_hashjoin = off;
SELECT is((SELECT count(*)::int FROM item_table.verify('vbf')), 0, 'verify() runs with hash joins off');
SELECT is(current_setting('enable_hashjoin'), 'off', 'enable_hashjoin is still off after it');
SET LOCAL enable_hashjoin = on;
SELECT throws_ok($$SELECT * FROM item_table.verify('nonexistent_table')$$, 'XD004', NULL, 'verify() of an unknown table fails');
SELECT is((SELECT provolatile::text || proparallel::text FROM pg_proc WHERE oid = 'item_table.verify(text)'::regprocedure),
	'vu', 'verify() is VOLATILE PARALLEL UNSAFE');

SELECT * FROM finish();
ROLLBACK;

\o /dev/null
SELECT item_table.delete_table('{"TableName": "vbf"}') IS NOT NULL AS dropped;
DROP OWNED BY sec_vb_owner;
DROP ROLE sec_vb_owner;
\o
