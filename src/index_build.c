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

#include "errors.h"
#include "gsi.h"
#include "stored_item.h"
#include "table_def.h"

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

		sql = psprintf("SELECT CASE WHEN i.key IS NULL THEN 'missing' WHEN x.key IS NULL THEN 'extra' ELSE 'stale' END,"
					   " coalesce(x.ikey, i.ikey), coalesce(x.key, i.key),"
					   " pg_catalog.jsonb_build_object('expected', x.item, 'found', i.item)"
					   " FROM (SELECT e.ikey, b.key, e.projected AS item FROM %s b,"
					   "       LATERAL item_table.index_entries($1, $2, b.key, b.item) e) x"
					   " FULL JOIN %s i ON i.ikey OPERATOR(item_table.=) x.ikey AND i.key OPERATOR(item_table.=) x.key"
					   " WHERE i.key IS NULL OR x.key IS NULL OR i.item OPERATOR(pg_catalog.<>) x.item"
					   " ORDER BY 2, 3",
					   ItemQualifiedName(def->relid), ItemQualifiedName(idx->relid));
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
	AtEOXact_GUC(true, nestlevel);
	SPI_finish();
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 * CALL backfill_indexes(table [, batch_size])
 *
 * The procedure commits after every batch, so anything that has to last
 * from one batch to the next lives in SPI's procedure context (or, for the
 * read plans, is kept with SPI_keepplan), and nothing a row needs outlives
 * the row: each row is indexed in a context reset after it, each batch's
 * tuple table is freed, and the batch read is one prepared statement, not
 * SQL text parsed again for every batch.  Memory therefore stays flat
 * whatever the size of the table.
 *
 * The base table is read, like the index tables are written, with the
 * rights of its owner and without the owner's forced row-level security
 * (as_index_owner): an index holds every item, whoever may read which.
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
 * Run a catalog UPDATE of one index ($1 table, $2 index, and $3 value when
 * nargs is 3) as the catalog owner.
 */
static void
backfill_catalog_update(const char *sql, int nargs, Datum table, Datum index, Datum value)
{
	Oid			argtypes[3] = {TEXTOID, TEXTOID, INT8OID};
	Datum		args[3] = {table, index, value};
	ItemRoleSwitch sw;
	int			rc;

	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args(sql, nargs, argtypes, args, NULL, false, 0);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "index catalog update failed: %s", SPI_result_code_string(rc));
}

Datum
item_table_backfill_indexes(PG_FUNCTION_ARGS)
{
	char	   *table = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int			batch = PG_ARGISNULL(1) ? 1000 : PG_GETARG_INT32(1);
	ItemTableDef *def;
	char	   *base;
	Oid			base_relid;
	int64		total;
	int			i;
	int			rc;
	List	   *creating = NIL;
	ListCell   *lc;
	MemoryContext rowcxt;
	MemoryContext keycxt;
	Datum		table_d;

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
	if (creating == NIL)
	{
		ereport(NOTICE, (errmsg("table \"%s\" has no index being created", table)));
		SPI_finish();
		PG_RETURN_VOID();
	}
	base = ItemQualifiedName(base_relid);
	{
		ItemRoleSwitch sw;
		bool		isnull;

		GsiAsIndexOwner(base_relid, &sw);
		rc = SPI_execute(psprintf("SELECT pg_catalog.count(*) FROM %s", base), true, 0);
		if (rc != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "backfill count failed: %s", SPI_result_code_string(rc));
		total = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		SPI_freetuptable(SPI_tuptable);
		backfill_plans(base_relid, base);
		ItemAsRoleEnd(&sw);
	}

	/* both in SPI's procedure context, which outlives the commits */
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "item_table backfill row",
								   ALLOCSET_DEFAULT_SIZES);
	keycxt = AllocSetContextCreate(CurrentMemoryContext, "item_table backfill position",
								   ALLOCSET_SMALL_SIZES);
	table_d = CStringGetTextDatum(table);
	foreach(lc, creating)
	{
		char	   *index = (char *) lfirst(lc);
		Datum		index_d = CStringGetTextDatum(index);
		ItemKey    *last = NULL;
		int64		done = 0;
		int			lastpct = -1;

		MemoryContextReset(keycxt);
		for (;;)
		{
			Datum		args[2];
			uint64		n;
			uint64		r;
			IndexDef   *idx;
			SPITupleTable *tt;
			ItemRoleSwitch isw;

			CHECK_FOR_INTERRUPTS();
			/*
			 * Definitions may have been reloaded after the last commit, and
			 * what was read from them before it is gone: look again.
			 */
			def = TableDefByRelid(base_relid);
			idx = def ? TableDefFindIndex(def, index) : NULL;
			if (idx == NULL)
				break;			/* deleted meanwhile */

			GsiAsIndexOwner(idx->relid, &isw);
			if (last == NULL)
			{
				args[0] = Int32GetDatum(batch);
				rc = SPI_execute_plan(backfill_plan_first, args, NULL, false, 0);
			}
			else
			{
				args[0] = PointerGetDatum(last);
				args[1] = Int32GetDatum(batch);
				rc = SPI_execute_plan(backfill_plan_next, args, NULL, false, 0);
			}
			if (rc != SPI_OK_SELECT)
				elog(ERROR, "backfill read failed: %s", SPI_result_code_string(rc));
			tt = SPI_tuptable;
			n = SPI_processed;
			StoredCheckColumns(table, NULL, tt->tupdesc, 1, 2);
			for (r = 0; r < n; r++)
			{
				MemoryContext old = MemoryContextSwitchTo(rowcxt);
				bool		isnull;
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
					MemoryContextReset(keycxt);
					MemoryContextSwitchTo(keycxt);
					last = (ItemKey *) PG_DETOAST_DATUM_COPY(key);
				}
				MemoryContextSwitchTo(old);
				MemoryContextReset(rowcxt);
			}
			SPI_freetuptable(tt);
			ItemAsRoleEnd(&isw);
			if (n == 0)
				break;
			done += n;
			backfill_catalog_update("UPDATE item_table.indexes SET backfilled = $3"
									" WHERE table_name OPERATOR(pg_catalog.=) $1"
									" AND index_name OPERATOR(pg_catalog.=) $2",
									3, table_d, index_d, Int64GetDatum(done));
			{
				int			pct = total > 0 ? (int) Min(100, done * 100 / total) : 100;

				if (pct / 10 != lastpct / 10 || (uint64) batch > n)
					ereport(NOTICE,
							(errmsg("backfilling index \"%s\" of table \"%s\": " INT64_FORMAT " of about " INT64_FORMAT " items (%d%%)",
									index, table, done, total, pct)));
				lastpct = pct;
			}
			SPI_commit();
		}
		backfill_catalog_update("UPDATE item_table.indexes SET status = 'ACTIVE'"
								" WHERE table_name OPERATOR(pg_catalog.=) $1"
								" AND index_name OPERATOR(pg_catalog.=) $2",
								2, table_d, index_d, (Datum) 0);
		CacheInvalidateRelcacheByRelid(base_relid);
		ereport(NOTICE,
				(errmsg("index \"%s\" of table \"%s\" is ACTIVE (" INT64_FORMAT " items scanned)",
						index, table, done)));
		SPI_commit();
	}
	MemoryContextDelete(rowcxt);
	MemoryContextDelete(keycxt);
	SPI_finish();
	PG_RETURN_VOID();
}
