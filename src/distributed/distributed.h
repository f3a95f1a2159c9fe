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

/*
 * module.c: the hook that refuses plain SQL writes to distributed tables,
 * and the chooser of a definition's store (table_def_store_chooser)
 */
extern void DistInit(void);

/* DeleteTable of a Citus table (false: not one) */
extern bool DistDropTable(Oid relid, const char *table_name);

/*
 * The plan of a prepared statement for these parameters, EXPLAIN (COSTS
 * OFF) as lines (each prefixed with indent); for Citus tables without the
 * workers' plans.  For the explain functions (api_query.c, explain_item).
 */
extern List *DistExplainPlan(SPIPlanPtr plan, Datum *args, int nargs, const char *indent);

/*
 * Was def's table distributed after def was read (the distribution column is
 * there, def's store is still the local one)?  The lock that orders it is
 * the caller's.
 */
extern bool DistStale(ItemTableDef *def);

/* UpdateTable: refuse a new index on a Citus table */
extern void DistCheckIndexCreate(ItemTableDef *def);

/* the partition-only key of a key (its distribution value) */
extern ItemKey *DistPartOf(const ItemKey *key);

#endif							/* ITEM_TABLE_DISTRIBUTED_H */
