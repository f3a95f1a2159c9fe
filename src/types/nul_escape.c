/*-------------------------------------------------------------------------
 *
 * nul_escape.c
 *		U+0000 in strings: how item_table stores a character that jsonb
 *		cannot hold.
 *
 * DynamoDB strings (values, set members, map keys, attribute names) may
 * contain U+0000; a jsonb string may not.  Items are stored as jsonb, so
 * every string inside item_table (in a stored item, in a request once it
 * is jsonb, in a response until it leaves as text) is held in an escaped
 * form, the "stored form":
 *
 *		U+0000			->	01 01
 *		U+0001			->	01 02
 *		any other byte	->	itself
 *
 * U+0001 is the escape character; 01 01 and 01 02 are its only code words.
 * Invariants, and what relies on them:
 *
 *	  - A string holding neither U+0000 nor U+0001 is stored unchanged: the
 *		common case costs nothing but the scans that look for the escape.
 *	  - The encoding is a bijection onto the well-formed stored strings
 *		(every 01 followed by 01 or 02), so two values are equal exactly
 *		when their stored forms are, and jsonb's own equality and key order
 *		of map members stay right.  A lone 01 (one that starts no code
 *		word: a U+0001 stored before this form existed, or sent in a jsonb
 *		request) stands for itself; AttrValueFromJsonb rewrites it as 01 02
 *		(NulEscapeCanonical), so every parsed value, and every item written
 *		since, is well-formed, and an older stored item still reads as it
 *		did (its key, made from the raw string, is the decoded one).
 *	  - Byte order is kept: the code words are ordered as the characters
 *		they stand for (00 < 01 < everything else), and no code word is a
 *		prefix of another, so memcmp of two stored forms orders them as
 *		memcmp of the strings.  Comparisons (<, BETWEEN, set order) work on
 *		the stored form as it is.
 *	  - Prefixes map to prefixes: begins_with works on the stored form.
 *	  - Substrings do not: 01 02 (U+0001) "contains" 02 (U+0002).  A match
 *		counts only where it starts at a code word boundary
 *		(NulEscapeContains); a match that starts there also ends at one.
 *	  - Lengths: the decoded length is the stored length minus the number
 *		of escape bytes (NulEscapeCount).  Item sizes, key size limits,
 *		name length limits and size() count decoded bytes (U+0000 is one
 *		byte of UTF-8, as DynamoDB counts it).
 *	  - item_key holds decoded strings (the key order DynamoDB defines);
 *		a key part is decoded when a key is made from an attribute value
 *		(AttrKeyPart, ItemKeyPartFromAttributeValue) and encoded when it
 *		becomes one again (ItemKeyPartPush).  Because both orders agree, a
 *		stored value compares with a key bound as its key does.
 *
 * The boundaries.  JSON text carries U+0000 as \u0000; the transcoders
 * below carry JSON text to the stored form before it becomes jsonb
 * (\u0000 -> \u0001\u0001, \u0001 -> \u0001\u0002) and back after a jsonb
 * is written out as text (jsonb writes U+0001 as \u0001).  They look only
 * at backslashes (one memchr between two of them), so a body without
 * escapes is scanned once and used as it is.  The gateway transcodes every
 * request body and every answer; SQL callers use dynamodb_json(), and read
 * stored items with decode_item() (docs/api.md).
 *
 * Plain C, no allocation: the gateway compiles this file as well.
 *
 *-------------------------------------------------------------------------
 */
#include "nul_escape.h"

bool
NulEscapeWellFormed(const char *s, size_t len)
{
	const char *start = s;
	const char *end = s + len;

	while (s < end && (s = memchr(s, NUL_ESC, end - s)) != NULL)
	{
		if (!NulEscapeIsWord(start, (size_t) (s - start), len))
			return false;
		s += 2;
	}
	return true;
}

size_t
NulEscapeCanonicalLength(const char *s, size_t len)
{
	size_t		n = len;
	size_t		i;

	for (i = 0; i < len; i++)
	{
		if (s[i] != NUL_ESC)
			continue;
		if (NulEscapeIsWord(s, i, len))
			i++;
		else
			n++;
	}
	return n;
}

void
NulEscapeCanonical(const char *s, size_t len, char *dst)
{
	size_t		i;

	for (i = 0; i < len; i++)
	{
		*dst++ = s[i];
		if (s[i] != NUL_ESC)
			continue;
		if (NulEscapeIsWord(s, i, len))
			*dst++ = s[++i];
		else
			*dst++ = NUL_ESC_ESC;
	}
}

size_t
NulEscapeEncodedLength(const char *s, size_t len)
{
	size_t		n = len;
	size_t		i;

	for (i = 0; i < len; i++)
		if (s[i] == '\0' || s[i] == NUL_ESC)
			n++;
	return n;
}

void
NulEscapeEncode(const char *s, size_t len, char *dst)
{
	size_t		i;

	for (i = 0; i < len; i++)
	{
		if (s[i] == '\0')
		{
			*dst++ = NUL_ESC;
			*dst++ = NUL_ESC_NUL;
		}
		else if (s[i] == NUL_ESC)
		{
			*dst++ = NUL_ESC;
			*dst++ = NUL_ESC_ESC;
		}
		else
			*dst++ = s[i];
	}
}

size_t
NulEscapeDecode(const char *s, size_t len, char *dst)
{
	char	   *start = dst;
	size_t		i;

	for (i = 0; i < len; i++)
	{
		if (s[i] == NUL_ESC && NulEscapeIsWord(s, i, len))
		{
			*dst++ = (s[i + 1] == NUL_ESC_NUL) ? '\0' : NUL_ESC;
			i++;
		}
		else
			*dst++ = s[i];		/* a lone escape byte too */
	}
	return dst - start;
}

bool
NulEscapeContains(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
	size_t		i;

	if (nlen == 0)
		return true;
	for (i = 0; i + nlen <= hlen; i += (hay[i] == NUL_ESC && NulEscapeIsWord(hay, i, hlen)) ? 2 : 1)
	{
		if (hay[i] == needle[0] && memcmp(hay + i, needle, nlen) == 0)
			return true;
	}
	return false;
}

/* ----------------------------------------------------------------
 * JSON text
 * ----------------------------------------------------------------
 */

/*
 * next_escape
 *		The next escape \u0000 or \u0001 at or after p (which must not be
 *		inside an escape), or NULL; *which is its last digit.  Every escape
 *		starts with a backslash and is at least two characters, so skipping
 *		two at each other backslash keeps p off the escaped ones ("\\").
 */
static const char *
next_escape(const char *p, const char *end, char *which)
{
	while (p < end && (p = memchr(p, '\\', end - p)) != NULL)
	{
		if (end - p >= 6 && p[1] == 'u' && p[2] == '0' && p[3] == '0' &&
			p[4] == '0' && (p[5] == '0' || p[5] == '1'))
		{
			*which = p[5];
			return p;
		}
		p += 2;
	}
	return NULL;
}

size_t
NulJsonInLength(const char *json, size_t len)
{
	const char *end = json + len;
	const char *p = json;
	size_t		n = len;
	char		which;

	while ((p = next_escape(p, end, &which)) != NULL)
	{
		n += 6;					/* one escape becomes two */
		p += 6;
	}
	return n;
}

void
NulJsonIn(const char *json, size_t len, char *dst)
{
	const char *end = json + len;
	const char *p = json;
	const char *q;
	char		which;

	while ((q = next_escape(p, end, &which)) != NULL)
	{
		memcpy(dst, p, q - p);
		dst += q - p;
		memcpy(dst, which == '0' ? "\\u0001\\u0001" : "\\u0001\\u0002", 12);
		dst += 12;
		p = q + 6;
	}
	memcpy(dst, p, end - p);
}

size_t
NulJsonOut(char *json, size_t len)
{
	const char *end = json + len;
	const char *p = json;
	const char *q;
	char	   *w = json;
	char		which;

	while ((q = next_escape(p, end, &which)) != NULL)
	{
		/* an escape character followed by a second code word byte */
		if (which == '1' && end - q >= 12 &&
			memcmp(q + 6, "\\u000", 5) == 0 && (q[11] == '1' || q[11] == '2'))
		{
			if (w != p)
				memmove(w, p, q - p);
			w += q - p;
			memcpy(w, q[11] == '1' ? "\\u0000" : "\\u0001", 6);
			w += 6;
			p = q + 12;
		}
		else
		{
			/* anything else is left as it is */
			q += 6;
			if (w != p)
				memmove(w, p, q - p);
			w += q - p;
			p = q;
		}
	}
	if (w != p)
		memmove(w, p, end - p);
	w += end - p;
	return w - json;
}
