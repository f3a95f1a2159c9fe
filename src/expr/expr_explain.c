/*-------------------------------------------------------------------------
 *
 * expr_explain.c
 *		The SQL function explain_expression(): an expression parsed as
 *		DynamoDB would parse it, shown in the describe form.
 *
 * It sits on top of the expression layer (parser and describe helpers)
 * and is called by nothing in the extension.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "expr.h"

PG_FUNCTION_INFO_V1(item_table_explain_expression);

/*
 * item_table_explain_expression
 *		explain_expression(kind text, expression text, names jsonb,
 *		vals jsonb) returns text: parse the expression as DynamoDB would
 *		(raising its ValidationException otherwise), check that every name
 *		and value was used, and return the describe form.  NULL kind or
 *		expression gives NULL.
 */
Datum
item_table_explain_expression(PG_FUNCTION_ARGS)
{
	static const ExprKind kinds[] = {EXPR_CONDITION, EXPR_FILTER, EXPR_KEY_CONDITION,
	EXPR_UPDATE, EXPR_PROJECTION};
	char	   *kindname;
	text	   *expr;
	Jsonb	   *names;
	Jsonb	   *vals;
	ExprPlaceholders *ph;
	StringInfoData buf;
	ExprKind	kind = EXPR_CONDITION;
	bool		found = false;
	char	   *result;
	int			i;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	kindname = text_to_cstring(PG_GETARG_TEXT_PP(0));
	expr = PG_GETARG_TEXT_PP(1);
	names = PG_ARGISNULL(2) ? NULL : PG_GETARG_JSONB_P(2);
	vals = PG_ARGISNULL(3) ? NULL : PG_GETARG_JSONB_P(3);

	for (i = 0; i < (int) lengthof(kinds); i++)
	{
		if (strcmp(kindname, ExprKindName(kinds[i])) == 0)
		{
			kind = kinds[i];
			found = true;
		}
	}
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown expression kind \"%s\"", kindname),
				 errhint("Use ConditionExpression, FilterExpression, KeyConditionExpression, UpdateExpression or ProjectionExpression.")));

	ph = ExprPlaceholdersFromRequest(names, vals);
	initStringInfo(&buf);
	switch (kind)
	{
		case EXPR_UPDATE:
			ExprDescribeUpdate(&buf, ExprParseUpdate(VARDATA_ANY(expr),
													 VARSIZE_ANY_EXHDR(expr), ph));
			break;
		case EXPR_PROJECTION:
			ExprDescribeProjection(&buf, ExprParseProjection(VARDATA_ANY(expr),
															 VARSIZE_ANY_EXHDR(expr), ph));
			break;
		default:
			ExprDescribeCondition(&buf, ExprParseCondition(VARDATA_ANY(expr),
														   VARSIZE_ANY_EXHDR(expr),
														   kind, ph));
			break;
	}
	ExprCheckAllUsed(ph);

	/* names and values are UTF-8 (the rest is ASCII) */
	result = pg_any_to_server(buf.data, buf.len, PG_UTF8);
	PG_RETURN_TEXT_P(cstring_to_text(result));
}
