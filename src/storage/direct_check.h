/*-------------------------------------------------------------------------
 *
 * direct_check.h
 *		Where a direct path (one that skips the executor) may run: the
 *		caller's rights and the table's shape, for every such path
 *		(direct_check.c's essay states the rule).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_DIRECT_CHECK_H
#define ITEM_TABLE_DIRECT_CHECK_H

#include "nodes/parsenodes.h"
#include "storage/lockdefs.h"
#include "utils/reltrigger.h"
#include "utils/relcache.h"

/*
 * ApiDirectRights: may role (InvalidOid: the current user) do directly what
 * a statement needing every right of need on relid would do?
 * ApiDirectShape: is rel the plain item table (or, with
 * API_SHAPE_INDEX_TABLE, index table) the direct paths know?  Its primary
 * key, opened with lockmode, or NULL.
 */
#define API_SHAPE_WRITE			0x01	/* rows are written: no rules, CHECK,
										 * generated column, partition; the
										 * primary key is the only index */
#define API_SHAPE_ONLY_COLUMNS	0x02	/* no other live column */
#define API_SHAPE_INDEX_TABLE	0x04	/* (ikey, key, item), key (ikey, key) */

extern bool ApiDirectRights(Oid relid, Oid role, AclMode need);
/*
 * ApiTriggerFires: would the executor fire the enabled trigger t now (its
 * enabled state against session_replication_role)?
 * ApiOwnRowTrigger: is t, by name, exactly the AFTER INSERT OR UPDATE OR
 * DELETE FOR EACH ROW trigger the extension makes calling
 * item_table.<function>() (no WHEN, arguments, columns, transition tables,
 * deferral or constraint), and would it fire now?  *fn caches the
 * function's OID between calls.
 */
extern bool ApiTriggerFires(const Trigger *t);
extern bool ApiOwnRowTrigger(const Trigger *t, const char *name, const char *function,
							 Oid *fn);
extern Relation ApiDirectShape(Relation rel, int flags, LOCKMODE lockmode);

#endif							/* ITEM_TABLE_DIRECT_CHECK_H */
