/*-------------------------------------------------------------------------
 *
 * stored_item.h
 *		Checks of what readers find in item and index tables: XX001
 *		(data_corrupted) naming the table for a row that is not an item.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_STORED_ITEM_H
#define ITEM_TABLE_STORED_ITEM_H

#include "access/tupdesc.h"
#include "utils/jsonb.h"

#include "attr_value.h"
#include "compat.h"
#include "item_table.h"

pg_noreturn extern void StoredRaiseBadItem(const char *table, const char *index,
										  const ItemKey *key, Jsonb *item);
pg_noreturn extern void StoredRaiseNullKey(const char *table, const char *index);
extern void StoredCheckColumns(const char *table, const char *index,
								TupleDesc desc, int keycol, int itemcol);
extern void StoredCheckItem(const char *table, const char *index,
							   const ItemKey *key, Jsonb *item);
extern AttrValue *StoredParseItem(const char *table, const char *index,
									 const ItemKey *key, Datum d, bool isnull);
/* why j is not a DynamoDB item (NULL: it is one); the parser's words in *detail */
extern char *StoredNotItemSummary(Jsonb *j, char **detail);

#endif							/* ITEM_TABLE_STORED_ITEM_H */
