/*-------------------------------------------------------------------------
 *
 * partiql.h
 *		DynamoDB's PartiQL subset: statement trees, the parser
 *		(partiql_parser.c) and the compiler to DynamoDB requests
 *		(partiql_compile.c).
 *
 * A statement is parsed into the tree below without looking at any
 * table.  It is then compiled, against the key schema of the table it
 * names, into one ordinary DynamoDB request (Query, Scan, GetItem,
 * PutItem, UpdateItem, DeleteItem, or a ConditionCheck of a transaction)
 * whose expressions use only #name and :value placeholders: no text the
 * user wrote is ever parsed again as expression syntax.  The requests are
 * run by the existing API functions (api_partiql.c), so PartiQL has no
 * semantics of its own.
 *
 * Trees are palloc'd in the caller's memory context.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_PARTIQL_H
#define ITEM_TABLE_PARTIQL_H


#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "expr.h"

#define PQ_MAX_STATEMENT_CHARS	8192	/* the Statement member's limit */
#define PQ_MAX_DEPTH			64		/* nesting of values and conditions */

/* the prefix of every syntax error, as DynamoDB words it */
#define PQ_SYNTAX_PREFIX "Statement wasn't well formed, can't be processed: "

/* ---- values: literals and ? parameters ---- */
typedef enum PqValueKind
{
	PQV_STRING,					/* 'text' */
	PQV_NUMBER,					/* 12, -1.5e3 (text kept as written) */
	PQV_BOOL,					/* TRUE / FALSE */
	PQV_NULL,					/* NULL */
	PQV_PARAM,					/* ?, the param-th (0-based) */
	PQV_LIST,					/* [v, ...] */
	PQV_MAP,					/* {'k': v, ...} */
	PQV_SET						/* <<v, ...>> */
} PqValueKind;

typedef struct PqValue
{
	PqValueKind kind;
	char	   *str;			/* STRING (unescaped), NUMBER */
	int			len;
	bool		boolean;
	int			param;
	int			nelems;			/* LIST, MAP, SET */
	struct PqValue **elems;
	char	  **keys;			/* MAP: member names (unescaped) */
	int		   *keylens;
} PqValue;

/* ---- document paths: a, "a b", a.b, a[2] ---- */
typedef struct PqPathElem
{
	bool		is_index;
	char	   *name;
	int			namelen;
	int			index;
} PqPathElem;

typedef struct PqPath
{
	int			nelems;
	PqPathElem *elems;
} PqPath;

/* ---- operands of conditions and of SET ---- */
typedef enum PqOperandKind
{
	PQO_PATH,
	PQO_VALUE,
	PQO_SIZE,					/* size(path) */
	PQO_PLUS,					/* SET only: a + b */
	PQO_MINUS,					/* SET only: a - b */
	PQO_LIST_APPEND,			/* SET only: list_append(a, b) */
	PQO_IF_NOT_EXISTS,			/* SET only: if_not_exists(path, v) */
	PQO_SET_ADD,				/* SET only, at the top: set_add(path, v) */
	PQO_SET_DELETE				/* SET only, at the top: set_delete(path, v) */
} PqOperandKind;

typedef struct PqOperand
{
	PqOperandKind kind;
	PqPath	   *path;			/* PATH */
	PqValue    *value;			/* VALUE */
	struct PqOperand *args[2];	/* SIZE (1), the others (2) */
} PqOperand;

/* ---- WHERE conditions ---- */
typedef enum PqCondKind
{
	PQC_AND,
	PQC_OR,
	PQC_NOT,
	PQC_COMPARE,				/* ops[0] op ops[1] */
	PQC_BETWEEN,				/* ops[0] BETWEEN ops[1] AND ops[2] */
	PQC_IN,						/* ops[0] IN [ops[1..]] */
	PQC_MISSING,				/* ops[0] IS MISSING */
	PQC_NOT_MISSING,			/* ops[0] IS NOT MISSING */
	PQC_BEGINS_WITH,			/* begins_with(ops[0], ops[1]) */
	PQC_CONTAINS,				/* contains(ops[0], ops[1]) */
	PQC_ATTRIBUTE_TYPE			/* attribute_type(ops[0], ops[1]) */
} PqCondKind;

typedef struct PqCond
{
	PqCondKind	kind;
	CompareOp	op;				/* COMPARE */
	struct PqCond *left;		/* AND, OR, NOT */
	struct PqCond *right;
	int			nops;
	PqOperand **ops;
} PqCond;

/* ---- statements ---- */
typedef enum PqStmtKind
{
	PQS_SELECT,
	PQS_INSERT,
	PQS_UPDATE,
	PQS_DELETE,
	PQS_EXISTS					/* EXISTS(SELECT ...): ExecuteTransaction only */
} PqStmtKind;

typedef enum PqReturning
{
	PQR_NONE = 0,
	PQR_ALL_OLD,
	PQR_MODIFIED_OLD,
	PQR_ALL_NEW,
	PQR_MODIFIED_NEW
} PqReturning;

typedef enum PqUpdKind
{
	PQU_SET,
	PQU_REMOVE
} PqUpdKind;

typedef struct PqUpdAction
{
	PqUpdKind	kind;
	PqPath	   *path;
	PqOperand  *rhs;			/* SET */
} PqUpdAction;

typedef struct PqStatement
{
	PqStmtKind	kind;
	char	   *table;
	char	   *index;			/* SELECT ... FROM "t"."i", else NULL */
	/* SELECT: projection (NULL paths = *), ORDER BY */
	int			nproj;
	PqPath	  **proj;
	PqPath	   *order_by;
	bool		order_desc;
	PqCond	   *where;			/* NULL when absent */
	PqValue    *item;			/* INSERT: the VALUE */
	int			nactions;		/* UPDATE: SET and REMOVE, in written order */
	PqUpdAction *actions;
	PqReturning returning;
	int			nparams;		/* how many ? the statement holds */
} PqStatement;

/*
 * PqParse
 *		Parse a statement.  Raises ValidationException with DynamoDB's
 *		"Statement wasn't well formed, can't be processed: ..." for a
 *		syntax error.
 */
extern PqStatement *PqParse(const char *text, int len);

/* is the statement a read (SELECT)? */
#define PqIsRead(st) ((st)->kind == PQS_SELECT)

/* ---- compilation ---- */

/* the key schema a statement is compiled against */
typedef struct PqSchema
{
	const char *table;
	const char *hash_key;
	const char *range_key;		/* NULL: hash-only */
	/* the index the SELECT reads (FROM "t"."i"), else all NULL */
	const char *index;
	const char *index_hash;
	const char *index_range;
	/* a multi-attribute index key: every attribute, the HASH ones first */
	int			index_nkeys;	/* 0: a classic key */
	int			index_nhash;
	const char *index_keys[8];
} PqSchema;

/* which API a statement is run through */
typedef enum PqContext
{
	PQ_CTX_STATEMENT,			/* ExecuteStatement: SELECT is Query/Scan */
	PQ_CTX_BATCH,				/* BatchExecuteStatement: SELECT is GetItem */
	PQ_CTX_TRANSACTION			/* ExecuteTransaction: SELECT is a Get */
} PqContext;

typedef enum PqOp
{
	PQ_OP_QUERY,
	PQ_OP_SCAN,
	PQ_OP_GET,
	PQ_OP_PUT,
	PQ_OP_UPDATE,
	PQ_OP_DELETE,
	PQ_OP_CHECK					/* ConditionCheck (EXISTS) */
} PqOp;

typedef struct PqCompiled
{
	PqOp		op;
	/*
	 * The members of the request object as JSON text, without the braces
	 * ("\"TableName\":\"t\",\"Key\":{...},..."), so that a caller can add
	 * its own (Limit, ExclusiveStartKey, ReturnConsumedCapacity).
	 */
	char	   *members;
} PqCompiled;

/*
 * PqCompile
 *		Compile a parsed statement into a DynamoDB request for the table
 *		described by schema.  params are the request's Parameters (each an
 *		AttributeValue object), nparams of them; the caller has checked
 *		that their number is st->nparams.  Raises ValidationException for
 *		what DynamoDB refuses (no equality on the whole key in a write,
 *		ORDER BY without a partition key, ...).
 */
extern bool PqNestedProjection(const PqStatement *st);
extern PqCompiled *PqCompile(const PqStatement *st, const PqSchema *schema,
							 JsonbValue *params, int nparams, PqContext ctx);

#endif							/* ITEM_TABLE_PARTIQL_H */
