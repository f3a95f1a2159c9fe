/*-------------------------------------------------------------------------
 *
 * catalog.c
 *		Acting with another role's rights; physical names; utility
 *		statements from parse trees.
 *
 * Three kinds of work run with rights other than the caller's: writes to
 * the extension's catalog (item_table.tables, .indexes, the transaction
 * tokens), which PUBLIC may read but not write, run as the catalog's
 * owner; index maintenance runs as the owner of the index tables, which is
 * always the owner of the base table, as PostgreSQL runs foreign-key
 * checks as the referenced table's owner; and index tables are created by
 * the catalog owner and handed to the base table's owner.
 *
 * While such rights are held, the caller must not be able to make the
 * server run code of the caller's choosing.  Three things see to it:
 *
 *	- search_path is pinned to "pg_catalog, pg_temp" inside a GUC nest
 *	  level of its own, so an operator or function planted in a schema on
 *	  the caller's path is never found (the SQL is also schema-qualified
 *	  throughout, and prepared plans are re-analysed under the pinned path,
 *	  not the caller's);
 *	- the switch is a SECURITY_RESTRICTED_OPERATION, so nothing run under it
 *	  (an owner's trigger on an index table, say) can change the session:
 *	  no SET ROLE, no temporary objects, no prepared statements;
 *	- the caller cannot plant objects where the statements look: schema
 *	  item_data grants USAGE, not CREATE, to PUBLIC.
 *
 * Physical names: see catalog.h.  The '#' and '~' characters cannot occur
 * in DynamoDB names, so a table can never take the name of another table's
 * index table, and a shortened (hashed) name never equals a plain one.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/event_trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "common/md5.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "tcop/dest.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "compat.h"

void
ItemAsRoleBegin(ItemRoleSwitch *sw, Oid role, int extra_sec_flags)
{
	GetUserIdAndSecContext(&sw->save_userid, &sw->save_sec_context);
	SetUserIdAndSecContext(role, sw->save_sec_context |
						   SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION |
						   extra_sec_flags);
	sw->nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", ITEM_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
}

void
ItemAsRoleEnd(ItemRoleSwitch *sw)
{
	AtEOXact_GUC(true, sw->nestlevel);
	SetUserIdAndSecContext(sw->save_userid, sw->save_sec_context);
}

Oid
ItemRelationOwner(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

void
ItemCheckOwner(Oid relid)
{
	if (!ItemRelOwnerCheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(relid));
}

/* the OID of type item_table.item_key, looked up once */
static Oid	cached = InvalidOid;

/* a relcache reset: the extension may have been dropped and made again */
void
ItemKeyTypeOidReset(void)
{
	cached = InvalidOid;
}

Oid
ItemKeyTypeOid(void)
{
	if (!OidIsValid(cached))
	{
		Oid			nsp = get_namespace_oid(ITEM_TABLE_SCHEMA, false);

		cached = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
								 CStringGetDatum("item_key"),
								 ObjectIdGetDatum(nsp));
		if (!OidIsValid(cached))
			elog(ERROR, "type item_table.item_key does not exist");
	}
	return cached;
}

Oid
ItemCatalogOwner(void)
{
	Oid			nsp = get_namespace_oid(ITEM_TABLE_SCHEMA, false);
	Oid			catalog = get_relname_relid("tables", nsp);

	if (!OidIsValid(catalog))
		elog(ERROR, "item_table catalog is missing");
	return ItemRelationOwner(catalog);
}

void
ItemAsCatalogOwnerBegin(ItemRoleSwitch *sw)
{
	ItemAsRoleBegin(sw, ItemCatalogOwner(), 0);
}

/* name itself when it fits an identifier, else prefix, marker and MD5 */
static char *
fitted_name(const char *name, int prefix_len, const char *marker)
{
	char		hex[33];
	const char *errstr = NULL;

	if (strlen(name) < NAMEDATALEN)
		return pstrdup(name);
	if (!pg_md5_hash(name, strlen(name), hex, &errstr))
		elog(ERROR, "could not compute MD5: %s", errstr ? errstr : "unknown error");
	return psprintf("%.*s%s%.8s", prefix_len, name, marker, hex);
}

char *
ItemPhysicalTableName(const char *table)
{
	return fitted_name(table, 54, "~");
}

char *
ItemPhysicalIndexName(const char *table, const char *index)
{
	return fitted_name(psprintf("%s#%s", table, index), 53, "#~");
}

char *
ItemQualifiedName(Oid relid)
{
	char	   *rel = get_rel_name(relid);

	if (rel == NULL)
		elog(ERROR, "relation %u does not exist", relid);
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), rel);
}

struct _SPI_plan *
ItemPrepareKept(const char *sql, int nargs, Oid *argtypes, int cursor_options)
{
	SPIPlanPtr	plan = SPI_prepare_cursor(sql, nargs, argtypes, cursor_options);

	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql,
			 SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	return plan;
}

void
ItemRunUtility(Node *stmt, const char *description)
{
	PlannedStmt *wrapper = makeNode(PlannedStmt);

	wrapper->commandType = CMD_UTILITY;
	wrapper->canSetTag = false;
	wrapper->utilityStmt = stmt;
	wrapper->stmt_location = -1;
	wrapper->stmt_len = 0;
	ProcessUtility(wrapper, description, false, PROCESS_UTILITY_SUBCOMMAND,
				   NULL, NULL, None_Receiver, NULL);
	CommandCounterIncrement();
}

/*
 * item_table.on_sql_drop(): event trigger on sql_drop.
 *
 * A plain DROP TABLE of an item table (or of one of its index tables, or
 * DROP SCHEMA item_data CASCADE) removes the catalog rows that described
 * it, in the same transaction, so the API answers ResourceNotFound and the
 * name can be used again.  Index tables depend on their base table, so
 * dropping the base drops them as well.  Drops made by the API itself are
 * not top-level DDL and do not fire this.
 */
PG_FUNCTION_INFO_V1(item_table_on_sql_drop);

static bool drop_cleanup_held = false;

/*
 * ItemHoldDropCleanup
 *		Hold off (or resume) the clean-up below, for a caller that replaces
 *		item or index tables by new ones and points the catalog at them
 *		itself (distributed.c, undistribute_table()).  The caller resumes it
 *		on error too.
 */
void
ItemHoldDropCleanup(bool hold)
{
	drop_cleanup_held = hold;
}

Datum
item_table_on_sql_drop(PG_FUNCTION_ARGS)
{
	ItemRoleSwitch sw;
	Oid			nsp;
	int			rc;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		elog(ERROR, "on_sql_drop: not fired by event trigger manager");
	nsp = get_namespace_oid(ITEM_TABLE_SCHEMA, true);
	if (!OidIsValid(nsp) || !OidIsValid(get_relname_relid("indexes", nsp)) ||
		!OidIsValid(get_relname_relid("tables", nsp)))
		PG_RETURN_VOID();		/* the extension itself is being dropped */
	/* a caller replacing tables updates the catalog itself (ItemHoldDropCleanup) */
	if (drop_cleanup_held)
		PG_RETURN_VOID();

	SPI_connect();
	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute("WITH dropped AS MATERIALIZED ("
					 "  SELECT d.objid FROM pg_catalog.pg_event_trigger_dropped_objects() d"
					 "  WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass"
					 "  AND d.objsubid OPERATOR(pg_catalog.=) 0"
					 "  AND d.schema_name OPERATOR(pg_catalog.=) '" ITEM_DATA_SCHEMA "'),"
					 " gone_indexes AS ("
					 "  DELETE FROM item_table.indexes i USING dropped"
					 "  WHERE i.relid::pg_catalog.oid OPERATOR(pg_catalog.=) dropped.objid)"
					 " DELETE FROM item_table.tables t USING dropped"
					 " WHERE t.relid::pg_catalog.oid OPERATOR(pg_catalog.=) dropped.objid",
					 false, 0);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_DELETE)
		elog(ERROR, "item_table catalog clean-up failed: %s", SPI_result_code_string(rc));
	SPI_finish();
	PG_RETURN_VOID();
}
