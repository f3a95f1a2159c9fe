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

#include "commands/trigger.h"
#include "nodes/pg_list.h"
#include "utils/jsonb.h"

extern void ApiCreateVectorIndexes(const char *table, Oid relid, Jsonb *specs, List *taken,
								   Jsonb *attrdefs);
extern void ApiCreateVectorIndexUpdate(const char *table, Oid relid, Jsonb *create, int n, List *taken,
									   Jsonb *attrdefs);
extern void ApiDeleteVectorIndex(const char *table, Oid relid, const char *index);
extern List *ApiVectorSearchSchemaNames(Jsonb *specs);
extern List *ApiVectorAttributeDefinitions(const char *table);
extern bool ApiHasVectorIndexes(const char *table);
extern void ApiPushVectorIndexDescriptions(JsonbParseState **state, const char *table);
#define VECTOR_TRIGGER_NAME "item_table_vector_index"
#define VECTOR_TRUNCATE_TRIGGER_NAME "item_table_vector_index_truncate"

/* api_vector_upkeep.c: the index rows of a written item, on both paths */
extern bool ApiVectorElement(const char *s, float4 *out);
extern Jsonb *ApiVectorProject(Jsonb *item, const char *projection_type, const char *hash_key,
							   const char *range_key, const char *hash_attribute, List *filters,
							   List *nonkey);
extern void ApiVectorSync(Oid relid, Datum oldkey, Datum olditem, bool has_old, Datum newkey,
						  Datum newitem, bool has_new);
extern bool ApiVectorDirectTrigger(const Trigger *t);
extern void ApiVectorTruncate(Oid relid);
extern bool ApiVectorBackfillBatch(const char *table, const char *index, int batch, int64 *done);
extern int64 ApiVectorDrainBatch(const char *table, const char *index, int batch);
extern int64 ApiVectorBuildGraph(const char *table, const char *index, bool when_cheaper);

extern Datum item_table_search_vectors(PG_FUNCTION_ARGS);
extern Datum item_table_vector_index_entry(PG_FUNCTION_ARGS);
extern Datum item_table_vector_index_trigger(PG_FUNCTION_ARGS);
extern Datum item_table_vector_backfill_batch(PG_FUNCTION_ARGS);
extern Datum item_table_vector_drain_batch(PG_FUNCTION_ARGS);
extern Datum item_table_vector_pending(PG_FUNCTION_ARGS);
extern Datum item_table_vector_build_graph(PG_FUNCTION_ARGS);

#endif
