/*-------------------------------------------------------------------------
 *
 * worker.h
 *		Background work: the extension's background worker (worker.c), the
 *		batch steps it runs -- an index backfill batch (index_build.c) and
 *		a Time to Live expiry batch (ttl.c) -- and their settings.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_WORKER_H
#define ITEM_TABLE_WORKER_H

#include "datatype/timestamp.h"

/* item_table.index_backfill: who fills an index UpdateTable creates */
typedef enum IndexBackfillMode
{
	INDEX_BACKFILL_WORKER = 0,
	INDEX_BACKFILL_MANUAL
} IndexBackfillMode;

extern int	item_table_index_backfill;
extern int	item_table_worker_naptime;	/* seconds */
extern int	item_table_backfill_batch_size;
extern int	item_table_ttl_batch_size;
extern int	item_table_max_workers;

/*
 * The session-level advisory lock (pg_locks: locktype advisory, objid
 * 0x5f746162 and classid 0x6974656d, database = the worker's) held by the
 * one worker of a database.
 */
#define ITEM_WORKER_LOCK_KEY	INT64CONST(0x6974656d5f746162)

/* GUCs, and the launcher when loaded by shared_preload_libraries */
extern void ItemWorkerInit(void);

/* start this database's worker when the current transaction commits */
extern void ItemWorkerRequest(void);

/*
 * One backfill batch of an index being created (index_build.c): false
 * when nothing is left (ACTIVE or gone).  SPI connected, in a transaction.
 */
extern bool IndexBackfillBatch(const char *table, const char *index, int batch,
							   int64 *done, int64 *total);

/*
 * One expiry batch (ttl.c): delete up to max_items items of table whose
 * TTL attribute is a Number of epoch seconds at or before as_of (and not
 * more than five years before it); returns how many.  -1 when TTL is not
 * enabled on the table (and error_if_disabled is false).  SPI connected,
 * in a transaction.
 */
extern int64 TtlExpireBatch(const char *table, TimestampTz as_of, int max_items,
							bool error_if_disabled);

#endif							/* ITEM_TABLE_WORKER_H */
