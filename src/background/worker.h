/*-------------------------------------------------------------------------
 *
 * worker.h
 *		The extension's background processes (worker.c): the per-database
 *		worker, its vector drain process and the launcher.  Only module.c calls in here; the settings
 *		and the way to ask for a worker are in worker_start.h, the batch
 *		steps the worker runs in index_build.h and api.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_WORKER_H
#define ITEM_TABLE_WORKER_H

#include "fmgr.h"

/*
 * The session-level advisory lock (pg_locks: locktype advisory, objid
 * 0x5f746162 and classid 0x6974656d, database = the worker's) held by the
 * one worker of a database.
 */
#define ITEM_WORKER_LOCK_KEY	INT64CONST(0x6974656d5f746162)

/*
 * The session-level advisory lock (objid 0x5f766472, classid 0x6974656d)
 * held by the one vector drain process of a database.
 */
#define ITEM_DRAIN_LOCK_KEY		INT64CONST(0x6974656d5f766472)

/* GUCs, and the launcher when loaded by shared_preload_libraries */
extern void ItemWorkerInit(void);

/* the entry points, named in the registrations */
extern PGDLLEXPORT void item_table_launcher_main(Datum main_arg);
extern PGDLLEXPORT void item_table_worker_main(Datum main_arg);
extern PGDLLEXPORT void item_table_vector_drain_main(Datum main_arg);

#endif							/* ITEM_TABLE_WORKER_H */
