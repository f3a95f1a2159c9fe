/*-------------------------------------------------------------------------
 *
 * expr.h
 *		DynamoDB expressions: AST, parser and evaluator interfaces.
 *
 * Layers (as in jsonpath): expr_lexer.c turns text into tokens;
 * expr_parser.c builds the trees below by recursive descent, resolving
 * #name and :value placeholders and reporting every error DynamoDB reports
 * at parse time (syntax, reserved words, undefined placeholders, operand
 * types visible in the request, overlapping update paths, ...);
 * expr_eval.c evaluates conditions and projections against an item;
 * expr_update.c applies an update.  All of it works on AttrValue trees
 * (attr_value.h) and raises DynamoDB errors through errors.h.
 *
 * Trees are palloc'd in the caller's context and hold resolved names and
 * values: evaluation never looks at placeholders again.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_EXPR_H
#define ITEM_TABLE_EXPR_H


#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "attr_value.h"

#define EXPR_MAX_BYTES			4096
#define EXPR_MAX_PLACEHOLDER	255
#define EXPR_MAX_OPERATORS		300
#define EXPR_MAX_IN_OPERANDS	100
#define EXPR_MAX_PATH_DEPTH		32

/* Which request parameter an expression came from (names it in messages) */
typedef enum ExprKind
{
	EXPR_CONDITION,				/* ConditionExpression */
	EXPR_FILTER,				/* FilterExpression */
	EXPR_KEY_CONDITION,			/* KeyConditionExpression */
	EXPR_UPDATE,				/* UpdateExpression */
	EXPR_PROJECTION				/* ProjectionExpression */
} ExprKind;

extern const char *ExprKindName(ExprKind kind);	/* "ConditionExpression" ... */

/*
 * ---- placeholders of one request ----
 * Each map's keys are sorted by length, then bytes (as jsonb keeps object
 * keys, and as ExprPlaceholdersFromRequest leaves them): the parser
 * binary-searches them.  Names are UTF-8.
 */
typedef struct ExprPlaceholders
{
	int			nnames;
	char	  **name_keys;		/* "#n" */
	char	  **name_values;	/* the attribute name it stands for */
	int		   *name_lens;
	bool	   *name_used;
	int			nvalues;
	char	  **value_keys;		/* ":v" */
	AttrValue **values;
	bool	   *value_used;
} ExprPlaceholders;

/*
 * ExprPlaceholdersFromRequest
 *		Read ExpressionAttributeNames/Values (either may be NULL) and check
 *		them: non-empty maps, keys of the form #x / :x, names non-empty,
 *		values valid attribute values.  Raises ValidationException.
 */
extern ExprPlaceholders *ExprPlaceholdersFromRequest(Jsonb *names, Jsonb *values);

/*
 * ExprCheckAllUsed
 *		After every expression of the request is parsed: raise
 *		ValidationException naming unused names/values, as DynamoDB does.
 */
extern void ExprCheckAllUsed(const ExprPlaceholders *ph);

/* ---- document paths ---- */
typedef enum PathElemKind
{
	PATH_NAME,
	PATH_INDEX
} PathElemKind;

typedef struct PathElem
{
	PathElemKind kind;
	char	   *name;			/* PATH_NAME: resolved attribute/map key */
	int			namelen;
	int			index;			/* PATH_INDEX */
} PathElem;

typedef struct DocPath
{
	int			nelems;
	PathElem   *elems;
} DocPath;

/* text of a path for messages: "[a, b, [2]]" style as DynamoDB prints */
extern void ExprDescribePath(StringInfo out, const DocPath *path);

/* ---- operands ---- */
typedef enum OperandKind
{
	OPND_PATH,					/* path */
	OPND_VALUE,					/* :value (resolved) */
	OPND_SIZE,					/* size(operand) */
	OPND_IF_NOT_EXISTS,			/* if_not_exists(path, operand) (update) */
	OPND_LIST_APPEND,			/* list_append(a, b) (update) */
	OPND_PLUS,					/* a + b (update) */
	OPND_MINUS					/* a - b (update) */
} OperandKind;

typedef struct Operand
{
	OperandKind kind;
	DocPath    *path;			/* OPND_PATH, and the path of IF_NOT_EXISTS */
	AttrValue  *value;			/* OPND_VALUE */
	const char *value_name;		/* ":v" for messages */
	struct Operand *args[2];	/* SIZE (1), IF_NOT_EXISTS (1: default),
								 * LIST_APPEND, PLUS, MINUS (2) */
} Operand;

/* ---- conditions (ConditionExpression, FilterExpression, KeyCondition) ---- */
typedef enum CondKind
{
	COND_AND,
	COND_OR,
	COND_NOT,
	COND_COMPARE,				/* operands[0] op operands[1] */
	COND_BETWEEN,				/* operands[0] BETWEEN [1] AND [2] */
	COND_IN,					/* operands[0] IN ([1..n-1]) */
	COND_ATTRIBUTE_EXISTS,		/* operands[0] is a path */
	COND_ATTRIBUTE_NOT_EXISTS,
	COND_ATTRIBUTE_TYPE,		/* operands[0], attr_type */
	COND_BEGINS_WITH,			/* operands[0], operands[1] */
	COND_CONTAINS				/* operands[0], operands[1] */
} CondKind;

typedef enum CompareOp
{
	CMP_EQ,
	CMP_NE,
	CMP_LT,
	CMP_LE,
	CMP_GT,
	CMP_GE
} CompareOp;

typedef struct CondNode
{
	CondKind	kind;
	CompareOp	op;				/* COND_COMPARE */
	struct CondNode *left;		/* AND, OR, NOT (NOT uses left) */
	struct CondNode *right;
	int			noperands;
	Operand   **operands;
	AttrType	attr_type;		/* COND_ATTRIBUTE_TYPE */
} CondNode;

/* ---- update ---- */
typedef enum UpdateActionKind
{
	UPD_SET,
	UPD_REMOVE,
	UPD_ADD,
	UPD_DELETE
} UpdateActionKind;

typedef struct UpdateAction
{
	UpdateActionKind kind;
	DocPath    *path;
	Operand    *value;			/* SET: right-hand side; ADD/DELETE: :value;
								 * REMOVE: NULL */
} UpdateAction;

typedef struct UpdateExpr
{
	bool		legacy;			/* from AttributeUpdates (legacy.c): ADD also
								 * appends lists; its own type message */
	int			nactions;
	UpdateAction *actions;		/* in clause order, then written order */
} UpdateExpr;

/* ---- projection ---- */
typedef struct ProjectionExpr
{
	int			npaths;
	DocPath   **paths;
} ProjectionExpr;

/* ---- tokens (expr_lexer.c; used by expr_parser.c only) ---- */
typedef enum ExprTokenKind
{
	ETOK_EOF,
	ETOK_INVALID,				/* a character no token starts with */
	ETOK_NAME,					/* bare name: letter, then letters/digits/_ */
	ETOK_NAME_REF,				/* #name */
	ETOK_VALUE_REF,				/* :value */
	ETOK_NUMBER,				/* digits (list indexes) */
	ETOK_LPAREN,
	ETOK_RPAREN,
	ETOK_LBRACKET,
	ETOK_RBRACKET,
	ETOK_COMMA,
	ETOK_DOT,
	ETOK_EQ,
	ETOK_NE,
	ETOK_LT,
	ETOK_LE,
	ETOK_GT,
	ETOK_GE,
	ETOK_PLUS,
	ETOK_MINUS,
	ETOK_AND,					/* keywords of conditions */
	ETOK_OR,
	ETOK_NOT,
	ETOK_BETWEEN,
	ETOK_IN,
	ETOK_SET,					/* keywords of update expressions */
	ETOK_REMOVE,
	ETOK_ADD,
	ETOK_DELETE
} ExprTokenKind;

typedef struct ExprToken
{
	ExprTokenKind kind;
	int			start;			/* byte offset in the expression text */
	int			len;			/* 0 for ETOK_EOF */
} ExprToken;

/*
 * Split an expression into tokens (the last one is ETOK_EOF); checks the
 * size limit and emptiness.  Keywords depend on the kind of expression.
 */
extern ExprToken *ExprTokenize(const char *text, int len, ExprKind kind,
							   int *ntokens);
/* is name (any case) one of DynamoDB's reserved words? */
extern bool ExprIsReservedWord(const char *name, int len);

/* ---- parser (expr_lexer.c, expr_parser.c) ---- */
extern CondNode *ExprParseCondition(const char *text, int len, ExprKind kind,
									ExprPlaceholders *ph);
extern UpdateExpr *ExprParseUpdate(const char *text, int len,
								   ExprPlaceholders *ph);
extern ProjectionExpr *ExprParseProjection(const char *text, int len,
										   ExprPlaceholders *ph);
/* a readable rendering of a parsed tree (for explain_expression and tests) */
extern void ExprDescribeCondition(StringInfo out, const CondNode *cond);
extern void ExprDescribeUpdate(StringInfo out, const UpdateExpr *upd);
extern void ExprDescribeProjection(StringInfo out, const ProjectionExpr *proj);
/* a comparison read the other way round: 3 < a is a > 3 */
extern CompareOp ExprMirrorCompare(CompareOp op);

/* ---- evaluation (expr_eval.c) ---- */

/* resolve a path in an item (ATTR_M); NULL when it does not exist */
extern const AttrValue *ExprResolvePath(const AttrValue *item, const DocPath *path);

/* condition against an item (an empty map stands for a missing item) */
extern bool ExprEvalCondition(const CondNode *cond, const AttrValue *item);

/* the projected item (ATTR_M, possibly empty) */
extern AttrValue *ExprProject(const ProjectionExpr *proj, const AttrValue *item);

/* ---- update (expr_update.c) ---- */

/*
 * ExprApplyUpdate
 *		Apply upd to a copy of item (ATTR_M; for a missing item, the key
 *		attributes only) and return the new item.  Every right-hand side
 *		reads the old item.  item_existed tells REMOVE of a nested path on a
 *		missing item to be ignored (DynamoDB's observed behaviour).  Raises
 *		ValidationException for data-dependent errors (missing operands,
 *		wrong types, invalid document paths, empty sets, number limits).
 */
extern AttrValue *ExprApplyUpdate(const UpdateExpr *upd, const AttrValue *item,
								  bool item_existed);

/*
 * ExprUpdatedAttributes
 *		For ReturnValues UPDATED_OLD / UPDATED_NEW: the attributes of item
 *		(the old or the new one) at the paths the update touched, nested as
 *		in a projection; returns an ATTR_M, possibly empty.  for_new skips
 *		what DynamoDB leaves out of UPDATED_NEW.
 */
extern AttrValue *ExprUpdatedAttributes(const UpdateExpr *upd,
										const AttrValue *item, bool for_new);

/* SQL-callable, expr_eval.c */
extern Datum item_table_evaluate_condition(PG_FUNCTION_ARGS);
extern Datum item_table_project_item(PG_FUNCTION_ARGS);

/* SQL-callable, expr_update.c */
extern Datum item_table_apply_update(PG_FUNCTION_ARGS);
extern Datum item_table_updated_attributes(PG_FUNCTION_ARGS);

/* SQL-callable, expr_explain.c */
extern Datum item_table_explain_expression(PG_FUNCTION_ARGS);

#endif							/* ITEM_TABLE_EXPR_H */
