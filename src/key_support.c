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
 * The same range gives the selectivity estimate: item_key_prefix_sel (the
 * operator's RESTRICT function) and SupportRequestSelectivity (for the
 * function form) both ask clauselist_selectivity() about the two range
 * clauses, so histograms on the key column are used.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
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

#include "item_table.h"

PG_FUNCTION_INFO_V1(item_key_begins_with_support);
PG_FUNCTION_INFO_V1(item_key_prefix_sel);

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
	Oid			opfamily;
	Oid			geop,
				ltop;
	Oid			keytype;

	if (!get_restriction_variable(root, args, varRelid,
								  &vardata, &other, &varonleft))
		return DEFAULT_PREFIX_SEL;
	keytype = exprType((Node *) vardata.var);
	opfamily = default_btree_family(keytype);
	if (varonleft && IsA(other, Const) && !((Const *) other)->constisnull &&
		OidIsValid(opfamily) &&
		range_ops(opfamily, keytype, &geop, &ltop))
	{
		List	   *range = make_const_range((Node *) vardata.var,
											 (Const *) other, geop, ltop);

		sel = clauselist_selectivity(root, range, varRelid, JOIN_INNER, NULL);
	}
	else if (varonleft && IsA(other, Const))
		sel = 0.0;				/* NULL prefix: never true */
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
