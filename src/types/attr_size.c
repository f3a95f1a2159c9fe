/*-------------------------------------------------------------------------
 *
 * attr_size.c
 *		DynamoDB's item size rules (the only statement of them), for
 *		AttrValue trees and for stored items read in place.
 *
 * Stored items can also be read in place, without building AttrValues:
 * AttrStoredItemSize walks the jsonb containers once for DynamoDB's size
 * and tells whether the jsonb is laid out as an item at all, which readers
 * of stored items check before trusting one (see "stored items read in
 * place" below).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

#include "attr_value.h"
#include "errors.h"
#include "jsonb_binary.h"

/* ----------------------------------------------------------------
 * sizes (reference §1.4)
 *
 * DynamoDB's size rules are stated once, in size_rule() and item_size_rule()
 * below.  A value is measured in one of two forms: an AttrValue tree
 * (AttrValueSize, AttrItemSize: what the write paths hold) or a stored item
 * read in place (AttrStoredItemSize: what Query and Scan read, without
 * building AttrValues).  Each walk only gathers a value's measure (bytes of
 * a string or binary, significant digits of a number, the sum over the
 * members of a container) and its member count, and hands them to the
 * rules; no walk adds a constant of its own.
 * ----------------------------------------------------------------
 */

/*
 * size_rule
 *		DynamoDB's size of one value of the given type, from its measure:
 *		  S, B				bytes (UTF-8 for S, raw for B; an S and a name
 *							counted decoded, nul_escape.c: U+0000 is 1)
 *		  N					1 + ceil(significant digits / 2); zero: 1
 *		  BOOL, NULL		1
 *		  M					3 + Σ (1 + name bytes + member size)
 *		  L					3 + Σ (1 + element size)
 *		  SS, NS, BS		Σ member size
 *		For M, L and the sets, measure is Σ (name bytes + size) over the
 *		count members (names: M only).
 */
static pg_attribute_always_inline int64
size_rule(AttrType type, int64 measure, int count)
{
	switch (type)
	{
		case ATTR_S:
		case ATTR_B:
			return measure;
		case ATTR_N:
			return measure == 0 ? 1 : 1 + (measure + 1) / 2;
		case ATTR_BOOL:
		case ATTR_NULL:
			return 1;
		case ATTR_M:
		case ATTR_L:
			return 3 + count + measure;
		case ATTR_SS:
		case ATTR_NS:
		case ATTR_BS:
			return measure;
	}
	return measure;
}

/* an item: Σ (name bytes + attribute size), no container overhead */
static inline int64
item_size_rule(int64 measure)
{
	return measure;
}

int64
AttrValueSize(const AttrValue *v)
{
	int64		measure = 0;
	int			count = 0;
	int			i;

	switch (v->type)
	{
		case ATTR_S:
			measure = NulEscapeDecodedLength(v->u.bytes.data, v->u.bytes.len);
			break;
		case ATTR_B:
			measure = v->u.bytes.len;
			break;
		case ATTR_N:
			measure = v->u.num.ndigits;
			break;
		case ATTR_BOOL:
		case ATTR_NULL:
			break;
		case ATTR_M:
			count = v->u.map.count;
			for (i = 0; i < count; i++)
				measure += NulEscapeDecodedLength(v->u.map.members[i].name,
												  v->u.map.members[i].namelen) +
					AttrValueSize(v->u.map.members[i].value);
			break;
		case ATTR_L:
		case ATTR_SS:
		case ATTR_NS:
		case ATTR_BS:
			count = v->u.list.count;
			for (i = 0; i < count; i++)
				measure += AttrValueSize(v->u.list.elems[i]);
			break;
	}
	return size_rule(v->type, measure, count);
}

int64
AttrItemSize(const AttrValue *item)
{
	int64		measure = 0;
	int			i;

	for (i = 0; i < item->u.map.count; i++)
		measure += NulEscapeDecodedLength(item->u.map.members[i].name,
										  item->u.map.members[i].namelen) +
			AttrValueSize(item->u.map.members[i].value);
	return item_size_rule(measure);
}

/* ----------------------------------------------------------------
 * stored items read in place
 *
 * A stored item is read straight from its jsonb containers, without
 * building AttrValues: its size for Query and Scan (the page cap counts
 * every item read), and whether it has the layout of a DynamoDB item at
 * all, which every reader of stored items checks before trusting it.  Only
 * the layout is checked (an object of single-member objects {"T": payload}
 * with a known T, each payload of the JSON type T needs, sets non-empty,
 * nesting within the limit); the text of numbers and binaries is taken as
 * the parser left it, so a row forced past the item guard may still fail
 * to parse later, with the parser's own error.  Names and strings are
 * measured as stored, which is UTF-8 in a UTF-8 database; in another the
 * item is parsed to be measured (AttrStoredItemSizeAnyEncoding).
 * ----------------------------------------------------------------
 */

/* significant digits of a canonical number's text (0 for zero) */
static int64
number_text_digits(const char *s, int len)
{
	int			first = -1;
	int			last = -1;
	int			digits = 0;
	int			i;

	for (i = 0; i < len; i++)
	{
		if (s[i] >= '1' && s[i] <= '9')
		{
			if (first < 0)
				first = i;
			last = i;
		}
	}
	if (first < 0)
		return 0;
	for (i = first; i <= last; i++)
		if (s[i] >= '0' && s[i] <= '9')
			digits++;
	return digits;
}

/* raw length of padded standard base64 */
static int64
base64_raw_size(const char *s, int len)
{
	int64		n = (int64) len / 4 * 3;

	if (len > 0 && s[len - 1] == '=')
		n--;
	if (len > 1 && s[len - 2] == '=')
		n--;
	return n;
}

/* children arrays up to this many entries live on the stack */
#define LOCAL_CHILDREN 32

/* a child array for a container of n children */
#define CHILDREN_FOR(local, n) \
	((n) <= LOCAL_CHILDREN ? (local) : palloc(sizeof(JsonbChild) * (n)))

static int64 stored_value_size(const JsonbContainer *av, int depth);

/* type_from_name for the walker: no loop over the names */
static bool
stored_type(const char *name, int len, AttrType *type)
{
	switch (len)
	{
		case 1:
			*type = name[0] == 'S' ? ATTR_S : name[0] == 'N' ? ATTR_N :
				name[0] == 'B' ? ATTR_B : name[0] == 'M' ? ATTR_M :
				name[0] == 'L' ? ATTR_L : ATTR_NULL;
			return *type != ATTR_NULL;
		case 2:
			if (name[1] != 'S')
				return false;
			*type = name[0] == 'S' ? ATTR_SS : name[0] == 'N' ? ATTR_NS :
				name[0] == 'B' ? ATTR_BS : ATTR_NULL;
			return *type != ATTR_NULL;
		case 4:
			*type = memcmp(name, "BOOL", 4) == 0 ? ATTR_BOOL :
				memcmp(name, "NULL", 4) == 0 ? ATTR_NULL : ATTR_S;
			return *type != ATTR_S;
	}
	return false;
}

/* the measure of an S, N or B payload (as size_rule takes it), or -1 */
static pg_attribute_always_inline int64
stored_scalar_measure(AttrType type, const JsonbChild *p)
{
	if (p->type != JENTRY_ISSTRING)
		return -1;
	if (type == ATTR_S)
		return NulEscapeDecodedLength(p->data, p->len);
	if (type == ATTR_N)
		return number_text_digits(p->data, p->len);
	return base64_raw_size(p->data, p->len);
}

/*
 * The measure, Σ (name bytes + size), of an object of attribute values at
 * nesting level depth (an item's attributes: depth 1); -1 when c is laid
 * out otherwise.  *count gets the number of members.
 */
static int64
stored_members_measure(const JsonbContainer *c, int depth, int *count)
{
	int			n = JsonContainerSize(c);
	JsonbChild	local[LOCAL_CHILDREN];
	JsonbChild *ch;
	int64		measure = 0;
	int			i;

	*count = n;
	if (!JsonContainerIsObject(c))
		return -1;
	ch = CHILDREN_FOR(local, n * 2);
	JsonbChildren(c, ch, n * 2);
	for (i = 0; i < n; i++)
	{
		int64		vsize = -1;

		if (ch[n + i].type == JENTRY_ISCONTAINER)
			vsize = stored_value_size((const JsonbContainer *) ch[n + i].data, depth);
		if (vsize < 0)
		{
			measure = -1;
			break;
		}
		measure += NulEscapeDecodedLength(ch[i].data, ch[i].len) + vsize;
	}
	if (ch != local)
		pfree(ch);
	return measure;
}

/*
 * The measure, Σ size, of the elements of an L payload (attribute values
 * at nesting level depth) or, for member_type S, N or B, of the members
 * of a set payload (strings, never empty); -1 when laid out otherwise.
 */
static int64
stored_elements_measure(const JsonbChild *payload, AttrType member_type, int depth,
						int *count)
{
	const JsonbContainer *c = (const JsonbContainer *) payload->data;
	int			n;
	JsonbChild	local[LOCAL_CHILDREN];
	JsonbChild *ch;
	int64		measure = 0;
	int			i;

	if (payload->type != JENTRY_ISCONTAINER || !JsonContainerIsArray(c) ||
		JsonContainerIsScalar(c))
		return -1;
	n = *count = JsonContainerSize(c);
	if (member_type != ATTR_L && n == 0)
		return -1;				/* sets are never empty */
	ch = CHILDREN_FOR(local, n);
	JsonbChildren(c, ch, n);
	for (i = 0; i < n; i++)
	{
		int64		vsize = -1;

		if (member_type != ATTR_L)
		{
			vsize = stored_scalar_measure(member_type, &ch[i]);
			if (vsize >= 0)
				vsize = size_rule(member_type, vsize, 0);
		}
		else if (ch[i].type == JENTRY_ISCONTAINER)
			vsize = stored_value_size((const JsonbContainer *) ch[i].data, depth);
		if (vsize < 0)
		{
			measure = -1;
			break;
		}
		measure += vsize;
	}
	if (ch != local)
		pfree(ch);
	return measure;
}

/* size_rule, or -1 for a measure of -1 (a payload laid out otherwise) */
static pg_attribute_always_inline int64
rule_unless_bad(AttrType type, int64 measure, int count)
{
	return measure < 0 ? -1 : size_rule(type, measure, count);
}

/*
 * size of one attribute value {"T": payload} at nesting level depth; every
 * case passes its type as a constant, so the rule folds into it
 */
static int64
stored_value_size(const JsonbContainer *av, int depth)
{
	JsonbChild	ch[2];
	const JsonbChild *p = &ch[1];
	AttrType	type;
	int64		measure;
	int			count = 0;

	check_stack_depth();
	if (!JsonContainerIsObject(av) || JsonContainerSize(av) != 1)
		return -1;
	JsonbChildren(av, ch, 2);
	if (!stored_type(ch[0].data, ch[0].len, &type))
		return -1;
	switch (type)
	{
		case ATTR_S:
			if (p->type != JENTRY_ISSTRING)
				return -1;
			return size_rule(ATTR_S, NulEscapeDecodedLength(p->data, p->len), 0);
		case ATTR_N:
			if (p->type != JENTRY_ISSTRING)
				return -1;
			return size_rule(ATTR_N, number_text_digits(p->data, p->len), 0);
		case ATTR_B:
			if (p->type != JENTRY_ISSTRING)
				return -1;
			return size_rule(ATTR_B, base64_raw_size(p->data, p->len), 0);
		case ATTR_BOOL:
			if (p->type != JENTRY_ISBOOL_TRUE && p->type != JENTRY_ISBOOL_FALSE)
				return -1;
			return size_rule(ATTR_BOOL, 0, 0);
		case ATTR_NULL:
			if (p->type != JENTRY_ISBOOL_TRUE)
				return -1;
			return size_rule(ATTR_NULL, 0, 0);
		case ATTR_M:
			if (p->type != JENTRY_ISCONTAINER || depth > ATTR_MAX_DEPTH)
				return -1;
			measure = stored_members_measure((const JsonbContainer *) p->data, depth + 1, &count);
			return rule_unless_bad(ATTR_M, measure, count);
		case ATTR_L:
			if (depth > ATTR_MAX_DEPTH)
				return -1;
			measure = stored_elements_measure(p, ATTR_L, depth + 1, &count);
			return rule_unless_bad(ATTR_L, measure, count);
		case ATTR_SS:
			measure = stored_elements_measure(p, ATTR_S, depth, &count);
			return rule_unless_bad(ATTR_SS, measure, count);
		case ATTR_NS:
			measure = stored_elements_measure(p, ATTR_N, depth, &count);
			return rule_unless_bad(ATTR_NS, measure, count);
		case ATTR_BS:
			measure = stored_elements_measure(p, ATTR_B, depth, &count);
			return rule_unless_bad(ATTR_BS, measure, count);
	}
	return -1;
}

/* AttrStoredItemSize, for both entry points below */
static pg_attribute_always_inline int64
stored_item_size(const Jsonb *j)
{
	int			count;
	int64		measure;

	if (!JB_ROOT_IS_OBJECT(j) || JB_ROOT_IS_SCALAR(j))
		return -1;
	measure = stored_members_measure(&j->root, 1, &count);
	return measure < 0 ? -1 : item_size_rule(measure);
}

/*
 * AttrStoredItemSize
 *		DynamoDB's size of a stored item, = AttrItemSize(AttrItemFromJsonb(j))
 *		for an item in stored form in a UTF-8 database, read without
 *		building the item; -1 when j does not have the layout of a DynamoDB
 *		item.  Allocates nothing unless a container has more than
 *		LOCAL_CHILDREN children.
 */
int64
AttrStoredItemSize(const Jsonb *j)
{
	return stored_item_size(j);
}

/*
 * AttrStoredItemSizeAnyEncoding
 *		AttrStoredItemSize in any database encoding: where it is not UTF-8,
 *		names and strings are held in another encoding, and the item is
 *		parsed (converted to UTF-8) to be measured by the same rules.
 */
int64
AttrStoredItemSizeAnyEncoding(Jsonb *j)
{
	int64		size = stored_item_size(j);

	if (size >= 0 && GetDatabaseEncoding() != PG_UTF8)
		size = AttrItemSize(AttrItemFromJsonb(j));
	return size;
}

/* ----------------------------------------------------------------
 * SQL-callable (here, not in attr_value.c: they measure items, and
 * attr_value.c calls nothing of this file)
 * ----------------------------------------------------------------
 */
PG_FUNCTION_INFO_V1(item_table_normalize_item);
PG_FUNCTION_INFO_V1(item_table_item_size);

/*
 * normalize_item(item jsonb) returns jsonb
 *		Validate an item as PutItem would (values, names, nesting, size)
 *		and return it in canonical form (numbers canonical, sets sorted).
 */
Datum
item_table_normalize_item(PG_FUNCTION_ARGS)
{
	AttrValue  *item = AttrItemFromJsonb(PG_GETARG_JSONB_P(0));

	if (AttrItemSize(item) > ATTR_MAX_ITEM_SIZE)
		DynValidation("Item size has exceeded the maximum allowed size");
	PG_RETURN_JSONB_P(AttrItemToJsonb(item));
}

/*
 * item_size(item jsonb) returns bigint
 *		The item's size in bytes by DynamoDB's formula.
 */
Datum
item_table_item_size(PG_FUNCTION_ARGS)
{
	AttrValue  *item = AttrItemFromJsonb(PG_GETARG_JSONB_P(0));

	PG_RETURN_INT64(AttrItemSize(item));
}

/* ----------------------------------------------------------------
 * JSON text and the stored form of strings (nul_escape.c)
 * ----------------------------------------------------------------
 */
PG_FUNCTION_INFO_V1(item_table_decode_item);
PG_FUNCTION_INFO_V1(item_table_encode_item);

/*
 * AttrJsonbFromJsonText
 *		JSON text (\u0000 allowed in strings) as a jsonb holding the stored
 *		form of its strings.  Text without \u0000 or \u0001 goes to jsonb's
 *		input as it is.
 */
Jsonb *
AttrJsonbFromJsonText(const char *json, int len)
{
	size_t		n = NulJsonInLength(json, len);
	char	   *buf = palloc(n + 1);

	if (n == (size_t) len)
		memcpy(buf, json, len);
	else
		NulJsonIn(json, len, buf);
	buf[n] = '\0';
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf)));
}

/*
 * AttrJsonbToJsonText
 *		A jsonb written out as JSON text, its strings decoded (U+0000 as
 *		\u0000): a json datum.
 */
text *
AttrJsonbToJsonText(Jsonb *j)
{
	char	   *out = JsonbToCString(NULL, &j->root, VARSIZE(j));
	size_t		len = NulJsonOut(out, strlen(out));

	return cstring_to_text_with_len(out, len);
}

/*
 * decode_item(item jsonb) returns json
 *		A stored item (or any jsonb of item_table: a request, a response, an
 *		attribute value) as JSON with its strings as DynamoDB has them:
 *		U+0000 as \u0000, U+0001 as \u0001.
 */
Datum
item_table_decode_item(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(AttrJsonbToJsonText(PG_GETARG_JSONB_P(0)));
}

/*
 * encode_item(item json) returns jsonb
 *		The other way: JSON text whose strings may hold \u0000 as the jsonb
 *		item_table stores (for the jsonb functions, e.g. put_item()).
 */
Datum
item_table_encode_item(PG_FUNCTION_ARGS)
{
	text	   *t = PG_GETARG_TEXT_PP(0);

	PG_RETURN_JSONB_P(AttrJsonbFromJsonText(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t)));
}

/*
 * item_table_test_stored_item_size(item jsonb) -> bigint
 *		AttrStoredItemSize of a stored item (-1: not laid out as an item).
 *		A test hook: the install script does not declare it; the pgTAP test
 *		jsonb_binary declares it in pg_temp, to compare the two walks of
 *		the size rules (item_size() measures the parsed item).
 */
PG_FUNCTION_INFO_V1(item_table_test_stored_item_size);

Datum
item_table_test_stored_item_size(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(AttrStoredItemSize(PG_GETARG_JSONB_P(0)));
}
