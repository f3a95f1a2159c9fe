/*-------------------------------------------------------------------------
 *
 * fuzz_request.c
 *		libFuzzer target: reading a request (api_common.c ApiRequest*,
 *		ApiGet*, ApiReadPlaceholders in api_item.c), the placeholders and
 *		expressions it carries (expr_common.c, expr_parser.c), and the item
 *		and key it names (attr_value.c, TableDefKeyFrom*).
 *
 * The input is the JSON text of a request body.  It is read the way the
 * item operations read theirs, in DynamoDB's order (shape and all
 * constraint problems at once, legacy parameters mixed with expressions,
 * placeholders, expressions, unused placeholders, the legacy parameters
 * compiled into trees (legacy.c), then attribute values), up to the
 * point where the real functions connect to SPI and look up the table.
 * From there three fixed table definitions stand in for the catalog: "pk"
 * (S) with sort key "sk" (N or S), and a hash-only table keyed by "id" (B).
 * Keys are built from Item and Key as PutItem / GetItem build them; every
 * key built must decode to the key attributes it came from.  An
 * UpdateExpression that parses is applied to the item (or the key
 * attributes), as UpdateItem would; condition and filter are evaluated and
 * the projection applied.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "api.h"
#include "expr.h"
#include "fuzz_support.h"
#include "legacy.h"

static const char *const return_values[] = {"NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"};
static const char *const select_values[] = {"ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "SPECIFIC_ATTRIBUTES", "COUNT"};

typedef struct RequestRun
{
	const char *text;
	int			len;
	Jsonb	   *body;
	/* read from the body */
	Jsonb	   *item_j;
	Jsonb	   *key_j;
	CondNode   *cond;
	CondNode   *filter;
	UpdateExpr *upd;
	ProjectionExpr *proj;
	/* for the key checks */
	ItemTableDef *def;
	AttrValue  *attrs;
	bool		from_item;
} RequestRun;

static void
run_body(void *arg)
{
	RequestRun *run = arg;

	run->body = fz_json_to_jsonb(run->text, run->len);
}

static void
run_read(void *arg)
{
	RequestRun *run = arg;
	ApiRequest	req;
	char	   *cond_text;
	char	   *upd_text;
	char	   *proj_text;
	char	   *filter_text;
	char	   *keycond_text;
	bool		consistent;
	int64		limit;
	StringInfoData exprs;
	ExprPlaceholders *ph;
	ListCell   *lc;
	LegacyParams lp;
	CondNode   *keycond = NULL;

	ApiRequestInit(&req, run->body);
	(void) ApiGetTableName(&req, "TableName", "tableName", true);
	(void) ApiGetTableName(&req, "IndexName", "indexName", false);
	run->item_j = ApiGetObject(&req, "Item");
	run->key_j = ApiGetObject(&req, "Key");
	if (run->item_j == NULL && run->key_j == NULL)
		ApiProblem(&req, "Value null at 'item' failed to satisfy constraint: Member must not be null");
	cond_text = ApiGetString(&req, "ConditionExpression", "conditionExpression", false);
	upd_text = ApiGetString(&req, "UpdateExpression", "updateExpression", false);
	proj_text = ApiGetString(&req, "ProjectionExpression", "projectionExpression", false);
	filter_text = ApiGetString(&req, "FilterExpression", "filterExpression", false);
	keycond_text = ApiGetString(&req, "KeyConditionExpression", "keyConditionExpression", false);
	(void) ApiGetEnum(&req, "ReturnValues", "returnValues", return_values, lengthof(return_values));
	(void) ApiGetEnum(&req, "Select", "select", select_values, lengthof(select_values));
	(void) ApiGetReturnConsumedCapacity(&req);
	(void) ApiGetBool(&req, "ConsistentRead", &consistent);
	(void) ApiGetBool(&req, "ScanIndexForward", &consistent);
	(void) ApiGetInt(&req, "Limit", "limit", &limit);
	(void) ApiGetInt(&req, "Segment", "segment", &limit);
	(void) ApiGetObject(&req, "ExclusiveStartKey");
	foreach(lc, ApiArrayOfObjects(ApiGetArray(&req, "TransactItems"), "TransactItems"))
		(void) lfirst(lc);
	LegacyRead(&req, LEGACY_EXPECTED | LEGACY_CONDITIONAL_OPERATOR | LEGACY_ATTRIBUTE_UPDATES |
			   LEGACY_ATTRIBUTES_TO_GET | LEGACY_KEY_CONDITIONS | LEGACY_QUERY_FILTER |
			   LEGACY_SCAN_FILTER, "", &lp);
	ApiRequestCheck(&req);

	initStringInfo(&exprs);
	if (upd_text)
		appendStringInfoString(&exprs, "UpdateExpression");
	if (cond_text)
		appendStringInfo(&exprs, "%sConditionExpression", exprs.len ? ", " : "");
	if (proj_text)
		appendStringInfo(&exprs, "%sProjectionExpression", exprs.len ? ", " : "");
	if (filter_text)
		appendStringInfo(&exprs, "%sFilterExpression", exprs.len ? ", " : "");
	if (keycond_text)
		appendStringInfo(&exprs, "%sKeyConditionExpression", exprs.len ? ", " : "");
	LegacyCheckMix(&lp, exprs.data, keycond_text != NULL);
	LegacyCheckConditionalOperator(&lp);

	ph = ApiReadPlaceholders(&req,
							 cond_text || upd_text || proj_text || filter_text || keycond_text,
							 "All expressions are null");
	if (keycond_text)
		keycond = ExprParseCondition(keycond_text, strlen(keycond_text), EXPR_KEY_CONDITION, ph);
	if (upd_text)
		run->upd = ExprParseUpdate(upd_text, strlen(upd_text), ph);
	if (cond_text)
		run->cond = ExprParseCondition(cond_text, strlen(cond_text), EXPR_CONDITION, ph);
	if (filter_text)
		run->filter = ExprParseCondition(filter_text, strlen(filter_text), EXPR_FILTER, ph);
	if (proj_text)
		run->proj = ExprParseProjection(proj_text, strlen(proj_text), ph);
	ExprCheckAllUsed(ph);

	/* the legacy parameters, compiled into the same trees */
	if (!upd_text)
		run->upd = LegacyAttributeUpdates(&lp);
	if (!cond_text)
		run->cond = LegacyExpected(&lp);
	if (!filter_text)
		run->filter = LegacyFilter(&lp);
	if (!proj_text)
		run->proj = LegacyAttributesToGet(&lp);
	if (!keycond_text && lp.key_conditions)
	{
		List	   *nonindexable;

		keycond = LegacyKeyConditions(&lp, &nonindexable);
		LegacyCheckIndexable(nonindexable, NIL, "pk", "sk");
	}
	(void) keycond;
}

/* table 0: pk (S) + sk (N); 1: pk (S) + sk (S); 2: id (B) */
#define NUM_TABLES 3

static ItemTableDef *
table_def(int which)
{
	ItemTableDef *def = palloc0(sizeof(ItemTableDef));

	def->name = "fuzz";
	def->valid = true;
	if (which == 2)
	{
		def->hash_key = "id";
		def->hash_type = ATTR_B;
	}
	else
	{
		def->hash_key = "pk";
		def->hash_type = ATTR_S;
		def->range_key = "sk";
		def->range_type = which == 0 ? ATTR_N : ATTR_S;
	}
	return def;
}

/* the decoded part must be the attribute it was built from */
static void
check_part(const ItemKeyPart *part, const AttrValue *attr, const char *what)
{
	ItemKeyPart expect;

	fz_check(attr != NULL, "%s: key built without the attribute", what);
	AttrKeyPart(attr, &expect);
	fz_check(part->type == expect.type, "%s: key part has the wrong type", what);
	if (part->type == ITEMKEY_N)
		fz_check(DynNumberCompare(&part->num, &expect.num) == 0,
				 "%s: number changed in the key", what);
	else
		fz_check(part->len == expect.len &&
				 memcmp(part->bytes, expect.bytes, part->len) == 0,
				 "%s: bytes changed in the key", what);
}

static void
run_key(void *arg)
{
	RequestRun *run = arg;
	ItemTableDef *def = run->def;
	ItemKey    *key;
	ItemKeyParsed parsed;
	const char *why = NULL;
	AttrValue  *keyattrs;

	key = run->from_item ? TableDefKeyFromItem(def, run->attrs) :
		TableDefKeyFromKeyParam(def, run->attrs);
	fz_check(KeyCodecDecode(ITEMKEY_DATA(key), ITEMKEY_LEN(key), &parsed, &why),
			 "a key built from a request does not decode: %s", why);
	fz_check(parsed.bound == ITEMKEY_EXACT, "a key built from a request is a bound");
	check_part(&parsed.partition,
			   AttrMapGet(run->attrs, def->hash_key, strlen(def->hash_key)), "partition");
	if (def->range_key)
		check_part(&parsed.sort,
				   AttrMapGet(run->attrs, def->range_key, strlen(def->range_key)), "sort");
	else
		fz_check(parsed.sort.type == ITEMKEY_NONE, "hash-only key with a sort part");
	keyattrs = TableDefKeyAttributes(def, run->attrs);
	fz_check(keyattrs->u.map.count == (def->range_key ? 2 : 1),
			 "key attributes of a keyed item: %d", keyattrs->u.map.count);

	/* what UpdateItem and PutItem do next */
	ApiCheckKeyNotUpdated(def, run->upd);
	if (run->cond)
		(void) ExprEvalCondition(run->cond, run->from_item ? run->attrs : AttrNewMap());
	if (run->filter)
		(void) ExprEvalCondition(run->filter, run->attrs);
	if (run->proj)
		(void) ExprProject(run->proj, run->attrs);
	if (run->upd)
	{
		AttrValue  *after = ExprApplyUpdate(run->upd,
											run->from_item ? run->attrs : keyattrs,
											run->from_item);

		(void) AttrItemSize(after);
		(void) AttrItemToJsonb(after);
	}
}

static void
run_attrs(void *arg)
{
	RequestRun *run = arg;
	bool		as_stored;

	run->attrs = run->from_item ? AttrItemFromJsonbStored(run->item_j, &as_stored) :
		AttrItemFromJsonb(run->key_j);
	(void) AttrItemSize(run->attrs);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	RequestRun	run;
	int			from;
	int			t;

	if (size > 65536)
		return -1;
	fz_input_begin();
	memset(&run, 0, sizeof(run));
	run.text = fz_cstring(data, size);
	run.len = (int) size;
	if (!fz_call(run_body, &run) || !fz_call(run_read, &run))
	{
		fz_input_end();
		return 0;
	}
	for (from = 0; from < 2; from++)
	{
		run.from_item = (from == 0);
		if ((run.from_item ? run.item_j : run.key_j) == NULL)
			continue;
		if (!fz_call(run_attrs, &run))
			continue;
		for (t = 0; t < NUM_TABLES; t++)
		{
			run.def = table_def(t);
			(void) fz_call(run_key, &run);
		}
	}
	fz_input_end();
	return 0;
}
