/*-------------------------------------------------------------------------
 *
 * query_page.c
 *		The page reader of Query and Scan: the statements that read a
 *		target, reading one page of items in key order with DynamoDB's
 *		paging, filtering and projection, and the response.
 *
 * Plans.  The statements are prepared once per table (or index) and kept
 * in its ItemTableDef (IndexDef), as generic plans (the bounds are
 * parameters) planned for a fast start (CURSOR_OPT_FAST_PLAN), so the
 * planner always chooses the ordered index scan on the primary key for
 * both directions: no Sort node, no sequential scan, whatever the table
 * size (explain_query() shows it).  Every key condition is one half-open
 * range [lo, hi) of item_key (query_range.c):
 *
 *	  SELECT key, item FROM t WHERE key >= $1 AND key < $2 ORDER BY key [DESC]
 *
 * An index table (ikey, key, item) is read on the range of ikey, resuming
 * after (ikey, key) with a row comparison, since many items may share one
 * index key.  A parallel Scan adds the segment filter.
 *
 * Paging (reference 4.7-4.9).  The statement runs in batches sized by what
 * is left (Limit, bytes): each batch executes it with a row count, and the
 * next one resumes after the last key read (moving $1 forward, or $2
 * backward), under the same snapshot, so a page never makes PostgreSQL
 * read much more than the page, and no cursor (portal) is needed.  Items
 * are counted against Limit and the 1 MB page cap by DynamoDB's item size
 * (AttrStoredItemSizeAnyEncoding, straight from the stored jsonb) before the filter
 * and the projection.  A page never holds more than 1 MB (1,048,576
 * bytes) of items: an item that does not fit ends the page unread (it
 * starts the next one), except that the first item of a page is always
 * taken.  LastEvaluatedKey is the key of the last item read, present iff
 * the page stopped on Limit or on the cap, even when nothing is left.
 *
 * The direct read.  A page of the table itself is read by a direct scan
 * of its primary key (read_page_direct) instead of the statement, where
 * that cannot differ from it: the same index, direction, range and
 * snapshot, and the rows go through the same per-row code.  A short page
 * (a Limit 1 Query, a small collection) then costs no executor start, plan
 * check and end.  Its conditions are GetItem's direct probe's; anything
 * else reads with the statement.
 *
 * Response.  The stored items (or their projections) are copied as
 * containers into the Items array of the response (jsonb_binary.c),
 * instead of being unpacked and serialised again.
 *
 * SPI and memory: the caller connects SPI and finishes it (the entry
 * points, api_query.c); everything here lives in SPI's procedure
 * context, the items of the page included (at most one page of them);
 * per-row work (detoasting, sizes, filter, projection) happens in a row
 * context reset for every row, and the response is written into the
 * caller's context.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "compat.h"
#include "direct_check.h"
#include "item_store.h"
#include "jsonb_binary.h"
#include "query.h"

/* DynamoDB's page cap: bytes of items read (item size formula) */
#define PAGE_MAX_BYTES			(1024 * 1024)

/*
 * Rows read by the first batch of a page, and the most any batch reads.  A row
 * read but not taken costs little: its large values stay TOASTed until
 * the item is taken.  128 covers most item collections in one batch.
 */
#define FETCH_FIRST_BATCH		128
#define FETCH_MAX_BATCH			1024

/* the plans (one set per table, in ItemTableDef) */
#define READ_COLUMNS	"SELECT key, item FROM %s WHERE key OPERATOR(" ITEM_TABLE_SCHEMA ".>=) $1" \
						" AND key OPERATOR(" ITEM_TABLE_SCHEMA ".<) $2"
#define READ_FORWARD_SQL	READ_COLUMNS " ORDER BY key USING OPERATOR(" ITEM_TABLE_SCHEMA ".<)"
#define READ_BACKWARD_SQL	READ_COLUMNS " ORDER BY key USING OPERATOR(" ITEM_TABLE_SCHEMA ".>)"
#define READ_SEGMENT_SQL	READ_COLUMNS \
	" AND " ITEM_TABLE_SCHEMA ".item_key_segment(key, $3) OPERATOR(pg_catalog.=) $4" \
	" ORDER BY key USING OPERATOR(" ITEM_TABLE_SCHEMA ".<)"

/*
 * Index tables have (ikey, key, item) and PRIMARY KEY (ikey, key): the range
 * is on ikey, and $3/$4 give the position (ikey, key) to read after (or
 * before, backward).  Without a start position, ($1, '') forward and
 * ($2, '') backward let the row comparison select the whole range.
 */
#define IDX_COLUMNS	"SELECT key, item, ikey FROM %s WHERE ikey OPERATOR(" ITEM_TABLE_SCHEMA ".>=) $1" \
					" AND ikey OPERATOR(" ITEM_TABLE_SCHEMA ".<) $2"
#define IDX_FORWARD_SQL		IDX_COLUMNS " AND ROW(ikey, key) OPERATOR(" ITEM_TABLE_SCHEMA ".>) ROW($3, $4)" \
	" ORDER BY ikey USING OPERATOR(" ITEM_TABLE_SCHEMA ".<), key USING OPERATOR(" ITEM_TABLE_SCHEMA ".<)"
#define IDX_BACKWARD_SQL	IDX_COLUMNS " AND ROW(ikey, key) OPERATOR(" ITEM_TABLE_SCHEMA ".<) ROW($3, $4)" \
	" ORDER BY ikey USING OPERATOR(" ITEM_TABLE_SCHEMA ".>), key USING OPERATOR(" ITEM_TABLE_SCHEMA ".>)"
#define IDX_SEGMENT_SQL		IDX_COLUMNS " AND ROW(ikey, key) OPERATOR(" ITEM_TABLE_SCHEMA ".>) ROW($3, $4)" \
	" AND " ITEM_TABLE_SCHEMA ".item_key_segment(ikey, $5) OPERATOR(pg_catalog.=) $6" \
	" ORDER BY ikey USING OPERATOR(" ITEM_TABLE_SCHEMA ".<), key USING OPERATOR(" ITEM_TABLE_SCHEMA ".<)"

/* generic plans, planned for fetching the first rows fast */
#define READ_CURSOR_OPTIONS (CURSOR_OPT_GENERIC_PLAN | CURSOR_OPT_FAST_PLAN | CURSOR_OPT_NO_SCROLL)

/* the plan in slot of target t (prepared on first use) */
static SPIPlanPtr
target_plan(ReadTarget *t, SPIPlanPtr *slot, const char *sql, int nargs)
{
	Oid			argtypes[4] = {ItemKeyTypeOid(), ItemKeyTypeOid(), INT4OID, INT4OID};
	Oid			idxtypes[6] = {ItemKeyTypeOid(), ItemKeyTypeOid(), ItemKeyTypeOid(),
	ItemKeyTypeOid(), INT4OID, INT4OID};
	SPIPlanPtr	plan;

	/* a store with its own statements has no local plan (ReadRequestPlan) */
	if (t->def->store->read_plan != NULL)
		return NULL;
	if (t->idx == NULL)
		return TableDefPlanOpts(t->def, slot, sql, nargs, argtypes, READ_CURSOR_OPTIONS);
	if (*slot != NULL)
		return *slot;
	plan = ItemPrepareKept(psprintf(sql, ItemQualifiedName(t->idx->relid)), nargs,
							  idxtypes, READ_CURSOR_OPTIONS);
	*slot = plan;
	return plan;
}

/* the smallest item_key of all: no bytes */
static Datum
empty_key(void)
{
	static const uint8 none = 0;

	return PointerGetDatum(KeyCodecMakeVarlena(&none, 0));
}

typedef struct ReadPage
{
	int64		scanned;		/* items read */
	int64		count;			/* items that passed the filter */
	int64		bytes;			/* their DynamoDB size, for capacity */
	bool		more;			/* stopped on Limit or the page cap */
	ItemKey    *last_key;		/* key of the last item read */
	ItemKey    *last_ikey;		/* index: its index key */
	Jsonb	  **items;			/* what goes into Items */
	int			nitems;
	int			maxitems;
	MemoryContext cxt;			/* where items and last_key live */
	ItemKey    *bound_key;		/* a last_key in use as a batch bound */
} ReadPage;

/*
 * ReadRequestPlan
 *		The plan of a request and its parameters (args[0..*nargs - 1]).
 */
static SPIPlanPtr
plain_request_plan(ReadRequest *rr, Datum *args, int *nargs)
{
	ReadRangeBounds(&rr->range, &args[0], &args[1]);
	if (rr->target.idx != NULL)
	{
		if (rr->start_ikey != NULL)
		{
			args[2] = PointerGetDatum(rr->start_ikey);
			args[3] = PointerGetDatum(rr->start_key);
		}
		else
		{
			args[2] = rr->forward ? args[0] : args[1];
			args[3] = empty_key();
		}
		if (rr->total_segments > 1)
		{
			args[4] = Int32GetDatum(rr->total_segments);
			args[5] = Int32GetDatum(rr->segment);
			*nargs = 6;
			return target_plan(&rr->target, rr->target.plan_segment, IDX_SEGMENT_SQL, 6);
		}
		*nargs = 4;
		return target_plan(&rr->target, rr->forward ? rr->target.plan_forward : rr->target.plan_backward,
						   rr->forward ? IDX_FORWARD_SQL : IDX_BACKWARD_SQL, 4);
	}
	if (rr->total_segments > 1)
	{
		args[2] = Int32GetDatum(rr->total_segments);
		args[3] = Int32GetDatum(rr->segment);
		*nargs = 4;
		return target_plan(&rr->target, rr->target.plan_segment, READ_SEGMENT_SQL, 4);
	}
	*nargs = 2;
	if (rr->forward)
		return target_plan(&rr->target, rr->target.plan_forward, READ_FORWARD_SQL, 2);
	return target_plan(&rr->target, rr->target.plan_backward, READ_BACKWARD_SQL, 2);
}

SPIPlanPtr
ReadRequestPlan(ReadRequest *rr, Datum *args, int *nargs)
{
	SPIPlanPtr	plan = plain_request_plan(rr, args, nargs);

	/* the store's own statements, with the same parameters (item_store.h) */
	if (rr->target.def->store->read_plan != NULL)
		plan = rr->target.def->store->read_plan(rr->target.def, rr->target.idx, rr->forward,
												rr->total_segments > 1, rr->partition,
												args, nargs);
	return plan;
}

/* how many rows to fetch next: no more than Limit, about what fits */
static int
next_batch(const ReadRequest *rr, const ReadPage *pg)
{
	int64		want = FETCH_MAX_BATCH;

	if (pg->scanned == 0)
		want = FETCH_FIRST_BATCH;
	else
	{
		int64		avg = Max(pg->bytes / pg->scanned, 1);

		/* enough to fill the page at the average size, and one more */
		want = Min(want, (PAGE_MAX_BYTES - pg->bytes) / avg + 2);
	}
	if (rr->limit > 0)
		want = Min(want, rr->limit - pg->scanned);
	return (int) Max(want, 1);
}

static void
page_add_item(ReadPage *pg, Jsonb *item)
{
	if (pg->nitems == pg->maxitems)
	{
		pg->maxitems = pg->maxitems ? pg->maxitems * 2 : 64;
		pg->items = pg->items ? repalloc(pg->items, sizeof(Jsonb *) * pg->maxitems)
			: MemoryContextAlloc(pg->cxt, sizeof(Jsonb *) * pg->maxitems);
	}
	pg->items[pg->nitems++] = item;
}

/* a copy of a (detoasted) jsonb in cxt */
static Jsonb *
copy_jsonb(const Jsonb *j, MemoryContext cxt)
{
	Jsonb	   *r = MemoryContextAlloc(cxt, VARSIZE(j));

	memcpy(r, j, VARSIZE(j));
	return r;
}

/*
 * read_row
 *		Take one row read by the cursor into the page, unless it would take
 *		the page past the cap (then return false and leave the page as it
 *		is).  The row's item, or its projection, is copied into pagecxt when
 *		it goes into Items; everything else lives in rowcxt, reset here.
 */
static bool
read_row(ReadRequest *rr, ReadPage *pg, Datum kd, Datum jd,
		 MemoryContext pagecxt, MemoryContext rowcxt)
{
	MemoryContext old = MemoryContextSwitchTo(rowcxt);
	Jsonb	   *item = DatumGetJsonbP(jd);
	int64		size = AttrStoredItemSizeAnyEncoding(item);
	ItemKey    *key;
	bool		pass = true;

	if (size < 0)
		StoredRaiseBadItem(rr->target.def->name, rr->target.index_name,
							  DatumGetItemKeyPP(kd), item);

	if (pg->scanned > 0 && pg->bytes + size > PAGE_MAX_BYTES)
	{
		/* does not fit: the next page starts with it */
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
		return false;
	}
	pg->scanned++;
	pg->bytes += size;
	key = DatumGetItemKeyPP(kd);
	if (pg->last_key != NULL && pg->last_key != pg->bound_key)
		pfree(pg->last_key);
	pg->last_key = (ItemKey *) MemoryContextAlloc(pagecxt, VARHDRSZ + ITEMKEY_LEN(key));
	SET_VARSIZE(pg->last_key, VARHDRSZ + ITEMKEY_LEN(key));
	memcpy(VARDATA(pg->last_key), ITEMKEY_DATA(key), ITEMKEY_LEN(key));

	if (rr->filter != NULL || (rr->projection != NULL && !rr->count_only))
	{
		AttrValue  *av = StoredParseItem(rr->target.def->name, rr->target.index_name,
											key, PointerGetDatum(item), false);

		if (rr->filter != NULL)
			pass = ExprEvalCondition(rr->filter, av);
		if (pass && rr->projection != NULL && !rr->count_only)
		{
			AttrValue  *projected = ExprProject(rr->projection, av);

			MemoryContextSwitchTo(pagecxt);
			page_add_item(pg, AttrItemToJsonb(projected));
			MemoryContextSwitchTo(rowcxt);
		}
		else if (pass && !rr->count_only)
			page_add_item(pg, copy_jsonb(item, pagecxt));
	}
	else if (!rr->count_only)
		page_add_item(pg, copy_jsonb(item, pagecxt));
	if (pass)
		pg->count++;
	MemoryContextSwitchTo(old);
	MemoryContextReset(rowcxt);
	return true;
}

/*
 * take_row
 *		One row of the table read by the direct reader into the page, as
 *		read_page takes a row of the statement's; true when the page is
 *		done with it (Limit, the cap).
 */
static bool
take_row(ReadRequest *rr, ReadPage *pg, Datum kd, bool knull, Datum jd,
		 bool jnull, MemoryContext pagecxt, MemoryContext rowcxt)
{
	if (knull)
		StoredRaiseNullKey(rr->target.def->name, rr->target.index_name);
	if (jnull)
		StoredRaiseBadItem(rr->target.def->name, rr->target.index_name,
						   DatumGetItemKeyPP(kd), NULL);
	if (!read_row(rr, pg, kd, jd, pagecxt, rowcxt))
	{
		pg->more = true;
		return true;
	}
	if ((rr->limit > 0 && pg->scanned >= rr->limit) || pg->bytes >= PAGE_MAX_BYTES)
	{
		/* stopped on Limit or on the cap, even if nothing is left */
		pg->more = true;
		return true;
	}
	return false;
}

/* a scan key on item_key column 1 with the opfamily's operator of strategy */
static bool
range_scan_key(ScanKey skey, Relation idx, StrategyNumber strategy, Datum bound)
{
	FmgrInfo   *finfo = ApiKeyOperator(idx->rd_opfamily[0], strategy);

	if (finfo == NULL)
		return false;
	ScanKeyEntryInitializeWithInfo(skey, 0, 1, strategy, InvalidOid,
								   idx->rd_indcollation[0], finfo, bound);
	return true;
}

/*
 * read_page_direct
 *		The page of a Query or Scan of the table itself read by a direct
 *		scan of its primary key, instead of the statement: the statement
 *		is a plain ordered range scan of that index, and its executor
 *		start, its plan check and its end are most of the instructions of a
 *		short page (a Limit 1 Query, a small item collection).  The rows,
 *		their order and the snapshot are the statement's: the same btree
 *		index, in the same direction, over the same [lo, hi) range, under
 *		the active snapshot, as a read-only SPI statement uses.  It runs
 *		only where that cannot differ, GetItem's direct probe's rules
 *		(direct_check.c: ApiDirectRights for SELECT -- table-wide, no
 *		permission hook, no row-level security -- and ApiDirectShape for a
 *		read: the plain (key, item) heap with its btree primary key); and only
 *		for the table itself (not an index table, an LSI's base fetch, a
 *		parallel Scan segment, or a store without direct paths).  Otherwise false, before
 *		reading anything, and the statement reads the page;
 *		test/pgtap/read_direct.sql shows each case and that both give the
 *		same response.
 */
static bool
read_page_direct(ReadRequest *rr, ReadPage *pg, MemoryContext pagecxt,
				 MemoryContext rowcxt)
{
	ItemTableDef *def = rr->target.def;
	Relation	rel;
	Relation	idx = NULL;
	ScanKeyData skeys[2];
	Datum		lo;
	Datum		hi;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	bool		ok = false;

	if (!def->store->direct || rr->target.idx != NULL || rr->target.fetch_base ||
		rr->total_segments > 1 || !ActiveSnapshotSet() ||
		!ApiDirectRights(def->relid, InvalidOid, ACL_SELECT))
		return false;

	rel = table_open(def->relid, AccessShareLock);
	idx = ApiDirectShape(rel, 0, AccessShareLock);
	if (idx == NULL)
		goto done;
	ReadRangeBounds(&rr->range, &lo, &hi);
	if (!range_scan_key(&skeys[0], idx, BTGreaterEqualStrategyNumber, lo) ||
		!range_scan_key(&skeys[1], idx, BTLessStrategyNumber, hi))
		goto done;

	ok = true;
	slot = table_slot_create(rel, NULL);
	scan = ItemIndexBeginScan(rel, idx, GetActiveSnapshot(), 2);
	index_rescan(scan, skeys, 2, NULL, 0);
	while (index_getnext_slot(scan, rr->forward ? ForwardScanDirection : BackwardScanDirection,
							  slot))
	{
		bool		knull;
		bool		jnull;
		Datum		kd;
		Datum		jd;

		CHECK_FOR_INTERRUPTS();
		kd = slot_getattr(slot, 1, &knull);
		jd = slot_getattr(slot, 2, &jnull);
		if (take_row(rr, pg, kd, knull, jd, jnull, pagecxt, rowcxt))
			break;
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);

done:
	if (idx != NULL)
		index_close(idx, NoLock);
	table_close(rel, NoLock);
	return ok;
}

/*
 * read_page
 *		Read one page: fetch rows in key order until Limit items were read,
 *		the next item would pass the page cap, or the range is exhausted;
 *		filter and project what was read.  The items of the response live
 *		in the current memory context; per-row work in a row context reset
 *		for every row.
 */
static void
read_page(ReadRequest *rr, ReadPage *pg)
{
	MemoryContext pagecxt = CurrentMemoryContext;
	MemoryContext rowcxt;
	Datum		args[6];
	int			nargs;
	SPIPlanPtr	plan = NULL;
	bool		done = false;

	memset(pg, 0, sizeof(*pg));
	pg->cxt = pagecxt;
	rowcxt = AllocSetContextCreate(pagecxt, "item_table page row", ALLOCSET_DEFAULT_SIZES);
	if (read_page_direct(rr, pg, pagecxt, rowcxt))
		done = true;
	else
		plan = ReadRequestPlan(rr, args, &nargs);
	while (!done)
	{
		int			batch = next_batch(rr, pg);
		SPITupleTable *tt;
		uint64		n;
		uint64		i;
		int			rc;

		/* read-only: every batch sees the snapshot of the calling query */
		rc = SPI_execute_plan(plan, args, NULL, true, batch);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "item_table read failed: %s", SPI_result_code_string(rc));
		tt = SPI_tuptable;
		n = SPI_processed;
		StoredCheckColumns(rr->target.def->name, rr->target.index_name,
							tt->tupdesc, 1, 2);
		if (rr->target.idx != NULL)
			StoredCheckColumns(rr->target.def->name, rr->target.index_name,
								tt->tupdesc, 3, 2);
		for (i = 0; i < n && !done; i++)
		{
			bool		knull;
			bool		jnull;
			Datum		kd = SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &knull);
			Datum		jd = SPI_getbinval(tt->vals[i], tt->tupdesc, 2, &jnull);

			CHECK_FOR_INTERRUPTS();
			if (knull)
				StoredRaiseNullKey(rr->target.def->name, rr->target.index_name);
			if (jnull)
				StoredRaiseBadItem(rr->target.def->name, rr->target.index_name,
									  DatumGetItemKeyPP(kd), NULL);
			if (rr->target.fetch_base)
			{
				/* LSI: the table's item carries the unprojected attributes */
				Jsonb	   *base = ApiFetchItem(rr->target.def, DatumGetItemKeyPP(kd), false);

				if (base == NULL)
					continue;
				jd = JsonbPGetDatum(base);
			}
			if (!read_row(rr, pg, kd, jd, pagecxt, rowcxt))
			{
				pg->more = true;
				done = true;
			}
			if (rr->target.idx != NULL && !done)
			{
				bool		inull;
				Datum		ikd = SPI_getbinval(tt->vals[i], tt->tupdesc, 3, &inull);
				ItemKey    *ik;

				if (inull)
					StoredRaiseNullKey(rr->target.def->name, rr->target.index_name);
				ik = DatumGetItemKeyPP(ikd);
				pg->last_ikey = KeyCodecMakeVarlena(ITEMKEY_DATA(ik), ITEMKEY_LEN(ik));
			}
			if (done)
				;
			else if ((rr->limit > 0 && pg->scanned >= rr->limit) ||
					 pg->bytes >= PAGE_MAX_BYTES)
			{
				/* stopped on Limit or on the cap, even if nothing is left */
				pg->more = true;
				done = true;
			}
		}
		if (!done && n < (uint64) batch)
			done = true;		/* the range is exhausted */
		else if (!done && rr->target.idx != NULL)
		{
			/* index: the next batch starts after (ikey, key) last read */
			args[2] = PointerGetDatum(pg->last_ikey);
			args[3] = PointerGetDatum(KeyCodecMakeVarlena(ITEMKEY_DATA(pg->last_key),
														  ITEMKEY_LEN(pg->last_key)));
		}
		else if (!done)
		{
			/* the next batch starts after the last key read */
			if (rr->forward)
				args[0] = PointerGetDatum(ReadKeySuccessor(pg->last_key));
			else
			{
				pg->bound_key = pg->last_key;
				args[1] = PointerGetDatum(pg->last_key);
			}
		}
		SPI_freetuptable(tt);
	}
	MemoryContextDelete(rowcxt);
}

static void
push_int(JsonbParseState **state, const char *key, int64 n)
{
	JsonbValue	v;

	ApiPushKey(state, key);
	v.type = jbvNumeric;
	v.val.numeric = int64_to_numeric(n);
	pushJsonbValue(state, WJB_VALUE, &v);
}

/*
 * ReadRun
 *		Read a page and build the response in callercxt (SPI connected).
 */
Jsonb *
ReadRun(ReadRequest *rr, MemoryContext callercxt)
{
	ReadPage	pg;
	JsonbParseState *state = NULL;
	JsonbValue *restv;
	Jsonb	   *rest;
	Jsonb	   *result;
	MemoryContext old;

	read_page(rr, &pg);

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	push_int(&state, "Count", pg.count);
	push_int(&state, "ScannedCount", pg.scanned);
	if (pg.more)
		ReadPushLastEvaluatedKey(&state, &rr->target, pg.last_key, pg.last_ikey);
	ApiPushConsumedCapacity(&state, rr->target.def->name,
							ApiReadUnits(pg.bytes, rr->consistent), rr->rcc);
	restv = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	rest = JsonbValueToJsonb(restv);

	old = MemoryContextSwitchTo(callercxt);
	if (rr->count_only)
	{
		result = palloc(VARSIZE(rest));
		memcpy(result, rest, VARSIZE(rest));
	}
	else
		result = JsonbWithArrayMember(rest, "Items", pg.items, pg.nitems);
	MemoryContextSwitchTo(old);
	return result;
}

