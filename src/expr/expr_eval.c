/*-------------------------------------------------------------------------
 *
 * expr_eval.c
 *		Evaluate DynamoDB conditions (ConditionExpression, FilterExpression,
 *		KeyConditionExpression) and projections (ProjectionExpression)
 *		against an item.
 *
 * The trees come from expr_parser.c, which has already raised every error
 * that the request alone can reveal (syntax, placeholders, constant operand
 * types, overlapping paths).  What is left depends on the item, and
 * DynamoDB's rule for that is simple: data never causes an error in a
 * condition.  An operand whose path does not match the item's shape, a
 * comparison of values of different types, or a function applied to a
 * type it does not handle makes the comparison false, not the request
 * invalid (reference §3.5, "constant-vs-data rule").
 *
 * Operands.  An operand evaluates to a value or to "absent" (NULL):
 *
 *	  path		 the value at the path, or absent when some step names a
 *				 member of a non-map, indexes a non-list, or runs past the
 *				 end of a list;
 *	  :value	 the request's value;
 *	  size(x)	 an N: S length in UTF-16 code units (what DynamoDB counts),
 *				 B length in bytes, number of members of a set, list or map.
 *				 size() of an absent value, or of N/BOOL/NULL data, is absent.
 *
 * With absent operands, "=" is false and "<>" is true (it is the negation
 * of "="); "<", "<=", ">", ">=" need two present values of the same type,
 * one of S, N, B, and are false otherwise; BETWEEN is lo <= x AND x <= hi;
 * IN is "=" to any listed operand.  Treating size() of N/BOOL/NULL data as
 * absent makes every comparison with it false except "<>".
 *
 * Condition evaluation allocates nothing: size() results live in stack
 * scratch values, so a scan may evaluate a filter per row without
 * resetting a memory context for it.
 *
 * Projection.  The requested paths that resolve in the item are merged
 * into a skeleton tree (ProjNode) that mirrors their shared prefixes; the
 * result is then materialised from the skeleton: a map step gives a map
 * holding only the requested members, a list step gives a list holding
 * only the requested elements, compacted in index order (DynamoDB returns
 * "a[5], a[2]" as a two-element list [a[2], a[5]]).  A node reached as the
 * end of some path is copied whole.  The result is a fresh ATTR_M that
 * shares nothing with the item.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "attr_value.h"
#include "errors.h"
#include "expr.h"

PG_FUNCTION_INFO_V1(item_table_evaluate_condition);
PG_FUNCTION_INFO_V1(item_table_project_item);

/* ----------------------------------------------------------------
 * paths
 * ----------------------------------------------------------------
 */

/*
 * ExprResolvePath
 *		The value at path in item, or NULL when it does not exist (item may
 *		be NULL, standing for a missing item).  The result points into item.
 */
const AttrValue *
ExprResolvePath(const AttrValue *item, const DocPath *path)
{
	const AttrValue *cur = item;
	int			i;

	for (i = 0; i < path->nelems && cur != NULL; i++)
	{
		const PathElem *e = &path->elems[i];

		if (e->kind == PATH_NAME)
		{
			if (cur->type != ATTR_M)
				return NULL;
			cur = AttrMapGet(cur, e->name, e->namelen);
		}
		else
		{
			if (cur->type != ATTR_L || e->index < 0 ||
				e->index >= cur->u.list.count)
				return NULL;
			cur = cur->u.list.elems[e->index];
		}
	}
	return cur;
}

/* ----------------------------------------------------------------
 * operands
 * ----------------------------------------------------------------
 */

/*
 * utf16_length
 *		Length of UTF-8 text in UTF-16 code units: one per character, two
 *		for characters outside the Basic Multilingual Plane (4-byte UTF-8).
 */
static int64
utf16_length(const char *data, int len)
{
	int64		n = 0;
	int			i;

	for (i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) data[i];

		if ((c & 0xC0) == 0x80)
			continue;			/* continuation byte */
		n += (c >= 0xF0) ? 2 : 1;
	}
	return n;
}

/*
 * value_size
 *		DynamoDB's size() of v into *size; false when v's type has none.
 */
static bool
value_size(const AttrValue *v, int64 *size)
{
	switch (v->type)
	{
		case ATTR_S:
			/* of the string itself: each escape pair is one character */
			*size = utf16_length(v->u.bytes.data, v->u.bytes.len) -
				NulEscapeCount(v->u.bytes.data, v->u.bytes.len);
			return true;
		case ATTR_B:
			*size = v->u.bytes.len;
			return true;
		case ATTR_M:
			*size = v->u.map.count;
			return true;
		case ATTR_L:
		case ATTR_SS:
		case ATTR_NS:
		case ATTR_BS:
			*size = v->u.list.count;
			return true;
		case ATTR_N:
		case ATTR_BOOL:
		case ATTR_NULL:
			break;
	}
	return false;
}

/* make *scratch the number n (no allocation) */
static void
set_number(AttrValue *scratch, int64 n)
{
	char		buf[32];
	int			len;

	len = snprintf(buf, sizeof(buf), INT64_FORMAT, n);
	memset(scratch, 0, sizeof(AttrValue));
	scratch->type = ATTR_N;
	if (DynNumberParse(buf, len, &scratch->u.num) != DYNNUM_OK)
		elog(ERROR, "could not represent size %s as a number", buf);
}

/*
 * eval_operand
 *		The value of a condition operand, or NULL when absent.  A size()
 *		result is written to *scratch (owned by the caller) and returned
 *		from there; other results point into item or into the tree.
 */
static const AttrValue *
eval_operand(const Operand *op, const AttrValue *item, AttrValue *scratch)
{
	const AttrValue *arg;
	int64		size;

	check_stack_depth();
	switch (op->kind)
	{
		case OPND_PATH:
			return ExprResolvePath(item, op->path);
		case OPND_VALUE:
			return op->value;
		case OPND_SIZE:
			/* the argument is consumed before scratch is overwritten */
			arg = eval_operand(op->args[0], item, scratch);
			if (arg == NULL || !value_size(arg, &size))
				return NULL;
			set_number(scratch, size);
			return scratch;
		case OPND_IF_NOT_EXISTS:
		case OPND_LIST_APPEND:
		case OPND_PLUS:
		case OPND_MINUS:
			break;
	}
	elog(ERROR, "operand kind %d is not allowed in a condition", (int) op->kind);
	return NULL;				/* keep compiler quiet */
}

/* ----------------------------------------------------------------
 * comparisons and functions
 * ----------------------------------------------------------------
 */

/*
 * compare_values
 *		a op b with DynamoDB's treatment of absent (NULL) and mistyped
 *		operands; never raises.
 */
static bool
compare_values(CompareOp op, const AttrValue *a, const AttrValue *b)
{
	int			c;

	if (op == CMP_EQ)
		return a != NULL && b != NULL && AttrValueEquals(a, b);
	if (op == CMP_NE)
		return !(a != NULL && b != NULL && AttrValueEquals(a, b));

	if (a == NULL || b == NULL || a->type != b->type ||
		!AttrTypeIsScalar(a->type))
		return false;
	c = AttrValueCompare(a, b);
	switch (op)
	{
		case CMP_LT:
			return c < 0;
		case CMP_LE:
			return c <= 0;
		case CMP_GT:
			return c > 0;
		case CMP_GE:
			return c >= 0;
		case CMP_EQ:
		case CMP_NE:
			break;
	}
	elog(ERROR, "unrecognized comparison operator: %d", (int) op);
	return false;
}

/* does the byte string hay contain needle?  (an empty needle: yes) */
static bool
bytes_contain(const char *hay, int haylen, const char *needle, int needlelen)
{
	int			i;

	if (needlelen == 0)
		return true;
	for (i = 0; i + needlelen <= haylen; i++)
	{
		if (hay[i] == needle[0] &&
			memcmp(hay + i, needle, needlelen) == 0)
			return true;
	}
	return false;
}

/*
 * eval_begins_with
 *		S prefix of S, or B prefix of B; anything else is false.
 */
static bool
eval_begins_with(const AttrValue *v, const AttrValue *prefix)
{
	if (v == NULL || prefix == NULL || v->type != prefix->type ||
		(v->type != ATTR_S && v->type != ATTR_B))
		return false;
	return v->u.bytes.len >= prefix->u.bytes.len &&
		memcmp(v->u.bytes.data, prefix->u.bytes.data, prefix->u.bytes.len) == 0;
}

/*
 * eval_contains
 *		contains(hay, needle): substring of S in S or B in B; membership of
 *		an element of the set's type; for a list, deep equality with one
 *		element.  Maps and everything else: false.
 */
static bool
eval_contains(const AttrValue *hay, const AttrValue *needle)
{
	int			i;

	if (hay == NULL || needle == NULL)
		return false;
	switch (hay->type)
	{
		case ATTR_S:
			/* stored forms: a match must start at a code word boundary */
			return needle->type == ATTR_S &&
				NulEscapeContains(hay->u.bytes.data, hay->u.bytes.len,
								  needle->u.bytes.data, needle->u.bytes.len);
		case ATTR_B:
			return needle->type == hay->type &&
				bytes_contain(hay->u.bytes.data, hay->u.bytes.len,
							  needle->u.bytes.data, needle->u.bytes.len);
		case ATTR_SS:
			return needle->type == ATTR_S && AttrSetContains(hay, needle);
		case ATTR_NS:
			return needle->type == ATTR_N && AttrSetContains(hay, needle);
		case ATTR_BS:
			return needle->type == ATTR_B && AttrSetContains(hay, needle);
		case ATTR_L:
			for (i = 0; i < hay->u.list.count; i++)
			{
				CHECK_FOR_INTERRUPTS();
				if (AttrValueEquals(hay->u.list.elems[i], needle))
					return true;
			}
			return false;
		case ATTR_N:
		case ATTR_BOOL:
		case ATTR_NULL:
		case ATTR_M:
			break;
	}
	return false;
}

/* the path of an operand that must be one (the parser guarantees it) */
static const DocPath *
operand_path(const CondNode *cond)
{
	if (cond->noperands < 1 || cond->operands[0]->kind != OPND_PATH)
		elog(ERROR, "attribute_exists/attribute_not_exists needs a document path");
	return cond->operands[0]->path;
}

/*
 * ExprEvalCondition
 *		Evaluate cond against item (ATTR_M; an empty map, or NULL, stands
 *		for a missing item).  Never raises for data; allocates nothing.
 */
bool
ExprEvalCondition(const CondNode *cond, const AttrValue *item)
{
	AttrValue	s0,
				s1,
				s2;
	const AttrValue *x,
			   *y,
			   *z;
	int			i;

	check_stack_depth();
	switch (cond->kind)
	{
		case COND_AND:
			return ExprEvalCondition(cond->left, item) &&
				ExprEvalCondition(cond->right, item);
		case COND_OR:
			return ExprEvalCondition(cond->left, item) ||
				ExprEvalCondition(cond->right, item);
		case COND_NOT:
			return !ExprEvalCondition(cond->left, item);
		case COND_COMPARE:
			Assert(cond->noperands == 2);
			x = eval_operand(cond->operands[0], item, &s0);
			y = eval_operand(cond->operands[1], item, &s1);
			return compare_values(cond->op, x, y);
		case COND_BETWEEN:
			Assert(cond->noperands == 3);
			x = eval_operand(cond->operands[0], item, &s0);
			y = eval_operand(cond->operands[1], item, &s1);
			z = eval_operand(cond->operands[2], item, &s2);
			return compare_values(CMP_LE, y, x) && compare_values(CMP_LE, x, z);
		case COND_IN:
			x = eval_operand(cond->operands[0], item, &s0);
			if (x == NULL)
				return false;
			for (i = 1; i < cond->noperands; i++)
			{
				y = eval_operand(cond->operands[i], item, &s1);
				if (compare_values(CMP_EQ, x, y))
					return true;
			}
			return false;
		case COND_ATTRIBUTE_EXISTS:
			return ExprResolvePath(item, operand_path(cond)) != NULL;
		case COND_ATTRIBUTE_NOT_EXISTS:
			return ExprResolvePath(item, operand_path(cond)) == NULL;
		case COND_ATTRIBUTE_TYPE:
			x = eval_operand(cond->operands[0], item, &s0);
			return x != NULL && x->type == cond->attr_type;
		case COND_BEGINS_WITH:
			Assert(cond->noperands == 2);
			x = eval_operand(cond->operands[0], item, &s0);
			y = eval_operand(cond->operands[1], item, &s1);
			return eval_begins_with(x, y);
		case COND_CONTAINS:
			Assert(cond->noperands == 2);
			x = eval_operand(cond->operands[0], item, &s0);
			y = eval_operand(cond->operands[1], item, &s1);
			return eval_contains(x, y);
	}
	elog(ERROR, "unrecognized condition kind: %d", (int) cond->kind);
	return false;				/* keep compiler quiet */
}

/* ----------------------------------------------------------------
 * projection
 * ----------------------------------------------------------------
 */
typedef struct ProjNode ProjNode;

typedef struct ProjChild
{
	const PathElem *elem;		/* the step from the parent */
	ProjNode   *node;
} ProjChild;

struct ProjNode
{
	const AttrValue *value;		/* the item's value at this node */
	bool		whole;			/* some path ends here: copy value whole */
	int			nchildren;
	int			capacity;
	ProjChild  *children;
};

static ProjNode *
proj_node_new(const AttrValue *value)
{
	ProjNode   *n = palloc0(sizeof(ProjNode));

	n->value = value;
	return n;
}

/* the child of node for step e, created if absent */
static ProjNode *
proj_child(ProjNode *node, const PathElem *e, const AttrValue *value)
{
	ProjChild  *c;
	int			i;

	for (i = 0; i < node->nchildren; i++)
	{
		const PathElem *o = node->children[i].elem;

		if (o->kind != e->kind)
			continue;
		if (e->kind == PATH_INDEX ? o->index == e->index :
			(o->namelen == e->namelen && memcmp(o->name, e->name, e->namelen) == 0))
			return node->children[i].node;
	}
	if (node->nchildren >= node->capacity)
	{
		node->capacity = Max(4, node->capacity * 2);
		if (node->children == NULL)
			node->children = palloc(sizeof(ProjChild) * node->capacity);
		else
			node->children = repalloc(node->children,
									  sizeof(ProjChild) * node->capacity);
	}
	c = &node->children[node->nchildren++];
	c->elem = e;
	c->node = proj_node_new(value);
	return c->node;
}

/*
 * proj_add_path
 *		Merge path into the skeleton rooted at root (whose value is the
 *		item) if it resolves; an unresolvable path adds nothing.
 */
static void
proj_add_path(ProjNode *root, const DocPath *path)
{
	ProjNode   *node = root;
	const AttrValue *cur = root->value;
	int			i;

	/* resolve first, so a partial match leaves no empty containers */
	if (path->nelems == 0 || ExprResolvePath(cur, path) == NULL)
		return;
	for (i = 0; i < path->nelems; i++)
	{
		const PathElem *e = &path->elems[i];

		if (node->whole)
			return;				/* an enclosing path already takes it all */
		if (e->kind == PATH_NAME)
			cur = AttrMapGet(cur, e->name, e->namelen);
		else
			cur = cur->u.list.elems[e->index];
		node = proj_child(node, e, cur);
	}
	node->whole = true;
}

static int
proj_child_index_cmp(const void *a, const void *b)
{
	int			ia = ((const ProjChild *) a)->elem->index;
	int			ib = ((const ProjChild *) b)->elem->index;

	return (ia > ib) - (ia < ib);
}

/* build the projected value of a skeleton node (palloc'd, deep) */
static AttrValue *
proj_materialize(ProjNode *node)
{
	AttrValue  *r;
	int			i;

	check_stack_depth();
	if (node->whole)
		return AttrCopy(node->value);
	if (node->value->type == ATTR_M)
	{
		r = AttrNewMap();
		for (i = 0; i < node->nchildren; i++)
		{
			const PathElem *e = node->children[i].elem;

			AttrMapPut(r, e->name, e->namelen,
					   proj_materialize(node->children[i].node));
		}
		return r;
	}
	Assert(node->value->type == ATTR_L);
	qsort(node->children, node->nchildren, sizeof(ProjChild),
		  proj_child_index_cmp);
	r = AttrNewList(ATTR_L);
	for (i = 0; i < node->nchildren; i++)
		AttrListAppend(r, proj_materialize(node->children[i].node));
	return r;
}

/*
 * ExprProject
 *		The attributes of item (ATTR_M, or NULL for a missing item) named by
 *		proj, nested as in the item (reference §3.8).  Returns a new ATTR_M,
 *		possibly empty, in the current memory context.
 */
AttrValue *
ExprProject(const ProjectionExpr *proj, const AttrValue *item)
{
	ProjNode   *root;
	int			i;

	if (item == NULL)
		return AttrNewMap();
	Assert(item->type == ATTR_M);
	root = proj_node_new(item);
	for (i = 0; i < proj->npaths; i++)
		proj_add_path(root, proj->paths[i]);
	return proj_materialize(root);
}

/* ----------------------------------------------------------------
 * SQL-callable
 * ----------------------------------------------------------------
 */

/* placeholders from the (nullable) names and values arguments */
static ExprPlaceholders *
placeholders_from_args(FunctionCallInfo fcinfo, int names_arg, int values_arg)
{
	Jsonb	   *names = NULL;
	Jsonb	   *values = NULL;

	if (names_arg >= 0 && !PG_ARGISNULL(names_arg))
		names = PG_GETARG_JSONB_P(names_arg);
	if (values_arg >= 0 && !PG_ARGISNULL(values_arg))
		values = PG_GETARG_JSONB_P(values_arg);
	return ExprPlaceholdersFromRequest(names, values);
}

/*
 * evaluate_condition(item jsonb, expression text, names jsonb, vals jsonb)
 * returns boolean
 *		Parse expression as a ConditionExpression and evaluate it against
 *		item (DynamoDB JSON).  NULL when item or expression is NULL.
 */
Datum
item_table_evaluate_condition(PG_FUNCTION_ARGS)
{
	ExprPlaceholders *ph;
	CondNode   *cond;
	AttrValue  *item;
	char	   *src;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	src = text_to_cstring(PG_GETARG_TEXT_PP(1));
	ph = placeholders_from_args(fcinfo, 2, 3);
	cond = ExprParseCondition(src, strlen(src), EXPR_CONDITION, ph);
	ExprCheckAllUsed(ph);
	item = AttrItemFromJsonb(PG_GETARG_JSONB_P(0));
	PG_RETURN_BOOL(ExprEvalCondition(cond, item));
}

/*
 * project_item(item jsonb, projection text, names jsonb) returns jsonb
 *		The item's attributes named by a ProjectionExpression.  NULL when
 *		item or projection is NULL.
 */
Datum
item_table_project_item(PG_FUNCTION_ARGS)
{
	ExprPlaceholders *ph;
	ProjectionExpr *proj;
	AttrValue  *item;
	char	   *src;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	src = text_to_cstring(PG_GETARG_TEXT_PP(1));
	ph = placeholders_from_args(fcinfo, 2, -1);
	proj = ExprParseProjection(src, strlen(src), ph);
	ExprCheckAllUsed(ph);
	item = AttrItemFromJsonb(PG_GETARG_JSONB_P(0));
	PG_RETURN_JSONB_P(AttrItemToJsonb(ExprProject(proj, item)));
}
