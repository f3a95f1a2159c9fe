/*-------------------------------------------------------------------------
 *
 * attr_value.c
 *		DynamoDB attribute values: jsonb <-> AttrValue trees, validation and
 *		normalisation, equality and order, number arithmetic.
 *
 * Every value that enters the extension (items, keys, expression values)
 * passes through AttrValueFromJsonb, which enforces reference §1: exactly
 * one type member, the JSON type each member needs (a wrong JSON type is a
 * SerializationException, as in DynamoDB), canonical numbers within the
 * digit and magnitude limits, strict padded base64, NULL only as true,
 * non-empty duplicate-free sets, and nesting of at most 32 container
 * levels (a top-level attribute is level 1).
 *
 * Ordering invariants (see attr_value.h): map members are kept in jsonb's
 * key order (shorter names first, then bytewise), which is the order a
 * jsonb object's keys come out of an iterator, so parsing needs no sort
 * and lookups can binary-search; set members are sorted by value and
 * unique, so set equality is a pairwise walk and output is deterministic.
 *
 * Strings are kept as UTF-8.  In a database whose encoding is not UTF-8
 * they are converted on the way in and out.  U+0000 cannot occur: jsonb
 * rejects it before we see it (see docs/differences.md).
 *
 * DynamoDB's size rules (reference §1.4), for AttrValues and for stored
 * items read in place, are in attr_size.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "attr_value.h"
#include "errors.h"
#include "item_table.h"
#include "jsonb_binary.h"

static const char *const attr_type_names[] = {
	[ATTR_S] = "S",
	[ATTR_N] = "N",
	[ATTR_B] = "B",
	[ATTR_BOOL] = "BOOL",
	[ATTR_NULL] = "NULL",
	[ATTR_M] = "M",
	[ATTR_L] = "L",
	[ATTR_SS] = "SS",
	[ATTR_NS] = "NS",
	[ATTR_BS] = "BS",
};

const char *
AttrTypeName(AttrType type)
{
	return attr_type_names[type];
}

const char *
AttrTypeLongName(AttrType type)
{
	switch (type)
	{
		case ATTR_S:
			return "STRING";
		case ATTR_N:
			return "NUMBER";
		case ATTR_B:
			return "BINARY";
		case ATTR_BOOL:
			return "BOOLEAN";
		case ATTR_NULL:
			return "NULL";
		case ATTR_M:
			return "MAP";
		case ATTR_L:
			return "LIST";
		case ATTR_SS:
			return "STRING_SET";
		case ATTR_NS:
			return "NUMBER_SET";
		case ATTR_BS:
			return "BINARY_SET";
	}
	return "UNKNOWN";
}

static bool
type_from_name(const char *name, int len, AttrType *type)
{
	int			i;

	for (i = 0; i < (int) lengthof(attr_type_names); i++)
	{
		if ((int) strlen(attr_type_names[i]) == len &&
			memcmp(attr_type_names[i], name, len) == 0)
		{
			*type = (AttrType) i;
			return true;
		}
	}
	return false;
}

/* ----------------------------------------------------------------
 * construction
 * ----------------------------------------------------------------
 */
static AttrValue *
attr_new(AttrType type)
{
	AttrValue  *v = palloc0(sizeof(AttrValue));

	v->type = type;
	return v;
}

AttrValue *
AttrNewMap(void)
{
	return attr_new(ATTR_M);
}

AttrValue *
AttrNewList(AttrType type)
{
	Assert(type == ATTR_L || AttrTypeIsSet(type));
	return attr_new(type);
}

AttrValue *
AttrNewString(AttrType type, const char *data, int len)
{
	AttrValue  *v = attr_new(type);

	Assert(type == ATTR_S || type == ATTR_B);
	v->u.bytes.data = palloc(len + 1);
	memcpy(v->u.bytes.data, data, len);
	v->u.bytes.data[len] = '\0';
	v->u.bytes.len = len;
	return v;
}

AttrValue *
AttrNewNumber(const DynNumber *num)
{
	AttrValue  *v = attr_new(ATTR_N);

	v->u.num = *num;
	return v;
}

/*
 * AttrCopy
 *		Deep copy into the current memory context.
 */
AttrValue *
AttrCopy(const AttrValue *v)
{
	AttrValue  *c;
	int			i;

	check_stack_depth();
	switch (v->type)
	{
		case ATTR_S:
		case ATTR_B:
			return AttrNewString(v->type, v->u.bytes.data, v->u.bytes.len);
		case ATTR_M:
			c = attr_new(ATTR_M);
			c->u.map.count = c->u.map.capacity = v->u.map.count;
			c->u.map.members = palloc(sizeof(AttrMember) * Max(1, v->u.map.count));
			for (i = 0; i < v->u.map.count; i++)
			{
				AttrMember *m = &c->u.map.members[i];

				m->namelen = v->u.map.members[i].namelen;
				m->name = pnstrdup(v->u.map.members[i].name, m->namelen);
				m->value = AttrCopy(v->u.map.members[i].value);
			}
			return c;
		case ATTR_L:
		case ATTR_SS:
		case ATTR_NS:
		case ATTR_BS:
			c = attr_new(v->type);
			c->u.list.count = c->u.list.capacity = v->u.list.count;
			c->u.list.elems = palloc(sizeof(AttrValue *) * Max(1, v->u.list.count));
			for (i = 0; i < v->u.list.count; i++)
				c->u.list.elems[i] = AttrCopy(v->u.list.elems[i]);
			return c;
		default:
			c = attr_new(v->type);
			*c = *v;
			return c;
	}
}

/* ----------------------------------------------------------------
 * maps
 * ----------------------------------------------------------------
 */

/* jsonb's key order: shorter first, then bytewise */
int
AttrNameCmp(const char *a, int alen, const char *b, int blen)
{
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return memcmp(a, b, alen);
}

/*
 * map_find
 *		Binary search; returns the index of name, or -(insertion point) - 1.
 */
static int
map_find(const AttrValue *map, const char *name, int namelen)
{
	int			lo = 0;
	int			hi = map->u.map.count - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		const AttrMember *m = &map->u.map.members[mid];
		int			c = AttrNameCmp(m->name, m->namelen, name, namelen);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -lo - 1;
}

AttrValue *
AttrMapGet(const AttrValue *map, const char *name, int namelen)
{
	int			i;

	Assert(map->type == ATTR_M);
	i = map_find(map, name, namelen);
	return i >= 0 ? map->u.map.members[i].value : NULL;
}

/*
 * AttrMapPut
 *		Insert or replace; the name is copied, the value is not.
 */
void
AttrMapPut(AttrValue *map, const char *name, int namelen, AttrValue *v)
{
	int			i;
	int			at;

	Assert(map->type == ATTR_M);
	i = map_find(map, name, namelen);
	if (i >= 0)
	{
		map->u.map.members[i].value = v;
		return;
	}
	at = -i - 1;
	if (map->u.map.count >= map->u.map.capacity)
	{
		int			newcap = Max(8, map->u.map.capacity * 2);

		if (map->u.map.members == NULL)
			map->u.map.members = palloc(sizeof(AttrMember) * newcap);
		else
			map->u.map.members = repalloc(map->u.map.members,
										  sizeof(AttrMember) * newcap);
		map->u.map.capacity = newcap;
	}
	memmove(&map->u.map.members[at + 1], &map->u.map.members[at],
			sizeof(AttrMember) * (map->u.map.count - at));
	map->u.map.members[at].name = pnstrdup(name, namelen);
	map->u.map.members[at].namelen = namelen;
	map->u.map.members[at].value = v;
	map->u.map.count++;
}

bool
AttrMapRemove(AttrValue *map, const char *name, int namelen)
{
	int			i;

	Assert(map->type == ATTR_M);
	i = map_find(map, name, namelen);
	if (i < 0)
		return false;
	memmove(&map->u.map.members[i], &map->u.map.members[i + 1],
			sizeof(AttrMember) * (map->u.map.count - i - 1));
	map->u.map.count--;
	return true;
}

void
AttrListAppend(AttrValue *list, AttrValue *elem)
{
	if (list->u.list.count >= list->u.list.capacity)
	{
		int			newcap = Max(8, list->u.list.capacity * 2);

		if (list->u.list.elems == NULL)
			list->u.list.elems = palloc(sizeof(AttrValue *) * newcap);
		else
			list->u.list.elems = repalloc(list->u.list.elems,
										  sizeof(AttrValue *) * newcap);
		list->u.list.capacity = newcap;
	}
	list->u.list.elems[list->u.list.count++] = elem;
}

/* ----------------------------------------------------------------
 * comparison
 * ----------------------------------------------------------------
 */
static int
bytes_cmp(const AttrValue *a, const AttrValue *b)
{
	int			r = memcmp(a->u.bytes.data, b->u.bytes.data,
						   Min(a->u.bytes.len, b->u.bytes.len));

	if (r != 0)
		return r;
	return (a->u.bytes.len > b->u.bytes.len) - (a->u.bytes.len < b->u.bytes.len);
}

int
AttrValueCompare(const AttrValue *a, const AttrValue *b)
{
	Assert(a->type == b->type && AttrTypeIsScalar(a->type));
	if (a->type == ATTR_N)
		return DynNumberCompare(&a->u.num, &b->u.num);
	return bytes_cmp(a, b);
}

bool
AttrValueEquals(const AttrValue *a, const AttrValue *b)
{
	int			i;

	check_stack_depth();
	if (a->type != b->type)
		return false;
	switch (a->type)
	{
		case ATTR_S:
		case ATTR_B:
			return a->u.bytes.len == b->u.bytes.len &&
				memcmp(a->u.bytes.data, b->u.bytes.data, a->u.bytes.len) == 0;
		case ATTR_N:
			return DynNumberCompare(&a->u.num, &b->u.num) == 0;
		case ATTR_BOOL:
			return a->u.boolean == b->u.boolean;
		case ATTR_NULL:
			return true;
		case ATTR_M:
			if (a->u.map.count != b->u.map.count)
				return false;
			for (i = 0; i < a->u.map.count; i++)
			{
				const AttrMember *ma = &a->u.map.members[i];
				const AttrMember *mb = &b->u.map.members[i];

				if (AttrNameCmp(ma->name, ma->namelen, mb->name, mb->namelen) != 0 ||
					!AttrValueEquals(ma->value, mb->value))
					return false;
			}
			return true;
		case ATTR_L:
		case ATTR_SS:
		case ATTR_NS:
		case ATTR_BS:
			/* sets are sorted and unique: pairwise equality is set equality */
			if (a->u.list.count != b->u.list.count)
				return false;
			for (i = 0; i < a->u.list.count; i++)
			{
				if (!AttrValueEquals(a->u.list.elems[i], b->u.list.elems[i]))
					return false;
			}
			return true;
	}
	return false;
}

/* ----------------------------------------------------------------
 * sets
 * ----------------------------------------------------------------
 */
static int
set_member_qsort_cmp(const void *a, const void *b)
{
	return AttrValueCompare(*(AttrValue *const *) a, *(AttrValue *const *) b);
}

bool
AttrSetNormalize(AttrValue *set)
{
	int			n = set->u.list.count;
	int			i;
	int			out;
	bool		unique = true;

	Assert(AttrTypeIsSet(set->type));
	if (n < 2)
		return true;
	qsort(set->u.list.elems, n, sizeof(AttrValue *), set_member_qsort_cmp);
	out = 1;
	for (i = 1; i < n; i++)
	{
		if (AttrValueCompare(set->u.list.elems[out - 1], set->u.list.elems[i]) == 0)
		{
			unique = false;
			continue;
		}
		set->u.list.elems[out++] = set->u.list.elems[i];
	}
	set->u.list.count = out;
	return unique;
}

bool
AttrSetContains(const AttrValue *set, const AttrValue *elem)
{
	int			lo = 0;
	int			hi = set->u.list.count - 1;

	if (set->u.list.count == 0 || set->u.list.elems[0]->type != elem->type)
		return false;
	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = AttrValueCompare(set->u.list.elems[mid], elem);

		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

/* ----------------------------------------------------------------
 * parsing
 * ----------------------------------------------------------------
 */

/* a short name for a JSON value's type, as DynamoDB's deserializer says */
static const char *
json_token_name(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			return "VALUE_NULL";
		case jbvString:
			return "VALUE_STRING";
		case jbvNumeric:
			return "VALUE_NUMBER";
		case jbvBool:
			return v->val.boolean ? "VALUE_TRUE" : "VALUE_FALSE";
		case jbvBinary:
			return JsonContainerIsArray(v->val.binary.data) ? "START_ARRAY" : "START_OBJECT";
		default:
			return "VALUE";
	}
}

static void
expect_string(const JsonbValue *v, const char *type)
{
	if (v->type != jbvString)
		DynRaise(DYN_SERIALIZATION,
				 "Unexpected token %s for a %s attribute value; expected a JSON string",
				 json_token_name(v), type);
}

/*
 * Cleared by the parser when the value it builds would not be written back
 * as the very jsonb it read: a number not in canonical text, a set not in
 * stored order, a binary value (its base64 is re-encoded), or any string in
 * a database whose encoding is not UTF-8 (strings are converted), or a
 * string with a lone U+0001 (string_to_utf8).  Read by
 * AttrItemFromJsonbStored().
 */
static bool parsed_as_stored;

/*
 * UTF-8 copy of a jsonb string (database encoding), in the canonical
 * stored form of nul_escape.c: a U+0001 that starts no code word is
 * itself, written 01 02 (and the input is then not the stored form).
 */
static void
string_to_utf8(const JsonbValue *v, char **data, int *len)
{
	if (GetDatabaseEncoding() == PG_UTF8)
	{
		*data = v->val.string.val;
		*len = v->val.string.len;
	}
	else
	{
		*data = (char *) pg_do_encoding_conversion((unsigned char *) v->val.string.val,
												   v->val.string.len,
												   GetDatabaseEncoding(), PG_UTF8);
		*len = strlen(*data);
	}
	if (memchr(*data, NUL_ESC, *len) != NULL && !NulEscapeWellFormed(*data, *len))
	{
		/* a lone U+0001 is itself: its canonical stored form is 01 02 */
		int			n = NulEscapeCanonicalLength(*data, *len);
		char	   *c = palloc(n + 1);

		NulEscapeCanonical(*data, *len, c);
		c[n] = '\0';
		*data = c;
		*len = n;
		parsed_as_stored = false;
	}
}

static void
parse_number(const char *s, int len, DynNumber *num)
{
	DynNumberStatus st = DynNumberParse(s, len, num);

	if (st == DYNNUM_OK)
		return;
	if (st == DYNNUM_SYNTAX)
		DynValidation("%s: %.*s", DynNumberStatusMessage(st), len, s);
	DynValidation("%s", DynNumberStatusMessage(st));
}

static AttrValue *
parse_scalar(AttrType type, JsonbValue *v)
{
	AttrValue  *r;

	switch (type)
	{
		case ATTR_S:
			{
				char	   *data;
				int			len;

				expect_string(v, "S");
				if (GetDatabaseEncoding() != PG_UTF8)
					parsed_as_stored = false;
				string_to_utf8(v, &data, &len);
				return AttrNewString(ATTR_S, data, len);
			}
		case ATTR_N:
			if (v->type != jbvString)
				DynRaise(DYN_SERIALIZATION,
						 "NUMBER_VALUE cannot be converted to String");
			r = attr_new(ATTR_N);
			parse_number(v->val.string.val, v->val.string.len, &r->u.num);
			if (parsed_as_stored)
			{
				char		canon[DYNNUM_MAX_TEXT];
				int			clen = DynNumberFormat(&r->u.num, canon);

				if (clen != v->val.string.len ||
					memcmp(canon, v->val.string.val, clen) != 0)
					parsed_as_stored = false;
			}
			return r;
		case ATTR_B:
			{
				uint8	   *bytes;
				int			n;

				expect_string(v, "B");
				parsed_as_stored = false;
				if (!ItemBase64Decode(v->val.string.val, v->val.string.len, &bytes, &n))
					DynRaise(DYN_SERIALIZATION,
							 "Base64 encoded value is invalid: expected padded standard base64 with a length that is a multiple of 4, found %d characters",
							 v->val.string.len);
				r = attr_new(ATTR_B);
				r->u.bytes.data = (char *) bytes;
				r->u.bytes.len = n;
				return r;
			}
		default:
			elog(ERROR, "not a scalar attribute type: %d", type);
	}
	return NULL;
}

static AttrValue *parse_value(JsonbValue *jv, int depth);

/*
 * parse_map_members
 *		Members of a jsonb object (the payload of M, or an item).
 */
static AttrValue *
parse_map_members(JsonbContainer *container, int depth, bool is_item)
{
	AttrValue  *map = attr_new(ATTR_M);
	JsonbIterator *it = JsonbIteratorInit(container);
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;
	int			n = JsonContainerSize(container);

	map->u.map.capacity = Max(n, 1);
	map->u.map.members = palloc(sizeof(AttrMember) * map->u.map.capacity);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		AttrMember *m;
		char	   *name;
		int			namelen;

		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(&it, &v, true);
		Assert(tok == WJB_VALUE);
		string_to_utf8(&k, &name, &namelen);
		if (is_item && namelen == 0)
			DynValidation("One or more parameter values were invalid: An attribute name cannot be empty (Empty attribute name)");
		if (namelen > ATTR_MAX_NAME_BYTES &&
			NulEscapeDecodedLength(name, namelen) > ATTR_MAX_NAME_BYTES)
			DynValidation("One or more parameter values were invalid: Attribute name is too long; limit: %d bytes",
						  ATTR_MAX_NAME_BYTES);
		m = &map->u.map.members[map->u.map.count++];
		m->name = pnstrdup(name, namelen);
		m->namelen = namelen;
		m->value = parse_value(&v, depth);
	}
	return map;
}

/*
 * parse_set
 *		SS / NS / BS: a non-empty array of strings, no duplicates.
 */
static AttrValue *
parse_set(AttrType type, JsonbValue *jv)
{
	AttrType	elemtype = (type == ATTR_SS) ? ATTR_S : (type == ATTR_NS) ? ATTR_N : ATTR_B;
	AttrValue  *set = attr_new(type);
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (jv->type != jbvBinary || !JsonContainerIsArray(jv->val.binary.data))
		DynRaise(DYN_SERIALIZATION,
				 "Unexpected token %s for a %s attribute value; expected a JSON array of strings",
				 json_token_name(jv), AttrTypeName(type));
	it = JsonbIteratorInit(jv->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		AttrListAppend(set, parse_scalar(elemtype, &v));
	}
	if (set->u.list.count == 0)
	{
		if (type == ATTR_SS)
			DynValidation("One or more parameter values were invalid: An string set  may not be empty");
		if (type == ATTR_NS)
			DynValidation("One or more parameter values were invalid: An number set  may not be empty");
		DynValidation("One or more parameter values were invalid: Binary sets should not be empty");
	}
	if (parsed_as_stored)
	{
		int			i;

		for (i = 1; i < set->u.list.count; i++)
		{
			if (AttrValueCompare(set->u.list.elems[i - 1], set->u.list.elems[i]) >= 0)
			{
				parsed_as_stored = false;
				break;
			}
		}
	}
	if (type == ATTR_SS)
	{
		/* the message lists the input collection as given */
		AttrValue  *copy = AttrCopy(set);

		if (!AttrSetNormalize(set))
		{
			StringInfoData buf;
			int			i;

			initStringInfo(&buf);
			for (i = 0; i < copy->u.list.count; i++)
			{
				if (i > 0)
					appendStringInfoString(&buf, ", ");
				appendBinaryStringInfo(&buf, copy->u.list.elems[i]->u.bytes.data,
									   copy->u.list.elems[i]->u.bytes.len);
			}
			DynValidation("One or more parameter values were invalid: Input collection [%s] contains duplicates.",
						  buf.data);
		}
	}
	else if (!AttrSetNormalize(set))
		DynValidation("One or more parameter values were invalid: Input collection contains duplicates");
	return set;
}

/*
 * parse_value
 *		One attribute value at nesting level depth.
 */
static AttrValue *
parse_value(JsonbValue *jv, int depth)
{
	JsonbContainer *c;
	JsonbIterator *it;
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;
	AttrType	type;
	AttrValue  *r;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (jv->type != jbvBinary || !JsonContainerIsObject(jv->val.binary.data))
		DynRaise(DYN_SERIALIZATION,
				 "Unexpected token %s; an attribute value is a JSON object such as {\"S\": \"abc\"}",
				 json_token_name(jv));
	c = jv->val.binary.data;
	if (JsonContainerSize(c) == 0)
		DynValidation("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
	if (JsonContainerSize(c) > 1)
		DynValidation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes");

	it = JsonbIteratorInit(c);
	tok = JsonbIteratorNext(&it, &k, true);	/* WJB_BEGIN_OBJECT */
	tok = JsonbIteratorNext(&it, &k, true);
	Assert(tok == WJB_KEY);
	tok = JsonbIteratorNext(&it, &v, true);
	Assert(tok == WJB_VALUE);
	(void) tok;

	if (!type_from_name(k.val.string.val, k.val.string.len, &type))
		DynValidation("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");

	switch (type)
	{
		case ATTR_S:
		case ATTR_N:
		case ATTR_B:
			return parse_scalar(type, &v);
		case ATTR_BOOL:
		case ATTR_NULL:
			if (v.type != jbvBool)
				DynRaise(DYN_SERIALIZATION,
						 "Unexpected token %s for a %s attribute value; expected true or false",
						 json_token_name(&v), AttrTypeName(type));
			if (type == ATTR_NULL && !v.val.boolean)
				DynValidation("One or more parameter values were invalid: Null attribute value types must have the value of true");
			r = attr_new(type);
			r->u.boolean = v.val.boolean;
			return r;
		case ATTR_M:
			if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
				DynRaise(DYN_SERIALIZATION,
						 "Unexpected token %s for an M attribute value; expected a JSON object",
						 json_token_name(&v));
			if (depth > ATTR_MAX_DEPTH)
				DynValidation("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit");
			return parse_map_members(v.val.binary.data, depth + 1, false);
		case ATTR_L:
			if (v.type != jbvBinary || !JsonContainerIsArray(v.val.binary.data))
				DynRaise(DYN_SERIALIZATION,
						 "Unexpected token %s for an L attribute value; expected a JSON array",
						 json_token_name(&v));
			if (depth > ATTR_MAX_DEPTH)
				DynValidation("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit");
			r = attr_new(ATTR_L);
			it = JsonbIteratorInit(v.val.binary.data);
			while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
			{
				if (tok == WJB_ELEM)
					AttrListAppend(r, parse_value(&k, depth + 1));
			}
			return r;
		case ATTR_SS:
		case ATTR_NS:
		case ATTR_BS:
			return parse_set(type, &v);
	}
	return NULL;
}

AttrValue *
AttrValueFromJsonb(JsonbValue *jv, int depth)
{
	return parse_value(jv, depth);
}

AttrValue *
AttrItemFromJsonb(Jsonb *item)
{
	if (!JB_ROOT_IS_OBJECT(item) || JB_ROOT_IS_SCALAR(item))
		DynRaise(DYN_SERIALIZATION,
				 "Unexpected token; an item is a JSON object mapping attribute names to attribute values");
	return parse_map_members(&item->root, 1, true);
}

AttrValue *
AttrItemFromJsonbStored(Jsonb *item, bool *as_stored)
{
	AttrValue  *result;

	parsed_as_stored = true;
	result = AttrItemFromJsonb(item);
	*as_stored = parsed_as_stored;
	return result;
}

/* ----------------------------------------------------------------
 * output
 * ----------------------------------------------------------------
 */
static void
push_string(JsonbParseState **state, const char *data, int len,
			JsonbIteratorToken token)
{
	JsonbValue	s;

	s.type = jbvString;
	if (GetDatabaseEncoding() == PG_UTF8)
	{
		s.val.string.val = (char *) data;
		s.val.string.len = len;
	}
	else
	{
		s.val.string.val = pg_any_to_server(data, len, PG_UTF8);
		s.val.string.len = strlen(s.val.string.val);
	}
	pushJsonbValue(state, token, &s);
}

static void
push_scalar_payload(JsonbParseState **state, const AttrValue *v,
					JsonbIteratorToken token)
{
	switch (v->type)
	{
		case ATTR_S:
			push_string(state, v->u.bytes.data, v->u.bytes.len, token);
			break;
		case ATTR_B:
			{
				char	   *b64 = ItemBase64Encode((const uint8 *) v->u.bytes.data,
												   v->u.bytes.len);

				push_string(state, b64, strlen(b64), token);
				break;
			}
		case ATTR_N:
			{
				/* palloc'd: the jsonb under construction keeps the pointer */
				char	   *num = AttrNumberText(v);

				push_string(state, num, strlen(num), token);
				break;
			}
		default:
			elog(ERROR, "not a scalar attribute type: %d", v->type);
	}
}

static void
push_key(JsonbParseState **state, const char *name, int len)
{
	push_string(state, name, len, WJB_KEY);
}

static void push_members(JsonbParseState **state, const AttrValue *map);

/*
 * AttrValuePush
 *		Push {"T": payload} as a WJB_VALUE (after a key) or WJB_ELEM.
 */
JsonbValue *
AttrValuePush(JsonbParseState **state, const AttrValue *v,
			  JsonbIteratorToken token)
{
	JsonbValue	b;
	int			i;
	const char *tname = AttrTypeName(v->type);

	check_stack_depth();
	(void) token;				/* nested BEGIN_OBJECT serves both contexts */
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	push_key(state, tname, strlen(tname));
	switch (v->type)
	{
		case ATTR_S:
		case ATTR_B:
		case ATTR_N:
			push_scalar_payload(state, v, WJB_VALUE);
			break;
		case ATTR_BOOL:
		case ATTR_NULL:
			b.type = jbvBool;
			b.val.boolean = (v->type == ATTR_NULL) ? true : v->u.boolean;
			pushJsonbValue(state, WJB_VALUE, &b);
			break;
		case ATTR_M:
			pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
			push_members(state, v);
			pushJsonbValue(state, WJB_END_OBJECT, NULL);
			break;
		case ATTR_L:
			pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
			for (i = 0; i < v->u.list.count; i++)
				AttrValuePush(state, v->u.list.elems[i], WJB_ELEM);
			pushJsonbValue(state, WJB_END_ARRAY, NULL);
			break;
		case ATTR_SS:
		case ATTR_NS:
		case ATTR_BS:
			pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
			for (i = 0; i < v->u.list.count; i++)
				push_scalar_payload(state, v->u.list.elems[i], WJB_ELEM);
			pushJsonbValue(state, WJB_END_ARRAY, NULL);
			break;
	}
	return pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

static void
push_members(JsonbParseState **state, const AttrValue *map)
{
	int			i;

	for (i = 0; i < map->u.map.count; i++)
	{
		push_key(state, map->u.map.members[i].name, map->u.map.members[i].namelen);
		AttrValuePush(state, map->u.map.members[i].value, WJB_VALUE);
	}
}

Jsonb *
AttrValueToJsonb(const AttrValue *v)
{
	JsonbParseState *state = NULL;

	return JsonbValueToJsonb(AttrValuePush(&state, v, WJB_VALUE));
}

Jsonb *
AttrItemToJsonb(const AttrValue *item)
{
	JsonbParseState *state = NULL;
	JsonbValue *res;

	Assert(item->type == ATTR_M);
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	push_members(&state, item);
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(res);
}

/*
 * AttrValueDescribe
 *		DynamoDB's short rendering in messages: {N:3}, {S:abc}, {SS:[a, b]}.
 */
void
AttrValueDescribe(StringInfo out, const AttrValue *v)
{
	int			i;

	appendStringInfo(out, "{%s:", AttrTypeName(v->type));
	switch (v->type)
	{
		case ATTR_S:
			appendBinaryStringInfo(out, v->u.bytes.data, v->u.bytes.len);
			break;
		case ATTR_B:
			appendStringInfoString(out, ItemBase64Encode((const uint8 *) v->u.bytes.data,
														 v->u.bytes.len));
			break;
		case ATTR_N:
			appendStringInfoString(out, AttrNumberText(v));
			break;
		case ATTR_BOOL:
		case ATTR_NULL:
			appendStringInfoString(out, v->type == ATTR_NULL || v->u.boolean ? "true" : "false");
			break;
		case ATTR_M:
			appendStringInfoChar(out, '{');
			for (i = 0; i < v->u.map.count; i++)
			{
				if (i > 0)
					appendStringInfoString(out, ", ");
				appendBinaryStringInfo(out, v->u.map.members[i].name,
									   v->u.map.members[i].namelen);
				appendStringInfoChar(out, '=');
				AttrValueDescribe(out, v->u.map.members[i].value);
			}
			appendStringInfoChar(out, '}');
			break;
		case ATTR_L:
		case ATTR_SS:
		case ATTR_NS:
		case ATTR_BS:
			appendStringInfoChar(out, '[');
			for (i = 0; i < v->u.list.count; i++)
			{
				const AttrValue *e = v->u.list.elems[i];

				if (i > 0)
					appendStringInfoString(out, ", ");
				if (v->type == ATTR_L)
					AttrValueDescribe(out, e);
				else if (e->type == ATTR_N)
					appendStringInfoString(out, AttrNumberText(e));
				else if (e->type == ATTR_S)
					appendBinaryStringInfo(out, e->u.bytes.data, e->u.bytes.len);
				else
					appendStringInfoString(out, ItemBase64Encode((const uint8 *) e->u.bytes.data,
																 e->u.bytes.len));
			}
			appendStringInfoChar(out, ']');
			break;
	}
	appendStringInfoChar(out, '}');
}

/* ----------------------------------------------------------------
 * numbers
 * ----------------------------------------------------------------
 */
char *
AttrNumberText(const AttrValue *v)
{
	char	   *buf = palloc(DYNNUM_MAX_TEXT);

	Assert(v->type == ATTR_N);
	DynNumberFormat(&v->u.num, buf);
	return buf;
}

static Datum
number_to_numeric(const AttrValue *v)
{
	return DirectFunctionCall3(numeric_in, CStringGetDatum(AttrNumberText(v)),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/*
 * AttrNumberAdd
 *		a + b (or a - b), exactly; ValidationException if the result needs
 *		more than 38 digits or leaves DynamoDB's range.
 */
AttrValue *
AttrNumberAdd(const AttrValue *a, const AttrValue *b, bool subtract)
{
	Datum		r;
	char	   *text;
	AttrValue  *result = attr_new(ATTR_N);
	DynNumberStatus st;

	Assert(a->type == ATTR_N && b->type == ATTR_N);
	r = DirectFunctionCall2(subtract ? numeric_sub : numeric_add,
							number_to_numeric(a), number_to_numeric(b));
	text = DatumGetCString(DirectFunctionCall1(numeric_out, r));
	st = DynNumberParse(text, strlen(text), &result->u.num);
	/*
	 * An exact result needing more than 38 digits is DynamoDB's overflow
	 * (its arithmetic reports "Number overflow", not the digits message
	 * a value in a request gets)
	 */
	if (st == DYNNUM_TOO_MANY_DIGITS)
		st = DYNNUM_OVERFLOW;
	if (st != DYNNUM_OK)
		DynValidation("%s", DynNumberStatusMessage(st));
	return result;
}

/* a key attribute value (S, N or B) as an item_key part; no copy (but an
 * S holding the escape of nul_escape.c is decoded into a new string) */
void
AttrKeyPart(const AttrValue *v, ItemKeyPart *part)
{
	memset(part, 0, sizeof(*part));
	switch (v->type)
	{
		case ATTR_S:
			part->type = ITEMKEY_S;
			part->bytes = v->u.bytes.data;
			part->len = v->u.bytes.len;
			/* the key holds the string itself, not its stored form */
			if (memchr(part->bytes, NUL_ESC, part->len) != NULL)
			{
				char	   *d = palloc(part->len);

				part->len = NulEscapeDecode(part->bytes, part->len, d);
				part->bytes = d;
			}
			break;
		case ATTR_B:
			part->type = ITEMKEY_B;
			part->bytes = v->u.bytes.data;
			part->len = v->u.bytes.len;
			break;
		case ATTR_N:
			part->type = ITEMKEY_N;
			part->num = v->u.num;
			break;
		default:
			elog(ERROR, "not a key type");
	}
}

/*
 * AttrCheckKeyValue
 *		DynamoDB's limits on the value v of key attribute name (is_sort: the
 *		sort key): no empty S or B, at most 2048 bytes in a partition key
 *		and 1024 in a sort key.  prefix, when not NULL, starts each message
 *		(ExclusiveStartKey problems of a Scan).
 */
void
AttrCheckKeyValue(const char *prefix, const char *name, const AttrValue *v, bool is_sort)
{
	const char *pre = prefix ? prefix : "";
	int			len;

	if (v->type != ATTR_S && v->type != ATTR_B)
		return;
	len = v->type == ATTR_S ?
		(int) NulEscapeDecodedLength(v->u.bytes.data, v->u.bytes.len) : v->u.bytes.len;
	if (len == 0)
		DynValidation("%sOne or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty %s value. Key: %s",
					  pre, v->type == ATTR_S ? "string" : "binary", name);
	if (!is_sort && len > ITEMKEY_MAX_PARTITION_BYTES)
		DynValidation("%sOne or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes",
					  pre);
	if (is_sort && len > ITEMKEY_MAX_SORT_BYTES)
		DynValidation("%sOne or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes",
					  pre);
}

/*
 * AttrKeyFromValues
 *		The item_key of partition value h and sort value r (NULL: none),
 *		both S, N or B; palloc'd.  The values are not checked (see
 *		AttrCheckKeyValue).
 */
ItemKey *
AttrKeyFromValues(const AttrValue *h, const AttrValue *r)
{
	ItemKeyPart hp,
				rp;

	AttrKeyPart(h, &hp);
	if (r == NULL)
		return KeyCodecBuild(&hp, NULL);
	AttrKeyPart(r, &rp);
	return KeyCodecBuild(&hp, &rp);
}
