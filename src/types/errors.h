/*-------------------------------------------------------------------------
 *
 * errors.h
 *		DynamoDB exceptions as PostgreSQL errors.
 *
 * Every DynamoDB exception has its own SQLSTATE, all in class XD (an
 * implementation-defined class).  An API error is an ERROR whose message is
 * "<ExceptionName>: <DynamoDB message>" and whose DETAIL is the DynamoDB
 * error body as JSON, e.g.
 *
 *	  {"__type":"com.amazon.coral.validate#ValidationException",
 *	   "message":"One or more parameter values were invalid: ..."}
 *
 * so a gateway can answer exactly what DynamoDB would.  All API errors go
 * through DynRaise()/DynRaiseBody() (errors.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_ERRORS_H
#define ITEM_TABLE_ERRORS_H


#include "utils/jsonb.h"

#include "compat.h"

typedef enum DynError
{
	DYN_VALIDATION = 0,
	DYN_SERIALIZATION,
	DYN_UNKNOWN_OPERATION,
	DYN_RESOURCE_NOT_FOUND,
	DYN_RESOURCE_IN_USE,
	DYN_CONDITIONAL_CHECK_FAILED,
	DYN_TRANSACTION_CANCELED,
	DYN_TRANSACTION_CONFLICT,
	DYN_TRANSACTION_IN_PROGRESS,
	DYN_IDEMPOTENT_PARAMETER_MISMATCH,
	DYN_ITEM_COLLECTION_SIZE_LIMIT,
	DYN_PROVISIONED_THROUGHPUT,
	DYN_THROTTLING,
	DYN_REQUEST_LIMIT,
	DYN_LIMIT_EXCEEDED,
	DYN_INTERNAL_SERVER_ERROR,
	DYN_TABLE_NOT_FOUND,
	DYN_ACCESS_DENIED,
	DYN_DUPLICATE_ITEM,
	DYN_EXPIRED_ITERATOR,
	DYN_TRIMMED_DATA_ACCESS,
	DYN_SERVICE_UNAVAILABLE,
	DYN_NUM_ERRORS
} DynError;

/* The SQLSTATEs: one per exception (see the table in errors.c and docs/api.md, "Errors") */
#define ERRCODE_DYN_VALIDATION						MAKE_SQLSTATE('X','D','0','0','1')
#define ERRCODE_DYN_SERIALIZATION					MAKE_SQLSTATE('X','D','0','0','2')
#define ERRCODE_DYN_UNKNOWN_OPERATION				MAKE_SQLSTATE('X','D','0','0','3')
#define ERRCODE_DYN_RESOURCE_NOT_FOUND				MAKE_SQLSTATE('X','D','0','0','4')
#define ERRCODE_DYN_RESOURCE_IN_USE					MAKE_SQLSTATE('X','D','0','0','5')
#define ERRCODE_DYN_CONDITIONAL_CHECK_FAILED		MAKE_SQLSTATE('X','D','0','0','6')
#define ERRCODE_DYN_TRANSACTION_CANCELED			MAKE_SQLSTATE('X','D','0','0','7')
#define ERRCODE_DYN_TRANSACTION_CONFLICT			MAKE_SQLSTATE('X','D','0','0','8')
#define ERRCODE_DYN_TRANSACTION_IN_PROGRESS			MAKE_SQLSTATE('X','D','0','0','9')
#define ERRCODE_DYN_IDEMPOTENT_PARAMETER_MISMATCH	MAKE_SQLSTATE('X','D','0','1','0')
#define ERRCODE_DYN_ITEM_COLLECTION_SIZE_LIMIT		MAKE_SQLSTATE('X','D','0','1','1')
#define ERRCODE_DYN_PROVISIONED_THROUGHPUT			MAKE_SQLSTATE('X','D','0','1','2')
#define ERRCODE_DYN_THROTTLING						MAKE_SQLSTATE('X','D','0','1','3')
#define ERRCODE_DYN_REQUEST_LIMIT					MAKE_SQLSTATE('X','D','0','1','4')
#define ERRCODE_DYN_LIMIT_EXCEEDED					MAKE_SQLSTATE('X','D','0','1','5')
#define ERRCODE_DYN_INTERNAL_SERVER_ERROR			MAKE_SQLSTATE('X','D','0','1','6')
#define ERRCODE_DYN_TABLE_NOT_FOUND					MAKE_SQLSTATE('X','D','0','1','7')
#define ERRCODE_DYN_ACCESS_DENIED					MAKE_SQLSTATE('X','D','0','1','8')
#define ERRCODE_DYN_DUPLICATE_ITEM					MAKE_SQLSTATE('X','D','0','1','9')
#define ERRCODE_DYN_EXPIRED_ITERATOR				MAKE_SQLSTATE('X','D','0','2','0')
#define ERRCODE_DYN_TRIMMED_DATA_ACCESS				MAKE_SQLSTATE('X','D','0','2','1')
/* raised by the PL/pgSQL of the backup and export calls (backup.sql, export.sql) */
#define ERRCODE_DYN_TABLE_ALREADY_EXISTS			MAKE_SQLSTATE('X','D','0','2','2')
#define ERRCODE_DYN_BACKUP_NOT_FOUND				MAKE_SQLSTATE('X','D','0','2','3')
#define ERRCODE_DYN_PITR_UNAVAILABLE				MAKE_SQLSTATE('X','D','0','2','4')
#define ERRCODE_DYN_INVALID_RESTORE_TIME			MAKE_SQLSTATE('X','D','0','2','5')
#define ERRCODE_DYN_SERVICE_UNAVAILABLE				MAKE_SQLSTATE('X','D','0','2','6')
#define ERRCODE_DYN_EXPORT_NOT_FOUND				MAKE_SQLSTATE('X','D','0','2','7')
#define ERRCODE_DYN_INVALID_EXPORT_TIME				MAKE_SQLSTATE('X','D','0','2','8')
#define ERRCODE_DYN_IMPORT_NOT_FOUND				MAKE_SQLSTATE('X','D','0','2','9')
#define ERRCODE_DYN_EXPORT_CONFLICT					MAKE_SQLSTATE('X','D','0','3','0')
#define ERRCODE_DYN_IMPORT_CONFLICT					MAKE_SQLSTATE('X','D','0','3','1')

/* Name ("ValidationException") and namespace of an exception */
extern const char *DynErrorName(DynError err);
extern int	DynErrorSqlstate(DynError err);

/*
 * Raise a DynamoDB exception with a printf-style message (DynamoDB's own
 * text).  Never returns.
 */
pg_noreturn extern void DynRaise(DynError err, const char *fmt,...) pg_attribute_printf(2, 3);

/*
 * Raise with extra members in the error body (CancellationReasons, Item):
 * extra is a jsonb object whose members are appended to the body, or NULL.
 */
pg_noreturn extern void DynRaiseBody(DynError err, Jsonb *extra, const char *message);

/* printf-style formatting into a palloc'd string (messages of any length) */
extern char *DynFormatV(const char *fmt, va_list args) pg_attribute_printf(1, 0);

/* in PG_CATCH: the message of a caught parser rejection, else re-throw */
extern char *DynCaughtMessage(MemoryContext cxt);

/* Build the JSON error body (palloc'd text) */
extern char *DynErrorBody(DynError err, const char *message, Jsonb *extra);

/* Convenience for the most common case */
#define DynValidation(...) DynRaise(DYN_VALIDATION, __VA_ARGS__)

#endif							/* ITEM_TABLE_ERRORS_H */
