/*-------------------------------------------------------------------------
 *
 * export_jobs.c
 *		The jobs of ExportTableToPointInTime and ImportTable: their catalog
 *		rows (item_table.exports, item_table.imports), made and moved on
 *		only by the steps here, and the export the background worker runs.
 *
 * No forged rows.  The catalog tables are the extension's; roles read
 * them, and write them only through these steps, which run as the catalog
 * owner and fill in themselves what a row says about its job:
 *
 * - export_begin() makes an export's row from the validated values of the
 *   call (ExportTableToPointInTime, src/sql/export.sql): it checks the
 *   caller's SELECT on the table, its write right on the bucket (through
 *   bucket_path()) and that the table has point-in-time recovery, and
 *   fills the id, the ARN, the owner (the caller), the status
 *   (IN_PROGRESS), the start time and the file size (the setting
 *   item_table.export_file_items) itself.  Counts, manifests and the end
 *   state are written only by the worker (ExportRunBatch below).
 * - import_begin() makes an import's row IN_PROGRESS the same way; the
 *   counts are added by import_load_file() (export_import.c) for the
 *   lines it loaded itself, into the caller's own row in progress only;
 *   import_finish() moves the caller's own row in progress to COMPLETED or
 *   FAILED, with what those counts say.
 *
 * The export in the worker.  The call returns IN_PROGRESS at once, and
 * asks for the worker (ItemWorkerRequest); the worker (worker.c, work
 * kind 'x') runs ExportRunBatch() for each export in progress, each in a
 * transaction of its own.  One batch writes one data file:
 *
 * - as the export's owner, the rights are checked again (SELECT on the
 *   table, write on the bucket: either may have been revoked since the
 *   call), and the file's name resolved in the bucket;
 * - the lines are those of the table as of ExportTime (a full export;
 *   the call's time when none was asked for) or of the changes of the
 *   window (an incremental export), read through the point-in-time
 *   history (ExportDataFile(), export_import.c), in key order after the
 *   last key of the files before, at most the export's file_items items
 *   and about EXPORT_FILE_BYTES of lines;
 * - the file is listed in the row (data_files: its manifest line), with
 *   the counts so far (DescribeExport's ItemCount and BilledSizeBytes
 *   while the export runs) and the key to go on from, and committed.
 *
 * The last file (fewer lines than the limits) also writes
 * manifest-files.json and manifest-summary.json and marks the row
 * COMPLETED.  The read as of T is the same in every transaction as long
 * as the history after T is kept: trim_pitr_history() keeps the history a
 * table's exports in progress still need, and writers are never blocked
 * (they add history; the export only reads).  When the table is gone, or
 * its point-in-time recovery was switched off (or on again after T), or
 * a file cannot be written, or a right is gone, the export is FAILED with
 * FailureCode and FailureMessage.
 *
 * A crash (kill -9) in the middle of a file leaves the row as of the last
 * committed file; after the restart the worker goes on from there.  The
 * file being written is named by the export and its number, so its
 * restart writes the same file again from the start (its half-written
 * version is replaced); manifests exist only once every file is.  An
 * export is never COMPLETED with items missing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <unistd.h>

#include "access/xact.h"
#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "common/md5.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"

#include "catalog.h"
#include "export_import.h"
#include "worker_start.h"

PG_FUNCTION_INFO_V1(item_table_export_begin);
PG_FUNCTION_INFO_V1(item_table_import_begin);
PG_FUNCTION_INFO_V1(item_table_import_finish);

/* a data file ends when its lines reach this many bytes (DynamoDB: ~64 MB) */
#define EXPORT_FILE_BYTES	((int64) 64 * 1024 * 1024)

/* sql with its arguments as the catalog owner; the SPI result code */
static int
as_catalog_owner(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls, bool read_only)
{
	ItemRoleSwitch sw;
	int			rc;

	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args(sql, nargs, types, values, nulls, read_only, 0);
	ItemAsRoleEnd(&sw);
	return rc;
}

static char *
arg_text(FunctionCallInfo fcinfo, int n)
{
	return PG_ARGISNULL(n) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(n));
}

/*
 * The caller's write right on bucket, for key: a refusal is the call's
 * error; any other trouble with the path (a file where a folder goes) is
 * the export's, which the worker meets and reports as FAILED.
 */
static void
check_bucket(const char *bucket, const char *key)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		(void) ExportBucketFile(bucket, key, "write");
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *err;

		MemoryContextSwitchTo(cxt);
		err = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (err->sqlerrcode == ERRCODE_INSUFFICIENT_PRIVILEGE || err->sqlerrcode == ERRCODE_QUERY_CANCELED)
			ReThrowError(err);
		FreeErrorData(err);
	}
	PG_END_TRY();
}

/*
 * export_begin(table_name text, export_type text, export_format text,
 *		export_time timestamptz, from_time timestamptz, to_time timestamptz,
 *		view_type text, bucket text, prefix text, client_token text,
 *		request jsonb) returns text
 *		The row of a new export of the caller's, IN_PROGRESS, and the
 *		worker asked for; the export's id.
 */
Datum
item_table_export_begin(PG_FUNCTION_ARGS)
{
	char	   *table_name = arg_text(fcinfo, 0);
	char	   *kind = arg_text(fcinfo, 1);
	char	   *format = arg_text(fcinfo, 2);
	char	   *bucket = arg_text(fcinfo, 7);
	Oid			caller = GetUserId();
	Oid			relid;
	bool		isnull;
	char	   *id;
	char	   *base;
	bool		full;
	Oid			types[14] = {TEXTOID, TEXTOID, TEXTOID, TIMESTAMPTZOID, TIMESTAMPTZOID, TIMESTAMPTZOID,
	TEXTOID, TEXTOID, TEXTOID, TEXTOID, JSONBOID, TEXTOID, OIDOID, INT4OID};
	Datum		values[14];
	char		nulls[14];
	int			i;

	if (table_name == NULL || kind == NULL || format == NULL || bucket == NULL || PG_ARGISNULL(10))
		elog(ERROR, "export_begin: the table, the type, the format, the bucket and the request are required");
	full = strcmp(kind, "FULL_EXPORT") == 0;
	if (!full && strcmp(kind, "INCREMENTAL_EXPORT") != 0)
		elog(ERROR, "export_begin: unknown export type \"%s\"", kind);
	if (strcmp(format, "DYNAMODB_JSON") != 0 && strcmp(format, "ION") != 0)
		elog(ERROR, "export_begin: unknown export format \"%s\"", format);
	if (full ? PG_ARGISNULL(3) || !PG_ARGISNULL(4) || !PG_ARGISNULL(5)
		: !PG_ARGISNULL(3) || PG_ARGISNULL(4) || PG_ARGISNULL(5))
		elog(ERROR, "export_begin: a full export has an export time, an incremental one a window");

	SPI_connect();
	values[0] = CStringGetTextDatum(table_name);
	if (as_catalog_owner("SELECT t.relid, c.table_id IS NOT NULL, item_table.export_new_id()"
						 " FROM item_table.tables t LEFT JOIN item_table.continuous_backups c"
						 " ON c.table_id OPERATOR(pg_catalog.=) t.table_id"
						 " WHERE t.table_name OPERATOR(pg_catalog.=) $1",
						 1, types, values, NULL, false) != SPI_OK_SELECT)
		elog(ERROR, "could not read the tables catalog");
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("no table \"%s\"", table_name)));
	relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (!DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull)))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("point in time recovery is not enabled for table \"%s\"", table_name)));
	id = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3);
	if (pg_class_aclcheck(relid, caller, ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(relid)),
				 errdetail("Exporting a table needs SELECT on it.")));
	/* the write right on the bucket, checked as the caller */
	values[0] = PG_ARGISNULL(8) ? (Datum) 0 : PG_GETARG_DATUM(8);
	values[1] = CStringGetTextDatum(id);
	if (SPI_execute_with_args("SELECT item_table.export_base_key($1, $2)", 2, types,
							  values, PG_ARGISNULL(8) ? "n " : "  ", true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not name the export's folder");
	base = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	check_bucket(bucket, psprintf("%s/_started", base));

	for (i = 0; i < 11; i++)
	{
		values[i] = PG_ARGISNULL(i) ? (Datum) 0 : PG_GETARG_DATUM(i);
		nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
	}
	values[11] = CStringGetTextDatum(id);
	values[12] = ObjectIdGetDatum(caller);
	values[13] = Int32GetDatum(item_table_export_file_items);
	nulls[11] = nulls[12] = nulls[13] = ' ';
	if (as_catalog_owner("INSERT INTO item_table.exports (export_id, export_arn, table_name, table_id, owner,"
						 " status, export_type, export_format, export_time, from_time, to_time, view_type,"
						 " s3_bucket, s3_prefix, client_token, call_request, start_time, file_items)"
						 " SELECT $12, item_table.export_table_arn(t.table_name) OPERATOR(pg_catalog.||) '/export/'"
						 " OPERATOR(pg_catalog.||) $12, t.table_name, t.table_id, $13, 'IN_PROGRESS', $2, $3, $4, $5, $6, $7,"
						 " $8, $9, $10, $11, pg_catalog.clock_timestamp(), $14"
						 " FROM item_table.tables t WHERE t.table_name OPERATOR(pg_catalog.=) $1",
						 14, types, values, nulls, false) != SPI_OK_INSERT || SPI_processed != 1)
		elog(ERROR, "could not write the exports catalog");
	SPI_finish();
	ItemWorkerRequest();
	PG_RETURN_TEXT_P(cstring_to_text(id));
}

/*
 * import_begin(table_name text, client_token text, request jsonb) returns
 *		text
 *		The row of a new import of the caller's, IN_PROGRESS, counts zero;
 *		the import's id.
 */
Datum
item_table_import_begin(PG_FUNCTION_ARGS)
{
	Oid			types[4] = {TEXTOID, TEXTOID, JSONBOID, OIDOID};
	Datum		values[4];
	char		nulls[4] = {' ', ' ', ' ', ' '};
	char	   *id;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(2))
		elog(ERROR, "import_begin: the table name and the request are required");
	values[0] = PG_GETARG_DATUM(0);
	values[1] = PG_ARGISNULL(1) ? (Datum) 0 : PG_GETARG_DATUM(1);
	nulls[1] = PG_ARGISNULL(1) ? 'n' : ' ';
	values[2] = PG_GETARG_DATUM(2);
	values[3] = ObjectIdGetDatum(GetUserId());
	SPI_connect();
	if (as_catalog_owner("INSERT INTO item_table.imports (import_id, import_arn, table_name, owner, status,"
						 " call_request, client_token, start_time)"
						 " SELECT n.id, item_table.export_table_arn($1) OPERATOR(pg_catalog.||) '/import/'"
						 " OPERATOR(pg_catalog.||) n.id, $1, $4, 'IN_PROGRESS', $3, $2, pg_catalog.clock_timestamp()"
						 " FROM (SELECT item_table.export_new_id() AS id) n RETURNING import_id",
						 4, types, values, nulls, false) != SPI_OK_INSERT_RETURNING || SPI_processed != 1)
		elog(ERROR, "could not write the imports catalog");
	id = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	SPI_finish();
	PG_RETURN_TEXT_P(cstring_to_text(id));
}

/*
 * import_finish(import_id text, failure text, error_file boolean) returns
 *		void
 *		The caller's own import in progress ended: COMPLETED (failure NULL;
 *		its table's id, and the error file's key when bad lines were
 *		counted and error_file says it was written) or FAILED with failure.
 */
Datum
item_table_import_finish(PG_FUNCTION_ARGS)
{
	Oid			types[4] = {TEXTOID, TEXTOID, BOOLOID, OIDOID};
	Datum		values[4];
	char		nulls[4] = {' ', ' ', ' ', ' '};

	if (PG_ARGISNULL(0))
		elog(ERROR, "import_finish: the import is required");
	values[0] = PG_GETARG_DATUM(0);
	values[1] = PG_ARGISNULL(1) ? (Datum) 0 : PG_GETARG_DATUM(1);
	nulls[1] = PG_ARGISNULL(1) ? 'n' : ' ';
	values[2] = BoolGetDatum(!PG_ARGISNULL(2) && PG_GETARG_BOOL(2));
	values[3] = ObjectIdGetDatum(GetUserId());
	SPI_connect();
	if (as_catalog_owner("UPDATE item_table.imports i SET"
						 " status = CASE WHEN $2 IS NULL THEN 'COMPLETED' ELSE 'FAILED' END,"
						 " failure_message = $2,"
						 " end_time = pg_catalog.date_trunc('milliseconds', pg_catalog.clock_timestamp()),"
						 " table_id = CASE WHEN $2 IS NULL THEN (SELECT t.table_id FROM item_table.tables t"
						 "   WHERE t.table_name OPERATOR(pg_catalog.=) i.table_name) END,"
						 " error_file_key = CASE WHEN $2 IS NULL AND $3 AND i.error_count OPERATOR(pg_catalog.>) 0"
						 "   THEN 'AWSDynamoDBImportErrors/' OPERATOR(pg_catalog.||) i.import_id"
						 "   OPERATOR(pg_catalog.||) '/errors.json' END"
						 " WHERE i.import_id OPERATOR(pg_catalog.=) $1 AND i.owner OPERATOR(pg_catalog.=) $4"
						 " AND i.status OPERATOR(pg_catalog.=) 'IN_PROGRESS'",
						 4, types, values, nulls, false) != SPI_OK_UPDATE)
		elog(ERROR, "could not write the imports catalog");
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("no import \"%s\" of the current role in progress",
						text_to_cstring(PG_GETARG_TEXT_PP(0)))));
	SPI_finish();
	PG_RETURN_VOID();
}

/* ----------------------------------------------------------------
 * the export in the worker
 * ----------------------------------------------------------------
 */

/* the export's row moved to FAILED */
static void
export_failed(const char *export_id, const char *code, const char *message)
{
	Oid			types[3] = {TEXTOID, TEXTOID, TEXTOID};
	Datum		values[3] = {CStringGetTextDatum(export_id), CStringGetTextDatum(code),
	CStringGetTextDatum(message)};

	if (SPI_execute_with_args("UPDATE item_table.exports SET status = 'FAILED', failure_code = $2,"
							  " failure_message = $3, manifest_key = NULL,"
							  " end_time = pg_catalog.date_trunc('milliseconds', pg_catalog.clock_timestamp())"
							  " WHERE export_id OPERATOR(pg_catalog.=) $1"
							  " AND status OPERATOR(pg_catalog.=) 'IN_PROGRESS'",
							  3, types, values, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not write the exports catalog");
	ereport(LOG,
			(errmsg("item_table: export %s FAILED: %s", export_id, message)));
}

/* a small file written into the bucket as the current user */
static void
write_text(const char *bucket, const char *key, const char *content)
{
	(void) DirectFunctionCall3(item_table_bucket_write_text, CStringGetTextDatum(bucket),
							   CStringGetTextDatum(key), CStringGetTextDatum(content));
}

typedef struct ExportJob
{
	const char *id;
	Oid			owner;
	Oid			relid;
	bool		full;
	Datum		export_time;	/* full */
	Datum		from_time;		/* incremental */
	Datum		to_time;
	char	   *view;
	char	   *bucket;
	char	   *base;
	int64		file_items;
	Datum		resume_key;		/* 0: from the first key */
	int			files;			/* written so far */
	Datum		keys;			/* text[]: the key attributes */
	bool		ion;			/* ExportFormat ION: *.ion.gz files of Ion text */
} ExportJob;

/* one data file of job; the manifests and COMPLETED after the last */
static bool
export_step(ExportJob *job)
{
	ItemRoleSwitch sw;
	ExportFileResult f;
	char	   *data_key;
	char	   *path;
	bool		last;

	ItemAsRoleBegin(&sw, job->owner, 0);
	if (pg_class_aclcheck(job->relid, job->owner, ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(job->relid)),
				 errdetail("Exporting a table needs SELECT on it.")));
	if (job->files == 0)
		write_text(job->bucket, psprintf("%s/_started", job->base), "");
	/* named by the export and the file's number: a restart writes it again */
	{
		char		hex[33];
		const char *errstr = NULL;
		char	   *seed = psprintf("%s-%d", job->id, job->files + 1);

		if (!pg_md5_hash(seed, strlen(seed), hex, &errstr))
			elog(ERROR, "could not compute MD5: %s", errstr ? errstr : "unknown error");
		/* the file's name is its format (ExportDataFile writes by it) */
		data_key = psprintf("%s/data/%.26s.%s", job->base, hex, job->ion ? "ion.gz" : "json.gz");
	}
	path = ExportBucketFile(job->bucket, data_key, "write");
	ItemAsRoleEnd(&sw);

	ExportDataFile(job->relid, job->full ? (Datum) 0 : job->from_time,
				   job->full ? job->export_time : job->to_time, job->view, job->keys,
				   job->resume_key, job->file_items, EXPORT_FILE_BYTES, path, &f);
	last = !f.more;
	if (f.items == 0 && job->files > 0)
	{
		/* the files before ended exactly at the limit: no empty file */
		if (unlink(path) != 0)
			ereport(ERROR, (errcode_for_file_access(), errmsg("could not remove \"%s\": %m", path)));
	}
	else
	{
		Oid			types[6] = {TEXTOID, INT8OID, INT8OID, TEXTOID, TEXTOID, ItemKeyTypeOid()};
		Datum		values[6] = {CStringGetTextDatum(job->id), Int64GetDatum(f.items), Int64GetDatum(f.size),
		CStringGetTextDatum(f.md5), CStringGetTextDatum(data_key), f.last_key};
		char		nulls[6] = {' ', ' ', ' ', ' ', ' ', f.last_key == (Datum) 0 ? 'n' : ' '};

		if (SPI_execute_with_args("UPDATE item_table.exports SET"
								  " item_count = item_count OPERATOR(pg_catalog.+) $2,"
								  " billed_size_bytes = billed_size_bytes OPERATOR(pg_catalog.+) $3,"
								  " resume_key = $6,"
								  " data_files = data_files OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_array("
								  "  pg_catalog.jsonb_build_object('itemCount', $2,"
								  "  'md5Checksum', pg_catalog.encode(pg_catalog.decode($4, 'hex'), 'base64'),"
								  "  'etag', $4, 'dataFileS3Key', $5))"
								  " WHERE export_id OPERATOR(pg_catalog.=) $1",
								  6, types, values, nulls, false, 0) != SPI_OK_UPDATE || SPI_processed != 1)
			elog(ERROR, "could not write the exports catalog");
	}
	if (last)
	{
		Oid			types[1] = {TEXTOID};
		Datum		values[1] = {CStringGetTextDatum(job->id)};
		bool		isnull;
		char	   *summary;
		char	   *files;

		if (SPI_execute_with_args("UPDATE item_table.exports SET status = 'COMPLETED',"
								  " end_time = pg_catalog.date_trunc('milliseconds', pg_catalog.clock_timestamp()),"
								  " manifest_key = item_table.export_base_key(s3_prefix, export_id)"
								  "  OPERATOR(pg_catalog.||) '/manifest-summary.json'"
								  " WHERE export_id OPERATOR(pg_catalog.=) $1",
								  1, types, values, NULL, false, 0) != SPI_OK_UPDATE ||
			SPI_execute_with_args("SELECT m[1], m[2] FROM item_table.export_manifests($1) m",
								  1, types, values, NULL, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "could not write the exports catalog");
		summary = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		files = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
		ItemAsRoleBegin(&sw, job->owner, 0);
		write_text(job->bucket, psprintf("%s/manifest-files.json", job->base), files);
		write_text(job->bucket, psprintf("%s/manifest-summary.json", job->base), summary);
		ItemAsRoleEnd(&sw);
		ereport(LOG,
				(errmsg("item_table: export %s COMPLETED", job->id)));
	}
	return !last;
}

/*
 * ExportRunBatch
 *		One data file of export export_id in progress (the worker's batch,
 *		in its transaction, SPI connected); true when more files follow.
 */
bool
ExportRunBatch(const char *export_id)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(export_id)};
	ExportJob	job;
	HeapTuple	tup;
	TupleDesc	desc;
	bool		isnull;
	bool		pitr;
	char	   *table_name;
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool more = false;
	ErrorData  *err = NULL;

	if (SPI_execute_with_args("SELECT e.owner, e.export_type OPERATOR(pg_catalog.=) 'FULL_EXPORT', e.export_time,"
							  " e.from_time, e.to_time, e.view_type, e.s3_bucket,"
							  " item_table.export_base_key(e.s3_prefix, e.export_id), e.file_items, e.resume_key,"
							  " pg_catalog.jsonb_array_length(e.data_files), t.relid, e.table_name,"
							  " ARRAY[t.hash_key] OPERATOR(pg_catalog.||) CASE WHEN t.range_key IS NOT NULL"
							  "  THEN ARRAY[t.range_key] ELSE '{}'::pg_catalog.text[] END,"
							  " c.table_id IS NOT NULL AND pg_catalog.date_trunc('milliseconds', c.enabled_at)"
							  "  OPERATOR(pg_catalog.<=) COALESCE(e.export_time, e.from_time),"
							  " e.export_format OPERATOR(pg_catalog.=) 'ION'"
							  " FROM item_table.exports e"
							  " LEFT JOIN item_table.tables t ON t.table_id OPERATOR(pg_catalog.=) e.table_id"
							  " LEFT JOIN item_table.continuous_backups c ON c.table_id OPERATOR(pg_catalog.=) e.table_id"
							  " WHERE e.export_id OPERATOR(pg_catalog.=) $1 AND e.status OPERATOR(pg_catalog.=) 'IN_PROGRESS'"
							  " FOR UPDATE OF e SKIP LOCKED",
							  1, types, values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the exports catalog");
	if (SPI_processed != 1)
		return false;
	tup = SPI_copytuple(SPI_tuptable->vals[0]);
	desc = CreateTupleDescCopy(SPI_tuptable->tupdesc);
	memset(&job, 0, sizeof(job));
	job.id = export_id;
	job.owner = DatumGetObjectId(heap_getattr(tup, 1, desc, &isnull));
	job.full = DatumGetBool(heap_getattr(tup, 2, desc, &isnull));
	job.export_time = heap_getattr(tup, 3, desc, &isnull);
	job.from_time = heap_getattr(tup, 4, desc, &isnull);
	job.to_time = heap_getattr(tup, 5, desc, &isnull);
	job.view = SPI_getvalue(tup, desc, 6);
	job.bucket = SPI_getvalue(tup, desc, 7);
	job.base = SPI_getvalue(tup, desc, 8);
	job.file_items = DatumGetInt32(heap_getattr(tup, 9, desc, &isnull));
	job.resume_key = heap_getattr(tup, 10, desc, &isnull);
	if (isnull)
		job.resume_key = (Datum) 0;
	job.files = DatumGetInt32(heap_getattr(tup, 11, desc, &isnull));
	job.relid = DatumGetObjectId(heap_getattr(tup, 12, desc, &isnull));
	if (isnull)
		job.relid = InvalidOid;
	table_name = SPI_getvalue(tup, desc, 13);
	job.keys = heap_getattr(tup, 14, desc, &isnull);
	pitr = DatumGetBool(heap_getattr(tup, 15, desc, &isnull));
	job.ion = DatumGetBool(heap_getattr(tup, 16, desc, &isnull));

	if (!OidIsValid(job.relid))
	{
		export_failed(export_id, "TableNotFoundException",
					  psprintf("Table %s was deleted while it was being exported", table_name));
		return false;
	}
	if (!pitr)
	{
		export_failed(export_id, "PointInTimeRecoveryUnavailableException",
					  psprintf("Point in time recovery was disabled for table '%s' while it was being exported",
							   table_name));
		return false;
	}

	/* the file in a subtransaction: its failure is the export's FAILED */
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		more = export_step(&job);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		err = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_END_TRY();
	if (err != NULL)
	{
		/* a cancel (a shutdown, the operator) is not the export's failure */
		if (err->sqlerrcode == ERRCODE_QUERY_CANCELED || err->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN)
			ReThrowError(err);
		export_failed(export_id,
					  err->sqlerrcode == ERRCODE_INSUFFICIENT_PRIVILEGE ? "AccessDenied" : "UNKNOWN",
					  err->message ? err->message : "error");
		return false;
	}
	return more;
}
