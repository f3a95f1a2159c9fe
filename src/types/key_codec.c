/*-------------------------------------------------------------------------
 *
 * key_codec.c
 *		Byte-order encoding of item_key values (see item_table.h for the
 *		layout).
 *
 * The encoding is designed for three properties, each of which the rest of
 * the extension relies on:
 *
 * 1. Order.  memcmp() of two encodings gives DynamoDB's key order.  S and B
 *	  payloads map each byte to a code word (bytes 00..07 -> 07 (b + 08),
 *	  FE -> FE 01, FF -> FE 02, every other byte to itself); the code words
 *	  are prefix-free and ordered like the bytes they stand for, and every
 *	  one begins at 07 or above.  A part therefore needs no terminator: the
 *	  tag of the next part (01..06, below every code word) or the end of
 *	  the key ends it, and a partition with no sort part sorts before every
 *	  key of that partition that has one.  Numbers are written as sign tag,
 *	  exponent byte and base-100 digit pairs (each + 1) closed by 00, all
 *	  complemented for negative numbers; with canonical digits (no leading
 *	  or trailing zeros) equal values have equal bytes.
 *
 * 2. Prefixes are kept.  Escaping is byte by byte, so the encoding of a
 *	  sort-key prefix is a byte prefix of the encoding of every key whose
 *	  sort part begins with it.  That is what makes begins_with an index
 *	  range: [prefix key, prefix key || FF) holds exactly the matching keys,
 *	  because no code word starts with FF.
 *
 * 3. One partition hashes alike.  The partition part (with the version
 *	  byte) is a prefix of the key found without decoding (a number ends at
 *	  its terminator, a string or binary at the next tag byte or the end of
 *	  the key), so the hash opclass can hash just those bytes.
 *
 * 4. Tuples keep all three.  The key of a GSI whose KeySchema has several
 *	  HASH or RANGE attributes (up to four of each) is the version byte
 *	  ITEMKEY_FORMAT_TUPLE, a byte holding the number of partition
 *	  attributes (1..4), and one part per key attribute, in the KeySchema's
 *	  order, each encoded exactly as above.  Every key of one index has the
 *	  same two leading bytes, so they change no comparison.  Because
 *	  every part is self-delimiting and is followed only by the tag of the
 *	  next part (01..05) or by the end of the key, the invariants carry
 *	  over part by part:
 *
 *	  a. Order: memcmp() of two tuples of the same key schema is the
 *		 lexicographic order of their parts, each part in DynamoDB's order
 *		 for its type.  Where two parts differ inside their payloads the
 *		 first differing byte decides; where one S/B payload is a proper
 *		 prefix of the other, the shorter is followed by a tag byte (or the
 *		 end) and the longer by a code word (07 or above), so the shorter
 *		 sorts first, as DynamoDB's byte order wants; number encodings are
 *		 prefix-free (the terminator is no digit pair), so two different
 *		 numbers differ within the shorter encoding.
 *	  b. Ranges: for the encoding E of the first k parts, every key whose
 *		 first k parts are those lies in [E, E || 06): the byte after E in
 *		 a key is a tag (01..05) and 06 (the partition-top marker) is above
 *		 them, while a key whose k-th S/B part merely begins with the k-th
 *		 payload continues with a code word, above 06.  So `=` on every
 *		 attribute used, and `<`, `<=`, `>`, `>=`, BETWEEN on the last one,
 *		 are each one range: for v the last value and P the parts before
 *		 it, `< v` is [P, P||v), `<= v` is [P, P||v||06), `> v` is
 *		 [P||v||06, P||06), `>= v` is [P||v, P||06), BETWEEN a AND b is
 *		 [P||a, P||b||06).  begins_with on the last one is property 2:
 *		 [P||tag||payload, P||tag||payload||FF).
 *	  c. Hashing: KeyCodecPartitionLength gives the header and the
 *		 partition parts (the count byte says how many), so the hash
 *		 opclass, partition_key(), parallel-scan segments and the
 *		 distribution column of a distributed index table all take every
 *		 partition attribute and only those.
 *
 *	  A tuple and a classic key never meet in one column (an index table
 *	  holds the keys of one key schema), and the version bytes keep them
 *	  apart anyway.  test/pgtap/multi_attribute_keys.sql checks (a) on
 *	  random tuples of every type mix, and test/fuzz/fuzz_key_tuple.c
 *	  fuzzes it.
 *
 * All functions take and return raw bytes; the few that allocate say so.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"

#include "item_table.h"

static int	decode_number(const uint8 *p, const uint8 *end, ItemKeyPart *part,
						  const char **why);
static int	decode_bytes(const uint8 *p, const uint8 *end, bool final,
						 ItemKeyPart *part, bool *prefix_top, const char **why);

/*
 * append_number
 *		Append the tag and payload of a number.
 */
static void
append_number(StringInfo buf, const DynNumber *num)
{
	uint8		flip;
	int			i;

	if (num->ndigits == 0)
	{
		appendStringInfoChar(buf, (char) ITEMKEY_TAG_N_ZERO);
		return;
	}
	flip = num->negative ? 0xFF : 0x00;
	appendStringInfoChar(buf, (char) (num->negative ? ITEMKEY_TAG_N_NEG :
									  ITEMKEY_TAG_N_POS));
	appendStringInfoChar(buf, (char) ((num->exponent + ITEMKEY_NUM_EXP_BIAS) ^ flip));
	for (i = 0; i < num->ndigits; i += 2)
	{
		int			pair = num->digits[i] * 10;

		if (i + 1 < num->ndigits)
			pair += num->digits[i + 1];
		appendStringInfoChar(buf, (char) ((pair + 1) ^ flip));
	}
	appendStringInfoChar(buf, (char) (ITEMKEY_NUM_TERMINATOR ^ flip));
}

/*
 * append_escaped
 *		Append the code words for len raw bytes.
 */
static void
append_escaped(StringInfo buf, const uint8 *src, int len)
{
	int			i;

	enlargeStringInfo(buf, len * 2);
	for (i = 0; i < len; i++)
	{
		uint8		c = src[i];
		char	   *out = buf->data + buf->len;

		if (c < ITEMKEY_ESC_LOW_OFFSET)
		{
			out[0] = (char) ITEMKEY_ESC_LOW;
			out[1] = (char) (c + ITEMKEY_ESC_LOW_OFFSET);
			buf->len += 2;
		}
		else if (c >= 0xFE)
		{
			out[0] = (char) ITEMKEY_ESC_HIGH;
			out[1] = (char) (c - 0xFD);	/* FE -> 01, FF -> 02 */
			buf->len += 2;
		}
		else
		{
			out[0] = (char) c;
			buf->len += 1;
		}
	}
	buf->data[buf->len] = '\0';
}

/*
 * KeyCodecAppendPart
 *		Append one part (tag and payload) to buf.  Parts need no terminator;
 *		final is kept for callers that build bounds.
 */
void
KeyCodecAppendPart(StringInfo buf, const ItemKeyPart *part, bool final)
{
	switch (part->type)
	{
		case ITEMKEY_N:
			append_number(buf, &part->num);
			break;
		case ITEMKEY_S:
		case ITEMKEY_B:
			appendStringInfoChar(buf, (char) (part->type == ITEMKEY_S ?
											  ITEMKEY_TAG_S : ITEMKEY_TAG_B));
			append_escaped(buf, (const uint8 *) part->bytes, part->len);
			break;
		case ITEMKEY_NONE:
			elog(ERROR, "cannot encode an absent item_key part");
	}
}

/*
 * KeyCodecAppendEscaped
 *		Append the code words of a raw S or B payload (no tag).
 */
void
KeyCodecAppendEscaped(StringInfo buf, const char *bytes, int len)
{
	append_escaped(buf, (const uint8 *) bytes, len);
}

/*
 * KeyCodecTupleStart, KeyCodecTupleFinish
 *		Build a tuple key (or a bound of one) in buf: Start reserves the
 *		varlena header and writes the version byte; the caller appends parts
 *		(KeyCodecAppendPart) and markers; Finish returns buf's data as the
 *		item_key (no copy).
 */
void
KeyCodecTupleStart(StringInfo buf, int nhash)
{
	Assert(nhash >= 1 && nhash <= ITEMKEY_MAX_TUPLE_PARTS / 2);
	initStringInfo(buf);
	appendBinaryStringInfo(buf, "\0\0\0\0", VARHDRSZ);
	appendStringInfoChar(buf, (char) ITEMKEY_FORMAT_TUPLE);
	appendStringInfoChar(buf, (char) nhash);
}

ItemKey *
KeyCodecTupleFinish(StringInfo buf)
{
	ItemKey    *result = (ItemKey *) buf->data;

	SET_VARSIZE(result, buf->len);
	return result;
}

/*
 * KeyCodecBuildTuple
 *		Encode a multi-attribute key from its nparts parts, the first nhash
 *		of them partition parts.  Limits are the caller's business.  Returns
 *		a palloc'd item_key.
 */
ItemKey *
KeyCodecBuildTuple(const ItemKeyPart *parts, int nhash, int nparts)
{
	StringInfoData buf;
	int			i;

	KeyCodecTupleStart(&buf, nhash);
	for (i = 0; i < nparts; i++)
		KeyCodecAppendPart(&buf, &parts[i], i == nparts - 1);
	return KeyCodecTupleFinish(&buf);
}

/*
 * KeyCodecMakeVarlena
 *		Copy len bytes into a new palloc'd item_key varlena.
 */
ItemKey *
KeyCodecMakeVarlena(const uint8 *data, int len)
{
	ItemKey    *result = (ItemKey *) palloc(VARHDRSZ + len);

	SET_VARSIZE(result, VARHDRSZ + len);
	memcpy(VARDATA(result), data, len);
	return result;
}

/*
 * KeyCodecBuild
 *		Encode a key from its parts; sort may be NULL.  Limits are the
 *		caller's business.  Returns a palloc'd item_key.
 */
ItemKey *
KeyCodecBuild(const ItemKeyPart *partition, const ItemKeyPart *sort)
{
	StringInfoData buf;
	ItemKey    *result;

	initStringInfo(&buf);
	/* reserve room for the varlena header so the bytes need no copy */
	appendBinaryStringInfo(&buf, "\0\0\0\0", VARHDRSZ);
	appendStringInfoChar(&buf, (char) ITEMKEY_FORMAT_VERSION);
	KeyCodecAppendPart(&buf, partition,
					   sort == NULL || sort->type == ITEMKEY_NONE);
	if (sort != NULL && sort->type != ITEMKEY_NONE)
		KeyCodecAppendPart(&buf, sort, true);
	result = (ItemKey *) buf.data;
	SET_VARSIZE(result, buf.len);
	return result;
}

/*
 * decode_number
 *		Decode a number part starting at its tag.  Returns the bytes used, or
 *		-1 with *why set.
 */
static int
decode_number(const uint8 *p, const uint8 *end, ItemKeyPart *part,
			  const char **why)
{
	const uint8 *start = p;
	uint8		tag = *p++;
	uint8		flip;
	int			nd = 0;
	int			npairs = 0;

	part->type = ITEMKEY_N;
	memset(&part->num, 0, sizeof(part->num));
	if (tag == ITEMKEY_TAG_N_ZERO)
		return 1;

	flip = (tag == ITEMKEY_TAG_N_NEG) ? 0xFF : 0x00;
	part->num.negative = (tag == ITEMKEY_TAG_N_NEG);
	if (p >= end)
	{
		*why = "truncated number";
		return -1;
	}
	part->num.exponent = (int16) ((*p++ ^ flip) - ITEMKEY_NUM_EXP_BIAS);
	for (;;)
	{
		uint8		b;
		int			pair;

		if (p >= end)
		{
			*why = "unterminated number";
			return -1;
		}
		b = *p++ ^ flip;
		if (b == ITEMKEY_NUM_TERMINATOR)
			break;
		if (b > 100 || npairs * 2 >= DYNNUM_MAX_DIGITS)
		{
			*why = "invalid number digits";
			return -1;
		}
		pair = b - 1;
		if (npairs == 0 && pair < 10)
		{
			*why = "number has a leading zero";
			return -1;
		}
		part->num.digits[nd++] = (uint8) (pair / 10);
		part->num.digits[nd++] = (uint8) (pair % 10);
		npairs++;
	}
	if (npairs == 0)
	{
		*why = "number has no digits";
		return -1;
	}
	/* the last pair may hold one padding zero, never two */
	if (part->num.digits[nd - 1] == 0)
	{
		nd--;
		if (part->num.digits[nd - 1] == 0)
		{
			*why = "number has trailing zeros";
			return -1;
		}
	}
	part->num.ndigits = (int8) nd;
	return (int) (p - start);
}

/*
 * decode_bytes
 *		Decode an S or B part starting at its tag, into a palloc'd raw
 *		payload.  The payload ends at the end of the data or at a tag byte
 *		(which is not consumed; only allowed when !final).  A final part may
 *		end instead with a PREFIX_TOP byte that must be the last byte
 *		(consumed, *prefix_top set).  Returns the bytes used, or -1 with *why
 *		set.
 */
static int
decode_bytes(const uint8 *p, const uint8 *end, bool final,
			 ItemKeyPart *part, bool *prefix_top, const char **why)
{
	const uint8 *start = p;
	char	   *out;
	int			n = 0;

	part->type = (*p == ITEMKEY_TAG_S) ? ITEMKEY_S : ITEMKEY_B;
	p++;
	out = palloc(end - p + 1);
	*prefix_top = false;
	while (p < end)
	{
		uint8		c = *p;

		if (ItemKeyIsTagByte(c))
		{
			if (final)
			{
				*why = "unexpected tag in the last key part";
				return -1;
			}
			break;
		}
		if (c == ITEMKEY_ESC_LOW)
		{
			if (p + 1 >= end || p[1] < ITEMKEY_ESC_LOW_OFFSET ||
				p[1] >= 2 * ITEMKEY_ESC_LOW_OFFSET)
			{
				*why = "invalid escape";
				return -1;
			}
			out[n++] = (char) (p[1] - ITEMKEY_ESC_LOW_OFFSET);
			p += 2;
			continue;
		}
		if (c == ITEMKEY_ESC_HIGH)
		{
			if (p + 1 >= end || (p[1] != 0x01 && p[1] != 0x02))
			{
				*why = "invalid escape";
				return -1;
			}
			out[n++] = (char) (p[1] + 0xFD);
			p += 2;
			continue;
		}
		if (c == ITEMKEY_PREFIX_TOP)
		{
			if (!final || p + 1 != end)
			{
				*why = "misplaced prefix bound marker";
				return -1;
			}
			*prefix_top = true;
			p++;
			break;
		}
		if (c == 0x00)
		{
			*why = "invalid byte in a key part";
			return -1;
		}
		out[n++] = (char) c;
		p++;
	}
	if (n == 0)
	{
		*why = "empty key part";
		return -1;
	}
	out[n] = '\0';
	if (part->type == ITEMKEY_S && !ItemUtf8IsValid(out, n))
	{
		*why = "string key part is not valid UTF-8";
		return -1;
	}
	part->bytes = out;
	part->len = n;
	return (int) (p - start);
}

/*
 * ItemUtf8IsValid
 *		Is s[0..len) well-formed UTF-8?  Unlike pg_verify_mbstr(), a zero byte
 *		is fine: DynamoDB strings may hold U+0000.
 */
bool
ItemUtf8IsValid(const char *s, int len)
{
	const unsigned char *p = (const unsigned char *) s;
	const unsigned char *end = p + len;

	while (p < end)
	{
		int			n;

		if (*p < 0x80)
		{
			p++;
			continue;
		}
		n = pg_utf_mblen(p);
		if (n > end - p || !pg_utf8_islegal(p, n))
			return false;
		p += n;
	}
	return true;
}

static bool
is_part_tag(uint8 tag)
{
	return tag == ITEMKEY_TAG_N_NEG || tag == ITEMKEY_TAG_N_ZERO ||
		tag == ITEMKEY_TAG_N_POS || tag == ITEMKEY_TAG_S ||
		tag == ITEMKEY_TAG_B;
}

/*
 * KeyCodecDecode
 *		Decode and fully validate an encoding.  On success fills *out (S/B
 *		payloads palloc'd) and returns true; otherwise returns false and sets
 *		*why to a short reason.
 */
bool
KeyCodecDecode(const uint8 *data, int len, ItemKeyParsed *out,
			   const char **why)
{
	const uint8 *p = data;
	const uint8 *end = data + len;
	bool		prefix_top = false;
	int			used;

	memset(out, 0, sizeof(*out));
	if (len < 2)
	{
		*why = "too short";
		return false;
	}
	if (*p++ != ITEMKEY_FORMAT_VERSION)
	{
		*why = "unknown format version";
		return false;
	}
	if (!is_part_tag(*p))
	{
		*why = "invalid partition part type";
		return false;
	}

	/* partition part: it ends at the first tag byte or the end */
	if (*p == ITEMKEY_TAG_S || *p == ITEMKEY_TAG_B)
	{
		used = decode_bytes(p, end, false, &out->partition, &prefix_top, why);
		if (used < 0)
			return false;
		p += used;
	}
	else
	{
		used = decode_number(p, end, &out->partition, why);
		if (used < 0)
			return false;
		p += used;
	}
	if ((out->partition.type == ITEMKEY_S || out->partition.type == ITEMKEY_B) &&
		out->partition.len > ITEMKEY_MAX_PARTITION_BYTES)
	{
		*why = "partition part too long";
		return false;
	}

	if (p == end)
		return true;

	/* partition-top bound */
	if (*p == ITEMKEY_TAG_PARTITION_TOP)
	{
		if (p + 1 != end)
		{
			*why = "data after partition bound";
			return false;
		}
		out->bound = ITEMKEY_BOUND_PARTITION_TOP;
		return true;
	}

	/* sort part */
	if (!is_part_tag(*p))
	{
		*why = "invalid sort part type";
		return false;
	}
	if (*p == ITEMKEY_TAG_S || *p == ITEMKEY_TAG_B)
	{
		used = decode_bytes(p, end, true, &out->sort, &prefix_top, why);
		if (used < 0)
			return false;
		if (prefix_top)
			out->bound = ITEMKEY_BOUND_PREFIX_TOP;
		if (out->sort.len > ITEMKEY_MAX_SORT_BYTES)
		{
			*why = "sort part too long";
			return false;
		}
	}
	else
	{
		used = decode_number(p, end, &out->sort, why);
		if (used < 0)
			return false;
	}
	if (p + used != end)
	{
		*why = "trailing bytes";
		return false;
	}
	return true;
}

/*
 * KeyCodecDecodeTuple
 *		Decode and validate a tuple key (ITEMKEY_FORMAT_TUPLE) or a bound of
 *		one: parts, then at most one marker, the top marker (06) after a
 *		complete part or the prefix marker (FF) ending the last S/B payload.
 *		Returns false with *why set when data is not one.
 */
bool
KeyCodecDecodeTuple(const uint8 *data, int len, ItemKeyTuple *out,
					const char **why)
{
	const uint8 *p = data;
	const uint8 *end = data + len;

	memset(out, 0, sizeof(*out));
	if (len < 2)
	{
		*why = "too short";
		return false;
	}
	if (*p++ != ITEMKEY_FORMAT_TUPLE)
	{
		*why = "not a multi-attribute key";
		return false;
	}
	out->nhash = *p++;
	if (out->nhash < 1 || out->nhash > ITEMKEY_MAX_TUPLE_PARTS / 2)
	{
		*why = "invalid number of partition parts";
		return false;
	}
	while (p < end)
	{
		ItemKeyPart *part;
		int			used;

		if (*p == ITEMKEY_TAG_PARTITION_TOP && out->nparts >= out->nhash)
		{
			if (p + 1 != end)
			{
				*why = "data after the top marker";
				return false;
			}
			out->bound = ITEMKEY_BOUND_PARTITION_TOP;
			break;
		}
		if (!is_part_tag(*p))
		{
			*why = "invalid key part type";
			return false;
		}
		if (out->nparts >= ITEMKEY_MAX_TUPLE_PARTS)
		{
			*why = "too many key parts";
			return false;
		}
		part = &out->parts[out->nparts++];
		if (*p == ITEMKEY_TAG_S || *p == ITEMKEY_TAG_B)
		{
			bool		prefix_top = false;
			const uint8 *q;
			bool		last;

			/* is this the last part?  (a prefix marker may only end it) */
			for (q = p + 1; q < end && !ItemKeyIsTagByte(*q); q++)
			{
				if (*q == ITEMKEY_ESC_LOW || *q == ITEMKEY_ESC_HIGH)
					q++;
			}
			last = q >= end;
			used = decode_bytes(p, last ? end : q, true, part, &prefix_top, why);
			if (used < 0)
				return false;
			if (prefix_top && !last)
			{
				*why = "misplaced prefix bound marker";
				return false;
			}
			if (prefix_top)
				out->bound = ITEMKEY_BOUND_PREFIX_TOP;
			if (part->len > ITEMKEY_MAX_PARTITION_BYTES)
			{
				*why = "key part too long";
				return false;
			}
		}
		else
		{
			used = decode_number(p, end, part, why);
			if (used < 0)
				return false;
		}
		p += used;
	}
	if (out->nparts < out->nhash ||
		(out->bound == ITEMKEY_BOUND_PREFIX_TOP && out->nparts == out->nhash))
	{
		*why = "missing partition parts";
		return false;
	}
	if (out->nparts - out->nhash > ITEMKEY_MAX_TUPLE_PARTS / 2)
	{
		*why = "too many sort parts";
		return false;
	}
	return true;
}

/*
 * skip_part
 *		The length of the part starting at data[i] (a tag), without
 *		validation: a number ends at its terminator, S or B at the next tag
 *		byte (skipping two-byte code words) or the end.
 */
static int
skip_part(const uint8 *data, int i, int len)
{
	int			j;

	switch (data[i])
	{
		case ITEMKEY_TAG_N_ZERO:
			return 1;
		case ITEMKEY_TAG_N_POS:
		case ITEMKEY_TAG_N_NEG:
			{
				uint8		term = (data[i] == ITEMKEY_TAG_N_NEG) ? 0xFF : 0x00;

				for (j = i + 2; j < len; j++)
				{
					if (data[j] == term)
						return j + 1 - i;
				}
				return len - i;
			}
		default:
			for (j = i + 1; j < len; j++)
			{
				if (data[j] == ITEMKEY_ESC_LOW || data[j] == ITEMKEY_ESC_HIGH)
					j++;
				else if (ItemKeyIsTagByte(data[j]))
					return j - i;
			}
			return Max(len - i, 0);
	}
}

/*
 * KeyCodecPartitionLength
 *		Number of leading bytes (version byte, partition tag and payload)
 *		that identify the key's partition.  No allocation, no
 *		validation: garbage in gives a length within [0, len].
 */
int
KeyCodecPartitionLength(const uint8 *data, int len)
{
	int			i;

	if (len < 2)
		return len;
	if (data[0] == ITEMKEY_FORMAT_TUPLE)
	{
		/* the header and data[1] partition parts */
		int			at = 2;
		int			k;

		for (k = 0; k < data[1] && at < len; k++)
			at += skip_part(data, at, len);
		return Min(at, len);
	}
	switch (data[1])
	{
		case ITEMKEY_TAG_N_ZERO:
			return 2;
		case ITEMKEY_TAG_N_POS:
		case ITEMKEY_TAG_N_NEG:
			{
				uint8		term = (data[1] == ITEMKEY_TAG_N_NEG) ? 0xFF : 0x00;

				/* skip the exponent byte, then find the terminator */
				for (i = 3; i < len; i++)
				{
					if (data[i] == term)
						return i + 1;
				}
				return len;
			}
		default:
			/* S/B: up to the first tag byte, skipping two-byte code words */
			for (i = 2; i < len; i++)
			{
				if (data[i] == ITEMKEY_ESC_LOW || data[i] == ITEMKEY_ESC_HIGH)
					i++;
				else if (ItemKeyIsTagByte(data[i]))
					return i;
			}
			return len;
	}
}

/*
 * KeyCodecSortPayloadOffset
 *		Offset of the sort part's tag, or -1 when the key has none.
 */
int
KeyCodecSortPayloadOffset(const uint8 *data, int len)
{
	int			plen = KeyCodecPartitionLength(data, len);

	if (plen >= len || data[plen] == ITEMKEY_TAG_PARTITION_TOP)
		return -1;
	return plen;
}

/*
 * KeyCodecBeginsWith
 *		Does key fall under prefix?  prefix is a real key: with no sort part
 *		it stands for its whole partition; with an S or B sort part, for the
 *		keys of that partition whose sort part (same type) begins with it.
 *		The caller rejects N sort prefixes.
 */
bool
KeyCodecBeginsWith(const uint8 *key, int keylen,
				   const uint8 *prefix, int prefixlen)
{
	if (KeyCodecSortPayloadOffset(prefix, prefixlen) < 0)
	{
		/* partition match: identical partition bytes */
		int			kp = KeyCodecPartitionLength(key, keylen);

		return kp == prefixlen && memcmp(key, prefix, prefixlen) == 0;
	}
	return keylen >= prefixlen && memcmp(key, prefix, prefixlen) == 0;
}

/*
 * KeyCodecPrefixBounds
 *		The index range [*lower, *upper) holding exactly the keys that begin
 *		with prefix (see KeyCodecBeginsWith).  Both results are palloc'd.
 */
void
KeyCodecPrefixBounds(const ItemKey *prefix, ItemKey **lower, ItemKey **upper)
{
	const uint8 *data = ITEMKEY_DATA(prefix);
	int			len = ITEMKEY_LEN(prefix);
	ItemKey    *up;
	uint8	   *p;

	*lower = KeyCodecMakeVarlena(data, len);

	up = (ItemKey *) palloc(VARHDRSZ + len + 1);
	p = (uint8 *) VARDATA(up);
	memcpy(p, data, len);
	if (KeyCodecSortPayloadOffset(data, len) >= 0)
		p[len++] = ITEMKEY_PREFIX_TOP;
	else
		p[len++] = ITEMKEY_TAG_PARTITION_TOP;
	SET_VARSIZE(up, VARHDRSZ + len);
	*upper = up;
}
