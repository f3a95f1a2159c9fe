/*-------------------------------------------------------------------------
 *
 * table_def.h
 *		Definitions of item tables and their secondary indexes, as the
 *		catalog (item_table.tables, item_table.indexes) records them, cached
 *		per backend; and the keys a definition gives to items.
 *
 * Lifetimes (see table_def.c):
 *	- an ItemTableDef stays at its address for the rest of the session:
 *	  any number of them can be held at once, as batches do.  When the
 *	  catalog changes it is marked invalid and the next lookup refreshes it
 *	  in place.
 *	- what its fields point to (names, the index definitions, the plans)
 *	  is replaced by such a refresh, and the
 *	  replaced version stays readable until the end of the transaction in
 *	  which it was replaced.  So a pointer taken from a definition is good
 *	  for the rest of the current transaction, but never across a commit.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_TABLE_DEF_H
#define ITEM_TABLE_TABLE_DEF_H

#include "executor/spi.h"
#include "storage/itemptr.h"

#include "attr_value.h"
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

	/*
	 * A multi-attribute key schema (a GSI with more than one HASH or RANGE
	 * attribute; multi set): its nkeys attributes in KeySchema order, the
	 * first nhash of them HASH.  Its keys are tuple keys (item_table.h);
	 * hash_key and range_key are then the first HASH and RANGE attribute.
	 * A classic index has multi false and nkeys 0.
	 */
	bool		multi;
	int			nkeys;
	int			nhash;
	char	   *keys[ITEMKEY_MAX_TUPLE_PARTS];
	AttrType	key_types[ITEMKEY_MAX_TUPLE_PARTS];
	IndexProjection projection;
	int			nnonkey;
	char	  **nonkey;			/* INCLUDE attributes */
	bool		element;		/* one entry per member of the hash attribute */
	bool		creating;		/* status CREATING (being backfilled) */

	/*
	 * Plans on the index table, prepared by their users on first use (NULL
	 * until then) and freed with the version of the definition.  Row
	 * maintenance (gsi.c):
	 */
	SPIPlanPtr	plan_upsert;
	SPIPlanPtr	plan_delete;
	/* Query and Scan through the index (api_query.c) */
	SPIPlanPtr	plan_read_forward;
	SPIPlanPtr	plan_read_backward;
	SPIPlanPtr	plan_read_segment;

	/*
	 * Distributed (distribute_table(), distributed.c): the index table has the
	 * distribution column ipart, and these statements carry its equality.
	 */
	bool		distributed;
	SPIPlanPtr	plan_dist_upsert;
	SPIPlanPtr	plan_dist_delete;
	SPIPlanPtr	plan_dist_read_forward;
	SPIPlanPtr	plan_dist_read_backward;
	SPIPlanPtr	plan_dist_scan_forward;
	SPIPlanPtr	plan_dist_scan_backward;
	SPIPlanPtr	plan_dist_scan_segment;
} IndexDef;

typedef struct ItemTableDef
{
	char	   *name;			/* DynamoDB table name */
	Oid			relid;			/* physical table */
	char	   *hash_key;
	AttrType	hash_type;
	char	   *range_key;		/* NULL when hash-only */
	AttrType	range_type;
	int			nindexes;
	IndexDef   *indexes;		/* in index-name order */
	bool		valid;			/* cleared by relcache invalidation */

	/*
	 * The API's per-table plan cache: plans on the physical table, each
	 * prepared by TableDefPlan on first use (NULL until then) and freed
	 * with the version of the definition it was made for.  This module
	 * only frees them; their users own the SQL.  Item reads and writes
	 * (api_common.c; plan_upsert: api_item.c):
	 */
	SPIPlanPtr	plan_get;
	SPIPlanPtr	plan_get_lock;
	SPIPlanPtr	plan_insert;
	SPIPlanPtr	plan_update;
	SPIPlanPtr	plan_update_tid;
	SPIPlanPtr	plan_delete;
	SPIPlanPtr	plan_upsert;
	/* Query and Scan (api_query.c): read forward, backward, one segment */
	SPIPlanPtr	plan_read_forward;
	SPIPlanPtr	plan_read_backward;
	SPIPlanPtr	plan_read_segment;
	/* ItemCollectionMetrics: the size of a partition with its LSI entries */
	SPIPlanPtr	plan_collection_size;

	/*
	 * The store its items go through (item_store.h), chosen once per
	 * version of the definition (the chooser, distributed.c); distributed
	 * when the table was distributed by distribute_table() (it has the
	 * distribution column part).  The distributed store's statements carry
	 * the equality on part that routes them to one shard; they have their
	 * own slots.
	 */
	const struct ItemStore *store;
	bool		distributed;
	SPIPlanPtr	plan_dist_get;
	SPIPlanPtr	plan_dist_get_lock;
	SPIPlanPtr	plan_dist_insert;
	SPIPlanPtr	plan_dist_update;
	SPIPlanPtr	plan_dist_delete;
	SPIPlanPtr	plan_dist_delete_returning;
	SPIPlanPtr	plan_dist_upsert;
	SPIPlanPtr	plan_dist_read_forward;
	SPIPlanPtr	plan_dist_read_backward;
	SPIPlanPtr	plan_dist_scan_forward;
	SPIPlanPtr	plan_dist_scan_backward;
	SPIPlanPtr	plan_dist_scan_segment;
	/* the item DistFetchItem(lock) read last (in cxt), with locked_key */
	Jsonb	   *dist_locked_item;

	/*
	 * The row version the API's direct ApiFetchItem(lock) locked last: a
	 * copy of its key (in cxt) and its tuple id, a hint that the next
	 * ApiUpdateItem of the same key uses (compared by key bytes; the UPDATE
	 * still checks the key).  Cleared by a refresh.  With it, who locked
	 * it and when: the top transaction, the subtransaction and the command
	 * id; while all three are unchanged the lock is held and nothing has
	 * written since, so ApiUpdateItem may update that version directly.
	 */
	ItemKey    *locked_key;
	ItemPointerData locked_tid;
	TransactionId locked_xid;
	SubTransactionId locked_subid;
	CommandId	locked_cid;

	/* memory that lasts as long as this version of the definition */
	MemoryContext cxt;
	struct TableDefVersion *version;	/* private to table_def.c */
} ItemTableDef;

/*
 * The definition of table name; ResourceNotFoundException when the catalog
 * has no such table or its physical table is gone.  SPI need not be
 * connected.
 */
/*
 * The chooser of a definition's store (item_store.h), called once per
 * version of the definition while it is read (SPI connected): it sets
 * def->store, def->distributed and each index's distributed.  Set when the
 * module is loaded (DistInit, distributed.c).
 */
typedef void (*TableDefStoreChooser) (ItemTableDef *def);
extern TableDefStoreChooser table_def_store_chooser;

/* the distribution columns distribute_table() adds (distributed.c) */
#define DIST_TABLE_COLUMN	"part"
#define DIST_INDEX_COLUMN	"ipart"

extern ItemTableDef *TableDefLookup(const char *name);
/* the same by physical table; NULL when relid is not an item table */
extern ItemTableDef *TableDefByRelid(Oid relid);
/* the index of def named index_name, or NULL */
extern IndexDef *TableDefFindIndex(ItemTableDef *def, const char *index_name);
/* mark the definition of name stale (the table was just deleted or made) */
extern void TableDefForget(const char *name);

/*
 * The plan in *slot (one of def's plan_* fields), prepared from sql_template (one
 * %s: the physical table's qualified name) on first use and kept;
 * ResourceNotFoundException when the physical table is gone.  The Opts
 * form prepares with SPI_prepare_cursor() and these CURSOR_OPT_* options.
 */
extern SPIPlanPtr TableDefPlan(ItemTableDef *def, SPIPlanPtr *slot,
							   const char *sql_template, int nargs, Oid *argtypes);
extern SPIPlanPtr TableDefPlanOpts(ItemTableDef *def, SPIPlanPtr *slot,
								   const char *sql_template, int nargs,
								   Oid *argtypes, int cursor_options);

/* ---- keys of items (ValidationException with DynamoDB's texts) ---- */

/* the item_key of an item (key attributes missing, mistyped, empty, too long) */
extern ItemKey *TableDefKeyFromItem(ItemTableDef *def, const AttrValue *item);
/* the item_key of a Key parameter (exactly the key attributes) */
extern ItemKey *TableDefKeyFromKeyParam(ItemTableDef *def, const AttrValue *key);
/* the key attributes of an item as a new map */
extern AttrValue *TableDefKeyAttributes(ItemTableDef *def, const AttrValue *item);

#endif							/* ITEM_TABLE_TABLE_DEF_H */
