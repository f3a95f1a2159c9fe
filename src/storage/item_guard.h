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

#include "item_table.h"

/* the name of the guard trigger on every base table */
#define ITEM_GUARD_TRIGGER	"zz_item_guard"

/* create the guard trigger on a new base table (CreateTable) */
extern void ItemGuardInstall(Oid relid);

/*
 * The row the API is about to write to relid, validated already: the guard
 * lets exactly these key and item bytes through unchecked.  key and item
 * must stay valid until ItemGuardExpectNoWrite().
 */
extern void ItemGuardExpectWrite(Oid relid, const ItemKey *key, const Jsonb *item);
extern void ItemGuardExpectNoWrite(void);

/* SQL-callable */
extern Datum item_table_item_guard(PG_FUNCTION_ARGS);
extern Datum item_table_ddl_guard(PG_FUNCTION_ARGS);

#endif							/* ITEM_TABLE_ITEM_GUARD_H */
