-- A bucket for export and import tests: psql variables bucket (its name)
-- and dir (a directory under the data directory, made anew here; the
-- test removes it with :'root' at the end).  One assertion: the bucket.
-- pg_temp.lines(key, gz) reads a file of it back as lines (zcat for
-- gzip), pg_temp.write(key, lines, program) writes lines as a file
-- through a program (gzip, zstd, cat), and pg_temp.wait_export(arn) waits
-- (at most 60 s) for the worker to end an export and gives its
-- description.  The test commits as it goes: the worker must see its rows.
SELECT current_setting('data_directory') || '/' || :'dir' AS root \gset
CREATE TEMP TABLE sh (line text);
CREATE TEMP TABLE test_bucket AS SELECT :'root' || '/b/' AS path;
SELECT format('rm -rf %1$s && mkdir -p %1$s/b', :'root') AS mk \gset
COPY sh FROM PROGRAM :'mk';
SELECT ok(create_bucket(:'bucket', :'root' || '/b') IS NOT NULL, 'a bucket');

CREATE FUNCTION pg_temp.lines(key text, gz boolean DEFAULT false) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
	TRUNCATE sh;
	EXECUTE format('COPY sh FROM PROGRAM %L WITH (FORMAT csv, QUOTE E''\x01'', DELIMITER E''\x02'')',
		CASE WHEN gz THEN 'zcat ' ELSE 'cat ' END || (SELECT path FROM test_bucket) || key);
	RETURN QUERY SELECT s.line FROM sh s;
END $$;
CREATE FUNCTION pg_temp.write(key text, body text[], program text DEFAULT 'cat') RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('COPY (SELECT unnest(%L::text[])) TO PROGRAM %L WITH (FORMAT csv, QUOTE E''\x01'', DELIMITER E''\x02'')',
		body, format('mkdir -p $(dirname %1$s) && %2$s > %1$s', (SELECT path FROM test_bucket) || key, program));
END $$;
\ir wait_export.sql
