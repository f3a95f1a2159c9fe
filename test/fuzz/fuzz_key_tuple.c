/*-------------------------------------------------------------------------
 *
 * fuzz_key_tuple.c
 *		libFuzzer target: the tuple keys of multi-attribute GSI keys
 *		(key_codec.c's essay, property 4), built from structured input.
 *
 * The input describes a key schema of one to eight parts (each N, S or B;
 * one to four of them partition parts, at most four sort parts) and two
 * tuples of values for it; the second tuple may share leading
 * parts with the first (a flag byte per part), so that ties and prefixes
 * are common.  Checked for every input:
 *
 *	  - order: memcmp() of the two encodings has the sign of the tuples'
 *		comparison, part by part (N numerically, S and B by bytes, a proper
 *		prefix first);
 *	  - decoding gives the parts back, and the text form reads back to the
 *		same bytes; KeyCodecPartitionLength is the length of the header and
 *		the partition parts;
 *	  - ranges: for every k from the number of partition parts, the second tuple lies in [E, E || 06) (E the
 *		encoding of the first tuple's first k parts) exactly when their
 *		first k parts are equal; and for an S or B part k, in
 *		[E' || tag || prefix, ... || FF) (E' the first k parts before it,
 *		prefix the first half of the first tuple's payload) exactly when
 *		the first k parts are equal and part k begins with prefix.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fuzz_support.h"
#include "item_table.h"

extern Datum item_key_in(PG_FUNCTION_ARGS);

/* a cursor over the input: bytes past its end read as zero */
typedef struct FzIn
{
	const uint8_t *p;
	const uint8_t *end;
} FzIn;

static uint8_t
take(FzIn *in)
{
	return in->p < in->end ? *in->p++ : 0;
}

/* S payloads come from pieces that exercise the escapes and UTF-8 */
static const char *const s_pieces[] = {"\x01", "\x07", "\x08", "a", "b", "\xc3\xa9", "~", "\x7f"};

static void
make_part(FzIn *in, ItemKeyType type, ItemKeyPart *part)
{
	int			len = 1 + take(in) % 4;
	int			i;

	memset(part, 0, sizeof(*part));
	part->type = type;
	if (type == ITEMKEY_N)
	{
		/* sign, up to three digits, an exponent */
		uint8_t		a = take(in);
		char		text[32];

		snprintf(text, sizeof(text), "%s%de%d", (a & 1) ? "-" : "",
				 (int) (take(in) % 100 * (a & 2 ? 10 : 1) + (a & 4 ? 1 : 0)),
				 (int) (take(in) % 9) - 4);
		if (DynNumberParse(text, strlen(text), &part->num) != DYNNUM_OK)
			fz_fail("number text %s did not parse", text);
		return;
	}
	if (type == ITEMKEY_S)
	{
		StringInfoData s;

		initStringInfo(&s);
		for (i = 0; i < len; i++)
			appendStringInfoString(&s, s_pieces[take(in) % lengthof(s_pieces)]);
		part->bytes = s.data;
		part->len = s.len;
		return;
	}
	{
		char	   *b = palloc(len);

		for (i = 0; i < len; i++)
			b[i] = (char) take(in);
		part->bytes = b;
		part->len = len;
	}
}

static int
bytes_cmp(const char *a, int alen, const char *b, int blen)
{
	int			c = memcmp(a, b, Min(alen, blen));

	if (c != 0)
		return c < 0 ? -1 : 1;
	return alen == blen ? 0 : (alen < blen ? -1 : 1);
}

static int
part_cmp(const ItemKeyPart *a, const ItemKeyPart *b)
{
	if (a->type == ITEMKEY_N)
	{
		int			c = DynNumberCompare(&a->num, &b->num);

		return c < 0 ? -1 : (c > 0 ? 1 : 0);
	}
	return bytes_cmp(a->bytes, a->len, b->bytes, b->len);
}

static int
key_cmp(const ItemKey *a, const ItemKey *b)
{
	return bytes_cmp((const char *) ITEMKEY_DATA(a), ITEMKEY_LEN(a),
					 (const char *) ITEMKEY_DATA(b), ITEMKEY_LEN(b));
}

/* the encoding of parts[0..k) with extra bytes appended */
static ItemKey *
prefix_key(const ItemKeyPart *parts, int nhash, int k, const char *extra, int nextra)
{
	StringInfoData buf;
	int			i;

	KeyCodecTupleStart(&buf, nhash);
	for (i = 0; i < k; i++)
		KeyCodecAppendPart(&buf, &parts[i], false);
	if (nextra > 0)
		appendBinaryStringInfo(&buf, extra, nextra);
	return KeyCodecTupleFinish(&buf);
}

static bool
in_range(const ItemKey *k, const ItemKey *lo, const ItemKey *hi)
{
	return key_cmp(lo, k) <= 0 && key_cmp(k, hi) < 0;
}

typedef struct TupleRun
{
	ItemKey    *key;
	ItemKey    *back;
} TupleRun;

static void
run_text_roundtrip(void *arg)
{
	TupleRun   *run = arg;

	run->back = (ItemKey *) DatumGetPointer(DirectFunctionCall1(item_key_in,
																CStringGetDatum(ItemKeyToText(run->key))));
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FzIn		in = {data, data + size};
	ItemKeyType types[ITEMKEY_MAX_TUPLE_PARTS];
	ItemKeyPart a[ITEMKEY_MAX_TUPLE_PARTS];
	ItemKeyPart b[ITEMKEY_MAX_TUPLE_PARTS];
	ItemKey    *ka;
	ItemKey    *kb;
	ItemKeyTuple dec;
	const char *why = NULL;
	TupleRun	run;
	int			n;
	int			nhash;
	int			i;
	int			k;
	int			want = 0;

	if (size > 4096)
		return -1;
	fz_input_begin();
	n = 1 + take(&in) % ITEMKEY_MAX_TUPLE_PARTS;
	nhash = 1 + take(&in) % (ITEMKEY_MAX_TUPLE_PARTS / 2);
	nhash = Min(n, nhash);
	if (n - nhash > ITEMKEY_MAX_TUPLE_PARTS / 2)
		nhash = n - ITEMKEY_MAX_TUPLE_PARTS / 2;
	for (i = 0; i < n; i++)
	{
		static const ItemKeyType all[3] = {ITEMKEY_N, ITEMKEY_S, ITEMKEY_B};

		types[i] = all[take(&in) % 3];
	}
	for (i = 0; i < n; i++)
		make_part(&in, types[i], &a[i]);
	for (i = 0; i < n; i++)
	{
		if (take(&in) % 3 != 0)
			b[i] = a[i];		/* a shared part */
		else
			make_part(&in, types[i], &b[i]);
	}
	ka = KeyCodecBuildTuple(a, nhash, n);
	kb = KeyCodecBuildTuple(b, nhash, n);

	/* order */
	for (i = 0; i < n && want == 0; i++)
		want = part_cmp(&a[i], &b[i]);
	fz_check(key_cmp(ka, kb) == want, "tuple order: memcmp gives %d, the values %d", key_cmp(ka, kb), want);

	/* decoding and the text form */
	if (!KeyCodecDecodeTuple(ITEMKEY_DATA(ka), ITEMKEY_LEN(ka), &dec, &why))
	{
		StringInfoData hx;

		initStringInfo(&hx);
		for (i = 0; i < ITEMKEY_LEN(ka); i++)
			appendStringInfo(&hx, "%02x", ITEMKEY_DATA(ka)[i]);
		fz_fail("a tuple key (%s) does not decode: %s", hx.data, why);
	}
	fz_check(dec.nparts == n && dec.nhash == nhash && dec.bound == ITEMKEY_EXACT,
			 "decoded %d parts (%d partition) of %d (%d)", dec.nparts, dec.nhash, n, nhash);
	for (i = 0; i < n; i++)
		fz_check(dec.parts[i].type == a[i].type && part_cmp(&dec.parts[i], &a[i]) == 0,
				 "part %d decodes to another value", i);
	run.key = ka;
	fz_check(fz_call(run_text_roundtrip, &run), "the text form %s does not read back", ItemKeyToText(ka));
	fz_check(key_cmp(run.back, ka) == 0, "the text form %s reads back to other bytes", ItemKeyToText(ka));

	/* the partition: the header and the partition parts, nothing else */
	{
		ItemKey    *pk = prefix_key(a, nhash, nhash, NULL, 0);

		fz_check(KeyCodecPartitionLength(ITEMKEY_DATA(ka), ITEMKEY_LEN(ka)) == ITEMKEY_LEN(pk),
				 "the partition length of %s is not that of its partition parts", ItemKeyToText(ka));
	}

	/* ranges (a bound holds every partition part) */
	for (k = nhash; k <= n; k++)
	{
		static const char top = (char) ITEMKEY_TAG_PARTITION_TOP;
		bool		equal = true;

		for (i = 0; i < k; i++)
			equal = equal && part_cmp(&a[i], &b[i]) == 0;
		fz_check(in_range(kb, prefix_key(a, nhash, k, NULL, 0), prefix_key(a, nhash, k, &top, 1)) == equal,
				 "the range of %d leading parts disagrees with the values", k);
		if (a[k - 1].type != ITEMKEY_N && k > nhash)
		{
			StringInfoData pre;
			ItemKey    *lo;
			ItemKey    *hi;
			int			plen = (a[k - 1].len + 1) / 2;
			bool		match;

			initStringInfo(&pre);
			appendStringInfoChar(&pre, (char) (a[k - 1].type == ITEMKEY_S ? ITEMKEY_TAG_S : ITEMKEY_TAG_B));
			KeyCodecAppendEscaped(&pre, a[k - 1].bytes, plen);
			lo = prefix_key(a, nhash, k - 1, pre.data, pre.len);
			appendStringInfoChar(&pre, (char) ITEMKEY_PREFIX_TOP);
			hi = prefix_key(a, nhash, k - 1, pre.data, pre.len);
			match = b[k - 1].len >= plen && memcmp(b[k - 1].bytes, a[k - 1].bytes, plen) == 0;
			for (i = 0; i < k - 1; i++)
				match = match && part_cmp(&a[i], &b[i]) == 0;
			fz_check(in_range(kb, lo, hi) == match,
					 "the begins_with range of part %d disagrees with the values", k);
		}
	}
	fz_input_end();
	return 0;
}
