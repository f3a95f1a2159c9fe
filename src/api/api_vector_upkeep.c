/*-------------------------------------------------------------------------
 *
 * api_vector_upkeep.c
 *		Vector index upkeep, in C: the index rows of one written item, on
 *		the trigger path (item_table_vector_index, an AFTER ROW trigger)
 *		and on the direct write paths (ApiDirectUpkeep, which stands in for
 *		the trigger as it does for the GSI and stream triggers).
 *
 * For each vector index of the item table: the old key's row goes, and the
 * new item's row comes when the item holds a valid vector of the index's
 * dimensions (a list of that many numbers within a 32-bit float's range,
 * not the zero vector for COSINE).  An item without the attribute, or
 * with the zero vector for COSINE, is simply not in the index; a write of
 * an item whose attribute is not such a vector is refused
 * (ValidationException), while a build leaves such an item out, and so is
 * a write giving a search schema attribute another type than its
 * AttributeDefinitions gave.  A table's vector indexes are read from the
 * catalog once per backend (table_indexes: kept until a relcache
 * invalidation of the table); each index table has a kept
 * DELETE and a kept INSERT (their text names only the index
 * table, by its oid, and pgvector's type), run with the key, the HASH
 * value, the INLINE_FILTER values and the vector as real[] as parameters,
 * as the catalog owner, who owns every index table.  The row holds no copy
 * of the item: SearchVectors reads the items it finds from the item table
 * and projects them as the index does (api_vector_search.c), so a write
 * pays one small row (the key, the search schema's values, the vector).
 *
 * The INSERT puts the vector in the row's pending column, not in embedding
 * (the HNSW-indexed one): pgvector's HNSW index skips a NULL embedding, so
 * a write never pays the graph's insert.  SearchVectors reads the pending
 * rows exactly beside the graph; the background worker (or CALL
 * backfill_indexes) moves them into the graph, a batch per transaction
 * (ApiVectorDrainBatch).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "miscadmin.h"

#include "api.h"
#include "api_vector.h"
#include "catalog.h"
#include "direct_check.h"
#include "index_build.h"
#include "errors.h"
#include "gsi.h"
#include "table_def.h"
#include "worker_start.h"

PG_FUNCTION_INFO_V1(item_table_vector_index_trigger);
PG_FUNCTION_INFO_V1(item_table_vector_index_entry);
PG_FUNCTION_INFO_V1(item_table_vector_backfill_batch);
PG_FUNCTION_INFO_V1(item_table_vector_drain_batch);
PG_FUNCTION_INFO_V1(item_table_vector_pending);
PG_FUNCTION_INFO_V1(item_table_vector_build_graph);

typedef struct VectorUpkeepPlans
{
	Oid			index_relid;	/* hash key */
	SPIPlanPtr	del;
	SPIPlanPtr	ins;
} VectorUpkeepPlans;

static HTAB *upkeep_plans = NULL;
static void vector_sync(Oid relid, Oid only_index, Datum oldkey, Datum olditem, bool has_old,
						Datum newkey, Datum newitem, bool has_new, bool strict);
static SPIPlanPtr indexes_plan = NULL;
static SPIPlanPtr entry_plan = NULL;
static bool worker_asked = false;

/* the kept DELETE and INSERT of one index table (as the catalog owner) */
static VectorUpkeepPlans *
upkeep_plans_for(Oid index_relid)
{
	VectorUpkeepPlans *e;
	bool		found;
	bool		isnull;
	char	   *vtype;
	char	   *rel;
	Oid			deltypes[1];
	Oid			instypes[4];

	if (upkeep_plans == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(VectorUpkeepPlans);
		ctl.hcxt = TopMemoryContext;
		upkeep_plans = hash_create("item_table vector upkeep plans", 16, &ctl,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	e = hash_search(upkeep_plans, &index_relid, HASH_FIND, NULL);
	if (e != NULL)
		return e;

	if (SPI_execute("SELECT item_table.vector_type()", true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "item_table: could not look up pgvector's type");
	vtype = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	rel = ItemQualifiedName(index_relid);
	deltypes[0] = ItemKeyTypeOid();
	instypes[0] = ItemKeyTypeOid();
	instypes[1] = JSONBOID;
	instypes[2] = JSONBOID;
	instypes[3] = FLOAT4ARRAYOID;

	e = hash_search(upkeep_plans, &index_relid, HASH_ENTER, &found);
	e->del = e->ins = NULL;
	PG_TRY();
	{
		e->del = ItemPrepareKept(psprintf("DELETE FROM %s WHERE key OPERATOR(item_table.=) $1", rel),
								 1, deltypes, 0);
		e->ins = ItemPrepareKept(psprintf("INSERT INTO %s (key, part, filters, pending)"
										  " VALUES ($1, $2, $3, $4::%s)", rel, vtype),
								 4, instypes, 0);
	}
	PG_CATCH();
	{
		if (e->del != NULL)
			SPI_freeplan(e->del);
		hash_search(upkeep_plans, &index_relid, HASH_REMOVE, NULL);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return e;
}

/* the member name of the object item, or NULL */
static JsonbValue *
item_member(Jsonb *item, const char *name)
{
	if (name == NULL || !JB_ROOT_IS_OBJECT(item))
		return NULL;
	return getKeyJsonValueFromContainer(&item->root, name, strlen(name), NULL);
}

static void
push_member(JsonbParseState **state, const char *name, JsonbValue *v)
{
	JsonbValue	k;

	k.type = jbvString;
	k.val.string.val = unconstify(char *, name);
	k.val.string.len = strlen(name);
	pushJsonbValue(state, WJB_KEY, &k);
	pushJsonbValue(state, WJB_VALUE, v);
}

/* the members of item named in names (NULL entries skipped), as an object */
static Jsonb *
item_subset(Jsonb *item, List *names)
{
	JsonbParseState *state = NULL;
	ListCell   *lc;
	List	   *done = NIL;

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	foreach(lc, names)
	{
		char	   *n = (char *) lfirst(lc);
		JsonbValue *v;
		ListCell   *d;
		bool		dup = false;

		if (n == NULL)
			continue;
		foreach(d, done)
			if (strcmp((char *) lfirst(d), n) == 0)
				dup = true;
		if (dup || (v = item_member(item, n)) == NULL)
			continue;
		done = lappend(done, n);
		push_member(&state, n, v);
	}
	return JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL));
}

/* the names in a text[] datum */
static List *
text_array_list(Datum d, bool isnull)
{
	List	   *out = NIL;
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	if (isnull)
		return NIL;
	deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
		if (!nulls[i])
			out = lappend(out, TextDatumGetCString(elems[i]));
	return out;
}

/*
 * ApiVectorElement
 *		A DynamoDB number as a float4 element of a vector: a magnitude below
 * float4's smallest normal is 0, one beyond float4's range (or a malformed
 * number) is not a vector element (false).
 */
bool
ApiVectorElement(const char *s, float4 *out)
{
	const char *p = s;
	bool		digits = false;
	double		d;

	if (*p == '-' || *p == '+')
		p++;
	while (isdigit((unsigned char) *p))
		p++, digits = true;
	if (*p == '.')
	{
		p++;
		while (isdigit((unsigned char) *p))
			p++, digits = true;
	}
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E')
	{
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!isdigit((unsigned char) *p))
			return false;
		while (isdigit((unsigned char) *p))
			p++;
	}
	if (*p != '\0')
		return false;

	/*
	 * One parse as a float4 decides almost every number: a magnitude
	 * between 1e-36 and 1e38 as a float4 is one between 1e-37 and 3.4e38
	 * as a double (the rounding is far smaller than the margins), so it is
	 * the element.  Only the rest is parsed again as a double, to apply
	 * the limits exactly.
	 */
	{
		float4		f = strtof(s, NULL);

		if (fabsf(f) >= 1e-36f && fabsf(f) <= 1e38f)
		{
			*out = f;
			return true;
		}
	}
	d = strtod(s, NULL);
	if (fabs(d) > 3.4e38)
		return false;
	*out = fabs(d) < 1e-37 ? 0.0f : strtof(s, NULL);
	return true;
}

/*
 * The common case of ApiVectorElement without strtof (a few hundred
 * instructions a number in glibc, most of a write's parse): a number of at
 * most 15 significant digits and a decimal exponent within 22 is
 * m * 10^e with m and 10^e exact doubles, so the product or quotient is
 * the correctly rounded double; its rounding to a float is the correctly
 * rounded float unless the double lies within an ulp of a float midpoint,
 * where (as for any other number) false sends the caller to the full
 * parse.  s is len bytes, not terminated.
 */
static bool
vector_element_fast(const char *s, int len, float4 *out)
{
	static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
		1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	const char *p = s;
	const char *end = s + len;
	bool		neg = false;
	bool		any = false;
	uint64		m = 0;
	int			ndigits = 0;
	int			scale = 0;
	double		d;
	float4		f;
	double		lo;
	double		hi;
	double		tol;

	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	for (; p < end && isdigit((unsigned char) *p); p++, any = true)
	{
		if (m == 0 && *p == '0')
			continue;
		if (++ndigits > 15)
			return false;
		m = m * 10 + (*p - '0');
	}
	if (p < end && *p == '.')
	{
		for (p++; p < end && isdigit((unsigned char) *p); p++, any = true)
		{
			scale--;
			if (m == 0 && *p == '0')
				continue;
			if (++ndigits > 15)
				return false;
			m = m * 10 + (*p - '0');
		}
	}
	if (!any)
		return false;
	if (p < end && (*p == 'e' || *p == 'E'))
	{
		bool		eneg = false;
		int			e = 0;

		p++;
		if (p < end && (*p == '-' || *p == '+'))
			eneg = *p++ == '-';
		if (p == end || !isdigit((unsigned char) *p))
			return false;
		for (; p < end && isdigit((unsigned char) *p); p++)
		{
			if (e > 1000)
				return false;
			e = e * 10 + (*p - '0');
		}
		scale += eneg ? -e : e;
	}
	if (p != end)
		return false;
	if (m == 0)
	{
		*out = 0.0f;
		return true;
	}
	if (scale < -22 || scale > 22)
		return false;
	d = scale < 0 ? (double) m / pow10[-scale] : (double) m * pow10[scale];
	f = (float4) d;
	if (!(f >= 1e-36f && f <= 1e38f))
		return false;
	/* f is a positive normal float: its neighbours are its bits -1 and +1 */
	{
		uint32		bits;
		float4		down;
		float4		up;

		memcpy(&bits, &f, sizeof(bits));
		bits--;
		memcpy(&down, &bits, sizeof(bits));
		bits += 2;
		memcpy(&up, &bits, sizeof(bits));
		lo = ((double) f + (double) down) / 2;
		hi = ((double) f + (double) up) / 2;
	}
	tol = d * 4.5e-16;
	if (fabs(d - lo) <= tol || fabs(d - hi) <= tol)
		return false;
	*out = neg ? -f : f;
	return true;
}

/*
 * The vector of an attribute value, as a real[] of dims elements, or
 * (Datum) 0 when it is not in the index: absent, the zero vector for
 * cosine, or not a vector of the index (*invalid set: a list of dims
 * numbers within a 32-bit float's range is what a write must give).
 */
static Datum
item_vector(JsonbValue *attr, int dims, bool cosine, bool *invalid)
{
	JsonbValue *list;
	JsonbContainer *c;
	Datum	   *elems;
	bool		nonzero = false;

	*invalid = false;
	if (attr == NULL)
		return (Datum) 0;
	*invalid = true;
	if (attr->type != jbvBinary || !JsonContainerIsObject(attr->val.binary.data))
		return (Datum) 0;
	list = getKeyJsonValueFromContainer(attr->val.binary.data, "L", 1, NULL);
	if (list == NULL || list->type != jbvBinary || !JsonContainerIsArray(list->val.binary.data))
		return (Datum) 0;
	c = list->val.binary.data;
	if ((int) JsonContainerSize(c) != dims)
		return (Datum) 0;
	elems = palloc(sizeof(Datum) * dims);
	for (int i = 0; i < dims; i++)
	{
		JsonbValue *el = getIthJsonbValueFromContainer(c, i);
		JsonbValue *n;
		char	   *s;
		float4		f;

		if (el == NULL || el->type != jbvBinary || !JsonContainerIsObject(el->val.binary.data))
			return (Datum) 0;
		n = getKeyJsonValueFromContainer(el->val.binary.data, "N", 1, NULL);
		if (n == NULL || n->type != jbvString)
			return (Datum) 0;
		if (!vector_element_fast(n->val.string.val, n->val.string.len, &f))
		{
			s = pnstrdup(n->val.string.val, n->val.string.len);
			if (!ApiVectorElement(s, &f))
				return (Datum) 0;
		}
		nonzero |= f != 0.0f;
		elems[i] = Float4GetDatum(f);
	}
	*invalid = false;
	if (cosine && !nonzero)
		return (Datum) 0;
	return PointerGetDatum(construct_array(elems, dims, FLOAT4OID, sizeof(float4), true, TYPALIGN_INT));
}

/*
 * ApiVectorProject
 *		item as a vector index projects it: all of it (ProjectionType ALL),
 *		or its table keys, the search schema's attributes (hash_attribute,
 *		filters) and, for INCLUDE, the non-key attributes (nonkey).
 *		SearchVectors projects the items it reads from the item table with
 *		it; vector_index_entry() shows it.
 */
Jsonb *
ApiVectorProject(Jsonb *item, const char *projection_type, const char *hash_key,
				 const char *range_key, const char *hash_attribute, List *filters, List *nonkey)
{
	List	   *keep;

	if (strcmp(projection_type, "ALL") == 0)
		return item;
	keep = list_make3(unconstify(char *, hash_key), unconstify(char *, range_key),
					  unconstify(char *, hash_attribute));
	keep = list_concat(keep, filters);
	keep = list_concat(keep, nonkey);
	return item_subset(item, keep);
}

/*
 * One vector index as the upkeep uses it: the catalog row (the columns of
 * VECTOR_INDEX_COLUMNS) read once into C values.
 */
typedef struct VectorIndexInfo
{
	Oid			index_relid;
	char	   *attr;			/* the vector attribute */
	int			dims;
	bool		cosine;
	char	   *hash;			/* the HASH attribute, or NULL */
	List	   *filters;		/* INLINE_FILTER attributes (char *) */
	char	   *projection_type;
	List	   *nonkey;
	char	   *hash_key;		/* the table's key attributes */
	char	   *range_key;
	char	   *name;			/* the index's */
	char	   *table;			/* the table's DynamoDB name */
	int			ntypes;			/* search schema attributes with a type */
	char	  **type_names;
	char	  **types;
} VectorIndexInfo;

#define VECTOR_INDEX_COLUMNS \
	"SELECT v.relid::pg_catalog.oid, v.attribute_name, v.dimensions, v.distance_function," \
	" v.hash_attribute, v.filter_attributes, v.projection_type, v.non_key_attributes," \
	" t.hash_key, t.range_key, v.index_name, v.attribute_types, v.table_name" \
	" FROM item_table.vector_indexes v JOIN item_table.tables t USING (table_name)"

/* the catalog tuple tup as a VectorIndexInfo, in the current memory context */
static void
info_from_tuple(HeapTuple tup, TupleDesc desc, VectorIndexInfo *vi)
{
	bool		isnull;
	Datum		d;

	vi->index_relid = DatumGetObjectId(SPI_getbinval(tup, desc, 1, &isnull));
	vi->attr = SPI_getvalue(tup, desc, 2);
	vi->dims = DatumGetInt32(SPI_getbinval(tup, desc, 3, &isnull));
	vi->cosine = strcmp(SPI_getvalue(tup, desc, 4), "COSINE") == 0;
	vi->hash = SPI_getvalue(tup, desc, 5);
	d = SPI_getbinval(tup, desc, 6, &isnull);
	vi->filters = text_array_list(d, isnull);
	vi->projection_type = SPI_getvalue(tup, desc, 7);
	d = SPI_getbinval(tup, desc, 8, &isnull);
	vi->nonkey = text_array_list(d, isnull);
	vi->hash_key = SPI_getvalue(tup, desc, 9);
	vi->range_key = SPI_getvalue(tup, desc, 10);
	vi->name = SPI_getvalue(tup, desc, 11);
	vi->table = SPI_getvalue(tup, desc, 13);
	vi->ntypes = 0;
	vi->type_names = vi->types = NULL;
	d = SPI_getbinval(tup, desc, 12, &isnull);
	if (!isnull)
	{
		Jsonb	   *types = DatumGetJsonbPCopy(d);
		JsonbIterator *it;
		JsonbValue	k;
		JsonbValue	v;
		JsonbIteratorToken tok;
		int			n = JB_ROOT_IS_OBJECT(types) ? JB_ROOT_COUNT(types) : 0;

		vi->type_names = palloc0(sizeof(char *) * (n + 1));
		vi->types = palloc0(sizeof(char *) * (n + 1));
		it = JsonbIteratorInit(&types->root);
		while (n > 0 && (tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
		{
			if (tok != WJB_KEY || vi->ntypes >= n)
				continue;
			if (JsonbIteratorNext(&it, &v, true) != WJB_VALUE || v.type != jbvString)
				continue;
			vi->type_names[vi->ntypes] = pnstrdup(k.val.string.val, k.val.string.len);
			vi->types[vi->ntypes] = pnstrdup(v.val.string.val, v.val.string.len);
			vi->ntypes++;
		}
	}
}

/*
 * The vector indexes of each item table, read from the catalog once per
 * backend and kept until a relcache invalidation of the item table or of
 * one of its index tables: api_vector.c sends one for the item table
 * whenever it adds or drops a vector index (CreateTable, UpdateTable,
 * restores), DeleteTable drops the item table.  A writer holds its lock
 * on the item table, whose taking processes invalidations, before the
 * upkeep runs, and UpdateTable's change of the indexes waits for the
 * table's writers (and they for it), so the next write after its commit
 * reads the catalog again.  An entry read again leaves its old version to
 * the end of the transaction (a caller may still hold it).
 */
typedef struct VectorTableCache
{
	Oid			relid;			/* hash key: the item table */
	bool		valid;
	int			n;
	VectorIndexInfo *indexes;
	MemoryContext cxt;
} VectorTableCache;

static HTAB *table_cache = NULL;
/* relcache invalidations seen, to notice one that arrives during a read */
static uint64 table_cache_invals = 0;

static void
table_cache_inval(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	VectorTableCache *e;

	table_cache_invals++;
	hash_seq_init(&status, table_cache);
	while ((e = hash_seq_search(&status)) != NULL)
	{
		if (relid == InvalidOid || e->relid == relid)
			e->valid = false;
		for (int i = 0; e->valid && i < e->n; i++)
			if (e->indexes[i].index_relid == relid)
				e->valid = false;
	}
}

/* the vector indexes of the item table relid; SPI connected, as the catalog owner */
static VectorTableCache *
table_indexes(Oid relid)
{
	VectorTableCache *e;
	bool		found;
	Oid			argtypes[1] = {OIDOID};
	Datum		arg[1];
	MemoryContext cxt;
	MemoryContext old;
	VectorIndexInfo *indexes;
	uint64		n;
	uint64		invals;

	if (table_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(VectorTableCache);
		ctl.hcxt = CacheMemoryContext;
		table_cache = hash_create("item_table vector indexes", 16, &ctl,
								  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		CacheRegisterRelcacheCallback(table_cache_inval, (Datum) 0);
	}
	e = hash_search(table_cache, &relid, HASH_ENTER, &found);
	if (!found)
	{
		e->valid = false;
		e->n = 0;
		e->indexes = NULL;
		e->cxt = NULL;
	}
	if (e->valid)
		return e;

	if (indexes_plan == NULL)
		indexes_plan = ItemPrepareKept(VECTOR_INDEX_COLUMNS
									   " WHERE t.relid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
									   1, argtypes, 0);
	arg[0] = ObjectIdGetDatum(relid);
	invals = table_cache_invals;
	if (SPI_execute_plan(indexes_plan, arg, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "item_table: could not read the vector indexes of table %u", relid);
	n = SPI_processed;
	cxt = AllocSetContextCreate(CacheMemoryContext, "item_table vector indexes of a table",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	indexes = palloc0(sizeof(VectorIndexInfo) * (n + 1));
	for (uint64 i = 0; i < n; i++)
		info_from_tuple(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, &indexes[i]);
	MemoryContextSwitchTo(old);
	SPI_freetuptable(SPI_tuptable);
	/* the old version lives until the transaction ends */
	if (e->cxt != NULL)
		MemoryContextSetParent(e->cxt, TopTransactionContext);
	e->cxt = cxt;
	e->indexes = indexes;
	e->n = (int) n;
	/* an invalidation that came during the read: read again next time */
	e->valid = invals == table_cache_invals;
	return e;
}

/*
 * The index row of item for the vector index vi: false when the item is
 * not in the index; else part (or (Datum) 0 for none), filters and the
 * vector (real[]), and, when projected is not NULL, the item as the index
 * projects it (what SearchVectors returns of it; the row does not hold it).
 */
static bool
vector_entry(const VectorIndexInfo *vi, Jsonb *item, Datum *part, Datum *filters,
			 Datum *vec, Datum *projected, bool strict)
{
	JsonbValue *pv;
	bool		invalid;

	*vec = item_vector(item_member(item, vi->attr), vi->dims, vi->cosine, &invalid);
	if (invalid && strict)
		DynValidation("One or more parameter values were invalid: The vector attribute %s must be a list of %d numbers that fit a 32-bit float. IndexName: %s",
					  vi->attr, vi->dims, vi->name);
	if (*vec == (Datum) 0)
		return false;
	pv = item_member(item, vi->hash);
	*part = pv != NULL ? JsonbPGetDatum(JsonbValueToJsonb(pv)) : (Datum) 0;
	*filters = JsonbPGetDatum(item_subset(item, vi->filters));
	if (projected != NULL)
		*projected = JsonbPGetDatum(ApiVectorProject(item, vi->projection_type, vi->hash_key,
													 vi->range_key, vi->hash,
													 list_copy(vi->filters),
													 list_copy(vi->nonkey)));
	return true;
}

/*
 * ApiVectorSync
 *		The vector index rows of one item of the item table relid after a
 *		write: oldkey's rows go (has_old), newitem's come (has_new).  A
 *		new item whose vector attribute is there but is not a vector of an
 *		index (a list of its dimensions' count of numbers within a 32-bit
 *		float's range) is refused with ValidationException, as DynamoDB
 *		refuses the write.  SPI connected.
 */
void
ApiVectorSync(Oid relid, Datum oldkey, Datum olditem, bool has_old, Datum newkey, Datum newitem,
			  bool has_new)
{
	vector_sync(relid, InvalidOid, oldkey, olditem, has_old, newkey, newitem, has_new, true);
}

/* the same value of member name in both items, or absent from both? */
static bool
member_unchanged(Jsonb *a, Jsonb *b, const char *name)
{
	JsonbValue *va;
	JsonbValue *vb;
	Jsonb	   *ja;
	Jsonb	   *jb;

	if (name == NULL)
		return true;
	va = item_member(a, name);
	vb = item_member(b, name);
	if (va == NULL || vb == NULL)
		return va == vb;
	ja = JsonbValueToJsonb(va);
	jb = JsonbValueToJsonb(vb);
	return VARSIZE(ja) == VARSIZE(jb) && memcmp(ja, jb, VARSIZE(ja)) == 0;
}

/*
 * Would the index row of the vector index vi be the same for olditem and
 * newitem: the vector attribute, the HASH attribute and every
 * INLINE_FILTER attribute the same (byte for byte: a number written
 * differently counts as a change)?  The row holds nothing else.
 */
static bool
entry_unchanged(const VectorIndexInfo *vi, Jsonb *olditem, Jsonb *newitem)
{
	ListCell   *lc;

	if (!member_unchanged(olditem, newitem, vi->attr) ||
		!member_unchanged(olditem, newitem, vi->hash))
		return false;
	foreach(lc, vi->filters)
		if (!member_unchanged(olditem, newitem, (char *) lfirst(lc)))
			return false;
	return true;
}

/*
 * Is the attribute value v absent or of type?  Else *actual is its type
 * ("S", "N", ...).
 */
static bool
value_type_is(JsonbValue *v, const char *type, const char **actual)
{
	JsonbIterator *it;
	JsonbValue	k;

	*actual = NULL;
	if (v == NULL || v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		return true;
	it = JsonbIteratorInit(v->val.binary.data);
	if (JsonbIteratorNext(&it, &k, true) != WJB_BEGIN_OBJECT ||
		JsonbIteratorNext(&it, &k, true) != WJB_KEY)
		return true;
	if ((int) strlen(type) == k.val.string.len && memcmp(type, k.val.string.val, k.val.string.len) == 0)
		return true;
	*actual = pnstrdup(k.val.string.val, k.val.string.len);
	return false;
}

/*
 * A write's search schema attributes against the types the index's
 * AttributeDefinitions gave them: one of another type is refused as
 * DynamoDB refuses a GSI key of another type (an absent one is not: the
 * item is then in no partition of the index).  With the old item, only
 * the attributes the write changed are checked.
 */
static void
check_search_types(const VectorIndexInfo *vi, Jsonb *item, Jsonb *old)
{
	for (int i = 0; i < vi->ntypes; i++)
	{
		const char *actual;

		if (value_type_is(item_member(item, vi->type_names[i]), vi->types[i], &actual))
			continue;
		if (old != NULL && member_unchanged(old, item, vi->type_names[i]))
			continue;
		GsiTypeMismatch(vi->type_names[i], vi->types[i], actual, vi->name);
	}
}

/*
 * A write changed the row of the vector index vi: its ConsumedCapacity
 * reports VectorWriteRequestBytes, 4 bytes (a 32-bit float) per dimension,
 * whether the write put a vector in, replaced it or took it out.
 */
static void
note_vector_write(const VectorIndexInfo *vi)
{
	ApiVectorWriteNote(vi->table, vi->name, (int64) vi->dims * 4);
}

/*
 * ApiVectorSync's work, for every vector index of relid or only one;
 * strict: a new item whose vector attribute is not a vector of the index is
 * refused (a write), else it is left out of the index (a build).  With the
 * old item (olditem not 0) and the same key, an index whose row would not
 * change is left alone: an update of other attributes neither rewrites the
 * row nor sends its vector through the graph again.
 */
static void
vector_sync(Oid relid, Oid only_index, Datum oldkey, Datum olditem, bool has_old, Datum newkey,
			Datum newitem, bool has_new, bool strict)
{
	VectorIndexInfo *indexes;
	int			nindexes;
	Jsonb	   *item = has_new ? DatumGetJsonbP(newitem) : NULL;
	Jsonb	   *old = NULL;
	ItemRoleSwitch sw;

	if (has_old && has_new && olditem != (Datum) 0 &&
		datumIsEqual(oldkey, newkey, false, -1))
		old = DatumGetJsonbP(olditem);

	ItemAsCatalogOwnerBegin(&sw);
	{
		VectorTableCache *tc = table_indexes(relid);

		/* this version stays until the transaction ends, even if replaced */
		indexes = tc->indexes;
		nindexes = tc->n;
	}
	for (int i = 0; i < nindexes; i++)
	{
		const VectorIndexInfo *vi = &indexes[i];
		VectorUpkeepPlans *plans;
		bool		removed;
		Datum		v[4];
		char		nulls[4] = {' ', ' ', ' ', ' '};

		if (OidIsValid(only_index) && vi->index_relid != only_index)
			continue;
		if (strict && item != NULL)
			check_search_types(vi, item, old);
		if (old != NULL && entry_unchanged(vi, old, item))
		{
			/* the row stays; a write still has its vector checked */
			if (strict)
				(void) vector_entry(vi, item, &v[1], &v[2], &v[3], NULL, true);
			continue;
		}
		plans = upkeep_plans_for(vi->index_relid);
		removed = false;
		if (has_old)
		{
			Datum		k[1];

			k[0] = oldkey;
			if (SPI_execute_plan(plans->del, k, NULL, false, 0) != SPI_OK_DELETE)
				elog(ERROR, "item_table: could not delete from a vector index");
			removed = SPI_processed > 0;
		}
		if (!has_new || !vector_entry(vi, item, &v[1], &v[2], &v[3], NULL, strict))
		{
			/* a write that took the item (or its vector) out of the index */
			if (removed && strict)
				note_vector_write(vi);
			continue;
		}
		v[0] = newkey;
		if (v[1] == (Datum) 0)
			nulls[1] = 'n';
		if (SPI_execute_plan(plans->ins, v, nulls, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "item_table: could not insert into a vector index");
		if (strict)
			note_vector_write(vi);
		/*
		 * the vector waits in pending for the background worker: make sure
		 * this database has one (asked once per session; it comes back
		 * every worker_naptime while vector indexes exist)
		 */
		if (!worker_asked)
		{
			ItemWorkerRequest();
			worker_asked = true;
		}
	}
	ItemAsRoleEnd(&sw);
}

/*
 * The index table of the vector index (table, index), InvalidOid when there
 * is no such index; SPI connected, as the catalog owner.
 */
static Oid
vector_index_table(const char *table, const char *index)
{
	Oid			argtypes[2] = {TEXTOID, TEXTOID};
	Datum		args[2];
	Oid			relid;
	bool		isnull;
	int			rc;

	args[0] = CStringGetTextDatum(table);
	args[1] = CStringGetTextDatum(index);
	rc = SPI_execute_with_args("SELECT relid::pg_catalog.oid FROM item_table.vector_indexes"
							   " WHERE table_name OPERATOR(pg_catalog.=) $1"
							   " AND index_name OPERATOR(pg_catalog.=) $2",
							   2, argtypes, args, NULL, true, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "vector index catalog read failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return InvalidOid;
	relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_freetuptable(SPI_tuptable);
	return relid;
}

/*
 * ApiVectorDrainBatch
 *		Move up to batch pending vectors of the vector index (table, index)
 *		into its HNSW graph (embedding = pending, pending = NULL), taking
 *		the rows FOR UPDATE SKIP LOCKED so that writes in progress are not
 *		waited for (their rows are taken by a later batch).  Returns the
 *		rows moved, -1 when there is no such index.  SPI connected, in a
 *		transaction the caller commits (one batch per transaction keeps the
 *		graph's inserts of a batch together and a crash loses at most the
 *		batch in progress, which stays pending).
 */
int64
ApiVectorDrainBatch(const char *table, const char *index, int batch)
{
	Oid			index_relid;
	int			rc;
	char	   *rel;
	int64		n;
	ItemRoleSwitch sw;

	ItemAsCatalogOwnerBegin(&sw);
	index_relid = vector_index_table(table, index);
	if (!OidIsValid(index_relid))
	{
		ItemAsRoleEnd(&sw);
		return -1;
	}
	rel = ItemQualifiedName(index_relid);
	CHECK_FOR_INTERRUPTS();
	rc = SPI_execute_with_args(psprintf("UPDATE %s r SET embedding = r.pending, pending = NULL"
										" FROM (SELECT key FROM %s WHERE pending IS NOT NULL"
										" LIMIT $1 FOR UPDATE SKIP LOCKED) b"
										" WHERE r.key OPERATOR(item_table.=) b.key", rel, rel),
							   1, (Oid[]) {INT4OID}, (Datum[]) {Int32GetDatum(batch)}, NULL, false, 0);
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "vector index: moving pending vectors failed: %s", SPI_result_code_string(rc));
	n = (int64) SPI_processed;
	ItemAsRoleEnd(&sw);
	return n;
}

/*
 * ApiVectorBuildGraph
 *		Move every pending vector of the vector index (table, index) into
 *		its HNSW graph at once, by building the graph again over all the
 *		index table's vectors: the HNSW index dropped, the pending vectors
 *		moved into embedding (no graph to insert into meanwhile), the index
 *		made again from its own definition (pg_get_indexdef: the same
 *		operator class, m and ef_construction) by CREATE INDEX, which builds
 *		the graph in memory when maintenance_work_mem allows, and in
 *		parallel when max_parallel_maintenance_workers does: several times
 *		faster than the worker's inserts, one per vector, when many are
 *		pending (a bulk load, a restore).  The index table is locked
 *		against writes (and searches) until the transaction ends.  With
 *		when_cheaper, nothing is done (0) unless at least
 *		VECTOR_BULK_MIN vectors are pending and they outnumber the graph's.
 *		Returns the vectors moved, -1 when there is no such index.  SPI
 *		connected; the caller checked the right to do it.
 */
#define VECTOR_BULK_MIN 1000

int64
ApiVectorBuildGraph(const char *table, const char *index, bool when_cheaper)
{
	Oid			index_relid;
	bool		isnull;
	char	   *rel;
	char	   *def;
	char	   *hnsw;
	int64		n;
	ItemRoleSwitch sw;

	ItemAsCatalogOwnerBegin(&sw);
	index_relid = vector_index_table(table, index);
	if (!OidIsValid(index_relid))
	{
		ItemAsRoleEnd(&sw);
		return -1;
	}
	rel = ItemQualifiedName(index_relid);
	/* writers of the index table wait from here on: the counts hold */
	LockRelationOid(index_relid, ShareRowExclusiveLock);
	if (when_cheaper)
	{
		int64		pending;
		int64		graph;

		if (SPI_execute(psprintf("SELECT pg_catalog.count(*) FROM %s WHERE pending IS NOT NULL", rel),
						true, 1) != SPI_OK_SELECT)
			elog(ERROR, "item_table: could not count the pending vectors");
		pending = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		if (pending < VECTOR_BULK_MIN)
		{
			ItemAsRoleEnd(&sw);
			return 0;
		}
		if (SPI_execute(psprintf("SELECT pg_catalog.count(*) FROM %s WHERE embedding IS NOT NULL", rel),
						true, 1) != SPI_OK_SELECT)
			elog(ERROR, "item_table: could not count the vectors of the graph");
		graph = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		if (pending <= graph)
		{
			ItemAsRoleEnd(&sw);
			return 0;
		}
	}
	/* the HNSW index's definition, as the catalog has it */
	if (SPI_execute_with_args("SELECT pg_catalog.pg_get_indexdef(i.indexrelid),"
							  " i.indexrelid::pg_catalog.regclass::pg_catalog.text"
							  " FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) i.indexrelid"
							  " JOIN pg_catalog.pg_am a ON a.oid OPERATOR(pg_catalog.=) c.relam"
							  " WHERE i.indrelid OPERATOR(pg_catalog.=) $1 AND a.amname OPERATOR(pg_catalog.=) 'hnsw'",
							  1, (Oid[]) {OIDOID}, (Datum[]) {ObjectIdGetDatum(index_relid)},
							  NULL, true, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "item_table: the HNSW index of vector index %s was not found", index);
	def = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	hnsw = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	if (SPI_execute(psprintf("DROP INDEX %s", hnsw), false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "item_table: could not drop the HNSW index of vector index %s", index);
	CHECK_FOR_INTERRUPTS();
	if (SPI_execute(psprintf("UPDATE %s SET embedding = pending, pending = NULL WHERE pending IS NOT NULL", rel),
					false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "item_table: could not move the pending vectors of vector index %s", index);
	n = (int64) SPI_processed;
	CHECK_FOR_INTERRUPTS();
	if (SPI_execute(def, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "item_table: could not build the HNSW index of vector index %s", index);
	ItemAsRoleEnd(&sw);
	return n;
}

/*
 * vector_build_graph(table_name text, index_name text) RETURNS bigint
 *		ApiVectorBuildGraph for the table's owner: every pending vector
 *		moved into the graph, which is built again by CREATE INDEX; the
 *		vectors moved.
 */
Datum
item_table_vector_build_graph(PG_FUNCTION_ARGS)
{
	char	   *table = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *index = text_to_cstring(PG_GETARG_TEXT_PP(1));
	bool		when_cheaper = PG_GETARG_BOOL(2);
	int64		n;

	SPI_connect();
	ItemCheckOwner(TableDefLookup(table)->relid);
	n = ApiVectorBuildGraph(table, index, when_cheaper);
	SPI_finish();
	PG_RETURN_INT64(Max(n, 0));
}

/*
 * vector_drain_batch(table_name text, index_name text, batch_size integer)
 *		RETURNS bigint
 *		One batch of ApiVectorDrainBatch, for the table's owner: the
 *		pending vectors moved into the graph.  CALL backfill_indexes runs
 *		it until none is left.
 */
Datum
item_table_vector_drain_batch(PG_FUNCTION_ARGS)
{
	char	   *table = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *index = text_to_cstring(PG_GETARG_TEXT_PP(1));
	int			batch = PG_GETARG_INT32(2);
	int64		n;

	if (batch < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_size must be positive")));
	SPI_connect();
	ItemCheckOwner(TableDefLookup(table)->relid);
	n = ApiVectorDrainBatch(table, index, batch);
	SPI_finish();
	PG_RETURN_INT64(Max(n, 0));
}

/*
 * ApiVectorTruncate
 *		Empty the vector indexes of the item table relid (after its
 *		TRUNCATE), as the catalog owner.  SPI connected.
 */
void
ApiVectorTruncate(Oid relid)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		arg[1];
	SPITupleTable *tt;
	uint64		n;
	ItemRoleSwitch sw;

	arg[0] = ObjectIdGetDatum(relid);
	ItemAsCatalogOwnerBegin(&sw);
	if (SPI_execute_with_args(VECTOR_INDEX_COLUMNS
							  " WHERE t.relid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
							  1, argtypes, arg, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "item_table: could not read the vector indexes of table %u", relid);
	tt = SPI_tuptable;
	n = SPI_processed;
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;
		Oid			index_relid = DatumGetObjectId(SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &isnull));

		if (SPI_execute(psprintf("TRUNCATE %s", ItemQualifiedName(index_relid)), false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "item_table: could not truncate a vector index");
	}
	ItemAsRoleEnd(&sw);
}

/*
 * vector_index_entry(table_name text, index_name text, item jsonb)
 *		RETURNS TABLE (part jsonb, filters jsonb, embedding real[], item jsonb)
 *		The row an item has (or would have) in a vector index: none when
 *		the item holds no valid vector for it.  verify() compares the index
 *		tables with it.
 */
Datum
item_table_vector_index_entry(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			argtypes[2] = {TEXTOID, TEXTOID};
	Datum		args[2];
	Jsonb	   *item = PG_GETARG_JSONB_P(2);
	MemoryContext callercxt = CurrentMemoryContext;

	InitMaterializedSRF(fcinfo, 0);
	if (entry_plan == NULL)
	{
		SPI_connect();
		entry_plan = ItemPrepareKept(VECTOR_INDEX_COLUMNS
									 " WHERE v.table_name = $1 AND v.index_name = $2", 2, argtypes, 0);
		SPI_finish();
	}
	args[0] = PG_GETARG_DATUM(0);
	args[1] = PG_GETARG_DATUM(1);
	SPI_connect();
	if (SPI_execute_plan(entry_plan, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "item_table: could not read the vector index catalog");
	if (SPI_processed == 1)
	{
		Datum		v[4];
		bool		nulls[4] = {false, false, false, false};

		VectorIndexInfo vi;

		info_from_tuple(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, &vi);
		if (vector_entry(&vi, item, &v[0], &v[1], &v[2], &v[3], false))
		{
			MemoryContext old = MemoryContextSwitchTo(callercxt);

			nulls[0] = v[0] == (Datum) 0;
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
			MemoryContextSwitchTo(old);
		}
	}
	SPI_finish();
	return (Datum) 0;
}

/*
 * ApiVectorDirectTrigger
 *		Is t the vector index trigger exactly as api_vector.c makes it, and
 *		would the executor fire it now?  Then a direct write may call
 *		ApiVectorSync in its place.
 */
bool
ApiVectorDirectTrigger(const Trigger *t)
{
	static Oid	vector_fn = InvalidOid;

	return ApiOwnRowTrigger(t, VECTOR_TRIGGER_NAME, "vector_index_trigger", &vector_fn);
}

/*
 * item_table_vector_index_trigger
 *		AFTER ROW trigger: the vector index rows of the written item.
 */
Datum
item_table_vector_index_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	Datum		oldkey = (Datum) 0;
	Datum		olditem = (Datum) 0;
	Datum		newkey = (Datum) 0;
	Datum		newitem = (Datum) 0;
	bool		has_old = false;
	bool		has_new = false;
	bool		isnull;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(td->tg_event))
		elog(ERROR, "vector_index_trigger: not fired as an AFTER trigger");
	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
	{
		SPI_connect();
		ApiVectorTruncate(RelationGetRelid(td->tg_relation));
		SPI_finish();
		return PointerGetDatum(NULL);
	}
	if (!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		elog(ERROR, "vector_index_trigger: not fired as an AFTER ROW trigger");
	desc = RelationGetDescr(td->tg_relation);
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event) || TRIGGER_FIRED_BY_DELETE(td->tg_event))
	{
		bool		oldnull;

		oldkey = heap_getattr(td->tg_trigtuple, 1, desc, &isnull);
		has_old = !isnull;
		olditem = heap_getattr(td->tg_trigtuple, 2, desc, &oldnull);
		if (oldnull)
			olditem = (Datum) 0;
	}
	if (TRIGGER_FIRED_BY_INSERT(td->tg_event) || TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		HeapTuple	newtup = TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? td->tg_newtuple : td->tg_trigtuple;
		bool		itemnull;

		newkey = heap_getattr(newtup, 1, desc, &isnull);
		newitem = heap_getattr(newtup, 2, desc, &itemnull);
		has_new = !isnull && !itemnull;
	}
	SPI_connect();
	ApiVectorSync(RelationGetRelid(td->tg_relation), oldkey, olditem, has_old, newkey, newitem, has_new);
	SPI_finish();
	return PointerGetDatum(NULL);
}

/*
 * ApiVectorBackfillBatch
 *		One batch of the build of a vector index UpdateTable created
 *		(status CREATING): up to batch items after the position the last
 *		batch committed (vector_indexes.backfill_after), in key order, each
 *		given its index row; the position and the count are written in the
 *		same transaction, and the batch that reads fewer items than asked
 *		makes the index ACTIVE.  Returns false when nothing is left (ACTIVE,
 *		or the index gone); *done receives the items read so far.  SPI
 *		connected, in a transaction the caller commits; the caller has
 *		checked that its user may do it.
 *
 * The build and the upkeep neither miss nor double an item: the upkeep
 * keeps the index rows of every write from the commit of UpdateTable on
 * (the row trigger exists, and the catalog row the upkeep reads, from
 * then), the batch reads its items FOR SHARE (a write of one of them waits
 * for the batch's commit, a batch waits for a write in progress and reads
 * what it wrote) and replaces the row of each (DELETE, then INSERT), so an
 * item the upkeep already indexed is indexed once.  Locks come in the
 * order of IndexBackfillBatch (base table, index table, catalog row), the
 * catalog row FOR UPDATE making two builds of one index take turns; a
 * Delete of the index waits for the batch in progress, and the next batch
 * finds nothing to do.  A crash loses the batch in progress only.
 */
bool
ApiVectorBackfillBatch(const char *table, const char *index, int batch, int64 *done)
{
	Oid			argtypes[4] = {TEXTOID, TEXTOID, INT8OID, InvalidOid};
	Datum		args[4];
	char		nulls[4] = {' ', ' ', ' ', ' '};
	Oid			base_relid;
	Oid			index_relid;
	Datum		after = (Datum) 0;
	Datum		last = (Datum) 0;
	int64		count;
	uint64		n;
	bool		isnull;
	bool		finished;
	int			rc;
	ItemRoleSwitch sw;
	SPITupleTable *tt;
	MemoryContext outer = CurrentMemoryContext;
	MemoryContext rowcxt;
	char	   *base;

	args[0] = CStringGetTextDatum(table);
	args[1] = CStringGetTextDatum(index);

	if (!IndexBuildClaim(INDEX_BUILD_VECTOR, args[0], args[1], &base_relid, &index_relid,
						 &after, &count))
		return false;

	/*
	 * The items, read as the table's owner without its forced row-level
	 * security (an index holds every item, whoever may read which), FOR
	 * SHARE: a concurrent write of these items waits for our commit.
	 */
	base = ItemQualifiedName(base_relid);
	ItemAsRoleBegin(&sw, ItemRelationOwner(base_relid), SECURITY_NOFORCE_RLS);
	if (after == (Datum) 0)
		rc = SPI_execute_with_args(psprintf("SELECT key, item FROM %s ORDER BY key LIMIT $1 FOR SHARE", base),
								   1, (Oid[]) {INT4OID}, (Datum[]) {Int32GetDatum(batch)}, NULL, false, 0);
	else
		rc = SPI_execute_with_args(psprintf("SELECT key, item FROM %s WHERE key OPERATOR(item_table.>) $1"
											" ORDER BY key LIMIT $2 FOR SHARE", base),
								   2, (Oid[]) {ItemKeyTypeOid(), INT4OID},
								   (Datum[]) {after, Int32GetDatum(batch)}, NULL, false, 0);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "vector index build: read failed: %s", SPI_result_code_string(rc));
	tt = SPI_tuptable;
	n = SPI_processed;
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "item_table vector build row",
								   ALLOCSET_DEFAULT_SIZES);
	for (uint64 r = 0; r < n; r++)
	{
		MemoryContext old = MemoryContextSwitchTo(rowcxt);
		Datum		key = SPI_getbinval(tt->vals[r], tt->tupdesc, 1, &isnull);
		Datum		item;
		bool		itemnull;

		CHECK_FOR_INTERRUPTS();
		item = SPI_getbinval(tt->vals[r], tt->tupdesc, 2, &itemnull);
		if (!isnull)
			vector_sync(base_relid, index_relid, key, (Datum) 0, true, key, item, !itemnull, false);
		if (r == n - 1 && !isnull)
		{
			/* the next batch starts after this key */
			MemoryContextSwitchTo(outer);
			last = PointerGetDatum(PG_DETOAST_DATUM_COPY(key));
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	SPI_freetuptable(tt);
	MemoryContextDelete(rowcxt);

	count += n;
	finished = n < (uint64) batch;
	args[2] = Int64GetDatum(count);
	argtypes[3] = ItemKeyTypeOid();
	args[3] = last != (Datum) 0 ? last : after;
	if (args[3] == (Datum) 0)
		nulls[3] = 'n';
	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args(finished ?
							   "UPDATE item_table.vector_indexes SET backfilled = $3, backfill_after = NULL, status = 'ACTIVE'"
							   " WHERE table_name OPERATOR(pg_catalog.=) $1 AND index_name OPERATOR(pg_catalog.=) $2" :
							   "UPDATE item_table.vector_indexes SET backfilled = $3, backfill_after = $4"
							   " WHERE table_name OPERATOR(pg_catalog.=) $1 AND index_name OPERATOR(pg_catalog.=) $2",
							   4, argtypes, args, nulls, false, 0);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "vector index catalog update failed: %s", SPI_result_code_string(rc));
	*done = count;
	return !finished;
}

/*
 * vector_backfill_batch(table_name text, index_name text, batch_size integer)
 *		RETURNS boolean
 *		One batch of the build of a vector index (ApiVectorBackfillBatch),
 *		for the table's owner: true while more is left to build.  CALL
 *		backfill_indexes runs it batch after batch.
 */
Datum
item_table_vector_backfill_batch(PG_FUNCTION_ARGS)
{
	char	   *table = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *index = text_to_cstring(PG_GETARG_TEXT_PP(1));
	int			batch = PG_GETARG_INT32(2);
	int64		done = 0;
	bool		more;

	if (batch < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_size must be positive")));
	SPI_connect();
	ItemCheckOwner(TableDefLookup(table)->relid);
	more = ApiVectorBackfillBatch(table, index, batch, &done);
	SPI_finish();
	PG_RETURN_BOOL(more);
}

/*
 * vector_pending(table_name text, index_name text) RETURNS bigint
 *		The vectors of a vector index still waiting in pending for the
 *		background worker (searched exactly, not yet in the HNSW graph), or
 *		NULL when there is no such index or the caller may not read the
 *		table.  background_work lists the indexes that have some.
 */
Datum
item_table_vector_pending(PG_FUNCTION_ARGS)
{
	Oid			argtypes[2] = {TEXTOID, TEXTOID};
	Datum		args[2];
	Oid			table_relid;
	Oid			index_relid;
	bool		isnull;
	int64		n;
	ItemRoleSwitch sw;

	args[0] = PG_GETARG_DATUM(0);
	args[1] = PG_GETARG_DATUM(1);
	SPI_connect();
	ItemAsCatalogOwnerBegin(&sw);
	if (SPI_execute_with_args("SELECT t.relid::pg_catalog.oid, v.relid::pg_catalog.oid"
							  " FROM item_table.vector_indexes v JOIN item_table.tables t USING (table_name)"
							  " WHERE v.table_name OPERATOR(pg_catalog.=) $1"
							  " AND v.index_name OPERATOR(pg_catalog.=) $2",
							  2, argtypes, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "item_table: could not read the vector index catalog");
	if (SPI_processed == 0)
	{
		ItemAsRoleEnd(&sw);
		SPI_finish();
		PG_RETURN_NULL();
	}
	table_relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	index_relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	ItemAsRoleEnd(&sw);
	if (pg_class_aclcheck(table_relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
	{
		SPI_finish();
		PG_RETURN_NULL();
	}
	ItemAsCatalogOwnerBegin(&sw);
	if (SPI_execute(psprintf("SELECT pg_catalog.count(*) FROM %s WHERE pending IS NOT NULL",
							 ItemQualifiedName(index_relid)), true, 1) != SPI_OK_SELECT)
		elog(ERROR, "item_table: could not count the pending vectors");
	n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	ItemAsRoleEnd(&sw);
	SPI_finish();
	PG_RETURN_INT64(n);
}
