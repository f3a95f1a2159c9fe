/*-------------------------------------------------------------------------
 *
 * worker.c
 *		The background worker: the work DynamoDB does without being asked
 *		(filling an index UpdateTable created, deleting items whose Time to
 *		Live has passed), done in every database that has the extension.
 *
 * Three kinds of process, all visible in pg_stat_activity (backend_type
 * and application_name):
 *
 * - "item_table worker", one per database at a time.  It connects to its
 *   database, takes a session advisory lock (ITEM_WORKER_LOCK_KEY; a
 *   second worker of the same database finds it taken and leaves), and
 *   does rounds of work: every index in status CREATING that is the
 *   worker's to fill (indexes.backfill_by), batch by batch, then every
 *   table with Time to Live ENABLED, batch by batch until nothing more has
 *   expired, then every active stream consumer, batch by batch until it
 *   is caught up, and (at most every worker_naptime, while any stream
 *   record exists) stream trimming (stream.c, stream_consumer.c), and as
 *   often, while any history is kept, the trimming of point-in-time
 *   recovery's history past each table's recovery period
 *   (item_table.trim_pitr_history(), backup.c), and every export in
 *   progress (ExportTableToPointInTime), a data file per batch
 *   (export_jobs.c: each file is committed with the export's counts, so
 *   DescribeExport shows the progress, and a crash goes on from the last
 *   file); records and history
 *   are trimmed whenever a round runs, which the launcher makes happen in
 *   every database at least every LAUNCHER_RECHECK_SECS.  While
 *   consumers are active and records keep coming, the worker does not
 *   leave between rounds: it polls every CONSUMER_POLL_MS, so a consumer's
 *   lag stays small, and leaves after CONSUMER_IDLE_SECS without records;
 *   a consumer whose batch failed is left alone for worker_naptime (the
 *   retry delay) while the others go on being polled.  Each batch is a
 *   transaction of its own (so no lock is held
 *   longer than a batch, and a crash loses at most one batch), checks for
 *   interrupts, and an error in one is logged and leaves the others
 *   going.  When a round leaves nothing in progress the worker exits
 *   rather than sleeping connected: a sleeping session would make DROP
 *   DATABASE fail.  It exits with status 1 -- which makes the postmaster
 *   start it again after item_table.worker_naptime seconds
 *   (bgw_restart_time) -- while some table has TTL enabled or a stream
 *   consumer is active, and with 0,
 *   which ends its registration, when the database has no background
 *   work at all.  Before that last exit it releases its lock and looks
 *   once more: a request made meanwhile (below) found the lock taken and
 *   gave up, so the work it announced must be seen here.  A registration
 *   can outlive its database (DROP DATABASE while the worker waits for its
 *   restart, or WITH (FORCE) while it runs): a worker whose database is
 *   gone exits with 0 before connecting (database_gone()), which ends the
 *   registration and frees its max_worker_processes slot.
 *
 * - "item_table vector drain", one per database at a time, started by its
 *   worker when some vector index has pending vectors: it moves them into
 *   the HNSW graphs at a lowered operating-system priority (below, "the
 *   vector drain process of a database").
 *
 * - "item_table launcher", only when the library is in
 *   shared_preload_libraries.  It connects to no database, reads
 *   pg_database every naptime and starts a worker for each database that
 *   allows connections and is not a template (templates must stay free of
 *   sessions, or CREATE DATABASE fails), at most item_table.max_workers at
 *   once; a database whose worker ended is looked at again after
 *   LAUNCHER_RECHECK_SECS, and the registration of a database it no
 *   longer lists (dropped, or closed to connections) is ended.  It is
 *   restarted after a crash, and so after
 *   any restart of the server every database's work resumes by itself.
 *   A launcher rather than one worker per database listed in a setting:
 *   databases come and go (the tests make dozens), and a list to keep in
 *   step with them is a list that is wrong.
 *
 * Without preloading there is no launcher: UpdateTable Create and
 * UpdateTimeToLive ask for the worker of their database (ItemWorkerRequest)
 * and it is started as a dynamic background worker when the transaction
 * commits -- after, so that it sees the work.  Its registration lasts as
 * long as the postmaster: it survives crashes of backends, not a server
 * restart; item_table.start_worker() starts it by hand (docs/background.md).  That
 * part, and the settings, live in worker_start.c, under the API that
 * calls them; this file sits above the batch steps it runs.
 *
 * Limits on user code.  A batch can run code of the database's roles: a
 * stream consumer's function (as its role), triggers of an item table on
 * the rows TTL deletes or of an index table a backfill writes (as the
 * table's owner).  None may hold the worker, and so every other role's
 * background work, for long: each batch is held to
 * item_table.batch_timeout (worker_start.c) -- past it, it is cancelled
 * (which also ends a lock wait), a consumer's failure counts toward its
 * max_failures, and the round goes on with the next unit; a batch that
 * catches its cancellation and goes on ends the worker's process at twice
 * the limit.  Settings a batch changed (set_config(..., false) included)
 * are undone with its transaction, committed or not, so none reaches the
 * next unit of work.
 *
 * Settings (SIGHUP): worker_naptime, backfill_batch_size, ttl_batch_size,
 * max_workers, batch_timeout, vector_drain, vector_drain_nice; index_backfill (per session) makes UpdateTable
 * leave a new index to CALL item_table.backfill_indexes().
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_database.h"
#include "catalog/pg_type.h"
#include "catalog/pg_tablespace_d.h"
#include "common/relpath.h"
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include "api.h"
#include "api_vector.h"
#include "catalog.h"
#include "export_import.h"
#include "index_build.h"
#include "role_guard.h"
#include "stream.h"
#include "worker.h"
#include "worker_start.h"

/* a database whose worker ended is started again after this long */
#define LAUNCHER_RECHECK_SECS	60
/* one round gives each index at most this long before the next */
#define BACKFILL_SLICE_MS		2000
/* and each TTL table (and each stream consumer) */
#define TTL_SLICE_MS			2000
/* stream consumers: polled this often, until idle this long */
#define CONSUMER_POLL_MS		100
#define CONSUMER_IDLE_SECS		10
/*
 * the vector drain process: at most this many vectors (one HNSW insert
 * each, a few ms at 128 dimensions) per transaction, so that the index rows
 * it holds locked while it runs at its low priority are few; it polls every
 * CONSUMER_POLL_MS while vectors keep coming, and leaves after
 * CONSUMER_IDLE_SECS without any
 */
#define DRAIN_BATCH_MAX			8

/* ----------------------------------------------------------------
 * registration
 * ----------------------------------------------------------------
 */

/* loaded by shared_preload_libraries: the launcher runs (and its children know) */
static bool launcher_registered = false;

void
ItemWorkerInit(void)
{
	ItemWorkerDefineSettings();

	if (process_shared_preload_libraries_in_progress)
	{
		BackgroundWorker w;

		launcher_registered = true;

		memset(&w, 0, sizeof(w));
		w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
		w.bgw_start_time = BgWorkerStart_RecoveryFinished;
		w.bgw_restart_time = 5;
		snprintf(w.bgw_library_name, BGW_MAXLEN, "item_table");
		snprintf(w.bgw_function_name, BGW_MAXLEN, "item_table_launcher_main");
		snprintf(w.bgw_name, BGW_MAXLEN, "item_table launcher");
		snprintf(w.bgw_type, BGW_MAXLEN, "item_table launcher");
		RegisterBackgroundWorker(&w);
	}
}

/* ----------------------------------------------------------------
 * the worker of one database
 * ----------------------------------------------------------------
 */
typedef struct WorkItem
{
	char		kind;			/* 'b' backfill, 'v' vector index build, 'd' the
								 * vector drain process started if vectors are
								 * pending, 't' time to live, 'c' stream
								 * consumer, 's' stream trimming, 'p' point-in-time
								 * recovery trimming, 'x' an export */
	char	   *table;			/* consumer: its name; export: its id;
								 * trimming: NULL */
	char	   *index;			/* backfill: the index */
} WorkItem;

static void drain_start_if_needed(void);
static void check_signals(void);
static bool database_gone(Oid dboid);

/* a round that delivered stream records to a consumer */
static bool records_delivered = false;

/*
 * Consumers whose last batch failed, and when they are due again
 * (worker_naptime later), in TopMemoryContext: the others are not held
 * up meanwhile.
 */
typedef struct ConsumerRetry
{
	char	   *name;
	TimestampTz due;
} ConsumerRetry;

static List *consumer_retries = NIL;

static ConsumerRetry *
consumer_retry(const char *name)
{
	ListCell   *lc;

	foreach(lc, consumer_retries)
	{
		ConsumerRetry *r = (ConsumerRetry *) lfirst(lc);

		if (strcmp(r->name, name) == 0)
			return r;
	}
	return NULL;
}

/* a failed batch of consumer name: retried after worker_naptime */
static void
consumer_failed(const char *name)
{
	ConsumerRetry *r = consumer_retry(name);

	if (r == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		r = palloc(sizeof(ConsumerRetry));
		r->name = pstrdup(name);
		consumer_retries = lappend(consumer_retries, r);
		MemoryContextSwitchTo(old);
	}
	r->due = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
										 (int64) item_table_worker_naptime * 1000);
}

/* a batch of consumer name that did not fail */
static void
consumer_not_failed(const char *name)
{
	ConsumerRetry *r = consumer_retry(name);

	if (r != NULL)
	{
		consumer_retries = list_delete_ptr(consumer_retries, r);
		pfree(r->name);
		pfree(r);
	}
}

/* forget the consumers the round did not list (parked, removed) */
static void
consumer_retries_prune(List *work)
{
	ListCell   *lc;

	foreach(lc, consumer_retries)
	{
		ConsumerRetry *r = (ConsumerRetry *) lfirst(lc);
		ListCell   *wc;
		bool		listed = false;

		foreach(wc, work)
		{
			WorkItem   *w = (WorkItem *) lfirst(wc);

			if (w->kind == 'c' && strcmp(w->table, r->name) == 0)
			{
				listed = true;
				break;
			}
		}
		if (!listed)
		{
			consumer_retries = foreach_delete_current(consumer_retries, lc);
			pfree(r->name);
			pfree(r);
		}
	}
}

/* is consumer name waiting for its retry? */
static bool
consumer_waiting(const char *name)
{
	ConsumerRetry *r = consumer_retry(name);

	return r != NULL && GetCurrentTimestamp() < r->due;
}
/* when streams were last trimmed */
static TimestampTz last_trim = 0;
static TimestampTz last_pitr_trim = 0;

/* lock or unlock the worker's advisory lock (in a transaction) */
static bool
worker_lock(bool lock)
{
	if (lock)
		return DatumGetBool(DirectFunctionCall1(pg_try_advisory_lock_int8,
												Int64GetDatum(ITEM_WORKER_LOCK_KEY)));
	return DatumGetBool(DirectFunctionCall1(pg_advisory_unlock_int8,
											Int64GetDatum(ITEM_WORKER_LOCK_KEY)));
}

/* the GUC nest level of the unit of work in progress (begin_xact) */
static int	unit_guc_level = 0;

static void
begin_xact(const char *activity)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	unit_guc_level = NewGUCNestLevel();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, activity);
}

static void
end_xact(void)
{
	/* no setting the unit changed outlives it, even at session level */
	AtEOXact_GUC(false, unit_guc_level);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_stat(false);
	pgstat_report_activity(STATE_IDLE, NULL);
}

/*
 * The work of this database, in cxt.  *present is false when the
 * extension (at a version with background work) is not installed.
 * *ttl_tables counts the tables with TTL enabled.
 */
static List *
list_work(MemoryContext cxt, bool *present, int *ttl_tables)
{
	List	   *work = NIL;
	uint64		i;
	int			rc;

	*ttl_tables = 0;
	begin_xact("item_table: looking for work");
	*present = OidIsValid(get_extension_oid("item_table", true)) &&
		OidIsValid(get_relname_relid("time_to_live", get_namespace_oid("item_table", true)));
	if (*present)
	{
		rc = SPI_execute("SELECT 'b', table_name, index_name FROM item_table.indexes"
						 " WHERE status OPERATOR(pg_catalog.=) 'CREATING'"
						 " AND backfill_by OPERATOR(pg_catalog.=) 'worker'"
						 " UNION ALL SELECT 't', table_name, NULL FROM item_table.time_to_live"
						 " WHERE status OPERATOR(pg_catalog.=) 'ENABLED'"
						 " ORDER BY 1, 2, 3", true, 0);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "background work listing failed: %s", SPI_result_code_string(rc));
		for (i = 0; i < SPI_processed; i++)
		{
			HeapTuple	tup = SPI_tuptable->vals[i];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			MemoryContext old = MemoryContextSwitchTo(cxt);
			WorkItem   *w = palloc0(sizeof(WorkItem));

			w->kind = SPI_getvalue(tup, desc, 1)[0];
			w->table = SPI_getvalue(tup, desc, 2);
			w->index = SPI_getvalue(tup, desc, 3);
			if (w->kind == 't')
				(*ttl_tables)++;
			work = lappend(work, w);
			MemoryContextSwitchTo(old);
		}
		/* vector indexes being built (1.2) */
		if (OidIsValid(get_relname_relid("vector_indexes", get_namespace_oid("item_table", true))))
		{
			/*
			 * and, while any vector index exists, a look at their pending
			 * vectors ('d': the vector drain process started when some
			 * wait and it is not running): periodic work, as Time to Live
			 * is
			 */
			rc = SPI_execute(item_table_vector_drain == INDEX_BACKFILL_WORKER ?
							 "SELECT 'v', table_name, index_name FROM item_table.vector_indexes"
							 " WHERE status OPERATOR(pg_catalog.=) 'CREATING'"
							 " AND backfill_by OPERATOR(pg_catalog.=) 'worker'"
							 " UNION ALL SELECT 'd', NULL, NULL"
							 " WHERE EXISTS (SELECT FROM item_table.vector_indexes)"
							 " ORDER BY 1 DESC, 2, 3" :
			/* item_table.vector_drain = manual: builds only */
							 "SELECT 'v', table_name, index_name FROM item_table.vector_indexes"
							 " WHERE status OPERATOR(pg_catalog.=) 'CREATING'"
							 " AND backfill_by OPERATOR(pg_catalog.=) 'worker'"
							 " ORDER BY 2, 3", true, 0);
			if (rc != SPI_OK_SELECT)
				elog(ERROR, "background work listing failed: %s", SPI_result_code_string(rc));
			for (i = 0; i < SPI_processed; i++)
			{
				MemoryContext old = MemoryContextSwitchTo(cxt);
				WorkItem   *w = palloc0(sizeof(WorkItem));

				w->kind = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1)[0];
				if (w->kind == 'd')
					(*ttl_tables)++;
				w->table = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
				w->index = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 3);
				work = lappend(work, w);
				MemoryContextSwitchTo(old);
			}
		}
		/* access keys and stream consumers of dropped roles (role_guard.c) */
		(void) RoleGuardSweep();
		/* streams (1.2): consumers, and trimming while any stream exists */
		if (OidIsValid(get_relname_relid("stream_consumers", get_namespace_oid("item_table", true))))
		{
			/*
			 * consumers whose last batches failed (or are counted ahead
			 * and never ended) come after the others: one that ended the
			 * worker's process does not keep the others from their turn
			 * in the next worker's round
			 */
			rc = SPI_execute("SELECT 'c', consumer_name, failures FROM item_table.stream_consumers"
							 " WHERE status OPERATOR(pg_catalog.=) 'ACTIVE'"
							 " UNION ALL SELECT 's', NULL, 0 WHERE EXISTS (SELECT FROM item_table.stream_records)"
							 " ORDER BY 1, 3, 2", true, 0);
			if (rc != SPI_OK_SELECT)
				elog(ERROR, "background work listing failed: %s", SPI_result_code_string(rc));
			for (i = 0; i < SPI_processed; i++)
			{
				MemoryContext old = MemoryContextSwitchTo(cxt);
				WorkItem   *w = palloc0(sizeof(WorkItem));

				w->kind = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1)[0];
				w->table = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
				/*
				 * consumers are periodic work: the worker comes back after
				 * worker_naptime.  Trimming alone is not: it is done in
				 * every round, and the launcher starts a round in every
				 * database at least every LAUNCHER_RECHECK_SECS, so that a
				 * database whose streams only need trimming does not hold a
				 * worker slot for good.
				 */
				if (w->kind == 'c')
					(*ttl_tables)++;
				work = lappend(work, w);
				MemoryContextSwitchTo(old);
			}
		}
		/* exports in progress (1.2): a data file per batch (export_jobs.c) */
		if (OidIsValid(get_relname_relid("exports", get_namespace_oid("item_table", true))))
		{
			rc = SPI_execute("SELECT export_id FROM item_table.exports"
							 " WHERE status OPERATOR(pg_catalog.=) 'IN_PROGRESS' ORDER BY 1", true, 0);
			if (rc != SPI_OK_SELECT)
				elog(ERROR, "background work listing failed: %s", SPI_result_code_string(rc));
			for (i = 0; i < SPI_processed; i++)
			{
				MemoryContext old = MemoryContextSwitchTo(cxt);
				WorkItem   *w = palloc0(sizeof(WorkItem));

				w->kind = 'x';
				w->table = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
				work = lappend(work, w);
				MemoryContextSwitchTo(old);
			}
		}
		/* point-in-time recovery (1.2): its history trimmed, as streams are */
		if (OidIsValid(get_relname_relid("pitr_history", get_namespace_oid("item_table", true))))
		{
			rc = SPI_execute("SELECT 1 WHERE EXISTS (SELECT FROM item_table.pitr_history)", true, 1);
			if (rc != SPI_OK_SELECT)
				elog(ERROR, "background work listing failed: %s", SPI_result_code_string(rc));
			if (SPI_processed == 1)
			{
				MemoryContext old = MemoryContextSwitchTo(cxt);
				WorkItem   *w = palloc0(sizeof(WorkItem));

				w->kind = 'p';
				work = lappend(work, w);
				MemoryContextSwitchTo(old);
			}
		}
	}
	end_xact();
	return work;
}

/*
 * Run one batch of w in a transaction of its own.  Returns true when w
 * has more to do now; *failed is set when the batch raised an error
 * (logged, and its transaction rolled back).
 */
static bool
run_batch(WorkItem *w, bool *failed)
{
	MemoryContext cxt = CurrentMemoryContext;
	volatile bool more = false;

	PG_TRY();
	{
		if (w->kind == 'b')
		{
			int64		done = 0;

			begin_xact(psprintf("item_table: backfilling index \"%s\" of table \"%s\"",
								w->index, w->table));
			ItemWorkerLimitStart(psprintf("the backfill of index \"%s\" of table \"%s\"",
										  w->index, w->table));
			more = IndexBackfillBatch(w->table, w->index, item_table_backfill_batch_size,
									  &done, NULL);
			(void) ItemWorkerLimitStop();
			end_xact();
			if (!more)
				ereport(LOG,
						(errmsg("item_table: index \"%s\" of table \"%s\" is ACTIVE (" INT64_FORMAT " items scanned)",
								w->index, w->table, done)));
		}
		else if (w->kind == 'v')
		{
			int64		done = 0;

			begin_xact(psprintf("item_table: building vector index \"%s\" of table \"%s\"",
								w->index, w->table));
			ItemWorkerLimitStart(psprintf("the build of vector index \"%s\" of table \"%s\"",
										  w->index, w->table));
			more = ApiVectorBackfillBatch(w->table, w->index, item_table_backfill_batch_size, &done);
			(void) ItemWorkerLimitStop();
			end_xact();
			if (!more)
				ereport(LOG,
						(errmsg("item_table: vector index \"%s\" of table \"%s\" is ACTIVE (" INT64_FORMAT " items scanned)",
								w->index, w->table, done)));
		}
		else if (w->kind == 'd')
		{
			/* the graph inserts are the drain process's, not ours */
			begin_xact("item_table: looking for pending vectors");
			drain_start_if_needed();
			end_xact();
		}
		else if (w->kind == 'c')
		{
			bool		full = false;
			bool		go;
			int64		n = 0;

			/*
			 * counted as a failure ahead, and committed, then run (the
			 * consumer's function is held to the limit inside)
			 */
			begin_xact(psprintf("item_table: stream consumer \"%s\"", w->table));
			go = ItemStreamConsumerAttempt(w->table);
			end_xact();
			if (go)
			{
				begin_xact(psprintf("item_table: stream consumer \"%s\"", w->table));
				n = ItemStreamConsumerBatch(w->table, &full);
				end_xact();
			}
			if (n > 0)
				records_delivered = true;
			/* a failed batch is retried after worker_naptime */
			if (n == -2)
				consumer_failed(w->table);
			else if (n >= 0)
				consumer_not_failed(w->table);
			more = full;
		}
		else if (w->kind == 'x')
		{
			/*
			 * one data file; no time limit: no code of a role runs (the
			 * table is read as the catalog owner), and a file is bounded
			 * by export_file_items and about 64 MB of lines
			 */
			begin_xact(psprintf("item_table: export %s", w->table));
			more = ExportRunBatch(w->table);
			end_xact();
		}
		else if (w->kind == 's')
		{
			int64		n = 0;

			if (TimestampDifferenceExceeds(last_trim, GetCurrentTimestamp(),
										   item_table_worker_naptime * 1000))
			{
				begin_xact("item_table: trimming streams");
				ItemWorkerLimitStart("stream trimming");
				n = ItemStreamTrimBatch(GetCurrentTimestamp(), item_table_ttl_batch_size);
				(void) ItemWorkerLimitStop();
				end_xact();
				if (n < item_table_ttl_batch_size)
					last_trim = GetCurrentTimestamp();
			}
			more = n >= item_table_ttl_batch_size;
		}
		else if (w->kind == 'p')
		{
			int64		n = 0;

			if (TimestampDifferenceExceeds(last_pitr_trim, GetCurrentTimestamp(),
										   item_table_worker_naptime * 1000))
			{
				bool		isnull;

				begin_xact("item_table: trimming point-in-time recovery history");
				ItemWorkerLimitStart("point-in-time recovery trimming");
				if (SPI_execute_with_args("SELECT item_table.trim_pitr_history(pg_catalog.now(), $1)",
										  1, (Oid[]) {INT4OID},
										  (Datum[]) {Int32GetDatum(item_table_ttl_batch_size)},
										  NULL, false, 1) != SPI_OK_SELECT)
					elog(ERROR, "point-in-time recovery trimming failed");
				n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
				(void) ItemWorkerLimitStop();
				end_xact();
				if (n < item_table_ttl_batch_size)
					last_pitr_trim = GetCurrentTimestamp();
			}
			more = n >= item_table_ttl_batch_size;
		}
		else
		{
			int64		n;

			begin_xact(psprintf("item_table: expiring items of table \"%s\"", w->table));
			ItemWorkerLimitStart(psprintf("the Time to Live batch of table \"%s\"", w->table));
			n = TtlExpireBatch(w->table, GetCurrentTimestamp(), item_table_ttl_batch_size, false);
			(void) ItemWorkerLimitStop();
			end_xact();
			more = n >= item_table_ttl_batch_size;
		}
	}
	PG_CATCH();
	{
		bool		timed_out = ItemWorkerLimitStop();

		MemoryContextSwitchTo(cxt);
		/* a termination request is FATAL and never gets here */
		EmitErrorReport();
		FlushErrorState();
		if (timed_out)
			ereport(LOG,
					(errmsg("item_table worker: a batch (%s%s%s) ran longer than item_table.batch_timeout (%d ms) and was canceled",
							w->kind == 'b' ? "index backfill of table " : w->kind == 'v' ? "vector index build of table " :
							w->kind == 'd' ? "pending vectors" :
							w->kind == 't' ? "Time to Live of table " :
							w->kind == 'c' ? "stream consumer " :
							w->kind == 'p' ? "point-in-time recovery trimming" :
							w->kind == 'x' ? "export " : "stream trimming",
							w->table ? w->table : "", w->index ? w->index : "",
							item_table_batch_timeout)));
		AbortCurrentTransaction();
		pgstat_report_activity(STATE_IDLE, NULL);
		if (w->kind == 'c')
			consumer_failed(w->table);
		else
			*failed = true;
		more = false;
	}
	PG_END_TRY();
	return more;
}

/* ----------------------------------------------------------------
 * the vector drain process of a database
 *
 * A write puts its vector in the index row's pending column; moving it into
 * the HNSW graph costs one graph insert (a few ms at 128 dimensions, some
 * thirty times the write), which must not take the CPU from the writes.
 * So it is done by a process of its own, "item_table vector drain", one
 * per database at a time (ITEM_DRAIN_LOCK_KEY), which lowers its own
 * operating-system priority to item_table.vector_drain_nice at its start:
 * the graph inserts run on the CPU time the writes and searches leave.
 * The database's worker starts it ('d', in each round while vector indexes
 * exist) when some vector is pending and it is not running; it moves the
 * pending vectors of every vector index, DRAIN_BATCH_MAX per transaction
 * (ApiVectorDrainBatch: rows taken FOR UPDATE SKIP LOCKED, as the catalog
 * owner), polls every CONSUMER_POLL_MS while vectors keep coming and
 * leaves after CONSUMER_IDLE_SECS without any, or at once when
 * item_table.vector_drain is set to manual.  Its transactions commit
 * without waiting for the WAL flush (synchronous_commit off): one lost in a
 * crash leaves its rows pending, as they were, to be moved again.  A
 * crash, or kill -9 of the process, loses the batch in progress only.  It
 * is never restarted by the postmaster: the worker's next round starts
 * another when vectors are still pending.
 * ----------------------------------------------------------------
 */
static BackgroundWorkerHandle *drain_handle = NULL;

/* lock or unlock the drain process's advisory lock (in a transaction) */
static bool
drain_lock(bool lock)
{
	if (lock)
		return DatumGetBool(DirectFunctionCall1(pg_try_advisory_lock_int8,
												Int64GetDatum(ITEM_DRAIN_LOCK_KEY)));
	return DatumGetBool(DirectFunctionCall1(pg_advisory_unlock_int8,
											Int64GetDatum(ITEM_DRAIN_LOCK_KEY)));
}

/* the vector indexes of this database, (table, index) in cxt; SPI connected */
static List *
drain_list_indexes(MemoryContext cxt, bool pending_only)
{
	List	   *out = NIL;
	int			rc;

	rc = SPI_execute("SELECT table_name, index_name, relid::pg_catalog.oid FROM item_table.vector_indexes"
					 " ORDER BY 1, 2", true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "vector index listing failed: %s", SPI_result_code_string(rc));
	if (SPI_processed > 0)
	{
		SPITupleTable *tt = SPI_tuptable;
		uint64		n = SPI_processed;

		for (uint64 i = 0; i < n; i++)
		{
			bool		isnull;
			Oid			relid = DatumGetObjectId(SPI_getbinval(tt->vals[i], tt->tupdesc, 3, &isnull));
			MemoryContext old;
			WorkItem   *w;

			if (pending_only)
			{
				rc = SPI_execute(psprintf("SELECT FROM %s WHERE pending IS NOT NULL LIMIT 1",
										  ItemQualifiedName(relid)), true, 1);
				if (rc != SPI_OK_SELECT)
					elog(ERROR, "pending vector lookup failed: %s", SPI_result_code_string(rc));
				if (SPI_processed == 0)
					continue;
			}
			old = MemoryContextSwitchTo(cxt);
			w = palloc0(sizeof(WorkItem));
			w->kind = 'd';
			w->table = SPI_getvalue(tt->vals[i], tt->tupdesc, 1);
			w->index = SPI_getvalue(tt->vals[i], tt->tupdesc, 2);
			out = lappend(out, w);
			MemoryContextSwitchTo(old);
		}
	}
	return out;
}

/*
 * The worker's 'd': start this database's vector drain process when some
 * vector is pending and none runs.  In a transaction, SPI connected.
 */
static void
drain_start_if_needed(void)
{
	MemoryContext old;
	char	   *dbname;
	pid_t		pid;

	/* the one we started is still there */
	if (drain_handle != NULL)
	{
		BgwHandleStatus st = GetBackgroundWorkerPid(drain_handle, &pid);

		if (st == BGWH_STARTED || st == BGWH_NOT_YET_STARTED)
			return;
		pfree(drain_handle);
		drain_handle = NULL;
	}
	/* another one runs (its lock is taken) */
	if (!drain_lock(true))
		return;
	(void) drain_lock(false);
	if (drain_list_indexes(CurrentMemoryContext, true) == NIL)
		return;

	dbname = get_database_name(MyDatabaseId);
	old = MemoryContextSwitchTo(TopMemoryContext);
	if (!ItemWorkerRegister("item_table_vector_drain_main", "item_table vector drain",
							BGW_NEVER_RESTART, MyDatabaseId, dbname ? dbname : "?", 0,
							&drain_handle))
	{
		drain_handle = NULL;
		ereport(LOG,
				(errmsg("item_table worker: no background worker slot for the vector drain process of database \"%s\"",
						dbname ? dbname : "?"),
				 errhint("Raise max_worker_processes; the pending vectors wait (searched exactly) until a slot is free.")));
	}
	MemoryContextSwitchTo(old);
}

/*
 * One batch of the drain of vector index w in a transaction of its own:
 * the vectors moved, -1 after an error (logged, rolled back).
 */
static int64
drain_batch(WorkItem *w, int batch)
{
	MemoryContext cxt = CurrentMemoryContext;
	volatile int64 n = 0;

	PG_TRY();
	{
		/*
		 * no time limit (item_table.batch_timeout): no code of a role runs
		 * (the index table is the catalog owner's, written as its owner),
		 * and a batch is a few graph inserts, which a low priority may
		 * stretch: cancelling it would waste them
		 */
		begin_xact(psprintf("item_table: moving pending vectors of vector index \"%s\" of table \"%s\"",
							w->index, w->table));
		n = ApiVectorDrainBatch(w->table, w->index, batch);
		end_xact();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		EmitErrorReport();
		FlushErrorState();
		AbortCurrentTransaction();
		pgstat_report_activity(STATE_IDLE, NULL);
		n = -1;
	}
	PG_END_TRY();
	return n;
}

void
item_table_vector_drain_main(Datum main_arg)
{
	Oid			dboid = DatumGetObjectId(main_arg);
	MemoryContext roundcxt;
	TimestampTz idle_since;
	bool		locked;
	int			nice_now;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	if (database_gone(dboid))
		proc_exit(0);

	/*
	 * The priority, once: only lowered (a process may raise its nice
	 * value, not lower it), so a server already started at a lower
	 * priority keeps its own for this process too.
	 */
	errno = 0;
	nice_now = getpriority(PRIO_PROCESS, 0);
	if (errno == 0 && item_table_vector_drain_nice > nice_now &&
		setpriority(PRIO_PROCESS, 0, item_table_vector_drain_nice) != 0)
		ereport(LOG,
				(errmsg("item_table vector drain: could not set its priority to %d: %m",
						item_table_vector_drain_nice)));

	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	pgstat_report_appname("item_table vector drain");
	/* a commit lost in a crash leaves its vectors pending: no flush wait */
	SetConfigOption("synchronous_commit", "off", PGC_SUSET, PGC_S_OVERRIDE);

	StartTransactionCommand();
	locked = drain_lock(true);
	CommitTransactionCommand();
	if (!locked)
		proc_exit(0);			/* this database's drain process runs */

	roundcxt = AllocSetContextCreate(TopMemoryContext, "item_table vector drain round",
									 ALLOCSET_DEFAULT_SIZES);
	idle_since = GetCurrentTimestamp();
	for (;;)
	{
		List	   *indexes;
		ListCell   *lc;
		int64		moved = 0;
		bool		failed = false;
		int			batch = Min(item_table_backfill_batch_size, DRAIN_BATCH_MAX);

		check_signals();
		if (item_table_vector_drain != INDEX_BACKFILL_WORKER)
			proc_exit(0);		/* vector_drain = manual: the vectors wait */
		MemoryContextReset(roundcxt);
		begin_xact("item_table: looking for pending vectors");
		indexes = OidIsValid(get_relname_relid("vector_indexes", get_namespace_oid("item_table", true))) ?
			drain_list_indexes(roundcxt, false) : NIL;
		end_xact();
		if (indexes == NIL)
			proc_exit(0);
		foreach(lc, indexes)
		{
			WorkItem   *w = (WorkItem *) lfirst(lc);
			int64		n;

			do
			{
				check_signals();
				n = drain_batch(w, batch);
				if (n > 0)
					moved += n;
			} while (n >= batch && item_table_vector_drain == INDEX_BACKFILL_WORKER);
			if (n < 0)
				failed = true;
		}
		if (moved > 0)
		{
			idle_since = GetCurrentTimestamp();
			continue;
		}
		if (TimestampDifferenceExceeds(idle_since, GetCurrentTimestamp(), CONSUMER_IDLE_SECS * 1000))
			proc_exit(0);
		/* after an error, the next try waits a naptime */
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 failed ? item_table_worker_naptime * 1000L : CONSUMER_POLL_MS,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/*
 * Does the list hold work other than stream trimming?  Trimming is listed
 * whenever any stream record exists, and is due only every
 * worker_naptime: the launcher's periodic rounds bring a worker back for
 * it, so on its own it must not keep a worker looping.
 */
static bool
work_beyond_trimming(List *work)
{
	ListCell   *lc;

	foreach(lc, work)
	{
		if (((WorkItem *) lfirst(lc))->kind != 's')
			return true;
	}
	return false;
}

/*
 * renew_registration
 *		The postmaster restarts a worker that exits with status 1 after the
 *		bgw_restart_time fixed when it was registered.  After a reload
 *		changed item_table.worker_naptime, this worker hands over to a fresh
 *		registration that carries the new interval, and ends its own (exit
 *		0).  Its lock is released first, so that the new worker, which may
 *		start before this one has exited, finds it free.  False when no new
 *		worker could be registered (no free slot): then this registration
 *		goes on at the old interval.
 */
static bool
renew_registration(Oid dboid)
{
	char	   *dbname;
	bool		ok;

	StartTransactionCommand();
	dbname = get_database_name(dboid);
	(void) worker_lock(false);
	ok = ItemWorkerLaunch(dboid, dbname ? dbname : "?", 0, NULL);
	if (!ok)
		(void) worker_lock(true);
	CommitTransactionCommand();
	return ok;
}

static void
check_signals(void)
{
	CHECK_FOR_INTERRUPTS();
	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
	}
}

/*
 * database_gone
 *		Has database dboid been dropped?  Asked before connecting: a worker
 *		whose registration outlived its database (it was sleeping until its
 *		restart, or DROP DATABASE ... WITH (FORCE) ended it) would otherwise
 *		fail to connect (FATAL, exit status 1) and be started again every
 *		worker_naptime for as long as the postmaster runs, holding its
 *		max_worker_processes slot.  No catalog can be read before connecting,
 *		so the answer comes from the data directory: DROP DATABASE removes
 *		the database's directory in every tablespace before it commits (and
 *		CREATE DATABASE makes them before), so a database with no directory
 *		in base/ nor in any pg_tblspc/<oid>/<version>/ does not exist.  Only
 *		a definite "no such file" counts: any other error of stat() leaves
 *		the answer to the connection attempt.
 */
static bool
database_gone(Oid dboid)
{
	char	   *path = GetDatabasePath(dboid, DEFAULTTABLESPACE_OID);
	struct stat st;
	DIR		   *dir;
	struct dirent *de;
	bool		gone = true;

	if (stat(path, &st) == 0 || errno != ENOENT)
		return false;
	dir = AllocateDir("pg_tblspc");
	while (gone && (de = ReadDir(dir, "pg_tblspc")) != NULL)
	{
		char		sub[MAXPGPATH];

		/* tablespace links are named by their OID */
		if (de->d_name[0] == '\0' ||
			strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		snprintf(sub, sizeof(sub), "pg_tblspc/%s/%s/%u",
				 de->d_name, TABLESPACE_VERSION_DIRECTORY, dboid);
		if (stat(sub, &st) == 0 || errno != ENOENT)
			gone = false;
	}
	FreeDir(dir);
	return gone;
}

void
item_table_worker_main(Datum main_arg)
{
	Oid			dboid = DatumGetObjectId(main_arg);
	MemoryContext roundcxt;
	bool		locked;
	TimestampTz idle_since;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	if (database_gone(dboid))
	{
		/* exit status 0 ends the registration: the slot is free again */
		ereport(LOG,
				(errmsg("item_table worker: database %u no longer exists, its worker stops for good",
						dboid)));
		proc_exit(0);
	}
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	pgstat_report_appname("item_table worker");
	ItemWorkerLimitInit();

	StartTransactionCommand();
	locked = worker_lock(true);
	CommitTransactionCommand();
	if (!locked)
		proc_exit(0);			/* this database's worker is running */

	roundcxt = AllocSetContextCreate(TopMemoryContext, "item_table worker round",
									 ALLOCSET_DEFAULT_SIZES);
	idle_since = GetCurrentTimestamp();
	for (;;)
	{
		List	   *work;
		ListCell   *lc;
		bool		present;
		bool		more = false;
		bool		failed = false;
		int			ttl_tables;
		bool		consumers = false;

		check_signals();
		MemoryContextReset(roundcxt);
		work = list_work(roundcxt, &present, &ttl_tables);
		if (!present)
			proc_exit(0);
		consumer_retries_prune(work);
		records_delivered = false;
		foreach(lc, work)
		{
			WorkItem   *w = (WorkItem *) lfirst(lc);
			TimestampTz start = GetCurrentTimestamp();
			bool		w_more;

			if (w->kind == 'c')
			{
				consumers = true;
				if (consumer_waiting(w->table))
					continue;
			}

			do
			{
				check_signals();
				w_more = run_batch(w, &failed);
			} while (w_more &&
					 !TimestampDifferenceExceeds(start, GetCurrentTimestamp(),
												 (w->kind == 'b' || w->kind == 'v') ? BACKFILL_SLICE_MS : TTL_SLICE_MS));
			more |= w_more;
		}
		if (more)
			continue;			/* work left over: another round at once */

		/*
		 * Stream consumers are polled every CONSUMER_POLL_MS while records
		 * keep coming, so that their lag stays small; after
		 * CONSUMER_IDLE_SECS without records the worker leaves like the
		 * others, to come back after worker_naptime.
		 */
		if (records_delivered)
			idle_since = GetCurrentTimestamp();
		if (consumers && !failed &&
			!TimestampDifferenceExceeds(idle_since, GetCurrentTimestamp(), CONSUMER_IDLE_SECS * 1000))
		{
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 CONSUMER_POLL_MS, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			continue;
		}
		if (failed || ttl_tables > 0)
		{
			/*
			 * Back after worker_naptime: one registration per database
			 * does that.  With the launcher it is the launcher's worker
			 * (notified: bgw_notify_pid); a worker an UpdateTable or
			 * UpdateTimeToLive started on demand ends its registration,
			 * or each such request would add one more pass per naptime.
			 * It also ends when a reload changed worker_naptime (the
			 * launcher starts the next with the new interval); without
			 * the launcher it hands over to a fresh registration.
			 */
			if (launcher_registered)
			{
				if (MyBgworkerEntry->bgw_notify_pid == 0 ||
					MyBgworkerEntry->bgw_restart_time != item_table_worker_naptime)
					proc_exit(0);
			}
			else if (MyBgworkerEntry->bgw_restart_time != item_table_worker_naptime &&
					 renew_registration(dboid))
				proc_exit(0);
			proc_exit(1);
		}

		/* nothing at all: leave, unless work came while we held the lock */
		StartTransactionCommand();
		(void) worker_lock(false);
		CommitTransactionCommand();
		work = list_work(roundcxt, &present, &ttl_tables);
		if (!present || !work_beyond_trimming(work))
			proc_exit(0);
		StartTransactionCommand();
		locked = worker_lock(true);
		CommitTransactionCommand();
		if (!locked)
			proc_exit(0);		/* the worker started meanwhile has it */
	}
}

/* ----------------------------------------------------------------
 * the launcher (shared_preload_libraries only)
 * ----------------------------------------------------------------
 */
typedef struct LaunchedDb
{
	Oid			dboid;			/* hash key */
	BackgroundWorkerHandle *handle;
	TimestampTz launched;
} LaunchedDb;

typedef struct DbToCheck
{
	Oid			dboid;
	char		name[NAMEDATALEN];
} DbToCheck;

/* the databases a worker may connect to, in the current memory context */
static List *
list_databases(void)
{
	List	   *dbs = NIL;
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;
	MemoryContext cxt = CurrentMemoryContext;

	StartTransactionCommand();
	(void) GetTransactionSnapshot();
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_database db = (Form_pg_database) GETSTRUCT(tup);
		MemoryContext old;
		DbToCheck  *d;

		if (!db->datallowconn || db->datistemplate)
			continue;
		old = MemoryContextSwitchTo(cxt);
		d = palloc(sizeof(DbToCheck));
		d->dboid = db->oid;
		strlcpy(d->name, NameStr(db->datname), NAMEDATALEN);
		dbs = lappend(dbs, d);
		MemoryContextSwitchTo(old);
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	CommitTransactionCommand();
	return dbs;
}

void
item_table_launcher_main(Datum main_arg)
{
	HTAB	   *launched;
	HASHCTL		ctl;
	MemoryContext scancxt;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	/* no database: pg_database is a shared catalog */
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname("item_table launcher");

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(LaunchedDb);
	launched = hash_create("item_table launched workers", 64, &ctl, HASH_ELEM | HASH_BLOBS);
	scancxt = AllocSetContextCreate(TopMemoryContext, "item_table launcher scan",
									ALLOCSET_SMALL_SIZES);
	for (;;)
	{
		List	   *dbs;
		ListCell   *lc;
		int			running = 0;
		HASH_SEQ_STATUS st;
		LaunchedDb *e;
		TimestampTz now = GetCurrentTimestamp();

		check_signals();
		MemoryContextReset(scancxt);
		MemoryContextSwitchTo(scancxt);
		dbs = list_databases();
		MemoryContextSwitchTo(TopMemoryContext);

		/*
		 * forget stopped workers once their database is due again, and at
		 * once the workers of databases that are gone (dropped, or no longer
		 * allowing connections): their registration is ended, or a worker
		 * waiting for its restart (TTL enabled: exit status 1) would fail to
		 * connect and be started again every naptime, for good, in a slot
		 * of max_worker_processes.  (A stopped worker's handle may name a
		 * registration that has already ended: then this does nothing.)
		 */
		hash_seq_init(&st, launched);
		while ((e = (LaunchedDb *) hash_seq_search(&st)) != NULL)
		{
			pid_t		pid;
			BgwHandleStatus s = GetBackgroundWorkerPid(e->handle, &pid);
			bool		listed = false;

			if (s == BGWH_POSTMASTER_DIED)
				proc_exit(1);
			foreach(lc, dbs)
			{
				if (((DbToCheck *) lfirst(lc))->dboid == e->dboid)
				{
					listed = true;
					break;
				}
			}
			if (!listed)
			{
				TerminateBackgroundWorker(e->handle);
				pfree(e->handle);
				hash_search(launched, &e->dboid, HASH_REMOVE, NULL);
				continue;
			}
			if (s != BGWH_STOPPED)
				running++;
			else if (TimestampDifferenceExceeds(e->launched, now, LAUNCHER_RECHECK_SECS * 1000))
			{
				pfree(e->handle);
				hash_search(launched, &e->dboid, HASH_REMOVE, NULL);
			}
		}
		foreach(lc, dbs)
		{
			DbToCheck  *d = (DbToCheck *) lfirst(lc);
			bool		found;

			if (running >= item_table_max_workers)
				break;
			e = (LaunchedDb *) hash_search(launched, &d->dboid, HASH_ENTER, &found);
			if (found)
				continue;
			if (!ItemWorkerLaunch(d->dboid, d->name, MyProcPid, &e->handle))
			{
				hash_search(launched, &d->dboid, HASH_REMOVE, NULL);
				ereport(LOG,
						(errmsg("item_table launcher: no background worker slot for database \"%s\"", d->name),
						 errhint("Raise max_worker_processes.")));
				break;
			}
			e->launched = now;
			running++;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 item_table_worker_naptime * 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
