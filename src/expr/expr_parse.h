/*-------------------------------------------------------------------------
 *
 * expr_parse.h
 *		The expression parser's own types and helpers, shared by its two
 *		phases: the syntax (expr_parser.c) and the checks and construction
 *		(expr_build.c).  Nothing outside those two files includes it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_EXPR_PARSE_H
#define ITEM_TABLE_EXPR_PARSE_H

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

/* errors: a validation message, a syntax error at the current token */
pg_noreturn extern void ExprParseError(ExprParser *p, const char *msg);
pg_noreturn extern void ExprSyntaxError(ExprParser *p);

/* the function a RAW_CALL calls (NULL when unknown), and its name */
extern const FuncDef *ExprCallFunction(ExprParser *p, const RawNode *n);
extern char *ExprCallName(ExprParser *p, const RawNode *n);

/* phase 1 (expr_parser.c): a condition, an update's clauses, a projection */
extern RawNode *ExprParseOr(ExprParser *p, bool allow_bare);
extern void ExprParseUpdateSyntax(ExprParser *p);
extern void ExprParseProjectionSyntax(ExprParser *p);

#endif							/* ITEM_TABLE_EXPR_PARSE_H */
