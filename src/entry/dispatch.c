/*-------------------------------------------------------------------------
 *
 * dispatch.c
 *		dynamodb(action, request): the one entry point that names every
 *		DynamoDB action, and dispatches on the action's name to the
 *		SQL-callable function of the call.
 *
 * It sits above the API (api/, query/, partiql/), which it calls and which
 * never calls it, so the files of the calls need not know each other:
 * ExecuteStatement's PartiQL (api_partiql.c) reaches PutItem through its
 * own SQL-callable function, not through here.  The gateway's call
 * (gateway_call.c, dynamodb_as) comes through here.
 *
 * Writes on a hot standby.  Every read-only action runs on a standby as on
 * the primary (docs/operations.md); a write fails there when it first
 * tries to change something, with PostgreSQL's read_only_sql_transaction
 * (25006: an INSERT, a SELECT ... FOR UPDATE, a nextval, DDL).  Caught
 * here, while recovery is in progress, it becomes DynamoDB's
 * ServiceUnavailable (SQLSTATE XD026, HTTP 503 in DynamoDB): the request
 * is valid and was checked in DynamoDB's order (a validation error still
 * comes first), only this server cannot take it now; every SDK retries
 * it, and a retry succeeds once the standby is promoted or the client
 * reaches the primary.  InternalServerError would claim a fault, and a
 * ValidationException or AccessDeniedException would tell the SDK not to
 * retry a request that is right.  Only while recovery is in progress: a
 * read-only transaction chosen on a primary keeps PostgreSQL's error.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

#include "api.h"
#include "api_vector.h"
#include "attr_value.h"
#include "entry.h"
#include "errors.h"

PG_FUNCTION_INFO_V1(item_table_dynamodb);
PG_FUNCTION_INFO_V1(item_table_dynamodb_json);

typedef struct ActionEntry
{
	const char *action;
	PGFunction	fn;
} ActionEntry;

/*
 * The calls written in PL/pgSQL (src/sql/backup.sql): the action and the
 * name of its function in schema item_table (the extension is not
 * relocatable), looked up by name and called with its own rights
 * and settings (SECURITY INVOKER, search_path pinned by its SET clause).
 */
typedef struct SqlActionEntry
{
	const char *action;
	const char *function;
} SqlActionEntry;

static const SqlActionEntry sql_actions[] = {
	{"CreateBackup", "create_backup"},
	{"DeleteBackup", "delete_backup"},
	{"DescribeBackup", "describe_backup"},
	{"DescribeContinuousBackups", "describe_continuous_backups"},
	{"ListBackups", "list_backups"},
	{"RestoreTableFromBackup", "restore_table_from_backup"},
	{"RestoreTableToPointInTime", "restore_table_to_point_in_time"},
	{"UpdateContinuousBackups", "update_continuous_backups"},
};


static const ActionEntry actions[] = {
	{"BatchExecuteStatement", item_table_batch_execute_statement},
	{"BatchGetItem", item_table_batch_get_item},
	{"BatchWriteItem", item_table_batch_write_item},
	{"CreateTable", item_table_create_table},
	{"DeleteItem", item_table_delete_item},
	{"DeleteTable", item_table_delete_table},
	{"DescribeEndpoints", item_table_describe_endpoints},
	{"DescribeLimits", item_table_describe_limits},
	{"DescribeTable", item_table_describe_table},
	{"DescribeStream", item_table_describe_stream},
	{"GetRecords", item_table_get_records},
	{"GetShardIterator", item_table_get_shard_iterator},
	{"ListStreams", item_table_list_streams},
	{"ExecuteStatement", item_table_execute_statement},
	{"ExecuteTransaction", item_table_execute_transaction},
	{"DescribeTimeToLive", item_table_describe_time_to_live},
	{"GetItem", item_table_get_item},
	{"ListTables", item_table_list_tables},
	{"ListTagsOfResource", item_table_list_tags_of_resource},
	{"PutItem", item_table_put_item},
	{"Query", item_table_query},
	{"Scan", item_table_scan},
	{"SearchVectors", item_table_search_vectors},
	{"TagResource", item_table_tag_resource},
	{"TransactGetItems", item_table_transact_get_items},
	{"TransactWriteItems", item_table_transact_write_items},
	{"UntagResource", item_table_untag_resource},
	{"UpdateItem", item_table_update_item},
	{"UpdateTable", item_table_update_table},
	{"UpdateTimeToLive", item_table_update_time_to_live},
};

/*
 * call_action
 *		Run an action's function; on a hot standby, a write's refusal
 *		becomes ServiceUnavailable (see the header).
 */
static Datum
call_action(PGFunction fn, Oid fnoid, Datum request)
{
	MemoryContext cxt = CurrentMemoryContext;
	volatile Datum result = (Datum) 0;

	PG_TRY();
	{
		result = fn != NULL ? DirectFunctionCall1(fn, request) : OidFunctionCall1(fnoid, request);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode == ERRCODE_READ_ONLY_SQL_TRANSACTION &&
			RecoveryInProgress())
		{
			FlushErrorState();
			DynRaise(DYN_SERVICE_UNAVAILABLE,
					 "The service is currently unavailable or busy: this server is a hot standby, which serves reads only; send writes to the primary (%s)",
					 edata->message);
		}
		FreeErrorData(edata);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return result;
}

Datum
item_table_dynamodb(PG_FUNCTION_ARGS)
{
	char	   *action;
	int			i;

	if (PG_ARGISNULL(0))
		DynRaise(DYN_UNKNOWN_OPERATION, "The action is required");
	action = text_to_cstring(PG_GETARG_TEXT_PP(0));
	for (i = 0; i < (int) lengthof(actions); i++)
	{
		if (strcmp(actions[i].action, action) == 0)
		{
			Datum		request = PG_ARGISNULL(1) ?
				DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")) :
				PG_GETARG_DATUM(1);

			return call_action(actions[i].fn, InvalidOid, request);
		}
	}
	for (i = 0; i < (int) lengthof(sql_actions); i++)
	{
		if (strcmp(sql_actions[i].action, action) == 0)
		{
			Oid			argtypes[1] = {JSONBOID};
			List	   *name = list_make2(makeString("item_table"),
										  makeString((char *) sql_actions[i].function));
			Oid			fn = LookupFuncName(name, 1, argtypes, false);
			Datum		request = PG_ARGISNULL(1) ?
				DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")) :
				PG_GETARG_DATUM(1);

			return call_action(NULL, fn, request);
		}
	}
	DynRaise(DYN_UNKNOWN_OPERATION, "Unknown operation: %s", action);
}

/*
 * dynamodb_json(action text, request json) returns json
 *		dynamodb() for JSON text, which can carry U+0000 (\u0000) where
 *		jsonb cannot: the request's strings are carried to their stored
 *		form (nul_escape.c) on the way in and the answer's back on the way
 *		out, as the gateway does with HTTP bodies.
 */
Datum
item_table_dynamodb_json(PG_FUNCTION_ARGS)
{
	LOCAL_FCINFO(call, 2);
	Datum		result;

	InitFunctionCallInfoData(*call, NULL, 2, PG_GET_COLLATION(), NULL, NULL);
	call->args[0].value = PG_GETARG_DATUM(0);
	call->args[0].isnull = PG_ARGISNULL(0);
	call->args[1].isnull = PG_ARGISNULL(1);
	call->args[1].value = (Datum) 0;
	if (!PG_ARGISNULL(1))
	{
		text	   *t = PG_GETARG_TEXT_PP(1);

		call->args[1].value = JsonbPGetDatum(AttrJsonbFromJsonText(VARDATA_ANY(t),
																   VARSIZE_ANY_EXHDR(t)));
	}
	result = item_table_dynamodb(call);
	if (call->isnull)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(AttrJsonbToJsonText(DatumGetJsonbP(result)));
}
