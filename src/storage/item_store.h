/*-------------------------------------------------------------------------
 *
 * item_store.h
 *		The one storage interface of an item table: how its items are
 *		fetched, inserted, replaced and deleted, how its Query and Scan
 *		pages are read and its expired items deleted.  Each definition
 *		carries its store (def->store), chosen once per version of the
 *		definition when it is loaded (the chooser, distributed.c); the API,
 *		Query, Time to Live and backfill code call the store and never ask
 *		what kind of table it is.
 *
 *		Two implementations: the local store (api_common.c: the direct
 *		paths with their statement fallbacks) and the distributed store
 *		(distributed.c: statements that carry the distribution column's
 *		equality, so they are routed to one shard).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_ITEM_STORE_H
#define ITEM_TABLE_ITEM_STORE_H

#include "executor/spi.h"

#include "item_table.h"
#include "table_def.h"

typedef struct ItemStore
{
	const char *name;

	/*
	 * May the direct paths (those that skip the executor: the locked probe,
	 * the direct and unlocked writes, the page scan of the primary key, the
	 * index rows written in place) run on its tables, each under its own
	 * checks?  false: every read and write is a statement of the store.
	 */
	bool		direct;

	/*
	 * Its rows are not in the table here (an empty shell): a statement that
	 * calls item_table's functions on them reads them here first.
	 */
	bool		remote_rows;

	/* item reads and writes, SPI connected */
	Jsonb	   *(*fetch) (ItemTableDef *def, ItemKey *key, bool lock);
	/* a new item by statement (ON CONFLICT DO NOTHING: false when key is taken) */
	bool		(*insert) (ItemTableDef *def, ItemKey *key, Jsonb *item);
	void		(*update) (ItemTableDef *def, ItemKey *key, Jsonb *item);
	void		(*remove) (ItemTableDef *def, ItemKey *key);
	/* an unconditional put by statement */
	void		(*upsert) (ItemTableDef *def, ItemKey *key, Jsonb *item);
	/* the next upsert is the only statement of its API call */
	void		(*write_alone) (ItemTableDef *def);

	/*
	 * The read statement of a Query or Scan page: the same parameters as the
	 * local statement's, args[0 .. *nargs - 1], which it may extend.  NULL:
	 * the local statements (query_page.c).
	 */
	SPIPlanPtr	(*read_plan) (ItemTableDef *def, IndexDef *idx, bool forward,
							  bool segment, const ItemKey *partition,
							  Datum *args, int *nargs);

	/*
	 * One Time to Live batch: up to max_items items that satisfy pick (on
	 * alias s) deleted, each checked against recheck (on alias b) on the row
	 * it deletes, with their index rows; both take $1 (text) and $2
	 * (timestamptz).  The number deleted.  NULL: the local batch (ttl.c).
	 */
	uint64		(*expire_batch) (ItemTableDef *def, const char *pick,
								 const char *recheck, Datum arg1, Datum arg2,
								 int max_items);
} ItemStore;

/* the local store (api_common.c), registered by _PG_init (module.c) */
extern void ItemStoreSetLocal(const ItemStore *store);
extern const ItemStore *ItemStoreLocal(void);

#endif							/* ITEM_TABLE_ITEM_STORE_H */
