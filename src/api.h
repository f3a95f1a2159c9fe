/*-------------------------------------------------------------------------
 *
 * api.h
 *		Shared machinery of the DynamoDB API functions: request reading and
 *		shape validation, the table catalog cache with its prepared plans,
 *		consumed capacity, and response building.
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

/* ---- the catalog ---- */
typedef struct ItemTableDef
{
	char	   *name;			/* DynamoDB table name */
	Oid			relid;			/* physical table */
	char	   *hash_key;
	AttrType	hash_type;
	char	   *range_key;		/* NULL when hash-only */
	AttrType	range_type;
	bool		valid;			/* cleared by relcache invalidation */
	/* prepared plans on the physical table (NULL until first use) */
	SPIPlanPtr	plan_get;
	SPIPlanPtr	plan_get_lock;
	SPIPlanPtr	plan_insert;
	SPIPlanPtr	plan_update;
	SPIPlanPtr	plan_delete;
	SPIPlanPtr	plan_upsert;
	SPIPlanPtr	plan_update_tid;
	/*
	 * The row version locked by the last direct ApiFetchItem(lock): a copy
	 * of its key (CacheMemoryContext) and its tuple id, a hint that the
	 * next ApiUpdateItem of the same key uses (the UPDATE still checks the
	 * key).
	 */
	ItemKey    *locked_key;
	ItemPointerData locked_tid;
	/* Query and Scan (api_query.c): read forward, backward, one segment */
	SPIPlanPtr	plan_read_forward;
	SPIPlanPtr	plan_read_backward;
	SPIPlanPtr	plan_read_segment;
} ItemTableDef;

/* look up a table; ResourceNotFoundException when it does not exist */
extern ItemTableDef *ApiLookupTable(const char *name);
extern void ApiForgetTable(const char *name);
extern SPIPlanPtr ApiTablePlan(ItemTableDef *def, SPIPlanPtr *slot,
							   const char *sql_template, int nargs, Oid *argtypes);
/* the same, prepared with SPI_prepare_cursor() and these CURSOR_OPT_* options */
extern SPIPlanPtr ApiTablePlanOpts(ItemTableDef *def, SPIPlanPtr *slot,
								   const char *sql_template, int nargs,
								   Oid *argtypes, int cursor_options);

/* ---- keys ---- */

/* the item_key of an item (VE when key attributes are missing/mistyped) */
extern ItemKey *ApiKeyFromItem(ItemTableDef *def, const AttrValue *item);
/* the item_key of a Key parameter (exactly the key attributes) */
extern ItemKey *ApiKeyFromKeyParam(ItemTableDef *def, const AttrValue *key);
/* the key attributes of an item as a new map */
extern AttrValue *ApiKeyAttributes(ItemTableDef *def, const AttrValue *item);

/* ---- reading and writing items through SPI ---- */
extern Jsonb *ApiFetchItem(ItemTableDef *def, ItemKey *key, bool lock);
extern bool ApiInsertItem(ItemTableDef *def, ItemKey *key, Jsonb *item);
extern void ApiUpdateItem(ItemTableDef *def, ItemKey *key, Jsonb *item);
extern void ApiDeleteItem(ItemTableDef *def, ItemKey *key);

/* ---- the write the API is about to make (see api_common.c) ---- */
extern void ApiExpectWrite(Oid relid, const ItemKey *key, const Jsonb *item);
extern void ApiExpectNoWrite(void);
extern bool ApiIsExpectedWrite(Oid relid, Datum key, Datum item);


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

#endif							/* ITEM_TABLE_API_H */
