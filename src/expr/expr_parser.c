/*-------------------------------------------------------------------------
 *
 * expr_parser.c
 *		Recursive-descent parser for DynamoDB's condition, filter, key
 *		condition, update and projection expressions: the syntax (phase 1).
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
 *	2. Validation and construction, in expr_build.c (its essay gives the
 *	   order in which problems are reported).
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
#include "expr_parse.h"

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

/*
 * ExprParseError
 *		Raise ValidationException "Invalid <Kind>: <msg>".
 */
void
ExprParseError(ExprParser *p, const char *msg)
{
	DynValidation("Invalid %s: %s", ExprKindName(p->kind), msg);
}

/*
 * ExprSyntaxError
 *		Raise DynamoDB's syntax error at the current token: the token, and
 *		the text from the start of the previous token to the end of the
 *		next one.
 */
void
ExprSyntaxError(ExprParser *p)
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
		ExprSyntaxError(p);
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
const FuncDef *
ExprCallFunction(ExprParser *p, const RawNode *n)
{
	return lookup_function(tok_text(p, n->tok), tok_len(p, n->tok));
}

/* the name a RAW_CALL calls, palloc'd */
char *
ExprCallName(ExprParser *p, const RawNode *n)
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
				ExprSyntaxError(p);
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
				ExprSyntaxError(p);
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
		ExprSyntaxError(p);
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
			ExprSyntaxError(p);
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
	ExprSyntaxError(p);
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
	n = ExprParseOr(p, true);
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
 * parse_and, ExprParseOr
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

RawNode *
ExprParseOr(ExprParser *p, bool allow_bare)
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
		ExprSyntaxError(p);
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
 * ExprParseUpdateSyntax
 *		Clauses in any order, each a comma-separated list of actions.
 */
void
ExprParseUpdateSyntax(ExprParser *p)
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
				ExprSyntaxError(p);
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
					ExprSyntaxError(p);
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
 * ExprParseProjectionSyntax
 *		path ("," path)*, kept as REMOVE-like actions.
 */
void
ExprParseProjectionSyntax(ExprParser *p)
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
		ExprSyntaxError(p);
}
