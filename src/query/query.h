/*-------------------------------------------------------------------------
 *
 * query.h
 *		The Query/Scan reader, shared by its files (bottom up):
 *
 *		  query_range.c		key condition -> key range, segments
 *		  query_target.c	what a request reads (table or index) and the
 *							index projection rules
 *		  query_start_key.c	ExclusiveStartKey in, LastEvaluatedKey out
 *		  query_page.c		the statements, reading a page, the response
 *		  api_query.c		Query, Scan and their EXPLAIN (entry points)
 *		  item_collection.c	item_collection(), an item collection as rows
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_QUERY_H
#define ITEM_TABLE_QUERY_H

#include "api.h"
#include "gsi.h"

/* Select */
typedef enum SelectMode
{
	SELECT_DEFAULT = -1,
	SELECT_ALL_ATTRIBUTES = 0,
	SELECT_ALL_PROJECTED_ATTRIBUTES,
	SELECT_SPECIFIC_ATTRIBUTES,
	SELECT_COUNT
} SelectMode;

/*
 * What a Query or Scan reads: a physical table keyed by item_key whose
 * encoding follows this key schema (query_target.c).
 */
typedef struct ReadTarget
{
	ItemTableDef *def;			/* the table: name, plans, capacity */
	const char *index_name;		/* NULL: the table itself */
	const char *hash_key;
	AttrType	hash_type;
	const char *range_key;		/* NULL: no sort key */
	AttrType	range_type;
	SPIPlanPtr *plan_forward;	/* plan slots (query_page.c) */
	SPIPlanPtr *plan_backward;
	SPIPlanPtr *plan_segment;
	IndexDef   *idx;			/* a secondary index, or NULL */
	bool		fetch_base;		/* LSI: read the table's item (unprojected attributes) */
} ReadTarget;

/* A range of keys; a NULL bound is unbounded */
typedef struct KeyRange
{
	ItemKey    *lo;
	bool		lo_incl;
	ItemKey    *hi;
	bool		hi_incl;
} KeyRange;

/* One condition of a KeyConditionExpression, the key attribute on the left */
typedef struct KeyLeaf
{
	const char *attr;			/* UTF-8, NUL-terminated */
	CondKind	kind;			/* COND_COMPARE, COND_BETWEEN, COND_BEGINS_WITH */
	CompareOp	op;				/* COND_COMPARE */
	AttrValue  *v1;
	AttrValue  *v2;				/* BETWEEN's upper bound */
} KeyLeaf;

typedef struct KeyCondition
{
	int			nleaves;
	KeyLeaf		leaves[ITEMKEY_MAX_TUPLE_PARTS];	/* two but for a multi-attribute key */
} KeyCondition;

/* A read, checked and ready to run */
typedef struct ReadRequest
{
	/* what to read */
	ReadTarget	target;
	KeyRange	range;
	bool		forward;
	int			total_segments; /* 0: not a parallel scan */
	int			segment;
	ItemKey    *start_ikey;		/* index: read after (start_ikey, start_key) */
	ItemKey    *start_key;
	ItemKey    *partition;		/* Query: the partition-only key; Scan: NULL */
	/* what to do with it */
	int64		limit;			/* 0: none */
	CondNode   *filter;
	ProjectionExpr *projection;
	bool		count_only;
	bool		consistent;
	int			rcc;
} ReadRequest;

/* ---- query_range.c ---- */
extern void ReadKeyConditionShape(const CondNode *cond, KeyCondition *kc);
extern void ReadKeyConditionRange(const ReadTarget *t, const KeyCondition *kc,
								  KeyRange *r, ItemKey **partition);
extern ItemKey *ReadKeySuccessor(const ItemKey *k);
extern ItemKey *ReadPartitionTop(const ItemKey *p);
extern void ReadRangeBounds(const KeyRange *r, Datum *lo, Datum *hi);
extern bool ReadRangeContains(const KeyRange *r, const ItemKey *key);
extern void ReadDescribeRange(StringInfo out, const KeyRange *r, const char *col);
extern int	ReadKeySegment(const ItemKey *k, int total);

/* ---- query_target.c ---- */
extern void ReadTargetInit(ItemTableDef *def, const char *index_name, ReadTarget *t);
extern void ReadCheckIndexRead(ReadTarget *t, int select, bool consistent,
							   ProjectionExpr **projp, const CondNode *filter);

/* ---- query_start_key.c ---- */
extern AttrValue *ReadParseStartKey(Jsonb *j);
extern void ReadApplyStartKey(ReadRequest *rr, const AttrValue *esk,
							  const ItemKey *partition, bool for_scan);
extern void ReadPushLastEvaluatedKey(JsonbParseState **state, const ReadTarget *t,
									 const ItemKey *key, const ItemKey *ikey);

/* ---- query_page.c ---- */
extern SPIPlanPtr ReadRequestPlan(ReadRequest *rr, Datum *args, int *nargs);
extern Jsonb *ReadRun(ReadRequest *rr, MemoryContext callercxt);

#endif							/* ITEM_TABLE_QUERY_H */
