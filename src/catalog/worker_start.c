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
 * server restart (docs/background.md).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>
#include <signal.h>

#include "access/xact.h"
#include "commands/dbcommands.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/guc.h"
#include "utils/timeout.h"
#include "utils/timestamp.h"

#include "worker_start.h"

PG_FUNCTION_INFO_V1(item_table_start_worker);

int			item_table_index_backfill = INDEX_BACKFILL_WORKER;
int			item_table_vector_drain = INDEX_BACKFILL_WORKER;
int			item_table_vector_drain_nice = 19;
int			item_table_worker_naptime = 10;
int			item_table_backfill_batch_size = 1000;
int			item_table_ttl_batch_size = 1000;
int			item_table_max_workers = 4;
int			item_table_batch_timeout = 10000;
int			item_table_export_file_items = 100000;

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
	DefineCustomEnumVariable("item_table.vector_drain",
							 "Who moves the vectors written to vector indexes into their HNSW graphs: the background worker or only CALL item_table.backfill_indexes().",
							 "With 'manual' written vectors wait (searched exactly) until the procedure or item_table.vector_drain_batch() moves them, as for a bulk load whose graph CALL item_table.backfill_indexes() then builds at once.",
							 &item_table_vector_drain, INDEX_BACKFILL_WORKER,
							 index_backfill_options, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("item_table.vector_drain_nice",
							"Operating-system priority (nice value, 0 to 19) of the process that moves written vectors into the HNSW graphs.",
							"The vector drain process of a database lowers its own priority to this at its start (it can only lower it): its graph inserts then take the CPU the writes leave.",
							&item_table_vector_drain_nice, 19, 0, 19,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
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
	DefineCustomIntVariable("item_table.batch_timeout",
							"Longest time one batch of the background worker may run: a stream consumer's call, a Time to Live, backfill or trimming batch (0: no limit).",
							"A batch that runs longer is cancelled and fails (a consumer's failure counts toward max_failures); one that ignores its cancellation ends the worker at twice the limit.",
							&item_table_batch_timeout, 10000, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("item_table.export_file_items",
							"Most items in one data file of an export (ExportTableToPointInTime).",
							"Taken when the export is asked for; the worker also starts a new file after about 64 MB of lines.",
							&item_table_export_file_items, 100000, 1, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
}

/* ----------------------------------------------------------------
 * the time limit of a batch (in the worker only)
 * ----------------------------------------------------------------
 */

/* past the limit, the cancellation is repeated this often */
#define LIMIT_REPEAT_MS		100

static bool limit_registered = false;
static TimeoutId limit_timeout;
static volatile sig_atomic_t limit_expired = false;
static volatile sig_atomic_t limit_overrun = false;
static TimestampTz limit_hard_end = 0;
static char limit_what[NAMEDATALEN * 2];

/*
 * The timeout's handler (in a signal handler: flags only).  From the limit
 * on, it cancels the running statement every LIMIT_REPEAT_MS, as
 * statement_timeout would once; a batch still running at twice the limit
 * has caught its cancellation (an EXCEPTION clause can) and is ended with
 * the process, which no exception handler can catch.
 */
static void
limit_handler(void)
{
	int			save_errno = errno;

	limit_expired = true;
	if (GetCurrentTimestamp() >= limit_hard_end)
	{
		limit_overrun = true;
		ProcDiePending = true;
	}
	else
		QueryCancelPending = true;
	InterruptPending = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

/* say why the worker ends, when it is for that */
static void
limit_exit(int code, Datum arg)
{
	if (limit_overrun)
		ereport(LOG,
				(errmsg("item_table worker: %s ignored its cancellation at item_table.batch_timeout (%d ms): the worker ends at twice the limit, and comes back after item_table.worker_naptime",
						limit_what, item_table_batch_timeout)));
}

void
ItemWorkerLimitInit(void)
{
	if (limit_registered)
		return;
	limit_timeout = RegisterTimeout(USER_TIMEOUT, limit_handler);
	before_shmem_exit(limit_exit, (Datum) 0);
	limit_registered = true;
}

void
ItemWorkerLimitStart(const char *what)
{
	TimestampTz now;

	if (!limit_registered || item_table_batch_timeout <= 0)
		return;
	limit_expired = false;
	strlcpy(limit_what, what, sizeof(limit_what));
	now = GetCurrentTimestamp();
	limit_hard_end = TimestampTzPlusMilliseconds(now, 2 * (int64) item_table_batch_timeout);
	enable_timeout_every(limit_timeout,
						 TimestampTzPlusMilliseconds(now, (int64) item_table_batch_timeout),
						 LIMIT_REPEAT_MS);
}

bool
ItemWorkerLimitStop(void)
{
	bool		expired;

	if (!limit_registered)
		return false;
	disable_timeout(limit_timeout, false);
	expired = limit_expired;
	limit_expired = false;
	/* a cancellation of ours that came after the last check is dropped */
	if (expired)
		QueryCancelPending = false;
	return expired;
}

/*
 * Register a process of item_table's library in database dboid: function
 * (its entry point), "<type> for database <dbname>" in its process title,
 * restart_secs (BGW_NEVER_RESTART: never); notify_pid gets SIGUSR1 on its
 * start and end.
 */
bool
ItemWorkerRegister(const char *function, const char *type, int restart_secs,
				   Oid dboid, const char *dbname, pid_t notify_pid,
				   BackgroundWorkerHandle **handle)
{
	BackgroundWorker w;

	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_RecoveryFinished;
	w.bgw_restart_time = restart_secs;
	snprintf(w.bgw_library_name, BGW_MAXLEN, "item_table");
	snprintf(w.bgw_function_name, BGW_MAXLEN, "%s", function);
	snprintf(w.bgw_name, BGW_MAXLEN, "%s for database %s", type, dbname);
	snprintf(w.bgw_type, BGW_MAXLEN, "%s", type);
	w.bgw_main_arg = ObjectIdGetDatum(dboid);
	w.bgw_notify_pid = notify_pid;
	return RegisterDynamicBackgroundWorker(&w, handle);
}

/*
 * Register the worker of database dboid (named dbname in its process
 * title); notify_pid gets SIGUSR1 on its start and end.
 */
bool
ItemWorkerLaunch(Oid dboid, const char *dbname, pid_t notify_pid,
			  BackgroundWorkerHandle **handle)
{
	return ItemWorkerRegister("item_table_worker_main", "item_table worker",
							  item_table_worker_naptime, dboid, dbname,
							  notify_pid, handle);
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

