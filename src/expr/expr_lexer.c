/*-------------------------------------------------------------------------
 *
 * expr_lexer.c
 *		Tokens of DynamoDB expressions, and the reserved-word check.
 *
 * The whole expression is split into an array of tokens before parsing,
 * so that the parser can look at the tokens on either side of the one it
 * fails on: DynamoDB's syntax errors quote the offending token and the
 * text from the start of the previous token to the end of the next one
 * ("near").  The lexer itself never fails on a character it does not
 * know: it emits an ETOK_INVALID token one character long, and the parser
 * reports it as a syntax error when (and if) it reaches it, as DynamoDB
 * does.
 *
 * Lexical rules (reference §3.1):
 *	  - whitespace (space, tab, CR, LF) separates tokens and is otherwise
 *		ignored;
 *	  - a bare name starts with an ASCII letter and continues with letters,
 *		digits and '_' ("_a" is the invalid token "_" followed by "a");
 *	  - "#x" and ":x" placeholders are the sigil followed by one or more of
 *		[A-Za-z0-9_]; a lone sigil is an invalid token;
 *	  - numbers are runs of digits (only list indexes use them);
 *	  - keywords are case-insensitive and depend on the expression: AND OR
 *		NOT BETWEEN IN in conditions, SET REMOVE ADD DELETE in update
 *		expressions, none in projections (there such words are ordinary
 *		names, and reserved);
 *	  - function names are ordinary names; the parser recognises a call by
 *		the "(" that follows.
 *
 * Limits checked here: an expression longer than EXPR_MAX_BYTES bytes and
 * an empty (or all-whitespace) expression are ValidationExceptions.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "miscadmin.h"

#include "errors.h"
#include "expr.h"
#include "expr_reserved.h"

typedef struct KeywordDef
{
	const char *word;			/* upper case */
	ExprTokenKind kind;
} KeywordDef;

static const KeywordDef condition_keywords[] = {
	{"AND", ETOK_AND},
	{"BETWEEN", ETOK_BETWEEN},
	{"IN", ETOK_IN},
	{"NOT", ETOK_NOT},
	{"OR", ETOK_OR},
	{NULL, ETOK_EOF}
};

static const KeywordDef update_keywords[] = {
	{"ADD", ETOK_ADD},
	{"DELETE", ETOK_DELETE},
	{"REMOVE", ETOK_REMOVE},
	{"SET", ETOK_SET},
	{NULL, ETOK_EOF}
};

#define IS_EXPR_SPACE(c) ((c) == ' ' || (c) == '\t' || (c) == '\n' || (c) == '\r')
#define IS_ASCII_ALPHA(c) (((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z'))
#define IS_ASCII_DIGIT(c) ((c) >= '0' && (c) <= '9')
#define IS_NAME_CHAR(c) (IS_ASCII_ALPHA(c) || IS_ASCII_DIGIT(c) || (c) == '_')

/*
 * keyword_kind
 *		The keyword token kind of a bare name, or ETOK_NAME.
 */
static ExprTokenKind
keyword_kind(const char *s, int len, const KeywordDef *keywords)
{
	const KeywordDef *k;

	if (keywords == NULL)
		return ETOK_NAME;
	for (k = keywords; k->word != NULL; k++)
	{
		if ((int) strlen(k->word) == len && pg_strncasecmp(s, k->word, len) == 0)
			return k->kind;
	}
	return ETOK_NAME;
}

/*
 * ExprTokenize
 *		Split text[0..len) into tokens.  Returns a palloc'd array whose last
 *		element is ETOK_EOF (positioned at len) and sets *ntokens to the
 *		array length.  Raises ValidationException for an over-long or empty
 *		expression.
 */
ExprToken *
ExprTokenize(const char *text, int len, ExprKind kind, int *ntokens)
{
	const KeywordDef *keywords;
	ExprToken  *toks;
	int			ntok = 0;
	int			cap = 16;
	int			i = 0;

	if (len > EXPR_MAX_BYTES)
		DynValidation("Invalid %s: Expression size has exceeded the maximum allowed size; expression size: %d",
					  ExprKindName(kind), len);

	switch (kind)
	{
		case EXPR_CONDITION:
		case EXPR_FILTER:
		case EXPR_KEY_CONDITION:
			keywords = condition_keywords;
			break;
		case EXPR_UPDATE:
			keywords = update_keywords;
			break;
		default:
			keywords = NULL;
			break;
	}

	toks = palloc(cap * sizeof(ExprToken));
	for (;;)
	{
		ExprToken	t;
		unsigned char c;

		CHECK_FOR_INTERRUPTS();
		while (i < len && IS_EXPR_SPACE(text[i]))
			i++;

		/* keep room for this token and the final EOF */
		if (ntok + 2 > cap)
		{
			cap *= 2;
			toks = repalloc(toks, cap * sizeof(ExprToken));
		}

		t.start = i;
		if (i >= len)
		{
			t.kind = ETOK_EOF;
			t.len = 0;
			toks[ntok++] = t;
			break;
		}

		c = (unsigned char) text[i];
		t.len = 1;
		if (IS_ASCII_ALPHA(c))
		{
			int			j = i + 1;

			while (j < len && IS_NAME_CHAR(text[j]))
				j++;
			t.len = j - i;
			t.kind = keyword_kind(text + i, t.len, keywords);
		}
		else if (c == '#' || c == ':')
		{
			int			j = i + 1;

			while (j < len && IS_NAME_CHAR(text[j]))
				j++;
			if (j == i + 1)
				t.kind = ETOK_INVALID;	/* a lone sigil */
			else
			{
				t.kind = (c == '#') ? ETOK_NAME_REF : ETOK_VALUE_REF;
				t.len = j - i;
			}
		}
		else if (IS_ASCII_DIGIT(c))
		{
			int			j = i + 1;

			while (j < len && IS_ASCII_DIGIT(text[j]))
				j++;
			t.kind = ETOK_NUMBER;
			t.len = j - i;
		}
		else
		{
			switch (c)
			{
				case '(':
					t.kind = ETOK_LPAREN;
					break;
				case ')':
					t.kind = ETOK_RPAREN;
					break;
				case '[':
					t.kind = ETOK_LBRACKET;
					break;
				case ']':
					t.kind = ETOK_RBRACKET;
					break;
				case ',':
					t.kind = ETOK_COMMA;
					break;
				case '.':
					t.kind = ETOK_DOT;
					break;
				case '=':
					t.kind = ETOK_EQ;
					break;
				case '+':
					t.kind = ETOK_PLUS;
					break;
				case '-':
					t.kind = ETOK_MINUS;
					break;
				case '<':
					if (i + 1 < len && text[i + 1] == '=')
					{
						t.kind = ETOK_LE;
						t.len = 2;
					}
					else if (i + 1 < len && text[i + 1] == '>')
					{
						t.kind = ETOK_NE;
						t.len = 2;
					}
					else
						t.kind = ETOK_LT;
					break;
				case '>':
					if (i + 1 < len && text[i + 1] == '=')
					{
						t.kind = ETOK_GE;
						t.len = 2;
					}
					else
						t.kind = ETOK_GT;
					break;
				default:
					/* one whole (multibyte) character, for the message */
					t.kind = ETOK_INVALID;
					if (c >= 0x80)
						t.len = Min(pg_mblen(text + i), len - i);
					break;
			}
		}
		toks[ntok++] = t;
		i += t.len;
	}

	/* only the EOF token: nothing but whitespace */
	if (ntok == 1)
		DynValidation("Invalid %s: The expression can not be empty;",
					  ExprKindName(kind));

	*ntokens = ntok;
	return toks;
}

/* bsearch comparator over the reserved-word table */
static int
reserved_cmp(const void *key, const void *elem)
{
	return strcmp((const char *) key, *(const char *const *) elem);
}

/*
 * ExprIsReservedWord
 *		Whether name[0..len) is one of DynamoDB's reserved words, in any
 *		case.
 */
bool
ExprIsReservedWord(const char *name, int len)
{
	char		upper[EXPR_RESERVED_MAX_LEN + 1];
	int			i;

	if (len <= 0 || len > EXPR_RESERVED_MAX_LEN)
		return false;
	for (i = 0; i < len; i++)
		upper[i] = pg_ascii_toupper((unsigned char) name[i]);
	upper[len] = '\0';
	return bsearch(upper, expr_reserved_words, EXPR_NUM_RESERVED_WORDS,
				   sizeof(const char *), reserved_cmp) != NULL;
}
