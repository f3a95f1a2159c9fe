/*-------------------------------------------------------------------------
 *
 * worker_start.h
 *		The background worker's settings and how it is started
 *		(worker_start.c): what the API and the catalog layer may call of
 *		background work.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_WORKER_START_H
#define ITEM_TABLE_WORKER_START_H

#include "fmgr.h"
#include "postmaster/bgworker.h"

/* item_table.index_backfill: who fills an index UpdateTable creates */
typedef enum IndexBackfillMode
{
	INDEX_BACKFILL_WORKER = 0,
	INDEX_BACKFILL_MANUAL
} IndexBackfillMode;

extern int	item_table_index_backfill;
extern int	item_table_vector_drain;	/* INDEX_BACKFILL_WORKER or _MANUAL */
extern int	item_table_vector_drain_nice;	/* 0 to 19 */
extern int	item_table_worker_naptime;	/* seconds */
extern int	item_table_backfill_batch_size;
extern int	item_table_ttl_batch_size;
extern int	item_table_max_workers;
extern int	item_table_batch_timeout;	/* milliseconds, 0: no limit */
extern int	item_table_export_file_items;	/* items per export data file */

/* the settings above as GUCs (from _PG_init, through ItemWorkerInit) */
extern void ItemWorkerDefineSettings(void);

/*
 * Register the worker of database dboid (dbname names it in its process
 * title); notify_pid, if not 0, gets SIGUSR1 on its start and end.
 */
extern bool ItemWorkerRegister(const char *function, const char *type, int restart_secs,
							   Oid dboid, const char *dbname, pid_t notify_pid,
							   BackgroundWorkerHandle **handle);
extern bool ItemWorkerLaunch(Oid dboid, const char *dbname, pid_t notify_pid,
							 BackgroundWorkerHandle **handle);

/*
 * The time limit of one batch of background work (item_table.batch_timeout),
 * armed only in the worker (after ItemWorkerLimitInit): from Start on, the
 * running statement is cancelled once the limit has passed (again every
 * 100 ms while it goes on), and the process ends at twice the limit.  Stop
 * disarms it and says whether the limit was reached.  Outside the worker
 * both do nothing (the session's statement_timeout applies there).
 */
extern void ItemWorkerLimitInit(void);
extern void ItemWorkerLimitStart(const char *what);
extern bool ItemWorkerLimitStop(void);

/* start this database's worker when the current transaction commits */
extern void ItemWorkerRequest(void);

extern Datum item_table_start_worker(PG_FUNCTION_ARGS);

#endif							/* ITEM_TABLE_WORKER_START_H */
