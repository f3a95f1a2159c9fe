/*-------------------------------------------------------------------------
 *
 * worker_start.c
 *		The background worker's settings and how it is started: at the
 *		commit of a transaction that made work for it, by
 *		item_table.start_worker(), and by the launcher (worker.c).
 *
 * This is the part of background work that the API and the catalog layer
 * call: UpdateTable (an index to fill) and UpdateTimeToLive (a table to
 * watch) ask for the worker of their database with ItemWorkerRequest(),
 * and read the settings.  It names the worker's entry point by library
 * and function name only (bgw_library_name, bgw_function_name), so it
 * depends on nothing of the worker itself (worker.c), which sits above
 * everything it runs: the index backfill batches (index_build.c) and the
 * Time to Live batches (ttl.c).
 *
 * Without shared_preload_libraries there is no launcher, and the worker of
 * a database is a dynamic background worker registered when the
 * transaction that asked for it commits -- after, so that it sees the
 * work; an aborted transaction asks for nothing.  Its registration lasts
 * as long as the postmaster: it survives crashes of backends, not a
 * server restart (README).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "commands/dbcommands.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "worker_start.h"

PG_FUNCTION_INFO_V1(item_table_start_worker);

int			item_table_index_backfill = INDEX_BACKFILL_WORKER;
int			item_table_worker_naptime = 10;
int			item_table_backfill_batch_size = 1000;
int			item_table_ttl_batch_size = 1000;
int			item_table_max_workers = 4;

static const struct config_enum_entry index_backfill_options[] = {
	{"worker", INDEX_BACKFILL_WORKER, false},
	{"manual", INDEX_BACKFILL_MANUAL, false},
	{NULL, 0, false}
};

/* ----------------------------------------------------------------
 * settings
 * ----------------------------------------------------------------
 */
void
ItemWorkerDefineSettings(void)
{
	DefineCustomEnumVariable("item_table.index_backfill",
							 "Who fills an index UpdateTable creates: the background worker or CALL item_table.backfill_indexes().",
							 "With 'manual' the index stays CREATING until the procedure is called.",
							 &item_table_index_backfill, INDEX_BACKFILL_WORKER,
							 index_backfill_options, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("item_table.worker_naptime",
							"Seconds between the background worker's rounds while tables have Time to Live enabled.",
							NULL, &item_table_worker_naptime, 10, 1, 3600,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("item_table.backfill_batch_size",
							"Items the background worker indexes per transaction when it fills a new index.",
							NULL, &item_table_backfill_batch_size, 1000, 1, 1000000,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("item_table.ttl_batch_size",
							"Expired items the background worker deletes per transaction.",
							NULL, &item_table_ttl_batch_size, 1000, 1, 1000000,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("item_table.max_workers",
							"Databases the launcher works in at once (one worker each).",
							"Each worker is a background worker process: max_worker_processes must leave room.",
							&item_table_max_workers, 4, 1, 64,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
}

/*
 * Register the worker of database dboid (named dbname in its process
 * title); notify_pid gets SIGUSR1 on its start and end.
 */
bool
ItemWorkerLaunch(Oid dboid, const char *dbname, pid_t notify_pid,
			  BackgroundWorkerHandle **handle)
{
	BackgroundWorker w;

	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_RecoveryFinished;
	w.bgw_restart_time = item_table_worker_naptime;
	snprintf(w.bgw_library_name, BGW_MAXLEN, "item_table");
	snprintf(w.bgw_function_name, BGW_MAXLEN, "item_table_worker_main");
	snprintf(w.bgw_name, BGW_MAXLEN, "item_table worker for database %s", dbname);
	snprintf(w.bgw_type, BGW_MAXLEN, "item_table worker");
	w.bgw_main_arg = ObjectIdGetDatum(dboid);
	w.bgw_notify_pid = notify_pid;
	return RegisterDynamicBackgroundWorker(&w, handle);
}

/* ----------------------------------------------------------------
 * on demand: a worker started when a transaction that made work commits
 * ----------------------------------------------------------------
 */
static bool worker_requested = false;
static bool xact_callback_registered = false;

static void
worker_xact_callback(XactEvent event, void *arg)
{
	if (!worker_requested)
		return;
	if (event == XACT_EVENT_COMMIT)
	{
		char	   *dbname;

		worker_requested = false;
		dbname = get_database_name(MyDatabaseId);
		if (!ItemWorkerLaunch(MyDatabaseId, dbname ? dbname : "?", 0, NULL))
			ereport(WARNING,
					(errmsg("could not start the item_table background worker"),
					 errhint("Raise max_worker_processes; the work is done when a worker starts (item_table.start_worker()).")));
	}
	else if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		worker_requested = false;
}

void
ItemWorkerRequest(void)
{
	/* the worker itself never asks for another */
	if (MyBackendType == B_BG_WORKER)
		return;
	if (!xact_callback_registered)
	{
		RegisterXactCallback(worker_xact_callback, NULL);
		xact_callback_registered = true;
	}
	worker_requested = true;
}

/*
 * item_table.start_worker(): start this database's worker now (it leaves
 * at once when it finds another running, or nothing to do).
 */
Datum
item_table_start_worker(PG_FUNCTION_ARGS)
{
	char	   *dbname = get_database_name(MyDatabaseId);

	PG_RETURN_BOOL(ItemWorkerLaunch(MyDatabaseId, dbname ? dbname : "?", 0, NULL));
}

