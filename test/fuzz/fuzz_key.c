/*-------------------------------------------------------------------------
 *
 * fuzz_key.c
 *		libFuzzer target: item_key text input and output (key_io.c), the
 *		byte encoding (key_codec.c) and the numbers in keys (dnumber.c).
 *
 * The input is one or two keys in text form separated by a NUL byte
 * (item_key_in takes a C string, so a NUL can never be part of a key),
 * e.g. S"users"|N42 \0 S"users"|S"pre"~.  Checked for every key that
 * item_key_in accepts:
 *
 *	  - the encoding decodes, and the text output reads back to the very
 *		same bytes (and prints the same text again);
 *	  - for a real key (not a range bound), encoding the decoded parts
 *		gives the same bytes, KeyCodecPartitionLength is the length of the
 *		partition alone, and binary send/receive round-trips.
 *
 * For two real keys a and b: memcmp order of the encodings is DynamoDB's
 * key order computed from the decoded values (partition, then sort; N
 * numerically, S and B bytewise; no sort part first), and KeyCodecBeginsWith
 * and the range of KeyCodecPrefixBounds agree with begins_with computed
 * from the values.
 *
 * Multi-attribute keys (a parenthesised text form, version byte 02) are
 * checked for decoding, text and binary round trips (check_tuple); their
 * order is fuzz_key_tuple.c's.
 *
 * The raw input bytes are also fed to the binary receive function as an
 * encoding: whatever it accepts must print, read back and re-encode to the
 * same bytes (one value, one encoding).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"

#include "fuzz_support.h"
#include "item_table.h"

extern Datum item_key_in(PG_FUNCTION_ARGS);
extern Datum item_key_recv(PG_FUNCTION_ARGS);
extern Datum item_key_send(PG_FUNCTION_ARGS);

typedef struct KeyRun
{
	const char *text;			/* text input */
	const uint8 *bytes;			/* binary input */
	int			nbytes;
	ItemKey    *key;			/* result */
} KeyRun;

static int
bytes_cmp(const uint8 *a, int alen, const uint8 *b, int blen)
{
	int			c = memcmp(a, b, Min(alen, blen));

	if (c != 0)
		return c < 0 ? -1 : 1;
	return alen == blen ? 0 : (alen < blen ? -1 : 1);
}

static int
key_cmp(const ItemKey *a, const ItemKey *b)
{
	return bytes_cmp(ITEMKEY_DATA(a), ITEMKEY_LEN(a), ITEMKEY_DATA(b), ITEMKEY_LEN(b));
}

static bool
key_same(const ItemKey *a, const ItemKey *b)
{
	return key_cmp(a, b) == 0;
}

static char *
hex(const ItemKey *k)
{
	StringInfoData out;
	int			i;

	initStringInfo(&out);
	for (i = 0; i < ITEMKEY_LEN(k); i++)
		appendStringInfo(&out, "%02x", ITEMKEY_DATA(k)[i]);
	return out.data;
}

static ItemKey *
key_in(const char *text)
{
	return (ItemKey *) DatumGetPointer(DirectFunctionCall1(item_key_in,
														   CStringGetDatum(text)));
}

static void
run_text_in(void *arg)
{
	KeyRun	   *run = arg;

	run->key = key_in(run->text);
}

static void
run_recv(void *arg)
{
	KeyRun	   *run = arg;
	StringInfoData buf;

	buf.data = (char *) run->bytes;
	buf.len = run->nbytes;
	buf.maxlen = run->nbytes;
	buf.cursor = 0;
	run->key = (ItemKey *) DatumGetPointer(DirectFunctionCall1(item_key_recv,
															   PointerGetDatum(&buf)));
}

/*
 * the invariants of an accepted multi-attribute key (ITEMKEY_FORMAT_TUPLE;
 * fuzz_key_tuple.c checks their order): it decodes (or is a key followed
 * by a zero byte, a successor bound), its text reads back to the same
 * bytes, and a real key re-encodes from its parts, has the partition
 * length of its partition parts and survives send/receive
 */
static void
check_tuple(ItemKey *key, const char *origin)
{
	const uint8 *data = ITEMKEY_DATA(key);
	int			len = ITEMKEY_LEN(key);
	ItemKeyTuple t;
	const char *why = NULL;
	char	   *text = ItemKeyToText(key);
	ItemKey    *again = key_in(text);

	fz_check(key_same(key, again), "%s: tuple text %s reads back as %s, not %s",
			 origin, text, hex(again), hex(key));
	fz_check(strcmp(ItemKeyToText(again), text) == 0, "%s: tuple text is not stable: %s", origin, text);
	if (!KeyCodecDecodeTuple(data, len, &t, &why))
	{
		fz_check(data[len - 1] == 0 && KeyCodecDecodeTuple(data, len - 1, &t, &why),
				 "%s: accepted tuple key %s does not decode: %s", origin, hex(key), why);
		return;
	}
	if (t.bound == ITEMKEY_EXACT)
	{
		ItemKey    *built = KeyCodecBuildTuple(t.parts, t.nhash, t.nparts);
		ItemKey    *part_only = KeyCodecBuildTuple(t.parts, t.nhash, t.nhash);
		Datum		sent;
		KeyRun		back;

		fz_check(key_same(key, built), "%s: %s re-encodes from its parts as %s", origin, hex(key), hex(built));
		fz_check(KeyCodecPartitionLength(data, len) == ITEMKEY_LEN(part_only),
				 "%s: partition length of tuple %s is %d, its partition parts have %d bytes",
				 origin, hex(key), KeyCodecPartitionLength(data, len), ITEMKEY_LEN(part_only));
		sent = DirectFunctionCall1(item_key_send, PointerGetDatum(key));
		back.bytes = (const uint8 *) VARDATA_ANY(DatumGetPointer(sent));
		back.nbytes = VARSIZE_ANY_EXHDR(DatumGetPointer(sent));
		fz_check(fz_call(run_recv, &back), "%s: send output of %s is not accepted by recv: %s",
				 origin, text, fz_last_error()->message);
		fz_check(key_same(key, back.key), "%s: send/recv changed %s", origin, text);
	}
}

/*
 * the invariants of one accepted key (raises nothing: failures abort);
 * false for the reader's bounds, which are not keys to compare, and for
 * multi-attribute keys (check_tuple)
 */
static bool
check_key(ItemKey *key, const char *origin)
{
	ItemKeyParsed parsed;
	const char *why = NULL;
	char	   *text;
	ItemKey    *again;

	const uint8 *data = ITEMKEY_DATA(key);
	int			len = ITEMKEY_LEN(key);

	if (len > 0 && data[0] == ITEMKEY_FORMAT_TUPLE)
	{
		check_tuple(key, origin);
		return false;
	}

	/*
	 * The reader's bounds have text forms (key_io.c): "<" (no bytes) before
	 * every key, ">" (one FF byte) after every key, and "K>" (K's encoding
	 * and a zero byte) right after K.  They need not decode; their text
	 * must read back as the same bytes, and K must be a key of its own.
	 */
	if (len == 0 || (len == 1 && data[0] == 0xFF) ||
		(data[len - 1] == 0 && !KeyCodecDecode(data, len, &parsed, &why)))
	{
		text = ItemKeyToText(key);
		again = key_in(text);
		fz_check(key_same(key, again),
				 "%s: bound %s reads back as %s, not %s", origin, text, hex(again), hex(key));
		if (len > 1)
			fz_check(check_key(KeyCodecMakeVarlena(data, len - 1), origin),
					 "%s: bound %s follows no key", origin, text);
		return false;
	}
	fz_check(KeyCodecDecode(data, len, &parsed, &why),
			 "%s: accepted key %s does not decode: %s", origin, hex(key), why);
	text = ItemKeyToText(key);
	again = key_in(text);
	fz_check(key_same(key, again),
			 "%s: text output %s reads back as %s, not %s", origin, text,
			 hex(again), hex(key));
	fz_check(strcmp(ItemKeyToText(again), text) == 0,
			 "%s: text output is not stable: %s", origin, text);

	if (parsed.bound == ITEMKEY_EXACT)
	{
		ItemKey    *built = KeyCodecBuild(&parsed.partition,
										  parsed.sort.type != ITEMKEY_NONE ? &parsed.sort : NULL);
		ItemKey    *part_only = KeyCodecBuild(&parsed.partition, NULL);
		Datum		sent;
		KeyRun		back;

		fz_check(key_same(key, built),
				 "%s: %s re-encodes from its parts as %s", origin, hex(key), hex(built));
		fz_check(KeyCodecPartitionLength(ITEMKEY_DATA(key), ITEMKEY_LEN(key)) ==
				 ITEMKEY_LEN(part_only),
				 "%s: partition length of %s is %d, the partition alone has %d bytes",
				 origin, hex(key),
				 KeyCodecPartitionLength(ITEMKEY_DATA(key), ITEMKEY_LEN(key)),
				 ITEMKEY_LEN(part_only));
		fz_check((KeyCodecSortPayloadOffset(ITEMKEY_DATA(key), ITEMKEY_LEN(key)) >= 0) ==
				 (parsed.sort.type != ITEMKEY_NONE),
				 "%s: sort part offset disagrees with the decoded key %s", origin, text);

		sent = DirectFunctionCall1(item_key_send, PointerGetDatum(key));
		back.bytes = (const uint8 *) VARDATA_ANY(DatumGetPointer(sent));
		back.nbytes = VARSIZE_ANY_EXHDR(DatumGetPointer(sent));
		fz_check(fz_call(run_recv, &back), "%s: send output of %s is not accepted by recv: %s",
				 origin, text, fz_last_error()->message);
		fz_check(key_same(key, back.key), "%s: send/recv changed %s", origin, text);
	}
	return true;
}

/* ---- the order and begins_with the encoding must implement ---- */
static int
type_rank(ItemKeyType t)
{
	return t == ITEMKEY_N ? 0 : (t == ITEMKEY_S ? 1 : 2);
}

static int
part_cmp(const ItemKeyPart *a, const ItemKeyPart *b)
{
	if (a->type != b->type)
		return type_rank(a->type) < type_rank(b->type) ? -1 : 1;
	if (a->type == ITEMKEY_N)
	{
		int			c = DynNumberCompare(&a->num, &b->num);

		return c < 0 ? -1 : (c > 0 ? 1 : 0);
	}
	return bytes_cmp((const uint8 *) a->bytes, a->len, (const uint8 *) b->bytes, b->len);
}

static int
value_cmp(const ItemKeyParsed *a, const ItemKeyParsed *b)
{
	int			c = part_cmp(&a->partition, &b->partition);

	if (c != 0)
		return c;
	if (a->sort.type == ITEMKEY_NONE || b->sort.type == ITEMKEY_NONE)
	{
		if (a->sort.type == b->sort.type)
			return 0;
		return a->sort.type == ITEMKEY_NONE ? -1 : 1;
	}
	return part_cmp(&a->sort, &b->sort);
}

static bool
value_begins_with(const ItemKeyParsed *k, const ItemKeyParsed *p)
{
	if (part_cmp(&k->partition, &p->partition) != 0)
		return false;
	if (p->sort.type == ITEMKEY_NONE)
		return true;
	return k->sort.type == p->sort.type &&
		k->sort.len >= p->sort.len &&
		memcmp(k->sort.bytes, p->sort.bytes, p->sort.len) == 0;
}

static void
check_pair(ItemKey *a, ItemKey *b)
{
	ItemKeyParsed pa,
				pb;
	const char *why;
	int			enc;
	int			val;

	ItemKeyDecodeOrError(a, &pa);
	ItemKeyDecodeOrError(b, &pb);
	if (pa.bound != ITEMKEY_EXACT || pb.bound != ITEMKEY_EXACT)
		return;
	(void) why;

	enc = key_cmp(a, b);
	val = value_cmp(&pa, &pb);
	fz_check(enc == val, "order: %s vs %s: encodings compare %d, values %d",
			 ItemKeyToText(a), ItemKeyToText(b), enc, val);

	/* b as a begins_with prefix (N sort prefixes are rejected by callers) */
	if (pb.sort.type != ITEMKEY_N)
	{
		bool		by_value = value_begins_with(&pa, &pb);
		bool		by_codec = KeyCodecBeginsWith(ITEMKEY_DATA(a), ITEMKEY_LEN(a),
												  ITEMKEY_DATA(b), ITEMKEY_LEN(b));
		ItemKey    *lower;
		ItemKey    *upper;
		bool		in_range;

		fz_check(by_value == by_codec,
				 "begins_with(%s, %s): values say %d, KeyCodecBeginsWith %d",
				 ItemKeyToText(a), ItemKeyToText(b), by_value, by_codec);
		KeyCodecPrefixBounds(b, &lower, &upper);
		in_range = key_cmp(a, lower) >= 0 && key_cmp(a, upper) < 0;
		fz_check(in_range == by_value,
				 "begins_with(%s, %s) is %d but the key is %s the prefix range [%s, %s)",
				 ItemKeyToText(a), ItemKeyToText(b), by_value,
				 in_range ? "inside" : "outside", hex(lower), hex(upper));
	}
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	KeyRun		run;
	ItemKey    *keys[2] = {NULL, NULL};
	const uint8_t *nul;
	int			nkeys = 0;
	size_t		start = 0;
	int			i;

	if (size > 16384)
		return -1;
	fz_input_begin();

	/* one or two keys in text form, split at the first NUL */
	for (i = 0; i < 2 && start <= size; i++)
	{
		size_t		end;

		nul = memchr(data + start, '\0', size - start);
		end = nul ? (size_t) (nul - data) : size;
		/* text input arrives verified in the database encoding */
		if (pg_verify_mbstr(PG_UTF8, (const char *) data + start, (int) (end - start), true))
		{
			memset(&run, 0, sizeof(run));
			run.text = fz_cstring(data + start, end - start);
			if (fz_call(run_text_in, &run) && check_key(run.key, "text input"))
				keys[nkeys++] = run.key;
		}
		if (nul == NULL)
			break;
		start = end + 1;
	}
	if (nkeys == 2)
	{
		check_pair(keys[0], keys[1]);
		check_pair(keys[1], keys[0]);
	}

	/* the whole input as an encoding (binary receive) */
	memset(&run, 0, sizeof(run));
	{
		uint8	   *copy = palloc(size);	/* exact size: over-reads show */

		memcpy(copy, data, size);
		run.bytes = copy;
		run.nbytes = (int) size;
	}
	if (fz_call(run_recv, &run))
		check_key(run.key, "binary input");

	fz_input_end();
	return 0;
}
