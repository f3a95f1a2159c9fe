/*-------------------------------------------------------------------------
 *
 * api_stream.c
 *		The DynamoDB Streams API -- ListStreams, DescribeStream,
 *		GetShardIterator, GetRecords -- and StreamSpecification in
 *		CreateTable, UpdateTable and DescribeTable.
 *
 * A stream has one shard (stream.c): DescribeStream lists it with its
 * SequenceNumberRange, open while the stream is enabled and closed (an
 * EndingSequenceNumber) once it is disabled; it has no parent.
 *
 * Shard iterators are opaque: base64 of "<stream id>:<position>:<issued
 * at, microseconds>:<HMAC>", where the position is the sequence number
 * after which the next read starts, and the HMAC-SHA256 (first 16 bytes,
 * hex) over the first three fields is keyed with item_table.stream_secret
 * (made at installation, readable only by the extension's owner).  A
 * changed or made-up iterator fails the HMAC: ValidationException.  An
 * iterator issued more than 15 minutes before GetRecords is
 * ExpiredIteratorException; one whose position is before the trim horizon
 * (records after it were trimmed) is TrimmedDataAccessException.  Every
 * GetRecords answers a NextShardIterator issued now, except when the
 * shard is closed and read to its end: then there is none, which is how
 * DynamoDB tells a reader a shard is finished.
 *
 * The time an iterator is issued at, and the time GetRecords compares it
 * with, are the server's clock.  Whoever could choose them could make an
 * iterator that never expires, so only the as_of variants,
 * get_shard_iterator(request, as_of) and get_records(request, as_of)
 * (their own C entry points below), take a time: their EXECUTE is revoked
 * from PUBLIC (superusers, and roles a superuser grants it to, for tests
 * of expiry).  The one-argument functions, which item_table.dynamodb()
 * and so the gateway call, never read a second argument.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "common/hmac.h"
#include "common/sha2.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "api.h"
#include "jsonb_binary.h"
#include "stream.h"

PG_FUNCTION_INFO_V1(item_table_list_streams);
PG_FUNCTION_INFO_V1(item_table_describe_stream);
PG_FUNCTION_INFO_V1(item_table_get_shard_iterator);
PG_FUNCTION_INFO_V1(item_table_get_records);
PG_FUNCTION_INFO_V1(item_table_get_shard_iterator_as_of);
PG_FUNCTION_INFO_V1(item_table_get_records_as_of);

#define ITERATOR_LIFETIME_USECS	(INT64CONST(15) * 60 * USECS_PER_SEC)

static const char *const iterator_types[] = {"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER",
"AFTER_SEQUENCE_NUMBER"};

static bool
have_stream_catalog(void)
{
	Oid			nsp = get_namespace_oid(ITEM_TABLE_SCHEMA, true);

	return OidIsValid(nsp) && OidIsValid(get_relname_relid("streams", nsp));
}

/* ----------------------------------------------------------------
 * StreamSpecification (CreateTable, UpdateTable, DescribeTable)
 * ----------------------------------------------------------------
 */

/*
 * ApiStreamSpecParse
 *		Read StreamSpecification; false when absent.  *view is -1 when no
 *		view type was given.
 */
bool
ApiStreamSpecParse(ApiRequest *req, bool *enabled, int *view)
{
	Jsonb	   *spec = ApiGetObject(req, "StreamSpecification");
	ApiRequest	sub;

	*enabled = false;
	*view = -1;
	if (spec == NULL)
		return false;
	ApiRequestInit(&sub, spec);
	if (!ApiGetBool(&sub, "StreamEnabled", enabled))
		ApiProblem(&sub, "Value null at 'streamSpecification.streamEnabled' failed to satisfy constraint: Member must not be null");
	*view = ApiGetEnum(&sub, "StreamViewType", "streamSpecification.streamViewType",
					   stream_view_types, 4);
	req->problems = list_concat(req->problems, sub.problems);
	return true;
}

/* the semantic checks, after the shape checks passed */
void
ApiStreamSpecCheck(bool enabled, int view)
{
	if (enabled && view < 0)
		DynValidation("One or more parameter values were invalid: StreamViewType must be specified when StreamEnabled is true");
}

/*
 * ApiStreamSpecApply
 *		UpdateTable's (or CreateTable's) stream change on a table whose
 *		writers the caller has locked out.
 */
void
ApiStreamSpecApply(Oid relid, const char *table, bool enabled, int view, bool creating)
{
	StreamInfo	s;

	if (!have_stream_catalog())
		ApiRequireCatalog12("StreamSpecification");
	if (enabled)
	{
		if (!creating && ItemStreamFetchForTable(table, false, &s))
			DynValidation("Table already has an enabled stream: %s", ItemStreamArn(&s));
		ItemStreamOpen(relid, table, stream_view_types[view]);
	}
	else if (!creating)
	{
		if (!ItemStreamClose(table))
			DynValidation("Table already has no enabled stream");
	}
	ItemStreamForgetTable(relid);
}

/* the stream part of a TableDescription */
void
ApiPushStreamDescription(JsonbParseState **state, const char *table)
{
	StreamInfo	s;
	JsonbValue	b;

	if (!have_stream_catalog() || !ItemStreamFetchForTable(table, true, &s))
		return;
	ApiPushKey(state, "LatestStreamArn");
	ApiPushString(state, ItemStreamArn(&s));
	ApiPushKey(state, "LatestStreamLabel");
	ApiPushString(state, s.label);
	if (s.end_seq < 0)
	{
		ApiPushKey(state, "StreamSpecification");
		pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(state, "StreamEnabled");
		b.type = jbvBool;
		b.val.boolean = true;
		pushJsonbValue(state, WJB_VALUE, &b);
		ApiPushKey(state, "StreamViewType");
		ApiPushString(state, stream_view_types[s.view_type]);
		pushJsonbValue(state, WJB_END_OBJECT, NULL);
	}
}

/* DeleteTable: the table's stream is closed, readable until trimmed */
void
ApiStreamTableDeleted(const char *table)
{
	if (have_stream_catalog())
		(void) ItemStreamClose(table);
}

/* ----------------------------------------------------------------
 * helpers
 * ----------------------------------------------------------------
 */

/* arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label> */
static bool
fetch_by_arn(const char *arn, StreamInfo *s)
{
	const char *t = strstr(arn, ":table/");
	const char *st;
	char	   *table;

	if (strncmp(arn, "arn:aws:dynamodb:", 17) != 0 || t == NULL)
		return false;
	t += 7;
	st = strstr(t, "/stream/");
	if (st == NULL || st == t)
		return false;
	table = pnstrdup(t, st - t);
	return ItemStreamFetchByLabel(table, st + 8, s);
}

/*
 * check_stream_arn
 *		A StreamArn that is not shaped as one,
 *		arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>,
 *		is a ValidationException before any lookup; a well-formed ARN of a
 *		stream that does not exist is left to the lookup (not found).
 */
static void
check_stream_arn(const char *arn)
{
	const char *p = arn;
	const char *t;
	const char *st;
	int			i;

	if (strncmp(p, "arn:", 4) != 0)
		goto bad;
	p += 4;
	/* partition, service, region, account: four ':'-ended fields */
	for (i = 0; i < 4; i++)
	{
		const char *colon = strchr(p, ':');

		if (colon == NULL || (i != 2 && colon == p))
			goto bad;
		p = colon + 1;
	}
	if (strncmp(p, "table/", 6) != 0)
		goto bad;
	t = p + 6;
	st = strstr(t, "/stream/");
	if (st == NULL || st - t < 3 || memchr(t, '/', st - t) != NULL || st[8] == '\0' ||
		strchr(st + 8, '/') != NULL)
		goto bad;
	return;
bad:
	DynValidation("Invalid StreamArn: %s", arn);
}

static void
stream_not_found(const char *arn)
{
	DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found: Stream: %s not found", arn);
}

static char *
read_stream_arn(ApiRequest *req)
{
	char	   *arn = ApiGetString(req, "StreamArn", "streamArn", true);

	if (arn != NULL && (strlen(arn) < 37 || strlen(arn) > 1024))
		ApiProblem(req, "Value '%s' at 'streamArn' failed to satisfy constraint: Member must have length %s",
				   arn, strlen(arn) < 37 ? "greater than or equal to 37" : "less than or equal to 1024");
	return arn;
}

static bool
parse_sequence_number(const char *text, int64 *out)
{
	const char *p;
	int64		v = 0;

	if (text == NULL || *text == '\0' || strlen(text) > 40)
		return false;
	for (p = text; *p; p++)
	{
		if (*p < '0' || *p > '9')
			return false;
		if (v > (PG_INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (*p - '0');
	}
	*out = v;
	return true;
}

/* ----------------------------------------------------------------
 * iterators
 * ----------------------------------------------------------------
 */
static uint8 *secret = NULL;
static int	secret_len = 0;

static void
load_secret(void)
{
	ItemRoleSwitch sw;
	int			rc;
	bool		isnull;
	bytea	   *b;

	if (secret != NULL)
		return;
	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute("SELECT secret FROM item_table.stream_secret LIMIT 1", true, 1);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "the shard iterator key is missing from item_table.stream_secret");
	b = DatumGetByteaPP(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	secret_len = VARSIZE_ANY_EXHDR(b);
	secret = MemoryContextAlloc(TopMemoryContext, secret_len);
	memcpy(secret, VARDATA_ANY(b), secret_len);
}

static char *
iterator_mac(const char *payload)
{
	pg_hmac_ctx *ctx;
	uint8		mac[PG_SHA256_DIGEST_LENGTH];
	char	   *hex = palloc(33);
	int			i;

	load_secret();
	ctx = pg_hmac_create(PG_SHA256);
	if (ctx == NULL ||
		pg_hmac_init(ctx, secret, secret_len) < 0 ||
		pg_hmac_update(ctx, (const uint8 *) payload, strlen(payload)) < 0 ||
		pg_hmac_final(ctx, mac, sizeof(mac)) < 0)
		elog(ERROR, "could not compute a shard iterator's HMAC");
	pg_hmac_free(ctx);
	for (i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", mac[i]);
	return hex;
}

static char *
make_iterator(int32 stream_id, int64 position, TimestampTz issued)
{
	char	   *payload = psprintf("%d:%lld:%lld", stream_id, (long long) position,
								   (long long) issued);
	char	   *whole = psprintf("%s:%s", payload, iterator_mac(payload));

	return ItemBase64Encode((const uint8 *) whole, strlen(whole));
}

static void
bad_iterator(void)
{
	DynValidation("Invalid ShardIterator");
}

static void
read_iterator(const char *it, int32 *stream_id, int64 *position, TimestampTz *issued)
{
	uint8	   *raw;
	int			len;
	char	   *text;
	char	   *mac;
	long long	sid,
				pos,
				iss;
	int			n = 0;
	char	   *expected;

	if (!ItemBase64Decode(it, strlen(it), &raw, &len) || len > 200)
		bad_iterator();
	text = pnstrdup((char *) raw, len);
	mac = strrchr(text, ':');
	if (mac == NULL)
		bad_iterator();
	*mac++ = '\0';
	if (sscanf(text, "%lld:%lld:%lld%n", &sid, &pos, &iss, &n) != 3 || text[n] != '\0')
		bad_iterator();
	expected = iterator_mac(text);
	if (strlen(mac) != 32 || timingsafe_bcmp(mac, expected, 32) != 0)
		bad_iterator();
	*stream_id = (int32) sid;
	*position = pos;
	*issued = (TimestampTz) iss;
}

/*
 * The time to use as now: the as_of argument of the as_of variants (NULL
 * is now), the clock for everyone else.
 */
static TimestampTz
as_of_arg(FunctionCallInfo fcinfo, bool as_of_variant)
{
	if (as_of_variant && PG_NARGS() > 1 && !PG_ARGISNULL(1))
		return PG_GETARG_TIMESTAMPTZ(1);
	return GetCurrentTimestamp();
}

static Jsonb *
request_arg(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		DynRaise(DYN_SERIALIZATION, "The request body is required");
	return PG_GETARG_JSONB_P(0);
}

/* ----------------------------------------------------------------
 * ListStreams
 * ----------------------------------------------------------------
 */
Datum
item_table_list_streams(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	char	   *table;
	char	   *start;
	int64		limit = 100;
	bool		has_limit;
	JsonbParseState *state = NULL;
	Jsonb	   *result;
	int			rc;
	uint64		i;
	int			after_id = 0;
	Oid			argtypes[3] = {TEXTOID, INT4OID, INT4OID};
	Datum		args[3];
	char		nulls[3] = {' ', ' ', ' '};
	StreamInfo	last;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	table = ApiGetTableName(&req, "TableName", "tableName", false);
	start = ApiGetString(&req, "ExclusiveStartStreamArn", "exclusiveStartStreamArn", false);
	if (start != NULL && (strlen(start) < 37 || strlen(start) > 1024))
		ApiProblem(&req, "Value '%s' at 'exclusiveStartStreamArn' failed to satisfy constraint: Member must have length %s",
				   start, strlen(start) < 37 ? "greater than or equal to 37" : "less than or equal to 1024");
	has_limit = ApiGetInt(&req, "Limit", "limit", &limit);
	if (has_limit && (limit < 1 || limit > 100))
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value %s",
				   limit, limit < 1 ? "greater than or equal to 1" : "less than or equal to 100");
	ApiRequestCheck(&req);
	if (start != NULL)
		check_stream_arn(start);
	SPI_connect();
	if (!have_stream_catalog())
		ApiRequireCatalog12("ListStreams");
	if (table != NULL)
		(void) TableDefLookup(table);	/* ResourceNotFoundException */
	if (start != NULL)
	{
		StreamInfo	s;

		if (!fetch_by_arn(start, &s))
			stream_not_found(start);
		after_id = s.stream_id;
	}
	if (table != NULL)
		args[0] = CStringGetTextDatum(table);
	else
		nulls[0] = 'n';
	args[1] = Int32GetDatum(after_id);
	args[2] = Int32GetDatum((int32) limit + 1);
	rc = SPI_execute_with_args("SELECT s.stream_id, s.table_name, s.table_id::pg_catalog.text, s.relid, s.label,"
							   " s.view_type, s.hash_key, s.range_key, s.owner, s.created_at, s.start_seq,"
							   " s.end_seq, s.disabled_at, s.trimmed_seq FROM item_table.streams s"
							   " WHERE ($1 IS NULL OR s.table_name OPERATOR(pg_catalog.=) $1)"
							   " AND s.stream_id OPERATOR(pg_catalog.>) $2 ORDER BY s.stream_id LIMIT $3",
							   3, argtypes, args, nulls, true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "stream catalog read failed: %s", SPI_result_code_string(rc));
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "Streams");
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	for (i = 0; i < SPI_processed && i < (uint64) limit; i++)
	{
		StreamInfo	s;
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;

		s.stream_id = DatumGetInt32(SPI_getbinval(tup, desc, 1, &isnull));
		s.table_name = SPI_getvalue(tup, desc, 2);
		s.label = SPI_getvalue(tup, desc, 5);
		pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(&state, "StreamArn");
		ApiPushString(&state, ItemStreamArn(&s));
		ApiPushKey(&state, "StreamLabel");
		ApiPushString(&state, s.label);
		ApiPushKey(&state, "TableName");
		ApiPushString(&state, s.table_name);
		pushJsonbValue(&state, WJB_END_OBJECT, NULL);
		last = s;
	}
	pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	if (SPI_processed > (uint64) limit)
	{
		ApiPushKey(&state, "LastEvaluatedStreamArn");
		ApiPushString(&state, ItemStreamArn(&last));
	}
	result = ApiFinishResponse(&state, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * DescribeStream
 * ----------------------------------------------------------------
 */
Datum
item_table_describe_stream(PG_FUNCTION_ARGS)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	char	   *arn;
	char	   *start_shard;
	int64		limit = 100;
	bool		has_limit;
	StreamInfo	s;
	JsonbParseState *state = NULL;
	Jsonb	   *result;
	char	   *shard;

	ApiRequestInit(&req, PG_GETARG_JSONB_P(0));
	arn = read_stream_arn(&req);
	start_shard = ApiGetString(&req, "ExclusiveStartShardId", "exclusiveStartShardId", false);
	has_limit = ApiGetInt(&req, "Limit", "limit", &limit);
	if (has_limit && (limit < 1 || limit > 100))
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value %s",
				   limit, limit < 1 ? "greater than or equal to 1" : "less than or equal to 100");
	ApiRequestCheck(&req);
	check_stream_arn(arn);
	SPI_connect();
	if (!have_stream_catalog())
		ApiRequireCatalog12("DescribeStream");
	if (!fetch_by_arn(arn, &s))
		stream_not_found(arn);
	shard = ItemStreamShardId(&s);

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "StreamDescription");
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "CreationRequestDateTime");
	ApiPushNumeric(&state, (double) s.created_at / USECS_PER_SEC + 946684800.0, 3);
	ApiPushKey(&state, "KeySchema");
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "AttributeName");
	ApiPushString(&state, s.hash_key);
	ApiPushKey(&state, "KeyType");
	ApiPushString(&state, "HASH");
	pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	if (s.range_key != NULL)
	{
		pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(&state, "AttributeName");
		ApiPushString(&state, s.range_key);
		ApiPushKey(&state, "KeyType");
		ApiPushString(&state, "RANGE");
		pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	ApiPushKey(&state, "Shards");
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	if (start_shard == NULL || strcmp(start_shard, shard) < 0)
	{
		pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(&state, "SequenceNumberRange");
		pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		if (s.end_seq >= 0)
		{
			ApiPushKey(&state, "EndingSequenceNumber");
			ApiPushString(&state, ItemStreamSequenceText(s.end_seq));
		}
		ApiPushKey(&state, "StartingSequenceNumber");
		ApiPushString(&state, ItemStreamSequenceText(s.start_seq + 1));
		pushJsonbValue(&state, WJB_END_OBJECT, NULL);
		ApiPushKey(&state, "ShardId");
		ApiPushString(&state, shard);
		pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	ApiPushKey(&state, "StreamArn");
	ApiPushString(&state, ItemStreamArn(&s));
	ApiPushKey(&state, "StreamLabel");
	ApiPushString(&state, s.label);
	ApiPushKey(&state, "StreamStatus");
	ApiPushString(&state, s.end_seq >= 0 ? "DISABLED" : "ENABLED");
	ApiPushKey(&state, "StreamViewType");
	ApiPushString(&state, stream_view_types[s.view_type]);
	ApiPushKey(&state, "TableName");
	ApiPushString(&state, s.table_name);
	pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	result = ApiFinishResponse(&state, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * GetShardIterator
 * ----------------------------------------------------------------
 */
static void
trimmed(void)
{
	DynRaise(DYN_TRIMMED_DATA_ACCESS,
			 "The operation attempted to read past the oldest stream record in a shard.");
}

static Datum
get_shard_iterator(FunctionCallInfo fcinfo, TimestampTz now)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	char	   *arn;
	char	   *shard;
	int			type;
	char	   *seqtext;
	int64		seq = 0;
	int64		position;
	StreamInfo	s;
	JsonbParseState *state = NULL;
	Jsonb	   *result;

	ApiRequestInit(&req, request_arg(fcinfo));
	arn = read_stream_arn(&req);
	shard = ApiGetString(&req, "ShardId", "shardId", true);
	if (shard != NULL && (strlen(shard) < 28 || strlen(shard) > 65))
		ApiProblem(&req, "Value '%s' at 'shardId' failed to satisfy constraint: Member must have length %s",
				   shard, strlen(shard) < 28 ? "greater than or equal to 28" : "less than or equal to 65");
	type = ApiGetEnum(&req, "ShardIteratorType", "shardIteratorType", iterator_types, 4);
	if (ApiGetMember(&req, "ShardIteratorType") == NULL)
		ApiProblem(&req, "Value null at 'shardIteratorType' failed to satisfy constraint: Member must not be null");
	seqtext = ApiGetString(&req, "SequenceNumber", "sequenceNumber", false);
	if (seqtext != NULL && (strlen(seqtext) < 21 || strlen(seqtext) > 40))
		ApiProblem(&req, "Value '%s' at 'sequenceNumber' failed to satisfy constraint: Member must have length %s",
				   seqtext, strlen(seqtext) < 21 ? "greater than or equal to 21" : "less than or equal to 40");
	ApiRequestCheck(&req);
	if (type >= 2 && seqtext == NULL)
		DynValidation("Must specify a sequence number for iterator type %s", iterator_types[type]);
	if (type < 2 && seqtext != NULL)
		DynValidation("Sequence number must not be specified for iterator type %s", iterator_types[type]);
	if (seqtext != NULL && !parse_sequence_number(seqtext, &seq))
		DynValidation("Invalid SequenceNumber: %s", seqtext);
	check_stream_arn(arn);

	SPI_connect();
	if (!have_stream_catalog())
		ApiRequireCatalog12("GetShardIterator");
	if (!fetch_by_arn(arn, &s))
		stream_not_found(arn);
	if (strcmp(shard, ItemStreamShardId(&s)) != 0)
		DynRaise(DYN_RESOURCE_NOT_FOUND, "Requested resource not found: Shard does not exist");
	ItemStreamCheckRead(&s);
	switch (type)
	{
		case 0:					/* TRIM_HORIZON */
			position = Max(s.start_seq, s.trimmed_seq);
			break;
		case 1:					/* LATEST */
			position = Max(s.start_seq, Max(s.trimmed_seq, ItemStreamSafeHorizon()));
			if (s.end_seq >= 0)
				position = Min(position, s.end_seq);
			break;
		default:
			if (seq <= s.start_seq || (s.end_seq >= 0 && seq > s.end_seq))
				DynValidation("Invalid SequenceNumber for ShardIteratorType %s: %s is not in the shard's range",
							  iterator_types[type], seqtext);
			position = type == 2 ? seq - 1 : seq;
			if (position < s.trimmed_seq)
				trimmed();
			break;
	}
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	ApiPushKey(&state, "ShardIterator");
	ApiPushString(&state, make_iterator(s.stream_id, position, now));
	result = ApiFinishResponse(&state, callercxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/* ----------------------------------------------------------------
 * GetRecords
 * ----------------------------------------------------------------
 */
static Datum
get_records(FunctionCallInfo fcinfo, TimestampTz now)
{
	MemoryContext callercxt = CurrentMemoryContext;
	ApiRequest	req;
	char	   *it;
	int64		limit = 1000;
	bool		has_limit;
	int32		stream_id;
	int64		position;
	TimestampTz issued;
	StreamInfo	s;
	int64		upto;
	List	   *recs;
	ListCell   *lc;
	bool		more;
	JsonbParseState *state = NULL;
	Jsonb	   *result;
	Jsonb	  **elems;
	MemoryContext reccxt;

	ApiRequestInit(&req, request_arg(fcinfo));
	it = ApiGetString(&req, "ShardIterator", "shardIterator", true);
	if (it != NULL && (strlen(it) < 1 || strlen(it) > 2048))
		ApiProblem(&req, "Value at 'shardIterator' failed to satisfy constraint: Member must have length %s",
				   strlen(it) < 1 ? "greater than or equal to 1" : "less than or equal to 2048");
	has_limit = ApiGetInt(&req, "Limit", "limit", &limit);
	if (has_limit && (limit < 1 || limit > 1000))
		ApiProblem(&req, "Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value %s",
				   limit, limit < 1 ? "greater than or equal to 1" : "less than or equal to 1000");
	ApiRequestCheck(&req);

	SPI_connect();
	if (!have_stream_catalog())
		ApiRequireCatalog12("GetRecords");
	read_iterator(it, &stream_id, &position, &issued);
	if (now - issued > ITERATOR_LIFETIME_USECS)
	{
		/* timestamptz_to_str() answers in one static buffer: copy each */
		char	   *created = pstrdup(timestamptz_to_str(issued));
		char	   *current = pstrdup(timestamptz_to_str(now));

		DynRaise(DYN_EXPIRED_ITERATOR, "Iterator expired. The iterator was created at time %s while right now it's %s which is further in the future than the tolerated delay of 900000 milliseconds.",
				 created, current);
	}
	if (!ItemStreamFetchById(stream_id, &s))
		trimmed();				/* the whole stream was trimmed away */
	ItemStreamCheckRead(&s);
	if (position < s.trimmed_seq)
		trimmed();
	upto = ItemStreamSafeHorizon();
	if (s.end_seq >= 0 && upto > s.end_seq)
		upto = s.end_seq;
	reccxt = AllocSetContextCreate(CurrentMemoryContext, "item_table stream records",
								   ALLOCSET_DEFAULT_SIZES);
	recs = ItemStreamReadRecords(&s, position, upto, (int) limit, reccxt, &more);
	elems = palloc(sizeof(Jsonb *) * Max(list_length(recs), 1));
	foreach(lc, recs)
	{
		StreamRecord *r = (StreamRecord *) lfirst(lc);

		elems[foreach_current_index(lc)] = ItemStreamRecordJsonb(&s, r);
		position = r->seq;
	}

	/* a closed shard read to its end has no next iterator */
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	if (!(s.end_seq >= 0 && upto == s.end_seq && !more && list_length(recs) < limit))
	{
		ApiPushKey(&state, "NextShardIterator");
		ApiPushString(&state, make_iterator(s.stream_id, position, now));
	}
	result = JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL));
	/* the records are copied into the response as they are */
	{
		MemoryContext old = MemoryContextSwitchTo(callercxt);

		result = JsonbWithArrayMember(result, "Records", elems, list_length(recs));
		MemoryContextSwitchTo(old);
	}
	MemoryContextDelete(reccxt);
	SPI_finish();
	PG_RETURN_JSONB_P(result);
}

/*
 * The SQL-callable entry points: get_shard_iterator(request) and
 * get_records(request) at the server's time; the as_of variants (revoked
 * from PUBLIC) at the time given.
 */
Datum
item_table_get_shard_iterator(PG_FUNCTION_ARGS)
{
	return get_shard_iterator(fcinfo, as_of_arg(fcinfo, false));
}

Datum
item_table_get_shard_iterator_as_of(PG_FUNCTION_ARGS)
{
	return get_shard_iterator(fcinfo, as_of_arg(fcinfo, true));
}

Datum
item_table_get_records(PG_FUNCTION_ARGS)
{
	return get_records(fcinfo, as_of_arg(fcinfo, false));
}

Datum
item_table_get_records_as_of(PG_FUNCTION_ARGS)
{
	return get_records(fcinfo, as_of_arg(fcinfo, true));
}
