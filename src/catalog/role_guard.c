/*-------------------------------------------------------------------------
 *
 * role_guard.c
 *		The roles that access keys (item_table.access_keys.role) and stream
 *		consumers (item_table.stream_consumers.run_as) name: kept from
 *		being dropped under them, and never taken for another role that
 *		later gets the same OID.
 *
 * Both columns hold a role's OID.  PostgreSQL records dependencies on a
 * role (pg_shdepend) for objects only, not for table rows, and event
 * triggers do not fire for roles; a plain DROP ROLE would leave the OID
 * behind, and a later CREATE ROLE may be given the same OID, which would
 * hand it the dropped role's keys and consumers.  So:
 *
 * The anchor.  While a role has an access key or a stream consumer in a
 * database, it holds USAGE on the domain item_table.ROLE_GUARD_ANCHOR
 * there (granted and revoked by the row trigger below, with the extension
 * owner's rights).  PUBLIC has USAGE on the domain anyway, so the grant
 * gives nothing; but it is an ACL entry, which PostgreSQL records in
 * pg_shdepend: DROP ROLE of the role fails, in every database of the
 * cluster and whether this library is loaded or not, with "privileges for
 * type item_table.role_of_access_keys_or_consumers", until DROP OWNED BY
 * (or a REVOKE) in this database removes the grant.
 *
 * The rule.  A key or consumer is used only while its role holds the
 * anchor (RoleGuardHolds): the gateway's key lookup (gateway/pool.c) finds
 * no key otherwise, and the worker parks such a consumer
 * (stream_consumer.c).  A grant goes only with a role's own rows: when a
 * row is written for a role that does not hold the anchor, rows of the
 * same OID that this transaction did not write are left from a dropped
 * role (their grant went before it could be dropped) and are deleted
 * before the grant is made.  So a row can never be revived for a new role
 * that got an old OID, even before the worker's sweep deletes it.
 *
 * The hook.  While the library is loaded (shared_preload_libraries, as
 * recommended, or any use of the API in the session), ProcessUtility_hook
 * refuses DROP ROLE of a role that still has keys or consumers in the
 * current database with an error that names them (SQLSTATE 2BP01, as
 * PostgreSQL's own), and DROP OWNED BY removes the role's keys and
 * consumers along with its grants, so REASSIGN OWNED, DROP OWNED, DROP
 * ROLE works as it does for a role's other objects.
 *
 * The sweep.  RoleGuardSweep, run by the background worker in its rounds,
 * deletes rows whose role no longer exists (a DROP OWNED made without the
 * library, then DROP ROLE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "role_guard.h"

PG_FUNCTION_INFO_V1(item_table_role_guard_trigger);

static ProcessUtility_hook_type prev_utility_hook = NULL;

/* the rows naming a role: its access keys, then its stream consumers */
#define ROWS_OF_ROLE_SQL \
	"SELECT 'access key ' OPERATOR(pg_catalog.||) k.access_key_id FROM item_table.access_keys k" \
	" WHERE k.role::pg_catalog.oid OPERATOR(pg_catalog.=) $1" \
	" UNION ALL SELECT pg_catalog.format('stream consumer %I on table %I', c.consumer_name, c.table_name)" \
	" FROM item_table.stream_consumers c WHERE c.run_as::pg_catalog.oid OPERATOR(pg_catalog.=) $1"

/* the anchor domain, InvalidOid before 1.2 */
static Oid
anchor_type(void)
{
	Oid			nsp = get_namespace_oid(ITEM_TABLE_SCHEMA, true);

	if (!OidIsValid(nsp))
		return InvalidOid;
	return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
						   CStringGetDatum(ROLE_GUARD_ANCHOR), ObjectIdGetDatum(nsp));
}

/*
 * RoleGuardHolds
 *		Does role hold USAGE on the anchor in this database (and so exist,
 *		and have its keys and consumers recorded)?
 */
bool
RoleGuardHolds(Oid role)
{
	Oid			typid = anchor_type();
	HeapTuple	tup;
	Datum		d;
	bool		isnull;
	bool		found = false;

	if (!OidIsValid(typid) || !OidIsValid(role))
		return false;
	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	if (!HeapTupleIsValid(tup))
		return false;
	d = SysCacheGetAttr(TYPEOID, tup, Anum_pg_type_typacl, &isnull);
	if (!isnull)
	{
		Datum	   *elems;
		int			n;
		int			i;

		deconstruct_array(DatumGetArrayTypeP(d), ACLITEMOID, sizeof(AclItem), false,
						  TYPALIGN_INT, &elems, NULL, &n);
		for (i = 0; i < n; i++)
		{
			AclItem    *item = (AclItem *) DatumGetPointer(elems[i]);

			if (item->ai_grantee == role && (ACLITEM_GET_PRIVS(*item) & ACL_USAGE) != 0)
			{
				found = true;
				break;
			}
		}
	}
	ReleaseSysCache(tup);
	return found;
}

/* GRANT (or REVOKE) USAGE ON TYPE item_table.<anchor> TO role, as the owner */
static void
anchor_grant(Oid role, bool is_grant)
{
	GrantStmt  *stmt = makeNode(GrantStmt);
	AccessPriv *priv = makeNode(AccessPriv);
	RoleSpec   *grantee = makeNode(RoleSpec);
	ItemRoleSwitch sw;

	priv->priv_name = pstrdup("usage");
	grantee->roletype = ROLESPEC_CSTRING;
	grantee->rolename = GetUserNameFromId(role, false);
	grantee->location = -1;
	stmt->is_grant = is_grant;
	stmt->targtype = ACL_TARGET_OBJECT;
	stmt->objtype = OBJECT_TYPE;
	stmt->objects = list_make1(list_make2(makeString(pstrdup(ITEM_TABLE_SCHEMA)),
										  makeString(pstrdup(ROLE_GUARD_ANCHOR))));
	stmt->privileges = list_make1(priv);
	stmt->grantees = list_make1(grantee);
	stmt->grant_option = false;
	stmt->behavior = DROP_RESTRICT;
	ItemAsCatalogOwnerBegin(&sw);
	ExecuteGrantStmt(stmt);
	ItemAsRoleEnd(&sw);
	CommandCounterIncrement();
}

/* run one statement on the role's rows as the extension owner (SPI connected) */
static void
exec_for_role(const char *sql, Oid role, bool read_only, int expected)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1] = {ObjectIdGetDatum(role)};
	ItemRoleSwitch sw;
	int			rc;

	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args(sql, 1, argtypes, args, NULL, read_only, 0);
	ItemAsRoleEnd(&sw);
	if (rc != expected)
		elog(ERROR, "item_table role guard statement failed: %s", SPI_result_code_string(rc));
}

/*
 * Delete the rows of role's OID that the current transaction did not
 * write: the role does not hold the anchor, so they were left by a role
 * that was dropped (or lost its grant to DROP OWNED without this library).
 */
static void
purge_stale_rows(Oid role)
{
	static const char *const tables[2][2] = {
		{"SELECT k.ctid, k.xmin FROM item_table.access_keys k WHERE k.role::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
		"DELETE FROM item_table.access_keys k WHERE k.ctid OPERATOR(pg_catalog.=) $1"},
		{"SELECT c.ctid, c.xmin FROM item_table.stream_consumers c WHERE c.run_as::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
		"DELETE FROM item_table.stream_consumers c WHERE c.ctid OPERATOR(pg_catalog.=) $1"}
	};
	int			t;
	int64		purged = 0;

	for (t = 0; t < 2; t++)
	{
		List	   *stale = NIL;
		ListCell   *lc;
		uint64		i;

		exec_for_role(tables[t][0], role, false, SPI_OK_SELECT);
		for (i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			ItemPointer tid = (ItemPointer) DatumGetPointer(SPI_getbinval(SPI_tuptable->vals[i],
																		  SPI_tuptable->tupdesc, 1, &isnull));
			TransactionId xmin = DatumGetTransactionId(SPI_getbinval(SPI_tuptable->vals[i],
																	 SPI_tuptable->tupdesc, 2, &isnull));

			if (!TransactionIdIsCurrentTransactionId(xmin))
			{
				ItemPointer copy = palloc(sizeof(ItemPointerData));

				ItemPointerCopy(tid, copy);
				stale = lappend(stale, copy);
			}
		}
		foreach(lc, stale)
		{
			Oid			argtypes[1] = {TIDOID};
			Datum		args[1] = {PointerGetDatum(lfirst(lc))};
			ItemRoleSwitch sw;
			int			rc;

			ItemAsCatalogOwnerBegin(&sw);
			rc = SPI_execute_with_args(tables[t][1], 1, argtypes, args, NULL, false, 0);
			ItemAsRoleEnd(&sw);
			if (rc != SPI_OK_DELETE)
				elog(ERROR, "item_table role guard statement failed: %s", SPI_result_code_string(rc));
			purged += SPI_processed;
		}
	}
	if (purged > 0)
		ereport(LOG,
				(errmsg("item_table: removed " INT64_FORMAT " access key(s) or stream consumer(s) left by a dropped role with OID %u",
						purged, role)));
}

static bool
role_has_rows(Oid role)
{
	exec_for_role("SELECT FROM item_table.access_keys k WHERE k.role::pg_catalog.oid OPERATOR(pg_catalog.=) $1"
				  " UNION ALL SELECT FROM item_table.stream_consumers c"
				  " WHERE c.run_as::pg_catalog.oid OPERATOR(pg_catalog.=) $1 LIMIT 1",
				  role, false, SPI_OK_SELECT);	/* a new snapshot: the trigger's own change */
	return SPI_processed > 0;
}

static Oid
anchor_owner(void)
{
	Oid			typid = anchor_type();
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", typid);
	owner = ((Form_pg_type) GETSTRUCT(tup))->typowner;
	ReleaseSysCache(tup);
	return owner;
}

/*
 * item_table.role_guard_trigger(column): AFTER INSERT OR DELETE OR UPDATE
 * OF column, FOR EACH ROW, on access_keys and stream_consumers.  A row for
 * a role gives the role the anchor (after purging rows its OID has left
 * from a dropped role); the last row of a role takes it away.
 */
Datum
item_table_role_guard_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	int			attno;
	bool		isnull;
	Oid			newrole = InvalidOid;
	Oid			oldrole = InvalidOid;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event) || td->tg_trigger->tgnargs != 1)
		elog(ERROR, "role_guard_trigger() must be an AFTER ROW trigger given the role column");
	desc = RelationGetDescr(td->tg_relation);
	attno = SPI_fnumber(desc, td->tg_trigger->tgargs[0]);
	if (attno <= 0)
		elog(ERROR, "role_guard_trigger(): no column \"%s\"", td->tg_trigger->tgargs[0]);
	if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
		newrole = DatumGetObjectId(heap_getattr(td->tg_trigtuple, attno, desc, &isnull));
	else if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		newrole = DatumGetObjectId(heap_getattr(td->tg_newtuple, attno, desc, &isnull));
		oldrole = DatumGetObjectId(heap_getattr(td->tg_trigtuple, attno, desc, &isnull));
		if (newrole == oldrole)
			return PointerGetDatum(NULL);
	}
	else if (TRIGGER_FIRED_BY_DELETE(td->tg_event))
		oldrole = DatumGetObjectId(heap_getattr(td->tg_trigtuple, attno, desc, &isnull));

	if (TRIGGER_FIRED_BY_INSERT(td->tg_event) || TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		if (!OidIsValid(newrole) || !SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(newrole)))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("role with OID %u does not exist", newrole),
					 errdetail("Access keys and stream consumers must name an existing role.")));
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (OidIsValid(newrole) && !RoleGuardHolds(newrole))
	{
		purge_stale_rows(newrole);
		anchor_grant(newrole, true);
	}
	if (OidIsValid(oldrole) && RoleGuardHolds(oldrole) && oldrole != anchor_owner() &&
		!role_has_rows(oldrole))
		anchor_grant(oldrole, false);
	SPI_finish();
	return PointerGetDatum(NULL);
}

/* ----------------------------------------------------------------
 * DROP ROLE and DROP OWNED
 * ----------------------------------------------------------------
 */

/* the keys and consumers of role in this database, as DETAIL lines */
static void
refuse_drop(RoleSpec *spec)
{
	Oid			role = get_rolespec_oid(spec, true);
	StringInfoData detail;
	uint64		i;
	uint64		n;

	if (!OidIsValid(role))
		return;					/* DROP ROLE reports it (or IF EXISTS skips it) */
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	exec_for_role(ROWS_OF_ROLE_SQL " ORDER BY 1", role, true, SPI_OK_SELECT);
	n = SPI_processed;
	if (n == 0)
	{
		SPI_finish();
		return;
	}
	initStringInfo(&detail);
	for (i = 0; i < n && i < 25; i++)
		appendStringInfo(&detail, "%s%s in database %s", i > 0 ? "\n" : "",
						 SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1),
						 get_database_name(MyDatabaseId));
	if (n > 25)
		appendStringInfo(&detail, "\nand " UINT64_FORMAT " other access keys or stream consumers", n - 25);
	ereport(ERROR,
			(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
			 errmsg("role \"%s\" cannot be dropped because some objects depend on it",
					get_rolespec_name(spec)),
			 errdetail_internal("%s", detail.data),
			 errhint("Remove them with item_table.delete_access_key() and item_table.remove_stream_consumer(), "
					 "or with DROP OWNED BY in this database.")));
}

/* DROP OWNED BY: the roles' keys and consumers go with their grants */
static void
drop_owned_rows(DropOwnedStmt *stmt)
{
	ListCell   *lc;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	foreach(lc, stmt->roles)
	{
		Oid			role = get_rolespec_oid((RoleSpec *) lfirst(lc), false);

		exec_for_role("DELETE FROM item_table.access_keys k"
					  " WHERE k.role::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
					  role, false, SPI_OK_DELETE);
		exec_for_role("DELETE FROM item_table.stream_consumers c"
					  " WHERE c.run_as::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
					  role, false, SPI_OK_DELETE);
	}
	SPI_finish();
}

static void
role_guard_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
				   ProcessUtilityContext context, ParamListInfo params,
				   QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;
	bool		guarded = (IsA(parsetree, DropRoleStmt) || IsA(parsetree, DropOwnedStmt)) &&
		IsTransactionState() && OidIsValid(anchor_type());

	if (guarded && IsA(parsetree, DropRoleStmt))
	{
		ListCell   *lc;

		foreach(lc, ((DropRoleStmt *) parsetree)->roles)
			refuse_drop((RoleSpec *) lfirst(lc));
	}
	if (prev_utility_hook)
		prev_utility_hook(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	if (guarded && IsA(parsetree, DropOwnedStmt))
		drop_owned_rows((DropOwnedStmt *) parsetree);
}

void
RoleGuardInit(void)
{
	prev_utility_hook = ProcessUtility_hook;
	ProcessUtility_hook = role_guard_utility;
}

/*
 * RoleGuardSweep
 *		Delete the keys and consumers whose role no longer exists (the
 *		background worker, in a transaction); the number deleted.
 */
int64
RoleGuardSweep(void)
{
	int64		n;
	ItemRoleSwitch sw;
	int			rc;
	bool		isnull;

	if (!OidIsValid(anchor_type()))
		return 0;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute("WITH k AS (DELETE FROM item_table.access_keys k WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_roles r"
					 "   WHERE r.oid OPERATOR(pg_catalog.=) k.role::pg_catalog.oid) RETURNING 1),"
					 " c AS (DELETE FROM item_table.stream_consumers c WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_roles r"
					 "   WHERE r.oid OPERATOR(pg_catalog.=) c.run_as::pg_catalog.oid) RETURNING 1)"
					 " SELECT (SELECT pg_catalog.count(*) FROM k) OPERATOR(pg_catalog.+) (SELECT pg_catalog.count(*) FROM c)",
					 false, 1);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "item_table role guard sweep failed: %s", SPI_result_code_string(rc));
	n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	if (n > 0)
		ereport(LOG,
				(errmsg("item_table: removed " INT64_FORMAT " access key(s) or stream consumer(s) of dropped roles", n)));
	return n;
}
