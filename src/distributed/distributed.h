/*-------------------------------------------------------------------------
 *
 * distributed.h
 *		Item tables distributed with Citus: detection, the statement
 *		variants that carry the partition-column equality, index upkeep by
 *		the API (see distributed.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_DISTRIBUTED_H
#define ITEM_TABLE_DISTRIBUTED_H

#include "executor/spi.h"

#include "item_table.h"
#include "table_def.h"

/* the distribution columns distribute_table() adds */
#define DIST_TABLE_COLUMN	"part"
#define DIST_INDEX_COLUMN	"ipart"

/* module.c: the hook that refuses plain SQL writes to distributed tables */
extern void DistInit(void);

/* table_def.c, while reading a definition (SPI connected): set def->citus etc. */
extern void DistDetect(ItemTableDef *def);

/* DeleteTable of a Citus table (false: not one) */
extern bool DistDropTable(Oid relid, const char *table_name);

/* item reads and writes of a Citus table (def->citus), SPI connected */
extern Jsonb *DistFetchItem(ItemTableDef *def, ItemKey *key, bool lock);
extern bool DistInsertItem(ItemTableDef *def, ItemKey *key, Jsonb *item);
extern void DistUpdateItem(ItemTableDef *def, ItemKey *key, Jsonb *item);
extern void DistDeleteItem(ItemTableDef *def, ItemKey *key);
extern void DistUpsertItem(ItemTableDef *def, ItemKey *key, Jsonb *item);

/*
 * The read statement of a Citus table or index (query_page.c): the same
 * parameters as the plain statement's, args[0 .. *nargs - 1]; for a Query
 * (partition given) the partition-only key is appended, which routes it to
 * one shard.
 */
extern SPIPlanPtr DistReadPlan(ItemTableDef *def, IndexDef *idx, bool forward,
							   bool segment, const ItemKey *partition,
							   Datum *args, int *nargs);

/*
 * The plan of a prepared statement for these parameters, EXPLAIN (COSTS
 * OFF) as lines (each prefixed with indent); for Citus tables without the
 * workers' plans.  For the explain functions (api_query.c, explain_item).
 */
extern List *DistExplainPlan(SPIPlanPtr plan, Datum *args, int nargs, const char *indent);

/*
 * The next DistUpsertItem is the only statement of its API call (PutItem
 * without condition): without indexes and outside a transaction block it
 * needs no transaction block on the worker.  Any other write clears it.
 */
extern void DistNextWriteAlone(ItemTableDef *def);

/*
 * One Time to Live batch on a Citus table (ttl.c): up to max_items items
 * that satisfy pick (on alias s) are deleted one by one, each by a statement
 * routed to its shard that checks recheck (on alias b) again on the row it
 * deletes, with their index rows.  Both conditions take $1 (text) and $2
 * (timestamptz).  The number deleted.  SPI connected, as the table owner.
 */
extern uint64 DistExpireBatch(ItemTableDef *def, const char *pick, const char *recheck,
							  Datum arg1, Datum arg2, int max_items);

/* UpdateTable: refuse a new index on a Citus table */
extern void DistCheckIndexCreate(ItemTableDef *def);

/* the partition-only key of a key (its distribution value) */
extern ItemKey *DistPartOf(const ItemKey *key);

#endif							/* ITEM_TABLE_DISTRIBUTED_H */
