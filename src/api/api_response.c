/*-------------------------------------------------------------------------
 *
 * api_response.c
 *		Responses of the DynamoDB API functions: consumed capacity, the members
 *		they push, and ItemCollectionMetrics.
 *
 * Item collections.  ReturnItemCollectionMetrics SIZE on a table with an
 * LSI reports the size of the written partition with its LSI entries,
 * measured by one prepared statement per table definition over the
 * partition's index range (see "ItemCollectionMetrics" below).
 *
 * Responses.  ReturnConsumedCapacity is read here, and the units of a read
 * or write and the ConsumedCapacity member (per table and per index for
 * INDEXES) are built here, with the helpers that push keys, strings,
 * numbers and items into a response.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "api.h"

/* ----------------------------------------------------------------
 * ItemCollectionMetrics
 *
 * An item collection is the items of one partition key value together with
 * their entries in the table's local secondary indexes; DynamoDB reports
 * its size as a range in GB (the collection is limited to 10 GB).  We
 * measure it exactly, as the DynamoDB sizes of the items in the partition
 * plus those of their LSI entries with DynamoDB's 100 bytes of overhead per
 * index entry, by one prepared statement that reads the partition's index
 * range in the table and in each LSI table, and report the whole gigabytes
 * around it: [floor, floor + 1].  The statement runs as the table's owner
 * (a writer need not be able to read the table to be told its size).
 * ----------------------------------------------------------------
 */
#define RICM_SIZE 0				/* index of "SIZE" in the callers' enum */
#define LSI_ENTRY_OVERHEAD 100

bool
ApiWantsCollectionMetrics(ItemTableDef *def, int ricm)
{
	int			i;

	if (ricm != RICM_SIZE)
		return false;
	for (i = 0; i < def->nindexes; i++)
	{
		if (def->indexes[i].is_local)
			return true;
	}
	return false;
}

/* the size in bytes of the item collection [lo, hi) of def */
static double
collection_size(ItemTableDef *def, ItemKey *lo, ItemKey *hi)
{
	SPIPlanPtr	plan = def->plan_collection_size;
	Datum		values[2] = {PointerGetDatum(lo), PointerGetDatum(hi)};
	ItemRoleSwitch sw;
	bool		isnull;
	Datum		d;
	int			rc;

	if (plan == NULL)
	{
		StringInfoData sql;
		Oid			argtypes[2] = {ItemKeyTypeOid(), ItemKeyTypeOid()};
		int			i;

		initStringInfo(&sql);
		appendStringInfoString(&sql,
							   "SELECT (COALESCE((SELECT pg_catalog.sum(item_table.item_size(t.item))"
							   " FROM %s t WHERE t.key OPERATOR(item_table.>=) $1"
							   " AND t.key OPERATOR(item_table.<) $2), 0)");
		for (i = 0; i < def->nindexes; i++)
		{
			IndexDef   *idx = &def->indexes[i];
			char	   *qname;
			const char *c;

			if (!idx->is_local)
				continue;
			appendStringInfoString(&sql, " OPERATOR(pg_catalog.+) COALESCE((SELECT pg_catalog.sum(item_table.item_size(i.item)"
								   " OPERATOR(pg_catalog.+) " CppAsString2(LSI_ENTRY_OVERHEAD) ") FROM ");
			/* the template's one %s is the table: escape the index's name */
			qname = ItemQualifiedName(idx->relid);
			for (c = qname; *c; c++)
			{
				if (*c == '%')
					appendStringInfoChar(&sql, '%');
				appendStringInfoChar(&sql, *c);
			}
			appendStringInfoString(&sql, " i WHERE i.ikey OPERATOR(item_table.>=) $1"
								   " AND i.ikey OPERATOR(item_table.<) $2), 0)");
		}
		appendStringInfoString(&sql, ")::pg_catalog.float8");
		plan = TableDefPlan(def, &def->plan_collection_size, sql.data, 2, argtypes);
	}
	ItemAsRoleBegin(&sw, ItemRelationOwner(def->relid), 0);
	rc = SPI_execute_plan(plan, values, NULL, true, 1);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "item collection size: %s", SPI_result_code_string(rc));
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? 0 : DatumGetFloat8(d);
}

/*
 * item_table_test_collection_size(table text, key jsonb) -> float8
 *		The size in bytes the metrics are computed from, for the partition
 *		of a Key parameter.  A test hook: the install script does not
 *		declare it; the pgTAP test item_collection_metrics declares it in
 *		pg_temp and checks it against the item sizes summed in SQL.
 */
PG_FUNCTION_INFO_V1(item_table_test_collection_size);

Datum
item_table_test_collection_size(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	AttrValue  *keyattrs = AttrItemFromJsonb(PG_GETARG_JSONB_P(1));
	ItemTableDef *def;
	ItemKey    *key;
	const uint8 *data;
	ItemKey    *lo,
			   *hi;
	double		size;

	SPI_connect();
	def = TableDefLookup(name);
	key = TableDefKeyFromKeyParam(def, keyattrs);
	data = (const uint8 *) ITEMKEY_DATA(key);
	KeyCodecPrefixBounds(KeyCodecMakeVarlena(data, KeyCodecPartitionLength(data, ITEMKEY_LEN(key))),
						 &lo, &hi);
	size = collection_size(def, lo, hi);
	SPI_finish();
	PG_RETURN_FLOAT8(size);
}

void
ApiPushItemCollectionMetrics(JsonbParseState **state, ItemTableDef *def,
							 const ItemKey *key)
{
	const uint8 *data = (const uint8 *) ITEMKEY_DATA(key);
	ItemKey    *partition = KeyCodecMakeVarlena(data,
												KeyCodecPartitionLength(data, ITEMKEY_LEN(key)));
	ItemKeyParsed parsed;
	ItemKey    *lo,
			   *hi;
	double		gb;
	double		bound;

	KeyCodecPrefixBounds(partition, &lo, &hi);
	gb = floor(collection_size(def, lo, hi) / (1024.0 * 1024.0 * 1024.0));

	ItemKeyDecodeOrError(partition, &parsed);
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(state, "ItemCollectionKey");
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(state, def->hash_key);
	ApiPushJsonb(state, ItemKeyPartToAttributeValue(&parsed.partition));
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
	ApiPushKey(state, "SizeEstimateRangeGB");
	pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
	for (bound = gb; bound <= gb + 1; bound++)
	{
		JsonbValue	v;

		v.type = jbvNumeric;
		v.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
															CStringGetDatum(psprintf("%.1f", bound)),
															ObjectIdGetDatum(InvalidOid),
															Int32GetDatum(-1)));
		pushJsonbValue(state, WJB_ELEM, &v);
	}
	pushJsonbValue(state, WJB_END_ARRAY, NULL);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/* is the partition of key already among those of the keys in done? */
static bool
partition_listed(List *done, const ItemKey *key)
{
	const uint8 *k = (const uint8 *) ITEMKEY_DATA(key);
	int			klen = KeyCodecPartitionLength(k, ITEMKEY_LEN(key));
	ListCell   *lc;

	foreach(lc, done)
	{
		const ItemKey *o = (const ItemKey *) lfirst(lc);
		const uint8 *od = (const uint8 *) ITEMKEY_DATA(o);
		int			olen = KeyCodecPartitionLength(od, ITEMKEY_LEN(o));

		if (olen == klen && memcmp(od, k, klen) == 0)
			return true;
	}
	return false;
}

void
ApiPushCollectionMetricsByTable(JsonbParseState **state, List *defs, List *keys,
								int ricm)
{
	List	   *tables = NIL;	/* ItemTableDef *, each once, with an LSI */
	ListCell   *tc,
			   *dc,
			   *kc;

	foreach(dc, defs)
	{
		ItemTableDef *def = (ItemTableDef *) lfirst(dc);
		bool		seen = false;

		foreach(tc, tables)
			seen |= ((ItemTableDef *) lfirst(tc))->relid == def->relid;
		if (!seen && ApiWantsCollectionMetrics(def, ricm))
			tables = lappend(tables, def);
	}
	if (tables == NIL)
		return;
	ApiPushKey(state, "ItemCollectionMetrics");
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	foreach(tc, tables)
	{
		ItemTableDef *t = (ItemTableDef *) lfirst(tc);
		List	   *done = NIL;

		ApiPushKey(state, t->name);
		pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
		forboth(dc, defs, kc, keys)
		{
			ItemKey    *key = (ItemKey *) lfirst(kc);

			if (((ItemTableDef *) lfirst(dc))->relid != t->relid ||
				partition_listed(done, key))
				continue;
			done = lappend(done, key);
			ApiPushItemCollectionMetrics(state, t, key);
		}
		pushJsonbValue(state, WJB_END_ARRAY, NULL);
	}
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/* ----------------------------------------------------------------
 * responses
 * ----------------------------------------------------------------
 */
static const char *const rcc_values[] = {"INDEXES", "TOTAL", "NONE"};

/*
 * The vector index writes of the current call, for its ConsumedCapacity
 * (VectorIndexes: VectorWriteRequestBytes per index): one entry per table
 * and index, summed, in a context of their own.  Reading a call's
 * ReturnConsumedCapacity starts a call: the entries of the one before go,
 * and the upkeep notes writes (ApiVectorWriteNote) only when the call asked
 * for ConsumedCapacity.
 */
typedef struct VectorWriteBytes
{
	char	   *table;
	char	   *index;
	int64		bytes;
} VectorWriteBytes;

static MemoryContext vector_writes_cxt = NULL;
static List *vector_writes = NIL;
static bool vector_writes_armed = false;

static void
vector_writes_reset(bool arm)
{
	if (vector_writes_cxt == NULL)
		vector_writes_cxt = AllocSetContextCreate(TopMemoryContext, "item_table vector write capacity",
												  ALLOCSET_SMALL_SIZES);
	else
		MemoryContextReset(vector_writes_cxt);
	vector_writes = NIL;
	vector_writes_armed = arm;
}

/*
 * ApiVectorWriteNote
 *		A write of the current call changed the row of the vector index
 *		(table, index), bytes of vector written or removed.
 */
void
ApiVectorWriteNote(const char *table, const char *index, int64 bytes)
{
	ListCell   *lc;
	VectorWriteBytes *w;
	MemoryContext old;

	if (!vector_writes_armed)
		return;
	foreach(lc, vector_writes)
	{
		w = (VectorWriteBytes *) lfirst(lc);
		if (strcmp(w->table, table) == 0 && strcmp(w->index, index) == 0)
		{
			w->bytes += bytes;
			return;
		}
	}
	old = MemoryContextSwitchTo(vector_writes_cxt);
	w = palloc(sizeof(VectorWriteBytes));
	w->table = pstrdup(table);
	w->index = pstrdup(index);
	w->bytes = bytes;
	vector_writes = lappend(vector_writes, w);
	MemoryContextSwitchTo(old);
}

/* "VectorIndexes": {...} of the table's vector index writes, if any */
static void
push_vector_writes(JsonbParseState **state, const char *table)
{
	ListCell   *lc;
	bool		any = false;

	foreach(lc, vector_writes)
	{
		VectorWriteBytes *w = (VectorWriteBytes *) lfirst(lc);

		if (strcmp(w->table, table) != 0)
			continue;
		if (!any)
		{
			ApiPushKey(state, "VectorIndexes");
			pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
			any = true;
		}
		ApiPushKey(state, w->index);
		pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(state, "VectorWriteRequestBytes");
		ApiPushNumeric(state, (double) w->bytes, 0);
		pushJsonbValue(state, WJB_END_OBJECT, NULL);
	}
	if (any)
		pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

int
ApiGetReturnConsumedCapacity(ApiRequest *req)
{
	int			i = ApiGetEnum(req, "ReturnConsumedCapacity", "returnConsumedCapacity",
							   rcc_values, lengthof(rcc_values));
	int			rcc;

	switch (i)
	{
		case 0:
			rcc = RCC_INDEXES;
			break;
		case 1:
			rcc = RCC_TOTAL;
			break;
		default:
			rcc = RCC_NONE;
			break;
	}
	/* a call starts: its vector index writes are noted when reported */
	vector_writes_reset(rcc != RCC_NONE);
	return rcc;
}

double
ApiReadUnits(int64 size, bool consistent)
{
	double		units = (double) ((size + 4095) / 4096);

	if (units < 1)
		units = 1;
	return consistent ? units : units / 2;
}

double
ApiWriteUnits(int64 size)
{
	double		units = (double) ((size + 1023) / 1024);

	return units < 1 ? 1 : units;
}

void
ApiPushKey(JsonbParseState **state, const char *key)
{
	JsonbValue	k;

	k.type = jbvString;
	k.val.string.val = (char *) key;
	k.val.string.len = strlen(key);
	pushJsonbValue(state, WJB_KEY, &k);
}

void
ApiPushString(JsonbParseState **state, const char *s)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) s;
	v.val.string.len = strlen(s);
	pushJsonbValue(state, WJB_VALUE, &v);
}

void
ApiPushBool(JsonbParseState **state, bool b)
{
	JsonbValue	v;

	v.type = jbvBool;
	v.val.boolean = b;
	pushJsonbValue(state, WJB_VALUE, &v);
}

/* a number with at least `scale` decimals: 1 -> "1.0" as DynamoDB prints */
void
ApiPushNumeric(JsonbParseState **state, double d, int scale)
{
	JsonbValue	v;
	char		buf[64];

	if (d == (double) (int64) d)
		snprintf(buf, sizeof(buf), "%.*f", scale, d);
	else
		snprintf(buf, sizeof(buf), "%.15g", d);
	v.type = jbvNumeric;
	v.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
														CStringGetDatum(buf),
														ObjectIdGetDatum(InvalidOid),
														Int32GetDatum(-1)));
	pushJsonbValue(state, WJB_VALUE, &v);
}

void
ApiPushJsonb(JsonbParseState **state, Jsonb *value)
{
	JsonbValue	v;

	v.type = jbvBinary;
	v.val.binary.data = &value->root;
	v.val.binary.len = VARSIZE(value) - VARHDRSZ;
	pushJsonbValue(state, WJB_VALUE, &v);
}

void
ApiPushItem(JsonbParseState **state, const AttrValue *item)
{
	ApiPushJsonb(state, AttrItemToJsonb(item));
}

/*
 * ApiAddTableUnits, ApiPushTableCapacities
 *		The ConsumedCapacity of a multi-table call (batches, transactions,
 *		PartiQL batches): units summed per table in a small list of
 *		ApiTableUnits, pushed as DynamoDB's array of per-table objects
 *		(nothing when rcc is RCC_NONE).
 */
List *
ApiAddTableUnits(List *acc, const char *table, double units)
{
	ListCell   *lc;
	ApiTableUnits *tu;

	foreach(lc, acc)
	{
		tu = (ApiTableUnits *) lfirst(lc);
		if (strcmp(tu->table, table) == 0)
		{
			tu->units += units;
			return acc;
		}
	}
	tu = palloc(sizeof(ApiTableUnits));
	tu->table = pstrdup(table);
	tu->units = units;
	return lappend(acc, tu);
}

void
ApiPushTableCapacities(JsonbParseState **state, List *acc, int rcc)
{
	ListCell   *lc;

	if (rcc == RCC_NONE)
		return;
	ApiPushKey(state, "ConsumedCapacity");
	pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
	foreach(lc, acc)
	{
		ApiTableUnits *tu = (ApiTableUnits *) lfirst(lc);

		pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(state, "TableName");
		ApiPushString(state, tu->table);
		ApiPushKey(state, "CapacityUnits");
		ApiPushNumeric(state, tu->units, 1);
		if (rcc == RCC_INDEXES)
		{
			ApiPushKey(state, "Table");
			pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
			ApiPushKey(state, "CapacityUnits");
			ApiPushNumeric(state, tu->units, 1);
			pushJsonbValue(state, WJB_END_OBJECT, NULL);
		}
		push_vector_writes(state, tu->table);
		pushJsonbValue(state, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(state, WJB_END_ARRAY, NULL);
}

void
ApiPushConsumedCapacity(JsonbParseState **state, const char *table,
						double units, int rcc)
{
	if (rcc == RCC_NONE)
		return;
	ApiPushKey(state, "ConsumedCapacity");
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(state, "TableName");
	ApiPushString(state, table);
	ApiPushKey(state, "CapacityUnits");
	ApiPushNumeric(state, units, 1);
	if (rcc == RCC_INDEXES)
	{
		ApiPushKey(state, "Table");
		pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(state, "CapacityUnits");
		ApiPushNumeric(state, units, 1);
		pushJsonbValue(state, WJB_END_OBJECT, NULL);
	}
	push_vector_writes(state, table);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/*
 * ApiArrayOfObjects
 *		The members of an array of objects, each as its own Jsonb.
 */
List *
ApiArrayOfObjects(Jsonb *arr, const char *member)
{
	List	   *out = NIL;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (arr == NULL)
		return NIL;
	it = JsonbIteratorInit(&arr->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
			DynRaise(DYN_SERIALIZATION, "Unexpected value in %s; expected an object", member);
		out = lappend(out, JsonbValueToJsonb(&v));
	}
	return out;
}
