/*-------------------------------------------------------------------------
 *
 * api_partiql.c
 *		ExecuteStatement, BatchExecuteStatement and ExecuteTransaction:
 *		DynamoDB's PartiQL operations, run by translation.
 *
 * Each statement is parsed (partiql_parser.c), compiled against the key
 * schema of its table into one ordinary DynamoDB request
 * (partiql_compile.c), and that request is run by the API function that
 * serves it (item_table_query, item_table_put_item, ...), called with
 * DirectFunctionCall as the dynamodb() dispatcher calls them.  So a
 * statement has exactly the semantics, checks, messages, locking and
 * capacity accounting of its request; this file only reads the PartiQL
 * request, builds the inner one, and reshapes the answer:
 *
 *	  - ExecuteStatement: SELECT answers Items, and when the read stopped
 *		early, NextToken and LastEvaluatedKey.  NextToken is the base64 of
 *		{"h": <hash of Statement and Parameters>, "k": <LastEvaluatedKey>},
 *		so a token given back is checked to belong to the same statement
 *		before its key becomes ExclusiveStartKey (which Query and Scan check
 *		as any other).  A write answers an empty Items (the item with
 *		RETURNING).  A SELECT of a nested path names each value by the
 *		path's last element (project_item; in a batch or a transaction the
 *		values keep their place in the item, as DynamoDB Local answers).  An
 *		INSERT whose attribute_not_exists condition fails is
 *		DuplicateItemException.
 *	  - BatchExecuteStatement: all reads (each a GetItem) or all writes;
 *		each statement runs in its own subtransaction, so one failing
 *		statement is an Error entry of Responses and changes nothing while
 *		the others take effect, as in DynamoDB.
 *	  - ExecuteTransaction: all reads (TransactGetItems) or all writes and
 *		EXISTS checks (TransactWriteItems, ClientRequestToken passed on);
 *		the cancellation reason of an INSERT whose key exists is
 *		DuplicateItem.
 *
 * The key schema comes from DescribeTable's answer (item_table_describe_
 * table), looked up once per table per call.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "common/base64.h"
#include "common/hashfn.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "api.h"
#include "partiql.h"

PG_FUNCTION_INFO_V1(item_table_execute_statement);
PG_FUNCTION_INFO_V1(item_table_batch_execute_statement);
PG_FUNCTION_INFO_V1(item_table_execute_transaction);

#define PQ_BATCH_MAX		25
#define PQ_TRANSACTION_MAX	100
#define PQ_NEXT_TOKEN_MAX	32768

static const char *const rvoccf_values[] = {"ALL_OLD", "NONE"};

/* one statement of a request, as read */
typedef struct PqItem
{
	char	   *statement;
	Jsonb	   *params;			/* the Parameters array, or NULL */
	bool		has_consistent;
	bool		consistent;
	char	   *rvoccf;			/* ReturnValuesOnConditionCheckFailure */
	PqStatement *st;
	char	   *parse_error;	/* batch: the statement's syntax error */
	PqCompiled *comp;
} PqItem;

/* key schemas of the tables a call names */
typedef struct PqTableInfo
{
	char	   *table;
	Jsonb	   *description;	/* DescribeTable's "Table" */
} PqTableInfo;

/* ----------------------------------------------------------------
 * calling the API functions
 * ----------------------------------------------------------------
 */
static Jsonb *
call_api(PGFunction fn, const char *request_text)
{
	Datum		req = DirectFunctionCall1(jsonb_in, CStringGetDatum(request_text));

	return DatumGetJsonbP(DirectFunctionCall1(fn, req));
}

static JsonbValue *
get_member(JsonbContainer *c, const char *name)
{
	return getKeyJsonValueFromContainer(c, name, strlen(name), NULL);
}

static char *
json_text(JsonbValue *v)
{
	if (v->type == jbvBinary)
		return JsonbToCString(NULL, v->val.binary.data, v->val.binary.len);
	return JsonbToCString(NULL, &JsonbValueToJsonb(v)->root, 0);
}

/* the HASH and RANGE attribute names of a KeySchema array */
static void
read_key_schema(JsonbValue *ks, const char **hash, const char **range)
{
	int			i;
	int			n;

	*hash = NULL;
	*range = NULL;
	if (ks == NULL || ks->type != jbvBinary)
		return;
	n = JsonContainerSize(ks->val.binary.data);
	for (i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(ks->val.binary.data, i);
		JsonbValue *name;
		JsonbValue *type;

		if (e == NULL || e->type != jbvBinary)
			continue;
		name = get_member(e->val.binary.data, "AttributeName");
		type = get_member(e->val.binary.data, "KeyType");
		if (name == NULL || type == NULL || name->type != jbvString || type->type != jbvString)
			continue;
		if (type->val.string.len == 4 && memcmp(type->val.string.val, "HASH", 4) == 0)
		{
			if (*hash == NULL)
				*hash = pnstrdup(name->val.string.val, name->val.string.len);
		}
		else if (*range == NULL)
			*range = pnstrdup(name->val.string.val, name->val.string.len);
	}
}

/*
 * read_multi_key_schema
 *		An index's KeySchema with more than one HASH or RANGE element (a
 *		multi-attribute key): every attribute into s, the HASH ones first.
 */
static void
read_multi_key_schema(JsonbValue *ks, PqSchema *s)
{
	int			i;
	int			n;
	int			nhash = 0;

	s->index_nkeys = 0;
	s->index_nhash = 0;
	if (ks == NULL || ks->type != jbvBinary)
		return;
	n = JsonContainerSize(ks->val.binary.data);
	if (n > (int) lengthof(s->index_keys))
		return;
	for (i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(ks->val.binary.data, i);
		JsonbValue *type;

		if (e == NULL || e->type != jbvBinary)
			return;
		type = get_member(e->val.binary.data, "KeyType");
		if (type != NULL && type->type == jbvString && type->val.string.len == 4 &&
			memcmp(type->val.string.val, "HASH", 4) == 0)
			nhash++;
	}
	if (n <= 2 && nhash <= 1)
		return;					/* classic */
	for (i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(ks->val.binary.data, i);
		JsonbValue *name = get_member(e->val.binary.data, "AttributeName");

		if (name == NULL || name->type != jbvString)
			return;
		s->index_keys[i] = pnstrdup(name->val.string.val, name->val.string.len);
	}
	s->index_nkeys = n;
	s->index_nhash = nhash;
}

/* the key schema of an index in a list of index descriptions, or false */
static bool
find_index(JsonbValue *list, const char *index, PqSchema *s)
{
	int			i;
	int			n;

	if (list == NULL || list->type != jbvBinary)
		return false;
	n = JsonContainerSize(list->val.binary.data);
	for (i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(list->val.binary.data, i);
		JsonbValue *name;

		if (e == NULL || e->type != jbvBinary)
			continue;
		name = get_member(e->val.binary.data, "IndexName");
		if (name != NULL && name->type == jbvString &&
			name->val.string.len == (int) strlen(index) &&
			memcmp(name->val.string.val, index, name->val.string.len) == 0)
		{
			read_key_schema(get_member(e->val.binary.data, "KeySchema"),
							&s->index_hash, &s->index_range);
			read_multi_key_schema(get_member(e->val.binary.data, "KeySchema"), s);
			return true;
		}
	}
	return false;
}

/*
 * lookup_schema
 *		The key schema of the statement's table (and index), through
 *		DescribeTable, which raises ResourceNotFoundException for a table
 *		that does not exist.  Descriptions are kept in *cache for the call.
 */
static void
lookup_schema(List **cache, const PqStatement *st, PqSchema *s)
{
	PqTableInfo *info = NULL;
	ListCell   *lc;
	StringInfoData req;
	JsonbValue *ks;

	foreach(lc, *cache)
	{
		PqTableInfo *t = lfirst(lc);

		if (strcmp(t->table, st->table) == 0)
			info = t;
	}
	if (info == NULL)
	{
		Jsonb	   *resp;
		JsonbValue *table;

		initStringInfo(&req);
		appendStringInfoString(&req, "{\"TableName\":");
		escape_json(&req, st->table);
		appendStringInfoChar(&req, '}');
		resp = call_api(item_table_describe_table, req.data);
		table = get_member(&resp->root, "Table");
		if (table == NULL || table->type != jbvBinary)
			elog(ERROR, "DescribeTable answered without a Table");
		info = palloc(sizeof(PqTableInfo));
		info->table = st->table;
		info->description = JsonbValueToJsonb(table);
		*cache = lappend(*cache, info);
	}
	memset(s, 0, sizeof(*s));
	s->table = st->table;
	ks = get_member(&info->description->root, "KeySchema");
	read_key_schema(ks, &s->hash_key, &s->range_key);
	if (s->hash_key == NULL)
		elog(ERROR, "DescribeTable answered without a partition key");
	if (st->index != NULL)
	{
		s->index = st->index;
		if (!find_index(get_member(&info->description->root, "GlobalSecondaryIndexes"),
						st->index, s) &&
			!find_index(get_member(&info->description->root, "LocalSecondaryIndexes"),
						st->index, s))
			DynValidation("The table does not have the specified index: %s", st->index);
	}
}

/* ----------------------------------------------------------------
 * reading requests
 * ----------------------------------------------------------------
 */

/*
 * read_item
 *		Statement, Parameters, ConsistentRead and
 *		ReturnValuesOnConditionCheckFailure of a request or of one member of
 *		a list (prefix "statements.1.member." names it in messages).
 */
static void
read_item(ApiRequest *req, ApiRequest *outer, const char *prefix, PqItem *it)
{
	ApiRequest *probs = outer ? outer : req;
	char	   *field = psprintf("%sstatement", prefix);
	int			rv;

	memset(it, 0, sizeof(*it));
	it->statement = ApiGetString(req, "Statement", field, false);
	if (it->statement == NULL)
		ApiProblem(probs, "Value null at '%s' failed to satisfy constraint: Member must not be null",
				   field);
	else
	{
		int			chars = pg_mbstrlen_with_len(it->statement, strlen(it->statement));

		if (chars < 1)
			ApiProblem(probs, "Value '%s' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1",
					   it->statement, field);
		if (chars > PQ_MAX_STATEMENT_CHARS)
			ApiProblem(probs, "Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d",
					   it->statement, field, PQ_MAX_STATEMENT_CHARS);
	}
	it->params = ApiGetArray(req, "Parameters");
	if (it->params != NULL && JB_ROOT_COUNT(it->params) == 0)
		ApiProblem(probs, "Value '[]' at '%sparameters' failed to satisfy constraint: Member must have length greater than or equal to 1",
				   prefix);
	it->has_consistent = ApiGetBool(req, "ConsistentRead", &it->consistent);
	rv = ApiGetEnum(req, "ReturnValuesOnConditionCheckFailure",
					psprintf("%sreturnValuesOnConditionCheckFailure", prefix),
					rvoccf_values, lengthof(rvoccf_values));
	if (rv >= 0)
		it->rvoccf = (char *) rvoccf_values[rv];
	if (outer != NULL && req->problems != NIL)
		outer->problems = list_concat(outer->problems, req->problems);
}

/* the elements of the Parameters array, and how many */
static JsonbValue *
param_values(Jsonb *params, int *n)
{
	JsonbValue *vals;
	int			i;

	*n = params ? JB_ROOT_COUNT(params) : 0;
	vals = palloc(sizeof(JsonbValue) * Max(*n, 1));
	for (i = 0; i < *n; i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(&params->root, i);

		vals[i] = *v;
	}
	return vals;
}

/* parse and count parameters; errors are raised */
static void
parse_item(PqItem *it)
{
	it->st = PqParse(it->statement, strlen(it->statement));
	if (it->st->nparams != (it->params ? (int) JB_ROOT_COUNT(it->params) : 0))
		DynValidation("Number of parameters in request and statement don't match.");
}

static void
compile_item(PqItem *it, List **cache, PqContext ctx)
{
	PqSchema	schema;
	JsonbValue *params;
	int			n;

	lookup_schema(cache, it->st, &schema);
	params = param_values(it->params, &n);
	it->comp = PqCompile(it->st, &schema, params, n, ctx);
}

/* the API function that runs a compiled statement on its own */
static PGFunction
op_function(PqOp op)
{
	switch (op)
	{
		case PQ_OP_QUERY:
			return item_table_query;
		case PQ_OP_SCAN:
			return item_table_scan;
		case PQ_OP_GET:
			return item_table_get_item;
		case PQ_OP_PUT:
			return item_table_put_item;
		case PQ_OP_UPDATE:
			return item_table_update_item;
		case PQ_OP_DELETE:
			return item_table_delete_item;
		case PQ_OP_CHECK:
			break;
	}
	elog(ERROR, "a condition check runs in a transaction only");
}

static bool
op_is_write(PqOp op)
{
	return op == PQ_OP_PUT || op == PQ_OP_UPDATE || op == PQ_OP_DELETE;
}

/*
 * run_item
 *		Run one compiled statement by itself; extra are further request
 *		members (",\"Limit\":5" ...).  An INSERT whose key exists raises
 *		DuplicateItemException.
 */
static Jsonb *
run_item(PqItem *it, const char *extra)
{
	StringInfoData req;
	MemoryContext cxt = CurrentMemoryContext;
	Jsonb	   *volatile resp = NULL;

	initStringInfo(&req);
	appendStringInfo(&req, "{%s", it->comp->members);
	if (it->rvoccf != NULL && op_is_write(it->comp->op))
		appendStringInfo(&req, ",\"ReturnValuesOnConditionCheckFailure\":\"%s\"", it->rvoccf);
	if (it->has_consistent && !op_is_write(it->comp->op))
		appendStringInfo(&req, ",\"ConsistentRead\":%s", it->consistent ? "true" : "false");
	appendStringInfo(&req, "%s}", extra ? extra : "");

	if (it->comp->op != PQ_OP_PUT)
		return call_api(op_function(it->comp->op), req.data);
	PG_TRY();
	{
		resp = call_api(item_table_put_item, req.data);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_DYN_CONDITIONAL_CHECK_FAILED)
			PG_RE_THROW();
		FlushErrorState();
		DynRaise(DYN_DUPLICATE_ITEM, "Duplicate primary key exists in table");
	}
	PG_END_TRY();
	return resp;
}

/* ----------------------------------------------------------------
 * NextToken
 * ----------------------------------------------------------------
 */

/* a hash of the statement and its parameters, as hex */
static char *
statement_hash(const PqItem *it)
{
	StringInfoData s;
	uint64		h;

	initStringInfo(&s);
	appendStringInfoString(&s, it->statement);
	appendStringInfoChar(&s, '\n');
	if (it->params != NULL)
		appendStringInfoString(&s, JsonbToCString(NULL, &it->params->root, 0));
	h = hash_bytes_extended((const unsigned char *) s.data, s.len, 0x50514c);
	return psprintf("%016llx", (unsigned long long) h);
}

static char *
encode_token(const PqItem *it, JsonbValue *lek)
{
	StringInfoData s;
	char	   *out;
	int			len;

	initStringInfo(&s);
	appendStringInfoString(&s, "{\"h\":");
	escape_json(&s, statement_hash(it));
	appendStringInfo(&s, ",\"k\":%s}", json_text(lek));
	out = palloc(pg_b64_enc_len(s.len) + 1);
	len = pg_b64_encode((void *) s.data, s.len, out, pg_b64_enc_len(s.len));
	if (len < 0)
		elog(ERROR, "could not encode NextToken");
	out[len] = '\0';
	return out;
}

pg_noreturn static void
invalid_token(void)
{
	DynValidation("Invalid NextToken: it is not a token this operation returned");
}

/* the LastEvaluatedKey a NextToken carries, as JSON text */
static char *
decode_token(const PqItem *it, const char *token)
{
	int			len = strlen(token);
	char	   *buf = palloc(pg_b64_dec_len(len) + 1);
	int			n;
	MemoryContext cxt = CurrentMemoryContext;
	Jsonb	   *volatile j = NULL;
	JsonbValue *h;
	JsonbValue *k;

	n = pg_b64_decode(token, len, (void *) buf, pg_b64_dec_len(len));
	if (n < 0)
		invalid_token();
	buf[n] = '\0';
	if (strlen(buf) != (size_t) n || pg_verify_mbstr(PG_UTF8, buf, n, true) == false)
		invalid_token();
	PG_TRY();
	{
		j = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf)));
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		FlushErrorState();
		j = NULL;
	}
	PG_END_TRY();
	if (j == NULL || !JB_ROOT_IS_OBJECT(j) || JB_ROOT_IS_SCALAR(j))
		invalid_token();
	h = get_member(&j->root, "h");
	k = get_member(&j->root, "k");
	if (h == NULL || h->type != jbvString || k == NULL || k->type != jbvBinary ||
		!JsonContainerIsObject(k->val.binary.data))
		invalid_token();
	if (strlen(statement_hash(it)) != (size_t) h->val.string.len ||
		memcmp(statement_hash(it), h->val.string.val, h->val.string.len) != 0)
		DynValidation("Invalid NextToken: it belongs to another statement or other parameters");
	return json_text(k);
}

/* ----------------------------------------------------------------
 * responses
 * ----------------------------------------------------------------
 */
static void
push_value(JsonbParseState **state, JsonbValue *v)
{
	pushJsonbValue(state, WJB_VALUE, v);
}

static void
push_empty_array(JsonbParseState **state)
{
	pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
	pushJsonbValue(state, WJB_END_ARRAY, NULL);
}

/* ----------------------------------------------------------------
 * nested projections
 * ----------------------------------------------------------------
 */

/* the AttributeValue at path p of item (an object of them), or NULL */
static JsonbValue *
value_at_path(JsonbContainer *item, const PqPath *p)
{
	JsonbContainer *c = item;
	JsonbValue *v = NULL;
	int			i;

	for (i = 0; i < p->nelems; i++)
	{
		const PqPathElem *e = &p->elems[i];

		if (i > 0)
		{
			/* v is an AttributeValue: a map {"M": {...}} or a list {"L": [...]} */
			JsonbValue *inner;

			if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
				return NULL;
			inner = getKeyJsonValueFromContainer(v->val.binary.data,
												 e->is_index ? "L" : "M", 1, NULL);
			if (inner == NULL || inner->type != jbvBinary)
				return NULL;
			c = inner->val.binary.data;
		}
		if (e->is_index)
		{
			if (i == 0 || !JsonContainerIsArray(c) || e->index < 0)
				return NULL;
			v = getIthJsonbValueFromContainer(c, (uint32) e->index);
		}
		else
		{
			if (!JsonContainerIsObject(c))
				return NULL;
			v = getKeyJsonValueFromContainer(c, e->name, e->namelen, NULL);
		}
		if (v == NULL)
			return NULL;
	}
	return v;
}

/*
 * project_item
 *		One item of a SELECT with a nested path in its projection (the
 *		item is whole: PqNestedProjection), pushed as DynamoDB answers it:
 *		each projected value under the name of its path's last element
 *		(mymap.nested answers "nested"; a list element keeps its index:
 *		a.b[1] answers "b[1]").  Paths the item lacks are left out.
 */
static void
project_item(JsonbParseState **state, JsonbValue *item, const PqStatement *st)
{
	int			i;

	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	for (i = 0; item->type == jbvBinary && i < st->nproj; i++)
	{
		const PqPath *p = st->proj[i];
		JsonbValue *v = value_at_path(item->val.binary.data, p);
		StringInfoData name;
		int			last = p->nelems - 1;
		int			j;

		if (v == NULL)
			continue;
		while (last > 0 && p->elems[last].is_index)
			last--;
		initStringInfo(&name);
		appendBinaryStringInfo(&name, p->elems[last].name, p->elems[last].namelen);
		for (j = last + 1; j < p->nelems; j++)
			appendStringInfo(&name, "[%d]", p->elems[j].index);
		ApiPushKey(state, name.data);
		pushJsonbValue(state, WJB_VALUE, v);
	}
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/* Items (an array) of a SELECT, projected by project_item when it must be */
static void
push_items(JsonbParseState **state, JsonbValue *items, const PqStatement *st)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (!PqNestedProjection(st) || items->type != jbvBinary)
	{
		push_value(state, items);
		return;
	}
	pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
	it = JsonbIteratorInit(items->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_ELEM)
			project_item(state, &v, st);
	}
	pushJsonbValue(state, WJB_END_ARRAY, NULL);
}

/* ----------------------------------------------------------------
 * ExecuteStatement
 * ----------------------------------------------------------------
 */
Datum
item_table_execute_statement(PG_FUNCTION_ARGS)
{
	Jsonb	   *body = PG_GETARG_JSONB_P(0);
	ApiRequest	req;
	PqItem		it;
	char	   *next_token;
	char	   *rcc_text;
	int64		limit = 0;
	bool		has_limit;
	List	   *cache = NIL;
	StringInfoData extra;
	Jsonb	   *resp;
	JsonbParseState *state = NULL;
	JsonbValue *v;
	JsonbValue *res;

	ApiRequestInit(&req, body);
	read_item(&req, NULL, "", &it);
	next_token = ApiGetString(&req, "NextToken", "nextToken", false);
	if (next_token != NULL && strlen(next_token) < 1)
		ApiProblem(&req, "Value '' at 'nextToken' failed to satisfy constraint: Member must have length greater than or equal to 1");
	if (next_token != NULL && strlen(next_token) > PQ_NEXT_TOKEN_MAX)
		ApiProblem(&req, "Value '%s' at 'nextToken' failed to satisfy constraint: Member must have length less than or equal to %d",
				   next_token, PQ_NEXT_TOKEN_MAX);
	has_limit = ApiGetInt(&req, "Limit", "limit", &limit);
	if (has_limit && limit < 1)
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
				   limit);
	if (has_limit && limit > PG_INT32_MAX)
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 2147483647",
				   limit);
	(void) ApiGetReturnConsumedCapacity(&req);
	rcc_text = ApiGetString(&req, "ReturnConsumedCapacity", "returnConsumedCapacity", false);
	ApiRequestCheck(&req);

	parse_item(&it);
	compile_item(&it, &cache, PQ_CTX_STATEMENT);

	initStringInfo(&extra);
	if (rcc_text != NULL)
	{
		appendStringInfoString(&extra, ",\"ReturnConsumedCapacity\":");
		escape_json(&extra, rcc_text);
	}
	if (it.comp->op == PQ_OP_QUERY || it.comp->op == PQ_OP_SCAN)
	{
		if (has_limit)
			appendStringInfo(&extra, ",\"Limit\":" INT64_FORMAT, limit);
		if (next_token != NULL)
			appendStringInfo(&extra, ",\"ExclusiveStartKey\":%s",
							 decode_token(&it, next_token));
	}
	resp = run_item(&it, extra.data);

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	if (it.comp->op == PQ_OP_QUERY || it.comp->op == PQ_OP_SCAN)
	{
		JsonbValue *lek = get_member(&resp->root, "LastEvaluatedKey");

		ApiPushKey(&state, "Items");
		v = get_member(&resp->root, "Items");
		if (v != NULL)
			push_items(&state, v, it.st);
		else
			push_empty_array(&state);
		if (lek != NULL)
		{
			ApiPushKey(&state, "NextToken");
			ApiPushString(&state, encode_token(&it, lek));
			ApiPushKey(&state, "LastEvaluatedKey");
			push_value(&state, lek);
		}
	}
	else if (it.st->returning != PQR_NONE)
	{
		/* RETURNING: the item, when the write answered one */
		ApiPushKey(&state, "Items");
		v = get_member(&resp->root, "Attributes");
		pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
		if (v != NULL)
			pushJsonbValue(&state, WJB_ELEM, v);
		pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	}
	else
	{
		/* a write: Items is there, empty (DynamoDB's API reference) */
		ApiPushKey(&state, "Items");
		push_empty_array(&state);
	}
	v = get_member(&resp->root, "ConsumedCapacity");
	if (v != NULL)
	{
		ApiPushKey(&state, "ConsumedCapacity");
		push_value(&state, v);
	}
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(res));
}

/* ----------------------------------------------------------------
 * BatchExecuteStatement
 * ----------------------------------------------------------------
 */

/* BatchStatementError codes of the exceptions a statement can raise */
static const struct
{
	DynError	err;
	const char *code;
}			batch_codes[] = {
	{DYN_CONDITIONAL_CHECK_FAILED, "ConditionalCheckFailed"},
	{DYN_ITEM_COLLECTION_SIZE_LIMIT, "ItemCollectionSizeLimitExceeded"},
	{DYN_REQUEST_LIMIT, "RequestLimitExceeded"},
	{DYN_VALIDATION, "ValidationError"},
	{DYN_SERIALIZATION, "ValidationError"},
	{DYN_PROVISIONED_THROUGHPUT, "ProvisionedThroughputExceeded"},
	{DYN_TRANSACTION_CONFLICT, "TransactionConflict"},
	{DYN_THROTTLING, "ThrottlingError"},
	{DYN_INTERNAL_SERVER_ERROR, "InternalServerError"},
	{DYN_RESOURCE_NOT_FOUND, "ResourceNotFound"},
	{DYN_ACCESS_DENIED, "AccessDenied"},
	{DYN_DUPLICATE_ITEM, "DuplicateItem"},
};

/* one statement's outcome in a batch */
typedef struct PqOutcome
{
	Jsonb	   *resp;			/* success */
	const char *code;			/* failure */
	char	   *message;
	Jsonb	   *item;			/* failure: the item a failed condition saw */
} PqOutcome;

/* the DynamoDB message of a caught error: its text after "Name: " */
static char *
error_message(ErrorData *edata)
{
	const char *sep = strstr(edata->message, ": ");

	if (sep != NULL && edata->sqlerrcode != ERRCODE_INSUFFICIENT_PRIVILEGE)
		return pstrdup(sep + 2);
	return pstrdup(edata->message);
}

/* the members of a caught error's JSON body (DETAIL), or NULL */
static Jsonb *
error_body(ErrorData *edata)
{
	Jsonb	   *volatile j = NULL;
	MemoryContext cxt = CurrentMemoryContext;

	if (edata->detail == NULL)
		return NULL;
	PG_TRY();
	{
		j = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(edata->detail)));
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		FlushErrorState();
		j = NULL;
	}
	PG_END_TRY();
	return j;
}

/*
 * run_batch_statement
 *		Compile and run one statement in a subtransaction; an exception of
 *		the table above is the outcome's Error, anything else is re-thrown.
 */
static void
run_batch_statement(PqItem *it, List **cache, const char *extra, PqOutcome *out)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		compile_item(it, cache, PQ_CTX_BATCH);
		out->resp = run_item(it, extra);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		int			i;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		for (i = 0; i < (int) lengthof(batch_codes); i++)
		{
			if (edata->sqlerrcode == DynErrorSqlstate(batch_codes[i].err))
				out->code = batch_codes[i].code;
		}
		if (edata->sqlerrcode == ERRCODE_INSUFFICIENT_PRIVILEGE)
			out->code = "AccessDenied";
		if (out->code == NULL)
			ReThrowError(edata);
		out->message = error_message(edata);
		if (edata->sqlerrcode == ERRCODE_DYN_CONDITIONAL_CHECK_FAILED)
		{
			Jsonb	   *body = error_body(edata);
			JsonbValue *item = body ? get_member(&body->root, "Item") : NULL;

			if (item != NULL)
				out->item = JsonbValueToJsonb(item);
		}
		out->resp = NULL;
	}
	PG_END_TRY();
}

/* a statement's ConsumedCapacity added to the batch's, per table */
static List *
add_capacity(List *caps, Jsonb *resp)
{
	JsonbValue *cc = get_member(&resp->root, "ConsumedCapacity");
	JsonbValue *t;
	JsonbValue *u;

	if (cc == NULL || cc->type != jbvBinary)
		return caps;
	t = get_member(cc->val.binary.data, "TableName");
	u = get_member(cc->val.binary.data, "CapacityUnits");
	if (t == NULL || u == NULL || t->type != jbvString || u->type != jbvNumeric)
		return caps;
	return ApiAddTableUnits(caps, pnstrdup(t->val.string.val, t->val.string.len),
							DatumGetFloat8(DirectFunctionCall1(numeric_float8,
															   NumericGetDatum(u->val.numeric))));
}

/* read the members of a list request (Statements, TransactStatements) */
static PqItem *
read_items(ApiRequest *req, Jsonb *arr, const char *member, const char *field,
		   int max, int *n)
{
	List	   *objs = ApiArrayOfObjects(arr, member);
	PqItem	   *items;
	ListCell   *lc;
	int			i = 0;

	*n = list_length(objs);
	if (*n == 0)
		DynValidation("1 validation error detected: Value '[]' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1",
					  field);
	if (*n > max)
		DynValidation("1 validation error detected: Value at '%s' failed to satisfy constraint: Member must have length less than or equal to %d",
					  field, max);
	items = palloc0(sizeof(PqItem) * *n);
	foreach(lc, objs)
	{
		ApiRequest	sub;

		ApiRequestInit(&sub, lfirst(lc));
		read_item(&sub, req, psprintf("%s.%d.member.", field, i + 1), &items[i]);
		i++;
	}
	return items;
}

Datum
item_table_batch_execute_statement(PG_FUNCTION_ARGS)
{
	Jsonb	   *body = PG_GETARG_JSONB_P(0);
	ApiRequest	req;
	Jsonb	   *arr;
	PqItem	   *items;
	PqOutcome  *outs;
	int			n;
	int			i;
	int			rcc;
	char	   *rcc_text;
	int			reads = 0;
	int			writes = 0;
	List	   *cache = NIL;
	List	   *caps = NIL;
	StringInfoData extra;
	JsonbParseState *state = NULL;
	JsonbValue *res;
	MemoryContext cxt = CurrentMemoryContext;

	ApiRequestInit(&req, body);
	arr = ApiGetArray(&req, "Statements");
	if (arr == NULL)
		ApiProblem(&req, "Value null at 'statements' failed to satisfy constraint: Member must not be null");
	rcc = ApiGetReturnConsumedCapacity(&req);
	rcc_text = ApiGetString(&req, "ReturnConsumedCapacity", "returnConsumedCapacity", false);
	ApiRequestCheck(&req);
	items = read_items(&req, arr, "Statements", "statements", PQ_BATCH_MAX, &n);
	ApiRequestCheck(&req);

	/* a statement that does not parse is its own error, the rest still run */
	for (i = 0; i < n; i++)
	{
		PG_TRY();
		{
			parse_item(&items[i]);
		}
		PG_CATCH();
		{
			items[i].parse_error = DynCaughtMessage(cxt);
			items[i].st = NULL;
		}
		PG_END_TRY();
		if (items[i].st != NULL)
		{
			if (PqIsRead(items[i].st))
				reads++;
			else
				writes++;
		}
	}
	if (reads > 0 && writes > 0)
		DynValidation("Read and write requests together in the same batch is not supported.");

	initStringInfo(&extra);
	if (rcc != RCC_NONE && rcc_text != NULL)
	{
		appendStringInfoString(&extra, ",\"ReturnConsumedCapacity\":");
		escape_json(&extra, rcc_text);
	}
	outs = palloc0(sizeof(PqOutcome) * n);
	for (i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (items[i].st == NULL)
		{
			outs[i].code = "ValidationError";
			outs[i].message = items[i].parse_error;
			continue;
		}
		run_batch_statement(&items[i], &cache, extra.data, &outs[i]);
		if (outs[i].resp != NULL)
			caps = add_capacity(caps, outs[i].resp);
	}

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "Responses");
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	for (i = 0; i < n; i++)
	{
		pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		if (outs[i].resp == NULL)
		{
			ApiPushKey(&state, "Error");
			pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
			ApiPushKey(&state, "Code");
			ApiPushString(&state, outs[i].code);
			ApiPushKey(&state, "Message");
			ApiPushString(&state, outs[i].message);
			if (outs[i].item != NULL)
			{
				JsonbValue	iv;

				ApiPushKey(&state, "Item");
				iv.type = jbvBinary;
				iv.val.binary.data = &outs[i].item->root;
				iv.val.binary.len = VARSIZE(outs[i].item) - VARHDRSZ;
				push_value(&state, &iv);
			}
			pushJsonbValue(&state, WJB_END_OBJECT, NULL);
		}
		else
		{
			JsonbValue *v = get_member(&outs[i].resp->root,
									   PqIsRead(items[i].st) ? "Item" : "Attributes");

			ApiPushKey(&state, "TableName");
			ApiPushString(&state, items[i].st->table);
			if (v != NULL)
			{
				ApiPushKey(&state, "Item");
				push_value(&state, v);
			}
		}
		pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	if (caps != NIL)
		ApiPushTableCapacities(&state, caps, rcc);
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(res));
}

/* ----------------------------------------------------------------
 * ExecuteTransaction
 * ----------------------------------------------------------------
 */
static const char *
transact_member(PqOp op)
{
	switch (op)
	{
		case PQ_OP_GET:
			return "Get";
		case PQ_OP_PUT:
			return "Put";
		case PQ_OP_UPDATE:
			return "Update";
		case PQ_OP_DELETE:
			return "Delete";
		case PQ_OP_CHECK:
			return "ConditionCheck";
		default:
			break;
	}
	elog(ERROR, "unexpected operation in a transaction");
}

/*
 * rewrite_cancellation
 *		Re-raise a TransactionCanceledException whose reason for an INSERT
 *		is ConditionalCheckFailed with DuplicateItem there, as DynamoDB
 *		answers an ExecuteTransaction; any other error is re-thrown.
 */
static void
rewrite_cancellation(ErrorData *edata, PqItem *items, int n)
{
	Jsonb	   *body = error_body(edata);
	JsonbValue *reasons = body ? get_member(&body->root, "CancellationReasons") : NULL;
	JsonbParseState *state = NULL;
	StringInfoData msg;
	bool		changed = false;
	JsonbValue *res;
	int			i;

	if (reasons == NULL || reasons->type != jbvBinary ||
		JsonContainerSize(reasons->val.binary.data) != (uint32) n)
		ReThrowError(edata);
	initStringInfo(&msg);
	appendStringInfoString(&msg, "Transaction cancelled, please refer cancellation reasons for specific reasons [");
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "CancellationReasons");
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	for (i = 0; i < n; i++)
	{
		JsonbValue *r = getIthJsonbValueFromContainer(reasons->val.binary.data, i);
		JsonbValue *code = r->type == jbvBinary ? get_member(r->val.binary.data, "Code") : NULL;
		bool		dup = code != NULL && code->type == jbvString &&
			items[i].comp->op == PQ_OP_PUT &&
			code->val.string.len == strlen("ConditionalCheckFailed") &&
			memcmp(code->val.string.val, "ConditionalCheckFailed", code->val.string.len) == 0;

		if (i > 0)
			appendStringInfoString(&msg, ", ");
		if (dup)
		{
			changed = true;
			appendStringInfoString(&msg, "DuplicateItem");
			pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
			ApiPushKey(&state, "Code");
			ApiPushString(&state, "DuplicateItem");
			ApiPushKey(&state, "Message");
			ApiPushString(&state, "Duplicate primary key exists in table");
			pushJsonbValue(&state, WJB_END_OBJECT, NULL);
		}
		else
		{
			if (code != NULL && code->type == jbvString)
				appendBinaryStringInfo(&msg, code->val.string.val, code->val.string.len);
			pushJsonbValue(&state, WJB_ELEM, r);
		}
	}
	appendStringInfoChar(&msg, ']');
	pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	if (!changed)
		ReThrowError(edata);
	DynRaiseBody(DYN_TRANSACTION_CANCELED, JsonbValueToJsonb(res), msg.data);
}

Datum
item_table_execute_transaction(PG_FUNCTION_ARGS)
{
	Jsonb	   *body = PG_GETARG_JSONB_P(0);
	ApiRequest	req;
	Jsonb	   *arr;
	PqItem	   *items;
	int			n;
	int			i;
	int			reads = 0;
	char	   *token;
	char	   *rcc_text;
	List	   *cache = NIL;
	StringInfoData treq;
	MemoryContext cxt = CurrentMemoryContext;
	Jsonb	   *volatile resp = NULL;

	ApiRequestInit(&req, body);
	arr = ApiGetArray(&req, "TransactStatements");
	if (arr == NULL)
		ApiProblem(&req, "Value null at 'transactStatements' failed to satisfy constraint: Member must not be null");
	token = ApiGetString(&req, "ClientRequestToken", "clientRequestToken", false);
	(void) ApiGetReturnConsumedCapacity(&req);
	rcc_text = ApiGetString(&req, "ReturnConsumedCapacity", "returnConsumedCapacity", false);
	ApiRequestCheck(&req);
	items = read_items(&req, arr, "TransactStatements", "transactStatements",
					   PQ_TRANSACTION_MAX, &n);
	ApiRequestCheck(&req);

	for (i = 0; i < n; i++)
	{
		parse_item(&items[i]);
		if (items[i].st->returning != PQR_NONE)
			DynValidation("Validation failed in TransactStatements[%d]: RETURNING clause is not supported in ExecuteTransaction.", i);
		if (PqIsRead(items[i].st))
			reads++;
	}
	if (reads > 0 && reads < n)
		DynValidation("ExecuteTransaction API does not support both read and write operations in the same request.");
	for (i = 0; i < n; i++)
		compile_item(&items[i], &cache, PQ_CTX_TRANSACTION);

	initStringInfo(&treq);
	appendStringInfoString(&treq, "{\"TransactItems\":[");
	for (i = 0; i < n; i++)
	{
		if (i > 0)
			appendStringInfoChar(&treq, ',');
		appendStringInfo(&treq, "{\"%s\":{%s", transact_member(items[i].comp->op),
						 items[i].comp->members);
		if (items[i].rvoccf != NULL && items[i].comp->op != PQ_OP_GET)
			appendStringInfo(&treq, ",\"ReturnValuesOnConditionCheckFailure\":\"%s\"",
							 items[i].rvoccf);
		appendStringInfoString(&treq, "}}");
	}
	appendStringInfoChar(&treq, ']');
	if (rcc_text != NULL)
	{
		appendStringInfoString(&treq, ",\"ReturnConsumedCapacity\":");
		escape_json(&treq, rcc_text);
	}
	if (reads == 0 && token != NULL)
	{
		appendStringInfoString(&treq, ",\"ClientRequestToken\":");
		escape_json(&treq, token);
	}
	appendStringInfoChar(&treq, '}');

	if (reads > 0)
		PG_RETURN_JSONB_P(call_api(item_table_transact_get_items, treq.data));

	PG_TRY();
	{
		resp = call_api(item_table_transact_write_items, treq.data);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_DYN_TRANSACTION_CANCELED)
			PG_RE_THROW();
		FlushErrorState();
		rewrite_cancellation(edata, items, n);
	}
	PG_END_TRY();
	PG_RETURN_JSONB_P(resp);
}
