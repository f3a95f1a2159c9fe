/*-------------------------------------------------------------------------
 *
 * item_collection.c
 *		item_collection(): the items of one partition (optionally those
 *		whose sort key begins with a prefix) as rows of (key, item), in key
 *		order, for SQL.
 *
 * It reads with the statements of Query (query_page.c) over the range of
 * the partition or of the prefix (query_range.c), through a cursor
 * fetched in batches of COLLECTION_BATCH rows, value-per-call: in a
 * select list the rows stream; in FROM the executor collects them in a
 * tuplestore (work_mem, then disk).  No DynamoDB paging, filter or item
 * size applies: this is the SQL-native way to read an item collection,
 * and its errors are PostgreSQL's, not DynamoDB's.
 *
 * SPI.  Each call connects SPI and finishes it before returning, as every
 * SPI user must; but the cursor (portal) has to outlive the call that
 * opened it.  A portal is not SPI's: SPI_finish() leaves it open, and the
 * next call finds it again by name and fetches from it in its own
 * SPI_connect()/SPI_finish() pair.  Its lifetime is bounded by the query
 * that calls the function: it is closed when the rows run out, by an
 * ExprContext callback when the executor stops early (LIMIT, an error
 * elsewhere in the query), and at the latest at transaction end, with
 * every other portal.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "query.h"

PG_FUNCTION_INFO_V1(item_table_item_collection);

/* rows fetched at once */
#define COLLECTION_BATCH		256

typedef struct CollectionState
{
	char	   *portal_name;	/* the open cursor, NULL once closed */
	HeapTuple  *rows;			/* current batch */
	int			nrows;
	int			next;
	bool		exhausted;		/* the cursor returned its last row */
	MemoryContext batchcxt;
} CollectionState;

static void
collection_close(CollectionState *cs)
{
	if (cs->portal_name != NULL)
	{
		Portal		portal = SPI_cursor_find(cs->portal_name);

		if (portal != NULL)
			SPI_cursor_close(portal);
		cs->portal_name = NULL;
	}
}

/* executor shutdown (also when the caller stops early): close the cursor */
static void
collection_shutdown(Datum arg)
{
	collection_close((CollectionState *) DatumGetPointer(arg));
}

/* the key part of a jsonb argument, of the given key schema type */
static void
collection_part(Jsonb *j, bool is_sort, AttrType type, const char *table,
				const char *attr, ItemKeyPart *part)
{
	ItemKeyPartFromAttributeValue(j, is_sort, part);
	if ((type == ATTR_S && part->type != ITEMKEY_S) ||
		(type == ATTR_N && part->type != ITEMKEY_N) ||
		(type == ATTR_B && part->type != ITEMKEY_B))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s value does not match the key schema of table \"%s\"",
						is_sort ? "sort prefix" : "partition", table),
				 errdetail("Key attribute %s is of type %s.", attr, AttrTypeName(type))));
}

/*
 * collection_open
 *		Look the table up and open a cursor over the requested range
 *		(SPI connected; the portal outlives SPI_finish).  Returns the
 *		portal's name, palloc'd in cxt.
 */
static char *
collection_open(FunctionCallInfo fcinfo, MemoryContext cxt)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	bool		forward = PG_NARGS() < 4 || PG_ARGISNULL(3) || PG_GETARG_BOOL(3);
	ItemTableDef *def = TableDefLookup(name);
	ReadRequest rr;
	ItemKeyPart pp;
	ItemKey    *p;
	Datum		args[4];
	int			nargs;
	SPIPlanPtr	plan;
	Portal		portal;

	memset(&rr, 0, sizeof(rr));
	ReadTargetInit(def, NULL, &rr.target);
	rr.forward = forward;
	collection_part(PG_GETARG_JSONB_P(1), false, def->hash_type, name, def->hash_key, &pp);
	p = KeyCodecBuild(&pp, NULL);
	if (PG_NARGS() >= 3 && !PG_ARGISNULL(2))
	{
		ItemKeyPart sp;

		if (def->range_key == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" has no sort key", name),
					 errhint("Pass NULL as the sort prefix.")));
		collection_part(PG_GETARG_JSONB_P(2), true, def->range_type, name, def->range_key, &sp);
		if (sp.type == ITEMKEY_N)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sort prefix of table \"%s\" must be a string or binary value", name),
					 errdetail("begins_with applies to S and B sort keys only.")));
		KeyCodecPrefixBounds(KeyCodecBuild(&pp, &sp), &rr.range.lo, &rr.range.hi);
	}
	else
	{
		rr.range.lo = p;
		rr.range.hi = ReadPartitionTop(p);
	}
	rr.range.lo_incl = true;
	rr.range.hi_incl = false;
	rr.partition = p;
	plan = ReadRequestPlan(&rr, args, &nargs);
	portal = SPI_cursor_open(NULL, plan, args, NULL, true);
	return MemoryContextStrdup(cxt, portal->name);
}

/*
 * item_table.item_collection(table_name, partition_value, sort_prefix,
 *							  scan_forward) -> setof (key, item)
 *		The items of one partition (whose sort key begins with sort_prefix,
 *		when given) in key order, as rows.  Value-per-call over a cursor
 *		fetched in batches: in a select list the rows stream; in FROM the
 *		executor collects them in a tuplestore (work_mem, then disk).
 */
Datum
item_table_item_collection(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		have_econtext = rsinfo != NULL && IsA(rsinfo, ReturnSetInfo) &&
		rsinfo->econtext != NULL;
	FuncCallContext *funcctx;
	CollectionState *cs;
	MemoryContext old;

	if (SRF_IS_FIRSTCALL())
	{
		TupleDesc	tupdesc;

		if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("table name and partition value must not be null")));
		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "item_collection must return a composite type");
		funcctx->tuple_desc = BlessTupleDesc(tupdesc);
		cs = palloc0(sizeof(CollectionState));
		cs->batchcxt = AllocSetContextCreate(funcctx->multi_call_memory_ctx,
											 "item_table collection batch",
											 ALLOCSET_DEFAULT_SIZES);
		funcctx->user_fctx = cs;
		MemoryContextSwitchTo(old);

		SPI_connect();
		cs->portal_name = collection_open(fcinfo, funcctx->multi_call_memory_ctx);
		SPI_finish();
		if (have_econtext)
			RegisterExprContextCallback(rsinfo->econtext, collection_shutdown,
										PointerGetDatum(cs));
	}
	funcctx = SRF_PERCALL_SETUP();
	cs = (CollectionState *) funcctx->user_fctx;

	if (cs->next >= cs->nrows && !cs->exhausted)
	{
		Portal		portal = SPI_cursor_find(cs->portal_name);
		uint64		i;

		if (portal == NULL)
			elog(ERROR, "item_collection cursor \"%s\" is gone", cs->portal_name);
		MemoryContextReset(cs->batchcxt);
		SPI_connect();
		SPI_cursor_fetch(portal, true, COLLECTION_BATCH);
		cs->nrows = (int) SPI_processed;
		cs->next = 0;
		old = MemoryContextSwitchTo(cs->batchcxt);
		cs->rows = palloc(sizeof(HeapTuple) * Max(cs->nrows, 1));
		for (i = 0; i < SPI_processed; i++)
			cs->rows[i] = heap_copytuple(SPI_tuptable->vals[i]);
		MemoryContextSwitchTo(old);
		if (cs->nrows < COLLECTION_BATCH)
		{
			cs->exhausted = true;
			SPI_cursor_close(portal);
			cs->portal_name = NULL;
		}
		SPI_finish();
	}
	if (cs->next < cs->nrows)
	{
		HeapTuple	row = cs->rows[cs->next++];

		/* flattens TOAST pointers, as a function result must be */
		SRF_RETURN_NEXT(funcctx, heap_copy_tuple_as_datum(row, funcctx->tuple_desc));
	}
	collection_close(cs);
	/* cs goes away with the multi-call context */
	if (have_econtext)
		UnregisterExprContextCallback(rsinfo->econtext, collection_shutdown,
									  PointerGetDatum(cs));
	SRF_RETURN_DONE(funcctx);
}
