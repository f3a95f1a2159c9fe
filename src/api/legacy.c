/*-------------------------------------------------------------------------
 *
 * legacy.c
 *		DynamoDB's legacy parameters compiled into expression trees.
 *
 * Before expressions, DynamoDB requests named their conditions, updates
 * and projections in JSON: Expected (with ConditionalOperator) on PutItem,
 * UpdateItem and DeleteItem; AttributeUpdates on UpdateItem;
 * AttributesToGet on GetItem, BatchGetItem, Query and Scan; KeyConditions
 * and QueryFilter on Query; ScanFilter on Scan.  DynamoDB still accepts
 * them and old SDK code sends them.
 *
 * Each is read here with DynamoDB's own checks and messages, then turned
 * into the tree the expression parser would have built for the same
 * meaning (expr.h), so evaluation, updates, projections, paging, index
 * rules and ReturnValues are the expression code's and cannot diverge.
 * Attribute names in legacy parameters are literal top-level names (no
 * document paths): each becomes a one-step path.
 *
 * Conditions.  One map entry is one condition on one attribute:
 *
 *	  EQ v				a = v		  NE v			a <> v (true when a is absent)
 *	  LT/LE/GT/GE v		a < v ...	  BETWEEN lo hi	a BETWEEN lo AND hi
 *	  IN v1 .. vn		a IN (..)	  BEGINS_WITH v	begins_with(a, v)
 *	  CONTAINS v		contains(a, v)
 *	  NOT_CONTAINS v	attribute_exists(a) AND NOT contains(a, v)
 *						(DynamoDB: false when a is absent)
 *	  NULL / NOT_NULL	attribute_not_exists(a) / attribute_exists(a)
 *	  Expected's {Value: v} (Exists absent or true)  a = v
 *	  Expected's {Exists: false}					 attribute_not_exists(a)
 *
 * joined by AND, or by OR with ConditionalOperator OR.  The operand rules
 * are DynamoDB's: a number of values per operator, all values of one
 * type, a set of types per operator (EQ and NE take any; CONTAINS and
 * NOT_CONTAINS no set, map or list; BEGINS_WITH S or B; the others S, N
 * or B), BETWEEN's bounds in order.
 *
 * KeyConditions accept EQ, LE, LT, GE, GT, BEGINS_WITH and BETWEEN and
 * become the AND of their conditions, which the Query reader checks
 * against the key schema as it checks a KeyConditionExpression; the other
 * operators are refused once the key schema is known (LegacyCheckIndexable).
 *
 * Updates.  AttributeUpdates' PUT is SET a = v; DELETE without a value is
 * REMOVE a; DELETE with a set is DELETE a v; ADD is ADD a v.  The tree is
 * marked legacy, for the two places where DynamoDB's legacy ADD differs
 * (expr_update.c): it also appends a list to a list, and a value of the
 * wrong type for the attribute is "Type mismatch for attribute to update".
 *
 * Everything is palloc'd in the caller's context.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/jsonb.h"

#include "legacy.h"

/* DynamoDB's enum orders, as its messages print them */
static const char *const comparison_operators[] = {
	"IN", "NULL", "BETWEEN", "LT", "NOT_CONTAINS", "EQ", "GT", "NOT_NULL",
	"NE", "LE", "BEGINS_WITH", "GE", "CONTAINS"
};
static const char *const conditional_operators[] = {"OR", "AND"};
static const char *const update_actions[] = {"ADD", "PUT", "DELETE"};

#define INVALID "One or more parameter values were invalid: "

/* ----------------------------------------------------------------
 * reading
 * ----------------------------------------------------------------
 */

/* one key/value pair of a JSON object */
typedef struct ObjEntry
{
	char	   *name;
	int			namelen;
	JsonbValue	value;
} ObjEntry;

/* the members of an object, in jsonb's key order */
static ObjEntry *
object_entries(Jsonb *obj, int *n)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	ObjEntry   *e;
	int			count = 0;

	e = palloc(sizeof(ObjEntry) * Max(1, JB_ROOT_COUNT(obj)));
	it = JsonbIteratorInit(&obj->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			e[count].name = pnstrdup(v.val.string.val, v.val.string.len);
			e[count].namelen = v.val.string.len;
		}
		else if (tok == WJB_VALUE)
			e[count++].value = v;
	}
	*n = count;
	return e;
}

/* the object a map entry holds (SerializationException otherwise) */
static JsonbContainer *
entry_object(const ObjEntry *e, const char *param)
{
	if (e->value.type != jbvBinary || !JsonContainerIsObject(e->value.val.binary.data))
		DynRaise(DYN_SERIALIZATION, "Unexpected %s for member %s.%s; expected an object",
				 ApiJsonTypeWord(&e->value), param, e->name);
	return e->value.val.binary.data;
}

/* a member of an object container; NULL when absent or JSON null */
static JsonbValue *
member(JsonbContainer *c, const char *name)
{
	JsonbValue *v = getKeyJsonValueFromContainer(c, name, strlen(name), NULL);

	if (v == NULL || v->type == jbvNull)
		return NULL;
	return v;
}

static char *
member_string(JsonbContainer *c, const char *name)
{
	JsonbValue *v = member(c, name);

	if (v == NULL)
		return NULL;
	if (v->type != jbvString)
		DynRaise(DYN_SERIALIZATION, "Unexpected %s for member %s; expected a string",
				 ApiJsonTypeWord(v), name);
	return pnstrdup(v->val.string.val, v->val.string.len);
}

static int
enum_index(const char *s, const char *const *values, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		if (strcmp(s, values[i]) == 0)
			return i;
	return -1;
}

static char *
enum_set(const char *const *values, int n)
{
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	for (i = 0; i < n; i++)
		appendStringInfo(&s, "%s%s", i ? ", " : "", values[i]);
	return s.data;
}

/*
 * check_condition_map
 *		The shape of a map of conditions: each a JSON object whose
 *		ComparisonOperator (required unless expected) is one of DynamoDB's.
 */
static void
check_condition_map(ApiRequest *req, Jsonb *map, const char *param,
					const char *field, const char *prefix, bool expected)
{
	ObjEntry   *e;
	int			n;
	int			i;

	e = object_entries(map, &n);
	for (i = 0; i < n; i++)
	{
		JsonbContainer *c = entry_object(&e[i], param);
		char	   *op = member_string(c, "ComparisonOperator");

		if (op == NULL)
		{
			if (!expected)
				ApiProblem(req, "Value null at '%s%s.%s.member.comparisonOperator' failed to satisfy constraint: Member must not be null",
						   prefix, field, e[i].name);
		}
		else if (enum_index(op, comparison_operators, lengthof(comparison_operators)) < 0)
			ApiProblem(req, "Value '%s' at '%s%s.%s.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [%s]",
					   op, prefix, field, e[i].name,
					   enum_set(comparison_operators, lengthof(comparison_operators)));
	}
}

void
LegacyRead(ApiRequest *req, int which, const char *prefix, LegacyParams *lp)
{
	memset(lp, 0, sizeof(*lp));
	if (which & LEGACY_ATTRIBUTES_TO_GET)
	{
		lp->attributes_to_get = ApiGetArray(req, "AttributesToGet");
		if (lp->attributes_to_get != NULL && JB_ROOT_COUNT(lp->attributes_to_get) == 0)
			ApiProblem(req, "Value '[]' at '%sattributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1",
					   prefix);
	}
	if (which & LEGACY_KEY_CONDITIONS)
	{
		lp->key_conditions = ApiGetObject(req, "KeyConditions");
		if (lp->key_conditions)
			check_condition_map(req, lp->key_conditions, "KeyConditions",
								"keyConditions", prefix, false);
	}
	if (which & LEGACY_QUERY_FILTER)
	{
		lp->query_filter = ApiGetObject(req, "QueryFilter");
		if (lp->query_filter)
			check_condition_map(req, lp->query_filter, "QueryFilter",
								"queryFilter", prefix, false);
	}
	if (which & LEGACY_SCAN_FILTER)
	{
		lp->scan_filter = ApiGetObject(req, "ScanFilter");
		if (lp->scan_filter)
			check_condition_map(req, lp->scan_filter, "ScanFilter",
								"scanFilter", prefix, false);
	}
	if (which & LEGACY_ATTRIBUTE_UPDATES)
	{
		lp->attribute_updates = ApiGetObject(req, "AttributeUpdates");
		if (lp->attribute_updates)
		{
			ObjEntry   *e;
			int			n;
			int			i;

			e = object_entries(lp->attribute_updates, &n);
			for (i = 0; i < n; i++)
			{
				JsonbContainer *c = entry_object(&e[i], "AttributeUpdates");
				char	   *action = member_string(c, "Action");

				if (action != NULL &&
					enum_index(action, update_actions, lengthof(update_actions)) < 0)
					ApiProblem(req, "Value '%s' at '%sattributeUpdates.%s.member.action' failed to satisfy constraint: Member must satisfy enum value set: [%s]",
							   action, prefix, e[i].name,
							   enum_set(update_actions, lengthof(update_actions)));
			}
		}
	}
	if (which & LEGACY_EXPECTED)
	{
		lp->expected = ApiGetObject(req, "Expected");
		if (lp->expected)
			check_condition_map(req, lp->expected, "Expected", "expected", prefix, true);
	}
	if (which & LEGACY_CONDITIONAL_OPERATOR)
	{
		JsonbValue *v = ApiGetMember(req, "ConditionalOperator");

		if (v != NULL)
		{
			int			k;
			char	   *s;

			if (v->type != jbvString)
				DynRaise(DYN_SERIALIZATION, "Unexpected %s for member ConditionalOperator; expected a string",
						 ApiJsonTypeWord(v));
			s = pnstrdup(v->val.string.val, v->val.string.len);
			k = enum_index(s, conditional_operators, lengthof(conditional_operators));
			if (k < 0)
				ApiProblem(req, "Value '%s' at '%sconditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [%s]",
						   s, prefix, enum_set(conditional_operators, lengthof(conditional_operators)));
			lp->has_conditional_operator = true;
			lp->or = (k == 0);
		}
	}
}

void
LegacyCheckMix(const LegacyParams *lp, const char *expression_params,
			   bool key_condition_expression)
{
	StringInfoData s;

	if (expression_params == NULL || expression_params[0] == '\0')
		return;
	initStringInfo(&s);
#define ADD_NAME(cond, name) \
	do { if (cond) appendStringInfo(&s, "%s%s", s.len ? ", " : "", name); } while (0)
	ADD_NAME(lp->attributes_to_get, "AttributesToGet");
	ADD_NAME(lp->attribute_updates, "AttributeUpdates");
	ADD_NAME(lp->expected, "Expected");
	ADD_NAME(lp->scan_filter, "ScanFilter");
	ADD_NAME(lp->query_filter, "QueryFilter");
	ADD_NAME(lp->has_conditional_operator, "ConditionalOperator");
	ADD_NAME(lp->key_conditions && key_condition_expression, "KeyConditions");
#undef ADD_NAME
	if (s.len > 0)
		DynValidation("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {%s} Expression parameters: {%s}",
					  s.data, expression_params);
}

void
LegacyCheckConditionalOperator(const LegacyParams *lp)
{
	Jsonb	   *conds;

	if (!lp->has_conditional_operator)
		return;
	conds = lp->expected ? lp->expected : lp->query_filter ? lp->query_filter : lp->scan_filter;
	if (conds == NULL || JB_ROOT_COUNT(conds) == 0)
		DynValidation("ConditionalOperator cannot be used without Filter or Expected");
	if (JB_ROOT_COUNT(conds) < 2)
		DynValidation("ConditionalOperator can only be used when Filter or Expected has two or more elements");
}

void
LegacyRefuse(ApiRequest *req, const char *const *names, int n, const char *operation)
{
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	for (i = 0; i < n; i++)
		if (ApiGetMember(req, names[i]) != NULL)
			appendStringInfo(&s, "%s%s", s.len ? ", " : "", names[i]);
	if (s.len > 0)
		DynValidation("%s does not accept the legacy parameters {%s}; use ConditionExpression",
					  operation, s.data);
}

/* ----------------------------------------------------------------
 * tree building
 * ----------------------------------------------------------------
 */
/* the one-step path of a legacy attribute name, checked as item names are */
static DocPath *
name_path(const char *name, int namelen)
{
	DocPath    *p = palloc0(sizeof(DocPath));

	if (namelen == 0)
		DynValidation(INVALID "An attribute name cannot be empty (Empty attribute name)");
	if (namelen > ATTR_MAX_NAME_BYTES)
		DynValidation(INVALID "Attribute name is too long; limit: %d bytes", ATTR_MAX_NAME_BYTES);

	p->nelems = 1;
	p->elems = palloc0(sizeof(PathElem));
	p->elems[0].kind = PATH_NAME;
	p->elems[0].name = pnstrdup(name, namelen);
	p->elems[0].namelen = namelen;
	return p;
}

static Operand *
path_operand(const char *name, int namelen)
{
	Operand    *o = palloc0(sizeof(Operand));

	o->kind = OPND_PATH;
	o->path = name_path(name, namelen);
	return o;
}

static Operand *
value_operand(AttrValue *v)
{
	Operand    *o = palloc0(sizeof(Operand));

	o->kind = OPND_VALUE;
	o->value = v;
	o->value_name = ":AttributeValueList";
	return o;
}

static CondNode *
cond_node(CondKind kind, int noperands)
{
	CondNode   *c = palloc0(sizeof(CondNode));

	c->kind = kind;
	c->noperands = noperands;
	c->operands = palloc0(sizeof(Operand *) * Max(1, noperands));
	return c;
}

static CondNode *
cond_join(CondKind kind, CondNode *left, CondNode *right)
{
	CondNode   *c;

	if (left == NULL)
		return right;
	c = cond_node(kind, 0);
	c->left = left;
	c->right = right;
	return c;
}

/* ----------------------------------------------------------------
 * conditions
 * ----------------------------------------------------------------
 */
typedef enum LegacyOp
{
	LOP_IN,
	LOP_NULL,
	LOP_BETWEEN,
	LOP_LT,
	LOP_NOT_CONTAINS,
	LOP_EQ,
	LOP_GT,
	LOP_NOT_NULL,
	LOP_NE,
	LOP_LE,
	LOP_BEGINS_WITH,
	LOP_GE,
	LOP_CONTAINS
} LegacyOp;						/* the order of comparison_operators[] */

/* does op take values of type t? (DynamoDB's table of operand types) */
static bool
op_takes_type(LegacyOp op, AttrType t)
{
	bool		scalar = (t == ATTR_S || t == ATTR_N || t == ATTR_B);

	switch (op)
	{
		case LOP_EQ:
		case LOP_NE:
		case LOP_NULL:
		case LOP_NOT_NULL:
			return true;
		case LOP_CONTAINS:
		case LOP_NOT_CONTAINS:
			return !(AttrTypeIsSet(t) || t == ATTR_M || t == ATTR_L);
		case LOP_BEGINS_WITH:
			return t == ATTR_S || t == ATTR_B;
		default:
			return scalar;
	}
}

/*
 * check_operands
 *		DynamoDB's rules for the values of one condition, in its order:
 *		how many, all of one type, a type the operator takes, BETWEEN's
 *		bounds in order.
 */
static void
check_operands(LegacyOp op, AttrValue **vals, int n)
{
	const char *opname = comparison_operators[op];
	bool		ok;
	int			i;

	switch (op)
	{
		case LOP_NULL:
		case LOP_NOT_NULL:
			ok = n == 0;
			break;
		case LOP_IN:
			ok = n >= 1;
			break;
		case LOP_BETWEEN:
			ok = n == 2;
			break;
		default:
			ok = n == 1;
			break;
	}
	if (!ok)
		DynValidation(INVALID "Invalid number of argument(s) for the %s ComparisonOperator", opname);
	for (i = 1; i < n; i++)
		if (vals[i]->type != vals[0]->type)
			DynValidation(INVALID "AttributeValues inside AttributeValueList must be of same type");
	for (i = 0; i < n; i++)
		if (!op_takes_type(op, vals[i]->type))
			DynValidation(INVALID "ComparisonOperator %s is not valid for %s AttributeValue type",
						  opname, AttrTypeName(vals[i]->type));
	if (op == LOP_BETWEEN && AttrValueCompare(vals[0], vals[1]) > 0)
		DynValidation("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound");
}

/* the condition tree of one checked legacy condition on attribute name */
static CondNode *
compile_op(const char *name, int namelen, LegacyOp op, AttrValue **vals, int n)
{
	CondNode   *c;
	int			i;

	switch (op)
	{
		case LOP_NULL:
		case LOP_NOT_NULL:
			c = cond_node(op == LOP_NULL ? COND_ATTRIBUTE_NOT_EXISTS : COND_ATTRIBUTE_EXISTS, 1);
			c->operands[0] = path_operand(name, namelen);
			return c;
		case LOP_IN:
			c = cond_node(COND_IN, n + 1);
			c->operands[0] = path_operand(name, namelen);
			for (i = 0; i < n; i++)
				c->operands[i + 1] = value_operand(vals[i]);
			return c;
		case LOP_BETWEEN:
			c = cond_node(COND_BETWEEN, 3);
			c->operands[0] = path_operand(name, namelen);
			c->operands[1] = value_operand(vals[0]);
			c->operands[2] = value_operand(vals[1]);
			return c;
		case LOP_BEGINS_WITH:
		case LOP_CONTAINS:
			c = cond_node(op == LOP_CONTAINS ? COND_CONTAINS : COND_BEGINS_WITH, 2);
			c->operands[0] = path_operand(name, namelen);
			c->operands[1] = value_operand(vals[0]);
			return c;
		case LOP_NOT_CONTAINS:
			{
				CondNode   *exists = compile_op(name, namelen, LOP_NOT_NULL, NULL, 0);
				CondNode   *not = cond_node(COND_NOT, 0);

				not->left = compile_op(name, namelen, LOP_CONTAINS, vals, n);
				return cond_join(COND_AND, exists, not);
			}
		default:
			c = cond_node(COND_COMPARE, 2);
			c->operands[0] = path_operand(name, namelen);
			c->operands[1] = value_operand(vals[0]);
			switch (op)
			{
				case LOP_EQ:
					c->op = CMP_EQ;
					break;
				case LOP_NE:
					c->op = CMP_NE;
					break;
				case LOP_LT:
					c->op = CMP_LT;
					break;
				case LOP_LE:
					c->op = CMP_LE;
					break;
				case LOP_GT:
					c->op = CMP_GT;
					break;
				default:
					c->op = CMP_GE;
					break;
			}
			return c;
	}
}

/* the values of an AttributeValueList (n = 0 when absent) */
static AttrValue **
value_list(JsonbValue *list, int *n)
{
	AttrValue **vals;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			count = 0;

	*n = 0;
	if (list == NULL)
		return NULL;
	if (list->type != jbvBinary || !JsonContainerIsArray(list->val.binary.data))
		DynRaise(DYN_SERIALIZATION, "Unexpected %s for member AttributeValueList; expected an array",
				 ApiJsonTypeWord(list));
	vals = palloc(sizeof(AttrValue *) * Max(1, JsonContainerSize(list->val.binary.data)));
	it = JsonbIteratorInit(list->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_ELEM)
			vals[count++] = AttrValueFromJsonb(&v, 1);
	}
	*n = count;
	return vals;
}

/* one QueryFilter/ScanFilter/KeyConditions entry */
static CondNode *
compile_filter_entry(const ObjEntry *e, const char *param, LegacyOp *opp)
{
	JsonbContainer *c = entry_object(e, param);
	char	   *opname = member_string(c, "ComparisonOperator");
	LegacyOp	op;
	int			n;
	AttrValue **vals;

	if (opname == NULL)			/* LegacyRead reported it */
		elog(ERROR, "legacy condition without ComparisonOperator");
	op = (LegacyOp) enum_index(opname, comparison_operators, lengthof(comparison_operators));
	vals = value_list(member(c, "AttributeValueList"), &n);

	check_operands(op, vals, n);
	*opp = op;
	return compile_op(e->name, e->namelen, op, vals, n);
}

/* one Expected entry, with DynamoDB's checks of Value/Exists/operator */
static CondNode *
compile_expected_entry(const ObjEntry *e)
{
	JsonbContainer *c = entry_object(e, "Expected");
	char	   *opname = member_string(c, "ComparisonOperator");
	JsonbValue *list = member(c, "AttributeValueList");
	JsonbValue *value = member(c, "Value");
	JsonbValue *exists = member(c, "Exists");
	AttrValue **vals;
	AttrValue  *v;
	int			n;

	if (exists != NULL && exists->type != jbvBool)
		DynRaise(DYN_SERIALIZATION, "Unexpected %s for member Exists; expected a boolean",
				 ApiJsonTypeWord(exists));
	if (value != NULL && list != NULL)
		DynValidation(INVALID "Value and AttributeValueList cannot be used together for Attribute: %s",
					  e->name);
	if (opname != NULL)
	{
		LegacyOp	op = (LegacyOp) enum_index(opname, comparison_operators,
											   lengthof(comparison_operators));

		if (exists != NULL)
			DynValidation(INVALID "Exists and ComparisonOperator cannot be used together for Attribute: %s",
						  e->name);
		if (op != LOP_NULL && op != LOP_NOT_NULL && list == NULL && value == NULL)
			DynValidation(INVALID "Value or AttributeValueList must be used with ComparisonOperator: %s for Attribute: %s",
						  opname, e->name);
		if (value != NULL)
		{
			vals = palloc(sizeof(AttrValue *));
			vals[0] = AttrValueFromJsonb(value, 1);
			n = 1;
		}
		else
			vals = value_list(list, &n);
		check_operands(op, vals, n);
		return compile_op(e->name, e->namelen, op, vals, n);
	}
	if (list != NULL)
		DynValidation(INVALID "AttributeValueList can only be used with a ComparisonOperator for Attribute: %s",
					  e->name);
	if (exists == NULL || exists->val.boolean)
	{
		if (value == NULL)
			DynValidation(INVALID "Value must be provided when Exists is %s for Attribute: %s",
						  exists == NULL ? "null" : "true", e->name);
		v = AttrValueFromJsonb(value, 1);
		return compile_op(e->name, e->namelen, LOP_EQ, &v, 1);
	}
	if (value != NULL)
		DynValidation(INVALID "Value cannot be used when Exists is false for Attribute: %s",
					  e->name);
	return compile_op(e->name, e->namelen, LOP_NULL, NULL, 0);
}

CondNode *
LegacyExpected(const LegacyParams *lp)
{
	ObjEntry   *e;
	CondNode   *cond = NULL;
	int			n;
	int			i;

	if (lp->expected == NULL)
		return NULL;
	e = object_entries(lp->expected, &n);
	for (i = 0; i < n; i++)
		cond = cond_join(lp->or ? COND_OR : COND_AND, cond, compile_expected_entry(&e[i]));
	return cond;
}

CondNode *
LegacyFilter(const LegacyParams *lp)
{
	Jsonb	   *map = lp->query_filter ? lp->query_filter : lp->scan_filter;
	const char *param = lp->query_filter ? "QueryFilter" : "ScanFilter";
	ObjEntry   *e;
	CondNode   *cond = NULL;
	int			n;
	int			i;

	if (map == NULL)
		return NULL;
	e = object_entries(map, &n);
	for (i = 0; i < n; i++)
	{
		LegacyOp	op;

		cond = cond_join(lp->or ? COND_OR : COND_AND, cond,
						 compile_filter_entry(&e[i], param, &op));
	}
	return cond;
}

/*
 * LegacyKeyConditions
 *		The AND of the key conditions.  The reader checks it against the key
 *		schema as it checks a KeyConditionExpression.  An operator no key
 *		range can serve (NE, IN, NULL, NOT_NULL, CONTAINS, NOT_CONTAINS) is
 *		refused only once the table is known, as DynamoDB does, and only on
 *		a key attribute: its condition stands in the tree as an equality
 *		(which then counts as a condition on a non-key attribute) and its
 *		attribute is added to *nonindexable for LegacyCheckIndexable().
 */
CondNode *
LegacyKeyConditions(const LegacyParams *lp, List **nonindexable)
{
	ObjEntry   *e;
	CondNode   *cond = NULL;
	int			n;
	int			i;

	*nonindexable = NIL;
	e = object_entries(lp->key_conditions, &n);
	for (i = 0; i < n; i++)
	{
		LegacyOp	op;
		CondNode   *c = compile_filter_entry(&e[i], "KeyConditions", &op);

		if (op != LOP_EQ && op != LOP_LE && op != LOP_LT && op != LOP_GE &&
			op != LOP_GT && op != LOP_BEGINS_WITH && op != LOP_BETWEEN)
		{
			c = cond_node(COND_COMPARE, 2);
			c->op = CMP_EQ;
			c->operands[0] = path_operand(e[i].name, e[i].namelen);
			c->operands[1] = value_operand(NULL);
			*nonindexable = lappend(*nonindexable, e[i].name);
		}
		cond = cond_join(COND_AND, cond, c);
	}
	/* more than two only for a multi-attribute index key (the reader checks) */
	if (n < 1 || n > ITEMKEY_MAX_TUPLE_PARTS)
		DynValidation("Conditions can be of length 1 or 2 only");
	return cond;
}

/*
 * LegacyCheckIndexable
 *		With the key schema known: refuse a non-indexable operator on the
 *		partition key, or on the sort key when the partition key has a
 *		condition (DynamoDB looks at the partition key first).
 */
void
LegacyCheckIndexable(List *nonindexable, List *conditioned, const char *hash_key,
					 const char *range_key)
{
	ListCell   *lc;
	bool		hash_conditioned = false;

	foreach(lc, conditioned)
		if (strcmp((char *) lfirst(lc), hash_key) == 0)
			hash_conditioned = true;
	foreach(lc, nonindexable)
	{
		const char *attr = lfirst(lc);

		if (strcmp(attr, hash_key) == 0 ||
			(hash_conditioned && range_key != NULL && strcmp(attr, range_key) == 0))
			DynValidation("Attempted conditional constraint is not an indexable operation");
	}
}

/* ----------------------------------------------------------------
 * AttributeUpdates and AttributesToGet
 * ----------------------------------------------------------------
 */
UpdateExpr *
LegacyAttributeUpdates(const LegacyParams *lp)
{
	ObjEntry   *e;
	UpdateExpr *upd;
	int			n;
	int			i;

	if (lp->attribute_updates == NULL)
		return NULL;
	e = object_entries(lp->attribute_updates, &n);
	if (n == 0)
		return NULL;			/* as if absent: a key-only item */
	upd = palloc0(sizeof(UpdateExpr));
	upd->legacy = true;
	upd->nactions = n;
	upd->actions = palloc0(sizeof(UpdateAction) * n);
	for (i = 0; i < n; i++)
	{
		JsonbContainer *c = entry_object(&e[i], "AttributeUpdates");
		char	   *action = member_string(c, "Action");
		JsonbValue *value = member(c, "Value");
		int			k = action ? enum_index(action, update_actions, lengthof(update_actions)) : 1;
		UpdateAction *a = &upd->actions[i];
		AttrValue  *v = NULL;

		if (value == NULL && k != 2)
			DynValidation(INVALID "Only DELETE action is allowed when no attribute value is specified");
		if (value != NULL)
			v = AttrValueFromJsonb(value, 1);
		a->path = name_path(e[i].name, e[i].namelen);
		switch (k)
		{
			case 0:				/* ADD */
				if (!(v->type == ATTR_N || AttrTypeIsSet(v->type) || v->type == ATTR_L))
					DynValidation(INVALID "ADD action is not supported for the type %s",
								  AttrTypeName(v->type));
				a->kind = UPD_ADD;
				a->value = value_operand(v);
				break;
			case 2:				/* DELETE */
				if (v == NULL)
				{
					a->kind = UPD_REMOVE;
					break;
				}
				if (!AttrTypeIsSet(v->type))
					DynValidation(INVALID "DELETE action with value is not supported for the type %s",
								  AttrTypeName(v->type));
				a->kind = UPD_DELETE;
				a->value = value_operand(v);
				break;
			default:			/* PUT */
				a->kind = UPD_SET;
				a->value = value_operand(v);
				break;
		}
	}
	return upd;
}

ProjectionExpr *
LegacyAttributesToGet(const LegacyParams *lp)
{
	ProjectionExpr *proj;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			n = 0;
	int			i;

	if (lp->attributes_to_get == NULL)
		return NULL;
	proj = palloc0(sizeof(ProjectionExpr));
	proj->paths = palloc(sizeof(DocPath *) * Max(1, JB_ROOT_COUNT(lp->attributes_to_get)));
	it = JsonbIteratorInit(&lp->attributes_to_get->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		if (v.type != jbvString)
			DynRaise(DYN_SERIALIZATION, "Unexpected %s for member AttributesToGet; expected a string",
					 ApiJsonTypeWord(&v));
		for (i = 0; i < n; i++)
		{
			const PathElem *p = &proj->paths[i]->elems[0];

			if (p->namelen == v.val.string.len &&
				memcmp(p->name, v.val.string.val, p->namelen) == 0)
				DynValidation(INVALID "Duplicate value in attribute name: %s", p->name);
		}
		proj->paths[n++] = name_path(v.val.string.val, v.val.string.len);
	}
	proj->npaths = n;
	return proj;
}
