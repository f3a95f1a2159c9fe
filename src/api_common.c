/*-------------------------------------------------------------------------
 *
 * api_common.c
 *		Machinery shared by the DynamoDB API functions.
 *
 * Requests.  A request is a jsonb object read member by member.  A member
 * of the wrong JSON type is a SerializationException at once; constraint
 * violations (missing required members, lengths, patterns, enum values)
 * are collected and raised together by ApiRequestCheck() in DynamoDB's
 * "N validation errors detected: a; b" form.
 *
 * Catalog.  item_table.tables maps each DynamoDB table to its physical
 * table in schema item_data and records the key schema.  Lookups go
 * through a backend-local hash keyed by table name.  An entry holds the
 * prepared SPI plans for its physical table; it is dropped when a relcache
 * invalidation arrives for that table (DeleteTable, UpdateTable and any
 * DDL on it send one), so plans never outlive the table they were made
 * for.  Plan text names the physical table by its catalog name, quoted;
 * user input never becomes SQL text: keys and items are parameters.
 *
 * Every statement qualifies its operators (OPERATOR(item_table.=)) and
 * types, so the caller's search_path cannot redirect them.
 *
 * Writes and reads and the item guard.  The write helpers register the row
 * they are about to write, so that the item guard trigger (item_guard.c)
 * lets exactly that row through without validating it again.  Every read
 * of a stored item checks it cheaply (a NULL test, the column types, the
 * layout walk or the parse) and raises XX001 naming the table for a row
 * that only a superuser past the guards could have written.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_am.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "api.h"

/* ----------------------------------------------------------------
 * requests
 * ----------------------------------------------------------------
 */
void
ApiRequestInit(ApiRequest *req, Jsonb *body)
{
	if (!JB_ROOT_IS_OBJECT(body) || JB_ROOT_IS_SCALAR(body))
		DynRaise(DYN_SERIALIZATION, "The request body must be a JSON object");
	req->body = body;
	req->problems = NIL;
	req->seen = NIL;
}

void
ApiProblem(ApiRequest *req, const char *fmt,...)
{
	va_list		args;

	va_start(args, fmt);
	req->problems = lappend(req->problems, DynFormatV(fmt, args));
	va_end(args);
}

void
ApiRequestCheck(ApiRequest *req)
{
	StringInfoData buf;
	ListCell   *lc;
	int			n = list_length(req->problems);

	if (n == 0)
		return;
	initStringInfo(&buf);
	appendStringInfo(&buf, "%d validation error%s detected: ", n, n == 1 ? "" : "s");
	foreach(lc, req->problems)
	{
		if (lc != list_head(req->problems))
			appendStringInfoString(&buf, "; ");
		appendStringInfoString(&buf, (char *) lfirst(lc));
	}
	DynRaise(DYN_VALIDATION, "%s", buf.data);
}

JsonbValue *
ApiGetMember(ApiRequest *req, const char *name)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&req->body->root, name,
												 strlen(name), NULL);

	if (v == NULL || v->type == jbvNull)
		return NULL;
	return v;
}

static const char *
json_type_word(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			return "STRING_VALUE";
		case jbvNumeric:
			return "NUMBER_VALUE";
		case jbvBool:
			return "BOOLEAN_VALUE";
		case jbvBinary:
			return JsonContainerIsArray(v->val.binary.data) ? "START_ARRAY" : "START_OBJECT";
		default:
			return "VALUE";
	}
}

static void
wrong_type(const char *name, const JsonbValue *v, const char *expected)
{
	DynRaise(DYN_SERIALIZATION,
			 "Unexpected %s for member %s; expected %s", json_type_word(v),
			 name, expected);
}

char *
ApiGetString(ApiRequest *req, const char *name, const char *field, bool required)
{
	JsonbValue *v = ApiGetMember(req, name);

	if (v == NULL)
	{
		if (required)
			ApiProblem(req, "Value null at '%s' failed to satisfy constraint: Member must not be null",
					   field);
		return NULL;
	}
	if (v->type != jbvString)
		wrong_type(name, v, "a string");
	return pnstrdup(v->val.string.val, v->val.string.len);
}

bool
ApiGetBool(ApiRequest *req, const char *name, bool *value)
{
	JsonbValue *v = ApiGetMember(req, name);

	if (v == NULL)
		return false;
	if (v->type != jbvBool)
		wrong_type(name, v, "a boolean");
	*value = v->val.boolean;
	return true;
}

bool
ApiGetInt(ApiRequest *req, const char *name, const char *field, int64 *value)
{
	JsonbValue *v = ApiGetMember(req, name);
	char	   *text;
	char	   *end;

	if (v == NULL)
		return false;
	if (v->type != jbvNumeric)
		wrong_type(name, v, "a number");
	text = DatumGetCString(DirectFunctionCall1(numeric_out,
											   NumericGetDatum(v->val.numeric)));
	errno = 0;
	*value = strtoll(text, &end, 10);
	if (*end != '\0' || errno != 0)
		DynRaise(DYN_SERIALIZATION, "Member %s must be an integer, not %s", name, text);
	(void) field;
	return true;
}

Jsonb *
ApiGetObject(ApiRequest *req, const char *name)
{
	JsonbValue *v = ApiGetMember(req, name);

	if (v == NULL)
		return NULL;
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		wrong_type(name, v, "an object");
	return JsonbValueToJsonb(v);
}

Jsonb *
ApiGetArray(ApiRequest *req, const char *name)
{
	JsonbValue *v = ApiGetMember(req, name);

	if (v == NULL)
		return NULL;
	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		wrong_type(name, v, "an array");
	return JsonbValueToJsonb(v);
}

int
ApiGetEnum(ApiRequest *req, const char *name, const char *field,
		   const char *const *values, int nvalues)
{
	char	   *s = ApiGetString(req, name, field, false);
	StringInfoData set;
	int			i;

	if (s == NULL)
		return -1;
	for (i = 0; i < nvalues; i++)
	{
		if (strcmp(s, values[i]) == 0)
			return i;
	}
	initStringInfo(&set);
	for (i = 0; i < nvalues; i++)
		appendStringInfo(&set, "%s%s", i > 0 ? ", " : "", values[i]);
	ApiProblem(req, "Value '%s' at '%s' failed to satisfy constraint: Member must satisfy enum value set: [%s]",
			   s, field, set.data);
	return -1;
}

char *
ApiGetTableName(ApiRequest *req, const char *name, const char *field,
				bool required)
{
	char	   *s = ApiGetString(req, name, field, required);
	int			len;
	const char *p;

	if (s == NULL)
		return NULL;
	len = strlen(s);
	if (len < 3)
		ApiProblem(req, "Value '%s' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 3",
				   s, field);
	if (len > 255)
		ApiProblem(req, "Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to 255",
				   s, field);
	for (p = s; *p; p++)
	{
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			  (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-'))
		{
			ApiProblem(req, "Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
					   s, field);
			break;
		}
	}
	return s;
}

void
ApiRejectLegacy(ApiRequest *req, const char *const *legacy, int nlegacy,
				const char *expression_params)
{
	StringInfoData found;
	int			i;

	initStringInfo(&found);
	for (i = 0; i < nlegacy; i++)
	{
		if (ApiGetMember(req, legacy[i]) != NULL)
			appendStringInfo(&found, "%s%s", found.len > 0 ? ", " : "", legacy[i]);
	}
	if (found.len == 0)
		return;
	if (expression_params != NULL && expression_params[0] != '\0')
		DynValidation("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {%s} Expression parameters: {%s}",
					  found.data, expression_params);
	DynValidation("The legacy parameters {%s} are not supported; use expressions (ConditionExpression, ProjectionExpression, KeyConditionExpression, FilterExpression, UpdateExpression) instead",
				  found.data);
}

/* ----------------------------------------------------------------
 * catalog cache
 * ----------------------------------------------------------------
 */
#define TABLE_NAME_MAX 256

typedef struct TableCacheEntry
{
	char		name[TABLE_NAME_MAX];	/* hash key */
	ItemTableDef def;
} TableCacheEntry;

static HTAB *table_cache = NULL;
static SPIPlanPtr lookup_plan = NULL;

static void
free_plans(ItemTableDef *def)
{
	SPIPlanPtr *plans[] = {&def->plan_get, &def->plan_get_lock, &def->plan_insert,
	&def->plan_update, &def->plan_delete, &def->plan_upsert, &def->plan_update_tid,
	&def->plan_read_forward, &def->plan_read_backward, &def->plan_read_segment};
	int			i;

	for (i = 0; i < (int) lengthof(plans); i++)
	{
		if (*plans[i] != NULL)
		{
			SPI_freeplan(*plans[i]);
			*plans[i] = NULL;
		}
	}
}

/* release what a definition holds (plans, names, the locked key) */
static void
clear_def(ItemTableDef *def)
{
	free_plans(def);
	if (def->name)
		pfree(def->name);
	if (def->hash_key)
		pfree(def->hash_key);
	if (def->range_key)
		pfree(def->range_key);
	if (def->locked_key)
		pfree(def->locked_key);
}

/*
 * Relcache invalidation: forget entries for the relation (or all).  Only
 * marks them: plans are freed at the next lookup, outside the callback.
 */
static void
table_cache_inval(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	TableCacheEntry *e;

	if (table_cache == NULL)
		return;
	hash_seq_init(&status, table_cache);
	while ((e = hash_seq_search(&status)) != NULL)
	{
		if (relid == InvalidOid || e->def.relid == relid)
			e->def.valid = false;
	}
	/* the type may have been dropped and created again */
	ItemKeyTypeOidReset();
}

static void
table_cache_init(void)
{
	HASHCTL		ctl;

	if (table_cache != NULL)
		return;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = TABLE_NAME_MAX;
	ctl.entrysize = sizeof(TableCacheEntry);
	ctl.hcxt = CacheMemoryContext;
	table_cache = hash_create("item_table tables", 64, &ctl,
							  HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	CacheRegisterRelcacheCallback(table_cache_inval, (Datum) 0);
}

static AttrType
key_type_from_text(const char *t)
{
	switch (t[0])
	{
		case 'S':
			return ATTR_S;
		case 'N':
			return ATTR_N;
		case 'B':
			return ATTR_B;
	}
	elog(ERROR, "invalid key type \"%s\" in the item_table catalog", t);
	return ATTR_S;
}

void
ApiForgetTable(const char *name)
{
	TableCacheEntry *e;

	if (table_cache == NULL)
		return;
	e = hash_search(table_cache, name, HASH_FIND, NULL);
	if (e != NULL)
	{
		free_plans(&e->def);
		e->def.valid = false;
	}
}
/*
 * ApiLookupTable
 *		The catalog entry of a table (SPI must be connected).  Raises
 *		ResourceNotFoundException for an unknown table.  The result lives in
 *		CacheMemoryContext for the rest of the session; a relcache
 *		invalidation marks it invalid and the next lookup refreshes it in
 *		place, so any number of them can be held at once.
 */
ItemTableDef *
ApiLookupTable(const char *name)
{
	TableCacheEntry *e;
	bool		found;
	Datum		arg;
	int			rc;
	HeapTuple	tup;
	TupleDesc	tupdesc;
	MemoryContext old;
	bool		isnull;

	if (strlen(name) >= TABLE_NAME_MAX)
		DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found");
	table_cache_init();
	e = hash_search(table_cache, name, HASH_FIND, NULL);
	if (e != NULL && e->def.valid)
		return &e->def;

	if (lookup_plan == NULL)
	{
		Oid			argtypes[1] = {TEXTOID};
		SPIPlanPtr	plan;

		plan = ItemPrepareKept("SELECT relid::pg_catalog.oid, hash_key, hash_type, range_key, range_type"
						   " FROM item_table.tables WHERE table_name OPERATOR(pg_catalog.=) $1",
						   1, argtypes, 0);
		lookup_plan = plan;
	}
	arg = CStringGetTextDatum(name);
	rc = SPI_execute_plan(lookup_plan, &arg, NULL, true, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "catalog lookup failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found");

	tup = SPI_tuptable->vals[0];
	tupdesc = SPI_tuptable->tupdesc;
	/* a physical table dropped behind the API's back: no table */
	if (!SearchSysCacheExists1(RELOID, SPI_getbinval(tup, tupdesc, 1, &isnull)))
		DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found");
	/*
	 * An entry is refreshed in place, never removed: a batch may hold the
	 * definitions of several tables at once, and each stays where it is.
	 */
	e = hash_search(table_cache, name, HASH_ENTER, &found);
	if (found)
		clear_def(&e->def);
	memset(&e->def, 0, sizeof(e->def));
	old = MemoryContextSwitchTo(CacheMemoryContext);
	e->def.name = pstrdup(name);
	e->def.relid = DatumGetObjectId(SPI_getbinval(tup, tupdesc, 1, &isnull));
	e->def.hash_key = SPI_getvalue(tup, tupdesc, 2);
	e->def.hash_type = key_type_from_text(SPI_getvalue(tup, tupdesc, 3));
	e->def.range_key = SPI_getvalue(tup, tupdesc, 4);
	if (e->def.range_key != NULL)
		e->def.range_type = key_type_from_text(SPI_getvalue(tup, tupdesc, 5));
	MemoryContextSwitchTo(old);
	e->def.valid = true;
	return &e->def;
}

/*
 * ApiTablePlan
 *		The plan in *slot, prepared from sql_template (one %s: the physical
 *		table's qualified name) on first use and kept.
 */
SPIPlanPtr
ApiTablePlan(ItemTableDef *def, SPIPlanPtr *slot, const char *sql_template,
			 int nargs, Oid *argtypes)
{
	return ApiTablePlanOpts(def, slot, sql_template, nargs, argtypes, 0);
}

/*
 * ApiTablePlanOpts
 *		ApiTablePlan with cursor options (SPI_prepare_cursor), e.g. to ask
 *		for a generic plan made for fetching the first rows fast.
 */
SPIPlanPtr
ApiTablePlanOpts(ItemTableDef *def, SPIPlanPtr *slot, const char *sql_template,
				 int nargs, Oid *argtypes, int cursor_options)
{
	char	   *relname;
	char	   *nspname;
	char	   *sql;
	SPIPlanPtr	plan;

	if (*slot != NULL)
		return *slot;
	relname = get_rel_name(def->relid);
	nspname = relname ? get_namespace_name(get_rel_namespace(def->relid)) : NULL;
	if (relname == NULL || nspname == NULL)
		DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found");
	sql = psprintf(sql_template, quote_qualified_identifier(nspname, relname));
	plan = ItemPrepareKept(sql, nargs, argtypes, cursor_options);
	*slot = plan;
	return plan;
}

/* ----------------------------------------------------------------
 * keys
 * ----------------------------------------------------------------
 */
ItemKey *
ApiKeyFromItem(ItemTableDef *def, const AttrValue *item)
{
	const AttrValue *h = AttrMapGet(item, def->hash_key, strlen(def->hash_key));
	const AttrValue *r = NULL;

	if (h == NULL)
		DynValidation("One or more parameter values were invalid: Missing the key %s in the item",
					  def->hash_key);
	if (h->type != def->hash_type)
		DynValidation("One or more parameter values were invalid: Type mismatch for key %s expected: %s actual: %s",
					  def->hash_key, AttrTypeName(def->hash_type), AttrTypeName(h->type));
	if (def->range_key != NULL)
	{
		r = AttrMapGet(item, def->range_key, strlen(def->range_key));
		if (r == NULL)
			DynValidation("One or more parameter values were invalid: Missing the key %s in the item",
						  def->range_key);
		if (r->type != def->range_type)
			DynValidation("One or more parameter values were invalid: Type mismatch for key %s expected: %s actual: %s",
						  def->range_key, AttrTypeName(def->range_type), AttrTypeName(r->type));
	}
	AttrCheckKeyValue(NULL, def->hash_key, h, false);
	if (r != NULL)
		AttrCheckKeyValue(NULL, def->range_key, r, true);
	return AttrKeyFromValues(h, r);
}

ItemKey *
ApiKeyFromKeyParam(ItemTableDef *def, const AttrValue *key)
{
	const AttrValue *h = AttrMapGet(key, def->hash_key, strlen(def->hash_key));
	const AttrValue *r = NULL;
	int			expected = def->range_key != NULL ? 2 : 1;

	if (def->range_key != NULL)
		r = AttrMapGet(key, def->range_key, strlen(def->range_key));
	if (key->u.map.count != expected || h == NULL || h->type != def->hash_type ||
		(def->range_key != NULL && (r == NULL || r->type != def->range_type)))
		DynValidation("The provided key element does not match the schema");
	AttrCheckKeyValue(NULL, def->hash_key, h, false);
	if (r != NULL)
		AttrCheckKeyValue(NULL, def->range_key, r, true);
	return AttrKeyFromValues(h, r);
}

AttrValue *
ApiKeyAttributes(ItemTableDef *def, const AttrValue *item)
{
	AttrValue  *keys = AttrNewMap();
	AttrValue  *v = AttrMapGet(item, def->hash_key, strlen(def->hash_key));

	if (v != NULL)
		AttrMapPut(keys, def->hash_key, strlen(def->hash_key), AttrCopy(v));
	if (def->range_key != NULL)
	{
		v = AttrMapGet(item, def->range_key, strlen(def->range_key));
		if (v != NULL)
			AttrMapPut(keys, def->range_key, strlen(def->range_key), AttrCopy(v));
	}
	return keys;
}

/* ----------------------------------------------------------------
 * item I/O through SPI (SPI connected by the caller)
 * ----------------------------------------------------------------
 */

/*
 * fetch_item_direct
 *		Read one item by probing the primary key index directly; with lock,
 *		also lock its row as SELECT ... FOR UPDATE would.
 *
 * A read through SPI pays for plan revalidation and a whole executor start
 * and end around a single index probe; for GetItem, and for the locked
 * read that starts every conditional write, that is a large share of the
 * call.  This path does only the probe (and the lock).  It runs only where
 * it cannot differ from the SQL statement: the caller holds SELECT (and,
 * to lock, UPDATE) on the table, no row-level security applies, and the
 * table is still the plain (key, item) heap with its btree primary key.
 * Anything else, and every lock outcome but a plain success, returns false
 * and the caller takes the SPI path, which raises the same errors, waits
 * and rechecks as any SQL statement (a failed lock attempt holds nothing).
 *
 * Snapshots follow SPI: an unlocked read uses the active snapshot, as a
 * read-only statement does; a locked read advances the command counter
 * and takes a new snapshot, as a read-write statement does.
 */
static bool
fetch_item_direct(ItemTableDef *def, ItemKey *key, bool lock, Jsonb **item)
{
	static Oid	eq_proc = InvalidOid;
	static FmgrInfo eq_finfo;
	Relation	rel;
	Relation	idx = NULL;
	Oid			pkindex;
	TupleDesc	desc;
	ScanKeyData skey;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	Snapshot	snapshot;
	Oid			eqop;
	Oid			eqproc;
	Oid			keytype = ItemKeyTypeOid();
	bool		found;
	bool		ok = false;
	bool		null_item = false;
	/* every one of these rights, as the statement would need them */
	AclMode		need = lock ? ACL_SELECT | ACL_UPDATE : ACL_SELECT;

	if ((!lock && !ActiveSnapshotSet()) ||
		pg_class_aclmask(def->relid, GetUserId(), need, ACLMASK_ALL) != need ||
		check_enable_rls(def->relid, InvalidOid, true) == RLS_ENABLED)
		return false;

	rel = table_open(def->relid, lock ? RowShareLock : AccessShareLock);
	desc = RelationGetDescr(rel);
	list_free(RelationGetIndexList(rel));	/* sets rd_pkindex */
	pkindex = rel->rd_pkindex;
	if (rel->rd_rel->relkind != RELKIND_RELATION || !OidIsValid(pkindex) ||
		desc->natts < 2 ||
		TupleDescAttr(desc, 0)->attisdropped || TupleDescAttr(desc, 0)->atttypid != keytype ||
		TupleDescAttr(desc, 1)->attisdropped || TupleDescAttr(desc, 1)->atttypid != JSONBOID ||
		strcmp(NameStr(TupleDescAttr(desc, 1)->attname), "item") != 0)
		goto done;
	idx = index_open(pkindex, AccessShareLock);
	if (!idx->rd_index->indisvalid ||
		idx->rd_index->indnatts != 1 || idx->rd_index->indkey.values[0] != 1 ||
		idx->rd_rel->relam != BTREE_AM_OID)
		goto done;
	eqop = get_opfamily_member(idx->rd_opfamily[0], keytype, keytype,
							   BTEqualStrategyNumber);
	if (!OidIsValid(eqop))
		goto done;
	eqproc = get_opcode(eqop);
	if (eqproc != eq_proc)
	{
		fmgr_info_cxt(eqproc, &eq_finfo, TopMemoryContext);
		eq_proc = eqproc;
	}
	ScanKeyEntryInitializeWithInfo(&skey, 0, 1, BTEqualStrategyNumber,
								   InvalidOid, idx->rd_indcollation[0],
								   &eq_finfo, PointerGetDatum(key));

	if (lock)
	{
		CommandCounterIncrement();
		PushActiveSnapshot(GetTransactionSnapshot());
		UpdateActiveSnapshotCommandId();	/* see this transaction's writes */
	}
	snapshot = GetActiveSnapshot();
	slot = table_slot_create(rel, NULL);
	scan = ItemIndexBeginScan(rel, idx, snapshot, 1);
	index_rescan(scan, &skey, 1, NULL, 0);
	found = index_getnext_slot(scan, ForwardScanDirection, slot);
	ok = true;
	if (found && lock)
	{
		TM_FailureData tmfd;
		ItemPointerData tid = slot->tts_tid;
		int			flags = TUPLE_LOCK_FLAG_LOCK_UPDATE_IN_PROGRESS;

		if (!IsolationUsesXactSnapshot())
			flags |= TUPLE_LOCK_FLAG_FIND_LAST_VERSION;
		/* a newer version found by following updates: leave it to SQL */
		ok = table_tuple_lock(rel, &tid, snapshot, slot,
							  GetCurrentCommandId(true), LockTupleExclusive,
							  LockWaitBlock, flags, &tmfd) == TM_Ok &&
			!tmfd.traversed;
	}
	*item = NULL;
	if (found && ok && lock)
	{
		/* a copy: the caller's key may be freed before the update */
		def->locked_key = MemoryContextAlloc(CacheMemoryContext, VARSIZE_ANY(key));
		memcpy(def->locked_key, key, VARSIZE_ANY(key));
		def->locked_tid = slot->tts_tid;
	}
	if (found && ok)
	{
		Datum		d = slot_getattr(slot, 2, &null_item);

		if (!null_item)
			*item = DatumGetJsonbPCopy(d);	/* detoasted, outlives the slot */
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	if (lock)
		PopActiveSnapshot();

done:
	if (idx != NULL)
		index_close(idx, NoLock);
	table_close(rel, NoLock);
	if (null_item)
		StoredRaiseBadItem(def->name, NULL, key, NULL);
	return ok;
}

/* no row version is remembered as locked */
static void
forget_locked(ItemTableDef *def)
{
	if (def->locked_key != NULL)
	{
		pfree(def->locked_key);
		def->locked_key = NULL;
	}
}

Jsonb *
ApiFetchItem(ItemTableDef *def, ItemKey *key, bool lock)
{
	Oid			argtypes[1] = {ItemKeyTypeOid()};
	Datum		arg = PointerGetDatum(key);
	SPIPlanPtr	plan;
	int			rc;
	bool		isnull;
	Datum		d;
	Jsonb	   *item;

	forget_locked(def);
	if (fetch_item_direct(def, key, lock, &item))
	{
		if (item != NULL)
			StoredCheckItem(def->name, NULL, key, item);
		return item;
	}
	if (lock)
		plan = ApiTablePlan(def, &def->plan_get_lock,
							"SELECT item FROM %s WHERE key OPERATOR(item_table.=) $1 FOR UPDATE",
							1, argtypes);
	else
		plan = ApiTablePlan(def, &def->plan_get,
							"SELECT item FROM %s WHERE key OPERATOR(item_table.=) $1",
							1, argtypes);
	rc = SPI_execute_plan(plan, &arg, NULL, !lock, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "item read failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return NULL;
	StoredCheckColumns(def->name, NULL, SPI_tuptable->tupdesc, 0, 1);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		StoredRaiseBadItem(def->name, NULL, key, NULL);
	item = DatumGetJsonbP(d);
	StoredCheckItem(def->name, NULL, key, item);
	return item;
}

bool
ApiInsertItem(ItemTableDef *def, ItemKey *key, Jsonb *item)
{
	Oid			argtypes[2] = {ItemKeyTypeOid(), JSONBOID};
	Datum		args[2] = {PointerGetDatum(key), JsonbPGetDatum(item)};
	SPIPlanPtr	plan;
	int			rc;

	plan = ApiTablePlan(def, &def->plan_insert,
						"INSERT INTO %s (key, item) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
						2, argtypes);
	ApiExpectWrite(def->relid, key, item);
	rc = SPI_execute_plan(plan, args, NULL, false, 0);
	ApiExpectNoWrite();
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "item insert failed: %s", SPI_result_code_string(rc));
	return SPI_processed == 1;
}

/*
 * ApiUpdateItem
 *		Replace the stored item of key.
 *
 * When the item's row was just locked by the direct path of ApiFetchItem,
 * the update finds it by its tuple id instead of a second index probe.  The
 * statement still checks the key, and a version it cannot see (there is
 * none while the lock is held, but the tuple id is only a hint) updates
 * nothing, in which case the update by key runs: either way the row
 * updated is the current row of key.
 */
void
ApiUpdateItem(ItemTableDef *def, ItemKey *key, Jsonb *item)
{
	Oid			argtypes[3] = {ItemKeyTypeOid(), JSONBOID, TIDOID};
	Datum		args[3] = {PointerGetDatum(key), JsonbPGetDatum(item), (Datum) 0};
	SPIPlanPtr	plan;
	int			rc;

	if (def->locked_key != NULL && ItemKeyCompare(def->locked_key, key) == 0)
	{
		ItemPointerData tid = def->locked_tid;

		forget_locked(def);
		args[2] = PointerGetDatum(&tid);
		plan = ApiTablePlan(def, &def->plan_update_tid,
							"UPDATE %s SET item = $2 WHERE ctid = $3 AND key OPERATOR(item_table.=) $1",
							3, argtypes);
		ApiExpectWrite(def->relid, key, item);
		rc = SPI_execute_plan(plan, args, NULL, false, 0);
		ApiExpectNoWrite();
		if (rc != SPI_OK_UPDATE)
			elog(ERROR, "item update failed: %s", SPI_result_code_string(rc));
		if (SPI_processed == 1)
			return;
	}
	plan = ApiTablePlan(def, &def->plan_update,
						"UPDATE %s SET item = $2 WHERE key OPERATOR(item_table.=) $1",
						2, argtypes);
	ApiExpectWrite(def->relid, key, item);
	rc = SPI_execute_plan(plan, args, NULL, false, 0);
	ApiExpectNoWrite();
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "item update failed: %s", SPI_result_code_string(rc));
}

void
ApiDeleteItem(ItemTableDef *def, ItemKey *key)
{
	Oid			argtypes[1] = {ItemKeyTypeOid()};
	Datum		arg = PointerGetDatum(key);
	SPIPlanPtr	plan;
	int			rc;

	plan = ApiTablePlan(def, &def->plan_delete,
						"DELETE FROM %s WHERE key OPERATOR(item_table.=) $1",
						1, argtypes);
	rc = SPI_execute_plan(plan, &arg, NULL, false, 0);
	if (rc != SPI_OK_DELETE)
		elog(ERROR, "item delete failed: %s", SPI_result_code_string(rc));
}

/* ----------------------------------------------------------------
 * the write the API is about to make
 *
 * The item guard (item_guard.c) validates every row written to an item
 * table, except the one the API has just validated itself and is writing
 * now: the write helpers register (table, key, item) here right before
 * they run their statement and clear it right after, and the guard lets a
 * row through unchecked only when its table matches and its key and item
 * are byte for byte the registered ones.  Whatever else the statement
 * writes (rows a user's trigger changed, nested writes) differs and is
 * checked.  Matching bytes make a stale registration harmless, but one
 * left behind by an error would point into freed memory: transaction and
 * subtransaction ends clear it.
 * ----------------------------------------------------------------
 */
static struct
{
	Oid			relid;			/* InvalidOid: none */
	const ItemKey *key;
	const Jsonb *item;
}			expected_write;

static void
expected_write_xact_end(XactEvent event, void *arg)
{
	ApiExpectNoWrite();
}

static void
expected_write_subxact_end(SubXactEvent event, SubTransactionId mySubid,
						   SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		ApiExpectNoWrite();
}

/*
 * ApiExpectWrite
 *		Register the row the next statement writes to relid; key and item
 *		must stay valid until ApiExpectNoWrite().
 */
void
ApiExpectWrite(Oid relid, const ItemKey *key, const Jsonb *item)
{
	static bool callbacks = false;

	if (!callbacks)
	{
		RegisterXactCallback(expected_write_xact_end, NULL);
		RegisterSubXactCallback(expected_write_subxact_end, NULL);
		callbacks = true;
	}
	expected_write.relid = relid;
	expected_write.key = key;
	expected_write.item = item;
}

void
ApiExpectNoWrite(void)
{
	expected_write.relid = InvalidOid;
	expected_write.key = NULL;
	expected_write.item = NULL;
}

/* do the datum's bytes equal those of expected (any header, detoasted)? */
static bool
same_bytes(Datum d, const struct varlena *expected)
{
	struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));
	bool		same;

	same = VARSIZE_ANY_EXHDR(v) == VARSIZE_ANY_EXHDR(expected) &&
		memcmp(VARDATA_ANY(v), VARDATA_ANY(expected), VARSIZE_ANY_EXHDR(v)) == 0;
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
	return same;
}

/*
 * ApiIsExpectedWrite
 *		Is (key, item), a row about to be written to relid, the registered
 *		write?
 */
bool
ApiIsExpectedWrite(Oid relid, Datum key, Datum item)
{
	return OidIsValid(relid) && relid == expected_write.relid &&
		same_bytes(key, expected_write.key) &&
		same_bytes(item, (const struct varlena *) expected_write.item);
}

/* ----------------------------------------------------------------
 * responses
 * ----------------------------------------------------------------
 */
static const char *const rcc_values[] = {"INDEXES", "TOTAL", "NONE"};

int
ApiGetReturnConsumedCapacity(ApiRequest *req)
{
	int			i = ApiGetEnum(req, "ReturnConsumedCapacity", "returnConsumedCapacity",
							   rcc_values, lengthof(rcc_values));

	switch (i)
	{
		case 0:
			return RCC_INDEXES;
		case 1:
			return RCC_TOTAL;
		default:
			return RCC_NONE;
	}
}

double
ApiReadUnits(int64 size, bool consistent)
{
	double		units = (double) ((size + 4095) / 4096);

	if (units < 1)
		units = 1;
	return consistent ? units : units / 2;
}

double
ApiWriteUnits(int64 size)
{
	double		units = (double) ((size + 1023) / 1024);

	return units < 1 ? 1 : units;
}

void
ApiPushKey(JsonbParseState **state, const char *key)
{
	JsonbValue	k;

	k.type = jbvString;
	k.val.string.val = (char *) key;
	k.val.string.len = strlen(key);
	pushJsonbValue(state, WJB_KEY, &k);
}

void
ApiPushString(JsonbParseState **state, const char *s)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) s;
	v.val.string.len = strlen(s);
	pushJsonbValue(state, WJB_VALUE, &v);
}

/* a number with at least `scale` decimals: 1 -> "1.0" as DynamoDB prints */
void
ApiPushNumeric(JsonbParseState **state, double d, int scale)
{
	JsonbValue	v;
	char		buf[64];

	if (d == (double) (int64) d)
		snprintf(buf, sizeof(buf), "%.*f", scale, d);
	else
		snprintf(buf, sizeof(buf), "%.15g", d);
	v.type = jbvNumeric;
	v.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
														CStringGetDatum(buf),
														ObjectIdGetDatum(InvalidOid),
														Int32GetDatum(-1)));
	pushJsonbValue(state, WJB_VALUE, &v);
}

void
ApiPushJsonb(JsonbParseState **state, Jsonb *value)
{
	JsonbValue	v;

	v.type = jbvBinary;
	v.val.binary.data = &value->root;
	v.val.binary.len = VARSIZE(value) - VARHDRSZ;
	pushJsonbValue(state, WJB_VALUE, &v);
}

void
ApiPushItem(JsonbParseState **state, const AttrValue *item)
{
	ApiPushJsonb(state, AttrItemToJsonb(item));
}

void
ApiPushConsumedCapacity(JsonbParseState **state, const char *table,
						double units, int rcc)
{
	if (rcc == RCC_NONE)
		return;
	ApiPushKey(state, "ConsumedCapacity");
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(state, "TableName");
	ApiPushString(state, table);
	ApiPushKey(state, "CapacityUnits");
	ApiPushNumeric(state, units, 1);
	if (rcc == RCC_INDEXES)
	{
		ApiPushKey(state, "Table");
		pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(state, "CapacityUnits");
		ApiPushNumeric(state, units, 1);
		pushJsonbValue(state, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/*
 * ApiArrayOfObjects
 *		The members of an array of objects, each as its own Jsonb.
 */
List *
ApiArrayOfObjects(Jsonb *arr, const char *member)
{
	List	   *out = NIL;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (arr == NULL)
		return NIL;
	it = JsonbIteratorInit(&arr->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
			DynRaise(DYN_SERIALIZATION, "Unexpected value in %s; expected an object", member);
		out = lappend(out, JsonbValueToJsonb(&v));
	}
	return out;
}
