/*-------------------------------------------------------------------------
 *
 * http1.c
 *		The event-loop engine's HTTP/1.1 reader (RFC 9112): a request's head
 *		(request line and header fields) parsed in place in the connection's
 *		input buffer, and the chunked coding of a body.  loop.c owns the
 *		buffers and the connection; nothing here reads a socket.
 *
 * What it takes, and what it refuses (with the status loop.c answers
 * before closing the connection):
 *
 *	- a request line "METHOD SP TARGET SP HTTP/1.x" (400 if malformed, 505
 *	  for another version); empty lines before it are skipped, as RFC 9112
 *	  section 2.2 allows; the target is an origin form ("/path?query"), its
 *	  path and query arguments percent-decoded in place, as libmicrohttpd
 *	  hands them to the other engine;
 *	- header fields "name: value", the value trimmed of blanks; a line
 *	  without a colon, a blank before the colon, or a continuation line
 *	  (obsolete folding) is a 400;
 *	- Content-Length must be digits only, else 400 (a list, a sign, empty);
 *	  the framing rules themselves (two lengths that differ, a length with
 *	  Transfer-Encoding, ...) are request.c's GwFramingCheck, fed here with
 *	  every field;
 *	- HTTP/1.1 without Host is a 400, as libmicrohttpd answers;
 *	- a NUL byte anywhere in the head is a 400 (RFC 9110 section 5.5: a
 *	  field value may not hold one).
 *
 *-------------------------------------------------------------------------
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http1.h"
#include "../src/types/nul_escape.h"

/* %XX escapes decoded in place (never longer), NUL-terminated */
static void
unescape(char *s)
{
	char	   *o = s;

	for (; *s; s++)
	{
		if (*s == '%' && NulHexDigit(s[1]) >= 0 && NulHexDigit(s[2]) >= 0)
		{
			*o++ = (char) (NulHexDigit(s[1]) * 16 + NulHexDigit(s[2]));
			s += 2;
		}
		else
			*o++ = *s;
	}
	*o = '\0';
}

/* the query's arguments, "a=1&b", decoded in place */
static void
parse_query(char *q, H1Head *h)
{
	while (*q)
	{
		char	   *amp = strchr(q, '&');
		char	   *eq;

		if (amp)
			*amp = '\0';
		if (*q)
		{
			eq = strchr(q, '=');
			if (eq)
				*eq = '\0';
			if (h->nargs < H1_MAX_PAIRS)
			{
				unescape(q);
				if (eq)
					unescape(eq + 1);
				h->args[h->nargs].name = q;
				h->args[h->nargs].value = eq ? eq + 1 : "";
				h->nargs++;
			}
			else
				h->args_overflow = true;
		}
		if (amp == NULL)
			break;
		q = amp + 1;
	}
}

/* a token of the connection header's list (case-insensitive) */
static bool
has_token(const char *list, const char *token)
{
	size_t		tl = strlen(token);

	while (*list)
	{
		size_t		n;

		while (*list == ' ' || *list == '\t' || *list == ',')
			list++;
		n = strcspn(list, ",");
		while (n > 0 && (list[n - 1] == ' ' || list[n - 1] == '\t'))
			n--;
		if (n == tl && strncasecmp(list, token, tl) == 0)
			return true;
		list += strcspn(list, ",");
	}
	return false;
}

/*
 * Where the head starting at buf ends (just past its empty line), or 0 if
 * it has not all arrived.  *skip: how many empty lines come first.
 */
size_t
H1HeadEnd(const char *buf, size_t len, size_t *skip)
{
	size_t		s = 0;
	const char *p;

	while (s + 1 < len && buf[s] == '\r' && buf[s + 1] == '\n')
		s += 2;
	*skip = s;
	if (s >= len)
		return 0;
	/* the first CR LF CR LF, found from its LFs (memchr's fast scan) */
	for (p = buf + s + 1; p < buf + len && (p = memchr(p, '\n', (size_t) (buf + len - p))) != NULL; p++)
		if (p[-1] == '\r' && p + 2 < buf + len && p[1] == '\r' && p[2] == '\n')
			return (size_t) (p - buf) + 3;
	return 0;
}

/* is c one of RFC 9110's token characters (a method's)? */
static inline bool
is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		(c != '\0' && strchr("-_!#$%&'*+.^`|~", c) != NULL);
}

/*
 * What stops each scan of H1ParseHead: the request line's at a space, CR
 * or NUL; a field name's at a colon, CR or NUL; a field value's at a
 * blank, CR, NUL, another control byte or DEL (which a value may not
 * hold).  A table, so that the bytes in between cost one look each.
 */
#define F_LINE 1
#define F_NAME 2
#define F_VALUE 4
static const unsigned char byte_flags[256] = {
	[0] = F_LINE | F_NAME | F_VALUE,
	[1 ... 8] = F_VALUE,
	['\t'] = F_VALUE,
	[10 ... 12] = F_VALUE,
	['\r'] = F_LINE | F_NAME | F_VALUE,
	[14 ... 31] = F_VALUE,
	[' '] = F_LINE | F_VALUE,
	[':'] = F_NAME,
	[127] = F_VALUE,
};

/* does the n-byte name equal lower (lower case, n bytes) in any case? */
static inline bool
name_eq(const char *name, size_t n, const char *lower, size_t ln)
{
	return n == ln && strncasecmp(name, lower, n) == 0;
}

/*
 * Parse the head buf[skip, end) in place (end from H1HeadEnd).  Returns 0,
 * or the status of the answer to a head that cannot be read.
 *
 * One pass: each byte of the head is looked at once (the request line's
 * while finding its spaces and its end, a field's name while finding its
 * colon, its value while checking its bytes and finding its end), and the
 * field names that matter are told apart by their length first.  A line
 * ends at CR LF; a NUL anywhere in the head is a 400.
 */
unsigned
H1ParseHead(char *buf, size_t skip, size_t end, H1Head *h, GwFraming *f)
{
	char	   *p = buf + skip;
	char	   *last = buf + end - 2;	/* the empty line's CR */
	char	   *sp1 = NULL,
			   *sp2 = NULL,
			   *q;
	bool		spaces3 = false,
				host = false;
	const char *conn = NULL;

	memset(h, 0, offsetof(H1Head, headers));
	h->nheaders = 0;
	h->headers_overflow = false;
	h->nargs = 0;
	h->args_overflow = false;
	memset(f, 0, sizeof(*f));
	*last = '\0';

	/* the request line: METHOD SP TARGET SP VERSION CR LF */
	for (q = p;; q++)
	{
		while (!(byte_flags[(unsigned char) *q] & F_LINE))
			q++;
		if (*q == ' ')
		{
			if (sp1 == NULL)
				sp1 = q;
			else if (sp2 == NULL)
				sp2 = q;
			else
				spaces3 = true;
		}
		else if (*q == '\r')
		{
			if (q[1] == '\n')
				break;
		}
		else
			return 400;			/* a NUL */
	}
	*q = '\0';
	if (sp1 == NULL || sp1 == p || sp2 == NULL || sp2 == sp1 + 1 || spaces3)
		return 400;
	*sp1 = '\0';
	*sp2 = '\0';
	h->method = p;
	for (; p < sp1; p++)
		if (!is_tchar((unsigned char) *p))
			return 400;
	if (q - (sp2 + 1) == 8 && memcmp(sp2 + 1, "HTTP/1.1", 8) == 0)
		h->http10 = false;
	else if (q - (sp2 + 1) == 8 && memcmp(sp2 + 1, "HTTP/1.0", 8) == 0)
		h->http10 = true;
	else if (strncmp(sp2 + 1, "HTTP/", 5) == 0)
		return 505;
	else
		return 400;
	h->path = sp1 + 1;
	for (p = h->path; p < sp2; p++)
		if ((unsigned char) *p <= 0x20 || *p == 0x7f)
			return 400;
	p = q + 2;					/* the first field */
	q = memchr(h->path, '?', (size_t) (sp2 - h->path));
	if (q)
	{
		*q = '\0';
		parse_query(q + 1, h);
	}
	unescape(h->path);

	/* the fields: NAME ":" OWS VALUE OWS CR LF */
	while (p < last)
	{
		char	   *name = p,
				   *v,
				   *ve;
		size_t		n;

		if (*p == ' ' || *p == '\t')
			return 400;			/* obsolete line folding */
		for (;; p++)
		{
			while (!(byte_flags[(unsigned char) *p] & F_NAME))
				p++;
			if (*p == ':')
				break;
			if (*p == '\0' || p[1] == '\n')
				return 400;		/* no colon (or a NUL) */
		}
		if (p == name || p[-1] == ' ' || p[-1] == '\t')
			return 400;
		n = (size_t) (p - name);
		*p++ = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		v = ve = p;
		for (;;)
		{
			char	   *run = p;

			while (!(byte_flags[(unsigned char) *p] & F_VALUE))
				p++;
			if (p > run)
				ve = p;
			if (*p == ' ' || *p == '\t')
				p++;
			else if ((*p == '\r' && p[1] == '\n') || (*p == '\0' && p == last))
				break;
			else
				return 400;		/* a control byte, DEL, NUL or lone CR */
		}
		*ve = '\0';
		p += 2;					/* past CR LF (or the end) */

		switch (n)
		{
			case 14:
				GwFramingAdd(f, name, v);
				if (name_eq(name, n, "content-length", 14))
				{
					if (*v == '\0' || strspn(v, "0123456789") != (size_t) (ve - v))
						return 400;
				}
				break;
			case 17:
				GwFramingAdd(f, name, v);
				break;
			case 4:
				if (name_eq(name, n, "host", 4))
					host = true;
				break;
			case 10:
				if (name_eq(name, n, "connection", 10))
				{
					if (conn == NULL)
						conn = v;
					if (has_token(v, "close"))
						h->close = true;
					if (has_token(v, "keep-alive"))
						h->keep_alive = true;
				}
				break;
			case 6:
				if (name_eq(name, n, "expect", 6) && strcasecmp(v, "100-continue") == 0)
					h->expect_continue = true;
				break;
		}

		if (h->nheaders < H1_MAX_PAIRS)
		{
			h->headers[h->nheaders].name = name;
			h->headers[h->nheaders].value = v;
			h->nheaders++;
		}
		else
			h->headers_overflow = true;
	}
	if (!h->http10 && !host)
		return 400;
	/* HTTP/1.0 keeps the connection only when asked; 1.1 unless asked not to */
	if (h->http10)
		h->close = h->close || !h->keep_alive;
	return 0;
}

/* the first field of that name, or NULL */
const char *
H1Header(const H1Head *h, const char *name)
{
	int			i;

	for (i = 0; i < h->nheaders; i++)
		if (((h->headers[i].name[0] ^ name[0]) & ~0x20) == 0 &&
			strcasecmp(h->headers[i].name, name) == 0)
			return h->headers[i].value;
	return NULL;
}

/*
 * Read chunked framing from buf[0, len): the body's bytes are passed to
 * data(); returns how many bytes were used (the rest waits for more), and
 * sets *status to 400 for a framing that cannot be read, *done once the
 * last chunk and the trailer are in.
 */
size_t
H1Chunked(H1Chunks *st, const char *buf, size_t len,
		  bool (*data) (void *cls, const char *p, size_t n), void *cls,
		  unsigned *status, bool *done)
{
	size_t		pos = 0;

	*status = 0;
	*done = false;
	while (pos < len)
	{
		const char *nl;
		size_t		n;

		switch (st->state)
		{
			case H1_CHUNK_SIZE:
				nl = memchr(buf + pos, '\n', len - pos);
				if (nl == NULL)
				{
					if (len - pos > 1024)
						*status = 400;
					return pos;
				}
				{
					const char *p = buf + pos;
					uint64_t	size = 0;
					int			digits = 0;

					while (NulHexDigit(*p) >= 0)
					{
						if (size > (UINT64_C(1) << 40))
						{
							*status = 400;
							return pos;
						}
						size = size * 16 + (uint64_t) NulHexDigit(*p++);
						digits++;
					}
					if (digits == 0 || (*p != ';' && *p != '\r' && *p != ' ' && *p != '\t') ||
						nl == buf + pos || nl[-1] != '\r')
					{
						*status = 400;
						return pos;
					}
					st->left = size;
					st->state = size == 0 ? H1_CHUNK_TRAILER : H1_CHUNK_DATA;
				}
				pos = (size_t) (nl - buf) + 1;
				break;
			case H1_CHUNK_DATA:
				n = len - pos;
				if (n > st->left)
					n = (size_t) st->left;
				if (!data(cls, buf + pos, n))
				{
					*status = 500;
					return pos;
				}
				pos += n;
				st->left -= n;
				if (st->left == 0)
					st->state = H1_CHUNK_DATA_END;
				break;
			case H1_CHUNK_DATA_END:
				if (len - pos < 2)
					return pos;
				if (buf[pos] != '\r' || buf[pos + 1] != '\n')
				{
					*status = 400;
					return pos;
				}
				pos += 2;
				st->state = H1_CHUNK_SIZE;
				break;
			case H1_CHUNK_TRAILER:
				/* trailer fields, ignored, up to an empty line */
				nl = memchr(buf + pos, '\n', len - pos);
				if (nl == NULL)
				{
					if (len - pos > 8192)
						*status = 400;
					return pos;
				}
				n = (size_t) (nl - (buf + pos));
				pos += n + 1;
				if (n == 0 || (n == 1 && buf[pos - 2] == '\r'))
				{
					st->state = H1_CHUNK_SIZE;
					*done = true;
					return pos;
				}
				break;
		}
	}
	return pos;
}
