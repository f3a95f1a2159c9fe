/*-------------------------------------------------------------------------
 *
 * partiql_compile.c
 *		PartiQL statement trees compiled into DynamoDB requests.
 *
 * Every statement becomes exactly one ordinary request, built as JSON
 * text, that the existing API functions run (api_partiql.c):
 *
 *	  SELECT, ExecuteStatement	Query when the WHERE clause is a conjunction
 *								holding an equality on the partition key of
 *								the table (or of the index it names), and at
 *								most one sort-key condition of a form
 *								KeyConditionExpression accepts (= < <= > >=
 *								BETWEEN begins_with), with no other
 *								conjunct naming a key attribute; the other
 *								conjuncts are the FilterExpression.
 *								Otherwise a Scan with the whole WHERE clause
 *								as FilterExpression.  The projection is the
 *								ProjectionExpression; ORDER BY the sort key
 *								is ScanIndexForward (Query only).
 *	  SELECT, batch or			GetItem / Get: an equality on every key
 *	  transaction				attribute and nothing else.
 *	  INSERT					PutItem with attribute_not_exists(<partition
 *								key>) (the caller turns its failure into
 *								DuplicateItemException).
 *	  UPDATE					UpdateItem of the key the WHERE clause fixes,
 *								with ConditionExpression attribute_exists(
 *								<partition key>) AND <the other conjuncts>;
 *								set_add / set_delete are ADD / DELETE.
 *	  DELETE					DeleteItem of that key, with the other
 *								conjuncts as ConditionExpression (a missing
 *								item is not an error, as in DynamoDB).
 *	  EXISTS(SELECT ...)		ConditionCheck, as UPDATE's condition.
 *
 * Names and values are never written into expression text: every name is
 * a #nK placeholder in ExpressionAttributeNames (one per distinct name),
 * every literal or parameter a :vK placeholder in
 * ExpressionAttributeValues (one per occurrence).  So expression syntax
 * cannot be injected through a statement, and every value is validated by
 * the same code as in any other request.  Parentheses are written only
 * where precedence needs them (DynamoDB refuses redundant ones).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/json.h"

#include "errors.h"
#include "partiql.h"

typedef struct PqBuild
{
	const PqSchema *schema;
	JsonbValue *params;
	int			nparams;
	/* distinct names, their placeholders are #n<index> */
	int			nnames;
	int			capnames;
	char	  **names;
	int		   *namelens;
	/* ":vK": value text, in order */
	StringInfoData values;
	int			nvalues;
} PqBuild;

#define PREC_OR		1
#define PREC_AND	2
#define PREC_NOT	3
#define PREC_LEAF	4

static void emit_operand(PqBuild *b, const PqOperand *o, StringInfo out);

/* ----------------------------------------------------------------
 * values
 * ----------------------------------------------------------------
 */

/* the AttributeValue object of parameter i, checked */
static JsonbValue *
param_value(PqBuild *b, int i)
{
	JsonbValue *v;

	if (i >= b->nparams)
		DynValidation("Number of parameters in request and statement don't match.");
	v = &b->params[i];
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		DynRaise(DYN_SERIALIZATION, "Unexpected value in Parameters; expected an object");
	return v;
}

static void
append_json_string(StringInfo out, const char *s, int len)
{
	char	   *copy = pnstrdup(s, len);

	escape_json(out, copy);
	pfree(copy);
}

/* the one member of a parameter when it is {"S"|"N"|"B": "..."}, else NULL */
static const char *
param_scalar(JsonbValue *pv, JsonbValue *out)
{
	static const char *const types[] = {"S", "N", "B"};
	int			i;

	if (JsonContainerSize(pv->val.binary.data) != 1)
		return NULL;
	for (i = 0; i < (int) lengthof(types); i++)
	{
		JsonbValue *m = getKeyJsonValueFromContainer(pv->val.binary.data,
													 types[i], 1, out);

		if (m != NULL && m->type == jbvString)
			return types[i];
	}
	return NULL;
}

static void
append_param(StringInfo out, JsonbValue *pv)
{
	appendStringInfoString(out, JsonbToCString(NULL, pv->val.binary.data,
											   pv->val.binary.len));
}

/* the DynamoDB JSON of a value: {"S":"x"}, {"L":[...]}, ... */
static void
value_json(PqBuild *b, const PqValue *v, StringInfo out)
{
	int			i;

	check_stack_depth();
	switch (v->kind)
	{
		case PQV_STRING:
			appendStringInfoString(out, "{\"S\":");
			append_json_string(out, v->str, v->len);
			appendStringInfoChar(out, '}');
			break;
		case PQV_NUMBER:
			appendStringInfoString(out, "{\"N\":");
			append_json_string(out, v->str, v->len);
			appendStringInfoChar(out, '}');
			break;
		case PQV_BOOL:
			appendStringInfo(out, "{\"BOOL\":%s}", v->boolean ? "true" : "false");
			break;
		case PQV_NULL:
			appendStringInfoString(out, "{\"NULL\":true}");
			break;
		case PQV_PARAM:
			append_param(out, param_value(b, v->param));
			break;
		case PQV_LIST:
			appendStringInfoString(out, "{\"L\":[");
			for (i = 0; i < v->nelems; i++)
			{
				if (i > 0)
					appendStringInfoChar(out, ',');
				value_json(b, v->elems[i], out);
			}
			appendStringInfoString(out, "]}");
			break;
		case PQV_MAP:
			appendStringInfoString(out, "{\"M\":{");
			for (i = 0; i < v->nelems; i++)
			{
				if (i > 0)
					appendStringInfoChar(out, ',');
				append_json_string(out, v->keys[i], v->keylens[i]);
				appendStringInfoChar(out, ':');
				value_json(b, v->elems[i], out);
			}
			appendStringInfoString(out, "}}");
			break;
		case PQV_SET:
			{
				const char *settype = NULL;
				StringInfoData members;

				initStringInfo(&members);
				for (i = 0; i < v->nelems; i++)
				{
					const PqValue *e = v->elems[i];
					const char *t;
					JsonbValue	scalar;

					if (i > 0)
						appendStringInfoChar(&members, ',');
					if (e->kind == PQV_STRING || e->kind == PQV_NUMBER)
					{
						t = e->kind == PQV_STRING ? "S" : "N";
						append_json_string(&members, e->str, e->len);
					}
					else if (e->kind == PQV_PARAM &&
							 (t = param_scalar(param_value(b, e->param), &scalar)) != NULL)
						append_json_string(&members, scalar.val.string.val,
										   scalar.val.string.len);
					else
						DynValidation("Unsupported operation: the members of a set must be strings, numbers or binary values");
					if (settype != NULL && strcmp(settype, t) != 0)
						DynValidation("Unsupported operation: the members of a set must all be of one type");
					settype = t;
				}
				if (settype == NULL)
					DynValidation("Unsupported operation: an empty set literal has no type, and DynamoDB sets may not be empty");
				appendStringInfo(out, "{\"%sS\":[%s]}", settype, members.data);
				pfree(members.data);
			}
			break;
	}
}

/* a :vK placeholder for a value */
static void
value_placeholder(PqBuild *b, const PqValue *v, StringInfo out)
{
	if (b->nvalues > 0)
		appendStringInfoChar(&b->values, ',');
	appendStringInfo(&b->values, "\":v%d\":", b->nvalues);
	value_json(b, v, &b->values);
	appendStringInfo(out, ":v%d", b->nvalues);
	b->nvalues++;
}

/* ----------------------------------------------------------------
 * names and paths
 * ----------------------------------------------------------------
 */
static void
name_placeholder(PqBuild *b, const char *name, int len, StringInfo out)
{
	int			i;

	for (i = 0; i < b->nnames; i++)
	{
		if (b->namelens[i] == len && memcmp(b->names[i], name, len) == 0)
			break;
	}
	if (i == b->nnames)
	{
		if (b->nnames == b->capnames)
		{
			b->capnames = Max(8, b->capnames * 2);
			b->names = b->names ? repalloc(b->names, sizeof(char *) * b->capnames) :
				palloc(sizeof(char *) * b->capnames);
			b->namelens = b->namelens ? repalloc(b->namelens, sizeof(int) * b->capnames) :
				palloc(sizeof(int) * b->capnames);
		}
		b->names[i] = (char *) name;
		b->namelens[i] = len;
		b->nnames++;
	}
	appendStringInfo(out, "#n%d", i);
}

static void
emit_path(PqBuild *b, const PqPath *path, StringInfo out)
{
	int			i;

	for (i = 0; i < path->nelems; i++)
	{
		const PqPathElem *e = &path->elems[i];

		if (e->is_index)
			appendStringInfo(out, "[%d]", e->index);
		else
		{
			if (i > 0)
				appendStringInfoChar(out, '.');
			name_placeholder(b, e->name, e->namelen, out);
		}
	}
}

/* is the path exactly the top-level attribute name? */
static bool
path_is(const PqPath *path, const char *name)
{
	return name != NULL && path->nelems == 1 && !path->elems[0].is_index &&
		path->elems[0].namelen == (int) strlen(name) &&
		memcmp(path->elems[0].name, name, path->elems[0].namelen) == 0;
}

static bool
paths_equal(const PqPath *a, const PqPath *b)
{
	int			i;

	if (a->nelems != b->nelems)
		return false;
	for (i = 0; i < a->nelems; i++)
	{
		const PqPathElem *x = &a->elems[i];
		const PqPathElem *y = &b->elems[i];

		if (x->is_index != y->is_index)
			return false;
		if (x->is_index ? x->index != y->index :
			(x->namelen != y->namelen || memcmp(x->name, y->name, x->namelen) != 0))
			return false;
	}
	return true;
}

/* does the operand read the top-level attribute name (or below it)? */
static bool
operand_mentions(const PqOperand *o, const char *name)
{
	int			i;

	if (o == NULL || name == NULL)
		return false;
	if (o->kind == PQO_PATH)
		return !o->path->elems[0].is_index &&
			o->path->elems[0].namelen == (int) strlen(name) &&
			memcmp(o->path->elems[0].name, name, o->path->elems[0].namelen) == 0;
	for (i = 0; i < 2; i++)
		if (operand_mentions(o->args[i], name))
			return true;
	return false;
}

static bool
cond_mentions(const PqCond *c, const char *name)
{
	int			i;

	if (c == NULL)
		return false;
	check_stack_depth();
	if (c->kind == PQC_AND || c->kind == PQC_OR || c->kind == PQC_NOT)
		return cond_mentions(c->left, name) || cond_mentions(c->right, name);
	for (i = 0; i < c->nops; i++)
		if (operand_mentions(c->ops[i], name))
			return true;
	return false;
}

/* ----------------------------------------------------------------
 * conditions
 * ----------------------------------------------------------------
 */
static const char *
cmp_text(CompareOp op)
{
	switch (op)
	{
		case CMP_EQ:
			return "=";
		case CMP_NE:
			return "<>";
		case CMP_LT:
			return "<";
		case CMP_LE:
			return "<=";
		case CMP_GT:
			return ">";
		case CMP_GE:
			return ">=";
	}
	return "=";
}

static void
emit_operand(PqBuild *b, const PqOperand *o, StringInfo out)
{
	static const char *const fn[] = {
		[PQO_LIST_APPEND] = "list_append",
		[PQO_IF_NOT_EXISTS] = "if_not_exists"
	};

	check_stack_depth();
	switch (o->kind)
	{
		case PQO_PATH:
			emit_path(b, o->path, out);
			break;
		case PQO_VALUE:
			value_placeholder(b, o->value, out);
			break;
		case PQO_SIZE:
			appendStringInfoString(out, "size(");
			emit_operand(b, o->args[0], out);
			appendStringInfoChar(out, ')');
			break;
		case PQO_PLUS:
		case PQO_MINUS:
			emit_operand(b, o->args[0], out);
			appendStringInfoString(out, o->kind == PQO_PLUS ? " + " : " - ");
			emit_operand(b, o->args[1], out);
			break;
		case PQO_LIST_APPEND:
		case PQO_IF_NOT_EXISTS:
			appendStringInfo(out, "%s(", fn[o->kind]);
			emit_operand(b, o->args[0], out);
			appendStringInfoString(out, ", ");
			emit_operand(b, o->args[1], out);
			appendStringInfoChar(out, ')');
			break;
		case PQO_SET_ADD:
		case PQO_SET_DELETE:
			DynValidation("Unsupported operation: set_add and set_delete must be the whole right-hand side of SET, with the attribute set as their first argument");
	}
}

static int
cond_prec(const PqCond *c)
{
	switch (c->kind)
	{
		case PQC_OR:
			return PREC_OR;
		case PQC_AND:
			return PREC_AND;
		case PQC_NOT:
			return PREC_NOT;
		default:
			return PREC_LEAF;
	}
}

/*
 * emit_cond
 *		The condition as expression text, parenthesized only when its
 *		precedence is lower than min_prec requires.
 */
static void
emit_cond(PqBuild *b, const PqCond *c, StringInfo out, int min_prec)
{
	bool		paren = cond_prec(c) < min_prec;
	int			i;

	check_stack_depth();
	if (paren)
		appendStringInfoChar(out, '(');
	switch (c->kind)
	{
		case PQC_OR:
			emit_cond(b, c->left, out, PREC_OR);
			appendStringInfoString(out, " OR ");
			emit_cond(b, c->right, out, PREC_AND);
			break;
		case PQC_AND:
			emit_cond(b, c->left, out, PREC_AND);
			appendStringInfoString(out, " AND ");
			emit_cond(b, c->right, out, PREC_NOT);
			break;
		case PQC_NOT:
			appendStringInfoString(out, "NOT ");
			emit_cond(b, c->left, out, PREC_NOT);
			break;
		case PQC_COMPARE:
			emit_operand(b, c->ops[0], out);
			appendStringInfo(out, " %s ", cmp_text(c->op));
			emit_operand(b, c->ops[1], out);
			break;
		case PQC_BETWEEN:
			emit_operand(b, c->ops[0], out);
			appendStringInfoString(out, " BETWEEN ");
			emit_operand(b, c->ops[1], out);
			appendStringInfoString(out, " AND ");
			emit_operand(b, c->ops[2], out);
			break;
		case PQC_IN:
			emit_operand(b, c->ops[0], out);
			appendStringInfoString(out, " IN (");
			for (i = 1; i < c->nops; i++)
			{
				if (i > 1)
					appendStringInfoString(out, ", ");
				emit_operand(b, c->ops[i], out);
			}
			appendStringInfoChar(out, ')');
			break;
		case PQC_MISSING:
		case PQC_NOT_MISSING:
			appendStringInfoString(out, c->kind == PQC_MISSING ?
								   "attribute_not_exists(" : "attribute_exists(");
			emit_operand(b, c->ops[0], out);
			appendStringInfoChar(out, ')');
			break;
		case PQC_BEGINS_WITH:
		case PQC_CONTAINS:
		case PQC_ATTRIBUTE_TYPE:
			appendStringInfoString(out, c->kind == PQC_BEGINS_WITH ? "begins_with(" :
								   c->kind == PQC_CONTAINS ? "contains(" : "attribute_type(");
			emit_operand(b, c->ops[0], out);
			appendStringInfoString(out, ", ");
			emit_operand(b, c->ops[1], out);
			appendStringInfoChar(out, ')');
			break;
	}
	if (paren)
		appendStringInfoChar(out, ')');
}

/* the conjuncts of a condition (top-level ANDs flattened), in order */
static List *
conjuncts(PqCond *c, List *out)
{
	if (c == NULL)
		return out;
	check_stack_depth();
	if (c->kind == PQC_AND)
	{
		out = conjuncts(c->left, out);
		return conjuncts(c->right, out);
	}
	return lappend(out, c);
}

/* the conjuncts as one condition text (AND), or "" when none */
static char *
emit_conjuncts(PqBuild *b, List *conj, int min_prec)
{
	StringInfoData out;
	ListCell   *lc;

	initStringInfo(&out);
	foreach(lc, conj)
	{
		if (lc != list_head(conj))
			appendStringInfoString(&out, " AND ");
		emit_cond(b, lfirst(lc), &out,
				  list_length(conj) > 1 ? PREC_NOT : min_prec);
	}
	return out.data;
}

/* the list without its n-th member (a new list; the fuzz harness has no list_delete) */
static List *
list_without(List *l, int n)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, l)
	{
		if (foreach_current_index(lc) != n)
			out = lappend(out, lfirst(lc));
	}
	return out;
}

/*
 * take_key_equality
 *		Find and remove the first conjunct "key = value" (either way
 *		round); returns the value or NULL.
 */
static PqValue *
take_key_equality(List **conj, const char *key)
{
	ListCell   *lc;

	foreach(lc, *conj)
	{
		PqCond	   *c = lfirst(lc);
		int			side;

		if (c->kind != PQC_COMPARE || c->op != CMP_EQ)
			continue;
		for (side = 0; side < 2; side++)
		{
			PqOperand  *k = c->ops[side];
			PqOperand  *v = c->ops[1 - side];

			if (k->kind == PQO_PATH && path_is(k->path, key) && v->kind == PQO_VALUE)
			{
				*conj = list_without(*conj, foreach_current_index(lc));
				return v->value;
			}
		}
	}
	return NULL;
}

/*
 * take_range_condition
 *		Find and remove the first conjunct on the sort key that a
 *		KeyConditionExpression accepts, and write it as key condition text.
 */
static bool
take_range_condition(PqBuild *b, List **conj, const char *key, StringInfo out)
{
	ListCell   *lc;

	foreach(lc, *conj)
	{
		PqCond	   *c = lfirst(lc);

		if (c->kind == PQC_COMPARE && c->op != CMP_NE)
		{
			int			side;

			for (side = 0; side < 2; side++)
			{
				PqOperand  *k = c->ops[side];
				PqOperand  *v = c->ops[1 - side];

				if (k->kind == PQO_PATH && path_is(k->path, key) && v->kind == PQO_VALUE)
				{
					emit_path(b, k->path, out);
					appendStringInfo(out, " %s ", cmp_text(side == 0 ? c->op : ExprMirrorCompare(c->op)));
					value_placeholder(b, v->value, out);
					*conj = list_without(*conj, foreach_current_index(lc));
					return true;
				}
			}
		}
		else if ((c->kind == PQC_BETWEEN &&
				  c->ops[1]->kind == PQO_VALUE && c->ops[2]->kind == PQO_VALUE) ||
				 (c->kind == PQC_BEGINS_WITH && c->ops[1]->kind == PQO_VALUE))
		{
			if (c->ops[0]->kind == PQO_PATH && path_is(c->ops[0]->path, key))
			{
				emit_cond(b, c, out, PREC_LEAF);
				*conj = list_without(*conj, foreach_current_index(lc));
				return true;
			}
		}
	}
	return false;
}

/* ----------------------------------------------------------------
 * request members
 * ----------------------------------------------------------------
 */
static void
member_string(StringInfo out, const char *name, const char *value)
{
	if (out->len > 0)
		appendStringInfoChar(out, ',');
	appendStringInfo(out, "\"%s\":", name);
	escape_json(out, value);
}

/* "Key": {...} of the table's key, from the WHERE clause's equalities */
static void
member_key(PqBuild *b, StringInfo out, List **conj)
{
	const PqSchema *s = b->schema;
	PqValue    *hv = take_key_equality(conj, s->hash_key);
	PqValue    *rv = s->range_key ? take_key_equality(conj, s->range_key) : NULL;

	if (hv == NULL || (s->range_key != NULL && rv == NULL))
		DynValidation("Where clause does not contain a mandatory equality on all key attributes");
	if (out->len > 0)
		appendStringInfoChar(out, ',');
	appendStringInfoString(out, "\"Key\":{");
	escape_json(out, s->hash_key);
	appendStringInfoChar(out, ':');
	value_json(b, hv, out);
	if (rv != NULL)
	{
		appendStringInfoChar(out, ',');
		escape_json(out, s->range_key);
		appendStringInfoChar(out, ':');
		value_json(b, rv, out);
	}
	appendStringInfoChar(out, '}');
}

/*
 * PqNestedProjection
 *		Does a SELECT name a nested path (a.b, a[1])?  ExecuteStatement's
 *		result names each value by the path's last element, so for it the
 *		whole items are read (no ProjectionExpression) and projected by the
 *		caller (api_partiql.c).
 */
bool
PqNestedProjection(const PqStatement *st)
{
	int			i;

	for (i = 0; i < st->nproj; i++)
	{
		if (st->proj[i] != NULL && st->proj[i]->nelems > 1)
			return true;
	}
	return false;
}

static void
member_projection(PqBuild *b, const PqStatement *st, bool statement, StringInfo out)
{
	StringInfoData proj;
	int			i;

	if (st->nproj == 0 || (statement && PqNestedProjection(st)))
		return;
	initStringInfo(&proj);
	for (i = 0; i < st->nproj; i++)
	{
		if (i > 0)
			appendStringInfoString(&proj, ", ");
		emit_path(b, st->proj[i], &proj);
	}
	member_string(out, "ProjectionExpression", proj.data);
}

/* the placeholders, last */
static void
member_placeholders(PqBuild *b, StringInfo out)
{
	int			i;

	if (b->nnames > 0)
	{
		appendStringInfoString(out, ",\"ExpressionAttributeNames\":{");
		for (i = 0; i < b->nnames; i++)
		{
			if (i > 0)
				appendStringInfoChar(out, ',');
			appendStringInfo(out, "\"#n%d\":", i);
			append_json_string(out, b->names[i], b->namelens[i]);
		}
		appendStringInfoChar(out, '}');
	}
	if (b->nvalues > 0)
		appendStringInfo(out, ",\"ExpressionAttributeValues\":{%s}", b->values.data);
}

/* a condition: optional prefix ("attribute_exists(#n0)") AND conjuncts */
static void
member_condition(PqBuild *b, StringInfo out, const char *prefix, List *conj)
{
	StringInfoData cond;

	initStringInfo(&cond);
	if (prefix != NULL)
		appendStringInfoString(&cond, prefix);
	if (conj != NIL)
	{
		if (prefix != NULL)
			appendStringInfoString(&cond, " AND ");
		appendStringInfoString(&cond,
							   emit_conjuncts(b, conj, prefix ? PREC_NOT : PREC_OR));
	}
	if (cond.len > 0)
		member_string(out, "ConditionExpression", cond.data);
}

/* "attribute_exists(#nK)" / "attribute_not_exists(#nK)" of the partition key */
static char *
key_exists(PqBuild *b, bool exists)
{
	StringInfoData s;

	initStringInfo(&s);
	appendStringInfoString(&s, exists ? "attribute_exists(" : "attribute_not_exists(");
	name_placeholder(b, b->schema->hash_key, strlen(b->schema->hash_key), &s);
	appendStringInfoChar(&s, ')');
	return s.data;
}

/* ----------------------------------------------------------------
 * statements
 * ----------------------------------------------------------------
 */
static PqOp
compile_select(PqBuild *b, const PqStatement *st, PqContext ctx, StringInfo out)
{
	const PqSchema *s = b->schema;
	const char *hk = st->index ? s->index_hash : s->hash_key;
	const char *rk = st->index ? s->index_range : s->range_key;
	List	   *conj = conjuncts(st->where, NIL);
	StringInfoData keycond;
	PqValue    *hv;
	ListCell   *lc;
	bool		query;

	member_string(out, "TableName", s->table);
	if (ctx != PQ_CTX_STATEMENT)
	{
		if (st->index != NULL)
			DynValidation("Unsupported operation: a read of a secondary index is not supported in %s",
						  ctx == PQ_CTX_BATCH ? "BatchExecuteStatement" : "ExecuteTransaction");
		if (st->order_by != NULL)
			DynValidation("Unsupported operation: ORDER BY is not supported in %s",
						  ctx == PQ_CTX_BATCH ? "BatchExecuteStatement" : "ExecuteTransaction");
		member_key(b, out, &conj);
		if (conj != NIL)
			DynValidation("Unsupported operation: a read in %s may only hold an equality on each key attribute",
						  ctx == PQ_CTX_BATCH ? "BatchExecuteStatement" : "ExecuteTransaction");
		member_projection(b, st, false, out);
		member_placeholders(b, out);
		return PQ_OP_GET;
	}

	if (st->index != NULL)
		member_string(out, "IndexName", st->index);

	/* Query or Scan */
	initStringInfo(&keycond);
	hv = take_key_equality(&conj, hk);
	query = hv != NULL;
	if (query && st->index != NULL && s->index_nkeys > 0)
	{
		/*
		 * A multi-attribute index key: an equality on every HASH attribute,
		 * then the RANGE attributes from the first, with equalities, the
		 * last used with a range condition instead.
		 */
		int			i;

		name_placeholder(b, hk, strlen(hk), &keycond);
		appendStringInfoString(&keycond, " = ");
		value_placeholder(b, hv, &keycond);
		for (i = 1; query && i < s->index_nkeys; i++)
		{
			const char *k = s->index_keys[i];
			PqValue    *v = take_key_equality(&conj, k);

			if (v != NULL)
			{
				appendStringInfoString(&keycond, " AND ");
				name_placeholder(b, k, strlen(k), &keycond);
				appendStringInfoString(&keycond, " = ");
				value_placeholder(b, v, &keycond);
				continue;
			}
			if (i < s->index_nhash)
				query = false;	/* a HASH attribute without = */
			else
			{
				StringInfoData range;

				initStringInfo(&range);
				if (take_range_condition(b, &conj, k, &range))
					appendStringInfo(&keycond, " AND %s", range.data);
			}
			break;
		}
		foreach(lc, conj)
		{
			for (i = 0; query && i < s->index_nkeys; i++)
				if (cond_mentions(lfirst(lc), s->index_keys[i]))
					query = false;
		}
	}
	else if (query)
	{
		name_placeholder(b, hk, strlen(hk), &keycond);
		appendStringInfoString(&keycond, " = ");
		value_placeholder(b, hv, &keycond);
		if (rk != NULL)
		{
			StringInfoData range;

			initStringInfo(&range);
			if (take_range_condition(b, &conj, rk, &range))
				appendStringInfo(&keycond, " AND %s", range.data);
		}
		foreach(lc, conj)
		{
			if (cond_mentions(lfirst(lc), hk) || cond_mentions(lfirst(lc), rk))
				query = false;
		}
	}
	if (hv != NULL && !query)
	{
		/* start again: placeholders already taken stay unused otherwise */
		b->nnames = 0;
		b->nvalues = 0;
		resetStringInfo(&b->values);
		out->len = 0;
		out->data[0] = '\0';
		member_string(out, "TableName", s->table);
		if (st->index != NULL)
			member_string(out, "IndexName", st->index);
		conj = conjuncts(st->where, NIL);
	}

	if (st->order_by != NULL)
	{
		if (st->where == NULL)
			DynValidation("Must have WHERE clause in the statement when using ORDER BY clause.");
		if (!query)
			DynValidation("Unsupported operation: ORDER BY needs a WHERE clause that selects one partition (an equality on the partition key)");
		if (!path_is(st->order_by, rk) && !path_is(st->order_by, hk))
			DynValidation("Unsupported operation: ORDER BY is supported on the key attributes only");
	}

	if (query)
		member_string(out, "KeyConditionExpression", keycond.data);
	if (conj != NIL)
		member_string(out, "FilterExpression", emit_conjuncts(b, conj, PREC_OR));
	member_projection(b, st, true, out);
	if (st->order_by != NULL && st->order_desc)
		appendStringInfoString(out, ",\"ScanIndexForward\":false");
	member_placeholders(b, out);
	return query ? PQ_OP_QUERY : PQ_OP_SCAN;
}

static void
compile_insert(PqBuild *b, const PqStatement *st, StringInfo out)
{
	const PqValue *item = st->item;
	int			i;

	member_string(out, "TableName", b->schema->table);
	appendStringInfoString(out, ",\"Item\":");
	if (item->kind == PQV_MAP)
	{
		appendStringInfoChar(out, '{');
		for (i = 0; i < item->nelems; i++)
		{
			if (i > 0)
				appendStringInfoChar(out, ',');
			append_json_string(out, item->keys[i], item->keylens[i]);
			appendStringInfoChar(out, ':');
			value_json(b, item->elems[i], out);
		}
		appendStringInfoChar(out, '}');
	}
	else
	{
		JsonbValue *pv = item->kind == PQV_PARAM ? param_value(b, item->param) : NULL;
		JsonbValue	m;

		if (pv == NULL || JsonContainerSize(pv->val.binary.data) != 1 ||
			getKeyJsonValueFromContainer(pv->val.binary.data, "M", 1, &m) == NULL ||
			m.type != jbvBinary || !JsonContainerIsObject(m.val.binary.data))
			DynValidation("Unsupported operation: INSERT needs a map (a {...} literal or a parameter of type M) as its VALUE");
		appendStringInfoString(out, JsonbToCString(NULL, m.val.binary.data, m.val.binary.len));
	}
	member_condition(b, out, key_exists(b, false), NIL);
	member_placeholders(b, out);
}

static const char *
returning_values(PqReturning r)
{
	switch (r)
	{
		case PQR_ALL_OLD:
			return "ALL_OLD";
		case PQR_MODIFIED_OLD:
			return "UPDATED_OLD";
		case PQR_ALL_NEW:
			return "ALL_NEW";
		case PQR_MODIFIED_NEW:
			return "UPDATED_NEW";
		case PQR_NONE:
			break;
	}
	return NULL;
}

static void
compile_update(PqBuild *b, const PqStatement *st, StringInfo out)
{
	StringInfoData clause[4];	/* SET, REMOVE, ADD, DELETE */
	static const char *const clause_word[4] = {"SET", "REMOVE", "ADD", "DELETE"};
	StringInfoData upd;
	List	   *conj = conjuncts(st->where, NIL);
	int			i;

	member_string(out, "TableName", b->schema->table);
	member_key(b, out, &conj);
	for (i = 0; i < 4; i++)
		initStringInfo(&clause[i]);
	for (i = 0; i < st->nactions; i++)
	{
		const PqUpdAction *a = &st->actions[i];
		int			k;

		if (a->kind == PQU_REMOVE)
			k = 1;
		else if (a->rhs->kind == PQO_SET_ADD || a->rhs->kind == PQO_SET_DELETE)
		{
			const PqOperand *target = a->rhs->args[0];

			if (target->kind != PQO_PATH || !paths_equal(target->path, a->path) ||
				a->rhs->args[1]->kind != PQO_VALUE)
				DynValidation("Unsupported operation: set_add and set_delete must be the whole right-hand side of SET, with the attribute set as their first argument");
			k = a->rhs->kind == PQO_SET_ADD ? 2 : 3;
		}
		else
			k = 0;
		if (clause[k].len > 0)
			appendStringInfoString(&clause[k], ", ");
		emit_path(b, a->path, &clause[k]);
		if (k == 0)
		{
			appendStringInfoString(&clause[k], " = ");
			emit_operand(b, a->rhs, &clause[k]);
		}
		else if (k >= 2)
		{
			appendStringInfoChar(&clause[k], ' ');
			value_placeholder(b, a->rhs->args[1]->value, &clause[k]);
		}
	}
	initStringInfo(&upd);
	for (i = 0; i < 4; i++)
	{
		if (clause[i].len == 0)
			continue;
		if (upd.len > 0)
			appendStringInfoChar(&upd, ' ');
		appendStringInfo(&upd, "%s %s", clause_word[i], clause[i].data);
	}
	member_string(out, "UpdateExpression", upd.data);
	member_condition(b, out, key_exists(b, true), conj);
	if (st->returning != PQR_NONE)
		member_string(out, "ReturnValues", returning_values(st->returning));
	member_placeholders(b, out);
}

static void
compile_delete(PqBuild *b, const PqStatement *st, StringInfo out)
{
	List	   *conj = conjuncts(st->where, NIL);

	if (st->returning != PQR_NONE && st->returning != PQR_ALL_OLD)
		DynValidation("Invalid returning clause: RETURNING %s *. Only RETURNING ALL OLD * is allowed in DELETE statements.",
					  st->returning == PQR_ALL_NEW ? "ALL NEW" :
					  st->returning == PQR_MODIFIED_OLD ? "MODIFIED OLD" : "MODIFIED NEW");
	member_string(out, "TableName", b->schema->table);
	member_key(b, out, &conj);
	member_condition(b, out, NULL, conj);
	if (st->returning == PQR_ALL_OLD)
		member_string(out, "ReturnValues", "ALL_OLD");
	member_placeholders(b, out);
}

static void
compile_exists(PqBuild *b, const PqStatement *st, StringInfo out)
{
	List	   *conj = conjuncts(st->where, NIL);

	if (st->index != NULL || st->order_by != NULL)
		DynValidation("Unsupported operation: EXISTS reads one item of a table by its key");
	member_string(out, "TableName", b->schema->table);
	member_key(b, out, &conj);
	member_condition(b, out, key_exists(b, true), conj);
	member_placeholders(b, out);
}

PqCompiled *
PqCompile(const PqStatement *st, const PqSchema *schema,
		  JsonbValue *params, int nparams, PqContext ctx)
{
	PqBuild		b;
	StringInfoData out;
	PqCompiled *res = palloc0(sizeof(PqCompiled));

	memset(&b, 0, sizeof(b));
	b.schema = schema;
	b.params = params;
	b.nparams = nparams;
	initStringInfo(&b.values);
	initStringInfo(&out);
	if (st->kind == PQS_EXISTS && ctx != PQ_CTX_TRANSACTION)
		DynValidation("Unsupported operation: EXISTS is supported in ExecuteTransaction only");
	switch (st->kind)
	{
		case PQS_SELECT:
			res->op = compile_select(&b, st, ctx, &out);
			break;
		case PQS_INSERT:
			compile_insert(&b, st, &out);
			res->op = PQ_OP_PUT;
			break;
		case PQS_UPDATE:
			compile_update(&b, st, &out);
			res->op = PQ_OP_UPDATE;
			break;
		case PQS_DELETE:
			compile_delete(&b, st, &out);
			res->op = PQ_OP_DELETE;
			break;
		case PQS_EXISTS:
			compile_exists(&b, st, &out);
			res->op = PQ_OP_CHECK;
			break;
	}
	res->members = out.data;
	return res;
}
