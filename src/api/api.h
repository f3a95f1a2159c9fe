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


#include "access/stratnum.h"
#include "datatype/timestamp.h"
#include "executor/spi.h"
#include "nodes/nodes.h"
#include "utils/relcache.h"
#include "utils/jsonb.h"

#include "attr_value.h"
#include "catalog.h"
#include "stored_item.h"
#include "errors.h"
#include "expr.h"
#include "item_store.h"
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
extern const char *ApiJsonTypeWord(const JsonbValue *v);
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

/* ---- reading and writing items through SPI ---- */
/*
 * Values echoed in constraint messages, rendered as DynamoDB's Java model
 * renders them ("[KeySchemaElement(attributeName=pk, keyType=HASH)]").
 * Results are palloc'd.
 */
typedef enum ApiEchoKind
{
	API_ECHO_SCALAR,			/* a string, number or boolean as is */
	API_ECHO_ATTR_MAP,			/* name -> AttributeValue (class@hash) */
	API_ECHO_STRING_MAP,		/* name -> string */
	API_ECHO_STRUCT				/* a nested structure (shape) */
} ApiEchoKind;

typedef struct ApiEchoShape ApiEchoShape;
typedef struct ApiEchoMember
{
	const char *name;			/* JSON member name; Java's is lowerCamel */
	ApiEchoKind kind;
	const ApiEchoShape *shape;	/* for API_ECHO_STRUCT */
} ApiEchoMember;

struct ApiEchoShape
{
	const char *name;			/* the model's class name */
	int			nmembers;
	ApiEchoMember members[8];
};

extern const ApiEchoShape ApiEchoKeySchemaElement;
extern const ApiEchoShape ApiEchoWriteRequest;
extern const ApiEchoShape ApiEchoTransactGetItem;
extern const ApiEchoShape ApiEchoTransactWriteItem;
extern char *ApiEchoList(Jsonb *arr, const ApiEchoShape *shape);
extern char *ApiEchoMapOfLists(Jsonb *obj, const ApiEchoShape *shape);

/*
 * ItemCollectionMetrics (ReturnItemCollectionMetrics SIZE): only tables
 * with a local secondary index have item collections.  The push adds the
 * metrics object of key's partition (ItemCollectionKey and
 * SizeEstimateRangeGB) as a value; SPI connected.
 */
extern bool ApiWantsCollectionMetrics(ItemTableDef *def, int ricm);
extern void ApiPushItemCollectionMetrics(JsonbParseState **state, ItemTableDef *def,
										 const ItemKey *key);
/*
 * Batch and transaction form: "ItemCollectionMetrics": {table: [metrics of
 * each partition written]}, over the writes (defs[i], keys[i]) to tables
 * with an LSI; nothing when there are none or ricm is not SIZE.
 */
extern void ApiPushCollectionMetricsByTable(JsonbParseState **state, List *defs,
											List *keys, int ricm);
extern Datum item_table_test_collection_size(PG_FUNCTION_ARGS);

/* the local store (item_store.h), registered by _PG_init */
extern const ItemStore ApiLocalStore;

extern Jsonb *ApiFetchItem(ItemTableDef *def, ItemKey *key, bool lock);
/* the btree operator of strategy on item_key in opfamily, NULL: none (cached) */
extern FmgrInfo *ApiKeyOperator(Oid opfamily, StrategyNumber strategy);
/* tables opened for direct inserts (direct_insert.c) */
typedef struct ApiInsertCache ApiInsertCache;
/*
 * a new item, the caller having just found no row of key (ON CONFLICT DO
 * NOTHING: false when a concurrent insert took key); cache as
 * ApiInsertItemDirect's, NULL: none
 */
extern bool ApiInsertItem(ItemTableDef *def, ItemKey *key, Jsonb *item,
						  ApiInsertCache *cache);
extern void ApiUpdateItem(ItemTableDef *def, ItemKey *key, Jsonb *item);
/* an unconditional put of an existing item, done directly; false: not done */
extern bool ApiReplaceItemDirect(ItemTableDef *def, ItemKey *key, Jsonb *item);
extern void ApiDeleteItem(ItemTableDef *def, ItemKey *key);

/*
 * A conditional write of an existing item without the row lock (see
 * ApiReplaceItemUnlocked): newitem gets the stored item found and returns
 * the item to write in its place, or raises (a failed condition).  false:
 * nothing written, take the locked path.
 */
typedef Jsonb *(*ApiNewItemFn) (Jsonb *old, void *arg);
extern bool ApiReplaceItemUnlocked(ItemTableDef *def, ItemKey *key,
								   ApiNewItemFn newitem, void *arg);
extern Datum item_table_test_unlocked_writes(PG_FUNCTION_ARGS);

/* DeleteItem without a condition or the old item: see ApiDeleteItemUnlocked */
typedef enum DirectDeleteResult
{
	DIRECT_DELETE_LOCKED,		/* nothing done: take the locked path */
	DIRECT_DELETE_DONE,			/* the item is deleted */
	DIRECT_DELETE_NONE			/* no item of key: nothing to delete */
} DirectDeleteResult;
extern DirectDeleteResult ApiDeleteItemUnlocked(ItemTableDef *def, ItemKey *key,
												int64 *size);
extern Datum item_table_test_unlocked_deletes(PG_FUNCTION_ARGS);

/*
 * Direct writes (no executor) and the triggers the statement would fire
 * (direct_upkeep.c).
 * ApiDirectTriggers: may a direct write of cmd (CMD_INSERT, CMD_UPDATE,
 * CMD_DELETE) to the item table rel stand in for every trigger that would
 * fire?  false: run the statement.  true: *upkeep says what the write must
 * do after the row is written, by ApiDirectUpkeep(rel, upkeep, key, ...):
 * API_UPKEEP_INDEXES, the index trigger's work (GSI/LSI rows, as the index
 * owner); API_UPKEEP_STREAM, the stream trigger's records (UPDATE and
 * DELETE only: with a stream, an INSERT is refused); API_UPKEEP_VECTORS,
 * the vector index trigger's rows (api_vector_upkeep.c, as the catalog
 * owner); API_UPKEEP_PITR, the point-in-time recovery history's row
 * (backup.c).  has_old false for an
 * inserted row, has_new false for a deleted one.  The item guard is
 * accepted as a trigger that changes nothing: the caller writes only an
 * item the API has validated.  The caller does the other checks of a
 * direct path itself (privileges, RLS, rules, other indexes, constraints:
 * see update_item_direct), and calls ApiDirectUpkeep after its heap write
 * and primary key entry, with the key and items as stored.  SPI connected.
 */
#define API_UPKEEP_INDEXES	0x01
#define API_UPKEEP_STREAM	0x02
#define API_UPKEEP_VECTORS	0x04
#define API_UPKEEP_PITR		0x08
extern bool ApiDirectTriggers(Relation rel, CmdType cmd, int *upkeep);
extern void ApiDirectUpkeep(Relation rel, int upkeep, Datum key,
							Datum olditem, bool oldnull, bool has_old,
							Datum newitem, bool has_new);
/* ---- the direct insert of a new item (direct_insert.c) ---- */
typedef enum DirectInsertResult
{
	DIRECT_INSERT_STATEMENT,	/* nothing written: run the statement */
	DIRECT_INSERT_DONE,			/* the new row is written */
	DIRECT_INSERT_EXISTS		/* key has a row: nothing written (DO NOTHING) */
} DirectInsertResult;

/*
 * INSERT ... ON CONFLICT (key) DO NOTHING (upsert: DO UPDATE) of the row
 * (key, item), done without the statement where it cannot differ
 */
extern ApiInsertCache *ApiInsertCacheCreate(void);
extern void ApiInsertCacheClose(ApiInsertCache *c);
extern DirectInsertResult ApiInsertItemDirect(ItemTableDef *def, ItemKey *key, Jsonb *item,
											  bool upsert, bool absent,
											  ApiInsertCache *cache);
/* is cond true only when the key has no item?  (attribute_not_exists(pk)) */
extern bool ApiCondRequiresAbsent(const CondNode *cond, const ItemTableDef *def);
/* a Put whose condition requires and holds on no item, inserted first */
extern DirectInsertResult ApiInsertIfAbsent(ItemTableDef *def, ItemKey *key, Jsonb *item,
											ApiInsertCache *cache);

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
/* a write of the current call changed a vector index's row (its capacity) */
extern void ApiVectorWriteNote(const char *table, const char *index, int64 bytes);
extern double ApiReadUnits(int64 size, bool consistent);
extern double ApiWriteUnits(int64 size);

/* push a key and a Jsonb/AttrValue value into an object under construction */
extern void ApiPushKey(JsonbParseState **state, const char *key);
extern void ApiPushJsonb(JsonbParseState **state, Jsonb *value);
extern void ApiPushString(JsonbParseState **state, const char *s);
extern void ApiPushBool(JsonbParseState **state, bool b);
extern void ApiPushNumeric(JsonbParseState **state, double d, int scale);
extern void ApiPushItem(JsonbParseState **state, const AttrValue *item);

/* ---- shared by the item, batch and transaction operations (api_item.c) ---- */
extern ExprPlaceholders *ApiReadPlaceholders(ApiRequest *req, bool any_expression,
											 const char *null_expressions);
extern AttrValue *ApiEmptyItem(void);
extern AttrValue *ApiStoredItem(Jsonb *j);
/* an unconditional put; cache as ApiInsertItemDirect's, NULL: none */
extern void ApiUpsertItem(ItemTableDef *def, ItemKey *key, Jsonb *item,
						  ApiInsertCache *cache);
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

/* ---- StreamSpecification (api_stream.c) ---- */
extern bool ApiStreamSpecParse(ApiRequest *req, bool *enabled, int *view);
extern void ApiStreamSpecCheck(bool enabled, int view);
extern void ApiStreamSpecApply(Oid relid, const char *table, bool enabled, int view,
							   bool creating);
extern void ApiPushStreamDescription(JsonbParseState **state, const char *table);
extern void ApiStreamTableDeleted(const char *table);
extern Datum item_table_list_streams(PG_FUNCTION_ARGS);
extern Datum item_table_describe_stream(PG_FUNCTION_ARGS);
extern Datum item_table_get_shard_iterator(PG_FUNCTION_ARGS);
extern Datum item_table_get_records(PG_FUNCTION_ARGS);
extern Datum item_table_get_shard_iterator_as_of(PG_FUNCTION_ARGS);
extern Datum item_table_get_records_as_of(PG_FUNCTION_ARGS);
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
/* backup.c: the privileged steps of backups and point-in-time recovery */
extern Datum item_table_backup_copy(PG_FUNCTION_ARGS);
extern Datum item_table_backup_drop(PG_FUNCTION_ARGS);
extern Datum item_table_backup_restore(PG_FUNCTION_ARGS);
extern Datum item_table_pitr_set(PG_FUNCTION_ARGS);
extern Datum item_table_pitr_restore(PG_FUNCTION_ARGS);
extern Datum item_table_pitr_trigger(PG_FUNCTION_ARGS);
/* the history trigger as pitr_set makes it, and its work for a direct write */
extern bool ItemPitrDirectTrigger(const Trigger *t);
extern void ItemPitrCaptureDirect(Relation rel, Datum oldkey, Datum olditem, Datum newkey);
/* PartiQL (api_partiql.c) */
extern Datum item_table_execute_statement(PG_FUNCTION_ARGS);
extern Datum item_table_batch_execute_statement(PG_FUNCTION_ARGS);
extern Datum item_table_execute_transaction(PG_FUNCTION_ARGS);
/* Time to Live (ttl.c) */
extern Datum item_table_update_time_to_live(PG_FUNCTION_ARGS);
extern Datum item_table_describe_time_to_live(PG_FUNCTION_ARGS);
extern Datum item_table_expire_items(PG_FUNCTION_ARGS);

/*
 * One expiry batch (ttl.c): delete up to max_items items of table whose
 * TTL attribute is a Number of epoch seconds at or before as_of (and not
 * more than five years before it); returns how many.  -1 when TTL is not
 * enabled on the table (and error_if_disabled is false).  SPI connected,
 * in a transaction.  The worker (worker.c) and expire_items() run it.
 */
extern int64 TtlExpireBatch(const char *table, TimestampTz as_of, int max_items,
							bool error_if_disabled);

/* ---- the reader's other SQL-callable functions (api_query.c and below) ---- */
extern Datum item_table_explain_query(PG_FUNCTION_ARGS);
extern Datum item_table_explain_scan(PG_FUNCTION_ARGS);
extern Datum item_table_item_collection(PG_FUNCTION_ARGS);
extern Datum item_key_segment(PG_FUNCTION_ARGS);

#endif							/* ITEM_TABLE_API_H */
