/*-------------------------------------------------------------------------
 *
 * api_table.c
 *		CreateTable, DescribeTable, DeleteTable, ListTables, UpdateTable.
 *
 * A DynamoDB table is an ordinary table item_data."<name>" (key item_key
 * PRIMARY KEY, item jsonb NOT NULL) plus a row in item_table.tables.  Names
 * longer than PostgreSQL's 63-byte identifiers keep their first 54
 * characters and gain '_' and 8 hex digits of their MD5, so every physical
 * name stays readable in psql.
 *
 * The physical table is created from a CreateStmt parse tree run through
 * ProcessUtility, never from SQL text, and as the calling user: it needs
 * CREATE on item_data, and the caller owns the result.  The catalog row is
 * written with the extension owner's rights (the catalog is not writable
 * by PUBLIC), but only after the caller has shown their own: creating the
 * table, or owning it to delete it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "common/md5.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "access/htup_details.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "api.h"
#include "distributed.h"
#include "api_index.h"
#include "api_vector.h"
#include "gsi.h"
#include "item_guard.h"

PG_FUNCTION_INFO_V1(item_table_create_table);
PG_FUNCTION_INFO_V1(item_table_describe_table);
PG_FUNCTION_INFO_V1(item_table_delete_table);
PG_FUNCTION_INFO_V1(item_table_list_tables);
PG_FUNCTION_INFO_V1(item_table_update_table);

typedef struct TableRow
{
	char	   *name;
	char	   *table_id;
	Oid			relid;
	char	   *hash_key;
	char	   *hash_type;
	char	   *range_key;
	char	   *range_type;
	char	   *billing_mode;
	int64		read_capacity;
	int64		write_capacity;
	double		created_epoch;
	int64		item_count;
	int64		size_bytes;
	bool		deletion_protection;
	char	   *table_class;	/* NULL when never set */
	double		table_class_updated;	/* epoch seconds, or -1 */
	double		pay_per_request_at; /* last switch to PAY_PER_REQUEST, or -1 */
	bool		stale;			/* catalog row of a dropped physical table */
} TableRow;

/* the key attributes of an index in a request, in KeySchema order */
static List *
index_key_names(ApiIndexSpec *ix)
{
	List	   *out = NIL;
	int			i;

	if (!ix->multi)
		return list_make2(ix->hash_key, ix->range_key);
	for (i = 0; i < ix->nkeys; i++)
		out = lappend(out, ix->keys[i]);
	return out;
}

/* ----------------------------------------------------------------
 * helpers
 * ----------------------------------------------------------------
 */

static Oid
create_physical_table(const char *physname)
{
	CreateStmt *stmt = makeNode(CreateStmt);
	ColumnDef  *keycol = makeColumnDef("key", ItemKeyTypeOid(), -1, InvalidOid);
	ColumnDef  *itemcol = makeColumnDef("item", JSONBOID, -1, InvalidOid);
	Constraint *pk = makeNode(Constraint);
	Constraint *nn = makeNode(Constraint);
	Oid			nsp = get_namespace_oid(ITEM_DATA_SCHEMA, false);

	pk->contype = CONSTR_PRIMARY;
	pk->location = -1;
	keycol->constraints = list_make1(pk);
	nn->contype = CONSTR_NOTNULL;
	nn->location = -1;
	itemcol->constraints = list_make1(nn);

	if (OidIsValid(get_relname_relid(physname, nsp)))
		DynRaise(DYN_RESOURCE_IN_USE, "Table already exists: %s", physname);

	stmt->relation = makeRangeVar(ITEM_DATA_SCHEMA, pstrdup(physname), -1);
	stmt->tableElts = list_make2(keycol, itemcol);
	stmt->oncommit = ONCOMMIT_NOOP;
	stmt->if_not_exists = false;
	ItemRunUtility((Node *) stmt, "item_table.create_table");
	return get_relname_relid(physname, nsp);
}

static void
exec_catalog(const char *sql, int nargs, Oid *argtypes, Datum *values,
			 const char *nulls, int expected)
{
	ItemRoleSwitch sw;
	int			rc;

	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args(sql, nargs, argtypes, values, nulls, false, 0);
	ItemAsRoleEnd(&sw);
	if (rc != expected)
		elog(ERROR, "catalog update failed: %s", SPI_result_code_string(rc));
}

static const char *const catalog_columns =
"t.table_name, t.table_id::pg_catalog.text, t.relid::pg_catalog.oid, t.hash_key, t.hash_type,"
" t.range_key, t.range_type, t.billing_mode, t.read_capacity, t.write_capacity,"
" pg_catalog.date_part('epoch', t.created_at)::pg_catalog.float8,"
" GREATEST(c.reltuples, 0)::pg_catalog.int8,"
" (c.relpages::pg_catalog.int8 OPERATOR(pg_catalog.*) pg_catalog.current_setting('block_size')::pg_catalog.int8),";

/* the 1.2 columns, or what a catalog from before 1.2 implies */
static const char *const catalog_columns_1_2 =
" t.deletion_protection, t.table_class,"
" coalesce(pg_catalog.date_part('epoch', t.table_class_updated_at)::pg_catalog.float8, -1),"
" coalesce(pg_catalog.date_part('epoch', t.pay_per_request_at)::pg_catalog.float8, -1)";
static const char *const catalog_columns_1_1 =
" false, NULL::pg_catalog.text, -1::pg_catalog.float8, -1::pg_catalog.float8";

static void
read_row(HeapTuple tup, TupleDesc desc, TableRow *row)
{
	bool		isnull;

	row->name = SPI_getvalue(tup, desc, 1);
	row->table_id = SPI_getvalue(tup, desc, 2);
	row->relid = DatumGetObjectId(SPI_getbinval(tup, desc, 3, &isnull));
	row->hash_key = SPI_getvalue(tup, desc, 4);
	row->hash_type = SPI_getvalue(tup, desc, 5);
	row->range_key = SPI_getvalue(tup, desc, 6);
	row->range_type = SPI_getvalue(tup, desc, 7);
	row->billing_mode = SPI_getvalue(tup, desc, 8);
	row->read_capacity = DatumGetInt64(SPI_getbinval(tup, desc, 9, &isnull));
	row->write_capacity = DatumGetInt64(SPI_getbinval(tup, desc, 10, &isnull));
	row->created_epoch = DatumGetFloat8(SPI_getbinval(tup, desc, 11, &isnull));
	row->item_count = DatumGetInt64(SPI_getbinval(tup, desc, 12, &isnull));
	row->size_bytes = DatumGetInt64(SPI_getbinval(tup, desc, 13, &isnull));
	row->deletion_protection = DatumGetBool(SPI_getbinval(tup, desc, 14, &isnull));
	row->table_class = SPI_getvalue(tup, desc, 15);
	row->table_class_updated = DatumGetFloat8(SPI_getbinval(tup, desc, 16, &isnull));
	row->pay_per_request_at = DatumGetFloat8(SPI_getbinval(tup, desc, 17, &isnull));
}

/* the catalog row of a table, or false */
static bool
fetch_row(const char *name, TableRow *row)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(name)};
	char	   *sql = psprintf("SELECT %s%s FROM item_table.tables t"
							   " LEFT JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.relid::pg_catalog.oid"
							   " WHERE t.table_name OPERATOR(pg_catalog.=) $1", catalog_columns,
							   ApiCatalogIs12() ? catalog_columns_1_2 : catalog_columns_1_1);
	int			rc;

	row->stale = false;
	/* not read-only: CreateTable reads back the row it just wrote */
	rc = SPI_execute_with_args(sql, 1, argtypes, values, NULL, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "catalog read failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return false;
	read_row(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, row);
	/* a catalog row whose table was dropped behind the API's back */
	row->stale = !SearchSysCacheExists1(RELOID, ObjectIdGetDatum(row->relid));
	return !row->stale;
}

/*
 * forget_stale_table
 *		Remove the catalog rows of a table whose physical table is gone.
 *		The sql_drop event trigger (catalog.c) does this as the DROP
 *		happens; this covers drops it did not see.
 */
static void
forget_stale_table(const char *name)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(name)};

	exec_catalog("DELETE FROM item_table.tables WHERE table_name OPERATOR(pg_catalog.=) $1",
				 1, argtypes, values, NULL, SPI_OK_DELETE);
	TableDefForget(name);
}

static void
push_key_schema_element(JsonbParseState **state, const char *name, const char *type)
{
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(state, "AttributeName");
	ApiPushString(state, name);
	ApiPushKey(state, "KeyType");
	ApiPushString(state, type);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

static void
push_attribute_definition(JsonbParseState **state, const char *name, const char *type)
{
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(state, "AttributeName");
	ApiPushString(state, name);
	ApiPushKey(state, "AttributeType");
	ApiPushString(state, type);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

static void
push_int(JsonbParseState **state, int64 v)
{
	ApiPushNumeric(state, (double) v, 0);
}

/*
 * push_restore_summary
 *		RestoreSummary of a table made by RestoreTableFromBackup or
 *		RestoreTableToPointInTime (item_table.table_restores, backup.c);
 *		nothing for any other table, or before the catalog has the table
 *		(an installed version older than the library).
 */
static void
push_restore_summary(JsonbParseState **state, const char *table_id)
{
	Oid			nsp = get_namespace_oid("item_table", true);
	Oid			types[1] = {TEXTOID};
	Datum		values[1];
	HeapTuple	tup;
	TupleDesc	desc;
	bool		isnull;
	char	   *backup;

	if (!OidIsValid(nsp) || !OidIsValid(get_relname_relid("table_restores", nsp)))
		return;
	values[0] = CStringGetTextDatum(table_id);
	if (SPI_execute_with_args("SELECT source_backup_arn, source_table_arn,"
							  " pg_catalog.date_part('epoch', pg_catalog.date_trunc('milliseconds', restore_date_time))::pg_catalog.float8"
							  " FROM item_table.table_restores"
							  " WHERE table_id OPERATOR(pg_catalog.=) $1::pg_catalog.uuid",
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		return;
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	ApiPushKey(state, "RestoreSummary");
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	backup = SPI_getvalue(tup, desc, 1);
	if (backup != NULL)
	{
		ApiPushKey(state, "SourceBackupArn");
		ApiPushString(state, backup);
	}
	ApiPushKey(state, "SourceTableArn");
	ApiPushString(state, SPI_getvalue(tup, desc, 2));
	ApiPushKey(state, "RestoreDateTime");
	ApiPushNumeric(state, DatumGetFloat8(SPI_getbinval(tup, desc, 3, &isnull)), 3);
	ApiPushKey(state, "RestoreInProgress");
	ApiPushBool(state, false);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/*
 * push_description
 *		The TableDescription object.  full=false gives DeleteTable's reduced
 *		field set.
 */
static JsonbValue *
push_description(JsonbParseState **state, const TableRow *row,
				 const char *status, bool full)
{
	bool		on_demand = strcmp(row->billing_mode, "PAY_PER_REQUEST") == 0;

	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	if (full)
	{
		List	   *more = ApiIndexAttributeDefinitions(row->name, row->hash_key, row->range_key);
		ListCell   *lc;

		ApiPushKey(state, "AttributeDefinitions");
		pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
		push_attribute_definition(state, row->hash_key, row->hash_type);
		if (row->range_key != NULL)
			push_attribute_definition(state, row->range_key, row->range_type);
		foreach(lc, more)
			push_attribute_definition(state, ((ApiAttrDef *) lfirst(lc))->name,
									  ((ApiAttrDef *) lfirst(lc))->type);
		/* the search schemas' definitions no key has given already */
		foreach(lc, ApiVectorAttributeDefinitions(row->name))
		{
			ApiAttrDef *d = (ApiAttrDef *) lfirst(lc);
			ListCell   *mc;
			bool		seen = strcmp(d->name, row->hash_key) == 0 ||
				(row->range_key != NULL && strcmp(d->name, row->range_key) == 0);

			foreach(mc, more)
				seen |= strcmp(((ApiAttrDef *) lfirst(mc))->name, d->name) == 0;
			if (!seen)
				push_attribute_definition(state, d->name, d->type);
		}
		pushJsonbValue(state, WJB_END_ARRAY, NULL);
	}
	ApiPushKey(state, "TableName");
	ApiPushString(state, row->name);
	if (full)
	{
		ApiPushKey(state, "KeySchema");
		pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
		push_key_schema_element(state, row->hash_key, "HASH");
		if (row->range_key != NULL)
			push_key_schema_element(state, row->range_key, "RANGE");
		pushJsonbValue(state, WJB_END_ARRAY, NULL);
	}
	ApiPushKey(state, "TableStatus");
	ApiPushString(state, status);
	if (full)
	{
		ApiPushKey(state, "CreationDateTime");
		ApiPushNumeric(state, row->created_epoch, 3);
	}
	ApiPushKey(state, "ProvisionedThroughput");
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(state, "NumberOfDecreasesToday");
	push_int(state, 0);
	ApiPushKey(state, "ReadCapacityUnits");
	push_int(state, on_demand ? 0 : row->read_capacity);
	ApiPushKey(state, "WriteCapacityUnits");
	push_int(state, on_demand ? 0 : row->write_capacity);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
	ApiPushKey(state, "TableSizeBytes");
	push_int(state, row->size_bytes);
	ApiPushKey(state, "ItemCount");
	push_int(state, row->item_count);
	ApiPushKey(state, "TableArn");
	ApiPushString(state, psprintf("arn:aws:dynamodb:local:000000000000:table/%s", row->name));
	ApiPushKey(state, "TableId");
	ApiPushString(state, row->table_id);
	/*
	 * BillingModeSummary: on demand, with the time the table became so (its
	 * creation, unless it was switched later); a provisioned table shows it
	 * only once it has been on demand.
	 */
	if (on_demand || row->pay_per_request_at >= 0)
	{
		ApiPushKey(state, "BillingModeSummary");
		pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(state, "BillingMode");
		ApiPushString(state, on_demand ? "PAY_PER_REQUEST" : "PROVISIONED");
		ApiPushKey(state, "LastUpdateToPayPerRequestDateTime");
		ApiPushNumeric(state, row->pay_per_request_at >= 0 ?
					   row->pay_per_request_at : row->created_epoch, 3);
		pushJsonbValue(state, WJB_END_OBJECT, NULL);
	}
	if (full)
		ApiPushIndexDescriptions(state, row->name, on_demand);
	if (full)
		ApiPushVectorIndexDescriptions(state, row->name);
	if (full)
		ApiPushStreamDescription(state, row->name);
	if (full)
	{
		ApiPushKey(state, "DeletionProtectionEnabled");
		ApiPushBool(state, row->deletion_protection);
		/* shown once a class was chosen, as DynamoDB does */
		if (row->table_class != NULL)
		{
			ApiPushKey(state, "TableClassSummary");
			pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
			if (row->table_class_updated >= 0)
			{
				ApiPushKey(state, "LastUpdateDateTime");
				ApiPushNumeric(state, row->table_class_updated, 3);
			}
			ApiPushKey(state, "TableClass");
			ApiPushString(state, row->table_class);
			pushJsonbValue(state, WJB_END_OBJECT, NULL);
		}
		push_restore_summary(state, row->table_id);
	}
	return pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/* wrap {"<member>": description} and copy it out of SPI's memory */
static Jsonb *
finish_description(const char *member, const TableRow *row, const char *status,
				   bool full, MemoryContext callercxt)
{
	JsonbParseState *state = NULL;
	JsonbValue *res;
	Jsonb	   *jb;
	MemoryContext old;

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, member);
	push_description(&state, row, status, full);
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	old = MemoryContextSwitchTo(callercxt);
	jb = JsonbValueToJsonb(res);
	MemoryContextSwitchTo(old);
	return jb;
}

/*
 * describe_table_row
 *		The table's row read into *row and described as finish_description
 *		does; ResourceNotFoundException when there is no such table.
 */
static Jsonb *
describe_table_row(const char *name, TableRow *row, const char *member,
				   const char *status, bool full, MemoryContext callercxt)
{
	if (!fetch_row(name, row))
		DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found: Table: %s not found", name);
	return finish_description(member, row, status, full, callercxt);
}

/* ----------------------------------------------------------------
 * CreateTable
 * ----------------------------------------------------------------
 */
typedef struct KeyElem
{
	char	   *name;
	int			keytype;		/* 0 HASH, 1 RANGE, -1 invalid */
} KeyElem;

static const char *const key_types[] = {"HASH", "RANGE"};
static const char *const attr_key_types[] = {"S", "N", "B"};
static const char *const billing_modes[] = {"PROVISIONED", "PAY_PER_REQUEST"};
static const char *const table_classes[] = {"STANDARD", "STANDARD_INFREQUENT_ACCESS"};
static const char *const sse_types[] = {"AES256", "KMS"};

/*
 * check_unavailable
 *		Parameters of CreateTable/UpdateTable whose feature item_table does
 *		not have are refused, never accepted and ignored: server-side
 *		encryption with KMS keys, replicas and the other settings of global
 *		tables, a table's maximum on-demand throughput (nothing is metered
 *		or throttled here) and warm throughput (nothing to pre-warm).
 */
static void
check_unavailable(ApiRequest *req)
{
	Jsonb	   *sse = ApiGetObject(req, "SSESpecification");

	if (sse != NULL)
	{
		ApiRequest	sub;
		bool		enabled = false;

		ApiRequestInit(&sub, sse);
		(void) ApiGetBool(&sub, "Enabled", &enabled);
		(void) ApiGetEnum(&sub, "SSEType", "sSESpecification.sSEType", sse_types, lengthof(sse_types));
		(void) ApiGetString(&sub, "KMSMasterKeyId", "sSESpecification.kMSMasterKeyId", false);
		req->problems = list_concat(req->problems, sub.problems);
		if (enabled || ApiGetMember(&sub, "SSEType") != NULL ||
			ApiGetMember(&sub, "KMSMasterKeyId") != NULL)
			DynValidation("One or more parameter values were invalid: server-side encryption with KMS keys is not available in item_table");
	}
	if (ApiGetMember(req, "ReplicaUpdates") != NULL)
		DynValidation("One or more parameter values were invalid: replicas (global tables) are not available in item_table");
	if (ApiGetMember(req, "MultiRegionConsistency") != NULL ||
		ApiGetMember(req, "GlobalTableWitnessUpdates") != NULL)
		DynValidation("One or more parameter values were invalid: global tables are not available in item_table");
	if (ApiGetMember(req, "OnDemandThroughput") != NULL)
		DynValidation("One or more parameter values were invalid: OnDemandThroughput is not available in item_table (requests are not metered or throttled)");
	if (ApiGetMember(req, "WarmThroughput") != NULL)
		DynValidation("One or more parameter values were invalid: WarmThroughput is not available in item_table");
}

/*
 * The definitions of defs that name a vector index's search schema
 * attribute (search_attrs) and no key of the table.
 */
static int
count_search_schema_defs(List *defs, List *search_attrs, const KeyElem *keys, int nkeys)
{
	ListCell   *lc;
	int			n = 0;

	foreach(lc, defs)
	{
		ApiAttrDef *d = (ApiAttrDef *) lfirst(lc);
		ListCell   *sc;
		bool		found = false;

		for (int i = 0; i < nkeys; i++)
			if (strcmp(keys[i].name, d->name) == 0)
				found = true;
		if (found)
			continue;
		foreach(sc, search_attrs)
			if (strcmp((char *) lfirst(sc), d->name) == 0)
				found = true;
		n += found;
	}
	return n;
}

Datum
item_table_create_table(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	char	   *name;
	Jsonb	   *attrdefs_j;
	Jsonb	   *keyschema_j;
	Jsonb	   *throughput_j;
	List	   *attrdefs;
	List	   *keyschema;
	int			billing;
	int64		rcu = 0,
				wcu = 0;
	KeyElem		keys[2];
	int			nkeys = 0;
	char	   *hash_type = NULL;
	char	   *range_type = NULL;
	ListCell   *lc;
	int			i;
	TableRow	row;
	Oid			relid;
	char	   *physname;
	Jsonb	   *result;
	List	   *indexes = NIL;
	List	   *defs = NIL;
	List	   *search_attrs;
	int			nlsi = 0;
	int			ngsi = 0;
	int			nonkey_total = 0;
	bool		protect = false;
	int			table_class;
	List	   *tags;
	bool		has_stream;
	bool		stream_enabled;
	int			stream_view;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	/* CreateTable checks this one before the model's constraints */
	if (ApiGetMember(&req, "TableName") == NULL)
		DynValidation("The parameter 'TableName' is required but was not present in the request");
	name = ApiGetTableName(&req, "TableName", "tableName", true);
	has_stream = ApiStreamSpecParse(&req, &stream_enabled, &stream_view);
	(void) ApiGetBool(&req, "DeletionProtectionEnabled", &protect);
	table_class = ApiGetEnum(&req, "TableClass", "tableClass", table_classes, lengthof(table_classes));
	tags = ApiParseTags(&req, ApiGetArray(&req, "Tags"), "tags");
	attrdefs_j = ApiGetArray(&req, "AttributeDefinitions");
	keyschema_j = ApiGetArray(&req, "KeySchema");
	if (attrdefs_j == NULL)
		ApiProblem(&req, "Value null at 'attributeDefinitions' failed to satisfy constraint: Member must not be null");
	if (keyschema_j == NULL)
		ApiProblem(&req, "Value null at 'keySchema' failed to satisfy constraint: Member must not be null");
	billing = ApiGetEnum(&req, "BillingMode", "billingMode", billing_modes, lengthof(billing_modes));
	throughput_j = ApiGetObject(&req, "ProvisionedThroughput");
	{
		List	   *g = ApiArrayOfObjects(ApiGetArray(&req, "GlobalSecondaryIndexes"), "GlobalSecondaryIndexes");
		List	   *l = ApiArrayOfObjects(ApiGetArray(&req, "LocalSecondaryIndexes"), "LocalSecondaryIndexes");

		foreach(lc, g)
			indexes = lappend(indexes, ApiParseIndex(&req, (Jsonb *) lfirst(lc), false,
													 psprintf("globalSecondaryIndexes.%d.member",
															  foreach_current_index(lc) + 1)));
		foreach(lc, l)
			indexes = lappend(indexes, ApiParseIndex(&req, (Jsonb *) lfirst(lc), true,
													 psprintf("localSecondaryIndexes.%d.member",
															  foreach_current_index(lc) + 1)));
		nlsi = list_length(l);
		ngsi = list_length(g);
	}

	attrdefs = ApiArrayOfObjects(attrdefs_j, "AttributeDefinitions");
	keyschema = ApiArrayOfObjects(keyschema_j, "KeySchema");
	if (keyschema_j != NULL && list_length(keyschema) < 1)
		ApiProblem(&req, "Value '[]' at 'keySchema' failed to satisfy constraint: Member must have length greater than or equal to 1");
	if (list_length(keyschema) > 2)
		ApiProblem(&req, "Value '%s' at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2",
				   ApiEchoList(keyschema_j, &ApiEchoKeySchemaElement));
	i = 0;
	foreach(lc, keyschema)
	{
		ApiRequest	sub;

		ApiRequestInit(&sub, (Jsonb *) lfirst(lc));
		if (nkeys < 2)
		{
			keys[nkeys].name = ApiGetString(&sub, "AttributeName",
											psprintf("keySchema.%d.member.attributeName", i + 1), true);
			ApiCheckKeyAttributeName(&sub, keys[nkeys].name,
									 psprintf("keySchema.%d.member.attributeName", i + 1));
			keys[nkeys].keytype = ApiGetEnum(&sub, "KeyType",
											 psprintf("keySchema.%d.member.keyType", i + 1),
											 key_types, lengthof(key_types));
			if (ApiGetMember(&sub, "KeyType") == NULL)
				ApiProblem(&sub, "Value null at 'keySchema.%d.member.keyType' failed to satisfy constraint: Member must not be null", i + 1);
			nkeys++;
		}
		req.problems = list_concat(req.problems, sub.problems);
		i++;
	}
	i = 0;
	foreach(lc, attrdefs)
	{
		ApiRequest	sub;

		ApiRequestInit(&sub, (Jsonb *) lfirst(lc));
		ApiCheckKeyAttributeName(&sub,
								 ApiGetString(&sub, "AttributeName",
											  psprintf("attributeDefinitions.%d.member.attributeName", i + 1), true),
								 psprintf("attributeDefinitions.%d.member.attributeName", i + 1));
		(void) ApiGetEnum(&sub, "AttributeType",
						  psprintf("attributeDefinitions.%d.member.attributeType", i + 1),
						  attr_key_types, lengthof(attr_key_types));
		if (ApiGetMember(&sub, "AttributeType") == NULL)
			ApiProblem(&sub, "Value null at 'attributeDefinitions.%d.member.attributeType' failed to satisfy constraint: Member must not be null", i + 1);
		req.problems = list_concat(req.problems, sub.problems);
		i++;
	}
	if (throughput_j != NULL)
	{
		ApiRequest	sub;
		bool		has_r,
					has_w;

		ApiRequestInit(&sub, throughput_j);
		has_r = ApiGetInt(&sub, "ReadCapacityUnits", "provisionedThroughput.readCapacityUnits", &rcu);
		has_w = ApiGetInt(&sub, "WriteCapacityUnits", "provisionedThroughput.writeCapacityUnits", &wcu);
		/* DynamoDB lists WriteCapacityUnits first */
		if (!has_w)
			ApiProblem(&sub, "Value null at 'provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must not be null");
		else if (wcu < 1)
			ApiProblem(&sub, "Value '" INT64_FORMAT "' at 'provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1", wcu);
		if (!has_r)
			ApiProblem(&sub, "Value null at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must not be null");
		else if (rcu < 1)
			ApiProblem(&sub, "Value '" INT64_FORMAT "' at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1", rcu);
		req.problems = list_concat(req.problems, sub.problems);
	}
	ApiRequestCheck(&req);
	check_unavailable(&req);
	ApiRequestCheck(&req);

	/* billing first, as DynamoDB checks it */
	if (billing == 1)
	{
		if (throughput_j != NULL)
			DynValidation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST");
	}
	else if (throughput_j == NULL)
		DynValidation("One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED");
	if (rcu > INT64CONST(1000000000000))
		DynValidation("Given value " INT64_FORMAT " for ReadCapacityUnits is out of bounds", rcu);
	if (wcu > INT64CONST(1000000000000))
		DynValidation("Given value " INT64_FORMAT " for WriteCapacityUnits is out of bounds", wcu);
	if (has_stream)
		ApiStreamSpecCheck(stream_enabled, stream_view);

	/* the definitions, each name once */
	foreach(lc, attrdefs)
	{
		ApiRequest	sub;
		ApiAttrDef *d = palloc(sizeof(ApiAttrDef));
		ListCell   *pc;

		ApiRequestInit(&sub, (Jsonb *) lfirst(lc));
		d->name = ApiGetString(&sub, "AttributeName", "attributeName", true);
		d->type = ApiGetString(&sub, "AttributeType", "attributeType", true);
		foreach(pc, defs)
		{
			if (strcmp(((ApiAttrDef *) lfirst(pc))->name, d->name) == 0)
				DynValidation("Attribute Name is duplicated: %s", d->name);
		}
		defs = lappend(defs, d);
	}

	/* vector indexes' search schema attributes are defined too (vector.sql
	 * checks each is), and so count as used below */
	search_attrs = ApiVectorSearchSchemaNames(ApiGetArray(&req, "VectorIndexes"));

	/* semantic checks, in DynamoDB's order: the table's key schema */
	ApiCheckKeysDefined(keys[0].name, nkeys == 2 ? keys[1].name : NULL, defs);
	if (nkeys == 2 && strcmp(keys[0].name, keys[1].name) == 0)
		DynValidation("Both the Hash Key and the Range Key element in the KeySchema have the same name");
	if (keys[0].keytype != 0)
		DynValidation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
	if (nkeys == 2 && keys[1].keytype != 1)
		DynValidation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type");
	if (indexes == NIL && list_length(defs) - count_search_schema_defs(defs, search_attrs, keys, nkeys) != nkeys)
		DynValidation("One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions");
	foreach(lc, defs)
	{
		ApiAttrDef *d = (ApiAttrDef *) lfirst(lc);

		for (i = 0; i < nkeys; i++)
		{
			if (strcmp(keys[i].name, d->name) == 0)
			{
				if (i == 0)
					hash_type = d->type;
				else
					range_type = d->type;
			}
		}
	}

	/* indexes */
	if (nlsi > 5)
		DynValidation("One or more parameter values were invalid: Number of LocalSecondaryIndexes exceeds per-table limit of 5");
	if (ngsi > 20)
		DynRaise(DYN_LIMIT_EXCEEDED, "Subscriber limit exceeded: The number of global secondary indexes exceeds the per-table limit of 20");
	foreach(lc, indexes)
	{
		ApiIndexSpec *ix = (ApiIndexSpec *) lfirst(lc);
		ListCell   *pc;

		ApiCheckIndexKeysDefined(ix, defs);
		ApiCheckIndex(ix, keys[0].name, nkeys == 2 ? keys[1].name : NULL);
		foreach(pc, indexes)
		{
			if (pc == lc)
				break;
			if (strcmp(((ApiIndexSpec *) lfirst(pc))->name, ix->name) == 0)
				DynValidation("One or more parameter values were invalid: Duplicate index name: %s", ix->name);
		}
		nonkey_total += list_length(ix->nonkey);
		if (!ix->is_local && billing == 1 && ix->throughput != NULL)
			DynValidation("One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", ix->name);
		if (!ix->is_local && billing != 1 && ix->throughput == NULL)
			DynValidation("One or more parameter values were invalid: ProvisionedThroughput must be specified for index: %s", ix->name);
	}
	if (nonkey_total > 100)
		DynValidation("One or more parameter values were invalid: Number of projected attributes in all indexes exceeds limit of 100");

	/* with indexes: every definition must be a key of the table or an index */
	if (indexes != NIL)
	{
		StringInfoData used;
		StringInfoData all;
		bool		unused = false;

		initStringInfo(&used);
		initStringInfo(&all);
		foreach(lc, defs)
		{
			ApiAttrDef *d = (ApiAttrDef *) lfirst(lc);
			bool		is_key = false;
			ListCell   *kc;

			for (i = 0; i < nkeys; i++)
				if (strcmp(keys[i].name, d->name) == 0)
					is_key = true;
			foreach(kc, indexes)
			{
				ApiIndexSpec *ix = (ApiIndexSpec *) lfirst(kc);

				if (ApiIndexHasKey(ix, d->name))
					is_key = true;
			}
			foreach(kc, search_attrs)
			{
				if (strcmp((char *) lfirst(kc), d->name) == 0)
					is_key = true;
			}
			appendStringInfo(&all, "%s%s", all.len > 0 ? ", " : "", d->name);
			if (is_key)
				appendStringInfo(&used, "%s%s", used.len > 0 ? ", " : "", d->name);
			else
				unused = true;
		}
		if (unused)
			DynValidation("One or more parameter values were invalid: Some AttributeDefinitions are not used. AttributeDefinitions: [%s], keys used: [%s]",
						  all.data, used.data);
	}


	if (protect || table_class >= 0 || tags != NIL)
		ApiRequireCatalog12(protect ? "DeletionProtectionEnabled" :
							table_class >= 0 ? "TableClass" : "Tags");
	SPI_connect();
	if (fetch_row(name, &row))
		DynRaise(DYN_RESOURCE_IN_USE, "Table already exists: %s", name);
	if (row.stale)
		forget_stale_table(name);

	physname = ItemPhysicalTableName(name);
	relid = create_physical_table(physname);
	ItemGuardInstall(relid);

	{
		Oid			argtypes[11] = {TEXTOID, OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID,
		TEXTOID, INT8OID, INT8OID, BOOLOID, TEXTOID};
		Datum		values[11];
		char		nulls[11] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};

		values[0] = CStringGetTextDatum(name);
		values[1] = ObjectIdGetDatum(relid);
		values[2] = CStringGetTextDatum(keys[0].name);
		values[3] = CStringGetTextDatum(hash_type);
		if (nkeys == 2)
		{
			values[4] = CStringGetTextDatum(keys[1].name);
			values[5] = CStringGetTextDatum(range_type);
		}
		else
			nulls[4] = nulls[5] = 'n';
		values[6] = CStringGetTextDatum(billing == 1 ? "PAY_PER_REQUEST" : "PROVISIONED");
		values[7] = Int64GetDatum(rcu);
		values[8] = Int64GetDatum(wcu);
		values[9] = BoolGetDatum(protect);
		if (table_class >= 0)
			values[10] = CStringGetTextDatum(table_classes[table_class]);
		else
			nulls[10] = 'n';
		if (!ApiCatalogIs12())
			exec_catalog("INSERT INTO item_table.tables (table_name, table_id, relid, hash_key, hash_type,"
						 " range_key, range_type, billing_mode, read_capacity, write_capacity)"
						 " VALUES ($1, pg_catalog.gen_random_uuid(), $2::pg_catalog.oid::pg_catalog.regclass,"
						 " $3, $4, $5, $6, $7, $8, $9)",
						 9, argtypes, values, nulls, SPI_OK_INSERT);
		else
				exec_catalog("INSERT INTO item_table.tables (table_name, table_id, relid, hash_key, hash_type,"
						 " range_key, range_type, billing_mode, read_capacity, write_capacity,"
						 " deletion_protection, table_class)"
						 " VALUES ($1, pg_catalog.gen_random_uuid(), $2::pg_catalog.oid::pg_catalog.regclass,"
						 " $3, $4, $5, $6, $7, $8, $9, $10, $11)",
						 11, argtypes, values, nulls, SPI_OK_INSERT);
	}
	if (tags != NIL)
		ApiStoreTags(name, tags);
	foreach(lc, indexes)
	{
		ApiIndexSpec *ix = (ApiIndexSpec *) lfirst(lc);
		int64		irc = 0,
					iwc = 0;

		if (ix->throughput != NULL)
		{
			ApiRequest	tp;

			ApiRequestInit(&tp, ix->throughput);
			(void) ApiGetInt(&tp, "ReadCapacityUnits", "readCapacityUnits", &irc);
			(void) ApiGetInt(&tp, "WriteCapacityUnits", "writeCapacityUnits", &iwc);
		}
		ApiCreateIndex(name, relid, ix, defs, false, irc, iwc);
	}
	if (ApiGetMember(&req, "VectorIndexes") != NULL)
	{
		List	   *taken = NIL;

		foreach(lc, indexes)
			taken = lappend(taken, ((ApiIndexSpec *) lfirst(lc))->name);
		ApiCreateVectorIndexes(name, relid, ApiGetArray(&req, "VectorIndexes"), taken, attrdefs_j);
	}
	if (has_stream && stream_enabled)
		ApiStreamSpecApply(relid, name, true, stream_view, true);
	result = describe_table_row(name, &row, "TableDescription", "ACTIVE", true, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * DescribeTable / DeleteTable
 * ----------------------------------------------------------------
 */
Datum
item_table_describe_table(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	char	   *name;
	TableRow	row;
	Jsonb	   *result;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	name = ApiGetTableName(&req, "TableName", "tableName", true);
	ApiRequestCheck(&req);
	SPI_connect();
	result = describe_table_row(name, &row, "Table", "ACTIVE", true, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

Datum
item_table_delete_table(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	char	   *name;
	TableRow	row;
	Jsonb	   *result;
	ObjectAddress addr;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	name = ApiGetTableName(&req, "TableName", "tableName", true);
	ApiRequestCheck(&req);
	SPI_connect();
	result = describe_table_row(name, &row, "TableDescription", "DELETING", false, callercxt);

	/*
	 * Only the owner deletes a table.  The base table is locked first, so
	 * a writer that already holds it finishes before any index table goes
	 * (writers lock the base table before its index tables, too).
	 */
	ItemCheckOwner(row.relid);
	if (row.deletion_protection)
		DynValidation("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.");
	LockRelationOid(row.relid, AccessExclusiveLock);
	/* a distributed table goes by a DROP TABLE statement, its shards with it */
	if (OidIsValid(row.relid) && get_rel_name(row.relid) != NULL)
		(void) DistDropTable(row.relid, name);
	ApiDropIndexTables(name, NULL);
	if (OidIsValid(row.relid) && get_rel_name(row.relid) != NULL)
	{
		addr.classId = RelationRelationId;
		addr.objectId = row.relid;
		addr.objectSubId = 0;
		performDeletion(&addr, DROP_RESTRICT, 0);
		CommandCounterIncrement();
	}
	{
		Oid			argtypes[1] = {TEXTOID};
		Datum		values[1] = {CStringGetTextDatum(name)};

		exec_catalog("DELETE FROM item_table.tables WHERE table_name OPERATOR(pg_catalog.=) $1",
					 1, argtypes, values, NULL, SPI_OK_DELETE);
	}
	ApiStreamTableDeleted(name);
	TableDefForget(name);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * UpdateTable
 * ----------------------------------------------------------------
 */
Datum
item_table_update_table(PG_FUNCTION_ARGS)
{
	ApiRequest	req;
	char	   *name;
	Jsonb	   *updates_j;
	Jsonb	   *vupdates_j;
	List	   *vupdates = NIL;
	Jsonb	   *attrdefs_j;
	Jsonb	   *throughput_j;
	int			billing;
	List	   *updates = NIL;
	List	   *defs = NIL;
	ItemTableDef *def;
	ListCell   *lc;
	int			creates = 0;
	int			deletes = 0;
	int64		rcu = 0,
				wcu = 0;
	bool		changed = false;
	MemoryContext callercxt = CurrentMemoryContext;
	TableRow	row;
	Jsonb	   *result;
	bool		protect = false;
	bool		has_protect;
	int			table_class;
	bool		has_stream;
	bool		stream_enabled;
	int			stream_view;
	bool		switch_to_on_demand = false;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	name = ApiGetTableName(&req, "TableName", "tableName", true);
	has_stream = ApiStreamSpecParse(&req, &stream_enabled, &stream_view);
	has_protect = ApiGetBool(&req, "DeletionProtectionEnabled", &protect);
	table_class = ApiGetEnum(&req, "TableClass", "tableClass", table_classes, lengthof(table_classes));
	updates_j = ApiGetArray(&req, "GlobalSecondaryIndexUpdates");
	vupdates_j = ApiGetArray(&req, "VectorIndexUpdates");
	attrdefs_j = ApiGetArray(&req, "AttributeDefinitions");
	throughput_j = ApiGetObject(&req, "ProvisionedThroughput");
	billing = ApiGetEnum(&req, "BillingMode", "billingMode", billing_modes, lengthof(billing_modes));
	if (throughput_j != NULL)
	{
		ApiRequest	tp;
		bool		has_r,
					has_w;

		ApiRequestInit(&tp, throughput_j);
		has_r = ApiGetInt(&tp, "ReadCapacityUnits", "provisionedThroughput.readCapacityUnits", &rcu);
		has_w = ApiGetInt(&tp, "WriteCapacityUnits", "provisionedThroughput.writeCapacityUnits", &wcu);
		/* DynamoDB lists WriteCapacityUnits first */
		if (!has_w)
			ApiProblem(&tp, "Value null at 'provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must not be null");
		else if (wcu < 1)
			ApiProblem(&tp, "Value '" INT64_FORMAT "' at 'provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1", wcu);
		if (!has_r)
			ApiProblem(&tp, "Value null at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must not be null");
		else if (rcu < 1)
			ApiProblem(&tp, "Value '" INT64_FORMAT "' at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1", rcu);
		req.problems = list_concat(req.problems, tp.problems);
	}
	ApiRequestCheck(&req);
	check_unavailable(&req);
	ApiRequestCheck(&req);
	if (updates_j == NULL && vupdates_j == NULL && throughput_j == NULL && billing < 0 &&
		!has_protect && table_class < 0 &&
		!has_stream &&
		ApiGetMember(&req, "SSESpecification") == NULL &&
		ApiGetMember(&req, "ReplicaUpdates") == NULL)
		DynValidation("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required");

	foreach(lc, ApiArrayOfObjects(attrdefs_j, "AttributeDefinitions"))
	{
		ApiRequest	sub;
		ApiAttrDef *d = palloc(sizeof(ApiAttrDef));

		ApiRequestInit(&sub, (Jsonb *) lfirst(lc));
		d->name = ApiGetString(&sub, "AttributeName", "attributeName", true);
		d->type = ApiGetString(&sub, "AttributeType", "attributeType", true);
		ApiRequestCheck(&sub);
		defs = lappend(defs, d);
	}

	SPI_connect();
	def = TableDefLookup(name);
	/* changing a table is its owner's right, as ALTER TABLE is */
	ItemCheckOwner(def->relid);

	/* billing mode and throughput against what the table has now */
	if (billing >= 0 || throughput_j != NULL)
	{
		bool		now_on_demand;
		bool		to_on_demand;

		if (!fetch_row(name, &row))
			DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found: Table: %s not found", name);
		now_on_demand = strcmp(row.billing_mode, "PAY_PER_REQUEST") == 0;
		to_on_demand = billing == 1 || (billing < 0 && now_on_demand);
		if (to_on_demand && throughput_j != NULL)
			DynValidation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST");
		if (billing == 0 && throughput_j == NULL)
			DynValidation("One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED");
		if (!to_on_demand && ApiHasVectorIndexes(name))
			DynValidation("One or more parameter values were invalid: Vector indexes are supported only for tables with BillingMode PAY_PER_REQUEST");
		if (!now_on_demand && !to_on_demand &&
			rcu == row.read_capacity && wcu == row.write_capacity)
			DynValidation("The provisioned throughput for the table will not change. The requested value equals the current value."
						  " Current ReadCapacityUnits provisioned for the table: " INT64_FORMAT ". Requested ReadCapacityUnits: " INT64_FORMAT "."
						  " Current WriteCapacityUnits provisioned for the table: " INT64_FORMAT ". Requested WriteCapacityUnits: " INT64_FORMAT "."
						  " Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
						  row.read_capacity, rcu, row.write_capacity, wcu);
		switch_to_on_demand = to_on_demand && !now_on_demand;
	}
	foreach(lc, ApiArrayOfObjects(updates_j, "GlobalSecondaryIndexUpdates"))
	{
		ApiRequest	sub;
		Jsonb	   *create;
		Jsonb	   *update;
		Jsonb	   *del;

		ApiRequestInit(&sub, (Jsonb *) lfirst(lc));
		create = ApiGetObject(&sub, "Create");
		update = ApiGetObject(&sub, "Update");
		del = ApiGetObject(&sub, "Delete");
		if ((create != NULL) + (update != NULL) + (del != NULL) != 1)
			DynValidation("One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Update, or GlobalSecondaryIndexUpdate.Delete must be specified");
		if (create != NULL)
			creates++;
		if (del != NULL)
			deletes++;
		updates = lappend(updates, lfirst(lc));
	}
	/* vector indexes count with GSIs: one online index change at a time */
	foreach(lc, ApiArrayOfObjects(vupdates_j, "VectorIndexUpdates"))
	{
		ApiRequest	sub;
		Jsonb	   *create;
		Jsonb	   *del;

		ApiRequestInit(&sub, (Jsonb *) lfirst(lc));
		create = ApiGetObject(&sub, "Create");
		del = ApiGetObject(&sub, "Delete");
		if ((create != NULL) + (del != NULL) != 1)
			DynValidation("One or more parameter values were invalid: One of VectorIndexUpdate.Create or VectorIndexUpdate.Delete must be specified");
		if (create != NULL)
			creates++;
		else
			deletes++;
		vupdates = lappend(vupdates, lfirst(lc));
	}
	if (creates + deletes > 1)
		DynRaise(DYN_LIMIT_EXCEEDED,
				 "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table");
	if (has_stream)
		ApiStreamSpecCheck(stream_enabled, stream_view);
	if (creates + deletes > 0 || has_stream)
	{
		/*
		 * Writers of the table wait for this change to commit and then see
		 * it: a write never meets an index table that is half created or
		 * already dropped.  Reads are not blocked.
		 */
		LockRelationOid(def->relid, ShareRowExclusiveLock);
		def = TableDefLookup(name);
	}

	foreach(lc, updates)
	{
		ApiRequest	sub;
		Jsonb	   *create;
		Jsonb	   *del;
		/* the indexes as the previous update left them */
		ItemTableDef *t = TableDefByRelid(def->relid);

		ApiRequestInit(&sub, (Jsonb *) lfirst(lc));
		create = ApiGetObject(&sub, "Create");
		del = ApiGetObject(&sub, "Delete");
		if (create != NULL)
		{
			ApiRequest	cr;
			ApiIndexSpec *ix;
			ListCell   *dc;
			List	   *ixdefs;
			int			ngsi = 0;
			int			i;
			int64		irc = 0,
						iwc = 0;

			ApiRequestInit(&cr, PG_GETARG_JSONB_P(0));
			ix = ApiParseIndex(&cr, create, false,
							   psprintf("globalSecondaryIndexUpdates.%d.member.create",
										foreach_current_index(lc) + 1));
			ApiRequestCheck(&cr);
			ApiCheckIndex(ix, def->hash_key, def->range_key);
			DistCheckIndexCreate(def);
			if (t != NULL && TableDefFindIndex(t, ix->name) != NULL)
				DynValidation("One or more parameter values were invalid: Attempting to create an index which already exists");
			for (i = 0; t != NULL && i < t->nindexes; i++)
				ngsi += !t->indexes[i].is_local;
			if (ngsi >= 20)
				DynRaise(DYN_LIMIT_EXCEEDED, "Subscriber limit exceeded: The number of global secondary indexes exceeds the per-table limit of 20");
			/*
			 * Key attributes: the request's AttributeDefinitions must define
			 * them (definitions the table already has do not count), and an
			 * attribute the table or another index already keys on keeps its
			 * type: the request defining it with another one is refused
			 * (below).  Definitions no key uses are dropped.
			 */
			ApiCheckIndexKeysDefined(ix, defs);
			ixdefs = NIL;
			foreach(dc, index_key_names(ix))
			{
				const char *attr = (const char *) lfirst(dc);
				ListCell   *ac;
				ApiAttrDef *d = palloc(sizeof(ApiAttrDef));
				List	   *known = ApiIndexAttributeDefinitions(name, "", NULL);

				if (attr == NULL)
					continue;
				d->name = (char *) attr;
				d->type = NULL;
				if (strcmp(attr, def->hash_key) == 0)
					d->type = (char *) AttrTypeName(def->hash_type);
				else if (def->range_key && strcmp(attr, def->range_key) == 0)
					d->type = (char *) AttrTypeName(def->range_type);
				foreach(ac, known)
				{
					if (d->type == NULL && strcmp(((ApiAttrDef *) lfirst(ac))->name, attr) == 0)
						d->type = ((ApiAttrDef *) lfirst(ac))->type;
				}
				foreach(ac, defs)
				{
					if (d->type == NULL && strcmp(((ApiAttrDef *) lfirst(ac))->name, attr) == 0)
						d->type = ((ApiAttrDef *) lfirst(ac))->type;
				}
				ixdefs = lappend(ixdefs, d);
				/* a key attribute keeps the type it has: no redefinition */
				foreach(ac, defs)
				{
					ApiAttrDef *rd = (ApiAttrDef *) lfirst(ac);

					if (strcmp(rd->name, attr) == 0 && rd->type != NULL &&
						strcmp(rd->type, d->type) != 0)
						DynValidation("invalid attribute, SchemaElement redefined should be of same type as previously defined");
				}
			}
			if (ix->throughput != NULL)
			{
				ApiRequest	tp;

				ApiRequestInit(&tp, ix->throughput);
				(void) ApiGetInt(&tp, "ReadCapacityUnits", "readCapacityUnits", &irc);
				(void) ApiGetInt(&tp, "WriteCapacityUnits", "writeCapacityUnits", &iwc);
			}
			ApiCreateIndex(name, def->relid, ix, ixdefs, true, irc, iwc);
			changed = true;
		}
		else if (del != NULL)
		{
			ApiRequest	dr;
			char	   *iname;
			IndexDef   *idx;

			ApiRequestInit(&dr, del);
			iname = ApiGetTableName(&dr, "IndexName", "indexName", true);
			ApiRequestCheck(&dr);
			idx = t != NULL ? TableDefFindIndex(t, iname) : NULL;
			if (idx == NULL || idx->is_local)
				DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found: Requested index %s not found", iname);
			ApiDropIndexTables(name, iname);
			CacheInvalidateRelcacheByRelid(def->relid);
			changed = true;
		}
		/* Update: throughput of an index is recorded only */
	}
	foreach(lc, vupdates)
	{
		ApiRequest	sub;
		Jsonb	   *create;
		Jsonb	   *del;
		ItemTableDef *t = TableDefByRelid(def->relid);
		List	   *taken = NIL;

		ApiRequestInit(&sub, (Jsonb *) lfirst(lc));
		create = ApiGetObject(&sub, "Create");
		del = ApiGetObject(&sub, "Delete");
		for (int i = 0; t != NULL && i < t->nindexes; i++)
			taken = lappend(taken, t->indexes[i].name);
		if (create != NULL)
		{
			DistCheckIndexCreate(def);
			ApiCreateVectorIndexUpdate(name, def->relid, create, foreach_current_index(lc) + 1, taken,
									   attrdefs_j);
		}
		else
		{
			ApiRequest	dr;
			char	   *iname;

			ApiRequestInit(&dr, del);
			iname = ApiGetTableName(&dr, "IndexName", "indexName", true);
			ApiRequestCheck(&dr);
			ApiDeleteVectorIndex(name, def->relid, iname);
		}
		changed = true;
	}
	if (billing >= 0 || throughput_j != NULL)
	{
		Oid			argtypes[4] = {TEXTOID, TEXTOID, INT8OID, INT8OID};
		Datum		values[4];
		char		nulls[4] = {' ', ' ', ' ', ' '};
		ItemRoleSwitch sw;

		values[0] = CStringGetTextDatum(name);
		if (billing >= 0)
			values[1] = CStringGetTextDatum(billing_modes[billing]);
		else
			nulls[1] = 'n';
		values[2] = Int64GetDatum(rcu);
		values[3] = Int64GetDatum(wcu);
		if (throughput_j == NULL)
			nulls[2] = nulls[3] = 'n';
		ItemAsCatalogOwnerBegin(&sw);
		SPI_execute_with_args("UPDATE item_table.tables SET billing_mode = coalesce($2, billing_mode),"
							  " read_capacity = coalesce($3, read_capacity), write_capacity = coalesce($4, write_capacity)"
							  " WHERE table_name OPERATOR(pg_catalog.=) $1", 4, argtypes, values, nulls, false, 0);
		/* a 1.1 catalog has nowhere to keep the time of the switch */
		if (switch_to_on_demand && ApiCatalogIs12())
			SPI_execute_with_args("UPDATE item_table.tables SET pay_per_request_at = pg_catalog.now()"
								  " WHERE table_name OPERATOR(pg_catalog.=) $1", 1, argtypes, values, nulls, false, 0);
		ItemAsRoleEnd(&sw);
		changed = true;
	}
	if (has_protect || table_class >= 0)
	{
		Oid			argtypes[3] = {TEXTOID, BOOLOID, TEXTOID};
		Datum		values[3];
		char		nulls[3] = {' ', ' ', ' '};

		values[0] = CStringGetTextDatum(name);
		values[1] = BoolGetDatum(protect);
		if (!has_protect)
			nulls[1] = 'n';
		if (table_class >= 0)
			values[2] = CStringGetTextDatum(table_classes[table_class]);
		else
			nulls[2] = 'n';
		ApiRequireCatalog12(has_protect ? "DeletionProtectionEnabled" : "TableClass");
		exec_catalog("UPDATE item_table.tables SET deletion_protection = coalesce($2, deletion_protection),"
					 " table_class_updated_at = CASE WHEN $3 IS NULL THEN table_class_updated_at"
					 " ELSE pg_catalog.now() END,"
					 " table_class = coalesce($3, table_class)"
					 " WHERE table_name OPERATOR(pg_catalog.=) $1", 3, argtypes, values, nulls,
					 SPI_OK_UPDATE);
		changed = true;
	}
	if (has_stream)
	{
		ApiStreamSpecApply(def->relid, name, stream_enabled, stream_view, false);
		changed = true;
	}
	(void) changed;

	/* the answer is the table's description, as DescribeTable gives it */
	result = describe_table_row(name, &row, "TableDescription", "ACTIVE", true, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * ListTables
 * ----------------------------------------------------------------
 */
Datum
item_table_list_tables(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	char	   *start;
	int64		limit = 100;
	bool		has_limit;
	JsonbParseState *state = NULL;
	JsonbValue *res;
	Jsonb	   *result;
	Oid			argtypes[2] = {TEXTOID, INT8OID};
	Datum		values[2];
	char		nulls[2] = {' ', ' '};
	int			rc;
	uint64		i;
	uint64		n;
	MemoryContext old;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	start = ApiGetTableName(&req, "ExclusiveStartTableName", "exclusiveStartTableName", false);
	has_limit = ApiGetInt(&req, "Limit", "limit", &limit);
	if (has_limit && limit < 1)
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", limit);
	if (has_limit && limit > 100)
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100", limit);
	ApiRequestCheck(&req);

	SPI_connect();
	if (start != NULL)
		values[0] = CStringGetTextDatum(start);
	else
		nulls[0] = 'n';
	values[1] = Int64GetDatum(limit + 1);
	rc = SPI_execute_with_args("SELECT table_name FROM item_table.tables"
							   " WHERE ($1 IS NULL OR table_name OPERATOR(pg_catalog.>) $1)"
							   " AND EXISTS (SELECT FROM pg_catalog.pg_class c"
							   "             WHERE c.oid OPERATOR(pg_catalog.=) relid::pg_catalog.oid)"
							   " ORDER BY table_name LIMIT $2",
							   2, argtypes, values, nulls, true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "catalog read failed: %s", SPI_result_code_string(rc));
	n = SPI_processed;
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "TableNames");
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	for (i = 0; i < n && i < (uint64) limit; i++)
	{
		JsonbValue	s;
		char	   *t = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);

		s.type = jbvString;
		s.val.string.val = t;
		s.val.string.len = strlen(t);
		pushJsonbValue(&state, WJB_ELEM, &s);
	}
	pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	if (n > (uint64) limit)
	{
		ApiPushKey(&state, "LastEvaluatedTableName");
		ApiPushString(&state, SPI_getvalue(SPI_tuptable->vals[limit - 1],
										   SPI_tuptable->tupdesc, 1));
	}
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	old = MemoryContextSwitchTo(callercxt);
	result = JsonbValueToJsonb(res);
	MemoryContextSwitchTo(old);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}
