/*-------------------------------------------------------------------------
 *
 * api_vector_search.c
 *		SearchVectors, in C: the request's checks, one prepared plan per
 *		vector index and search shape (kept for the session), the
 *		parameters bound, the results projected.
 *
 * A search is one statement on the index table:
 *
 *   SELECT key, d FROM (
 *     (SELECT key, embedding <op> $1 AS d FROM <index table>
 *       WHERE embedding IS NOT NULL [AND part = $2] [AND filters @> $3]
 *       ORDER BY embedding <op> $1 LIMIT $4)
 *     UNION ALL
 *     (SELECT key, pending <op> $1 AS d FROM <index table>
 *       WHERE pending IS NOT NULL [AND part = $2] [AND filters @> $3]
 *       ORDER BY 2 LIMIT $4)) s ORDER BY d + 0, key LIMIT $4
 *
 * the HNSW graph's TopK and the exact TopK of the vectors written since
 * the background worker last moved them into the graph (api_vector_upkeep.c),
 * merged; enable_seqscan is off for the search, so that the pending rows
 * are read through their partial index however few the planner expects.
 *
 * whose text names only what the catalog holds (the index table, found by
 * its oid, and pgvector's schema); the request's values are its parameters
 * ($1 the query vector as real[], cast to pgvector's type; $2 the HASH
 * value; $3 the INLINE_FILTER values; $4 TopK).  There are four shapes
 * (no condition, HASH, filters, both), so that a search without a
 * condition is pgvector's plain HNSW scan; each shape of each index is
 * prepared once per session (generic plan) and found in a hash table by
 * (index table oid, shape).  A plan's text names the index table, so an
 * index table dropped and created again (a new oid) gets a new plan, and
 * PostgreSQL's plan cache replans a kept plan when its relations change.
 *
 * The index rows hold no copy of the items (a write stays small): a second
 * statement, kept per index too, reads the items found from the item table
 * by their keys, in the search's snapshot,
 *
 *   SELECT u.n, b.item FROM unnest($1::item_key[]) WITH ORDINALITY u(k, n)
 *     JOIN <item table> b ON b.key = u.k ORDER BY u.n
 *
 * and each is projected as the index projects it (ApiVectorProject).
 *
 * The search runs as the catalog owner, who owns every index table, once
 * the caller's SELECT right on the item table is checked; the items are read
 * as the item table's owner without its forced row-level security, as an
 * index build reads them (an index holds every item, whoever may read
 * which).  hnsw.ef_search
 * (VECTOR_EF_SEARCH, or TopK or the session's own setting when larger) and, with a
 * condition, hnsw.iterative_scan = relaxed_order are set for the search
 * only, as a function's SET clause would.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "api.h"
#include "api_vector.h"
#include "attr_value.h"
#include "catalog.h"
#include "errors.h"
#include "expr.h"

PG_FUNCTION_INFO_V1(item_table_search_vectors);

/*
 * the HNSW candidate list of a search (hnsw.ef_search) unless TopK or the
 * session asks for more: with the graphs vector_create_indexes() builds
 * (m 24, ef_construction 128), recall@10 on 100,000 random 128-dimension
 * vectors is about 0.95 at 600 (docs/vectors.md, "Recall")
 */
#define VECTOR_EF_SEARCH 800

/* a search's shape: which conditions its statement has */
#define VSHAPE_PART		1
#define VSHAPE_FILTERS	2
/* not a search: the read of the items found, by key */
#define VSHAPE_ITEMS	4

typedef struct VectorPlanKey
{
	Oid			index_relid;
	int			shape;
} VectorPlanKey;

typedef struct VectorPlanEntry
{
	VectorPlanKey key;
	SPIPlanPtr	plan;
} VectorPlanEntry;

static HTAB *vector_plans = NULL;
static SPIPlanPtr catalog_plan = NULL;

/*
 * The response is built in a context of the session whose first block is
 * kept across calls: building it unpacks every result item into a parse
 * state, and memory fresh from the system for that (page faults) cost
 * more than the search itself.
 */
static MemoryContext result_cxt = NULL;
#define RESULT_CXT_KEEP (1024 * 1024)

/* what SearchVectors needs of one vector index */
typedef struct VectorIndexInfo
{
	Oid			index_relid;
	Oid			table_relid;
	int			dimensions;
	char	   *distance;		/* COSINE, EUCLIDEAN, DOT_PRODUCT */
	char	   *hash_attribute; /* or NULL */
	List	   *filter_attributes;	/* char * each */
	char	   *status;
	char	   *projection_type;	/* ALL, KEYS_ONLY, INCLUDE */
	List	   *non_key_attributes; /* char * each (INCLUDE) */
	char	   *hash_key;		/* the table's key attributes */
	char	   *range_key;		/* or NULL */
} VectorIndexInfo;

/* the names in a text[] datum */
static List *
text_list(Datum d)
{
	List	   *out = NIL;
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT,
					  &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
		if (!nulls[i])
			out = lappend(out, TextDatumGetCString(elems[i]));
	return out;
}

pg_noreturn static void
raise_problems(List *problems)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	appendStringInfo(&buf, "%d validation error%s detected: ", list_length(problems),
					 list_length(problems) == 1 ? "" : "s");
	foreach(lc, problems)
	{
		if (lc != list_head(problems))
			appendStringInfoString(&buf, "; ");
		appendStringInfoString(&buf, (char *) lfirst(lc));
	}
	DynValidation("%s", buf.data);
}

/* text of a JSON string value, or NULL for any other type */
static char *
json_string(JsonbValue *v)
{
	if (v == NULL || v->type != jbvString)
		return NULL;
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/* the JsonbValue of member name of the object held in a Jsonb value, or NULL */
static JsonbValue *
object_member(JsonbValue *obj, const char *name)
{
	if (obj == NULL || obj->type != jbvBinary ||
		!JsonContainerIsObject(obj->val.binary.data))
		return NULL;
	return getKeyJsonValueFromContainer(obj->val.binary.data, name, strlen(name), NULL);
}

/*
 * The vector index (table, index) as the catalog has it: false when the
 * table has no such index; *table_relid is InvalidOid when there is no such
 * table.
 */
static bool
read_vector_index(const char *table, const char *index, Oid *table_relid, VectorIndexInfo *vi)
{
	Oid			argtypes[2] = {TEXTOID, TEXTOID};
	Datum		values[2];
	TupleDesc	desc;
	HeapTuple	tup;
	bool		isnull;
	Datum		d;

	if (catalog_plan == NULL)
		catalog_plan = ItemPrepareKept(
			"SELECT t.relid::pg_catalog.oid, v.relid::pg_catalog.oid, v.dimensions, v.distance_function,"
			" v.hash_attribute, v.filter_attributes, v.status, v.projection_type, v.non_key_attributes,"
			" t.hash_key, t.range_key"
			" FROM item_table.tables t LEFT JOIN item_table.vector_indexes v"
			"   ON v.table_name = t.table_name AND v.index_name = $2"
			" WHERE t.table_name = $1", 2, argtypes, 0);
	values[0] = CStringGetTextDatum(table);
	values[1] = CStringGetTextDatum(index != NULL ? index : "");
	if (SPI_execute_plan(catalog_plan, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "item_table: could not read the vector index catalog");
	*table_relid = InvalidOid;
	if (SPI_processed != 1)
		return false;
	desc = SPI_tuptable->tupdesc;
	tup = SPI_tuptable->vals[0];
	*table_relid = DatumGetObjectId(SPI_getbinval(tup, desc, 1, &isnull));
	d = SPI_getbinval(tup, desc, 2, &isnull);
	if (isnull)
		return false;
	vi->index_relid = DatumGetObjectId(d);
	vi->table_relid = *table_relid;
	vi->dimensions = DatumGetInt32(SPI_getbinval(tup, desc, 3, &isnull));
	vi->distance = SPI_getvalue(tup, desc, 4);
	vi->hash_attribute = SPI_getvalue(tup, desc, 5);
	vi->status = SPI_getvalue(tup, desc, 7);
	d = SPI_getbinval(tup, desc, 6, &isnull);
	vi->filter_attributes = isnull ? NIL : text_list(d);
	vi->projection_type = SPI_getvalue(tup, desc, 8);
	d = SPI_getbinval(tup, desc, 9, &isnull);
	vi->non_key_attributes = isnull ? NIL : text_list(d);
	vi->hash_key = SPI_getvalue(tup, desc, 10);
	vi->range_key = SPI_getvalue(tup, desc, 11);
	return true;
}

/*
 * the kept read of the items a search found (shape VSHAPE_ITEMS), entered
 * under key in vector_plans
 */
static SPIPlanPtr
items_plan_prepare(VectorIndexInfo *vi, VectorPlanKey *key)
{
	VectorPlanEntry *e;
	bool		found;
	Oid			keyarray[1] = {get_array_type(ItemKeyTypeOid())};

	e = hash_search(vector_plans, key, HASH_ENTER, &found);
	e->plan = NULL;
	PG_TRY();
	{
		e->plan = ItemPrepareKept(psprintf("SELECT u.n, b.item"
										   " FROM pg_catalog.unnest($1) WITH ORDINALITY u(k, n)"
										   " JOIN %s b ON b.key OPERATOR(item_table.=) u.k ORDER BY u.n",
										   ItemQualifiedName(vi->table_relid)),
								  1, keyarray, CURSOR_OPT_GENERIC_PLAN);
	}
	PG_CATCH();
	{
		hash_search(vector_plans, key, HASH_REMOVE, NULL);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return e->plan;
}

/* the kept plan of one shape of a search on one index (as the catalog owner) */
static SPIPlanPtr
search_plan(VectorIndexInfo *vi, int shape)
{
	VectorPlanKey key;
	VectorPlanEntry *e;
	bool		found;
	char	   *vtype;
	char	   *nsp;
	const char *op;
	char	   *qexpr;
	char	   *dist;
	char	   *pdist;
	char	   *rel;
	const char *where;
	Oid			argtypes[4] = {FLOAT4ARRAYOID, JSONBOID, JSONBOID, INT8OID};
	bool		isnull;

	if (vector_plans == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(VectorPlanKey);
		ctl.entrysize = sizeof(VectorPlanEntry);
		ctl.hcxt = TopMemoryContext;
		vector_plans = hash_create("item_table vector search plans", 16, &ctl,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	memset(&key, 0, sizeof(key));
	key.index_relid = vi->index_relid;
	key.shape = shape;
	e = hash_search(vector_plans, &key, HASH_FIND, NULL);
	if (e != NULL)
		return e->plan;

	if (shape == VSHAPE_ITEMS)
		return items_plan_prepare(vi, &key);

	/* pgvector's type, schema-qualified (or the error saying what to install) */
	if (SPI_execute("SELECT item_table.vector_type()", true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "item_table: could not look up pgvector's type");
	vtype = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	nsp = pnstrdup(vtype, strchr(vtype, '.') - vtype);
	op = strcmp(vi->distance, "COSINE") == 0 ? "<=>" :
		strcmp(vi->distance, "EUCLIDEAN") == 0 ? "<->" : "<#>";
	qexpr = psprintf("$1::%s", vtype);
	dist = psprintf("embedding OPERATOR(%s.%s) %s", nsp, op, qexpr);
	pdist = psprintf("pending OPERATOR(%s.%s) %s", nsp, op, qexpr);
	where = shape == 0 ? "" :
		shape == VSHAPE_PART ? " AND part OPERATOR(pg_catalog.=) $2" :
		shape == VSHAPE_FILTERS ? " AND filters OPERATOR(pg_catalog.@>) $3" :
		" AND part OPERATOR(pg_catalog.=) $2 AND filters OPERATOR(pg_catalog.@>) $3";
	rel = ItemQualifiedName(vi->index_relid);

	e = hash_search(vector_plans, &key, HASH_ENTER, &found);
	e->plan = NULL;
	PG_TRY();
	{
		/*
		 * the graph's TopK (rows whose vector is in embedding) and the
		 * exact TopK of the rows still pending, merged: a row is in exactly
		 * one of the two (an updated row's version in the graph is not in
		 * the search's snapshot).  The outer sort key is an expression
		 * the planner does not take as presorted, so the rows are sorted
		 * again whatever order the HNSW scan gives (relaxed_order).
		 */
		e->plan = ItemPrepareKept(psprintf("SELECT s.key, s.d FROM ("
										   "(SELECT key, %s AS d FROM %s WHERE embedding IS NOT NULL%s"
										   " ORDER BY %s LIMIT $4)"
										   " UNION ALL "
										   "(SELECT key, %s AS d FROM %s WHERE pending IS NOT NULL%s"
										   " ORDER BY 2 LIMIT $4)"
										   ") s ORDER BY s.d OPERATOR(pg_catalog.+) 0::pg_catalog.float8, s.key LIMIT $4",
										   dist, rel, where, dist, pdist, rel, where),
								  4, argtypes, CURSOR_OPT_GENERIC_PLAN);
	}
	PG_CATCH();
	{
		hash_search(vector_plans, &key, HASH_REMOVE, NULL);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return e->plan;
}

/* set a GUC for the search only (undone by AtEOXact_GUC, or by an abort) */
static void
set_search_option(const char *name, const char *value)
{
	(void) set_config_option(name, value, PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
}

/* a float8 as DynamoDB's JSON number (as to_jsonb(float8) writes it) */
static void
push_score(JsonbParseState **state, double d)
{
	JsonbValue	v;

	v.type = jbvNumeric;
	v.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
														CStringGetDatum(float8out_internal(d)),
														ObjectIdGetDatum(InvalidOid),
														Int32GetDatum(-1)));
	pushJsonbValue(state, WJB_VALUE, &v);
}

/*
 * item_table_search_vectors
 *		SearchVectors: the caller needs SELECT on the item table.
 */
Datum
item_table_search_vectors(PG_FUNCTION_ARGS)
{
	Jsonb	   *request = PG_GETARG_JSONB_P(0);
	ApiRequest	req;
	List	   *problems = NIL;
	char	   *tname;
	char	   *iname;
	JsonbValue *sv;
	JsonbValue *topk_v;
	JsonbValue *rcc_v;
	JsonbValue *cond_v;
	JsonbValue *proj_v;
	int64		topk = 0;
	const char *rcc = "NONE";
	Oid			table_relid = InvalidOid;
	VectorIndexInfo vi;
	bool		have_index;
	float4	   *qvec;
	int			nq = 0;
	Jsonb	   *names;
	Jsonb	   *vals;
	JsonbValue *part = NULL;
	JsonbParseState *filt_state = NULL;
	bool		have_filters = false;
	Jsonb	   *filters;
	ProjectionExpr *proj = NULL;
	int			shape = 0;
	SPIPlanPtr	plan;
	SPIPlanPtr	items_plan;
	uint64		found_n;
	double	   *found_d;
	Datum	   *found_keys;
	Datum		values[4];
	char		nulls[4] = {' ', ' ', ' ', ' '};
	int			ef;
	const char *cur_ef;
	int			nest;
	ItemRoleSwitch sw;
	JsonbParseState *state = NULL;
	JsonbValue *result;
	MemoryContext callercxt = CurrentMemoryContext;
	MemoryContext old;
	Jsonb	   *built;
	Jsonb	   *out;

	ApiRequestInit(&req, request);
	tname = json_string(ApiGetMember(&req, "TableName"));
	iname = json_string(ApiGetMember(&req, "IndexName"));
	sv = ApiGetMember(&req, "SearchVector");
	topk_v = ApiGetMember(&req, "TopK");
	rcc_v = ApiGetMember(&req, "ReturnConsumedCapacity");
	cond_v = ApiGetMember(&req, "SearchConditionExpression");
	proj_v = ApiGetMember(&req, "ProjectionExpression");
	names = ApiGetObject(&req, "ExpressionAttributeNames");
	vals = ApiGetObject(&req, "ExpressionAttributeValues");

	SPI_connect();
	if (get_namespace_oid(ITEM_TABLE_SCHEMA, true) == InvalidOid ||
		!OidIsValid(get_relname_relid("vector_indexes", get_namespace_oid(ITEM_TABLE_SCHEMA, true))))
		DynValidation("Vector indexes need item_table 1.2 or later: run ALTER EXTENSION item_table UPDATE");

	/* the caller's right first, as every call checks it */
	have_index = tname != NULL && read_vector_index(tname, iname, &table_relid, &vi);
	if (tname != NULL && OidIsValid(table_relid) &&
		pg_class_aclcheck(table_relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		DynRaise(DYN_ACCESS_DENIED,
				 "User is not authorized to perform: dynamodb:SearchVectors on resource: %s", tname);

	/* the shape of the request, collected */
	if (tname == NULL)
		problems = lappend(problems, "Value null at 'tableName' failed to satisfy constraint: Member must not be null");
	if (iname == NULL)
		problems = lappend(problems, "Value null at 'indexName' failed to satisfy constraint: Member must not be null");
	if (sv == NULL)
		problems = lappend(problems, "Value null at 'searchVector' failed to satisfy constraint: Member must not be null");
	if (topk_v == NULL)
		problems = lappend(problems, "Value null at 'topK' failed to satisfy constraint: Member must not be null");
	else if (topk_v->type != jbvNumeric)
		DynRaise(DYN_SERIALIZATION, "NUMBER_VALUE cannot be converted to Integer");
	else
	{
		Numeric		n = topk_v->val.numeric;

		if (DatumGetBool(DirectFunctionCall2(numeric_lt, NumericGetDatum(n),
											 DirectFunctionCall1(int4_numeric, Int32GetDatum(1)))))
			problems = lappend(problems,
							   psprintf("Value '%s' at 'topK' failed to satisfy constraint: Member must have value greater than or equal to 1",
										DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(n)))));
		else
		{
			double		t = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(n)));

			topk = t > 1e15 ? (int64) 1e15 : (int64) rint(t);
		}
	}
	if (rcc_v != NULL)
	{
		rcc = json_string(rcc_v);
		if (rcc == NULL)
			DynRaise(DYN_SERIALIZATION, "Unexpected value type in payload");
		if (strcmp(rcc, "INDEXES") != 0 && strcmp(rcc, "TOTAL") != 0 && strcmp(rcc, "NONE") != 0)
			problems = lappend(problems,
							   psprintf("Value '%s' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]", rcc));
	}
	if (problems != NIL)
		raise_problems(problems);

	if (!OidIsValid(table_relid))
		DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found: Table: %s not found", tname);
	if (!have_index)
		DynValidation("The table does not have the specified index: %s", iname);
	if (strcmp(vi.status, "ACTIVE") != 0)
		DynValidation("The vector index is not ACTIVE: %s", iname);

	/* the search vector */
	if (sv->type != jbvBinary || !JsonContainerIsArray(sv->val.binary.data))
		DynRaise(DYN_SERIALIZATION, "Unexpected value type in payload");
	{
		JsonbContainer *c = sv->val.binary.data;
		int			n = JsonContainerSize(c);
		bool		ok = n > 0;

		qvec = palloc(sizeof(float4) * Max(n, 1));
		for (int i = 0; i < n && ok; i++)
		{
			JsonbValue *el = getIthJsonbValueFromContainer(c, i);
			char	   *s = json_string(object_member(el, "N"));

			ok = s != NULL && ApiVectorElement(s, &qvec[nq++]);
		}
		if (!ok)
			DynValidation("Invalid SearchVector: every element must be a number (N) in the range of a 32-bit float");
	}
	if (nq != vi.dimensions)
		DynValidation("Invalid SearchVector: the index %s has %d dimensions, the search vector has %d",
					  iname, vi.dimensions, nq);

	/*
	 * SearchConditionExpression: equalities on search-schema attributes,
	 * joined by AND ("a = :v AND #b = :w").
	 */
	pushJsonbValue(&filt_state, WJB_BEGIN_OBJECT, NULL);
	if (cond_v != NULL)
	{
		char	   *cond = json_string(cond_v);
		char	   *p;

		if (cond == NULL)
			DynRaise(DYN_SERIALIZATION, "Unexpected value type in payload");
		p = cond;
		for (;;)
		{
			char	   *term = p;
			char	   *end;
			char	   *q;
			char	   *name_tok;
			char	   *val_tok;
			char	   *aname;
			JsonbValue *value;

			/* the term runs to the next "<spaces>AND<spaces>", or the end */
			end = NULL;
			for (q = p; *q; q++)
			{
				char	   *r = q;

				if (!isspace((unsigned char) *q) || (q > p && isspace((unsigned char) q[-1])))
					continue;
				while (isspace((unsigned char) *r))
					r++;
				if ((strncmp(r, "AND", 3) == 0 || strncmp(r, "and", 3) == 0 || strncmp(r, "And", 3) == 0) &&
					isspace((unsigned char) r[3]))
				{
					end = q;
					break;
				}
			}
			term = end != NULL ? pnstrdup(p, end - p) : pstrdup(p);
			/* name = :value */
			q = term;
			while (isspace((unsigned char) *q))
				q++;
			name_tok = q;
			if (*q == '#')
				q++;
			while (isalnum((unsigned char) *q) || *q == '_')
				q++;
			name_tok = (q > name_tok + (*name_tok == '#')) ? pnstrdup(name_tok, q - name_tok) : NULL;
			while (isspace((unsigned char) *q))
				q++;
			val_tok = NULL;
			if (name_tok != NULL && *q == '=')
			{
				q++;
				while (isspace((unsigned char) *q))
					q++;
				if (*q == ':')
				{
					char	   *v0 = q++;

					while (isalnum((unsigned char) *q) || *q == '_')
						q++;
					if (q > v0 + 1)
						val_tok = pnstrdup(v0, q - v0);
					while (isspace((unsigned char) *q))
						q++;
				}
			}
			if (name_tok == NULL || val_tok == NULL || *q != '\0')
				DynValidation("Invalid SearchConditionExpression: only equality conditions on search schema attributes joined by AND are supported: %s", term);
			if (name_tok[0] == '#')
			{
				JsonbValue *nv = names != NULL ?
					getKeyJsonValueFromContainer(&names->root, name_tok, strlen(name_tok), NULL) : NULL;

				aname = json_string(nv);
			}
			else
				aname = name_tok;
			if (aname == NULL)
				DynValidation("Invalid SearchConditionExpression: An expression attribute name used in the document path is not defined; attribute name: %s", name_tok);
			value = vals != NULL ?
				getKeyJsonValueFromContainer(&vals->root, val_tok, strlen(val_tok), NULL) : NULL;
			if (value == NULL)
				DynValidation("Invalid SearchConditionExpression: An expression attribute value used in expression is not defined; attribute value: %s", val_tok);
			if (vi.hash_attribute != NULL && strcmp(aname, vi.hash_attribute) == 0)
				part = value;
			else
			{
				ListCell   *lc;
				bool		is_filter = false;

				foreach(lc, vi.filter_attributes)
					if (strcmp((char *) lfirst(lc), aname) == 0)
						is_filter = true;
				if (!is_filter)
					DynValidation("Invalid SearchConditionExpression: %s is not an attribute of the search schema of index %s", aname, iname);
				{
					JsonbValue	k;

					k.type = jbvString;
					k.val.string.val = aname;
					k.val.string.len = strlen(aname);
					pushJsonbValue(&filt_state, WJB_KEY, &k);
					pushJsonbValue(&filt_state, WJB_VALUE, value);
					have_filters = true;
				}
			}
			if (end == NULL)
				break;
			/* past the separator */
			p = end;
			while (isspace((unsigned char) *p))
				p++;
			p += 3;
			while (isspace((unsigned char) *p))
				p++;
		}
	}
	filters = JsonbValueToJsonb(pushJsonbValue(&filt_state, WJB_END_OBJECT, NULL));
	if (vi.hash_attribute != NULL && part == NULL)
		DynValidation("Invalid SearchConditionExpression: the HASH attribute of the search schema must be given with =: %s",
					  vi.hash_attribute);
	if (proj_v != NULL)
	{
		char	   *src = json_string(proj_v);

		if (src == NULL)
			DynRaise(DYN_SERIALIZATION, "Unexpected value type in payload");
		proj = ExprParseProjection(src, strlen(src), ExprPlaceholdersFromRequest(names, NULL));
	}

	/* the search */
	if (part != NULL)
		shape |= VSHAPE_PART;
	if (have_filters)
		shape |= VSHAPE_FILTERS;
	{
		Datum	   *elems = palloc(sizeof(Datum) * nq);

		for (int i = 0; i < nq; i++)
			elems[i] = Float4GetDatum(qvec[i]);
		values[0] = PointerGetDatum(construct_array(elems, nq, FLOAT4OID, sizeof(float4), true, TYPALIGN_INT));
	}
	if (part != NULL)
		values[1] = JsonbPGetDatum(JsonbValueToJsonb(part));
	else
		nulls[1] = 'n', values[1] = (Datum) 0;
	values[2] = JsonbPGetDatum(filters);
	values[3] = Int64GetDatum(topk);

	ItemAsCatalogOwnerBegin(&sw);
	plan = search_plan(&vi, shape);
	nest = NewGUCNestLevel();
	cur_ef = GetConfigOption("hnsw.ef_search", true, false);
	ef = Max(VECTOR_EF_SEARCH, cur_ef != NULL ? atoi(cur_ef) : 40);
	ef = Max(ef, (int) Min(topk, 1000));
	set_search_option("hnsw.ef_search", psprintf("%d", ef));
	if (shape != 0)
		set_search_option("hnsw.iterative_scan", "relaxed_order");
	/* the pending rows through their partial index, however few the planner expects */
	set_search_option("enable_seqscan", "off");
	if (SPI_execute_plan(plan, values, nulls, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "item_table: the vector search failed");
	AtEOXact_GUC(true, nest);
	found_n = SPI_processed;
	found_d = palloc(sizeof(double) * Max(found_n, 1));
	found_keys = palloc(sizeof(Datum) * Max(found_n, 1));
	for (uint64 i = 0; i < found_n; i++)
	{
		bool		isnull;

		found_keys[i] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
		found_d[i] = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));
	}
	items_plan = search_plan(&vi, VSHAPE_ITEMS);
	ItemAsRoleEnd(&sw);

	/* the items found, as the item table's owner, in the same snapshot */
	if (found_n > 0)
	{
		int16		typlen;
		bool		typbyval;
		char		typalign;
		Datum		keyarg[1];

		get_typlenbyvalalign(ItemKeyTypeOid(), &typlen, &typbyval, &typalign);
		keyarg[0] = PointerGetDatum(construct_array(found_keys, (int) found_n, ItemKeyTypeOid(),
													 typlen, typbyval, typalign));
		ItemAsRoleBegin(&sw, ItemRelationOwner(vi.table_relid), SECURITY_NOFORCE_RLS);
		if (SPI_execute_plan(items_plan, keyarg, NULL, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "item_table: could not read the items found by the vector search");
		ItemAsRoleEnd(&sw);
	}

	if (result_cxt == NULL)
		result_cxt = AllocSetContextCreate(TopMemoryContext, "item_table SearchVectors response",
										   RESULT_CXT_KEEP, RESULT_CXT_KEEP, ALLOCSET_DEFAULT_MAXSIZE);
	MemoryContextReset(result_cxt);
	old = MemoryContextSwitchTo(result_cxt);
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "SearchResults");
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	for (uint64 i = 0; found_n > 0 && i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		int64		pos = DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
		Jsonb	   *item = DatumGetJsonbP(SPI_getbinval(tup, desc, 2, &isnull));
		double		d = found_d[pos - 1];

		CHECK_FOR_INTERRUPTS();
		item = ApiVectorProject(item, vi.projection_type, vi.hash_key, vi.range_key,
								vi.hash_attribute, vi.filter_attributes, vi.non_key_attributes);
		pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(&state, "Item");
		if (proj != NULL)
			ApiPushItem(&state, ExprProject(proj, AttrItemFromJsonb(item)));
		else
			ApiPushJsonb(&state, item);
		ApiPushKey(&state, "Score");
		/* pgvector's <#> is the negative inner product; the score is the product */
		push_score(&state, strcmp(vi.distance, "DOT_PRODUCT") == 0 ? -d : d);
		pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	if (strcmp(rcc, "NONE") != 0)
	{
		ApiPushKey(&state, "ConsumedCapacity");
		pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(&state, "VectorSearchRequestBytes");
		ApiPushNumeric(&state, 4.0 * vi.dimensions, 0);
		pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	}
	result = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	built = JsonbValueToJsonb(result);
	out = MemoryContextAlloc(callercxt, VARSIZE(built));
	memcpy(out, built, VARSIZE(built));
	MemoryContextSwitchTo(old);
	MemoryContextReset(result_cxt);
	SPI_finish();
	PG_RETURN_JSONB_P(out);
}
