/*-------------------------------------------------------------------------
 *
 * index_build.h
 *		Filling and checking index tables (index_build.c): index_entries(),
 *		verify(), the resumable backfill batches and backfill_indexes().
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_INDEX_BUILD_H
#define ITEM_TABLE_INDEX_BUILD_H

#include "fmgr.h"

/*
 * One backfill batch of an index being created: false when nothing is
 * left (ACTIVE or gone).  SPI connected, in a transaction.  The worker
 * (worker.c) and backfill_indexes() run it.
 */
extern bool IndexBackfillBatch(const char *table, const char *index, int batch,
							   int64 *done, int64 *total);

/*
 * The start of one build batch (the relations locked in order, the
 * catalog row's position FOR UPDATE), shared by the GSI backfill and the
 * vector index build: false when the index is not CREATING (any more).
 */
typedef enum IndexBuildCatalog
{
	INDEX_BUILD_GSI,			/* item_table.indexes */
	INDEX_BUILD_VECTOR			/* item_table.vector_indexes */
} IndexBuildCatalog;

extern bool IndexBuildClaim(IndexBuildCatalog which, Datum table, Datum index,
							Oid *base_relid, Oid *index_relid, Datum *after,
							int64 *count);

extern Datum item_table_index_entries(PG_FUNCTION_ARGS);
extern Datum item_table_verify(PG_FUNCTION_ARGS);
extern Datum item_table_backfill_indexes(PG_FUNCTION_ARGS);

#endif							/* ITEM_TABLE_INDEX_BUILD_H */
