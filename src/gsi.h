/*-------------------------------------------------------------------------
 *
 * gsi.h
 *		Secondary indexes (GSI, LSI, element indexes): entry computation,
 *		the trigger that keeps index tables current, locked index lookup
 *		and index-read rights.  The definitions are table_def.h's.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_GSI_H
#define ITEM_TABLE_GSI_H


#include "executor/spi.h"
#include "storage/lockdefs.h"

#include "attr_value.h"
#include "catalog.h"
#include "item_table.h"
#include "table_def.h"

/* one index row for one base item */
typedef struct IndexEntry
{
	ItemKey    *ikey;
	AttrValue  *projected;
} IndexEntry;

/*
 * An index of a base table (table_def.h), with the index table locked in
 * mode; NULL when there is no such index
 */
extern IndexDef *GsiFindLocked(Oid base_relid, const char *index_name, LOCKMODE mode);

/*
 * GsiEntries
 *		The index entries of item for idx.  A key attribute that is absent
 *		makes the item sparse (no entry).  One that is present but invalid
 *		(wrong type, empty, too long) raises DynamoDB's ValidationException
 *		when strict, unless old holds the very same value (DynamoDB only
 *		checks values a write touches); when not strict it is skipped.
 */
extern List *GsiEntries(ItemTableDef *def, IndexDef *idx, const AttrValue *item,
						const AttrValue *old, bool strict);

/* write one index row (upsert), with the rights GsiAsIndexOwner gave */
/* the entry of a GsiEntries list with index key ikey, or NULL */
extern IndexEntry *GsiFindEntry(List *entries, ItemKey *ikey);
extern void GsiIndexUpsert(IndexDef *idx, ItemKey *ikey, Datum basekey, Jsonb *item);
/* act as the owner of the index tables (the base table's owner) */
extern void GsiAsIndexOwner(Oid index_relid, ItemRoleSwitch *sw);

/*
 * ERROR unless the current user may read the indexes of a base table:
 * SELECT on it, and no row-level security applying to it (index tables
 * hold copies of items that policies cannot filter)
 */
extern void GsiCheckIndexRead(Oid base_relid, const char *table_name);

/* SQL-callable, gsi.c */
extern Datum item_table_index_trigger(PG_FUNCTION_ARGS);

#endif							/* ITEM_TABLE_GSI_H */
