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
#include "utils/reltrigger.h"

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

/* the entry of a GsiEntries list with index key ikey, or NULL */
extern IndexEntry *GsiFindEntry(List *entries, ItemKey *ikey);

/*
 * The writer of one index table's rows: the index row trigger's and the
 * local direct writes' (gsi.c: direct, or by statement, as the index owner)
 * or the distributed store's (distributed.c: routed statements, as the
 * caller).  open (may be NULL) runs before the first row written, close
 * (may be NULL) after the last; exists: the row of (ikey, basekey) is
 * there (the old item had the entry).
 */
typedef struct GsiIndexWriter
{
	void		(*open) (void *arg, IndexDef *idx);
	void		(*remove) (void *arg, IndexDef *idx, ItemKey *ikey, Datum basekey);
	void		(*upsert) (void *arg, IndexDef *idx, ItemKey *ikey, Datum basekey,
						   Jsonb *item, bool exists);
	void		(*close) (void *arg);
} GsiIndexWriter;

/*
 * GsiSyncIndex
 *		The one index upkeep: bring idx from the entries of olditem (of
 *		oldkey) to those of newitem (of newkey), either NULL, through w.
 *		same_key: the two keys are equal (an entry of both is kept or
 *		replaced, not deleted).  newj is the stored new item when it is
 *		exactly what AttrItemToJsonb would make of newitem (an ALL projection
 *		then writes it as it is), else NULL.
 */
extern void GsiSyncIndex(ItemTableDef *def, IndexDef *idx,
						 Datum oldkey, const AttrValue *olditem,
						 Datum newkey, const AttrValue *newitem, Jsonb *newj,
						 bool same_key, const GsiIndexWriter *w, void *arg);
/*
 * write one index row by the statement (INSERT ... ON CONFLICT DO UPDATE),
 * with the rights GsiAsIndexOwner gave; SPI connected
 */
extern void GsiIndexUpsert(IndexDef *idx, ItemKey *ikey, Datum basekey, Jsonb *item);
/* act as the owner of the index tables (the base table's owner) */
extern void GsiAsIndexOwner(Oid index_relid, ItemRoleSwitch *sw);

/* a write's index key attribute of another type than the index's (ERROR) */
pg_noreturn extern void GsiTypeMismatch(const char *attr, const char *expected,
										const char *actual, const char *index);

/*
 * ERROR unless the current user may read the indexes of a base table:
 * SELECT on it, and no row-level security applying to it (index tables
 * hold copies of items that policies cannot filter)
 */
extern void GsiCheckIndexRead(Oid base_relid, const char *table_name);

/*
 * Direct writes of the base table (api_common.c) stand in for the index
 * row trigger: GsiDirectTrigger says whether t is that trigger, as
 * api_index.c made it and firing now; GsiSyncDirect then does what it
 * would do for a row just inserted (oldkey 0), updated, or deleted (newkey
 * 0), as the index owner, index rows written directly where the
 * statements could not differ.  SPI connected.
 */
#define GSI_ROW_TRIGGER_NAME "item_table_indexes"
extern bool GsiDirectTrigger(const Trigger *t);
extern void GsiSyncDirect(Relation rel, Datum oldkey, Datum olditem, bool oldnull,
						  Datum newkey, Datum newitem, bool newnull);

/*
 * Bulk loads (ImportTable): while on, the writes of the item table relid
 * check their index entries but write no index rows; GsiBulkBuild then
 * fills the index tables from the items in one pass and REINDEXes them.
 * Only for a table whose index tables are new in the transaction and
 * empty; the caller turns the mode off on every exit (PG_FINALLY).
 */
extern void GsiBulkLoadBegin(Oid relid);
extern void GsiBulkLoadEnd(void);
extern int64 GsiBulkBuild(Oid relid);

/* SQL-callable, gsi.c */
extern Datum item_table_index_trigger(PG_FUNCTION_ARGS);

#endif							/* ITEM_TABLE_GSI_H */
