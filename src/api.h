/*-------------------------------------------------------------------------
 *
 * api.h
 *		Shared machinery of the DynamoDB API functions: request reading and
 *		shape validation, item reads and writes on a table's definition
 *		(table_def.h), consumed capacity, and response building.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_API_H
#define ITEM_TABLE_API_H


#include "executor/spi.h"
#include "utils/jsonb.h"

#include "attr_value.h"
#include "catalog.h"
#include "stored_item.h"
#include "errors.h"
#include "expr.h"
#include "item_table.h"
#include "table_def.h"


/* ---- reading a request ---- */

/*
 * A request is read field by field; shape problems (missing required
 * members, lengths, patterns, enums) are collected and reported together
 * as DynamoDB does ("2 validation errors detected: ...; ..."), JSON type
 * problems immediately as SerializationException.
 */
typedef struct ApiRequest
{
	Jsonb	   *body;
	List	   *problems;		/* char * each */
	List	   *seen;			/* field names read (for unknown checks) */
} ApiRequest;

extern void ApiRequestInit(ApiRequest *req, Jsonb *body);
/* raise the collected shape problems, if any */
extern void ApiRequestCheck(ApiRequest *req);
extern void ApiProblem(ApiRequest *req, const char *fmt,...) pg_attribute_printf(2, 3);

/* member lookup: NULL when absent; JSON null counts as absent */
extern JsonbValue *ApiGetMember(ApiRequest *req, const char *name);
/* typed readers; 'field' is the lower-camel name used in messages */
extern char *ApiGetString(ApiRequest *req, const char *name, const char *field,
						  bool required);
extern bool ApiGetBool(ApiRequest *req, const char *name, bool *value);
extern bool ApiGetInt(ApiRequest *req, const char *name, const char *field,
					  int64 *value);
/* an object or array member as a Jsonb of its own, or NULL */
extern Jsonb *ApiGetObject(ApiRequest *req, const char *name);
extern Jsonb *ApiGetArray(ApiRequest *req, const char *name);
/* enum: returns the index in values[] or -1 when absent (default) */
extern int	ApiGetEnum(ApiRequest *req, const char *name, const char *field,
					   const char *const *values, int nvalues);
/* TableName (or IndexName) rules: 3..255 of [a-zA-Z0-9_.-] */
extern char *ApiGetTableName(ApiRequest *req, const char *name,
							 const char *field, bool required);
/* the legacy parameters are rejected, never ignored */
extern void ApiRejectLegacy(ApiRequest *req, const char *const *legacy,
							int nlegacy, const char *expression_params);

/* ---- reading and writing items through SPI ---- */
extern Jsonb *ApiFetchItem(ItemTableDef *def, ItemKey *key, bool lock);
extern bool ApiInsertItem(ItemTableDef *def, ItemKey *key, Jsonb *item);
extern void ApiUpdateItem(ItemTableDef *def, ItemKey *key, Jsonb *item);
/* an unconditional put of an existing item, done directly; false: not done */
extern bool ApiReplaceItemDirect(ItemTableDef *def, ItemKey *key, Jsonb *item);
extern void ApiDeleteItem(ItemTableDef *def, ItemKey *key);

/* ---- responses ---- */
typedef enum ReturnConsumedCapacity
{
	RCC_NONE = 0,
	RCC_TOTAL,
	RCC_INDEXES
} ReturnConsumedCapacity;

extern int	ApiGetReturnConsumedCapacity(ApiRequest *req);
extern List *ApiArrayOfObjects(Jsonb *arr, const char *member);
/* push "ConsumedCapacity": {...} into an object under construction */
/* ConsumedCapacity of a multi-table call, summed per table */
typedef struct ApiTableUnits
{
	const char *table;
	double		units;
} ApiTableUnits;
extern List *ApiAddTableUnits(List *acc, const char *table, double units);
extern void ApiPushTableCapacities(JsonbParseState **state, List *acc, int rcc);
extern void ApiPushConsumedCapacity(JsonbParseState **state, const char *table,
									double units, int rcc);
extern double ApiReadUnits(int64 size, bool consistent);
extern double ApiWriteUnits(int64 size);

/* push a key and a Jsonb/AttrValue value into an object under construction */
extern void ApiPushKey(JsonbParseState **state, const char *key);
extern void ApiPushJsonb(JsonbParseState **state, Jsonb *value);
extern void ApiPushString(JsonbParseState **state, const char *s);
extern void ApiPushNumeric(JsonbParseState **state, double d, int scale);
extern void ApiPushItem(JsonbParseState **state, const AttrValue *item);

/* ---- shared by the item, batch and transaction operations (api_item.c) ---- */
extern ExprPlaceholders *ApiReadPlaceholders(ApiRequest *req, bool any_expression,
											 const char *null_expressions);
extern AttrValue *ApiEmptyItem(void);
extern AttrValue *ApiStoredItem(Jsonb *j);
extern void ApiUpsertItem(ItemTableDef *def, ItemKey *key, Jsonb *item);
extern bool ApiUpdateCreates(const UpdateExpr *upd);
extern void ApiCheckKeyNotUpdated(ItemTableDef *def, const UpdateExpr *upd);
extern Jsonb *ApiFinishResponse(JsonbParseState **state, MemoryContext callercxt);
extern void ApiPushAttributes(JsonbParseState **state, const AttrValue *attrs);

/* ---- SQL-callable entry points the dispatcher (api_item.c) calls ---- */
/* tags (api_control.c): CreateTable's Tags and TagResource */
typedef struct ApiTag
{
	char	   *key;
	char	   *value;
} ApiTag;
/* is the installed catalog 1.2's?  (api_control.c) */
extern bool ApiCatalogIs12(void);
extern void ApiRequireCatalog12(const char *parameter);
extern List *ApiParseTags(ApiRequest *req, Jsonb *arr, const char *field);
extern void ApiStoreTags(const char *table, List *tags);
extern char *item_table_endpoint_address;

extern Datum item_table_create_table(PG_FUNCTION_ARGS);
extern Datum item_table_describe_table(PG_FUNCTION_ARGS);
extern Datum item_table_delete_table(PG_FUNCTION_ARGS);
extern Datum item_table_list_tables(PG_FUNCTION_ARGS);
extern Datum item_table_update_table(PG_FUNCTION_ARGS);
extern Datum item_table_put_item(PG_FUNCTION_ARGS);
extern Datum item_table_get_item(PG_FUNCTION_ARGS);
extern Datum item_table_delete_item(PG_FUNCTION_ARGS);
extern Datum item_table_update_item(PG_FUNCTION_ARGS);
extern Datum item_table_batch_get_item(PG_FUNCTION_ARGS);
extern Datum item_table_batch_write_item(PG_FUNCTION_ARGS);
extern Datum item_table_transact_get_items(PG_FUNCTION_ARGS);
extern Datum item_table_transact_write_items(PG_FUNCTION_ARGS);
extern Datum item_table_query(PG_FUNCTION_ARGS);
extern Datum item_table_scan(PG_FUNCTION_ARGS);
extern Datum item_table_tag_resource(PG_FUNCTION_ARGS);
extern Datum item_table_untag_resource(PG_FUNCTION_ARGS);
extern Datum item_table_list_tags_of_resource(PG_FUNCTION_ARGS);
extern Datum item_table_describe_limits(PG_FUNCTION_ARGS);
extern Datum item_table_describe_endpoints(PG_FUNCTION_ARGS);
extern Datum item_table_describe_continuous_backups(PG_FUNCTION_ARGS);
/* PartiQL (api_partiql.c) */
extern Datum item_table_execute_statement(PG_FUNCTION_ARGS);
extern Datum item_table_batch_execute_statement(PG_FUNCTION_ARGS);
extern Datum item_table_execute_transaction(PG_FUNCTION_ARGS);
/* Time to Live (ttl.c) */
extern Datum item_table_update_time_to_live(PG_FUNCTION_ARGS);
extern Datum item_table_describe_time_to_live(PG_FUNCTION_ARGS);

/* ---- the reader's other SQL-callable functions (api_query.c and below) ---- */
extern Datum item_table_explain_query(PG_FUNCTION_ARGS);
extern Datum item_table_explain_scan(PG_FUNCTION_ARGS);
extern Datum item_table_item_collection(PG_FUNCTION_ARGS);
extern Datum item_key_segment(PG_FUNCTION_ARGS);

#endif							/* ITEM_TABLE_API_H */
