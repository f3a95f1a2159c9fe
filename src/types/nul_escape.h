/*-------------------------------------------------------------------------
 *
 * nul_escape.h
 *		U+0000 in strings stored in jsonb: the escape (nul_escape.c's essay
 *		states it and its invariants).
 *
 * Plain C (no PostgreSQL headers, no allocation): the gateway compiles
 * nul_escape.c too.  Lengths are in bytes; strings need not be
 * NUL-terminated.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_NUL_ESCAPE_H
#define ITEM_TABLE_NUL_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* the escape character and the second bytes of its two code words */
#define NUL_ESC				'\x01'
#define NUL_ESC_NUL			'\x01'	/* 01 01 = U+0000 */
#define NUL_ESC_ESC			'\x02'	/* 01 02 = U+0001 */

/* is s[i] (an escape byte) the start of a code word? */
#define NulEscapeIsWord(s, i, len) \
	((i) + 1 < (len) && ((s)[(i) + 1] == NUL_ESC_NUL || (s)[(i) + 1] == NUL_ESC_ESC))

/*
 * NulEscapeCount
 *		The number of code words in a stored string: its decoded length is
 *		len minus this (each code word of two bytes stands for one
 *		character).  Strings without the escape cost one memchr.
 */
static inline size_t
NulEscapeCount(const char *s, size_t len)
{
	const char *start = s;
	const char *end = s + len;
	size_t		n = 0;

	while (s < end && (s = memchr(s, NUL_ESC, end - s)) != NULL)
	{
		if (NulEscapeIsWord(start, (size_t) (s - start), len))
		{
			n++;
			s += 2;
		}
		else
			s++;				/* a lone escape byte is itself */
	}
	return n;
}

/* the decoded length of a stored string */
static inline size_t
NulEscapeDecodedLength(const char *s, size_t len)
{
	return len - NulEscapeCount(s, len);
}

/* does the (decoded) string need escaping: does it hold U+0000 or U+0001? */
static inline bool
NulEscapeNeeded(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL || memchr(s, NUL_ESC, len) != NULL;
}

/*
 * the value of a hexadecimal digit, or -1: the backslash-u escapes of
 * JSON and Ion text, %XX in URLs (the gateway), key text forms
 */
static inline int
NulHexDigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* is every escape byte followed by 01 or 02 (the only code words)? */
extern bool NulEscapeWellFormed(const char *s, size_t len);
/*
 * A lone escape byte (one that starts no code word: a U+0001 stored by a
 * version before the escape, or sent in a jsonb request) stands for
 * itself; NulEscapeCanonical writes the canonical stored form of such a
 * string (each lone one as 01 02) to dst, of NulEscapeCanonicalLength
 * bytes.
 */
extern size_t NulEscapeCanonicalLength(const char *s, size_t len);
extern void NulEscapeCanonical(const char *s, size_t len, char *dst);
/* the length of the encoding of a decoded string */
extern size_t NulEscapeEncodedLength(const char *s, size_t len);
/* encode len bytes of s into dst (NulEscapeEncodedLength bytes) */
extern void NulEscapeEncode(const char *s, size_t len, char *dst);
/* decode a stored string into dst (dst may be s); the new length */
extern size_t NulEscapeDecode(const char *s, size_t len, char *dst);
/* is needle (encoded) a substring of hay (encoded), at a code word boundary? */
extern bool NulEscapeContains(const char *hay, size_t hlen,
							  const char *needle, size_t nlen);

/*
 * JSON text: the strings of a JSON document carried from their JSON form
 * (\u0000 allowed) to the stored form (escaped) and back.
 *
 * NulJsonInLength is the length of the transcoded text; equal to len when
 * the text holds neither \u0000 nor \u0001 (then the text is used as it is).
 * NulJsonIn writes the transcoded text (NulJsonInLength bytes) to dst.
 * NulJsonOut decodes in place (text only shrinks) and returns the new
 * length.
 */
extern size_t NulJsonInLength(const char *json, size_t len);
extern void NulJsonIn(const char *json, size_t len, char *dst);
extern size_t NulJsonOut(char *json, size_t len);

#endif							/* ITEM_TABLE_NUL_ESCAPE_H */
