/*-------------------------------------------------------------------------
 *
 * expr_build.c
 *		The expression parser's phase 2: the raw tree of expr_parser.c
 *		checked and built into the trees of expr.h, and the entry points of
 *		the five expression kinds (ExprParseCondition for conditions,
 *		filters and key conditions, ExprParseUpdate, ExprParseProjection).
 *
 * The two phases and the grammar are described in expr_parser.c.
 *
 *	2. Validation and construction.  The raw tree is checked in DynamoDB's
 *	   order of precedence, each check in the order DynamoDB visits the
 *	   tree, and the first failing check of the highest class is raised.
 *	   Conditions:
 *		  list index range > operator count (300) > redundant parentheses >
 *		  function names > functions used in the wrong place > reserved
 *		  words > the first "leaf" condition (comparison, BETWEEN, IN,
 *		  function) with a problem > OR/NOT in a key condition.
 *	   Within a leaf: undefined #name/:value (and path depth) > operand
 *	   counts > identical operands > operand types, each in post-order
 *	   (a function's arguments before the function).  Updates:
 *		  list index > operators > parentheses > function names > nested
 *		  list_append > reserved words > repeated clause > undefined #names
 *		  > undefined :values > overlapping paths > conflicting paths >
 *		  ADD/DELETE operand types > function operand counts and types.
 *	   Projections: list index > reserved words > undefined #names >
 *	   overlapping paths > conflicting paths.
 *	   The order follows what implementations tested against the live
 *	   service record; where nothing is recorded it is our choice.
 *	   Once everything passed, the public tree of expr.h is built, with
 *	   #names and :values resolved and marked used in ExprPlaceholders.
 *
 * XXX Two messages have no recorded DynamoDB wording and are modelled on
 * its others: more than 100 IN operands ("The IN operator is provided with
 * too many operands; number of operands: N") and the "type" printed for a
 * path given as attribute_type's second operand.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"

#include "errors.h"
#include "expr.h"
#include "expr_parse.h"

static const char *const clause_names[] = {"SET", "REMOVE", "ADD", "DELETE"};
static const char *const compare_names[] = {"=", "<>", "<", "<=", ">", ">="};

/* ----------------------------------------------------------------
 * phase 2: checks common to all kinds
 * ----------------------------------------------------------------
 */

/*
 * check_parse_notes
 *		The problems phase 1 noted, in this order: a list index out of
 *		range, too many operators, redundant parentheses.
 */
static void
check_parse_notes(ExprParser *p)
{
	if (p->index_error)
		ExprParseError(p, p->index_error);
	if (p->noperators > EXPR_MAX_OPERATORS)
		ExprParseError(p, psprintf("The expression contains too many operators; operator count: %d",
							   p->noperators));
	if (p->redundant_parens)
		ExprParseError(p, "The expression has redundant parentheses;");
}

/*
 * check_function_names
 *		Unknown functions, and functions of the other kind of expression,
 *		in post-order.
 */
static void
check_function_names(ExprParser *p, const RawNode *n, bool in_update)
{
	int			i;

	if (n == NULL)
		return;
	check_stack_depth();
	for (i = 0; i < n->nargs; i++)
		check_function_names(p, n->args[i], in_update);
	if (n->kind == RAW_CALL)
	{
		const FuncDef *f = ExprCallFunction(p, n);

		if (f == NULL)
			ExprParseError(p, psprintf("Invalid function name; function: %s", ExprCallName(p, n)));
		if (f->in_condition == in_update)
			ExprParseError(p, psprintf(in_update ?
								   "The function is not allowed in an update expression; function: %s" :
								   "The function is not allowed in a condition expression; function: %s",
								   f->name));
	}
}

/*
 * check_misused_condition
 *		In conditions, only size() may be an operand and size() may not be a
 *		condition.  Post-order.
 */
static void
check_misused_condition(ExprParser *p, const RawNode *n)
{
	int			i;

	check_stack_depth();
	for (i = 0; i < n->nargs; i++)
		check_misused_condition(p, n->args[i]);

	switch (n->kind)
	{
		case RAW_AND:
		case RAW_OR:
		case RAW_NOT:
			/* sub-conditions: size() is no condition */
			for (i = 0; i < n->nargs; i++)
			{
				const RawNode *a = n->args[i];

				if (a->kind == RAW_CALL && ExprCallFunction(p, a)->fn == FN_SIZE)
					ExprParseError(p, "The function is not allowed to be used this way in an expression; function: size");
			}
			break;
		case RAW_COMPARE:
		case RAW_BETWEEN:
		case RAW_IN:
		case RAW_CALL:
			/* operands: boolean functions are no operands */
			for (i = 0; i < n->nargs; i++)
			{
				const RawNode *a = n->args[i];

				if (a->kind == RAW_CALL && ExprCallFunction(p, a)->fn != FN_SIZE)
					ExprParseError(p, psprintf("The function is not allowed to be used this way in an expression; function: %s",
										   ExprCallName(p, a)));
			}
			break;
		default:
			break;
	}
}

/*
 * check_reserved
 *		Bare names that are reserved words, in text order.
 */
static void
check_reserved(ExprParser *p, const RawNode *n)
{
	int			i;

	if (n == NULL)
		return;
	check_stack_depth();
	if (n->kind == RAW_PATH)
	{
		for (i = 0; i < n->nelems; i++)
		{
			int			tok = n->elems[i].tok;

			if (p->toks[tok].kind == ETOK_NAME &&
				ExprIsReservedWord(tok_text(p, tok), tok_len(p, tok)))
				ExprParseError(p, psprintf("Attribute name is a reserved keyword; reserved keyword: %.*s",
									   tok_len(p, tok), tok_text(p, tok)));
		}
		return;
	}
	for (i = 0; i < n->nargs; i++)
		check_reserved(p, n->args[i]);
}

/* ----------------------------------------------------------------
 * placeholders
 * ----------------------------------------------------------------
 */

/*
 * index of key in a key array sorted as jsonb orders keys (length, then
 * bytes: AttrNameCmp), or -1
 */
static int
find_key(char **keys, int nkeys, const char *key, int keylen)
{
	int			lo = 0,
				hi = nkeys - 1;

	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;
		int			c = AttrNameCmp(keys[mid], strlen(keys[mid]), key, keylen);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* index of the #name at token tok in the placeholders, or -1 */
static int
find_name(ExprParser *p, int tok)
{
	if (p->ph == NULL)
		return -1;
	return find_key(p->ph->name_keys, p->ph->nnames, tok_text(p, tok), tok_len(p, tok));
}

/* index of the :value at token tok in the placeholders, or -1 */
static int
find_value(ExprParser *p, int tok)
{
	if (p->ph == NULL)
		return -1;
	return find_key(p->ph->value_keys, p->ph->nvalues, tok_text(p, tok), tok_len(p, tok));
}

/* messages for an undefined #name / :value at token tok */
static char *
undefined_name_msg(ExprParser *p, int tok)
{
	return psprintf("An expression attribute name used in the document path is not defined; attribute name: %.*s",
					tok_len(p, tok), tok_text(p, tok));
}

static char *
undefined_value_msg(ExprParser *p, int tok)
{
	return psprintf("An expression attribute value used in expression is not defined; attribute value: %.*s",
					tok_len(p, tok), tok_text(p, tok));
}

/*
 * resolve_path
 *		Build the DocPath of a raw path, resolving #names (marked used).
 *		On an undefined #name or too deep a path, returns NULL and sets
 *		*err to the message.
 */
static DocPath *
resolve_path(ExprParser *p, const RawNode *n, char **err)
{
	DocPath    *path = palloc(sizeof(DocPath));
	int			i;

	path->nelems = n->nelems;
	path->elems = palloc0(n->nelems * sizeof(PathElem));
	for (i = 0; i < n->nelems; i++)
	{
		const RawElem *e = &n->elems[i];
		PathElem   *pe = &path->elems[i];

		if (e->is_index)
		{
			pe->kind = PATH_INDEX;
			pe->index = e->index;
		}
		else if (p->toks[e->tok].kind == ETOK_NAME_REF)
		{
			int			k = find_name(p, e->tok);

			if (k < 0)
			{
				*err = undefined_name_msg(p, e->tok);
				return NULL;
			}
			p->ph->name_used[k] = true;
			pe->kind = PATH_NAME;
			pe->namelen = p->ph->name_lens[k];
			pe->name = pnstrdup(p->ph->name_values[k], pe->namelen);
		}
		else
		{
			pe->kind = PATH_NAME;
			pe->namelen = tok_len(p, e->tok);
			pe->name = pnstrdup(tok_text(p, e->tok), pe->namelen);
		}
	}
	if (path->nelems > EXPR_MAX_PATH_DEPTH)
	{
		*err = psprintf("The document path has too many nesting levels; nesting levels: %d",
						path->nelems);
		return NULL;
	}
	return path;
}

/*
 * resolve_value
 *		The value of a :value token (marked used), or NULL with *err set.
 */
static Operand *
resolve_value(ExprParser *p, int tok, char **err)
{
	int			k = find_value(p, tok);
	Operand    *o;

	if (k < 0)
	{
		*err = undefined_value_msg(p, tok);
		return NULL;
	}
	p->ph->value_used[k] = true;
	o = palloc0(sizeof(Operand));
	o->kind = OPND_VALUE;
	o->value = p->ph->values[k];
	o->value_name = p->ph->value_keys[k];
	return o;
}

/* are two path elements the same (kind and name or index)? */
static bool
path_elem_equal(const PathElem *a, const PathElem *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == PATH_INDEX)
		return a->index == b->index;
	return a->namelen == b->namelen && memcmp(a->name, b->name, a->namelen) == 0;
}

/* are two paths the same? */
static bool
paths_equal(const DocPath *a, const DocPath *b)
{
	int			i;

	if (a->nelems != b->nelems)
		return false;
	for (i = 0; i < a->nelems; i++)
	{
		if (!path_elem_equal(&a->elems[i], &b->elems[i]))
			return false;
	}
	return true;
}

/* DynamoDB's "[a, b, [2]]" form of a path, palloc'd */
static char *
path_text(const DocPath *path)
{
	StringInfoData buf;

	initStringInfo(&buf);
	ExprDescribePath(&buf, path);
	return buf.data;
}

/*
 * check_path_set
 *		Update targets and projected paths may not overlap (one a prefix of
 *		the other) nor conflict (a map key where the other has a list
 *		index).  Every overlap is worse than any conflict; among each, the
 *		first pair in text order (later path against each earlier one).
 */
static void
check_path_set(ExprParser *p, DocPath **paths, int npaths)
{
	char	   *conflict = NULL;
	int			i,
				j,
				k;

	for (i = 1; i < npaths; i++)
	{
		CHECK_FOR_INTERRUPTS();
		for (j = 0; j < i; j++)
		{
			const DocPath *a = paths[j];
			const DocPath *b = paths[i];
			int			n = Min(a->nelems, b->nelems);
			bool		related = true;

			for (k = 0; k < n; k++)
			{
				if (a->elems[k].kind != b->elems[k].kind)
				{
					if (conflict == NULL)
						conflict = psprintf("Two document paths conflict with each other; must remove or rewrite one of these paths; path one: %s, path two: %s",
											path_text(a), path_text(b));
					related = false;
					break;
				}
				if (!path_elem_equal(&a->elems[k], &b->elems[k]))
				{
					related = false;
					break;
				}
			}
			if (related)
				ExprParseError(p, psprintf("Two document paths overlap with each other; must remove or rewrite one of these paths; path one: %s, path two: %s",
									   path_text(a), path_text(b)));
		}
	}
	if (conflict)
		ExprParseError(p, conflict);
}

/* ----------------------------------------------------------------
 * phase 2: conditions
 * ----------------------------------------------------------------
 */

/* problems of one leaf condition, most important first */
typedef enum LeafSlot
{
	SLOT_UNDEFINED,				/* undefined #name / :value, path depth */
	SLOT_ARITY,					/* operand counts */
	SLOT_DISTINCT,				/* identical first and second operand */
	SLOT_TYPE,					/* operand types and kinds */
	NUM_LEAF_SLOTS
} LeafSlot;

typedef struct LeafCheck
{
	char	   *msg[NUM_LEAF_SLOTS];
} LeafCheck;

/* note a problem of a leaf in its slot; the first one in a slot stays */
static void
leaf_note(LeafCheck *lc, LeafSlot slot, char *msg)
{
	if (lc->msg[slot] == NULL)
		lc->msg[slot] = msg;
}

/* raise the most important problem noted for a leaf, if any */
static void
leaf_raise(ExprParser *p, LeafCheck *lc)
{
	int			i;

	for (i = 0; i < NUM_LEAF_SLOTS; i++)
	{
		if (lc->msg[i])
			ExprParseError(p, lc->msg[i]);
	}
}

/*
 * const_type
 *		The type an operand is known to have from the request alone: a
 *		:value's type, N for size().  False for paths (and unresolved
 *		values).
 */
static bool
const_type(const Operand *o, AttrType *type)
{
	if (o == NULL)
		return false;
	if (o->kind == OPND_VALUE && o->value)
	{
		*type = o->value->type;
		return true;
	}
	if (o->kind == OPND_SIZE)
	{
		*type = ATTR_N;
		return true;
	}
	return false;
}

/* "Incorrect operand type ..." for function or operator fn */
static char *
operand_type_msg(const char *fn, const char *type)
{
	return psprintf("Incorrect operand type for operator or function; operator or function: %s, operand type: %s",
					fn, type);
}

/* "Incorrect number of operands ..." for function fn called with n */
static char *
arity_msg(const char *fn, int n)
{
	return psprintf("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d",
					fn, n);
}

/* "a = a", "contains(a, a)": both operands the same path */
static void
check_distinct(LeafCheck *lc, const char *op, const Operand *a, const Operand *b)
{
	if (a && b && a->kind == OPND_PATH && b->kind == OPND_PATH &&
		paths_equal(a->path, b->path))
		leaf_note(lc, SLOT_DISTINCT,
				  psprintf("The first operand must be distinct from the remaining operands for this operator or function; operator: %s, first operand: %s",
						   op, path_text(a->path)));
}

static Operand *build_cond_operand(ExprParser *p, const RawNode *n, LeafCheck *lc);

/*
 * build_size
 *		size(x): one operand, which may not be known to be N, BOOL or NULL.
 */
static Operand *
build_size(ExprParser *p, const RawNode *n, LeafCheck *lc)
{
	Operand    *o = palloc0(sizeof(Operand));
	Operand    *arg = NULL;
	int			i;
	AttrType	t;

	o->kind = OPND_SIZE;
	for (i = 0; i < n->nargs; i++)
	{
		Operand    *a = build_cond_operand(p, n->args[i], lc);

		if (i == 0)
			arg = a;
	}
	if (n->nargs != 1)
		leaf_note(lc, SLOT_ARITY, arity_msg("size", n->nargs));
	else if (const_type(arg, &t) &&
			 (t == ATTR_N || t == ATTR_BOOL || t == ATTR_NULL))
		leaf_note(lc, SLOT_TYPE, operand_type_msg("size", AttrTypeName(t)));
	o->args[0] = arg;
	return o;
}

/*
 * build_cond_operand
 *		The Operand of a raw path, :value or size() call, noting problems
 *		in lc.  May return NULL when something is undefined.
 */
static Operand *
build_cond_operand(ExprParser *p, const RawNode *n, LeafCheck *lc)
{
	Operand    *o;
	char	   *err = NULL;

	check_stack_depth();
	switch (n->kind)
	{
		case RAW_PATH:
			{
				DocPath    *path = resolve_path(p, n, &err);

				if (path == NULL)
				{
					leaf_note(lc, SLOT_UNDEFINED, err);
					return NULL;
				}
				o = palloc0(sizeof(Operand));
				o->kind = OPND_PATH;
				o->path = path;
				return o;
			}
		case RAW_VALUE:
			o = resolve_value(p, n->tok, &err);
			if (o == NULL)
				leaf_note(lc, SLOT_UNDEFINED, err);
			return o;
		case RAW_CALL:
			/* only size() gets here: check_misused_condition() ran */
			return build_size(p, n, lc);
		default:
			elog(ERROR, "unexpected raw node %d in a condition operand", (int) n->kind);
	}
	return NULL;				/* keep compiler quiet */
}

/* a condition node with room for noperands operands */
static CondNode *
new_cond(CondKind kind, int noperands)
{
	CondNode   *c = palloc0(sizeof(CondNode));

	c->kind = kind;
	c->noperands = noperands;
	if (noperands > 0)
		c->operands = palloc0(noperands * sizeof(Operand *));
	return c;
}

/* order comparisons and BETWEEN need scalar (S, N, B) constants */
static void
check_ordered_operand(LeafCheck *lc, const char *op, const Operand *o)
{
	if (o && o->kind == OPND_VALUE && o->value && !AttrTypeIsScalar(o->value->type))
		leaf_note(lc, SLOT_TYPE, operand_type_msg(op, AttrTypeName(o->value->type)));
}

/* the AttrType named s[0..len) ("S", "SS", ...); false if none */
static bool
attr_type_from_name(const char *s, int len, AttrType *type)
{
	static const AttrType all[] = {ATTR_S, ATTR_N, ATTR_B, ATTR_BOOL, ATTR_NULL,
	ATTR_M, ATTR_L, ATTR_SS, ATTR_NS, ATTR_BS};
	int			i;

	for (i = 0; i < (int) lengthof(all); i++)
	{
		const char *name = AttrTypeName(all[i]);

		if ((int) strlen(name) == len && memcmp(name, s, len) == 0)
		{
			*type = all[i];
			return true;
		}
	}
	return false;
}

/*
 * build_function_cond
 *		attribute_exists, attribute_not_exists, attribute_type, begins_with
 *		or contains as a condition.
 */
static CondNode *
build_function_cond(ExprParser *p, const RawNode *n, LeafCheck *lc)
{
	const FuncDef *f = ExprCallFunction(p, n);
	Operand   **args = palloc0(Max(n->nargs, 2) * sizeof(Operand *));
	CondNode   *c = NULL;
	AttrType	t;
	int			i;

	for (i = 0; i < n->nargs; i++)
		args[i] = build_cond_operand(p, n->args[i], lc);
	if (n->nargs != f->nargs)
	{
		leaf_note(lc, SLOT_ARITY, arity_msg(f->name, n->nargs));
		return NULL;
	}
	if (f->nargs == 2)
		check_distinct(lc, f->name, args[0], args[1]);

	switch (f->fn)
	{
		case FN_ATTRIBUTE_EXISTS:
		case FN_ATTRIBUTE_NOT_EXISTS:
			if (n->args[0]->kind != RAW_PATH)
				leaf_note(lc, SLOT_TYPE,
						  psprintf("Operator or function requires a document path; operator or function: %s",
								   f->name));
			c = new_cond(f->fn == FN_ATTRIBUTE_EXISTS ?
						 COND_ATTRIBUTE_EXISTS : COND_ATTRIBUTE_NOT_EXISTS, 1);
			c->operands[0] = args[0];
			break;
		case FN_ATTRIBUTE_TYPE:
			c = new_cond(COND_ATTRIBUTE_TYPE, 2);
			c->operands[0] = args[0];
			c->operands[1] = args[1];
			if (n->args[1]->kind == RAW_PATH)
				leaf_note(lc, SLOT_TYPE, operand_type_msg(f->name, ANY_TYPE_NAMES));
			else if (const_type(args[1], &t))
			{
				if (t != ATTR_S)
					leaf_note(lc, SLOT_TYPE, operand_type_msg(f->name, AttrTypeName(t)));
				else if (args[1]->kind == OPND_VALUE &&
						 !attr_type_from_name(args[1]->value->u.bytes.data,
											  args[1]->value->u.bytes.len,
											  &c->attr_type))
					leaf_note(lc, SLOT_TYPE,
							  psprintf("Invalid attribute type name found; type: %.*s, valid types: " ATTRIBUTE_TYPE_NAMES,
									   args[1]->value->u.bytes.len,
									   args[1]->value->u.bytes.data));
			}
			break;
		case FN_BEGINS_WITH:
		case FN_CONTAINS:
			if (f->fn == FN_BEGINS_WITH)
			{
				for (i = 0; i < 2; i++)
				{
					if (const_type(args[i], &t) && t != ATTR_S && t != ATTR_B)
						leaf_note(lc, SLOT_TYPE, operand_type_msg(f->name, AttrTypeName(t)));
				}
			}
			c = new_cond(f->fn == FN_BEGINS_WITH ? COND_BEGINS_WITH : COND_CONTAINS, 2);
			c->operands[0] = args[0];
			c->operands[1] = args[1];
			break;
		default:
			elog(ERROR, "unexpected function %s in a condition", f->name);
	}
	return c;
}

/*
 * build_leaf
 *		A comparison, BETWEEN, IN or function condition; raises its most
 *		important problem, if any.
 */
static CondNode *
build_leaf(ExprParser *p, const RawNode *n)
{
	LeafCheck	lc;
	CondNode   *c = NULL;
	int			i;

	memset(&lc, 0, sizeof(lc));
	switch (n->kind)
	{
		case RAW_COMPARE:
			{
				const char *op = compare_names[n->op];

				c = new_cond(COND_COMPARE, 2);
				c->op = n->op;
				c->operands[0] = build_cond_operand(p, n->args[0], &lc);
				c->operands[1] = build_cond_operand(p, n->args[1], &lc);
				check_distinct(&lc, op, c->operands[0], c->operands[1]);
				if (n->op != CMP_EQ && n->op != CMP_NE)
				{
					check_ordered_operand(&lc, op, c->operands[0]);
					check_ordered_operand(&lc, op, c->operands[1]);
				}
				break;
			}
		case RAW_BETWEEN:
			{
				const Operand *lo,
						   *hi;

				c = new_cond(COND_BETWEEN, 3);
				for (i = 0; i < 3; i++)
					c->operands[i] = build_cond_operand(p, n->args[i], &lc);
				for (i = 0; i < 3; i++)
					check_ordered_operand(&lc, "BETWEEN", c->operands[i]);
				lo = c->operands[1];
				hi = c->operands[2];
				if (lo && hi && lo->kind == OPND_VALUE && hi->kind == OPND_VALUE &&
					AttrTypeIsScalar(lo->value->type) && AttrTypeIsScalar(hi->value->type))
				{
					StringInfoData lbuf,
								hbuf;

					initStringInfo(&lbuf);
					initStringInfo(&hbuf);
					AttrValueDescribe(&lbuf, lo->value);
					AttrValueDescribe(&hbuf, hi->value);
					if (lo->value->type != hi->value->type)
						leaf_note(&lc, SLOT_TYPE,
								  psprintf("The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: %s, upper bound operand: AttributeValue: %s",
										   lbuf.data, hbuf.data));
					else if (AttrValueCompare(lo->value, hi->value) > 0)
						leaf_note(&lc, SLOT_TYPE,
								  psprintf("The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: %s, upper bound operand: AttributeValue: %s",
										   lbuf.data, hbuf.data));
				}
				break;
			}
		case RAW_IN:
			c = new_cond(COND_IN, n->nargs);
			for (i = 0; i < n->nargs; i++)
				c->operands[i] = build_cond_operand(p, n->args[i], &lc);
			if (n->nargs - 1 > EXPR_MAX_IN_OPERANDS)
				leaf_note(&lc, SLOT_ARITY,
						  psprintf("The IN operator is provided with too many operands; number of operands: %d",
								   n->nargs - 1));
			break;
		case RAW_CALL:
			c = build_function_cond(p, n, &lc);
			break;
		default:
			elog(ERROR, "unexpected raw node %d as a condition", (int) n->kind);
	}
	leaf_raise(p, &lc);
	return c;
}

/*
 * build_condition
 *		The CondNode of a raw condition; leaves in text order.
 */
static CondNode *
build_condition(ExprParser *p, const RawNode *n)
{
	CondNode   *c;

	check_stack_depth();
	switch (n->kind)
	{
		case RAW_AND:
		case RAW_OR:
			c = new_cond(n->kind == RAW_AND ? COND_AND : COND_OR, 0);
			c->left = build_condition(p, n->args[0]);
			c->right = build_condition(p, n->args[1]);
			return c;
		case RAW_NOT:
			c = new_cond(COND_NOT, 0);
			c->left = build_condition(p, n->args[0]);
			return c;
		default:
			return build_leaf(p, n);
	}
}

/* the first OR or NOT token of a key condition, or -1 */
static int
first_logical_operator(const RawNode *n)
{
	int			best = -1;
	int			i;

	check_stack_depth();
	if (n->kind == RAW_OR || n->kind == RAW_NOT)
		best = n->tok;
	for (i = 0; i < n->nargs; i++)
	{
		int			t = first_logical_operator(n->args[i]);

		if (t >= 0 && (best < 0 || t < best))
			best = t;
	}
	return best;
}

/* set up a parser: tokenize the text (size and emptiness checks) */
static void
parser_init(ExprParser *p, const char *text, int len, ExprKind kind,
			ExprPlaceholders *ph)
{
	memset(p, 0, sizeof(ExprParser));
	p->text = text;
	p->kind = kind;
	p->ph = ph;
	p->dup_clause = -1;
	p->toks = ExprTokenize(text, len, kind, &p->ntoks);
}

/*
 * ExprParseCondition
 *		Parse a ConditionExpression, FilterExpression or
 *		KeyConditionExpression (kind says which, for messages and for the
 *		key condition's ban on OR and NOT).  Raises ValidationException;
 *		returns a tree palloc'd in the current memory context.
 */
CondNode *
ExprParseCondition(const char *text, int len, ExprKind kind, ExprPlaceholders *ph)
{
	ExprParser	p;
	RawNode    *raw;
	CondNode   *cond;

	Assert(kind == EXPR_CONDITION || kind == EXPR_FILTER || kind == EXPR_KEY_CONDITION);
	parser_init(&p, text, len, kind, ph);
	raw = ExprParseOr(&p, false);
	if (cur_kind(&p) != ETOK_EOF)
		ExprSyntaxError(&p);

	check_parse_notes(&p);
	check_function_names(&p, raw, false);
	check_misused_condition(&p, raw);
	if (raw->kind == RAW_CALL && ExprCallFunction(&p, raw)->fn == FN_SIZE)
		ExprParseError(&p, "The function is not allowed to be used this way in an expression; function: size");
	check_reserved(&p, raw);
	cond = build_condition(&p, raw);

	if (kind == EXPR_KEY_CONDITION)
	{
		int			tok = first_logical_operator(raw);

		if (tok >= 0)
			DynValidation("Invalid operator used in KeyConditionExpression: %s",
						  p.toks[tok].kind == ETOK_OR ? "OR" : "NOT");
	}
	return cond;
}

/* ----------------------------------------------------------------
 * phase 2: updates
 * ----------------------------------------------------------------
 */

/* list_append() directly inside list_append() is refused */
static void
check_misused_update(ExprParser *p, const RawNode *n)
{
	int			i;

	if (n == NULL)
		return;
	check_stack_depth();
	for (i = 0; i < n->nargs; i++)
		check_misused_update(p, n->args[i]);
	if (n->kind == RAW_CALL && ExprCallFunction(p, n)->fn == FN_LIST_APPEND)
	{
		for (i = 0; i < n->nargs; i++)
		{
			if (n->args[i]->kind == RAW_CALL &&
				ExprCallFunction(p, n->args[i])->fn == FN_LIST_APPEND)
				ExprParseError(p, "The function is not allowed to be used this way in an expression; function: list_append");
		}
	}
}

/* undefined #names (and path depth) in text order */
static void
check_update_names(ExprParser *p, const RawNode *n)
{
	int			i;
	char	   *err = NULL;

	if (n == NULL)
		return;
	check_stack_depth();
	if (n->kind == RAW_PATH)
	{
		if (resolve_path(p, n, &err) == NULL)
			ExprParseError(p, err);
		return;
	}
	for (i = 0; i < n->nargs; i++)
		check_update_names(p, n->args[i]);
}

/* undefined :values in text order */
static void
check_update_values(ExprParser *p, const RawNode *n)
{
	int			i;

	if (n == NULL)
		return;
	check_stack_depth();
	if (n->kind == RAW_VALUE && find_value(p, n->tok) < 0)
		ExprParseError(p, undefined_value_msg(p, n->tok));
	for (i = 0; i < n->nargs; i++)
		check_update_values(p, n->args[i]);
}

/*
 * build_update_operand
 *		The Operand of a SET right-hand side (all names and values are
 *		known to resolve).  The first operand count or type problem, in
 *		post-order, goes to *err.
 */
static Operand *
build_update_operand(ExprParser *p, const RawNode *n, char **err)
{
	Operand    *o;
	Operand    *args[2] = {NULL, NULL};
	char	   *ignore = NULL;
	const FuncDef *f;
	int			i;

	check_stack_depth();
	switch (n->kind)
	{
		case RAW_PATH:
			o = palloc0(sizeof(Operand));
			o->kind = OPND_PATH;
			o->path = resolve_path(p, n, &ignore);
			return o;
		case RAW_VALUE:
			return resolve_value(p, n->tok, &ignore);
		case RAW_PLUS:
		case RAW_MINUS:
			o = palloc0(sizeof(Operand));
			o->kind = n->kind == RAW_PLUS ? OPND_PLUS : OPND_MINUS;
			for (i = 0; i < 2; i++)
				o->args[i] = build_update_operand(p, n->args[i], err);
			for (i = 0; i < 2; i++)
			{
				const Operand *a = o->args[i];

				if (*err == NULL && a->kind == OPND_VALUE && a->value->type != ATTR_N)
					*err = operand_type_msg(n->kind == RAW_PLUS ? "+" : "-",
											AttrTypeName(a->value->type));
			}
			return o;
		case RAW_CALL:
			f = ExprCallFunction(p, n);
			for (i = 0; i < n->nargs; i++)
			{
				Operand    *a = build_update_operand(p, n->args[i], err);

				if (i < 2)
					args[i] = a;
			}
			o = palloc0(sizeof(Operand));
			if (n->nargs != f->nargs)
			{
				if (*err == NULL)
					*err = arity_msg(f->name, n->nargs);
				return o;
			}
			if (f->fn == FN_IF_NOT_EXISTS)
			{
				o->kind = OPND_IF_NOT_EXISTS;
				if (args[0]->kind != OPND_PATH)
				{
					if (*err == NULL)
						*err = psprintf("Operator or function requires a document path; operator or function: %s",
										f->name);
				}
				else
					o->path = args[0]->path;
				o->args[0] = args[1];
			}
			else
			{
				Assert(f->fn == FN_LIST_APPEND);
				o->kind = OPND_LIST_APPEND;
				for (i = 0; i < 2; i++)
				{
					if (*err == NULL && args[i]->kind == OPND_VALUE &&
						args[i]->value->type != ATTR_L)
						*err = operand_type_msg(f->name, AttrTypeName(args[i]->value->type));
				}
				o->args[0] = args[0];
				o->args[1] = args[1];
			}
			return o;
		default:
			elog(ERROR, "unexpected raw node %d in an update expression", (int) n->kind);
	}
	return NULL;				/* keep compiler quiet */
}

/*
 * ExprParseUpdate
 *		Parse an UpdateExpression.  Actions come in text order (clause by
 *		clause as written, actions in each clause as written).  Raises
 *		ValidationException; the tree is palloc'd in the current context.
 */
UpdateExpr *
ExprParseUpdate(const char *text, int len, ExprPlaceholders *ph)
{
	ExprParser	p;
	UpdateExpr *upd;
	DocPath   **targets;
	char	   *err = NULL;
	int			i;

	parser_init(&p, text, len, EXPR_UPDATE, ph);
	ExprParseUpdateSyntax(&p);

	check_parse_notes(&p);
	for (i = 0; i < p.nactions; i++)
		check_function_names(&p, p.actions[i].value, true);
	for (i = 0; i < p.nactions; i++)
		check_misused_update(&p, p.actions[i].value);
	for (i = 0; i < p.nactions; i++)
	{
		check_reserved(&p, p.actions[i].path);
		check_reserved(&p, p.actions[i].value);
	}
	if (p.dup_clause >= 0)
		ExprParseError(&p, psprintf("The \"%s\" section can only be used once in an update expression;",
								clause_names[p.dup_clause]));
	for (i = 0; i < p.nactions; i++)
	{
		check_update_names(&p, p.actions[i].path);
		check_update_names(&p, p.actions[i].value);
	}
	for (i = 0; i < p.nactions; i++)
		check_update_values(&p, p.actions[i].value);

	targets = palloc(p.nactions * sizeof(DocPath *));
	for (i = 0; i < p.nactions; i++)
		targets[i] = resolve_path(&p, p.actions[i].path, &err);
	check_path_set(&p, targets, p.nactions);

	upd = palloc0(sizeof(UpdateExpr));
	upd->nactions = p.nactions;
	upd->actions = palloc0(p.nactions * sizeof(UpdateAction));
	for (i = 0; i < p.nactions; i++)
	{
		UpdateAction *a = &upd->actions[i];

		a->kind = p.actions[i].kind;
		a->path = targets[i];
		if (a->kind == UPD_ADD || a->kind == UPD_DELETE)
		{
			char	   *ignore = NULL;
			AttrType	t;

			a->value = resolve_value(&p, p.actions[i].value->tok, &ignore);
			t = a->value->value->type;
			if ((a->kind == UPD_ADD && t != ATTR_N && !AttrTypeIsSet(t)) ||
				(a->kind == UPD_DELETE && !AttrTypeIsSet(t)))
				ExprParseError(&p, psprintf("Incorrect operand type for operator or function; operator: %s, operand type: %s",
										clause_names[a->kind], AttrTypeLongName(t)));
		}
	}
	err = NULL;
	for (i = 0; i < p.nactions; i++)
	{
		if (upd->actions[i].kind == UPD_SET)
			upd->actions[i].value = build_update_operand(&p, p.actions[i].value, &err);
	}
	if (err)
		ExprParseError(&p, err);
	return upd;
}

/* ----------------------------------------------------------------
 * projections
 * ----------------------------------------------------------------
 */

/*
 * ExprParseProjection
 *		Parse a ProjectionExpression.  Raises ValidationException; the tree
 *		is palloc'd in the current context.
 */
ProjectionExpr *
ExprParseProjection(const char *text, int len, ExprPlaceholders *ph)
{
	ExprParser	p;
	ProjectionExpr *proj;
	int			i;

	parser_init(&p, text, len, EXPR_PROJECTION, ph);
	ExprParseProjectionSyntax(&p);

	check_parse_notes(&p);
	for (i = 0; i < p.nactions; i++)
		check_reserved(&p, p.actions[i].path);

	proj = palloc(sizeof(ProjectionExpr));
	proj->npaths = p.nactions;
	proj->paths = palloc(p.nactions * sizeof(DocPath *));
	for (i = 0; i < p.nactions; i++)
	{
		char	   *err = NULL;

		proj->paths[i] = resolve_path(&p, p.actions[i].path, &err);
		if (proj->paths[i] == NULL)
			ExprParseError(&p, err);
	}
	check_path_set(&p, proj->paths, proj->npaths);
	return proj;
}
