/*-------------------------------------------------------------------------
 *
 * key_io.c
 *		item_key text and binary I/O, constructors from DynamoDB attribute
 *		values, and accessors returning them.
 *
 * Text form:
 *
 *	  key	 := part [ '|' ( part [ '~' ] | '~' ) ]
 *	  part	 := 'S' string | 'N' number | 'B' string
 *
 * S strings are double-quoted with JSON escapes (\" \\ \/ \b \f \n \r \t
 * \uXXXX, surrogate pairs for code points above U+FFFF, \u0000 allowed);
 * B strings hold padded standard base64; numbers are written bare (N42) or
 * quoted (N"1e3") and always printed canonically.  Whitespace is allowed
 * between tokens.  The '~' forms are the index-range bounds described in
 * item_table.h; they are printed so that EXPLAIN shows begins_with ranges,
 * and read back so that the output always round-trips.
 *
 * Output escapes only what it must: quotes, backslashes and control
 * characters; other characters are printed as themselves in a UTF-8
 * database (as \u escapes otherwise).
 *
 * Limits are DynamoDB's: partition part 1..2048 bytes, sort part 1..1024
 * bytes (UTF-8 bytes for S, raw bytes for B), numbers per dnumber.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "item_table.h"
#include "nul_escape.h"

PG_FUNCTION_INFO_V1(item_key_in);
PG_FUNCTION_INFO_V1(item_key_out);
PG_FUNCTION_INFO_V1(item_key_recv);
PG_FUNCTION_INFO_V1(item_key_send);
PG_FUNCTION_INFO_V1(item_key_from_values);
PG_FUNCTION_INFO_V1(item_key_partition_value);
PG_FUNCTION_INFO_V1(item_key_sort_value);
PG_FUNCTION_INFO_V1(item_key_partition_key);

/* ----------------------------------------------------------------
 * base64 (padded, standard alphabet), strict as DynamoDB is
 * ----------------------------------------------------------------
 */
static const char b64_alphabet[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/*
 * ItemBase64Encode
 *		Encode len bytes; returns a palloc'd NUL-terminated string.
 */
char *
ItemBase64Encode(const uint8 *src, int len)
{
	char	   *out = palloc(((len + 2) / 3) * 4 + 1);
	char	   *p = out;
	int			i;

	for (i = 0; i + 2 < len; i += 3)
	{
		uint32		v = (src[i] << 16) | (src[i + 1] << 8) | src[i + 2];

		*p++ = b64_alphabet[(v >> 18) & 63];
		*p++ = b64_alphabet[(v >> 12) & 63];
		*p++ = b64_alphabet[(v >> 6) & 63];
		*p++ = b64_alphabet[v & 63];
	}
	if (i < len)
	{
		uint32		v = src[i] << 16;

		if (i + 1 < len)
			v |= src[i + 1] << 8;
		*p++ = b64_alphabet[(v >> 18) & 63];
		*p++ = b64_alphabet[(v >> 12) & 63];
		*p++ = (i + 1 < len) ? b64_alphabet[(v >> 6) & 63] : '=';
		*p++ = '=';
	}
	*p = '\0';
	return out;
}

static int
b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * ItemBase64Decode
 *		Decode len characters of padded standard base64 into a palloc'd
 *		buffer; returns false on any malformation (length not a multiple of
 *		4, foreign characters, misplaced padding).
 */
bool
ItemBase64Decode(const char *src, int len, uint8 **out, int *outlen)
{
	uint8	   *buf;
	int			n = 0;
	int			i;

	if (len % 4 != 0)
		return false;
	buf = palloc(len / 4 * 3 + 1);
	for (i = 0; i < len; i += 4)
	{
		int			v[4];
		int			j;
		int			pad = 0;

		for (j = 0; j < 4; j++)
		{
			char		c = src[i + j];

			if (c == '=' && i + 4 == len && j >= 2)
			{
				/* padding only at the very end, and no data after it */
				v[j] = 0;
				pad++;
				continue;
			}
			if (pad > 0)
				return false;
			v[j] = b64_value(c);
			if (v[j] < 0)
				return false;
		}
		buf[n++] = (uint8) ((v[0] << 2) | (v[1] >> 4));
		if (pad < 2)
			buf[n++] = (uint8) (((v[1] & 15) << 4) | (v[2] >> 2));
		if (pad < 1)
			buf[n++] = (uint8) (((v[2] & 3) << 6) | v[3]);
	}
	*out = buf;
	*outlen = n;
	return true;
}

/* ----------------------------------------------------------------
 * checks shared by every way of making a key
 * ----------------------------------------------------------------
 */

/*
 * check_part_limits
 *		Reject an empty or over-long S/B part.  Returns false (after a soft
 *		error) when the part is unacceptable.
 */
static bool
check_part_limits(const ItemKeyPart *part, bool is_sort, Node *escontext)
{
	int			limit = is_sort ? ITEMKEY_MAX_SORT_BYTES : ITEMKEY_MAX_PARTITION_BYTES;

	if (part->type == ITEMKEY_N)
		return true;
	if (part->len == 0)
		ereturn(escontext, false,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("item_key %s part must not be empty",
						is_sort ? "sort" : "partition"),
				 errdetail("DynamoDB does not allow an empty %s value in a key attribute.",
						   part->type == ITEMKEY_S ? "string" : "binary")));
	if (part->len > limit)
		ereturn(escontext, false,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("item_key %s part is too long",
						is_sort ? "sort" : "partition"),
				 errdetail("The %s part holds %d bytes; the limit is %d bytes.",
						   is_sort ? "sort" : "partition", part->len, limit)));
	return true;
}

/*
 * number_error
 *		Report a failed DynamoDB number parse (soft).
 */
static void
number_error(DynNumberStatus st, const char *text, int len, Node *escontext)
{
	if (st == DYNNUM_SYNTAX)
		errsave(escontext,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid number in item_key: \"%.*s\"", len, text),
				 errdetail("%s: %.*s", DynNumberStatusMessage(st), len, text)));
	else
		errsave(escontext,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("number out of range in item_key: \"%.*s\"", len, text),
				 errdetail("%s.", DynNumberStatusMessage(st))));
}

/* ----------------------------------------------------------------
 * text input
 * ----------------------------------------------------------------
 */
typedef struct KeyLexer
{
	const char *input;			/* whole input, UTF-8, for messages */
	const char *p;				/* cursor */
	Node	   *escontext;
} KeyLexer;

#define syntax_error(lx, why) \
	ereturn((lx)->escontext, false, \
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION), \
			 errmsg("invalid input syntax for type item_key: \"%s\"", (lx)->input), \
			 errdetail("%s at character %d.", (why), \
					   (int) ((lx)->p - (lx)->input) + 1)))

static void
skip_ws(KeyLexer *lx)
{
	while (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\n' || *lx->p == '\r')
		lx->p++;
}

static bool
read_hex4(KeyLexer *lx, pg_wchar *cp)
{
	int			i;

	*cp = 0;
	for (i = 0; i < 4; i++)
	{
		int			h = NulHexDigit(lx->p[i]);

		if (h < 0)
			syntax_error(lx, "invalid \\u escape");
		*cp = (*cp << 4) | h;
	}
	lx->p += 4;
	return true;
}

/*
 * lex_quoted
 *		Read a double-quoted string with JSON escapes into buf (as UTF-8).
 *		The cursor is on the opening quote.
 */
static bool
lex_quoted(KeyLexer *lx, StringInfo buf)
{
	if (*lx->p != '"')
		syntax_error(lx, "expected '\"'");
	lx->p++;
	for (;;)
	{
		char		c = *lx->p;

		if (c == '\0')
			syntax_error(lx, "unterminated string");
		if (c == '"')
		{
			lx->p++;
			return true;
		}
		if (c != '\\')
		{
			appendStringInfoChar(buf, c);
			lx->p++;
			continue;
		}
		lx->p++;
		c = *lx->p++;
		switch (c)
		{
			case '"':
			case '\\':
			case '/':
				appendStringInfoChar(buf, c);
				break;
			case 'b':
				appendStringInfoChar(buf, '\b');
				break;
			case 'f':
				appendStringInfoChar(buf, '\f');
				break;
			case 'n':
				appendStringInfoChar(buf, '\n');
				break;
			case 'r':
				appendStringInfoChar(buf, '\r');
				break;
			case 't':
				appendStringInfoChar(buf, '\t');
				break;
			case 'u':
				{
					pg_wchar	cp;
					unsigned char utf8[8];

					if (!read_hex4(lx, &cp))
						return false;
					if (cp >= 0xD800 && cp <= 0xDBFF)
					{
						pg_wchar	lo;

						if (lx->p[0] != '\\' || lx->p[1] != 'u')
							syntax_error(lx, "unpaired high surrogate");
						lx->p += 2;
						if (!read_hex4(lx, &lo))
							return false;
						if (lo < 0xDC00 || lo > 0xDFFF)
							syntax_error(lx, "invalid low surrogate");
						cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					}
					else if (cp >= 0xDC00 && cp <= 0xDFFF)
						syntax_error(lx, "unpaired low surrogate");
					unicode_to_utf8(cp, utf8);
					appendBinaryStringInfo(buf, (char *) utf8, pg_utf_mblen(utf8));
					break;
				}
			case '\0':
				lx->p--;
				syntax_error(lx, "unterminated string");
				break;
			default:
				lx->p--;
				syntax_error(lx, "invalid escape");
		}
	}
}

/*
 * lex_part
 *		Read one part: type letter and value.  S/B payload bytes are left in
 *		buf and pointed to by part.
 */
static bool
lex_part(KeyLexer *lx, ItemKeyPart *part, StringInfo buf, bool is_sort)
{
	char		t = *lx->p;

	memset(part, 0, sizeof(*part));
	if (t == 'S' || t == 'B')
	{
		lx->p++;
		skip_ws(lx);
		resetStringInfo(buf);
		if (!lex_quoted(lx, buf))
			return false;
		if (t == 'S')
		{
			if (!ItemUtf8IsValid(buf->data, buf->len))
				syntax_error(lx, "string is not valid UTF-8");
			part->type = ITEMKEY_S;
			part->bytes = buf->data;
			part->len = buf->len;
		}
		else
		{
			uint8	   *bytes;
			int			n;

			if (!ItemBase64Decode(buf->data, buf->len, &bytes, &n))
				syntax_error(lx, "binary value is not valid padded base64");
			part->type = ITEMKEY_B;
			part->bytes = (const char *) bytes;
			part->len = n;
		}
		return check_part_limits(part, is_sort, lx->escontext);
	}
	if (t == 'N')
	{
		const char *start;
		int			len;
		DynNumberStatus st;

		lx->p++;
		skip_ws(lx);
		resetStringInfo(buf);
		if (*lx->p == '"')
		{
			if (!lex_quoted(lx, buf))
				return false;
			start = buf->data;
			len = buf->len;
		}
		else
		{
			start = lx->p;
			while ((*lx->p >= '0' && *lx->p <= '9') || *lx->p == '.' ||
				   *lx->p == '+' || *lx->p == '-' || *lx->p == 'e' ||
				   *lx->p == 'E')
				lx->p++;
			len = (int) (lx->p - start);
			if (len == 0)
				syntax_error(lx, "expected a number");
		}
		part->type = ITEMKEY_N;
		st = DynNumberParse(start, len, &part->num);
		if (st != DYNNUM_OK)
		{
			number_error(st, start, len, lx->escontext);
			return false;
		}
		return true;
	}
	if (t == '\0')
		syntax_error(lx, "unexpected end of input, expected S, N or B");
	syntax_error(lx, "expected S, N or B");
}

/*
 * parse_tuple_text
 *		A multi-attribute key's text form: its parts in parentheses,
 *		separated by commas, with | after the partition parts when sort
 *		parts follow, "(S\"a\", N1 | S\"x\")"; without | every part is a
 *		partition part.  A bound ends with the top marker as a part of its
 *		own, "(S\"a\", N1, ~)", or with ~ right after its last S or B part
 *		(prefix bound), "(S\"a\" | S\"x\"~)".  lx is at the opening
 *		parenthesis.  NULL after a soft error.
 */
static ItemKey *
parse_tuple_text(KeyLexer *lx)
{
	ItemKeyPart parts[ITEMKEY_MAX_TUPLE_PARTS];
	StringInfoData bufs[ITEMKEY_MAX_TUPLE_PARTS];
	StringInfoData out;
	int			nparts = 0;
	int			nhash = -1;
	int			marker = 0;		/* 0, or the marker byte that ends the key */
	bool		successor = false;
	int			i;

	lx->p++;
	skip_ws(lx);
	for (;;)
	{
		if (*lx->p == '~' && nparts > 0)
		{
			marker = ITEMKEY_TAG_PARTITION_TOP;
			lx->p++;
			skip_ws(lx);
		}
		else
		{
			if (nparts >= ITEMKEY_MAX_TUPLE_PARTS)
				syntax_error(lx, "a multi-attribute key has at most eight parts");
			initStringInfo(&bufs[nparts]);
			if (!lex_part(lx, &parts[nparts], &bufs[nparts], false))
				return NULL;
			nparts++;
			skip_ws(lx);
			if (*lx->p == '~')
			{
				if (parts[nparts - 1].type == ITEMKEY_N)
					syntax_error(lx, "a prefix bound (~) needs a string or binary part");
				marker = ITEMKEY_PREFIX_TOP;
				lx->p++;
				skip_ws(lx);
			}
		}
		if (*lx->p == ')')
			break;
		if (marker != 0)
			syntax_error(lx, "a bound marker must end the key");
		if (*lx->p == '|' && nhash < 0)
			nhash = nparts;
		else if (*lx->p != ',')
			syntax_error(lx, "expected , | or )");
		lx->p++;
		skip_ws(lx);
	}
	lx->p++;
	skip_ws(lx);
	if (*lx->p == '>')
	{
		/* a successor: right after the key (its encoding and a zero byte) */
		successor = true;
		lx->p++;
		skip_ws(lx);
	}
	if (*lx->p != '\0')
		syntax_error(lx, "unexpected character");
	if (nhash < 0)
		nhash = nparts;
	if (nhash < 1 || nhash > ITEMKEY_MAX_TUPLE_PARTS / 2 || nparts - nhash > ITEMKEY_MAX_TUPLE_PARTS / 2 ||
		(marker == ITEMKEY_PREFIX_TOP && nparts == nhash))
		syntax_error(lx, "a multi-attribute key has one to four partition parts and at most four sort parts");
	KeyCodecTupleStart(&out, nhash);
	for (i = 0; i < nparts; i++)
	{
		if (marker == ITEMKEY_PREFIX_TOP && i == nparts - 1)
		{
			appendStringInfoChar(&out, (char) (parts[i].type == ITEMKEY_S ? ITEMKEY_TAG_S : ITEMKEY_TAG_B));
			KeyCodecAppendEscaped(&out, parts[i].bytes, parts[i].len);
		}
		else
			KeyCodecAppendPart(&out, &parts[i], false);
	}
	if (marker != 0)
		appendStringInfoChar(&out, (char) marker);
	if (successor)
		appendStringInfoChar(&out, '\0');
	return KeyCodecTupleFinish(&out);
}

/*
 * parse_key_text
 *		Parse text (UTF-8) into a new item_key; NULL after a soft error.
 */
static ItemKey *
parse_key_text(const char *text, Node *escontext)
{
	KeyLexer	lx;
	ItemKeyPart pk,
				sk;
	StringInfoData pbuf,
				sbuf;
	ItemKey    *result;
	bool		partition_top = false;
	bool		prefix_top = false;
	bool		has_sort = false;
	bool		successor = false;

	lx.input = text;
	lx.p = text;
	lx.escontext = escontext;
	initStringInfo(&pbuf);
	initStringInfo(&sbuf);

	skip_ws(&lx);
	/* the reader's outer bounds: before and after every key */
	if ((*lx.p == '<' || *lx.p == '>') && lx.p[1 + strspn(lx.p + 1, " \t\n\r")] == '\0')
	{
		static const uint8 top = 0xFF;

		return KeyCodecMakeVarlena(&top, *lx.p == '>' ? 1 : 0);
	}
	if (*lx.p == '(')
		return parse_tuple_text(&lx);
	if (!lex_part(&lx, &pk, &pbuf, false))
		return NULL;
	skip_ws(&lx);
	if (*lx.p == '|')
	{
		lx.p++;
		skip_ws(&lx);
		if (*lx.p == '~')
		{
			partition_top = true;
			lx.p++;
		}
		else
		{
			if (!lex_part(&lx, &sk, &sbuf, true))
				return NULL;
			has_sort = true;
			skip_ws(&lx);
			if (*lx.p == '~')
			{
				if (sk.type == ITEMKEY_N)
					ereturn(escontext, NULL,
							(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
							 errmsg("invalid input syntax for type item_key: \"%s\"", text),
							 errdetail("A prefix bound (~) needs a string or binary sort part.")));
				prefix_top = true;
				lx.p++;
			}
		}
		skip_ws(&lx);
	}
	if (*lx.p == '>')
	{
		/* a successor: right after the key (its encoding and a zero byte) */
		successor = true;
		lx.p++;
		skip_ws(&lx);
	}
	if (*lx.p != '\0')
	{
		if (!(*lx.p == '|' && has_sort))
			ereturn(escontext, NULL,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type item_key: \"%s\"", text),
					 errdetail("Unexpected character at character %d.",
							   (int) (lx.p - text) + 1)));
		ereturn(escontext, NULL,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type item_key: \"%s\"", text),
				 errdetail("A key has at most two parts: partition and sort.")));
	}

	result = KeyCodecBuild(&pk, has_sort ? &sk : NULL);
	if (partition_top || prefix_top)
	{
		/* append the bound marker (see item_table.h) */
		int			len = VARSIZE(result);
		uint8	   *p;

		result = repalloc(result, len + 1);
		p = (uint8 *) result + len;
		p[0] = prefix_top ? ITEMKEY_PREFIX_TOP : ITEMKEY_TAG_PARTITION_TOP;
		SET_VARSIZE(result, len + 1);
	}
	if (successor)
	{
		int			len = VARSIZE(result);

		result = repalloc(result, len + 1);
		((uint8 *) result)[len] = 0;
		SET_VARSIZE(result, len + 1);
	}
	return result;
}

/*
 * item_key_in
 *		Text input; reports soft errors where the server supports them.
 */
Datum
item_key_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	Node	   *escontext = fcinfo->context;
	char	   *utf8 = str;
	ItemKey    *result;

	if (GetDatabaseEncoding() != PG_UTF8)
		utf8 = (char *) pg_do_encoding_conversion((unsigned char *) str,
												  strlen(str),
												  GetDatabaseEncoding(),
												  PG_UTF8);
	result = parse_key_text(utf8, escontext);
	if (result == NULL)
		PG_RETURN_NULL();
	PG_RETURN_ITEMKEY_P(result);
}

/* ----------------------------------------------------------------
 * text output
 * ----------------------------------------------------------------
 */

/*
 * append_quoted_string
 *		Append a UTF-8 payload as a JSON-style quoted string.
 */
static void
append_quoted_string(StringInfo out, const char *s, int len)
{
	bool		ascii_only = (GetDatabaseEncoding() != PG_UTF8);
	const unsigned char *p = (const unsigned char *) s;
	const unsigned char *end = p + len;

	appendStringInfoChar(out, '"');
	while (p < end)
	{
		unsigned char c = *p;

		if (c == '"' || c == '\\')
		{
			appendStringInfoChar(out, '\\');
			appendStringInfoChar(out, (char) c);
			p++;
		}
		else if (c < 0x20 || c == 0x7F)
		{
			switch (c)
			{
				case '\b':
					appendStringInfoString(out, "\\b");
					break;
				case '\f':
					appendStringInfoString(out, "\\f");
					break;
				case '\n':
					appendStringInfoString(out, "\\n");
					break;
				case '\r':
					appendStringInfoString(out, "\\r");
					break;
				case '\t':
					appendStringInfoString(out, "\\t");
					break;
				default:
					appendStringInfo(out, "\\u%04x", c);
			}
			p++;
		}
		else if (c < 0x80 || !ascii_only)
		{
			int			n = (c < 0x80) ? 1 : pg_utf_mblen(p);

			appendBinaryStringInfo(out, (const char *) p, n);
			p += n;
		}
		else
		{
			pg_wchar	cp = utf8_to_unicode(p);

			if (cp > 0xFFFF)
			{
				cp -= 0x10000;
				appendStringInfo(out, "\\u%04x\\u%04x",
								 (unsigned) (0xD800 + (cp >> 10)),
								 (unsigned) (0xDC00 + (cp & 0x3FF)));
			}
			else
				appendStringInfo(out, "\\u%04x", (unsigned) cp);
			p += pg_utf_mblen(p);
		}
	}
	appendStringInfoChar(out, '"');
}

static void
append_part_text(StringInfo out, const ItemKeyPart *part)
{
	switch (part->type)
	{
		case ITEMKEY_S:
			appendStringInfoChar(out, 'S');
			append_quoted_string(out, part->bytes, part->len);
			break;
		case ITEMKEY_B:
			{
				char	   *b64 = ItemBase64Encode((const uint8 *) part->bytes, part->len);

				appendStringInfo(out, "B\"%s\"", b64);
				pfree(b64);
				break;
			}
		case ITEMKEY_N:
			{
				char		num[DYNNUM_MAX_TEXT];

				DynNumberFormat(&part->num, num);
				appendStringInfo(out, "N%s", num);
				break;
			}
		case ITEMKEY_NONE:
			break;
	}
}

/*
 * ItemKeyDecodeOrError
 *		Decode a stored key; a failure means corrupt data.
 */
void
ItemKeyDecodeOrError(const ItemKey *key, ItemKeyParsed *parsed)
{
	const char *why = NULL;

	if (!KeyCodecDecode(ITEMKEY_DATA(key), ITEMKEY_LEN(key), parsed, &why))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid item_key value"),
				 errdetail("The encoding is damaged: %s.", why)));
}

/*
 * tuple_to_text
 *		The text form of a multi-attribute key (see parse_tuple_text), or
 *		NULL when data is not one.
 */
static char *
tuple_to_text(const uint8 *data, int len)
{
	ItemKeyTuple t;
	const char *why = NULL;
	StringInfoData out;
	int			i;
	bool		successor = false;

	if (!KeyCodecDecodeTuple(data, len, &t, &why))
	{
		if (len < 3 || data[len - 1] != 0 ||
			!KeyCodecDecodeTuple(data, len - 1, &t, &why))
			return NULL;
		successor = true;
	}
	initStringInfo(&out);
	appendStringInfoChar(&out, '(');
	for (i = 0; i < t.nparts; i++)
	{
		if (i > 0)
			appendStringInfoString(&out, i == t.nhash ? " | " : ", ");
		append_part_text(&out, &t.parts[i]);
	}
	if (t.bound == ITEMKEY_BOUND_PREFIX_TOP)
		appendStringInfoChar(&out, '~');
	else if (t.bound == ITEMKEY_BOUND_PARTITION_TOP)
		appendStringInfoString(&out, ", ~");
	appendStringInfoChar(&out, ')');
	if (successor)
		appendStringInfoChar(&out, '>');
	return out.data;
}

/*
 * ItemKeyToText
 *		The text form of a key, palloc'd (in the database encoding).
 */
char *
ItemKeyToText(const ItemKey *key)
{
	ItemKeyParsed parsed;
	StringInfoData out;
	const uint8 *data = ITEMKEY_DATA(key);
	int			len = ITEMKEY_LEN(key);
	const char *why = NULL;

	/*
	 * The reader's bounds (query_range.c) have text forms too, so that they
	 * survive being sent as text (a distributed table's statements send parameters so): < before and
	 * > after every key, and a key followed by > for the position right
	 * after it (its encoding and a zero byte).
	 */
	if (len == 0)
		return pstrdup("<");
	if (len == 1 && data[0] == 0xFF)
		return pstrdup(">");
	if (data[0] == ITEMKEY_FORMAT_TUPLE)
	{
		char	   *text = tuple_to_text(data, len);

		if (text == NULL)
		{
			ItemKeyTuple t;

			(void) KeyCodecDecodeTuple(data, len, &t, &why);
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("invalid item_key value"),
					 errdetail("The encoding is damaged: %s.", why)));
		}
		return text;
	}
	if (data[len - 1] == 0 && !KeyCodecDecode(data, len, &parsed, &why) &&
		KeyCodecDecode(data, len - 1, &parsed, &why))
	{
		ItemKey    *k = KeyCodecMakeVarlena(data, len - 1);

		return psprintf("%s>", ItemKeyToText(k));
	}
	ItemKeyDecodeOrError(key, &parsed);
	initStringInfo(&out);
	append_part_text(&out, &parsed.partition);
	if (parsed.sort.type != ITEMKEY_NONE)
	{
		appendStringInfoChar(&out, '|');
		append_part_text(&out, &parsed.sort);
		if (parsed.bound == ITEMKEY_BOUND_PREFIX_TOP)
			appendStringInfoChar(&out, '~');
	}
	else if (parsed.bound == ITEMKEY_BOUND_PARTITION_TOP)
		appendStringInfoString(&out, "|~");
	return out.data;
}

Datum
item_key_out(PG_FUNCTION_ARGS)
{
	ItemKey    *key = PG_GETARG_ITEMKEY_PP(0);

	PG_RETURN_CSTRING(ItemKeyToText(key));
}

/* ----------------------------------------------------------------
 * binary I/O: the encoding itself, validated on receipt
 * ----------------------------------------------------------------
 */
Datum
item_key_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			len = buf->len - buf->cursor;
	const char *bytes = pq_getmsgbytes(buf, len);
	ItemKeyParsed parsed;
	const char *why = NULL;
	ItemKeyTuple tuple;

	if (len > 0 && bytes[0] == ITEMKEY_FORMAT_TUPLE ?
		!KeyCodecDecodeTuple((const uint8 *) bytes, len, &tuple, &why) :
		!KeyCodecDecode((const uint8 *) bytes, len, &parsed, &why))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid external item_key value"),
				 errdetail("%s.", why)));
	PG_RETURN_ITEMKEY_P(KeyCodecMakeVarlena((const uint8 *) bytes, len));
}

Datum
item_key_send(PG_FUNCTION_ARGS)
{
	ItemKey    *key = PG_GETARG_ITEMKEY_PP(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) ITEMKEY_DATA(key), ITEMKEY_LEN(key));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* ----------------------------------------------------------------
 * DynamoDB attribute values <-> key parts
 * ----------------------------------------------------------------
 */

/*
 * ItemKeyPartFromAttributeValue
 *		Fill *part from a jsonb attribute value such as {"S":"x"}.  The role
 *		("partition" or "sort") names the part in messages and picks the
 *		length limit.  Errors are hard: this serves SQL constructors and the
 *		API alike.  S/B payloads are palloc'd.
 */
void
ItemKeyPartFromAttributeValue(Jsonb *jb, bool is_sort, ItemKeyPart *part)
{
	JsonbIterator *it;
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;
	const char *role = is_sort ? "sort" : "partition";
	char		type;

	memset(part, 0, sizeof(*part));
	if (!JB_ROOT_IS_OBJECT(jb) || JB_ROOT_COUNT(jb) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid %s key attribute value", role),
				 errdetail("An attribute value is a JSON object with exactly one type key, such as {\"S\": \"abc\"}.")));

	it = JsonbIteratorInit(&jb->root);
	tok = JsonbIteratorNext(&it, &k, false);	/* WJB_BEGIN_OBJECT */
	tok = JsonbIteratorNext(&it, &k, false);
	Assert(tok == WJB_KEY);
	tok = JsonbIteratorNext(&it, &v, true);
	Assert(tok == WJB_VALUE);
	(void) tok;

	if (k.val.string.len != 1 ||
		(k.val.string.val[0] != 'S' && k.val.string.val[0] != 'N' &&
		 k.val.string.val[0] != 'B'))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid %s key attribute value", role),
				 errdetail("Key attributes must be of type S, N or B, not %.*s.",
						   k.val.string.len, k.val.string.val)));
	type = k.val.string.val[0];
	if (v.type != jbvString)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid %s key attribute value", role),
				 errdetail("The value of an %c attribute must be a JSON string.", type)));

	if (type == 'N')
	{
		DynNumberStatus st;

		part->type = ITEMKEY_N;
		st = DynNumberParse(v.val.string.val, v.val.string.len, &part->num);
		if (st != DYNNUM_OK)
			number_error(st, v.val.string.val, v.val.string.len, NULL);
		return;
	}
	if (type == 'S')
	{
		char	   *s = v.val.string.val;
		int			len = v.val.string.len;

		if (GetDatabaseEncoding() != PG_UTF8)
		{
			s = (char *) pg_do_encoding_conversion((unsigned char *) s, len,
												   GetDatabaseEncoding(), PG_UTF8);
			len = strlen(s);
		}
		/* the key holds the string, not its stored form (nul_escape.c) */
		part->type = ITEMKEY_S;
		part->bytes = palloc(len + 1);
		part->len = NulEscapeDecode(s, len, (char *) part->bytes);
		((char *) part->bytes)[part->len] = '\0';
	}
	else
	{
		uint8	   *bytes;
		int			n;

		if (!ItemBase64Decode(v.val.string.val, v.val.string.len, &bytes, &n))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid %s key attribute value", role),
					 errdetail("The value of a B attribute must be padded standard base64.")));
		part->type = ITEMKEY_B;
		part->bytes = (const char *) bytes;
		part->len = n;
	}
	check_part_limits(part, is_sort, NULL);
}

/*
 * ItemKeyPartPush, ItemKeyPartToAttributeValue
 *		The attribute value of a part, e.g. {"N":"42"}: pushed into a jsonb
 *		being built (returns what the closing push returns), or as a jsonb.
 */
JsonbValue *
ItemKeyPartPush(JsonbParseState **state, const ItemKeyPart *part)
{
	JsonbValue	k,
				v;
	char		num[DYNNUM_MAX_TEXT];

	k.type = jbvString;
	k.val.string.len = 1;
	v.type = jbvString;
	switch (part->type)
	{
		case ITEMKEY_S:
			k.val.string.val = "S";
			if (NulEscapeNeeded(part->bytes, part->len))
			{
				/* jsonb holds the stored form (nul_escape.c) */
				char	   *e = palloc(NulEscapeEncodedLength(part->bytes, part->len) + 1);
				int			elen = NulEscapeEncodedLength(part->bytes, part->len);

				NulEscapeEncode(part->bytes, part->len, e);
				e[elen] = '\0';
				if (GetDatabaseEncoding() != PG_UTF8)
				{
					v.val.string.val = pg_any_to_server(e, elen, PG_UTF8);
					v.val.string.len = strlen(v.val.string.val);
				}
				else
				{
					v.val.string.val = e;
					v.val.string.len = elen;
				}
			}
			else if (GetDatabaseEncoding() != PG_UTF8)
			{
				v.val.string.val = pg_any_to_server(part->bytes, part->len, PG_UTF8);
				v.val.string.len = strlen(v.val.string.val);
			}
			else
			{
				/* a copy: the state may outlive the part's bytes */
				v.val.string.val = pnstrdup(part->bytes, part->len);
				v.val.string.len = part->len;
			}
			break;
		case ITEMKEY_B:
			k.val.string.val = "B";
			v.val.string.val = ItemBase64Encode((const uint8 *) part->bytes, part->len);
			v.val.string.len = strlen(v.val.string.val);
			break;
		case ITEMKEY_N:
			k.val.string.val = "N";
			v.val.string.len = DynNumberFormat(&part->num, num);
			v.val.string.val = pnstrdup(num, v.val.string.len);	/* num is ours */
			break;
		case ITEMKEY_NONE:
			elog(ERROR, "no key part to convert");
	}
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	pushJsonbValue(state, WJB_KEY, &k);
	pushJsonbValue(state, WJB_VALUE, &v);
	return pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

Jsonb *
ItemKeyPartToAttributeValue(const ItemKeyPart *part)
{
	JsonbParseState *state = NULL;

	return JsonbValueToJsonb(ItemKeyPartPush(&state, part));
}

/*
 * item_key(partition jsonb [, sort jsonb])
 *		Build a key from DynamoDB attribute values.  A NULL sort value makes
 *		a partition-only key.
 */
Datum
item_key_from_values(PG_FUNCTION_ARGS)
{
	ItemKeyPart pk,
				sk;
	bool		has_sort = PG_NARGS() > 1 && !PG_ARGISNULL(1);

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	ItemKeyPartFromAttributeValue(PG_GETARG_JSONB_P(0), false, &pk);
	if (has_sort)
		ItemKeyPartFromAttributeValue(PG_GETARG_JSONB_P(1), true, &sk);
	PG_RETURN_ITEMKEY_P(KeyCodecBuild(&pk, has_sort ? &sk : NULL));
}

static void
decode_real_key(const ItemKey *key, ItemKeyParsed *parsed)
{
	if (ITEMKEY_LEN(key) > 0 && ITEMKEY_DATA(key)[0] == ITEMKEY_FORMAT_TUPLE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("item_key value is the key of a multi-attribute index"),
				 errdetail("Its parts are named by the index's KeySchema; partition_key() gives its partition parts.")));
	ItemKeyDecodeOrError(key, parsed);
	if (parsed->bound != ITEMKEY_EXACT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("item_key range bound has no value"),
				 errdetail("Values ending in ~ only delimit index ranges.")));
}

Datum
item_key_partition_value(PG_FUNCTION_ARGS)
{
	ItemKeyParsed parsed;

	decode_real_key(PG_GETARG_ITEMKEY_PP(0), &parsed);
	PG_RETURN_JSONB_P(ItemKeyPartToAttributeValue(&parsed.partition));
}

Datum
item_key_sort_value(PG_FUNCTION_ARGS)
{
	ItemKeyParsed parsed;

	decode_real_key(PG_GETARG_ITEMKEY_PP(0), &parsed);
	if (parsed.sort.type == ITEMKEY_NONE)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(ItemKeyPartToAttributeValue(&parsed.sort));
}

/*
 * partition_key(item_key)
 *		The key without its sort part: the partition's first position.
 */
Datum
item_key_partition_key(PG_FUNCTION_ARGS)
{
	ItemKey    *key = PG_GETARG_ITEMKEY_PP(0);
	ItemKeyParsed parsed;

	if (ITEMKEY_LEN(key) > 0 && ITEMKEY_DATA(key)[0] == ITEMKEY_FORMAT_TUPLE)
	{
		ItemKeyTuple t;
		const char *why = NULL;

		/* a multi-attribute key: its partition parts */
		if (!KeyCodecDecodeTuple(ITEMKEY_DATA(key), ITEMKEY_LEN(key), &t, &why) ||
			t.bound != ITEMKEY_EXACT)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("item_key range bound has no value"),
					 errdetail("Values ending in ~ only delimit index ranges.")));
	}
	else
		decode_real_key(key, &parsed);
	PG_RETURN_ITEMKEY_P(KeyCodecMakeVarlena(ITEMKEY_DATA(key),
											KeyCodecPartitionLength(ITEMKEY_DATA(key),
																	ITEMKEY_LEN(key))));
}
