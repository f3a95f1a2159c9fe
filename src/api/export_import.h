/*-------------------------------------------------------------------------
 *
 * export_import.h
 *		The file steps of exports and imports (export_import.c) and the
 *		jobs around them (export_jobs.c): the catalog rows of exports and
 *		imports, and the export the background worker runs a data file at
 *		a time.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_EXPORT_IMPORT_H
#define ITEM_TABLE_EXPORT_IMPORT_H

#include "fmgr.h"

/* what one data file of an export holds (ExportDataFile) */
typedef struct ExportFileResult
{
	int64		items;			/* lines */
	int64		size;			/* the lines' bytes (uncompressed) */
	int64		bytes;			/* the file's size */
	char	   *md5;			/* the file's MD5, hex */
	Datum		last_key;		/* the item_key of the last line (0: none) */
	bool		more;			/* a limit ended the file: lines may follow */
} ExportFileResult;

extern void ExportDataFile(Oid source, Datum from_time, Datum to_time, const char *view,
						   Datum key_attrs, Datum after_key, int64 max_items, int64 max_bytes,
						   const char *path, ExportFileResult *f);
extern char *ExportBucketFile(const char *bucket, const char *key, const char *mode);
extern Datum item_table_bucket_write_text(PG_FUNCTION_ARGS);

/* one step of an export in progress, in the worker's transaction */
extern bool ExportRunBatch(const char *export_id);

#endif							/* ITEM_TABLE_EXPORT_IMPORT_H */
