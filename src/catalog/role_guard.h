/*-------------------------------------------------------------------------
 *
 * role_guard.h
 *		The roles of access keys and stream consumers: their anchor grant,
 *		DROP ROLE and DROP OWNED, and rows whose role is gone.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_ROLE_GUARD_H
#define ITEM_TABLE_ROLE_GUARD_H

#include "fmgr.h"

/* the type whose USAGE grant anchors a role's keys and consumers */
#define ROLE_GUARD_ANCHOR	"role_of_access_keys_or_consumers"

extern void RoleGuardInit(void);
extern bool RoleGuardHolds(Oid role);
extern int64 RoleGuardSweep(void);

extern Datum item_table_role_guard_trigger(PG_FUNCTION_ARGS);

#endif							/* ITEM_TABLE_ROLE_GUARD_H */
