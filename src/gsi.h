/*-------------------------------------------------------------------------
 *
 * gsi.h
 *		Secondary indexes (GSI, LSI, element indexes): definitions, entry
 *		computation, and the trigger that keeps index tables current.
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

typedef enum IndexProjection
{
	PROJ_ALL = 0,
	PROJ_KEYS_ONLY,
	PROJ_INCLUDE
} IndexProjection;

typedef struct IndexDef
{
	char	   *name;
	bool		is_local;		/* LSI */
	Oid			relid;			/* the index table */
	char	   *hash_key;
	AttrType	hash_type;
	char	   *range_key;		/* NULL when hash-only */
	AttrType	range_type;
	IndexProjection projection;
	int			nnonkey;
	char	  **nonkey;			/* INCLUDE attributes */
	bool		element;		/* one entry per member of the hash attribute */
	bool		creating;		/* status CREATING (being backfilled) */
	SPIPlanPtr	plan_upsert;
	SPIPlanPtr	plan_delete;
	SPIPlanPtr	plan_read_forward;	/* Query/Scan plans on the index table */
	SPIPlanPtr	plan_read_backward;
	SPIPlanPtr	plan_read_segment;
} IndexDef;

typedef struct TableIndexes
{
	Oid			base_relid;
	char	   *table_name;
	char	   *hash_key;
	AttrType	hash_type;
	char	   *range_key;
	AttrType	range_type;
	int			nindexes;
	IndexDef   *indexes;
	bool		valid;
	MemoryContext cxt;
} TableIndexes;

/* one index row for one base item */
typedef struct IndexEntry
{
	ItemKey    *ikey;
	AttrValue  *projected;
} IndexEntry;

/* the index definitions of a base table (NULL when it has none); cached */
extern TableIndexes *GsiLoad(Oid base_relid);
extern IndexDef *GsiFind(TableIndexes *t, const char *index_name);
/* the same, with the index table locked in mode (NULL: no such index) */
extern IndexDef *GsiFindLocked(Oid base_relid, const char *index_name, LOCKMODE mode);

/*
 * GsiEntries
 *		The index entries of item for idx.  A key attribute that is absent
 *		makes the item sparse (no entry).  One that is present but invalid
 *		(wrong type, empty, too long) raises DynamoDB's ValidationException
 *		when strict, unless old holds the very same value (DynamoDB only
 *		checks values a write touches); when not strict it is skipped.
 */
extern List *GsiEntries(TableIndexes *t, IndexDef *idx, const AttrValue *item,
						const AttrValue *old, bool strict);

/* write one index row (upsert), with the rights GsiAsIndexOwner gave */
extern void GsiIndexUpsert(IndexDef *idx, ItemKey *ikey, Datum basekey, Jsonb *item);
/* act as the owner of the index tables (the base table's owner) */
extern void GsiAsIndexOwner(Oid index_relid, ItemRoleSwitch *sw);

/* the qualified, quoted name of a relation, for plan text */
extern char *ItemQualifiedName(Oid relid);

/*
 * ERROR unless the current user may read the indexes of a base table:
 * SELECT on it, and no row-level security applying to it (index tables
 * hold copies of items that policies cannot filter)
 */
extern void GsiCheckIndexRead(Oid base_relid, const char *table_name);

#endif							/* ITEM_TABLE_GSI_H */
