/*-------------------------------------------------------------------------
 *
 * jsonb_standin.c
 *		A small stand-in for the jsonb API the project uses, and a JSON
 *		reader that feeds it, so that attribute values and requests can be
 *		fuzzed outside the server.
 *
 * The project never looks inside a jsonb container beyond its header
 * word: it reads containers through JsonbIteratorInit/Next and
 * getKeyJsonValueFromContainer, builds them with pushJsonbValue and
 * JsonbValueToJsonb, and tests JB_ROOT_COUNT / JsonContainerIsObject and
 * the like, which only read the header.  So this stand-in keeps the real
 * header word (count and JB_FOBJECT / JB_FARRAY / JB_FSCALAR flags) and,
 * after it, a pointer to an in-memory node instead of the on-disk JEntry
 * layout.  What the project relies on is kept exactly:
 *
 *	  - object keys come out sorted by length, then bytes, without
 *		duplicates; of duplicate keys the last one written wins;
 *	  - a top-level scalar is a one-element "raw scalar" array;
 *	  - pushing a jbvBinary value unpacks it, as the server does;
 *	  - strings are not NUL-terminated (each is its own exact-size
 *		allocation, so reading past the end is an ASan report);
 *	  - the iterator returns nested containers as jbvBinary when asked to
 *		skip them and walks into them otherwise.
 *
 * The reader accepts what jsonb_in accepts: RFC 8259 JSON, UTF-8 only,
 * \u escapes with surrogate pairs, no \u0000, nesting bounded by the stack
 * depth check.  Numbers: the server stores a JSON number as a numeric; the
 * project only passes numerics through numeric_in/numeric_out/numeric_add/
 * numeric_sub, so here a Numeric is a varlena holding the text numeric_out
 * would print (display scale kept, as the server does), and those four
 * functions are implemented on that text with exact decimal arithmetic.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "fuzz_support.h"

/* ----------------------------------------------------------------
 * containers
 * ----------------------------------------------------------------
 */
typedef struct FzNode
{
	bool		is_object;
	bool		raw_scalar;
	int			count;
	JsonbValue *keys;			/* objects: count strings, in jsonb order */
	JsonbValue *vals;			/* scalars, or jbvBinary for containers */
} FzNode;

/* a container: the real header word, then a (possibly unaligned) pointer */
#define FZ_CONTAINER_SIZE	(sizeof(uint32) + sizeof(FzNode *))

static FzNode *
node_of(const JsonbContainer *c)
{
	FzNode	   *node;

	memcpy(&node, (const char *) c + sizeof(uint32), sizeof(node));
	return node;
}

static void
container_fill(JsonbContainer *c, FzNode *node)
{
	c->header = (uint32) node->count |
		(node->is_object ? JB_FOBJECT : JB_FARRAY) |
		(node->raw_scalar ? JB_FSCALAR : 0);
	memcpy((char *) c + sizeof(uint32), &node, sizeof(node));
}

static JsonbValue copy_frozen(const JsonbValue *v);

static JsonbContainer *
freeze(const JsonbValue *v)
{
	FzNode	   *node = palloc0(sizeof(FzNode));
	JsonbContainer *c = palloc(FZ_CONTAINER_SIZE);
	int			i;

	check_stack_depth();
	if (v->type == jbvObject)
	{
		node->is_object = true;
		node->count = v->val.object.nPairs;
		node->keys = palloc(sizeof(JsonbValue) * Max(node->count, 1));
		node->vals = palloc(sizeof(JsonbValue) * Max(node->count, 1));
		for (i = 0; i < node->count; i++)
		{
			node->keys[i] = copy_frozen(&v->val.object.pairs[i].key);
			node->vals[i] = copy_frozen(&v->val.object.pairs[i].value);
		}
	}
	else if (v->type == jbvArray)
	{
		node->raw_scalar = v->val.array.rawScalar;
		node->count = v->val.array.nElems;
		node->vals = palloc(sizeof(JsonbValue) * Max(node->count, 1));
		for (i = 0; i < node->count; i++)
			node->vals[i] = copy_frozen(&v->val.array.elems[i]);
	}
	else
		fz_fail("freeze: not a container (type %d)", (int) v->type);
	container_fill(c, node);
	return c;
}

/* a value as stored in a node: exact-size string copies, binary nesting */
static JsonbValue
copy_frozen(const JsonbValue *v)
{
	JsonbValue	r = *v;

	switch (v->type)
	{
		case jbvString:
			r.val.string.val = palloc(Max(v->val.string.len, 1));
			memcpy(r.val.string.val, v->val.string.val, v->val.string.len);
			break;
		case jbvObject:
		case jbvArray:
			r.type = jbvBinary;
			r.val.binary.data = freeze(v);
			r.val.binary.len = FZ_CONTAINER_SIZE;
			break;
		case jbvNull:
		case jbvNumeric:
		case jbvBool:
		case jbvBinary:
			break;
		default:
			fz_fail("jsonb value of unsupported type %d", (int) v->type);
	}
	return r;
}

static Jsonb *
jsonb_from_container(const JsonbContainer *c)
{
	Jsonb	   *jb = palloc(VARHDRSZ + FZ_CONTAINER_SIZE);

	SET_VARSIZE(jb, VARHDRSZ + FZ_CONTAINER_SIZE);
	memcpy(&jb->root, c, FZ_CONTAINER_SIZE);
	return jb;
}

/* ----------------------------------------------------------------
 * pushJsonbValue
 * ----------------------------------------------------------------
 */
static void
append_slot(JsonbParseState *ps)
{
	JsonbValue *cont = &ps->contVal;

	if (cont->type == jbvObject)
	{
		if (cont->val.object.nPairs >= (int) ps->size)
		{
			ps->size *= 2;
			cont->val.object.pairs = repalloc(cont->val.object.pairs,
											  sizeof(JsonbPair) * ps->size);
		}
	}
	else
	{
		if (cont->val.array.nElems >= (int) ps->size)
		{
			ps->size *= 2;
			cont->val.array.elems = repalloc(cont->val.array.elems,
											 sizeof(JsonbValue) * ps->size);
		}
	}
}

static int
pair_cmp(const void *a, const void *b)
{
	const JsonbPair *pa = a;
	const JsonbPair *pb = b;
	int			la = pa->key.val.string.len;
	int			lb = pb->key.val.string.len;
	int			c;

	if (la != lb)
		return la < lb ? -1 : 1;
	c = memcmp(pa->key.val.string.val, pb->key.val.string.val, la);
	if (c != 0)
		return c;
	/* of equal keys, the one written last comes first and is kept */
	return pa->order > pb->order ? -1 : 1;
}

static void
uniqueify(JsonbValue *obj)
{
	int			n = obj->val.object.nPairs;
	JsonbPair  *pairs = obj->val.object.pairs;
	int			out = 0;
	int			i;

	if (n < 2)
		return;
	qsort(pairs, n, sizeof(JsonbPair), pair_cmp);
	for (i = 1; i < n; i++)
	{
		if (pairs[i].key.val.string.len == pairs[out].key.val.string.len &&
			memcmp(pairs[i].key.val.string.val, pairs[out].key.val.string.val,
				   pairs[i].key.val.string.len) == 0)
			continue;
		pairs[++out] = pairs[i];
	}
	obj->val.object.nPairs = out + 1;
}

static bool
is_scalar_or_binary(const JsonbValue *v)
{
	return IsAJsonbScalar(v) || v->type == jbvBinary;
}

static JsonbValue *
push_scalar(JsonbParseState **pstate, JsonbIteratorToken seq, JsonbValue *v)
{
	JsonbParseState *ps;
	JsonbValue *result = NULL;

	switch (seq)
	{
		case WJB_BEGIN_ARRAY:
		case WJB_BEGIN_OBJECT:
			ps = palloc0(sizeof(JsonbParseState));
			ps->next = *pstate;
			*pstate = ps;
			ps->size = 4;
			if (seq == WJB_BEGIN_ARRAY)
			{
				ps->contVal.type = jbvArray;
				ps->contVal.val.array.rawScalar = (v && v->val.array.rawScalar);
				ps->contVal.val.array.elems = palloc(sizeof(JsonbValue) * ps->size);
			}
			else
			{
				ps->contVal.type = jbvObject;
				ps->contVal.val.object.pairs = palloc(sizeof(JsonbPair) * ps->size);
			}
			result = &ps->contVal;
			break;
		case WJB_KEY:
			ps = *pstate;
			if (ps == NULL || ps->contVal.type != jbvObject || v == NULL ||
				v->type != jbvString)
				fz_fail("pushJsonbValue: WJB_KEY outside an object or not a string");
			append_slot(ps);
			{
				JsonbPair  *pair = &ps->contVal.val.object.pairs[ps->contVal.val.object.nPairs];

				pair->key = *v;
				pair->order = ps->contVal.val.object.nPairs;
				pair->value.type = jbvNull;
				ps->contVal.val.object.nPairs++;
			}
			break;
		case WJB_VALUE:
			ps = *pstate;
			if (ps == NULL || ps->contVal.type != jbvObject ||
				ps->contVal.val.object.nPairs == 0 || v == NULL)
				fz_fail("pushJsonbValue: WJB_VALUE without a key");
			if (!is_scalar_or_binary(v))
				fz_fail("pushJsonbValue: WJB_VALUE of a non-scalar (an Assert in the server)");
			ps->contVal.val.object.pairs[ps->contVal.val.object.nPairs - 1].value = *v;
			break;
		case WJB_ELEM:
			ps = *pstate;
			if (ps == NULL || ps->contVal.type != jbvArray || v == NULL)
				fz_fail("pushJsonbValue: WJB_ELEM outside an array");
			if (!is_scalar_or_binary(v))
				fz_fail("pushJsonbValue: WJB_ELEM of a non-scalar (an Assert in the server)");
			append_slot(ps);
			ps->contVal.val.array.elems[ps->contVal.val.array.nElems++] = *v;
			break;
		case WJB_END_OBJECT:
		case WJB_END_ARRAY:
			ps = *pstate;
			if (ps == NULL ||
				ps->contVal.type != (seq == WJB_END_OBJECT ? jbvObject : jbvArray))
				fz_fail("pushJsonbValue: unbalanced end of container");
			if (seq == WJB_END_OBJECT)
				uniqueify(&ps->contVal);
			result = &ps->contVal;
			*pstate = ps->next;
			if (*pstate)
			{
				JsonbParseState *parent = *pstate;

				if (parent->contVal.type == jbvArray)
				{
					append_slot(parent);
					parent->contVal.val.array.elems[parent->contVal.val.array.nElems++] = *result;
				}
				else
				{
					if (parent->contVal.val.object.nPairs == 0)
						fz_fail("pushJsonbValue: container as a value without a key");
					parent->contVal.val.object.pairs[parent->contVal.val.object.nPairs - 1].value = *result;
				}
			}
			break;
		default:
			fz_fail("pushJsonbValue: unknown token %d", (int) seq);
	}
	return result;
}

JsonbValue *
pushJsonbValue(JsonbParseState **pstate, JsonbIteratorToken seq,
			   JsonbValue *jbval)
{
	JsonbIterator *it;
	JsonbValue *res = NULL;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (!jbval || (seq != WJB_ELEM && seq != WJB_VALUE) ||
		jbval->type != jbvBinary)
		return push_scalar(pstate, seq, jbval);

	/* unpack a binary container, as the server does */
	it = JsonbIteratorInit(jbval->val.binary.data);
	if (JsonContainerIsScalar(jbval->val.binary.data) && *pstate)
	{
		tok = JsonbIteratorNext(&it, &v, true);
		tok = JsonbIteratorNext(&it, &v, true);
		if (tok != WJB_ELEM)
			fz_fail("raw scalar container without its element");
		return push_scalar(pstate, seq, &v);
	}
	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
		res = push_scalar(pstate, tok,
						  tok < WJB_BEGIN_ARRAY ||
						  (tok == WJB_BEGIN_ARRAY && v.val.array.rawScalar) ? &v : NULL);
	return res;
}

Jsonb *
JsonbValueToJsonb(JsonbValue *val)
{
	if (IsAJsonbScalar(val))
	{
		JsonbParseState *pstate = NULL;
		JsonbValue	scalar_array;
		JsonbValue *res;

		scalar_array.type = jbvArray;
		scalar_array.val.array.rawScalar = true;
		scalar_array.val.array.nElems = 1;
		push_scalar(&pstate, WJB_BEGIN_ARRAY, &scalar_array);
		push_scalar(&pstate, WJB_ELEM, val);
		res = push_scalar(&pstate, WJB_END_ARRAY, NULL);
		return jsonb_from_container(freeze(res));
	}
	if (val->type == jbvObject || val->type == jbvArray)
		return jsonb_from_container(freeze(val));
	if (val->type == jbvBinary)
		return jsonb_from_container(val->val.binary.data);
	fz_fail("JsonbValueToJsonb: unknown value type %d", (int) val->type);
}

/* ----------------------------------------------------------------
 * reading containers
 * ----------------------------------------------------------------
 */
typedef enum
{
	IT_START,
	IT_ELEM,
	IT_KEY,
	IT_VALUE
} FzIterState;

typedef struct FzIter
{
	FzNode	   *node;
	int			index;
	FzIterState state;
	struct FzIter *parent;
} FzIter;

JsonbIterator *
JsonbIteratorInit(JsonbContainer *container)
{
	FzIter	   *it = palloc0(sizeof(FzIter));

	it->node = node_of(container);
	it->state = IT_START;
	return (JsonbIterator *) it;
}

JsonbIteratorToken
JsonbIteratorNext(JsonbIterator **pit, JsonbValue *val, bool skipNested)
{
	FzIter	   *it = (FzIter *) *pit;
	FzNode	   *node;
	JsonbValue *v;

	if (it == NULL)
		return WJB_DONE;
	node = it->node;
	switch (it->state)
	{
		case IT_START:
			if (node->is_object)
			{
				val->type = jbvObject;
				val->val.object.nPairs = node->count;
				val->val.object.pairs = NULL;
				it->state = IT_KEY;
				return WJB_BEGIN_OBJECT;
			}
			val->type = jbvArray;
			val->val.array.nElems = node->count;
			val->val.array.elems = NULL;
			val->val.array.rawScalar = node->raw_scalar;
			it->state = IT_ELEM;
			return WJB_BEGIN_ARRAY;
		case IT_ELEM:
		case IT_VALUE:
			if (it->state == IT_ELEM && it->index >= node->count)
			{
				*pit = (JsonbIterator *) it->parent;
				pfree(it);
				return WJB_END_ARRAY;
			}
			v = &node->vals[it->index++];
			if (it->state == IT_VALUE)
				it->state = IT_KEY;
			if (v->type == jbvBinary && !skipNested)
			{
				FzIter	   *child = (FzIter *) JsonbIteratorInit(v->val.binary.data);

				child->parent = it;
				*pit = (JsonbIterator *) child;
				return JsonbIteratorNext(pit, val, skipNested);
			}
			*val = *v;
			return node->is_object ? WJB_VALUE : WJB_ELEM;
		case IT_KEY:
			if (it->index >= node->count)
			{
				*pit = (JsonbIterator *) it->parent;
				pfree(it);
				return WJB_END_OBJECT;
			}
			*val = node->keys[it->index];
			it->state = IT_VALUE;
			return WJB_KEY;
	}
	fz_fail("JsonbIteratorNext: bad state");
}

static int
key_index(const FzNode *node, const char *key, int len)
{
	int			lo = 0;
	int			hi = node->count - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		const JsonbValue *k = &node->keys[mid];
		int			c;

		if (k->val.string.len != len)
			c = k->val.string.len < len ? -1 : 1;
		else
			c = memcmp(k->val.string.val, key, len);
		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

JsonbValue *
getKeyJsonValueFromContainer(JsonbContainer *container, const char *keyVal,
							 int keyLen, JsonbValue *res)
{
	FzNode	   *node = node_of(container);
	int			i;

	if (!JsonContainerIsObject(container))
		fz_fail("getKeyJsonValueFromContainer on a non-object (an Assert in the server)");
	i = key_index(node, keyVal, keyLen);
	if (i < 0)
		return NULL;
	if (res == NULL)
		res = palloc(sizeof(JsonbValue));
	*res = node->vals[i];
	return res;
}

JsonbValue *
getIthJsonbValueFromContainer(JsonbContainer *container, uint32 i)
{
	FzNode	   *node = node_of(container);
	JsonbValue *res;

	if (!JsonContainerIsArray(container))
		elog(ERROR, "not a jsonb array");
	if (i >= (uint32) node->count)
		return NULL;
	res = palloc(sizeof(JsonbValue));
	*res = node->vals[i];
	return res;
}

static bool scalar_equal(const JsonbValue *a, const JsonbValue *b);

JsonbValue *
findJsonbValueFromContainer(JsonbContainer *container, uint32 flags,
							JsonbValue *key)
{
	FzNode	   *node = node_of(container);
	int			i;

	if ((flags & JB_FARRAY) && JsonContainerIsArray(container))
	{
		for (i = 0; i < node->count; i++)
		{
			if (scalar_equal(&node->vals[i], key))
			{
				JsonbValue *res = palloc(sizeof(JsonbValue));

				*res = node->vals[i];
				return res;
			}
		}
	}
	if ((flags & JB_FOBJECT) && JsonContainerIsObject(container) &&
		key->type == jbvString)
		return getKeyJsonValueFromContainer(container, key->val.string.val,
											key->val.string.len, NULL);
	return NULL;
}

/* ----------------------------------------------------------------
 * numerics: the text numeric_out would print
 * ----------------------------------------------------------------
 */
#define FZ_NUMERIC_MAX_EXPONENT		1000	/* NUMERIC_MAX_PRECISION */
#define FZ_NUMERIC_MAX_DIGITS		131072
#define FZ_NUMERIC_MAX_DSCALE		0x3FFF

static const char *
numeric_text(Numeric n)
{
	return VARDATA((struct varlena *) n);
}

static Numeric
numeric_from_canonical(const char *s, int len)
{
	struct varlena *v = palloc(VARHDRSZ + len + 1);

	SET_VARSIZE(v, VARHDRSZ + len + 1);
	memcpy(VARDATA(v), s, len);
	VARDATA(v)[len] = '\0';
	return (Numeric) v;
}

static void
numeric_syntax_error(const char *s, int len)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s: \"%.*s\"", "numeric", len, s)));
}

/*
 * The canonical text of a plain decimal (sign, digits, point, exponent),
 * as numeric_in then numeric_out give it: display scale is the number of
 * fractional digits written minus the exponent, never below zero.
 */
static Numeric
numeric_parse(const char *s, int len)
{
	const char *p = s;
	const char *end = s + len;
	bool		negative = false;
	StringInfoData digits;
	int			frac = 0;
	bool		point = false;
	long		exponent = 0;
	int			dscale;
	int			shift;
	int			first;
	int			intdigits;
	StringInfoData out;
	bool		zero = true;
	int			i;

	if (p < end && (*p == '+' || *p == '-'))
		negative = (*p++ == '-');
	initStringInfo(&digits);
	for (; p < end; p++)
	{
		if (*p >= '0' && *p <= '9')
		{
			appendStringInfoChar(&digits, *p);
			if (point)
				frac++;
			if (*p != '0')
				zero = false;
		}
		else if (*p == '.' && !point)
			point = true;
		else
			break;
	}
	if (digits.len == 0)
		numeric_syntax_error(s, len);
	if (p < end && (*p == 'e' || *p == 'E'))
	{
		bool		eneg = false;
		const char *estart;

		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = (*p++ == '-');
		estart = p;
		for (; p < end && *p >= '0' && *p <= '9'; p++)
		{
			exponent = exponent * 10 + (*p - '0');
			if (exponent > FZ_NUMERIC_MAX_EXPONENT)
				numeric_syntax_error(s, len);
		}
		if (p == estart)
			numeric_syntax_error(s, len);
		if (eneg)
			exponent = -exponent;
	}
	if (p != end)
		numeric_syntax_error(s, len);
	if (digits.len > FZ_NUMERIC_MAX_DIGITS)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("value overflows numeric format")));

	dscale = Max(0, frac - (int) exponent);
	if (dscale > FZ_NUMERIC_MAX_DSCALE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("value overflows numeric format")));
	/* integer N = digits x 10^shift has dscale implied fractional digits */
	shift = Max(0, (int) exponent - frac);
	for (i = 0; i < shift; i++)
		appendStringInfoChar(&digits, '0');
	/* value = N / 10^dscale; N may have fewer digits than dscale */
	first = 0;
	while (first < digits.len - 1 && digits.data[first] == '0')
		first++;
	initStringInfo(&out);
	if (negative && !zero)
		appendStringInfoChar(&out, '-');
	intdigits = (digits.len - first) - dscale;
	if (intdigits <= 0)
	{
		appendStringInfoChar(&out, '0');
		if (dscale > 0)
			appendStringInfoChar(&out, '.');
		for (i = 0; i < -intdigits; i++)
			appendStringInfoChar(&out, '0');
		appendBinaryStringInfo(&out, digits.data + first, digits.len - first);
	}
	else
	{
		appendBinaryStringInfo(&out, digits.data + first, intdigits);
		if (dscale > 0)
		{
			appendStringInfoChar(&out, '.');
			appendBinaryStringInfo(&out, digits.data + first + intdigits, dscale);
		}
	}
	return numeric_from_canonical(out.data, out.len);
}

Datum
numeric_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);

	PG_RETURN_NUMERIC(numeric_parse(str, strlen(str)));
}

Datum
numeric_out(PG_FUNCTION_ARGS)
{
	Numeric		num = PG_GETARG_NUMERIC(0);

	PG_RETURN_CSTRING(pstrdup(numeric_text(num)));
}

/* a canonical numeric text split into sign, integer and fraction digits */
typedef struct FzDecimal
{
	bool		negative;
	const char *intpart;
	int			intlen;
	const char *frac;
	int			fraclen;
} FzDecimal;

static void
decimal_split(const char *s, FzDecimal *d)
{
	const char *point;

	d->negative = (*s == '-');
	if (d->negative)
		s++;
	point = strchr(s, '.');
	d->intpart = s;
	d->intlen = point ? (int) (point - s) : (int) strlen(s);
	d->frac = point ? point + 1 : "";
	d->fraclen = point ? (int) strlen(point + 1) : 0;
}

/* digit i (0 = least significant) of |d| scaled to scale fractional digits */
static int
decimal_digit(const FzDecimal *d, int scale, int i)
{
	int			pos = i - scale;	/* < 0: fraction, >= 0: integer part */

	if (pos < 0)
	{
		int			fi = -pos - 1;	/* index into frac from the point */

		return fi < d->fraclen ? d->frac[fi] - '0' : 0;
	}
	return pos < d->intlen ? d->intpart[d->intlen - 1 - pos] - '0' : 0;
}

static int
decimal_cmp_abs(const FzDecimal *a, const FzDecimal *b, int scale, int width)
{
	int			i;

	for (i = width - 1; i >= 0; i--)
	{
		int			da = decimal_digit(a, scale, i);
		int			db = decimal_digit(b, scale, i);

		if (da != db)
			return da < db ? -1 : 1;
	}
	return 0;
}

static Numeric
numeric_addsub(Numeric na, Numeric nb, bool subtract)
{
	FzDecimal	a,
				b;
	int			scale;
	int			width;
	char	   *res;
	bool		negative;
	int			carry = 0;
	int			i;
	StringInfoData out;
	const FzDecimal *big;
	const FzDecimal *small;
	bool		add_magnitudes;

	decimal_split(numeric_text(na), &a);
	decimal_split(numeric_text(nb), &b);
	if (subtract)
		b.negative = !b.negative;
	scale = Max(a.fraclen, b.fraclen);
	width = Max(a.intlen, b.intlen) + scale + 1;
	res = palloc(width);
	add_magnitudes = (a.negative == b.negative);
	if (add_magnitudes)
	{
		big = &a;
		small = &b;
		negative = a.negative;
	}
	else if (decimal_cmp_abs(&a, &b, scale, width) >= 0)
	{
		big = &a;
		small = &b;
		negative = a.negative;
	}
	else
	{
		big = &b;
		small = &a;
		negative = b.negative;
	}
	for (i = 0; i < width; i++)
	{
		int			d = decimal_digit(big, scale, i) +
			(add_magnitudes ? 1 : -1) * decimal_digit(small, scale, i) + carry;

		carry = 0;
		if (d >= 10)
		{
			d -= 10;
			carry = 1;
		}
		else if (d < 0)
		{
			d += 10;
			carry = -1;
		}
		res[width - 1 - i] = (char) ('0' + d);
	}
	initStringInfo(&out);
	if (negative)
		appendStringInfoChar(&out, '-');
	appendBinaryStringInfo(&out, res, width - scale);
	if (scale > 0)
	{
		appendStringInfoChar(&out, '.');
		appendBinaryStringInfo(&out, res + width - scale, scale);
	}
	/* re-canonicalise: leading zeros, negative zero */
	return numeric_parse(out.data, out.len);
}

Datum
numeric_add(PG_FUNCTION_ARGS)
{
	PG_RETURN_NUMERIC(numeric_addsub(PG_GETARG_NUMERIC(0), PG_GETARG_NUMERIC(1), false));
}

Datum
numeric_sub(PG_FUNCTION_ARGS)
{
	PG_RETURN_NUMERIC(numeric_addsub(PG_GETARG_NUMERIC(0), PG_GETARG_NUMERIC(1), true));
}

/* numerically equal (display scale aside)? */
static bool
numeric_equal(Numeric a, Numeric b)
{
	Numeric		d = numeric_addsub(a, b, true);
	const char *t = numeric_text(d);

	for (; *t; t++)
	{
		if (*t >= '1' && *t <= '9')
			return false;
	}
	return true;
}

/* ----------------------------------------------------------------
 * the JSON reader (what jsonb_in accepts)
 * ----------------------------------------------------------------
 */
typedef struct FzJson
{
	const char *start;
	const char *p;
	const char *end;
	JsonbParseState *state;
	JsonbValue *result;
} FzJson;

static void
json_error(FzJson *js, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s", "json"),
			 errdetail("%s at byte %d.", what, (int) (js->p - js->start))));
}

static void
json_ws(FzJson *js)
{
	while (js->p < js->end &&
		   (*js->p == ' ' || *js->p == '\t' || *js->p == '\n' || *js->p == '\r'))
		js->p++;
}

#define JSON_ALNUM(c) (((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z') || \
					   ((c) >= '0' && (c) <= '9') || (c) == '_' || IS_HIGHBIT_SET(c))

static int
json_hex4(FzJson *js)
{
	int			cp = 0;
	int			i;

	for (i = 0; i < 4; i++)
	{
		char		c;

		if (js->p >= js->end)
			json_error(js, "incomplete \\u escape");
		c = *js->p++;
		cp <<= 4;
		if (c >= '0' && c <= '9')
			cp |= c - '0';
		else if (c >= 'a' && c <= 'f')
			cp |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			cp |= c - 'A' + 10;
		else
			json_error(js, "\"\\u\" must be followed by four hexadecimal digits");
	}
	return cp;
}

static void
json_string(FzJson *js, JsonbValue *v)
{
	StringInfoData buf;

	const char *q;

	js->p++;					/* the opening quote */
	/* the common case: no escapes, so copy the bytes as they are */
	for (q = js->p; q < js->end && *q != '"' && *q != '\\' &&
		 (unsigned char) *q >= 0x20; q++)
		;
	if (q < js->end && *q == '"')
	{
		int			len = (int) (q - js->p);

		v->type = jbvString;
		v->val.string.val = palloc(len + 1);
		memcpy(v->val.string.val, js->p, len);
		v->val.string.val[len] = '\0';
		v->val.string.len = len;
		js->p = q + 1;
		return;
	}
	initStringInfo(&buf);
	for (;;)
	{
		unsigned char c;

		if (js->p >= js->end)
			json_error(js, "unterminated string");
		c = (unsigned char) *js->p;
		if (c == '"')
		{
			js->p++;
			break;
		}
		if (c < 0x20)
			json_error(js, "control character must be escaped");
		if (c != '\\')
		{
			appendStringInfoChar(&buf, (char) c);
			js->p++;
			continue;
		}
		js->p++;
		if (js->p >= js->end)
			json_error(js, "unterminated escape");
		c = (unsigned char) *js->p++;
		switch (c)
		{
			case '"':
			case '\\':
			case '/':
				appendStringInfoChar(&buf, (char) c);
				break;
			case 'b':
				appendStringInfoChar(&buf, '\b');
				break;
			case 'f':
				appendStringInfoChar(&buf, '\f');
				break;
			case 'n':
				appendStringInfoChar(&buf, '\n');
				break;
			case 'r':
				appendStringInfoChar(&buf, '\r');
				break;
			case 't':
				appendStringInfoChar(&buf, '\t');
				break;
			case 'u':
				{
					pg_wchar	cp = json_hex4(js);
					unsigned char utf8[8];

					if (cp >= 0xD800 && cp <= 0xDBFF)
					{
						pg_wchar	lo;

						if (js->end - js->p < 2 || js->p[0] != '\\' || js->p[1] != 'u')
							json_error(js, "Unicode high surrogate must not be followed by something else than a low surrogate");
						js->p += 2;
						lo = json_hex4(js);
						if (lo < 0xDC00 || lo > 0xDFFF)
							json_error(js, "Unicode high surrogate must not be followed by something else than a low surrogate");
						cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					}
					else if (cp >= 0xDC00 && cp <= 0xDFFF)
						json_error(js, "Unicode low surrogate must follow a high surrogate");
					if (cp == 0)
						ereport(ERROR,
								(errcode(ERRCODE_UNTRANSLATABLE_CHARACTER),
								 errmsg("unsupported Unicode escape sequence"),
								 errdetail("\\u0000 cannot be converted to text.")));
					unicode_to_utf8(cp, utf8);
					appendBinaryStringInfo(&buf, (char *) utf8,
										   pg_utf_mblen(utf8));
				}
				break;
			default:
				json_error(js, "invalid escape");
		}
	}
	v->type = jbvString;
	v->val.string.val = buf.data;
	v->val.string.len = buf.len;
}

static void
json_number(FzJson *js, JsonbValue *v)
{
	const char *s = js->p;

	if (js->p < js->end && *js->p == '-')
		js->p++;
	if (js->p >= js->end || !(*js->p >= '0' && *js->p <= '9'))
		json_error(js, "invalid number");
	if (*js->p == '0')
		js->p++;
	else
		while (js->p < js->end && *js->p >= '0' && *js->p <= '9')
			js->p++;
	if (js->p < js->end && *js->p == '.')
	{
		js->p++;
		if (js->p >= js->end || !(*js->p >= '0' && *js->p <= '9'))
			json_error(js, "invalid number");
		while (js->p < js->end && *js->p >= '0' && *js->p <= '9')
			js->p++;
	}
	if (js->p < js->end && (*js->p == 'e' || *js->p == 'E'))
	{
		js->p++;
		if (js->p < js->end && (*js->p == '+' || *js->p == '-'))
			js->p++;
		if (js->p >= js->end || !(*js->p >= '0' && *js->p <= '9'))
			json_error(js, "invalid number");
		while (js->p < js->end && *js->p >= '0' && *js->p <= '9')
			js->p++;
	}
	if (js->p < js->end && JSON_ALNUM((unsigned char) *js->p))
		json_error(js, "invalid number");
	v->type = jbvNumeric;
	v->val.numeric = numeric_parse(s, js->p - s);
}

static void json_value(FzJson *js, JsonbIteratorToken tok);

static void
json_push(FzJson *js, JsonbIteratorToken tok, JsonbValue *v)
{
	if (js->state == NULL)
	{
		/* a top-level scalar: a one-element raw scalar array */
		JsonbValue	va;

		va.type = jbvArray;
		va.val.array.rawScalar = true;
		va.val.array.nElems = 1;
		pushJsonbValue(&js->state, WJB_BEGIN_ARRAY, &va);
		pushJsonbValue(&js->state, WJB_ELEM, v);
		js->result = pushJsonbValue(&js->state, WJB_END_ARRAY, NULL);
	}
	else
		pushJsonbValue(&js->state, tok, v);
}

static void
json_value(FzJson *js, JsonbIteratorToken tok)
{
	JsonbValue	v;

	check_stack_depth();
	json_ws(js);
	if (js->p >= js->end)
		json_error(js, "unexpected end of input");
	switch (*js->p)
	{
		case '{':
			js->p++;
			pushJsonbValue(&js->state, WJB_BEGIN_OBJECT, NULL);
			json_ws(js);
			if (js->p < js->end && *js->p == '}')
				js->p++;
			else
			{
				for (;;)
				{
					json_ws(js);
					if (js->p >= js->end || *js->p != '"')
						json_error(js, "expected a string key");
					json_string(js, &v);
					pushJsonbValue(&js->state, WJB_KEY, &v);
					json_ws(js);
					if (js->p >= js->end || *js->p != ':')
						json_error(js, "expected \":\"");
					js->p++;
					json_value(js, WJB_VALUE);
					json_ws(js);
					if (js->p < js->end && *js->p == ',')
					{
						js->p++;
						continue;
					}
					if (js->p < js->end && *js->p == '}')
					{
						js->p++;
						break;
					}
					json_error(js, "expected \",\" or \"}\"");
				}
			}
			js->result = pushJsonbValue(&js->state, WJB_END_OBJECT, NULL);
			return;
		case '[':
			js->p++;
			v.type = jbvArray;
			v.val.array.rawScalar = false;
			v.val.array.nElems = 0;
			pushJsonbValue(&js->state, WJB_BEGIN_ARRAY, &v);
			json_ws(js);
			if (js->p < js->end && *js->p == ']')
				js->p++;
			else
			{
				for (;;)
				{
					json_value(js, WJB_ELEM);
					json_ws(js);
					if (js->p < js->end && *js->p == ',')
					{
						js->p++;
						continue;
					}
					if (js->p < js->end && *js->p == ']')
					{
						js->p++;
						break;
					}
					json_error(js, "expected \",\" or \"]\"");
				}
			}
			js->result = pushJsonbValue(&js->state, WJB_END_ARRAY, NULL);
			return;
		case '"':
			json_string(js, &v);
			break;
		case '-':
		case '0':
		case '1':
		case '2':
		case '3':
		case '4':
		case '5':
		case '6':
		case '7':
		case '8':
		case '9':
			json_number(js, &v);
			break;
		default:
			{
				const char *w = js->p;
				int			n;

				while (js->p < js->end && JSON_ALNUM((unsigned char) *js->p))
					js->p++;
				n = js->p - w;
				if (n == 4 && memcmp(w, "true", 4) == 0)
				{
					v.type = jbvBool;
					v.val.boolean = true;
				}
				else if (n == 5 && memcmp(w, "false", 5) == 0)
				{
					v.type = jbvBool;
					v.val.boolean = false;
				}
				else if (n == 4 && memcmp(w, "null", 4) == 0)
					v.type = jbvNull;
				else
				{
					js->p = w;
					json_error(js, "invalid token");
				}
			}
			break;
	}
	json_push(js, tok, &v);
}

Jsonb *
fz_json_to_jsonb(const char *text, int len)
{
	FzJson		js;

	/* text input was verified in the database encoding before jsonb_in */
	(void) pg_verify_mbstr(PG_UTF8, text, len, false);
	js.start = js.p = text;
	js.end = text + len;
	js.state = NULL;
	js.result = NULL;
	json_value(&js, WJB_ELEM);
	json_ws(&js);
	if (js.p != js.end)
		json_error(&js, "trailing data");
	return JsonbValueToJsonb(js.result);
}

Datum
jsonb_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);

	PG_RETURN_JSONB_P(fz_json_to_jsonb(str, strlen(str)));
}

/* ----------------------------------------------------------------
 * output and comparison
 * ----------------------------------------------------------------
 */
static void write_container(StringInfo out, const JsonbContainer *c);

static void
write_value(StringInfo out, const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			appendStringInfoString(out, "null");
			break;
		case jbvBool:
			appendStringInfoString(out, v->val.boolean ? "true" : "false");
			break;
		case jbvNumeric:
			appendStringInfoString(out, numeric_text(v->val.numeric));
			break;
		case jbvString:
			escape_json(out, pnstrdup(v->val.string.val, v->val.string.len));
			break;
		case jbvBinary:
			write_container(out, v->val.binary.data);
			break;
		default:
			fz_fail("write_value: unexpected type %d", (int) v->type);
	}
}

static void
write_container(StringInfo out, const JsonbContainer *c)
{
	FzNode	   *node = node_of(c);
	int			i;

	check_stack_depth();
	if (node->raw_scalar)
	{
		write_value(out, &node->vals[0]);
		return;
	}
	appendStringInfoChar(out, node->is_object ? '{' : '[');
	for (i = 0; i < node->count; i++)
	{
		if (i > 0)
			appendStringInfoString(out, ", ");
		if (node->is_object)
		{
			write_value(out, &node->keys[i]);
			appendStringInfoString(out, ": ");
		}
		write_value(out, &node->vals[i]);
	}
	appendStringInfoChar(out, node->is_object ? '}' : ']');
}

char *
JsonbToCString(StringInfo out, JsonbContainer *in, int estimated_len)
{
	if (out == NULL)
		out = makeStringInfo();
	write_container(out, in);
	return out->data;
}

char *
fz_jsonb_text(Jsonb *jb)
{
	return JsonbToCString(NULL, &jb->root, VARSIZE(jb));
}

static bool container_equal(const JsonbContainer *a, const JsonbContainer *b);

static bool
scalar_equal(const JsonbValue *a, const JsonbValue *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type)
	{
		case jbvNull:
			return true;
		case jbvBool:
			return a->val.boolean == b->val.boolean;
		case jbvNumeric:
			return numeric_equal(a->val.numeric, b->val.numeric);
		case jbvString:
			return a->val.string.len == b->val.string.len &&
				memcmp(a->val.string.val, b->val.string.val, a->val.string.len) == 0;
		case jbvBinary:
			return container_equal(a->val.binary.data, b->val.binary.data);
		default:
			return false;
	}
}

static bool
container_equal(const JsonbContainer *a, const JsonbContainer *b)
{
	FzNode	   *na = node_of(a);
	FzNode	   *nb = node_of(b);
	int			i;

	check_stack_depth();
	if (a->header != b->header)
		return false;
	for (i = 0; i < na->count; i++)
	{
		if (na->is_object && !scalar_equal(&na->keys[i], &nb->keys[i]))
			return false;
		if (!scalar_equal(&na->vals[i], &nb->vals[i]))
			return false;
	}
	return true;
}

bool
fz_jsonb_equal(Jsonb *a, Jsonb *b)
{
	return container_equal(&a->root, &b->root);
}
