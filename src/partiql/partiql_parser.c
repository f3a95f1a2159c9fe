/*-------------------------------------------------------------------------
 *
 * partiql_parser.c
 *		Tokens and recursive-descent parser of DynamoDB's PartiQL subset.
 *
 * As in expr_lexer.c, the whole statement is first split into an array of
 * tokens, so that an error can name the token it stopped at.  The lexer
 * never fails on its own: a character no token starts with, an unclosed
 * string or quoted name becomes a PQT_INVALID token that the parser
 * reports when it reaches it.
 *
 * Lexical rules:
 *	  - whitespace separates tokens;
 *	  - a bare name is a letter or '_' followed by letters, digits, '_' or
 *		'$'; keywords are bare names compared case-insensitively; a bare
 *		name that is a keyword of this grammar cannot name an attribute (it
 *		must be double-quoted, as DynamoDB requires for reserved words);
 *	  - "quoted names" keep case and any character; "" is a quote inside;
 *	  - 'strings' with '' for a quote inside;
 *	  - numbers: digits, optional fraction, optional exponent; a leading
 *		'-' is part of a value literal (parsed, not lexed);
 *	  - punctuation: ( ) [ ] { } , . : * ? + - = <> != < <= > >= << >>.
 *
 * Grammar:
 *
 *	  statement := select | insert | update | delete | EXISTS "(" select ")"
 *	  select	:= SELECT ("*" | path ("," path)*) FROM table ["." name]
 *				   [WHERE cond] [ORDER BY path [ASC | DESC]]
 *	  insert	:= INSERT INTO table VALUE value
 *	  update	:= UPDATE table (SET set ("," set)* | REMOVE path ("," path)*)+
 *				   WHERE cond [RETURNING (ALL | MODIFIED) (OLD | NEW) "*"]
 *	  delete	:= DELETE FROM table WHERE cond [RETURNING ALL OLD "*"]
 *	  set		:= path "=" rhs
 *	  rhs		:= term (("+" | "-") term)?
 *	  term		:= value | path | fn "(" rhs ("," rhs)* ")" | "(" rhs ")"
 *	  cond		:= and (OR and)*
 *	  and		:= not (AND not)*
 *	  not		:= NOT not | primary
 *	  primary	:= "(" cond ")" | fn "(" operand ("," operand)* ")"
 *				 | operand (cmp operand | [NOT] BETWEEN operand AND operand
 *							| [NOT] IN ("[" | "(") operand, ... ("]" | ")")
 *							| IS [NOT] MISSING)
 *	  operand	:= value | path | size "(" path ")"
 *	  path		:= name ("." name | "[" digits "]")*
 *	  value		:= string | ["-"] number | TRUE | FALSE | NULL | "?"
 *				 | "[" [value ("," value)*] "]"
 *				 | "{" [string ":" value ("," string ":" value)*] "}"
 *				 | "<<" [value ("," value)*] ">>"
 *
 * Parameters are numbered in the order their "?" appear in the text.
 * Recursion is bounded by PQ_MAX_DEPTH and check_stack_depth().
 *
 * Constructs DynamoDB's PartiQL has and this parser refuses, with a
 * message saying so rather than a syntax error: IS [NOT] NULL, COUNT(*),
 * INSERT ... IF NOT EXISTS; every other input outside the grammar is a
 * syntax error.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"

#include "errors.h"
#include "partiql.h"

typedef enum PqTokKind
{
	PQT_EOF,
	PQT_INVALID,
	PQT_NAME,					/* bare name or keyword */
	PQT_QNAME,					/* "quoted name" */
	PQT_STRING,					/* 'string' */
	PQT_NUMBER,
	PQT_PUNCT					/* text holds the punctuation */
} PqTokKind;

typedef struct PqToken
{
	PqTokKind	kind;
	int			pos;			/* byte offset in the statement */
	int			len;			/* length in the statement */
	char	   *val;			/* NAME/NUMBER/PUNCT: as written; QNAME,
								 * STRING: unescaped */
	int			vallen;
} PqToken;

typedef struct PqParser
{
	const char *text;
	int			len;
	PqToken    *toks;
	int			ntoks;
	int			cur;
	int			nparams;
	int			depth;
} PqParser;

/* words that are keywords of this grammar, and so cannot name attributes */
static const char *const pq_keywords[] = {
	"ALL", "AND", "ASC", "BETWEEN", "BY", "DELETE", "DESC", "EXISTS",
	"FALSE", "FROM", "IN", "INSERT", "INTO", "IS", "MISSING", "MODIFIED",
	"NEW", "NOT", "NULL", "OLD", "OR", "ORDER", "REMOVE", "RETURNING",
	"SELECT", "SET", "TRUE", "UPDATE", "VALUE", "WHERE"
};

#define IS_PQ_SPACE(c) ((c) == ' ' || (c) == '\t' || (c) == '\n' || (c) == '\r' || (c) == '\f')
#define IS_PQ_ALPHA(c) (((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z'))
#define IS_PQ_DIGIT(c) ((c) >= '0' && (c) <= '9')
#define IS_PQ_NAME_START(c) (IS_PQ_ALPHA(c) || (c) == '_')
#define IS_PQ_NAME_CHAR(c) (IS_PQ_NAME_START(c) || IS_PQ_DIGIT(c) || (c) == '$')

pg_noreturn static void pq_syntax(PqParser *p, const char *what);
pg_noreturn static void unexpected(PqParser *p);

/* ----------------------------------------------------------------
 * lexer
 * ----------------------------------------------------------------
 */

/* a quoted token: q is ' or "; doubled q is one q.  False if unclosed. */
static bool
lex_quoted(const char *s, int len, int *i, char q, StringInfo out)
{
	int			j = *i + 1;

	while (j < len)
	{
		if (s[j] == q)
		{
			if (j + 1 < len && s[j + 1] == q)
			{
				appendStringInfoChar(out, q);
				j += 2;
				continue;
			}
			*i = j + 1;
			return true;
		}
		appendStringInfoChar(out, s[j]);
		j++;
	}
	*i = len;
	return false;
}

static PqToken *
pq_tokenize(const char *s, int len, int *ntoks)
{
	int			cap = 32;
	int			n = 0;
	int			i = 0;
	PqToken    *toks = palloc(sizeof(PqToken) * cap);

	for (;;)
	{
		PqToken    *t;
		int			start;

		while (i < len && IS_PQ_SPACE(s[i]))
			i++;
		if (n + 1 >= cap)
		{
			cap *= 2;
			toks = repalloc(toks, sizeof(PqToken) * cap);
		}
		t = &toks[n++];
		memset(t, 0, sizeof(*t));
		t->pos = i;
		if (i >= len)
		{
			t->kind = PQT_EOF;
			break;
		}
		start = i;
		if (IS_PQ_NAME_START(s[i]))
		{
			while (i < len && IS_PQ_NAME_CHAR(s[i]))
				i++;
			t->kind = PQT_NAME;
		}
		else if (IS_PQ_DIGIT(s[i]) ||
				 (s[i] == '.' && i + 1 < len && IS_PQ_DIGIT(s[i + 1])))
		{
			while (i < len && IS_PQ_DIGIT(s[i]))
				i++;
			if (i < len && s[i] == '.')
			{
				i++;
				while (i < len && IS_PQ_DIGIT(s[i]))
					i++;
			}
			if (i < len && (s[i] == 'e' || s[i] == 'E'))
			{
				int			j = i + 1;

				if (j < len && (s[j] == '+' || s[j] == '-'))
					j++;
				if (j < len && IS_PQ_DIGIT(s[j]))
				{
					i = j;
					while (i < len && IS_PQ_DIGIT(s[i]))
						i++;
				}
			}
			t->kind = PQT_NUMBER;
		}
		else if (s[i] == '\'' || s[i] == '"')
		{
			StringInfoData buf;

			initStringInfo(&buf);
			if (lex_quoted(s, len, &i, s[i], &buf))
				t->kind = s[start] == '\'' ? PQT_STRING : PQT_QNAME;
			else
				t->kind = PQT_INVALID;
			t->val = buf.data;
			t->vallen = buf.len;
			t->len = i - start;
			continue;
		}
		else
		{
			static const char *const two[] = {"<>", "!=", "<=", ">=", "<<", ">>"};
			int			k;

			t->kind = PQT_PUNCT;
			i++;
			for (k = 0; k < (int) lengthof(two); k++)
			{
				if (i < len && s[start] == two[k][0] && s[i] == two[k][1])
				{
					i++;
					break;
				}
			}
			if (i - start == 1 && strchr("()[]{},.:*?+-=<>", s[start]) == NULL)
			{
				/* one whole UTF-8 character, for the message */
				while (i < len && (s[i] & 0xC0) == 0x80)
					i++;
				t->kind = PQT_INVALID;
			}
		}
		t->len = i - start;
		t->val = pnstrdup(s + start, t->len);
		t->vallen = t->len;
	}
	*ntoks = n;
	return toks;
}

/* ----------------------------------------------------------------
 * parser helpers
 * ----------------------------------------------------------------
 */
static PqToken *
peek(PqParser *p)
{
	return &p->toks[p->cur];
}

static PqToken *
peek_at(PqParser *p, int ahead)
{
	int			i = p->cur + ahead;

	return &p->toks[Min(i, p->ntoks - 1)];
}

static PqToken *
advance(PqParser *p)
{
	PqToken    *t = &p->toks[p->cur];

	if (t->kind != PQT_EOF)
		p->cur++;
	return t;
}

static bool
tok_is_word(const PqToken *t, const char *word)
{
	return t->kind == PQT_NAME && (int) strlen(word) == t->vallen &&
		pg_strncasecmp(t->val, word, t->vallen) == 0;
}

static bool
tok_is_punct(const PqToken *t, const char *punct)
{
	return t->kind == PQT_PUNCT && strcmp(t->val, punct) == 0;
}

static bool
tok_is_keyword(const PqToken *t)
{
	int			i;

	if (t->kind != PQT_NAME)
		return false;
	for (i = 0; i < (int) lengthof(pq_keywords); i++)
	{
		if (tok_is_word(t, pq_keywords[i]))
			return true;
	}
	return false;
}

/*
 * pq_syntax
 *		Raise the syntax error for the current token: DynamoDB's prefix,
 *		what was expected, and where.
 */
static void
pq_syntax(PqParser *p, const char *what)
{
	PqToken    *t = peek(p);
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, what);
	if (t->kind == PQT_EOF)
	{
		if (strstr(what, "end of statement") == NULL)
			appendStringInfoString(&buf, " at end of statement");
	}
	else
	{
		int			shown = Min(t->len, 64);

		/* never cut a UTF-8 character in two */
		while (shown < t->len && shown > 0 &&
			   (p->text[t->pos + shown] & 0xC0) == 0x80)
			shown--;
		appendStringInfo(&buf, " at character %d: %.*s%s", t->pos + 1,
						 shown, p->text + t->pos, shown < t->len ? "..." : "");
	}
	DynValidation(PQ_SYNTAX_PREFIX "%s", buf.data);
}

/* the unexpected-token error, worded by the token's kind */
static void
unexpected(PqParser *p)
{
	PqToken    *t = peek(p);

	if (t->kind == PQT_INVALID)
	{
		if (t->val != NULL && (p->text[t->pos] == '\'' || p->text[t->pos] == '"'))
			pq_syntax(p, p->text[t->pos] == '\'' ? "Unterminated string literal" :
					  "Unterminated quoted identifier");
		pq_syntax(p, "Unexpected character");
	}
	if (t->kind == PQT_EOF)
		pq_syntax(p, "Unexpected end of statement");
	if (tok_is_keyword(t))
		pq_syntax(p, "Unexpected keyword");
	pq_syntax(p, "Unexpected term");
}

static void
expect_punct(PqParser *p, const char *punct)
{
	if (!tok_is_punct(peek(p), punct))
		unexpected(p);
	advance(p);
}

static void
expect_word(PqParser *p, const char *word)
{
	if (!tok_is_word(peek(p), word))
		unexpected(p);
	advance(p);
}

static void
enter(PqParser *p)
{
	check_stack_depth();
	if (++p->depth > PQ_MAX_DEPTH)
		pq_syntax(p, "Statement nested too deeply");
}

static void
leave(PqParser *p)
{
	p->depth--;
}

/* a name token (bare, not a keyword, or quoted): its text, or NULL */
static bool
take_name(PqParser *p, char **name, int *len)
{
	PqToken    *t = peek(p);

	if (t->kind == PQT_QNAME || (t->kind == PQT_NAME && !tok_is_keyword(t)))
	{
		*name = t->val;
		*len = t->vallen;
		advance(p);
		return true;
	}
	return false;
}

/* ----------------------------------------------------------------
 * values
 * ----------------------------------------------------------------
 */
static bool
starts_value(PqParser *p)
{
	PqToken    *t = peek(p);

	return t->kind == PQT_STRING || t->kind == PQT_NUMBER ||
		tok_is_word(t, "TRUE") || tok_is_word(t, "FALSE") ||
		tok_is_word(t, "NULL") || tok_is_punct(t, "?") ||
		tok_is_punct(t, "[") || tok_is_punct(t, "{") || tok_is_punct(t, "<<") ||
		(tok_is_punct(t, "-") && peek_at(p, 1)->kind == PQT_NUMBER);
}

static PqValue *parse_value(PqParser *p);

static PqValue *
new_value(PqValueKind kind)
{
	PqValue    *v = palloc0(sizeof(PqValue));

	v->kind = kind;
	return v;
}

/* elements of [ ... ] or << ... >> up to the closing punctuation */
static void
parse_elements(PqParser *p, PqValue *v, const char *close)
{
	int			cap = 4;

	v->elems = palloc(sizeof(PqValue *) * cap);
	if (tok_is_punct(peek(p), close))
	{
		advance(p);
		return;
	}
	for (;;)
	{
		if (v->nelems == cap)
		{
			cap *= 2;
			v->elems = repalloc(v->elems, sizeof(PqValue *) * cap);
		}
		v->elems[v->nelems++] = parse_value(p);
		if (tok_is_punct(peek(p), ","))
		{
			advance(p);
			continue;
		}
		expect_punct(p, close);
		return;
	}
}

static PqValue *
parse_value(PqParser *p)
{
	PqToken    *t = peek(p);
	PqValue    *v;

	enter(p);
	if (t->kind == PQT_STRING)
	{
		v = new_value(PQV_STRING);
		v->str = t->val;
		v->len = t->vallen;
		advance(p);
	}
	else if (t->kind == PQT_NUMBER ||
			 (tok_is_punct(t, "-") && peek_at(p, 1)->kind == PQT_NUMBER))
	{
		bool		neg = tok_is_punct(t, "-");

		if (neg)
			advance(p);
		t = advance(p);
		v = new_value(PQV_NUMBER);
		v->str = neg ? psprintf("-%s", t->val) : t->val;
		v->len = strlen(v->str);
	}
	else if (tok_is_word(t, "TRUE") || tok_is_word(t, "FALSE"))
	{
		v = new_value(PQV_BOOL);
		v->boolean = tok_is_word(t, "TRUE");
		advance(p);
	}
	else if (tok_is_word(t, "NULL"))
	{
		v = new_value(PQV_NULL);
		advance(p);
	}
	else if (tok_is_punct(t, "?"))
	{
		v = new_value(PQV_PARAM);
		v->param = p->nparams++;
		advance(p);
	}
	else if (tok_is_punct(t, "["))
	{
		advance(p);
		v = new_value(PQV_LIST);
		parse_elements(p, v, "]");
	}
	else if (tok_is_punct(t, "<<"))
	{
		advance(p);
		v = new_value(PQV_SET);
		parse_elements(p, v, ">>");
	}
	else if (tok_is_punct(t, "{"))
	{
		int			cap = 4;

		advance(p);
		v = new_value(PQV_MAP);
		v->elems = palloc(sizeof(PqValue *) * cap);
		v->keys = palloc(sizeof(char *) * cap);
		v->keylens = palloc(sizeof(int) * cap);
		if (tok_is_punct(peek(p), "}"))
			advance(p);
		else
		{
			for (;;)
			{
				t = peek(p);
				if (t->kind != PQT_STRING)
					pq_syntax(p, "Expected a string literal as map key");
				advance(p);
				if (v->nelems == cap)
				{
					cap *= 2;
					v->elems = repalloc(v->elems, sizeof(PqValue *) * cap);
					v->keys = repalloc(v->keys, sizeof(char *) * cap);
					v->keylens = repalloc(v->keylens, sizeof(int) * cap);
				}
				v->keys[v->nelems] = t->val;
				v->keylens[v->nelems] = t->vallen;
				expect_punct(p, ":");
				v->elems[v->nelems++] = parse_value(p);
				if (tok_is_punct(peek(p), ","))
				{
					advance(p);
					continue;
				}
				expect_punct(p, "}");
				break;
			}
		}
	}
	else
		unexpected(p);
	leave(p);
	return v;
}

/* ----------------------------------------------------------------
 * paths and operands
 * ----------------------------------------------------------------
 */
static bool
starts_path(PqParser *p)
{
	PqToken    *t = peek(p);

	return t->kind == PQT_QNAME || (t->kind == PQT_NAME && !tok_is_keyword(t));
}

static PqPath *
parse_path(PqParser *p)
{
	PqPath	   *path = palloc0(sizeof(PqPath));
	int			cap = 4;
	PqPathElem *e;

	path->elems = palloc(sizeof(PqPathElem) * cap);
	e = &path->elems[path->nelems++];
	memset(e, 0, sizeof(*e));
	if (!take_name(p, &e->name, &e->namelen))
		pq_syntax(p, "Expected identifier for simple path");
	for (;;)
	{
		PqToken    *t = peek(p);

		if (!tok_is_punct(t, ".") && !tok_is_punct(t, "["))
			break;
		if (path->nelems == cap)
		{
			cap *= 2;
			path->elems = repalloc(path->elems, sizeof(PqPathElem) * cap);
		}
		e = &path->elems[path->nelems];
		memset(e, 0, sizeof(*e));
		advance(p);
		if (tok_is_punct(t, "."))
		{
			if (!take_name(p, &e->name, &e->namelen))
				pq_syntax(p, "Expected identifier for path step");
		}
		else
		{
			PqToken    *n = peek(p);
			char	   *end;
			long		idx;

			if (n->kind != PQT_NUMBER || strspn(n->val, "0123456789") != (size_t) n->vallen)
				pq_syntax(p, "Expected a list index");
			errno = 0;
			idx = strtol(n->val, &end, 10);
			if (errno != 0 || idx > INT_MAX)
				pq_syntax(p, "List index out of range");
			advance(p);
			e->is_index = true;
			e->index = (int) idx;
			expect_punct(p, "]");
		}
		path->nelems++;
	}
	return path;
}

static PqOperand *
new_operand(PqOperandKind kind)
{
	PqOperand  *o = palloc0(sizeof(PqOperand));

	o->kind = kind;
	return o;
}

/* a function name at the current token followed by "(": which one */
static bool
at_call(PqParser *p, const char *fn)
{
	return peek(p)->kind == PQT_NAME && tok_is_word(peek(p), fn) &&
		tok_is_punct(peek_at(p, 1), "(");
}

/* operand of a condition: value, path or size(path) */
static PqOperand *
parse_operand(PqParser *p)
{
	PqOperand  *o;

	if (at_call(p, "size"))
	{
		advance(p);
		advance(p);
		o = new_operand(PQO_SIZE);
		o->args[0] = new_operand(PQO_PATH);
		o->args[0]->path = parse_path(p);
		expect_punct(p, ")");
		return o;
	}
	if (starts_value(p))
	{
		o = new_operand(PQO_VALUE);
		o->value = parse_value(p);
		return o;
	}
	if (starts_path(p))
	{
		o = new_operand(PQO_PATH);
		o->path = parse_path(p);
		return o;
	}
	unexpected(p);
}

/* ----------------------------------------------------------------
 * conditions
 * ----------------------------------------------------------------
 */
static PqCond *parse_or(PqParser *p);

static PqCond *
new_cond(PqCondKind kind, int nops)
{
	PqCond	   *c = palloc0(sizeof(PqCond));

	c->kind = kind;
	c->nops = nops;
	if (nops > 0)
		c->ops = palloc0(sizeof(PqOperand *) * nops);
	return c;
}

static PqCond *
negate(PqCond *c)
{
	PqCond	   *n = new_cond(PQC_NOT, 0);

	n->left = c;
	return n;
}

/* begins_with / contains / attribute_type (name already checked) */
static PqCond *
parse_function_cond(PqParser *p, PqCondKind kind)
{
	PqCond	   *c = new_cond(kind, 2);

	advance(p);					/* name */
	advance(p);					/* ( */
	c->ops[0] = new_operand(PQO_PATH);
	c->ops[0]->path = parse_path(p);
	expect_punct(p, ",");
	c->ops[1] = parse_operand(p);
	expect_punct(p, ")");
	return c;
}

static PqCond *
parse_primary(PqParser *p)
{
	PqCond	   *c;
	PqOperand  *left;
	PqToken    *t;
	bool		not = false;

	if (tok_is_punct(peek(p), "("))
	{
		advance(p);
		c = parse_or(p);
		expect_punct(p, ")");
		return c;
	}
	if (at_call(p, "begins_with"))
		return parse_function_cond(p, PQC_BEGINS_WITH);
	if (at_call(p, "contains"))
		return parse_function_cond(p, PQC_CONTAINS);
	if (at_call(p, "attribute_type"))
		return parse_function_cond(p, PQC_ATTRIBUTE_TYPE);
	if (at_call(p, "exists") || at_call(p, "missing"))
		pq_syntax(p, "Unsupported function in this position");

	left = parse_operand(p);
	t = peek(p);
	if (tok_is_word(t, "IS"))
	{
		advance(p);
		if (tok_is_word(peek(p), "NOT"))
		{
			advance(p);
			not = true;
		}
		if (tok_is_word(peek(p), "NULL"))
			DynValidation("Unsupported operation: IS [NOT] NULL is not supported; use IS [NOT] MISSING or attribute_type(path, 'NULL')");
		expect_word(p, "MISSING");
		if (left->kind != PQO_PATH)
			DynValidation("Unsupported operation: IS [NOT] MISSING applies to a document path only");
		c = new_cond(not ? PQC_NOT_MISSING : PQC_MISSING, 1);
		c->ops[0] = left;
		return c;
	}
	if (tok_is_word(t, "NOT") &&
		(tok_is_word(peek_at(p, 1), "BETWEEN") || tok_is_word(peek_at(p, 1), "IN")))
	{
		advance(p);
		not = true;
		t = peek(p);
	}
	if (tok_is_word(t, "BETWEEN"))
	{
		advance(p);
		c = new_cond(PQC_BETWEEN, 3);
		c->ops[0] = left;
		c->ops[1] = parse_operand(p);
		expect_word(p, "AND");
		c->ops[2] = parse_operand(p);
		return not ? negate(c) : c;
	}
	if (tok_is_word(t, "IN"))
	{
		const char *close;
		int			cap = 4;

		advance(p);
		if (tok_is_punct(peek(p), "["))
			close = "]";
		else if (tok_is_punct(peek(p), "("))
			close = ")";
		else
			unexpected(p);
		advance(p);
		c = new_cond(PQC_IN, 0);
		c->ops = palloc(sizeof(PqOperand *) * cap);
		c->ops[c->nops++] = left;
		for (;;)
		{
			if (c->nops == cap)
			{
				cap *= 2;
				c->ops = repalloc(c->ops, sizeof(PqOperand *) * cap);
			}
			c->ops[c->nops++] = parse_operand(p);
			if (tok_is_punct(peek(p), ","))
			{
				advance(p);
				continue;
			}
			expect_punct(p, close);
			break;
		}
		return not ? negate(c) : c;
	}
	if (t->kind == PQT_PUNCT)
	{
		static const struct
		{
			const char *text;
			CompareOp	op;
		}			ops[] = {
			{"=", CMP_EQ}, {"<>", CMP_NE}, {"!=", CMP_NE}, {"<", CMP_LT},
			{"<=", CMP_LE}, {">", CMP_GT}, {">=", CMP_GE}
		};
		int			i;

		for (i = 0; i < (int) lengthof(ops); i++)
		{
			if (strcmp(t->val, ops[i].text) == 0)
			{
				advance(p);
				c = new_cond(PQC_COMPARE, 2);
				c->op = ops[i].op;
				c->ops[0] = left;
				c->ops[1] = parse_operand(p);
				return c;
			}
		}
	}
	unexpected(p);
}

static PqCond *
parse_not(PqParser *p)
{
	PqCond	   *c;

	enter(p);
	if (tok_is_word(peek(p), "NOT"))
	{
		advance(p);
		c = negate(parse_not(p));
	}
	else
		c = parse_primary(p);
	leave(p);
	return c;
}

static PqCond *
parse_and(PqParser *p)
{
	PqCond	   *c = parse_not(p);

	while (tok_is_word(peek(p), "AND"))
	{
		PqCond	   *n = new_cond(PQC_AND, 0);

		advance(p);
		n->left = c;
		n->right = parse_not(p);
		c = n;
	}
	return c;
}

static PqCond *
parse_or(PqParser *p)
{
	PqCond	   *c;

	enter(p);
	c = parse_and(p);
	while (tok_is_word(peek(p), "OR"))
	{
		PqCond	   *n = new_cond(PQC_OR, 0);

		advance(p);
		n->left = c;
		n->right = parse_and(p);
		c = n;
	}
	leave(p);
	return c;
}

/* ----------------------------------------------------------------
 * UPDATE's right-hand sides
 * ----------------------------------------------------------------
 */
static PqOperand *parse_rhs(PqParser *p);

static PqOperand *
parse_term(PqParser *p)
{
	static const struct
	{
		const char *name;
		PqOperandKind kind;
	}			fns[] = {
		{"list_append", PQO_LIST_APPEND},
		{"if_not_exists", PQO_IF_NOT_EXISTS},
		{"set_add", PQO_SET_ADD},
		{"set_delete", PQO_SET_DELETE}
	};
	PqOperand  *o;
	int			i;

	enter(p);
	for (i = 0; i < (int) lengthof(fns); i++)
	{
		if (at_call(p, fns[i].name))
		{
			advance(p);
			advance(p);
			o = new_operand(fns[i].kind);
			o->args[0] = parse_rhs(p);
			expect_punct(p, ",");
			o->args[1] = parse_rhs(p);
			expect_punct(p, ")");
			leave(p);
			return o;
		}
	}
	if (tok_is_punct(peek(p), "("))
	{
		advance(p);
		o = parse_rhs(p);
		expect_punct(p, ")");
	}
	else if (at_call(p, "size"))
		pq_syntax(p, "Unsupported function in this position");
	else
		o = parse_operand(p);
	leave(p);
	return o;
}

static PqOperand *
parse_rhs(PqParser *p)
{
	PqOperand  *o;

	enter(p);
	o = parse_term(p);
	if (tok_is_punct(peek(p), "+") || tok_is_punct(peek(p), "-"))
	{
		PqOperand  *n = new_operand(tok_is_punct(peek(p), "+") ? PQO_PLUS : PQO_MINUS);

		advance(p);
		n->args[0] = o;
		n->args[1] = parse_term(p);
		o = n;
	}
	leave(p);
	return o;
}

/* ----------------------------------------------------------------
 * statements
 * ----------------------------------------------------------------
 */

/* "table" or table */
static char *
parse_table(PqParser *p)
{
	char	   *name;
	int			len;

	if (!take_name(p, &name, &len))
		pq_syntax(p, "Expected a table name");
	return pnstrdup(name, len);
}

static void
parse_where(PqParser *p, PqStatement *st, bool required)
{
	if (tok_is_word(peek(p), "WHERE"))
	{
		advance(p);
		st->where = parse_or(p);
	}
	else if (required)
		pq_syntax(p, "Expected WHERE clause");
}

static void
parse_select(PqParser *p, PqStatement *st)
{
	int			cap = 4;

	st->kind = PQS_SELECT;
	expect_word(p, "SELECT");
	if (at_call(p, "COUNT"))
		DynValidation("Unsupported operation: COUNT(*) is not supported");
	if (tok_is_punct(peek(p), "*"))
		advance(p);
	else
	{
		st->proj = palloc(sizeof(PqPath *) * cap);
		for (;;)
		{
			if (st->nproj == cap)
			{
				cap *= 2;
				st->proj = repalloc(st->proj, sizeof(PqPath *) * cap);
			}
			st->proj[st->nproj++] = parse_path(p);
			if (!tok_is_punct(peek(p), ","))
				break;
			advance(p);
		}
	}
	expect_word(p, "FROM");
	st->table = parse_table(p);
	if (tok_is_punct(peek(p), "."))
	{
		advance(p);
		st->index = parse_table(p);
	}
	parse_where(p, st, false);
	if (tok_is_word(peek(p), "ORDER"))
	{
		advance(p);
		expect_word(p, "BY");
		st->order_by = parse_path(p);
		if (tok_is_word(peek(p), "ASC"))
			advance(p);
		else if (tok_is_word(peek(p), "DESC"))
		{
			advance(p);
			st->order_desc = true;
		}
	}
}

static PqReturning
parse_returning(PqParser *p)
{
	bool		all;
	bool		old;

	if (!tok_is_word(peek(p), "RETURNING"))
		return PQR_NONE;
	advance(p);
	if (tok_is_word(peek(p), "ALL"))
		all = true;
	else if (tok_is_word(peek(p), "MODIFIED"))
		all = false;
	else
		unexpected(p);
	advance(p);
	if (tok_is_word(peek(p), "OLD"))
		old = true;
	else if (tok_is_word(peek(p), "NEW"))
		old = false;
	else
		unexpected(p);
	advance(p);
	expect_punct(p, "*");
	if (all)
		return old ? PQR_ALL_OLD : PQR_ALL_NEW;
	return old ? PQR_MODIFIED_OLD : PQR_MODIFIED_NEW;
}

static void
add_action(PqStatement *st, int *cap, PqUpdKind kind, PqPath *path, PqOperand *rhs)
{
	if (st->nactions == *cap)
	{
		*cap *= 2;
		st->actions = repalloc(st->actions, sizeof(PqUpdAction) * *cap);
	}
	st->actions[st->nactions].kind = kind;
	st->actions[st->nactions].path = path;
	st->actions[st->nactions].rhs = rhs;
	st->nactions++;
}

static void
parse_update(PqParser *p, PqStatement *st)
{
	int			cap = 4;

	st->kind = PQS_UPDATE;
	expect_word(p, "UPDATE");
	st->table = parse_table(p);
	st->actions = palloc(sizeof(PqUpdAction) * cap);
	for (;;)
	{
		bool		set = tok_is_word(peek(p), "SET");

		if (!set && !tok_is_word(peek(p), "REMOVE"))
			break;
		advance(p);
		for (;;)
		{
			PqPath	   *path = parse_path(p);

			if (set)
			{
				expect_punct(p, "=");
				add_action(st, &cap, PQU_SET, path, parse_rhs(p));
			}
			else
				add_action(st, &cap, PQU_REMOVE, path, NULL);
			if (!tok_is_punct(peek(p), ","))
				break;
			advance(p);
		}
	}
	if (st->nactions == 0)
		pq_syntax(p, "Expected SET or REMOVE");
	parse_where(p, st, true);
	st->returning = parse_returning(p);
}

static void
parse_statement(PqParser *p, PqStatement *st)
{
	PqToken    *t = peek(p);

	if (tok_is_word(t, "SELECT"))
		parse_select(p, st);
	else if (tok_is_word(t, "INSERT"))
	{
		st->kind = PQS_INSERT;
		advance(p);
		expect_word(p, "INTO");
		st->table = parse_table(p);
		expect_word(p, "VALUE");
		st->item = parse_value(p);
		if (tok_is_word(peek(p), "IF"))
			DynValidation("Unsupported operation: INSERT ... IF NOT EXISTS is not supported");
	}
	else if (tok_is_word(t, "UPDATE"))
		parse_update(p, st);
	else if (tok_is_word(t, "DELETE"))
	{
		st->kind = PQS_DELETE;
		advance(p);
		expect_word(p, "FROM");
		st->table = parse_table(p);
		parse_where(p, st, true);
		st->returning = parse_returning(p);
	}
	else if (at_call(p, "EXISTS"))
	{
		advance(p);
		advance(p);
		parse_select(p, st);
		expect_punct(p, ")");
		st->kind = PQS_EXISTS;
	}
	else
		DynValidation(PQ_SYNTAX_PREFIX "Expected data manipulation");
}

PqStatement *
PqParse(const char *text, int len)
{
	PqParser	p;
	PqStatement *st = palloc0(sizeof(PqStatement));

	memset(&p, 0, sizeof(p));
	p.text = text;
	p.len = len;
	p.toks = pq_tokenize(text, len, &p.ntoks);
	parse_statement(&p, st);
	if (peek(&p)->kind != PQT_EOF)
		unexpected(&p);
	st->nparams = p.nparams;
	return st;
}
