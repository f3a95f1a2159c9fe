/*-------------------------------------------------------------------------
 *
 * api_request.c
 *		Requests read and checked, and values echoed in their messages: the
 *		shared request machinery of the DynamoDB API functions.
 *
 * Requests.  A request is a jsonb object read member by member.  A member
 * of the wrong JSON type is a SerializationException at once; constraint
 * violations (missing required members, lengths, patterns, enum values)
 * are collected and raised together by ApiRequestCheck() in DynamoDB's
 * "N validation errors detected: a; b" form.  Enum values are listed in
 * DynamoDB's order, and collections DynamoDB echoes in such messages (a key
 * schema, a batch, a transaction over its length) render as its Java model
 * renders them (ApiEchoList and friends).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "api.h"

/* ----------------------------------------------------------------
 * requests
 * ----------------------------------------------------------------
 */
void
ApiRequestInit(ApiRequest *req, Jsonb *body)
{
	if (!JB_ROOT_IS_OBJECT(body) || JB_ROOT_IS_SCALAR(body))
		DynRaise(DYN_SERIALIZATION, "The request body must be a JSON object");
	req->body = body;
	req->problems = NIL;
	req->seen = NIL;
}

void
ApiProblem(ApiRequest *req, const char *fmt,...)
{
	va_list		args;

	va_start(args, fmt);
	req->problems = lappend(req->problems, DynFormatV(fmt, args));
	va_end(args);
}

void
ApiRequestCheck(ApiRequest *req)
{
	StringInfoData buf;
	ListCell   *lc;
	int			n = list_length(req->problems);

	if (n == 0)
		return;
	initStringInfo(&buf);
	appendStringInfo(&buf, "%d validation error%s detected: ", n, n == 1 ? "" : "s");
	foreach(lc, req->problems)
	{
		if (lc != list_head(req->problems))
			appendStringInfoString(&buf, "; ");
		appendStringInfoString(&buf, (char *) lfirst(lc));
	}
	DynRaise(DYN_VALIDATION, "%s", buf.data);
}

JsonbValue *
ApiGetMember(ApiRequest *req, const char *name)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&req->body->root, name,
												 strlen(name), NULL);

	if (v == NULL || v->type == jbvNull)
		return NULL;
	return v;
}

/*
 * ApiJsonTypeWord
 *		How DynamoDB's request reader names the JSON token it found where
 *		another was expected (SerializationException messages).
 */
const char *
ApiJsonTypeWord(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			return "STRING_VALUE";
		case jbvNumeric:
			return "NUMBER_VALUE";
		case jbvBool:
			return "BOOLEAN_VALUE";
		case jbvBinary:
			return JsonContainerIsArray(v->val.binary.data) ? "START_ARRAY" : "START_OBJECT";
		default:
			return "VALUE";
	}
}

static void
wrong_type(const char *name, const JsonbValue *v, const char *expected)
{
	DynRaise(DYN_SERIALIZATION,
			 "Unexpected %s for member %s; expected %s", ApiJsonTypeWord(v),
			 name, expected);
}

char *
ApiGetString(ApiRequest *req, const char *name, const char *field, bool required)
{
	JsonbValue *v = ApiGetMember(req, name);

	if (v == NULL)
	{
		if (required)
			ApiProblem(req, "Value null at '%s' failed to satisfy constraint: Member must not be null",
					   field);
		return NULL;
	}
	if (v->type != jbvString)
		wrong_type(name, v, "a string");
	return pnstrdup(v->val.string.val, v->val.string.len);
}

bool
ApiGetBool(ApiRequest *req, const char *name, bool *value)
{
	JsonbValue *v = ApiGetMember(req, name);

	if (v == NULL)
		return false;
	if (v->type != jbvBool)
		wrong_type(name, v, "a boolean");
	*value = v->val.boolean;
	return true;
}

bool
ApiGetInt(ApiRequest *req, const char *name, const char *field, int64 *value)
{
	JsonbValue *v = ApiGetMember(req, name);
	char	   *text;
	char	   *end;

	if (v == NULL)
		return false;
	if (v->type != jbvNumeric)
		wrong_type(name, v, "a number");
	text = DatumGetCString(DirectFunctionCall1(numeric_out,
											   NumericGetDatum(v->val.numeric)));
	errno = 0;
	*value = strtoll(text, &end, 10);
	if (*end != '\0' || errno != 0)
		DynRaise(DYN_SERIALIZATION, "Member %s must be an integer, not %s", name, text);
	(void) field;
	return true;
}

Jsonb *
ApiGetObject(ApiRequest *req, const char *name)
{
	JsonbValue *v = ApiGetMember(req, name);

	if (v == NULL)
		return NULL;
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		wrong_type(name, v, "an object");
	return JsonbValueToJsonb(v);
}

Jsonb *
ApiGetArray(ApiRequest *req, const char *name)
{
	JsonbValue *v = ApiGetMember(req, name);

	if (v == NULL)
		return NULL;
	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		wrong_type(name, v, "an array");
	return JsonbValueToJsonb(v);
}

/*
 * DynamoDB lists an enum's values in its model's order, which is not
 * always the order our arrays keep them in (an index into those arrays is
 * what callers act on).  The value sets whose order differs, in DynamoDB's
 * order; a set not listed here is printed in the caller's order.
 */
static const char *const enum_display_orders[][6] = {
	{"SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"},
	{"B", "N", "S"},
	{"ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"},
	{"ALL", "INCLUDE", "KEYS_ONLY"},
};

/* the display order of values[], if it is one of the sets above */
static const char *const *
enum_display_order(const char *const *values, int nvalues)
{
	int			o;

	for (o = 0; o < (int) lengthof(enum_display_orders); o++)
	{
		const char *const *order = enum_display_orders[o];
		int			n = 0;
		int			i;
		bool		same = true;

		while (n < 6 && order[n] != NULL)
			n++;
		if (n != nvalues)
			continue;
		for (i = 0; i < n && same; i++)
		{
			int			j;

			same = false;
			for (j = 0; j < nvalues; j++)
				if (strcmp(order[i], values[j]) == 0)
					same = true;
		}
		if (same)
			return order;
	}
	return values;
}

int
ApiGetEnum(ApiRequest *req, const char *name, const char *field,
		   const char *const *values, int nvalues)
{
	char	   *s = ApiGetString(req, name, field, false);
	StringInfoData set;
	const char *const *shown;
	int			i;

	if (s == NULL)
		return -1;
	for (i = 0; i < nvalues; i++)
	{
		if (strcmp(s, values[i]) == 0)
			return i;
	}
	shown = enum_display_order(values, nvalues);
	initStringInfo(&set);
	for (i = 0; i < nvalues; i++)
		appendStringInfo(&set, "%s%s", i > 0 ? ", " : "", shown[i]);
	ApiProblem(req, "Value '%s' at '%s' failed to satisfy constraint: Member must satisfy enum value set: [%s]",
			   s, field, set.data);
	return -1;
}

char *
ApiGetTableName(ApiRequest *req, const char *name, const char *field,
				bool required)
{
	char	   *s = ApiGetString(req, name, field, required);
	int			len;
	const char *p;

	if (s == NULL)
		return NULL;
	len = strlen(s);

	/*
	 * A table name may also be a table ARN (up to 1024 characters), so the
	 * model's bounds for TableName are 1..1024: an empty name fails only
	 * that bound, and a name of 1 or 2 characters the table-name rule.
	 */
	if (len == 0 && strcmp(field, "tableName") == 0)
	{
		ApiProblem(req, "Value '' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1",
				   field);
		return s;
	}
	/* DynamoDB reports the pattern before the lengths */
	for (p = s; *p; p++)
	{
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			  (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-'))
		{
			ApiProblem(req, "Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
					   s, field);
			break;
		}
	}
	if (len < 3)
		ApiProblem(req, "Value '%s' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 3",
				   s, field);
	if (len > 255)
		ApiProblem(req, "Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to 255",
				   s, field);
	return s;
}

/* ----------------------------------------------------------------
 * echoed values in constraint messages
 *
 * DynamoDB's "Value '<v>' at '<member>' failed to satisfy constraint"
 * renders the offending value as its Java model renders itself: a list as
 * "[a, b]", a map as "{k=v}", a structure as "Name(member=value, ...)"
 * naming every member of the model in order (absent ones as "null"), and
 * an AttributeValue as its class name and identity hash
 * ("com.amazonaws.dynamodb.v20120810.AttributeValue@1b2c3d4e").  The
 * shapes below are those of the structures DynamoDB echoes whole (a key
 * schema, a batch or a transaction over its length limit).  The hash is a
 * hash of the value's JSON text, so the message is stable for a request.
 * ----------------------------------------------------------------
 */
static const ApiEchoShape echo_get = {"Get", 4, {
		{"Key", API_ECHO_ATTR_MAP}, {"TableName", API_ECHO_SCALAR},
		{"ProjectionExpression", API_ECHO_SCALAR},
{"ExpressionAttributeNames", API_ECHO_STRING_MAP}}};
const ApiEchoShape ApiEchoTransactGetItem = {"TransactGetItem", 1, {
{"Get", API_ECHO_STRUCT, &echo_get}}};

#define ECHO_CONDITION_MEMBERS \
	{"ConditionExpression", API_ECHO_SCALAR}, \
	{"ExpressionAttributeNames", API_ECHO_STRING_MAP}, \
	{"ExpressionAttributeValues", API_ECHO_ATTR_MAP}, \
	{"ReturnValuesOnConditionCheckFailure", API_ECHO_SCALAR}
static const ApiEchoShape echo_condition_check = {"ConditionCheck", 6, {
		{"Key", API_ECHO_ATTR_MAP}, {"TableName", API_ECHO_SCALAR},
ECHO_CONDITION_MEMBERS}};
static const ApiEchoShape echo_put = {"Put", 6, {
		{"Item", API_ECHO_ATTR_MAP}, {"TableName", API_ECHO_SCALAR},
ECHO_CONDITION_MEMBERS}};
static const ApiEchoShape echo_delete = {"Delete", 6, {
		{"Key", API_ECHO_ATTR_MAP}, {"TableName", API_ECHO_SCALAR},
ECHO_CONDITION_MEMBERS}};
static const ApiEchoShape echo_update = {"Update", 7, {
		{"Key", API_ECHO_ATTR_MAP}, {"UpdateExpression", API_ECHO_SCALAR},
		{"TableName", API_ECHO_SCALAR},
ECHO_CONDITION_MEMBERS}};
const ApiEchoShape ApiEchoTransactWriteItem = {"TransactWriteItem", 4, {
		{"ConditionCheck", API_ECHO_STRUCT, &echo_condition_check},
		{"Put", API_ECHO_STRUCT, &echo_put},
		{"Delete", API_ECHO_STRUCT, &echo_delete},
{"Update", API_ECHO_STRUCT, &echo_update}}};

static const ApiEchoShape echo_put_request = {"PutRequest", 2, {
{"Item", API_ECHO_ATTR_MAP}, {"WorkloadProfileName", API_ECHO_SCALAR}}};
static const ApiEchoShape echo_delete_request = {"DeleteRequest", 2, {
{"Key", API_ECHO_ATTR_MAP}, {"WorkloadProfileName", API_ECHO_SCALAR}}};
const ApiEchoShape ApiEchoWriteRequest = {"WriteRequest", 2, {
		{"PutRequest", API_ECHO_STRUCT, &echo_put_request},
{"DeleteRequest", API_ECHO_STRUCT, &echo_delete_request}}};

const ApiEchoShape ApiEchoKeySchemaElement = {"KeySchemaElement", 2, {
{"AttributeName", API_ECHO_SCALAR}, {"KeyType", API_ECHO_SCALAR}}};

static void echo_value(StringInfo buf, JsonbValue *v, ApiEchoKind kind,
					   const ApiEchoShape *shape);

/* a JSON scalar as Java's toString would print the model's field */
static void
echo_scalar(StringInfo buf, JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			appendBinaryStringInfo(buf, v->val.string.val, v->val.string.len);
			break;
		case jbvNumeric:
			appendStringInfoString(buf, DatumGetCString(DirectFunctionCall1(numeric_out,
																			 NumericGetDatum(v->val.numeric))));
			break;
		case jbvBool:
			appendStringInfoString(buf, v->val.boolean ? "true" : "false");
			break;
		case jbvBinary:
			appendStringInfoString(buf, JsonbToCString(NULL, v->val.binary.data,
													   v->val.binary.len));
			break;
		default:
			appendStringInfoString(buf, "null");
			break;
	}
}

/* "{k=v, ...}" of an object, each value rendered as kind */
static void
echo_map(StringInfo buf, JsonbValue *v, ApiEchoKind kind)
{
	JsonbIterator *it;
	JsonbValue	k,
				val;
	JsonbIteratorToken tok;
	bool		first = true;

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
	{
		echo_scalar(buf, v);
		return;
	}
	appendStringInfoChar(buf, '{');
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(&it, &val, true);
		if (!first)
			appendStringInfoString(buf, ", ");
		first = false;
		appendBinaryStringInfo(buf, k.val.string.val, k.val.string.len);
		appendStringInfoChar(buf, '=');
		if (kind == API_ECHO_ATTR_MAP)
		{
			/* FNV-1a of the value's JSON text: the same on every platform */
			char	   *text = val.type == jbvBinary ?
				JsonbToCString(NULL, val.val.binary.data, val.val.binary.len) : "";
			uint32		h = 2166136261u;
			const char *c;

			for (c = text; *c; c++)
				h = (h ^ (unsigned char) *c) * 16777619u;
			appendStringInfo(buf, "com.amazonaws.dynamodb.v20120810.AttributeValue@%08x", h);
		}
		else
			echo_scalar(buf, &val);
	}
	appendStringInfoChar(buf, '}');
}

/* "Name(member=value, ...)" with every member of the shape */
static void
echo_struct(StringInfo buf, JsonbValue *v, const ApiEchoShape *shape)
{
	int			i;

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
	{
		echo_scalar(buf, v);
		return;
	}
	appendStringInfo(buf, "%s(", shape->name);
	for (i = 0; i < shape->nmembers; i++)
	{
		const ApiEchoMember *m = &shape->members[i];
		JsonbValue *mv = getKeyJsonValueFromContainer(v->val.binary.data, m->name,
													  strlen(m->name), NULL);

		if (i > 0)
			appendStringInfoString(buf, ", ");
		appendStringInfo(buf, "%c%s=", pg_ascii_tolower((unsigned char) m->name[0]),
						 m->name + 1);
		if (mv == NULL || mv->type == jbvNull)
			appendStringInfoString(buf, "null");
		else
			echo_value(buf, mv, m->kind, m->shape);
	}
	appendStringInfoChar(buf, ')');
}

static void
echo_value(StringInfo buf, JsonbValue *v, ApiEchoKind kind, const ApiEchoShape *shape)
{
	switch (kind)
	{
		case API_ECHO_SCALAR:
			echo_scalar(buf, v);
			break;
		case API_ECHO_ATTR_MAP:
		case API_ECHO_STRING_MAP:
			echo_map(buf, v, kind);
			break;
		case API_ECHO_STRUCT:
			echo_struct(buf, v, shape);
			break;
	}
}

/* "[e, ...]" of an array of structures */
static void
echo_list(StringInfo buf, JsonbContainer *arr, const ApiEchoShape *shape)
{
	JsonbIterator *it = JsonbIteratorInit(arr);
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool		first = true;

	appendStringInfoChar(buf, '[');
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		if (!first)
			appendStringInfoString(buf, ", ");
		first = false;
		echo_struct(buf, &v, shape);
	}
	appendStringInfoChar(buf, ']');
}

char *
ApiEchoList(Jsonb *arr, const ApiEchoShape *shape)
{
	StringInfoData buf;

	initStringInfo(&buf);
	echo_list(&buf, &arr->root, shape);
	return buf.data;
}

char *
ApiEchoMapOfLists(Jsonb *obj, const ApiEchoShape *shape)
{
	StringInfoData buf;
	JsonbIterator *it = JsonbIteratorInit(&obj->root);
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;
	bool		first = true;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(&it, &v, true);
		if (!first)
			appendStringInfoString(&buf, ", ");
		first = false;
		appendBinaryStringInfo(&buf, k.val.string.val, k.val.string.len);
		appendStringInfoChar(&buf, '=');
		if (v.type == jbvBinary && JsonContainerIsArray(v.val.binary.data))
			echo_list(&buf, v.val.binary.data, shape);
		else
			echo_scalar(&buf, &v);
	}
	appendStringInfoChar(&buf, '}');
	return buf.data;
}
