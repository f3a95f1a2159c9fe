/*-------------------------------------------------------------------------
 *
 * api_control.c
 *		The control-plane calls that sit beside the table operations:
 *		TagResource, UntagResource, ListTagsOfResource, DescribeLimits,
 *		DescribeEndpoints and DescribeContinuousBackups.
 *
 * Tags.  A table's tags are rows of item_table.tags, keyed by table name
 * and tag key, removed with the table (ON DELETE CASCADE from the table
 * catalog).  A resource is named by its ARN, the TableArn that
 * DescribeTable reports; only the table name in it decides which table is
 * meant, so an ARN built by a client with its own region and account
 * works too.  Changing tags is the owner's right, as UpdateTable is;
 * listing them is everyone's, as DescribeTable is.  CreateTable's Tags
 * parameter goes through the same checks (ApiParseTags, ApiStoreTags).
 *
 * Limits and endpoints are fixed answers: item_table does not meter
 * capacity, so DescribeLimits reports DynamoDB's default quotas, and
 * DescribeEndpoints reports the address set in item_table.endpoint_address
 * (the gateway's public address, for clients with endpoint discovery).
 *
 * Continuous backups (DescribeContinuousBackups and the rest of backups
 * and point-in-time recovery) are backup.c's and src/sql/backup.sql's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "catalog/namespace.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "api.h"

PG_FUNCTION_INFO_V1(item_table_tag_resource);
PG_FUNCTION_INFO_V1(item_table_untag_resource);
PG_FUNCTION_INFO_V1(item_table_list_tags_of_resource);
PG_FUNCTION_INFO_V1(item_table_describe_limits);
PG_FUNCTION_INFO_V1(item_table_describe_endpoints);

/* DynamoDB's tagging limits */
#define TAG_KEY_MAX		128
#define TAG_VALUE_MAX	256
#define TAGS_PER_TABLE	50

/* item_table.endpoint_address (module.c defines the setting) */
char	   *item_table_endpoint_address = NULL;

/* ----------------------------------------------------------------
 * the catalog's version
 * ----------------------------------------------------------------
 */
/*
 * ApiCatalogIs12
 *		Does the installed catalog have 1.2's columns?  Between installing
 *		a new library and ALTER EXTENSION item_table UPDATE, the catalog is
 *		the older one: tables keep working, and only what needs 1.2's
 *		catalog is refused (ApiRequireCatalog12).
 */
bool
ApiCatalogIs12(void)
{
	Oid			nsp = get_namespace_oid("item_table", false);
	Oid			rel = get_relname_relid("tables", nsp);

	return OidIsValid(rel) && get_attnum(rel, "deletion_protection") != InvalidAttrNumber;
}

void
ApiRequireCatalog12(const char *parameter)
{
	if (!ApiCatalogIs12())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s needs the item_table 1.2 catalog", parameter),
				 errhint("Run ALTER EXTENSION item_table UPDATE.")));
}

/* ----------------------------------------------------------------
 * resource names
 * ----------------------------------------------------------------
 */

/*
 * arn_table_name
 *		The table named by a ResourceArn, checked as DynamoDB checks it:
 *		something that is not an ARN at all is refused by authorization
 *		(AccessDeniedException), except by TagResource (validate_shape),
 *		which validates it first; an ARN that is not a table's by validation.
 */
static char *
arn_table_name(const char *arn, const char *action, bool validate_shape)
{
	char	   *copy = pstrdup(arn);
	char	   *fields[6];
	int			n = 0;
	char	   *p = copy;
	char	   *slash;
	const char *name;
	int			i;

	/* six ':'-separated fields, the last holding the rest */
	fields[n++] = p;
	for (; *p && n < 6; p++)
	{
		if (*p == ':')
		{
			*p = '\0';
			fields[n++] = p + 1;
		}
	}
	slash = n == 6 ? strchr(fields[5], '/') : NULL;
	/* not even shaped like an ARN: authorization refuses it */
	for (i = 0; i < n; i++)
	{
		if (fields[i][0] == '\0')
			slash = NULL;
	}
	if ((slash == NULL || slash == fields[5] || slash[1] == '\0') && validate_shape)
		DynValidation("Invalid TableArn: Invalid ResourceArn provided as input %s", arn);
	if (slash == NULL || slash == fields[5] || slash[1] == '\0')
		DynRaise(DYN_ACCESS_DENIED,
				 "User: arn:aws:iam::000000000000:user/%s is not authorized to perform: dynamodb:%s on resource: %s",
				 GetUserNameFromId(GetUserId(), false), action, arn);

	/* arn:aws:dynamodb:<region>:<account digits>:table/<name without '/'> */
	if (strcmp(fields[0], "arn") != 0 || strcmp(fields[1], "aws") != 0 ||
		strcmp(fields[2], "dynamodb") != 0 ||
		strspn(fields[4], "0123456789") != strlen(fields[4]) ||
		strncmp(fields[5], "table/", 6) != 0)
		DynValidation("Invalid TableArn: Invalid ResourceArn provided as input %s", arn);
	name = fields[5] + 6;
	if (strlen(name) < 3 || strchr(name, '/') != NULL)
		DynValidation("Invalid TableArn: Invalid ResourceArn provided as input %s", arn);
	return pstrdup(name);
}

/* the physical table of a table, or InvalidOid; SPI must be connected */
static Oid
table_relid(const char *name)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(name)};
	bool		isnull;
	int			rc;

	rc = SPI_execute_with_args("SELECT t.relid::pg_catalog.oid FROM item_table.tables t"
							   " JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.relid::pg_catalog.oid"
							   " WHERE t.table_name OPERATOR(pg_catalog.=) $1",
							   1, argtypes, values, NULL, true, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "catalog read failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return InvalidOid;
	return DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0],
										  SPI_tuptable->tupdesc, 1, &isnull));
}

/* ----------------------------------------------------------------
 * tags
 * ----------------------------------------------------------------
 */

/* the length DynamoDB counts: characters */
static int
text_chars(const char *s)
{
	return pg_mbstrlen(s);
}

/*
 * ApiParseTags
 *		The Tags array of TagResource or CreateTable: shape problems are
 *		added to req (field is the request's lower-camel member name), the
 *		rest is checked by ApiStoreTags.  Returns a list of ApiTag.
 */
List *
ApiParseTags(ApiRequest *req, Jsonb *arr, const char *field)
{
	List	   *tags = NIL;
	ListCell   *lc;

	foreach(lc, ApiArrayOfObjects(arr, "Tags"))
	{
		ApiRequest	sub;
		ApiTag	   *t = palloc0(sizeof(ApiTag));
		int			i = foreach_current_index(lc) + 1;
		char	   *path_key = psprintf("%s.%d.member.key", field, i);
		char	   *path_value = psprintf("%s.%d.member.value", field, i);

		ApiRequestInit(&sub, (Jsonb *) lfirst(lc));
		t->key = ApiGetString(&sub, "Key", path_key, true);
		t->value = ApiGetString(&sub, "Value", path_value, true);
		if (t->key != NULL && text_chars(t->key) < 1)
			ApiProblem(&sub, "Value '%s' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1",
					   t->key, path_key);
		if (t->key != NULL && text_chars(t->key) > TAG_KEY_MAX)
			ApiProblem(&sub, "Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d",
					   t->key, path_key, TAG_KEY_MAX);
		if (t->value != NULL && text_chars(t->value) > TAG_VALUE_MAX)
			ApiProblem(&sub, "Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d",
					   t->value, path_value, TAG_VALUE_MAX);
		req->problems = list_concat(req->problems, sub.problems);
		tags = lappend(tags, t);
	}
	/* one request sets at most the tags a resource may have */
	if (list_length(tags) > TAGS_PER_TABLE)
		DynValidation("One or more parameter values were invalid: The number of tags in the request (%d) exceeds the limit of %d",
					  list_length(tags), TAGS_PER_TABLE);
	return tags;
}

/*
 * ApiStoreTags
 *		Add or replace tags of a table (SPI connected, the caller's right
 *		to change the table already checked), then hold the table to
 *		DynamoDB's limit of tags per resource.
 */
void
ApiStoreTags(const char *table, List *tags)
{
	ListCell   *lc;
	Oid			argtypes[3] = {TEXTOID, TEXTOID, TEXTOID};
	Datum		values[3];
	ItemRoleSwitch sw;
	int64		count;
	bool		isnull;

	foreach(lc, tags)
	{
		if (strncmp(((ApiTag *) lfirst(lc))->key, "aws:", 4) == 0)
			DynValidation("One or more parameter values were invalid: Tag keys starting with aws: are reserved for system use");
	}
	values[0] = CStringGetTextDatum(table);
	ItemAsCatalogOwnerBegin(&sw);
	foreach(lc, tags)
	{
		ApiTag	   *t = (ApiTag *) lfirst(lc);

		values[1] = CStringGetTextDatum(t->key);
		values[2] = CStringGetTextDatum(t->value);
		if (SPI_execute_with_args("INSERT INTO item_table.tags (table_name, tag_key, tag_value)"
								  " VALUES ($1, $2, $3) ON CONFLICT (table_name, tag_key)"
								  " DO UPDATE SET tag_value = excluded.tag_value",
								  3, argtypes, values, NULL, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "tag catalog update failed");
	}
	if (SPI_execute_with_args("SELECT pg_catalog.count(*) FROM item_table.tags"
							  " WHERE table_name OPERATOR(pg_catalog.=) $1",
							  1, argtypes, values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "tag catalog read failed");
	count = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	ItemAsRoleEnd(&sw);
	if (count > TAGS_PER_TABLE)
		DynRaise(DYN_LIMIT_EXCEEDED,
				 "The number of tags on a resource exceeds the limit of %d", TAGS_PER_TABLE);
}

/* ResourceArn of a tagging request, with DynamoDB's order of checks */
static char *
get_arn(ApiRequest *req)
{
	JsonbValue *v = ApiGetMember(req, "ResourceArn");
	char	   *arn;

	if (v == NULL)
		DynValidation("Invalid TableArn");
	arn = ApiGetString(req, "ResourceArn", "resourceArn", true);
	if (strlen(arn) > 1283)
		ApiProblem(req, "Value '%s' at 'resourceArn' failed to satisfy constraint: Member must have length less than or equal to 1283", arn);
	return arn;
}

/* an owned table named by an ARN, for changing its tags */
static char *
owned_table(const char *arn, const char *action, const char *not_found)
{
	char	   *name = arn_table_name(arn, action, false);
	Oid			relid = table_relid(name);

	if (!OidIsValid(relid))
	{
		if (not_found != NULL)
			DynRaise(DYN_RESOURCE_NOT_FOUND, not_found, arn);
		DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found");
	}
	ItemCheckOwner(relid);
	return name;
}

Datum
item_table_tag_resource(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	char	   *arn;
	Jsonb	   *tags_j;
	List	   *tags;
	char	   *name;
	JsonbParseState *state = NULL;
	Jsonb	   *result;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	arn = get_arn(&req);
	(void) arn_table_name(arn, "TagResource", true);	/* checked first */
	tags_j = ApiGetArray(&req, "Tags");
	if (tags_j == NULL)
		ApiProblem(&req, "Value null at 'tags' failed to satisfy constraint: Member must not be null");
	tags = ApiParseTags(&req, tags_j, "tags");
	ApiRequestCheck(&req);
	if (tags == NIL)
		DynValidation("Atleast one Tag needs to be provided as Input.");

	ApiRequireCatalog12("TagResource");
	SPI_connect();
	name = owned_table(arn, "TagResource", "Requested resource not found: ResourcArn: %s not found");
	ApiStoreTags(name, tags);
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	result = ApiFinishResponse(&state, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

Datum
item_table_untag_resource(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	char	   *arn;
	Jsonb	   *keys_j;
	List	   *keys = NIL;
	char	   *name;
	ListCell   *lc;
	JsonbParseState *state = NULL;
	Jsonb	   *result;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			i = 0;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	arn = get_arn(&req);
	(void) arn_table_name(arn, "UntagResource", false);
	keys_j = ApiGetArray(&req, "TagKeys");
	if (keys_j == NULL)
		ApiProblem(&req, "Value null at 'tagKeys' failed to satisfy constraint: Member must not be null");
	else
	{
		it = JsonbIteratorInit(&keys_j->root);
		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			char	   *k;

			if (tok != WJB_ELEM)
				continue;
			i++;
			if (v.type != jbvString)
				DynRaise(DYN_SERIALIZATION, "Unexpected value type in payload");
			k = pnstrdup(v.val.string.val, v.val.string.len);
			if (text_chars(k) < 1)
				ApiProblem(&req, "Value '%s' at 'tagKeys.%d.member' failed to satisfy constraint: Member must have length greater than or equal to 1", k, i);
			if (text_chars(k) > TAG_KEY_MAX)
				ApiProblem(&req, "Value '%s' at 'tagKeys.%d.member' failed to satisfy constraint: Member must have length less than or equal to %d", k, i, TAG_KEY_MAX);
			keys = lappend(keys, k);
		}
	}
	ApiRequestCheck(&req);
	if (keys == NIL)
		DynValidation("Atleast one Tag Key needs to be provided as Input.");

	ApiRequireCatalog12("UntagResource");
	SPI_connect();
	name = owned_table(arn, "UntagResource", NULL);
	{
		Oid			argtypes[2] = {TEXTOID, TEXTOID};
		Datum		values[2];
		ItemRoleSwitch sw;

		values[0] = CStringGetTextDatum(name);
		ItemAsCatalogOwnerBegin(&sw);
		foreach(lc, keys)
		{
			values[1] = CStringGetTextDatum((char *) lfirst(lc));
			if (SPI_execute_with_args("DELETE FROM item_table.tags WHERE table_name OPERATOR(pg_catalog.=) $1"
									  " AND tag_key OPERATOR(pg_catalog.=) $2",
									  2, argtypes, values, NULL, false, 0) != SPI_OK_DELETE)
				elog(ERROR, "tag catalog update failed");
		}
		ItemAsRoleEnd(&sw);
	}
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	result = ApiFinishResponse(&state, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

Datum
item_table_list_tags_of_resource(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	char	   *arn;
	char	   *name;
	JsonbParseState *state = NULL;
	Jsonb	   *result;
	Oid			argtypes[1] = {TEXTOID};
	Datum		values[1];
	uint64		i;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	arn = get_arn(&req);
	(void) arn_table_name(arn, "ListTagsOfResource", false);
	(void) ApiGetString(&req, "NextToken", "nextToken", false);
	ApiRequestCheck(&req);
	name = arn_table_name(arn, "ListTagsOfResource", false);
	/* every tag fits in one page: a token is never issued, so never valid */
	if (ApiGetMember(&req, "NextToken") != NULL)
		DynValidation("Invalid NextToken");

	ApiRequireCatalog12("ListTagsOfResource");
	SPI_connect();
	/*
	 * DynamoDB authorizes ListTagsOfResource on the resource itself: a table
	 * that does not exist is refused as unauthorized, not as not found
	 */
	if (!OidIsValid(table_relid(name)))
		DynRaise(DYN_ACCESS_DENIED,
				 "User: arn:aws:iam::000000000000:user/%s is not authorized to perform: dynamodb:ListTagsOfResource on resource: %s",
				 GetUserNameFromId(GetUserId(), false), arn);
	values[0] = CStringGetTextDatum(name);
	if (SPI_execute_with_args("SELECT tag_key, tag_value FROM item_table.tags"
							  " WHERE table_name OPERATOR(pg_catalog.=) $1 ORDER BY tag_key",
							  1, argtypes, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "tag catalog read failed");
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "Tags");
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	for (i = 0; i < SPI_processed; i++)
	{
		pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(&state, "Key");
		ApiPushString(&state, SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1));
		ApiPushKey(&state, "Value");
		ApiPushString(&state, SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2));
		pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	result = ApiFinishResponse(&state, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * limits, endpoints, continuous backups
 * ----------------------------------------------------------------
 */
static void
push_count(JsonbParseState **state, const char *key, int64 n)
{
	ApiPushKey(state, key);
	ApiPushNumeric(state, (double) n, 0);
}

Datum
item_table_describe_limits(PG_FUNCTION_ARGS)
{
	JsonbParseState *state = NULL;

	/* DynamoDB's default quotas of a region (capacity is not metered here) */
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	push_count(&state, "AccountMaxReadCapacityUnits", 80000);
	push_count(&state, "AccountMaxWriteCapacityUnits", 80000);
	push_count(&state, "TableMaxReadCapacityUnits", 40000);
	push_count(&state, "TableMaxWriteCapacityUnits", 40000);
	PG_RETURN_JSONB_P(ApiFinishResponse(&state, CurrentMemoryContext));
}

Datum
item_table_describe_endpoints(PG_FUNCTION_ARGS)
{
	JsonbParseState *state = NULL;

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "Endpoints");
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "Address");
	ApiPushString(&state, item_table_endpoint_address ? item_table_endpoint_address : "");
	push_count(&state, "CachePeriodInMinutes", 1440);
	pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	PG_RETURN_JSONB_P(ApiFinishResponse(&state, CurrentMemoryContext));
}
