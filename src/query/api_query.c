/*-------------------------------------------------------------------------
 *
 * api_query.c
 *		Query and Scan, and explain_query() / explain_scan(), which show
 *		the key range and plan a request runs: reading and checking the
 *		request, then handing it to the page reader.
 *
 * Order of checks, as DynamoDB: request shape (all problems at once),
 * legacy parameters, Select, expressions and placeholders, the shape of the
 * key condition, ExclusiveStartKey values; then the table
 * (ResourceNotFoundException), IndexName, the projection rules of an index
 * read, the key condition against the key schema, the filter (no key
 * attributes in a Query's), ExclusiveStartKey against the key schema and
 * the key condition (Scan: its segment).
 *
 * The request becomes a ReadRequest (query.h): a target, a key range, a
 * direction, the position to start after, the segment, Limit, the filter
 * and the projection.  The reader's files, bottom up: query_range.c (key
 * condition to key range, segments), query_target.c (table or index, the
 * index projection rules), query_start_key.c (ExclusiveStartKey,
 * LastEvaluatedKey), query_page.c (statements, paging, the response);
 * item_collection.c is the SQL-native reader of one item collection.
 *
 * SPI: read_entry() parses the request in the caller's context, then
 * connects SPI for the checks against the table (bind_read), the plans
 * and the page reader, and finishes it before returning; the response is
 * written into the caller's context.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/snapmgr.h"

#include "legacy.h"
#include "distributed.h"
#include "query.h"

PG_FUNCTION_INFO_V1(item_table_query);
PG_FUNCTION_INFO_V1(item_table_scan);
PG_FUNCTION_INFO_V1(item_table_explain_query);
PG_FUNCTION_INFO_V1(item_table_explain_scan);

static const char *const select_values[] = {"ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES",
"SPECIFIC_ATTRIBUTES", "COUNT"};

/* the first key attribute named by a filter, or NULL */
static const char *
filter_key_attribute(const ReadTarget *t, const CondNode *c)
{
	int			i;

	if (c == NULL)
		return NULL;
	check_stack_depth();
	if (c->kind == COND_AND || c->kind == COND_OR || c->kind == COND_NOT)
	{
		const char *a = filter_key_attribute(t, c->left);

		return a ? a : filter_key_attribute(t, c->right);
	}
	for (i = 0; i < c->noperands; i++)
	{
		const Operand *o = c->operands[i];

		while (o->kind == OPND_SIZE)
			o = o->args[0];
		if (o->kind == OPND_PATH && o->path->elems[0].kind == PATH_NAME)
		{
			const PathElem *e = &o->path->elems[0];
			const char *keys[2] = {t->hash_key, t->range_key};
			int			k;

			for (k = 0; k < 2; k++)
				if (keys[k] != NULL && e->namelen == (int) strlen(keys[k]) &&
					memcmp(e->name, keys[k], e->namelen) == 0)
					return keys[k];
			for (k = 0; t->idx != NULL && k < t->idx->nkeys; k++)
				if (e->namelen == (int) strlen(t->idx->keys[k]) &&
					memcmp(e->name, t->idx->keys[k], e->namelen) == 0)
					return t->idx->keys[k];
		}
	}
	return NULL;
}

/* ----------------------------------------------------------------
 * explaining a read
 * ----------------------------------------------------------------
 */

/*
 * explain_read
 *		The key range and the plan (EXPLAIN, COSTS OFF) of the statement a
 *		request runs, one line per text element.
 */
static List *
explain_read(ReadRequest *rr)
{
	Datum		args[6];
	int			nargs;
	SPIPlanPtr	plan = ReadRequestPlan(rr, args, &nargs);
	StringInfoData line;
	List	   *lines = NIL;

	initStringInfo(&line);
	ReadDescribeRange(&line, &rr->range, rr->target.idx ? "ikey" : "key");
	lines = lappend(lines, line.data);
	if (rr->target.idx != NULL)
		lines = lappend(lines, psprintf("index table: %s", ItemQualifiedName(rr->target.idx->relid)));
	if (rr->start_ikey != NULL)
		lines = lappend(lines, psprintf("start after: (%s, %s)", ItemKeyToText(rr->start_ikey),
										ItemKeyToText(rr->start_key)));
	if (rr->total_segments > 1)
		lines = lappend(lines, psprintf("segment: %d of %d", rr->segment, rr->total_segments));
	lines = lappend(lines, psprintf("direction: %s", rr->forward ? "forward" : "backward"));

	/* the plan for these parameters (distributed.c, for either store) */
	lines = list_concat(lines, DistExplainPlan(plan, args, nargs, ""));
	return lines;
}

static void
return_lines(FunctionCallInfo fcinfo, List *lines, MemoryContext callercxt)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ListCell   *lc;
	MemoryContext old = MemoryContextSwitchTo(callercxt);

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	foreach(lc, lines)
	{
		Datum		v = CStringGetTextDatum((char *) lfirst(lc));
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &v, &isnull);
	}
	MemoryContextSwitchTo(old);
}

/* ----------------------------------------------------------------
 * request reading shared by Query and Scan
 * ----------------------------------------------------------------
 */

/* the parts of a request Query and Scan share */
typedef struct ReadParams
{
	char	   *table_name;
	char	   *index_name;
	char	   *filter_text;
	char	   *proj_text;
	int			select;
	bool		has_limit;
	int64		limit;
	Jsonb	   *esk;
	bool		consistent;
	int			rcc;
} ReadParams;

/* a request, read and checked as far as it can be without its table */
typedef struct ReadParsed
{
	ReadParams	p;
	bool		is_query;
	bool		query_filter;	/* the filter is a QueryFilter (legacy) */
	List	   *nonindexable;	/* KeyConditions attributes with an operator
								 * no key range serves (legacy.c) */
	KeyCondition kc;			/* Query: the key condition's shape */
	AttrValue  *esk;			/* ExclusiveStartKey, or NULL */
} ReadParsed;

static void
read_common_params(ApiRequest *req, ReadParams *p)
{
	memset(p, 0, sizeof(*p));
	p->table_name = ApiGetTableName(req, "TableName", "tableName", true);
	p->index_name = ApiGetTableName(req, "IndexName", "indexName", false);
	p->filter_text = ApiGetString(req, "FilterExpression", "filterExpression", false);
	p->proj_text = ApiGetString(req, "ProjectionExpression", "projectionExpression", false);
	p->select = ApiGetEnum(req, "Select", "select", select_values, lengthof(select_values));
	p->has_limit = ApiGetInt(req, "Limit", "limit", &p->limit);
	if (p->has_limit && p->limit < 1)
		ApiProblem(req, "Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
				   p->limit);
	/* Limit is a 32-bit integer in DynamoDB's model */
	if (p->has_limit && p->limit > PG_INT32_MAX)
		ApiProblem(req, "Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 2147483647",
				   p->limit);
	p->esk = ApiGetObject(req, "ExclusiveStartKey");
	(void) ApiGetBool(req, "ConsistentRead", &p->consistent);
	p->rcc = ApiGetReturnConsumedCapacity(req);
}

/*
 * Select against ProjectionExpression (or AttributesToGet) and IndexName
 * (reference 4.7)
 */
static void
check_select(const ReadParams *p, bool attributes_to_get, const char *operation)
{
	if (attributes_to_get)
	{
		if (p->select == SELECT_ALL_ATTRIBUTES)
			DynValidation("Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES");
		if (p->select == SELECT_ALL_PROJECTED_ATTRIBUTES)
			DynValidation("Cannot specify the AttributesToGet when choosing to get ALL_PROJECTED_ATTRIBUTES");
		if (p->select == SELECT_COUNT)
			DynValidation("Cannot specify the AttributesToGet when choosing to get only the Count");
	}
	else if (p->proj_text != NULL)
	{
		if (p->select == SELECT_ALL_ATTRIBUTES)
			DynValidation("Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES");
		if (p->select == SELECT_ALL_PROJECTED_ATTRIBUTES)
			DynValidation("Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES");
		if (p->select == SELECT_COUNT)
			DynValidation("Cannot specify the ProjectionExpression when choosing to get only the Count");
	}
	else if (p->select == SELECT_SPECIFIC_ATTRIBUTES)
		DynValidation("Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES");
	if (p->select == SELECT_ALL_PROJECTED_ATTRIBUTES && p->index_name == NULL)
		DynValidation("ALL_PROJECTED_ATTRIBUTES can be used only when %s using an IndexName", operation);
}

/* "A, B" from the expression parameters present, in DynamoDB's order */
static char *
expression_params(const char *key_text, const ReadParams *p)
{
	StringInfoData s;

	initStringInfo(&s);
	if (p->proj_text != NULL)
		appendStringInfoString(&s, "ProjectionExpression");
	if (p->filter_text != NULL)
		appendStringInfo(&s, "%sFilterExpression", s.len ? ", " : "");
	if (key_text != NULL)
		appendStringInfo(&s, "%sKeyConditionExpression", s.len ? ", " : "");
	return s.data;
}

/* the legacy filter and projection of a read, when no expression gave them */
static void
legacy_filter_projection(const ReadParams *p, const LegacyParams *lp, ReadRequest *rr)
{
	if (p->filter_text == NULL)
		rr->filter = LegacyFilter(lp);
	if (p->proj_text == NULL)
		rr->projection = LegacyAttributesToGet(lp);
}

/* parse FilterExpression and ProjectionExpression into rr */
static void
parse_filter_projection(const ReadParams *p, ExprPlaceholders *ph, ReadRequest *rr)
{
	if (p->filter_text != NULL)
		rr->filter = ExprParseCondition(p->filter_text, strlen(p->filter_text),
										EXPR_FILTER, ph);
	if (p->proj_text != NULL)
		rr->projection = ExprParseProjection(p->proj_text, strlen(p->proj_text), ph);
}

static void
init_read_request(const ReadParams *p, ReadRequest *rr)
{
	memset(rr, 0, sizeof(*rr));
	rr->forward = true;
	rr->limit = p->has_limit ? p->limit : 0;
	rr->count_only = p->select == SELECT_COUNT;
	rr->consistent = p->consistent;
	rr->rcc = p->rcc;
}

/*
 * bind_read
 *		The checks of a request that need its table, as DynamoDB orders
 *		them: the table, IndexName and the projection rules of an index,
 *		the key condition against the key schema and the filter (Query),
 *		the ExclusiveStartKey (SPI connected).
 */
static void
bind_read(ReadParsed *rp, ReadRequest *rr)
{
	ItemTableDef *def = TableDefLookup(rp->p.table_name);
	ItemKey    *partition = NULL;

	ReadTargetInit(def, rp->p.index_name, &rr->target);
	ReadCheckIndexRead(&rr->target, rp->p.select, rp->p.consistent, &rr->projection, rr->filter);
	if (rp->is_query)
	{
		const char *filter_key;

		if (rp->nonindexable != NIL)
		{
			List	   *conditioned = NIL;
			int			i;

			for (i = 0; i < rp->kc.nleaves; i++)
				conditioned = lappend(conditioned, (void *) rp->kc.leaves[i].attr);
			LegacyCheckIndexable(rp->nonindexable, conditioned, rr->target.hash_key,
								 rr->target.range_key);
			/* a multi-attribute index key: no such operator on any part */
			for (i = 0; rr->target.idx != NULL && i < rr->target.idx->nkeys; i++)
			{
				ListCell   *lc;

				foreach(lc, rp->nonindexable)
					if (strcmp((char *) lfirst(lc), rr->target.idx->keys[i]) == 0)
						DynValidation("Attempted conditional constraint is not an indexable operation");
			}
		}
		ReadKeyConditionRange(&rr->target, &rp->kc, &rr->range, &partition);
		filter_key = filter_key_attribute(&rr->target, rr->filter);
		if (filter_key != NULL)
			DynValidation("%s can only contain non-primary key attributes: Primary key attribute: %s",
						  rp->query_filter ? "QueryFilter" : "Filter Expression", filter_key);
	}
	ReadApplyStartKey(rr, rp->esk, partition, !rp->is_query);
	rr->partition = partition;
}

/*
 * read_entry
 *		The body of query/scan (the response) and explain_query/explain_scan
 *		(the range and plan, as rows): parse reads and checks the request
 *		in the caller's context; SPI is connected for the checks against
 *		the table and the reading or explaining, and finished here, before
 *		the result (in callercxt) is returned.
 */
static Datum
read_entry(FunctionCallInfo fcinfo,
		   void (*parse) (Jsonb *body, ReadParsed *rp, ReadRequest *rr), bool explain)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ReadParsed	rp;
	ReadRequest rr;
	List	   *lines = NIL;
	Jsonb	   *result = NULL;

	parse(PG_GETARG_JSONB_P(0), &rp, &rr);
	SPI_connect();
	bind_read(&rp, &rr);
	if (explain)
		lines = explain_read(&rr);
	else
		result = ReadRun(&rr, callercxt);
	if (explain)
		return_lines(fcinfo, lines, callercxt);
	SPI_finish();
	if (explain)
		return (Datum) 0;
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * Query
 * ----------------------------------------------------------------
 */

/*
 * parse_query
 *		Read and check a Query request as far as it can be without its
 *		table.
 */
static void
parse_query(Jsonb *body, ReadParsed *rp, ReadRequest *rr)
{
	ApiRequest	req;
	ReadParams	p;
	char	   *key_text;
	bool		forward = true;
	ExprPlaceholders *ph;
	CondNode   *keycond;
	LegacyParams lp;
	Jsonb	   *names;
	Jsonb	   *values;

	ApiRequestInit(&req, body);
	read_common_params(&req, &p);
	key_text = ApiGetString(&req, "KeyConditionExpression", "keyConditionExpression", false);
	(void) ApiGetBool(&req, "ScanIndexForward", &forward);
	LegacyRead(&req, LEGACY_ATTRIBUTES_TO_GET | LEGACY_KEY_CONDITIONS | LEGACY_QUERY_FILTER |
			   LEGACY_CONDITIONAL_OPERATOR, "", &lp);
	ApiRequestCheck(&req);
	LegacyCheckMix(&lp, expression_params(key_text, &p), key_text != NULL);
	LegacyCheckConditionalOperator(&lp);
	init_read_request(&p, rr);
	/* QueryFilter and AttributesToGet, checked before the key condition */
	legacy_filter_projection(&p, &lp, rr);
	check_select(&p, lp.attributes_to_get != NULL, "Querying");
	if (key_text == NULL && lp.key_conditions == NULL)
		DynValidation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.");

	rr->forward = forward;
	names = ApiGetObject(&req, "ExpressionAttributeNames");
	values = ApiGetObject(&req, "ExpressionAttributeValues");
	if (key_text == NULL && p.filter_text == NULL && p.proj_text == NULL && names != NULL)
		DynValidation("ExpressionAttributeNames can only be specified when using expressions: ProjectionExpression, FilterExpression and KeyConditionExpression are null");
	if (key_text == NULL && p.filter_text == NULL && values != NULL)
		DynValidation("ExpressionAttributeValues can only be specified when using expressions: FilterExpression and KeyConditionExpression are null");
	ph = ExprPlaceholdersFromRequest(names, values);
	keycond = key_text != NULL ?
		ExprParseCondition(key_text, strlen(key_text), EXPR_KEY_CONDITION, ph) : NULL;
	parse_filter_projection(&p, ph, rr);
	ExprCheckAllUsed(ph);
	rp->nonindexable = NIL;
	if (keycond == NULL)
		keycond = LegacyKeyConditions(&lp, &rp->nonindexable);
	rp->query_filter = lp.query_filter != NULL && p.filter_text == NULL;
	ReadKeyConditionShape(keycond, &rp->kc);
	rp->esk = ReadParseStartKey(p.esk);
	rp->p = p;
	rp->is_query = true;
}

/*
 * item_table.query(request jsonb) -> jsonb
 *		DynamoDB Query.
 */
Datum
item_table_query(PG_FUNCTION_ARGS)
{
	return read_entry(fcinfo, parse_query, false);
}

/*
 * item_table.explain_query(request jsonb) -> setof text
 *		The key range and plan a Query request runs (nothing is read).
 */
Datum
item_table_explain_query(PG_FUNCTION_ARGS)
{
	return read_entry(fcinfo, parse_query, true);
}

/* ----------------------------------------------------------------
 * Scan
 * ----------------------------------------------------------------
 */
/*
 * parse_scan
 *		Read and check a Scan request as far as it can be without its
 *		table.
 */
static void
parse_scan(Jsonb *body, ReadParsed *rp, ReadRequest *rr)
{
	ApiRequest	req;
	ReadParams	p;
	LegacyParams lp;
	bool		has_segment;
	bool		has_total;
	int64		segment = 0;
	int64		total = 0;
	Jsonb	   *names;
	Jsonb	   *values;
	ExprPlaceholders *ph;

	ApiRequestInit(&req, body);
	read_common_params(&req, &p);
	has_segment = ApiGetInt(&req, "Segment", "segment", &segment);
	has_total = ApiGetInt(&req, "TotalSegments", "totalSegments", &total);
	if (has_segment && segment < 0)
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'segment' failed to satisfy constraint: Member must have value greater than or equal to 0",
				   segment);
	if (has_segment && segment > 999999)
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'segment' failed to satisfy constraint: Member must have value less than or equal to 999999",
				   segment);
	if (has_total && total < 1)
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'totalSegments' failed to satisfy constraint: Member must have value greater than or equal to 1",
				   total);
	if (has_total && total > 1000000)
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000",
				   total);
	LegacyRead(&req, LEGACY_ATTRIBUTES_TO_GET | LEGACY_SCAN_FILTER | LEGACY_CONDITIONAL_OPERATOR,
			   "", &lp);
	ApiRequestCheck(&req);
	LegacyCheckMix(&lp, expression_params(NULL, &p), false);
	LegacyCheckConditionalOperator(&lp);
	if (has_segment && !has_total)
		DynValidation("The TotalSegments parameter is required but was not present in the request when Segment parameter is present");
	if (has_total && !has_segment)
		DynValidation("The Segment parameter is required but was not present in the request when parameter TotalSegments is present");
	if (has_total && segment >= total)
		DynValidation("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: " INT64_FORMAT " is not less than TotalSegments: " INT64_FORMAT,
					  segment, total);
	check_select(&p, lp.attributes_to_get != NULL, "Scanning");

	init_read_request(&p, rr);
	rr->total_segments = has_total ? (int) total : 0;
	rr->segment = (int) segment;
	names = ApiGetObject(&req, "ExpressionAttributeNames");
	values = ApiGetObject(&req, "ExpressionAttributeValues");
	if (p.filter_text == NULL && p.proj_text == NULL && names != NULL)
		DynValidation("ExpressionAttributeNames can only be specified when using expressions: ProjectionExpression and FilterExpression are null");
	if (p.filter_text == NULL && values != NULL)
		DynValidation("ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null");
	ph = ExprPlaceholdersFromRequest(names, values);
	parse_filter_projection(&p, ph, rr);
	ExprCheckAllUsed(ph);
	legacy_filter_projection(&p, &lp, rr);
	rp->esk = ReadParseStartKey(p.esk);
	rp->p = p;
	rp->is_query = false;
	rp->query_filter = false;
	rp->nonindexable = NIL;
}

/*
 * item_table.scan(request jsonb) -> jsonb
 *		DynamoDB Scan, in key order, optionally one segment of a parallel
 *		scan.
 */
Datum
item_table_scan(PG_FUNCTION_ARGS)
{
	return read_entry(fcinfo, parse_scan, false);
}

/*
 * item_table.explain_scan(request jsonb) -> setof text
 *		The key range and plan a Scan request runs (nothing is read).
 */
Datum
item_table_explain_scan(PG_FUNCTION_ARGS)
{
	return read_entry(fcinfo, parse_scan, true);
}

