/*-------------------------------------------------------------------------
 *
 * legacy.h
 *		DynamoDB's legacy (pre-expression) request parameters: Expected,
 *		ConditionalOperator, AttributeUpdates, AttributesToGet,
 *		KeyConditions, QueryFilter, ScanFilter.  They are read and checked
 *		with DynamoDB's rules and messages, then compiled into the trees of
 *		expr.h, so the one evaluator and update applier serve them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_LEGACY_H
#define ITEM_TABLE_LEGACY_H


#include "api.h"
#include "expr.h"

/* which legacy parameters an operation accepts (LegacyRead's which) */
#define LEGACY_EXPECTED				0x01
#define LEGACY_CONDITIONAL_OPERATOR	0x02
#define LEGACY_ATTRIBUTE_UPDATES	0x04
#define LEGACY_ATTRIBUTES_TO_GET	0x08
#define LEGACY_KEY_CONDITIONS		0x10
#define LEGACY_QUERY_FILTER			0x20
#define LEGACY_SCAN_FILTER			0x40

/* the legacy parameters of one request, as read (NULL: absent) */
typedef struct LegacyParams
{
	Jsonb	   *expected;
	Jsonb	   *attribute_updates;
	Jsonb	   *attributes_to_get;
	Jsonb	   *key_conditions;
	Jsonb	   *query_filter;
	Jsonb	   *scan_filter;
	bool		has_conditional_operator;
	bool		or;				/* ConditionalOperator OR (default AND) */
} LegacyParams;

/*
 * LegacyRead
 *		Read the legacy parameters named by which; shape problems (enum
 *		values, null operators, an empty AttributesToGet) join the request's
 *		list (field names under prefix, e.g. "requestItems.T.member."), JSON
 *		type problems raise SerializationException.
 */
extern void LegacyRead(ApiRequest *req, int which, const char *prefix,
					   LegacyParams *lp);

/*
 * LegacyCheckMix
 *		Refuse legacy parameters together with expression parameters, as
 *		DynamoDB does: expression_params is the ", "-separated list of the
 *		expression parameters present, in DynamoDB's order.  KeyConditions
 *		mixes freely unless KeyConditionExpression is also present.
 */
extern void LegacyCheckMix(const LegacyParams *lp, const char *expression_params,
						   bool key_condition_expression);

/* ConditionalOperator needs an Expected or filter of two or more conditions */
extern void LegacyCheckConditionalOperator(const LegacyParams *lp);

/* refuse legacy parameters an operation never takes (TransactWriteItems) */
extern void LegacyRefuse(ApiRequest *req, const char *const *names, int n,
						 const char *operation);

/* ---- compilation into expression trees (NULL for an empty map) ---- */
extern CondNode *LegacyExpected(const LegacyParams *lp);
extern CondNode *LegacyFilter(const LegacyParams *lp);	/* QueryFilter or ScanFilter */
extern CondNode *LegacyKeyConditions(const LegacyParams *lp, List **nonindexable);
/* with the table: nonindexable from above, conditioned the attributes named */
extern void LegacyCheckIndexable(List *nonindexable, List *conditioned,
								 const char *hash_key, const char *range_key);
extern UpdateExpr *LegacyAttributeUpdates(const LegacyParams *lp);
extern ProjectionExpr *LegacyAttributesToGet(const LegacyParams *lp);

#endif							/* ITEM_TABLE_LEGACY_H */
