/*-------------------------------------------------------------------------
 *
 * api_item.c
 *		PutItem, GetItem, DeleteItem, UpdateItem.
 *
 * Order of checks, as DynamoDB: request shape (all problems at once), then
 * legacy parameters mixed with expressions (legacy.c), then expressions
 * and placeholders, then the legacy parameters compiled into trees, then
 * attribute values, then the table (ResourceNotFoundException), then the
 * key schema, then the data.  Every
 * check runs before the first write, and a failed call raises an ERROR, so
 * a failed call changes nothing.
 *
 * Conditional writes.  The current row is read with FOR UPDATE and the
 * condition evaluated on it (an absent item is an empty map).  When there
 * is no row, the new item is inserted with ON CONFLICT DO NOTHING; if a
 * concurrent writer inserted the key first, nothing is inserted and the
 * whole step is retried, now finding (and locking) that row.  So a
 * condition is always evaluated on the row the write replaces: two
 * attribute_not_exists(pk) puts racing each other cannot both succeed.
 * An unconditional PutItem that returns nothing needs no old row and is a
 * single INSERT ... ON CONFLICT DO UPDATE.  UpdateItem and the other
 * PutItems first try the write without the lock (ApiReplaceItemUnlocked,
 * api_common.c): the callbacks below judge the version read, and the
 * write replaces that very version or nothing, so the condition is still
 * judged on the row replaced; the locked loop runs when it declines.
 *
 * Memory: the request is parsed in the caller's context; after SPI_connect
 * everything lives in SPI's procedure context, and the response is copied
 * back to the caller's context before SPI_finish.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"

#include "api.h"
#include "item_store.h"
#include "item_guard.h"
#include "expr.h"
#include "jsonb_binary.h"
#include "legacy.h"

PG_FUNCTION_INFO_V1(item_table_put_item);
PG_FUNCTION_INFO_V1(item_table_get_item);
PG_FUNCTION_INFO_V1(item_table_delete_item);
PG_FUNCTION_INFO_V1(item_table_update_item);

static const char *const return_values[] = {"NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"};

typedef enum ReturnValues
{
	RV_NONE = 0,
	RV_ALL_OLD,
	RV_UPDATED_OLD,
	RV_ALL_NEW,
	RV_UPDATED_NEW
} ReturnValues;

static const char *const rvccf_values[] = {"ALL_OLD", "NONE"};

/*
 * A conditional write retries when a concurrent insert of the same key
 * wins; each retry then finds and locks that row, so one retry normally
 * suffices.  The cap only guards against a pathological storm.
 */
#define MAX_WRITE_RETRIES 100

static void
check_retries(int *tries)
{
	CHECK_FOR_INTERRUPTS();
	if (++(*tries) > MAX_WRITE_RETRIES)
		DynRaise(DYN_TRANSACTION_CONFLICT,
				 "Transaction is ongoing for the item: concurrent writes to the same key kept conflicting");
}
static const char *const ricm_values[] = {"SIZE", "NONE"};

/* ----------------------------------------------------------------
 * shared pieces
 * ----------------------------------------------------------------
 */

/*
 * ApiReadPlaceholders
 *		ExpressionAttributeNames/Values of the request, refused when no
 *		expression of the request could use them (DynamoDB's message names
 *		the expressions that are null).
 */
ExprPlaceholders *
ApiReadPlaceholders(ApiRequest *req, bool any_expression, const char *null_expressions)
{
	Jsonb	   *names = ApiGetObject(req, "ExpressionAttributeNames");
	Jsonb	   *values = ApiGetObject(req, "ExpressionAttributeValues");

	if (!any_expression)
	{
		if (names != NULL)
			DynValidation("ExpressionAttributeNames can only be specified when using expressions: %s",
						  null_expressions);
		if (values != NULL)
			DynValidation("ExpressionAttributeValues can only be specified when using expressions: %s",
						  null_expressions);
	}
	return ExprPlaceholdersFromRequest(names, values);
}

AttrValue *
ApiEmptyItem(void)
{
	return AttrNewMap();
}

/* the stored item as an AttrValue (stored items are already canonical) */
AttrValue *
ApiStoredItem(Jsonb *j)
{
	return j ? AttrItemFromJsonb(j) : NULL;
}

/*
 * condition_failed
 *		ConditionalCheckFailedException, with the old item when asked.
 */
static void
condition_failed(const AttrValue *old, int rvccf)
{
	Jsonb	   *extra = NULL;

	if (rvccf == 0 && old != NULL)
	{
		JsonbParseState *state = NULL;
		JsonbValue *res;

		pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(&state, "Item");
		ApiPushItem(&state, old);
		res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
		extra = JsonbValueToJsonb(res);
	}
	DynRaiseBody(DYN_CONDITIONAL_CHECK_FAILED, extra, "The conditional request failed");
}

Jsonb *
ApiFinishResponse(JsonbParseState **state, MemoryContext callercxt)
{
	JsonbValue *res = pushJsonbValue(state, WJB_END_OBJECT, NULL);
	MemoryContext old = MemoryContextSwitchTo(callercxt);
	Jsonb	   *jb = JsonbValueToJsonb(res);

	MemoryContextSwitchTo(old);
	return jb;
}

void
ApiPushAttributes(JsonbParseState **state, const AttrValue *attrs)
{
	if (attrs == NULL || attrs->u.map.count == 0)
		return;
	ApiPushKey(state, "Attributes");
	ApiPushItem(state, attrs);
}

/*
 * write_item
 *		Replace (old != NULL) or insert the item; false when a concurrent
 *		insert won and the caller must retry.
 */
static bool
write_item(ItemTableDef *def, ItemKey *key, const AttrValue *old, Jsonb *newj)
{
	if (old != NULL)
	{
		ApiUpdateItem(def, key, newj);
		return true;
	}
	return ApiInsertItem(def, key, newj, NULL);
}

void
ApiUpsertItem(ItemTableDef *def, ItemKey *key, Jsonb *item, ApiInsertCache *cache)
{
	if (def->store->direct)
	{
		/* an existing item: replaced directly where that cannot differ */
		if (ApiReplaceItemDirect(def, key, item))
			return;

		/*
		 * a new item: inserted directly where that cannot differ.  The probe
		 * of ApiReplaceItemDirect has nearly always just found no row of key
		 * (when it declined for another reason, inserting first costs at
		 * most a dead row, never a different result): absent
		 */
		if (ApiInsertItemDirect(def, key, item, true, true, cache) == DIRECT_INSERT_DONE)
			return;
	}
	/* no table held open while a statement runs (its triggers are SQL) */
	ApiInsertCacheClose(cache);
	def->store->upsert(def, key, item);
}

/* ----------------------------------------------------------------
 * PutItem
 * ----------------------------------------------------------------
 */

/* what PutItem and DeleteItem requests have in common */
typedef struct SingleWrite
{
	char	   *name;			/* TableName */
	Jsonb	   *target;			/* Item (PutItem) or Key (DeleteItem) */
	int			rv;
	int			rvccf;
	int			rcc;
	int			ricm;			/* ReturnItemCollectionMetrics, -1 absent */
	CondNode   *cond;			/* ConditionExpression or NULL */
} SingleWrite;

/*
 * read_single_write
 *		Read and check a PutItem or DeleteItem request, in DynamoDB's order;
 *		target is "Item" or "Key", field its name in messages.
 */
static void
read_single_write(Jsonb *body, const char *target, const char *field, SingleWrite *w)
{
	ApiRequest	req;
	char	   *cond_text;
	ExprPlaceholders *ph;
	LegacyParams lp;

	ApiRequestInit(&req, body);
	w->name = ApiGetTableName(&req, "TableName", "tableName", true);
	w->target = ApiGetObject(&req, target);
	if (w->target == NULL)
		ApiProblem(&req, "Value null at '%s' failed to satisfy constraint: Member must not be null", field);
	cond_text = ApiGetString(&req, "ConditionExpression", "conditionExpression", false);
	w->rv = ApiGetEnum(&req, "ReturnValues", "returnValues", return_values, lengthof(return_values));
	w->rvccf = ApiGetEnum(&req, "ReturnValuesOnConditionCheckFailure",
						  "returnValuesOnConditionCheckFailure", rvccf_values, lengthof(rvccf_values));
	w->rcc = ApiGetReturnConsumedCapacity(&req);
	w->ricm = ApiGetEnum(&req, "ReturnItemCollectionMetrics", "returnItemCollectionMetrics",
					  ricm_values, lengthof(ricm_values));
	LegacyRead(&req, LEGACY_EXPECTED | LEGACY_CONDITIONAL_OPERATOR, "", &lp);
	ApiRequestCheck(&req);
	LegacyCheckMix(&lp, cond_text ? "ConditionExpression" : NULL, false);
	LegacyCheckConditionalOperator(&lp);
	if (w->rv > RV_ALL_OLD)
		DynValidation("ReturnValues can only be ALL_OLD or NONE");
	if (w->rv < 0)
		w->rv = RV_NONE;		/* absent: NONE, so the fast path applies */

	ph = ApiReadPlaceholders(&req, cond_text != NULL, "ConditionExpression is null");
	w->cond = NULL;
	if (cond_text != NULL)
		w->cond = ExprParseCondition(cond_text, strlen(cond_text), EXPR_CONDITION, ph);
	ExprCheckAllUsed(ph);
	if (cond_text == NULL)
		w->cond = LegacyExpected(&lp);
}

/*
 * put_replacement
 *		PutItem's step of ApiReplaceItemUnlocked: the condition judged on
 *		the stored item found (pr->old gets it); the new item unchanged.
 */
typedef struct PutReplace
{
	CondNode   *cond;
	int			rvccf;
	Jsonb	   *newj;
	AttrValue  *old;			/* out: the item replaced */
} PutReplace;

static Jsonb *
put_replacement(Jsonb *oldj, void *arg)
{
	PutReplace *pr = (PutReplace *) arg;

	pr->old = ApiStoredItem(oldj);
	if (pr->cond != NULL && !ExprEvalCondition(pr->cond, pr->old))
		condition_failed(pr->old, pr->rvccf);
	return pr->newj;
}

Datum
item_table_put_item(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	SingleWrite w;
	AttrValue  *item;
	AttrValue  *old = NULL;
	ItemTableDef *def;
	ItemKey    *key;
	Jsonb	   *newj;
	int64		size;
	JsonbParseState *state = NULL;
	Jsonb	   *result;
	bool		as_stored;

	read_single_write(PG_GETARG_JSONB_P(0), "Item", "item", &w);
	item = AttrItemFromJsonbStored(w.target, &as_stored);

	SPI_connect();
	def = TableDefLookup(w.name);
	key = TableDefKeyFromItem(def, item);
	size = AttrItemSize(item);
	if (size > ATTR_MAX_ITEM_SIZE)
		DynValidation("Item size has exceeded the maximum allowed size");
	newj = as_stored ? w.target : AttrItemToJsonb(item);

	if (w.cond == NULL && w.rv == RV_NONE && w.rcc == RCC_NONE)
	{
		def->store->write_alone(def);	/* the call's only statement */
		ApiUpsertItem(def, key, newj, NULL);
	}
	else
	{
		int			tries = 0;
		PutReplace	pr = {w.cond, w.rvccf, newj, NULL};

		/*
		 * a create that must not replace (attribute_not_exists(pk)):
		 * inserted first, without a probe that would find nothing; when the
		 * key has an item, the paths below read it and fail the condition
		 */
		if (ApiCondRequiresAbsent(w.cond, def) &&
			ExprEvalCondition(w.cond, ApiEmptyItem()) &&
			ApiInsertIfAbsent(def, key, newj, NULL) == DIRECT_INSERT_DONE)
			old = NULL;
		/* an existing item: replaced without the row lock where it can be */
		else if (ApiReplaceItemUnlocked(def, key, put_replacement, &pr))
			old = pr.old;
		else
		{
			for (;;)
			{
				check_retries(&tries);
				old = ApiStoredItem(ApiFetchItem(def, key, true));
				if (w.cond != NULL && !ExprEvalCondition(w.cond, old ? old : ApiEmptyItem()))
					condition_failed(old, w.rvccf);
				if (write_item(def, key, old, newj))
					break;
			}
		}
	}

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	if (w.rv == RV_ALL_OLD)
		ApiPushAttributes(&state, old);
	ApiPushConsumedCapacity(&state, def->name,
							ApiWriteUnits(Max(size, old ? AttrItemSize(old) : 0)), w.rcc);
	if (ApiWantsCollectionMetrics(def, w.ricm))
	{
		ApiPushKey(&state, "ItemCollectionMetrics");
		ApiPushItemCollectionMetrics(&state, def, key);
	}
	result = ApiFinishResponse(&state, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * GetItem
 * ----------------------------------------------------------------
 */
Datum
item_table_get_item(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	char	   *name;
	Jsonb	   *key_j;
	char	   *proj_text;
	LegacyParams lp;
	bool		consistent = false;
	int			rcc;
	ExprPlaceholders *ph;
	ProjectionExpr *proj = NULL;
	AttrValue  *keyattrs;
	ItemTableDef *def;
	ItemKey    *key;
	Jsonb	   *itemj;
	JsonbParseState *state = NULL;
	Jsonb	   *result;
	int64		size = 0;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	name = ApiGetTableName(&req, "TableName", "tableName", true);
	key_j = ApiGetObject(&req, "Key");
	if (key_j == NULL)
		ApiProblem(&req, "Value null at 'key' failed to satisfy constraint: Member must not be null");
	proj_text = ApiGetString(&req, "ProjectionExpression", "projectionExpression", false);
	(void) ApiGetBool(&req, "ConsistentRead", &consistent);
	rcc = ApiGetReturnConsumedCapacity(&req);
	LegacyRead(&req, LEGACY_ATTRIBUTES_TO_GET, "", &lp);
	ApiRequestCheck(&req);
	LegacyCheckMix(&lp, proj_text ? "ProjectionExpression" : NULL, false);
	if (ApiGetObject(&req, "ExpressionAttributeValues") != NULL)
		DynValidation("ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null");

	ph = ApiReadPlaceholders(&req, proj_text != NULL, "ProjectionExpression is null");
	if (proj_text != NULL)
		proj = ExprParseProjection(proj_text, strlen(proj_text), ph);
	ExprCheckAllUsed(ph);
	if (proj_text == NULL)
		proj = LegacyAttributesToGet(&lp);
	keyattrs = AttrItemFromJsonb(key_j);

	SPI_connect();
	def = TableDefLookup(name);
	key = TableDefKeyFromKeyParam(def, keyattrs);
	itemj = ApiFetchItem(def, key, false);

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	if (itemj != NULL && proj == NULL)
	{
		/*
		 * The whole item: the response is built around the stored item's
		 * container as it is (jsonb_binary.c), not unpacked into a
		 * JsonbValue tree and serialized again; the rest of the response
		 * (ConsumedCapacity, when asked) is built as usual first.
		 */
		Jsonb	   *rest;
		MemoryContext old;

		if (rcc != RCC_NONE)
			size = AttrStoredItemSizeAnyEncoding(itemj);
		ApiPushConsumedCapacity(&state, def->name, ApiReadUnits(size, consistent), rcc);
		rest = ApiFinishResponse(&state, CurrentMemoryContext);
		old = MemoryContextSwitchTo(callercxt);
		result = JsonbWithMember(rest, "Item", itemj);
		MemoryContextSwitchTo(old);
		SPI_finish();
		PG_RETURN_JSONB_P(result);
	}
	if (itemj != NULL)
	{
		AttrValue  *item = ApiStoredItem(itemj);

		size = AttrItemSize(item);
		ApiPushKey(&state, "Item");
		ApiPushItem(&state, ExprProject(proj, item));
	}
	ApiPushConsumedCapacity(&state, def->name, ApiReadUnits(size, consistent), rcc);
	result = ApiFinishResponse(&state, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * DeleteItem
 * ----------------------------------------------------------------
 */
Datum
item_table_delete_item(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	SingleWrite w;
	AttrValue  *keyattrs;
	Jsonb	   *oldj;
	AttrValue  *old = NULL;
	int64		size = 0;
	ItemTableDef *def;
	ItemKey    *key;
	JsonbParseState *state = NULL;
	Jsonb	   *result;

	read_single_write(PG_GETARG_JSONB_P(0), "Key", "key", &w);
	keyattrs = AttrItemFromJsonb(w.target);

	SPI_connect();
	def = TableDefLookup(w.name);
	key = TableDefKeyFromKeyParam(def, keyattrs);

	/*
	 * Without a condition or the old item in the response, the row need not
	 * be locked first: deleted as the DELETE statement would delete it
	 * (ApiDeleteItemUnlocked), the locked path below where that declines.
	 */
	if (w.cond == NULL && w.rv != RV_ALL_OLD &&
		ApiDeleteItemUnlocked(def, key, w.rcc != RCC_NONE ? &size : NULL) != DIRECT_DELETE_LOCKED)
		oldj = NULL;
	else
	{
		oldj = ApiFetchItem(def, key, true);

		/*
		 * The old item is unpacked only for what needs it (the condition,
		 * the old item in a response); its size is read in place.
		 */
		if (oldj != NULL && (w.cond != NULL || w.rv == RV_ALL_OLD))
			old = ApiStoredItem(oldj);
		if (w.cond != NULL && !ExprEvalCondition(w.cond, old ? old : ApiEmptyItem()))
			condition_failed(old, w.rvccf);
		if (oldj != NULL)
			ApiDeleteItem(def, key);
		if (oldj != NULL && w.rcc != RCC_NONE)
			size = old ? AttrItemSize(old) : AttrStoredItemSizeAnyEncoding(oldj);
	}

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	if (w.rv == RV_ALL_OLD)
		ApiPushAttributes(&state, old);
	ApiPushConsumedCapacity(&state, def->name, ApiWriteUnits(size), w.rcc);
	if (ApiWantsCollectionMetrics(def, w.ricm))
	{
		ApiPushKey(&state, "ItemCollectionMetrics");
		ApiPushItemCollectionMetrics(&state, def, key);
	}
	result = ApiFinishResponse(&state, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * UpdateItem
 * ----------------------------------------------------------------
 */

/* does the update create anything on a missing item (any SET or ADD)? */
bool
ApiUpdateCreates(const UpdateExpr *upd)
{
	int			i;

	if (upd == NULL)
		return true;			/* no expression: a key-only item */
	for (i = 0; i < upd->nactions; i++)
	{
		if (upd->actions[i].kind == UPD_SET || upd->actions[i].kind == UPD_ADD)
			return true;
	}
	return false;
}

void
ApiCheckKeyNotUpdated(ItemTableDef *def, const UpdateExpr *upd)
{
	int			i;

	if (upd == NULL)
		return;
	for (i = 0; i < upd->nactions; i++)
	{
		const PathElem *first = &upd->actions[i].path->elems[0];
		const char *keys[2] = {def->hash_key, def->range_key};
		int			k;

		for (k = 0; k < 2; k++)
		{
			if (keys[k] != NULL && first->kind == PATH_NAME &&
				first->namelen == (int) strlen(keys[k]) &&
				memcmp(first->name, keys[k], first->namelen) == 0)
				DynValidation("One or more parameter values were invalid: Cannot update attribute %s. This attribute is part of the key",
							  keys[k]);
		}
	}
}

/*
 * update_replacement
 *		UpdateItem's step of ApiReplaceItemUnlocked on the stored item found:
 *		what the locked path does to an existing item -- the condition, the
 *		update, the size check, in that order -- with the old and new items
 *		and the new size kept for the response.
 */
typedef struct UpdateReplace
{
	CondNode   *cond;
	UpdateExpr *upd;
	int			rvccf;
	AttrValue  *old;			/* out: the item replaced */
	AttrValue  *new;			/* out: the item written */
	int64		size;			/* out: its size */
} UpdateReplace;

static Jsonb *
update_replacement(Jsonb *oldj, void *arg)
{
	UpdateReplace *ur = (UpdateReplace *) arg;

	ur->old = ApiStoredItem(oldj);
	if (ur->cond != NULL && !ExprEvalCondition(ur->cond, ur->old))
		condition_failed(ur->old, ur->rvccf);
	ur->new = ur->upd ? ExprApplyUpdate(ur->upd, ur->old, true) : AttrCopy(ur->old);
	ur->size = AttrItemSize(ur->new);
	if (ur->size > ATTR_MAX_ITEM_SIZE)
		DynValidation("Item size to update has exceeded the maximum allowed size");
	return AttrItemToJsonb(ur->new);
}

/*
 * update_insert_first
 *		UpdateItem creating an item under a condition that holds only when
 *		the key has no item (ApiCondRequiresAbsent), as PutItem's create:
 *		the new item is made on no item -- the condition, the update and the
 *		size check, as the locked path makes it on finding nothing -- and
 *		inserted first (ApiInsertIfAbsent).  True: written (ur->new,
 *		ur->size).  False: nothing written; the usual path reads the key and
 *		decides -- on an existing item the condition fails, on none it
 *		raises what the update or the size check raised here, which is why
 *		a validation error here is left to it rather than raised.
 */
static bool
update_insert_first(ItemTableDef *def, ItemKey *key, AttrValue *keyattrs, UpdateReplace *ur)
{
	MemoryContext cxt = CurrentMemoryContext;
	AttrValue  *volatile new = NULL;

	if (!ApiCondRequiresAbsent(ur->cond, def) || !ApiUpdateCreates(ur->upd) ||
		!ExprEvalCondition(ur->cond, ApiEmptyItem()))
		return false;
	PG_TRY();
	{
		new = ur->upd ? ExprApplyUpdate(ur->upd, keyattrs, false) : AttrCopy(keyattrs);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_DYN_VALIDATION)
			PG_RE_THROW();
		FlushErrorState();
		new = NULL;
	}
	PG_END_TRY();
	if (new == NULL)
		return false;
	ur->size = AttrItemSize(new);
	if (ur->size > ATTR_MAX_ITEM_SIZE ||
		ApiInsertIfAbsent(def, key, AttrItemToJsonb(new), NULL) != DIRECT_INSERT_DONE)
		return false;
	ur->new = new;
	return true;
}

Datum
item_table_update_item(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	char	   *name;
	Jsonb	   *key_j;
	char	   *cond_text;
	char	   *upd_text;
	int			rv;
	int			rvccf;
	int			rcc;
	int			ricm;
	ExprPlaceholders *ph;
	CondNode   *cond = NULL;
	UpdateExpr *upd = NULL;
	AttrValue  *keyattrs;
	AttrValue  *old;
	AttrValue  *new = NULL;
	ItemTableDef *def;
	ItemKey    *key;
	JsonbParseState *state = NULL;
	Jsonb	   *result;
	int64		size = 0;
	int			tries = 0;
	StringInfoData exprs;
	LegacyParams lp;
	UpdateReplace ur = {0};

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	name = ApiGetTableName(&req, "TableName", "tableName", true);
	key_j = ApiGetObject(&req, "Key");
	if (key_j == NULL)
		ApiProblem(&req, "Value null at 'key' failed to satisfy constraint: Member must not be null");
	upd_text = ApiGetString(&req, "UpdateExpression", "updateExpression", false);
	cond_text = ApiGetString(&req, "ConditionExpression", "conditionExpression", false);
	rv = ApiGetEnum(&req, "ReturnValues", "returnValues", return_values, lengthof(return_values));
	rvccf = ApiGetEnum(&req, "ReturnValuesOnConditionCheckFailure",
					   "returnValuesOnConditionCheckFailure", rvccf_values, lengthof(rvccf_values));
	rcc = ApiGetReturnConsumedCapacity(&req);
	ricm = ApiGetEnum(&req, "ReturnItemCollectionMetrics", "returnItemCollectionMetrics",
					  ricm_values, lengthof(ricm_values));
	LegacyRead(&req, LEGACY_ATTRIBUTE_UPDATES | LEGACY_EXPECTED | LEGACY_CONDITIONAL_OPERATOR,
			   "", &lp);
	ApiRequestCheck(&req);
	initStringInfo(&exprs);
	if (upd_text)
		appendStringInfoString(&exprs, "UpdateExpression");
	if (cond_text)
		appendStringInfo(&exprs, "%sConditionExpression", exprs.len ? ", " : "");
	LegacyCheckMix(&lp, exprs.data, false);
	LegacyCheckConditionalOperator(&lp);

	ph = ApiReadPlaceholders(&req, upd_text != NULL || cond_text != NULL,
						   "UpdateExpression and ConditionExpression are null");
	if (upd_text != NULL)
		upd = ExprParseUpdate(upd_text, strlen(upd_text), ph);
	if (cond_text != NULL)
		cond = ExprParseCondition(cond_text, strlen(cond_text), EXPR_CONDITION, ph);
	ExprCheckAllUsed(ph);
	if (upd_text == NULL)
		upd = LegacyAttributeUpdates(&lp);
	if (cond_text == NULL)
		cond = LegacyExpected(&lp);
	keyattrs = AttrItemFromJsonb(key_j);

	SPI_connect();
	def = TableDefLookup(name);
	key = TableDefKeyFromKeyParam(def, keyattrs);
	ApiCheckKeyNotUpdated(def, upd);

	ur.cond = cond;
	ur.upd = upd;
	ur.rvccf = rvccf;
	/* a create that must not replace: inserted first (see PutItem) */
	if (update_insert_first(def, key, keyattrs, &ur))
	{
		old = NULL;
		new = ur.new;
		size = ur.size;
	}
	/* an existing item: updated without the row lock where it can be */
	else if (ApiReplaceItemUnlocked(def, key, update_replacement, &ur))
	{
		old = ur.old;
		new = ur.new;
		size = ur.size;
	}
	else
		for (;;)
		{
			check_retries(&tries);
			old = ApiStoredItem(ApiFetchItem(def, key, true));
			if (cond != NULL && !ExprEvalCondition(cond, old ? old : ApiEmptyItem()))
				condition_failed(old, rvccf);
			if (old == NULL && !ApiUpdateCreates(upd))
			{
				new = NULL;		/* REMOVE/DELETE on a missing item: nothing */
				break;
			}
			new = upd ? ExprApplyUpdate(upd, old ? old : keyattrs, old != NULL)
				: AttrCopy(old ? old : keyattrs);
			size = AttrItemSize(new);
			if (size > ATTR_MAX_ITEM_SIZE)
				DynValidation("Item size to update has exceeded the maximum allowed size");
			if (write_item(def, key, old, AttrItemToJsonb(new)))
				break;
		}

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	switch (rv)
	{
		case RV_ALL_OLD:
			ApiPushAttributes(&state, old);
			break;
		case RV_ALL_NEW:
			ApiPushAttributes(&state, new);
			break;
		case RV_UPDATED_OLD:
			if (old != NULL && upd != NULL)
				ApiPushAttributes(&state, ExprUpdatedAttributes(upd, old, false));
			break;
		case RV_UPDATED_NEW:
			if (new != NULL && upd != NULL)
				ApiPushAttributes(&state, ExprUpdatedAttributes(upd, new, true));
			break;
		default:
			break;
	}
	ApiPushConsumedCapacity(&state, def->name,
							ApiWriteUnits(Max(size, old ? AttrItemSize(old) : 0)), rcc);
	if (ApiWantsCollectionMetrics(def, ricm))
	{
		ApiPushKey(&state, "ItemCollectionMetrics");
		ApiPushItemCollectionMetrics(&state, def, key);
	}
	result = ApiFinishResponse(&state, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}
