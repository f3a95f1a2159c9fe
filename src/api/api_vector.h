/*-------------------------------------------------------------------------
 *
 * api_vector.h
 *		Vector indexes (api_vector.c): CreateTable's VectorIndexes,
 *		DescribeTable's descriptions, the upkeep trigger, SearchVectors.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_API_VECTOR_H
#define ITEM_TABLE_API_VECTOR_H

#include "nodes/pg_list.h"
#include "utils/jsonb.h"

extern void ApiCreateVectorIndexes(const char *table, Oid relid, Jsonb *specs, List *taken);
extern void ApiPushVectorIndexDescriptions(JsonbParseState **state, const char *table);
extern Datum item_table_search_vectors(PG_FUNCTION_ARGS);
extern Datum item_table_vector_index_trigger(PG_FUNCTION_ARGS);

#endif
