/*-------------------------------------------------------------------------
 *
 * gsi.c
 *		Secondary indexes kept by a row trigger, in the base write's
 *		transaction.
 *
 * Each index is an ordinary table item_data."<table>#<index>" with columns
 * (ikey item_key, key item_key, item jsonb) and PRIMARY KEY (ikey, key):
 * ikey holds the index partition and sort values, key the base item's key,
 * item the projected attributes.  Ordering by (ikey, key) is DynamoDB's
 * index order (index partition, index sort, then base partition and base
 * sort for ties), and the pair is unique even when index keys are not.
 *
 * The AFTER ROW trigger item_table.index_trigger() on the base table turns
 * every insert, update and delete -- through the API or plain SQL, COPY
 * included -- into the matching index changes: the entries of the old item
 * that the new item no longer has are deleted, and new or changed entries
 * are upserted (GsiSyncIndex, the one index upkeep: the distributed
 * store's writes, which have no trigger, use it too, with a writer of
 * their own).  A statement-level TRUNCATE trigger truncates the index
 * tables.  Because the trigger runs in the writer's transaction and under
 * the row lock the write already holds, index reads are always current:
 * the indexes are strongly consistent, which DynamoDB's GSIs are not.
 *
 * Ordering and locking: index rows are written after the base row, in
 * index-name order; an index row is only ever touched by the transaction
 * that holds the lock on its base row, so two writers of one base item
 * serialize on the base row and cannot interleave their index changes.
 * Writers of different base items may contend on index pages only.
 *
 * Index rows are written without a statement (heap and primary key
 * directly, a new row by speculative insertion) wherever the statement
 * could not differ, and by INSERT ... ON CONFLICT DO UPDATE or DELETE
 * otherwise; see "index table writes" below.  The direct write paths of
 * the base table (api_common.c) do the trigger's work themselves through
 * GsiSyncDirect, after their base write and before the stream record, as
 * the trigger (item_table_indexes) fires before the stream trigger
 * (item_table_stream).
 *
 * The definitions of the indexes come from table_def.c, read with the
 * table's own definition and cached with it; the trigger finds them by the
 * base table's relid (TableDefByRelid), at no catalog query per row.
 *
 * Index maintenance runs as the owner of the index table, like
 * PostgreSQL's foreign-key triggers: a role allowed to write the base table
 * need not be granted the index tables.
 *
 * Index reads (Query and Scan with IndexName, their explain_* forms,
 * verify()) run as the caller and first pass GsiCheckIndexRead: SELECT on
 * the base table, and no row-level security applying to the caller there.
 * An index row is a copy of an item that the base table's policies cannot
 * filter, so where they apply, only the base table is readable.
 *
 * Rows reach this trigger validated by the item guard (item_guard.c), but a
 * superuser can write past it; the trigger, index_entries() and backfill
 * therefore check the column types, NULLs and the parse of every item they
 * read, and raise XX001 instead of misreading a row.
 *
 * Sparse and invalid keys follow DynamoDB: an absent key attribute means
 * no entry; a present but wrong-typed, empty or too-long one rejects the
 * write, unless the write did not touch that value (an item indexed before
 * the index existed keeps being updatable).  An element index makes one
 * entry per member when its hash attribute is a set or a list (list members
 * of another type are ignored), which makes "all items whose tags contain
 * x" a single Query.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_publication.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parse_func.h"
#include "nodes/makefuncs.h"
#include "parser/parse_relation.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "compat.h"
#include "direct_check.h"
#include "errors.h"
#include "stored_item.h"
#include "gsi.h"
#include "item_store.h"

PG_FUNCTION_INFO_V1(item_table_index_trigger);

/* ----------------------------------------------------------------
 * index lookup and rights
 * ----------------------------------------------------------------
 */

/*
 * GsiFindLocked
 *		An index of a table, found and locked in mode so that it cannot be
 *		dropped while the caller uses it; NULL when there is no such index,
 *		also when it was dropped while this waited for the lock.
 *
 * A reader that found the index in the catalog may wait for the lock
 * behind an UpdateTable that is dropping it; the lock taken, the
 * invalidations it brought in are seen by the definition cache, and the
 * index is looked up again.
 */
IndexDef *
GsiFindLocked(Oid base_relid, const char *index_name, LOCKMODE mode)
{
	for (;;)
	{
		ItemTableDef *def = TableDefByRelid(base_relid);
		IndexDef   *idx = def ? TableDefFindIndex(def, index_name) : NULL;
		Oid			relid;

		if (idx == NULL)
			return NULL;
		relid = idx->relid;
		LockRelationOid(relid, mode);
		def = TableDefByRelid(base_relid);
		idx = def ? TableDefFindIndex(def, index_name) : NULL;
		if (idx != NULL && idx->relid == relid &&
			SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
			return idx;
		UnlockRelationOid(relid, mode);
		/* gone; or, seen through an older snapshot, not there any more */
		if (idx == NULL || idx->relid == relid)
			return NULL;
		/* dropped and made again under the same name: once more */
	}
}

/*
 * GsiCheckIndexRead
 *		Raise an error unless the current user may read the indexes of the
 *		base table base_relid (table_name is its DynamoDB name, for the
 *		message): the user needs SELECT on the base table (on the table or
 *		on every column), and row-level security must not apply to the user
 *		there.  An index table holds copies of items written by the owner,
 *		which the base table's policies cannot filter, so reading one would
 *		show items the policies hide.  The owner without FORCE ROW LEVEL
 *		SECURITY, superusers and BYPASSRLS roles pass.
 */
void
GsiCheckIndexRead(Oid base_relid, const char *table_name)
{
	Oid			user = GetUserId();

	if (pg_class_aclcheck(base_relid, user, ACL_SELECT) != ACLCHECK_OK &&
		pg_attribute_aclcheck_all(base_relid, user, ACL_SELECT, ACLMASK_ALL) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(base_relid));
	if (check_enable_rls(base_relid, InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("index reads are not available on table \"%s\": row-level security applies to it",
						table_name),
				 errdetail("Index tables hold copies of the items, which the table's row-level security policies cannot filter."),
				 errhint("Query or scan the table itself, where the policies apply.")));
}

/* ----------------------------------------------------------------
 * entries
 * ----------------------------------------------------------------
 */

/*
 * GsiTypeMismatch
 *		DynamoDB's refusal of a write whose index key attribute attr has the
 *		type actual where the index (a GSI, LSI or vector index's search
 *		schema) defines expected.
 */
pg_noreturn void
GsiTypeMismatch(const char *attr, const char *expected, const char *actual, const char *index)
{
	DynValidation("One or more parameter values were invalid: Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s",
				  attr, expected, actual, index);
}

/*
 * key_value_ok
 *		Is v a valid value for an index key of type expected?  Raises
 *		DynamoDB's error when strict and the value was changed by the write.
 */
static bool
key_value_ok(IndexDef *idx, const char *attr, AttrType expected, bool is_sort,
			 const AttrValue *v, const AttrValue *oldv, bool strict)
{
	bool		touched = (oldv == NULL || !AttrValueEquals(v, oldv));
	int			limit = is_sort ? ITEMKEY_MAX_SORT_BYTES : ITEMKEY_MAX_PARTITION_BYTES;

	if (v->type != expected)
	{
		if (strict && touched)
			GsiTypeMismatch(attr, AttrTypeName(expected), AttrTypeName(v->type), idx->name);
		return false;
	}
	if ((v->type == ATTR_S || v->type == ATTR_B) && v->u.bytes.len == 0)
	{
		if (strict && touched)
			DynValidation("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s",
						  v->type == ATTR_S ? "string" : "binary", idx->name, attr);
		return false;
	}
	/* an S counted decoded (nul_escape.c) */
	if ((v->type == ATTR_S || v->type == ATTR_B) && v->u.bytes.len > limit &&
		(v->type == ATTR_B || (int) NulEscapeDecodedLength(v->u.bytes.data, v->u.bytes.len) > limit))
	{
		if (strict && touched)
			DynValidation("One or more parameter values were invalid: Size of %s key of index %s has exceeded the maximum size limit of %d bytes",
						  is_sort ? "range" : "hash", idx->name, limit);
		return false;
	}
	return true;
}

static void
copy_attr(AttrValue *to, const AttrValue *from, const char *name)
{
	AttrValue  *v;

	if (name == NULL)
		return;
	v = AttrMapGet(from, name, strlen(name));
	if (v != NULL)
		AttrMapPut(to, name, strlen(name), v);
}

static AttrValue *
project(ItemTableDef *def, IndexDef *idx, const AttrValue *item)
{
	AttrValue  *p;
	int			i;

	if (idx->projection == PROJ_ALL)
		return (AttrValue *) item;
	p = AttrNewMap();
	copy_attr(p, item, def->hash_key);
	copy_attr(p, item, def->range_key);
	copy_attr(p, item, idx->hash_key);
	copy_attr(p, item, idx->range_key);
	for (i = 0; i < idx->nkeys; i++)
		copy_attr(p, item, idx->keys[i]);
	for (i = 0; i < idx->nnonkey; i++)
		copy_attr(p, item, idx->nonkey[i]);
	return p;
}

/*
 * multi_entries
 *		GsiEntries for a multi-attribute key schema: one entry when the item
 *		has every key attribute with its type (each present one checked, as
 *		for a classic index), a tuple key of their values in order.
 */
static List *
multi_entries(ItemTableDef *def, IndexDef *idx, const AttrValue *item,
			  const AttrValue *old, bool strict)
{
	ItemKeyPart parts[ITEMKEY_MAX_TUPLE_PARTS];
	bool		all = true;
	IndexEntry *e;
	int			i;

	for (i = 0; i < idx->nkeys; i++)
	{
		const char *name = idx->keys[i];
		const AttrValue *v = AttrMapGet(item, name, strlen(name));
		const AttrValue *oldv = old ? AttrMapGet(old, name, strlen(name)) : NULL;

		if (v == NULL ||
			!key_value_ok(idx, name, idx->key_types[i], i >= idx->nhash, v, oldv, strict))
		{
			all = false;
			continue;
		}
		AttrKeyPart(v, &parts[i]);
	}
	if (!all)
		return NIL;				/* sparse */
	e = palloc(sizeof(IndexEntry));
	e->ikey = KeyCodecBuildTuple(parts, idx->nhash, idx->nkeys);
	e->projected = project(def, idx, item);
	return list_make1(e);
}

List *
GsiEntries(ItemTableDef *def, IndexDef *idx, const AttrValue *item,
		   const AttrValue *old, bool strict)
{
	const AttrValue *h = AttrMapGet(item, idx->hash_key, strlen(idx->hash_key));
	const AttrValue *r = NULL;
	const AttrValue *oldh = old ? AttrMapGet(old, idx->hash_key, strlen(idx->hash_key)) : NULL;
	List	   *hashes = NIL;
	List	   *entries = NIL;
	ItemKeyPart rp;
	AttrValue  *projected;
	ListCell   *lc;

	if (idx->multi)
		return multi_entries(def, idx, item, old, strict);
	/* every present key attribute is checked, even when another is absent */
	if (idx->range_key != NULL)
	{
		const AttrValue *oldr = old ? AttrMapGet(old, idx->range_key, strlen(idx->range_key)) : NULL;
		bool		range_ok;

		r = AttrMapGet(item, idx->range_key, strlen(idx->range_key));
		range_ok = r != NULL &&
			key_value_ok(idx, idx->range_key, idx->range_type, true, r, oldr, strict);
		if (h != NULL && !(idx->element && (AttrTypeIsSet(h->type) || h->type == ATTR_L)))
		{
			if (!key_value_ok(idx, idx->hash_key, idx->hash_type, false, h, oldh, strict))
				return NIL;
		}
		if (!range_ok)
			return NIL;
		AttrKeyPart(r, &rp);
	}
	if (h == NULL)
		return NIL;				/* sparse */

	if (idx->element && (AttrTypeIsSet(h->type) || h->type == ATTR_L))
	{
		int			i;
		bool		set_of_type = (h->type == ATTR_SS && idx->hash_type == ATTR_S) ||
			(h->type == ATTR_NS && idx->hash_type == ATTR_N) ||
			(h->type == ATTR_BS && idx->hash_type == ATTR_B);

		if (AttrTypeIsSet(h->type) && !set_of_type)
		{
			if (strict && (oldh == NULL || !AttrValueEquals(h, oldh)))
				GsiTypeMismatch(idx->hash_key, AttrTypeName(idx->hash_type), AttrTypeName(h->type), idx->name);
			return NIL;
		}
		for (i = 0; i < h->u.list.count; i++)
		{
			const AttrValue *m = h->u.list.elems[i];

			/* list members of another type are not indexed */
			if (m->type != idx->hash_type)
				continue;
			if (key_value_ok(idx, idx->hash_key, idx->hash_type, false, m, NULL, false))
				hashes = lappend(hashes, (void *) m);
		}
	}
	else
	{
		if (!key_value_ok(idx, idx->hash_key, idx->hash_type, false, h, oldh, strict))
			return NIL;
		hashes = list_make1((void *) h);
	}

	projected = project(def, idx, item);
	foreach(lc, hashes)
	{
		const AttrValue *hv = (const AttrValue *) lfirst(lc);
		IndexEntry *e = palloc(sizeof(IndexEntry));
		ItemKeyPart hp;
		ListCell   *pc;
		bool		dup = false;

		AttrKeyPart(hv, &hp);
		e->ikey = KeyCodecBuild(&hp, idx->range_key ? &rp : NULL);
		/* a list may repeat a member: one entry each */
		foreach(pc, entries)
		{
			if (ItemKeyCompare(((IndexEntry *) lfirst(pc))->ikey, e->ikey) == 0)
				dup = true;
		}
		if (dup)
			continue;
		e->projected = projected;
		entries = lappend(entries, e);
	}
	return entries;
}

/* ----------------------------------------------------------------
 * index table writes (as the index owner)
 *
 * An index row is written directly -- a heap insert, update or delete on
 * the index table and, for a new row version, its primary key entry --
 * where that cannot differ from the statement that would otherwise run
 * (index_table_direct_ok), and by the statement everywhere else; a direct
 * write that meets anything unusual (a row version another transaction is
 * writing, a concurrent update, a possible unique conflict) undoes nothing
 * because it has written nothing, and runs the statement for that entry.
 *
 * The upsert is what INSERT ... ON CONFLICT (ikey, key) DO UPDATE does:
 * a probe of the primary key with a dirty snapshot; a live row is
 * updated; none, and the row is inserted speculatively (the heap tuple
 * under a speculative-insertion token, the index entry with a partial
 * unique check, the tuple confirmed or killed after), so an insert that
 * met a conflicting one in the meantime kills its own tuple and leaves the
 * conflict to the statement, which waits and updates.  Writers of one base
 * item never race here (the base row lock orders them, and backfill holds
 * FOR SHARE on the rows it indexes), but the scheme does not rely on it.
 * ----------------------------------------------------------------
 */
static SPIPlanPtr
index_plan(IndexDef *idx, SPIPlanPtr *slot, const char *fmt, int nargs)
{
	Oid			argtypes[3] = {ItemKeyTypeOid(), ItemKeyTypeOid(), JSONBOID};
	SPIPlanPtr	plan;

	if (*slot != NULL)
		return *slot;
	plan = ItemPrepareKept(psprintf(fmt, ItemQualifiedName(idx->relid)), nargs, argtypes, 0);
	*slot = plan;
	return plan;
}

void
GsiIndexUpsert(IndexDef *idx, ItemKey *ikey, Datum basekey, Jsonb *item)
{
	Datum		args[3] = {PointerGetDatum(ikey), basekey, JsonbPGetDatum(item)};
	SPIPlanPtr	plan = index_plan(idx, &idx->plan_upsert,
								  "INSERT INTO %s (ikey, key, item) VALUES ($1, $2, $3)"
								  " ON CONFLICT (ikey, key) DO UPDATE SET item = EXCLUDED.item", 3);
	int			rc = SPI_execute_plan(plan, args, NULL, false, 0);

	if (rc != SPI_OK_INSERT)
		elog(ERROR, "index insert failed: %s", SPI_result_code_string(rc));
}

static void
index_delete(IndexDef *idx, ItemKey *ikey, Datum basekey)
{
	Datum		args[2] = {PointerGetDatum(ikey), basekey};
	SPIPlanPtr	plan = index_plan(idx, &idx->plan_delete,
								  "DELETE FROM %s WHERE ikey OPERATOR(item_table.=) $1"
								  " AND key OPERATOR(item_table.=) $2", 2);
	int			rc = SPI_execute_plan(plan, args, NULL, false, 0);

	if (rc != SPI_OK_DELETE)
		elog(ERROR, "index delete failed: %s", SPI_result_code_string(rc));
}

/* one base row's index changes: the index owner, switched to on demand */
typedef struct SyncContext
{
	ItemTableDef *def;
	Oid			owner;			/* InvalidOid: not looked up yet */
	ItemRoleSwitch sw;
	bool		switched;
} SyncContext;

/*
 * as_owner
 *		Act as the index owner from now on, for the rest of the row: the
 *		statements run so (direct writes need no switch, their rights are
 *		checked for the owner by index_table_direct_ok).
 */
static void
as_owner(SyncContext *ctx)
{
	if (!ctx->switched)
	{
		GsiAsIndexOwner(ctx->def->indexes[0].relid, &ctx->sw);
		ctx->switched = true;
	}
}

/* an index table open for one row's changes */
typedef struct IndexTarget
{
	IndexDef   *idx;
	SyncContext *ctx;
	Relation	rel;
	Relation	pk;				/* NULL: every write by statement */
	IndexInfo  *ii;
	FmgrInfo   *eq[2];			/* = of the primary key's two columns */
	TupleTableSlot *found;		/* a probed row version */
	TupleTableSlot *slot;		/* a new row version (virtual) */
} IndexTarget;

/* the btree = of opfamily for item_key, cached per opfamily */
static FmgrInfo *
key_eq_info(Oid opfamily)
{
	static Oid	cached_family[2] = {InvalidOid, InvalidOid};
	static FmgrInfo cached_info[2];
	Oid			keytype = ItemKeyTypeOid();
	Oid			eqop;
	int			i;

	for (i = 0; i < 2; i++)
		if (cached_family[i] == opfamily)
			return &cached_info[i];
	eqop = get_opfamily_member(opfamily, keytype, keytype, BTEqualStrategyNumber);
	if (!OidIsValid(eqop))
		return NULL;
	i = OidIsValid(cached_family[0]) ? 1 : 0;
	cached_family[i] = InvalidOid;
	fmgr_info_cxt(get_opcode(eqop), &cached_info[i], TopMemoryContext);
	cached_family[i] = opfamily;
	return &cached_info[i];
}

/*
 * index_table_direct_ok
 *		May the index rows of rel be written without the statements that
 *		would run as owner (the index owner, GsiAsIndexOwner)?  Only where
 *		the statements could not behave differently, the rules of the base
 *		table's direct paths (direct_check.c): ApiDirectRights for owner and
 *		SELECT, INSERT, UPDATE and DELETE (FORCE ROW LEVEL SECURITY counts as
 *		applying, which the statements' security context would ignore: a
 *		fallback that changes nothing), ApiDirectShape for a write to an
 *		index table (ikey item_key, key item_key, item jsonb) with no other
 *		live column, its only index the btree primary key on (ikey, key);
 *		and what is an index table's own: exactly those three columns, no
 *		trigger at all, no publication.  On success *pk is that index,
 *		opened.
 */
static bool
index_table_direct_ok(Relation rel, Oid owner, Relation *pk)
{
	PublicationDesc pubdesc;

	*pk = NULL;
	if (!ActiveSnapshotSet() ||
		!ApiDirectRights(RelationGetRelid(rel), owner,
						 ACL_SELECT | ACL_INSERT | ACL_UPDATE | ACL_DELETE))
		return false;
	/* what is an index table's own: exactly three columns, no trigger or publication */
	if (rel->trigdesc != NULL || RelationGetDescr(rel)->natts != 3)
		return false;
	RelationBuildPublicationDesc(rel, &pubdesc);
	if (pubdesc.pubactions.pubinsert || pubdesc.pubactions.pubupdate ||
		pubdesc.pubactions.pubdelete || pubdesc.pubactions.pubtruncate)
		return false;
	*pk = ApiDirectShape(rel, API_SHAPE_INDEX_TABLE | API_SHAPE_WRITE | API_SHAPE_ONLY_COLUMNS,
						 RowExclusiveLock);
	return *pk != NULL;
}

static void
target_open(IndexTarget *t, SyncContext *ctx, IndexDef *idx)
{
	memset(t, 0, sizeof(IndexTarget));
	t->idx = idx;
	t->ctx = ctx;
	t->rel = table_open(idx->relid, RowExclusiveLock);
	/* a store without direct paths writes its index tables by statement */
	if (!ctx->def->store->direct)
		return;
	if (!OidIsValid(ctx->owner))
		ctx->owner = ItemRelationOwner(ctx->def->indexes[0].relid);
	if (!index_table_direct_ok(t->rel, ctx->owner, &t->pk))
		return;
	t->eq[0] = key_eq_info(t->pk->rd_opfamily[0]);
	t->eq[1] = key_eq_info(t->pk->rd_opfamily[1]);
	if (t->eq[0] == NULL || t->eq[1] == NULL)
	{
		index_close(t->pk, NoLock);
		t->pk = NULL;
		return;
	}
	t->ii = BuildIndexInfo(t->pk);
	t->found = table_slot_create(t->rel, NULL);
	t->slot = MakeSingleTupleTableSlot(RelationGetDescr(t->rel), &TTSOpsVirtual);
}

static void
target_close(IndexTarget *t)
{
	if (t->slot != NULL)
		ExecDropSingleTupleTableSlot(t->slot);
	if (t->found != NULL)
		ExecDropSingleTupleTableSlot(t->found);
	if (t->pk != NULL)
		index_close(t->pk, NoLock);
	table_close(t->rel, NoLock);
}

static IndexScanDesc
target_probe(IndexTarget *t, Snapshot snapshot, ScanKeyData *skey, ItemKey *ikey, Datum basekey)
{
	IndexScanDesc scan;

	ScanKeyEntryInitializeWithInfo(&skey[0], 0, 1, BTEqualStrategyNumber, InvalidOid,
								   t->pk->rd_indcollation[0], t->eq[0], PointerGetDatum(ikey));
	ScanKeyEntryInitializeWithInfo(&skey[1], 0, 2, BTEqualStrategyNumber, InvalidOid,
								   t->pk->rd_indcollation[1], t->eq[1], basekey);
	scan = ItemIndexBeginScan(t->rel, t->pk, snapshot, 2);
	index_rescan(scan, skey, 2, NULL, 0);
	return scan;
}

/* the new row version (ikey, basekey, item) in t->slot */
static void
target_store(IndexTarget *t, ItemKey *ikey, Datum basekey, Jsonb *item)
{
	ExecClearTuple(t->slot);
	t->slot->tts_values[0] = PointerGetDatum(ikey);
	t->slot->tts_values[1] = basekey;
	t->slot->tts_values[2] = JsonbPGetDatum(item);
	memset(t->slot->tts_isnull, 0, 3 * sizeof(bool));
	ExecStoreVirtualTuple(t->slot);
}

/*
 * upsert_direct
 *		INSERT ... ON CONFLICT (ikey, key) DO UPDATE SET item, without the
 *		statement; false (nothing written) where the statement must decide.
 *		exists: the old item had this entry, so the row is probed for and
 *		updated; otherwise it is inserted at once (the speculative insertion
 *		finds any conflict, and leaves it to the statement).
 */
static bool
upsert_direct(IndexTarget *t, ItemKey *ikey, Datum basekey, Jsonb *item, bool exists)
{
	SnapshotData dirty;
	ScanKeyData skey[2];
	IndexScanDesc scan;
	ItemPointerData tid;
	int			nfound = 0;
	bool		busy = false;
	bool		isnull[2] = {false, false};

	if (!exists)
		goto insert;
	InitDirtySnapshot(dirty);
	scan = target_probe(t, &dirty, skey, ikey, basekey);
	while (index_getnext_slot(scan, ForwardScanDirection, t->found))
	{
		/* another transaction inserting or deleting it: the statement waits */
		if (TransactionIdIsValid(dirty.xmin) || TransactionIdIsValid(dirty.xmax) ||
			++nfound > 1)
		{
			busy = true;
			break;
		}
		tid = t->found->tts_tid;
		/* repeatable read: a row the snapshot cannot see is a serialization failure */
		if (IsolationUsesXactSnapshot() &&
			!table_tuple_satisfies_snapshot(t->rel, t->found, GetActiveSnapshot()))
		{
			busy = true;
			break;
		}
	}
	index_endscan(scan);
	ExecClearTuple(t->found);
	if (busy)
		return false;

insert:
	/* a new command, as the statement would be */
	CommandCounterIncrement();
	target_store(t, ikey, basekey, item);
	if (nfound == 1)
	{
		TM_FailureData tmfd;
		LockTupleMode lockmode;
		ItemUpdateIndexes update_indexes;

		if (table_tuple_update(t->rel, &tid, t->slot, GetCurrentCommandId(true),
							   InvalidSnapshot, InvalidSnapshot, true,
							   &tmfd, &lockmode, &update_indexes) != TM_Ok)
			return false;
		if (ItemUpdateNeedsIndexInsert(update_indexes))
			index_insert(t->pk, t->slot->tts_values, isnull, &t->slot->tts_tid, t->rel,
						 UNIQUE_CHECK_YES, true, t->ii);
		return true;
	}
	else
	{
		TransactionId xid = GetCurrentTransactionId();
		uint32		token = SpeculativeInsertionLockAcquire(xid);
		bool		unique;

		table_tuple_insert_speculative(t->rel, t->slot, GetCurrentCommandId(true), 0, NULL,
									   token);
		unique = index_insert(t->pk, t->slot->tts_values, isnull, &t->slot->tts_tid, t->rel,
							  UNIQUE_CHECK_PARTIAL, false, t->ii);
		/* a conflict after all: the tuple is killed, the statement decides */
		table_tuple_complete_speculative(t->rel, t->slot, token, unique);
		SpeculativeInsertionLockRelease(xid);
		return unique;
	}
}

/*
 * delete_direct
 *		DELETE ... WHERE ikey = $1 AND key = $2, without the statement: the
 *		row found with a new snapshot, as the statement takes one; false
 *		(nothing deleted) where the statement must decide.
 */
static bool
delete_direct(IndexTarget *t, ItemKey *ikey, Datum basekey)
{
	ScanKeyData skey[2];
	IndexScanDesc scan;
	bool		done = true;

	CommandCounterIncrement();
	PushActiveSnapshot(GetTransactionSnapshot());
	UpdateActiveSnapshotCommandId();
	scan = target_probe(t, GetActiveSnapshot(), skey, ikey, basekey);
	if (index_getnext_slot(scan, ForwardScanDirection, t->found))
	{
		ItemPointerData tid = t->found->tts_tid;
		TM_FailureData tmfd;

		done = table_tuple_delete(t->rel, &tid, GetCurrentCommandId(true),
								  InvalidSnapshot, InvalidSnapshot, true,
								  &tmfd, false) == TM_Ok;
	}
	index_endscan(scan);
	ExecClearTuple(t->found);
	PopActiveSnapshot();
	return done;
}

static void
target_upsert(IndexTarget *t, ItemKey *ikey, Datum basekey, Jsonb *item, bool exists)
{
	if (t->pk == NULL || !upsert_direct(t, ikey, basekey, item, exists))
	{
		as_owner(t->ctx);
		GsiIndexUpsert(t->idx, ikey, basekey, item);
	}
}

static void
target_delete(IndexTarget *t, ItemKey *ikey, Datum basekey)
{
	if (t->pk == NULL || !delete_direct(t, ikey, basekey))
	{
		as_owner(t->ctx);
		index_delete(t->idx, ikey, basekey);
	}
}

/*
 * GsiFindEntry
 *		The entry of entries (IndexEntry) with index key ikey, or NULL.
 */
IndexEntry *
GsiFindEntry(List *entries, ItemKey *ikey)
{
	ListCell   *lc;

	foreach(lc, entries)
	{
		IndexEntry *e = (IndexEntry *) lfirst(lc);

		if (ItemKeyCompare(e->ikey, ikey) == 0)
			return e;
	}
	return NULL;
}

void
GsiSyncIndex(ItemTableDef *def, IndexDef *idx, Datum oldkey, const AttrValue *olditem,
			 Datum newkey, const AttrValue *newitem, Jsonb *newj, bool same_key,
			 const GsiIndexWriter *w, void *arg)
{
	List	   *olde = olditem ? GsiEntries(def, idx, olditem, NULL, false) : NIL;
	List	   *newe = newitem ? GsiEntries(def, idx, newitem, olditem, true) : NIL;
	ListCell   *lc;

	if (olde == NIL && newe == NIL)
		return;					/* sparse: the statements would not run */
	if (w->open != NULL)
		w->open(arg, idx);
	foreach(lc, olde)
	{
		IndexEntry *e = (IndexEntry *) lfirst(lc);

		if (!same_key || GsiFindEntry(newe, e->ikey) == NULL)
			w->remove(arg, idx, e->ikey, oldkey);
	}
	foreach(lc, newe)
	{
		IndexEntry *e = (IndexEntry *) lfirst(lc);
		IndexEntry *o = same_key ? GsiFindEntry(olde, e->ikey) : NULL;

		if (o == NULL || !AttrValueEquals(o->projected, e->projected))
			w->upsert(arg, idx, e->ikey, newkey,
					  newj != NULL && idx->projection == PROJ_ALL ? newj :
					  AttrItemToJsonb(e->projected),
					  o != NULL);
	}
	if (w->close != NULL)
		w->close(arg);
}

/* the local writer (GsiIndexWriter): one IndexTarget at a time */
typedef struct LocalWriter
{
	SyncContext *ctx;
	IndexTarget t;
} LocalWriter;

static void
local_open(void *arg, IndexDef *idx)
{
	LocalWriter *lw = (LocalWriter *) arg;

	target_open(&lw->t, lw->ctx, idx);
}

static void
local_remove(void *arg, IndexDef *idx, ItemKey *ikey, Datum basekey)
{
	target_delete(&((LocalWriter *) arg)->t, ikey, basekey);
}

static void
local_upsert(void *arg, IndexDef *idx, ItemKey *ikey, Datum basekey, Jsonb *item,
			 bool exists)
{
	target_upsert(&((LocalWriter *) arg)->t, ikey, basekey, item, exists);
}

static void
local_close(void *arg)
{
	target_close(&((LocalWriter *) arg)->t);
}

static const GsiIndexWriter local_writer = {
	.open = local_open,
	.remove = local_remove,
	.upsert = local_upsert,
	.close = local_close,
};

/*
 * parse_stored
 *		StoredParseItem, also telling (*asis) whether the stored jsonb is
 *		exactly AttrItemToJsonb of the result (else *asis is NULL).
 */
static AttrValue *
parse_stored(ItemTableDef *def, Datum key, Datum d, bool isnull, Jsonb **asis)
{
	MemoryContext cxt = CurrentMemoryContext;
	Jsonb	   *j;
	AttrValue  *volatile item = NULL;
	volatile bool as_stored = false;

	*asis = NULL;
	if (isnull)
		StoredRaiseBadItem(def->name, NULL, DatumGetItemKeyPP(key), NULL);
	j = DatumGetJsonbP(d);
	PG_TRY();
	{
		bool		st;

		item = AttrItemFromJsonbStored(j, &st);
		as_stored = st;
	}
	PG_CATCH();
	{
		(void) DynCaughtMessage(cxt);
	}
	PG_END_TRY();
	if (item == NULL)
		StoredRaiseBadItem(def->name, NULL, DatumGetItemKeyPP(key), j);
	if (as_stored)
		*asis = j;
	return item;
}

/*
 * as_index_owner
 *		Index rows are written with the rights of the index tables' owner
 *		(the base table's owner), search_path pinned and security-restricted
 *		(catalog.c), so a writer needs no grant on them.
 */
void
GsiAsIndexOwner(Oid index_relid, ItemRoleSwitch *sw)
{
	ItemAsRoleBegin(sw, ItemRelationOwner(index_relid), SECURITY_NOFORCE_RLS);
}

/* ----------------------------------------------------------------
 * Bulk loads (ImportTable): entries checked per row, rows built after
 *
 * While GsiBulkLoadBegin(relid) is on in this backend, the upkeep of the
 * item table relid computes every row's index entries -- so a wrong-typed
 * or empty key attribute refuses the write exactly as it would -- but
 * writes none (check_writer).  GsiBulkBuild then fills each index table
 * from the loaded items in one pass: the rows go to the heap without index
 * entries, and REINDEX builds the primary key by sorting them, as CREATE
 * INDEX does, instead of one random btree insertion per row.  Only a table
 * new in the transaction, whose index tables are still empty, may be bulk
 * loaded (nobody else can see or write it); the caller turns the mode off
 * on every exit, errors included.
 * ----------------------------------------------------------------
 */
static Oid	bulk_relid = InvalidOid;

static void
check_remove(void *arg, IndexDef *idx, ItemKey *ikey, Datum basekey)
{
}

static void
check_upsert(void *arg, IndexDef *idx, ItemKey *ikey, Datum basekey, Jsonb *item,
			 bool exists)
{
}

static const GsiIndexWriter check_writer = {
	.remove = check_remove,
	.upsert = check_upsert,
};

/* an index table created in this transaction and still without rows */
static bool
new_and_empty(Relation rel)
{
	return rel->rd_createSubid != InvalidSubTransactionId &&
		RelationGetNumberOfBlocks(rel) == 0;
}

void
GsiBulkLoadBegin(Oid relid)
{
	ItemTableDef *def = TableDefByRelid(relid);
	int			i;

	if (def == NULL)
		elog(ERROR, "relation %u is not an item table", relid);
	for (i = 0; i < def->nindexes; i++)
	{
		Relation	rel = table_open(def->indexes[i].relid, AccessExclusiveLock);
		bool		ok = new_and_empty(rel);

		table_close(rel, NoLock);
		if (!ok)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("item table \"%s\" cannot be bulk loaded: its index \"%s\" is not new and empty",
							def->name, def->indexes[i].name)));
	}
	bulk_relid = relid;
}

void
GsiBulkLoadEnd(void)
{
	bulk_relid = InvalidOid;
}

/*
 * GsiBulkBuild
 *		The rows of every index table of the item table relid made from its
 *		items: one scan of the base table (each item parsed once, its
 *		entries for every index), the rows written to the index tables'
 *		heaps without index entries, then each index table REINDEXed.  As
 *		the index owner.  Returns the number of index rows written.
 */
int64
GsiBulkBuild(Oid relid)
{
	ItemTableDef *def = TableDefByRelid(relid);
	Relation	base;
	Relation   *rels;
	BulkInsertState *bis;
	TupleTableSlot **slots;
	TableScanDesc scan;
	TupleTableSlot *row;
	Snapshot	snapshot;
	MemoryContext rowcxt;
	MemoryContext oldcxt;
	ItemRoleSwitch sw;
	CommandId	cid;
	int64		written = 0;
	int			keycol;
	int			itemcol;
	int			i;

	if (def == NULL)
		elog(ERROR, "relation %u is not an item table", relid);
	if (def->nindexes == 0)
		return 0;
	GsiAsIndexOwner(def->indexes[0].relid, &sw);
	base = table_open(relid, AccessShareLock);
	keycol = attnameAttNum(base, "key", false);
	itemcol = attnameAttNum(base, "item", false);
	rels = palloc(sizeof(Relation) * def->nindexes);
	bis = palloc(sizeof(BulkInsertState) * def->nindexes);
	slots = palloc(sizeof(TupleTableSlot *) * def->nindexes);
	for (i = 0; i < def->nindexes; i++)
	{
		rels[i] = table_open(def->indexes[i].relid, AccessExclusiveLock);
		if (!new_and_empty(rels[i]) || RelationGetDescr(rels[i])->natts != 3)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the index \"%s\" of item table \"%s\" is not new and empty",
							def->indexes[i].name, def->name)));
		bis[i] = GetBulkInsertState();
		slots[i] = MakeSingleTupleTableSlot(RelationGetDescr(rels[i]), &TTSOpsVirtual);
	}
	/* every item the load wrote, in this transaction's earlier commands */
	CommandCounterIncrement();
	cid = GetCurrentCommandId(true);
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	scan = table_beginscan(base, snapshot, 0, NULL);
	row = table_slot_create(base, NULL);
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "item_table index bulk build row",
								   ALLOCSET_DEFAULT_SIZES);
	while (table_scan_getnextslot(scan, ForwardScanDirection, row))
	{
		bool		keynull;
		bool		itemnull;
		Datum		key;
		Datum		itemd;
		AttrValue  *item;
		Jsonb	   *asis;

		CHECK_FOR_INTERRUPTS();
		oldcxt = MemoryContextSwitchTo(rowcxt);
		key = slot_getattr(row, keycol, &keynull);
		itemd = slot_getattr(row, itemcol, &itemnull);
		if (keynull)
			StoredRaiseNullKey(def->name, NULL);
		item = parse_stored(def, key, itemd, itemnull, &asis);
		for (i = 0; i < def->nindexes; i++)
		{
			IndexDef   *idx = &def->indexes[i];
			ListCell   *lc;

			foreach(lc, GsiEntries(def, idx, item, NULL, true))
			{
				IndexEntry *e = (IndexEntry *) lfirst(lc);
				TupleTableSlot *slot = slots[i];

				ExecClearTuple(slot);
				slot->tts_values[0] = PointerGetDatum(e->ikey);
				slot->tts_values[1] = key;
				slot->tts_values[2] = JsonbPGetDatum(asis != NULL && idx->projection == PROJ_ALL ?
													 asis : AttrItemToJsonb(e->projected));
				memset(slot->tts_isnull, 0, 3 * sizeof(bool));
				ExecStoreVirtualTuple(slot);
				table_tuple_insert(rels[i], slot, cid, 0, bis[i]);
				written++;
			}
		}
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(rowcxt);
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(row);
	UnregisterSnapshot(snapshot);
	MemoryContextDelete(rowcxt);
	for (i = 0; i < def->nindexes; i++)
	{
		ReindexStmt *stmt = makeNode(ReindexStmt);

		FreeBulkInsertState(bis[i]);
		ExecDropSingleTupleTableSlot(slots[i]);
		stmt->kind = REINDEX_OBJECT_TABLE;
		stmt->relation = makeRangeVar(get_namespace_name(RelationGetNamespace(rels[i])),
									  pstrdup(RelationGetRelationName(rels[i])), -1);
		table_close(rels[i], NoLock);
		/* the primary key built from the rows, sorted */
		ItemRunUtility((Node *) stmt, "item_table index bulk build");
	}
	table_close(base, NoLock);
	ItemAsRoleEnd(&sw);
	return written;
}

/*
 * sync_row
 *		The index changes of one base row change, as the index owner: oldkey
 *		0 for an insert, newkey 0 for a delete; the items as stored (a NULL
 *		item or a row past the item guard raises XX001).  SPI connected.
 */
static void
sync_row(ItemTableDef *def, Datum oldkey, Datum olditemd, bool oldnull,
		 Datum newkey, Datum newitemd, bool newnull)
{
	AttrValue  *olditem = NULL;
	AttrValue  *newitem = NULL;
	Jsonb	   *newj = NULL;
	bool		same_key = true;
	SyncContext ctx;
	LocalWriter lw;
	MemoryContext rowcxt;
	MemoryContext oldcxt;
	int			i;

	/* per-row allocations go away with this context */
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "item_table index row",
								   ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(rowcxt);
	if (oldkey != (Datum) 0)
		olditem = StoredParseItem(def->name, NULL, DatumGetItemKeyPP(oldkey), olditemd, oldnull);
	if (newkey != (Datum) 0)
		newitem = parse_stored(def, newkey, newitemd, newnull, &newj);
	if (oldkey != (Datum) 0 && newkey != (Datum) 0)
		same_key = ItemKeyCompare(DatumGetItemKeyPP(oldkey), DatumGetItemKeyPP(newkey)) == 0;

	ctx.def = def;
	ctx.owner = InvalidOid;
	ctx.switched = false;
	lw.ctx = &ctx;
	for (i = 0; i < def->nindexes; i++)
		GsiSyncIndex(def, &def->indexes[i], oldkey, olditem, newkey, newitem, newj,
					 same_key, def->relid == bulk_relid ? &check_writer : &local_writer, &lw);
	if (ctx.switched)
		ItemAsRoleEnd(&ctx.sw);

	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(rowcxt);
}

/*
 * GsiDirectTrigger
 *		Is t the index row trigger exactly as api_index.c makes it, and
 *		would the executor fire it now?  Then a write that bypasses the
 *		executor may call GsiSyncDirect in its place.
 */
bool
GsiDirectTrigger(const Trigger *t)
{
	static Oid	index_fn = InvalidOid;

	return ApiOwnRowTrigger(t, GSI_ROW_TRIGGER_NAME, "index_trigger", &index_fn);
}

/*
 * GsiSyncDirect
 *		What the index trigger does for a row of the base table rel that a
 *		direct write has just inserted (oldkey 0), updated, or deleted
 *		(newkey 0).  SPI connected.
 */
void
GsiSyncDirect(Relation rel, Datum oldkey, Datum olditem, bool oldnull,
			  Datum newkey, Datum newitem, bool newnull)
{
	ItemTableDef *def = TableDefByRelid(RelationGetRelid(rel));

	if (def == NULL || def->nindexes == 0 || !def->store->direct)
		return;
	sync_row(def, oldkey, olditem, oldnull, newkey, newitem, newnull);
}

/*
 * item_table_index_trigger
 *		AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW, and AFTER TRUNCATE
 *		FOR EACH STATEMENT, on item tables that have indexes.
 */
Datum
item_table_index_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	ItemTableDef *def;
	int			keycol;
	int			itemcol;
	int			i;
	bool		isnull;
	Datum		oldkey = (Datum) 0;
	Datum		newkey = (Datum) 0;
	Datum		olditem = (Datum) 0;
	Datum		newitem = (Datum) 0;
	bool		oldnull = false;
	bool		newnull = false;

	if (!CALLED_AS_TRIGGER(fcinfo))
		elog(ERROR, "index_trigger: not called by trigger manager");
	if (!TRIGGER_FIRED_AFTER(td->tg_event))
		elog(ERROR, "index_trigger: must be fired AFTER");

	SPI_connect();
	def = TableDefByRelid(RelationGetRelid(td->tg_relation));
	if (def == NULL || def->nindexes == 0)
	{
		SPI_finish();
		return PointerGetDatum(NULL);
	}

	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
	{
		ItemRoleSwitch sw;

		GsiAsIndexOwner(def->indexes[0].relid, &sw);
		for (i = 0; i < def->nindexes; i++)
		{
			int			rc = SPI_execute(psprintf("TRUNCATE %s",
												  ItemQualifiedName(def->indexes[i].relid)),
										 false, 0);

			if (rc != SPI_OK_UTILITY)
				elog(ERROR, "index truncate failed: %s", SPI_result_code_string(rc));
		}
		ItemAsRoleEnd(&sw);
		SPI_finish();
		return PointerGetDatum(NULL);
	}
	if (!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		elog(ERROR, "index_trigger: must be fired FOR EACH ROW");

	desc = RelationGetDescr(td->tg_relation);
	keycol = SPI_fnumber(desc, "key");
	itemcol = SPI_fnumber(desc, "item");
	if (keycol <= 0 || itemcol <= 0 ||
		TupleDescAttr(desc, keycol - 1)->atttypid != ItemKeyTypeOid() ||
		TupleDescAttr(desc, itemcol - 1)->atttypid != JSONBOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("item table \"%s\" does not have its columns key item_key and item jsonb",
						def->name)));

	/* a row written past the item guard may hold anything: check it */
	if (!TRIGGER_FIRED_BY_INSERT(td->tg_event))
	{
		oldkey = SPI_getbinval(td->tg_trigtuple, desc, keycol, &isnull);
		if (isnull)
			StoredRaiseNullKey(def->name, NULL);
		olditem = SPI_getbinval(td->tg_trigtuple, desc, itemcol, &oldnull);
	}
	if (!TRIGGER_FIRED_BY_DELETE(td->tg_event))
	{
		HeapTuple	tup = TRIGGER_FIRED_BY_INSERT(td->tg_event) ? td->tg_trigtuple : td->tg_newtuple;

		newkey = SPI_getbinval(tup, desc, keycol, &isnull);
		if (isnull)
			StoredRaiseNullKey(def->name, NULL);
		newitem = SPI_getbinval(tup, desc, itemcol, &newnull);
	}
	sync_row(def, oldkey, olditem, oldnull, newkey, newitem, newnull);
	SPI_finish();
	return PointerGetDatum(NULL);
}
