/*-------------------------------------------------------------------------
 *
 * direct_insert.c
 *		The write of a new item without a statement: what
 *		"INSERT INTO t (key, item) VALUES ($1, $2) ON CONFLICT (key) DO
 *		NOTHING" (or "... DO UPDATE SET item = EXCLUDED.item") does to a
 *		plain item table when key has no row.
 *
 * Every API write that makes a new item -- PutItem of a new key,
 * UpdateItem creating an item, a Put of TransactWriteItems, a PutRequest of
 * BatchWriteItem -- reaches ApiInsertItem or ApiUpsertItem, which used to
 * run the statement above through SPI for each item: plan revalidation, an
 * executor start and end, the trigger manager, around one heap row and one
 * index entry.  ApiInsertItemDirect does only the row and the entry, with
 * the executor's own speculative insertion, so that a concurrent insert of
 * the same key ends exactly as it would for the statement:
 *
 *	  1. the pre-check (ExecCheckIndexConstraints on the primary key, under a
 *		 dirty snapshot): an inserter or deleter of key still in progress is
 *		 waited for, then a live row of key is a conflict;
 *	  2. the speculative insertion lock, the heap row marked speculative,
 *		 the primary key entry inserted without raising on a duplicate
 *		 (ExecInsertIndexTuples with noDupErr), and the row confirmed -- or,
 *		 when another backend's entry for key came first, killed ("super
 *		 deleted") and step 1 again, which now finds that row.
 *
 * Nearly every caller has just probed key and found no row (the locked
 * read of a conditional write or of a TransactWriteItems action, the probe
 * of an unconditional put that would have replaced the row); the others
 * write a Put whose condition holds only when key has no item
 * (attribute_not_exists(pk): ApiInsertIfAbsent, api_common.c), where the
 * probe is skipped because its only useful answer is "nothing".  So step 1
 * would nearly always find nothing: under READ COMMITTED it is skipped the
 * first time round ("absent"), and runs only after a conflict in step 2.
 * That changes what a conflict costs (a killed row), never its outcome;
 * see ApiInsertItemDirect.
 *
 * A call writing several new items (TransactWriteItems, BatchWriteItem)
 * passes an ApiInsertCache: a table is opened, checked and given its executor state
 * once for all its new items of the call, not once per item; the
 * per-item checks (privileges, row-level security, read-only) still run
 * for each.  See ApiInsertCacheClose for when the table may stay open.
 *
 * A conflict is DIRECT_INSERT_EXISTS for ON CONFLICT DO NOTHING (the
 * statement inserts nothing, the caller's conflict handling follows: the
 * locked re-read and ConditionalCheckFailed of a conditional write,
 * TransactionConflict in TransactWriteItems) except where the statement
 * would look further: under a transaction snapshot (REPEATABLE READ and up
 * the statement raises a serialization failure when the conflicting row is
 * invisible to it) and for ON CONFLICT DO UPDATE (which updates that row),
 * where it is DIRECT_INSERT_STATEMENT and the caller runs the statement.
 *
 * Where it applies.  Only where the statement could not behave otherwise;
 * in every other case DIRECT_INSERT_STATEMENT before anything is written:
 *	  - ApiDirectRights (direct_check.c) for INSERT and SELECT (and UPDATE
 *		for DO UPDATE) says no: privileges (column grants are the
 *		statement's business), a permission hook, row-level security, a
 *		read-only or parallel transaction;
 *	  - ApiDirectShape for a write with no other live column says no: the
 *		table is not the plain (key item_key, item jsonb) heap (another
 *		live column: its default, NOT NULL or identity is the statement's),
 *		CHECK constraints, stored generated columns, rules, a partition (its
 *		partition constraint), not an ordinary table, an index other than
 *		the valid, ready, immediate, unique btree primary key on key (other
 *		unique indexes would be arbiters too, expression and partial
 *		indexes need the executor);
 *	  - a trigger would fire that ApiDirectTriggers (direct_upkeep.c) does not
 *		accept: anything but the item guard (which lets exactly the API's
 *		registered row through unchanged, so not firing it changes
 *		nothing), the GSI/LSI index trigger and the stream trigger, whose
 *		work insert_after_write does in their place.
 * CheckCmdReplicaIdentity for INSERT is called as the executor calls it
 * (an insert needs no replica identity: it raises nothing today).
 *
 * After the write.  Whatever the statement does once the row is written
 * (the AFTER ROW triggers: the index rows, then the stream record, by
 * ApiDirectUpkeep as for the other direct writes) happens in
 * insert_after_write and only there: one call site, right after the row
 * and its key entry are confirmed.
 *
 * A store without direct paths (item_store.h) never comes here: its
 * callers take the store's statements.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/rel.h"
#include "utils/rls.h"

#include "api.h"
#include "compat.h"
#include "direct_check.h"

/*
 * insert_after_write
 *		Everything that follows the write of the new row (key, item) of rel,
 *		now in the heap and in the primary key: the one place for it.  upkeep
 *		is what ApiDirectTriggers said the triggers the statement would fire
 *		do after the row (the index rows, then the stream record), done by
 *		ApiDirectUpkeep as they would do it.
 */
static void
insert_after_write(Relation rel, TupleTableSlot *slot, int upkeep)
{
	if (upkeep != 0)
		ApiDirectUpkeep(rel, upkeep, slot->tts_values[0],
						(Datum) 0, true, false,
						slot->tts_values[1], true);
}

/*
 * An ApiInsertCache holds one table opened for direct inserts with what
 * its inserts need (the table and its primary key locked and open, the
 * IndexInfo, the executor state and the slot), so that a call writing
 * several new items of one table -- TransactWriteItems, BatchWriteItem --
 * opens and checks the table once, not once per item.  See ApiInsertCacheClose for
 * when the caller must drop it.
 */
struct ApiInsertCache
{
	Oid			relid;			/* InvalidOid: nothing open */
	bool		upsert;
	Relation	rel;
	Relation	idx;
	int			upkeep;
	EState	   *estate;
	ResultRelInfo *rri;
	List	   *arbiters;
	TupleTableSlot *slot;
};

ApiInsertCache *
ApiInsertCacheCreate(void)
{
	return palloc0(sizeof(ApiInsertCache));
}

/*
 * ApiInsertCacheClose
 *		Close what c holds (it may be reused for another table afterwards).
 *
 * Holding a table open across inserts is safe only while no SQL of this
 * session runs in between: the checks made when it was opened (triggers,
 * indexes, columns, rules) cannot change under the RowExclusiveLock held,
 * except by this very session -- a trigger fired by a statement -- which
 * would also find the table in use and fail where the statement path
 * would not.  So the caller closes the cache before anything that may run
 * a statement (a statement fallback, a delete or an update of an existing
 * item, the writes of a store without direct paths); the direct writes of this module, of
 * ApiReplaceItemDirect and their upkeep may run while it is open.  It is
 * also closed before leaving the (sub)transaction that opened it: the
 * references belong to its resource owner.  After an error the
 * (sub)transaction's abort releases them; the cache is then simply dropped.
 */
void
ApiInsertCacheClose(ApiInsertCache *c)
{
	if (c == NULL || !OidIsValid(c->relid))
		return;
	ExecDropSingleTupleTableSlot(c->slot);
	FreeExecutorState(c->estate);
	index_close(c->idx, NoLock);
	table_close(c->rel, NoLock);
	c->relid = InvalidOid;
}

/*
 * insert_prepare
 *		Fill t with the executor's state that the index routines work in,
 *		for rel and its primary key idx; everything the inserts allocate
 *		goes with t->estate.
 */
static void
insert_prepare(ApiInsertCache *t, Relation rel, Relation idx, int upkeep, bool upsert)
{
	MemoryContext oldcxt;
	IndexInfo  *ii;
	TupleDesc	desc = RelationGetDescr(rel);

	t->relid = RelationGetRelid(rel);
	t->upsert = upsert;
	t->rel = rel;
	t->idx = idx;
	t->upkeep = upkeep;
	t->estate = CreateExecutorState();
	oldcxt = MemoryContextSwitchTo(t->estate->es_query_cxt);
	t->rri = makeNode(ResultRelInfo);
	t->rri->ri_RelationDesc = rel;
	ii = BuildIndexInfo(idx);
	BuildSpeculativeIndexInfo(idx, ii);
	t->rri->ri_NumIndices = 1;
	t->rri->ri_IndexRelationDescs = (RelationPtr) palloc(sizeof(Relation));
	t->rri->ri_IndexRelationDescs[0] = idx;
	t->rri->ri_IndexRelationInfo = (IndexInfo **) palloc(sizeof(IndexInfo *));
	t->rri->ri_IndexRelationInfo[0] = ii;
	t->arbiters = list_make1_oid(RelationGetRelid(idx));
	t->slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * insert_row
 *		The insert proper (steps 1 and 2 of the header) of (key, item) into
 *		t's table.  absent: the caller has just found no row of key, so step
 *		1 is skipped the first time round (see ApiInsertItemDirect).
 */
static DirectInsertResult
insert_row(ApiInsertCache *t, ItemKey *key, Jsonb *item, bool absent)
{
	DirectInsertResult result = DIRECT_INSERT_STATEMENT;
	Relation	rel = t->rel;
	TupleTableSlot *slot = t->slot;
	TupleDesc	desc = RelationGetDescr(rel);
	CommandId	cid;
	MemoryContext oldcxt;
	bool		precheck = !absent || IsolationUsesXactSnapshot();

	ExecClearTuple(slot);
	memset(slot->tts_isnull, true, desc->natts * sizeof(bool));
	slot->tts_values[0] = PointerGetDatum(key);
	slot->tts_isnull[0] = false;
	slot->tts_values[1] = JsonbPGetDatum(item);
	slot->tts_isnull[1] = false;
	ExecStoreVirtualTuple(slot);

	oldcxt = MemoryContextSwitchTo(t->estate->es_query_cxt);
	/* a new command, as the statement would be */
	CommandCounterIncrement();
	cid = GetCurrentCommandId(true);
	for (;;)
	{
		ItemPointerData conflict_tid;
		uint32		token;
		bool		spec_conflict = false;
		List	   *recheck;

		CHECK_FOR_INTERRUPTS();
		/* 1. waits for an inserter or deleter of key in progress */
		if (precheck &&
			!ItemExecCheckIndexConstraints(t->rri, slot, t->estate, &conflict_tid, t->arbiters))
		{
			result = t->upsert || IsolationUsesXactSnapshot() ?
				DIRECT_INSERT_STATEMENT : DIRECT_INSERT_EXISTS;
			break;
		}
		precheck = true;
		/* 2. the row, speculatively, then its key entry */
		token = SpeculativeInsertionLockAcquire(GetCurrentTransactionId());
		table_tuple_insert_speculative(rel, slot, cid, 0, NULL, token);
		recheck = ItemExecInsertIndexTuples(t->rri, slot, t->estate, false, true,
											&spec_conflict, t->arbiters);
		table_tuple_complete_speculative(rel, slot, token, !spec_conflict);
		SpeculativeInsertionLockRelease(GetCurrentTransactionId());
		list_free(recheck);
		if (!spec_conflict)
		{
			result = DIRECT_INSERT_DONE;
			insert_after_write(rel, slot, t->upkeep);
			break;
		}
		/* another entry for key came first: the pre-check will find it */
	}
	MemoryContextSwitchTo(oldcxt);
	ResetPerTupleExprContext(t->estate);
	ExecClearTuple(slot);
	return result;
}

/*
 * ApiInsertItemDirect
 *		Insert the new row (key, item) into def's table as the statement
 *		"INSERT ... ON CONFLICT (key) DO NOTHING" (upsert false) or "... DO
 *		UPDATE SET item = EXCLUDED.item" (upsert true) would when key has no
 *		row; see the file's header for when it declines.
 *
 * DIRECT_INSERT_DONE: the row is written, and its after-write effects.
 * DIRECT_INSERT_EXISTS (upsert false only): a row of key exists, nothing
 * written, as the statement would have found.  DIRECT_INSERT_STATEMENT:
 * nothing written; the caller runs the statement.
 *
 * absent: the caller has just looked for key and found no row (the probe
 * of a conditional write, of a TransactWriteItems action, of an
 * unconditional put that would have replaced the row), or expects none (a
 * create that must not replace, ApiInsertIfAbsent).  The pre-check
 * (step 1) is then skipped the first time round, under READ COMMITTED:
 * the speculative insertion does not depend on it for its result -- the
 * key entry is inserted without waiting, any other entry for key, live or
 * of an inserter in progress, makes it a conflict (as
 * check_exclusion_or_unique_constraint decides for ExecInsertIndexTuples),
 * the row is killed and step 1 runs, waiting and deciding exactly as it
 * would have -- so skipping it changes only what a conflict costs: one
 * dead row, which the probe just made unlikely.  Under a transaction
 * snapshot the pre-check always runs first (a conflict there ends in the
 * statement, which decides the serialization failure).
 *
 * cache (NULL: none): the table stays open in it for the caller's next
 * insert into the same table; see ApiInsertCacheClose.
 */
DirectInsertResult
ApiInsertItemDirect(ItemTableDef *def, ItemKey *key, Jsonb *item, bool upsert,
					bool absent, ApiInsertCache *cache)
{
	AclMode		need = ACL_SELECT | ACL_INSERT | (upsert ? ACL_UPDATE : 0);
	DirectInsertResult result = DIRECT_INSERT_STATEMENT;
	Relation	rel;
	Relation	idx = NULL;
	int			upkeep = 0;
	ApiInsertCache local;
	ApiInsertCache *t;

	if (!ApiDirectRights(def->relid, InvalidOid, need))
		return DIRECT_INSERT_STATEMENT;
	/* the table already open and checked for this call */
	if (cache != NULL && cache->relid == def->relid && cache->upsert == upsert)
		return insert_row(cache, key, item, absent);

	rel = table_open(def->relid, RowExclusiveLock);
	idx = ApiDirectShape(rel, API_SHAPE_WRITE | API_SHAPE_ONLY_COLUMNS, RowExclusiveLock);
	if (idx == NULL || !ApiDirectTriggers(rel, CMD_INSERT, &upkeep))
		goto out;

	/* the checks of the statement's executor that can fail */
	CheckCmdReplicaIdentity(rel, CMD_INSERT);

	if (cache != NULL)
	{
		ApiInsertCacheClose(cache);		/* another table, or the other mode */
		t = cache;
	}
	else
		t = &local;
	insert_prepare(t, rel, idx, upkeep, upsert);
	result = insert_row(t, key, item, absent);
	if (cache == NULL)
		ApiInsertCacheClose(t);
	return result;

out:
	if (idx != NULL)
		index_close(idx, NoLock);
	table_close(rel, NoLock);
	return result;
}
