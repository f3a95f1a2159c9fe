/*-------------------------------------------------------------------------
 *
 * stream_consumer.c
 *		Stream consumers: SQL functions registered on a table's stream
 *		(the counterpart of a Lambda trigger), called by the background
 *		worker with batches of records.
 *
 * A consumer is a row of item_table.stream_consumers: the stream, a
 * function f(records jsonb) (any return type), the role it runs as (the
 * role that registered it), a batch size, and its checkpoint
 * last_sequence_number.  One batch (ConsumerRunBatch) is, in one
 * transaction:
 *
 *	lock the consumer's row; read up to batch_size records after the
 *	checkpoint and at or below the stream's safe horizon (stream.c), in
 *	sequence order; call f with them (a JSON array of records in
 *	GetRecords' shape) in a subtransaction, as the consumer's role; on
 *	success move the checkpoint to the last record; on error roll the
 *	subtransaction back, count the failure and record the message and the
 *	failing batch's first and last sequence numbers.
 *
 * The checkpoint is written in the same transaction as whatever f did, so
 * a batch is applied exactly once: a crash before the commit loses both,
 * and the batch is read again after the restart; after the commit both
 * are there.  Records come in sequence order, which is each item's order
 * (and so each partition's); batches of one consumer never run
 * concurrently (the row lock).  A failing batch is retried by the next
 * round; after max_failures failures in a row the consumer is PARKED and
 * left alone (the stream goes on for everyone else) until
 * resume_stream_consumer(), which retries the same batch.
 *
 * Rights.  Registering needs what reading the stream needs (ItemStreamCheckRead)
 * and EXECUTE on the function; the function then runs as the registering
 * role, security-restricted with search_path pinned (catalog.c's
 * ItemAsRoleBegin), never with the worker's superuser rights: a superuser
 * cannot register a consumer (register as the role that should run it).
 * Removing or resuming needs the privileges of that role.  Each batch
 * checks again, as that role, that it may still read the stream: a role
 * that lost SELECT on the table gets failures, and its consumer is parked.
 * Before that, each batch checks that the role still exists and is not a
 * superuser, and that the function still exists and the role may still
 * use its schema and EXECUTE it (consumer_rights_lost()): a consumer that
 * lost any of these is parked at once, with the reason in last_error,
 * and its function is not called.  Whatever settings the function changed
 * (set_config(..., false) included) are undone when it returns, so they
 * never reach the next unit of work of the session that ran it.
 *
 * Time.  In the worker the call is held to item_table.batch_timeout
 * (worker_start.c): past it the function is cancelled, and a function
 * that returns after its cancellation (having caught it) fails all the
 * same; the failure counts toward max_failures like any other.  The
 * worker counts each batch as a failure before it runs it, in a
 * transaction of its own (ItemStreamConsumerAttempt), and the batch's
 * outcome clears or keeps the count: a function that ignores its
 * cancellation until the worker's process is ended (at twice the limit)
 * is thus counted too, and parked after max_failures such batches.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/resowner.h"
#include "utils/syscache.h"

#include "api.h"
#include "jsonb_binary.h"
#include "role_guard.h"
#include "stream.h"
#include "worker_start.h"

PG_FUNCTION_INFO_V1(item_table_add_stream_consumer);
PG_FUNCTION_INFO_V1(item_table_remove_stream_consumer);
PG_FUNCTION_INFO_V1(item_table_resume_stream_consumer);
PG_FUNCTION_INFO_V1(item_table_run_stream_consumers);

static int64 ConsumerRunBatch(const char *name, bool wait, bool counted, bool *full);

static void
exec_as_catalog_owner(const char *sql, int nargs, Oid *argtypes, Datum *args,
					  const char *nulls, int expected)
{
	ItemRoleSwitch sw;
	int			rc;

	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args(sql, nargs, argtypes, args, nulls, false, 0);
	ItemAsRoleEnd(&sw);
	if (rc != expected)
		elog(ERROR, "stream consumer catalog statement failed: %s", SPI_result_code_string(rc));
}

/* ----------------------------------------------------------------
 * registration
 * ----------------------------------------------------------------
 */
Datum
item_table_add_stream_consumer(PG_FUNCTION_ARGS)
{
	char	   *table;
	Oid			fn;
	char	   *name;
	int32		batch_size = PG_ARGISNULL(3) ? 100 : PG_GETARG_INT32(3);
	int32		max_failures = PG_ARGISNULL(4) ? 5 : PG_GETARG_INT32(4);
	char	   *start_at = PG_ARGISNULL(5) ? "TRIM_HORIZON" : text_to_cstring(PG_GETARG_TEXT_PP(5));
	Oid			role = GetUserId();
	StreamInfo	s;
	HeapTuple	proc;
	int64		position;
	text	   *result;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("table_name and function must not be null")));
	table = text_to_cstring(PG_GETARG_TEXT_PP(0));
	fn = PG_GETARG_OID(1);
	if (batch_size < 1 || batch_size > 10000)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("batch_size must be between 1 and 10000")));
	if (max_failures < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("max_failures must be positive")));
	if (strcmp(start_at, "TRIM_HORIZON") != 0 && strcmp(start_at, "LATEST") != 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("start_at must be TRIM_HORIZON or LATEST")));
	if (superuser_arg(role))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("a stream consumer may not run as a superuser"),
				 errhint("Register the consumer as the (non-superuser) role it should run as, e.g. after SET ROLE.")));

	proc = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(proc))
		elog(ERROR, "cache lookup failed for function %u", fn);
	{
		Form_pg_proc p = (Form_pg_proc) GETSTRUCT(proc);

		if (p->pronargs != 1 || p->proargtypes.values[0] != JSONBOID || p->proretset ||
			p->prokind != PROKIND_FUNCTION)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_FUNCTION_DEFINITION),
					 errmsg("a stream consumer must be a function taking one jsonb argument (the records) and returning one value")));
		name = PG_ARGISNULL(2) ? pstrdup(NameStr(p->proname)) : text_to_cstring(PG_GETARG_TEXT_PP(2));
	}
	ReleaseSysCache(proc);
	if (ItemProcAclCheck(fn, role, ACL_EXECUTE) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_FUNCTION, get_func_name(fn));

	SPI_connect();
	if (!ItemStreamFetchForTable(table, false, &s))
	{
		(void) TableDefLookup(table);	/* ResourceNotFoundException */
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" has no enabled stream", table),
				 errhint("Enable one with UpdateTable's StreamSpecification.")));
	}
	ItemStreamCheckRead(&s);
	if (strcmp(start_at, "LATEST") == 0)
		position = Max(s.start_seq, Max(s.trimmed_seq, ItemStreamSafeHorizon()));
	else
		position = Max(s.start_seq, s.trimmed_seq);
	{
		Oid			argtypes[8] = {TEXTOID, TEXTOID, INT4OID, OIDOID, OIDOID, INT4OID, INT4OID, INT8OID};
		Datum		args[8];
		int			rc;
		ItemRoleSwitch sw;

		args[0] = CStringGetTextDatum(name);
		args[1] = CStringGetTextDatum(table);
		args[2] = Int32GetDatum(s.stream_id);
		args[3] = ObjectIdGetDatum(fn);
		args[4] = ObjectIdGetDatum(role);
		args[5] = Int32GetDatum(batch_size);
		args[6] = Int32GetDatum(max_failures);
		args[7] = Int64GetDatum(position);
		ItemAsCatalogOwnerBegin(&sw);
		rc = SPI_execute_with_args("INSERT INTO item_table.stream_consumers (consumer_name, table_name,"
								   " stream_id, function, run_as, batch_size, max_failures, last_sequence_number)"
								   " VALUES ($1, $2, $3, $4::pg_catalog.regprocedure, $5::pg_catalog.regrole, $6, $7, $8)"
								   " ON CONFLICT (consumer_name) DO NOTHING",
								   8, argtypes, args, NULL, false, 0);
		ItemAsRoleEnd(&sw);
		if (rc != SPI_OK_INSERT)
			elog(ERROR, "stream consumer catalog insert failed: %s", SPI_result_code_string(rc));
		if (SPI_processed == 0)
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_OBJECT),
					 errmsg("stream consumer \"%s\" already exists", name)));
	}
	SPI_finish();
	ItemWorkerRequest();
	result = cstring_to_text(name);
	PG_RETURN_TEXT_P(result);
}

/* the consumer's role, after checking the caller has its privileges */
static bool
check_consumer_rights(const char *name)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1] = {CStringGetTextDatum(name)};
	int			rc;
	bool		isnull;
	Oid			role;

	rc = SPI_execute_with_args("SELECT run_as::pg_catalog.oid FROM item_table.stream_consumers"
							   " WHERE consumer_name OPERATOR(pg_catalog.=) $1",
							   1, argtypes, args, NULL, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "stream consumer catalog read failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return false;
	role = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (!has_privs_of_role(GetUserId(), role))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for stream consumer \"%s\"", name),
				 errdetail("Only members of the role it runs as may change it.")));
	return true;
}

/*
 * Run one catalog statement on the consumer named by $1, after the rights
 * check; false when there is no such consumer.
 */
static bool
change_consumer(const char *name, const char *sql, int expected)
{
	bool		found;

	SPI_connect();
	found = check_consumer_rights(name);
	if (found)
	{
		Oid			argtypes[1] = {TEXTOID};
		Datum		args[1] = {CStringGetTextDatum(name)};

		exec_as_catalog_owner(sql, 1, argtypes, args, NULL, expected);
	}
	SPI_finish();
	return found;
}

Datum
item_table_remove_stream_consumer(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(change_consumer(text_to_cstring(PG_GETARG_TEXT_PP(0)),
								   "DELETE FROM item_table.stream_consumers"
								   " WHERE consumer_name OPERATOR(pg_catalog.=) $1",
								   SPI_OK_DELETE));
}

Datum
item_table_resume_stream_consumer(PG_FUNCTION_ARGS)
{
	bool		found;

	found = change_consumer(text_to_cstring(PG_GETARG_TEXT_PP(0)),
							"UPDATE item_table.stream_consumers SET status = 'ACTIVE', failures = 0"
							" WHERE consumer_name OPERATOR(pg_catalog.=) $1",
							SPI_OK_UPDATE);
	if (found)
		ItemWorkerRequest();
	PG_RETURN_BOOL(found);
}

/* ----------------------------------------------------------------
 * one batch
 * ----------------------------------------------------------------
 */
/*
 * A failed batch: counted (unless the worker counted it ahead: counted),
 * and the consumer parked after max_failures in a row.
 */
static void
record_failure(const char *name, const char *message, int64 first, int64 last,
			   bool counted)
{
	Oid			argtypes[5] = {TEXTOID, TEXTOID, INT8OID, INT8OID, INT4OID};
	Datum		args[5];

	args[0] = CStringGetTextDatum(name);
	args[1] = CStringGetTextDatum(message);
	args[2] = Int64GetDatum(first);
	args[3] = Int64GetDatum(last);
	args[4] = Int32GetDatum(counted ? 0 : 1);
	exec_as_catalog_owner("UPDATE item_table.stream_consumers SET failures = failures OPERATOR(pg_catalog.+) $5,"
						  " status = CASE WHEN failures OPERATOR(pg_catalog.+) $5 OPERATOR(pg_catalog.>=) max_failures"
						  " THEN 'PARKED' ELSE status END,"
						  " last_error = $2, failed_batch_first = $3, failed_batch_last = $4,"
						  " last_run_at = pg_catalog.clock_timestamp()"
						  " WHERE consumer_name OPERATOR(pg_catalog.=) $1",
						  5, argtypes, args, NULL, SPI_OK_UPDATE);
}

/* a batch the worker counted ahead did not call the function after all */
static void
uncount(const char *name)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1] = {CStringGetTextDatum(name)};

	exec_as_catalog_owner("UPDATE item_table.stream_consumers SET failures = failures OPERATOR(pg_catalog.-) 1"
						  " WHERE consumer_name OPERATOR(pg_catalog.=) $1"
						  " AND failures OPERATOR(pg_catalog.>) 0",
						  1, argtypes, args, NULL, SPI_OK_UPDATE);
}

static void
park(const char *name, const char *message)
{
	Oid			argtypes[2] = {TEXTOID, TEXTOID};
	Datum		args[2] = {CStringGetTextDatum(name), CStringGetTextDatum(message)};

	exec_as_catalog_owner("UPDATE item_table.stream_consumers SET status = 'PARKED', last_error = $2"
						  " WHERE consumer_name OPERATOR(pg_catalog.=) $1",
						  2, argtypes, args, NULL, SPI_OK_UPDATE);
}

/*
 * consumer_rights_lost
 *		Why role may no longer have function fn called as a consumer, or
 *		NULL if it may: the role is gone or has become a superuser, the
 *		function is gone, or the role may no longer use the function's
 *		schema or execute it (for a SECURITY DEFINER function too: the
 *		right to call it is the consumer's role's).
 */
static char *
consumer_rights_lost(Oid fn, Oid role)
{
	HeapTuple	proc;
	Oid			nsp;
	char	   *rolname;
	char	   *fname;

	if (!SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(role)))
		return psprintf("the role the consumer runs as (OID %u) no longer exists", role);
	rolname = GetUserNameFromId(role, false);
	if (superuser_arg(role))
		return psprintf("role \"%s\" the consumer runs as is now a superuser: a stream consumer may not run as a superuser",
						rolname);
	proc = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(proc))
		return psprintf("the consumer's function (OID %u) no longer exists", fn);
	nsp = ((Form_pg_proc) GETSTRUCT(proc))->pronamespace;
	ReleaseSysCache(proc);
	fname = format_procedure_qualified(fn);
	if (ItemNamespaceAclCheck(nsp, role, ACL_USAGE) != ACLCHECK_OK)
		return psprintf("role \"%s\" may no longer use schema \"%s\" of the consumer's function %s",
						rolname, get_namespace_name(nsp), fname);
	if (ItemProcAclCheck(fn, role, ACL_EXECUTE) != ACLCHECK_OK)
		return psprintf("role \"%s\" may no longer execute the consumer's function %s",
						rolname, fname);
	return NULL;
}

/*
 * Has active consumer name records to read?  1 yes (or maybe: the batch
 * will tell), 0 no, -1 no active consumer of that name.  Reads without
 * locking, so that polling gives the worker no transaction id.
 */
static int
records_waiting(const char *name)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1] = {CStringGetTextDatum(name)};
	int			rc;
	bool		isnull;
	int64		pos;
	int32		sid;
	StreamInfo	s;

	rc = SPI_execute_with_args("SELECT stream_id, last_sequence_number FROM item_table.stream_consumers"
							   " WHERE consumer_name OPERATOR(pg_catalog.=) $1"
							   " AND status OPERATOR(pg_catalog.=) 'ACTIVE'",
							   1, argtypes, args, NULL, true, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "stream consumer catalog read failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return -1;
	sid = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	pos = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	if (ItemStreamFetchById(sid, &s) && pos >= s.trimmed_seq)
	{
		bool		dummy;
		int64		upto = ItemStreamSafeHorizon();

		if (s.end_seq >= 0 && upto > s.end_seq)
			upto = s.end_seq;
		if (ItemStreamReadRecords(&s, pos, upto, 1, CurrentMemoryContext, &dummy) == NIL)
			return 0;
	}
	return 1;
}

/*
 * ConsumerRunBatch
 *		One batch of consumer name, in the current transaction (SPI
 *		connected): the number of records delivered, 0 when caught up (or
 *		parked), -1 when the consumer is not active or another session runs
 *		it, -2 when the batch failed (recorded; retried later).  *full is
 *		set when the batch was full (more may be waiting).  counted: the
 *		worker counted this batch as a failure ahead
 *		(ItemStreamConsumerAttempt).
 */
static int64
ConsumerRunBatch(const char *name, bool wait, bool counted, bool *full)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1] = {CStringGetTextDatum(name)};
	ItemRoleSwitch sw;
	int			rc;
	bool		isnull;
	HeapTuple	tup;
	TupleDesc	desc;
	int32		stream_id;
	Oid			fn;
	Oid			role;
	int32		batch_size;
	int64		position;
	StreamInfo	s;
	int64		upto;
	List	   *recs;
	ListCell   *lc;
	bool		more;
	Jsonb	   *batch;
	int64		first,
				last = 0;
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool ok = false;
	volatile bool timed_out = false;
	char	   *volatile message = NULL;
	char	   *lost;

	*full = false;

	/*
	 * Polling finds nothing to do most of the time: look without locking
	 * (which would give the worker a transaction id each time) first.
	 */
	if (!wait && !counted)
	{
		int			r = records_waiting(name);

		if (r <= 0)
			return r;
	}
	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args(wait ?
							   "SELECT stream_id, function::pg_catalog.oid, run_as::pg_catalog.oid,"
							   " batch_size, last_sequence_number FROM item_table.stream_consumers"
							   " WHERE consumer_name OPERATOR(pg_catalog.=) $1"
							   " AND status OPERATOR(pg_catalog.=) 'ACTIVE' FOR UPDATE" :
							   "SELECT stream_id, function::pg_catalog.oid, run_as::pg_catalog.oid,"
							   " batch_size, last_sequence_number FROM item_table.stream_consumers"
							   " WHERE consumer_name OPERATOR(pg_catalog.=) $1"
							   " AND status OPERATOR(pg_catalog.=) 'ACTIVE' FOR UPDATE SKIP LOCKED",
							   1, argtypes, args, NULL, false, 1);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "stream consumer catalog read failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return -1;
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	stream_id = DatumGetInt32(SPI_getbinval(tup, desc, 1, &isnull));
	fn = DatumGetObjectId(SPI_getbinval(tup, desc, 2, &isnull));
	role = DatumGetObjectId(SPI_getbinval(tup, desc, 3, &isnull));
	batch_size = DatumGetInt32(SPI_getbinval(tup, desc, 4, &isnull));
	position = DatumGetInt64(SPI_getbinval(tup, desc, 5, &isnull));

	/* never run as a role that was dropped, or got a dropped one's OID */
	if (!RoleGuardHolds(role))
		lost = psprintf("the role the consumer runs as (OID %u) was dropped, or lost its grant on item_table." ROLE_GUARD_ANCHOR,
						role);
	else
		/* the function is not called when the consumer no longer may */
		lost = consumer_rights_lost(fn, role);
	if (lost != NULL)
	{
		ereport(LOG,
				(errmsg("item_table: stream consumer \"%s\" parked: %s", name, lost)));
		if (counted)
			uncount(name);
		park(name, lost);
		return 0;
	}
	if (!ItemStreamFetchById(stream_id, &s))
	{
		if (counted)
			uncount(name);
		park(name, "the stream was trimmed away before the consumer read it");
		return 0;
	}
	if (position < s.trimmed_seq)
	{
		if (counted)
			uncount(name);
		park(name, psprintf("records after sequence number %lld were trimmed before the consumer read them",
							(long long) position));
		return 0;
	}
	upto = ItemStreamSafeHorizon();
	if (s.end_seq >= 0 && upto > s.end_seq)
		upto = s.end_seq;
	recs = ItemStreamReadRecords(&s, position, upto, batch_size, cxt, &more);
	if (recs == NIL)
	{
		if (counted)
			uncount(name);
		return 0;
	}
	*full = more || list_length(recs) >= batch_size;
	first = ((StreamRecord *) linitial(recs))->seq;
	{
		Jsonb	  **elems = palloc(sizeof(Jsonb *) * list_length(recs));

		foreach(lc, recs)
		{
			elems[foreach_current_index(lc)] = ItemStreamRecordJsonb(&s, (StreamRecord *) lfirst(lc));
			last = ((StreamRecord *) lfirst(lc))->seq;
		}
		batch = JsonbArrayOf(elems, list_length(recs));
	}

	/* the consumer's work, as its role, in a subtransaction */
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		ItemRoleSwitch rsw;

		FmgrInfo	flinfo;
		LOCAL_FCINFO(fc, 1);

		ItemAsRoleBegin(&rsw, role, 0);
		/* the role may have lost the right to read the stream since */
		ItemStreamCheckRead(&s);
		fmgr_info(fn, &flinfo);
		InitFunctionCallInfoData(*fc, &flinfo, 1, InvalidOid, NULL, NULL);
		fc->args[0].value = JsonbPGetDatum(batch);
		fc->args[0].isnull = false;
		/* whatever it returns, NULL included, is ignored */
		ItemWorkerLimitStart(psprintf("stream consumer \"%s\"", name));
		(void) FunctionCallInvoke(fc);
		if (ItemWorkerLimitStop())
		{
			/* it caught its cancellation and returned: a failure all the same */
			timed_out = true;
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("canceling the stream consumer: it ran longer than item_table.batch_timeout")));
		}

		/*
		 * Undo every setting it changed, set_config(..., false) and SET
		 * included, rather than keep them for the rest of the session (as
		 * the end of a nest level at commit would).
		 */
		AtEOXact_GUC(false, rsw.nestlevel);
		SetUserIdAndSecContext(rsw.save_userid, rsw.save_sec_context);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		ok = true;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		if (ItemWorkerLimitStop())
			timed_out = true;
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (timed_out)
			message = psprintf("the batch ran longer than item_table.batch_timeout (%d ms) and was canceled",
							   item_table_batch_timeout);
		else
			message = pstrdup(edata->message);
		FreeErrorData(edata);
	}
	PG_END_TRY();

	if (!ok)
	{
		ereport(LOG,
				(errmsg("item_table: stream consumer \"%s\" failed on records %lld to %lld: %s",
						name, (long long) first, (long long) last, message)));
		record_failure(name, message, first, last, counted);
		*full = false;
		return -2;
	}
	{
		Oid			utypes[3] = {TEXTOID, INT8OID, INT8OID};
		Datum		uargs[3];

		uargs[0] = CStringGetTextDatum(name);
		uargs[1] = Int64GetDatum(last);
		uargs[2] = Int64GetDatum(list_length(recs));
		exec_as_catalog_owner("UPDATE item_table.stream_consumers SET last_sequence_number = $2,"
							  " failures = 0, batches_done = batches_done OPERATOR(pg_catalog.+) 1,"
							  " records_done = records_done OPERATOR(pg_catalog.+) $3,"
							  " last_run_at = pg_catalog.clock_timestamp()"
							  " WHERE consumer_name OPERATOR(pg_catalog.=) $1",
							  3, utypes, uargs, NULL, SPI_OK_UPDATE);
	}
	return list_length(recs);
}

/* the names of the active consumers, in cxt */
static List *
active_consumers(MemoryContext cxt)
{
	List	   *names = NIL;
	int			rc;
	uint64		i;

	rc = SPI_execute("SELECT consumer_name FROM item_table.stream_consumers"
					 " WHERE status OPERATOR(pg_catalog.=) 'ACTIVE' ORDER BY consumer_name", false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "stream consumer catalog read failed: %s", SPI_result_code_string(rc));
	for (i = 0; i < SPI_processed; i++)
		names = lappend(names, MemoryContextStrdup(cxt, SPI_getvalue(SPI_tuptable->vals[i],
																	 SPI_tuptable->tupdesc, 1)));
	return names;
}

List *
ItemStreamConsumerNames(MemoryContext cxt)
{
	return active_consumers(cxt);
}

/*
 * ItemStreamConsumerAttempt
 *		The worker, before a batch of consumer name, in a transaction of its
 *		own: true when records are waiting and the batch is to run
 *		(ItemStreamConsumerBatch, in the next transaction).  The batch is
 *		counted as a failure ahead; its end clears the count (success) or
 *		keeps it (an error, a timeout).  A batch that never ended -- the
 *		worker's process was ended, at twice batch_timeout for a function
 *		that ignored its cancellation, or the server stopped -- keeps it
 *		too, and when max_failures batches in a row never ended the
 *		consumer is parked here instead of being called again.
 */
bool
ItemStreamConsumerAttempt(const char *name)
{
	Oid			argtypes[2] = {TEXTOID, TEXTOID};
	Datum		args[2];
	bool		isnull;
	char	   *status;

	if (records_waiting(name) <= 0)
		return false;
	args[0] = CStringGetTextDatum(name);
	args[1] = CStringGetTextDatum("its last batches did not end: the worker's process was ended while they ran"
								  " (a function that ignores its cancellation at item_table.batch_timeout ends it"
								  " at twice the limit), or the server stopped");
	exec_as_catalog_owner("UPDATE item_table.stream_consumers SET"
						  " failures = CASE WHEN failures OPERATOR(pg_catalog.>=) max_failures THEN failures"
						  " ELSE failures OPERATOR(pg_catalog.+) 1 END,"
						  " status = CASE WHEN failures OPERATOR(pg_catalog.>=) max_failures THEN 'PARKED'"
						  " ELSE status END,"
						  " last_error = CASE WHEN failures OPERATOR(pg_catalog.>=) max_failures THEN $2"
						  " ELSE last_error END"
						  " WHERE consumer_name OPERATOR(pg_catalog.=) (SELECT c.consumer_name"
						  " FROM item_table.stream_consumers c WHERE c.consumer_name OPERATOR(pg_catalog.=) $1"
						  " AND c.status OPERATOR(pg_catalog.=) 'ACTIVE' FOR UPDATE SKIP LOCKED)"
						  " RETURNING status",
						  2, argtypes, args, NULL, SPI_OK_UPDATE_RETURNING);
	if (SPI_processed == 0)
		return false;
	status = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (strcmp(status, "ACTIVE") == 0)
		return true;
	ereport(LOG,
			(errmsg("item_table: stream consumer \"%s\" parked: its last batches did not end", name)));
	return false;
}

int64
ItemStreamConsumerBatch(const char *name, bool *full)
{
	return ConsumerRunBatch(name, false, true, full);
}

/*
 * item_table.run_stream_consumers(max_batches): every active consumer,
 * batch after batch until it is caught up, in the caller's transaction.
 */
Datum
item_table_run_stream_consumers(PG_FUNCTION_ARGS)
{
	int32		max_batches = PG_GETARG_INT32(0);
	int64		total = 0;
	int			batches = 0;
	List	   *names;
	ListCell   *lc;

	SPI_connect();
	names = active_consumers(CurrentMemoryContext);
	foreach(lc, names)
	{
		bool		full = true;

		while (full && batches < max_batches)
		{
			int64		n;

			CHECK_FOR_INTERRUPTS();
			/* waits for a batch the worker is running */
			n = ConsumerRunBatch((const char *) lfirst(lc), true, false, &full);
			batches++;
			if (n <= 0)
				break;
			total += n;
		}
	}
	SPI_finish();
	PG_RETURN_INT64(total);
}
