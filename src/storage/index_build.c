/*-------------------------------------------------------------------------
 *
 * index_build.c
 *		Work on whole indexes: their entries for one item
 *		(index_entries()), checking them against the base table
 *		(verify()), and filling a new one from the existing items
 *		(backfill_indexes()).
 *
 * Row-by-row maintenance is gsi.c's; this file reads the definitions from
 * table_def.c and writes index rows through GsiIndexUpsert, with the index
 * owner's rights (GsiAsIndexOwner), as the trigger does.
 *
 * verify() rebuilds every index of a table in memory from the base items
 * and lists each difference; it reads as the caller, so index reads pass
 * GsiCheckIndexRead first.  backfill_indexes() reads the base table in key
 * order, a batch at a time, locking each batch FOR SHARE so that a
 * concurrent write of those items waits for the batch's commit; the
 * trigger maintains the index for every write from the moment the index
 * exists, so a batch and a write can never both miss an item.  Memory is
 * bounded per row and per batch.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
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
#include "utils/array.h"
#include "utils/hsearch.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "errors.h"
#include "gsi.h"
#include "item_store.h"
#include "stored_item.h"
#include "table_def.h"
#include "index_build.h"

PG_FUNCTION_INFO_V1(item_table_index_entries);
PG_FUNCTION_INFO_V1(item_table_verify);
PG_FUNCTION_INFO_V1(item_table_backfill_indexes);

/* ----------------------------------------------------------------
 * index_entries(table, index, key, item): the entries of one item
 * ----------------------------------------------------------------
 */
Datum
item_table_index_entries(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *table = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *index = text_to_cstring(PG_GETARG_TEXT_PP(1));
	Jsonb	   *itemj = PG_GETARG_JSONB_P(3);
	ItemTableDef *def;
	IndexDef   *idx;
	List	   *entries;
	ListCell   *lc;
	MemoryContext callercxt = CurrentMemoryContext;

	InitMaterializedSRF(fcinfo, 0);
	SPI_connect();
	def = TableDefLookup(table);
	idx = TableDefFindIndex(def, index);
	if (idx == NULL)
		DynValidation("The table does not have the specified index: %s", index);
	entries = GsiEntries(def, idx,
						 StoredParseItem(table, NULL, PG_GETARG_ITEMKEY_PP(2),
											JsonbPGetDatum(itemj), false),
						 NULL, false);
	foreach(lc, entries)
	{
		IndexEntry *e = (IndexEntry *) lfirst(lc);
		Datum		values[2];
		bool		nulls[2] = {false, false};
		MemoryContext old = MemoryContextSwitchTo(callercxt);

		values[0] = PointerGetDatum(KeyCodecMakeVarlena(ITEMKEY_DATA(e->ikey), ITEMKEY_LEN(e->ikey)));
		values[1] = JsonbPGetDatum(AttrItemToJsonb(e->projected));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	return (Datum) 0;
}

/*
 * verify()'s part for the vector indexes of def (the catalog of an
 * extension older than 1.2 has none): each index table beside the rows
 * vector_index_entry() gives the base items, read as the catalog owner, who
 * owns the index tables (the caller has passed GsiCheckIndexRead).  Both
 * key columns hold the base key: a vector index row has no key of its own.
 * SPI connected.
 */
static void
verify_vector_indexes(ReturnSetInfo *rsinfo, ItemTableDef *def, MemoryContext callercxt)
{
	Oid			nsp = get_namespace_oid(ITEM_TABLE_SCHEMA, true);
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];
	SPITupleTable *indexes;
	uint64		n;
	ItemRoleSwitch sw;

	if (!OidIsValid(nsp) || !OidIsValid(get_relname_relid("vector_indexes", nsp)))
		return;
	args[0] = CStringGetTextDatum(def->name);
	if (SPI_execute_with_args("SELECT index_name, relid::pg_catalog.oid FROM item_table.vector_indexes"
							  " WHERE table_name = $1 ORDER BY index_name",
							  1, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "verify failed: could not read the vector indexes");
	indexes = SPI_tuptable;
	n = SPI_processed;
	ItemAsCatalogOwnerBegin(&sw);
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;
		char	   *name = SPI_getvalue(indexes->vals[i], indexes->tupdesc, 1);
		Oid			relid = DatumGetObjectId(SPI_getbinval(indexes->vals[i], indexes->tupdesc, 2, &isnull));
		Oid			vargtypes[2] = {TEXTOID, TEXTOID};
		Datum		vargs[2];
		char	   *sql;

		CHECK_FOR_INTERRUPTS();
		vargs[0] = CStringGetTextDatum(def->name);
		vargs[1] = CStringGetTextDatum(name);
		sql = psprintf("SELECT CASE WHEN i.key IS NULL THEN 'missing' WHEN x.key IS NULL THEN 'extra' ELSE 'stale' END,"
					   " coalesce(x.key, i.key),"
					   " pg_catalog.jsonb_build_object('expected', x.item, 'found',"
					   "   CASE WHEN i.key IS NOT NULL THEN pg_catalog.jsonb_build_object('part', i.part, 'filters', i.filters,"
					   "     'pending', NOT i.in_graph) END)"
					   " FROM (SELECT b.key, e.part, e.filters, e.embedding, e.item FROM %s b,"
					   "       LATERAL item_table.vector_index_entry($1, $2, b.item) e) x"
					   " FULL JOIN (SELECT key, part, filters, coalesce(embedding, pending)::pg_catalog.float4[] AS embedding,"
					   "            embedding IS NOT NULL AS in_graph,"
					   "            (embedding IS NULL) = (pending IS NULL) AS neither_or_both FROM %s) i"
					   "   ON i.key OPERATOR(item_table.=) x.key"
					   " WHERE i.key IS NULL OR x.key IS NULL OR i.neither_or_both"
					   "    OR i.part IS DISTINCT FROM x.part OR i.filters OPERATOR(pg_catalog.<>) x.filters"
					   "    OR i.embedding OPERATOR(pg_catalog.<>) x.embedding"
					   " ORDER BY 2",
					   ItemQualifiedName(def->relid), ItemQualifiedName(relid));
		if (SPI_execute_with_args(sql, 2, vargtypes, vargs, NULL, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "verify failed: could not compare the vector index %s", name);
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			HeapTuple	tup = SPI_tuptable->vals[r];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			Datum		values[5];
			bool		nulls[5] = {false, false, false, false, false};
			MemoryContext old = MemoryContextSwitchTo(callercxt);

			values[0] = CStringGetTextDatum(name);
			values[1] = CStringGetTextDatum(SPI_getvalue(tup, desc, 1));
			values[2] = datumCopy(SPI_getbinval(tup, desc, 2, &isnull), false, -1);
			values[3] = values[2];
			values[4] = datumCopy(SPI_getbinval(tup, desc, 3, &isnull), false, -1);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			MemoryContextSwitchTo(old);
		}
	}
	ItemAsRoleEnd(&sw);
}

/* ----------------------------------------------------------------
 * verify(table): every index rebuilt from the base items and compared
 * ----------------------------------------------------------------
 */
Datum
item_table_verify(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *table = text_to_cstring(PG_GETARG_TEXT_PP(0));
	ItemTableDef *def;
	int			i;
	int			nestlevel;
	MemoryContext callercxt = CurrentMemoryContext;

	InitMaterializedSRF(fcinfo, 0);
	SPI_connect();
	def = TableDefLookup(table);
	/* a mismatch shows the stored index row: an index read */
	GsiCheckIndexRead(def->relid, def->name);

	/*
	 * item_key hashes only partitions, which makes hash joins over index
	 * keys degenerate when partitions are few: compare by merge join.  The
	 * setting is verify's own, in a GUC nest level undone on return (and by
	 * the abort on error), as a function's SET clause is.
	 */
	nestlevel = NewGUCNestLevel();
	(void) set_config_option("enable_hashjoin", "off", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	for (i = 0; i < def->nindexes; i++)
	{
		IndexDef   *idx = &def->indexes[i];
		Oid			argtypes[2] = {TEXTOID, TEXTOID};
		Datum		args[2] = {CStringGetTextDatum(table), CStringGetTextDatum(idx->name)};
		char	   *sql;
		int			rc;
		uint64		r;

		/*
		 * A store whose rows are elsewhere (item_store.h): both tables are
		 * read here first (materialized CTEs), where the item_table catalog
		 * that index_entries() needs is.
		 */
		sql = psprintf("%s SELECT CASE WHEN i.key IS NULL THEN 'missing' WHEN x.key IS NULL THEN 'extra' ELSE 'stale' END,"
					   " coalesce(x.ikey, i.ikey), coalesce(x.key, i.key),"
					   " pg_catalog.jsonb_build_object('expected', x.item, 'found', i.item)"
					   " FROM (SELECT e.ikey, b.key, e.projected AS item FROM %s b,"
					   "       LATERAL item_table.index_entries($1, $2, b.key, b.item) e) x"
					   " FULL JOIN %s i ON i.ikey OPERATOR(item_table.=) x.ikey AND i.key OPERATOR(item_table.=) x.key"
					   " WHERE i.key IS NULL OR x.key IS NULL OR i.item OPERATOR(pg_catalog.<>) x.item"
					   " ORDER BY 2, 3",
					   def->store->remote_rows ?
					   psprintf("WITH base AS MATERIALIZED (SELECT key, item FROM %s),"
								" idx AS MATERIALIZED (SELECT ikey, key, item FROM %s)",
								ItemQualifiedName(def->relid), ItemQualifiedName(idx->relid)) : "",
					   def->store->remote_rows ? "base" : ItemQualifiedName(def->relid),
					   def->store->remote_rows ? "idx" : ItemQualifiedName(idx->relid));
		rc = SPI_execute_with_args(sql, 2, argtypes, args, NULL, true, 0);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "verify failed: %s", SPI_result_code_string(rc));
		for (r = 0; r < SPI_processed; r++)
		{
			HeapTuple	tup = SPI_tuptable->vals[r];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			Datum		values[5];
			bool		nulls[5] = {false, false, false, false, false};
			bool		isnull;
			MemoryContext old = MemoryContextSwitchTo(callercxt);

			values[0] = CStringGetTextDatum(idx->name);
			values[1] = CStringGetTextDatum(SPI_getvalue(tup, desc, 1));
			values[2] = datumCopy(SPI_getbinval(tup, desc, 2, &isnull), false, -1);
			values[3] = datumCopy(SPI_getbinval(tup, desc, 3, &isnull), false, -1);
			values[4] = datumCopy(SPI_getbinval(tup, desc, 4, &isnull), false, -1);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			MemoryContextSwitchTo(old);
		}
	}
	verify_vector_indexes(rsinfo, def, callercxt);
	AtEOXact_GUC(true, nestlevel);
	SPI_finish();
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 * Backfill, one batch at a time: IndexBackfillBatch() and
 * CALL backfill_indexes(table [, batch_size])
 *
 * A backfill is resumable: the catalog row of the index keeps the key of
 * the last item indexed (indexes.backfill_after) and the count so far
 * (indexes.backfilled), both written in the transaction of the batch that
 * indexed those items.  One batch reads up to batch_size items after that
 * key, writes their entries, advances the position and, when it read
 * fewer than asked, marks the index ACTIVE.  A batch is one transaction's
 * work: the background worker (worker.c) runs each in a transaction of
 * its own, the procedure commits after each; a crash loses at most the
 * batch in progress, and the next batch starts where the last committed
 * one ended.
 *
 * Locks, in the order every other path takes them (base table, index
 * table, catalog row), so that a backfill never deadlocks with
 * UpdateTable Delete or DeleteTable: the base table ROW SHARE, the index
 * table ROW EXCLUSIVE, then the index's catalog row FOR UPDATE, which
 * also serialises two backfills of one index (the worker and a manual
 * CALL).  Delete of the index, or of the table, waits for the batch in
 * progress and the next batch finds the catalog row gone: the backfill is
 * cancelled with nothing left behind.
 *
 * The base table is read, like the index tables are written, with the
 * rights of its owner and without the owner's forced row-level security
 * (GsiAsIndexOwner): an index holds every item, whoever may read which.
 * Memory: each row is indexed in a context reset after it, the batch's
 * tuple table is freed, and the reads are prepared once per backend.
 * ----------------------------------------------------------------
 */

/*
 * The batch reads, prepared for the table last backfilled in this backend
 * and kept across calls (the physical name is kept too: the statements
 * were parsed with it).
 */
static Oid	backfill_relid = InvalidOid;
static char *backfill_relname = NULL;
static SPIPlanPtr backfill_plan_first = NULL;	/* LIMIT $1 */
static SPIPlanPtr backfill_plan_next = NULL;	/* after key $1, LIMIT $2 */

/* make the backfill_plan_* statements read base (SPI connected) */
static void
backfill_plans(Oid base_relid, const char *base)
{
	Oid			first_types[1] = {INT4OID};
	Oid			next_types[2] = {ItemKeyTypeOid(), INT4OID};

	if (backfill_relid == base_relid && strcmp(backfill_relname, base) == 0)
		return;
	if (OidIsValid(backfill_relid))
	{
		SPI_freeplan(backfill_plan_first);
		SPI_freeplan(backfill_plan_next);
		pfree(backfill_relname);
		backfill_relid = InvalidOid;
	}
	/* FOR SHARE: a concurrent write of these items waits for our commit */
	backfill_plan_first =
		ItemPrepareKept(psprintf("SELECT key, item FROM %s ORDER BY key LIMIT $1 FOR SHARE",
								  base), 1, first_types, 0);
	backfill_plan_next =
		ItemPrepareKept(psprintf("SELECT key, item FROM %s WHERE key OPERATOR(item_table.>) $1"
								  " ORDER BY key LIMIT $2 FOR SHARE", base), 2, next_types, 0);
	backfill_relname = MemoryContextStrdup(TopMemoryContext, base);
	backfill_relid = base_relid;
}

/*
 * IndexBuildClaim
 *		The start of one build batch of an index in state CREATING, shared by
 *		the GSI backfill (IndexBackfillBatch) and the vector index build
 *		(api_vector_upkeep.c): which base table and index table (read
 *		without locks), those locked in the agreed order (base table ROW
 *		SHARE, index table ROW EXCLUSIVE), then the catalog row's position
 *		FOR UPDATE, so that two builds of one index take turns.  which names
 *		the catalog: item_table.indexes or item_table.vector_indexes.
 *		Returns false when the index is not (or no longer) CREATING, or was
 *		replaced meanwhile; otherwise *base_relid, *index_relid, *after (the
 *		last key built, copied into the caller's memory context, or 0 at
 *		the start) and *count (items built so far).  SPI connected.
 */
bool
IndexBuildClaim(IndexBuildCatalog which, Datum table, Datum index,
				Oid *base_relid, Oid *index_relid, Datum *after, int64 *count)
{
	const char *catalog = which == INDEX_BUILD_VECTOR ? "vector_indexes" : "indexes";
	Oid			argtypes[3] = {TEXTOID, TEXTOID, OIDOID};
	Datum		args[3];
	MemoryContext outer = CurrentMemoryContext;
	ItemRoleSwitch sw;
	bool		isnull;
	int			rc;

	*after = (Datum) 0;
	*count = 0;
	args[0] = table;
	args[1] = index;

	/* which relations, read without locks; then lock in the agreed order */
	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args(psprintf("SELECT t.relid::pg_catalog.oid, i.relid::pg_catalog.oid"
										" FROM item_table.%s i JOIN item_table.tables t USING (table_name)"
										" WHERE i.table_name OPERATOR(pg_catalog.=) $1"
										" AND i.index_name OPERATOR(pg_catalog.=) $2"
										" AND i.status OPERATOR(pg_catalog.=) 'CREATING'", catalog),
							   2, argtypes, args, NULL, true, 1);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "%s catalog read failed: %s",
			 which == INDEX_BUILD_VECTOR ? "vector index" : "index", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return false;
	*base_relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	*index_relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	SPI_freetuptable(SPI_tuptable);
	LockRelationOid(*base_relid, RowShareLock);
	LockRelationOid(*index_relid, RowExclusiveLock);

	/* the position, locked: one build of an index at a time */
	args[2] = ObjectIdGetDatum(*index_relid);
	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args(psprintf("SELECT backfill_after, backfilled FROM item_table.%s"
										" WHERE table_name OPERATOR(pg_catalog.=) $1"
										" AND index_name OPERATOR(pg_catalog.=) $2"
										" AND status OPERATOR(pg_catalog.=) 'CREATING'"
										" AND relid OPERATOR(pg_catalog.=) $3::pg_catalog.oid::pg_catalog.regclass"
										" FOR UPDATE", catalog),
							   3, argtypes, args, NULL, false, 1);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "%s catalog read failed: %s",
			 which == INDEX_BUILD_VECTOR ? "vector index" : "index", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return false;			/* finished, deleted or replaced meanwhile */
	{
		Datum		a = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
		{
			MemoryContext old = MemoryContextSwitchTo(outer);

			*after = PointerGetDatum(PG_DETOAST_DATUM_COPY(a));
			MemoryContextSwitchTo(old);
		}
		*count = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	}
	SPI_freetuptable(SPI_tuptable);
	return true;
}

/*
 * IndexBackfillBatch
 *		Index the next batch of at most batch items for index of table
 *		(SPI connected, in a transaction the caller commits).  Returns
 *		false when there is nothing left to do: the index is ACTIVE (this
 *		batch finished it, or it already was) or gone.  *done receives the
 *		items indexed so far, *total an estimate of the table's items (for
 *		progress messages; may be NULL).  Runs with the rights of the
 *		index owner; the caller checks that its user may backfill.
 */
bool
IndexBackfillBatch(const char *table, const char *index, int batch,
				   int64 *done, int64 *total)
{
	Oid			argtypes[4] = {TEXTOID, TEXTOID, INT8OID, InvalidOid};
	Datum		args[4];
	char		nulls[4] = {' ', ' ', ' ', ' '};
	Oid			base_relid;
	Oid			index_relid;
	ItemTableDef *def;
	IndexDef   *idx;
	ItemKey    *after = NULL;
	ItemKey    *last = NULL;
	Datum		a;
	int64		count;
	uint64		n;
	uint64		r;
	bool		isnull;
	bool		finished;
	int			rc;
	ItemRoleSwitch sw;
	SPITupleTable *tt;
	MemoryContext rowcxt;
	MemoryContext outer = CurrentMemoryContext;

	args[0] = CStringGetTextDatum(table);
	args[1] = CStringGetTextDatum(index);

	if (!IndexBuildClaim(INDEX_BUILD_GSI, args[0], args[1], &base_relid, &index_relid,
						 &a, &count))
		return false;
	if (a != (Datum) 0)
		after = (ItemKey *) DatumGetPointer(a);

	def = TableDefLookup(table);
	idx = TableDefFindIndex(def, index);
	if (idx == NULL || idx->relid != index_relid)
		return false;

	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "item_table backfill row",
								   ALLOCSET_DEFAULT_SIZES);
	GsiAsIndexOwner(idx->relid, &sw);
	if (total != NULL)
	{
		/* the planner's estimate: cheap, and enough for a percentage */
		float4		tuples = 0;
		HeapTuple	ct = SearchSysCache1(RELOID, ObjectIdGetDatum(def->relid));

		if (HeapTupleIsValid(ct))
		{
			tuples = ((Form_pg_class) GETSTRUCT(ct))->reltuples;
			ReleaseSysCache(ct);
		}
		*total = tuples > 0 ? (int64) tuples : 0;
	}
	backfill_plans(def->relid, ItemQualifiedName(def->relid));
	if (after == NULL)
		rc = SPI_execute_plan(backfill_plan_first, (Datum[]) {Int32GetDatum(batch)}, NULL, false, 0);
	else
		rc = SPI_execute_plan(backfill_plan_next,
							  (Datum[]) {PointerGetDatum(after), Int32GetDatum(batch)}, NULL, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "backfill read failed: %s", SPI_result_code_string(rc));
	tt = SPI_tuptable;
	n = SPI_processed;
	StoredCheckColumns(table, NULL, tt->tupdesc, 1, 2);
	for (r = 0; r < n; r++)
	{
		MemoryContext old = MemoryContextSwitchTo(rowcxt);
		Datum		key = SPI_getbinval(tt->vals[r], tt->tupdesc, 1, &isnull);
		Datum		itemd;
		AttrValue  *item;
		List	   *entries;
		ListCell   *ec;

		CHECK_FOR_INTERRUPTS();
		if (isnull)
			StoredRaiseNullKey(table, NULL);
		itemd = SPI_getbinval(tt->vals[r], tt->tupdesc, 2, &isnull);
		item = StoredParseItem(table, NULL, DatumGetItemKeyPP(key), itemd, isnull);
		entries = GsiEntries(def, idx, item, NULL, false);
		foreach(ec, entries)
		{
			IndexEntry *e = (IndexEntry *) lfirst(ec);

			GsiIndexUpsert(idx, e->ikey, key, AttrItemToJsonb(e->projected));
		}
		if (r == n - 1)
		{
			/* the next batch starts after this key */
			MemoryContextSwitchTo(outer);
			last = (ItemKey *) PG_DETOAST_DATUM_COPY(key);
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	SPI_freetuptable(tt);
	ItemAsRoleEnd(&sw);
	MemoryContextDelete(rowcxt);

	count += n;
	finished = n < (uint64) batch;
	args[2] = Int64GetDatum(count);
	argtypes[3] = ItemKeyTypeOid();
	if (last != NULL)
		args[3] = PointerGetDatum(last);
	else
	{
		args[3] = after ? PointerGetDatum(after) : (Datum) 0;
		nulls[3] = after ? ' ' : 'n';
	}
	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args(finished ?
							   "UPDATE item_table.indexes SET backfilled = $3, backfill_after = NULL, status = 'ACTIVE'"
							   " WHERE table_name OPERATOR(pg_catalog.=) $1 AND index_name OPERATOR(pg_catalog.=) $2" :
							   "UPDATE item_table.indexes SET backfilled = $3, backfill_after = $4"
							   " WHERE table_name OPERATOR(pg_catalog.=) $1 AND index_name OPERATOR(pg_catalog.=) $2",
							   4, argtypes, args, nulls, false, 0);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "index catalog update failed: %s", SPI_result_code_string(rc));
	if (finished)
		CacheInvalidateRelcacheByRelid(def->relid);
	*done = count;
	return !finished;
}

/*
 * The procedure: every index of the table in status CREATING, batch after
 * batch, committing after each (so anything that lasts from one batch to
 * the next lives in SPI's procedure context), with a NOTICE every tenth
 * of the way.  Indexes the worker is filling are filled here too: the
 * catalog row lock makes the two take turns, batch by batch.
 */
Datum
item_table_backfill_indexes(PG_FUNCTION_ARGS)
{
	char	   *table = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int			batch = PG_ARGISNULL(1) ? 1000 : PG_GETARG_INT32(1);
	ItemTableDef *def;
	Oid			base_relid;
	int			i;
	List	   *creating = NIL;
	ListCell   *lc;

	if (batch < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_size must be positive")));
	SPI_connect_ext(SPI_OPT_NONATOMIC);
	def = TableDefLookup(table);
	base_relid = def->relid;
	/* filling an index is part of changing the table: the owner's right */
	ItemCheckOwner(base_relid);
	for (i = 0; i < def->nindexes; i++)
	{
		if (def->indexes[i].creating)
			creating = lappend(creating, pstrdup(def->indexes[i].name));
	}
	/*
	 * Vector indexes being built (1.2): each by its own batch function,
	 * called by name (the vector indexes are the API layer's).
	 */
	{
		Oid			nsp = get_namespace_oid(ITEM_TABLE_SCHEMA, true);

		if (OidIsValid(nsp) && OidIsValid(get_relname_relid("vector_indexes", nsp)))
		{
			List	   *vcreating = NIL;
			List	   *vall = NIL;

			if (SPI_execute_with_args("SELECT index_name, status OPERATOR(pg_catalog.=) 'CREATING'"
									  " FROM item_table.vector_indexes"
									  " WHERE table_name OPERATOR(pg_catalog.=) $1 ORDER BY 1",
									  1, (Oid[]) {TEXTOID}, (Datum[]) {CStringGetTextDatum(table)},
									  NULL, true, 0) != SPI_OK_SELECT)
				elog(ERROR, "backfill_indexes: could not read the vector indexes");
			for (uint64 r = 0; r < SPI_processed; r++)
			{
				bool		isnull;
				char	   *name = SPI_getvalue(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1);

				vall = lappend(vall, name);
				if (DatumGetBool(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2, &isnull)))
					vcreating = lappend(vcreating, name);
			}
			foreach(lc, vall)
			{
				char	   *index = (char *) lfirst(lc);
				bool		more = list_member_ptr(vcreating, index);

				while (more)
				{
					bool		isnull;

					CHECK_FOR_INTERRUPTS();
					if (SPI_execute_with_args("SELECT item_table.vector_backfill_batch($1, $2, $3)", 3,
											  (Oid[]) {TEXTOID, TEXTOID, INT4OID},
											  (Datum[]) {CStringGetTextDatum(table), CStringGetTextDatum(index),
											  Int32GetDatum(batch)}, NULL, false, 1) != SPI_OK_SELECT)
						elog(ERROR, "backfill_indexes: the build of vector index %s failed", index);
					more = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
					SPI_commit();
				}
				if (list_member_ptr(vcreating, index))
					ereport(NOTICE,
							(errmsg("vector index \"%s\" of table \"%s\" is ACTIVE", index, table)));
				/*
				 * then its pending vectors into its graph: at once, the
				 * graph built again by CREATE INDEX, when they outnumber
				 * the graph's (a bulk load), then batch by batch
				 */
				if (SPI_execute_with_args("SELECT item_table.vector_build_graph($1, $2, true)", 2,
										  (Oid[]) {TEXTOID, TEXTOID},
										  (Datum[]) {CStringGetTextDatum(table), CStringGetTextDatum(index)},
										  NULL, false, 1) != SPI_OK_SELECT)
					elog(ERROR, "backfill_indexes: the graph of vector index %s could not be built", index);
				SPI_commit();
				more = true;
				while (more)
				{
					bool		isnull;

					CHECK_FOR_INTERRUPTS();
					if (SPI_execute_with_args("SELECT item_table.vector_drain_batch($1, $2, $3)", 3,
											  (Oid[]) {TEXTOID, TEXTOID, INT4OID},
											  (Datum[]) {CStringGetTextDatum(table), CStringGetTextDatum(index),
											  Int32GetDatum(batch)}, NULL, false, 1) != SPI_OK_SELECT)
						elog(ERROR, "backfill_indexes: the draining of vector index %s failed", index);
					more = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)) >= batch;
					SPI_commit();
				}
			}
			if (vcreating != NIL && creating == NIL)
			{
				SPI_finish();
				PG_RETURN_VOID();
			}
		}
	}
	if (creating == NIL)
	{
		ereport(NOTICE, (errmsg("table \"%s\" has no index being created", table)));
		SPI_finish();
		PG_RETURN_VOID();
	}

	foreach(lc, creating)
	{
		char	   *index = (char *) lfirst(lc);
		int64		done = 0;
		int64		total = 0;
		int			lastpct = -1;
		bool		more;

		for (;;)
		{
			int64		before = done;

			CHECK_FOR_INTERRUPTS();
			more = IndexBackfillBatch(table, index, batch, &done, &total);
			if (done > before)
			{
				int			pct;

				/* the estimate lags a table that grew since it was made */
				if (total < done)
					total = done;
				pct = total > 0 ? (int) Min(100, done * 100 / total) : 100;
				if (pct / 10 != lastpct / 10 || !more)
					ereport(NOTICE,
							(errmsg("backfilling index \"%s\" of table \"%s\": " INT64_FORMAT " of about " INT64_FORMAT " items (%d%%)",
									index, table, done, total, pct)));
				lastpct = pct;
			}
			SPI_commit();
			if (!more)
				break;
		}
		ereport(NOTICE,
				(errmsg("index \"%s\" of table \"%s\" is ACTIVE (" INT64_FORMAT " items scanned)",
						index, table, done)));
	}
	SPI_finish();
	PG_RETURN_VOID();
}
