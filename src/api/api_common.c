/*-------------------------------------------------------------------------
 *
 * api_common.c
 *		Item reads and writes shared by the DynamoDB API functions
 *		(requests are read in api_request.c, responses built in
 *		api_response.c).
 *
 * Tables.  Every operation finds its table's definition -- physical table,
 * key schema, indexes -- through table_def.c, and builds keys there.  The
 * item reads and writes below prepare their statements once per table,
 * in the definition's plan slots (TableDefPlan), which are freed with the
 * definition when the catalog or the table changes, so plans never
 * outlive the table they were made for.
 *
 * Every statement qualifies its operators (OPERATOR(item_table.=)) and
 * types, so the caller's search_path cannot redirect them.
 *
 * The row a write locked.  The locked read that starts every conditional
 * write probes the primary key directly (fetch_item_direct) and remembers
 * the row version it locked; UpdateItem then replaces that version
 * directly too (update_item_direct: a new version and, when not HOT, its
 * primary key entry), so the call starts no executor at all; DeleteItem
 * deletes it the same way (delete_item_direct), and PutItem replacing an
 * existing item is the locked probe and the direct update
 * (ApiReplaceItemDirect).  A DeleteItem with neither a condition nor the
 * old item in its response locks nothing: it deletes the version its
 * probe finds, as the DELETE statement does (ApiDeleteItemUnlocked), and
 * takes the locked path only after a concurrent update.  UpdateItem, and
 * PutItem with a condition replacing an existing item, lock nothing
 * either: the version the probe finds is judged (the condition, the
 * update) and replaced as it is, the locked path taken only when there is
 * no item or after a concurrent write (ApiReplaceItemUnlocked).  A new item is inserted without a statement
 * too (ApiInsertItem and ApiUpsertItem call direct_insert.c's
 * ApiInsertItemDirect first).  Each falls back to the SQL statement wherever
 * the statement could behave differently (the rights and the table's
 * shape decided for all of them by direct_check.c); test/pgtap/update_direct.sql
 * and insert_direct.sql show each case.  Which triggers a direct write may skip, and what it
 * does in their place, is decided in one spot (direct_upkeep.c: ApiDirectTriggers,
 * ApiDirectUpkeep): on a table with secondary indexes it keeps them as
 * the index trigger would (GsiSyncDirect, gsi.c; test/pgtap/index_direct.sql),
 * and on a table with a stream it writes the stream record, as the stream
 * trigger would (ItemStreamCaptureDirect, stream.c;
 * test/pgtap/stream_direct.sql).
 *
 * Writes and reads and the item guard.  The write helpers register the row
 * they are about to write (ItemGuardExpectWrite), so that the item guard
 * trigger (item_guard.c) lets exactly that row through without validating
 * it again.  Every read of a stored item checks it cheaply (a NULL test,
 * the column types, the layout walk or the parse) and raises XX001 naming
 * the table for a row that only a superuser past the guards could have
 * written.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "executor/executor.h"
#include "catalog/pg_am.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "api.h"
#include "direct_check.h"
#include "item_store.h"
#include "gsi.h"
#include "compat.h"
#include "item_guard.h"
#include "stream.h"

#include "item_guard.h"
#include "stream.h"

/* ----------------------------------------------------------------
 * item I/O through SPI (SPI connected by the caller)
 * ----------------------------------------------------------------
 */

/*
 * ApiKeyOperator
 *		The function of the operator of strategy in btree opfamily (item_key
 *		on both sides), for the scan keys of the direct reads; NULL when the
 *		opfamily has none.  Kept per strategy for the last opfamily asked
 *		(an item table's primary key is always the same one) until pg_amop
 *		changes, so a direct read makes no catalog lookups for it.
 */
typedef struct KeyOperator
{
	Oid			opfamily;		/* InvalidOid: not looked up */
	bool		exists;
	FmgrInfo	finfo;
} KeyOperator;

static KeyOperator key_operators[BTMaxStrategyNumber + 1];
static bool key_operators_watched = false;

static void
key_operators_inval(Datum arg, int cacheid, uint32 hashvalue)
{
	int			i;

	for (i = 0; i <= BTMaxStrategyNumber; i++)
		key_operators[i].opfamily = InvalidOid;
}

FmgrInfo *
ApiKeyOperator(Oid opfamily, StrategyNumber strategy)
{
	KeyOperator *k;

	Assert(strategy >= 1 && strategy <= BTMaxStrategyNumber);
	if (!key_operators_watched)
	{
		CacheRegisterSyscacheCallback(AMOPSTRATEGY, key_operators_inval, (Datum) 0);
		key_operators_watched = true;
	}
	k = &key_operators[strategy];
	if (k->opfamily != opfamily)
	{
		Oid			keytype = ItemKeyTypeOid();
		Oid			op = get_opfamily_member(opfamily, keytype, keytype, strategy);

		k->exists = OidIsValid(op);
		if (k->exists)
			fmgr_info_cxt(get_opcode(op), &k->finfo, TopMemoryContext);
		k->opfamily = opfamily;
	}
	return k->exists ? &k->finfo : NULL;
}

/*
 * fetch_item_direct
 *		Read one item by probing the primary key index directly; with lock,
 *		also lock its row as SELECT ... FOR UPDATE would.
 *
 * A read through SPI pays for plan revalidation and a whole executor start
 * and end around a single index probe; for GetItem, and for the locked
 * read that starts every conditional write, that is a large share of the
 * call.  This path does only the probe (and the lock).  It runs only where
 * it cannot differ from the SQL statement, by direct_check.c's rule:
 * ApiDirectRights for SELECT (and, to lock, UPDATE, which also refuses a
 * read-only or parallel transaction, as SELECT ... FOR UPDATE is refused
 * there) and ApiDirectShape for a read.
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
	FmgrInfo   *eq_finfo;
	Relation	rel;
	Relation	idx = NULL;
	ScanKeyData skey;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	Snapshot	snapshot;
	bool		found;
	bool		ok = false;
	bool		null_item = false;
	/* every one of these rights, as the statement would need them */
	AclMode		need = lock ? ACL_SELECT | ACL_UPDATE : ACL_SELECT;

	if ((!lock && !ActiveSnapshotSet()) || !ApiDirectRights(def->relid, InvalidOid, need))
		return false;

	rel = table_open(def->relid, lock ? RowShareLock : AccessShareLock);
	idx = ApiDirectShape(rel, 0, AccessShareLock);
	if (idx == NULL)
		goto done;
	eq_finfo = ApiKeyOperator(idx->rd_opfamily[0], BTEqualStrategyNumber);
	if (eq_finfo == NULL)
		goto done;
	ScanKeyEntryInitializeWithInfo(&skey, 0, 1, BTEqualStrategyNumber,
								   InvalidOid, idx->rd_indcollation[0],
								   eq_finfo, PointerGetDatum(key));

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
		def->locked_key = MemoryContextAlloc(def->cxt, VARSIZE_ANY(key));
		memcpy(def->locked_key, key, VARSIZE_ANY(key));
		def->locked_tid = slot->tts_tid;
		def->locked_xid = GetTopTransactionIdIfAny();
		def->locked_subid = GetCurrentSubTransactionId();
		def->locked_cid = GetCurrentCommandId(false);
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
	return def->store->fetch(def, key, lock);
}

/* the local store's fetch: the direct probe, else the statement */
static Jsonb *
local_fetch(ItemTableDef *def, ItemKey *key, bool lock)
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
		plan = TableDefPlan(def, &def->plan_get_lock,
							"SELECT item FROM %s WHERE key OPERATOR(item_table.=) $1 FOR UPDATE",
							1, argtypes);
	else
		plan = TableDefPlan(def, &def->plan_get,
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
ApiInsertItem(ItemTableDef *def, ItemKey *key, Jsonb *item, ApiInsertCache *cache)
{
	/* every caller has just probed key and found nothing: absent */
	if (def->store->direct)
	{
		switch (ApiInsertItemDirect(def, key, item, false, true, cache))
		{
			case DIRECT_INSERT_DONE:
				return true;
			case DIRECT_INSERT_EXISTS:
				return false;
			case DIRECT_INSERT_STATEMENT:
				break;
		}
	}
	/* no table held open while a statement runs (its triggers are SQL) */
	ApiInsertCacheClose(cache);
	return def->store->insert(def, key, item);
}

/* the local store's insert by statement */
static bool
local_insert(ItemTableDef *def, ItemKey *key, Jsonb *item)
{
	Oid			argtypes[2] = {ItemKeyTypeOid(), JSONBOID};
	Datum		args[2] = {PointerGetDatum(key), JsonbPGetDatum(item)};
	SPIPlanPtr	plan;
	int			rc;

	plan = TableDefPlan(def, &def->plan_insert,
						"INSERT INTO %s (key, item) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
						2, argtypes);
	ItemGuardExpectWrite(def->relid, key, item);
	rc = SPI_execute_plan(plan, args, NULL, false, 0);
	ItemGuardExpectNoWrite();
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "item insert failed: %s", SPI_result_code_string(rc));
	return SPI_processed == 1;
}

/*
 * ApiCondRequiresAbsent
 *		Is cond false on every item of def's table, so true only when the
 *		key has no item?  attribute_not_exists of a key attribute (every
 *		stored item has its key attributes), alone or in an AND with
 *		anything, or in both branches of an OR: the idiom of a create that
 *		must not replace ("attribute_not_exists(pk)", or Expected with
 *		Exists false on the key).
 */
bool
ApiCondRequiresAbsent(const CondNode *cond, const ItemTableDef *def)
{
	const DocPath *path;

	if (cond == NULL)
		return false;
	switch (cond->kind)
	{
		case COND_AND:
			return ApiCondRequiresAbsent(cond->left, def) ||
				ApiCondRequiresAbsent(cond->right, def);
		case COND_OR:
			return ApiCondRequiresAbsent(cond->left, def) &&
				ApiCondRequiresAbsent(cond->right, def);
		case COND_ATTRIBUTE_NOT_EXISTS:
			if (cond->noperands != 1 || cond->operands[0]->kind != OPND_PATH)
				return false;
			path = cond->operands[0]->path;
			if (path == NULL || path->nelems != 1 || path->elems[0].kind != PATH_NAME)
				return false;
			return (strlen(def->hash_key) == (size_t) path->elems[0].namelen &&
					memcmp(def->hash_key, path->elems[0].name, path->elems[0].namelen) == 0) ||
				(def->range_key != NULL &&
				 strlen(def->range_key) == (size_t) path->elems[0].namelen &&
				 memcmp(def->range_key, path->elems[0].name, path->elems[0].namelen) == 0);
		default:
			return false;
	}
}

/*
 * ApiInsertIfAbsent
 *		The write of a Put whose condition holds only when the key has no
 *		item (ApiCondRequiresAbsent) and holds on no item: the new row is
 *		inserted first, without the probe and row lock that would only find
 *		nothing -- INSERT ... ON CONFLICT DO NOTHING, which decides a race
 *		with another inserter of key as it always does (it waits for it).
 *		DIRECT_INSERT_DONE: written.  DIRECT_INSERT_EXISTS: key has an item
 *		(committed, or by an inserter it waited for), nothing written, and
 *		the condition is false on it; the caller reads it and fails the
 *		condition as its usual path does.
 *		DIRECT_INSERT_STATEMENT: nothing written; the caller takes its usual
 *		path.  Not under a transaction snapshot (the usual path decides a
 *		serialization failure there), not where the store takes no direct
 *		path, and only
 *		for a role with UPDATE on the table, which the usual path's locked
 *		read needs: a role without it gets the same permission error
 *		whether or not the item exists.
 */
DirectInsertResult
ApiInsertIfAbsent(ItemTableDef *def, ItemKey *key, Jsonb *item, ApiInsertCache *cache)
{
	if (!def->store->direct || IsolationUsesXactSnapshot() ||
		!ApiDirectRights(def->relid, InvalidOid, ACL_SELECT | ACL_UPDATE | ACL_INSERT))
		return DIRECT_INSERT_STATEMENT;
	/*
	 * "absent": inserted first, the pre-check only after a conflict -- a
	 * create of a key that has an item costs a killed row (which page
	 * pruning removes), a create of a new key the pre-check's index scan
	 * (about 9,500 instructions)
	 */
	return ApiInsertItemDirect(def, key, item, false, true, cache);
}

/*
 * replace_version
 *		The update itself, shared by both direct updates: a new version of
 *		the row version tid of rel (opened RowExclusiveLock, past
 *		ApiDirectRights, ApiDirectShape for a write and ApiDirectTriggers
 *		for UPDATE, idx its primary key) made from oldslot (that version)
 *		with only item replaced, written in a new command as the
 *		statement's; its primary key entry when the update is not HOT; then
 *		what the AFTER triggers ApiDirectTriggers accepted would have done
 *		(upkeep).  The result of table_tuple_update: nothing is written
 *		unless TM_Ok (it waits for a concurrent writer still in progress).
 */
static TM_Result
replace_version(Relation rel, Relation idx, ItemPointer tid, TupleTableSlot *oldslot,
				Jsonb *item, int upkeep, TM_FailureData *tmfd)
{
	TupleDesc	desc = RelationGetDescr(rel);
	TupleTableSlot *newslot;
	LockTupleMode lockmode;
	ItemUpdateIndexes update_indexes;
	TM_Result	res;

	if (upkeep != 0)
		ExecMaterializeSlot(oldslot);	/* the old image, kept past the update */
	slot_getallattrs(oldslot);
	newslot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	ExecClearTuple(newslot);
	memcpy(newslot->tts_values, oldslot->tts_values, desc->natts * sizeof(Datum));
	memcpy(newslot->tts_isnull, oldslot->tts_isnull, desc->natts * sizeof(bool));
	newslot->tts_values[1] = JsonbPGetDatum(item);
	newslot->tts_isnull[1] = false;
	ExecStoreVirtualTuple(newslot);

	/* a new command, as the statement would be */
	CommandCounterIncrement();
	res = table_tuple_update(rel, tid, newslot, GetCurrentCommandId(true),
							 InvalidSnapshot, InvalidSnapshot, true,
							 tmfd, &lockmode, &update_indexes);
	if (res == TM_Ok)
	{
		if (ItemUpdateNeedsIndexInsert(update_indexes))
		{
			IndexInfo  *ii = BuildIndexInfo(idx);
			Datum		keyd = newslot->tts_values[0];
			bool		keynull = false;

			/* key unchanged: the hint the executor would give (bottom-up deletion) */
			index_insert(idx, &keyd, &keynull, &newslot->tts_tid, rel,
						 UNIQUE_CHECK_YES, true, ii);
		}
		/* what the statement's AFTER triggers would have done */
		ApiDirectUpkeep(rel, upkeep, newslot->tts_values[0],
						oldslot->tts_values[1], oldslot->tts_isnull[1], true,
						newslot->tts_values[1], true);
	}
	ExecDropSingleTupleTableSlot(newslot);
	return res;
}

/*
 * still_locked
 *		Is the row of key the one ApiFetchItem(lock) locked, with the lock
 *		still held and the version current: the same key, and the locking
 *		transaction, subtransaction and command id all unchanged (a write
 *		through SPI advances the command id; an aborted subtransaction
 *		gives up its locks and leaves it)?
 */
static bool
still_locked(ItemTableDef *def, ItemKey *key)
{
	return def->locked_key != NULL && ItemKeyCompare(def->locked_key, key) == 0 &&
		TransactionIdIsValid(def->locked_xid) &&
		def->locked_xid == GetTopTransactionIdIfAny() &&
		def->locked_subid == GetCurrentSubTransactionId() &&
		def->locked_cid == GetCurrentCommandId(false);
}

/*
 * update_item_direct
 *		Replace the item of the row version ApiFetchItem(lock) has just
 *		locked, without a statement: a new row version made from the locked
 *		one with only item replaced, and the primary key entry when the
 *		update is not HOT -- what "UPDATE t SET item = $2 WHERE key = $1"
 *		does to a plain item table.
 *
 * The lock is still held and the version current when the locking
 * transaction, subtransaction and command id are all unchanged (a write
 * through SPI advances the command id; an aborted subtransaction gives up
 * its locks and leaves it).  The statement could do more, or fail, where:
 *	  - ApiDirectRights for SELECT and UPDATE says no (privileges,
 *		permission hook, row-level security, read-only or parallel
 *		transaction: direct_check.c);
 *	  - ApiDirectShape for a write says no (rules, CHECK constraints,
 *		stored generated columns, a partition, an index other than the
 *		primary key);
 *	  - a trigger would fire that ApiDirectTriggers does not accept
 *		(user triggers, foreign keys, deferred unique checks; the item
 *		guard, the index trigger and the stream trigger are accepted, the
 *		last two replaced by ApiDirectUpkeep after the write).
 * In all these cases this returns false before changing anything and the
 * caller runs the statement.  CheckCmdReplicaIdentity raises the error the
 * statement would raise on a table published without replica identity.
 */
static bool
update_item_direct(ItemTableDef *def, ItemKey *key, Jsonb *item)
{
	Relation	rel;
	Relation	idx = NULL;
	TupleTableSlot *oldslot = NULL;
	ItemPointerData tid = def->locked_tid;
	TM_FailureData tmfd;
	bool		done = false;
	int			upkeep = 0;

	if (!still_locked(def, key))
		return false;
	if (!ApiDirectRights(def->relid, InvalidOid, ACL_SELECT | ACL_UPDATE))
		return false;

	rel = table_open(def->relid, RowExclusiveLock);
	idx = ApiDirectShape(rel, API_SHAPE_WRITE, RowExclusiveLock);
	if (idx == NULL || !ApiDirectTriggers(rel, CMD_UPDATE, &upkeep))
		goto out;

	/* the checks of the statement's executor that can fail */
	CheckCmdReplicaIdentity(rel, CMD_UPDATE);

	/* the locked version (its key is key: the lock was taken by key) */
	oldslot = table_slot_create(rel, NULL);
	if (!table_tuple_fetch_row_version(rel, &tid, SnapshotAny, oldslot))
		goto out;
	if (replace_version(rel, idx, &tid, oldslot, item, upkeep, &tmfd) != TM_Ok)
		goto out;				/* nothing written: the statement decides */
	done = true;
	forget_locked(def);

out:
	if (oldslot != NULL)
		ExecDropSingleTupleTableSlot(oldslot);
	if (idx != NULL)
		index_close(idx, NoLock);
	table_close(rel, NoLock);
	return done;
}

/*
 * ApiReplaceItemDirect
 *		What "INSERT INTO t (key, item) VALUES ($1, $2) ON CONFLICT (key) DO
 *		UPDATE SET item = EXCLUDED.item" does when key's row exists, done
 *		as UpdateItem does it: the locked probe, then the direct update.
 *
 * The statement would also need INSERT; without it (or when the row is
 * missing, or either direct step declines) this returns false having
 * written nothing, and the caller runs the statement, which inserts, waits
 * or raises.  A row the probe does not see but the statement would find
 * (an insert still in progress, or one a repeatable-read snapshot cannot
 * see) is left to the statement the same way.
 */
bool
ApiReplaceItemDirect(ItemTableDef *def, ItemKey *key, Jsonb *item)
{
	Jsonb	   *old = NULL;

	forget_locked(def);
	if (pg_class_aclmask(def->relid, GetUserId(), ACL_INSERT, ACLMASK_ALL) != ACL_INSERT ||
		!fetch_item_direct(def, key, true, &old) || old == NULL)
		return false;
	pfree(old);
	return update_item_direct(def, key, item);
}

/*
 * how many calls ApiReplaceItemUnlocked judged on the version it found
 * (written, or refused by newitem or by the statement's checks), for the
 * tests
 */
static int64 unlocked_writes = 0;

/*
 * raise_concurrent_change
 *		The error of an UPDATE or DELETE statement under a transaction
 *		snapshot whose row version was updated (res TM_Updated) or deleted
 *		by a transaction that committed after the snapshot.
 */
static void
raise_concurrent_change(TM_Result res)
{
	if (res == TM_Updated)
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not serialize access due to concurrent update")));
	ereport(ERROR,
			(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
			 errmsg("could not serialize access due to concurrent delete")));
}
/*
 * The unlocked writes' common part (ApiReplaceItemUnlocked,
 * ApiDeleteItemUnlocked): the table opened once, the direct path's
 * conditions checked, then the primary key probed for key under the
 * statement's snapshot (a new command, which sees this transaction), the
 * version found left in slot for the write.
 */
typedef struct UnlockedWrite
{
	Relation	rel;
	Relation	idx;			/* the primary key; NULL: no direct path */
	TupleTableSlot *slot;
	int			upkeep;			/* ApiDirectTriggers' answer */
	bool		pushed;			/* the snapshot is pushed */
	ScanKeyData skey;
} UnlockedWrite;

/* may the write of cmd needing need run without a lock?  w->idx says */
static bool
unlocked_begin(ItemTableDef *def, ItemKey *key, AclMode need, CmdType cmd, UnlockedWrite *w)
{
	FmgrInfo   *eq_finfo;

	memset(w, 0, sizeof(*w));
	forget_locked(def);
	if (!def->store->direct || !ApiDirectRights(def->relid, InvalidOid, need))
		return false;
	w->rel = table_open(def->relid, RowExclusiveLock);
	w->idx = ApiDirectShape(w->rel, API_SHAPE_WRITE, RowExclusiveLock);
	if (w->idx == NULL || !ApiDirectTriggers(w->rel, cmd, &w->upkeep))
		return false;
	eq_finfo = ApiKeyOperator(w->idx->rd_opfamily[0], BTEqualStrategyNumber);
	if (eq_finfo == NULL)
		return false;
	ScanKeyEntryInitializeWithInfo(&w->skey, 0, 1, BTEqualStrategyNumber,
								   InvalidOid, w->idx->rd_indcollation[0],
								   eq_finfo, PointerGetDatum(key));
	return true;
}

/* the probe: is there a version of key, now in w->slot? */
static bool
unlocked_probe(UnlockedWrite *w)
{
	IndexScanDesc scan;
	bool		found;

	CommandCounterIncrement();
	PushActiveSnapshot(GetTransactionSnapshot());
	UpdateActiveSnapshotCommandId();
	w->pushed = true;
	w->slot = table_slot_create(w->rel, NULL);
	scan = ItemIndexBeginScan(w->rel, w->idx, GetActiveSnapshot(), 1);
	index_rescan(scan, &w->skey, 1, NULL, 0);
	found = index_getnext_slot(scan, ForwardScanDirection, w->slot);
	index_endscan(scan);
	return found;
}

static void
unlocked_end(UnlockedWrite *w)
{
	if (w->pushed)
		PopActiveSnapshot();
	if (w->slot != NULL)
		ExecDropSingleTupleTableSlot(w->slot);
	if (w->idx != NULL)
		index_close(w->idx, NoLock);
	if (w->rel != NULL)
		table_close(w->rel, NoLock);
}

/*
 * ApiReplaceItemUnlocked
 *		A conditional write of an existing item (UpdateItem; PutItem with a
 *		condition, the old item or the capacity in its response), done as
 *		"UPDATE t SET item = f(item) WHERE key = $1 AND condition" does it:
 *		the probe of the primary key under a new snapshot, newitem(old, arg)
 *		on the version found (which evaluates the condition and the update
 *		and raises whatever the call raises: a failed condition, a
 *		validation error), then table_tuple_update of exactly that version
 *		-- no row lock first, one opening of the table.
 *
 * The locked path (ApiFetchItem(lock), then update_item_direct) locks the
 * row so that the condition is judged on the version replaced.  Here the
 * update of the version read does the same: it succeeds only if that
 * version is still the current one (waiting for a concurrent writer still
 * in progress), so a write that happens was judged on the version it
 * replaced.  The outcomes, against the statement's (ExecUpdate):
 *	  - TM_Ok: written; newitem saw the version replaced;
 *	  - no visible version: nothing read, nothing written: the locked path
 *		decides (it inserts, or judges the condition on no item);
 *	  - newitem raises (a failed condition): the statement, whose WHERE
 *		clause is false on its snapshot's version, updates nothing without
 *		waiting either; nothing was locked or written;
 *	  - TM_Updated or TM_Deleted under READ COMMITTED: the statement
 *		re-evaluates on the newest version (EvalPlanQual); here nothing is
 *		written and false sends the caller to the locked path, whose new
 *		snapshot finds that version (or none), locks it and judges again;
 *	  - TM_Updated or TM_Deleted under a transaction snapshot (REPEATABLE
 *		READ, SERIALIZABLE): the statement's serialization failure, raised
 *		here with its message;
 *	  - anything else (TM_SelfModified, which a new command cannot meet):
 *		false, nothing written.
 * The probe and the update go through the table access method and the
 * btree, which take the same predicate locks (SERIALIZABLE) as the
 * statement.  The stored item is checked (XX001) before newitem sees it.
 *
 * Where it runs: update_item_direct's conditions (ApiDirectRights for
 * SELECT and UPDATE -- what the locked path needs for an existing item --,
 * ApiDirectShape for a write, ApiDirectTriggers for UPDATE, the index and
 * stream upkeep by ApiDirectUpkeep); only where the store takes direct
 * paths.  Otherwise false before anything is read.  CheckCmdReplicaIdentity raises the
 * statement's error after newitem (a failed condition is reported first,
 * as on the locked path).  newitem gets a copy of the stored item, which
 * outlives the call.
 */
bool
ApiReplaceItemUnlocked(ItemTableDef *def, ItemKey *key, ApiNewItemFn newitem, void *arg)
{
	UnlockedWrite w;
	bool		done = false;
	TM_FailureData tmfd;
	TM_Result	res;
	bool		null_item = false;
	Datum		d;
	Jsonb	   *oldj;
	Jsonb	   *newj;

	if (!unlocked_begin(def, key, ACL_SELECT | ACL_UPDATE, CMD_UPDATE, &w))
	{
		unlocked_end(&w);
		return false;
	}
	if (!unlocked_probe(&w))
	{
		unlocked_end(&w);
		return false;			/* no item: the locked path decides */
	}
	d = slot_getattr(w.slot, 2, &null_item);
	if (null_item)
	{
		unlocked_end(&w);
		return false;			/* the locked path raises XX001 */
	}
	oldj = DatumGetJsonbPCopy(d);
	StoredCheckItem(def->name, NULL, key, oldj);

	/* the condition and the update, on the version found */
	unlocked_writes++;
	newj = newitem(oldj, arg);

	CheckCmdReplicaIdentity(w.rel, CMD_UPDATE);
	res = replace_version(w.rel, w.idx, &w.slot->tts_tid, w.slot, newj, w.upkeep, &tmfd);
	switch (res)
	{
		case TM_Ok:
			done = true;
			break;
		case TM_Updated:
		case TM_Deleted:
			if (IsolationUsesXactSnapshot())
				raise_concurrent_change(res);	/* ExecUpdate's errors */
			break;				/* nothing written: the locked path */
		default:
			break;
	}
	unlocked_end(&w);
	return done;
}

PG_FUNCTION_INFO_V1(item_table_test_unlocked_writes);

/* item_table_test_unlocked_writes(): the count above, for the pgTAP tests */
Datum
item_table_test_unlocked_writes(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(unlocked_writes);
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
	def->store->update(def, key, item);
}

/* the local store's update: directly, else by statement */
static void
local_update(ItemTableDef *def, ItemKey *key, Jsonb *item)
{
	Oid			argtypes[3] = {ItemKeyTypeOid(), JSONBOID, TIDOID};
	Datum		args[3] = {PointerGetDatum(key), JsonbPGetDatum(item), (Datum) 0};
	SPIPlanPtr	plan;
	int			rc;

	if (update_item_direct(def, key, item))
		return;
	if (def->locked_key != NULL && ItemKeyCompare(def->locked_key, key) == 0)
	{
		ItemPointerData tid = def->locked_tid;

		forget_locked(def);
		args[2] = PointerGetDatum(&tid);
		plan = TableDefPlan(def, &def->plan_update_tid,
							"UPDATE %s SET item = $2 WHERE ctid = $3 AND key OPERATOR(item_table.=) $1",
							3, argtypes);
		ItemGuardExpectWrite(def->relid, key, item);
		rc = SPI_execute_plan(plan, args, NULL, false, 0);
		ItemGuardExpectNoWrite();
		if (rc != SPI_OK_UPDATE)
			elog(ERROR, "item update failed: %s", SPI_result_code_string(rc));
		if (SPI_processed == 1)
			return;
	}
	plan = TableDefPlan(def, &def->plan_update,
						"UPDATE %s SET item = $2 WHERE key OPERATOR(item_table.=) $1",
						2, argtypes);
	ItemGuardExpectWrite(def->relid, key, item);
	rc = SPI_execute_plan(plan, args, NULL, false, 0);
	ItemGuardExpectNoWrite();
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "item update failed: %s", SPI_result_code_string(rc));
}

/*
 * delete_version
 *		The delete itself, shared by both direct deletes: the row version
 *		tid of rel (opened RowExclusiveLock, past ApiDirectRights and
 *		ApiDirectShape), deleted in a new command as the statement's, then
 *		what the AFTER triggers ApiDirectTriggers accepted would have done,
 *		from the old image in oldslot (the version deleted; needed only when
 *		upkeep).  The result of table_tuple_delete: nothing is written
 *		unless TM_Ok.
 */
static TM_Result
delete_version(Relation rel, ItemPointer tid, int upkeep, TupleTableSlot *oldslot,
			   TM_FailureData *tmfd)
{
	TM_Result	res;

	if (upkeep != 0)
	{
		/* the old image, as the triggers would get it, kept past the delete */
		ExecMaterializeSlot(oldslot);
		slot_getallattrs(oldslot);
	}
	CommandCounterIncrement();
	res = table_tuple_delete(rel, tid, GetCurrentCommandId(true),
							 InvalidSnapshot, InvalidSnapshot, true, tmfd, false);
	if (res == TM_Ok && upkeep != 0)
		ApiDirectUpkeep(rel, upkeep, oldslot->tts_values[0],
						oldslot->tts_values[1], oldslot->tts_isnull[1], true,
						(Datum) 0, false);
	return res;
}

/*
 * delete_item_direct
 *		Delete the row version ApiFetchItem(lock) has just locked, without a
 *		statement: what "DELETE FROM t WHERE key = $1" does to a plain item
 *		table (a delete touches no index).
 *
 * The conditions are update_item_direct's, for DELETE: the same lock
 * identity, ApiDirectRights for SELECT and DELETE, ApiDirectShape for a
 * write, and no trigger that ApiDirectTriggers does not accept for DELETE
 * (the index and stream triggers' work done by ApiDirectUpkeep, from the
 * old row version read before the delete); otherwise false and the caller
 * runs the statement.
 */
static bool
delete_item_direct(ItemTableDef *def, ItemKey *key)
{
	Relation	rel;
	Relation	idx;
	ItemPointerData tid = def->locked_tid;
	TM_FailureData tmfd;
	TupleTableSlot *oldslot = NULL;
	bool		done = false;
	int			upkeep = 0;

	if (!still_locked(def, key))
		return false;
	if (!ApiDirectRights(def->relid, InvalidOid, ACL_SELECT | ACL_DELETE))
		return false;

	rel = table_open(def->relid, RowExclusiveLock);
	idx = ApiDirectShape(rel, API_SHAPE_WRITE, RowExclusiveLock);
	if (idx == NULL || !ApiDirectTriggers(rel, CMD_DELETE, &upkeep))
		goto out;
	CheckCmdReplicaIdentity(rel, CMD_DELETE);
	if (upkeep != 0)
	{
		oldslot = table_slot_create(rel, NULL);
		if (!table_tuple_fetch_row_version(rel, &tid, SnapshotAny, oldslot))
			goto out;
	}
	if (delete_version(rel, &tid, upkeep, oldslot, &tmfd) != TM_Ok)
		goto out;				/* nothing deleted: the statement decides */
	done = true;
	forget_locked(def);

out:
	if (oldslot != NULL)
		ExecDropSingleTupleTableSlot(oldslot);
	if (idx != NULL)
		index_close(idx, NoLock);
	table_close(rel, NoLock);
	return done;
}

/* how many DeleteItems the unlocked path decided (deleted or found nothing), for the tests */
static int64 unlocked_deletes = 0;

/*
 * ApiDeleteItemUnlocked
 *		A DeleteItem without a condition and without the old item in its
 *		response, done as "DELETE FROM t WHERE key = $1" does it: the probe
 *		of the primary key under a new snapshot, then table_tuple_delete of
 *		the version found -- no row lock first, one opening of the table.
 *
 * The locked path (ApiFetchItem(lock), then delete_item_direct) locks the
 * row because a condition or the old item must be judged on the version
 * that is deleted.  With neither, the lock only serves to wait for a
 * concurrent writer, and table_tuple_delete does that itself: it waits for
 * an updater or deleter still in progress and reports what it did.  The
 * outcomes, against the statement's (ExecDelete):
 *	  - TM_Ok: deleted, the version found is the old image (ConsumedCapacity,
 *		the index rows and the stream record are made from it);
 *	  - no visible version: nothing to delete, as the statement finds;
 *	  - TM_Updated under READ COMMITTED: the statement follows the update
 *		chain (EvalPlanQual) and deletes the newest version; here nothing
 *		is written and DIRECT_DELETE_LOCKED sends the caller to the locked
 *		path, whose new snapshot finds that version and locks it;
 *	  - TM_Deleted under READ COMMITTED: the statement deletes nothing
 *		(the row it found is gone; a row of key inserted since is after its
 *		snapshot), and so does this: DIRECT_DELETE_NONE;
 *	  - TM_Updated or TM_Deleted under a transaction snapshot (REPEATABLE
 *		READ, SERIALIZABLE): the statement's serialization failure, raised
 *		here with its message;
 *	  - anything else (TM_SelfModified, which a new command cannot meet):
 *		DIRECT_DELETE_LOCKED, nothing written.
 * The probe and the delete go through the table access method and the
 * btree, which take the same predicate locks (SERIALIZABLE) as the
 * statement's scan.  The stored item is checked (XX001) before anything is
 * written, as the locked probe checks it.
 *
 * Where it runs: the delete_item_direct conditions (ApiDirectRights,
 * ApiDirectShape, ApiDirectTriggers for DELETE), with UPDATE among the
 * rights as well, because DeleteItem has always needed it (the locked
 * probe is SELECT ... FOR UPDATE) and a call must not be allowed or
 * refused by the path it happens to take; only where the store takes
 * direct paths.  Otherwise
 * DIRECT_DELETE_LOCKED before anything is read.  *size (when size is not
 * NULL) gets the deleted item's DynamoDB size.
 */
DirectDeleteResult
ApiDeleteItemUnlocked(ItemTableDef *def, ItemKey *key, int64 *size)
{
	UnlockedWrite w;
	DirectDeleteResult result = DIRECT_DELETE_LOCKED;
	TM_FailureData tmfd;
	TM_Result	res;
	bool		null_item = false;
	Datum		d;

	if (!unlocked_begin(def, key, ACL_SELECT | ACL_UPDATE | ACL_DELETE, CMD_DELETE, &w))
	{
		unlocked_end(&w);
		return DIRECT_DELETE_LOCKED;
	}
	CheckCmdReplicaIdentity(w.rel, CMD_DELETE);
	if (!unlocked_probe(&w))
		result = DIRECT_DELETE_NONE;
	else
	{
		d = slot_getattr(w.slot, 2, &null_item);
		if (!null_item)			/* a NULL item: the locked path raises XX001 */
		{
			Jsonb	   *j = DatumGetJsonbP(d);

			StoredCheckItem(def->name, NULL, key, j);
			if (size != NULL)
				*size = AttrStoredItemSizeAnyEncoding(j);
			if ((Pointer) j != DatumGetPointer(d))
				pfree(j);
			res = delete_version(w.rel, &w.slot->tts_tid, w.upkeep, w.slot, &tmfd);
			switch (res)
			{
				case TM_Ok:
					result = DIRECT_DELETE_DONE;
					break;
				case TM_Updated:
				case TM_Deleted:
					if (IsolationUsesXactSnapshot())
						raise_concurrent_change(res);	/* ExecDelete's errors */
					if (res == TM_Deleted)
						result = DIRECT_DELETE_NONE;
					break;
				default:
					break;
			}
		}
	}
	if (w.pushed && result != DIRECT_DELETE_LOCKED)
		unlocked_deletes++;
	unlocked_end(&w);
	return result;
}

PG_FUNCTION_INFO_V1(item_table_test_unlocked_deletes);

/* item_table_test_unlocked_deletes(): the count above, for the pgTAP tests */
Datum
item_table_test_unlocked_deletes(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(unlocked_deletes);
}

void
ApiDeleteItem(ItemTableDef *def, ItemKey *key)
{
	def->store->remove(def, key);
}

/* the local store's delete: directly, else by statement */
static void
local_delete(ItemTableDef *def, ItemKey *key)
{
	Oid			argtypes[1] = {ItemKeyTypeOid()};
	Datum		arg = PointerGetDatum(key);
	SPIPlanPtr	plan;
	int			rc;

	if (delete_item_direct(def, key))
		return;
	plan = TableDefPlan(def, &def->plan_delete,
						"DELETE FROM %s WHERE key OPERATOR(item_table.=) $1",
						1, argtypes);
	rc = SPI_execute_plan(plan, &arg, NULL, false, 0);
	if (rc != SPI_OK_DELETE)
		elog(ERROR, "item delete failed: %s", SPI_result_code_string(rc));
}

/* the local store's unconditional put by statement */
static void
local_upsert(ItemTableDef *def, ItemKey *key, Jsonb *item)
{
	Oid			argtypes[2] = {ItemKeyTypeOid(), JSONBOID};
	Datum		args[2] = {PointerGetDatum(key), JsonbPGetDatum(item)};
	SPIPlanPtr	plan;
	int			rc;

	plan = TableDefPlan(def, &def->plan_upsert,
						"INSERT INTO %s (key, item) VALUES ($1, $2)"
						" ON CONFLICT (key) DO UPDATE SET item = EXCLUDED.item",
						2, argtypes);
	ItemGuardExpectWrite(def->relid, key, item);
	rc = SPI_execute_plan(plan, args, NULL, false, 0);
	ItemGuardExpectNoWrite();
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "item upsert failed: %s", SPI_result_code_string(rc));
}

/* every statement of the local store is sent where it runs */
static void
local_write_alone(ItemTableDef *def)
{
}

/*
 * The local store (item_store.h): the direct paths above with their
 * statement fallbacks; its Query and Scan pages and its expiry batches are
 * the local statements of query_page.c and ttl.c.
 */
const ItemStore ApiLocalStore = {
	.name = "local",
	.direct = true,
	.remote_rows = false,
	.fetch = local_fetch,
	.insert = local_insert,
	.update = local_update,
	.remove = local_delete,
	.upsert = local_upsert,
	.write_alone = local_write_alone,
	.read_plan = NULL,
	.expire_batch = NULL,
};
