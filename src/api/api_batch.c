/*-------------------------------------------------------------------------
 *
 * api_batch.c
 *		BatchGetItem, BatchWriteItem, TransactGetItems, TransactWriteItems.
 *
 * Every operation runs inside the caller's transaction: it commits and
 * rolls back with it, so item tables and ordinary tables can be changed
 * atomically together.
 *
 * Batches.  All requests of a batch are validated (shapes, values, keys,
 * duplicates) before the first write, so an invalid request rejects the
 * whole batch with nothing written, as in DynamoDB.  Writes are
 * unconditional upserts and deletes.
 *
 * TransactGetItems reads every item with the same snapshot: the reads are
 * read-only SPI statements, which use the calling statement's snapshot.
 *
 * The read batches' Responses (BatchGetItem, TransactGetItems) are built
 * around the stored items' binary containers (jsonb_binary.c), as GetItem's
 * Item is: without a projection an item is neither parsed into an
 * AttrValue tree nor unpacked into a JsonbValue tree, its size is read in
 * place.  Whatever an item's read and projection allocate lives in a
 * per-item memory context reset after it (batch_get_one), the item copied
 * out: memory per call is the response and not the work done for it, and
 * glibc is not made to grow and trim the heap at every call.
 *
 * TransactWriteItems works in three steps inside one subtransaction:
 *	 1. lock: every target row is read FOR UPDATE, in (table, key) order, so
 *		two transactions over the same items always lock them in the same
 *		order and never deadlock each other;
 *	 2. check: in request order, each condition is evaluated and each new
 *		item computed; every failed condition becomes a
 *		ConditionalCheckFailed reason, a data error a ValidationError
 *		reason (after which later actions are not examined, as DynamoDB);
 *	 3. write, again in (table, key) order; the new items of a table are
 *		inserted with the table opened once (direct_insert.c's
 *		ApiInsertCache), and a Put's item is stored as the request gave it
 *		when that is already its canonical form (as PutItem does).
 * Any reason cancels the transaction with TransactionCanceledException and
 * nothing is written.  A deadlock, serialization failure or lock timeout
 * inside the subtransaction, or a row inserted concurrently under a key we
 * found absent, is caught and becomes a TransactionConflict reason: the
 * caller never sees a raw PostgreSQL error for a conflict.
 *
 * ClientRequestToken.  item_table.transaction_tokens remembers the MD5 of
 * each request made with a token for 10 minutes.  The same token and
 * request again succeeds without applying anything; a different request
 * gets IdempotentParameterMismatchException; while the first call's
 * transaction is still open (it holds an advisory lock on the token) a
 * second one gets TransactionInProgressException.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "common/md5.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "api.h"
#include "jsonb_binary.h"
#include "legacy.h"
#include "expr.h"

PG_FUNCTION_INFO_V1(item_table_batch_get_item);
PG_FUNCTION_INFO_V1(item_table_batch_write_item);
PG_FUNCTION_INFO_V1(item_table_transact_get_items);
PG_FUNCTION_INFO_V1(item_table_transact_write_items);

#define BATCH_GET_MAX_KEYS		100
#define BATCH_WRITE_MAX			25
#define TRANSACT_MAX_ITEMS		100
#define BATCH_GET_MAX_BYTES		(16 * 1024 * 1024)
#define TRANSACT_MAX_BYTES		(4 * 1024 * 1024)
#define TOKEN_MAX_LEN			36
#define TOKEN_LIFETIME			"10 minutes"
/* advisory lock class for request tokens ("IT" "tk") */
#define TOKEN_LOCK_CLASS		0x4954746b

static const char *const rvccf_values[] = {"ALL_OLD", "NONE"};

/* ----------------------------------------------------------------
 * helpers
 * ----------------------------------------------------------------
 */

/*
 * raise_cancellation
 *		TransactionCanceledException with one reason per action: codes[i]
 *		(NULL: None, no message), messages[i], and the item of a failed
 *		condition (items may be NULL).
 */
static void
raise_cancellation(int n, const char *const *codes, char *const *messages,
				   AttrValue *const *items)
{
	JsonbParseState *state = NULL;
	JsonbValue *res;
	StringInfoData msg;
	int			i;

	initStringInfo(&msg);
	appendStringInfoString(&msg, "Transaction cancelled, please refer cancellation reasons for specific reasons [");
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "CancellationReasons");
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	for (i = 0; i < n; i++)
	{
		if (i > 0)
			appendStringInfoString(&msg, ", ");
		appendStringInfoString(&msg, codes[i] ? codes[i] : "None");
		pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(&state, "Code");
		ApiPushString(&state, codes[i] ? codes[i] : "None");
		if (codes[i] != NULL)
		{
			ApiPushKey(&state, "Message");
			ApiPushString(&state, messages[i]);
		}
		if (items != NULL && items[i] != NULL)
		{
			ApiPushKey(&state, "Item");
			ApiPushItem(&state, items[i]);
		}
		pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	appendStringInfoChar(&msg, ']');
	DynRaiseBody(DYN_TRANSACTION_CANCELED, JsonbValueToJsonb(res), msg.data);
}

/* message of a ValidationException raised by our own code, or NULL */
static char *
validation_message(ErrorData *edata)
{
	const char *prefix = "ValidationException: ";

	if (edata->sqlerrcode != ERRCODE_DYN_VALIDATION || edata->message == NULL)
		return NULL;
	if (strncmp(edata->message, prefix, strlen(prefix)) == 0)
		return pstrdup(edata->message + strlen(prefix));
	return pstrdup(edata->message);
}

/* the elements of an array (or the members of an object) as JsonbValues */
static List *
container_values(Jsonb *jb, List **keys)
{
	List	   *out = NIL;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (keys)
		*keys = NIL;
	if (jb == NULL)
		return NIL;
	it = JsonbIteratorInit(&jb->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY && keys)
			*keys = lappend(*keys, pnstrdup(v.val.string.val, v.val.string.len));
		else if (tok == WJB_VALUE || tok == WJB_ELEM)
		{
			JsonbValue *copy = palloc(sizeof(JsonbValue));

			*copy = v;
			out = lappend(out, copy);
		}
	}
	return out;
}

static Jsonb *
object_of(JsonbValue *v, const char *what)
{
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		DynRaise(DYN_SERIALIZATION, "Unexpected value in %s; expected an object", what);
	return JsonbValueToJsonb(v);
}

/* a (table, key) identity for duplicate detection and lock ordering */
typedef struct ItemRef
{
	Oid			relid;
	ItemKey    *key;
} ItemRef;

static int
item_ref_cmp(const ItemRef *a, const ItemRef *b)
{
	if (a->relid != b->relid)
		return a->relid < b->relid ? -1 : 1;
	return ItemKeyCompare(a->key, b->key);
}

/*
 * batch_get_one
 *		One item of BatchGetItem or TransactGetItems, as the response holds
 *		it: the stored item as it is, or (with proj) its projection; NULL
 *		when there is none.  *size gets DynamoDB's size of the stored item
 *		(0 when absent).  The read and any parse run in item_cxt, reset
 *		here; the result is a copy in the caller's context, so memory per
 *		call grows with the items returned, not with the work per item.
 */
static Jsonb *
batch_get_one(ItemTableDef *def, ItemKey *key, ProjectionExpr *proj,
			  MemoryContext item_cxt, int64 *size)
{
	MemoryContext callcxt = MemoryContextSwitchTo(item_cxt);
	SPITupleTable *before = SPI_tuptable;
	Jsonb	   *itemj = ApiFetchItem(def, key, false);
	Jsonb	   *out = NULL;

	*size = 0;
	if (itemj != NULL)
	{
		if (proj != NULL)
		{
			AttrValue  *item = ApiStoredItem(itemj);

			*size = AttrItemSize(item);
			itemj = AttrItemToJsonb(ExprProject(proj, item));
		}
		else
			*size = AttrStoredItemSizeAnyEncoding(itemj);
		MemoryContextSwitchTo(callcxt);
		out = palloc(VARSIZE(itemj));
		memcpy(out, itemj, VARSIZE(itemj));
	}
	MemoryContextSwitchTo(callcxt);
	/* a read through SPI leaves its result until SPI_finish otherwise */
	if (SPI_tuptable != NULL && SPI_tuptable != before)
	{
		SPI_freetuptable(SPI_tuptable);
		SPI_tuptable = NULL;
	}
	MemoryContextReset(item_cxt);
	return out;
}

/* ----------------------------------------------------------------
 * BatchGetItem
 * ----------------------------------------------------------------
 */
typedef struct BatchGetTable
{
	char	   *name;
	ItemTableDef *def;
	Jsonb	   *request;		/* the table's entry, for UnprocessedKeys */
	List	   *keyattrs;		/* AttrValue * per key */
	List	   *keys;			/* ItemKey * per key */
	ProjectionExpr *proj;
	bool		consistent;
} BatchGetTable;

Datum
item_table_batch_get_item(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	Jsonb	   *items_j;
	List	   *names;
	List	   *entries;
	List	   *tables = NIL;
	ListCell   *lc,
			   *lc2;
	int			total = 0;
	int			rcc;
	int64		bytes = 0;
	List	   *units = NIL;
	JsonbParseState *state = NULL;
	Jsonb	   *result;
	List	   *unprocessed = NIL;	/* BatchGetTable * with a suffix of keys */
	MemoryContext item_cxt;
	MemoryContext oldcxt;
	const char **tnames;
	Jsonb	  **tarrays;
	Jsonb	   *responses;
	Jsonb	   *rest;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	items_j = ApiGetObject(&req, "RequestItems");
	rcc = ApiGetReturnConsumedCapacity(&req);
	ApiRequestCheck(&req);
	if (items_j == NULL || JB_ROOT_COUNT(items_j) == 0)
		DynValidation("The requestItems parameter is required for BatchGetItem");

	entries = container_values(items_j, &names);
	forboth(lc, names, lc2, entries)
	{
		BatchGetTable *t = palloc0(sizeof(BatchGetTable));
		LegacyParams lp;
		ApiRequest	sub;
		Jsonb	   *keys_j;
		char	   *proj_text;
		ExprPlaceholders *ph;
		List	   *keyvals;
		ListCell   *kc;

		t->name = (char *) lfirst(lc);
		t->request = object_of((JsonbValue *) lfirst(lc2), "RequestItems");
		ApiRequestInit(&sub, t->request);
		keys_j = ApiGetArray(&sub, "Keys");
		if (keys_j == NULL)
			ApiProblem(&sub, "Value null at 'requestItems.%s.member.keys' failed to satisfy constraint: Member must not be null", t->name);
		proj_text = ApiGetString(&sub, "ProjectionExpression", "projectionExpression", false);
		(void) ApiGetBool(&sub, "ConsistentRead", &t->consistent);
		LegacyRead(&sub, LEGACY_ATTRIBUTES_TO_GET,
				   psprintf("requestItems.%s.member.", t->name), &lp);
		ApiRequestCheck(&sub);
		LegacyCheckMix(&lp, proj_text ? "ProjectionExpression" : NULL, false);
		ph = ApiReadPlaceholders(&sub, proj_text != NULL, "ProjectionExpression is null");
		if (proj_text != NULL)
			t->proj = ExprParseProjection(proj_text, strlen(proj_text), ph);
		ExprCheckAllUsed(ph);
		if (proj_text == NULL)
			t->proj = LegacyAttributesToGet(&lp);
		keyvals = container_values(keys_j, NULL);
		if (list_length(keyvals) > BATCH_GET_MAX_KEYS)
			DynValidation("1 validation error detected: Value at 'RequestItems.%s.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100",
						  t->name);
		if (list_length(keyvals) == 0)
			DynValidation("1 validation error detected: Value '[]' at 'RequestItems.%s.member.Keys' failed to satisfy constraint: Member must have length greater than or equal to 1",
						  t->name);
		foreach(kc, keyvals)
			t->keyattrs = lappend(t->keyattrs,
								  AttrItemFromJsonb(object_of((JsonbValue *) lfirst(kc), "Keys")));
		total += list_length(keyvals);
		tables = lappend(tables, t);
	}
	if (total > BATCH_GET_MAX_KEYS)
		DynValidation("Too many items requested for the BatchGetItem call");

	SPI_connect();
	/* resolve tables and keys; reject duplicates within a table */
	foreach(lc, tables)
	{
		BatchGetTable *t = (BatchGetTable *) lfirst(lc);
		ListCell   *kc;

		t->def = TableDefLookup(t->name);
		foreach(kc, t->keyattrs)
		{
			ItemKey    *k = TableDefKeyFromKeyParam(t->def, (AttrValue *) lfirst(kc));
			ListCell   *pc;

			foreach(pc, t->keys)
			{
				if (ItemKeyCompare((ItemKey *) lfirst(pc), k) == 0)
					DynValidation("Provided list of item keys contains duplicates");
			}
			t->keys = lappend(t->keys, k);
		}
	}

	/*
	 * Responses: each table's items are gathered as Jsonb (the stored item
	 * itself without a projection) and the response is built around them
	 * (jsonb_binary.c), as GetItem does, instead of a JsonbValue tree.
	 * Whatever each item needs beyond its bytes (the read, and with a
	 * projection the parsed item) lives in item_cxt, reset after each.
	 */
	item_cxt = AllocSetContextCreate(CurrentMemoryContext, "BatchGetItem item",
									 ALLOCSET_DEFAULT_SIZES);
	tnames = palloc(sizeof(char *) * list_length(tables));
	tarrays = palloc(sizeof(Jsonb *) * list_length(tables));
	foreach(lc, tables)
	{
		BatchGetTable *t = (BatchGetTable *) lfirst(lc);
		ListCell   *kc;
		int			i = 0;
		int			nfound = 0;
		int64		table_bytes = 0;
		Jsonb	  **found = palloc(sizeof(Jsonb *) * Max(1, list_length(t->keys)));

		foreach(kc, t->keys)
		{
			int64		size;

			CHECK_FOR_INTERRUPTS();
			if (bytes >= BATCH_GET_MAX_BYTES)
			{
				/* the rest of this table's keys are unprocessed */
				BatchGetTable *u = palloc0(sizeof(BatchGetTable));

				*u = *t;
				u->keyattrs = list_copy_tail(t->keyattrs, i);
				unprocessed = lappend(unprocessed, u);
				break;
			}
			i++;
			found[nfound] = batch_get_one(t->def, (ItemKey *) lfirst(kc), t->proj,
										  item_cxt, &size);
			if (found[nfound] == NULL)
				continue;
			nfound++;
			bytes += size;
			table_bytes += ((size + 4095) / 4096) * 4096;
		}
		tnames[foreach_current_index(lc)] = t->name;
		tarrays[foreach_current_index(lc)] = JsonbArrayOf(found, nfound);
		while (nfound > 0)
			pfree(found[--nfound]);
		pfree(found);
		units = ApiAddTableUnits(units, t->name,
						  ApiReadUnits(Max(table_bytes, 1), t->consistent) *
						  Max(1, list_length(t->keys)) / Max(1, list_length(t->keys)));
	}
	MemoryContextDelete(item_cxt);
	responses = JsonbObjectOf((const char *const *) tnames, tarrays, list_length(tables));
	foreach(lc, tables)
		pfree(tarrays[foreach_current_index(lc)]);

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	/* UnprocessedKeys: always present; tables cut off by the 16 MB limit */
	ApiPushKey(&state, "UnprocessedKeys");
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	{
		bool		cut = false;

		foreach(lc, tables)
		{
			BatchGetTable *t = (BatchGetTable *) lfirst(lc);
			ListCell   *uc;
			BatchGetTable *u = NULL;

			foreach(uc, unprocessed)
			{
				if (strcmp(((BatchGetTable *) lfirst(uc))->name, t->name) == 0)
					u = (BatchGetTable *) lfirst(uc);
			}
			if (u == NULL && !cut)
				continue;
			cut = true;
			ApiPushKey(&state, t->name);
			pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
			ApiPushKey(&state, "Keys");
			pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
			foreach(uc, u ? u->keyattrs : t->keyattrs)
				ApiPushItem(&state, (AttrValue *) lfirst(uc));
			pushJsonbValue(&state, WJB_END_ARRAY, NULL);
			pushJsonbValue(&state, WJB_END_OBJECT, NULL);
		}
	}
	pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	ApiPushTableCapacities(&state, units, rcc);
	rest = ApiFinishResponse(&state, CurrentMemoryContext);
	oldcxt = MemoryContextSwitchTo(callercxt);
	result = JsonbWithMember(rest, "Responses", responses);
	MemoryContextSwitchTo(oldcxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * BatchWriteItem
 * ----------------------------------------------------------------
 */
typedef struct BatchWrite
{
	const char *table;
	ItemTableDef *def;
	bool		is_put;
	AttrValue  *value;			/* Item or Key */
	ItemKey    *key;
	Jsonb	   *itemj;
	int64		size;
} BatchWrite;

/*
 * put_key_types
 *		A PutRequest item whose key attribute has another type than the
 *		schema's: BatchWriteItem answers with the Key message, where PutItem
 *		names the type mismatch (both recorded against DynamoDB).
 */
static void
put_key_types(ItemTableDef *def, const AttrValue *item)
{
	const AttrValue *h = AttrMapGet(item, def->hash_key, strlen(def->hash_key));
	const AttrValue *r = def->range_key ?
		AttrMapGet(item, def->range_key, strlen(def->range_key)) : NULL;

	if ((h != NULL && h->type != def->hash_type) ||
		(r != NULL && r->type != def->range_type))
		DynValidation("The provided key element does not match the schema");
}

Datum
item_table_batch_write_item(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	Jsonb	   *items_j;
	List	   *names;
	List	   *entries;
	List	   *writes = NIL;
	ListCell   *lc,
			   *lc2;
	int			rcc;
	List	   *units = NIL;
	JsonbParseState *state = NULL;
	Jsonb	   *result;
	int			ricm;
	List	   *written_defs = NIL;
	List	   *written_keys = NIL;
	ApiInsertCache *inserts;
	static const char *const ricm_values[] = {"SIZE", "NONE"};

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	items_j = ApiGetObject(&req, "RequestItems");
	if (items_j == NULL)
		ApiProblem(&req, "Value null at 'requestItems' failed to satisfy constraint: Member must not be null");
	rcc = ApiGetReturnConsumedCapacity(&req);
	ricm = ApiGetEnum(&req, "ReturnItemCollectionMetrics", "returnItemCollectionMetrics",
					  ricm_values, lengthof(ricm_values));
	ApiRequestCheck(&req);
	if (JB_ROOT_COUNT(items_j) == 0)
		DynValidation("The requestItems parameter is required for BatchWriteItem");

	/* the shape of the map first: 1 to 25 requests under each table */
	entries = container_values(items_j, &names);
	foreach(lc, entries)
	{
		JsonbValue *arr = (JsonbValue *) lfirst(lc);
		int			n;

		if (arr->type != jbvBinary || !JsonContainerIsArray(arr->val.binary.data))
			DynRaise(DYN_SERIALIZATION, "Unexpected value in RequestItems; expected an array of write requests");
		n = JsonContainerSize(arr->val.binary.data);
		if (n < 1 || n > BATCH_WRITE_MAX)
			DynValidation("1 validation error detected: Value '%s' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]",
						  ApiEchoMapOfLists(items_j, &ApiEchoWriteRequest));
	}

	forboth(lc, names, lc2, entries)
	{
		char	   *table = (char *) lfirst(lc);
		JsonbValue *arr = (JsonbValue *) lfirst(lc2);
		List	   *reqs;
		ListCell   *rc;

		reqs = container_values(JsonbValueToJsonb(arr), NULL);
		foreach(rc, reqs)
		{
			ApiRequest	sub;
			Jsonb	   *put;
			Jsonb	   *del;
			BatchWrite *w = palloc0(sizeof(BatchWrite));

			ApiRequestInit(&sub, object_of((JsonbValue *) lfirst(rc), "RequestItems"));
			put = ApiGetObject(&sub, "PutRequest");
			del = ApiGetObject(&sub, "DeleteRequest");
			if ((put == NULL) == (del == NULL))
				DynValidation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes");
			w->table = table;
			if (put != NULL)
			{
				ApiRequest	p;
				Jsonb	   *item;
				bool		as_stored;

				ApiRequestInit(&p, put);
				item = ApiGetObject(&p, "Item");
				if (item == NULL)
					DynValidation("1 validation error detected: Value null at 'requestItems.%s.member.putRequest.item' failed to satisfy constraint: Member must not be null", table);
				w->is_put = true;
				w->value = AttrItemFromJsonbStored(item, &as_stored);
				w->itemj = as_stored ? item : NULL;
			}
			else
			{
				ApiRequest	d;
				Jsonb	   *key;

				ApiRequestInit(&d, del);
				key = ApiGetObject(&d, "Key");
				if (key == NULL)
					DynValidation("1 validation error detected: Value null at 'requestItems.%s.member.deleteRequest.key' failed to satisfy constraint: Member must not be null", table);
				w->value = AttrItemFromJsonb(key);
			}
			writes = lappend(writes, w);
		}
	}
	if (list_length(writes) > BATCH_WRITE_MAX)
		DynValidation("Too many items requested for the BatchWriteItem call");

	SPI_connect();
	/* validate everything before the first write */
	foreach(lc, writes)
	{
		BatchWrite *w = (BatchWrite *) lfirst(lc);
		ListCell   *pc;

		w->def = TableDefLookup(w->table);
		if (w->is_put)
		{
			put_key_types(w->def, w->value);
			w->key = TableDefKeyFromItem(w->def, w->value);
			w->size = AttrItemSize(w->value);
			if (w->size > ATTR_MAX_ITEM_SIZE)
				DynValidation("Item size has exceeded the maximum allowed size");
			if (w->itemj == NULL)
				w->itemj = AttrItemToJsonb(w->value);
		}
		else
			w->key = TableDefKeyFromKeyParam(w->def, w->value);
		foreach(pc, writes)
		{
			BatchWrite *o = (BatchWrite *) lfirst(pc);

			if (o == w)
				break;
			if (o->def->relid == w->def->relid && ItemKeyCompare(o->key, w->key) == 0)
				DynValidation("Provided list of item keys contains duplicates");
		}
	}
	/*
	 * the new items of a table inserted with the table opened once
	 * (direct_insert.c's ApiInsertCache), closed before a delete and at the
	 * end
	 */
	inserts = ApiInsertCacheCreate();
	foreach(lc, writes)
	{
		BatchWrite *w = (BatchWrite *) lfirst(lc);

		if (w->is_put)
			ApiUpsertItem(w->def, w->key, w->itemj, inserts);
		else
		{
			ApiInsertCacheClose(inserts);
			ApiDeleteItem(w->def, w->key);
		}
		units = ApiAddTableUnits(units, w->def->name, ApiWriteUnits(w->size));
		written_defs = lappend(written_defs, w->def);
		written_keys = lappend(written_keys, w->key);
	}
	ApiInsertCacheClose(inserts);

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "UnprocessedItems");
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	ApiPushTableCapacities(&state, units, rcc);
	ApiPushCollectionMetricsByTable(&state, written_defs, written_keys, ricm);
	result = ApiFinishResponse(&state, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * TransactGetItems
 * ----------------------------------------------------------------
 */
/*
 * key_param_problem
 *		The item_key of a Key parameter into *key, or the message of the
 *		ValidationException that refused it (other errors propagate).
 */
static char *
key_param_problem(ItemTableDef *def, const AttrValue *keyattrs, ItemKey **key,
				  MemoryContext cxt)
{
	char	   *volatile problem = NULL;

	PG_TRY();
	{
		*key = TableDefKeyFromKeyParam(def, keyattrs);
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		MemoryContext ecxt = MemoryContextSwitchTo(cxt);

		edata = CopyErrorData();
		MemoryContextSwitchTo(ecxt);
		if (edata->sqlerrcode != ERRCODE_DYN_VALIDATION)
			PG_RE_THROW();
		FlushErrorState();
		problem = validation_message(edata);
	}
	PG_END_TRY();
	return problem;
}

Datum
item_table_transact_get_items(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	Jsonb	   *items_j;
	List	   *gets;
	ListCell   *lc;
	int			rcc;
	List	   *units = NIL;
	JsonbParseState *state = NULL;
	Jsonb	   *result;
	typedef struct TxGet
	{
		char	   *table;
		AttrValue  *keyattrs;
		ProjectionExpr *proj;
		ItemTableDef *def;
		ItemKey    *key;
	} TxGet;
	List	   *parsed = NIL;
	MemoryContext item_cxt;
	MemoryContext oldcxt;
	Jsonb	  **responses;
	Jsonb	   *rest;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	items_j = ApiGetArray(&req, "TransactItems");
	if (items_j == NULL)
		ApiProblem(&req, "Value null at 'transactItems' failed to satisfy constraint: Member must not be null");
	rcc = ApiGetReturnConsumedCapacity(&req);
	ApiRequestCheck(&req);
	gets = container_values(items_j, NULL);
	if (list_length(gets) < 1)
		DynValidation("1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1");
	if (list_length(gets) > TRANSACT_MAX_ITEMS)
		DynValidation("1 validation error detected: Value '%s' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100",
					  ApiEchoList(items_j, &ApiEchoTransactGetItem));

	foreach(lc, gets)
	{
		ApiRequest	outer;
		ApiRequest	sub;
		Jsonb	   *get;
		Jsonb	   *key;
		char	   *proj_text;
		ExprPlaceholders *ph;
		TxGet	   *g = palloc0(sizeof(TxGet));

		ApiRequestInit(&outer, object_of((JsonbValue *) lfirst(lc), "TransactItems"));
		get = ApiGetObject(&outer, "Get");
		if (get == NULL)
			DynValidation("1 validation error detected: Value null at 'transactItems.%d.member.get' failed to satisfy constraint: Member must not be null",
						  foreach_current_index(lc) + 1);
		ApiRequestInit(&sub, get);
		g->table = ApiGetTableName(&sub, "TableName", "tableName", true);
		key = ApiGetObject(&sub, "Key");
		if (key == NULL)
			ApiProblem(&sub, "Value null at 'key' failed to satisfy constraint: Member must not be null");
		proj_text = ApiGetString(&sub, "ProjectionExpression", "projectionExpression", false);
		ApiRequestCheck(&sub);
		ph = ApiReadPlaceholders(&sub, proj_text != NULL, "ProjectionExpression is null");
		if (proj_text != NULL)
			g->proj = ExprParseProjection(proj_text, strlen(proj_text), ph);
		ExprCheckAllUsed(ph);
		g->keyattrs = AttrItemFromJsonb(key);
		parsed = lappend(parsed, g);
	}

	SPI_connect();
	foreach(lc, parsed)
	{
		TxGet	   *g = (TxGet *) lfirst(lc);
		ListCell   *pc;
		char	   *problem;

		g->def = TableDefLookup(g->table);
		/* a key that does not fit the schema cancels the transaction */
		problem = key_param_problem(g->def, g->keyattrs, &g->key, callercxt);
		if (problem != NULL)
		{
			int			n = list_length(parsed);
			const char **codes = palloc0(n * sizeof(char *));
			char	  **messages = palloc0(n * sizeof(char *));

			codes[foreach_current_index(lc)] = "ValidationError";
			messages[foreach_current_index(lc)] = problem;
			raise_cancellation(n, codes, messages, NULL);
		}
		foreach(pc, parsed)
		{
			TxGet	   *o = (TxGet *) lfirst(pc);

			if (o == g)
				break;
			if (o->def->relid == g->def->relid && ItemKeyCompare(o->key, g->key) == 0)
				DynValidation("Transaction request cannot include multiple operations on one item");
		}
	}

	/*
	 * read-only statements: one snapshot for all reads.  Each response is
	 * {"Item": item} or {}, built around the item's bytes as BatchGetItem's
	 * are, and the array around those.
	 */
	item_cxt = AllocSetContextCreate(CurrentMemoryContext, "TransactGetItems item",
									 ALLOCSET_DEFAULT_SIZES);
	responses = palloc(sizeof(Jsonb *) * list_length(parsed));
	foreach(lc, parsed)
	{
		TxGet	   *g = (TxGet *) lfirst(lc);
		int64		size;
		Jsonb	   *itemj;
		static const char *const item_key[] = {"Item"};

		CHECK_FOR_INTERRUPTS();
		itemj = batch_get_one(g->def, g->key, g->proj, item_cxt, &size);
		responses[foreach_current_index(lc)] =
			JsonbObjectOf(item_key, &itemj, itemj != NULL ? 1 : 0);
		if (itemj != NULL)
			pfree(itemj);
		units = ApiAddTableUnits(units, g->def->name, 2 * ApiReadUnits(size, true));
	}
	MemoryContextDelete(item_cxt);
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushTableCapacities(&state, units, rcc);
	rest = ApiFinishResponse(&state, CurrentMemoryContext);
	oldcxt = MemoryContextSwitchTo(callercxt);
	result = JsonbWithArrayMember(rest, "Responses", responses, list_length(parsed));
	MemoryContextSwitchTo(oldcxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * TransactWriteItems
 * ----------------------------------------------------------------
 */
typedef enum TxKind
{
	TX_CONDITION_CHECK,
	TX_PUT,
	TX_DELETE,
	TX_UPDATE
} TxKind;

static const char *const tx_kind_names[] = {"ConditionCheck", "Put", "Delete", "Update"};

typedef struct TxAction
{
	TxKind		kind;
	int			index;
	char	   *table;
	ItemTableDef *def;
	AttrValue  *keyattrs;		/* Key, or the Put item */
	ItemKey    *key;
	UpdateExpr *upd;
	CondNode   *cond;
	int			rvccf;
	AttrValue  *old;
	AttrValue  *new;			/* NULL: delete (or nothing to write) */
	int64		new_size;		/* AttrItemSize(new) */
	Jsonb	   *stored;			/* Put: the request's Item when it is the
								 * stored jsonb of new, else NULL */
	bool		inserted;		/* a Put inserted first (tx_insert_first) */
	/* cancellation reason */
	const char *code;			/* NULL: None */
	char	   *message;
	AttrValue  *reason_item;
} TxAction;

static int
tx_action_lock_cmp(const ListCell *a, const ListCell *b)
{
	TxAction   *x = (TxAction *) lfirst(a);
	TxAction   *y = (TxAction *) lfirst(b);
	ItemRef		rx = {x->def->relid, x->key};
	ItemRef		ry = {y->def->relid, y->key};

	return item_ref_cmp(&rx, &ry);
}

/*
 * A ConditionExpression without placeholders means the same in every
 * action that repeats it (attribute_not_exists(pk) on each Put, the usual
 * case): it is parsed once per call and the tree shared (evaluation does
 * not change it).
 */
typedef struct TxCondMemo
{
	char	   *text;			/* NULL: none yet */
	CondNode   *cond;
} TxCondMemo;

/*
 * parse_tx_action
 *		One element of TransactItems: exactly one of ConditionCheck, Put,
 *		Delete, Update.  Request-level problems raise at once.
 */
static TxAction *
parse_tx_action(JsonbValue *v, int index, TxCondMemo *memo)
{
	static const char *const legacy[] = {"Expected", "ConditionalOperator"};
	ApiRequest	outer;
	ApiRequest	sub;
	TxAction   *a = palloc0(sizeof(TxAction));
	Jsonb	   *body = NULL;
	int			found = 0;
	int			k;
	char	   *cond_text;
	char	   *upd_text = NULL;
	Jsonb	   *target;
	ExprPlaceholders *ph;

	a->index = index;
	ApiRequestInit(&outer, object_of(v, "TransactItems"));
	for (k = 0; k < (int) lengthof(tx_kind_names); k++)
	{
		Jsonb	   *b = ApiGetObject(&outer, tx_kind_names[k]);

		if (b != NULL)
		{
			found++;
			body = b;
			a->kind = (TxKind) k;
		}
	}
	if (found != 1)
		DynValidation("TransactItems can only contain one of Check, Put, Update or Delete");

	ApiRequestInit(&sub, body);
	a->table = ApiGetTableName(&sub, "TableName", "tableName", true);
	target = ApiGetObject(&sub, a->kind == TX_PUT ? "Item" : "Key");
	if (target == NULL)
		ApiProblem(&sub, "Value null at 'transactItems.%d.member.%s.%s' failed to satisfy constraint: Member must not be null",
				   index + 1, a->kind == TX_PUT ? "put" : "key",
				   a->kind == TX_PUT ? "item" : "key");
	cond_text = ApiGetString(&sub, "ConditionExpression", "conditionExpression",
							 a->kind == TX_CONDITION_CHECK);
	if (a->kind == TX_UPDATE)
		upd_text = ApiGetString(&sub, "UpdateExpression", "updateExpression", true);
	a->rvccf = ApiGetEnum(&sub, "ReturnValuesOnConditionCheckFailure",
						  "returnValuesOnConditionCheckFailure", rvccf_values,
						  lengthof(rvccf_values));
	ApiRequestCheck(&sub);
	LegacyRefuse(&sub, legacy, lengthof(legacy), "TransactWriteItems");

	ph = ApiReadPlaceholders(&sub, cond_text != NULL || upd_text != NULL,
							 a->kind == TX_UPDATE ? "UpdateExpression and ConditionExpression are null" :
							 "ConditionExpression is null");
	if (upd_text != NULL)
		a->upd = ExprParseUpdate(upd_text, strlen(upd_text), ph);
	if (cond_text != NULL && ph->nnames == 0 && ph->nvalues == 0)
	{
		/* no placeholders: the text alone decides the tree */
		if (memo->text == NULL || strcmp(memo->text, cond_text) != 0)
		{
			memo->cond = ExprParseCondition(cond_text, strlen(cond_text), EXPR_CONDITION, ph);
			memo->text = cond_text;
		}
		a->cond = memo->cond;
	}
	else if (cond_text != NULL)
		a->cond = ExprParseCondition(cond_text, strlen(cond_text), EXPR_CONDITION, ph);
	ExprCheckAllUsed(ph);
	if (a->kind == TX_PUT)
	{
		bool		as_stored;

		a->keyattrs = AttrItemFromJsonbStored(target, &as_stored);
		a->stored = as_stored ? target : NULL;
	}
	else
		a->keyattrs = AttrItemFromJsonb(target);
	return a;
}

/*
 * raise_canceled
 *		TransactionCanceledException with one reason per action, in request
 *		order.
 */
static void
raise_canceled(List *actions)
{
	int			n = list_length(actions);
	const char **codes = palloc(n * sizeof(char *));
	char	  **messages = palloc(n * sizeof(char *));
	AttrValue **items = palloc(n * sizeof(AttrValue *));
	ListCell   *lc;

	foreach(lc, actions)
	{
		TxAction   *a = (TxAction *) lfirst(lc);
		int			i = foreach_current_index(lc);

		codes[i] = a->code;
		messages[i] = a->message;
		items[i] = a->reason_item;
	}
	raise_cancellation(n, codes, messages, items);
}

static bool
is_conflict(ErrorData *edata)
{
	return edata->sqlerrcode == ERRCODE_T_R_DEADLOCK_DETECTED ||
		edata->sqlerrcode == ERRCODE_T_R_SERIALIZATION_FAILURE ||
		edata->sqlerrcode == ERRCODE_LOCK_NOT_AVAILABLE;
}

/*
 * check_action
 *		Step 2 for one action: condition, then the new item.  Returns false
 *		when the condition failed (the reason is set).
 */
static bool
check_action(TxAction *a)
{
	AttrValue  *base;

	if (a->cond != NULL && !ExprEvalCondition(a->cond, a->old ? a->old : ApiEmptyItem()))
	{
		a->code = "ConditionalCheckFailed";
		a->message = "The conditional request failed";
		if (a->rvccf == 0 && a->old != NULL)
			a->reason_item = a->old;
		return false;
	}
	switch (a->kind)
	{
		case TX_CONDITION_CHECK:
		case TX_DELETE:
			a->new = NULL;
			break;
		case TX_PUT:
			a->new = a->keyattrs;
			if (a->new_size == 0)	/* not yet measured by tx_insert_first */
				a->new_size = AttrItemSize(a->new);
			if (a->new_size > ATTR_MAX_ITEM_SIZE)
				DynValidation("Item size has exceeded the maximum allowed size");
			break;
		case TX_UPDATE:
			if (a->old == NULL && !ApiUpdateCreates(a->upd))
			{
				a->new = NULL;
				break;
			}
			base = a->old ? a->old : TableDefKeyAttributes(a->def, a->keyattrs);
			a->new = ExprApplyUpdate(a->upd, base, a->old != NULL);
			a->new_size = AttrItemSize(a->new);
			if (a->new_size > ATTR_MAX_ITEM_SIZE)
				DynValidation("Item size to update has exceeded the maximum allowed size");
			break;
	}
	return true;
}

/*
 * tx_insert_first
 *		Step 1 for a Put whose condition holds only when its key has no item
 *		and holds on no item (attribute_not_exists(pk), ApiCondRequiresAbsent):
 *		the new item is inserted at once, in the lock order, instead of a
 *		locked read that would only find nothing -- the inserted row is
 *		this transaction's as a locked one would be, and a concurrent
 *		inserter of the key is waited for as the insert of step 3 would
 *		wait.  True when the action needs nothing more from step 1: it is
 *		inserted, or its key was taken by an insert that committed after
 *		this call's snapshot (TransactionConflict, as step 3 reports it when
 *		a concurrent insert takes a key found absent).  False: step 1 reads
 *		and locks the item as for any action (the item existed before the
 *		call: its condition fails on it).  An item over the size limit is
 *		left to check_action, whose error names it.
 */
static bool
tx_insert_first(TxAction *a, ApiInsertCache *inserts)
{
	Jsonb	   *newj;

	if (a->kind != TX_PUT || !ApiCondRequiresAbsent(a->cond, a->def))
		return false;
	a->new_size = AttrItemSize(a->keyattrs);	/* check_action's, kept */
	if (a->new_size > ATTR_MAX_ITEM_SIZE || !ExprEvalCondition(a->cond, ApiEmptyItem()))
		return false;
	newj = a->stored != NULL ? a->stored : AttrItemToJsonb(a->keyattrs);
	switch (ApiInsertIfAbsent(a->def, a->key, newj, inserts))
	{
		case DIRECT_INSERT_DONE:
			a->inserted = true;
			return true;
		case DIRECT_INSERT_EXISTS:
			/* visible to the call's snapshot: it was there before the call */
			ApiInsertCacheClose(inserts);
			if (ApiFetchItem(a->def, a->key, false) != NULL)
				return false;
			a->code = "TransactionConflict";
			a->message = "Transaction is ongoing for the item";
			return true;
		case DIRECT_INSERT_STATEMENT:
			break;
	}
	return false;
}

/*
 * ClientRequestTokens are remembered per role, as DynamoDB remembers them
 * per account: a role can neither replay nor block another role's token.
 * The advisory lock that keeps two uses of one token apart is keyed by the
 * role and the token.
 */
static int32
token_lock_key(const char *token)
{
	uint32		h = DatumGetUInt32(hash_any((const unsigned char *) token, strlen(token)));

	return (int32) hash_combine(h, (uint32) GetUserId());
}

/*
 * token_check
 *		ClientRequestToken handling before the transaction; true when this
 *		role's exact request already succeeded (nothing to do).
 */
static bool
token_check(const char *token, const char *hash)
{
	Oid			argtypes[2] = {TEXTOID, OIDOID};
	Datum		values[2];
	Oid			locktypes[2] = {INT4OID, INT4OID};
	Datum		lockargs[2];
	int			rc;
	ItemRoleSwitch sw;
	bool		isnull;
	bool		locked;
	bool		result = false;

	lockargs[0] = Int32GetDatum(TOKEN_LOCK_CLASS);
	lockargs[1] = Int32GetDatum(token_lock_key(token));
	rc = SPI_execute_with_args("SELECT pg_catalog.pg_try_advisory_xact_lock($1, $2)",
							   2, locktypes, lockargs, NULL, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "token lock failed: %s", SPI_result_code_string(rc));
	locked = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (!locked)
		DynRaise(DYN_TRANSACTION_IN_PROGRESS,
				 "Another transaction with the same ClientRequestToken is still in progress");

	values[0] = CStringGetTextDatum(token);
	values[1] = ObjectIdGetDatum(GetUserId());
	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args("DELETE FROM item_table.transaction_tokens"
							   " WHERE created_at OPERATOR(pg_catalog.<)"
							   " (pg_catalog.now() OPERATOR(pg_catalog.-) '" TOKEN_LIFETIME "'::pg_catalog.interval)",
							   0, NULL, NULL, NULL, false, 0);
	if (rc == SPI_OK_DELETE)
		rc = SPI_execute_with_args("SELECT request_hash FROM item_table.transaction_tokens"
								   " WHERE role_id OPERATOR(pg_catalog.=) $2"
								   " AND token OPERATOR(pg_catalog.=) $1",
								   2, argtypes, values, NULL, false, 1);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "token lookup failed: %s", SPI_result_code_string(rc));
	if (SPI_processed > 0)
	{
		char	   *seen = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		if (strcmp(seen, hash) != 0)
			DynRaise(DYN_IDEMPOTENT_PARAMETER_MISMATCH,
					 "The request uses the same client token as a previous, but non-identical request. Please use a different client token.");
		result = true;
	}
	return result;
}

static void
token_record(const char *token, const char *hash)
{
	Oid			argtypes[3] = {TEXTOID, TEXTOID, OIDOID};
	Datum		values[3] = {CStringGetTextDatum(token), CStringGetTextDatum(hash),
	ObjectIdGetDatum(GetUserId())};
	ItemRoleSwitch sw;
	int			rc;

	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args("INSERT INTO item_table.transaction_tokens (role_id, token, request_hash)"
							   " VALUES ($3, $1, $2)",
							   3, argtypes, values, NULL, false, 0);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "token insert failed: %s", SPI_result_code_string(rc));
}

/*
 * replay_check_privileges
 *		A replayed request writes nothing, but answers success only if the
 *		caller could make it now: the rights each action needs on its table
 *		(every action locks its row, which takes SELECT and UPDATE; a Put may
 *		insert, a Delete deletes).
 */
static void
replay_check_privileges(List *actions)
{
	ListCell   *lc;

	foreach(lc, actions)
	{
		TxAction   *a = (TxAction *) lfirst(lc);
		AclMode		need = ACL_SELECT | ACL_UPDATE;

		if (a->kind == TX_PUT)
			need |= ACL_INSERT;
		else if (a->kind == TX_DELETE)
			need |= ACL_DELETE;
		/* pg_class_aclcheck() accepts any one of the bits: test each */
		for (AclMode bit = ACL_INSERT; bit <= ACL_DELETE; bit <<= 1)
		{
			if ((need & bit) &&
				pg_class_aclcheck(a->def->relid, GetUserId(), bit) != ACLCHECK_OK)
				aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(a->def->relid));
		}
	}
}

Datum
item_table_transact_write_items(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	Jsonb	   *body = PG_GETARG_JSONB_P(0);
	ApiRequest	req;
	Jsonb	   *items_j;
	char	   *token;
	int			rcc;
	List	   *elems;
	List	   *actions = NIL;
	List	   *lock_order;
	ListCell   *lc;
	char		hash[33];
	const char *errstr = NULL;
	volatile bool cancel = false;
	bool		replay = false;
	List	   *units = NIL;
	JsonbParseState *state = NULL;
	Jsonb	   *result;
	int			ricm;
	List	   *written_defs = NIL;
	List	   *written_keys = NIL;
	TxCondMemo	memo = {NULL, NULL};
	static const char *const ricm_values[] = {"SIZE", "NONE"};

	ApiRequestInit(&req, body);
	items_j = ApiGetArray(&req, "TransactItems");
	if (items_j == NULL)
		ApiProblem(&req, "Value null at 'transactItems' failed to satisfy constraint: Member must not be null");
	token = ApiGetString(&req, "ClientRequestToken", "clientRequestToken", false);
	if (token != NULL && strlen(token) < 1)
		ApiProblem(&req, "Value '%s' at 'clientRequestToken' failed to satisfy constraint: Member must have length greater than or equal to 1", token);
	if (token != NULL && strlen(token) > TOKEN_MAX_LEN)
		ApiProblem(&req, "Value '%s' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36", token);
	rcc = ApiGetReturnConsumedCapacity(&req);
	ricm = ApiGetEnum(&req, "ReturnItemCollectionMetrics", "returnItemCollectionMetrics",
					  ricm_values, lengthof(ricm_values));
	ApiRequestCheck(&req);
	elems = container_values(items_j, NULL);
	if (list_length(elems) < 1)
		DynValidation("1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1");
	if (list_length(elems) > TRANSACT_MAX_ITEMS)
		DynValidation("1 validation error detected: Value '%s' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100",
					  ApiEchoList(items_j, &ApiEchoTransactWriteItem));
	if (VARSIZE(body) > TRANSACT_MAX_BYTES)
		DynValidation("Transaction request size has exceeded the maximum allowed size of 4 MB");

	foreach(lc, elems)
		actions = lappend(actions, parse_tx_action((JsonbValue *) lfirst(lc),
												   foreach_current_index(lc), &memo));

	SPI_connect();
	foreach(lc, actions)
	{
		TxAction   *a = (TxAction *) lfirst(lc);
		TxAction   *prev = foreach_current_index(lc) > 0 ?
			(TxAction *) list_nth(actions, foreach_current_index(lc) - 1) : NULL;
		ListCell   *pc;

		/*
		 * the previous action's table again: its definition, which the
		 * lock TableDefLookup took keeps valid for the call
		 */
		if (prev != NULL && strcmp(prev->table, a->table) == 0)
			a->def = prev->def;
		else
			a->def = TableDefLookup(a->table);
		if (a->kind == TX_UPDATE)
			ApiCheckKeyNotUpdated(a->def, a->upd);
		/* key problems are data errors: ValidationError reasons */
		PG_TRY();
		{
			a->key = (a->kind == TX_PUT) ? TableDefKeyFromItem(a->def, a->keyattrs)
				: TableDefKeyFromKeyParam(a->def, a->keyattrs);
		}
		PG_CATCH();
		{
			ErrorData  *edata;
			MemoryContext ecxt = MemoryContextSwitchTo(callercxt);

			edata = CopyErrorData();
			MemoryContextSwitchTo(ecxt);
			if (edata->sqlerrcode != ERRCODE_DYN_VALIDATION)
				PG_RE_THROW();
			FlushErrorState();
			a->code = "ValidationError";
			a->message = validation_message(edata);
			cancel = true;
		}
		PG_END_TRY();
		if (cancel)
			break;
		foreach(pc, actions)
		{
			TxAction   *o = (TxAction *) lfirst(pc);

			if (o == a)
				break;
			if (o->def->relid == a->def->relid && ItemKeyCompare(o->key, a->key) == 0)
				DynValidation("Transaction request cannot include multiple operations on one item");
		}
	}
	if (cancel)
		raise_canceled(actions);

	if (token != NULL)
	{
		char	   *text = JsonbToCString(NULL, &body->root, VARSIZE(body));

		if (!pg_md5_hash(text, strlen(text), hash, &errstr))
			elog(ERROR, "could not compute MD5: %s", errstr ? errstr : "unknown error");
		replay = token_check(token, hash);
		if (replay)
			replay_check_privileges(actions);
	}

	if (!replay)
	{
		MemoryContext oldcxt = CurrentMemoryContext;
		ResourceOwner oldowner = CurrentResourceOwner;
		TxAction   *volatile current = NULL;

		lock_order = list_copy(actions);
		list_sort(lock_order, tx_action_lock_cmp);

		BeginInternalSubTransaction(NULL);
		MemoryContextSwitchTo(oldcxt);
		PG_TRY();
		{
			/*
			 * The new items of one table are inserted with the table opened
			 * once (inserts), closed before any other read or write and
			 * before the subtransaction ends.
			 */
			ApiInsertCache *inserts = ApiInsertCacheCreate();

			/*
			 * 1. lock every target row, in (table, key) order; a create that
			 * must not replace is inserted instead (tx_insert_first)
			 */
			foreach(lc, lock_order)
			{
				current = (TxAction *) lfirst(lc);
				if (tx_insert_first(current, inserts))
					continue;
				ApiInsertCacheClose(inserts);
				current->old = ApiStoredItem(ApiFetchItem(current->def, current->key, true));
			}
			ApiInsertCacheClose(inserts);
			/* 2. conditions and new items, in request order */
			foreach(lc, actions)
			{
				current = (TxAction *) lfirst(lc);
				if (current->code != NULL || !check_action(current))
					cancel = true;
			}
			/* 3. writes, in (table, key) order */
			if (!cancel)
			{
				foreach(lc, lock_order)
				{
					Jsonb	   *newj;

					current = (TxAction *) lfirst(lc);
					if (current->kind == TX_CONDITION_CHECK || current->inserted)
						continue;
					if (current->new == NULL)
					{
						if (current->old != NULL)
						{
							ApiInsertCacheClose(inserts);
							ApiDeleteItem(current->def, current->key);
						}
						continue;
					}
					/* a Put's item as the request gave it, when already canonical */
					newj = current->stored != NULL ? current->stored :
						AttrItemToJsonb(current->new);
					if (current->old != NULL)
					{
						ApiInsertCacheClose(inserts);
						ApiUpdateItem(current->def, current->key, newj);
					}
					else if (!ApiInsertItem(current->def, current->key, newj, inserts))
					{
						/* a concurrent insert took the key we found absent */
						current->code = "TransactionConflict";
						current->message = "Transaction is ongoing for the item";
						cancel = true;
						break;
					}
				}
				ApiInsertCacheClose(inserts);
			}
			ReleaseCurrentSubTransaction();
			MemoryContextSwitchTo(oldcxt);
			CurrentResourceOwner = oldowner;
		}
		PG_CATCH();
		{
			ErrorData  *edata;
			char	   *vmsg;

			MemoryContextSwitchTo(oldcxt);
			edata = CopyErrorData();
			FlushErrorState();
			RollbackAndReleaseCurrentSubTransaction();
			MemoryContextSwitchTo(oldcxt);
			CurrentResourceOwner = oldowner;

			vmsg = validation_message(edata);
			if (current != NULL && vmsg != NULL)
			{
				current->code = "ValidationError";
				current->message = vmsg;
			}
			else if (current != NULL && is_conflict(edata))
			{
				current->code = "TransactionConflict";
				current->message = "Transaction is ongoing for the item";
			}
			else
				ReThrowError(edata);
			cancel = true;
		}
		PG_END_TRY();

		if (cancel)
			raise_canceled(actions);
		if (token != NULL)
			token_record(token, hash);
	}

	foreach(lc, actions)
	{
		TxAction   *a = (TxAction *) lfirst(lc);
		int64		size = Max(a->old ? AttrItemSize(a->old) : 0,
							   a->new ? a->new_size : 0);

		units = ApiAddTableUnits(units, a->def->name, 2 * ApiWriteUnits(size));
		if (a->kind != TX_CONDITION_CHECK)
		{
			written_defs = lappend(written_defs, a->def);
			written_keys = lappend(written_keys, a->key);
		}
	}
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushTableCapacities(&state, units, rcc);
	ApiPushCollectionMetricsByTable(&state, written_defs, written_keys, ricm);
	result = ApiFinishResponse(&state, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}
