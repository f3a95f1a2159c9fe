/*-------------------------------------------------------------------------
 *
 * fuzz_partiql.c
 *		libFuzzer target: the PartiQL parser (partiql_parser.c) and the
 *		compiler of statements into DynamoDB requests (partiql_compile.c).
 *
 * The input is the text of a statement.  What parses is compiled against
 * three fixed key schemas (pk S + sk N with an index keyed gpk/gsk, a
 * hash-only table keyed id, and a table whose key names need escaping)
 * in each context (ExecuteStatement, BatchExecuteStatement,
 * ExecuteTransaction), with as many Parameters as the statement holds,
 * of several types.  Every request compiled must be valid JSON, its
 * placeholders must read as ExpressionAttributeNames/Values do, and every
 * expression in it must parse without a syntax error or a redundant
 * parenthesis, and use every placeholder: the compiler writes expression
 * text itself, so any of those is a compiler bug.  A rejection for what
 * the statement means (operand types, overlapping paths, invalid numbers)
 * is clean.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"

#include "expr.h"
#include "fuzz_support.h"
#include "partiql.h"

/* parameter values, used in turn for the statement's ? */
static const char params_json[] =
"[{\"S\": \"x\"}, {\"N\": \"1\"}, {\"B\": \"AQ==\"}, {\"M\": {\"pk\": {\"S\": \"p\"}, \"sk\": {\"N\": \"2\"}}},"
" {\"L\": [{\"S\": \"a\"}]}, {\"SS\": [\"a\", \"b\"]}, {\"BOOL\": true}, {\"NULL\": true},"
" {\"NS\": [\"1\"]}, {\"S\": \"it's \\\" #x :y\"}]";

static const PqSchema schemas[] = {
	{"tbl", "pk", "sk", "gsi", "gpk", "gsk"},
	{"hsh", "id", NULL, "gsi", "g", NULL},
	{"we\"ird", "a.b", "#c", "idx", ":v", "x y"}
};

typedef struct PqRun
{
	const char *text;
	int			len;
	PqStatement *st;
	JsonbValue *params;
	const PqSchema *schema;
	PqContext	ctx;
	PqCompiled *comp;
	Jsonb	   *request;
	ExprPlaceholders *ph;
	const char *expr_text;
	ExprKind	expr_kind;
} PqRun;

static JsonbValue *fixture_params;
static int	fixture_nparams;

static void
fixture_init(void)
{
	Jsonb	   *arr;
	int			i;

	fz_permanent_begin();
	arr = fz_json_to_jsonb(params_json, strlen(params_json));
	fixture_nparams = JB_ROOT_COUNT(arr);
	fixture_params = palloc(sizeof(JsonbValue) * fixture_nparams);
	for (i = 0; i < fixture_nparams; i++)
		fixture_params[i] = *getIthJsonbValueFromContainer(&arr->root, i);
	fz_permanent_end();
}

static void
run_parse(void *arg)
{
	PqRun	   *run = arg;

	run->st = PqParse(run->text, run->len);
	fz_check(run->st != NULL && run->st->table != NULL, "PqParse returned no table");
	fz_check(run->st->nparams >= 0, "negative parameter count");
}

static void
run_compile(void *arg)
{
	PqRun	   *run = arg;

	run->comp = PqCompile(run->st, run->schema, run->params, run->st->nparams, run->ctx);
	fz_check(run->comp != NULL && run->comp->members != NULL, "PqCompile returned nothing");
}

static void
run_json(void *arg)
{
	PqRun	   *run = arg;
	char	   *text = psprintf("{%s}", run->comp->members);

	run->request = fz_json_to_jsonb(text, strlen(text));
}

static Jsonb *
member_object(Jsonb *j, const char *name)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&j->root, name, strlen(name), NULL);

	if (v == NULL)
		return NULL;
	fz_check(v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data),
			 "%s is not an object", name);
	return JsonbValueToJsonb(v);
}

static void
run_placeholders(void *arg)
{
	PqRun	   *run = arg;

	run->ph = ExprPlaceholdersFromRequest(member_object(run->request, "ExpressionAttributeNames"),
										  member_object(run->request, "ExpressionAttributeValues"));
}

static void
run_expression(void *arg)
{
	PqRun	   *run = arg;
	int			len = strlen(run->expr_text);

	if (run->expr_kind == EXPR_UPDATE)
		(void) ExprParseUpdate(run->expr_text, len, run->ph);
	else if (run->expr_kind == EXPR_PROJECTION)
		(void) ExprParseProjection(run->expr_text, len, run->ph);
	else
		(void) ExprParseCondition(run->expr_text, len, run->expr_kind, run->ph);
}

static void
run_all_used(void *arg)
{
	PqRun	   *run = arg;

	ExprCheckAllUsed(run->ph);
}

/* the expressions of a compiled request parse, and use every placeholder */
static void
check_request(PqRun *run)
{
	static const struct
	{
		const char *member;
		ExprKind	kind;
	}			exprs[] = {
		{"KeyConditionExpression", EXPR_KEY_CONDITION},
		{"FilterExpression", EXPR_FILTER},
		{"ConditionExpression", EXPR_CONDITION},
		{"UpdateExpression", EXPR_UPDATE},
		{"ProjectionExpression", EXPR_PROJECTION}
	};
	int			i;
	bool		all_parsed = true;

	if (!fz_call(run_json, run))
		fz_fail("compiled request is not JSON: {%s}", run->comp->members);
	if (!fz_call(run_placeholders, run))
		return;					/* a value DynamoDB refuses (e.g. a number) */
	for (i = 0; i < (int) lengthof(exprs); i++)
	{
		JsonbValue *v = getKeyJsonValueFromContainer(&run->request->root, exprs[i].member,
													 strlen(exprs[i].member), NULL);

		if (v == NULL)
			continue;
		fz_check(v->type == jbvString, "%s is not a string", exprs[i].member);
		run->expr_text = pnstrdup(v->val.string.val, v->val.string.len);
		run->expr_kind = exprs[i].kind;
		if (!fz_call(run_expression, run))
		{
			const char *msg = fz_last_error()->message;
			const char *what = strstr(msg, "Expression: ");

			/* "ValidationException: Invalid <Kind>Expression: <what>" */
			what = what ? what + strlen("Expression: ") : msg;
			all_parsed = false;
			fz_check(strncmp(what, "Syntax error", 12) != 0 &&
					 strncmp(what, "The expression has redundant parentheses", 40) != 0 &&
					 strncmp(what, "Attribute name is a reserved keyword", 36) != 0,
					 "compiled %s is malformed: %s (%s)", exprs[i].member,
					 run->expr_text, msg);
		}
	}
	if (all_parsed && !fz_call(run_all_used, run))
		fz_fail("compiled request leaves a placeholder unused: {%s}: %s",
				run->comp->members, fz_last_error()->message);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	PqRun		run;
	int			s;
	int			c;
	int			i;

	if (size > 2 * PQ_MAX_STATEMENT_CHARS || memchr(data, '\0', size) != NULL)
		return -1;
	fz_input_begin();
	if (!pg_verify_mbstr(PG_UTF8, (const char *) data, (int) size, true))
	{
		fz_input_end();
		return -1;
	}
	if (fixture_params == NULL)
		fixture_init();
	memset(&run, 0, sizeof(run));
	run.text = fz_cstring(data, size);
	run.len = (int) size;
	if (fz_call(run_parse, &run))
	{
		run.params = palloc(sizeof(JsonbValue) * Max(run.st->nparams, 1));
		for (i = 0; i < run.st->nparams; i++)
			run.params[i] = fixture_params[i % fixture_nparams];
		for (s = 0; s < (int) lengthof(schemas); s++)
		{
			for (c = PQ_CTX_STATEMENT; c <= PQ_CTX_TRANSACTION; c++)
			{
				run.schema = &schemas[s];
				run.ctx = (PqContext) c;
				if (fz_call(run_compile, &run))
					check_request(&run);
			}
		}
	}
	fz_input_end();
	return 0;
}
