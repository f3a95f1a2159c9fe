/*-------------------------------------------------------------------------
 *
 * entry.h
 *		The entry points above the API: dynamodb(action, request)
 *		(dispatch.c) and dynamodb_as(role, action, request), the gateway's
 *		call (gateway_call.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_ENTRY_H
#define ITEM_TABLE_ENTRY_H

#include "fmgr.h"

extern Datum item_table_dynamodb(PG_FUNCTION_ARGS);
extern Datum item_table_dynamodb_json(PG_FUNCTION_ARGS);
extern Datum item_table_dynamodb_as(PG_FUNCTION_ARGS);

#endif							/* ITEM_TABLE_ENTRY_H */
