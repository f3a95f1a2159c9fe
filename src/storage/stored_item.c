/*-------------------------------------------------------------------------
 *
 * stored_item.c
 *		Stored rows that are not what the API writes.
 *
 * Every row of an item table was written by the API or passed the item
 * guard, and DDL that would change a table's columns or key is refused
 * (item_guard.c); only a superuser gets past both (for instance with
 * session_replication_role = replica).  So readers do not trust the bytes
 * blindly either: they test for NULL, check the column types of what a
 * statement returned, and let AttrStoredItemSize or the parser check the
 * item, raising XX001 (data_corrupted) that names the table instead of
 * reading a NULL or a foreign layout as an item.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "catalog.h"
#include "errors.h"
#include "stored_item.h"

/* "item table "t"" or "index "i" of item table "t"" */
static char *
stored_owner(const char *table, const char *index)
{
	if (index != NULL)
		return psprintf("index \"%s\" of item table \"%s\"", index, table);
	return psprintf("item table \"%s\"", table);
}

/*
 * parse_problem
 *		DynamoDB's message (without the exception name) when the parser
 *		refuses the attribute value v (item NULL) or the item, else NULL.
 */
static char *
parse_problem(JsonbValue *v, Jsonb *item)
{
	MemoryContext cxt = CurrentMemoryContext;
	char	   *volatile msg = NULL;

	PG_TRY();
	{
		if (item != NULL)
			(void) AttrItemFromJsonb(item);
		else
			(void) AttrValueFromJsonb(v, 1);
	}
	PG_CATCH();
	{
		msg = DynCaughtMessage(cxt);
	}
	PG_END_TRY();
	return msg;
}

/*
 * StoredNotItemSummary
 *		Why j is not a DynamoDB item, for a message: "not a JSON object",
 *		"attribute "a" is invalid" (with the parser's message in *detail),
 *		...; NULL when the parser accepts it.  Parses attribute by
 *		attribute: for error paths only.
 */
char *
StoredNotItemSummary(Jsonb *j, char **detail)
{
	JsonbIterator *it;
	JsonbValue	k;
	JsonbValue	v;
	JsonbIteratorToken tok;

	*detail = NULL;
	if (!JB_ROOT_IS_OBJECT(j) || JB_ROOT_IS_SCALAR(j))
		return pstrdup("not a JSON object");
	it = JsonbIteratorInit(&j->root);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(&it, &v, true);
		*detail = parse_problem(&v, NULL);
		if (*detail != NULL)
			return psprintf("attribute \"%s\" is invalid",
							pnstrdup(k.val.string.val, k.val.string.len));
	}
	*detail = parse_problem(NULL, j);
	if (*detail != NULL)
		return pstrdup("an attribute name is invalid");
	return NULL;
}

/*
 * StoredRaiseBadItem
 *		XX001 for a stored row of table (or of its index) holding a NULL
 *		item (item == NULL) or one that is not a DynamoDB item; key, if
 *		known, goes into the detail.
 */
void
StoredRaiseBadItem(const char *table, const char *index, const ItemKey *key,
					  Jsonb *item)
{
	char	   *owner = stored_owner(table, index);
	char	   *summary = NULL;
	char	   *why = NULL;
	StringInfoData detail;

	initStringInfo(&detail);
	if (key != NULL)
		appendStringInfo(&detail, "The row's key is %s.", ItemKeyToText(key));
	if (item != NULL)
	{
		summary = StoredNotItemSummary(item, &why);
		if (why != NULL)
			appendStringInfo(&detail, "%s%s.", detail.len > 0 ? " " : "", why);
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 item == NULL ?
			 errmsg("%s holds a NULL item", owner) :
			 errmsg("%s holds an item that is not a DynamoDB item: %s", owner,
					summary ? summary : "its layout is not that of an item"),
			 detail.len > 0 ? errdetail_internal("%s", detail.data) : 0,
			 errhint("Such a row can only be written past the item_table triggers; a superuser can repair it, then check the indexes with item_table.verify().")));
	pg_unreachable();
}

/* XX001 for a stored row with a NULL key */
void
StoredRaiseNullKey(const char *table, const char *index)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("%s holds a NULL key", stored_owner(table, index))));
	pg_unreachable();
}

/*
 * StoredCheckColumns
 *		XX001 unless column keycol (0: none) of what a statement read is an
 *		item_key and column itemcol a jsonb.
 */
void
StoredCheckColumns(const char *table, const char *index, TupleDesc desc,
					int keycol, int itemcol)
{
	if ((keycol > 0 && SPI_gettypeid(desc, keycol) != ItemKeyTypeOid()) ||
		SPI_gettypeid(desc, itemcol) != JSONBOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s does not have its columns key item_key and item jsonb",
						stored_owner(table, index))));
}

/* item, read from table, as it is; XX001 unless it is laid out as an item */
void
StoredCheckItem(const char *table, const char *index, const ItemKey *key,
				   Jsonb *item)
{
	if (AttrStoredItemSize(item) < 0)
		StoredRaiseBadItem(table, index, key, item);
}

/*
 * StoredParseItem
 *		The item value d (isnull: NULL) read from table, parsed; XX001 when
 *		it is NULL or the parser refuses it.
 */
AttrValue *
StoredParseItem(const char *table, const char *index, const ItemKey *key,
				   Datum d, bool isnull)
{
	MemoryContext cxt = CurrentMemoryContext;
	Jsonb	   *j;
	AttrValue  *volatile item = NULL;

	if (isnull)
		StoredRaiseBadItem(table, index, key, NULL);
	j = DatumGetJsonbP(d);
	PG_TRY();
	{
		item = AttrItemFromJsonb(j);
	}
	PG_CATCH();
	{
		(void) DynCaughtMessage(cxt);
	}
	PG_END_TRY();
	if (item == NULL)
		StoredRaiseBadItem(table, index, key, j);
	return item;
}

