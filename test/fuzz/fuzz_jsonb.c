/*-------------------------------------------------------------------------
 *
 * fuzz_jsonb.c
 *		libFuzzer target: the jsonb binary layout written and read in place
 *		(jsonb_binary.c).
 *
 * The stand-in jsonb of the other targets is not the on-disk layout, so
 * this target brings its own oracle: a reference encoder written from
 * the layout PostgreSQL documents in utils/jsonb.h, recursive and plain
 * (every container encoded from its values, keys sorted by length then
 * bytes, a JEntry offset every JB_OFFSET_STRIDE children, int alignment
 * of container and numeric data).  The regression suites check that
 * the module's output is what the server's jsonb_in gives (pgTAP
 * jsonb_binary); here the input bytes drive a generator of values:
 *
 *	  - a response object (strings, numerics, booleans, null, nested
 *		containers under short keys) and a list of items (objects of
 *		nested objects and arrays, up to a few hundred of them, so the
 *		Items array crosses the stride) are each encoded by the reference;
 *	  - JsonbWithArrayMember(response, key, items) must equal, byte for
 *		byte, the reference encoding of the response with the member key
 *		holding the array of items;
 *	  - JsonbChildren must read every container of the result back into
 *		the values generated (types, key order, data).
 *
 * Numeric data is opaque to both (copied, aligned): the generator makes
 * varlena-shaped blobs of any content.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "fuzz_support.h"
#include "jsonb_binary.h"

/* ---- values ---- */
typedef enum RefKind
{
	REF_STRING,
	REF_NUMERIC,
	REF_TRUE,
	REF_FALSE,
	REF_NULL,
	REF_OBJECT,
	REF_ARRAY
} RefKind;

typedef struct RefValue RefValue;
struct RefValue
{
	RefKind		kind;
	const char *data;			/* string bytes, numeric blob */
	int			len;
	int			n;				/* members or elements */
	const char **keys;			/* object: sorted, unique */
	int		   *keylens;
	RefValue  **vals;
};

/* ---- the input as a stream of choices ---- */
typedef struct Stream
{
	const uint8_t *p;
	size_t		left;
} Stream;

static int
next(Stream *s, int limit)
{
	if (s->left == 0 || limit <= 1)
		return 0;
	s->left--;
	return *s->p++ % limit;
}

static const char *
take(Stream *s, int len)
{
	char	   *r = palloc(len + 1);
	int			i;

	for (i = 0; i < len; i++)
		r[i] = (char) (s->left ? (s->left--, *s->p++) : 'x');
	r[len] = '\0';
	return r;
}

static int
keycmp(const char *a, int alen, const char *b, int blen)
{
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return memcmp(a, b, alen);
}

/* sort an object's members by key, dropping later duplicates */
static void
sort_members(RefValue *v)
{
	int			i,
				j,
				out = 0;

	for (i = 1; i < v->n; i++)
		for (j = i; j > 0 && keycmp(v->keys[j - 1], v->keylens[j - 1], v->keys[j], v->keylens[j]) > 0; j--)
		{
			const char *k = v->keys[j];
			int			kl = v->keylens[j];
			RefValue   *x = v->vals[j];

			v->keys[j] = v->keys[j - 1], v->keylens[j] = v->keylens[j - 1], v->vals[j] = v->vals[j - 1];
			v->keys[j - 1] = k, v->keylens[j - 1] = kl, v->vals[j - 1] = x;
		}
	for (i = 0; i < v->n; i++)
	{
		if (out > 0 && keycmp(v->keys[out - 1], v->keylens[out - 1], v->keys[i], v->keylens[i]) == 0)
			continue;
		v->keys[out] = v->keys[i], v->keylens[out] = v->keylens[i], v->vals[out] = v->vals[i];
		out++;
	}
	v->n = out;
}

static RefValue *gen_value(Stream *s, int depth);

static RefValue *
gen_container(Stream *s, RefKind kind, int n, int depth, const char *skip_key)
{
	RefValue   *v = palloc0(sizeof(RefValue));
	int			i;

	v->kind = kind;
	v->n = n;
	v->vals = palloc(sizeof(RefValue *) * Max(n, 1));
	if (kind == REF_OBJECT)
	{
		v->keys = palloc(sizeof(char *) * Max(n, 1));
		v->keylens = palloc(sizeof(int) * Max(n, 1));
	}
	for (i = 0; i < n; i++)
	{
		if (kind == REF_OBJECT)
		{
			v->keylens[i] = next(s, 8);
			v->keys[i] = take(s, v->keylens[i]);
			if (skip_key && keycmp(v->keys[i], v->keylens[i], skip_key, strlen(skip_key)) == 0)
				v->keys[i] = "_", v->keylens[i] = 1;
		}
		v->vals[i] = gen_value(s, depth + 1);
	}
	if (kind == REF_OBJECT)
		sort_members(v);
	return v;
}

static RefValue *
gen_value(Stream *s, int depth)
{
	int			k = next(s, depth >= 5 ? 5 : 7);
	RefValue   *v;

	if (k >= REF_OBJECT)
		return gen_container(s, (RefKind) k, next(s, 6), depth, NULL);
	v = palloc0(sizeof(RefValue));
	v->kind = (RefKind) k;
	if (k == REF_STRING)
	{
		/* now and then a long one: offsets past 64 KB */
		v->len = next(s, 10) == 0 ? 3000 * next(s, 40) : next(s, 20);
		v->data = take(s, Min(v->len, 64));
		if (v->len > 64)
		{
			char	   *big = palloc(v->len);

			memset(big, v->data[0], v->len);
			v->data = big;
		}
	}
	else if (k == REF_NUMERIC)
	{
		/* a varlena-shaped blob: 4-byte header and some digits */
		char	   *blob;

		v->len = VARHDRSZ + 2 + 2 * next(s, 6);
		blob = palloc(v->len);
		memcpy(blob + VARHDRSZ, take(s, v->len - VARHDRSZ), v->len - VARHDRSZ);
		SET_VARSIZE(blob, v->len);
		v->data = blob;
	}
	return v;
}

/* ---- the reference encoder ---- */
static void
ref_pad(StringInfo b)
{
	while (b->len % 4 != 0)
		appendStringInfoCharMacro(b, '\0');
}

static uint32
ref_type(const RefValue *v)
{
	switch (v->kind)
	{
		case REF_STRING:
			return JENTRY_ISSTRING;
		case REF_NUMERIC:
			return JENTRY_ISNUMERIC;
		case REF_TRUE:
			return JENTRY_ISBOOL_TRUE;
		case REF_FALSE:
			return JENTRY_ISBOOL_FALSE;
		case REF_NULL:
			return JENTRY_ISNULL;
		default:
			return JENTRY_ISCONTAINER;
	}
}

static void ref_container(StringInfo b, const RefValue *v);

/* one child's data (padding first where it needs alignment) */
static void
ref_child_data(StringInfo b, const RefValue *v)
{
	if (v->kind == REF_NUMERIC || v->kind >= REF_OBJECT)
		ref_pad(b);
	if (v->kind >= REF_OBJECT)
		ref_container(b, v);
	else if (v->kind == REF_STRING || v->kind == REF_NUMERIC)
		appendBinaryStringInfo(b, v->data, v->len);
}

static void
ref_container(StringInfo b, const RefValue *v)
{
	int			nch = v->kind == REF_OBJECT ? 2 * v->n : v->n;
	uint32		header = (uint32) v->n | (v->kind == REF_OBJECT ? JB_FOBJECT : JB_FARRAY);
	int			jentries;
	int			data;
	int			i;

	appendBinaryStringInfo(b, (char *) &header, 4);
	jentries = b->len;
	for (i = 0; i < nch; i++)
		appendBinaryStringInfo(b, "\0\0\0\0", 4);
	data = b->len;
	for (i = 0; i < nch; i++)
	{
		int			start = b->len;
		uint32		type;
		JEntry		e;

		if (v->kind == REF_OBJECT && i < v->n)
		{
			type = JENTRY_ISSTRING;
			appendBinaryStringInfo(b, v->keys[i], v->keylens[i]);
		}
		else
		{
			const RefValue *c = v->vals[v->kind == REF_OBJECT ? i - v->n : i];

			type = ref_type(c);
			ref_child_data(b, c);
		}
		if (i % JB_OFFSET_STRIDE == 0)
			e = type | JENTRY_HAS_OFF | (uint32) (b->len - data);
		else
			e = type | (uint32) (b->len - start);
		memcpy(b->data + jentries + 4 * i, &e, 4);
	}
}

/* a Jsonb datum of container v */
static Jsonb *
ref_jsonb(const RefValue *v)
{
	StringInfoData b;

	initStringInfo(&b);
	appendBinaryStringInfo(&b, "\0\0\0\0", VARHDRSZ);
	ref_container(&b, v);
	SET_VARSIZE(b.data, b.len);
	return (Jsonb *) b.data;
}

/* ---- reading back with JsonbChildren ---- */
static void
check_read(const JsonbContainer *c, const RefValue *v)
{
	int			nch = v->kind == REF_OBJECT ? 2 * v->n : v->n;
	JsonbChild *ch = palloc(sizeof(JsonbChild) * Max(nch, 1));
	int			i;

	fz_check(JsonbChildren(c, ch, nch) == nch, "JsonbChildren: wrong count");
	for (i = 0; i < nch; i++)
	{
		if (v->kind == REF_OBJECT && i < v->n)
		{
			fz_check(ch[i].type == JENTRY_ISSTRING && ch[i].len == v->keylens[i] &&
					 memcmp(ch[i].data, v->keys[i], ch[i].len) == 0,
					 "JsonbChildren: key %d differs", i);
			continue;
		}
		else
		{
			const RefValue *x = v->vals[v->kind == REF_OBJECT ? i - v->n : i];

			fz_check(ch[i].type == ref_type(x), "JsonbChildren: type of child %d differs", i);
			if (x->kind == REF_STRING || x->kind == REF_NUMERIC)
				fz_check(ch[i].len == x->len && memcmp(ch[i].data, x->data, x->len) == 0,
						 "JsonbChildren: data of child %d differs", i);
			if (x->kind >= REF_OBJECT)
			{
				fz_check(((uintptr_t) ch[i].data - (uintptr_t) c) % 4 == 0,
						 "JsonbChildren: container child %d is not aligned", i);
				check_read((const JsonbContainer *) ch[i].data, x);
			}
		}
	}
	pfree(ch);
}

/* ---- the target ---- */
typedef struct Case
{
	Stream		s;
} Case;

static void
run_case(void *arg)
{
	Case	   *cs = arg;
	Stream	   *s = &cs->s;
	const char *key = next(s, 4) == 0 ? "Items" : "";	/* "" sorts first */
	RefValue   *rest = gen_container(s, REF_OBJECT, next(s, 7), 1, key);
	int			nitems = next(s, 4) == 0 ? 32 * next(s, 12) + next(s, 3) - 1 : next(s, 40);
	Jsonb	  **items;
	RefValue   *arr;
	RefValue   *whole;
	Jsonb	   *expected;
	Jsonb	   *got;
	int			i;

	nitems = Max(nitems, 0);
	items = palloc(sizeof(Jsonb *) * Max(nitems, 1));
	arr = gen_container(s, REF_ARRAY, 0, 1, NULL);
	arr->vals = palloc(sizeof(RefValue *) * Max(nitems, 1));
	arr->n = nitems;
	for (i = 0; i < nitems; i++)
	{
		/* items are objects (or, here and there, arrays) */
		arr->vals[i] = gen_container(s, next(s, 8) == 0 ? REF_ARRAY : REF_OBJECT, next(s, 5), 2, NULL);
		items[i] = ref_jsonb(arr->vals[i]);
	}

	/* the reference: rest with key -> [items], encoded from scratch */
	whole = palloc0(sizeof(RefValue));
	whole->kind = REF_OBJECT;
	whole->n = rest->n + 1;
	whole->keys = palloc(sizeof(char *) * whole->n);
	whole->keylens = palloc(sizeof(int) * whole->n);
	whole->vals = palloc(sizeof(RefValue *) * whole->n);
	for (i = 0; i < rest->n; i++)
		whole->keys[i] = rest->keys[i], whole->keylens[i] = rest->keylens[i], whole->vals[i] = rest->vals[i];
	whole->keys[rest->n] = key, whole->keylens[rest->n] = strlen(key), whole->vals[rest->n] = arr;
	sort_members(whole);
	fz_check(whole->n == rest->n + 1, "generator: the new key is already a member");
	expected = ref_jsonb(whole);

	got = JsonbWithArrayMember(ref_jsonb(rest), key, items, nitems);
	fz_check(VARSIZE(got) == VARSIZE(expected), "JsonbWithArrayMember: %u bytes, reference %u (%d items)",
			 (unsigned) VARSIZE(got), (unsigned) VARSIZE(expected), nitems);
	for (i = VARHDRSZ; i < (int) VARSIZE(got); i++)
		fz_check(((char *) got)[i] == ((char *) expected)[i],
				 "JsonbWithArrayMember: byte %d differs from the reference (%d items)", i, nitems);
	check_read(&got->root, whole);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Case		cs;

	if (size > 8192)
		return -1;
	cs.s.p = data;
	cs.s.left = size;
	fz_input_begin();
	(void) fz_call(run_case, &cs);
	fz_input_end();
	return 0;
}
