/*-------------------------------------------------------------------------
 *
 * api_query.c
 *		Query and Scan: item collections read through one btree range scan,
 *		with DynamoDB's paging, filtering and projection; plus the SQL-native
 *		item_collection() set-returning function and explain_query() /
 *		explain_scan(), which show the plan a request runs.
 *
 * Key range.  The key condition of a Query becomes one range of item_key
 * values, kept as bounds with inclusiveness (KeyRange):
 *
 *	  pk = :p						[P, P|~)
 *	  pk = :p AND sk = :v			[P|v, P|v]
 *	  sk < :v / sk <= :v			[P, P|v) / [P, P|v]
 *	  sk > :v / sk >= :v			(P|v, P|~) / [P|v, P|~)
 *	  sk BETWEEN :a AND :b			[P|a, P|b]
 *	  begins_with(sk, :s)			[P|s, P|s~)
 *
 * where P is the partition-only key (the first position of the partition),
 * P|~ the partition top and P|s~ the prefix top (item_table.h).  The index
 * is read through a half-open range [lo, hi): an exclusive lower bound K
 * becomes K || 00 and an inclusive upper bound K becomes K || 00, which is
 * exact because K || 00 is the immediate successor of K in byte order (no
 * byte string lies between them).  So one statement per direction serves
 * every key condition, ExclusiveStartKey included (it moves lo forward, or
 * hi backward):
 *
 *	  SELECT key, item FROM t WHERE key >= $1 AND key < $2 ORDER BY key [DESC]
 *
 * A Scan reads the whole key space the same way; a parallel scan adds a
 * filter on item_key_segment(key, TotalSegments) = Segment, a hash of the
 * partition part only, so an item collection never spans two segments and
 * segments are stable across pages.  Each segment still walks the whole
 * index (correct, not parallel-efficient).
 *
 * Plans.  The statements are prepared once per table and kept in its
 * ItemTableDef, as generic plans (the bounds are parameters) planned for a
 * fast start (CURSOR_OPT_FAST_PLAN), so the planner always chooses the
 * ordered index scan on the primary key for both directions: no Sort node,
 * no sequential scan, whatever the table size (explain_query() shows it).
 *
 * Paging (reference 4.7-4.9).  The statement runs in batches sized by what
 * is left (Limit, bytes): each batch executes it with a row count, and the
 * next one resumes after the last key read (moving $1 forward, or $2
 * backward), under the same snapshot, so a page never makes PostgreSQL
 * read much more than the page, and no cursor (portal) is needed for the
 * common one-batch page.  Items are counted against
 * Limit and the 1 MB page cap by DynamoDB's item size (computed straight
 * from the stored jsonb) before the filter and the projection.  A page
 * never holds more than 1 MB (1,048,576 bytes) of items: an item that does
 * not fit ends the page unread (it starts the next one), except that the
 * first item of a page is always taken.  LastEvaluatedKey is the key of the
 * last item read, present iff the page stopped on Limit or on the cap, even
 * when nothing is left.
 *
 * Response.  The response is assembled directly in jsonb's binary format:
 * the stored items (or their projections) are copied as containers into the
 * Items array instead of being unpacked into a JsonbValue tree and
 * serialized again, which would cost two extra passes over every item.
 *
 * Order of checks, as DynamoDB: request shape (all problems at once),
 * legacy parameters, Select, expressions and placeholders, the shape of the
 * key condition, ExclusiveStartKey values; then the table
 * (ResourceNotFoundException), IndexName, the key condition against the key
 * schema, the filter (no key attributes in a Query's), ExclusiveStartKey
 * against the key schema and the key condition (Scan: its segment).
 *
 * Indexes.  Everything below works on a ReadTarget: a physical table keyed
 * by item_key plus the key schema that item_key encodes.  The target is the
 * table itself or a secondary index: its index table (ikey item_key, key
 * item_key, item jsonb) ordered by (ikey, key), with its own plans (the
 * range on ikey, resuming after (ikey, key) with a row comparison, since
 * many items may share one index key).  LastEvaluatedKey and
 * ExclusiveStartKey of an index read carry the index keys plus the table
 * keys.  check_index_read() applies the projection rules: a GSI answers
 * only with what it projects; an LSI fetches the table's item when asked
 * for more, as DynamoDB does.  An index read needs SELECT on the table,
 * and is refused where the table's row-level security applies to the
 * caller (GsiCheckIndexRead): index rows are copies the policies cannot
 * filter.
 *
 * Memory: the request is parsed in the caller's context; after SPI_connect
 * everything lives in SPI's procedure context, the items of the page
 * included (at most one page of them); per-row work (detoasting, sizes,
 * filter, projection) happens in a row context reset for every row, and the
 * response is written into the caller's context.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/snapmgr.h"

#include "api.h"
#include "expr.h"
#include "gsi.h"

PG_FUNCTION_INFO_V1(item_table_query);
PG_FUNCTION_INFO_V1(item_table_scan);
PG_FUNCTION_INFO_V1(item_table_explain_query);
PG_FUNCTION_INFO_V1(item_table_explain_scan);
PG_FUNCTION_INFO_V1(item_table_item_collection);
PG_FUNCTION_INFO_V1(item_key_segment);

/* DynamoDB's page cap: bytes of items read (item size formula) */
#define PAGE_MAX_BYTES			(1024 * 1024)

/*
 * Rows read by the first batch of a page, and the most any batch reads.  A row
 * read but not taken costs little: its large values stay TOASTed until
 * the item is taken.  128 covers most item collections in one batch.
 */
#define FETCH_FIRST_BATCH		128
#define FETCH_MAX_BATCH			1024

/* rows fetched at once by item_collection() */
#define COLLECTION_BATCH		256

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

static const char *const select_values[] = {"ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES",
"SPECIFIC_ATTRIBUTES", "COUNT"};

typedef enum SelectMode
{
	SELECT_DEFAULT = -1,
	SELECT_ALL_ATTRIBUTES = 0,
	SELECT_ALL_PROJECTED_ATTRIBUTES,
	SELECT_SPECIFIC_ATTRIBUTES,
	SELECT_COUNT
} SelectMode;

/* ----------------------------------------------------------------
 * targets and ranges
 * ----------------------------------------------------------------
 */

/*
 * What a Query or Scan reads: a physical table keyed by item_key whose
 * encoding follows this key schema.
 */
typedef struct ReadTarget
{
	ItemTableDef *def;			/* the table: name, plans, capacity */
	const char *index_name;		/* NULL: the table itself */
	const char *hash_key;
	AttrType	hash_type;
	const char *range_key;		/* NULL: no sort key */
	AttrType	range_type;
	SPIPlanPtr *plan_forward;	/* plan slots, see READ_*_SQL */
	SPIPlanPtr *plan_backward;
	SPIPlanPtr *plan_segment;
	IndexDef   *idx;			/* a secondary index, or NULL */
	bool		fetch_base;		/* LSI: read the table's item (unprojected attributes) */
} ReadTarget;

/* A range of keys; a NULL bound is unbounded */
typedef struct KeyRange
{
	ItemKey    *lo;
	bool		lo_incl;
	ItemKey    *hi;
	bool		hi_incl;
} KeyRange;

/* One condition of a KeyConditionExpression, the key attribute on the left */
typedef struct KeyLeaf
{
	const char *attr;			/* UTF-8, NUL-terminated */
	CondKind	kind;			/* COND_COMPARE, COND_BETWEEN, COND_BEGINS_WITH */
	CompareOp	op;				/* COND_COMPARE */
	AttrValue  *v1;
	AttrValue  *v2;				/* BETWEEN's upper bound */
} KeyLeaf;

typedef struct KeyCondition
{
	int			nleaves;
	KeyLeaf		leaves[2];
} KeyCondition;

/*
 * table_target
 *		The target of a request on table def; index_name is the request's
 *		IndexName or NULL (an unknown index is DynamoDB's ValidationException).
 */
static void
table_target(ItemTableDef *def, const char *index_name, ReadTarget *t)
{
	memset(t, 0, sizeof(*t));
	t->def = def;
	if (index_name != NULL)
	{
		/* locked: an UpdateTable dropping it is waited for, not failed on */
		IndexDef   *idx = GsiFindLocked(def->relid, index_name, AccessShareLock);

		if (idx == NULL)
			DynValidation("The table does not have the specified index: %s", index_name);
		/* SELECT on the table; and where policies apply, no index reads */
		GsiCheckIndexRead(def->relid, def->name);
		t->index_name = idx->name;
		t->idx = idx;
		t->hash_key = idx->hash_key;
		t->hash_type = idx->hash_type;
		t->range_key = idx->range_key;
		t->range_type = idx->range_type;
		t->plan_forward = &idx->plan_read_forward;
		t->plan_backward = &idx->plan_read_backward;
		t->plan_segment = &idx->plan_read_segment;
		return;
	}
	t->hash_key = def->hash_key;
	t->hash_type = def->hash_type;
	t->range_key = def->range_key;
	t->range_type = def->range_type;
	t->plan_forward = &def->plan_read_forward;
	t->plan_backward = &def->plan_read_backward;
	t->plan_segment = &def->plan_read_segment;
}

static SPIPlanPtr
target_plan(ReadTarget *t, SPIPlanPtr *slot, const char *sql, int nargs)
{
	Oid			argtypes[4] = {ItemKeyTypeOid(), ItemKeyTypeOid(), INT4OID, INT4OID};
	Oid			idxtypes[6] = {ItemKeyTypeOid(), ItemKeyTypeOid(), ItemKeyTypeOid(),
	ItemKeyTypeOid(), INT4OID, INT4OID};
	SPIPlanPtr	plan;

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

/* a copy of k with one more byte: the immediate successor of k */
static ItemKey *
key_successor(const ItemKey *k)
{
	int			len = ITEMKEY_LEN(k);
	ItemKey    *r = (ItemKey *) palloc(VARHDRSZ + len + 1);

	memcpy(VARDATA(r), ITEMKEY_DATA(k), len);
	((uint8 *) VARDATA(r))[len] = 0;
	SET_VARSIZE(r, VARHDRSZ + len + 1);
	return r;
}

/* the half-open physical bounds [*lo, *hi) of a range */
static void
key_range_bounds(const KeyRange *r, Datum *lo, Datum *hi)
{
	static const uint8 top = 0xFF;	/* above every version byte */

	if (r->lo == NULL)
		*lo = PointerGetDatum(KeyCodecMakeVarlena(&top, 0));
	else
		*lo = PointerGetDatum(r->lo_incl ? r->lo : key_successor(r->lo));
	if (r->hi == NULL)
		*hi = PointerGetDatum(KeyCodecMakeVarlena(&top, 1));
	else
		*hi = PointerGetDatum(r->hi_incl ? key_successor(r->hi) : r->hi);
}

/* is key inside the range? */
static bool
key_range_contains(const KeyRange *r, const ItemKey *key)
{
	int			c;

	if (r->lo != NULL)
	{
		c = ItemKeyCompare(key, r->lo);
		if (c < 0 || (c == 0 && !r->lo_incl))
			return false;
	}
	if (r->hi != NULL)
	{
		c = ItemKeyCompare(key, r->hi);
		if (c > 0 || (c == 0 && !r->hi_incl))
			return false;
	}
	return true;
}

static void
describe_key_range(StringInfo out, const KeyRange *r, const char *col)
{
	appendStringInfoString(out, "key range:");
	if (r->lo == NULL && r->hi == NULL)
		appendStringInfoString(out, " all keys");
	if (r->lo != NULL)
		appendStringInfo(out, " %s %s %s", col, r->lo_incl ? ">=" : ">", ItemKeyToText(r->lo));
	if (r->lo != NULL && r->hi != NULL)
		appendStringInfoString(out, " AND");
	if (r->hi != NULL)
		appendStringInfo(out, " %s %s %s", col, r->hi_incl ? "<=" : "<", ItemKeyToText(r->hi));
}

/* ----------------------------------------------------------------
 * keys from attribute values
 * ----------------------------------------------------------------
 */
/*
 * check_key_value
 *		DynamoDB's limits on a key value (prefix, when not NULL, starts the
 *		message: ExclusiveStartKey problems).
 */
static void
check_key_value(const char *prefix, const char *name, const AttrValue *v, bool is_sort)
{
	const char *pre = prefix ? prefix : "";

	if ((v->type == ATTR_S || v->type == ATTR_B) && v->u.bytes.len == 0)
		DynValidation("%sOne or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty %s value. Key: %s",
					  pre, v->type == ATTR_S ? "string" : "binary", name);
	if ((v->type == ATTR_S || v->type == ATTR_B) && !is_sort &&
		v->u.bytes.len > ITEMKEY_MAX_PARTITION_BYTES)
		DynValidation("%sOne or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes",
					  pre);
	if ((v->type == ATTR_S || v->type == ATTR_B) && is_sort &&
		v->u.bytes.len > ITEMKEY_MAX_SORT_BYTES)
		DynValidation("%sOne or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes",
					  pre);
}

static ItemKey *
build_key(const AttrValue *h, const AttrValue *r)
{
	ItemKeyPart hp,
				rp;

	AttrKeyPart(h, &hp);
	if (r == NULL)
		return KeyCodecBuild(&hp, NULL);
	AttrKeyPart(r, &rp);
	return KeyCodecBuild(&hp, &rp);
}

/* the partition top of partition-only key p: after every key of p */
static ItemKey *
partition_top(const ItemKey *p)
{
	ItemKey    *lo,
			   *hi;

	KeyCodecPrefixBounds(p, &lo, &hi);
	return hi;
}

/* ----------------------------------------------------------------
 * KeyConditionExpression
 * ----------------------------------------------------------------
 */
static const char *
key_operator_name(const CondNode *c)
{
	switch (c->kind)
	{
		case COND_IN:
			return "IN";
		case COND_ATTRIBUTE_EXISTS:
			return "attribute_exists";
		case COND_ATTRIBUTE_NOT_EXISTS:
			return "attribute_not_exists";
		case COND_ATTRIBUTE_TYPE:
			return "attribute_type";
		case COND_CONTAINS:
			return "contains";
		case COND_COMPARE:
			return c->op == CMP_NE ? "<>" : NULL;
		default:
			return NULL;
	}
}

static CompareOp
mirror_op(CompareOp op)
{
	switch (op)
	{
		case CMP_LT:
			return CMP_GT;
		case CMP_LE:
			return CMP_GE;
		case CMP_GT:
			return CMP_LT;
		case CMP_GE:
			return CMP_LE;
		default:
			return op;
	}
}

/*
 * key_leaf
 *		Check one condition of a key condition for what DynamoDB refuses
 *		before it looks at the table, and return it with the key attribute
 *		on the left.
 */
static void
key_leaf(const CondNode *c, KeyLeaf *leaf)
{
	const char *bad = key_operator_name(c);
	int			path_at = -1;
	int			i;

	if (bad != NULL)
		DynValidation("Invalid operator used in KeyConditionExpression: %s", bad);
	if ((c->kind == COND_BETWEEN || c->kind == COND_BEGINS_WITH) &&
		c->operands[0]->kind != OPND_PATH)
		DynValidation("Invalid condition in KeyConditionExpression: %s operator must have the key attribute as its first operand",
					  c->kind == COND_BETWEEN ? "BETWEEN" : "begins_with");
	for (i = 0; i < c->noperands; i++)
	{
		const Operand *o = c->operands[i];

		if (o->kind == OPND_SIZE)
			DynValidation("KeyConditionExpressions cannot contain nested operations");
		if (o->kind != OPND_PATH)
			continue;
		if (path_at >= 0)
			DynValidation("Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition");
		if (o->path->nelems != 1 || o->path->elems[0].kind != PATH_NAME)
			DynValidation("KeyConditionExpressions cannot have conditions on nested attributes");
		path_at = i;
	}
	if (path_at < 0)
		DynValidation("Invalid condition in KeyConditionExpression: No key attribute specified");

	memset(leaf, 0, sizeof(*leaf));
	leaf->attr = pnstrdup(c->operands[path_at]->path->elems[0].name,
						  c->operands[path_at]->path->elems[0].namelen);
	leaf->kind = c->kind;
	leaf->op = c->op;
	if (c->kind == COND_COMPARE)
	{
		leaf->v1 = c->operands[1 - path_at]->value;
		if (path_at == 1)
			leaf->op = mirror_op(c->op);
	}
	else
	{
		leaf->v1 = c->operands[1]->value;
		if (c->kind == COND_BETWEEN)
			leaf->v2 = c->operands[2]->value;
	}
}

static void
collect_leaves(const CondNode *c, List **leaves)
{
	check_stack_depth();
	if (c->kind == COND_AND)
	{
		collect_leaves(c->left, leaves);
		collect_leaves(c->right, leaves);
	}
	else
		*leaves = lappend(*leaves, (void *) c);
}

/*
 * key_condition_shape
 *		The checks of a key condition that need no table: operators, one
 *		key attribute per condition, one condition per key, at most two.
 */
static void
key_condition_shape(const CondNode *cond, KeyCondition *kc)
{
	List	   *nodes = NIL;
	KeyLeaf    *all;
	ListCell   *lc;
	int			n = 0;
	int			i,
				j;

	collect_leaves(cond, &nodes);
	all = palloc(sizeof(KeyLeaf) * list_length(nodes));
	foreach(lc, nodes)
		key_leaf((const CondNode *) lfirst(lc), &all[n++]);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (strcmp(all[i].attr, all[j].attr) == 0)
				DynValidation("KeyConditionExpressions must only contain one condition per key");
	if (n > 2)
		DynValidation("Conditions can be of length 1 or 2 only");
	kc->nleaves = n;
	for (i = 0; i < n; i++)
		kc->leaves[i] = all[i];
}

static void
check_condition_type(const AttrValue *v, AttrType type)
{
	if (v != NULL && v->type != type)
		DynValidation("One or more parameter values were invalid: Condition parameter type does not match schema type");
}

/*
 * key_condition_range
 *		Match a key condition to the target's key schema and turn it into a
 *		key range.  *partition gets the partition-only key.
 */
static void
key_condition_range(const ReadTarget *t, const KeyCondition *kc, KeyRange *r,
					ItemKey **partition)
{
	const KeyLeaf *hash = NULL;
	const KeyLeaf *sort = NULL;
	ItemKey    *p;
	int			i;

	for (i = 0; i < kc->nleaves; i++)
	{
		const KeyLeaf *l = &kc->leaves[i];

		if (strcmp(l->attr, t->hash_key) == 0)
			hash = l;
		else if (t->range_key != NULL && strcmp(l->attr, t->range_key) == 0)
			sort = l;
	}
	if (hash == NULL)
		DynValidation("Query condition missed key schema element: %s", t->hash_key);
	if (kc->nleaves > (sort != NULL ? 2 : 1))
	{
		/* a condition on an attribute that is not a key */
		if (t->range_key != NULL)
			DynValidation("Query condition missed key schema element: %s", t->range_key);
		DynValidation("Query key condition not supported");
	}
	if (hash->kind != COND_COMPARE || hash->op != CMP_EQ)
		DynValidation("Query key condition not supported");
	check_condition_type(hash->v1, t->hash_type);
	if (sort != NULL)
	{
		check_condition_type(sort->v1, t->range_type);
		check_condition_type(sort->v2, t->range_type);
	}
	check_key_value(NULL, t->hash_key, hash->v1, false);
	if (sort != NULL)
	{
		check_key_value(NULL, t->range_key, sort->v1, true);
		if (sort->v2 != NULL)
			check_key_value(NULL, t->range_key, sort->v2, true);
	}

	p = build_key(hash->v1, NULL);
	*partition = p;
	memset(r, 0, sizeof(*r));
	r->lo = p;
	r->lo_incl = true;
	r->hi = partition_top(p);
	r->hi_incl = false;
	if (sort == NULL)
		return;
	switch (sort->kind)
	{
		case COND_COMPARE:
			{
				ItemKey    *k = build_key(hash->v1, sort->v1);

				switch (sort->op)
				{
					case CMP_EQ:
						r->lo = r->hi = k;
						r->lo_incl = r->hi_incl = true;
						break;
					case CMP_LT:
					case CMP_LE:
						r->hi = k;
						r->hi_incl = sort->op == CMP_LE;
						break;
					case CMP_GT:
					case CMP_GE:
						r->lo = k;
						r->lo_incl = sort->op == CMP_GE;
						break;
					default:
						elog(ERROR, "unexpected key condition operator");
				}
				break;
			}
		case COND_BETWEEN:
			r->lo = build_key(hash->v1, sort->v1);
			r->hi = build_key(hash->v1, sort->v2);
			r->lo_incl = r->hi_incl = true;
			break;
		case COND_BEGINS_WITH:
			KeyCodecPrefixBounds(build_key(hash->v1, sort->v1), &r->lo, &r->hi);
			r->lo_incl = true;
			r->hi_incl = false;
			break;
		default:
			elog(ERROR, "unexpected key condition");
	}
}

/* the first key attribute named by a filter, or NULL */
static const char *
filter_key_attribute(const ReadTarget *t, const CondNode *c)
{
	int			i;

	if (c == NULL)
		return NULL;
	check_stack_depth();
	if (c->kind == COND_AND || c->kind == COND_OR || c->kind == COND_NOT)
	{
		const char *a = filter_key_attribute(t, c->left);

		return a ? a : filter_key_attribute(t, c->right);
	}
	for (i = 0; i < c->noperands; i++)
	{
		const Operand *o = c->operands[i];

		while (o->kind == OPND_SIZE)
			o = o->args[0];
		if (o->kind == OPND_PATH && o->path->elems[0].kind == PATH_NAME)
		{
			const PathElem *e = &o->path->elems[0];
			const char *keys[2] = {t->hash_key, t->range_key};
			int			k;

			for (k = 0; k < 2; k++)
				if (keys[k] != NULL && e->namelen == (int) strlen(keys[k]) &&
					memcmp(e->name, keys[k], e->namelen) == 0)
					return keys[k];
		}
	}
	return NULL;
}

/* ----------------------------------------------------------------
 * Index projections
 * ----------------------------------------------------------------
 */

static bool
name_is(const char *name, int len, const char *attr)
{
	return attr != NULL && (int) strlen(attr) == len && memcmp(name, attr, len) == 0;
}

/* does the index store the top-level attribute name? */
static bool
index_projects(const ReadTarget *t, const char *name, int len)
{
	const IndexDef *idx = t->idx;
	int			i;

	if (idx->projection == PROJ_ALL ||
		name_is(name, len, idx->hash_key) || name_is(name, len, idx->range_key) ||
		name_is(name, len, t->def->hash_key) || name_is(name, len, t->def->range_key))
		return true;
	if (idx->projection == PROJ_INCLUDE)
		for (i = 0; i < idx->nnonkey; i++)
			if (name_is(name, len, idx->nonkey[i]))
				return true;
	return false;
}

/* add the path's attribute to *missing (once) when the index lacks it */
static void
note_unprojected(const ReadTarget *t, const DocPath *path, List **missing)
{
	const PathElem *e;
	ListCell   *lc;

	if (path == NULL || path->elems[0].kind != PATH_NAME)
		return;
	e = &path->elems[0];
	if (index_projects(t, e->name, e->namelen))
		return;
	foreach(lc, *missing)
	{
		if (name_is(e->name, e->namelen, lfirst(lc)))
			return;
	}
	*missing = lappend(*missing, pnstrdup(e->name, e->namelen));
}

/* "a, b" */
static char *
name_list(List *names)
{
	StringInfoData s;
	ListCell   *lc;

	initStringInfo(&s);
	foreach(lc, names)
		appendStringInfo(&s, "%s%s", s.len ? ", " : "", (char *) lfirst(lc));
	return s.data;
}

static void
operand_unprojected(const ReadTarget *t, const Operand *o, List **missing)
{
	if (o == NULL)
		return;
	if (o->kind == OPND_PATH)
		note_unprojected(t, o->path, missing);
	operand_unprojected(t, o->args[0], missing);
	operand_unprojected(t, o->args[1], missing);
}

static void
filter_unprojected(const ReadTarget *t, const CondNode *c, List **missing)
{
	int			i;

	if (c == NULL)
		return;
	check_stack_depth();
	filter_unprojected(t, c->left, missing);
	filter_unprojected(t, c->right, missing);
	for (i = 0; i < c->noperands; i++)
		operand_unprojected(t, c->operands[i], missing);
}

/* the attributes an index projects, as a ProjectionExpression */
static ProjectionExpr *
index_projection(const ReadTarget *t)
{
	const char *names[4];
	int			n = 0;
	int			i;
	ProjectionExpr *p = palloc0(sizeof(ProjectionExpr));

	names[n++] = t->def->hash_key;
	if (t->def->range_key)
		names[n++] = t->def->range_key;
	names[n++] = t->idx->hash_key;
	if (t->idx->range_key)
		names[n++] = t->idx->range_key;
	p->paths = palloc0(sizeof(DocPath *) * (n + t->idx->nnonkey));
	for (i = 0; i < n + t->idx->nnonkey; i++)
	{
		const char *name = i < n ? names[i] : t->idx->nonkey[i - n];
		DocPath    *path;
		int			k;
		bool		dup = false;

		for (k = 0; k < p->npaths; k++)
			if (strcmp(p->paths[k]->elems[0].name, name) == 0)
				dup = true;
		if (dup)
			continue;
		path = palloc0(sizeof(DocPath));
		path->nelems = 1;
		path->elems = palloc0(sizeof(PathElem));
		path->elems[0].kind = PATH_NAME;
		path->elems[0].name = pstrdup(name);
		path->elems[0].namelen = strlen(name);
		p->paths[p->npaths++] = path;
	}
	return p;
}

/*
 * check_index_read
 *		What a read of a secondary index may ask for (reference 4.7 and the
 *		index table): a GSI has only its projected attributes and no
 *		strongly consistent reads; an LSI fetches what it does not project
 *		from the table, as DynamoDB does at extra cost.
 */
static void
check_index_read(ReadTarget *t, int select, bool consistent,
				 ProjectionExpr **projp, const CondNode *filter)
{
	const ProjectionExpr *projection = *projp;
	List	   *proj_missing = NIL;
	List	   *filter_missing = NIL;
	int			i;

	if (t->idx == NULL)
		return;
	if (consistent && !t->idx->is_local && !item_table_consistent_index_reads)
		DynValidation("Consistent reads are not supported on global secondary indexes");
	if (t->idx->projection == PROJ_ALL)
		return;
	if (select == SELECT_ALL_ATTRIBUTES)
	{
		if (!t->idx->is_local)
			DynValidation("One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL",
						  t->idx->name);
		t->fetch_base = true;
		return;
	}
	for (i = 0; projection != NULL && i < projection->npaths; i++)
		note_unprojected(t, projection->paths[i], &proj_missing);
	filter_unprojected(t, filter, &filter_missing);
	if (!t->idx->is_local)
	{
		if (proj_missing != NIL)
			DynValidation("One or more parameter values were invalid: Global secondary index %s does not project [%s]",
						  t->idx->name, name_list(proj_missing));
		if (filter_missing != NIL)
			DynValidation("One or more parameter values were invalid: Secondary index %s does not project one or more filter attributes: [%s]",
						  t->idx->name, name_list(filter_missing));
	}
	else if (proj_missing != NIL || filter_missing != NIL)
	{
		/* LSI: what it lacks comes from the table's item */
		t->fetch_base = true;
		/* a filter's needs do not widen the answer: it stays the projection */
		if (projection == NULL)
			*projp = index_projection(t);
	}
}

/* ----------------------------------------------------------------
 * ExclusiveStartKey
 * ----------------------------------------------------------------
 */

/*
 * parse_start_key
 *		The ExclusiveStartKey as an attribute map.  Invalid values are
 *		reported as "The provided starting key is invalid: <why>".
 */
static AttrValue *
parse_start_key(Jsonb *j)
{
	MemoryContext cxt = CurrentMemoryContext;
	AttrValue  *volatile result = NULL;

	if (j == NULL)
		return NULL;
	PG_TRY();
	{
		result = AttrItemFromJsonb(j);
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		const char *prefix = "ValidationException: ";

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_DYN_VALIDATION ||
			strncmp(edata->message, prefix, strlen(prefix)) != 0)
			PG_RE_THROW();
		FlushErrorState();
		DynValidation("The provided starting key is invalid: %s",
					  edata->message + strlen(prefix));
	}
	PG_END_TRY();
	return result;
}

/*
 * start_key
 *		The item_key of an ExclusiveStartKey, checked against the target's
 *		key schema.  for_scan selects Scan's messages.
 */
static ItemKey *
start_key(const ReadTarget *t, const AttrValue *esk, bool for_scan)
{
	const AttrValue *h = AttrMapGet(esk, t->hash_key, strlen(t->hash_key));
	const AttrValue *r = NULL;
	int			expected = t->range_key != NULL ? 2 : 1;
	const char *pre = for_scan ? "The provided starting key is invalid: " : NULL;

	if (t->range_key != NULL)
		r = AttrMapGet(esk, t->range_key, strlen(t->range_key));
	if (esk->u.map.count != expected || h == NULL ||
		(t->range_key != NULL && r == NULL))
	{
		if (for_scan)
			DynValidation("The provided starting key is invalid: The provided key element does not match the schema");
		DynValidation("The provided starting key is invalid");
	}
	if (h->type != t->hash_type || (r != NULL && r->type != t->range_type))
	{
		if (for_scan)
			DynValidation("The provided starting key is invalid: The provided key element does not match the schema");
		DynValidation("The provided key element does not match the schema");
	}
	check_key_value(pre, t->hash_key, h, false);
	if (r != NULL)
		check_key_value(pre, t->range_key, r, true);
	return build_key(h, r);
}

/*
 * index_start_key
 *		The ExclusiveStartKey of an index read: the index key attributes and
 *		the table key attributes (a name in both counts once).  Sets *ikey
 *		and returns the table key.
 */
static ItemKey *
index_start_key(const ReadTarget *t, const AttrValue *esk, bool for_scan, ItemKey **ikey)
{
	const char *names[4];
	AttrType	types[4];
	const AttrValue *vals[4];
	int			n = 0;
	int			i;
	int			j;
	int			distinct;
	int			table_first;

	names[n] = t->hash_key, types[n++] = t->hash_type;
	if (t->range_key)
		names[n] = t->range_key, types[n++] = t->range_type;
	names[n] = t->def->hash_key, types[n++] = t->def->hash_type;
	if (t->def->range_key)
		names[n] = t->def->range_key, types[n++] = t->def->range_type;

	for (i = 0; i < n; i++)
	{
		vals[i] = AttrMapGet(esk, names[i], strlen(names[i]));
		if (vals[i] == NULL)
		{
			if (for_scan)
				DynValidation("The provided starting key is invalid: The provided key element does not match the schema");
			DynValidation("The provided starting key is invalid");
		}
		if (vals[i]->type != types[i])
		{
			if (for_scan)
				DynValidation("The provided starting key is invalid: The provided key element does not match the schema");
			DynValidation("The provided key element does not match the schema");
		}
	}
	/* no attribute other than the key names (a name in both counts once) */
	distinct = 0;
	for (i = 0; i < n; i++)
	{
		for (j = 0; j < i && strcmp(names[j], names[i]) != 0; j++)
			;
		distinct += (j == i);
	}
	if (esk->u.map.count != distinct)
	{
		if (for_scan)
			DynValidation("The provided starting key is invalid: The provided key element does not match the schema");
		DynValidation("The provided starting key is invalid");
	}
	check_key_value(for_scan ? "The provided starting key is invalid: " : NULL,
					t->hash_key, vals[0], false);
	if (t->range_key)
		check_key_value(for_scan ? "The provided starting key is invalid: " : NULL,
						t->range_key, vals[1], true);
	*ikey = build_key(vals[0], t->range_key ? vals[1] : NULL);
	/* the table's key attributes follow the index's in names[] */
	table_first = t->range_key ? 2 : 1;
	return build_key(vals[table_first], t->def->range_key ? vals[table_first + 1] : NULL);
}

/*
 * check_query_start_key
 *		An ExclusiveStartKey must satisfy the sort key condition and lie in
 *		the queried partition.
 */
static void
check_query_start_key(const ReadTarget *t, const AttrValue *esk, const ItemKey *k,
					  const ItemKey *partition, const KeyRange *r)
{
	const AttrValue *s = t->range_key ? AttrMapGet(esk, t->range_key, strlen(t->range_key)) : NULL;
	ItemKeyParsed pp;
	ItemKey    *in_partition;
	ItemKeyPart sp;

	/* the sort value placed in the queried partition */
	ItemKeyDecodeOrError(partition, &pp);
	if (s != NULL)
	{
		AttrKeyPart(s, &sp);
		in_partition = KeyCodecBuild(&pp.partition, &sp);
	}
	else
		in_partition = KeyCodecBuild(&pp.partition, NULL);
	if (!key_range_contains(r, in_partition))
		DynValidation("The provided starting key does not match the range key predicate");
	if (!key_range_contains(r, k))
		DynValidation("The provided starting key is outside query boundaries based on provided conditions");
}

/* segment of a key: hash of its partition part, modulo total */
static int
key_segment(const ItemKey *k, int total)
{
	int			plen = KeyCodecPartitionLength(ITEMKEY_DATA(k), ITEMKEY_LEN(k));
	uint32		h = DatumGetUInt32(hash_any(ITEMKEY_DATA(k), plen));

	return (int) (h % (uint32) total);
}

/*
 * item_key_segment(key, total_segments)
 *		The parallel-scan segment of a key: the hash of its partition part
 *		(as the hash opclass computes it) modulo total_segments.
 */
Datum
item_key_segment(PG_FUNCTION_ARGS)
{
	ItemKey    *k = PG_GETARG_ITEMKEY_PP(0);
	int32		total = PG_GETARG_INT32(1);
	int			seg;

	if (total < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("total_segments must be at least 1")));
	seg = key_segment(k, total);
	PG_FREE_IF_COPY(k, 0);
	PG_RETURN_INT32(seg);
}

/* ----------------------------------------------------------------
 * DynamoDB's item size, read straight from a stored (canonical) item
 * ----------------------------------------------------------------
 */

/*
 * stored_item_size
 *		DynamoDB's size of a stored item (AttrStoredItemSize), or -1 when it
 *		is not laid out as a DynamoDB item.  Names and strings are counted in
 *		UTF-8: in a database of another encoding the item is converted (and
 *		may allocate in the current memory context).
 */
static int64
stored_item_size(Jsonb *j)
{
	int64		size = AttrStoredItemSize(j);

	if (size >= 0 && GetDatabaseEncoding() != PG_UTF8)
		size = AttrItemSize(AttrItemFromJsonb(j));
	return size;
}

/* ----------------------------------------------------------------
 * the response, assembled in jsonb's binary format
 * ----------------------------------------------------------------
 */
static void
pad_to_int(StringInfo buf)
{
	while (buf->len % sizeof(uint32) != 0)
		appendStringInfoCharMacro(buf, '\0');
}

/* a JEntry: lengths, with an end offset every JB_OFFSET_STRIDE entries */
static JEntry
make_jentry(uint32 type, int index, uint32 len, uint32 end)
{
	if (end > JENTRY_OFFLENMASK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("total size of jsonb array elements exceeds the maximum of %u bytes",
						JENTRY_OFFLENMASK)));
	if (index % JB_OFFSET_STRIDE == 0)
		return type | end | JENTRY_HAS_OFF;
	return type | len;
}

/* append one child's data; returns its length (padding included) */
static uint32
append_child(StringInfo buf, uint32 type, const char *data, int len)
{
	int			before = buf->len;

	if (type == JENTRY_ISCONTAINER || type == JENTRY_ISNUMERIC)
		pad_to_int(buf);
	appendBinaryStringInfo(buf, data, len);
	return buf->len - before;
}

/* append an array container whose elements are the given item containers */
static void
append_item_array(StringInfo buf, Jsonb **items, int nitems)
{
	uint32		header = JB_FARRAY | (uint32) nitems;
	int			entries;
	int			base;
	uint32		end = 0;
	int			i;

	pad_to_int(buf);
	appendBinaryStringInfo(buf, (char *) &header, sizeof(header));
	entries = buf->len;
	enlargeStringInfo(buf, sizeof(JEntry) * nitems);
	buf->len += sizeof(JEntry) * nitems;
	base = buf->len;
	for (i = 0; i < nitems; i++)
	{
		uint32		len = append_child(buf, JENTRY_ISCONTAINER,
									   (const char *) &items[i]->root,
									   VARSIZE(items[i]) - VARHDRSZ);
		JEntry		e;

		end = buf->len - base;
		e = make_jentry(JENTRY_ISCONTAINER, i, len, end);
		memcpy(buf->data + entries + i * sizeof(JEntry), &e, sizeof(JEntry));
	}
}

/* object members being written: a key and either a child or the items */
typedef struct OutMember
{
	const char *key;
	int			keylen;
	AttrJsonbChild value;
	bool		is_items;
} OutMember;

static int
out_member_cmp(const void *a, const void *b)
{
	const OutMember *x = a;
	const OutMember *y = b;

	if (x->keylen != y->keylen)
		return x->keylen < y->keylen ? -1 : 1;
	return memcmp(x->key, y->key, x->keylen);
}

/*
 * response_with_items
 *		The object rest (built with pushJsonbValue) with an "Items" member
 *		holding the given items added, as a new Jsonb in the current memory
 *		context.  Items are copied as containers, never unpacked.
 */
static Jsonb *
response_with_items(const Jsonb *rest, Jsonb **items, int nitems)
{
	int			count = JB_ROOT_COUNT(rest);
	AttrJsonbChild *ch = palloc(sizeof(AttrJsonbChild) * (count * 2 + 1));
	OutMember  *m = palloc(sizeof(OutMember) * (count + 1));
	StringInfoData buf;
	uint32		header;
	int			entries;
	int			base;
	uint32		end = 0;
	int			n = count + 1;
	int			i;

	AttrJsonbChildren(&rest->root, ch, count * 2);
	for (i = 0; i < count; i++)
	{
		m[i].key = ch[i].data;
		m[i].keylen = ch[i].len;
		m[i].value = ch[count + i];
		m[i].is_items = false;
	}
	m[count].key = "Items";
	m[count].keylen = 5;
	m[count].is_items = true;
	qsort(m, n, sizeof(OutMember), out_member_cmp);

	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, "\0\0\0\0", VARHDRSZ);
	header = JB_FOBJECT | (uint32) n;
	appendBinaryStringInfo(&buf, (char *) &header, sizeof(header));
	entries = buf.len;
	enlargeStringInfo(&buf, sizeof(JEntry) * n * 2);
	buf.len += sizeof(JEntry) * n * 2;
	base = buf.len;
	for (i = 0; i < 2 * n; i++)
	{
		const OutMember *om = &m[i % n];
		uint32		type;
		uint32		len;
		JEntry		e;

		if (i < n)
		{
			type = JENTRY_ISSTRING;
			len = append_child(&buf, type, om->key, om->keylen);
		}
		else if (om->is_items)
		{
			int			before = buf.len;

			type = JENTRY_ISCONTAINER;
			append_item_array(&buf, items, nitems);
			len = buf.len - before;
		}
		else
		{
			type = om->value.type;
			len = append_child(&buf, type, om->value.data, om->value.len);
		}
		end = buf.len - base;
		e = make_jentry(type, i, len, end);
		memcpy(buf.data + entries + i * sizeof(JEntry), &e, sizeof(JEntry));
	}
	SET_VARSIZE(buf.data, buf.len);
	return (Jsonb *) buf.data;
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

/* ----------------------------------------------------------------
 * reading a page
 * ----------------------------------------------------------------
 */
typedef struct ReadRequest
{
	/* what to read */
	ReadTarget	target;
	KeyRange	range;
	bool		forward;
	int			total_segments; /* 0: not a parallel scan */
	int			segment;
	ItemKey    *start_ikey;		/* index: read after (start_ikey, start_key) */
	ItemKey    *start_key;
	/* what to do with it */
	int64		limit;			/* 0: none */
	CondNode   *filter;
	ProjectionExpr *projection;
	bool		count_only;
	bool		consistent;
	int			rcc;
} ReadRequest;

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

/* the plan and parameters of a request */
static SPIPlanPtr
request_plan(ReadRequest *rr, Datum *args, int *nargs)
{
	key_range_bounds(&rr->range, &args[0], &args[1]);
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
	int64		size = stored_item_size(item);
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
	SPIPlanPtr	plan = request_plan(rr, args, &nargs);
	bool		done = false;

	memset(pg, 0, sizeof(*pg));
	pg->cxt = pagecxt;
	rowcxt = AllocSetContextCreate(pagecxt, "item_table page row", ALLOCSET_DEFAULT_SIZES);
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
				args[0] = PointerGetDatum(key_successor(pg->last_key));
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

/* LastEvaluatedKey: the key attributes of key, as the target names them */
static void
push_last_evaluated_key(JsonbParseState **state, const ReadTarget *t, const ItemKey *key,
						const ItemKey *ikey)
{
	ItemKeyParsed parsed;

	ItemKeyDecodeOrError(key, &parsed);
	ApiPushKey(state, "LastEvaluatedKey");
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	if (t->idx != NULL)
	{
		/* index keys and table keys (a name in both is pushed once) */
		ItemKeyParsed ip;

		ItemKeyDecodeOrError(ikey, &ip);
		ApiPushKey(state, t->def->hash_key);
		ApiPushJsonb(state, ItemKeyPartToAttributeValue(&parsed.partition));
		if (t->def->range_key != NULL && parsed.sort.type != ITEMKEY_NONE)
		{
			ApiPushKey(state, t->def->range_key);
			ApiPushJsonb(state, ItemKeyPartToAttributeValue(&parsed.sort));
		}
		ApiPushKey(state, t->hash_key);
		ApiPushJsonb(state, ItemKeyPartToAttributeValue(&ip.partition));
		if (t->range_key != NULL && ip.sort.type != ITEMKEY_NONE)
		{
			ApiPushKey(state, t->range_key);
			ApiPushJsonb(state, ItemKeyPartToAttributeValue(&ip.sort));
		}
		pushJsonbValue(state, WJB_END_OBJECT, NULL);
		return;
	}
	ApiPushKey(state, t->hash_key);
	ApiPushJsonb(state, ItemKeyPartToAttributeValue(&parsed.partition));
	if (t->range_key != NULL && parsed.sort.type != ITEMKEY_NONE)
	{
		ApiPushKey(state, t->range_key);
		ApiPushJsonb(state, ItemKeyPartToAttributeValue(&parsed.sort));
	}
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/*
 * run_read
 *		Read a page and build the response in callercxt.
 */
static Jsonb *
run_read(ReadRequest *rr, MemoryContext callercxt)
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
		push_last_evaluated_key(&state, &rr->target, pg.last_key, pg.last_ikey);
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
		result = response_with_items(rest, pg.items, pg.nitems);
	MemoryContextSwitchTo(old);
	return result;
}

/* ----------------------------------------------------------------
 * explaining a read
 * ----------------------------------------------------------------
 */

/*
 * explain_read
 *		The key range and the plan (EXPLAIN, COSTS OFF) of the statement a
 *		request runs, one line per text element.
 */
static List *
explain_read(ReadRequest *rr)
{
	Datum		args[6];
	int			nargs;
	SPIPlanPtr	plan = request_plan(rr, args, &nargs);
	CachedPlan *cplan;
	PlannedStmt *pstmt;
	QueryDesc  *qd;
	ExplainState *es;
	StringInfoData line;
	List	   *lines = NIL;
	char	   *p;
	char	   *nl;

	initStringInfo(&line);
	describe_key_range(&line, &rr->range, rr->target.idx ? "ikey" : "key");
	lines = lappend(lines, line.data);
	if (rr->target.idx != NULL)
		lines = lappend(lines, psprintf("index table: %s", ItemQualifiedName(rr->target.idx->relid)));
	if (rr->start_ikey != NULL)
		lines = lappend(lines, psprintf("start after: (%s, %s)", ItemKeyToText(rr->start_ikey),
										ItemKeyToText(rr->start_key)));
	if (rr->total_segments > 1)
		lines = lappend(lines, psprintf("segment: %d of %d", rr->segment, rr->total_segments));
	lines = lappend(lines, psprintf("direction: %s", rr->forward ? "forward" : "backward"));

	cplan = SPI_plan_get_cached_plan(plan);
	if (cplan == NULL || list_length(cplan->stmt_list) != 1)
		elog(ERROR, "unexpected plan for an item_table read");
	pstmt = linitial_node(PlannedStmt, cplan->stmt_list);

	es = NewExplainState();
	es->costs = false;
	es->format = EXPLAIN_FORMAT_TEXT;
	qd = CreateQueryDesc(pstmt, "item_table read", GetActiveSnapshot(), InvalidSnapshot,
						 None_Receiver, NULL, NULL, 0);
	ExecutorStart(qd, EXEC_FLAG_EXPLAIN_ONLY);
	ExplainPrintPlan(es, qd);	/* text format needs no begin/end */
	ExecutorEnd(qd);
	FreeQueryDesc(qd);
	ReleaseCachedPlan(cplan, CurrentResourceOwner);

	for (p = es->str->data; *p; p = nl + 1)
	{
		nl = strchr(p, '\n');
		if (nl == NULL)
		{
			lines = lappend(lines, pstrdup(p));
			break;
		}
		lines = lappend(lines, pnstrdup(p, nl - p));
	}
	return lines;
}

static void
return_lines(FunctionCallInfo fcinfo, List *lines, MemoryContext callercxt)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ListCell   *lc;
	MemoryContext old = MemoryContextSwitchTo(callercxt);

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	foreach(lc, lines)
	{
		Datum		v = CStringGetTextDatum((char *) lfirst(lc));
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &v, &isnull);
	}
	MemoryContextSwitchTo(old);
}

/* ----------------------------------------------------------------
 * request reading shared by Query and Scan
 * ----------------------------------------------------------------
 */

/* the parts of a request Query and Scan share */
typedef struct ReadParams
{
	char	   *table_name;
	char	   *index_name;
	char	   *filter_text;
	char	   *proj_text;
	int			select;
	bool		has_limit;
	int64		limit;
	Jsonb	   *esk;
	bool		consistent;
	int			rcc;
} ReadParams;

static void
read_common_params(ApiRequest *req, ReadParams *p)
{
	memset(p, 0, sizeof(*p));
	p->table_name = ApiGetTableName(req, "TableName", "tableName", true);
	p->index_name = ApiGetTableName(req, "IndexName", "indexName", false);
	p->filter_text = ApiGetString(req, "FilterExpression", "filterExpression", false);
	p->proj_text = ApiGetString(req, "ProjectionExpression", "projectionExpression", false);
	p->select = ApiGetEnum(req, "Select", "select", select_values, lengthof(select_values));
	p->has_limit = ApiGetInt(req, "Limit", "limit", &p->limit);
	if (p->has_limit && p->limit < 1)
		ApiProblem(req, "Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
				   p->limit);
	/* Limit is a 32-bit integer in DynamoDB's model */
	if (p->has_limit && p->limit > PG_INT32_MAX)
		ApiProblem(req, "Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 2147483647",
				   p->limit);
	p->esk = ApiGetObject(req, "ExclusiveStartKey");
	(void) ApiGetBool(req, "ConsistentRead", &p->consistent);
	p->rcc = ApiGetReturnConsumedCapacity(req);
}

/* Select against ProjectionExpression and IndexName (reference 4.7) */
static void
check_select(const ReadParams *p, const char *operation)
{
	if (p->proj_text != NULL)
	{
		if (p->select == SELECT_ALL_ATTRIBUTES)
			DynValidation("Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES");
		if (p->select == SELECT_ALL_PROJECTED_ATTRIBUTES)
			DynValidation("Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES");
		if (p->select == SELECT_COUNT)
			DynValidation("Cannot specify the ProjectionExpression when choosing to get only the Count");
	}
	else if (p->select == SELECT_SPECIFIC_ATTRIBUTES)
		DynValidation("Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES");
	if (p->select == SELECT_ALL_PROJECTED_ATTRIBUTES && p->index_name == NULL)
		DynValidation("ALL_PROJECTED_ATTRIBUTES can be used only when %s using an IndexName", operation);
}

/* "A, B" from the expression parameters present */
static char *
expression_params(const char *key_text, const ReadParams *p)
{
	StringInfoData s;

	initStringInfo(&s);
	if (key_text != NULL)
		appendStringInfoString(&s, "KeyConditionExpression");
	if (p->filter_text != NULL)
		appendStringInfo(&s, "%sFilterExpression", s.len ? ", " : "");
	if (p->proj_text != NULL)
		appendStringInfo(&s, "%sProjectionExpression", s.len ? ", " : "");
	return s.data;
}

/* parse FilterExpression and ProjectionExpression into rr */
static void
parse_filter_projection(const ReadParams *p, ExprPlaceholders *ph, ReadRequest *rr)
{
	if (p->filter_text != NULL)
		rr->filter = ExprParseCondition(p->filter_text, strlen(p->filter_text),
										EXPR_FILTER, ph);
	if (p->proj_text != NULL)
		rr->projection = ExprParseProjection(p->proj_text, strlen(p->proj_text), ph);
}

static void
init_read_request(const ReadParams *p, ReadRequest *rr)
{
	memset(rr, 0, sizeof(*rr));
	rr->forward = true;
	rr->limit = p->has_limit ? p->limit : 0;
	rr->count_only = p->select == SELECT_COUNT;
	rr->consistent = p->consistent;
	rr->rcc = p->rcc;
}

/*
 * read_entry
 *		The body of query/scan (the response) and explain_query/explain_scan
 *		(the range and plan, as rows): prepare reads and checks the request
 *		and leaves SPI connected.
 */
static Datum
read_entry(FunctionCallInfo fcinfo, void (*prepare) (Jsonb *body, ReadRequest *rr), bool explain)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ReadRequest rr;
	Jsonb	   *result;

	prepare(PG_GETARG_JSONB_P(0), &rr);
	if (explain)
	{
		return_lines(fcinfo, explain_read(&rr), callercxt);
		SPI_finish();
		return (Datum) 0;
	}
	result = run_read(&rr, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * Query
 * ----------------------------------------------------------------
 */

/*
 * prepare_query
 *		Read and check a Query request up to the point of reading; SPI is
 *		connected on return.
 */
static void
prepare_query(Jsonb *body, ReadRequest *rr)
{
	static const char *const legacy[] = {"AttributesToGet", "KeyConditions", "QueryFilter",
	"ConditionalOperator"};
	ApiRequest	req;
	ReadParams	p;
	char	   *key_text;
	bool		forward = true;
	ExprPlaceholders *ph;
	CondNode   *keycond;
	KeyCondition kc;
	AttrValue  *esk;
	ItemTableDef *def;
	ItemKey    *partition;
	const char *filter_key;

	ApiRequestInit(&req, body);
	read_common_params(&req, &p);
	key_text = ApiGetString(&req, "KeyConditionExpression", "keyConditionExpression", false);
	(void) ApiGetBool(&req, "ScanIndexForward", &forward);
	ApiRequestCheck(&req);
	ApiRejectLegacy(&req, legacy, lengthof(legacy), expression_params(key_text, &p));
	check_select(&p, "Querying");
	if (key_text == NULL)
		DynValidation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.");

	init_read_request(&p, rr);
	rr->forward = forward;
	ph = ExprPlaceholdersFromRequest(ApiGetObject(&req, "ExpressionAttributeNames"),
									 ApiGetObject(&req, "ExpressionAttributeValues"));
	keycond = ExprParseCondition(key_text, strlen(key_text), EXPR_KEY_CONDITION, ph);
	parse_filter_projection(&p, ph, rr);
	ExprCheckAllUsed(ph);
	key_condition_shape(keycond, &kc);
	esk = parse_start_key(p.esk);

	SPI_connect();
	def = TableDefLookup(p.table_name);
	table_target(def, p.index_name, &rr->target);
	check_index_read(&rr->target, p.select, p.consistent, &rr->projection, rr->filter);
	key_condition_range(&rr->target, &kc, &rr->range, &partition);
	filter_key = filter_key_attribute(&rr->target, rr->filter);
	if (filter_key != NULL)
		DynValidation("Filter Expression can only contain non-primary key attributes: Primary key attribute: %s",
					  filter_key);
	if (esk != NULL && rr->target.idx != NULL)
	{
		rr->start_key = index_start_key(&rr->target, esk, false, &rr->start_ikey);
		check_query_start_key(&rr->target, esk, rr->start_ikey, partition, &rr->range);
	}
	else if (esk != NULL)
	{
		ItemKey    *k = start_key(&rr->target, esk, false);

		check_query_start_key(&rr->target, esk, k, partition, &rr->range);
		/* continue after the start key, in the direction of reading */
		if (rr->forward)
		{
			rr->range.lo = k;
			rr->range.lo_incl = false;
		}
		else
		{
			rr->range.hi = k;
			rr->range.hi_incl = false;
		}
	}
}

/*
 * item_table.query(request jsonb) -> jsonb
 *		DynamoDB Query.
 */
Datum
item_table_query(PG_FUNCTION_ARGS)
{
	return read_entry(fcinfo, prepare_query, false);
}

/*
 * item_table.explain_query(request jsonb) -> setof text
 *		The key range and plan a Query request runs (nothing is read).
 */
Datum
item_table_explain_query(PG_FUNCTION_ARGS)
{
	return read_entry(fcinfo, prepare_query, true);
}

/* ----------------------------------------------------------------
 * Scan
 * ----------------------------------------------------------------
 */
static void
prepare_scan(Jsonb *body, ReadRequest *rr)
{
	static const char *const legacy[] = {"AttributesToGet", "ScanFilter", "ConditionalOperator"};
	ApiRequest	req;
	ReadParams	p;
	bool		has_segment;
	bool		has_total;
	int64		segment = 0;
	int64		total = 0;
	Jsonb	   *names;
	Jsonb	   *values;
	ExprPlaceholders *ph;
	AttrValue  *esk;
	ItemTableDef *def;

	ApiRequestInit(&req, body);
	read_common_params(&req, &p);
	has_segment = ApiGetInt(&req, "Segment", "segment", &segment);
	has_total = ApiGetInt(&req, "TotalSegments", "totalSegments", &total);
	if (has_segment && segment < 0)
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'segment' failed to satisfy constraint: Member must have value greater than or equal to 0",
				   segment);
	if (has_segment && segment > 999999)
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'segment' failed to satisfy constraint: Member must have value less than or equal to 999999",
				   segment);
	if (has_total && total < 1)
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'totalSegments' failed to satisfy constraint: Member must have value greater than or equal to 1",
				   total);
	if (has_total && total > 1000000)
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000",
				   total);
	ApiRequestCheck(&req);
	ApiRejectLegacy(&req, legacy, lengthof(legacy), expression_params(NULL, &p));
	if (has_segment && !has_total)
		DynValidation("The TotalSegments parameter is required but was not present in the request when Segment parameter is present");
	if (has_total && !has_segment)
		DynValidation("The Segment parameter is required but was not present in the request when parameter TotalSegments is present");
	if (has_total && segment >= total)
		DynValidation("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: " INT64_FORMAT " is not less than TotalSegments: " INT64_FORMAT,
					  segment, total);
	check_select(&p, "Scanning");

	init_read_request(&p, rr);
	rr->total_segments = has_total ? (int) total : 0;
	rr->segment = (int) segment;
	names = ApiGetObject(&req, "ExpressionAttributeNames");
	values = ApiGetObject(&req, "ExpressionAttributeValues");
	if (p.filter_text == NULL && p.proj_text == NULL && names != NULL)
		DynValidation("ExpressionAttributeNames can only be specified when using expressions: ProjectionExpression and FilterExpression are null");
	if (p.filter_text == NULL && values != NULL)
		DynValidation("ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null");
	ph = ExprPlaceholdersFromRequest(names, values);
	parse_filter_projection(&p, ph, rr);
	ExprCheckAllUsed(ph);
	esk = parse_start_key(p.esk);

	SPI_connect();
	def = TableDefLookup(p.table_name);
	table_target(def, p.index_name, &rr->target);
	check_index_read(&rr->target, p.select, p.consistent, &rr->projection, rr->filter);
	if (esk != NULL && rr->target.idx != NULL)
	{
		rr->start_key = index_start_key(&rr->target, esk, true, &rr->start_ikey);
		if (rr->total_segments > 1 &&
			key_segment(rr->start_ikey, rr->total_segments) != rr->segment)
			DynValidation("The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: %d Segment: %d",
						  rr->total_segments, key_segment(rr->start_ikey, rr->total_segments));
	}
	else if (esk != NULL)
	{
		ItemKey    *k = start_key(&rr->target, esk, true);

		if (rr->total_segments > 1 && key_segment(k, rr->total_segments) != rr->segment)
			DynValidation("The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: %d Segment: %d",
						  rr->total_segments, key_segment(k, rr->total_segments));
		rr->range.lo = k;
		rr->range.lo_incl = false;
	}
}

/*
 * item_table.scan(request jsonb) -> jsonb
 *		DynamoDB Scan, in key order, optionally one segment of a parallel
 *		scan.
 */
Datum
item_table_scan(PG_FUNCTION_ARGS)
{
	return read_entry(fcinfo, prepare_scan, false);
}

/*
 * item_table.explain_scan(request jsonb) -> setof text
 *		The key range and plan a Scan request runs (nothing is read).
 */
Datum
item_table_explain_scan(PG_FUNCTION_ARGS)
{
	return read_entry(fcinfo, prepare_scan, true);
}

/* ----------------------------------------------------------------
 * item_collection(): an item collection as rows
 * ----------------------------------------------------------------
 */

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
 *		(SPI connected).  Returns the portal's name, palloc'd in cxt.
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
	table_target(def, NULL, &rr.target);
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
		rr.range.hi = partition_top(p);
	}
	rr.range.lo_incl = true;
	rr.range.hi_incl = false;
	plan = request_plan(&rr, args, &nargs);
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
