/*-------------------------------------------------------------------------
 *
 * direct_check.c
 *		Where a direct path may run: the table's shape and the caller's
 *		rights, decided once for every path that skips the executor.
 *
 * A direct path -- GetItem's probe and the locked probe
 * (fetch_item_direct), the direct update and deletes (api_common.c), the
 * direct insert (direct_insert.c), a page read by a scan of the primary key
 * (query_page.c) and the index rows written by gsi.c -- does the heap and
 * index work of one SQL statement without the statement.  It may do so
 * only where the statement could not behave differently, and the part of
 * that rule that is about the table and the caller's rights is decided
 * here, once, for all of them:
 *
 * ApiDirectRights(relid, role, need): role (the caller; gsi.c asks for the
 * index owner) holds every right of need table-wide -- the rights the
 * statement would need (SELECT to read by key; UPDATE also to lock; the
 * write's own right).  Column grants are the statement's business, so
 * table-wide rights are required.  No permission hook is set
 * (ExecutorCheckPerms_hook sees every statement; a direct path would
 * bypass it).  No row-level security applies to role (a policy is the
 * executor's work; FORCE ROW LEVEL SECURITY counts as applying).  When
 * need holds more than SELECT (a write, or a row lock, which the executor
 * refuses the same way), the transaction is neither read-only nor in
 * parallel mode.  A relation dropped meanwhile is false too: the
 * statement raises its own error.
 *
 * ApiDirectShape(rel, flags, lockmode): rel is the ordinary table as
 * table_def.c (or, API_SHAPE_INDEX_TABLE, api_index.c) made it: its first
 * columns the key columns, item_key, named key (ikey, key), then item
 * jsonb, none dropped; with API_SHAPE_ONLY_COLUMNS no other live column
 * (an insert would have to apply its default and constraints); and its
 * primary key the valid, ready, immediate, unique btree on exactly the key
 * columns, without predicate, which is returned opened with lockmode
 * (every direct path probes or writes it).  With API_SHAPE_WRITE, also
 * what only a write can meet: no rules, no CHECK constraint, no stored
 * generated column, not a partition (its partition constraint), and no
 * index but the primary key (an expression or partial index, another
 * unique index: the executor's work).  A delete would not need the index
 * conditions; one rule for every write keeps it whole, and an item table
 * as the API makes it meets all of them.
 *
 * What is each caller's own stays with it: the triggers
 * (ApiDirectTriggers, per command), the snapshot, the lock identity of
 * the update and delete, the replica identity check, and gsi.c's
 * conditions on index tables (no trigger at all, no publication).  Any
 * false means the caller runs the statement before it has written
 * anything; the pgTAP files update_direct, insert_direct, index_direct,
 * read_direct and stream_direct show each fallback taken.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/xact.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/pg_list.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/rls.h"

#include "catalog.h"
#include "compat.h"
#include "direct_check.h"

/*
 * ApiDirectRights
 *		May role (InvalidOid: the current user) do directly what a statement
 *		needing every right of need on relid would do?  (The rule above.)
 */
bool
ApiDirectRights(Oid relid, Oid role, AclMode need)
{
	bool		missing = false;

	if (!OidIsValid(role))
		role = GetUserId();
	if ((need & ~ACL_SELECT) != 0 && (XactReadOnly || IsInParallelMode()))
		return false;
	if (ExecutorCheckPerms_hook != NULL)
		return false;
	if (ItemClassAclMask(relid, role, need, ACLMASK_ALL, &missing) != need || missing)
		return false;
	return check_enable_rls(relid, role, true) != RLS_ENABLED;
}

/*
 * ApiDirectShape
 *		rel's primary key, opened with lockmode, when rel has the shape the
 *		direct paths know (the rule above, flags API_SHAPE_*); else NULL.
 */
Relation
ApiDirectShape(Relation rel, int flags, LOCKMODE lockmode)
{
	static const char *const names[3] = {"ikey", "key", "item"};
	TupleDesc	desc = RelationGetDescr(rel);
	int			nkeys = (flags & API_SHAPE_INDEX_TABLE) ? 2 : 1;
	Oid			keytype = ItemKeyTypeOid();
	List	   *indexes;
	bool		only_pk;
	Relation	idx;
	Form_pg_index ix;
	int			i;

	if (rel->rd_rel->relkind != RELKIND_RELATION || desc->natts < nkeys + 1)
		return NULL;
	for (i = 0; i <= nkeys; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped || att->atttypid != (i < nkeys ? keytype : JSONBOID) ||
			strcmp(NameStr(att->attname), names[2 - nkeys + i]) != 0)
			return NULL;
	}
	if (flags & API_SHAPE_ONLY_COLUMNS)
	{
		for (i = nkeys + 1; i < desc->natts; i++)
			if (!TupleDescAttr(desc, i)->attisdropped)
				return NULL;
	}
	if ((flags & API_SHAPE_WRITE) &&
		(rel->rd_rel->relispartition || rel->rd_rules != NULL ||
		 (desc->constr != NULL &&
		  (desc->constr->num_check > 0 || desc->constr->has_generated_stored))))
		return NULL;
	indexes = RelationGetIndexList(rel);	/* also sets rd_pkindex */
	only_pk = list_length(indexes) == 1 && linitial_oid(indexes) == rel->rd_pkindex;
	list_free(indexes);
	if (!OidIsValid(rel->rd_pkindex) || ((flags & API_SHAPE_WRITE) && !only_pk))
		return NULL;
	idx = index_open(rel->rd_pkindex, lockmode);
	ix = idx->rd_index;
	if (!ix->indisvalid || !ix->indisready || !ix->indimmediate || !ix->indisunique ||
		ix->indisexclusion || ix->indnatts != nkeys || ix->indnkeyatts != nkeys ||
		idx->rd_rel->relam != BTREE_AM_OID || RelationGetIndexPredicate(idx) != NIL)
	{
		index_close(idx, NoLock);
		return NULL;
	}
	for (i = 0; i < nkeys; i++)
	{
		if (ix->indkey.values[i] != i + 1)
		{
			index_close(idx, NoLock);
			return NULL;
		}
	}
	return idx;
}

/*
 * ApiTriggerFires
 *		Would the executor fire t now?  As the trigger manager decides it
 *		from tgenabled and session_replication_role.
 */
bool
ApiTriggerFires(const Trigger *t)
{
	if (SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA)
		return t->tgenabled == TRIGGER_FIRES_ALWAYS || t->tgenabled == TRIGGER_FIRES_ON_REPLICA;
	return t->tgenabled == TRIGGER_FIRES_ALWAYS || t->tgenabled == TRIGGER_FIRES_ON_ORIGIN;
}

/*
 * ApiOwnRowTrigger
 *		Is t exactly one of the extension's own row triggers -- named name,
 *		AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW, calling
 *		item_table.<function>() with nothing else (a WHEN clause, arguments,
 *		a column list, transition tables, deferral, a constraint) -- and
 *		would the executor fire it now?  Then a direct write may do its work
 *		in its place (the index trigger: GsiDirectTrigger; the stream
 *		trigger: ItemStreamDirectCaptureTrigger).  *fn keeps the function's
 *		OID, looked up again when t calls another.
 */
bool
ApiOwnRowTrigger(const Trigger *t, const char *name, const char *function, Oid *fn)
{
	if (strcmp(t->tgname, name) != 0 ||
		t->tgtype != (TRIGGER_TYPE_ROW | TRIGGER_TYPE_AFTER | TRIGGER_TYPE_INSERT |
					  TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE) ||
		t->tgqual != NULL || t->tgnargs != 0 || t->tgnattr != 0 ||
		t->tgoldtable != NULL || t->tgnewtable != NULL ||
		t->tgdeferrable || t->tginitdeferred || OidIsValid(t->tgconstraint) ||
		!ApiTriggerFires(t))
		return false;
	if (t->tgfoid != *fn)
		*fn = LookupFuncName(list_make2(makeString(ITEM_TABLE_SCHEMA),
										makeString(unconstify(char *, function))),
							 0, NULL, true);
	return t->tgfoid == *fn;
}
