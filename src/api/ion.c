/*-------------------------------------------------------------------------
 *
 * ion.c
 *		Amazon Ion text for DynamoDB's ION exports and imports: the data
 *		files of an import split into top-level values, and a value read
 *		into DynamoDB JSON (an export's line is written by ion_write.c).
 *
 * DynamoDB's ION export writes, per item, one line such as
 *
 *		$ion_1_0 {Item:{id:"a1",n:103.,price:15d-1,tags:$dynamodb_SS::["x","y"]}}
 *
 * An attribute value is the Ion value of its type: S a string, N a decimal
 * (exact: its digits and a `d` exponent; `103.` is the integer 103), B a
 * blob {{base64}}, BOOL a bool, NULL `null`, L a list, M a struct, and the
 * sets SS, NS and BS a list of strings, decimals or blobs annotated
 * $dynamodb_SS::, $dynamodb_NS:: or $dynamodb_BS::.  An incremental
 * export's line has the fields Metadata, Keys, OldImage and NewImage, each
 * a struct of attribute values, as in its DynamoDB JSON form.
 *
 * The reader takes the text subset any Ion text writer may produce for such
 * values, and refuses the rest with a message (an import counts the value
 * as a bad one): blanks, line comments and block comments anywhere between
 * tokens; version markers $ion_1_0 before a value; field names as
 * identifiers, 'quoted symbols', "strings" or '''long strings''' (a symbol
 * ID such as $10 is refused: the text has no symbol table); strings with
 * every Ion escape (\a \b \t \n \f \r \v \? \0 \' \" \/ \\ \xHH \uHHHH
 * \UHHHHHHHH, surrogate pairs of \u escapes, a backslash before a newline)
 * and adjacent long strings concatenated; ints (decimal, 0x hex, 0b binary,
 * underscores between digits), decimals and floats as DynamoDB numbers,
 * through dnumber.c (so a number DynamoDB cannot hold -- more than 38
 * digits, out of range, nan, +inf, -inf -- is refused with DynamoDB's
 * message, and -0 is 0); null and every typed null (null.string, ...) as
 * NULL; blobs; lists; structs.  S-expressions, clobs, timestamps, symbol
 * values and other annotations are not DynamoDB values and are refused.
 * The text is checked as UTF-8; strings may hold U+0000 through escapes.
 *
 * The splitter finds where each top-level value of a file ends without
 * reading it: it follows strings, quoted symbols, long strings, comments
 * and brackets, so a value may span lines and a line may hold several
 * values, and a top-level symbol followed by :: is an annotation of the
 * value after it.  It keeps the text of one value (at most max_value
 * bytes: a longer one is counted as a bad value, not kept), so its memory
 * is bounded by the largest item, not by the file.
 *
 * The writer (ion_write.c) walks a stored item (jsonb, strings in the
 * stored form of nul_escape.c) and writes U+0000 as \x00; numbers are
 * written from their digits and exponent, so they read back exactly.
 * Both allocate in the caller's context, which the import and the export
 * reset per value.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "dnumber.h"
#include "ion.h"
#include "nul_escape.h"

PG_FUNCTION_INFO_V1(item_table_ion_to_item);

/* the text an oversize value is replaced with (IonToItemJson refuses it) */
#define ION_OVERSIZE	"\x01oversize"
/* containers nested deeper than this are refused (DynamoDB allows 32) */
#define ION_MAX_DEPTH	100
/* digits of a hex or binary int read at most */
#define ION_MAX_RADIX_DIGITS 512

/* ----------------------------------------------------------------
 * the splitter
 * ----------------------------------------------------------------
 */
enum
{
	ST_NORMAL,
	ST_SLASH,					/* '/' seen: a comment, or an operator */
	ST_LCOMMENT,
	ST_BCOMMENT,
	ST_BCOMMENT_STAR,
	ST_STRING,
	ST_QUOTE1,					/* ' seen */
	ST_QUOTE2,					/* '' seen */
	ST_QSYM,
	ST_LSTRING
};

static inline bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* may c continue a top-level scalar token (a symbol, a number)? */
static inline bool
is_scalar_char(char c)
{
	return !is_blank(c) && strchr("{}[](),:\"'/", c) == NULL;
}

void
IonSplitterInit(IonSplitter *s, size_t max_value)
{
	memset(s, 0, sizeof(*s));
	initStringInfo(&s->value);
	s->max_value = max_value;
	s->line = 1;
}

static void
reset_value(IonSplitter *s)
{
	resetStringInfo(&s->value);
	s->depth = 0;
	s->state = ST_NORMAL;
	s->escape = false;
	s->quotes = 0;
	s->in_scalar = false;
	s->scalar_done = false;
	s->ntokens = 0;
	s->significant = false;
	s->oversize = false;
	s->emitted = false;
}

static inline void
keep(IonSplitter *s, char c)
{
	if (s->oversize)
		return;
	if ((size_t) s->value.len >= s->max_value)
	{
		s->oversize = true;
		return;
	}
	appendStringInfoChar(&s->value, c);
}

/* a top-level token begins */
static inline void
token_start(IonSplitter *s)
{
	s->scalar_start = s->value.len;
	s->ntokens++;
	if (!s->significant)
	{
		s->significant = true;
		s->value_line = s->line;
	}
}

/* a top-level token ended: a value of its own unless :: follows */
static inline void
token_end(IonSplitter *s)
{
	s->in_scalar = false;
	s->scalar_done = true;
	s->scalar_end = s->value.len;
}

/* the value is complete */
static bool
emit(IonSplitter *s, int len)
{
	if (s->oversize)
	{
		resetStringInfo(&s->value);
		appendStringInfoString(&s->value, ION_OVERSIZE);
	}
	else
	{
		s->value.len = len;
		s->value.data[len] = '\0';
	}
	s->emitted = true;
	return true;
}

/*
 * The pending top-level scalar is a value of its own: given (true), or
 * dropped when it is the version marker (false: the text starts afresh).
 */
static bool
emit_scalar(IonSplitter *s)
{
	if (!s->oversize && s->ntokens == 1 && s->scalar_end - s->scalar_start == 8 &&
		memcmp(s->value.data + s->scalar_start, "$ion_1_0", 8) == 0)
	{
		int64		line = s->line;

		reset_value(s);
		s->line = line;
		return false;
	}
	return emit(s, s->scalar_end);
}

/*
 * IonSplitterNext
 *		Reads data until a value is complete (true: its text in s->value)
 *		or the data is used up (false); *used is the bytes read.
 */
bool
IonSplitterNext(IonSplitter *s, const char *data, size_t len, size_t *used)
{
	size_t		i = 0;

	if (s->emitted)
		reset_value(s);
	while (i < len)
	{
		char		c = data[i];

		switch (s->state)
		{
			case ST_SLASH:
				if (c == '/')
					s->state = ST_LCOMMENT;
				else if (c == '*')
					s->state = ST_BCOMMENT;
				else
				{
					/* an operator of an S-expression: read c again */
					s->state = ST_NORMAL;
					continue;
				}
				break;
			case ST_LCOMMENT:
				if (c == '\n')
					s->state = ST_NORMAL;
				break;
			case ST_BCOMMENT:
				if (c == '*')
					s->state = ST_BCOMMENT_STAR;
				break;
			case ST_BCOMMENT_STAR:
				if (c == '/')
					s->state = ST_NORMAL;
				else if (c != '*')
					s->state = ST_BCOMMENT;
				break;
			case ST_STRING:
			case ST_QSYM:
				if (s->escape)
					s->escape = false;
				else if (c == '\\')
					s->escape = true;
				else if (c == (s->state == ST_STRING ? '"' : '\''))
				{
					s->state = ST_NORMAL;
					if (s->depth == 0)
					{
						keep(s, c);
						token_end(s);
						i++;
						if (c == '\n')
							s->line++;
						continue;
					}
				}
				break;
			case ST_QUOTE1:
				if (c == '\'')
				{
					s->state = ST_QUOTE2;
					break;
				}
				s->state = ST_QSYM;
				continue;
			case ST_QUOTE2:
				if (c == '\'')
				{
					s->state = ST_LSTRING;
					s->quotes = 0;
					break;
				}
				/* '' : an empty quoted symbol */
				s->state = ST_NORMAL;
				if (s->depth == 0)
					token_end(s);
				continue;
			case ST_LSTRING:
				if (s->escape)
				{
					s->escape = false;
					s->quotes = 0;
				}
				else if (c == '\\')
				{
					s->escape = true;
					s->quotes = 0;
				}
				else if (c == '\'')
				{
					if (++s->quotes == 3)
					{
						s->state = ST_NORMAL;
						if (s->depth == 0)
						{
							keep(s, c);
							token_end(s);
							i++;
							continue;
						}
					}
				}
				else
					s->quotes = 0;
				break;
			case ST_NORMAL:
				if (s->depth == 0 && s->in_scalar && !is_scalar_char(c))
					token_end(s);
				if (is_blank(c))
					break;
				if (c == '/')
				{
					s->state = ST_SLASH;
					break;
				}
				if (s->depth == 0 && s->scalar_done)
				{
					if (c == ':')
						s->scalar_done = false;		/* an annotation */
					else if (emit_scalar(s))
					{
						*used = i;
						return true;
					}
				}
				if (!s->significant)
				{
					s->significant = true;
					s->value_line = s->line;
				}
				switch (c)
				{
					case '{':
					case '[':
					case '(':
						s->depth++;
						break;
					case '}':
					case ']':
					case ')':
						if (s->depth > 0)
							s->depth--;
						if (s->depth == 0)
						{
							keep(s, c);
							*used = i + 1;
							return emit(s, s->value.len);
						}
						break;
					case '"':
						if (s->depth == 0)
							token_start(s);
						s->state = ST_STRING;
						break;
					case '\'':
						if (s->depth == 0)
							token_start(s);
						s->state = ST_QUOTE1;
						break;
					default:
						if (s->depth == 0 && !s->in_scalar && is_scalar_char(c))
						{
							token_start(s);
							s->in_scalar = true;
						}
						break;
				}
				break;
		}
		keep(s, c);
		if (c == '\n')
			s->line++;
		i++;
	}
	*used = len;
	return false;
}

/* the end of the file: the last value, if there is one */
bool
IonSplitterFinish(IonSplitter *s)
{
	if (s->emitted)
		reset_value(s);
	if (s->state == ST_NORMAL && s->depth == 0 && s->in_scalar)
		token_end(s);
	if (s->state == ST_NORMAL && s->depth == 0 && s->scalar_done && !emit_scalar(s))
		return false;
	if (s->emitted)
		return true;
	if (!s->significant)
		return false;
	return emit(s, s->value.len);
}

/* ----------------------------------------------------------------
 * the reader: one value to DynamoDB JSON
 * ----------------------------------------------------------------
 */
typedef struct IonIn
{
	const char *start;
	const char *p;
	const char *end;
} IonIn;

static void
ion_error(IonIn *in, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
			 errmsg("invalid Ion value: %s (at character %d)", what, (int) (in->p - in->start) + 1)));
}

static void
ion_refuse(const char *what)
{
	ereport(ERROR, (errcode(ERRCODE_BAD_COPY_FILE_FORMAT), errmsg("%s", what)));
}

static void
skip_blanks(IonIn *in)
{
	for (;;)
	{
		while (in->p < in->end && is_blank(*in->p))
			in->p++;
		if (in->end - in->p >= 2 && in->p[0] == '/' && in->p[1] == '/')
		{
			while (in->p < in->end && *in->p != '\n')
				in->p++;
		}
		else if (in->end - in->p >= 2 && in->p[0] == '/' && in->p[1] == '*')
		{
			const char *q = in->p + 2;

			while (q + 1 < in->end && !(q[0] == '*' && q[1] == '/'))
				q++;
			if (q + 1 >= in->end)
				ion_error(in, "a comment is not closed");
			in->p = q + 2;
		}
		else
			return;
	}
}

static inline bool
at(IonIn *in, const char *s)
{
	size_t		n = strlen(s);

	return (size_t) (in->end - in->p) >= n && memcmp(in->p, s, n) == 0;
}

/* n hex digits at in->p, as a number */
static pg_wchar
read_hex(IonIn *in, int n)
{
	pg_wchar	v = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		int			h = in->p < in->end ? NulHexDigit(*in->p) : -1;

		if (h < 0)
			ion_error(in, "a bad hex digit in an escape");
		v = v * 16 + h;
		in->p++;
	}
	return v;
}

static void
append_code_point(IonIn *in, StringInfo out, pg_wchar cp)
{
	unsigned char utf8[8];

	if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		ion_error(in, "an escape of no Unicode character");
	unicode_to_utf8(cp, utf8);
	appendBinaryStringInfo(out, (char *) utf8, pg_utf_mblen(utf8));
}

/* after a backslash in a string or quoted symbol */
static void
read_escape(IonIn *in, StringInfo out)
{
	char		c;
	pg_wchar	cp;

	if (in->p >= in->end)
		ion_error(in, "a string is not closed");
	c = *in->p++;
	switch (c)
	{
		case 'a':
			appendStringInfoChar(out, '\a');
			return;
		case 'b':
			appendStringInfoChar(out, '\b');
			return;
		case 't':
			appendStringInfoChar(out, '\t');
			return;
		case 'n':
			appendStringInfoChar(out, '\n');
			return;
		case 'f':
			appendStringInfoChar(out, '\f');
			return;
		case 'r':
			appendStringInfoChar(out, '\r');
			return;
		case 'v':
			appendStringInfoChar(out, '\v');
			return;
		case '0':
			appendStringInfoCharMacro(out, '\0');
			return;
		case '?':
		case '\'':
		case '"':
		case '/':
		case '\\':
			appendStringInfoChar(out, c);
			return;
		case '\n':
			return;				/* a line continued */
		case '\r':
			if (in->p < in->end && *in->p == '\n')
				in->p++;
			return;
		case 'x':
			append_code_point(in, out, read_hex(in, 2));
			return;
		case 'U':
			append_code_point(in, out, read_hex(in, 8));
			return;
		case 'u':
			cp = read_hex(in, 4);
			if (cp >= 0xD800 && cp <= 0xDBFF)
			{
				pg_wchar	low;

				if (!at(in, "\\u"))
					ion_error(in, "a high surrogate without its low surrogate");
				in->p += 2;
				low = read_hex(in, 4);
				if (low < 0xDC00 || low > 0xDFFF)
					ion_error(in, "a high surrogate without its low surrogate");
				cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
			}
			append_code_point(in, out, cp);
			return;
		default:
			in->p--;
			ion_error(in, "an unknown escape");
	}
}

/* a "string" or 'quoted symbol' (in->p at its quote) */
static void
read_quoted(IonIn *in, StringInfo out, char quote)
{
	in->p++;
	for (;;)
	{
		char		c;

		if (in->p >= in->end)
			ion_error(in, quote == '"' ? "a string is not closed" : "a quoted symbol is not closed");
		c = *in->p++;
		if (c == quote)
			return;
		if (c == '\\')
			read_escape(in, out);
		else if (c == '\n' || c == '\r')
			ion_error(in, "a new line in a quoted string or symbol");
		else
			appendStringInfoChar(out, c);
	}
}

/* one or more adjacent '''long strings''' (in->p at the first) */
static void
read_long(IonIn *in, StringInfo out)
{
	while (at(in, "'''"))
	{
		in->p += 3;
		for (;;)
		{
			char		c;

			if (in->p >= in->end)
				ion_error(in, "a long string is not closed");
			if (at(in, "'''"))
			{
				in->p += 3;
				break;
			}
			c = *in->p++;
			if (c == '\\')
				read_escape(in, out);
			else
				appendStringInfoChar(out, c);
		}
		skip_blanks(in);
	}
}

/* a string value, short or long, into out (the text as it is) */
static bool
read_string(IonIn *in, StringInfo out)
{
	if (at(in, "'''"))
		read_long(in, out);
	else if (in->p < in->end && *in->p == '"')
		read_quoted(in, out, '"');
	else
		return false;
	return true;
}

/* an identifier at in->p (its length; 0 if none) */
static int
ident_length(IonIn *in)
{
	const char *q = in->p;

	if (q >= in->end || !IonIdentStart(*q))
		return 0;
	while (q < in->end && IonIdentChar(*q))
		q++;
	return q - in->p;
}

/* a symbol's text: identifier or quoted; false if none is here */
static bool
read_symbol(IonIn *in, StringInfo out)
{
	int			n;

	if (in->p < in->end && *in->p == '\'' && !at(in, "'''"))
	{
		read_quoted(in, out, '\'');
		return true;
	}
	n = ident_length(in);
	if (n == 0)
		return false;
	if (in->p[0] == '$' && n > 1)
	{
		int			i = 1;

		while (i < n && in->p[i] >= '0' && in->p[i] <= '9')
			i++;
		if (i == n)
			ion_error(in, "a symbol ID ($n) with no symbol table");
	}
	appendBinaryStringInfo(out, in->p, n);
	in->p += n;
	return true;
}

/* JSON string of n bytes (U+0000 as \u0000) */
static void
json_string(StringInfo out, const char *s, int n)
{
	int			i;

	appendStringInfoChar(out, '"');
	for (i = 0; i < n; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c == '"' || c == '\\')
		{
			appendStringInfoChar(out, '\\');
			appendStringInfoChar(out, (char) c);
		}
		else if (c < 0x20)
			appendStringInfo(out, "\\u%04x", c);
		else
			appendStringInfoChar(out, (char) c);
	}
	appendStringInfoChar(out, '"');
}

/* the annotations before a value, into anns (their count) */
static int
read_annotations(IonIn *in, StringInfo anns)
{
	int			n = 0;

	for (;;)
	{
		const char *save = in->p;
		int			len = anns->len;

		skip_blanks(in);
		if (at(in, "'''") || !read_symbol(in, anns))
		{
			in->p = save;
			return n;
		}
		skip_blanks(in);
		if (!at(in, "::"))
		{
			in->p = save;
			anns->len = len;
			anns->data[len] = '\0';
			return n;
		}
		in->p += 2;
		appendStringInfoChar(anns, '\0');
		n++;
	}
}

/* digits of base 2 or 16 (underscores between them) as decimal text */
static void
radix_to_decimal(IonIn *in, const char *s, int n, int base, StringInfo out)
{
	uint8		dec[ION_MAX_RADIX_DIGITS + 8];
	int			ndec = 1;
	int			i;
	bool		any = false;

	dec[0] = 0;
	for (i = 0; i < n; i++)
	{
		int			d;
		int			carry;
		int			j;

		if (s[i] == '_')
		{
			if (!any || i + 1 >= n || s[i + 1] == '_')
				ion_error(in, "a misplaced underscore in a number");
			continue;
		}
		d = NulHexDigit(s[i]);
		if (d < 0 || d >= base)
			ion_error(in, "a bad digit in a number");
		any = true;
		carry = d;
		for (j = 0; j < ndec; j++)
		{
			int			v = dec[j] * base + carry;

			dec[j] = v % 10;
			carry = v / 10;
		}
		while (carry > 0)
		{
			if (ndec >= ION_MAX_RADIX_DIGITS)
				ion_refuse(DynNumberStatusMessage(DYNNUM_TOO_MANY_DIGITS));
			dec[ndec++] = carry % 10;
			carry /= 10;
		}
	}
	if (!any)
		ion_error(in, "a number without digits");
	for (i = ndec - 1; i >= 0; i--)
		appendStringInfoChar(out, '0' + dec[i]);
}

/*
 * decimal digits with underscores between them, from s[*i]: into out;
 * false when there are none
 */
static bool
read_digits(IonIn *in, const char *s, int n, int *i, StringInfo out)
{
	bool		any = false;

	while (*i < n)
	{
		char		c = s[*i];

		if (c >= '0' && c <= '9')
		{
			appendStringInfoChar(out, c);
			any = true;
		}
		else if (c == '_' && any && *i + 1 < n && s[*i + 1] >= '0' && s[*i + 1] <= '9')
			;
		else
			break;
		(*i)++;
	}
	return any;
}

/* a number token as DynamoDB's canonical number text into out */
static void
read_number(IonIn *in, StringInfo out)
{
	const char *s = in->p;
	int			n = 0;
	int			i = 0;
	StringInfoData text;
	DynNumber	num;
	DynNumberStatus st;
	char		buf[DYNNUM_MAX_TEXT + 8];

	while (s + n < in->end && (IonIdentChar(s[n]) || strchr(".+-:", s[n]) != NULL))
		n++;
	if ((n == 4 && (memcmp(s, "+inf", 4) == 0 || memcmp(s, "-inf", 4) == 0)))
		ion_refuse("Ion's +inf and -inf are not DynamoDB numbers");
	initStringInfo(&text);
	if (s[0] == '-')
	{
		appendStringInfoChar(&text, '-');
		i++;
	}
	if (i + 1 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X' || s[i + 1] == 'b' || s[i + 1] == 'B'))
		radix_to_decimal(in, s + i + 2, n - i - 2, (s[i + 1] == 'x' || s[i + 1] == 'X') ? 16 : 2, &text);
	else
	{
		int			first = i;

		if (!read_digits(in, s, n, &i, &text))
			ion_error(in, "not a valid Ion value");
		if (s[first] == '0' && i - first > 1)
			ion_error(in, "a number with a leading zero");
		if (i < n && s[i] == '.')
		{
			i++;
			appendStringInfoChar(&text, '.');
			(void) read_digits(in, s, n, &i, &text);
		}
		if (i < n && (s[i] == 'd' || s[i] == 'D' || s[i] == 'e' || s[i] == 'E'))
		{
			i++;
			appendStringInfoChar(&text, 'e');
			if (i < n && (s[i] == '+' || s[i] == '-'))
				appendStringInfoChar(&text, s[i++]);
			if (!read_digits(in, s, n, &i, &text))
				ion_error(in, "a number's exponent without digits");
		}
		if (i < n)
		{
			if (memchr(s, 'T', n) != NULL || (n > 4 && s[4] == '-'))
				ion_refuse("an Ion timestamp is not a DynamoDB value");
			in->p = s + i;
			ion_error(in, "not a valid Ion number");
		}
	}
	st = DynNumberParse(text.data, text.len, &num);
	if (st != DYNNUM_OK)
		ereport(ERROR, (errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
						errmsg("%s%s", DynNumberStatusMessage(st),
							   st == DYNNUM_SYNTAX ? ": " : ""),
						st == DYNNUM_SYNTAX ? errdetail("%s", text.data) : 0));
	DynNumberFormat(&num, buf);
	json_string(out, buf, strlen(buf));
	pfree(text.data);
	in->p = s + n;
}

/* a blob {{ base64 }} (in->p at its first brace) as a JSON string */
static void
read_blob(IonIn *in, StringInfo out)
{
	StringInfoData b;
	int			pad = 0;

	in->p += 2;
	initStringInfo(&b);
	for (;;)
	{
		char		c;

		while (in->p < in->end && is_blank(*in->p))
			in->p++;
		if (in->p >= in->end)
			ion_error(in, "a blob is not closed");
		c = *in->p;
		if (c == '"' || c == '\'')
			ion_refuse("an Ion clob is not a DynamoDB value");
		if (c == '}')
		{
			if (!at(in, "}}"))
				ion_error(in, "a blob is not closed by }}");
			in->p += 2;
			break;
		}
		if (c == '=')
			pad++;
		else if (pad > 0 || (!(IonIdentChar(c) && c != '_' && c != '$') && c != '+' && c != '/'))
			ion_error(in, "not base64 in a blob");
		appendStringInfoChar(&b, c);
		in->p++;
	}
	if (b.len % 4 != 0 || pad > 2)
		ion_error(in, "a blob's base64 is not a whole number of groups");
	json_string(out, b.data, b.len);
	pfree(b.data);
}

static void read_struct(IonIn *in, StringInfo out, int depth);
static void read_value(IonIn *in, StringInfo out, int depth);

/* a set's list: its members of one type */
static void
read_set(IonIn *in, StringInfo out, char kind)
{
	bool		first = true;

	skip_blanks(in);
	if (in->p >= in->end || *in->p != '[')
		ion_error(in, "a $dynamodb_ set annotation not on a list");
	in->p++;
	appendStringInfo(out, "{\"%cS\":[", kind);
	for (;;)
	{
		StringInfoData anns;

		skip_blanks(in);
		if (in->p < in->end && *in->p == ']')
		{
			in->p++;
			break;
		}
		initStringInfo(&anns);
		if (read_annotations(in, &anns) > 0)
			ion_error(in, "an annotation on a member of a set");
		if (!first)
			appendStringInfoChar(out, ',');
		first = false;
		if (kind == 'S')
		{
			StringInfoData s;

			initStringInfo(&s);
			if (!read_string(in, &s))
				ion_error(in, "a member of a string set that is not a string");
			json_string(out, s.data, s.len);
			pfree(s.data);
		}
		else if (kind == 'N')
		{
			if (in->p >= in->end || !((*in->p >= '0' && *in->p <= '9') || *in->p == '-' || *in->p == '+'))
				ion_error(in, "a member of a number set that is not a number");
			read_number(in, out);
		}
		else
		{
			if (!at(in, "{{"))
				ion_error(in, "a member of a binary set that is not a blob");
			read_blob(in, out);
		}
		skip_blanks(in);
		if (in->p < in->end && *in->p == ',')
			in->p++;
		else if (in->p >= in->end || *in->p != ']')
			ion_error(in, "expected , or ] in a list");
	}
	appendStringInfoString(out, "]}");
}

/* one attribute value */
static void
read_value(IonIn *in, StringInfo out, int depth)
{
	StringInfoData anns;
	int			nanns;
	char		c;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (depth > ION_MAX_DEPTH)
		ion_error(in, "values nested too deeply");
	initStringInfo(&anns);
	nanns = read_annotations(in, &anns);
	skip_blanks(in);
	if (nanns > 1)
		ion_error(in, "more than one annotation on a value");
	if (nanns == 1)
	{
		if (strcmp(anns.data, "$dynamodb_SS") == 0)
			read_set(in, out, 'S');
		else if (strcmp(anns.data, "$dynamodb_NS") == 0)
			read_set(in, out, 'N');
		else if (strcmp(anns.data, "$dynamodb_BS") == 0)
			read_set(in, out, 'B');
		else
			ereport(ERROR, (errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
							errmsg("the annotation '%s' is not a DynamoDB type", anns.data)));
		pfree(anns.data);
		return;
	}
	pfree(anns.data);
	if (in->p >= in->end)
		ion_error(in, "a value is missing");
	c = *in->p;
	if (at(in, "{{"))
	{
		appendStringInfoString(out, "{\"B\":");
		read_blob(in, out);
		appendStringInfoChar(out, '}');
	}
	else if (c == '{')
	{
		appendStringInfoString(out, "{\"M\":");
		read_struct(in, out, depth + 1);
		appendStringInfoChar(out, '}');
	}
	else if (c == '[')
	{
		bool		first = true;

		in->p++;
		appendStringInfoString(out, "{\"L\":[");
		for (;;)
		{
			skip_blanks(in);
			if (in->p < in->end && *in->p == ']')
			{
				in->p++;
				break;
			}
			if (!first)
				appendStringInfoChar(out, ',');
			first = false;
			read_value(in, out, depth + 1);
			skip_blanks(in);
			if (in->p < in->end && *in->p == ',')
				in->p++;
			else if (in->p >= in->end || *in->p != ']')
				ion_error(in, "expected , or ] in a list");
		}
		appendStringInfoString(out, "]}");
	}
	else if (c == '(')
		ion_refuse("an Ion S-expression is not a DynamoDB value");
	else if (c == '"' || at(in, "'''"))
	{
		StringInfoData s;

		initStringInfo(&s);
		(void) read_string(in, &s);
		appendStringInfoString(out, "{\"S\":");
		json_string(out, s.data, s.len);
		appendStringInfoChar(out, '}');
		pfree(s.data);
	}
	else if (c == '\'')
		ion_refuse("an Ion symbol is not a DynamoDB value");
	else if ((c >= '0' && c <= '9') || c == '-' || c == '+')
	{
		appendStringInfoString(out, "{\"N\":");
		read_number(in, out);
		appendStringInfoChar(out, '}');
	}
	else
	{
		int			n = ident_length(in);

		if (n == 4 && memcmp(in->p, "null", 4) == 0)
		{
			in->p += 4;
			/* a typed null: null.string, null.struct, ... */
			if (in->p < in->end && *in->p == '.')
			{
				static const char *const types[] = {"null", "bool", "int", "float", "decimal",
					"timestamp", "string", "symbol", "blob", "clob", "struct", "list", "sexp"};
				int			k;
				int			m;
				int			ntypes = (int) lengthof(types);

				in->p++;
				m = ident_length(in);
				for (k = 0; k < ntypes; k++)
					if (m == (int) strlen(types[k]) && memcmp(in->p, types[k], m) == 0)
						break;
				if (k == ntypes)
					ion_error(in, "an unknown type of null");
				in->p += m;
			}
			appendStringInfoString(out, "{\"NULL\":true}");
		}
		else if (n == 4 && memcmp(in->p, "true", 4) == 0)
		{
			in->p += 4;
			appendStringInfoString(out, "{\"BOOL\":true}");
		}
		else if (n == 5 && memcmp(in->p, "false", 5) == 0)
		{
			in->p += 5;
			appendStringInfoString(out, "{\"BOOL\":false}");
		}
		else if (n == 3 && memcmp(in->p, "nan", 3) == 0)
			ion_refuse("Ion's nan is not a DynamoDB number");
		else if (n > 0)
			ion_refuse("an Ion symbol is not a DynamoDB value");
		else
			ion_error(in, "not a valid Ion value");
	}
}

/* a struct {name: value, ...} (in->p at its brace) as a JSON object */
static void
read_struct(IonIn *in, StringInfo out, int depth)
{
	bool		first = true;

	if (depth > ION_MAX_DEPTH)
		ion_error(in, "values nested too deeply");
	in->p++;
	appendStringInfoChar(out, '{');
	for (;;)
	{
		StringInfoData name;

		skip_blanks(in);
		if (in->p < in->end && *in->p == '}')
		{
			in->p++;
			break;
		}
		initStringInfo(&name);
		if (!read_string(in, &name) && !read_symbol(in, &name))
			ion_error(in, "expected a field name");
		skip_blanks(in);
		if (in->p >= in->end || *in->p != ':' || at(in, "::"))
			ion_error(in, "expected : after a field name");
		in->p++;
		if (!first)
			appendStringInfoChar(out, ',');
		first = false;
		json_string(out, name.data, name.len);
		appendStringInfoChar(out, ':');
		pfree(name.data);
		skip_blanks(in);
		if (depth == 0)
		{
			/* a field of the line: an item, a struct of attribute values */
			StringInfoData anns;

			initStringInfo(&anns);
			if (read_annotations(in, &anns) > 0 || in->p >= in->end || *in->p != '{' || at(in, "{{"))
				ion_error(in, "a field of the top-level struct that is not a struct of attribute values");
			read_struct(in, out, 1);
		}
		else
			read_value(in, out, depth);
		skip_blanks(in);
		if (in->p < in->end && *in->p == ',')
			in->p++;
		else if (in->p >= in->end || *in->p != '}')
			ion_error(in, "expected , or } in a struct");
	}
	appendStringInfoChar(out, '}');
}

char *
IonToItemJson(const char *text, size_t len)
{
	IonIn		in;
	StringInfoData out;

	if (len >= 1 && text[0] == ION_OVERSIZE[0])
		ereport(ERROR, (errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
						errmsg("the Ion value is longer than %d bytes", ION_MAX_VALUE)));
	if (len > (size_t) MaxAllocSize ||
		pg_encoding_verifymbstr(PG_UTF8, text, (int) len) != (int) len)
		ereport(ERROR, (errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
						errmsg("the Ion value is not valid UTF-8")));
	in.start = in.p = text;
	in.end = text + len;
	for (;;)
	{
		skip_blanks(&in);
		if (at(&in, "$ion_1_0") && ident_length(&in) == 8)
			in.p += 8;
		else
			break;
	}
	if (in.p >= in.end)
		ion_error(&in, "no value");
	{
		StringInfoData anns;

		initStringInfo(&anns);
		if (read_annotations(&in, &anns) > 0)
			ion_error(&in, "an annotation on the top-level value");
		pfree(anns.data);
	}
	if (*in.p != '{' || at(&in, "{{"))
		ion_refuse("the Ion value is not a struct such as {Item:{...}}");
	initStringInfo(&out);
	read_struct(&in, &out, 0);
	skip_blanks(&in);
	if (in.p < in.end)
		ion_error(&in, "more than one value");
	return out.data;
}

/* ----------------------------------------------------------------
 * SQL
 * ----------------------------------------------------------------
 */

/*
 * ion_to_item(value text) returns json
 *		One Ion value of an ION export's data file ({Item:{...}}) as
 *		DynamoDB JSON text (U+0000 as \u0000).
 */
Datum
item_table_ion_to_item(PG_FUNCTION_ARGS)
{
	text	   *t = PG_GETARG_TEXT_PP(0);

	PG_RETURN_TEXT_P(cstring_to_text(IonToItemJson(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t))));
}
