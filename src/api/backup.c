/*-------------------------------------------------------------------------
 *
 * backup.c
 *		The privileged steps of on-demand backups and point-in-time
 *		recovery: copying a table's items into a backup, restoring a backup
 *		or a moment of a table's history into a new table, switching the
 *		history on and off, and the trigger that writes the history.
 *
 * The calls themselves (CreateBackup, RestoreTableToPointInTime, ...) are
 * PL/pgSQL in src/sql/backup.sql: they read the request, check it with
 * DynamoDB's rules, create the target table through create_table() as the
 * caller (so a restored table belongs to the caller, who needs CREATE on
 * item_data as for CreateTable), and shape the response.  What they cannot
 * do as the caller -- read and write the extension's private tables
 * item_table.backup_items and item_table.pitr_history -- is done here,
 * by functions that run as the caller, check the caller's rights
 * themselves, and only then act as the catalog owner (ItemAsCatalogOwner,
 * search_path pinned, security-restricted):
 *
 *	  backup_copy		the caller owns the source table (is a member of
 *						its owner's role): the backup's catalog row and a
 *						copy of its items, read in the statement's snapshot
 *						(a consistent copy; writers are not blocked)
 *	  backup_drop		the caller is a member of the backup's owner (the
 *						source table's owner when it was taken)
 *	  backup_restore	the same, and the caller owns the target table
 *	  pitr_set			the caller owns the table: the catalog row and the
 *						capture trigger made or dropped
 *	  pitr_restore		the caller owns the source and the target
 *
 * The history.  While point-in-time recovery is enabled, the AFTER ROW
 * trigger item_table.pitr_trigger() writes, for every change of an item,
 * one row of item_table.pitr_history: the table's id, the time of the
 * change (the clock when the row was written), a tie-breaking number, the
 * key, and the item as it was before the change (NULL: there was none).
 * An update that changes the key (plain SQL only) is a removal of the old
 * key and an insertion of the new one.  So the table as it was at a time T
 * is its rows now, except that every key changed after T has, instead, the
 * old image of its first change after T (or is absent when that is NULL):
 * pitr_restore reads both in one snapshot, and needs no history older than
 * T.  The history therefore only needs the changes of the recovery period;
 * the worker deletes older ones (trim_pitr_history()).  The changes of one
 * item are stamped in the order they were made (its writers hold its row
 * lock); a transaction's changes carry the times they were made, not its
 * commit time (docs/backups.md).  The trigger makes the API's direct
 * writes fall back to their statements (direct_upkeep.c accepts only the
 * triggers it can stand in for), which is where PITR's write cost comes
 * from (docs/backups.md, "Cost").
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "api.h"
#include "catalog.h"
#include "direct_check.h"

PG_FUNCTION_INFO_V1(item_table_backup_copy);
PG_FUNCTION_INFO_V1(item_table_backup_drop);
PG_FUNCTION_INFO_V1(item_table_backup_restore);
PG_FUNCTION_INFO_V1(item_table_pitr_set);
PG_FUNCTION_INFO_V1(item_table_pitr_restore);
PG_FUNCTION_INFO_V1(item_table_pitr_trigger);

#define PITR_TRIGGER_NAME	"item_pitr_history"

/* run a statement with parameters; ERROR unless it gives rc */
static uint64
run(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls, int rc_want)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);

	if (rc != rc_want)
		elog(ERROR, "item_table backup statement failed: %s", SPI_result_code_string(rc));
	return SPI_processed;
}

/*
 * the owner of a backup: the role that owned its table when it was taken,
 * while a role of that OID still has that name (a role made later with a
 * dropped owner's OID gets nothing); InvalidOid when the role is gone
 */
static Oid
backup_owner(int64 backup_id)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(backup_id)};
	bool		isnull;
	Datum		d;

	run("SELECT b.owner, r.oid FROM item_table.backups b"
		" LEFT JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) b.owner"
		"  AND r.rolname OPERATOR(pg_catalog.=) b.owner_name"
		" WHERE b.backup_id OPERATOR(pg_catalog.=) $1",
		1, types, values, NULL, SPI_OK_SELECT);
	if (SPI_processed != 1)
		elog(ERROR, "item_table backup %lld does not exist", (long long) backup_id);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	return isnull ? InvalidOid : DatumGetObjectId(d);
}

/*
 * ERROR 42501 unless the caller (its user id taken before any switch to
 * the catalog owner) has the rights of the backup's owner
 */
static void
check_backup_rights(Oid caller, int64 backup_id, Oid owner)
{
	if (!superuser_arg(caller) && (!OidIsValid(owner) || !has_privs_of_role(caller, owner)))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for backup %lld", (long long) backup_id),
				 errdetail("Only members of the role that owned the backed-up table may use its backups.")));
}

/*
 * backup_copy(source regclass, table_name text, table_id uuid, backup_name
 *			   text, source_description jsonb) returns bigint
 *		A new backup of the source table: its catalog row (owned by the
 *		table's owner) and its items; the backup's id.
 */
Datum
item_table_backup_copy(PG_FUNCTION_ARGS)
{
	Oid			source = PG_GETARG_OID(0);
	Oid			owner;
	ItemRoleSwitch sw;
	int64		id;
	bool		isnull;
	char	   *copy;
	Oid			types[6] = {TEXTOID, UUIDOID, TEXTOID, OIDOID, JSONBOID, INT8OID};
	Datum		values[6];

	ItemCheckOwner(source);
	owner = ItemRelationOwner(source);
	values[0] = PG_GETARG_DATUM(1);
	values[1] = PG_GETARG_DATUM(2);
	values[2] = PG_GETARG_DATUM(3);
	values[3] = ObjectIdGetDatum(owner);
	values[4] = PG_GETARG_DATUM(4);

	SPI_connect();
	ItemAsCatalogOwnerBegin(&sw);
	run("INSERT INTO item_table.backups (backup_arn, table_name, table_id, backup_name, owner, owner_name, source)"
		" VALUES ('arn:aws:dynamodb:local:000000000000:table/' OPERATOR(pg_catalog.||) $1"
		" OPERATOR(pg_catalog.||) '/backup/' OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.floor("
		"pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8::pg_catalog.text, 14, '0')"
		" OPERATOR(pg_catalog.||) '-' OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.md5(pg_catalog.gen_random_uuid()::pg_catalog.text), 1, 8),"
		" $1, $2, $3, $4, (SELECT r.rolname FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) $4), $5)"
		" RETURNING backup_id",
		5, types, values, NULL, SPI_OK_INSERT_RETURNING);
	id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	values[5] = Int64GetDatum(id);
	copy = psprintf("WITH copied AS (INSERT INTO item_table.backup_items (backup_id, key, item)"
					" SELECT $1, s.key, s.item FROM %s s"
					" RETURNING pg_catalog.octet_length(item::pg_catalog.text) AS n)"
					" UPDATE item_table.backups SET item_count = (SELECT pg_catalog.count(*) FROM copied),"
					" size_bytes = (SELECT COALESCE(pg_catalog.sum(n), 0) FROM copied)"
					" WHERE backup_id OPERATOR(pg_catalog.=) $1",
					ItemQualifiedName(source));
	run(copy, 1, types + 5, values + 5, NULL, SPI_OK_UPDATE);
	ItemAsRoleEnd(&sw);
	SPI_finish();
	PG_RETURN_INT64(id);
}

/* backup_drop(backup_id bigint): the backup's row and items go */
Datum
item_table_backup_drop(PG_FUNCTION_ARGS)
{
	int64		id = PG_GETARG_INT64(0);
	ItemRoleSwitch sw;
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(id)};
	Oid			caller = GetUserId();

	SPI_connect();
	ItemAsCatalogOwnerBegin(&sw);
	check_backup_rights(caller, id, backup_owner(id));
	run("DELETE FROM item_table.backup_items WHERE backup_id OPERATOR(pg_catalog.=) $1",
		1, types, values, NULL, SPI_OK_DELETE);
	run("DELETE FROM item_table.backups WHERE backup_id OPERATOR(pg_catalog.=) $1",
		1, types, values, NULL, SPI_OK_DELETE);
	ItemAsRoleEnd(&sw);
	SPI_finish();
	PG_RETURN_VOID();
}

/* the restore's record, shown by DescribeTable as RestoreSummary */
static void
record_restore(Datum table_id, Datum backup_arn, bool no_backup, Datum table_arn,
			   TimestampTz restore_time)
{
	Oid			types[4] = {UUIDOID, TEXTOID, TEXTOID, TIMESTAMPTZOID};
	Datum		values[4] = {table_id, backup_arn, table_arn, TimestampTzGetDatum(restore_time)};
	char		nulls[4] = {' ', no_backup ? 'n' : ' ', ' ', ' '};

	run("INSERT INTO item_table.table_restores (table_name, table_id, source_backup_arn,"
		" source_table_arn, restore_date_time)"
		" SELECT t.table_name, $1, $2, $3, $4 FROM item_table.tables t"
		" WHERE t.table_id OPERATOR(pg_catalog.=) $1",
		4, types, values, nulls, SPI_OK_INSERT);
}

/*
 * backup_restore(backup_id bigint, target regclass, target_id uuid,
 *				  backup_arn text, table_arn text) returns bigint
 *		The backup's items written into the (new, empty) target table; the
 *		number written.
 */
Datum
item_table_backup_restore(PG_FUNCTION_ARGS)
{
	int64		id = PG_GETARG_INT64(0);
	Oid			target = PG_GETARG_OID(1);
	ItemRoleSwitch sw;
	uint64		n;
	TimestampTz created;
	bool		isnull;
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(id)};
	Oid			caller = GetUserId();

	ItemCheckOwner(target);
	SPI_connect();
	ItemAsCatalogOwnerBegin(&sw);
	check_backup_rights(caller, id, backup_owner(id));
	run("SELECT created_at FROM item_table.backups WHERE backup_id OPERATOR(pg_catalog.=) $1",
		1, types, values, NULL, SPI_OK_SELECT);
	created = DatumGetTimestampTz(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	n = run(psprintf("INSERT INTO %s (key, item) SELECT b.key, b.item FROM item_table.backup_items b"
					 " WHERE b.backup_id OPERATOR(pg_catalog.=) $1", ItemQualifiedName(target)),
			1, types, values, NULL, SPI_OK_INSERT);
	record_restore(PG_GETARG_DATUM(2), PG_GETARG_DATUM(3), false, PG_GETARG_DATUM(4), created);
	ItemAsRoleEnd(&sw);
	SPI_finish();
	PG_RETURN_INT64((int64) n);
}

/*
 * pitr_set(source regclass, table_name text, table_id uuid, enabled bool,
 *			days integer) returns void
 *		Point-in-time recovery switched on (the period changed when it is
 *		on already) or off (its history dropped).
 */
Datum
item_table_pitr_set(PG_FUNCTION_ARGS)
{
	Oid			source = PG_GETARG_OID(0);
	bool		enabled = PG_GETARG_BOOL(3);
	ItemRoleSwitch sw;
	Oid			types[4] = {TEXTOID, UUIDOID, OIDOID, INT4OID};
	Datum		values[4] = {PG_GETARG_DATUM(1), PG_GETARG_DATUM(2), ObjectIdGetDatum(source),
	PG_ARGISNULL(4) ? Int32GetDatum(35) : PG_GETARG_DATUM(4)};
	char	   *table = ItemQualifiedName(source);
	bool		had;

	ItemCheckOwner(source);
	SPI_connect();
	ItemAsCatalogOwnerBegin(&sw);
	had = run("SELECT 1 FROM item_table.continuous_backups WHERE table_id OPERATOR(pg_catalog.=) $1",
			  1, types + 1, values + 1, NULL, SPI_OK_SELECT) > 0;
	if (enabled && had)
		run("UPDATE item_table.continuous_backups SET recovery_period_days = $2"
			" WHERE table_id OPERATOR(pg_catalog.=) $1",
			2, (Oid[]) {UUIDOID, INT4OID}, (Datum[]) {values[1], values[3]}, NULL, SPI_OK_UPDATE);
	else if (enabled)
	{
		run("INSERT INTO item_table.continuous_backups (table_name, table_id, relid,"
			" recovery_period_days) VALUES ($1, $2, $3, $4)",
			4, types, values, NULL, SPI_OK_INSERT);
		/* left by an earlier table of this OID, not yet trimmed */
		run("DELETE FROM item_table.pitr_history WHERE relid OPERATOR(pg_catalog.=) $1",
			1, types + 2, values + 2, NULL, SPI_OK_DELETE);
		/* the name from the catalog, never from the request */
		if (SPI_execute(psprintf("CREATE TRIGGER " PITR_TRIGGER_NAME
								 " AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW"
								 " EXECUTE FUNCTION item_table.pitr_trigger()",
								 table), false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "could not create the point-in-time recovery trigger");
	}
	else if (had)
	{
		run("DELETE FROM item_table.continuous_backups WHERE table_id OPERATOR(pg_catalog.=) $1",
			1, types + 1, values + 1, NULL, SPI_OK_DELETE);
		run("DELETE FROM item_table.pitr_history WHERE relid OPERATOR(pg_catalog.=) $1",
			1, types + 2, values + 2, NULL, SPI_OK_DELETE);
		if (SPI_execute(psprintf("DROP TRIGGER IF EXISTS " PITR_TRIGGER_NAME " ON %s", table),
						false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "could not drop the point-in-time recovery trigger");
	}
	ItemAsRoleEnd(&sw);
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * pitr_restore(source regclass, source_id uuid, as_of timestamptz, target
 *				regclass, target_id uuid, table_arn text) returns bigint
 *		The source table as it was at as_of written into the (new, empty)
 *		target table; the number of items written.
 */
Datum
item_table_pitr_restore(PG_FUNCTION_ARGS)
{
	Oid			source = PG_GETARG_OID(0);
	Oid			target = PG_GETARG_OID(3);
	ItemRoleSwitch sw;
	uint64		n;
	Oid			types[2] = {OIDOID, TIMESTAMPTZOID};
	Datum		values[2] = {ObjectIdGetDatum(source), PG_GETARG_DATUM(2)};

	ItemCheckOwner(source);
	ItemCheckOwner(target);
	SPI_connect();
	ItemAsCatalogOwnerBegin(&sw);
	n = run(psprintf("WITH changed AS MATERIALIZED ("
					 "  SELECT DISTINCT ON (h.key) h.key, h.old_item FROM item_table.pitr_history h"
					 "  WHERE h.relid OPERATOR(pg_catalog.=) $1 AND h.changed_at OPERATOR(pg_catalog.>) $2"
					 "  ORDER BY h.key, h.changed_at)"
					 " INSERT INTO %s (key, item)"
					 " SELECT s.key, s.item FROM %s s"
					 "  WHERE NOT EXISTS (SELECT FROM changed c WHERE c.key OPERATOR(item_table.=) s.key)"
					 " UNION ALL SELECT c.key, c.old_item FROM changed c WHERE c.old_item IS NOT NULL",
					 ItemQualifiedName(target), ItemQualifiedName(source)),
			2, types, values, NULL, SPI_OK_INSERT);
	record_restore(PG_GETARG_DATUM(4), (Datum) 0, true, PG_GETARG_DATUM(5),
				   PG_GETARG_TIMESTAMPTZ(2));
	ItemAsRoleEnd(&sw);
	SPI_finish();
	PG_RETURN_INT64((int64) n);
}

/* ----------------------------------------------------------------
 * the capture: the trigger, and the same for the API's direct writes
 * ----------------------------------------------------------------
 */
static Oid	history_relid = InvalidOid;
static TimestampTz last_stamp = 0;

/* DROP/CREATE EXTENSION gives the history table a new OID */
static void
history_inval(Datum arg, Oid relid)
{
	if (!OidIsValid(relid) || relid == history_relid)
		history_relid = InvalidOid;
}

/*
 * the time of a change: the clock, but strictly after the previous change
 * this backend stamped, so that one transaction's changes of one key
 * (plain SQL can make several in one microsecond) keep their order
 */
static TimestampTz
change_stamp(void)
{
	TimestampTz now = GetCurrentTimestamp();

	if (now <= last_stamp)
		now = last_stamp + 1;
	last_stamp = now;
	return now;
}

/*
 * one history row, straight into the heap and its index as catalog rows
 * are (the table is the extension's own, written by no one else), with
 * the writer's rights: no SQL, no role switch
 */
static void
write_history(Oid relid, TimestampTz at, Datum key, Datum old_item)
{
	static bool registered = false;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, old_item == (Datum) 0};
	Relation	rel;
	HeapTuple	tup;

	if (!registered)
	{
		CacheRegisterRelcacheCallback(history_inval, (Datum) 0);
		registered = true;
	}
	if (!OidIsValid(history_relid))
	{
		Oid			nsp = get_namespace_oid(ITEM_TABLE_SCHEMA, false);

		history_relid = get_relname_relid("pitr_history", nsp);
		if (!OidIsValid(history_relid))
			elog(ERROR, "item_table.pitr_history is missing");
	}
	values[0] = ObjectIdGetDatum(relid);
	values[1] = TimestampTzGetDatum(at);
	values[2] = key;
	values[3] = old_item;
	rel = table_open(history_relid, RowExclusiveLock);
	tup = heap_form_tuple(RelationGetDescr(rel), values, nulls);
	CatalogTupleInsert(rel, tup);
	heap_freetuple(tup);
	table_close(rel, NoLock);
}

/*
 * the history of one row change of rel: an insert (no old key), a
 * removal (no new key) or an update; a key Datum of 0 is absent, an item
 * Datum of 0 absent or NULL
 */
static void
capture_change(Relation rel, Datum oldkey, Datum olditem, Datum newkey)
{
	Oid			relid = RelationGetRelid(rel);
	TimestampTz now = change_stamp();

	if (oldkey == (Datum) 0)
		write_history(relid, now, newkey, (Datum) 0);
	else
	{
		write_history(relid, now, oldkey, olditem);
		/* a key changed by plain SQL: the new key had no item before */
		if (newkey != (Datum) 0 &&
			!DatumGetBool(DirectFunctionCall2(byteaeq, oldkey, newkey)))
			write_history(relid, now, newkey, (Datum) 0);
	}
}

/*
 * ItemPitrDirectTrigger
 *		Is t the history trigger exactly as pitr_set makes it, and would the
 *		executor fire it now?  Then a direct write calls ItemPitrCaptureDirect
 *		in its place (direct_upkeep.c).
 */
bool
ItemPitrDirectTrigger(const Trigger *t)
{
	static Oid	capture_fn = InvalidOid;

	return ApiOwnRowTrigger(t, PITR_TRIGGER_NAME, "pitr_trigger", &capture_fn);
}

void
ItemPitrCaptureDirect(Relation rel, Datum oldkey, Datum olditem, Datum newkey)
{
	capture_change(rel, oldkey, olditem, newkey);
}

static Datum
column(HeapTuple tup, TupleDesc desc, int attno, bool *isnull)
{
	if (desc->natts < 2 || TupleDescAttr(desc, 0)->atttypid != ItemKeyTypeOid() ||
		TupleDescAttr(desc, 1)->atttypid != JSONBOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("item table does not have its columns key item_key and item jsonb")));
	return heap_getattr(tup, attno, desc, isnull);
}

/*
 * pitr_trigger(): AFTER INSERT OR UPDATE OR DELETE, FOR EACH ROW, on an
 * item table with point-in-time recovery enabled.
 */
Datum
item_table_pitr_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	bool		isnull;
	Datum		oldkey = (Datum) 0;
	Datum		olditem = (Datum) 0;
	Datum		newkey = (Datum) 0;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		elog(ERROR, "pitr_trigger must be an AFTER ROW trigger");
	desc = RelationGetDescr(td->tg_relation);
	if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
		newkey = column(td->tg_trigtuple, desc, 1, &isnull);
	else
	{
		oldkey = column(td->tg_trigtuple, desc, 1, &isnull);
		olditem = column(td->tg_trigtuple, desc, 2, &isnull);
		if (isnull)
			olditem = (Datum) 0;
		if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
			newkey = column(td->tg_newtuple, desc, 1, &isnull);
	}
	capture_change(td->tg_relation, oldkey, olditem, newkey);
	return PointerGetDatum(NULL);
}
