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
 * are upserted.  A statement-level TRUNCATE trigger truncates the index
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

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/syscache.h"

#include "errors.h"
#include "stored_item.h"
#include "gsi.h"

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
			DynValidation("One or more parameter values were invalid: Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s",
						  attr, AttrTypeName(expected), AttrTypeName(v->type), idx->name);
		return false;
	}
	if ((v->type == ATTR_S || v->type == ATTR_B) && v->u.bytes.len == 0)
	{
		if (strict && touched)
			DynValidation("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s",
						  v->type == ATTR_S ? "string" : "binary", idx->name, attr);
		return false;
	}
	if ((v->type == ATTR_S || v->type == ATTR_B) && v->u.bytes.len > limit)
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
	for (i = 0; i < idx->nnonkey; i++)
		copy_attr(p, item, idx->nonkey[i]);
	return p;
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
				DynValidation("One or more parameter values were invalid: Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s",
							  idx->hash_key, AttrTypeName(idx->hash_type), AttrTypeName(h->type), idx->name);
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
 * index table writes (SPI connected; as the index owner)
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

/*
 * sync_index
 *		Bring one index from the old item's entries to the new item's.
 */
static void
sync_index(ItemTableDef *def, IndexDef *idx, Datum oldkey, const AttrValue *olditem,
		   Datum newkey, const AttrValue *newitem, bool same_key)
{
	List	   *olde = olditem ? GsiEntries(def, idx, olditem, NULL, false) : NIL;
	List	   *newe = newitem ? GsiEntries(def, idx, newitem, olditem, true) : NIL;
	ListCell   *lc;

	foreach(lc, olde)
	{
		IndexEntry *e = (IndexEntry *) lfirst(lc);

		if (!same_key || GsiFindEntry(newe, e->ikey) == NULL)
			index_delete(idx, e->ikey, oldkey);
	}
	foreach(lc, newe)
	{
		IndexEntry *e = (IndexEntry *) lfirst(lc);
		IndexEntry *o = same_key ? GsiFindEntry(olde, e->ikey) : NULL;

		if (o == NULL || !AttrValueEquals(o->projected, e->projected))
			GsiIndexUpsert(idx, e->ikey, newkey, AttrItemToJsonb(e->projected));
	}
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
	ItemRoleSwitch sw;
	int			i;
	bool		isnull;
	Datum		d;
	Datum		oldkey = (Datum) 0;
	Datum		newkey = (Datum) 0;
	AttrValue  *olditem = NULL;
	AttrValue  *newitem = NULL;
	bool		same_key = true;
	MemoryContext rowcxt;
	MemoryContext oldcxt;

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
	GsiAsIndexOwner(def->indexes[0].relid, &sw);

	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
	{
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

	/* per-row allocations go away with this context */
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "item_table index row",
								   ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(rowcxt);

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
		d = SPI_getbinval(td->tg_trigtuple, desc, itemcol, &isnull);
		olditem = StoredParseItem(def->name, NULL, DatumGetItemKeyPP(oldkey), d, isnull);
	}
	if (!TRIGGER_FIRED_BY_DELETE(td->tg_event))
	{
		HeapTuple	tup = TRIGGER_FIRED_BY_INSERT(td->tg_event) ? td->tg_trigtuple : td->tg_newtuple;

		newkey = SPI_getbinval(tup, desc, keycol, &isnull);
		if (isnull)
			StoredRaiseNullKey(def->name, NULL);
		d = SPI_getbinval(tup, desc, itemcol, &isnull);
		newitem = StoredParseItem(def->name, NULL, DatumGetItemKeyPP(newkey), d, isnull);
	}
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
		same_key = ItemKeyCompare(DatumGetItemKeyPP(oldkey), DatumGetItemKeyPP(newkey)) == 0;

	for (i = 0; i < def->nindexes; i++)
		sync_index(def, &def->indexes[i], oldkey, olditem, newkey, newitem, same_key);

	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(rowcxt);
	ItemAsRoleEnd(&sw);
	SPI_finish();
	return PointerGetDatum(NULL);
}
