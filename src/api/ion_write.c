/*-------------------------------------------------------------------------
 *
 * ion_write.c
 *		An export's line written as Amazon Ion text (IonWriteLine), and the
 *		SQL function item_to_ion().
 *
 * ion.c's essay states the mapping of DynamoDB's types to Ion that an ION
 * export uses.  The writer walks a stored item (jsonb, strings in the
 * stored form of nul_escape.c): strings are decoded and written with
 * Ion's escapes (U+0000 as \x00), field names that are not plain
 * identifiers as quoted symbols, numbers from their digits and exponent
 * (an integer of up to 38 digits as `103.`, a fraction with its point, any
 * other as digits and a `d` exponent), so that they read back exactly.  It
 * allocates in the caller's context, which the export resets per row.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "dnumber.h"
#include "ion.h"
#include "nul_escape.h"

PG_FUNCTION_INFO_V1(item_table_item_to_ion);

/* ----------------------------------------------------------------
 * the writer
 * ----------------------------------------------------------------
 */
static void write_value(StringInfo out, JsonbValue *v, int depth);

static void
not_an_item(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("not an item of DynamoDB JSON: %s", what)));
}

/* a stored string, decoded, into Ion's escapes between quote marks */
static void
write_text(StringInfo out, const char *s, int n, char quote)
{
	char	   *d = palloc(n + 1);
	int			len = (int) NulEscapeDecode(s, n, d);
	int			i;

	appendStringInfoChar(out, quote);
	for (i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) d[i];

		if (c == (unsigned char) quote || c == '\\')
		{
			appendStringInfoChar(out, '\\');
			appendStringInfoChar(out, (char) c);
		}
		else if (c == '\n')
			appendStringInfoString(out, "\\n");
		else if (c == '\t')
			appendStringInfoString(out, "\\t");
		else if (c == '\r')
			appendStringInfoString(out, "\\r");
		else if (c < 0x20 || c == 0x7f)
			appendStringInfo(out, "\\x%02x", c);
		else
			appendStringInfoChar(out, (char) c);
	}
	appendStringInfoChar(out, quote);
	pfree(d);
}

/* a field name: an identifier as it is, any other as a 'quoted symbol' */
static void
write_name(StringInfo out, const char *s, int n)
{
	int			i;
	bool		plain = n > 0 && IonIdentStart(s[0]) && s[0] != '$';

	for (i = 0; plain && i < n; i++)
		plain = IonIdentChar(s[i]);
	if (plain && ((n == 4 && (memcmp(s, "null", 4) == 0 || memcmp(s, "true", 4) == 0)) ||
				  (n == 5 && memcmp(s, "false", 5) == 0) || (n == 3 && memcmp(s, "nan", 3) == 0)))
		plain = false;
	if (plain)
		appendBinaryStringInfo(out, s, n);
	else
		write_text(out, s, n, '\'');
}

/* a DynamoDB number as an Ion decimal, exactly: its digits and exponent */
static void
write_number(StringInfo out, const char *s, int n)
{
	DynNumber	num;
	int			exp;
	int			i;

	if (DynNumberParse(s, n, &num) != DYNNUM_OK)
		not_an_item("a number that is not one");
	if (num.ndigits == 0)
	{
		appendStringInfoString(out, "0.");
		return;
	}
	if (num.negative)
		appendStringInfoChar(out, '-');
	/* value = digits x 10^exp, digits an integer */
	exp = num.exponent - num.ndigits;
	if (exp >= 0 && num.exponent <= DYNNUM_MAX_DIGITS)
	{
		/* an integer of at most 38 digits: as they are, 103 as 103. */
		for (i = 0; i < num.ndigits; i++)
			appendStringInfoChar(out, '0' + num.digits[i]);
		for (i = 0; i < exp; i++)
			appendStringInfoChar(out, '0');
		appendStringInfoChar(out, '.');
	}
	else if (exp < 0 && num.exponent > 0)
	{
		/* the point falls among the digits */
		for (i = 0; i < num.ndigits; i++)
		{
			if (i == num.exponent)
				appendStringInfoChar(out, '.');
			appendStringInfoChar(out, '0' + num.digits[i]);
		}
	}
	else if (exp < 0 && num.exponent > -6)
	{
		appendStringInfoString(out, "0.");
		for (i = 0; i < -num.exponent; i++)
			appendStringInfoChar(out, '0');
		for (i = 0; i < num.ndigits; i++)
			appendStringInfoChar(out, '0' + num.digits[i]);
	}
	else
	{
		for (i = 0; i < num.ndigits; i++)
			appendStringInfoChar(out, '0' + num.digits[i]);
		appendStringInfo(out, "d%d", exp);
	}
}

/* a map (object of attribute values) as a struct */
static void
write_map(StringInfo out, JsonbValue *m, int depth)
{
	JsonbIterator *it;
	JsonbValue	k;
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool		first = true;

	if (m->type != jbvBinary || !JsonContainerIsObject(m->val.binary.data))
		not_an_item("a map that is not an object");
	it = JsonbIteratorInit(m->val.binary.data);
	appendStringInfoChar(out, '{');
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		if (tok != WJB_KEY)
			continue;
		(void) JsonbIteratorNext(&it, &v, true);
		if (!first)
			appendStringInfoChar(out, ',');
		first = false;
		write_name(out, k.val.string.val, k.val.string.len);
		appendStringInfoChar(out, ':');
		write_value(out, &v, depth + 1);
	}
	appendStringInfoChar(out, '}');
}

/* the members of an array, each written by its kind */
static void
write_list(StringInfo out, JsonbValue *a, char kind, int depth)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool		first = true;

	if (a->type != jbvBinary || !JsonContainerIsArray(a->val.binary.data))
		not_an_item("a list or set that is not an array");
	it = JsonbIteratorInit(a->val.binary.data);
	appendStringInfoChar(out, '[');
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		if (!first)
			appendStringInfoChar(out, ',');
		first = false;
		if (kind == 'L')
			write_value(out, &v, depth + 1);
		else if (v.type != jbvString)
			not_an_item("a set member that is not a string");
		else if (kind == 'S')
			write_text(out, v.val.string.val, v.val.string.len, '"');
		else if (kind == 'N')
			write_number(out, v.val.string.val, v.val.string.len);
		else
		{
			appendStringInfoString(out, "{{");
			appendBinaryStringInfo(out, v.val.string.val, v.val.string.len);
			appendStringInfoString(out, "}}");
		}
	}
	appendStringInfoChar(out, ']');
}

/* one attribute value ({"S": ...} and the like) */
static void
write_value(StringInfo out, JsonbValue *av, int depth)
{
	JsonbIterator *it;
	JsonbValue	k;
	JsonbValue	v;
	JsonbIteratorToken tok;
	const char *t;
	int			tl;

	check_stack_depth();
	if (av->type != jbvBinary || !JsonContainerIsObject(av->val.binary.data) ||
		JsonContainerSize(av->val.binary.data) != 1)
		not_an_item("an attribute value that is not an object of one type");
	it = JsonbIteratorInit(av->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_KEY)
		;
	(void) JsonbIteratorNext(&it, &v, true);
	t = k.val.string.val;
	tl = k.val.string.len;
	if (tl == 1 && t[0] == 'S' && v.type == jbvString)
		write_text(out, v.val.string.val, v.val.string.len, '"');
	else if (tl == 1 && t[0] == 'N' && v.type == jbvString)
		write_number(out, v.val.string.val, v.val.string.len);
	else if (tl == 1 && t[0] == 'B' && v.type == jbvString)
	{
		appendStringInfoString(out, "{{");
		appendBinaryStringInfo(out, v.val.string.val, v.val.string.len);
		appendStringInfoString(out, "}}");
	}
	else if (tl == 4 && memcmp(t, "BOOL", 4) == 0 && v.type == jbvBool)
		appendStringInfoString(out, v.val.boolean ? "true" : "false");
	else if (tl == 4 && memcmp(t, "NULL", 4) == 0)
		appendStringInfoString(out, "null");
	else if (tl == 1 && t[0] == 'M')
		write_map(out, &v, depth);
	else if (tl == 1 && t[0] == 'L')
		write_list(out, &v, 'L', depth);
	else if (tl == 2 && t[1] == 'S' && (t[0] == 'S' || t[0] == 'N' || t[0] == 'B'))
	{
		appendStringInfo(out, "$dynamodb_%cS::", t[0]);
		write_list(out, &v, t[0], depth);
	}
	else
		not_an_item("an attribute value of no DynamoDB type");
}

void
IonWriteLine(StringInfo out, Jsonb *line)
{
	JsonbIterator *it;
	JsonbValue	k;
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool		first = true;

	if (!JB_ROOT_IS_OBJECT(line) || JB_ROOT_IS_SCALAR(line))
		not_an_item("the line is not an object");
	appendStringInfoString(out, "$ion_1_0 {");
	it = JsonbIteratorInit(&line->root);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		if (tok != WJB_KEY)
			continue;
		(void) JsonbIteratorNext(&it, &v, true);
		if (!first)
			appendStringInfoChar(out, ',');
		first = false;
		write_name(out, k.val.string.val, k.val.string.len);
		appendStringInfoChar(out, ':');
		write_map(out, &v, 0);
	}
	appendStringInfoChar(out, '}');
}
/*
 * item_to_ion(line jsonb) returns text
 *		A line's object ({"Item": {...}}, in item_table's stored form) as
 *		the line an ION export writes.
 */
Datum
item_table_item_to_ion(PG_FUNCTION_ARGS)
{
	Jsonb	   *j = PG_GETARG_JSONB_P(0);
	StringInfoData out;

	initStringInfo(&out);
	IonWriteLine(&out, j);
	PG_RETURN_TEXT_P(cstring_to_text_with_len(out.data, out.len));
}
