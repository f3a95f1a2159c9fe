/*-------------------------------------------------------------------------
 *
 * export_import.c
 *		The file steps of ExportTableToPointInTime and ImportTable: a data
 *		file of an export written into a bucket (gzip, DynamoDB JSON or Ion
 *		text, by the file's name: *.ion.gz is Ion, ion.c), the
 *		small text files of an export or an import (manifests, the error
 *		file), the files under a bucket prefix listed, and one data file of
 *		an import read (GZIP, ZSTD or NONE; DynamoDB JSON, CSV or ION, whose
 *		top-level values ion.c finds and reads) and
 *		loaded into a table.
 *
 * The calls themselves are PL/pgSQL (src/sql/export.sql): they check the
 * request with DynamoDB's rules, keep the catalog rows (item_table.exports,
 * item_table.imports) and shape the answers.  The functions here run as
 * the caller and resolve every file name through bucket_path() (bucket.c),
 * which checks the caller's right on the bucket (write for an export, read
 * for an import) and that the path stays inside it; files are opened with
 * O_NOFOLLOW.
 *
 * Export.  export_data_file() needs SELECT on the table (checked here).
 * A full export as of now reads the table in the statement's snapshot as
 * the caller: a consistent copy, writers not blocked.  An export as of an
 * earlier time, and an incremental export, also read the table's
 * point-in-time history (item_table.pitr_history, readable by the
 * extension's owner only), so after the SELECT check they read as the
 * catalog owner: the table as of T is its rows now, except that every key
 * changed after T has the old image of its first change after T (backup.c
 * explains the history).  An incremental export over (from, to] gives, for
 * every key changed in the window, its image at `from` (OldImage) and at
 * `to` (NewImage).  The rows are read through a cursor a batch at a time
 * (memory bounded per batch), each written as one line of the gzip file;
 * the answer has the line count and the MD5 of the compressed file.
 *
 * Import.  import_load_file() reads one file a line at a time and writes
 * each item with PutItem's own code (item_table_put_item: its validation,
 * its key and size rules), as the caller, who owns the new table.  The
 * table's indexes are bulk loaded (gsi.c): each item's index entries are
 * computed and checked as PutItem would (a wrong-typed index key is a bad
 * line), but no index row is written until import_build_indexes(), after
 * the last file, makes them all in one pass over the items and REINDEXes
 * each index table -- a sorted build, not a btree insertion per row.  The lines go in groups of IMPORT_GROUP, each in a
 * subtransaction; a group that fails is written again one line at a time,
 * each in its own subtransaction, so that a bad line is counted, described
 * and skipped and never aborts the import.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "common/cryptohash.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "api.h"
#include "attr_value.h"
#include "catalog.h"
#include "export_import.h"
#include "gsi.h"
#include "ion.h"
#include "table_def.h"

PG_FUNCTION_INFO_V1(item_table_bucket_write_text);
PG_FUNCTION_INFO_V1(item_table_bucket_files);
PG_FUNCTION_INFO_V1(item_table_import_load_file);
PG_FUNCTION_INFO_V1(item_table_import_build_indexes);

#define EXPORT_BATCH	1000
#define IMPORT_GROUP	500
#define IMPORT_MESSAGES 100

/* the file name of key in bucket, checked for mode ('read' or 'write') */
static char *
resolve(text *bucket, text *key, const char *mode)
{
	Datum		d = DirectFunctionCall3(item_table_bucket_path, PointerGetDatum(bucket),
										PointerGetDatum(key), CStringGetTextDatum(mode));

	return TextDatumGetCString(d);
}

/* the directories above a file made (those that exist stay as they are) */
static void
make_parents(const char *path)
{
	char	   *copy = pstrdup(path);
	char	   *p;

	for (p = copy + 1; *p; p++)
	{
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, S_IRWXU) != 0 && errno != EEXIST)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not create directory \"%s\": %m", copy)));
		*p = '/';
	}
	pfree(copy);
}

/* a new file for writing: not a link, replaced if it exists */
static int
open_for_write(const char *path)
{
	int			fd;

	make_parents(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | PG_BINARY, S_IRUSR | S_IWUSR);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open \"%s\" for writing: %m", path)));
	return fd;
}

/* the MD5 of a file, as hex */
static char *
file_md5(const char *path)
{
	pg_cryptohash_ctx *ctx = pg_cryptohash_create(PG_MD5);
	uint8		digest[16];
	char	   *hex = palloc(33);
	char	   *buf = palloc(65536);
	int			fd = open(path, O_RDONLY | O_NOFOLLOW | PG_BINARY);
	ssize_t		n;
	int			i;

	if (fd < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not open \"%s\": %m", path)));
	if (ctx == NULL || pg_cryptohash_init(ctx) < 0)
		elog(ERROR, "could not start an MD5 digest");
	while ((n = read(fd, buf, 65536)) > 0)
	{
		CHECK_FOR_INTERRUPTS();
		if (pg_cryptohash_update(ctx, (uint8 *) buf, n) < 0)
			elog(ERROR, "could not compute an MD5 digest");
	}
	close(fd);
	if (n < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not read \"%s\": %m", path)));
	if (pg_cryptohash_final(ctx, digest, sizeof(digest)) < 0)
		elog(ERROR, "could not finish an MD5 digest");
	pg_cryptohash_free(ctx);
	for (i = 0; i < 16; i++)
		sprintf(hex + 2 * i, "%02x", digest[i]);
	return hex;
}

/*
 * The rows of sql (the line's JSON, then the item's key) written as lines
 * of gz, a batch at a time, until the rows end or the lines reach
 * max_bytes (then *more); *last_key is the key of the last line written.
 */
static void
export_rows(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls, gzFile gz,
			const char *path, bool ion, MemoryContext batchcxt, int64 *count, int64 *size,
			int64 max_bytes, Datum *last_key, bool *more)
{
	Portal		portal = SPI_cursor_open_with_args(NULL, sql, nargs, types, values, nulls, true, 0);
	StringInfoData line;

	initStringInfo(&line);
	while (!*more)
	{
		uint64		i;

		CHECK_FOR_INTERRUPTS();
		SPI_cursor_fetch(portal, true, EXPORT_BATCH);
		if (SPI_processed == 0)
			break;
		for (i = 0; i < SPI_processed && !*more; i++)
		{
			bool		isnull;
			Datum		j = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
			Datum		k = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull);
			MemoryContext old = MemoryContextSwitchTo(batchcxt);

			resetStringInfo(&line);
			if (ion)
				IonWriteLine(&line, DatumGetJsonbP(j));
			else
			{
				text	   *decoded = DatumGetTextPP(DirectFunctionCall1(item_table_decode_item, j));

				appendBinaryStringInfo(&line, VARDATA_ANY(decoded), VARSIZE_ANY_EXHDR(decoded));
			}
			appendStringInfoChar(&line, '\n');
			if (gzwrite(gz, line.data, line.len) != line.len)
				ereport(ERROR, (errcode_for_file_access(), errmsg("could not write \"%s\"", path)));
			*size += line.len;
			(*count)++;
			MemoryContextSwitchTo(old);
			MemoryContextReset(batchcxt);
			/* the key outlives the SPI tuple table (the caller's context) */
			*last_key = PointerGetDatum(SPI_palloc(VARSIZE_ANY(DatumGetPointer(k))));
			memcpy(DatumGetPointer(*last_key), DatumGetPointer(k), VARSIZE_ANY(DatumGetPointer(k)));
			if (*size >= max_bytes)
				*more = true;
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
}

/*
 * ExportDataFile
 *		One gzip data file of an export written at path: from_time NULL
 *		(0), a full export of the table as of to_time; otherwise the
 *		changes of (from_time, to_time] (view NEW_IMAGE or
 *		NEW_AND_OLD_IMAGES), keyed by key_attrs.  The lines are those of
 *		the keys after after_key (NULL: from the first), in key order, at
 *		most max_items of them and until their bytes reach max_bytes.  The
 *		caller has checked the rights (the table is read as the catalog
 *		owner: the point-in-time history is the extension's).  The answer
 *		in *f: the line count, the lines' bytes, the file's size and MD5,
 *		the last key written and whether the byte limit ended the file.
 */
void
ExportDataFile(Oid source, Datum from_time, Datum to_time, const char *view,
			   Datum key_attrs, Datum after_key, int64 max_items, int64 max_bytes,
			   const char *path, ExportFileResult *f)
{
	bool		full = from_time == (Datum) 0;
	char	   *sql;
	const char *table = ItemQualifiedName(source);
	ItemRoleSwitch sw;
	Oid			types[6] = {OIDOID, TIMESTAMPTZOID, TIMESTAMPTZOID, TEXTARRAYOID, ItemKeyTypeOid(), INT8OID};
	Datum		values[6];
	char		nulls[6] = {' ', ' ', ' ', ' ', ' ', ' '};
	int			fd;
	gzFile		gz;
	struct stat st;
	MemoryContext batchcxt;
	bool		ion;

	memset(f, 0, sizeof(*f));
	/* the format is the data file's: *.ion.gz lines are Ion text (ion.c) */
	ion = strlen(path) > 7 && strcmp(path + strlen(path) - 7, ".ion.gz") == 0;
	values[0] = ObjectIdGetDatum(source);
	values[1] = from_time;
	values[2] = to_time;
	values[3] = key_attrs;
	values[4] = after_key;
	values[5] = Int64GetDatum(max_items);
	nulls[1] = full ? 'n' : ' ';
	nulls[3] = key_attrs == (Datum) 0 ? 'n' : ' ';
	nulls[4] = after_key == (Datum) 0 ? 'n' : ' ';
	if (full)
		sql = psprintf("WITH changed AS MATERIALIZED ("
					   "  SELECT DISTINCT ON (h.key) h.key, h.old_item FROM item_table.pitr_history h"
					   "  WHERE h.relid OPERATOR(pg_catalog.=) $1 AND h.changed_at OPERATOR(pg_catalog.>) $3"
					   "  ORDER BY h.key, h.changed_at)"
					   " SELECT u.j, u.key FROM ("
					   "  (SELECT pg_catalog.jsonb_build_object('Item', s.item) AS j, s.key FROM %s s"
					   "  WHERE NOT EXISTS (SELECT FROM changed c WHERE c.key OPERATOR(item_table.=) s.key)"
					   "  AND ($5 IS NULL OR s.key OPERATOR(item_table.>) $5)"
					   "  AND ($2 IS NULL OR $4 IS NULL OR true) ORDER BY s.key LIMIT $6)"
					   "  UNION ALL (SELECT pg_catalog.jsonb_build_object('Item', c.old_item), c.key"
					   "  FROM changed c WHERE c.old_item IS NOT NULL"
					   "  AND ($5 IS NULL OR c.key OPERATOR(item_table.>) $5) ORDER BY c.key LIMIT $6)) u"
					   " ORDER BY u.key LIMIT $6", table);
	else
	{
		bool		new_only = view != NULL && strcmp(view, "NEW_IMAGE") == 0;

		sql = psprintf("WITH w AS MATERIALIZED (SELECT h.key, h.changed_at, h.old_item"
					   "  FROM item_table.pitr_history h"
					   "  WHERE h.relid OPERATOR(pg_catalog.=) $1 AND h.changed_at OPERATOR(pg_catalog.>) $2),"
					   " at_from AS (SELECT DISTINCT ON (w.key) w.key, w.old_item FROM w ORDER BY w.key, w.changed_at),"
					   " last_in AS (SELECT DISTINCT ON (w.key) w.key, w.changed_at FROM w"
					   "  WHERE w.changed_at OPERATOR(pg_catalog.<=) $3"
					   "  AND ($5 IS NULL OR w.key OPERATOR(item_table.>) $5) ORDER BY w.key, w.changed_at DESC),"
					   " after_to AS (SELECT DISTINCT ON (w.key) w.key, w.old_item FROM w"
					   "  WHERE w.changed_at OPERATOR(pg_catalog.>) $3 ORDER BY w.key, w.changed_at),"
					   " images AS (SELECT k.key, k.changed_at, f.old_item AS old_image,"
					   "   CASE WHEN a.key IS NOT NULL THEN a.old_item ELSE s.item END AS new_image"
					   "  FROM last_in k JOIN at_from f ON f.key OPERATOR(item_table.=) k.key"
					   "  LEFT JOIN after_to a ON a.key OPERATOR(item_table.=) k.key"
					   "  LEFT JOIN %s s ON s.key OPERATOR(item_table.=) k.key)"
					   " SELECT pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object("
					   "  'Metadata', pg_catalog.jsonb_build_object('WriteTimestampMicros', pg_catalog.jsonb_build_object('N',"
					   "    pg_catalog.floor(pg_catalog.date_part('epoch', i.changed_at) OPERATOR(pg_catalog.*) 1000000)::pg_catalog.int8::pg_catalog.text)),"
					   "  'Keys', (SELECT pg_catalog.jsonb_object_agg(a, COALESCE(i.new_image OPERATOR(pg_catalog.->) a,"
					   "    i.old_image OPERATOR(pg_catalog.->) a)) FROM pg_catalog.unnest($4) a),"
					   "  'NewImage', i.new_image, 'OldImage', %s)), i.key"
					   " FROM images i"
					   " WHERE i.old_image IS NOT NULL OR i.new_image IS NOT NULL"
					   " ORDER BY i.key LIMIT $6",
					   table, new_only ? "NULL::pg_catalog.jsonb" : "i.old_image");
	}

	fd = open_for_write(path);
	gz = gzdopen(fd, "wb6");
	if (gz == NULL)
	{
		close(fd);
		ereport(ERROR, (errmsg("could not start gzip output to \"%s\"", path)));
	}
	batchcxt = AllocSetContextCreate(CurrentMemoryContext, "item_table export batch",
									 ALLOCSET_DEFAULT_SIZES);
	SPI_connect();
	ItemAsCatalogOwnerBegin(&sw);
	if (full)
	{
		/*
		 * the table in key order from its primary key, the keys changed
		 * since T left out by a merge anti join: the lines stream, each
		 * file reads only its own rows (a hash join would sort the rest
		 * of the table for every file); undone at ItemAsRoleEnd
		 */
		(void) set_config_option("enable_hashjoin", "off", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
		(void) set_config_option("enable_nestloop", "off", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
	}
	PG_TRY();
	{
		export_rows(sql, 6, types, values, nulls, gz, path, ion, batchcxt, &f->items, &f->size,
					max_bytes, &f->last_key, &f->more);
	}
	PG_CATCH();
	{
		gzclose(gz);
		PG_RE_THROW();
	}
	PG_END_TRY();
	ItemAsRoleEnd(&sw);
	SPI_finish();
	MemoryContextDelete(batchcxt);
	if (f->items >= max_items)
		f->more = true;
	if (gzclose(gz) != Z_OK)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not finish \"%s\"", path)));
	if (stat(path, &st) != 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not stat \"%s\": %m", path)));
	f->bytes = (int64) st.st_size;
	f->md5 = file_md5(path);
}

/* the file name of a key of a bucket, checked for mode ('read' or 'write') as the current user */
char *
ExportBucketFile(const char *bucket, const char *key, const char *mode)
{
	return resolve(cstring_to_text(bucket), cstring_to_text(key), mode);
}

/*
 * bucket_write_text(bucket text, key text, content text) returns void
 *		A small file (a manifest, an error file) written into a bucket.
 */
Datum
item_table_bucket_write_text(PG_FUNCTION_ARGS)
{
	char	   *path = resolve(PG_GETARG_TEXT_PP(0), PG_GETARG_TEXT_PP(1), "write");
	text	   *content = PG_GETARG_TEXT_PP(2);
	int			fd = open_for_write(path);
	const char *p = VARDATA_ANY(content);
	size_t		left = VARSIZE_ANY_EXHDR(content);

	while (left > 0)
	{
		ssize_t		n = write(fd, p, left);

		if (n <= 0)
		{
			int			save = errno;

			close(fd);
			errno = save;
			ereport(ERROR, (errcode_for_file_access(), errmsg("could not write \"%s\": %m", path)));
		}
		p += n;
		left -= n;
	}
	if (close(fd) != 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not close \"%s\": %m", path)));
	PG_RETURN_VOID();
}

/* the regular files below dir (relative names under base), sorted walk */
static void
list_files(const char *dir, const char *rel, const char *name_prefix, Tuplestorestate *ts,
		   TupleDesc desc, int depth)
{
	struct dirent **entries;
	int			n;
	int			i;

	if (depth > 32)
		return;
	n = scandir(dir, &entries, NULL, alphasort);
	if (n < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not read directory \"%s\": %m", dir)));
	for (i = 0; i < n; i++)
	{
		const char *name = entries[i]->d_name;
		char	   *full;
		char	   *relname;
		struct stat st;

		CHECK_FOR_INTERRUPTS();
		if (name[0] == '.' || (name_prefix && strncmp(name, name_prefix, strlen(name_prefix)) != 0))
			continue;
		full = psprintf("%s/%s", dir, name);
		relname = rel[0] ? psprintf("%s/%s", rel, name) : pstrdup(name);
		/* links are not followed: a bucket's files are its own */
		if (lstat(full, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			list_files(full, relname, NULL, ts, desc, depth + 1);
		else if (S_ISREG(st.st_mode))
		{
			Datum		v = CStringGetTextDatum(relname);
			bool		isnull = false;

			tuplestore_putvalues(ts, desc, &v, &isnull);
		}
	}
	for (i = 0; i < n; i++)
		free(entries[i]);
	free(entries);
}

/*
 * bucket_files(bucket text, prefix text) returns setof text
 *		The files under a key prefix of a bucket (every file of a directory
 *		the prefix names, or the files whose path begins with it), as keys
 *		relative to the bucket, in name order; the caller must be able to
 *		read the bucket.
 */
Datum
item_table_bucket_files(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *prefix = text_to_cstring(PG_GETARG_TEXT_PP(1));
	char	   *path;
	char	   *dir;
	char	   *base;
	char	   *keydir;
	char	   *slash;
	struct stat st;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	/* the directory part must exist inside the bucket */
	slash = strrchr(prefix, '/');
	if (prefix[0] == '\0' || prefix[strlen(prefix) - 1] == '/')
	{
		keydir = prefix[0] ? pnstrdup(prefix, strlen(prefix) - 1) : pstrdup(".");
		base = NULL;
	}
	else
	{
		keydir = slash ? pnstrdup(prefix, slash - prefix) : pstrdup(".");
		base = slash ? slash + 1 : prefix;
	}
	path = resolve(PG_GETARG_TEXT_PP(0), cstring_to_text(keydir), "read");
	if (base != NULL)
	{
		/* a prefix that is a directory's name: that directory's files */
		char	   *whole = psprintf("%s/%s", path, base);

		if (lstat(whole, &st) == 0 && S_ISDIR(st.st_mode))
		{
			dir = whole;
			keydir = strcmp(keydir, ".") == 0 ? pstrdup(base) : psprintf("%s/%s", keydir, base);
			base = NULL;
		}
		else
			dir = path;
	}
	else
		dir = path;
	list_files(dir, strcmp(keydir, ".") == 0 ? "" : keydir, base, rsinfo->setResult,
			   rsinfo->setDesc, 0);
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 * import: reading a file a line at a time
 * ----------------------------------------------------------------
 */
typedef struct LineReader
{
	const char *path;
	int			compression;	/* 0 none, 1 gzip, 2 zstd */
	FILE	   *plain;
	z_stream	gzs;			/* gzip: inflate over zin */
	bool		gz_started;		/* inflateInit2 done */
	ZSTD_DStream *zs;
	char	   *zin;
	size_t		zin_size;
	ZSTD_inBuffer in;
	char	   *zout;
	size_t		zout_len;
	size_t		zout_pos;
	bool		eof;
	bool		unfinished;		/* a gzip member or zstd frame begun, not ended */
	int64		bytes;			/* uncompressed bytes read */
} LineReader;

static void
reader_open(LineReader *r, const char *path, const char *compression)
{
	int			fd = open(path, O_RDONLY | O_NOFOLLOW | PG_BINARY);

	memset(r, 0, sizeof(*r));
	r->path = path;
	if (fd < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not open \"%s\": %m", path)));
	if (strcmp(compression, "GZIP") == 0)
	{
		/*
		 * inflate itself, not gzread: a file cut short must fail the import,
		 * and what gzread says at such an end differs between zlib builds
		 */
		r->compression = 1;
		r->plain = fdopen(fd, "rb");
		if (inflateInit2(&r->gzs, 15 + 16) != Z_OK)
			elog(ERROR, "could not start gzip decompression");
		r->gz_started = true;
		r->zin_size = 65536;
		r->zin = palloc(r->zin_size);
		r->zout = palloc(65536);
	}
	else if (strcmp(compression, "ZSTD") == 0)
	{
		r->compression = 2;
		r->plain = fdopen(fd, "rb");
		r->zs = ZSTD_createDStream();
		if (r->zs == NULL)
			elog(ERROR, "could not start zstd decompression");
		ZSTD_initDStream(r->zs);
		r->zin_size = ZSTD_DStreamInSize();
		r->zin = palloc(r->zin_size);
		r->zout = palloc(ZSTD_DStreamOutSize());
		r->in.src = r->zin;
	}
	else
		r->plain = fdopen(fd, "rb");
	if (r->plain == NULL)
	{
		close(fd);
		elog(ERROR, "could not open \"%s\"", path);
	}
}

static void
reader_close(LineReader *r)
{
	if (r->gz_started)
		inflateEnd(&r->gzs);
	if (r->plain)
		fclose(r->plain);
	if (r->zs)
		ZSTD_freeDStream(r->zs);
	r->gz_started = false;
	r->plain = NULL;
	r->zs = NULL;
}

/* more compressed input into zin; false at the file's end */
static bool
reader_fill(LineReader *r)
{
	size_t		n = fread(r->zin, 1, r->zin_size, r->plain);

	if (n == 0 && ferror(r->plain))
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not read \"%s\": %m", r->path)));
	if (n == 0)
	{
		r->eof = true;
		return false;
	}
	if (r->compression == 1)
	{
		r->gzs.next_in = (Bytef *) r->zin;
		r->gzs.avail_in = (uInt) n;
	}
	else
	{
		r->in.size = n;
		r->in.pos = 0;
	}
	return true;
}

/* the input is over: a member or frame left unfinished means a cut file */
static void
reader_check_end(LineReader *r)
{
	if (r->unfinished)
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
						errmsg("\"%s\" is not a complete %s file", r->path,
							   r->compression == 1 ? "gzip" : "zstd")));
}

/*
 * The next output of gzip members, one after another (a file may hold
 * several, as gzip makes them): false at the end of the file.
 */
static bool
reader_inflate(LineReader *r)
{
	for (;;)
	{
		int			rc;

		if (r->gzs.avail_in == 0 && !r->eof)
			(void) reader_fill(r);
		if (r->gzs.avail_in == 0 && r->eof && !r->unfinished)
			return false;
		if (!r->unfinished)
		{
			/* a new member begins here */
			if (inflateReset(&r->gzs) != Z_OK)
				elog(ERROR, "could not restart gzip decompression");
			r->unfinished = true;
		}
		r->gzs.next_out = (Bytef *) r->zout;
		r->gzs.avail_out = 65536;
		rc = inflate(&r->gzs, Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
			r->unfinished = false;
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
							errmsg("\"%s\" is not a valid gzip file: %s", r->path,
								   r->gzs.msg ? r->gzs.msg : "corrupt data")));
		r->zout_len = 65536 - r->gzs.avail_out;
		r->zout_pos = 0;
		if (r->zout_len > 0)
			return true;
		if (r->gzs.avail_in == 0 && r->eof)
		{
			reader_check_end(r);
			return false;
		}
	}
}

/* the next byte of the decompressed stream, or -1 at its end */
static int
reader_byte(LineReader *r)
{
	if (r->compression == 0)
		return getc(r->plain);
	if (r->compression == 1)
	{
		if (r->zout_pos >= r->zout_len && !reader_inflate(r))
			return -1;
		return (unsigned char) r->zout[r->zout_pos++];
	}
	while (r->zout_pos >= r->zout_len)
	{
		ZSTD_outBuffer out = {r->zout, ZSTD_DStreamOutSize(), 0};
		size_t		rc;

		if (r->in.pos >= r->in.size && !r->eof)
			(void) reader_fill(r);
		if (r->in.pos >= r->in.size && r->eof && !r->unfinished)
			return -1;
		rc = ZSTD_decompressStream(r->zs, &out, &r->in);
		if (ZSTD_isError(rc))
			ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
							errmsg("\"%s\" is not a valid zstd file: %s", r->path, ZSTD_getErrorName(rc))));
		/* 0: a frame ended here, and all its output is out */
		r->unfinished = rc != 0;
		r->zout_len = out.pos;
		r->zout_pos = 0;
		if (out.pos == 0 && r->in.pos >= r->in.size && r->eof)
		{
			reader_check_end(r);
			return -1;
		}
	}
	return (unsigned char) r->zout[r->zout_pos++];
}

/* the next line (without its end) into buf; false at the end */
static bool
reader_line(LineReader *r, StringInfo buf)
{
	int			c;
	bool		any = false;

	resetStringInfo(buf);
	while ((c = reader_byte(r)) >= 0)
	{
		any = true;
		if (c == '\n')
			break;
		appendStringInfoChar(buf, (char) c);
	}
	r->bytes += buf->len + (c == '\n' ? 1 : 0);
	if (buf->len > 0 && buf->data[buf->len - 1] == '\r')
		buf->data[--buf->len] = '\0';
	return any;
}

/* ----------------------------------------------------------------
 * import: a line to an item, and the load
 * ----------------------------------------------------------------
 */
typedef struct ImportSpec
{
	text	   *table;
	bool		csv;
	bool		ion;			/* ION: a "line" is one top-level Ion value */
	char		delimiter;
	int			ncols;
	char	  **columns;		/* CSV: the header */
	Jsonb	   *key_types;		/* CSV: {attribute: "S"|"N"|"B"} of the key attributes */
} ImportSpec;

/* one CSV record's fields (quotes as RFC 4180; a quoted field may hold line ends) */
static int
csv_fields(const char *line, char delim, char ***out)
{
	int			cap = 16;
	int			n = 0;
	char	  **f = palloc(sizeof(char *) * cap);
	const char *p = line;

	for (;;)
	{
		StringInfoData s;

		initStringInfo(&s);
		if (*p == '"')
		{
			p++;
			for (;;)
			{
				if (*p == '\0')
					ereport(ERROR, (errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
									errmsg("unterminated quoted field")));
				if (*p == '"' && p[1] == '"')
				{
					appendStringInfoChar(&s, '"');
					p += 2;
				}
				else if (*p == '"')
				{
					p++;
					break;
				}
				else
					appendStringInfoChar(&s, *p++);
			}
			if (*p != '\0' && *p != delim)
				ereport(ERROR, (errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
								errmsg("unexpected character after a quoted field")));
		}
		else
			while (*p != '\0' && *p != delim)
				appendStringInfoChar(&s, *p++);
		if (n == cap)
		{
			cap *= 2;
			f = repalloc(f, sizeof(char *) * cap);
		}
		f[n++] = s.data;
		if (*p == '\0')
			break;
		p++;
	}
	*out = f;
	return n;
}

/*
 * Whether a CSV record ends inside a quoted field (so the line's end is
 * part of the field, and the record goes on on the next line).  It follows
 * csv_fields(): a quote opens a quoted field only at the field's start, and
 * "" inside one is a quote.
 */
static bool
csv_open_quote(const char *p, char delim)
{
	bool		field_start = true;
	bool		quoted = false;

	for (; *p != '\0'; p++)
	{
		if (quoted)
		{
			if (*p == '"' && p[1] == '"')
				p++;
			else if (*p == '"')
				quoted = false;
		}
		else if (field_start && *p == '"')
			quoted = true;
		else if (*p == delim)
		{
			field_start = true;
			continue;
		}
		field_start = false;
	}
	return quoted;
}

/* the item of a line, as JSON text in DynamoDB's form */
static char *
line_item_json(ImportSpec *spec, const char *line)
{
	StringInfoData s;
	char	  **f;
	int			n;
	int			i;
	bool		first = true;

	if (spec->ion)
		return IonToItemJson(line, strlen(line));
	if (!spec->csv)
		return (char *) line;
	n = csv_fields(line, spec->delimiter, &f);
	if (n != spec->ncols)
		ereport(ERROR, (errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
						errmsg("the line has %d fields, the header %d", n, spec->ncols)));
	initStringInfo(&s);
	appendStringInfoString(&s, "{\"Item\":{");
	for (i = 0; i < n; i++)
	{
		JsonbValue	k;
		JsonbValue *t = NULL;
		const char *type = "S";

		k.type = jbvString;
		k.val.string.val = spec->columns[i];
		k.val.string.len = strlen(spec->columns[i]);
		if (spec->key_types)
			t = findJsonbValueFromContainer(&spec->key_types->root, JB_FOBJECT, &k);
		if (t && t->type == jbvString)
			type = pnstrdup(t->val.string.val, t->val.string.len);
		/* an empty non-key value: no attribute */
		if (t == NULL && f[i][0] == '\0')
			continue;
		if (!first)
			appendStringInfoChar(&s, ',');
		first = false;
		escape_json(&s, spec->columns[i]);
		appendStringInfo(&s, ":{\"%s\":", type);
		escape_json(&s, f[i]);
		appendStringInfoChar(&s, '}');
	}
	appendStringInfoString(&s, "}}");
	return s.data;
}

/* one line written: PutItem of its item; ERROR when it is not one */
static void
load_line(ImportSpec *spec, const char *line)
{
	char	   *json = line_item_json(spec, line);
	Datum		j;
	Jsonb	   *doc;
	JsonbValue	k;
	JsonbValue *item;
	JsonbParseState *st = NULL;
	JsonbValue	v;
	JsonbValue *res;
	LOCAL_FCINFO(fc, 1);

	/* json_in checks the syntax; encode_item gives the stored form */
	j = DirectFunctionCall1(json_in, CStringGetDatum(json));
	doc = DatumGetJsonbP(DirectFunctionCall1(item_table_encode_item, j));
	k.type = jbvString;
	k.val.string.val = "Item";
	k.val.string.len = 4;
	item = JB_ROOT_IS_OBJECT(doc) ?
		findJsonbValueFromContainer(&doc->root, JB_FOBJECT, &k) : NULL;
	if (item == NULL || item->type != jbvBinary || !JsonContainerIsObject(item->val.binary.data))
		ereport(ERROR, (errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
						errmsg("the line is not an object with an Item map")));
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	v.type = jbvString;
	v.val.string.val = "TableName";
	v.val.string.len = 9;
	pushJsonbValue(&st, WJB_KEY, &v);
	v.val.string.val = VARDATA_ANY(spec->table);
	v.val.string.len = VARSIZE_ANY_EXHDR(spec->table);
	pushJsonbValue(&st, WJB_VALUE, &v);
	pushJsonbValue(&st, WJB_KEY, &k);
	pushJsonbValue(&st, WJB_VALUE, item);
	res = pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	InitFunctionCallInfoData(*fc, NULL, 1, InvalidOid, NULL, NULL);
	fc->args[0].value = JsonbPGetDatum(JsonbValueToJsonb(res));
	fc->args[0].isnull = false;
	(void) item_table_put_item(fc);
}

typedef struct LoadState
{
	int64		loaded;
	int64		errors;
	int			nmessages;
	StringInfoData messages;	/* JSON array members */
} LoadState;

/* a group of lines in a subtransaction; false (and nothing written) on an error */
static bool
load_group(ImportSpec *spec, char **lines, int n, ErrorData **err)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool ok = true;
	MemoryContext linecxt = AllocSetContextCreate(cxt, "item_table import line", ALLOCSET_DEFAULT_SIZES);

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(linecxt);
	PG_TRY();
	{
		int			i;

		for (i = 0; i < n; i++)
		{
			CHECK_FOR_INTERRUPTS();
			if (lines[i] != NULL)
				load_line(spec, lines[i]);
			MemoryContextReset(linecxt);
		}
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		if (err)
			*err = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		ok = false;
	}
	PG_END_TRY();
	MemoryContextDelete(linecxt);
	return ok;
}

static void
flush_group(ImportSpec *spec, LoadState *ls, const char *file, char **lines, int64 *numbers, int n)
{
	int			i;
	int			present = 0;

	for (i = 0; i < n; i++)
		present += lines[i] != NULL;
	if (present == 0)
		return;
	if (load_group(spec, lines, n, NULL))
	{
		ls->loaded += present;
		return;
	}
	/* one at a time, to find the bad lines */
	for (i = 0; i < n; i++)
	{
		ErrorData  *err = NULL;

		if (lines[i] == NULL)
			continue;
		if (load_group(spec, &lines[i], 1, &err))
			ls->loaded++;
		else
		{
			ls->errors++;
			if (ls->nmessages < IMPORT_MESSAGES)
			{
				if (ls->nmessages++ > 0)
					appendStringInfoChar(&ls->messages, ',');
				appendStringInfo(&ls->messages, "{\"file\":");
				escape_json(&ls->messages, file);
				appendStringInfo(&ls->messages, ",\"line\":" INT64_FORMAT ",\"message\":", numbers[i]);
				escape_json(&ls->messages, err && err->message ? err->message : "error");
				appendStringInfoChar(&ls->messages, '}');
			}
			if (err)
				FreeErrorData(err);
		}
	}
}

/* every line of a file loaded, a group at a time */
static void
import_lines(LineReader *r, ImportSpec *spec, LoadState *ls, const char *file)
{
	StringInfoData buf;
	StringInfoData more;
	char	  **lines = palloc0(sizeof(char *) * IMPORT_GROUP);
	int64	   *numbers = palloc0(sizeof(int64) * IMPORT_GROUP);
	int			n = 0;
	int64		lineno = 0;
	MemoryContext groupcxt = AllocSetContextCreate(CurrentMemoryContext, "item_table import group",
												   ALLOCSET_DEFAULT_SIZES);
	MemoryContext old;

	initStringInfo(&buf);
	initStringInfo(&more);
	while (reader_line(r, &buf))
	{
		int64		start = ++lineno;

		CHECK_FOR_INTERRUPTS();
		/* a quoted CSV field holding line ends: the record's next lines */
		while (spec->csv && csv_open_quote(buf.data, spec->delimiter))
		{
			if (!reader_line(r, &more))
				break;			/* csv_fields() reports the open quote */
			lineno++;
			appendStringInfoChar(&buf, '\n');
			appendBinaryStringInfo(&buf, more.data, more.len);
			CHECK_FOR_INTERRUPTS();
		}
		if (spec->csv && spec->columns == NULL)
		{
			/* the header line */
			spec->ncols = csv_fields(buf.data, spec->delimiter, &spec->columns);
			continue;
		}
		numbers[n] = start;
		old = MemoryContextSwitchTo(groupcxt);
		/* a blank line is no item and no error */
		lines[n++] = buf.len == 0 ? NULL : pstrdup(buf.data);
		MemoryContextSwitchTo(old);
		if (n == IMPORT_GROUP)
		{
			flush_group(spec, ls, file, lines, numbers, n);
			n = 0;
			MemoryContextReset(groupcxt);
		}
	}
	flush_group(spec, ls, file, lines, numbers, n);
	MemoryContextDelete(groupcxt);
}

/*
 * every top-level value of an ION file loaded, a group at a time (a value
 * may span lines, a line may hold several; its number is the line where
 * it begins)
 */
static void
import_ion_values(LineReader *r, ImportSpec *spec, LoadState *ls, const char *file)
{
	StringInfoData buf;
	IonSplitter sp;
	char	  **lines = palloc0(sizeof(char *) * IMPORT_GROUP);
	int64	   *numbers = palloc0(sizeof(int64) * IMPORT_GROUP);
	int			n = 0;
	bool		more = true;
	MemoryContext groupcxt = AllocSetContextCreate(CurrentMemoryContext, "item_table import group",
												   ALLOCSET_DEFAULT_SIZES);

	initStringInfo(&buf);
	IonSplitterInit(&sp, ION_MAX_VALUE);
	while (more)
	{
		size_t		pos = 0;

		CHECK_FOR_INTERRUPTS();
		more = reader_line(r, &buf);
		if (more)
			appendStringInfoChar(&buf, '\n');
		for (;;)
		{
			size_t		used;
			bool		got;

			if (more)
			{
				got = IonSplitterNext(&sp, buf.data + pos, buf.len - pos, &used);
				pos += used;
			}
			else
				got = IonSplitterFinish(&sp);
			if (!got)
				break;
			numbers[n] = sp.value_line;
			lines[n++] = MemoryContextStrdup(groupcxt, sp.value.data);
			if (n == IMPORT_GROUP)
			{
				flush_group(spec, ls, file, lines, numbers, n);
				n = 0;
				MemoryContextReset(groupcxt);
			}
			if (!more)
				break;
		}
	}
	flush_group(spec, ls, file, lines, numbers, n);
	MemoryContextDelete(groupcxt);
}

/*
 * The import row of import_id, which must be the caller's and IN_PROGRESS:
 * its table name and its bucket into *table and *bucket; key must lie
 * under its key prefix.
 */
static void
import_row(text *import_id, const char *key, text **table, text **bucket)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {PointerGetDatum(import_id)};
	ItemRoleSwitch sw;
	Oid			caller = GetUserId();
	bool		isnull;
	char	   *prefix;
	bool		mine;

	SPI_connect();
	ItemAsCatalogOwnerBegin(&sw);
	if (SPI_execute_with_args("SELECT i.table_name, i.call_request OPERATOR(pg_catalog.#>>) '{S3BucketSource,S3Bucket}',"
							  " COALESCE(i.call_request OPERATOR(pg_catalog.#>>) '{S3BucketSource,S3KeyPrefix}', ''),"
							  " i.owner, i.status OPERATOR(pg_catalog.=) 'IN_PROGRESS'"
							  " FROM item_table.imports i WHERE i.import_id OPERATOR(pg_catalog.=) $1",
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the imports catalog");
	ItemAsRoleEnd(&sw);
	mine = SPI_processed == 1 &&
		DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4, &isnull)) == caller &&
		DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 5, &isnull));
	if (!mine)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("no import \"%s\" of the current role in progress", text_to_cstring(import_id))));
	*table = (text *) SPI_datumTransfer(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull),
										false, -1);
	*bucket = (text *) SPI_datumTransfer(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull),
										 false, -1);
	prefix = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3);
	if (strncmp(key, prefix, strlen(prefix)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("\"%s\" is not under the key prefix of import \"%s\"", key, text_to_cstring(import_id))));
	SPI_finish();
}

/* the counts of a file loaded added to its import's row */
static void
import_add_counts(text *import_id, LoadState *ls, int64 bytes)
{
	Oid			types[4] = {TEXTOID, INT8OID, INT8OID, INT8OID};
	Datum		values[4] = {PointerGetDatum(import_id), Int64GetDatum(ls->loaded),
	Int64GetDatum(ls->errors), Int64GetDatum(bytes)};
	ItemRoleSwitch sw;

	SPI_connect();
	ItemAsCatalogOwnerBegin(&sw);
	if (SPI_execute_with_args("UPDATE item_table.imports SET"
							  " imported_item_count = imported_item_count OPERATOR(pg_catalog.+) $2,"
							  " error_count = error_count OPERATOR(pg_catalog.+) $3,"
							  " processed_item_count = processed_item_count OPERATOR(pg_catalog.+) $2 OPERATOR(pg_catalog.+) $3,"
							  " processed_size_bytes = processed_size_bytes OPERATOR(pg_catalog.+) $4"
							  " WHERE import_id OPERATOR(pg_catalog.=) $1 AND status OPERATOR(pg_catalog.=) 'IN_PROGRESS'",
							  4, types, values, NULL, false, 0) != SPI_OK_UPDATE || SPI_processed != 1)
		elog(ERROR, "could not count the file in its import");
	ItemAsRoleEnd(&sw);
	SPI_finish();
}

/*
 * import_load_file(import_id text, key text, format text, compression
 *		text, delimiter text, header text[], key_types jsonb) returns jsonb
 *		One file of the caller's import in progress loaded into its (new)
 *		table, and its counts added to the import's row: {"loaded",
 *		"errors", "bytes", "messages": the first bad lines' [{file, line,
 *		message}]}.  The table and the bucket are the import's; the file
 *		must lie under its key prefix.  CSV: header NULL, the file's first
 *		line is its header.
 */
Datum
item_table_import_load_file(PG_FUNCTION_ARGS)
{
	ImportSpec	spec;
	LoadState	ls;
	LineReader	r;
	char	   *path;
	char	   *file;
	const char *format;
	StringInfoData buf;
	text	   *bucket;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		elog(ERROR, "import_load_file: import, key, format and compression are required");
	memset(&spec, 0, sizeof(spec));
	file = text_to_cstring(PG_GETARG_TEXT_PP(1));
	import_row(PG_GETARG_TEXT_PP(0), file, &spec.table, &bucket);
	path = resolve(bucket, PG_GETARG_TEXT_PP(1), "read");
	format = text_to_cstring(PG_GETARG_TEXT_PP(2));
	spec.csv = strcmp(format, "CSV") == 0;
	spec.ion = strcmp(format, "ION") == 0;
	spec.delimiter = PG_ARGISNULL(4) ? ',' : text_to_cstring(PG_GETARG_TEXT_PP(4))[0];
	spec.key_types = PG_ARGISNULL(6) ? NULL : PG_GETARG_JSONB_P(6);
	if (spec.csv && !PG_ARGISNULL(5))
	{
		Datum	   *elems;
		bool	   *enulls;
		int			i;

		deconstruct_array(PG_GETARG_ARRAYTYPE_P(5), TEXTOID, -1, false, TYPALIGN_INT,
						  &elems, &enulls, &spec.ncols);
		spec.columns = palloc(sizeof(char *) * Max(spec.ncols, 1));
		for (i = 0; i < spec.ncols; i++)
			spec.columns[i] = enulls[i] ? "" : TextDatumGetCString(elems[i]);
	}
	memset(&ls, 0, sizeof(ls));
	initStringInfo(&ls.messages);
	initStringInfo(&buf);
	reader_open(&r, path, text_to_cstring(PG_GETARG_TEXT_PP(3)));
	PG_TRY();
	{
		/* index entries checked per item, the rows built after the load */
		SPI_connect();
		GsiBulkLoadBegin(TableDefLookup(text_to_cstring(spec.table))->relid);
		SPI_finish();
		if (spec.ion)
			import_ion_values(&r, &spec, &ls, file);
		else
			import_lines(&r, &spec, &ls, file);
	}
	PG_FINALLY();
	{
		GsiBulkLoadEnd();
		reader_close(&r);
	}
	PG_END_TRY();
	import_add_counts(PG_GETARG_TEXT_PP(0), &ls, r.bytes);
	appendStringInfo(&buf, "{\"loaded\": " INT64_FORMAT ", \"errors\": " INT64_FORMAT
					 ", \"bytes\": " INT64_FORMAT ", \"messages\": [%s]}",
					 ls.loaded, ls.errors, r.bytes, ls.messages.data);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

/*
 * import_build_indexes(table_name text) returns bigint
 *		The index rows of a table just loaded by import_load_file(), built
 *		from its items in one pass and the index tables REINDEXed
 *		(GsiBulkBuild); the number of index rows.  Only for a table made in
 *		this transaction whose index tables are still empty.
 */
Datum
item_table_import_build_indexes(PG_FUNCTION_ARGS)
{
	int64		n;

	SPI_connect();
	n = GsiBulkBuild(TableDefLookup(text_to_cstring(PG_GETARG_TEXT_PP(0)))->relid);
	SPI_finish();
	PG_RETURN_INT64(n);
}
