/*-------------------------------------------------------------------------
 *
 * ttl.c
 *		Time to Live: UpdateTimeToLive, DescribeTimeToLive, and the
 *		deletion of expired items (an expiry batch, run by the background
 *		worker and by item_table.expire_items()).
 *
 * The setting of each table is a row of item_table.time_to_live (table,
 * attribute, status ENABLED or DISABLED).  DynamoDB's rules: one TTL
 * attribute per table; enabling when enabled, or disabling when disabled,
 * is a ValidationException; so is naming another attribute than the one
 * enabled.  A change takes effect at once, so the transitional statuses
 * ENABLING and DISABLING are never reported, and DynamoDB's limit of one
 * change an hour is not imposed (docs/differences.md).
 *
 * An item has expired at time T when its TTL attribute is a top-level
 * Number of epoch seconds (fractions allowed) at or before T and not more
 * than five years before it; other types, and items without the
 * attribute, never expire.  An expiry batch deletes up to N such items in
 * one statement:
 *
 *	DELETE FROM base WHERE key = ANY (ARRAY(
 *		SELECT key FROM base WHERE <expired> LIMIT N FOR UPDATE SKIP LOCKED))
 *	  AND <expired> RETURNING key, item
 *
 * The inner SELECT locks the rows it picks; locking re-evaluates the
 * condition on the newest version of a row (READ COMMITTED), and the
 * DELETE evaluates it again on the row it deletes, so an item updated
 * meanwhile to a later expiry is left alone.  Rows another transaction
 * holds are skipped for the next batch, not waited for.  It is an
 * ordinary DELETE: the index trigger removes the item from every index in
 * the same transaction, and privileges are those of the table's owner,
 * without its forced row-level security (as the index trigger writes).
 * While it runs, the stream trigger (stream.c) marks the REMOVE records
 * it writes as service deletions (userIdentity {"Type": "Service",
 * "PrincipalId": "dynamodb.amazonaws.com"}), in the deleting transaction.
 *
 * A store with its own batch (item_store.h: expire_batch) runs it
 * instead -- the distributed store (distributed.c), whose shards have no
 * trigger and which cannot route the locking subquery: the same
 * condition, checked again by a routed DELETE on each row it deletes, the
 * index rows removed by the API.
 *
 * TTL adds nothing to writes: no trigger, no index.  Expiry reads the
 * table (a sequential scan with a filter per batch); a table where little
 * expires costs one scan each worker_naptime.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

#include "api.h"
#include "distributed.h"
#include "gsi.h"
#include "stream.h"
#include "worker_start.h"

PG_FUNCTION_INFO_V1(item_table_update_time_to_live);
PG_FUNCTION_INFO_V1(item_table_describe_time_to_live);
PG_FUNCTION_INFO_V1(item_table_expire_items);

/* the TTL setting of a table, read (locked when lock) as the catalog owner */
static bool
read_setting(const char *table, bool lock, char **attribute, bool *enabled)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1] = {CStringGetTextDatum(table)};
	ItemRoleSwitch sw;
	int			rc;

	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args(lock ?
							   "SELECT attribute_name, status FROM item_table.time_to_live"
							   " WHERE table_name OPERATOR(pg_catalog.=) $1 FOR UPDATE" :
							   "SELECT attribute_name, status FROM item_table.time_to_live"
							   " WHERE table_name OPERATOR(pg_catalog.=) $1",
							   1, argtypes, args, NULL, !lock, 1);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "time to live catalog read failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
	{
		*attribute = NULL;
		*enabled = false;
		return false;
	}
	*attribute = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	*enabled = strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2), "ENABLED") == 0;
	return true;
}

/* ----------------------------------------------------------------
 * UpdateTimeToLive
 * ----------------------------------------------------------------
 */
Datum
item_table_update_time_to_live(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	ApiRequest	spec;
	char	   *name;
	Jsonb	   *spec_j;
	char	   *attribute = NULL;
	bool		enable = false;
	bool		have_enabled = false;
	char	   *current;
	bool		current_enabled;
	ItemTableDef *def;
	JsonbParseState *state = NULL;
	Jsonb	   *result;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	name = ApiGetTableName(&req, "TableName", "tableName", true);
	spec_j = ApiGetObject(&req, "TimeToLiveSpecification");
	if (spec_j == NULL)
		ApiProblem(&req, "Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null");
	else
	{
		ApiRequestInit(&spec, spec_j);
		attribute = ApiGetString(&spec, "AttributeName", "timeToLiveSpecification.attributeName", true);
		have_enabled = ApiGetBool(&spec, "Enabled", &enable);
		if (!have_enabled)
			ApiProblem(&req, "Value null at 'timeToLiveSpecification.enabled' failed to satisfy constraint: Member must not be null");
		if (attribute != NULL && strlen(attribute) < 1)
			ApiProblem(&req, "Value '' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length greater than or equal to 1");
		if (attribute != NULL && strlen(attribute) > 255)
			ApiProblem(&req, "Value '%s' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255",
					   attribute);
		req.problems = list_concat(spec.problems, req.problems);
	}
	ApiRequestCheck(&req);

	SPI_connect();
	def = TableDefLookup(name);
	/* a table setting: its owner's right, as ALTER TABLE is */
	ItemCheckOwner(def->relid);
	(void) read_setting(name, true, &current, &current_enabled);
	if (enable && current_enabled)
	{
		if (strcmp(current, attribute) == 0)
			DynValidation("TimeToLive is already enabled");
		DynValidation("TimeToLive is active on a different AttributeName: current AttributeName is %s", current);
	}
	if (!enable && !current_enabled)
		DynValidation("TimeToLive is already disabled");
	if (!enable && strcmp(current, attribute) != 0)
		DynValidation("TimeToLive is active on a different AttributeName: current AttributeName is %s", current);
	{
		Oid			argtypes[3] = {TEXTOID, TEXTOID, TEXTOID};
		Datum		args[3] = {CStringGetTextDatum(name), CStringGetTextDatum(attribute),
		CStringGetTextDatum(enable ? "ENABLED" : "DISABLED")};
		ItemRoleSwitch sw;
		int			rc;

		ItemAsCatalogOwnerBegin(&sw);
		rc = SPI_execute_with_args("INSERT INTO item_table.time_to_live AS t (table_name, attribute_name, status)"
								   " VALUES ($1, $2, $3) ON CONFLICT (table_name) DO UPDATE"
								   " SET attribute_name = excluded.attribute_name, status = excluded.status,"
								   " updated_at = pg_catalog.now()",
								   3, argtypes, args, NULL, false, 0);
		ItemAsRoleEnd(&sw);
		if (rc != SPI_OK_INSERT)
			elog(ERROR, "time to live catalog update failed: %s", SPI_result_code_string(rc));
	}
	if (enable)
		ItemWorkerRequest();

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "TimeToLiveSpecification");
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "AttributeName");
	ApiPushString(&state, attribute);
	ApiPushKey(&state, "Enabled");
	ApiPushBool(&state, enable);
	pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	result = ApiFinishResponse(&state, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * DescribeTimeToLive
 * ----------------------------------------------------------------
 */
Datum
item_table_describe_time_to_live(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	char	   *name;
	char	   *attribute;
	bool		enabled;
	JsonbParseState *state = NULL;
	Jsonb	   *result;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	name = ApiGetTableName(&req, "TableName", "tableName", true);
	ApiRequestCheck(&req);
	SPI_connect();
	(void) TableDefLookup(name);
	(void) read_setting(name, false, &attribute, &enabled);
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "TimeToLiveDescription");
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	if (enabled)
	{
		ApiPushKey(&state, "AttributeName");
		ApiPushString(&state, attribute);
	}
	ApiPushKey(&state, "TimeToLiveStatus");
	ApiPushString(&state, enabled ? "ENABLED" : "DISABLED");
	pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	result = ApiFinishResponse(&state, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * expiry
 * ----------------------------------------------------------------
 */

/*
 * The expiry condition on the row alias: $1 the attribute, $2 the time.
 * A non-N value has no "N" member, so it never matches.
 */
static char *
expired_condition(const char *alias)
{
	return psprintf("(%s.item OPERATOR(pg_catalog.->) $1 OPERATOR(pg_catalog.->>) 'N')::pg_catalog.numeric"
					" BETWEEN EXTRACT(EPOCH FROM $2 OPERATOR(pg_catalog.-) '5 years'::pg_catalog.interval)"
					" AND EXTRACT(EPOCH FROM $2)", alias);
}

/* one batch on an undistributed table: one DELETE (the header essay) */
static uint64
expire_local(ItemTableDef *def, const char *base, Datum *args)
{
	Oid			argtypes[3] = {TEXTOID, TIMESTAMPTZOID, INT4OID};
	volatile int rc = 0;

	/* the stream trigger marks these REMOVE records as service deletions */
	ItemStreamServiceDeletionBegin(def->relid);
	PG_TRY();
	{
		rc = SPI_execute_with_args(psprintf("DELETE FROM %s b WHERE b.key OPERATOR(item_table.=) ANY (ARRAY("
											"SELECT s.key FROM %s s WHERE %s LIMIT $3 FOR UPDATE SKIP LOCKED))"
											" AND %s",
											base, base, expired_condition("s"), expired_condition("b")),
								   3, argtypes, args, NULL, false, 0);
	}
	PG_FINALLY();
	{
		ItemStreamServiceDeletionEnd();
	}
	PG_END_TRY();
	if (rc != SPI_OK_DELETE)
		elog(ERROR, "time to live deletion failed: %s", SPI_result_code_string(rc));
	return SPI_processed;
}

int64
TtlExpireBatch(const char *table, TimestampTz as_of, int max_items,
			   bool error_if_disabled)
{
	char	   *attribute;
	bool		enabled;
	ItemTableDef *def;
	char	   *base;
	Datum		args[3];
	ItemRoleSwitch sw;
	int			rc;
	uint64		n;

	(void) read_setting(table, false, &attribute, &enabled);
	if (!enabled)
	{
		if (error_if_disabled)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("Time to Live is not enabled on table \"%s\"", table),
					 errhint("Enable it with UpdateTimeToLive.")));
		return -1;
	}
	def = TableDefLookup(table);

	/*
	 * The lock the deletion takes anyway, now: a distribute_table() that
	 * committed while the definition was read is seen once it is held (its
	 * invalidations are processed on acquisition), and the definition read
	 * before it would take the undistributed path; this batch is left to
	 * the next round, which reads the new definition.
	 */
	LockRelationOid(def->relid, RowExclusiveLock);
	if (DistStale(def))
		return 0;
	base = ItemQualifiedName(def->relid);
	args[0] = CStringGetTextDatum(attribute);
	args[1] = TimestampTzGetDatum(as_of);
	args[2] = Int32GetDatum(max_items);
	GsiAsIndexOwner(def->relid, &sw);
	if (def->store->expire_batch != NULL)
	{
		/* the store's own batch: each item and its index rows */
		n = def->store->expire_batch(def, expired_condition("s"), expired_condition("b"),
									 args[0], args[1], max_items);
	}
	else
		n = expire_local(def, base, args);
	ItemAsRoleEnd(&sw);

	/* the progress shown by item_table.background_work */
	if (n > 0)
	{
		Oid			ctypes[2] = {TEXTOID, INT8OID};
		Datum		cargs[2] = {CStringGetTextDatum(table), Int64GetDatum((int64) n)};

		ItemAsCatalogOwnerBegin(&sw);
		rc = SPI_execute_with_args("UPDATE item_table.time_to_live"
								   " SET items_expired = items_expired + $2, last_expired_at = pg_catalog.now()"
								   " WHERE table_name OPERATOR(pg_catalog.=) $1",
								   2, ctypes, cargs, NULL, false, 0);
		ItemAsRoleEnd(&sw);
		if (rc != SPI_OK_UPDATE)
			elog(ERROR, "time to live catalog update failed: %s", SPI_result_code_string(rc));
	}
	return (int64) n;
}

/*
 * item_table.expire_items(table, as_of, max_items): one expiry batch as if
 * the time were as_of; the number of items deleted.  The table owner's.
 */
Datum
item_table_expire_items(PG_FUNCTION_ARGS)
{
	char	   *table = text_to_cstring(PG_GETARG_TEXT_PP(0));
	TimestampTz as_of = PG_GETARG_TIMESTAMPTZ(1);
	int32		max_items = PG_GETARG_INT32(2);
	ItemTableDef *def;
	int64		n;

	if (max_items < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_items must be positive")));
	SPI_connect();
	def = TableDefLookup(table);
	ItemCheckOwner(def->relid);
	n = TtlExpireBatch(table, as_of, max_items, true);
	SPI_finish();
	PG_RETURN_INT64(n);
}
