/*-------------------------------------------------------------------------
 *
 * compat.h
 *		Every PG_VERSION_NUM test of item_table lives here.
 *
 * The code is written against the newest server API; older names are
 * back-filled below so that the rest of the tree never tests versions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_COMPAT_H
#define ITEM_TABLE_COMPAT_H


#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#include "nodes/miscnodes.h"
#endif

/*
 * Soft errors (PostgreSQL 16+).  Before 16 there is no ErrorSaveContext:
 * ereturn() degrades to a hard ereport() and the escontext argument of an
 * input function is ignored.
 */
#if PG_VERSION_NUM < 160000
#define ereturn(context, dummy_value, ...) \
	do { \
		(void) (context); \
		ereport(ERROR, __VA_ARGS__); \
		return dummy_value; \
	} while (0)
#define errsave(context, ...) \
	do { \
		(void) (context); \
		ereport(ERROR, __VA_ARGS__); \
	} while (0)
#define SOFT_ERROR_OCCURRED(escontext) false
#endif

/*
 * Ownership checks: object_ownercheck() replaced the per-class functions in
 * PostgreSQL 16.
 */
#if PG_VERSION_NUM < 160000
#include "utils/acl.h"
#define ItemRelOwnerCheck(relid, roleid) pg_class_ownercheck((relid), (roleid))
#else
#include "catalog/pg_class.h"
#include "utils/acl.h"
#define ItemRelOwnerCheck(relid, roleid) object_ownercheck(RelationRelationId, (relid), (roleid))
#endif

/*
 * Privileges on a function and on a schema (stream consumers):
 * object_aclcheck() replaced the per-class functions in PostgreSQL 16.
 */
#if PG_VERSION_NUM < 160000
#include "utils/acl.h"
#define ItemProcAclCheck(fn, roleid, mode) pg_proc_aclcheck((fn), (roleid), (mode))
#define ItemNamespaceAclCheck(nsp, roleid, mode) pg_namespace_aclcheck((nsp), (roleid), (mode))
#else
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "utils/acl.h"
#define ItemProcAclCheck(fn, roleid, mode) \
	object_aclcheck(ProcedureRelationId, (fn), (roleid), (mode))
#define ItemNamespaceAclCheck(nsp, roleid, mode) \
	object_aclcheck(NamespaceRelationId, (nsp), (roleid), (mode))
#endif

/*
 * A table's privileges without an error for a relation that is gone
 * (direct_check.c): pg_class_aclmask_ext() is exported up to PostgreSQL 15
 * only; from 16 on the relation's existence is looked up first.
 */
#if PG_VERSION_NUM < 160000
#include "utils/acl.h"
#define ItemClassAclMask(relid, roleid, mask, how, is_missing) \
	pg_class_aclmask_ext((relid), (roleid), (mask), (how), (is_missing))
#else
#include "utils/acl.h"
#include "utils/syscache.h"
static inline AclMode
ItemClassAclMask(Oid relid, Oid roleid, AclMode mask, AclMaskHow how, bool *is_missing)
{
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
	{
		*is_missing = true;
		return 0;
	}
	return pg_class_aclmask(relid, roleid, mask, how);
}
#endif

/*
 * ExplainState and NewExplainState() moved to their own header in
 * PostgreSQL 18 (api_query.c explains its plans).
 */
#if PG_VERSION_NUM >= 180000
#include "commands/explain_state.h"
#endif

/*
 * index_beginscan() takes an instrumentation argument from PostgreSQL 18.
 */
#if PG_VERSION_NUM >= 180000
#define ItemIndexBeginScan(heap, index, snapshot, nkeys) \
	index_beginscan((heap), (index), (snapshot), NULL, (nkeys), 0)
#else
#define ItemIndexBeginScan(heap, index, snapshot, nkeys) \
	index_beginscan((heap), (index), (snapshot), (nkeys), 0)
#endif

/*
 * vacuum_delay_point() says whether it is called from ANALYZE from
 * PostgreSQL 18 (item_key_analyze calls it per sampled row).
 */
#if PG_VERSION_NUM >= 180000
#define ItemAnalyzeDelayPoint() vacuum_delay_point(true)
#else
#define ItemAnalyzeDelayPoint() vacuum_delay_point()
#endif

/*
 * What table_tuple_update() says about index entries: a bool before
 * PostgreSQL 16, TU_UpdateIndexes since (TU_Summarizing: only summarizing
 * indexes, which item tables' btree primary keys are not).
 */
#include "access/tableam.h"
#if PG_VERSION_NUM >= 160000
typedef TU_UpdateIndexes ItemUpdateIndexes;
#define ItemUpdateNeedsIndexInsert(u) ((u) == TU_All)
#else
typedef bool ItemUpdateIndexes;
#define ItemUpdateNeedsIndexInsert(u) (u)
#endif

/*
 * ExecInsertIndexTuples() took onlySummarizing (only the summarizing
 * indexes of a HOT update) from PostgreSQL 16; an insert passes false.
 */
#include "executor/executor.h"
#if PG_VERSION_NUM >= 160000
#define ItemExecInsertIndexTuples(rri, slot, estate, update, nodup, specconflict, arbiters) \
	ExecInsertIndexTuples((rri), (slot), (estate), (update), (nodup), (specconflict), (arbiters), false)
#else
#define ItemExecInsertIndexTuples(rri, slot, estate, update, nodup, specconflict, arbiters) \
	ExecInsertIndexTuples((rri), (slot), (estate), (update), (nodup), (specconflict), (arbiters))
#endif

/*
 * May a role take another's identity with SET ROLE?  Before PostgreSQL 16
 * any membership allowed it (inherited or not); from 16 on it is the SET
 * option of the grant (item_table.dynamodb_as, gateway_call.c).
 */
#include "utils/acl.h"
#if PG_VERSION_NUM >= 160000
#define ItemMayBecomeRole(member, role) member_can_set_role((member), (role))
#else
#define ItemMayBecomeRole(member, role) is_member_of_role((member), (role))
#endif

/*
 * A backend's place among the MaxBackends regular backends, the local id of
 * its transaction, the virtual transaction of a lock's holder, and the
 * shared transaction counters (stream_number.c, stream.c): PostgreSQL 17
 * numbered procs from 0 (ProcNumber) where backend ids counted from 1, moved
 * a proc's lxid into its vxid, and renamed ShmemVariableCache.
 */
#include "access/transam.h"
#include "storage/lock.h"
#include "storage/proc.h"
#if PG_VERSION_NUM >= 170000
#define ItemMyBackendSlot() ((int) MyProcNumber)
#define ItemMyLocalXid() (MyProc->vxid.lxid)
#define ItemLockHolderVxid(l) ((l)->vxid)
#define ItemTransamVariables TransamVariables
#else
#include "storage/backendid.h"
#define ItemMyBackendSlot() ((int) MyBackendId - 1)
#define ItemMyLocalXid() (MyProc->lxid)
static inline VirtualTransactionId
ItemLockHolderVxid(const LockInstanceData *l)
{
	VirtualTransactionId vxid;

	vxid.backendId = l->backend;
	vxid.localTransactionId = l->lxid;
	return vxid;
}
#define ItemTransamVariables ShmemVariableCache
#endif

/*
 * A function that does not return: PostgreSQL 18 marks it with the
 * pg_noreturn prefix and dropped the pg_attribute_noreturn() suffix.
 */
#ifndef pg_noreturn
#define pg_noreturn __attribute__((noreturn))
#endif

/*
 * A relation's primary key: PostgreSQL 18 asks whether a deferrable one
 * counts (item_guard.c checks the key of an item table, never deferrable).
 */
#include "utils/relcache.h"
#if PG_VERSION_NUM >= 180000
#define ItemRelationGetPrimaryKeyIndex(rel) RelationGetPrimaryKeyIndex((rel), false)
#else
#define ItemRelationGetPrimaryKeyIndex(rel) RelationGetPrimaryKeyIndex(rel)
#endif

/*
 * The pre-check of a speculative insert: PostgreSQL 18 takes the tid of the
 * row being updated, to be skipped (none for an insert).
 */
#if PG_VERSION_NUM >= 180000
#define ItemExecCheckIndexConstraints(rri, slot, estate, conflict, arbiters) \
	ExecCheckIndexConstraints((rri), (slot), (estate), (conflict), NULL, (arbiters))
#else
#define ItemExecCheckIndexConstraints(rri, slot, estate, conflict, arbiters) \
	ExecCheckIndexConstraints((rri), (slot), (estate), (conflict), (arbiters))
#endif

#endif							/* ITEM_TABLE_COMPAT_H */
