/*-------------------------------------------------------------------------
 *
 * bucket.c
 *		Buckets: directories on the database server that a superuser
 *		registered for the server to read and write files in, with the
 *		roles that may read (import) and write (export) each, and the one
 *		resolution of a path inside a bucket.
 *
 * Reading and writing files as the server is a privilege (COPY ... TO a
 * file needs pg_write_server_files), so a bucket is made by a superuser:
 * item_table.create_bucket(name, directory) records the directory's
 * canonical path (realpath: no symbolic link, no "." or "..") in
 * item_table.buckets; grant_bucket(name, role, read, write) and
 * revoke_bucket(name, role) record in item_table.bucket_grants which
 * roles may read and write it; drop_bucket(name) forgets it (the files
 * stay).  A grant holds for the role and the roles that have its
 * privileges (members that inherit), as a table privilege does; it names
 * the role by OID and by name, and counts only while the role of that OID
 * still has that name, so a role created later that is given a dropped
 * role's OID gets nothing (a renamed role loses its grants: grant again).
 *
 * The calls of the API name a bucket with S3Bucket and a path inside it
 * with S3Prefix / S3KeyPrefix; item_table.bucket_path(bucket, key,
 * mode) turns them into the file name the server opens, or refuses:
 *
 *	  - the caller must hold the right (read or write) on the bucket
 *		(a superuser always does);
 *	  - the key is relative: no leading '/', no ".." component, no NUL;
 *		"." components and repeated '/' are dropped;
 *	  - walking the key from the bucket's directory, every component that
 *		exists is looked at with lstat: a symbolic link is followed
 *		(realpath) and must stay inside the bucket's directory; one that
 *		does not exist ends the walk -- refused for reading, allowed for
 *		writing (the writer makes what is missing, below a directory that
 *		is inside).
 *
 * The answer is the bucket's directory and the cleaned key.  Between the
 * check and the open, a writer of the directory could swap a component
 * for a link; so the callers open files with O_NOFOLLOW below the checked
 * directory, and the directory itself should be writable only by the
 * server's account (docs/backups.md, "Buckets").  The bucket type is a
 * column (only 'directory' today), so that a type that is not a local
 * directory (S3-compatible storage) can be added under the same calls.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/syscache.h"

#include "catalog.h"

PG_FUNCTION_INFO_V1(item_table_create_bucket);
PG_FUNCTION_INFO_V1(item_table_bucket_path);
PG_FUNCTION_INFO_V1(item_table_list_buckets);

/* a directory's canonical path; ERROR unless it is an existing directory */
static char *
canonical_directory(const char *dir)
{
	char		buf[PATH_MAX];
	struct stat st;

	if (dir[0] != '/')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a bucket's directory must be an absolute path: \"%s\"", dir)));
	if (realpath(dir, buf) == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not resolve the bucket directory \"%s\": %m", dir)));
	if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"%s\" is not a directory", dir)));
	return pstrdup(buf);
}

/*
 * create_bucket(name text, directory text) returns text
 *		Registers a bucket (superusers only); its canonical directory.
 */
Datum
item_table_create_bucket(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *dir;
	const char *p;
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		values[2];
	int			rc;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to create a bucket"),
				 errdetail("Only superusers may register directories of the server as buckets.")));
	/* S3's bucket names: 3-63 of lower-case letters, digits, '.', '-' */
	for (p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '.' || *p == '-'))
			break;
	if (*p != '\0' || strlen(name) < 3 || strlen(name) > 63)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid bucket name \"%s\"", name),
				 errdetail("A bucket name has 3 to 63 characters: lower-case letters, digits, '.' and '-'.")));
	dir = canonical_directory(text_to_cstring(PG_GETARG_TEXT_PP(1)));
	values[0] = CStringGetTextDatum(name);
	values[1] = CStringGetTextDatum(dir);
	SPI_connect();
	rc = SPI_execute_with_args("INSERT INTO item_table.buckets (bucket_name, location) VALUES ($1, $2)",
							   2, types, values, NULL, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "could not register the bucket: %s", SPI_result_code_string(rc));
	SPI_finish();
	PG_RETURN_TEXT_P(cstring_to_text(dir));
}

/* is path inside root (root itself, or below it)? */
static bool
inside(const char *root, const char *path)
{
	size_t		n = strlen(root);

	return strncmp(root, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/*
 * bucket_path(bucket text, key text, mode text) returns text
 *		The file name of key inside bucket for reading ('read') or
 *		writing ('write'), after the checks above.
 */
Datum
item_table_bucket_path(PG_FUNCTION_ARGS)
{
	char	   *bucket = text_to_cstring(PG_GETARG_TEXT_PP(0));
	text	   *keyt = PG_GETARG_TEXT_PP(1);
	char	   *key = text_to_cstring(keyt);
	char	   *mode = text_to_cstring(PG_GETARG_TEXT_PP(2));
	bool		write;
	Oid			caller = GetUserId();
	Oid			types[3] = {TEXTOID, OIDOID, BOOLOID};
	Datum		values[3];
	bool		isnull;
	char	   *root;
	char	   *type;
	bool		allowed;
	StringInfoData out;
	char	   *copy;
	char	   *comp;
	char	   *save = NULL;
	bool		exists = true;
	ItemRoleSwitch sw;
	MemoryContext callercxt = CurrentMemoryContext;

	if (strcmp(mode, "read") == 0)
		write = false;
	else if (strcmp(mode, "write") == 0)
		write = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mode must be 'read' or 'write'")));
	if (memchr(VARDATA_ANY(keyt), '\0', VARSIZE_ANY_EXHDR(keyt)) != NULL || key[0] == '/')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a path inside a bucket must be relative: \"%s\"", key)));

	values[0] = CStringGetTextDatum(bucket);
	values[1] = ObjectIdGetDatum(caller);
	values[2] = BoolGetDatum(write);
	SPI_connect();
	ItemAsCatalogOwnerBegin(&sw);
	if (SPI_execute_with_args("SELECT b.location, b.bucket_type,"
							  " (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) $2)"
							  " OR EXISTS (SELECT FROM item_table.bucket_grants g"
							  "  JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) g.grantee"
							  "   AND r.rolname OPERATOR(pg_catalog.=) g.grantee_name"
							  "  WHERE g.bucket_name OPERATOR(pg_catalog.=) b.bucket_name"
							  "   AND CASE WHEN $3 THEN g.can_write ELSE g.can_read END"
							  "   AND pg_catalog.pg_has_role($2, g.grantee, 'USAGE'))"
							  " FROM item_table.buckets b WHERE b.bucket_name OPERATOR(pg_catalog.=) $1",
							  3, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the bucket catalog");
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("bucket \"%s\" does not exist", bucket)));
	root = MemoryContextStrdup(callercxt, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	type = MemoryContextStrdup(callercxt, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2));
	allowed = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull)) && !isnull;
	ItemAsRoleEnd(&sw);
	SPI_finish();
	if (!allowed)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to %s bucket \"%s\"", write ? "write" : "read", bucket)));
	if (strcmp(type, "directory") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("bucket \"%s\" is of type %s, which has no file names", bucket, type)));

	/* walk the key from the bucket's directory */
	initStringInfo(&out);
	appendStringInfoString(&out, root);
	copy = pstrdup(key);
	for (comp = strtok_r(copy, "/", &save); comp != NULL; comp = strtok_r(NULL, "/", &save))
	{
		struct stat st;

		CHECK_FOR_INTERRUPTS();
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a path inside a bucket may not contain \"..\": \"%s\"", key)));
		appendStringInfo(&out, "/%s", comp);
		if (!exists)
			continue;
		if (lstat(out.data, &st) != 0)
		{
			if (errno != ENOENT)
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not stat \"%s\" in bucket \"%s\": %m", key, bucket)));
			exists = false;
			continue;
		}
		if (S_ISLNK(st.st_mode))
		{
			char		buf[PATH_MAX];

			if (realpath(out.data, buf) == NULL || !inside(root, buf))
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("\"%s\" leaves bucket \"%s\" by a symbolic link", key, bucket)));
		}
	}
	if (!exists && !write)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("\"%s\" does not exist in bucket \"%s\"", key, bucket)));
	PG_RETURN_TEXT_P(cstring_to_text(out.data));
}

/*
 * list_buckets_json() returns jsonb
 *		The buckets the caller may use (a superuser: every one), as an
 *		array of {bucket_name, bucket_type, location, can_read, can_write};
 *		item_table.list_buckets() shows it as rows.
 */
Datum
item_table_list_buckets(PG_FUNCTION_ARGS)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(GetUserId())};
	ItemRoleSwitch sw;
	bool		isnull;
	Datum		result;

	SPI_connect();
	ItemAsCatalogOwnerBegin(&sw);
	if (SPI_execute_with_args("WITH caller AS (SELECT r.rolsuper FROM pg_catalog.pg_roles r"
							  "  WHERE r.oid OPERATOR(pg_catalog.=) $1),"
							  " rights AS (SELECT b.bucket_name, b.bucket_type, b.location,"
							  "  (SELECT rolsuper FROM caller) OR pg_catalog.bool_or(g.can_read) AS can_read,"
							  "  (SELECT rolsuper FROM caller) OR pg_catalog.bool_or(g.can_write) AS can_write"
							  "  FROM item_table.buckets b"
							  "  LEFT JOIN (item_table.bucket_grants g JOIN pg_catalog.pg_roles r"
							  "   ON r.oid OPERATOR(pg_catalog.=) g.grantee AND r.rolname OPERATOR(pg_catalog.=) g.grantee_name"
							  "   AND pg_catalog.pg_has_role($1, g.grantee, 'USAGE'))"
							  "   ON g.bucket_name OPERATOR(pg_catalog.=) b.bucket_name"
							  "  GROUP BY b.bucket_name, b.bucket_type, b.location)"
							  " SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(rights)"
							  "  ORDER BY rights.bucket_name), '[]')"
							  " FROM rights WHERE rights.can_read OR rights.can_write",
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the bucket catalog");
	result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	result = datumCopy(result, false, -1);
	ItemAsRoleEnd(&sw);
	SPI_finish();
	PG_RETURN_DATUM(result);
}
