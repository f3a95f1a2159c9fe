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
 *	  - a trigger would fire that ApiDirectTriggers (api_common.c) does not
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
 * Distributed tables (def->citus) never come here: their callers take
 * distributed.c's paths first.
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
 */
DirectInsertResult
ApiInsertItemDirect(ItemTableDef *def, ItemKey *key, Jsonb *item, bool upsert)
{
	AclMode		need = ACL_SELECT | ACL_INSERT | (upsert ? ACL_UPDATE : 0);
	DirectInsertResult result = DIRECT_INSERT_STATEMENT;
	Relation	rel;
	Relation	idx = NULL;
	TupleDesc	desc;
	int			upkeep = 0;
	EState	   *estate = NULL;
	ResultRelInfo *rri;
	IndexInfo  *ii;
	List	   *arbiters;
	TupleTableSlot *slot = NULL;
	CommandId	cid;
	MemoryContext oldcxt;

	if (!ApiDirectRights(def->relid, InvalidOid, need))
		return DIRECT_INSERT_STATEMENT;

	rel = table_open(def->relid, RowExclusiveLock);
	desc = RelationGetDescr(rel);
	idx = ApiDirectShape(rel, API_SHAPE_WRITE | API_SHAPE_ONLY_COLUMNS, RowExclusiveLock);
	if (idx == NULL || !ApiDirectTriggers(rel, CMD_INSERT, &upkeep))
		goto out;

	/* the checks of the statement's executor that can fail */
	CheckCmdReplicaIdentity(rel, CMD_INSERT);

	/*
	 * the executor's state that its index routines work in; all that the
	 * insert allocates goes with it
	 */
	estate = CreateExecutorState();
	oldcxt = MemoryContextSwitchTo(estate->es_query_cxt);
	rri = makeNode(ResultRelInfo);
	rri->ri_RelationDesc = rel;
	ii = BuildIndexInfo(idx);
	BuildSpeculativeIndexInfo(idx, ii);
	rri->ri_NumIndices = 1;
	rri->ri_IndexRelationDescs = (RelationPtr) palloc(sizeof(Relation));
	rri->ri_IndexRelationDescs[0] = idx;
	rri->ri_IndexRelationInfo = (IndexInfo **) palloc(sizeof(IndexInfo *));
	rri->ri_IndexRelationInfo[0] = ii;
	arbiters = list_make1_oid(RelationGetRelid(idx));

	slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	ExecClearTuple(slot);
	memset(slot->tts_isnull, true, desc->natts * sizeof(bool));
	slot->tts_values[0] = PointerGetDatum(key);
	slot->tts_isnull[0] = false;
	slot->tts_values[1] = JsonbPGetDatum(item);
	slot->tts_isnull[1] = false;
	ExecStoreVirtualTuple(slot);

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
		if (!ExecCheckIndexConstraints(rri, slot, estate, &conflict_tid, arbiters))
		{
			result = upsert || IsolationUsesXactSnapshot() ?
				DIRECT_INSERT_STATEMENT : DIRECT_INSERT_EXISTS;
			break;
		}
		/* 2. the row, speculatively, then its key entry */
		token = SpeculativeInsertionLockAcquire(GetCurrentTransactionId());
		table_tuple_insert_speculative(rel, slot, cid, 0, NULL, token);
		recheck = ItemExecInsertIndexTuples(rri, slot, estate, false, true,
											&spec_conflict, arbiters);
		table_tuple_complete_speculative(rel, slot, token, !spec_conflict);
		SpeculativeInsertionLockRelease(GetCurrentTransactionId());
		list_free(recheck);
		if (!spec_conflict)
		{
			result = DIRECT_INSERT_DONE;
			insert_after_write(rel, slot, upkeep);
			break;
		}
		/* another entry for key came first: the pre-check will find it */
	}
	MemoryContextSwitchTo(oldcxt);

out:
	if (slot != NULL)
		ExecDropSingleTupleTableSlot(slot);
	if (estate != NULL)
		FreeExecutorState(estate);
	if (idx != NULL)
		index_close(idx, NoLock);
	table_close(rel, NoLock);
	return result;
}
