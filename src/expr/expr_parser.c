/*-------------------------------------------------------------------------
 *
 * expr_parser.c
 *		Recursive-descent parser for DynamoDB's condition, filter, key
 *		condition, update and projection expressions.
 *
 * Parsing happens in two phases, because DynamoDB reports errors in an
 * order that has nothing to do with where they sit in the text:
 *
 *	1. Syntax.  The token array (expr_lexer.c) is parsed into a raw tree
 *	   (RawNode) that keeps token positions but resolves nothing.  A syntax
 *	   error is raised at once: DynamoDB reports it before anything else.
 *	   This phase also counts operators, notes redundant parentheses and
 *	   list indexes out of range, and (for updates) repeated clauses.
 *
 *	2. Validation and construction.  The raw tree is checked in DynamoDB's
 *	   order of precedence, each check in the order DynamoDB visits the
 *	   tree, and the first failing check of the highest class is raised.
 *	   Conditions:
 *		  list index range > operator count (300) > redundant parentheses >
 *		  function names > functions used in the wrong place > reserved
 *		  words > the first "leaf" condition (comparison, BETWEEN, IN,
 *		  function) with a problem > OR/NOT in a key condition.
 *	   Within a leaf: undefined #name/:value (and path depth) > operand
 *	   counts > identical operands > operand types, each in post-order
 *	   (a function's arguments before the function).  Updates:
 *		  list index > operators > parentheses > function names > nested
 *		  list_append > reserved words > repeated clause > undefined #names
 *		  > undefined :values > overlapping paths > conflicting paths >
 *		  ADD/DELETE operand types > function operand counts and types.
 *	   Projections: list index > reserved words > undefined #names >
 *	   overlapping paths > conflicting paths.
 *	   The order follows what implementations tested against the live
 *	   service record; where nothing is recorded it is our choice.
 *	   Once everything passed, the public tree of expr.h is built, with
 *	   #names and :values resolved and marked used in ExprPlaceholders.
 *
 * Grammar (reference §3.4, §3.8, §3.9), with the extensions DynamoDB
 * accepts: parentheses around operands ("(a) = :v", "(a.b).c"), and one
 * pair of parentheses around a SET right-hand side:
 *
 *	  cond	  := and (OR and)*
 *	  and	  := not (AND not)*
 *	  not	  := NOT not | primary
 *	  primary := "(" cond ")" | operand cmp operand
 *			   | operand BETWEEN operand AND operand
 *			   | operand IN "(" operand ("," operand)* ")" | call
 *	  operand := "(" operand ")" ["." ... path continuation] | path | :v
 *			   | call
 *	  call	  := name "(" operand ("," operand)* ")"
 *	  path	  := element ("." element | "[" digits "]")*
 *	  update  := (SET set ("," set)* | REMOVE path ("," path)*
 *				 | ADD path :v ("," path :v)* | DELETE path :v (...)*)+
 *	  set	  := path "=" rhs
 *	  rhs	  := term | term "+" term | term "-" term
 *	  term	  := "(" rhs ")" (at the top) | "(" term ")" | path | :v | call
 *	  projection := path ("," path)*
 *
 * A syntax error quotes the offending token ("<EOF>" at the end) and, as
 * "near", the text from the start of the token before it to the end of the
 * token after it, which is what DynamoDB prints.  The operators counted
 * against the limit of 300 are comparisons, BETWEEN, IN, AND, OR, NOT and
 * an update's + and -; function calls are not counted (DynamoDB reports
 * "a < f(f(...))" nested 1355 deep for its function name, not its size).
 *
 * XXX Two messages have no recorded DynamoDB wording and are modelled on
 * its others: more than 100 IN operands ("The IN operator is provided with
 * too many operands; number of operands: N") and the "type" printed for a
 * path given as attribute_type's second operand.
 *
 * A bare operand is not a condition: "a" alone is a syntax error at the
 * token after it; a call in condition position is a function condition
 * whose name is checked in phase 2 (so "size(a)" alone is a "not allowed
 * this way" error, not a syntax error).
 *
 * Recursion depth is bounded by the 4096-byte limit (at most one level
 * per token) and guarded by check_stack_depth().  Everything is palloc'd
 * in the caller's memory context.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"

#include "errors.h"
#include "expr.h"

/* ----------------------------------------------------------------
 * raw trees (phase 1)
 * ----------------------------------------------------------------
 */
typedef enum RawKind
{
	RAW_PATH,
	RAW_VALUE,
	RAW_CALL,
	RAW_PLUS,
	RAW_MINUS,
	RAW_COMPARE,
	RAW_BETWEEN,
	RAW_IN,
	RAW_AND,
	RAW_OR,
	RAW_NOT
} RawKind;

typedef struct RawElem
{
	int			tok;			/* token of the name, #name or index digits */
	bool		is_index;
	int			index;
} RawElem;

typedef struct RawNode
{
	RawKind		kind;
	int			tok;			/* operator, function name or :value token;
								 * first token of a path */
	CompareOp	op;				/* RAW_COMPARE */
	int			nargs;			/* operands, arguments or sub-conditions */
	struct RawNode **args;
	int			nelems;			/* RAW_PATH */
	int			elems_cap;
	RawElem    *elems;
	int			parens;			/* parentheses directly around the node */
	bool		as_cond;		/* RAW_CALL used as a condition */
} RawNode;

typedef struct RawAction
{
	UpdateActionKind kind;
	RawNode    *path;
	RawNode    *value;			/* NULL for REMOVE */
} RawAction;

typedef struct ExprParser
{
	const char *text;
	ExprKind	kind;
	ExprToken  *toks;
	int			ntoks;
	int			pos;
	ExprPlaceholders *ph;

	/* noted during phase 1, reported in phase 2 */
	int			noperators;
	bool		redundant_parens;
	char	   *index_error;
	int			dup_clause;		/* first repeated clause, or -1 */
	bool		seen_clause[4];

	/* update and projection lists */
	int			nactions;
	int			actions_cap;
	RawAction  *actions;
} ExprParser;

static const char *const clause_names[] = {"SET", "REMOVE", "ADD", "DELETE"};
static const char *const compare_names[] = {"=", "<>", "<", "<=", ">", ">="};

/* ----------------------------------------------------------------
 * functions
 * ----------------------------------------------------------------
 */
typedef enum FuncKind
{
	FN_UNKNOWN,
	FN_ATTRIBUTE_EXISTS,
	FN_ATTRIBUTE_NOT_EXISTS,
	FN_ATTRIBUTE_TYPE,
	FN_BEGINS_WITH,
	FN_CONTAINS,
	FN_SIZE,
	FN_IF_NOT_EXISTS,
	FN_LIST_APPEND
} FuncKind;

typedef struct FuncDef
{
	const char *name;			/* case-sensitive */
	FuncKind	fn;
	int			nargs;
	bool		in_condition;	/* usable in conditions (else in updates) */
} FuncDef;

static const FuncDef functions[] = {
	{"attribute_exists", FN_ATTRIBUTE_EXISTS, 1, true},
	{"attribute_not_exists", FN_ATTRIBUTE_NOT_EXISTS, 1, true},
	{"attribute_type", FN_ATTRIBUTE_TYPE, 2, true},
	{"begins_with", FN_BEGINS_WITH, 2, true},
	{"contains", FN_CONTAINS, 2, true},
	{"size", FN_SIZE, 1, true},
	{"if_not_exists", FN_IF_NOT_EXISTS, 2, false},
	{"list_append", FN_LIST_APPEND, 2, false},
	{NULL, FN_UNKNOWN, 0, false}
};

#define ATTRIBUTE_TYPE_NAMES "{B,NULL,SS,BOOL,L,BS,N,NS,S,M}"
/* what DynamoDB prints as the "type" of a path given to attribute_type */
#define ANY_TYPE_NAMES "{NS,SS,L,BS,N,M,B,BOOL,NULL,S}"

/* ----------------------------------------------------------------
 * helpers
 * ----------------------------------------------------------------
 */

/* token access: the current token, kinds around it, text of a token */
static inline ExprToken *
cur(ExprParser *p)
{
	return &p->toks[p->pos];
}

static inline ExprTokenKind
cur_kind(ExprParser *p)
{
	return p->toks[p->pos].kind;
}

static inline ExprTokenKind
next_kind(ExprParser *p)
{
	return p->pos + 1 < p->ntoks ? p->toks[p->pos + 1].kind : ETOK_EOF;
}

static inline void
advance(ExprParser *p)
{
	if (p->toks[p->pos].kind != ETOK_EOF)
		p->pos++;
}

static inline const char *
tok_text(ExprParser *p, int tok)
{
	return p->text + p->toks[tok].start;
}

static inline int
tok_len(ExprParser *p, int tok)
{
	return p->toks[tok].len;
}

pg_noreturn static void expr_error(ExprParser *p, const char *msg);
pg_noreturn static void syntax_error(ExprParser *p);

/*
 * expr_error
 *		Raise ValidationException "Invalid <Kind>: <msg>".
 */
static void
expr_error(ExprParser *p, const char *msg)
{
	DynValidation("Invalid %s: %s", ExprKindName(p->kind), msg);
}

/*
 * syntax_error
 *		Raise DynamoDB's syntax error at the current token: the token, and
 *		the text from the start of the previous token to the end of the
 *		next one.
 */
static void
syntax_error(ExprParser *p)
{
	ExprToken  *t = cur(p);
	int			from = p->pos > 0 ? p->toks[p->pos - 1].start : t->start;
	int			to;

	if (p->pos + 1 < p->ntoks)
		to = p->toks[p->pos + 1].start + p->toks[p->pos + 1].len;
	else
		to = t->start + t->len;

	if (t->kind == ETOK_EOF)
		DynValidation("Invalid %s: Syntax error; token: \"<EOF>\", near: \"%.*s\"",
					  ExprKindName(p->kind), to - from, p->text + from);
	DynValidation("Invalid %s: Syntax error; token: \"%.*s\", near: \"%.*s\"",
				  ExprKindName(p->kind), t->len, p->text + t->start,
				  to - from, p->text + from);
	pg_unreachable();
}

/* consume a token of the given kind, else a syntax error */
static void
expect(ExprParser *p, ExprTokenKind kind)
{
	if (cur_kind(p) != kind)
		syntax_error(p);
	advance(p);
}

/* a new raw node; everything else zeroed */
static RawNode *
raw_new(RawKind kind, int tok)
{
	RawNode    *n = palloc0(sizeof(RawNode));

	n->kind = kind;
	n->tok = tok;
	return n;
}

/* append an operand to n->args, growing it (*cap is its capacity) */
static void
raw_add_arg(RawNode *n, RawNode *arg, int *cap)
{
	if (n->nargs >= *cap)
	{
		*cap = *cap ? *cap * 2 : 4;
		n->args = n->args ? repalloc(n->args, *cap * sizeof(RawNode *))
			: palloc(*cap * sizeof(RawNode *));
	}
	n->args[n->nargs++] = arg;
}

/* a raw node with two operands */
static RawNode *
raw_binary(RawKind kind, int tok, RawNode *a, RawNode *b)
{
	RawNode    *n = raw_new(kind, tok);

	n->nargs = 2;
	n->args = palloc(2 * sizeof(RawNode *));
	n->args[0] = a;
	n->args[1] = b;
	return n;
}

/* append a path element */
static void
raw_add_elem(RawNode *n, int tok, bool is_index, int index)
{
	if (n->nelems >= n->elems_cap)
	{
		n->elems_cap = n->elems_cap ? n->elems_cap * 2 : 4;
		n->elems = n->elems ? repalloc(n->elems, n->elems_cap * sizeof(RawElem))
			: palloc(n->elems_cap * sizeof(RawElem));
	}
	n->elems[n->nelems].tok = tok;
	n->elems[n->nelems].is_index = is_index;
	n->elems[n->nelems].index = index;
	n->nelems++;
}

/* is the node an operand (as opposed to a condition)? */
static inline bool
is_operand_node(const RawNode *n)
{
	return n->kind == RAW_PATH || n->kind == RAW_VALUE ||
		(n->kind == RAW_CALL && !n->as_cond);
}

/* = <> < <= > >= */
static inline bool
is_comparator(ExprTokenKind k)
{
	return k >= ETOK_EQ && k <= ETOK_GE;
}

/* the CompareOp of a comparator token */
static CompareOp
comparator_op(ExprTokenKind k)
{
	switch (k)
	{
		case ETOK_EQ:
			return CMP_EQ;
		case ETOK_NE:
			return CMP_NE;
		case ETOK_LT:
			return CMP_LT;
		case ETOK_LE:
			return CMP_LE;
		case ETOK_GT:
			return CMP_GT;
		default:
			return CMP_GE;
	}
}

/* the function called name (case-sensitive), or NULL */
static const FuncDef *
lookup_function(const char *name, int len)
{
	const FuncDef *f;

	for (f = functions; f->name != NULL; f++)
	{
		if ((int) strlen(f->name) == len && memcmp(f->name, name, len) == 0)
			return f;
	}
	return NULL;
}

/* the function a RAW_CALL calls, or NULL when unknown */
static const FuncDef *
call_function(ExprParser *p, const RawNode *n)
{
	return lookup_function(tok_text(p, n->tok), tok_len(p, n->tok));
}

/* the name a RAW_CALL calls, palloc'd */
static char *
call_name(ExprParser *p, const RawNode *n)
{
	return pnstrdup(tok_text(p, n->tok), tok_len(p, n->tok));
}

/* ----------------------------------------------------------------
 * phase 1: syntax
 * ----------------------------------------------------------------
 */

/*
 * parse_path_tail
 *		Append ".name", ".#name" and "[digits]" elements at the current
 *		position to path n.
 */
static void
parse_path_tail(ExprParser *p, RawNode *n)
{
	for (;;)
	{
		ExprTokenKind k = cur_kind(p);

		CHECK_FOR_INTERRUPTS();
		if (k == ETOK_DOT)
		{
			advance(p);
			if (cur_kind(p) != ETOK_NAME && cur_kind(p) != ETOK_NAME_REF)
				syntax_error(p);
			raw_add_elem(n, p->pos, false, 0);
			advance(p);
		}
		else if (k == ETOK_LBRACKET)
		{
			int64		index = 0;
			int			tok;
			int			i;

			advance(p);
			if (cur_kind(p) != ETOK_NUMBER)
				syntax_error(p);
			tok = p->pos;
			for (i = 0; i < tok_len(p, tok); i++)
			{
				index = index * 10 + (tok_text(p, tok)[i] - '0');
				if (index > INT_MAX)
					break;
			}
			if (index > INT_MAX)
			{
				if (p->index_error == NULL)
					p->index_error = "List index is not within the allowable range";
				index = 0;
			}
			advance(p);
			expect(p, ETOK_RBRACKET);
			raw_add_elem(n, tok, true, (int) index);
		}
		else
			break;
	}
}

/*
 * parse_path
 *		A document path starting at the current (name or #name) token.
 */
static RawNode *
parse_path(ExprParser *p)
{
	RawNode    *n;

	if (cur_kind(p) != ETOK_NAME && cur_kind(p) != ETOK_NAME_REF)
		syntax_error(p);
	n = raw_new(RAW_PATH, p->pos);
	raw_add_elem(n, p->pos, false, 0);
	advance(p);
	parse_path_tail(p, n);
	return n;
}

static RawNode *parse_operand(ExprParser *p);
static RawNode *parse_update_term(ExprParser *p, bool top);

/*
 * parse_call
 *		name "(" argument ("," argument)* ")"; arguments are condition
 *		operands, or update terms when in_update.
 */
static RawNode *
parse_call(ExprParser *p, bool in_update)
{
	RawNode    *n = raw_new(RAW_CALL, p->pos);
	int			cap = 0;

	check_stack_depth();
	advance(p);					/* the name */
	expect(p, ETOK_LPAREN);
	for (;;)
	{
		raw_add_arg(n, in_update ? parse_update_term(p, false) : parse_operand(p),
					&cap);
		if (cur_kind(p) != ETOK_COMMA)
			break;
		advance(p);
	}
	expect(p, ETOK_RPAREN);
	return n;
}

/*
 * parse_operand_atom
 *		A path, a :value or a function call.
 */
static RawNode *
parse_operand_atom(ExprParser *p, bool in_update)
{
	RawNode    *n;

	switch (cur_kind(p))
	{
		case ETOK_VALUE_REF:
			n = raw_new(RAW_VALUE, p->pos);
			advance(p);
			return n;
		case ETOK_NAME:
			if (next_kind(p) == ETOK_LPAREN)
				return parse_call(p, in_update);
			return parse_path(p);
		case ETOK_NAME_REF:
			return parse_path(p);
		default:
			syntax_error(p);
	}
	return NULL;				/* keep compiler quiet */
}

/*
 * close_group
 *		Bookkeeping for a node that was just found inside a pair of
 *		parentheses: a second pair directly around it is redundant; a path
 *		in parentheses may go on with ".x" / "[i]" (conditions only).
 */
static RawNode *
close_group(ExprParser *p, RawNode *n, bool path_may_continue)
{
	if (n->parens > 0)
		p->redundant_parens = true;
	n->parens++;
	if (path_may_continue && n->kind == RAW_PATH &&
		(cur_kind(p) == ETOK_DOT || cur_kind(p) == ETOK_LBRACKET))
	{
		parse_path_tail(p, n);
		n->parens = 0;			/* the parentheses no longer enclose it all */
	}
	return n;
}

/*
 * parse_operand
 *		An operand of a comparison, BETWEEN, IN or function: an atom,
 *		possibly in parentheses.
 */
static RawNode *
parse_operand(ExprParser *p)
{
	RawNode    *n;

	check_stack_depth();
	if (cur_kind(p) != ETOK_LPAREN)
		return parse_operand_atom(p, false);
	advance(p);
	n = parse_operand(p);
	expect(p, ETOK_RPAREN);
	return close_group(p, n, true);
}

static RawNode *parse_or(ExprParser *p, bool allow_bare);

/*
 * operand_tail
 *		What follows the first operand of a condition: a comparison,
 *		BETWEEN or IN.  Failing those, a call is a function condition; with
 *		allow_bare, an operand directly followed by ")" is handed back to
 *		the enclosing parentheses (which may be around an operand).
 */
static RawNode *
operand_tail(ExprParser *p, RawNode *left, bool allow_bare)
{
	ExprTokenKind k = cur_kind(p);
	RawNode    *n;
	int			cap;

	if (is_comparator(k))
	{
		n = raw_new(RAW_COMPARE, p->pos);
		n->op = comparator_op(k);
		p->noperators++;
		advance(p);
		cap = 2;
		n->args = palloc(cap * sizeof(RawNode *));
		n->args[n->nargs++] = left;
		n->args[n->nargs++] = parse_operand(p);
		return n;
	}
	if (k == ETOK_BETWEEN)
	{
		n = raw_new(RAW_BETWEEN, p->pos);
		p->noperators++;
		advance(p);
		cap = 3;
		n->args = palloc(cap * sizeof(RawNode *));
		n->args[n->nargs++] = left;
		n->args[n->nargs++] = parse_operand(p);
		/* the first AND after BETWEEN is BETWEEN's */
		expect(p, ETOK_AND);
		n->args[n->nargs++] = parse_operand(p);
		return n;
	}
	if (k == ETOK_IN)
	{
		n = raw_new(RAW_IN, p->pos);
		p->noperators++;
		advance(p);
		cap = 0;
		raw_add_arg(n, left, &cap);
		expect(p, ETOK_LPAREN);
		for (;;)
		{
			CHECK_FOR_INTERRUPTS();
			raw_add_arg(n, parse_operand(p), &cap);
			if (cur_kind(p) != ETOK_COMMA)
				break;
			advance(p);
		}
		expect(p, ETOK_RPAREN);
		return n;
	}
	if (left->kind == RAW_CALL)
	{
		/* "(f(x))": let the parentheses decide, they may be an operand's */
		if (!(allow_bare && k == ETOK_RPAREN))
			left->as_cond = true;
		return left;
	}
	if (allow_bare && k == ETOK_RPAREN)
		return left;
	syntax_error(p);
	return NULL;				/* keep compiler quiet */
}

/*
 * parse_primary
 *		A parenthesised condition, a comparison/BETWEEN/IN, or a function
 *		condition.
 */
static RawNode *
parse_primary(ExprParser *p, bool allow_bare)
{
	RawNode    *n;

	check_stack_depth();
	if (cur_kind(p) != ETOK_LPAREN)
		return operand_tail(p, parse_operand_atom(p, false), allow_bare);

	advance(p);
	n = parse_or(p, true);
	expect(p, ETOK_RPAREN);
	if (!is_operand_node(n))
	{
		/* a condition in parentheses */
		if (n->parens > 0)
			p->redundant_parens = true;
		n->parens++;
		return n;
	}
	/* an operand in parentheses, or a function condition */
	n = close_group(p, n, true);
	if (n->kind == RAW_CALL && !is_comparator(cur_kind(p)) &&
		cur_kind(p) != ETOK_BETWEEN && cur_kind(p) != ETOK_IN &&
		!(allow_bare && cur_kind(p) == ETOK_RPAREN))
	{
		n->as_cond = true;
		return n;
	}
	return operand_tail(p, n, allow_bare);
}

/*
 * parse_not
 *		NOT binds looser than comparisons and tighter than AND.
 */
static RawNode *
parse_not(ExprParser *p, bool allow_bare)
{
	RawNode    *n;

	check_stack_depth();
	if (cur_kind(p) != ETOK_NOT)
		return parse_primary(p, allow_bare);
	n = raw_new(RAW_NOT, p->pos);
	p->noperators++;
	advance(p);
	n->nargs = 1;
	n->args = palloc(sizeof(RawNode *));
	n->args[0] = parse_not(p, false);
	return n;
}

/*
 * parse_and, parse_or
 *		Left-associative chains.  With allow_bare (directly inside
 *		parentheses) the first term may be a bare operand, which is then
 *		followed by ")" and returned as is.
 */
static RawNode *
parse_and(ExprParser *p, bool allow_bare)
{
	RawNode    *n = parse_not(p, allow_bare);

	while (cur_kind(p) == ETOK_AND)
	{
		int			tok = p->pos;

		CHECK_FOR_INTERRUPTS();
		p->noperators++;
		advance(p);
		n = raw_binary(RAW_AND, tok, n, parse_not(p, false));
	}
	return n;
}

static RawNode *
parse_or(ExprParser *p, bool allow_bare)
{
	RawNode    *n;

	check_stack_depth();
	n = parse_and(p, allow_bare);
	while (cur_kind(p) == ETOK_OR)
	{
		int			tok = p->pos;

		CHECK_FOR_INTERRUPTS();
		p->noperators++;
		advance(p);
		n = raw_binary(RAW_OR, tok, n, parse_and(p, false));
	}
	return n;
}

/*
 * parse_update_term
 *		An operand of a SET right-hand side.  At the top (top = true) a
 *		parenthesised term may hold a whole "x + y"; anywhere else
 *		parentheses hold a single term.
 */
static RawNode *parse_set_rhs(ExprParser *p);

static RawNode *
parse_update_term(ExprParser *p, bool top)
{
	RawNode    *n;

	check_stack_depth();
	if (cur_kind(p) != ETOK_LPAREN)
		return parse_operand_atom(p, true);
	advance(p);
	n = top ? parse_set_rhs(p) : parse_update_term(p, false);
	expect(p, ETOK_RPAREN);
	return close_group(p, n, false);
}

/*
 * parse_set_rhs
 *		term | term "+" term | term "-" term
 */
static RawNode *
parse_set_rhs(ExprParser *p)
{
	RawNode    *left = parse_update_term(p, true);
	int			tok = p->pos;
	RawKind		kind;

	if (cur_kind(p) == ETOK_PLUS)
		kind = RAW_PLUS;
	else if (cur_kind(p) == ETOK_MINUS)
		kind = RAW_MINUS;
	else
		return left;
	/* "(a + b) + c" is as invalid as "a + b + c" */
	if (left->kind == RAW_PLUS || left->kind == RAW_MINUS)
		syntax_error(p);
	p->noperators++;
	advance(p);
	return raw_binary(kind, tok, left, parse_update_term(p, false));
}

/* append an update action (or projected path) to the parser's list */
static void
add_action(ExprParser *p, UpdateActionKind kind, RawNode *path, RawNode *value)
{
	if (p->nactions >= p->actions_cap)
	{
		p->actions_cap = p->actions_cap ? p->actions_cap * 2 : 8;
		p->actions = p->actions ?
			repalloc(p->actions, p->actions_cap * sizeof(RawAction)) :
			palloc(p->actions_cap * sizeof(RawAction));
	}
	p->actions[p->nactions].kind = kind;
	p->actions[p->nactions].path = path;
	p->actions[p->nactions].value = value;
	p->nactions++;
}

/*
 * parse_update_syntax
 *		Clauses in any order, each a comma-separated list of actions.
 */
static void
parse_update_syntax(ExprParser *p)
{
	while (cur_kind(p) != ETOK_EOF)
	{
		UpdateActionKind kind;

		switch (cur_kind(p))
		{
			case ETOK_SET:
				kind = UPD_SET;
				break;
			case ETOK_REMOVE:
				kind = UPD_REMOVE;
				break;
			case ETOK_ADD:
				kind = UPD_ADD;
				break;
			case ETOK_DELETE:
				kind = UPD_DELETE;
				break;
			default:
				syntax_error(p);
		}
		if (p->seen_clause[kind] && p->dup_clause < 0)
			p->dup_clause = kind;
		p->seen_clause[kind] = true;
		advance(p);

		for (;;)
		{
			RawNode    *path;
			RawNode    *value = NULL;

			CHECK_FOR_INTERRUPTS();
			path = parse_path(p);
			if (kind == UPD_SET)
			{
				expect(p, ETOK_EQ);
				value = parse_set_rhs(p);
			}
			else if (kind == UPD_ADD || kind == UPD_DELETE)
			{
				if (cur_kind(p) != ETOK_VALUE_REF)
					syntax_error(p);
				value = raw_new(RAW_VALUE, p->pos);
				advance(p);
			}
			add_action(p, kind, path, value);
			if (cur_kind(p) != ETOK_COMMA)
				break;
			advance(p);
		}
	}
}

/*
 * parse_projection_syntax
 *		path ("," path)*, kept as REMOVE-like actions.
 */
static void
parse_projection_syntax(ExprParser *p)
{
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		add_action(p, UPD_REMOVE, parse_path(p), NULL);
		if (cur_kind(p) != ETOK_COMMA)
			break;
		advance(p);
	}
	if (cur_kind(p) != ETOK_EOF)
		syntax_error(p);
}

/* ----------------------------------------------------------------
 * phase 2: checks common to all kinds
 * ----------------------------------------------------------------
 */

/*
 * check_parse_notes
 *		The problems phase 1 noted, in this order: a list index out of
 *		range, too many operators, redundant parentheses.
 */
static void
check_parse_notes(ExprParser *p)
{
	if (p->index_error)
		expr_error(p, p->index_error);
	if (p->noperators > EXPR_MAX_OPERATORS)
		expr_error(p, psprintf("The expression contains too many operators; operator count: %d",
							   p->noperators));
	if (p->redundant_parens)
		expr_error(p, "The expression has redundant parentheses;");
}

/*
 * check_function_names
 *		Unknown functions, and functions of the other kind of expression,
 *		in post-order.
 */
static void
check_function_names(ExprParser *p, const RawNode *n, bool in_update)
{
	int			i;

	if (n == NULL)
		return;
	check_stack_depth();
	for (i = 0; i < n->nargs; i++)
		check_function_names(p, n->args[i], in_update);
	if (n->kind == RAW_CALL)
	{
		const FuncDef *f = call_function(p, n);

		if (f == NULL)
			expr_error(p, psprintf("Invalid function name; function: %s", call_name(p, n)));
		if (f->in_condition == in_update)
			expr_error(p, psprintf(in_update ?
								   "The function is not allowed in an update expression; function: %s" :
								   "The function is not allowed in a condition expression; function: %s",
								   f->name));
	}
}

/*
 * check_misused_condition
 *		In conditions, only size() may be an operand and size() may not be a
 *		condition.  Post-order.
 */
static void
check_misused_condition(ExprParser *p, const RawNode *n)
{
	int			i;

	check_stack_depth();
	for (i = 0; i < n->nargs; i++)
		check_misused_condition(p, n->args[i]);

	switch (n->kind)
	{
		case RAW_AND:
		case RAW_OR:
		case RAW_NOT:
			/* sub-conditions: size() is no condition */
			for (i = 0; i < n->nargs; i++)
			{
				const RawNode *a = n->args[i];

				if (a->kind == RAW_CALL && call_function(p, a)->fn == FN_SIZE)
					expr_error(p, "The function is not allowed to be used this way in an expression; function: size");
			}
			break;
		case RAW_COMPARE:
		case RAW_BETWEEN:
		case RAW_IN:
		case RAW_CALL:
			/* operands: boolean functions are no operands */
			for (i = 0; i < n->nargs; i++)
			{
				const RawNode *a = n->args[i];

				if (a->kind == RAW_CALL && call_function(p, a)->fn != FN_SIZE)
					expr_error(p, psprintf("The function is not allowed to be used this way in an expression; function: %s",
										   call_name(p, a)));
			}
			break;
		default:
			break;
	}
}

/*
 * check_reserved
 *		Bare names that are reserved words, in text order.
 */
static void
check_reserved(ExprParser *p, const RawNode *n)
{
	int			i;

	if (n == NULL)
		return;
	check_stack_depth();
	if (n->kind == RAW_PATH)
	{
		for (i = 0; i < n->nelems; i++)
		{
			int			tok = n->elems[i].tok;

			if (p->toks[tok].kind == ETOK_NAME &&
				ExprIsReservedWord(tok_text(p, tok), tok_len(p, tok)))
				expr_error(p, psprintf("Attribute name is a reserved keyword; reserved keyword: %.*s",
									   tok_len(p, tok), tok_text(p, tok)));
		}
		return;
	}
	for (i = 0; i < n->nargs; i++)
		check_reserved(p, n->args[i]);
}

/* ----------------------------------------------------------------
 * placeholders
 * ----------------------------------------------------------------
 */

/*
 * index of key in a key array sorted as jsonb orders keys (length, then
 * bytes: AttrNameCmp), or -1
 */
static int
find_key(char **keys, int nkeys, const char *key, int keylen)
{
	int			lo = 0,
				hi = nkeys - 1;

	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;
		int			c = AttrNameCmp(keys[mid], strlen(keys[mid]), key, keylen);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* index of the #name at token tok in the placeholders, or -1 */
static int
find_name(ExprParser *p, int tok)
{
	if (p->ph == NULL)
		return -1;
	return find_key(p->ph->name_keys, p->ph->nnames, tok_text(p, tok), tok_len(p, tok));
}

/* index of the :value at token tok in the placeholders, or -1 */
static int
find_value(ExprParser *p, int tok)
{
	if (p->ph == NULL)
		return -1;
	return find_key(p->ph->value_keys, p->ph->nvalues, tok_text(p, tok), tok_len(p, tok));
}

/* messages for an undefined #name / :value at token tok */
static char *
undefined_name_msg(ExprParser *p, int tok)
{
	return psprintf("An expression attribute name used in the document path is not defined; attribute name: %.*s",
					tok_len(p, tok), tok_text(p, tok));
}

static char *
undefined_value_msg(ExprParser *p, int tok)
{
	return psprintf("An expression attribute value used in expression is not defined; attribute value: %.*s",
					tok_len(p, tok), tok_text(p, tok));
}

/*
 * resolve_path
 *		Build the DocPath of a raw path, resolving #names (marked used).
 *		On an undefined #name or too deep a path, returns NULL and sets
 *		*err to the message.
 */
static DocPath *
resolve_path(ExprParser *p, const RawNode *n, char **err)
{
	DocPath    *path = palloc(sizeof(DocPath));
	int			i;

	path->nelems = n->nelems;
	path->elems = palloc0(n->nelems * sizeof(PathElem));
	for (i = 0; i < n->nelems; i++)
	{
		const RawElem *e = &n->elems[i];
		PathElem   *pe = &path->elems[i];

		if (e->is_index)
		{
			pe->kind = PATH_INDEX;
			pe->index = e->index;
		}
		else if (p->toks[e->tok].kind == ETOK_NAME_REF)
		{
			int			k = find_name(p, e->tok);

			if (k < 0)
			{
				*err = undefined_name_msg(p, e->tok);
				return NULL;
			}
			p->ph->name_used[k] = true;
			pe->kind = PATH_NAME;
			pe->namelen = p->ph->name_lens[k];
			pe->name = pnstrdup(p->ph->name_values[k], pe->namelen);
		}
		else
		{
			pe->kind = PATH_NAME;
			pe->namelen = tok_len(p, e->tok);
			pe->name = pnstrdup(tok_text(p, e->tok), pe->namelen);
		}
	}
	if (path->nelems > EXPR_MAX_PATH_DEPTH)
	{
		*err = psprintf("The document path has too many nesting levels; nesting levels: %d",
						path->nelems);
		return NULL;
	}
	return path;
}

/*
 * resolve_value
 *		The value of a :value token (marked used), or NULL with *err set.
 */
static Operand *
resolve_value(ExprParser *p, int tok, char **err)
{
	int			k = find_value(p, tok);
	Operand    *o;

	if (k < 0)
	{
		*err = undefined_value_msg(p, tok);
		return NULL;
	}
	p->ph->value_used[k] = true;
	o = palloc0(sizeof(Operand));
	o->kind = OPND_VALUE;
	o->value = p->ph->values[k];
	o->value_name = p->ph->value_keys[k];
	return o;
}

/* are two path elements the same (kind and name or index)? */
static bool
path_elem_equal(const PathElem *a, const PathElem *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == PATH_INDEX)
		return a->index == b->index;
	return a->namelen == b->namelen && memcmp(a->name, b->name, a->namelen) == 0;
}

/* are two paths the same? */
static bool
paths_equal(const DocPath *a, const DocPath *b)
{
	int			i;

	if (a->nelems != b->nelems)
		return false;
	for (i = 0; i < a->nelems; i++)
	{
		if (!path_elem_equal(&a->elems[i], &b->elems[i]))
			return false;
	}
	return true;
}

/* DynamoDB's "[a, b, [2]]" form of a path, palloc'd */
static char *
path_text(const DocPath *path)
{
	StringInfoData buf;

	initStringInfo(&buf);
	ExprDescribePath(&buf, path);
	return buf.data;
}

/*
 * check_path_set
 *		Update targets and projected paths may not overlap (one a prefix of
 *		the other) nor conflict (a map key where the other has a list
 *		index).  Every overlap is worse than any conflict; among each, the
 *		first pair in text order (later path against each earlier one).
 */
static void
check_path_set(ExprParser *p, DocPath **paths, int npaths)
{
	char	   *conflict = NULL;
	int			i,
				j,
				k;

	for (i = 1; i < npaths; i++)
	{
		CHECK_FOR_INTERRUPTS();
		for (j = 0; j < i; j++)
		{
			const DocPath *a = paths[j];
			const DocPath *b = paths[i];
			int			n = Min(a->nelems, b->nelems);
			bool		related = true;

			for (k = 0; k < n; k++)
			{
				if (a->elems[k].kind != b->elems[k].kind)
				{
					if (conflict == NULL)
						conflict = psprintf("Two document paths conflict with each other; must remove or rewrite one of these paths; path one: %s, path two: %s",
											path_text(a), path_text(b));
					related = false;
					break;
				}
				if (!path_elem_equal(&a->elems[k], &b->elems[k]))
				{
					related = false;
					break;
				}
			}
			if (related)
				expr_error(p, psprintf("Two document paths overlap with each other; must remove or rewrite one of these paths; path one: %s, path two: %s",
									   path_text(a), path_text(b)));
		}
	}
	if (conflict)
		expr_error(p, conflict);
}

/* ----------------------------------------------------------------
 * phase 2: conditions
 * ----------------------------------------------------------------
 */

/* problems of one leaf condition, most important first */
typedef enum LeafSlot
{
	SLOT_UNDEFINED,				/* undefined #name / :value, path depth */
	SLOT_ARITY,					/* operand counts */
	SLOT_DISTINCT,				/* identical first and second operand */
	SLOT_TYPE,					/* operand types and kinds */
	NUM_LEAF_SLOTS
} LeafSlot;

typedef struct LeafCheck
{
	char	   *msg[NUM_LEAF_SLOTS];
} LeafCheck;

/* note a problem of a leaf in its slot; the first one in a slot stays */
static void
leaf_note(LeafCheck *lc, LeafSlot slot, char *msg)
{
	if (lc->msg[slot] == NULL)
		lc->msg[slot] = msg;
}

/* raise the most important problem noted for a leaf, if any */
static void
leaf_raise(ExprParser *p, LeafCheck *lc)
{
	int			i;

	for (i = 0; i < NUM_LEAF_SLOTS; i++)
	{
		if (lc->msg[i])
			expr_error(p, lc->msg[i]);
	}
}

/*
 * const_type
 *		The type an operand is known to have from the request alone: a
 *		:value's type, N for size().  False for paths (and unresolved
 *		values).
 */
static bool
const_type(const Operand *o, AttrType *type)
{
	if (o == NULL)
		return false;
	if (o->kind == OPND_VALUE && o->value)
	{
		*type = o->value->type;
		return true;
	}
	if (o->kind == OPND_SIZE)
	{
		*type = ATTR_N;
		return true;
	}
	return false;
}

/* "Incorrect operand type ..." for function or operator fn */
static char *
operand_type_msg(const char *fn, const char *type)
{
	return psprintf("Incorrect operand type for operator or function; operator or function: %s, operand type: %s",
					fn, type);
}

/* "Incorrect number of operands ..." for function fn called with n */
static char *
arity_msg(const char *fn, int n)
{
	return psprintf("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d",
					fn, n);
}

/* "a = a", "contains(a, a)": both operands the same path */
static void
check_distinct(LeafCheck *lc, const char *op, const Operand *a, const Operand *b)
{
	if (a && b && a->kind == OPND_PATH && b->kind == OPND_PATH &&
		paths_equal(a->path, b->path))
		leaf_note(lc, SLOT_DISTINCT,
				  psprintf("The first operand must be distinct from the remaining operands for this operator or function; operator: %s, first operand: %s",
						   op, path_text(a->path)));
}

static Operand *build_cond_operand(ExprParser *p, const RawNode *n, LeafCheck *lc);

/*
 * build_size
 *		size(x): one operand, which may not be known to be N, BOOL or NULL.
 */
static Operand *
build_size(ExprParser *p, const RawNode *n, LeafCheck *lc)
{
	Operand    *o = palloc0(sizeof(Operand));
	Operand    *arg = NULL;
	int			i;
	AttrType	t;

	o->kind = OPND_SIZE;
	for (i = 0; i < n->nargs; i++)
	{
		Operand    *a = build_cond_operand(p, n->args[i], lc);

		if (i == 0)
			arg = a;
	}
	if (n->nargs != 1)
		leaf_note(lc, SLOT_ARITY, arity_msg("size", n->nargs));
	else if (const_type(arg, &t) &&
			 (t == ATTR_N || t == ATTR_BOOL || t == ATTR_NULL))
		leaf_note(lc, SLOT_TYPE, operand_type_msg("size", AttrTypeName(t)));
	o->args[0] = arg;
	return o;
}

/*
 * build_cond_operand
 *		The Operand of a raw path, :value or size() call, noting problems
 *		in lc.  May return NULL when something is undefined.
 */
static Operand *
build_cond_operand(ExprParser *p, const RawNode *n, LeafCheck *lc)
{
	Operand    *o;
	char	   *err = NULL;

	check_stack_depth();
	switch (n->kind)
	{
		case RAW_PATH:
			{
				DocPath    *path = resolve_path(p, n, &err);

				if (path == NULL)
				{
					leaf_note(lc, SLOT_UNDEFINED, err);
					return NULL;
				}
				o = palloc0(sizeof(Operand));
				o->kind = OPND_PATH;
				o->path = path;
				return o;
			}
		case RAW_VALUE:
			o = resolve_value(p, n->tok, &err);
			if (o == NULL)
				leaf_note(lc, SLOT_UNDEFINED, err);
			return o;
		case RAW_CALL:
			/* only size() gets here: check_misused_condition() ran */
			return build_size(p, n, lc);
		default:
			elog(ERROR, "unexpected raw node %d in a condition operand", (int) n->kind);
	}
	return NULL;				/* keep compiler quiet */
}

/* a condition node with room for noperands operands */
static CondNode *
new_cond(CondKind kind, int noperands)
{
	CondNode   *c = palloc0(sizeof(CondNode));

	c->kind = kind;
	c->noperands = noperands;
	if (noperands > 0)
		c->operands = palloc0(noperands * sizeof(Operand *));
	return c;
}

/* order comparisons and BETWEEN need scalar (S, N, B) constants */
static void
check_ordered_operand(LeafCheck *lc, const char *op, const Operand *o)
{
	if (o && o->kind == OPND_VALUE && o->value && !AttrTypeIsScalar(o->value->type))
		leaf_note(lc, SLOT_TYPE, operand_type_msg(op, AttrTypeName(o->value->type)));
}

/* the AttrType named s[0..len) ("S", "SS", ...); false if none */
static bool
attr_type_from_name(const char *s, int len, AttrType *type)
{
	static const AttrType all[] = {ATTR_S, ATTR_N, ATTR_B, ATTR_BOOL, ATTR_NULL,
	ATTR_M, ATTR_L, ATTR_SS, ATTR_NS, ATTR_BS};
	int			i;

	for (i = 0; i < (int) lengthof(all); i++)
	{
		const char *name = AttrTypeName(all[i]);

		if ((int) strlen(name) == len && memcmp(name, s, len) == 0)
		{
			*type = all[i];
			return true;
		}
	}
	return false;
}

/*
 * build_function_cond
 *		attribute_exists, attribute_not_exists, attribute_type, begins_with
 *		or contains as a condition.
 */
static CondNode *
build_function_cond(ExprParser *p, const RawNode *n, LeafCheck *lc)
{
	const FuncDef *f = call_function(p, n);
	Operand   **args = palloc0(Max(n->nargs, 2) * sizeof(Operand *));
	CondNode   *c = NULL;
	AttrType	t;
	int			i;

	for (i = 0; i < n->nargs; i++)
		args[i] = build_cond_operand(p, n->args[i], lc);
	if (n->nargs != f->nargs)
	{
		leaf_note(lc, SLOT_ARITY, arity_msg(f->name, n->nargs));
		return NULL;
	}
	if (f->nargs == 2)
		check_distinct(lc, f->name, args[0], args[1]);

	switch (f->fn)
	{
		case FN_ATTRIBUTE_EXISTS:
		case FN_ATTRIBUTE_NOT_EXISTS:
			if (n->args[0]->kind != RAW_PATH)
				leaf_note(lc, SLOT_TYPE,
						  psprintf("Operator or function requires a document path; operator or function: %s",
								   f->name));
			c = new_cond(f->fn == FN_ATTRIBUTE_EXISTS ?
						 COND_ATTRIBUTE_EXISTS : COND_ATTRIBUTE_NOT_EXISTS, 1);
			c->operands[0] = args[0];
			break;
		case FN_ATTRIBUTE_TYPE:
			c = new_cond(COND_ATTRIBUTE_TYPE, 2);
			c->operands[0] = args[0];
			c->operands[1] = args[1];
			if (n->args[1]->kind == RAW_PATH)
				leaf_note(lc, SLOT_TYPE, operand_type_msg(f->name, ANY_TYPE_NAMES));
			else if (const_type(args[1], &t))
			{
				if (t != ATTR_S)
					leaf_note(lc, SLOT_TYPE, operand_type_msg(f->name, AttrTypeName(t)));
				else if (args[1]->kind == OPND_VALUE &&
						 !attr_type_from_name(args[1]->value->u.bytes.data,
											  args[1]->value->u.bytes.len,
											  &c->attr_type))
					leaf_note(lc, SLOT_TYPE,
							  psprintf("Invalid attribute type name found; type: %.*s, valid types: " ATTRIBUTE_TYPE_NAMES,
									   args[1]->value->u.bytes.len,
									   args[1]->value->u.bytes.data));
			}
			break;
		case FN_BEGINS_WITH:
		case FN_CONTAINS:
			if (f->fn == FN_BEGINS_WITH)
			{
				for (i = 0; i < 2; i++)
				{
					if (const_type(args[i], &t) && t != ATTR_S && t != ATTR_B)
						leaf_note(lc, SLOT_TYPE, operand_type_msg(f->name, AttrTypeName(t)));
				}
			}
			c = new_cond(f->fn == FN_BEGINS_WITH ? COND_BEGINS_WITH : COND_CONTAINS, 2);
			c->operands[0] = args[0];
			c->operands[1] = args[1];
			break;
		default:
			elog(ERROR, "unexpected function %s in a condition", f->name);
	}
	return c;
}

/*
 * build_leaf
 *		A comparison, BETWEEN, IN or function condition; raises its most
 *		important problem, if any.
 */
static CondNode *
build_leaf(ExprParser *p, const RawNode *n)
{
	LeafCheck	lc;
	CondNode   *c = NULL;
	int			i;

	memset(&lc, 0, sizeof(lc));
	switch (n->kind)
	{
		case RAW_COMPARE:
			{
				const char *op = compare_names[n->op];

				c = new_cond(COND_COMPARE, 2);
				c->op = n->op;
				c->operands[0] = build_cond_operand(p, n->args[0], &lc);
				c->operands[1] = build_cond_operand(p, n->args[1], &lc);
				check_distinct(&lc, op, c->operands[0], c->operands[1]);
				if (n->op != CMP_EQ && n->op != CMP_NE)
				{
					check_ordered_operand(&lc, op, c->operands[0]);
					check_ordered_operand(&lc, op, c->operands[1]);
				}
				break;
			}
		case RAW_BETWEEN:
			{
				const Operand *lo,
						   *hi;

				c = new_cond(COND_BETWEEN, 3);
				for (i = 0; i < 3; i++)
					c->operands[i] = build_cond_operand(p, n->args[i], &lc);
				for (i = 0; i < 3; i++)
					check_ordered_operand(&lc, "BETWEEN", c->operands[i]);
				lo = c->operands[1];
				hi = c->operands[2];
				if (lo && hi && lo->kind == OPND_VALUE && hi->kind == OPND_VALUE &&
					AttrTypeIsScalar(lo->value->type) && AttrTypeIsScalar(hi->value->type))
				{
					StringInfoData lbuf,
								hbuf;

					initStringInfo(&lbuf);
					initStringInfo(&hbuf);
					AttrValueDescribe(&lbuf, lo->value);
					AttrValueDescribe(&hbuf, hi->value);
					if (lo->value->type != hi->value->type)
						leaf_note(&lc, SLOT_TYPE,
								  psprintf("The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: %s, upper bound operand: AttributeValue: %s",
										   lbuf.data, hbuf.data));
					else if (AttrValueCompare(lo->value, hi->value) > 0)
						leaf_note(&lc, SLOT_TYPE,
								  psprintf("The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: %s, upper bound operand: AttributeValue: %s",
										   lbuf.data, hbuf.data));
				}
				break;
			}
		case RAW_IN:
			c = new_cond(COND_IN, n->nargs);
			for (i = 0; i < n->nargs; i++)
				c->operands[i] = build_cond_operand(p, n->args[i], &lc);
			if (n->nargs - 1 > EXPR_MAX_IN_OPERANDS)
				leaf_note(&lc, SLOT_ARITY,
						  psprintf("The IN operator is provided with too many operands; number of operands: %d",
								   n->nargs - 1));
			break;
		case RAW_CALL:
			c = build_function_cond(p, n, &lc);
			break;
		default:
			elog(ERROR, "unexpected raw node %d as a condition", (int) n->kind);
	}
	leaf_raise(p, &lc);
	return c;
}

/*
 * build_condition
 *		The CondNode of a raw condition; leaves in text order.
 */
static CondNode *
build_condition(ExprParser *p, const RawNode *n)
{
	CondNode   *c;

	check_stack_depth();
	switch (n->kind)
	{
		case RAW_AND:
		case RAW_OR:
			c = new_cond(n->kind == RAW_AND ? COND_AND : COND_OR, 0);
			c->left = build_condition(p, n->args[0]);
			c->right = build_condition(p, n->args[1]);
			return c;
		case RAW_NOT:
			c = new_cond(COND_NOT, 0);
			c->left = build_condition(p, n->args[0]);
			return c;
		default:
			return build_leaf(p, n);
	}
}

/* the first OR or NOT token of a key condition, or -1 */
static int
first_logical_operator(const RawNode *n)
{
	int			best = -1;
	int			i;

	check_stack_depth();
	if (n->kind == RAW_OR || n->kind == RAW_NOT)
		best = n->tok;
	for (i = 0; i < n->nargs; i++)
	{
		int			t = first_logical_operator(n->args[i]);

		if (t >= 0 && (best < 0 || t < best))
			best = t;
	}
	return best;
}

/* set up a parser: tokenize the text (size and emptiness checks) */
static void
parser_init(ExprParser *p, const char *text, int len, ExprKind kind,
			ExprPlaceholders *ph)
{
	memset(p, 0, sizeof(ExprParser));
	p->text = text;
	p->kind = kind;
	p->ph = ph;
	p->dup_clause = -1;
	p->toks = ExprTokenize(text, len, kind, &p->ntoks);
}

/*
 * ExprParseCondition
 *		Parse a ConditionExpression, FilterExpression or
 *		KeyConditionExpression (kind says which, for messages and for the
 *		key condition's ban on OR and NOT).  Raises ValidationException;
 *		returns a tree palloc'd in the current memory context.
 */
CondNode *
ExprParseCondition(const char *text, int len, ExprKind kind, ExprPlaceholders *ph)
{
	ExprParser	p;
	RawNode    *raw;
	CondNode   *cond;

	Assert(kind == EXPR_CONDITION || kind == EXPR_FILTER || kind == EXPR_KEY_CONDITION);
	parser_init(&p, text, len, kind, ph);
	raw = parse_or(&p, false);
	if (cur_kind(&p) != ETOK_EOF)
		syntax_error(&p);

	check_parse_notes(&p);
	check_function_names(&p, raw, false);
	check_misused_condition(&p, raw);
	if (raw->kind == RAW_CALL && call_function(&p, raw)->fn == FN_SIZE)
		expr_error(&p, "The function is not allowed to be used this way in an expression; function: size");
	check_reserved(&p, raw);
	cond = build_condition(&p, raw);

	if (kind == EXPR_KEY_CONDITION)
	{
		int			tok = first_logical_operator(raw);

		if (tok >= 0)
			DynValidation("Invalid operator used in KeyConditionExpression: %s",
						  p.toks[tok].kind == ETOK_OR ? "OR" : "NOT");
	}
	return cond;
}

/* ----------------------------------------------------------------
 * phase 2: updates
 * ----------------------------------------------------------------
 */

/* list_append() directly inside list_append() is refused */
static void
check_misused_update(ExprParser *p, const RawNode *n)
{
	int			i;

	if (n == NULL)
		return;
	check_stack_depth();
	for (i = 0; i < n->nargs; i++)
		check_misused_update(p, n->args[i]);
	if (n->kind == RAW_CALL && call_function(p, n)->fn == FN_LIST_APPEND)
	{
		for (i = 0; i < n->nargs; i++)
		{
			if (n->args[i]->kind == RAW_CALL &&
				call_function(p, n->args[i])->fn == FN_LIST_APPEND)
				expr_error(p, "The function is not allowed to be used this way in an expression; function: list_append");
		}
	}
}

/* undefined #names (and path depth) in text order */
static void
check_update_names(ExprParser *p, const RawNode *n)
{
	int			i;
	char	   *err = NULL;

	if (n == NULL)
		return;
	check_stack_depth();
	if (n->kind == RAW_PATH)
	{
		if (resolve_path(p, n, &err) == NULL)
			expr_error(p, err);
		return;
	}
	for (i = 0; i < n->nargs; i++)
		check_update_names(p, n->args[i]);
}

/* undefined :values in text order */
static void
check_update_values(ExprParser *p, const RawNode *n)
{
	int			i;

	if (n == NULL)
		return;
	check_stack_depth();
	if (n->kind == RAW_VALUE && find_value(p, n->tok) < 0)
		expr_error(p, undefined_value_msg(p, n->tok));
	for (i = 0; i < n->nargs; i++)
		check_update_values(p, n->args[i]);
}

/*
 * build_update_operand
 *		The Operand of a SET right-hand side (all names and values are
 *		known to resolve).  The first operand count or type problem, in
 *		post-order, goes to *err.
 */
static Operand *
build_update_operand(ExprParser *p, const RawNode *n, char **err)
{
	Operand    *o;
	Operand    *args[2] = {NULL, NULL};
	char	   *ignore = NULL;
	const FuncDef *f;
	int			i;

	check_stack_depth();
	switch (n->kind)
	{
		case RAW_PATH:
			o = palloc0(sizeof(Operand));
			o->kind = OPND_PATH;
			o->path = resolve_path(p, n, &ignore);
			return o;
		case RAW_VALUE:
			return resolve_value(p, n->tok, &ignore);
		case RAW_PLUS:
		case RAW_MINUS:
			o = palloc0(sizeof(Operand));
			o->kind = n->kind == RAW_PLUS ? OPND_PLUS : OPND_MINUS;
			for (i = 0; i < 2; i++)
				o->args[i] = build_update_operand(p, n->args[i], err);
			for (i = 0; i < 2; i++)
			{
				const Operand *a = o->args[i];

				if (*err == NULL && a->kind == OPND_VALUE && a->value->type != ATTR_N)
					*err = operand_type_msg(n->kind == RAW_PLUS ? "+" : "-",
											AttrTypeName(a->value->type));
			}
			return o;
		case RAW_CALL:
			f = call_function(p, n);
			for (i = 0; i < n->nargs; i++)
			{
				Operand    *a = build_update_operand(p, n->args[i], err);

				if (i < 2)
					args[i] = a;
			}
			o = palloc0(sizeof(Operand));
			if (n->nargs != f->nargs)
			{
				if (*err == NULL)
					*err = arity_msg(f->name, n->nargs);
				return o;
			}
			if (f->fn == FN_IF_NOT_EXISTS)
			{
				o->kind = OPND_IF_NOT_EXISTS;
				if (args[0]->kind != OPND_PATH)
				{
					if (*err == NULL)
						*err = psprintf("Operator or function requires a document path; operator or function: %s",
										f->name);
				}
				else
					o->path = args[0]->path;
				o->args[0] = args[1];
			}
			else
			{
				Assert(f->fn == FN_LIST_APPEND);
				o->kind = OPND_LIST_APPEND;
				for (i = 0; i < 2; i++)
				{
					if (*err == NULL && args[i]->kind == OPND_VALUE &&
						args[i]->value->type != ATTR_L)
						*err = operand_type_msg(f->name, AttrTypeName(args[i]->value->type));
				}
				o->args[0] = args[0];
				o->args[1] = args[1];
			}
			return o;
		default:
			elog(ERROR, "unexpected raw node %d in an update expression", (int) n->kind);
	}
	return NULL;				/* keep compiler quiet */
}

/*
 * ExprParseUpdate
 *		Parse an UpdateExpression.  Actions come in text order (clause by
 *		clause as written, actions in each clause as written).  Raises
 *		ValidationException; the tree is palloc'd in the current context.
 */
UpdateExpr *
ExprParseUpdate(const char *text, int len, ExprPlaceholders *ph)
{
	ExprParser	p;
	UpdateExpr *upd;
	DocPath   **targets;
	char	   *err = NULL;
	int			i;

	parser_init(&p, text, len, EXPR_UPDATE, ph);
	parse_update_syntax(&p);

	check_parse_notes(&p);
	for (i = 0; i < p.nactions; i++)
		check_function_names(&p, p.actions[i].value, true);
	for (i = 0; i < p.nactions; i++)
		check_misused_update(&p, p.actions[i].value);
	for (i = 0; i < p.nactions; i++)
	{
		check_reserved(&p, p.actions[i].path);
		check_reserved(&p, p.actions[i].value);
	}
	if (p.dup_clause >= 0)
		expr_error(&p, psprintf("The \"%s\" section can only be used once in an update expression;",
								clause_names[p.dup_clause]));
	for (i = 0; i < p.nactions; i++)
	{
		check_update_names(&p, p.actions[i].path);
		check_update_names(&p, p.actions[i].value);
	}
	for (i = 0; i < p.nactions; i++)
		check_update_values(&p, p.actions[i].value);

	targets = palloc(p.nactions * sizeof(DocPath *));
	for (i = 0; i < p.nactions; i++)
		targets[i] = resolve_path(&p, p.actions[i].path, &err);
	check_path_set(&p, targets, p.nactions);

	upd = palloc0(sizeof(UpdateExpr));
	upd->nactions = p.nactions;
	upd->actions = palloc0(p.nactions * sizeof(UpdateAction));
	for (i = 0; i < p.nactions; i++)
	{
		UpdateAction *a = &upd->actions[i];

		a->kind = p.actions[i].kind;
		a->path = targets[i];
		if (a->kind == UPD_ADD || a->kind == UPD_DELETE)
		{
			char	   *ignore = NULL;
			AttrType	t;

			a->value = resolve_value(&p, p.actions[i].value->tok, &ignore);
			t = a->value->value->type;
			if ((a->kind == UPD_ADD && t != ATTR_N && !AttrTypeIsSet(t)) ||
				(a->kind == UPD_DELETE && !AttrTypeIsSet(t)))
				expr_error(&p, psprintf("Incorrect operand type for operator or function; operator: %s, operand type: %s",
										clause_names[a->kind], AttrTypeLongName(t)));
		}
	}
	err = NULL;
	for (i = 0; i < p.nactions; i++)
	{
		if (upd->actions[i].kind == UPD_SET)
			upd->actions[i].value = build_update_operand(&p, p.actions[i].value, &err);
	}
	if (err)
		expr_error(&p, err);
	return upd;
}

/* ----------------------------------------------------------------
 * projections
 * ----------------------------------------------------------------
 */

/*
 * ExprParseProjection
 *		Parse a ProjectionExpression.  Raises ValidationException; the tree
 *		is palloc'd in the current context.
 */
ProjectionExpr *
ExprParseProjection(const char *text, int len, ExprPlaceholders *ph)
{
	ExprParser	p;
	ProjectionExpr *proj;
	int			i;

	parser_init(&p, text, len, EXPR_PROJECTION, ph);
	parse_projection_syntax(&p);

	check_parse_notes(&p);
	for (i = 0; i < p.nactions; i++)
		check_reserved(&p, p.actions[i].path);

	proj = palloc(sizeof(ProjectionExpr));
	proj->npaths = p.nactions;
	proj->paths = palloc(p.nactions * sizeof(DocPath *));
	for (i = 0; i < p.nactions; i++)
	{
		char	   *err = NULL;

		proj->paths[i] = resolve_path(&p, p.actions[i].path, &err);
		if (proj->paths[i] == NULL)
			expr_error(&p, err);
	}
	check_path_set(&p, proj->paths, proj->npaths);
	return proj;
}
