/*-------------------------------------------------------------------------
 *
 * key_support.c
 *		Planner support for begins_with on item_key.
 *
 * `key ^@ prefix` (and the function form `begins_with(key, prefix)`) is not
 * a btree operator, so on its own it could only filter a sequential scan.
 * The support function answers SupportRequestIndexCondition for btree
 * indexes on item_key by returning the exact range
 *
 *	  key >= prefix AND key < item_key_prefix_upper(prefix)
 *
 * (key_codec.c, property 2, explains why the range is exact), so the
 * planner drops the original clause.  A constant prefix is folded into two
 * constants at plan time; a parameter or other stable expression keeps the
 * upper-bound call, evaluated once per scan.  GiST indexes have ^@ as an
 * operator of their own; for them the function form is turned into that
 * operator.
 *
 * Selectivity.  item_key_prefix_sel (the operator's RESTRICT function) and
 * SupportRequestSelectivity (for the function form) share one estimate.
 * A prefix of a whole partition (the usual Query) selects one partition:
 * ANALYZE stores the number of distinct partitions of an item_key column
 * (item_key_analyze, below) and the estimate is one over it.  A prefix with
 * a sort part asks clauselist_selectivity() about the two range clauses,
 * so the column's histogram is used.  A prefix unknown at plan time is
 * estimated as one partition too, or with DEFAULT_PREFIX_SEL without
 * statistics.
 *
 * Parameterised ranges.  A generic plan of `key >= $1 AND key < $2` (or
 * of `key ^@ $1`, whose index condition is such a pair) cannot see its
 * bounds, and PostgreSQL prices a range of two unknown bounds at
 * DEFAULT_RANGE_INEQ_SEL (0.5% of the table): thousands of rows on a large
 * table, against one partition in every custom plan, so the plan cache
 * never settles on the generic plan and re-plans every execution.  The
 * pairing that makes that estimate happens inside clauselist_selectivity
 * and only for the built-in inequality estimators, so the operators keep
 * them; instead, a get_relation_info hook gives btree indexes whose first
 * column is an item_key their own cost estimator (item_key_btcostestimate):
 * btcostestimate, and then, when the leading column has a lower and an
 * upper bound and one of them is unknown at plan time, the index's
 * selectivity and run cost scaled down to one partition (the estimate
 * `^@` with an unknown prefix already uses).  Known bounds are priced by
 * btcostestimate alone, from the histogram.
 *
 * The partition count is kept in a pg_statistic slot of a private kind
 * (STATISTIC_KIND_ITEMKEY_PARTITIONS): stanumbers[0] is the count, or
 * minus its ratio to the row count when it grows with the table, as
 * stadistinct is.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/nbtree.h"
#include "access/stratnum.h"
#include "access/transam.h"
#include "catalog/pg_statistic.h"
#include "commands/vacuum.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "commands/defrem.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/index_selfuncs.h"
#include "utils/syscache.h"
#include "catalog/pg_type.h"
#include "optimizer/plancat.h"
#include "access/htup_details.h"

#include "item_table.h"

PG_FUNCTION_INFO_V1(item_key_begins_with_support);
PG_FUNCTION_INFO_V1(item_key_prefix_sel);
PG_FUNCTION_INFO_V1(item_key_analyze);

/* pg_statistic kind in the range left to extensions (10000-30767) */
#define STATISTIC_KIND_ITEMKEY_PARTITIONS 10741

/*
 * Used when the prefix is not known at plan time (generic plans).  Item
 * collections are small next to their tables, and an estimate this low
 * lets a generic plan keep the ordered index scan, so prepared statements
 * stop re-planning for every execution.
 */
#define DEFAULT_PREFIX_SEL 0.0001

/* btree opfamily of item_key, cached per type OID (lookups scan pg_opclass) */
static Oid	cached_keytype = InvalidOid;
static Oid	cached_opfamily = InvalidOid;

static Oid
default_btree_family(Oid keytype)
{
	if (keytype != cached_keytype)
	{
		Oid			opclass = GetDefaultOpClass(keytype, BTREE_AM_OID);

		cached_opfamily = OidIsValid(opclass) ? get_opclass_family(opclass) : InvalidOid;
		cached_keytype = keytype;
	}
	return cached_opfamily;
}

/*
 * prefix_upper_func
 *		OID of item_key_prefix_upper(item_key), looked up in the schema of
 *		the calling support function (the extension's schema).
 */
static Oid
prefix_upper_func(Oid caller, Oid keytype)
{
	Oid			nsp = get_func_namespace(caller);
	List	   *name = list_make2(makeString(get_namespace_name(nsp)),
								  makeString("item_key_prefix_upper"));

	return LookupFuncName(name, 1, &keytype, false);
}

/*
 * range_ops
 *		The >= and < operators of a btree opfamily for keytype.
 */
static bool
range_ops(Oid opfamily, Oid keytype, Oid *geop, Oid *ltop)
{
	*geop = get_opfamily_member(opfamily, keytype, keytype,
								BTGreaterEqualStrategyNumber);
	*ltop = get_opfamily_member(opfamily, keytype, keytype,
								BTLessStrategyNumber);
	return OidIsValid(*geop) && OidIsValid(*ltop);
}

/*
 * make_range
 *		[key >= lower, key < upper] for a constant prefix, or NIL when the
 *		prefix is NULL (the clause is then never true and needs no index).
 */
static List *
make_const_range(Node *keyexpr, Const *prefix, Oid geop, Oid ltop)
{
	ItemKey    *lower;
	ItemKey    *upper;
	ItemKey    *pk;
	Oid			keytype = prefix->consttype;
	Expr	   *ge;
	Expr	   *lt;

	pk = DatumGetItemKeyPP(prefix->constvalue);
	ItemKeyCheckPrefix(pk);
	KeyCodecPrefixBounds(pk, &lower, &upper);

	ge = make_opclause(geop, BOOLOID, false, (Expr *) keyexpr,
					   (Expr *) makeConst(keytype, -1, InvalidOid, -1,
										  PointerGetDatum(lower), false, false),
					   InvalidOid, InvalidOid);
	lt = make_opclause(ltop, BOOLOID, false, (Expr *) keyexpr,
					   (Expr *) makeConst(keytype, -1, InvalidOid, -1,
										  PointerGetDatum(upper), false, false),
					   InvalidOid, InvalidOid);
	return list_make2(ge, lt);
}

/*
 * index_condition
 *		Answer SupportRequestIndexCondition.
 */
static List *
index_condition(SupportRequestIndexCondition *req, Oid caller)
{
	List	   *args;
	Node	   *keyexpr;
	Node	   *prefix;
	Oid			keytype;
	Oid			geop,
				ltop;

	if (IsA(req->node, OpExpr))
		args = ((OpExpr *) req->node)->args;
	else if (IsA(req->node, FuncExpr))
		args = ((FuncExpr *) req->node)->args;
	else
		return NIL;
	if (list_length(args) != 2 || req->indexarg != 0)
		return NIL;
	keyexpr = (Node *) linitial(args);
	prefix = (Node *) lsecond(args);
	keytype = exprType(keyexpr);

	/*
	 * GiST has ^@ as an operator: the function form becomes that operator
	 * (the operator form never gets here, it matches the opfamily itself).
	 */
	if (req->index->relam == GIST_AM_OID && IsA(req->node, FuncExpr))
	{
		Oid			prefixop = get_opfamily_member(req->opfamily, keytype, keytype,
												   ITEMKEY_PREFIX_STRATEGY);

		if (!OidIsValid(prefixop))
			return NIL;
		req->lossy = false;
		return list_make1(make_opclause(prefixop, BOOLOID, false, (Expr *) keyexpr,
										(Expr *) prefix, InvalidOid, InvalidOid));
	}
	if (req->index->relam != BTREE_AM_OID)
		return NIL;
	if (!range_ops(req->opfamily, keytype, &geop, &ltop))
		return NIL;

	if (IsA(prefix, Const))
	{
		if (((Const *) prefix)->constisnull)
			return NIL;
		req->lossy = false;
		return make_const_range(keyexpr, (Const *) prefix, geop, ltop);
	}

	/* a parameter or other expression fixed for the scan */
	if (contain_volatile_functions(prefix) ||
		bms_is_member(req->index->rel->relid, pull_varnos(req->root, prefix)))
		return NIL;
	{
		Expr	   *upper;
		Expr	   *ge;
		Expr	   *lt;

		upper = (Expr *) makeFuncExpr(prefix_upper_func(caller, keytype),
									  keytype, list_make1(prefix),
									  InvalidOid, InvalidOid,
									  COERCE_EXPLICIT_CALL);
		ge = make_opclause(geop, BOOLOID, false, (Expr *) keyexpr,
						   (Expr *) prefix, InvalidOid, InvalidOid);
		lt = make_opclause(ltop, BOOLOID, false, (Expr *) keyexpr,
						   upper, InvalidOid, InvalidOid);
		req->lossy = false;
		return list_make2(ge, lt);
	}
}

/*
 * partition_selectivity
 *		Fraction of the rows in one partition, from the partition count
 *		ANALYZE stored; false when there is none.
 */
static bool
partition_selectivity(VariableStatData *vardata, Selectivity *sel)
{
	AttStatsSlot sslot;
	double		partitions;
	double		nullfrac;

	if (!HeapTupleIsValid(vardata->statsTuple) ||
		!get_attstatsslot(&sslot, vardata->statsTuple,
						  STATISTIC_KIND_ITEMKEY_PARTITIONS, InvalidOid,
						  ATTSTATSSLOT_NUMBERS))
		return false;
	partitions = sslot.nnumbers > 0 ? sslot.numbers[0] : 0;
	free_attstatsslot(&sslot);
	if (partitions < 0 && vardata->rel != NULL)
		partitions = -partitions * vardata->rel->tuples;
	if (partitions < 1)
		return false;
	nullfrac = ((Form_pg_statistic) GETSTRUCT(vardata->statsTuple))->stanullfrac;
	*sel = (1.0 - nullfrac) / partitions;
	return true;
}

/* does this item_key constant name a whole partition (no sort part)? */
static bool
is_partition_prefix(Const *c)
{
	ItemKey    *k = DatumGetItemKeyPP(c->constvalue);

	return KeyCodecSortPayloadOffset(ITEMKEY_DATA(k), ITEMKEY_LEN(k)) < 0 &&
		KeyCodecPartitionLength(ITEMKEY_DATA(k), ITEMKEY_LEN(k)) == ITEMKEY_LEN(k);
}

/*
 * prefix_selectivity
 *		Selectivity of `expr ^@ prefix` for a restriction clause.
 */
static Selectivity
prefix_selectivity(PlannerInfo *root, List *args, int varRelid)
{
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	Selectivity sel = DEFAULT_PREFIX_SEL;

	if (!get_restriction_variable(root, args, varRelid,
								  &vardata, &other, &varonleft))
		return DEFAULT_PREFIX_SEL;
	if (!varonleft)
		;						/* prefix ^@ key: keep the default */
	else if (!IsA(other, Const))
		(void) partition_selectivity(&vardata, &sel);	/* unknown: a partition */
	else if (((Const *) other)->constisnull)
		sel = 0.0;				/* NULL prefix: never true */
	else if (!(is_partition_prefix((Const *) other) &&
			   partition_selectivity(&vardata, &sel)))
	{
		/* a sort-key prefix (or no partition count): the histogram */
		Oid			keytype = exprType((Node *) vardata.var);
		Oid			opfamily = default_btree_family(keytype);
		Oid			geop,
					ltop;

		if (OidIsValid(opfamily) && range_ops(opfamily, keytype, &geop, &ltop))
			sel = clauselist_selectivity(root,
										 make_const_range((Node *) vardata.var,
														  (Const *) other, geop, ltop),
										 varRelid, JOIN_INNER, NULL);
	}
	ReleaseVariableStats(vardata);
	CLAMP_PROBABILITY(sel);
	return sel;
}

/*
 * item_key_begins_with_support(internal)
 *		Support function of begins_with(item_key, item_key).
 */
Datum
item_key_begins_with_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	Node	   *ret = NULL;

	if (IsA(rawreq, SupportRequestIndexCondition))
		ret = (Node *) index_condition((SupportRequestIndexCondition *) rawreq,
									   fcinfo->flinfo->fn_oid);
	else if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;

		if (req->is_join)
			req->selectivity = DEFAULT_PREFIX_SEL;
		else
			req->selectivity = prefix_selectivity(req->root, req->args,
												  req->varRelid);
		ret = (Node *) req;
	}
	PG_RETURN_POINTER(ret);
}

/*
 * item_key_prefix_sel(internal, oid, internal, integer)
 *		RESTRICT estimator of the ^@ operator.
 */
Datum
item_key_prefix_sel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);

	PG_RETURN_FLOAT8((float8) prefix_selectivity(root, args, varRelid));
}

/* ----------------------------------------------------------------
 * parameterised ranges: the index cost of a generic plan
 * ----------------------------------------------------------------
 */
static get_relation_info_hook_type prev_get_relation_info_hook = NULL;

/* is typid item_table.item_key?  (one positive answer cached) */
static bool
is_item_key_type(Oid typid)
{
	static Oid	known = InvalidOid;
	HeapTuple	tup;
	bool		yes = false;

	if (typid == known && OidIsValid(known))
		return true;
	if (typid < FirstNormalObjectId)
		return false;
	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	if (HeapTupleIsValid(tup))
	{
		Form_pg_type t = (Form_pg_type) GETSTRUCT(tup);
		char	   *nsp = get_namespace_name(t->typnamespace);

		yes = strcmp(NameStr(t->typname), "item_key") == 0 &&
			nsp != NULL && strcmp(nsp, "item_table") == 0;
		ReleaseSysCache(tup);
	}
	if (yes)
		known = typid;
	return yes;
}

/*
 * param_range_selectivity
 *		One partition's selectivity when the path's conditions on the
 *		index's first column are a lower and an upper bound, one of them
 *		unknown at plan time; -1 otherwise (or without statistics).
 */
static Selectivity
param_range_selectivity(PlannerInfo *root, IndexPath *path)
{
	IndexOptInfo *index = path->indexinfo;
	ListCell   *lc;
	bool		lower = false;
	bool		upper = false;
	bool		unknown = false;
	Node	   *keyexpr = NULL;
	Selectivity sel = -1;
	VariableStatData vardata;

	foreach(lc, path->indexclauses)
	{
		IndexClause *iclause = lfirst_node(IndexClause, lc);
		ListCell   *qc;

		if (iclause->indexcol != 0)
			continue;
		foreach(qc, iclause->indexquals)
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, qc);
			OpExpr	   *op = (OpExpr *) rinfo->clause;
			Node	   *left;
			Node	   *other;
			int			strategy;
			bool		keyleft;

			if (!IsA(op, OpExpr) || list_length(op->args) != 2)
				return -1;
			left = linitial(op->args);
			keyleft = bms_is_member(index->rel->relid, rinfo->left_relids);
			other = keyleft ? lsecond(op->args) : left;
			strategy = get_op_opfamily_strategy(op->opno, index->opfamily[0]);
			if (!keyleft)
				strategy = BTCommuteStrategyNumber(strategy);
			switch (strategy)
			{
				case BTGreaterStrategyNumber:
				case BTGreaterEqualStrategyNumber:
					lower = true;
					break;
				case BTLessStrategyNumber:
				case BTLessEqualStrategyNumber:
					upper = true;
					break;
				default:
					return -1;	/* equality (or unknown): btcostestimate knows */
			}
			if (!IsA(estimate_expression_value(root, other), Const))
				unknown = true;
			keyexpr = keyleft ? left : lsecond(op->args);
		}
	}
	if (!lower || !upper || !unknown || keyexpr == NULL)
		return -1;
	examine_variable(root, keyexpr, index->rel->relid, &vardata);
	if (!partition_selectivity(&vardata, &sel))
		sel = -1;
	ReleaseVariableStats(vardata);
	return sel;
}

/*
 * item_key_btcostestimate
 *		btcostestimate, with a range of unknown bounds priced as one
 *		partition (see the header).
 */
static void
item_key_btcostestimate(PlannerInfo *root, IndexPath *path, double loop_count,
						Cost *indexStartupCost, Cost *indexTotalCost,
						Selectivity *indexSelectivity, double *indexCorrelation,
						double *indexPages)
{
	Selectivity psel;

	btcostestimate(root, path, loop_count, indexStartupCost, indexTotalCost,
				   indexSelectivity, indexCorrelation, indexPages);
	psel = param_range_selectivity(root, path);
	if (psel > 0 && psel < *indexSelectivity)
	{
		double		f = psel / *indexSelectivity;

		/* descending the tree costs the same; pages and tuples shrink */
		*indexTotalCost = *indexStartupCost + (*indexTotalCost - *indexStartupCost) * f;
		*indexPages = Max(1.0, ceil(*indexPages * f));
		*indexSelectivity = psel;
	}
}

static void
item_key_get_relation_info(PlannerInfo *root, Oid relationObjectId,
						   bool inhparent, RelOptInfo *rel)
{
	ListCell   *lc;

	if (prev_get_relation_info_hook)
		prev_get_relation_info_hook(root, relationObjectId, inhparent, rel);
	foreach(lc, rel->indexlist)
	{
		IndexOptInfo *index = (IndexOptInfo *) lfirst(lc);

		if (index->relam == BTREE_AM_OID && index->nkeycolumns > 0 &&
			index->amcostestimate == btcostestimate &&
			is_item_key_type(index->opcintype[0]))
			index->amcostestimate = item_key_btcostestimate;
	}
}

/* installed by _PG_init */
void
KeySupportInit(void)
{
	prev_get_relation_info_hook = get_relation_info_hook;
	get_relation_info_hook = item_key_get_relation_info;
}

/* ----------------------------------------------------------------
 * ANALYZE: the number of partitions
 * ----------------------------------------------------------------
 */
typedef struct ItemKeyAnalyze
{
	AnalyzeAttrComputeStatsFunc std_compute;	/* from std_typanalyze */
	void	   *std_extra;
} ItemKeyAnalyze;

typedef struct PartitionRef
{
	const uint8 *data;
	int			len;
} PartitionRef;

static int
partition_ref_cmp(const void *a, const void *b)
{
	const PartitionRef *x = a;
	const PartitionRef *y = b;
	int			c = memcmp(x->data, y->data, Min(x->len, y->len));

	if (c != 0)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

/*
 * compute_partition_stats
 *		The standard statistics, then the number of distinct partitions in
 *		the sample, scaled to the table with the Haas-Stokes estimator that
 *		ANALYZE uses for n_distinct.
 */
static void
compute_partition_stats(VacAttrStatsP stats, AnalyzeAttrFetchFunc fetchfunc,
						int samplerows, double totalrows)
{
	ItemKeyAnalyze *mine = (ItemKeyAnalyze *) stats->extra_data;
	PartitionRef *refs;
	int			n = 0;
	int			d = 0;
	int			f1 = 0;
	int			i;
	int			slot;
	double		partitions;

	stats->extra_data = mine->std_extra;
	mine->std_compute(stats, fetchfunc, samplerows, totalrows);
	stats->extra_data = mine;

	refs = palloc(sizeof(PartitionRef) * Max(samplerows, 1));
	for (i = 0; i < samplerows; i++)
	{
		bool		isnull;
		Datum		v = fetchfunc(stats, i, &isnull);
		ItemKey    *k;

		ItemAnalyzeDelayPoint();
		if (isnull)
			continue;
		k = DatumGetItemKeyPP(v);
		refs[n].data = ITEMKEY_DATA(k);
		refs[n].len = KeyCodecPartitionLength(ITEMKEY_DATA(k), ITEMKEY_LEN(k));
		n++;
	}
	if (n == 0 || !stats->stats_valid)
		return;
	qsort(refs, n, sizeof(PartitionRef), partition_ref_cmp);
	for (i = 0; i < n;)
	{
		int			j = i + 1;

		while (j < n && partition_ref_cmp(&refs[i], &refs[j]) == 0)
			j++;
		d++;
		if (j - i == 1)
			f1++;
		i = j;
	}

	if (f1 == n)
		partitions = -1.0;		/* every partition seen once: one per row */
	else
	{
		double		rows = totalrows * ((double) n / samplerows);

		if (f1 == 0 || n >= rows)
			partitions = d;
		else
			partitions = (n * (double) d) / ((n - f1) + f1 * (n / rows));
		partitions = Max(partitions, d);
		partitions = Min(partitions, rows);
		if (partitions > 0.1 * rows)
			partitions = -(partitions / rows);
	}

	for (slot = 0; slot < STATISTIC_NUM_SLOTS; slot++)
	{
		if (stats->stakind[slot] == 0)
			break;
	}
	if (slot == STATISTIC_NUM_SLOTS)
		return;
	stats->stakind[slot] = STATISTIC_KIND_ITEMKEY_PARTITIONS;
	stats->staop[slot] = InvalidOid;
	stats->stanumbers[slot] = MemoryContextAlloc(stats->anl_context, sizeof(float4));
	stats->stanumbers[slot][0] = (float4) partitions;
	stats->numnumbers[slot] = 1;
}

/*
 * item_key_analyze(internal)
 *		typanalyze of item_key: the standard statistics plus the partition
 *		count.
 */
Datum
item_key_analyze(PG_FUNCTION_ARGS)
{
	VacAttrStats *stats = (VacAttrStats *) PG_GETARG_POINTER(0);
	ItemKeyAnalyze *mine;

	if (!std_typanalyze(stats))
		PG_RETURN_BOOL(false);
	mine = palloc(sizeof(ItemKeyAnalyze));
	mine->std_compute = stats->compute_stats;
	mine->std_extra = stats->extra_data;
	stats->extra_data = mine;
	stats->compute_stats = compute_partition_stats;
	PG_RETURN_BOOL(true);
}
