/*-------------------------------------------------------------------------
 *
 * gateway_call.c
 *		item_table.dynamodb_as(role, action, request): the API called by a
 *		pooler (item_table_gateway) on behalf of one of its roles, so that
 *		the role's own code can neither use the pooler's rights nor leave
 *		anything on the pooled session for the next request.
 *
 * A pooled session logs in as the pooler's role, which may become each
 * role its access keys map to.  Switching with SET ROLE leaves the role
 * changeable: code the request reaches that the role wrote (its triggers,
 * defaults, policies' functions) could RESET ROLE, read what the login
 * role reads and become any other role it may become.  So this function:
 *
 *	- checks that the calling user may become the role (membership that
 *	  allows SET ROLE), and switches with SetUserIdAndSecContext and
 *	  SECURITY_LOCAL_USERID_CHANGE, as a SECURITY DEFINER function does:
 *	  while it is set PostgreSQL refuses to change "role" and
 *	  "session_authorization" (SET ROLE, RESET ROLE, set_config, SET
 *	  SESSION AUTHORIZATION) to anyone.  The user id is restored at the
 *	  end, or by the abort of the (sub)transaction on an error.
 *
 *	- runs inside a GUC nest level of its own, popped with
 *	  AtEOXact_GUC(false): every setting made by the role's code, even
 *	  with SET or set_config(..., false), is undone when the call returns.
 *
 *	- fires the deferred triggers of the transaction before it returns
 *	  (as SET CONSTRAINTS ALL IMMEDIATE does, which then holds for the
 *	  rest of the transaction), still as the role: else a deferrable
 *	  constraint trigger the role made would run at COMMIT, after the
 *	  call, with the login role's rights.  (A pooler's transaction is the
 *	  one call; a caller that queued deferred events of its own before
 *	  the call sees them fire in it.)
 *
 *	- refuses, while it runs, the statements whose effect outlives the
 *	  transaction and cannot be undone cheaply (PREPARE, DEALLOCATE,
 *	  DISCARD, LISTEN, UNLISTEN, DECLARE ... WITH HOLD, CLOSE, LOAD).  A
 *	  refusal holds whether or not the request then fails, which marking
 *	  the session afterwards would not: prepared statements survive a
 *	  rollback, and PREPARE/DEALLOCATE share their names with the pooler's
 *	  own prepared statement, which the next request would then run.
 *	  (SECURITY_RESTRICTED_OPERATION would refuse most of these too, but
 *	  also every deferred trigger, so a role's DEFERRABLE foreign key
 *	  would stop working.)
 *
 *	- releases the session-level advisory locks at its end (as
 *	  pg_advisory_unlock_all(); on an error, when the transaction ends):
 *	  they survive a rollback, and the pooler's session holds none of its
 *	  own.
 *
 *	- reports in its second column, reusable, whether the session can
 *	  serve another role: false when it now holds temporary objects (the
 *	  role may make temporary tables; they would come first on the next
 *	  request's search_path).  Such a session must be closed or DISCARD
 *	  ALL run before the next call, which refuses to run (55000) on a
 *	  session an earlier call left so, until then: requests pipelined
 *	  behind the one that made them never run in it.
 *
 * Everything else a request changes is transactional.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "commands/trigger.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/lock.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "api.h"
#include "entry.h"
#include "compat.h"

PG_FUNCTION_INFO_V1(item_table_dynamodb_as);

/* calls of dynamodb_as in progress in this backend (they may nest) */
static int	call_depth = 0;

/* a call ended with temporary objects in the session */
static bool left_temp_objects = false;

/* a call failed: release session advisory locks at the end of the transaction */
static bool release_at_xact_end = false;

static bool hooks_installed = false;
static ProcessUtility_hook_type prev_process_utility = NULL;

static bool
temp_namespace_in_use(void)
{
	Oid			temp_ns,
				temp_toast_ns;

	GetTempNamespaceState(&temp_ns, &temp_toast_ns);
	return OidIsValid(temp_ns);
}

/* the statement a call refuses, or NULL */
static const char *
refused_statement(Node *parsetree)
{
	switch (nodeTag(parsetree))
	{
		case T_PrepareStmt:
			return "PREPARE";
		case T_DeallocateStmt:
			return "DEALLOCATE";
		case T_DiscardStmt:
			return "DISCARD";
		case T_ListenStmt:
			return "LISTEN";
		case T_UnlistenStmt:
			return "UNLISTEN";
		case T_ClosePortalStmt:
			return "CLOSE";
		case T_LoadStmt:
			return "LOAD";
		case T_DeclareCursorStmt:
			if (((DeclareCursorStmt *) parsetree)->options & CURSOR_OPT_HOLD)
				return "DECLARE CURSOR WITH HOLD";
			return NULL;
		default:
			return NULL;
	}
}

static void
gateway_process_utility(PlannedStmt *pstmt, const char *queryString,
						bool readOnlyTree, ProcessUtilityContext context,
						ParamListInfo params, QueryEnvironment *queryEnv,
						DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;

	if (call_depth > 0)
	{
		const char *what = refused_statement(parsetree);

		if (what)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("cannot execute %s within item_table.dynamodb_as()", what),
					 errdetail("Its effect would outlive the request on the pooled session.")));
	}
	else if (IsA(parsetree, DiscardStmt) &&
			 ((DiscardStmt *) parsetree)->target != DISCARD_PLANS &&
			 ((DiscardStmt *) parsetree)->target != DISCARD_SEQUENCES)
		left_temp_objects = false;	/* DISCARD ALL or TEMP: they go */

	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context,
							 params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
}

static void
gateway_xact_end(XactEvent event, void *arg)
{
	if (!release_at_xact_end)
		return;
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT)
	{
		release_at_xact_end = false;
		LockReleaseSession(USER_LOCKMETHOD);
	}
}

/*
 * The hooks go in at the first call, not in _PG_init: a session that
 * never calls dynamodb_as pays nothing.
 */
static void
install_hooks(void)
{
	if (hooks_installed)
		return;
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = gateway_process_utility;
	RegisterXactCallback(gateway_xact_end, NULL);
	hooks_installed = true;
}

Datum
item_table_dynamodb_as(PG_FUNCTION_ARGS)
{
	Oid			role;
	Oid			save_userid;
	int			save_sec_context;
	int			nestlevel;
	bool		temp_before;
	TupleDesc	tupdesc;
	Datum		values[2];
	bool		nulls[2] = {false, false};
	volatile Datum response = (Datum) 0;
	volatile bool response_null = false;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the role of item_table.dynamodb_as() must not be null")));
	role = PG_GETARG_OID(0);
	/* the row type, looked up once per call site */
	tupdesc = (TupleDesc) fcinfo->flinfo->fn_extra;
	if (tupdesc == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "return type must be a row type");
		tupdesc = BlessTupleDesc(CreateTupleDescCopy(tupdesc));
		MemoryContextSwitchTo(old);
		fcinfo->flinfo->fn_extra = tupdesc;
	}

	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	if (!ItemMayBecomeRole(save_userid, role))
	{
		char	   *name = GetUserNameFromId(role, true);

		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to act as role \"%s\"",
						name ? name : "?"),
				 errdetail("Only roles that may SET ROLE to a role may call item_table.dynamodb_as() as it.")));
	}

	temp_before = temp_namespace_in_use();
	if (left_temp_objects && temp_before)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this session holds temporary objects made by an earlier call of item_table.dynamodb_as()"),
				 errhint("Close the session, or run DISCARD ALL, before it serves another request.")));
	left_temp_objects = false;

	install_hooks();

	nestlevel = NewGUCNestLevel();
	SetUserIdAndSecContext(role, save_sec_context | SECURITY_LOCAL_USERID_CHANGE);
	call_depth++;
	PG_TRY();
	{
		LOCAL_FCINFO(inner, 2);
		ConstraintsSetStmt *all_immediate;

		InitFunctionCallInfoData(*inner, NULL, 2, PG_GET_COLLATION(), NULL, NULL);
		inner->args[0].value = PG_GETARG_DATUM(1);
		inner->args[0].isnull = PG_ARGISNULL(1);
		inner->args[1].value = PG_GETARG_DATUM(2);
		inner->args[1].isnull = PG_ARGISNULL(2);
		response = item_table_dynamodb(inner);
		response_null = inner->isnull;

		/* the deferred triggers now, as the role (see the header) */
		all_immediate = makeNode(ConstraintsSetStmt);
		all_immediate->constraints = NIL;
		all_immediate->deferred = false;
		AfterTriggerSetState(all_immediate);
	}
	PG_FINALLY();
	{
		call_depth--;
		SetUserIdAndSecContext(save_userid, save_sec_context);
		if (call_depth == 0)
			release_at_xact_end = true;
	}
	PG_END_TRY();

	/* only reached without an error: settings and locks go now */
	AtEOXact_GUC(false, nestlevel);
	if (call_depth == 0)
	{
		release_at_xact_end = false;
		LockReleaseSession(USER_LOCKMETHOD);
	}

	values[0] = response;
	nulls[0] = response_null;
	left_temp_objects = !temp_before && temp_namespace_in_use();
	values[1] = BoolGetDatum(!left_temp_objects);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
