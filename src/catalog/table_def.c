/*-------------------------------------------------------------------------
 *
 * table_def.c
 *		The one cache of table and index definitions, and the keys a table's
 *		key schema gives to items.
 *
 * item_table.tables maps each DynamoDB table to its physical table in
 * schema item_data and records the key schema; item_table.indexes records
 * its secondary indexes.  Everything above -- the API, the index trigger,
 * the item guard, verify and backfill -- reads them through this file: a
 * definition (ItemTableDef) is the table's row and its index rows, read
 * together by one statement in one snapshot, found by DynamoDB name
 * (TableDefLookup) or by physical table (TableDefByRelid).
 *
 * Cache.  Definitions live in a backend-local hash keyed by table name; a
 * second hash maps the physical table's OID to the same entry.  One
 * relcache invalidation callback marks a definition stale when its
 * physical table or one of its index tables is invalidated: DROP TABLE,
 * ALTER TABLE (OWNER TO included; distribute_table() and
 * undistribute_table() alter or replace the tables, so they invalidate
 * too), and the explicit invalidation that CreateTable, UpdateTable and
 * backfill send for the base table whenever they change its index rows.
 * A backend processes invalidations only at transaction start and when
 * it acquires a lock, so TableDefLookup locks the table (AccessShareLock,
 * which every use of it takes anyway) before it trusts a definition: a
 * change committed in between is seen, and none can commit while the lock
 * is held.  The callback only marks; the next lookup,
 * which runs where SPI may be used, reads the catalog again.  The read
 * takes a fresh snapshot (SPI read-write mode), so a refresh triggered by
 * another session's committed change sees that change; an invalidation
 * that arrives while the read runs leaves the new version marked stale, to
 * be read again by the next lookup.
 *
 * Lifetimes.  An entry is never removed, and its ItemTableDef never moves:
 * a batch may hold the definitions of several tables, and each stays
 * where it is.  A refresh builds the new version (names, index
 * definitions) in a fresh memory context and hands the old version's
 * context, together with the plans prepared for it, to a context that
 * lives until the end of the transaction.  Whatever a caller read from a
 * definition in this transaction therefore stays valid until the
 * transaction ends, even if another lookup (a nested trigger, the next
 * table of a batch) refreshed it meanwhile; the plans of the old version
 * are freed then, outside any statement that could still be using them.
 * Nothing is compared by address: the locked-row hint compares key bytes.
 *
 * Plans.  A definition carries slots for prepared plans on its physical
 * table -- the API's per-table plan cache: item reads and writes, Query and
 * Scan -- and on each index table (the index trigger's writes, Query's
 * reads), grouped in table_def.h by the file that fills them.  They are
 * kept with the definition rather than in a cache of their own because
 * their lifetime is the definition's: a plan names the physical table and
 * must go when the definition changes, and one invalidation callback then
 * suffices.  The files that use the slots prepare the plans and own their
 * SQL (TableDefPlan for the table's); this file only frees them, with the
 * version they were made for.  Plan text names the physical table by its
 * catalog name, quoted; user input never becomes SQL text: keys and items
 * are parameters.
 *
 * Keys.  The item_key of an item or of a Key parameter is built here, with
 * DynamoDB's checks and messages (missing or mistyped key attribute, empty
 * value, partition value over 2048 bytes, sort value over 1024), because
 * the item guard needs exactly the API's rules for rows written with SQL.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "errors.h"
#include "table_def.h"

/* DynamoDB table names have at most 255 characters */
#define TABLE_NAME_MAX 256

typedef struct TableDefEntry
{
	char		name[TABLE_NAME_MAX];	/* hash key */
	ItemTableDef def;
} TableDefEntry;

typedef struct RelidEntry
{
	Oid			relid;			/* hash key */
	ItemTableDef *def;
} RelidEntry;

/*
 * What a version's memory context frees with it: the plans of its index
 * definitions, and, once retired, those its table held.
 */
typedef struct TableDefVersion
{
	MemoryContextCallback cb;
	int			nindexes;
	IndexDef   *indexes;
	ItemTableDef retired;		/* the definition as it was when replaced */
} TableDefVersion;

/* set by DistInit (distributed.c) */
TableDefStoreChooser table_def_store_chooser = NULL;

static HTAB *defs_by_name = NULL;
static HTAB *defs_by_relid = NULL;
/* versions replaced in this transaction (NULL: none) */
static MemoryContext retired_cxt = NULL;
/* relcache invalidations seen, to notice one that arrives during a read */
static uint64 inval_count = 0;

/* ----------------------------------------------------------------
 * invalidation and versions
 * ----------------------------------------------------------------
 */

/*
 * Relcache invalidation: mark stale the definitions that involve relid
 * (all of them for InvalidOid).  Nothing is freed here.
 */
static void
table_def_inval(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	TableDefEntry *e;

	inval_count++;
	hash_seq_init(&status, defs_by_name);
	while ((e = hash_seq_search(&status)) != NULL)
	{
		ItemTableDef *def = &e->def;
		int			i;

		if (relid == InvalidOid || def->relid == relid)
			def->valid = false;
		for (i = 0; def->valid && i < def->nindexes; i++)
		{
			if (def->indexes[i].relid == relid)
				def->valid = false;
		}
	}
	/* the type may have been dropped and created again */
	ItemKeyTypeOidReset();
}

static void
table_def_init(void)
{
	HASHCTL		ctl;

	if (defs_by_name != NULL)
		return;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(RelidEntry);
	ctl.hcxt = CacheMemoryContext;
	defs_by_relid = hash_create("item_table definitions by relid", 64, &ctl,
								HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = TABLE_NAME_MAX;
	ctl.entrysize = sizeof(TableDefEntry);
	ctl.hcxt = CacheMemoryContext;
	defs_by_name = hash_create("item_table definitions", 64, &ctl,
							   HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	CacheRegisterRelcacheCallback(table_def_inval, (Datum) 0);
}

static void
free_plans(SPIPlanPtr **slots, int n)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		if (*slots[i] != NULL)
			SPI_freeplan(*slots[i]);
		*slots[i] = NULL;
	}
}

/* a version's memory goes away: free the plans made for it */
static void
version_free_plans(void *arg)
{
	TableDefVersion *v = (TableDefVersion *) arg;
	ItemTableDef *def = &v->retired;
	SPIPlanPtr *table_plans[] = {&def->plan_get, &def->plan_get_lock,
		&def->plan_insert, &def->plan_update, &def->plan_update_tid,
		&def->plan_delete, &def->plan_upsert, &def->plan_read_forward,
	&def->plan_read_backward, &def->plan_read_segment, &def->plan_collection_size,
		&def->plan_dist_get, &def->plan_dist_get_lock, &def->plan_dist_insert,
		&def->plan_dist_update, &def->plan_dist_delete,
		&def->plan_dist_delete_returning, &def->plan_dist_upsert,
		&def->plan_dist_read_forward, &def->plan_dist_read_backward,
		&def->plan_dist_scan_forward, &def->plan_dist_scan_backward,
	&def->plan_dist_scan_segment};
	int			i;

	for (i = 0; i < v->nindexes; i++)
	{
		IndexDef   *idx = &v->indexes[i];
		SPIPlanPtr *index_plans[] = {&idx->plan_upsert, &idx->plan_delete,
			&idx->plan_read_forward, &idx->plan_read_backward, &idx->plan_read_segment,
			&idx->plan_dist_upsert, &idx->plan_dist_delete,
			&idx->plan_dist_read_forward, &idx->plan_dist_read_backward,
			&idx->plan_dist_scan_forward, &idx->plan_dist_scan_backward,
		&idx->plan_dist_scan_segment};

		free_plans(index_plans, lengthof(index_plans));
	}
	free_plans(table_plans, lengthof(table_plans));
}

static void
retired_gone(void *arg)
{
	retired_cxt = NULL;
}

/*
 * retire_version
 *		Hand def's current version (its memory and plans) over to the end of
 *		the transaction, and empty def.
 */
static void
retire_version(ItemTableDef *def)
{
	if (def->cxt != NULL)
	{
		TableDefVersion *v = def->version;

		if (retired_cxt == NULL)
		{
			MemoryContextCallback *cb;

			retired_cxt = AllocSetContextCreate(TopTransactionContext,
												"item_table retired definitions",
												ALLOCSET_SMALL_SIZES);
			cb = MemoryContextAlloc(retired_cxt, sizeof(MemoryContextCallback));
			cb->func = retired_gone;
			cb->arg = NULL;
			MemoryContextRegisterResetCallback(retired_cxt, cb);
		}
		v->retired = *def;
		MemoryContextSetParent(def->cxt, retired_cxt);
	}
	memset(def, 0, sizeof(*def));
}

/* a new, empty version for def */
static TableDefVersion *
new_version(ItemTableDef *def)
{
	TableDefVersion *v;

	def->cxt = AllocSetContextCreate(CacheMemoryContext, "item_table definition",
									 ALLOCSET_SMALL_SIZES);
	v = MemoryContextAllocZero(def->cxt, sizeof(TableDefVersion));
	v->cb.func = version_free_plans;
	v->cb.arg = v;
	MemoryContextRegisterResetCallback(def->cxt, &v->cb);
	def->version = v;
	return v;
}

/* ----------------------------------------------------------------
 * reading the catalog
 * ----------------------------------------------------------------
 */

/*
 * A table's row and its index rows (none: one row of NULLs), in index-name
 * order; $1 is the table name or the physical table's OID.
 */
#define DEF_COLUMNS \
	"SELECT t.table_name, t.relid::pg_catalog.oid, t.hash_key, t.hash_type," \
	" t.range_key, t.range_type, i.index_name, i.kind, i.relid::pg_catalog.oid," \
	" i.hash_key, i.hash_type, i.range_key, i.range_type, i.projection_type," \
	" i.non_key_attributes, i.element_index, i.status," \
	" ARRAY(SELECT e OPERATOR(pg_catalog.->>) 'AttributeName' FROM pg_catalog.jsonb_array_elements(" \
	"   CASE WHEN pg_catalog.jsonb_typeof(pg_catalog.to_jsonb(i) OPERATOR(pg_catalog.->) 'key_schema') = 'array'" \
	"   THEN pg_catalog.to_jsonb(i) OPERATOR(pg_catalog.->) 'key_schema' END) e)," \
	" ARRAY(SELECT e OPERATOR(pg_catalog.->>) 'AttributeType' FROM pg_catalog.jsonb_array_elements(" \
	"   CASE WHEN pg_catalog.jsonb_typeof(pg_catalog.to_jsonb(i) OPERATOR(pg_catalog.->) 'key_schema') = 'array'" \
	"   THEN pg_catalog.to_jsonb(i) OPERATOR(pg_catalog.->) 'key_schema' END) e)," \
	" ARRAY(SELECT e OPERATOR(pg_catalog.->>) 'KeyType' FROM pg_catalog.jsonb_array_elements(" \
	"   CASE WHEN pg_catalog.jsonb_typeof(pg_catalog.to_jsonb(i) OPERATOR(pg_catalog.->) 'key_schema') = 'array'" \
	"   THEN pg_catalog.to_jsonb(i) OPERATOR(pg_catalog.->) 'key_schema' END) e)" \
	" FROM item_table.tables t LEFT JOIN item_table.indexes i" \
	" ON i.table_name OPERATOR(pg_catalog.=) t.table_name"
#define DEF_BY_NAME_SQL		DEF_COLUMNS \
	" WHERE t.table_name OPERATOR(pg_catalog.=) $1 ORDER BY i.index_name"
#define DEF_BY_RELID_SQL	DEF_COLUMNS \
	" WHERE t.relid::pg_catalog.oid OPERATOR(pg_catalog.=) $1 ORDER BY i.index_name"

enum
{
	COL_TABLE_NAME = 1, COL_RELID, COL_HASH_KEY, COL_HASH_TYPE, COL_RANGE_KEY,
	COL_RANGE_TYPE, COL_INDEX_NAME, COL_KIND, COL_INDEX_RELID, COL_INDEX_HASH_KEY,
	COL_INDEX_HASH_TYPE, COL_INDEX_RANGE_KEY, COL_INDEX_RANGE_TYPE,
	COL_PROJECTION, COL_NON_KEY, COL_ELEMENT, COL_STATUS, COL_KEY_NAMES,
	COL_KEY_TYPES, COL_KEY_KINDS
};

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

/* column col of a catalog row as a string in cxt (NULL stays NULL) */
static char *
column_string(HeapTuple tup, TupleDesc desc, int col, MemoryContext cxt)
{
	char	   *s = SPI_getvalue(tup, desc, col);

	return s != NULL ? MemoryContextStrdup(cxt, s) : NULL;
}

/*
 * read_key_schema
 *		A multi-attribute key schema (the catalog's key_schema, read by
 *		to_jsonb so that a 1.1 catalog without the column reads as none).
 */
static void
read_key_schema(IndexDef *d, HeapTuple tup, TupleDesc desc, MemoryContext cxt)
{
	bool		isnull;
	Datum	   *names;
	Datum	   *types;
	Datum	   *kinds;
	bool	   *nulls;
	int			n;
	int			k;

	d->multi = false;
	d->nkeys = 0;
	d->nhash = 0;
	deconstruct_array(DatumGetArrayTypeP(SPI_getbinval(tup, desc, COL_KEY_NAMES, &isnull)),
					  TEXTOID, -1, false, TYPALIGN_INT, &names, &nulls, &n);
	if (n == 0)
		return;
	if (n > ITEMKEY_MAX_TUPLE_PARTS)
		elog(ERROR, "invalid key_schema of index \"%s\" in the item_table catalog", d->name);
	deconstruct_array(DatumGetArrayTypeP(SPI_getbinval(tup, desc, COL_KEY_TYPES, &isnull)),
					  TEXTOID, -1, false, TYPALIGN_INT, &types, &nulls, &k);
	deconstruct_array(DatumGetArrayTypeP(SPI_getbinval(tup, desc, COL_KEY_KINDS, &isnull)),
					  TEXTOID, -1, false, TYPALIGN_INT, &kinds, &nulls, &k);
	for (k = 0; k < n; k++)
	{
		d->keys[k] = MemoryContextStrdup(cxt, TextDatumGetCString(names[k]));
		d->key_types[k] = key_type_from_text(TextDatumGetCString(types[k]));
		if (strcmp(TextDatumGetCString(kinds[k]), "HASH") == 0)
			d->nhash++;
	}
	d->nkeys = n;
	d->multi = true;
}

static void
read_index(IndexDef *d, HeapTuple tup, TupleDesc desc, MemoryContext cxt)
{
	bool		isnull;
	char	   *s;
	Datum		arr;

	d->name = column_string(tup, desc, COL_INDEX_NAME, cxt);
	d->is_local = strcmp(SPI_getvalue(tup, desc, COL_KIND), "LSI") == 0;
	d->relid = DatumGetObjectId(SPI_getbinval(tup, desc, COL_INDEX_RELID, &isnull));
	d->hash_key = column_string(tup, desc, COL_INDEX_HASH_KEY, cxt);
	d->hash_type = key_type_from_text(SPI_getvalue(tup, desc, COL_INDEX_HASH_TYPE));
	d->range_key = column_string(tup, desc, COL_INDEX_RANGE_KEY, cxt);
	if (d->range_key)
		d->range_type = key_type_from_text(SPI_getvalue(tup, desc, COL_INDEX_RANGE_TYPE));
	s = SPI_getvalue(tup, desc, COL_PROJECTION);
	d->projection = strcmp(s, "ALL") == 0 ? PROJ_ALL :
		strcmp(s, "KEYS_ONLY") == 0 ? PROJ_KEYS_ONLY : PROJ_INCLUDE;
	arr = SPI_getbinval(tup, desc, COL_NON_KEY, &isnull);
	if (!isnull)
	{
		Datum	   *elems;
		bool	   *nulls;
		int			k;

		deconstruct_array(DatumGetArrayTypeP(arr), TEXTOID, -1, false,
						  TYPALIGN_INT, &elems, &nulls, &d->nnonkey);
		d->nonkey = MemoryContextAlloc(cxt, sizeof(char *) * Max(1, d->nnonkey));
		for (k = 0; k < d->nnonkey; k++)
			d->nonkey[k] = MemoryContextStrdup(cxt, TextDatumGetCString(elems[k]));
	}
	d->element = DatumGetBool(SPI_getbinval(tup, desc, COL_ELEMENT, &isnull));
	d->creating = strcmp(SPI_getvalue(tup, desc, COL_STATUS), "CREATING") == 0;
	read_key_schema(d, tup, desc, cxt);
}

/*
 * load_def
 *		Read the definition of the table whose name or physical table's OID
 *		is key (by_relid) into its entry, and return it; NULL when the
 *		catalog has no such table.
 */
static ItemTableDef *
load_def(Datum key, bool by_relid)
{
	static SPIPlanPtr by_name_plan = NULL;
	static SPIPlanPtr by_relid_plan = NULL;
	SPIPlanPtr *plan = by_relid ? &by_relid_plan : &by_name_plan;
	ItemTableDef *def = NULL;
	TupleDesc	desc;
	HeapTuple	tup;
	uint64		n;
	uint64		i;
	uint64		invals = inval_count;
	int			rc;
	bool		isnull;

	Assert(IsTransactionState());
	SPI_connect();
	if (*plan == NULL)
	{
		Oid			argtype = by_relid ? OIDOID : TEXTOID;

		*plan = ItemPrepareKept(by_relid ? DEF_BY_RELID_SQL : DEF_BY_NAME_SQL,
								1, &argtype, 0);
	}
	/*
	 * Read-write mode takes a fresh snapshot, which sees the committed
	 * change that invalidated the definition (in a parallel operation, where
	 * no new snapshot may be taken, the active one serves).
	 */
	rc = SPI_execute_plan(*plan, &key, NULL, IsInParallelMode(), 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "item_table catalog read failed: %s", SPI_result_code_string(rc));
	n = SPI_processed;
	if (n > 0)
	{
		TableDefEntry *e;
		RelidEntry *r;
		TableDefVersion *v;
		char	   *name;
		bool		found;

		desc = SPI_tuptable->tupdesc;
		tup = SPI_tuptable->vals[0];
		name = SPI_getvalue(tup, desc, COL_TABLE_NAME);
		if (strlen(name) >= TABLE_NAME_MAX)
			elog(ERROR, "table name \"%s\" in the item_table catalog is too long", name);
		e = hash_search(defs_by_name, name, HASH_ENTER, &found);
		def = &e->def;
		if (!found)
			memset(def, 0, sizeof(*def));
		/* the old physical table no longer leads here */
		r = OidIsValid(def->relid) ?
			hash_search(defs_by_relid, &def->relid, HASH_FIND, NULL) : NULL;
		if (r != NULL && r->def == def)
			hash_search(defs_by_relid, &def->relid, HASH_REMOVE, NULL);
		retire_version(def);

		v = new_version(def);
		def->name = MemoryContextStrdup(def->cxt, name);
		def->relid = DatumGetObjectId(SPI_getbinval(tup, desc, COL_RELID, &isnull));
		def->hash_key = column_string(tup, desc, COL_HASH_KEY, def->cxt);
		def->hash_type = key_type_from_text(SPI_getvalue(tup, desc, COL_HASH_TYPE));
		def->range_key = column_string(tup, desc, COL_RANGE_KEY, def->cxt);
		if (def->range_key != NULL)
			def->range_type = key_type_from_text(SPI_getvalue(tup, desc, COL_RANGE_TYPE));
		(void) SPI_getbinval(tup, desc, COL_INDEX_NAME, &isnull);
		if (!isnull)
		{
			def->indexes = MemoryContextAllocZero(def->cxt, sizeof(IndexDef) * n);
			for (i = 0; i < n; i++)
				read_index(&def->indexes[i], SPI_tuptable->vals[i], desc, def->cxt);
			def->nindexes = (int) n;
			v->indexes = def->indexes;
			v->nindexes = def->nindexes;
		}
		r = hash_search(defs_by_relid, &def->relid, HASH_ENTER, NULL);
		r->def = def;
		/* the store of its items, once per version (distributed.c) */
		Assert(table_def_store_chooser != NULL);
		table_def_store_chooser(def);

		/*
		 * An invalidation processed while the catalog was read may stand
		 * for a change the read did not see: use what was read, but read
		 * again next time.
		 */
		def->valid = inval_count == invals;
	}
	SPI_finish();
	return def;
}

/* ----------------------------------------------------------------
 * lookups
 * ----------------------------------------------------------------
 */
ItemTableDef *
TableDefLookup(const char *name)
{
	TableDefEntry *e;
	ItemTableDef *def;

	if (strlen(name) >= TABLE_NAME_MAX)
		DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found");
	table_def_init();
	for (;;)
	{
		uint64		invals;

		e = hash_search(defs_by_name, name, HASH_FIND, NULL);
		if (e != NULL && e->def.valid)
			def = &e->def;
		else
		{
			def = load_def(CStringGetTextDatum(name), false);
			/* a physical table dropped behind the API's back: no table */
			if (def == NULL || !SearchSysCacheExists1(RELOID, ObjectIdGetDatum(def->relid)))
				DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found");
		}

		/*
		 * The definition holds once the table is locked.  A change that
		 * another session committed after this transaction last processed
		 * invalidations -- distribute_table() (its ALTER TABLE), DDL of
		 * UpdateTable -- is seen only when a lock is acquired; until then a
		 * cached definition looks valid.  Used unlocked, such a definition
		 * sent writes down the wrong path (the direct heap writes of an
		 * undistributed table, into a distributed table's empty shell).  So the lock the
		 * caller's statements take anyway is taken here, before the
		 * definition is used: acquiring it processes the invalidations, and
		 * once held no such change can commit until the transaction ends.
		 * If it brought one for this table, the definition is read again
		 * (now under the lock).  Held already: no cost beyond a local hash
		 * lookup.
		 */
		invals = inval_count;
		LockRelationOid(def->relid, AccessShareLock);
		if (def->valid || inval_count == invals)
			return def;
	}
}

ItemTableDef *
TableDefByRelid(Oid relid)
{
	RelidEntry *r;

	table_def_init();
	r = hash_search(defs_by_relid, &relid, HASH_FIND, NULL);
	if (r != NULL && r->def->valid && r->def->relid == relid)
		return r->def;
	return load_def(ObjectIdGetDatum(relid), true);
}

IndexDef *
TableDefFindIndex(ItemTableDef *def, const char *index_name)
{
	int			i;

	for (i = 0; i < def->nindexes; i++)
	{
		if (strcmp(def->indexes[i].name, index_name) == 0)
			return &def->indexes[i];
	}
	return NULL;
}

void
TableDefForget(const char *name)
{
	TableDefEntry *e;

	if (defs_by_name == NULL)
		return;
	e = hash_search(defs_by_name, name, HASH_FIND, NULL);
	if (e != NULL)
		e->def.valid = false;
}

SPIPlanPtr
TableDefPlan(ItemTableDef *def, SPIPlanPtr *slot, const char *sql_template,
			 int nargs, Oid *argtypes)
{
	return TableDefPlanOpts(def, slot, sql_template, nargs, argtypes, 0);
}

SPIPlanPtr
TableDefPlanOpts(ItemTableDef *def, SPIPlanPtr *slot, const char *sql_template,
				 int nargs, Oid *argtypes, int cursor_options)
{
	char	   *relname;
	char	   *nspname;
	char	   *sql;

	if (*slot != NULL)
		return *slot;
	relname = get_rel_name(def->relid);
	nspname = relname ? get_namespace_name(get_rel_namespace(def->relid)) : NULL;
	if (relname == NULL || nspname == NULL)
		DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found");
	sql = psprintf(sql_template, quote_qualified_identifier(nspname, relname));
	*slot = ItemPrepareKept(sql, nargs, argtypes, cursor_options);
	return *slot;
}

/* ----------------------------------------------------------------
 * keys
 * ----------------------------------------------------------------
 */
/* key attribute name of an item, present and of its declared type */
static const AttrValue *
item_key_attr(const AttrValue *item, const char *name, AttrType type)
{
	const AttrValue *v = AttrMapGet(item, name, strlen(name));

	if (v == NULL)
		DynValidation("One or more parameter values were invalid: Missing the key %s in the item",
					  name);
	if (v->type != type)
		DynValidation("One or more parameter values were invalid: Type mismatch for key %s expected: %s actual: %s",
					  name, AttrTypeName(type), AttrTypeName(v->type));
	return v;
}

/* the item_key of key values h and r of def, once they pass the checks */
static ItemKey *
checked_key(ItemTableDef *def, const AttrValue *h, const AttrValue *r)
{
	AttrCheckKeyValue(NULL, def->hash_key, h, false);
	if (r != NULL)
		AttrCheckKeyValue(NULL, def->range_key, r, true);
	return AttrKeyFromValues(h, r);
}

ItemKey *
TableDefKeyFromItem(ItemTableDef *def, const AttrValue *item)
{
	const AttrValue *h = item_key_attr(item, def->hash_key, def->hash_type);
	const AttrValue *r = NULL;

	if (def->range_key != NULL)
		r = item_key_attr(item, def->range_key, def->range_type);
	return checked_key(def, h, r);
}

ItemKey *
TableDefKeyFromKeyParam(ItemTableDef *def, const AttrValue *key)
{
	const AttrValue *h = AttrMapGet(key, def->hash_key, strlen(def->hash_key));
	const AttrValue *r = NULL;
	int			expected = def->range_key != NULL ? 2 : 1;

	if (def->range_key != NULL)
		r = AttrMapGet(key, def->range_key, strlen(def->range_key));
	if (key->u.map.count != expected || h == NULL || h->type != def->hash_type ||
		(def->range_key != NULL && (r == NULL || r->type != def->range_type)))
		DynValidation("The provided key element does not match the schema");
	return checked_key(def, h, r);
}

AttrValue *
TableDefKeyAttributes(ItemTableDef *def, const AttrValue *item)
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
