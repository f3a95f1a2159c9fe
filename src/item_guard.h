/*-------------------------------------------------------------------------
 *
 * item_guard.h
 *		The item guard (a row trigger validating what plain SQL writes to an
 *		item table) and the DDL guard (an event trigger refusing changes to
 *		an item table's shape); see item_guard.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_ITEM_GUARD_H
#define ITEM_TABLE_ITEM_GUARD_H

#include "fmgr.h"

/* the name of the guard trigger on every base table */
#define ITEM_GUARD_TRIGGER	"zz_item_guard"

/* create the guard trigger on a new base table (CreateTable) */
extern void ItemGuardInstall(Oid relid);

/* SQL-callable */
extern Datum item_table_item_guard(PG_FUNCTION_ARGS);
extern Datum item_table_ddl_guard(PG_FUNCTION_ARGS);

#endif							/* ITEM_TABLE_ITEM_GUARD_H */
