/*-------------------------------------------------------------------------
 *
 * errors.c
 *		The one place where DynamoDB exceptions become PostgreSQL errors.
 *
 * The table below maps each exception to its name, its namespace (the part
 * of "__type" before '#') and its SQLSTATE.  DynamoDB spells the message
 * member "message" for most exceptions and "Message" for
 * TransactionCanceledException and SerializationException; the table
 * records that too, so that the body is exactly DynamoDB's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#include "errors.h"

typedef struct DynErrorInfo
{
	const char *name;
	const char *ns;
	int			sqlstate;
	bool		capital_message;	/* "Message" rather than "message" */
} DynErrorInfo;

#define NS_VALIDATE "com.amazon.coral.validate"
#define NS_SERVICE "com.amazon.coral.service"
#define NS_DYNAMODB "com.amazonaws.dynamodb.v20120810"

static const DynErrorInfo dyn_errors[DYN_NUM_ERRORS] = {
	[DYN_VALIDATION] = {"ValidationException", NS_VALIDATE, ERRCODE_DYN_VALIDATION, false},
	[DYN_SERIALIZATION] = {"SerializationException", NS_SERVICE, ERRCODE_DYN_SERIALIZATION, true},
	[DYN_UNKNOWN_OPERATION] = {"UnknownOperationException", NS_SERVICE, ERRCODE_DYN_UNKNOWN_OPERATION, false},
	[DYN_RESOURCE_NOT_FOUND] = {"ResourceNotFoundException", NS_DYNAMODB, ERRCODE_DYN_RESOURCE_NOT_FOUND, false},
	[DYN_RESOURCE_IN_USE] = {"ResourceInUseException", NS_DYNAMODB, ERRCODE_DYN_RESOURCE_IN_USE, false},
	[DYN_CONDITIONAL_CHECK_FAILED] = {"ConditionalCheckFailedException", NS_DYNAMODB, ERRCODE_DYN_CONDITIONAL_CHECK_FAILED, false},
	[DYN_TRANSACTION_CANCELED] = {"TransactionCanceledException", NS_DYNAMODB, ERRCODE_DYN_TRANSACTION_CANCELED, true},
	[DYN_TRANSACTION_CONFLICT] = {"TransactionConflictException", NS_DYNAMODB, ERRCODE_DYN_TRANSACTION_CONFLICT, false},
	[DYN_TRANSACTION_IN_PROGRESS] = {"TransactionInProgressException", NS_DYNAMODB, ERRCODE_DYN_TRANSACTION_IN_PROGRESS, false},
	[DYN_IDEMPOTENT_PARAMETER_MISMATCH] = {"IdempotentParameterMismatchException", NS_DYNAMODB, ERRCODE_DYN_IDEMPOTENT_PARAMETER_MISMATCH, false},
	[DYN_ITEM_COLLECTION_SIZE_LIMIT] = {"ItemCollectionSizeLimitExceededException", NS_DYNAMODB, ERRCODE_DYN_ITEM_COLLECTION_SIZE_LIMIT, false},
	[DYN_PROVISIONED_THROUGHPUT] = {"ProvisionedThroughputExceededException", NS_DYNAMODB, ERRCODE_DYN_PROVISIONED_THROUGHPUT, false},
	[DYN_THROTTLING] = {"ThrottlingException", NS_DYNAMODB, ERRCODE_DYN_THROTTLING, false},
	[DYN_REQUEST_LIMIT] = {"RequestLimitExceeded", NS_DYNAMODB, ERRCODE_DYN_REQUEST_LIMIT, false},
	[DYN_LIMIT_EXCEEDED] = {"LimitExceededException", NS_DYNAMODB, ERRCODE_DYN_LIMIT_EXCEEDED, false},
	[DYN_INTERNAL_SERVER_ERROR] = {"InternalServerError", NS_DYNAMODB, ERRCODE_DYN_INTERNAL_SERVER_ERROR, false},
	[DYN_TABLE_NOT_FOUND] = {"TableNotFoundException", NS_DYNAMODB, ERRCODE_DYN_TABLE_NOT_FOUND, false},
	[DYN_ACCESS_DENIED] = {"AccessDeniedException", NS_SERVICE, ERRCODE_DYN_ACCESS_DENIED, true},
	[DYN_DUPLICATE_ITEM] = {"DuplicateItemException", NS_DYNAMODB, ERRCODE_DYN_DUPLICATE_ITEM, false},
	/* the Streams API's own */
	[DYN_EXPIRED_ITERATOR] = {"ExpiredIteratorException", NS_DYNAMODB, ERRCODE_DYN_EXPIRED_ITERATOR, false},
	[DYN_TRIMMED_DATA_ACCESS] = {"TrimmedDataAccessException", NS_DYNAMODB, ERRCODE_DYN_TRIMMED_DATA_ACCESS, false},
	/* a write on a hot standby (dispatch.c): DynamoDB's 503, which SDKs retry */
	[DYN_SERVICE_UNAVAILABLE] = {"ServiceUnavailable", NS_DYNAMODB, ERRCODE_DYN_SERVICE_UNAVAILABLE, false},
};

const char *
DynErrorName(DynError err)
{
	Assert(err >= 0 && err < DYN_NUM_ERRORS);
	return dyn_errors[err].name;
}

int
DynErrorSqlstate(DynError err)
{
	Assert(err >= 0 && err < DYN_NUM_ERRORS);
	return dyn_errors[err].sqlstate;
}

/*
 * DynErrorBody
 *		The DynamoDB error body as JSON text.  Members of extra (a jsonb
 *		object) follow "__type" and the message.
 */
char *
DynErrorBody(DynError err, const char *message, Jsonb *extra)
{
	const DynErrorInfo *info = &dyn_errors[err];
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "{\"__type\":");
	escape_json(&buf, psprintf("%s#%s", info->ns, info->name));
	appendStringInfoString(&buf, info->capital_message ? ",\"Message\":" : ",\"message\":");
	escape_json(&buf, message);
	if (extra != NULL && JB_ROOT_IS_OBJECT(extra) && JB_ROOT_COUNT(extra) > 0)
	{
		char	   *members = JsonbToCString(NULL, &extra->root, VARSIZE(extra));
		int			len = strlen(members);

		/* splice "{...}" without its braces after our members */
		if (len > 2)
		{
			appendStringInfoChar(&buf, ',');
			appendBinaryStringInfo(&buf, members + 1, len - 2);
		}
	}
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

void
DynRaiseBody(DynError err, Jsonb *extra, const char *message)
{
	const DynErrorInfo *info = &dyn_errors[err];

	ereport(ERROR,
			(errcode(info->sqlstate),
			 errmsg("%s: %s", info->name, message),
			 errdetail_internal("%s", DynErrorBody(err, message, extra))));
	pg_unreachable();
}

void
DynRaise(DynError err, const char *fmt,...)
{
	va_list		args;
	char	   *message;

	va_start(args, fmt);
	message = DynFormatV(fmt, args);
	va_end(args);
	DynRaiseBody(err, NULL, message);
}

/*
 * DynFormatV
 *		printf-style formatting into a palloc'd string of any length.
 */
char *
DynFormatV(const char *fmt, va_list args)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (;;)
	{
		va_list		copy;
		int			needed;

		va_copy(copy, args);
		needed = appendStringInfoVA(&buf, fmt, copy);
		va_end(copy);
		if (needed == 0)
			break;
		enlargeStringInfo(&buf, needed);
	}
	return buf.data;
}

/*
 * DynCaughtMessage
 *		In a PG_CATCH block: when the error is a ValidationException or
 *		SerializationException (a parser refusing its input), flush it and
 *		return its DynamoDB message without the exception name, allocated
 *		in cxt (which is left current); any other error is re-thrown.
 */
char *
DynCaughtMessage(MemoryContext cxt)
{
	ErrorData  *edata;
	const char *sep;

	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	if (edata->sqlerrcode != ERRCODE_DYN_VALIDATION &&
		edata->sqlerrcode != ERRCODE_DYN_SERIALIZATION)
		PG_RE_THROW();
	FlushErrorState();
	sep = strstr(edata->message, ": ");
	return pstrdup(sep != NULL ? sep + 2 : edata->message);
}
