-- Buckets: only a superuser registers a server directory, grants and
-- revokes its rights, or drops it; a role reads or writes a bucket only
-- with a grant (to it or a role whose privileges it has), and a path
-- inside a bucket never leads outside it -- no absolute path, no "..",
-- no symbolic link out (one that stays inside is followed).  A grant
-- counts only while its role keeps its name.  The directories are made by
-- the test under the server's data directory (COPY TO PROGRAM, as the
-- superuser) and removed at the end.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP ROLE IF EXISTS sec_bu_reader;
DROP ROLE IF EXISTS sec_bu_member;
DROP ROLE IF EXISTS sec_bu_none;

BEGIN;
CREATE ROLE sec_bu_reader;
CREATE ROLE sec_bu_member IN ROLE sec_bu_reader;
CREATE ROLE sec_bu_none;
SET search_path = public, item_table;
SELECT plan(32);

-- <data directory>/it_buckets/b1 with a file, a subdirectory, a link to
-- the subdirectory and a link out of the bucket; b2 beside it
SELECT current_setting('data_directory') || '/it_buckets' AS root \gset
CREATE TEMP TABLE sh (cmd text);
SELECT format('rm -rf %1$s && mkdir -p %1$s/b1/sub %1$s/b2 && echo x > %1$s/b1/sub/f.json'
	' && ln -s sub %1$s/b1/inner && ln -s %1$s/b2 %1$s/b1/out && ln -s / %1$s/b1/rootlink', :'root') AS mk \gset
COPY sh FROM PROGRAM :'mk';

SELECT is(create_bucket('exports-1', :'root' || '/b1/./sub/..'), :'root' || '/b1',
	'a superuser registers a bucket; its directory is kept canonical');
SELECT throws_ok($$SELECT item_table.create_bucket('exports-1', '/')$$, '23505', NULL, 'a name is registered once');
SELECT throws_ok($$SELECT item_table.create_bucket('rel-dir', 'some/where')$$, '22023', NULL,
	'a relative directory is refused');
SELECT throws_ok(format('SELECT item_table.create_bucket(%L, %L)', 'file-dir', :'root' || '/b1/sub/f.json'),
	'22023', NULL, 'a file is not a directory');
SELECT throws_ok($$SELECT item_table.create_bucket('Bad_Name', '/')$$, '22023', NULL,
	'a name out of S3''s rules is refused');
SELECT lives_ok(format('SELECT item_table.create_bucket(%L, %L)', 'other', :'root' || '/b2'), 'a second bucket');

-- paths
SELECT is(bucket_path('exports-1', 'sub/f.json', 'read'), :'root' || '/b1/sub/f.json', 'a file inside');
SELECT is(bucket_path('exports-1', './sub//f.json', 'read'), :'root' || '/b1/sub/f.json', '"." and "//" are dropped');
SELECT is(bucket_path('exports-1', 'inner/f.json', 'read'), :'root' || '/b1/inner/f.json', 'a link that stays inside is followed');
SELECT throws_ok($$SELECT item_table.bucket_path('exports-1', '../b2/x', 'write')$$, '22023', NULL, '".." is refused');
SELECT throws_ok($$SELECT item_table.bucket_path('exports-1', 'sub/../../b2', 'read')$$, '22023', NULL, 'and inside a path');
SELECT throws_ok($$SELECT item_table.bucket_path('exports-1', '/etc/passwd', 'read')$$, '22023', NULL, 'an absolute path is refused');
SELECT throws_ok($$SELECT item_table.bucket_path('exports-1', 'out/x.json', 'write')$$, '42501', NULL,
	'a link to another directory is refused');
SELECT throws_ok($$SELECT item_table.bucket_path('exports-1', 'rootlink/etc/passwd', 'read')$$, '42501', NULL,
	'a link to the root is refused');
SELECT throws_ok($$SELECT item_table.bucket_path('exports-1', 'sub/none.json', 'read')$$, '58P01', NULL,
	'a missing file cannot be read');
SELECT is(bucket_path('exports-1', 'new/dir/file.json.gz', 'write'), :'root' || '/b1/new/dir/file.json.gz',
	'a missing path can be written');
SELECT throws_ok($$SELECT item_table.bucket_path('nope', 'x', 'read')$$, '42704', NULL, 'an unknown bucket');
SELECT throws_ok($$SELECT item_table.bucket_path('exports-1', 'x', 'delete')$$, '22023', NULL, 'an unknown mode');

-- rights
SET ROLE sec_bu_reader;
SELECT throws_ok(format('SELECT item_table.create_bucket(%L, %L)', 'mine', :'root' || '/b2'), '42501', NULL,
	'a role cannot register a bucket');
SELECT throws_ok($$SELECT item_table.grant_bucket('exports-1', 'sec_bu_reader', true, true)$$, '42501', NULL,
	'nor grant itself rights');
SELECT throws_ok($$SELECT item_table.drop_bucket('exports-1')$$, '42501', NULL, 'nor drop a bucket');
SELECT throws_ok('SELECT * FROM item_table.buckets', '42501', NULL, 'nor read the catalog');
SELECT throws_ok($$SELECT item_table.bucket_path('exports-1', 'sub/f.json', 'read')$$, '42501', NULL,
	'without a grant, no path');
SELECT is((SELECT count(*) FROM list_buckets()), 0::bigint, 'and no bucket listed');
RESET ROLE;
SELECT grant_bucket('exports-1', 'sec_bu_reader', true, false);
SET ROLE sec_bu_member;
SELECT is(bucket_path('exports-1', 'sub/f.json', 'read'), :'root' || '/b1/sub/f.json',
	'a member of a role granted read reads');
SELECT throws_ok($$SELECT item_table.bucket_path('exports-1', 'out.json', 'write')$$, '42501', NULL, 'but does not write');
SELECT is((SELECT array_agg(bucket_name || ':' || can_read || ':' || can_write) FROM list_buckets()),
	ARRAY['exports-1:true:false'], 'it lists the bucket it may read, with its rights');
RESET ROLE;
SET ROLE sec_bu_none;
SELECT throws_ok($$SELECT item_table.bucket_path('exports-1', 'sub/f.json', 'read')$$, '42501', NULL,
	'a role with no grant still reads nothing');
RESET ROLE;
-- a renamed role loses its grant (its OID could be another role's later)
ALTER ROLE sec_bu_reader RENAME TO sec_bu_renamed;
SET ROLE sec_bu_member;
SELECT throws_ok($$SELECT item_table.bucket_path('exports-1', 'sub/f.json', 'read')$$, '42501', NULL,
	'a grant to a renamed role counts no more');
RESET ROLE;
ALTER ROLE sec_bu_renamed RENAME TO sec_bu_reader;
SELECT ok(revoke_bucket('exports-1', 'sec_bu_reader'), 'a superuser revokes');
SELECT ok(drop_bucket('exports-1') AND NOT EXISTS (SELECT FROM bucket_grants WHERE bucket_name = 'exports-1'),
	'and drops the bucket with its grants');
SELECT is((SELECT count(*) FROM pg_proc WHERE pronamespace = 'item_table'::regnamespace
	AND proname IN ('create_bucket', 'drop_bucket', 'grant_bucket', 'revoke_bucket')
	AND has_function_privilege('public', oid, 'EXECUTE')), 0::bigint,
	'PUBLIC may run none of the superusers'' bucket functions');

SELECT format('rm -rf %s', :'root') AS rm \gset
COPY sh FROM PROGRAM :'rm';
SELECT * FROM finish();
ROLLBACK;
