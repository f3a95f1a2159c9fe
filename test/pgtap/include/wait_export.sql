-- pg_temp.wait_export(arn): an export once the background worker has
-- ended it (at most 60 s), its DescribeExport answer.  Included by the
-- pgTAP and security export tests (\ir); the regression test has its own
-- copy, as pg_regress feeds its files on standard input, where \ir has no
-- file to be relative to.
CREATE FUNCTION pg_temp.wait_export(arn text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	d jsonb;
BEGIN
	FOR i IN 1..600 LOOP
		d := item_table.dynamodb('DescribeExport', jsonb_build_object('ExportArn', arn));
		EXIT WHEN d #>> '{ExportDescription,ExportStatus}' <> 'IN_PROGRESS';
		PERFORM pg_sleep(0.1);
	END LOOP;
	RETURN d;
END $$;
