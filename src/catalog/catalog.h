/*-------------------------------------------------------------------------
 *
 * catalog.h
 *		Acting with another role's rights, physical names of item tables and
 *		index tables, and utility statements run from parse trees.
 *
 * This is the layer under both the API and the index trigger: anything
 * that runs with rights other than the caller's goes through
 * ItemAsRoleBegin/ItemAsRoleEnd, which is what makes it immune to the
 * caller's search_path (see catalog.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_CATALOG_H
#define ITEM_TABLE_CATALOG_H

#include "fmgr.h"
#include "nodes/nodes.h"

#define ITEM_TABLE_SCHEMA	"item_table"
#define ITEM_DATA_SCHEMA	"item_data"

/* the search_path in force while another role's rights are held */
#define ITEM_SAFE_SEARCH_PATH	"pg_catalog, pg_temp"

/*
 * A role switch in progress.  Begin and End must pair in one function;
 * an error in between is undone by transaction (or subtransaction) abort,
 * which restores the user id, the security context and the GUC nest level.
 */
typedef struct ItemRoleSwitch
{
	Oid			save_userid;
	int			save_sec_context;
	int			nestlevel;
} ItemRoleSwitch;

/* run as role: search_path pinned, security-restricted; extra_sec_flags
 * are further SECURITY_* bits (e.g. SECURITY_NOFORCE_RLS) */
extern void ItemAsRoleBegin(ItemRoleSwitch *sw, Oid role, int extra_sec_flags);
extern void ItemAsRoleEnd(ItemRoleSwitch *sw);

/* the OID of type item_table.item_key */
extern Oid	ItemKeyTypeOid(void);
extern void ItemKeyTypeOidReset(void);

/* the owner of the extension's catalog (item_table.tables) */
extern Oid	ItemCatalogOwner(void);
extern void ItemAsCatalogOwnerBegin(ItemRoleSwitch *sw);

/* the owner of a relation; ERROR if it does not exist */
extern Oid	ItemRelationOwner(Oid relid);
/* ERROR (42501, as ALTER TABLE gives) unless the current user owns relid */
extern void ItemCheckOwner(Oid relid);

/*
 * Physical names in schema item_data.  DynamoDB names use only
 * [A-Za-z0-9_.-], so the characters '#' and '~' keep the four kinds of
 * name apart: a table "t", a long table "<54 chars>~<md5>", an index
 * "t#i", a long index "<53 chars>#~<md5>".
 */
extern char *ItemPhysicalTableName(const char *table);
extern char *ItemPhysicalIndexName(const char *table, const char *index);

/* the qualified, quoted name of a relation, for plan text; ERROR if gone */
extern char *ItemQualifiedName(Oid relid);

/* SPI_prepare_cursor() a statement and keep the plan; ERROR on failure */
extern struct _SPI_plan *ItemPrepareKept(const char *sql, int nargs, Oid *argtypes,
										 int cursor_options);

/* execute a utility statement parse tree as the current user */
extern void ItemRunUtility(Node *stmt, const char *description);

/* the sql_drop clean-up of the catalog held off while a caller replaces tables */
extern void ItemHoldDropCleanup(bool hold);

/* SQL-callable, catalog.c */
extern Datum item_table_on_sql_drop(PG_FUNCTION_ARGS);
/* SQL-callable, bucket.c: buckets (server directories for files) */
extern Datum item_table_create_bucket(PG_FUNCTION_ARGS);
extern Datum item_table_bucket_path(PG_FUNCTION_ARGS);
extern Datum item_table_list_buckets(PG_FUNCTION_ARGS);

#endif							/* ITEM_TABLE_CATALOG_H */
