/*-------------------------------------------------------------------------
 *
 * api_vector.c
 *		Vector indexes: CreateTable's VectorIndexes, DescribeTable's
 *		descriptions of them and their row trigger (SearchVectors is
 *		api_vector_search.c).
 *
 * A vector index is an index table in item_data (the item's key, the
 * value of the search schema's HASH attribute, its INLINE_FILTER values, a
 * pgvector vector(N) column with an HNSW index of the distance function's
 * operator class, and the projected item), listed in
 * item_table.vector_indexes.  pgvector is not needed to install the
 * extension: src/sql/vector.sql names its type only in statements it runs
 * by EXECUTE, after looking the type up, and a vector-index call made
 * without pgvector answers with a message saying what to install.
 *
 * CreateTable's part and DescribeTable's are done by the PL/pgSQL
 * functions of vector.sql, which nobody but the catalog owner may execute.
 * This file is their gate: it checks the caller's right on the item table
 * (the table's own creation for CreateTable) and then runs them as the
 * catalog owner
 * (ItemAsCatalogOwnerBegin), which owns every index table, so no right on
 * an index table is ever granted to anybody.
 *
 * Upkeep is a row trigger on the item table, item_table_vector_index, and
 * its work is in C (api_vector_upkeep.c): the direct write paths stand in
 * for it as they do for the GSI and stream triggers (ApiDirectTriggers),
 * so every write -- the API's, plain SQL, Time to Live -- keeps the vector
 * indexes in the writing transaction, and a write is searchable at once.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/dependency.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_class.h"
#include "catalog/namespace.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "api.h"
#include "api_index.h"
#include "api_vector.h"
#include "catalog.h"
#include "errors.h"
#include "worker_start.h"



/*
 * Has the installed version of the extension the vector-index catalog?  A
 * library newer than the installed SQL objects (before ALTER EXTENSION
 * item_table UPDATE) has none to read.
 */
static bool
vector_catalog_present(void)
{
	Oid			nsp = get_namespace_oid(ITEM_TABLE_SCHEMA, true);

	return OidIsValid(nsp) && OidIsValid(get_relname_relid("vector_indexes", nsp));
}

/* run sql (one jsonb result or none) as the catalog owner */
static Jsonb *
run_as_catalog_owner(const char *sql, int nargs, Oid *argtypes, Datum *values,
					 const char *nulls, MemoryContext resultcxt)
{
	ItemRoleSwitch sw;
	Jsonb	   *result = NULL;
	int			rc;

	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args(sql, nargs, argtypes, values, nulls, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "item_table vector index statement failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 1 && SPI_tuptable->tupdesc->natts == 1 &&
		SPI_gettypeid(SPI_tuptable->tupdesc, 1) == JSONBOID)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
		{
			MemoryContext old = MemoryContextSwitchTo(resultcxt);

			result = DatumGetJsonbPCopy(d);
			MemoryContextSwitchTo(old);
		}
	}
	ItemAsRoleEnd(&sw);
	return result;
}

/*
 * create_vector_indexes
 *		Validate and create the vector indexes specs (a JSON array) of the
 *		table relid by vector_create_indexes() (path: where the request
 *		has them, status and builder: ACTIVE for CreateTable, CREATING and
 *		the worker or manual for UpdateTable), then the dependencies and
 *		the upkeep triggers, made as the caller (the table's owner).  taken
 *		lists the names of the table's GSIs and LSIs.  Inside SPI.
 */
static void
create_vector_indexes(const char *table, Oid relid, Jsonb *specs, List *taken,
					  const char *path, const char *status, const char *builder, Jsonb *attrdefs)
{
	Oid			argtypes[8] = {TEXTOID, OIDOID, JSONBOID, TEXTARRAYOID, TEXTOID, TEXTOID, TEXTOID, JSONBOID};
	Datum		values[8];
	char		nulls[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
	Datum	   *names;
	ListCell   *lc;
	int			n = 0;
	CreateTrigStmt *t;

	if (!vector_catalog_present())
		DynValidation("Vector indexes need item_table 1.2 or later: run ALTER EXTENSION item_table UPDATE");
	names = palloc(sizeof(Datum) * (list_length(taken) + 1));
	foreach(lc, taken)
		names[n++] = CStringGetTextDatum((char *) lfirst(lc));
	values[0] = CStringGetTextDatum(table);
	values[1] = ObjectIdGetDatum(relid);
	values[2] = JsonbPGetDatum(specs);
	values[3] = PointerGetDatum(construct_array(names, n, TEXTOID, -1, false, TYPALIGN_INT));
	values[4] = CStringGetTextDatum(path);
	values[5] = CStringGetTextDatum(status);
	values[6] = CStringGetTextDatum(builder);
	values[7] = attrdefs != NULL ? JsonbPGetDatum(attrdefs) : (Datum) 0;
	if (attrdefs == NULL)
		nulls[7] = 'n';
	(void) run_as_catalog_owner("SELECT item_table.vector_create_indexes($1, $2, $3, $4, $5, $6, $7,"
								" COALESCE($8, '[]'))",
								8, argtypes, values, nulls, CurrentMemoryContext);
	/* writers of the table read its vector indexes again (a cache) */
	CacheInvalidateRelcacheByRelid(relid);

	/*
	 * Each index table depends on the item table, so DeleteTable (or a
	 * plain DROP TABLE) drops it too.
	 */
	if (SPI_execute_with_args("SELECT relid::pg_catalog.oid FROM item_table.vector_indexes v"
							  " WHERE table_name = $1 AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d"
							  "  WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass"
							  "  AND d.objid = v.relid::pg_catalog.oid AND d.refobjid = $2)",
							  2, argtypes, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "item_table: could not read the vector indexes of %s", table);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		ObjectAddress base;
		ObjectAddress index;

		ObjectAddressSet(base, RelationRelationId, relid);
		ObjectAddressSet(index, RelationRelationId,
						 DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull)));
		recordDependencyOn(&index, &base, DEPENDENCY_AUTO);
	}
	CommandCounterIncrement();

	if (OidIsValid(get_trigger_oid(relid, VECTOR_TRIGGER_NAME, true)))
		return;
	t = makeNode(CreateTrigStmt);
	t->trigname = pstrdup(VECTOR_TRIGGER_NAME);
	t->relation = makeRangeVar(get_namespace_name(get_rel_namespace(relid)),
							   get_rel_name(relid), -1);
	t->funcname = list_make2(makeString(ITEM_TABLE_SCHEMA), makeString("vector_index_trigger"));
	t->row = true;
	t->timing = TRIGGER_TYPE_AFTER;
	t->events = TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE;
	ItemRunUtility((Node *) t, "item_table vector index trigger");

	/* a TRUNCATE of the item table empties its vector indexes too */
	t = makeNode(CreateTrigStmt);
	t->trigname = pstrdup(VECTOR_TRUNCATE_TRIGGER_NAME);
	t->relation = makeRangeVar(get_namespace_name(get_rel_namespace(relid)),
							   get_rel_name(relid), -1);
	t->funcname = list_make2(makeString(ITEM_TABLE_SCHEMA), makeString("vector_index_trigger"));
	t->row = false;
	t->timing = TRIGGER_TYPE_AFTER;
	t->events = TRIGGER_TYPE_TRUNCATE;
	ItemRunUtility((Node *) t, "item_table vector index truncate trigger");
}

/*
 * ApiCreateVectorIndexes
 *		CreateTable's VectorIndexes (specs, a JSON array) on the new table
 *		relid, ACTIVE at once (the table is empty).  Inside SPI.
 */
void
ApiCreateVectorIndexes(const char *table, Oid relid, Jsonb *specs, List *taken, Jsonb *attrdefs)
{
	create_vector_indexes(table, relid, specs, taken, "vectorIndexes.%s.member", "ACTIVE", "worker",
						  attrdefs);
}

/*
 * ApiCreateVectorIndexUpdate
 *		UpdateTable's VectorIndexUpdates Create (create, the object; n, its
 *		place in the list, from 1) on the table relid, whose writers wait
 *		for this transaction (the caller locked it): the index is made
 *		CREATING, and its upkeep runs for every write from our commit on;
 *		the background worker (or CALL backfill_indexes, with
 *		item_table.index_backfill = manual) builds it from the existing
 *		items and makes it ACTIVE.  Inside SPI.
 */
void
ApiCreateVectorIndexUpdate(const char *table, Oid relid, Jsonb *create, int n, List *taken,
						   Jsonb *attrdefs)
{
	JsonbParseState *state = NULL;
	JsonbValue	v;
	bool		manual = item_table_index_backfill == INDEX_BACKFILL_MANUAL;

	v.type = jbvBinary;
	v.val.binary.data = &create->root;
	v.val.binary.len = VARSIZE(create);
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	pushJsonbValue(&state, WJB_ELEM, &v);
	create_vector_indexes(table, relid, JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_ARRAY, NULL)),
						  taken, psprintf("vectorIndexUpdates.%d.member.create", n), "CREATING",
						  manual ? "manual" : "worker", attrdefs);
	if (!manual)
		ItemWorkerRequest();
}

/*
 * ApiDeleteVectorIndex
 *		UpdateTable's VectorIndexUpdates Delete: the index and its index
 *		table go at once (a build in progress stops: its next batch finds
 *		nothing).  Inside SPI, the table locked by the caller.
 */
void
ApiDeleteVectorIndex(const char *table, Oid relid, const char *index)
{
	Oid			argtypes[2] = {TEXTOID, TEXTOID};
	Datum		values[2];
	ItemRoleSwitch sw;
	bool		isnull;
	bool		found;

	if (!vector_catalog_present())
		DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found: Requested index %s not found", index);
	values[0] = CStringGetTextDatum(table);
	values[1] = CStringGetTextDatum(index);
	ItemAsCatalogOwnerBegin(&sw);
	if (SPI_execute_with_args("SELECT item_table.vector_drop_index($1, $2)", 2, argtypes, values,
							  NULL, false, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "item_table: could not drop vector index %s", index);
	found = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	ItemAsRoleEnd(&sw);
	if (found)
		CacheInvalidateRelcacheByRelid(relid);
	if (!found)
		DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found: Requested index %s not found", index);
}

/*
 * ApiHasVectorIndexes
 *		Has the table any vector index?  Inside SPI.
 */
bool
ApiHasVectorIndexes(const char *table)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		values[1];

	if (!vector_catalog_present())
		return false;
	values[0] = CStringGetTextDatum(table);
	if (SPI_execute_with_args("SELECT FROM item_table.vector_indexes WHERE table_name = $1",
							  1, argtypes, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "item_table: could not read the vector indexes of %s", table);
	return SPI_processed > 0;
}

/*
 * ApiPushVectorIndexDescriptions
 *		DescribeTable's VectorIndexes member, when the table has any.
 *		Inside SPI.
 */
void
ApiPushVectorIndexDescriptions(JsonbParseState **state, const char *table)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		values[1];
	Jsonb	   *d;

	if (!vector_catalog_present())
		return;
	values[0] = CStringGetTextDatum(table);
	d = run_as_catalog_owner("SELECT item_table.vector_index_descriptions($1)",
							 1, argtypes, values, NULL, CurrentMemoryContext);
	if (d == NULL)
		return;
	ApiPushKey(state, "VectorIndexes");
	ApiPushJsonb(state, d);
}

/*
 * ApiVectorSearchSchemaNames
 *		The attribute names of the search schemas of CreateTable's
 *		VectorIndexes (specs, a JSON array; NULL: none), which
 *		AttributeDefinitions may define (they give the types).
 */
List *
ApiVectorSearchSchemaNames(Jsonb *specs)
{
	List	   *out = NIL;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (specs == NULL || !JB_ROOT_IS_ARRAY(specs))
		return NIL;
	/* lenient: the shapes are checked (with their messages) at creation */
	it = JsonbIteratorInit(&specs->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		JsonbValue *schema;
		JsonbIterator *eit;
		JsonbValue	e;

		if (tok != WJB_ELEM || v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
			continue;
		schema = getKeyJsonValueFromContainer(v.val.binary.data, "SearchSchema", 12, NULL);
		if (schema == NULL || schema->type != jbvBinary ||
			!JsonContainerIsArray(schema->val.binary.data))
			continue;
		eit = JsonbIteratorInit(schema->val.binary.data);
		while ((tok = JsonbIteratorNext(&eit, &e, true)) != WJB_DONE)
		{
			JsonbValue *n;

			if (tok != WJB_ELEM || e.type != jbvBinary || !JsonContainerIsObject(e.val.binary.data))
				continue;
			n = getKeyJsonValueFromContainer(e.val.binary.data, "AttributeName", 13, NULL);
			if (n != NULL && n->type == jbvString)
				out = lappend(out, pnstrdup(n->val.string.val, n->val.string.len));
		}
	}
	return out;
}

/*
 * ApiVectorAttributeDefinitions
 *		The attribute definitions the table's vector indexes' search
 *		schemas recorded (List of ApiAttrDef), for DescribeTable.  Inside
 *		SPI.
 */
List *
ApiVectorAttributeDefinitions(const char *table)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		values[1];
	List	   *out = NIL;

	if (!vector_catalog_present())
		return NIL;
	values[0] = CStringGetTextDatum(table);
	if (SPI_execute_with_args("SELECT a.key, pg_catalog.min(a.value) FROM item_table.vector_indexes v,"
							  " pg_catalog.jsonb_each_text(v.attribute_types) a"
							  " WHERE v.table_name OPERATOR(pg_catalog.=) $1 GROUP BY a.key"
							  " ORDER BY pg_catalog.min(v.created_at), a.key",
							  1, argtypes, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "item_table: could not read the vector indexes of %s", table);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		ApiAttrDef *d = palloc(sizeof(ApiAttrDef));

		d->name = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		d->type = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
		out = lappend(out, d);
	}
	return out;
}
