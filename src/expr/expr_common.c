/*-------------------------------------------------------------------------
 *
 * expr_common.c
 *		What every expression shares: the ExpressionAttributeNames/Values
 *		of a request, the check that each of them was used, the text forms
 *		of paths and trees.
 *
 * Placeholders.  ExprPlaceholdersFromRequest() validates both maps as
 * DynamoDB does (non-empty, "#x"/":x" keys of at most 255 bytes, names
 * non-empty, values valid attribute values) and keeps each map's keys
 * sorted by length, then bytes (the order jsonb itself keeps object keys
 * in), so that the parser can binary-search them.  The parser marks every
 * entry it resolves; ExprCheckAllUsed() then names the unused ones, sorted
 * bytewise, in one message per map (names first), as DynamoDB does.
 *
 * Text forms.  Paths in messages use DynamoDB's form, "[a, b, [2]]".  The
 * describe functions render trees for explain_expression() and tests as
 * s-expressions, one unambiguous token per piece:
 *
 *	  path		a.b[2].c	names that are not plain identifiers are
 *							double-quoted with \" and \\ escaped:
 *							a."x.y"[0]
 *	  value		:v{N:1}		the placeholder, then DynamoDB's rendering of
 *							its value
 *	  size		size(a)
 *	  update	if_not_exists(a, :v{N:0}), list_append(a, :l{L:[]}),
 *	  operands	(+ a :one{N:1}), (- a :one{N:1})
 *	  compare	(= a :v{S:x})	also <> < <= > >=
 *	  others	(BETWEEN a :lo{N:1} :hi{N:9}), (IN a :x{S:x} :y{S:y}),
 *				(AND c1 c2), (OR c1 c2), (NOT c),
 *				(attribute_exists a), (attribute_not_exists a),
 *				(attribute_type a :t{S:N}), (begins_with a :p{S:x}),
 *				(contains a :x{S:x})
 *	  update	SET a = :v{N:1}, b = (+ b :one{N:1}); REMOVE c; ADD n :n{N:1};
 *				DELETE s :s{SS:[x]}	(actions in text order, consecutive
 *				actions of one clause after one keyword)
 *	  projection a, b.c[0]
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "compat.h"
#include "errors.h"
#include "expr.h"

#define IS_KEY_CHAR(c) (((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z') || \
						((c) >= '0' && (c) <= '9') || (c) == '_')

/*
 * ExprKindName
 *		The request parameter an expression kind comes from.
 */
const char *
ExprKindName(ExprKind kind)
{
	switch (kind)
	{
		case EXPR_CONDITION:
			return "ConditionExpression";
		case EXPR_FILTER:
			return "FilterExpression";
		case EXPR_KEY_CONDITION:
			return "KeyConditionExpression";
		case EXPR_UPDATE:
			return "UpdateExpression";
		case EXPR_PROJECTION:
			return "ProjectionExpression";
	}
	return "Expression";
}

/* ----------------------------------------------------------------
 * placeholders
 * ----------------------------------------------------------------
 */

/* one entry while reading a map */
typedef struct PlaceholderEntry
{
	char	   *key;
	char	   *name;			/* names: the attribute name (UTF-8) */
	int			namelen;
	AttrValue  *value;			/* values */
} PlaceholderEntry;

/* qsort order of placeholder entries: key length, then bytes */
static int
entry_cmp(const void *a, const void *b)
{
	const PlaceholderEntry *ea = a;
	const PlaceholderEntry *eb = b;
	size_t		la = strlen(ea->key);
	size_t		lb = strlen(eb->key);

	if (la != lb)
		return la < lb ? -1 : 1;
	return memcmp(ea->key, eb->key, la);
}

/*
 * check_key
 *		A placeholder key: the sigil and one or more of [A-Za-z0-9_], at
 *		most EXPR_MAX_PLACEHOLDER bytes.
 */
static void
check_key(const char *map, char sigil, const char *key, int len)
{
	int			i;
	bool		ok = len >= 2 && key[0] == sigil;

	for (i = 1; ok && i < len; i++)
		ok = IS_KEY_CHAR((unsigned char) key[i]);
	if (!ok)
		DynValidation("%s contains invalid key: Syntax error; key: \"%.*s\"", map, len, key);
	if (len > EXPR_MAX_PLACEHOLDER)
		DynValidation("%s contains invalid key: The expression attribute map contains a key that is too long",
					  map);
}

/*
 * read_map
 *		The members of a jsonb object as entries (values still as jsonb),
 *		checking that it is an object, non-empty, with valid keys.
 */
static PlaceholderEntry *
read_map(Jsonb *jb, const char *map, char sigil, JsonbValue **jvalues, int *n)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	PlaceholderEntry *entries;
	int			count;
	int			i = 0;

	if (!JB_ROOT_IS_OBJECT(jb) || JB_ROOT_IS_SCALAR(jb))
		DynRaise(DYN_SERIALIZATION,
				 "Unexpected value for %s; expected a JSON object", map);
	count = JB_ROOT_COUNT(jb);
	if (count == 0)
		DynValidation("%s must not be empty", map);

	entries = palloc0(count * sizeof(PlaceholderEntry));
	*jvalues = palloc0(count * sizeof(JsonbValue));
	it = JsonbIteratorInit(&jb->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		CHECK_FOR_INTERRUPTS();
		if (tok == WJB_KEY)
		{
			Assert(i < count);
			check_key(map, sigil, v.val.string.val, v.val.string.len);
			entries[i].key = pnstrdup(v.val.string.val, v.val.string.len);
		}
		else if (tok == WJB_VALUE)
			(*jvalues)[i++] = v;
	}
	*n = i;
	return entries;
}

/*
 * parse_placeholder_value
 *		An attribute value of ExpressionAttributeValues; a
 *		ValidationException is reworded as DynamoDB words it ("... for key
 *		:v"), anything else passes through.
 */
static AttrValue *
parse_placeholder_value(JsonbValue *jv, const char *key)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	AttrValue  *volatile result = NULL;
	char	   *volatile msg = NULL;

	PG_TRY();
	{
		result = AttrValueFromJsonb(jv, 1);
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		const char *prefix = "ValidationException: ";

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_DYN_VALIDATION)
			PG_RE_THROW();
		FlushErrorState();
		msg = edata->message;
		if (strncmp(msg, prefix, strlen(prefix)) == 0)
			msg += strlen(prefix);
	}
	PG_END_TRY();

	if (msg != NULL)
		DynValidation("ExpressionAttributeValues contains invalid value: %s for key %s",
					  msg, key);
	return result;
}

/*
 * ExprPlaceholdersFromRequest
 *		Read and check ExpressionAttributeNames and ExpressionAttributeValues
 *		(either may be NULL).  Raises ValidationException (or
 *		SerializationException for JSON of the wrong shape).  The result is
 *		palloc'd in the current memory context; its keys are sorted by
 *		length, then bytes.
 */
ExprPlaceholders *
ExprPlaceholdersFromRequest(Jsonb *names, Jsonb *values)
{
	ExprPlaceholders *ph = palloc0(sizeof(ExprPlaceholders));
	PlaceholderEntry *entries;
	JsonbValue *jvalues;
	int			n;
	int			i;

	if (names != NULL)
	{
		entries = read_map(names, "ExpressionAttributeNames", '#', &jvalues, &n);
		for (i = 0; i < n; i++)
		{
			JsonbValue *jv = &jvalues[i];
			char	   *utf8;

			if (jv->type != jbvString)
				DynRaise(DYN_SERIALIZATION,
						 "Unexpected value for ExpressionAttributeNames key %s; expected a JSON string",
						 entries[i].key);
			if (jv->val.string.len == 0)
				DynValidation("ExpressionAttributeNames contains invalid value: Empty attribute name for key %s",
							  entries[i].key);
			utf8 = pg_server_to_any(jv->val.string.val, jv->val.string.len, PG_UTF8);
			if (utf8 == jv->val.string.val)
				utf8 = pnstrdup(jv->val.string.val, jv->val.string.len);
			entries[i].name = utf8;
			entries[i].namelen = strlen(utf8);
			if (NulEscapeDecodedLength(utf8, entries[i].namelen) > ATTR_MAX_NAME_BYTES)
				DynValidation("ExpressionAttributeNames contains invalid value: Attribute name is too long; limit: %d bytes for key %s",
							  ATTR_MAX_NAME_BYTES, entries[i].key);
		}
		qsort(entries, n, sizeof(PlaceholderEntry), entry_cmp);
		ph->nnames = n;
		ph->name_keys = palloc(n * sizeof(char *));
		ph->name_values = palloc(n * sizeof(char *));
		ph->name_lens = palloc(n * sizeof(int));
		ph->name_used = palloc0(n * sizeof(bool));
		for (i = 0; i < n; i++)
		{
			ph->name_keys[i] = entries[i].key;
			ph->name_values[i] = entries[i].name;
			ph->name_lens[i] = entries[i].namelen;
		}
	}

	if (values != NULL)
	{
		entries = read_map(values, "ExpressionAttributeValues", ':', &jvalues, &n);
		for (i = 0; i < n; i++)
			entries[i].value = parse_placeholder_value(&jvalues[i], entries[i].key);
		qsort(entries, n, sizeof(PlaceholderEntry), entry_cmp);
		ph->nvalues = n;
		ph->value_keys = palloc(n * sizeof(char *));
		ph->values = palloc(n * sizeof(AttrValue *));
		ph->value_used = palloc0(n * sizeof(bool));
		for (i = 0; i < n; i++)
		{
			ph->value_keys[i] = entries[i].key;
			ph->values[i] = entries[i].value;
		}
	}
	return ph;
}

/* qsort order of C strings: bytewise */
static int
cstring_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* raise "Value provided in <map> unused in expressions: keys: {...}" */
static void
check_unused(const char *map, char **keys, const bool *used, int n)
{
	char	  **unused = palloc(Max(n, 1) * sizeof(char *));
	int			nunused = 0;
	StringInfoData buf;
	int			i;

	for (i = 0; i < n; i++)
	{
		if (!used[i])
			unused[nunused++] = keys[i];
	}
	if (nunused == 0)
		return;
	qsort(unused, nunused, sizeof(char *), cstring_cmp);
	initStringInfo(&buf);
	for (i = 0; i < nunused; i++)
	{
		if (i > 0)
			appendStringInfoString(&buf, ", ");
		appendStringInfoString(&buf, unused[i]);
	}
	DynValidation("Value provided in %s unused in expressions: keys: {%s}", map, buf.data);
}

/*
 * ExprCheckAllUsed
 *		After every expression of the request was parsed: raise
 *		ValidationException naming unused names (first) or values.
 */
void
ExprCheckAllUsed(const ExprPlaceholders *ph)
{
	if (ph == NULL)
		return;
	check_unused("ExpressionAttributeNames", ph->name_keys, ph->name_used, ph->nnames);
	check_unused("ExpressionAttributeValues", ph->value_keys, ph->value_used, ph->nvalues);
}

/* ----------------------------------------------------------------
 * text forms
 * ----------------------------------------------------------------
 */

/*
 * ExprDescribePath
 *		DynamoDB's form of a path in messages: "[a, b, [2]]" (names as they
 *		are, indexes in brackets).
 */
void
ExprDescribePath(StringInfo out, const DocPath *path)
{
	int			i;

	appendStringInfoChar(out, '[');
	for (i = 0; i < path->nelems; i++)
	{
		const PathElem *e = &path->elems[i];

		if (i > 0)
			appendStringInfoString(out, ", ");
		if (e->kind == PATH_INDEX)
			appendStringInfo(out, "[%d]", e->index);
		else
			appendBinaryStringInfo(out, e->name, e->namelen);
	}
	appendStringInfoChar(out, ']');
}

/* a name element: as is when it is a plain identifier, else quoted */
static void
describe_name(StringInfo out, const char *name, int len)
{
	bool		plain = len > 0 &&
		((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z'));
	int			i;

	for (i = 1; plain && i < len; i++)
		plain = IS_KEY_CHAR((unsigned char) name[i]);
	if (plain)
	{
		appendBinaryStringInfo(out, name, len);
		return;
	}
	appendStringInfoChar(out, '"');
	for (i = 0; i < len; i++)
	{
		if (name[i] == '"' || name[i] == '\\')
			appendStringInfoChar(out, '\\');
		appendStringInfoChar(out, name[i]);
	}
	appendStringInfoChar(out, '"');
}

/* a path in the describe form: a.b[2]."x.y" */
static void
describe_path(StringInfo out, const DocPath *path)
{
	int			i;

	for (i = 0; i < path->nelems; i++)
	{
		const PathElem *e = &path->elems[i];

		if (e->kind == PATH_INDEX)
			appendStringInfo(out, "[%d]", e->index);
		else
		{
			if (i > 0)
				appendStringInfoChar(out, '.');
			describe_name(out, e->name, e->namelen);
		}
	}
}

/* an operand in the describe form */
static void
describe_operand(StringInfo out, const Operand *o)
{
	check_stack_depth();
	switch (o->kind)
	{
		case OPND_PATH:
			describe_path(out, o->path);
			break;
		case OPND_VALUE:
			appendStringInfoString(out, o->value_name);
			AttrValueDescribe(out, o->value);
			break;
		case OPND_SIZE:
			appendStringInfoString(out, "size(");
			describe_operand(out, o->args[0]);
			appendStringInfoChar(out, ')');
			break;
		case OPND_IF_NOT_EXISTS:
			appendStringInfoString(out, "if_not_exists(");
			describe_path(out, o->path);
			appendStringInfoString(out, ", ");
			describe_operand(out, o->args[0]);
			appendStringInfoChar(out, ')');
			break;
		case OPND_LIST_APPEND:
			appendStringInfoString(out, "list_append(");
			describe_operand(out, o->args[0]);
			appendStringInfoString(out, ", ");
			describe_operand(out, o->args[1]);
			appendStringInfoChar(out, ')');
			break;
		case OPND_PLUS:
		case OPND_MINUS:
			appendStringInfoString(out, o->kind == OPND_PLUS ? "(+ " : "(- ");
			describe_operand(out, o->args[0]);
			appendStringInfoChar(out, ' ');
			describe_operand(out, o->args[1]);
			appendStringInfoChar(out, ')');
			break;
	}
}

/*
 * ExprDescribeCondition
 *		Append the s-expression form of a condition tree (see the file
 *		header) to out.
 */
void
ExprDescribeCondition(StringInfo out, const CondNode *cond)
{
	static const char *const compare_names[] = {"=", "<>", "<", "<=", ">", ">="};
	const char *head = NULL;
	int			i;

	check_stack_depth();
	switch (cond->kind)
	{
		case COND_AND:
		case COND_OR:
			appendStringInfoString(out, cond->kind == COND_AND ? "(AND " : "(OR ");
			ExprDescribeCondition(out, cond->left);
			appendStringInfoChar(out, ' ');
			ExprDescribeCondition(out, cond->right);
			appendStringInfoChar(out, ')');
			return;
		case COND_NOT:
			appendStringInfoString(out, "(NOT ");
			ExprDescribeCondition(out, cond->left);
			appendStringInfoChar(out, ')');
			return;
		case COND_COMPARE:
			head = compare_names[cond->op];
			break;
		case COND_BETWEEN:
			head = "BETWEEN";
			break;
		case COND_IN:
			head = "IN";
			break;
		case COND_ATTRIBUTE_EXISTS:
			head = "attribute_exists";
			break;
		case COND_ATTRIBUTE_NOT_EXISTS:
			head = "attribute_not_exists";
			break;
		case COND_ATTRIBUTE_TYPE:
			head = "attribute_type";
			break;
		case COND_BEGINS_WITH:
			head = "begins_with";
			break;
		case COND_CONTAINS:
			head = "contains";
			break;
	}
	appendStringInfoChar(out, '(');
	appendStringInfoString(out, head);
	for (i = 0; i < cond->noperands; i++)
	{
		appendStringInfoChar(out, ' ');
		describe_operand(out, cond->operands[i]);
	}
	appendStringInfoChar(out, ')');
}

/*
 * ExprDescribeUpdate
 *		Append "SET a = x, b = y; REMOVE c; ..." (see the file header).
 */
void
ExprDescribeUpdate(StringInfo out, const UpdateExpr *upd)
{
	static const char *const clause_names[] = {"SET", "REMOVE", "ADD", "DELETE"};
	int			i;

	for (i = 0; i < upd->nactions; i++)
	{
		const UpdateAction *a = &upd->actions[i];

		if (i == 0 || upd->actions[i - 1].kind != a->kind)
		{
			if (i > 0)
				appendStringInfoString(out, "; ");
			appendStringInfoString(out, clause_names[a->kind]);
			appendStringInfoChar(out, ' ');
		}
		else
			appendStringInfoString(out, ", ");
		describe_path(out, a->path);
		if (a->kind == UPD_SET)
			appendStringInfoString(out, " = ");
		else if (a->value)
			appendStringInfoChar(out, ' ');
		if (a->value)
			describe_operand(out, a->value);
	}
}

/*
 * ExprDescribeProjection
 *		Append the projected paths, comma-separated.
 */
void
ExprDescribeProjection(StringInfo out, const ProjectionExpr *proj)
{
	int			i;

	for (i = 0; i < proj->npaths; i++)
	{
		if (i > 0)
			appendStringInfoString(out, ", ");
		describe_path(out, proj->paths[i]);
	}
}

/*
 * ExprMirrorCompare
 *		The comparison read the other way round: 3 < a is a > 3.
 */
CompareOp
ExprMirrorCompare(CompareOp op)
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
