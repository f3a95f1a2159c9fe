/*-------------------------------------------------------------------------
 *
 * stream_read.c
 *		DynamoDB Streams' records read (below the horizon of stream.c) and
 *		in their DynamoDB shape, trimming after 24 hours, and
 *		stream_records().
 *
 * Trimming.  ItemStreamTrimBatch (the background worker each round, and
 * item_table.trim_streams(as_of)) deletes, per stream, the prefix of
 * records older than 24 hours (never past the horizon) and records the
 * highest trimmed number in trimmed_seq, which makes older positions a
 * TrimmedDataAccessException; closed streams go entirely once disabled
 * for 24 hours.
 *
 * Rights.  The records table is not readable by PUBLIC: reads go through
 * ItemStreamCheckRead -- SELECT on the table and no row-level security
 * applying to the reader there (records are copies of items the policies
 * cannot filter, as index rows are); for a deleted table, membership in
 * its owner's role -- and then run as the catalog owner.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "utils/timestamp.h"

#include "attr_value.h"
#include "catalog.h"
#include "jsonb_binary.h"
#include "stream.h"
#include "table_def.h"

PG_FUNCTION_INFO_V1(item_table_stream_records);
PG_FUNCTION_INFO_V1(item_table_trim_streams);

#define STREAM_RETENTION_USECS	(INT64CONST(24) * 3600 * USECS_PER_SEC)

/* ----------------------------------------------------------------
 * reading
 * ----------------------------------------------------------------
 */
void
ItemStreamCheckRead(const StreamInfo *s)
{
	Oid			user = GetUserId();
	ItemTableDef *def = TableDefByRelid(s->relid);

	if (def != NULL && strcmp(def->name, s->table_name) == 0)
	{
		if (pg_class_aclcheck(s->relid, user, ACL_SELECT) != ACLCHECK_OK &&
			pg_attribute_aclcheck_all(s->relid, user, ACL_SELECT, ACLMASK_ALL) != ACLCHECK_OK)
			aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(s->relid));
		if (check_enable_rls(s->relid, InvalidOid, true) == RLS_ENABLED)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("stream reads are not available on table \"%s\": row-level security applies to it",
							s->table_name),
					 errdetail("Stream records are copies of the items, which the table's row-level security policies cannot filter.")));
		return;
	}
	/* the table is gone: its owner's members read what is left */
	if (!has_privs_of_role(user, s->owner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for the stream of deleted table \"%s\"", s->table_name)));
}

List *
ItemStreamReadRecords(const StreamInfo *s, int64 after, int64 upto, int limit,
				  MemoryContext cxt, bool *more)
{
	static SPIPlanPtr plan = NULL;
	Oid			argtypes[4] = {INT4OID, INT8OID, INT8OID, INT4OID};
	Datum		args[4];
	ItemRoleSwitch sw;
	Portal		portal;
	List	   *out = NIL;
	int64		bytes = 0;
	bool		done = false;

	*more = false;
	if (upto <= after || limit <= 0)
		return NIL;
	if (plan == NULL)
		plan = ItemPrepareKept("SELECT seq, created_at, event, service, key, new_image, old_image"
							   " FROM item_table.stream_records"
							   " WHERE stream_id OPERATOR(pg_catalog.=) $1"
							   " AND seq OPERATOR(pg_catalog.>) $2 AND seq OPERATOR(pg_catalog.<=) $3"
							   " ORDER BY seq LIMIT $4", 4, argtypes, 0);
	args[0] = Int32GetDatum(s->stream_id);
	args[1] = Int64GetDatum(after);
	args[2] = Int64GetDatum(upto);
	args[3] = Int32GetDatum(limit);
	ItemAsCatalogOwnerBegin(&sw);
	portal = SPI_cursor_open(NULL, plan, args, NULL, false);
	while (!done)
	{
		uint64		i;

		CHECK_FOR_INTERRUPTS();
		SPI_cursor_fetch(portal, true, 100);
		if (SPI_processed == 0)
			break;
		for (i = 0; i < SPI_processed; i++)
		{
			HeapTuple	tup = SPI_tuptable->vals[i];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			MemoryContext old = MemoryContextSwitchTo(cxt);
			StreamRecord *r = palloc0(sizeof(StreamRecord));
			bool		isnull;
			Datum		d;

			r->seq = DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
			r->created_at = DatumGetTimestampTz(SPI_getbinval(tup, desc, 2, &isnull));
			r->event = DatumGetChar(SPI_getbinval(tup, desc, 3, &isnull));
			r->service = DatumGetBool(SPI_getbinval(tup, desc, 4, &isnull));
			r->key = (ItemKey *) PG_DETOAST_DATUM_COPY(SPI_getbinval(tup, desc, 5, &isnull));
			d = SPI_getbinval(tup, desc, 6, &isnull);
			r->new_image = isnull ? NULL : DatumGetJsonbPCopy(d);
			d = SPI_getbinval(tup, desc, 7, &isnull);
			r->old_image = isnull ? NULL : DatumGetJsonbPCopy(d);
			MemoryContextSwitchTo(old);
			out = lappend(out, r);
			bytes += VARSIZE_ANY(r->key) + (r->new_image ? VARSIZE(r->new_image) : 0) +
				(r->old_image ? VARSIZE(r->old_image) : 0);
			/* GetRecords answers at most 1 MB */
			if (bytes >= 1024 * 1024)
			{
				*more = true;
				done = true;
				break;
			}
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	ItemAsRoleEnd(&sw);
	return out;
}

Jsonb *
ItemStreamRecordKeys(const StreamInfo *s, const StreamRecord *r)
{
	ItemKeyParsed p;
	const char *names[2];
	Jsonb	   *values[2];
	int			n = 1;

	ItemKeyDecodeOrError(r->key, &p);
	names[0] = s->hash_key;
	values[0] = ItemKeyPartToAttributeValue(&p.partition);
	if (s->range_key != NULL && p.sort.type != ITEMKEY_NONE)
	{
		names[1] = s->range_key;
		values[1] = ItemKeyPartToAttributeValue(&p.sort);
		n = 2;
	}
	return JsonbObjectOf(names, values, n);
}

static int64
image_size(Jsonb *j)
{
	int64		n = AttrStoredItemSize(j);

	return n < 0 ? VARSIZE(j) - VARHDRSZ : n;
}

static Jsonb *
scalar_string(const char *str)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) str;
	v.val.string.len = strlen(str);
	return JsonbValueToJsonb(&v);
}

static Jsonb *
scalar_int(int64 i)
{
	JsonbValue	v;

	v.type = jbvNumeric;
	v.val.numeric = int64_to_numeric(i);
	return JsonbValueToJsonb(&v);
}

/*
 * ItemStreamRecordJsonb
 *		The record in DynamoDB's shape.  The images are copied into it as
 *		they are stored (JsonbObjectOf), not unpacked and packed again: most
 *		of a record's bytes are its images.
 */
Jsonb *
ItemStreamRecordJsonb(const StreamInfo *s, const StreamRecord *r)
{
	static const char *const view_keys[] = {"ApproximateCreationDateTime", "Keys",
	"SequenceNumber", "SizeBytes", "StreamViewType", "NewImage", "OldImage"};
	static const char *const record_keys[] = {"awsRegion", "dynamodb", "eventID",
	"eventName", "eventSource", "eventVersion", "userIdentity"};
	static Jsonb *constants[5];
	Jsonb	   *dyn[7];
	Jsonb	   *rec[7];
	const char *dkeys[7];
	int			nd = 5;
	int			nr = 6;
	Jsonb	   *keys = ItemStreamRecordKeys(s, r);
	int64		size = image_size(keys);
	char		eventid[33];

	if (constants[0] == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		constants[0] = scalar_string("local");
		constants[1] = scalar_string("aws:dynamodb");
		constants[2] = scalar_string("1.1");
		constants[3] = DatumGetJsonbP(DirectFunctionCall1(jsonb_in,
														  CStringGetDatum("{\"Type\": \"Service\", \"PrincipalId\": \"dynamodb.amazonaws.com\"}")));
		constants[4] = NULL;
		MemoryContextSwitchTo(old);
	}
	memcpy(dkeys, view_keys, sizeof(char *) * 5);
	dyn[0] = scalar_int((r->created_at / USECS_PER_SEC) + 946684800);
	dyn[1] = keys;
	dyn[2] = scalar_string(ItemStreamSequenceText(r->seq));
	dyn[4] = scalar_string(stream_view_types[s->view_type]);
	if (r->new_image)
	{
		dkeys[nd] = "NewImage";
		dyn[nd++] = r->new_image;
		size += image_size(r->new_image);
	}
	if (r->old_image)
	{
		dkeys[nd] = "OldImage";
		dyn[nd++] = r->old_image;
		size += image_size(r->old_image);
	}
	dyn[3] = scalar_int(size);
	snprintf(eventid, sizeof(eventid), "%016x%016llx", (unsigned int) s->stream_id,
			 (unsigned long long) r->seq);
	rec[0] = constants[0];
	rec[1] = JsonbObjectOf(dkeys, dyn, nd);
	rec[2] = scalar_string(eventid);
	rec[3] = scalar_string(r->event == 'I' ? "INSERT" : r->event == 'M' ? "MODIFY" : "REMOVE");
	rec[4] = constants[1];
	rec[5] = constants[2];
	if (r->service)
		rec[nr++] = constants[3];
	return JsonbObjectOf(record_keys, rec, nr);
}

/*
 * item_table.stream_records(table, after, max_records, label): the final
 * records of a stream after a sequence number, in order.
 */
Datum
item_table_stream_records(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *table;
	int64		after;
	int32		max = PG_ARGISNULL(2) ? 1000 : PG_GETARG_INT32(2);
	StreamInfo	s;
	bool		found;
	int64		upto;
	List	   *recs;
	ListCell   *lc;
	MemoryContext cxt = CurrentMemoryContext;

	if (PG_ARGISNULL(0))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("table_name must not be null")));
	table = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (max < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("max_records must be positive")));
	InitMaterializedSRF(fcinfo, 0);
	SPI_connect();
	if (PG_ARGISNULL(3))
		found = ItemStreamFetchForTable(table, true, &s);
	else
		found = ItemStreamFetchByLabel(table, text_to_cstring(PG_GETARG_TEXT_PP(3)), &s);
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table \"%s\" has no such stream", table)));
	ItemStreamCheckRead(&s);
	after = PG_ARGISNULL(1) ? Max(s.start_seq, s.trimmed_seq) : PG_GETARG_INT64(1);
	if (after < s.trimmed_seq)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("records after %lld of the stream of table \"%s\" have been trimmed",
						(long long) after, table),
				 errhint("Read from sequence number %lld on.", (long long) s.trimmed_seq)));
	upto = ItemStreamSafeHorizon();
	if (s.end_seq >= 0 && upto > s.end_seq)
		upto = s.end_seq;
	recs = ItemStreamReadRecords(&s, after, upto, max, cxt, &found);
	foreach(lc, recs)
	{
		StreamRecord *r = (StreamRecord *) lfirst(lc);
		Datum		values[8];
		bool		nulls[8] = {0};
		MemoryContext old = MemoryContextSwitchTo(cxt);

		values[0] = Int64GetDatum(r->seq);
		values[1] = CStringGetTextDatum(r->event == 'I' ? "INSERT" : r->event == 'M' ? "MODIFY" : "REMOVE");
		values[2] = JsonbPGetDatum(ItemStreamRecordKeys(&s, r));
		values[3] = PointerGetDatum(r->new_image);
		nulls[3] = r->new_image == NULL;
		values[4] = PointerGetDatum(r->old_image);
		nulls[4] = r->old_image == NULL;
		values[5] = TimestampTzGetDatum(r->created_at);
		if (r->service)
			values[6] = DirectFunctionCall1(jsonb_in, CStringGetDatum("{\"Type\": \"Service\", \"PrincipalId\": \"dynamodb.amazonaws.com\"}"));
		else
			nulls[6] = true;
		values[7] = JsonbPGetDatum(ItemStreamRecordJsonb(&s, r));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 * trimming
 * ----------------------------------------------------------------
 */
int64
ItemStreamTrimBatch(TimestampTz as_of, int max_records)
{
	TimestampTz cutoff = as_of - STREAM_RETENTION_USECS;
	int64		horizon = ItemStreamSafeHorizon();
	int64		total = 0;
	ItemRoleSwitch sw;
	List	   *ids = NIL;
	ListCell   *lc;
	uint64		i;
	int			rc;

	ItemAsCatalogOwnerBegin(&sw);
	/* closed streams past retention go with their records */
	{
		Oid			argtypes[1] = {TIMESTAMPTZOID};
		Datum		args[1] = {TimestampTzGetDatum(cutoff)};
		bool		isnull;

		rc = SPI_execute_with_args("WITH gone AS (DELETE FROM item_table.streams"
								   " WHERE disabled_at OPERATOR(pg_catalog.<) $1 RETURNING stream_id),"
								   " recs AS (DELETE FROM item_table.stream_records r USING gone"
								   " WHERE r.stream_id OPERATOR(pg_catalog.=) gone.stream_id RETURNING 1)"
								   " SELECT pg_catalog.count(*) FROM recs",
								   1, argtypes, args, NULL, false, 0);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "stream trimming failed: %s", SPI_result_code_string(rc));
		total += DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	rc = SPI_execute("SELECT stream_id, trimmed_seq FROM item_table.streams ORDER BY stream_id",
					 false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "stream trimming failed: %s", SPI_result_code_string(rc));
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		int64	   *pair = palloc(sizeof(int64) * 2);

		pair[0] = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
		pair[1] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));
		ids = lappend(ids, pair);
	}
	foreach(lc, ids)
	{
		int64	   *pair = (int64 *) lfirst(lc);
		Oid			argtypes[4] = {INT4OID, INT8OID, INT4OID, TIMESTAMPTZOID};
		Datum		args[4];
		int64		upto = -1;

		if (total >= max_records)
			break;
		CHECK_FOR_INTERRUPTS();
		/* the oldest records, in order, up to the first young one */
		args[0] = Int32GetDatum((int32) pair[0]);
		args[1] = Int64GetDatum(pair[1]);
		args[2] = Int32GetDatum(max_records - (int) total);
		args[3] = TimestampTzGetDatum(cutoff);
		rc = SPI_execute_with_args("SELECT seq, created_at OPERATOR(pg_catalog.<) $4"
								   " FROM item_table.stream_records"
								   " WHERE stream_id OPERATOR(pg_catalog.=) $1 AND seq OPERATOR(pg_catalog.>) $2"
								   " ORDER BY seq LIMIT $3", 4, argtypes, args, NULL, true, 0);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "stream trimming failed: %s", SPI_result_code_string(rc));
		for (i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			int64		seq = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
			bool		old = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));

			if (!old || seq > horizon)
				break;
			upto = seq;
		}
		if (upto < 0)
			continue;
		{
			Oid			dtypes[2] = {INT4OID, INT8OID};
			Datum		dargs[2] = {Int32GetDatum((int32) pair[0]), Int64GetDatum(upto)};

			rc = SPI_execute_with_args("DELETE FROM item_table.stream_records"
									   " WHERE stream_id OPERATOR(pg_catalog.=) $1 AND seq OPERATOR(pg_catalog.<=) $2",
									   2, dtypes, dargs, NULL, false, 0);
			if (rc != SPI_OK_DELETE)
				elog(ERROR, "stream trimming failed: %s", SPI_result_code_string(rc));
			total += SPI_processed;
			rc = SPI_execute_with_args("UPDATE item_table.streams SET trimmed_seq = $2"
									   " WHERE stream_id OPERATOR(pg_catalog.=) $1",
									   2, dtypes, dargs, NULL, false, 0);
			if (rc != SPI_OK_UPDATE)
				elog(ERROR, "stream trimming failed: %s", SPI_result_code_string(rc));
		}
	}
	ItemAsRoleEnd(&sw);
	return total;
}

/*
 * item_table.trim_streams(as_of, max_records): one trimming batch as if
 * the time were as_of.
 */
Datum
item_table_trim_streams(PG_FUNCTION_ARGS)
{
	TimestampTz as_of = PG_GETARG_TIMESTAMPTZ(0);
	int32		max = PG_GETARG_INT32(1);
	int64		n;

	if (max < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("max_records must be positive")));
	SPI_connect();
	n = ItemStreamTrimBatch(as_of, max);
	SPI_finish();
	PG_RETURN_INT64(n);
}
