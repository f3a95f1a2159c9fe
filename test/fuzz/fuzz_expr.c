/*-------------------------------------------------------------------------
 *
 * fuzz_expr.c
 *		libFuzzer target: the expression language (expr_lexer.c,
 *		expr_parser.c, expr_common.c), with evaluation of what parses
 *		(expr_eval.c, expr_update.c).
 *
 * The input is the text of an expression.  Each input is parsed as every
 * kind of expression (ConditionExpression, FilterExpression,
 * KeyConditionExpression, UpdateExpression, ProjectionExpression) against
 * one fixed set of ExpressionAttributeNames/Values that has a placeholder
 * of every attribute type; a tree that parses is described (as
 * explain_expression does) and evaluated against a fixed item and against
 * a missing item, as the API would; the item and the placeholder values
 * must come out unchanged.  Every ValidationException is a clean
 * rejection.
 *
 * Expressions reach the parser as jsonb strings or text values, so they
 * are always valid UTF-8 without NUL bytes; other inputs are skipped.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"

#include "expr.h"
#include "fuzz_support.h"

/*
 * The placeholders of sql/expr_parse.sql (so that its expressions, the
 * seeds, resolve) and a few more: a value of every type and at the limits.
 */
static const char names_json[] =
"{\"#n\": \"name\", \"#s\": \"status\", \"#d\": \"a.b\", \"#x\": \"x\","
" \"#y\": \"y\", \"#a\": \"a\", \"#b\": \"b\", \"#1\": \"one\", \"#_\": \"under\","
" \"#Alpha_9\": \"weird name!\", \"#q\": \"say \\\"hi\\\"\", \"#pk\": \"pk\","
" \"#sk\": \"sk\", \"#l\": \"list\", \"#m\": \"map\"}";

static const char values_json[] =
"{\":v\": {\"N\": \"1\"}, \":s\": {\"S\": \"x\"}, \":s2\": {\"S\": \"a\"},"
" \":lo\": {\"N\": \"1\"}, \":hi\": {\"N\": \"9\"}, \":b\": {\"B\": \"AQ==\"},"
" \":l\": {\"L\": [{\"S\": \"a\"}]}, \":m\": {\"M\": {\"k\": {\"S\": \"v\"}}},"
" \":ss\": {\"SS\": [\"a\", \"b\"]}, \":ns\": {\"NS\": [\"1\", \"2\"]},"
" \":bs\": {\"BS\": [\"AQ==\"]}, \":bool\": {\"BOOL\": true}, \":null\": {\"NULL\": true},"
" \":t\": {\"S\": \"N\"}, \":tss\": {\"S\": \"SS\"}, \":dog\": {\"S\": \"DOG\"},"
" \":lower\": {\"S\": \"n\"}, \":1\": {\"N\": \"-1.50\"}, \":_\": {\"S\": \"\"},"
" \":e\": {\"L\": []}, \":n\": {\"N\": \"5\"}, \":z\": {\"N\": \"0\"},"
" \":big\": {\"N\": \"9.9999999999999999999999999999999999999E+125\"},"
" \":tiny\": {\"N\": \"1E-130\"}, \":p\": {\"S\": \"ab\"}}";

/* an item with the attributes those expressions name */
static const char item_json[] =
"{\"pk\": {\"S\": \"p1\"}, \"sk\": {\"N\": \"1\"}, \"id\": {\"S\": \"i\"},"
" \"a\": {\"M\": {\"b\": {\"M\": {\"c\": {\"M\": {\"d\": {\"N\": \"4\"}}}}},"
"   \"c\": {\"N\": \"1\"}, \"d\": {\"S\": \"d\"}}},"
" \"b\": {\"S\": \"abcdef\"}, \"c\": {\"N\": \"10\"}, \"e\": {\"SS\": [\"a\", \"b\"]},"
" \"name\": {\"S\": \"n\"}, \"status\": {\"S\": \"ok\"}, \"a.b\": {\"BOOL\": true},"
" \"x\": {\"L\": [{\"N\": \"1\"}, {\"S\": \"two\"}, {\"L\": [{\"N\": \"3\"}]}]},"
" \"y\": {\"M\": {\"k\": {\"S\": \"v\"}}}, \"one\": {\"N\": \"1\"},"
" \"under\": {\"NULL\": true}, \"list\": {\"L\": [{\"B\": \"AQ==\"}]},"
" \"map\": {\"M\": {\"n\": {\"NS\": [\"1\", \"2\"]}}},"
" \"s\": {\"SS\": [\"a\", \"x\"]}, \"ss\": {\"SS\": [\"b\"]},"
" \"ns\": {\"NS\": [\"1\", \"2\"]}, \"bs\": {\"BS\": [\"AQ==\", \"AP8=\"]},"
" \"bin\": {\"B\": \"AAEC\"}, \"flag\": {\"BOOL\": false},"
" \"big\": {\"N\": \"9.9999999999999999999999999999999999999E+125\"},"
" \"text\": {\"S\": \"h\\u00e9llo \\ud83d\\ude00\"}}";

typedef struct ExprRun
{
	const char *text;
	int			len;
	ExprKind	kind;
	ExprPlaceholders *ph;
	AttrValue  *item;
	AttrValue  *keys_only;
} ExprRun;

static void
setup(void *arg)
{
	ExprRun    *run = arg;
	Jsonb	   *names = fz_json_to_jsonb(names_json, strlen(names_json));
	Jsonb	   *values = fz_json_to_jsonb(values_json, strlen(values_json));
	Jsonb	   *item = fz_json_to_jsonb(item_json, strlen(item_json));

	run->ph = ExprPlaceholdersFromRequest(names, values);
	run->item = AttrItemFromJsonb(item);
	run->keys_only = AttrNewMap();
	AttrMapPut(run->keys_only, "pk", 2, AttrCopy(AttrMapGet(run->item, "pk", 2)));
	AttrMapPut(run->keys_only, "sk", 2, AttrCopy(AttrMapGet(run->item, "sk", 2)));
}

static void
describe_check(StringInfo out)
{
	fz_check(out->len > 0 && (int) strlen(out->data) == out->len,
			 "a description must be non-empty text");
}

static void
run_condition(void *arg)
{
	ExprRun    *run = arg;
	CondNode   *cond = ExprParseCondition(run->text, run->len, run->kind, run->ph);
	StringInfoData out;

	fz_check(cond != NULL, "ExprParseCondition returned NULL");
	initStringInfo(&out);
	ExprDescribeCondition(&out, cond);
	describe_check(&out);
	if (run->kind != EXPR_KEY_CONDITION)
	{
		(void) ExprEvalCondition(cond, run->item);
		(void) ExprEvalCondition(cond, AttrNewMap());
	}
}

static void
run_update_on(const UpdateExpr *upd, const AttrValue *item, bool existed)
{
	AttrValue  *after = ExprApplyUpdate(upd, item, existed);

	fz_check(after != NULL && after->type == ATTR_M, "ExprApplyUpdate must return a map");
	(void) AttrItemSize(after);
	(void) AttrItemToJsonb(after);
	(void) ExprUpdatedAttributes(upd, item, false);
	(void) ExprUpdatedAttributes(upd, after, true);
}

static void
run_update(void *arg)
{
	ExprRun    *run = arg;
	UpdateExpr *upd = ExprParseUpdate(run->text, run->len, run->ph);
	StringInfoData out;

	fz_check(upd != NULL && upd->nactions > 0, "ExprParseUpdate returned no actions");
	initStringInfo(&out);
	ExprDescribeUpdate(&out, upd);
	describe_check(&out);
	run_update_on(upd, run->item, true);
}

static void
run_update_missing(void *arg)
{
	ExprRun    *run = arg;
	UpdateExpr *upd = ExprParseUpdate(run->text, run->len, run->ph);

	run_update_on(upd, run->keys_only, false);
}

static void
run_projection(void *arg)
{
	ExprRun    *run = arg;
	ProjectionExpr *proj = ExprParseProjection(run->text, run->len, run->ph);
	StringInfoData out;
	AttrValue  *projected;

	fz_check(proj != NULL && proj->npaths > 0, "ExprParseProjection returned no paths");
	initStringInfo(&out);
	ExprDescribeProjection(&out, proj);
	describe_check(&out);
	projected = ExprProject(proj, run->item);
	fz_check(projected != NULL && projected->type == ATTR_M,
			 "ExprProject must return a map");
	(void) ExprProject(proj, AttrNewMap());
}

static void
run_check_used(void *arg)
{
	ExprRun    *run = arg;

	ExprCheckAllUsed(run->ph);
}

/*
 * The fixture is built once and only read: each input starts with the
 * placeholders marked unused, and must leave the item, the key attributes
 * and the placeholder values as they were (evaluation works on copies).
 */
static ExprRun fixture;
static AttrValue *pristine_item;
static AttrValue *pristine_keys;
static AttrValue **pristine_values;

static void
fixture_init(void)
{
	int			i;

	fz_permanent_begin();
	if (!fz_call(setup, &fixture))
		fz_fail("the fixed placeholders and item must parse: %s",
				fz_last_error()->message);
	pristine_item = AttrCopy(fixture.item);
	pristine_keys = AttrCopy(fixture.keys_only);
	pristine_values = palloc(sizeof(AttrValue *) * fixture.ph->nvalues);
	for (i = 0; i < fixture.ph->nvalues; i++)
		pristine_values[i] = AttrCopy(fixture.ph->values[i]);
	fz_permanent_end();
}

static void
fixture_check_unchanged(void)
{
	int			i;

	fz_check(AttrValueEquals(fixture.item, pristine_item),
			 "evaluating the expression changed the item it read");
	fz_check(AttrValueEquals(fixture.keys_only, pristine_keys),
			 "evaluating the expression changed the key attributes it read");
	for (i = 0; i < fixture.ph->nvalues; i++)
		fz_check(AttrValueEquals(fixture.ph->values[i], pristine_values[i]),
				 "evaluating the expression changed the value of %s",
				 fixture.ph->value_keys[i]);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ExprRun		run;
	static const ExprKind cond_kinds[] = {EXPR_CONDITION, EXPR_FILTER, EXPR_KEY_CONDITION};
	int			i;

	if (size > 16 * EXPR_MAX_BYTES || memchr(data, '\0', size) != NULL)
		return -1;
	fz_input_begin();
	if (!pg_verify_mbstr(PG_UTF8, (const char *) data, (int) size, true))
	{
		fz_input_end();
		return -1;
	}
	if (fixture.ph == NULL)
		fixture_init();
	run = fixture;
	memset(run.ph->name_used, 0, sizeof(bool) * run.ph->nnames);
	memset(run.ph->value_used, 0, sizeof(bool) * run.ph->nvalues);
	run.text = fz_cstring(data, size);
	run.len = (int) size;
	for (i = 0; i < (int) lengthof(cond_kinds); i++)
	{
		run.kind = cond_kinds[i];
		(void) fz_call(run_condition, &run);
	}
	run.kind = EXPR_UPDATE;
	if (fz_call(run_update, &run))
		(void) fz_call(run_update_missing, &run);
	run.kind = EXPR_PROJECTION;
	(void) fz_call(run_projection, &run);
	(void) fz_call(run_check_used, &run);
	fixture_check_unchanged();
	fz_input_end();
	return 0;
}
