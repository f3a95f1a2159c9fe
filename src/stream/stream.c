/*-------------------------------------------------------------------------
 *
 * stream.c
 *		DynamoDB Streams: the streams' catalog rows, capture of every
 *		change in the writing transaction, and the horizon that makes a
 *		record readable only once nothing before it can still appear.
 *
 * Streams.  A table's stream is a row of item_table.streams, made when
 * StreamSpecification enables it (CreateTable, UpdateTable: api_stream.c)
 * and closed when it is disabled or the table is deleted: end_seq and
 * disabled_at are set, and the closed stream stays readable until its
 * records are trimmed.  Enabling again makes a new stream (a new label and
 * ARN), as DynamoDB does.  Each stream has one shard, which is closed
 * with the stream (its EndingSequenceNumber is end_seq).
 *
 * Capture.  The AFTER ROW trigger item_table.stream_trigger(), put on a
 * table when its first stream is enabled, turns each insert, update and
 * delete -- through the API or plain SQL, COPY included -- into one record
 * of item_table.stream_records: INSERT, MODIFY, or REMOVE (an update that
 * changes the key, which only plain SQL can make, is a REMOVE and an
 * INSERT).  An update whose new item is byte for byte the old one (an
 * identical PutItem, an UpdateItem that changes nothing) writes none, as
 * DynamoDB writes none; a delete of a missing item never reaches a
 * trigger.  The record is part of the writer's transaction: an aborted
 * write leaves none.  Deletions by Time to Live (ttl.c) are marked as
 * service deletions (ItemStreamServiceDeletionBegin), which GetRecords shows
 * as userIdentity {"Type": "Service", "PrincipalId":
 * "dynamodb.amazonaws.com"}.  TRUNCATE writes no record
 * (docs/differences.md).
 *
 * The trigger does no SQL per row: the table's stream (its id and view
 * type) is cached per physical table and forgotten by a relcache
 * invalidation, which enabling and disabling send; the record's sequence
 * number comes from stream_number.c (a counter in shared memory refilled
 * from item_table.stream_sequence, or nextval on it) and the row is
 * inserted directly into the heap and its primary key (as catalog rows
 * are, with the key's IndexInfo kept and the table's index list looked at
 * again only after an invalidation of the table or its key: the records
 * table is the extension's own, written by no one else; one with an index
 * made by hand takes CatalogTupleInsert), with the images as the item
 * table stores them -- KEYS_ONLY keeps only the key, NEW_IMAGE/OLD_IMAGE
 * one image, NEW_AND_OLD_IMAGES both.
 *
 * The API's direct writes.  UpdateItem, PutItem replacing an item and
 * DeleteItem write the row they locked without a statement (api_common.c,
 * update_item_direct and delete_item_direct), so no trigger fires; on a
 * table whose only trigger besides the item guard is the stream trigger
 * exactly as ensure_trigger made it and as the executor would fire it now
 * (ItemStreamDirectCaptureTrigger: enabled for this session's
 * replication role, no WHEN clause, arguments, columns or transition
 * tables), they call ItemStreamCaptureDirect after the write, which runs
 * the trigger's own code (capture_change) on the old and new row: the
 * same records, numbered at the same point -- after the row is written,
 * by a transaction that has its id and holds the row's lock -- so the
 * horizon and per-item order below hold unchanged.  Any other trigger, or
 * the stream trigger in any other shape, and they run the statement,
 * which fires it.  test/pgtap/stream_direct.sql compares the records of
 * the direct paths with the trigger's for the same changes by plain SQL.
 *
 * The horizon.  Sequence numbers are handed out when a writer writes, but
 * transactions commit in another order: a reader that returned record 11
 * of a committed transaction while 10 belonged to one still running would
 * skip 10 when it commits.  So a reader returns only records below a safe
 * horizon: a number H such that every transaction that took a number <= H
 * has ended, and the reader's snapshot sees it ended.  Only transactions
 * that took a number count: one that holds a transaction id or a snapshot
 * and wrote no record (any role can open one) must not hold the streams
 * back (docs/security.md, "Stream readers' horizon").
 *
 * With the shared counters (stream_number.c, the preloaded set-up) the
 * holders of numbers are known: each backend's open transaction that took
 * a number is a holder with its lowest number, set under the counter's
 * spinlock as that number is handed out and cleared at commit or abort,
 * after the proc array shows the transaction ended; a prepared
 * transaction's holder is kept until COMMIT or ROLLBACK PREPARED, and
 * after a restart is found again by a lock that names its number.
 * StreamNumberHorizon reads the last number handed out L, then the
 * holders: H is L, or one below the lowest number of a holder still in
 * progress (a holder whose transaction the proc array shows ended is
 * passed over: its commit is visible).  Every number <= H was handed out
 * before the holders were read, with its holder set, so its transaction
 * had ended when they were read.  The count of completed transactions
 * read last tells which snapshots see all those ends: one whose
 * snapXactCompletionCount is at least that count (in READ COMMITTED, the
 * snapshot taken next; in REPEATABLE READ, the transaction's snapshot may
 * be older, and a horizon found in an earlier call serves until then).
 * The reader's own transaction is passed over: it sees its own records,
 * and if it aborts, so does whatever it did with them.  A holder stays
 * set until its top-level transaction ends, whatever its savepoints did:
 * a record rolled back by a savepoint still holds the later ones until
 * then (its number becomes a gap).
 *
 * Without the shared counters (not preloaded, or a database past the
 * counters' table), each number is a nextval, and nothing records who
 * holds which.  Instead a transaction takes the takers' lock (a lock of
 * the extension's own kind, which no SQL function can take) before its
 * first number and keeps it until it ends -- through a savepoint's
 * rollback, into a prepared transaction, and across a restart with it --
 * and the horizon is found with marks.  A mark (H, W) is taken by reading
 * the last number handed out H (from the sequence's page, without its
 * lock) and then W, the transactions but the reader's own that hold the
 * takers' lock (StreamNumberTakers: GetLockConflicts, as CREATE INDEX
 * CONCURRENTLY finds writers): every number <= H was taken by one of them
 * or by a transaction that had ended.  Once all of W have ended
 * (mark_passed, by their virtual transaction ids), H is final for the
 * snapshots that count those ends (the completion count read then).  A
 * reader takes a mark on each call and keeps the marks of its session
 * (ItemStreamSafeHorizon): a mark becomes final as soon as a later call
 * finds it passed.  Transactions that took no number hold no mark back,
 * but a mark waits for all of W, not only for those below a number.  On a
 * hot standby, where neither the primary's holders nor its locks are
 * known, a mark is (H, X), X the next transaction id replayed, passed
 * once a snapshot shows every transaction below X ended
 * (standby_finals); standby sessions have no transaction ids.  There H is
 * not the sequence's last value, which says nothing of the numbers handed
 * out from its last block (and, made by a base backup, may predate every
 * record), but the highest number of a record row replayed, committed or
 * not (standby_last_written): a record numbered below it had its number
 * taken earlier, by a transaction that had already written its row (the
 * capture runs after the row's write), whose id the standby had replayed
 * before that record row, so below X, and waited for.
 *
 * Either way, in READ COMMITTED the reader waits up to HORIZON_WAIT_MS
 * for the transactions that hold back the numbers handed out when it
 * came.  The set of records at or below a usable horizon never changes
 * again, and records are returned in sequence order, so a reader that
 * moves its position along them neither skips nor repeats one; the
 * changes of one item are numbered in the order they were made (its
 * writers hold its row lock until they commit), so they are read in that
 * order.  The cost is latency: a record waits for the writers that were
 * still open when it was numbered; a long writing transaction holds the
 * stream back, which is what exactly-once in order demands.  Alternatives
 * weighed: ordering by transaction id with xmin as the horizon breaks
 * per-item order (an older transaction id can write an item after a
 * younger one committed a change of it); renumbering at commit by the
 * background worker adds a second write of every record and the worker's
 * latency to every read; decoding the write-ahead log needs
 * wal_level=logical and a slot.  The holders cost a writer one spinlock
 * at the end of a transaction that took numbers (the first number sets
 * its holder under the spinlock it takes anyway), and a reader a pass
 * over the holders.
 *
 * One number per record, taken when the record is written, from a
 * counter every session shares, never from a block of its own.  Numbers
 * fetched once per transaction (a block, then a counter) or cached by a
 * session (a sequence CACHE) would break per-item order: a writer T2 that
 * took its block while changing item B, then waits for item A's row lock
 * held by T1, which took its number for A after T2's block, would number
 * its change of A, made after T1 committed, below T1's -- a reader would
 * return A's later change first (stream_order's last permutation).  A
 * number taken from the shared counter after the row is written is taken
 * after the lock is held, so after every earlier writer of the item
 * committed, so after it took its number: larger, since the counter
 * hands out numbers in increasing order in real time (stream_number.c,
 * whose essay also shows why its blocks, shared by every session, keep
 * this and the marks' H).  A per-session CACHE also breaks the marks: the
 * sequence's last value counts numbers a session has cached but not
 * handed out, which later transactions would write below a mark already
 * passed; the shared counter's H is the last number handed out.  What
 * else a record costs, and the alternatives measured, are in
 * bench/README.md ("The stream's cost").
 *
 * Reading, the records' DynamoDB shape, trimming and the rights to read
 * are in stream_read.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/stratnum.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "utils/fmgroids.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgrprotos.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "catalog.h"
#include "direct_check.h"
#include "compat.h"
#include "errors.h"
#include "jsonb_binary.h"
#include "stream.h"
#include "stream_number.h"
#include "table_def.h"

PG_FUNCTION_INFO_V1(item_table_stream_trigger);

const char *const stream_view_types[4] = {"KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"};

/* ----------------------------------------------------------------
 * catalog
 * ----------------------------------------------------------------
 */
#define STREAM_COLUMNS \
	"SELECT s.stream_id, s.table_name, s.table_id::pg_catalog.text, s.relid, s.label," \
	" s.view_type, s.hash_key, s.range_key, s.owner, s.created_at, s.start_seq," \
	" s.end_seq, s.disabled_at, s.trimmed_seq FROM item_table.streams s"

static StreamViewType
view_type_of(const char *s)
{
	int			i;

	for (i = 0; i < 4; i++)
		if (strcmp(s, stream_view_types[i]) == 0)
			return (StreamViewType) i;
	elog(ERROR, "invalid stream view type \"%s\" in the item_table catalog", s);
	return STREAM_KEYS_ONLY;
}

static void
read_stream_row(HeapTuple tup, TupleDesc desc, StreamInfo *s)
{
	bool		isnull;
	Datum		d;

	s->stream_id = DatumGetInt32(SPI_getbinval(tup, desc, 1, &isnull));
	s->table_name = SPI_getvalue(tup, desc, 2);
	s->table_id = SPI_getvalue(tup, desc, 3);
	s->relid = DatumGetObjectId(SPI_getbinval(tup, desc, 4, &isnull));
	s->label = SPI_getvalue(tup, desc, 5);
	s->view_type = view_type_of(SPI_getvalue(tup, desc, 6));
	s->hash_key = SPI_getvalue(tup, desc, 7);
	s->range_key = SPI_getvalue(tup, desc, 8);
	s->owner = DatumGetObjectId(SPI_getbinval(tup, desc, 9, &isnull));
	s->created_at = DatumGetTimestampTz(SPI_getbinval(tup, desc, 10, &isnull));
	s->start_seq = DatumGetInt64(SPI_getbinval(tup, desc, 11, &isnull));
	d = SPI_getbinval(tup, desc, 12, &isnull);
	s->end_seq = isnull ? -1 : DatumGetInt64(d);
	d = SPI_getbinval(tup, desc, 13, &isnull);
	s->disabled_at = isnull ? 0 : DatumGetTimestampTz(d);
	s->trimmed_seq = DatumGetInt64(SPI_getbinval(tup, desc, 14, &isnull));
}

static bool
fetch_stream(SPIPlanPtr *slot, const char *sql, int nargs, Oid *argtypes, Datum *args,
			 StreamInfo *s)
{
	int			rc;

	if (*slot == NULL)
		*slot = ItemPrepareKept(sql, nargs, argtypes, 0);
	/* read-write mode: a fresh snapshot, which sees the latest change */
	rc = SPI_execute_plan(*slot, args, NULL, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "stream catalog read failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return false;
	read_stream_row(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, s);
	return true;
}

bool
ItemStreamFetchById(int32 stream_id, StreamInfo *s)
{
	static SPIPlanPtr plan = NULL;
	Oid			argtypes[1] = {INT4OID};
	Datum		args[1] = {Int32GetDatum(stream_id)};

	return fetch_stream(&plan, STREAM_COLUMNS " WHERE s.stream_id OPERATOR(pg_catalog.=) $1",
						1, argtypes, args, s);
}

bool
ItemStreamFetchForTable(const char *table, bool latest, StreamInfo *s)
{
	static SPIPlanPtr enabled_plan = NULL;
	static SPIPlanPtr latest_plan = NULL;
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1] = {CStringGetTextDatum(table)};

	if (latest)
		return fetch_stream(&latest_plan, STREAM_COLUMNS
							" WHERE s.table_name OPERATOR(pg_catalog.=) $1"
							" ORDER BY s.stream_id DESC LIMIT 1", 1, argtypes, args, s);
	return fetch_stream(&enabled_plan, STREAM_COLUMNS
						" WHERE s.table_name OPERATOR(pg_catalog.=) $1 AND s.end_seq IS NULL",
						1, argtypes, args, s);
}

bool
ItemStreamFetchByLabel(const char *table, const char *label, StreamInfo *s)
{
	static SPIPlanPtr plan = NULL;
	Oid			argtypes[2] = {TEXTOID, TEXTOID};
	Datum		args[2] = {CStringGetTextDatum(table), CStringGetTextDatum(label)};

	return fetch_stream(&plan, STREAM_COLUMNS
						" WHERE s.table_name OPERATOR(pg_catalog.=) $1"
						" AND s.label OPERATOR(pg_catalog.=) $2", 2, argtypes, args, s);
}

char *
ItemStreamLabelOf(TimestampTz t)
{
	struct pg_tm tm;
	fsec_t		fsec;

	if (timestamp2tm(t, NULL, &tm, &fsec, NULL, NULL) != 0)
		elog(ERROR, "timestamp out of range");
	/* UTC: timestamp2tm with a NULL zone gives UTC */
	return psprintf("%04d-%02d-%02dT%02d:%02d:%02d.%03d",
					tm.tm_year, tm.tm_mon, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
					(int) (fsec / 1000));
}

char *
ItemStreamArn(const StreamInfo *s)
{
	return psprintf("arn:aws:dynamodb:local:000000000000:table/%s/stream/%s",
					s->table_name, s->label);
}

char *
ItemStreamShardId(const StreamInfo *s)
{
	/* shardId-<20 digits>-<8 hex>: the stream's creation in ms and its id */
	return psprintf("shardId-%020lld-%08x",
					(long long) ((s->created_at + (INT64CONST(946684800) * USECS_PER_SEC)) / 1000),
					(unsigned int) s->stream_id);
}

char *
ItemStreamSequenceText(int64 seq)
{
	return psprintf("%021lld", (long long) seq);
}

static Oid
stream_rel(const char *name)
{
	Oid			nsp = get_namespace_oid(ITEM_TABLE_SCHEMA, false);
	Oid			relid = get_relname_relid(name, nsp);

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("streams need the item_table 1.2 catalog"),
				 errhint("Run ALTER EXTENSION item_table UPDATE.")));
	return relid;
}

/* the sequence's and the records table's OIDs, kept until an invalidation */
static Oid	sequence_relid = InvalidOid;
static Oid	records_relid = InvalidOid;
/* the records table's primary key, its only index, and its IndexInfo */
static Oid	records_pkey = InvalidOid;
static IndexInfo *records_pkey_info = NULL;

static void capture_inval(Datum arg, Oid relid);

static void
register_inval(void)
{
	static bool registered = false;

	if (!registered)
	{
		CacheRegisterRelcacheCallback(capture_inval, (Datum) 0);
		registered = true;
	}
}

static int64
take_sequence_number(void)
{
	register_inval();
	if (!OidIsValid(sequence_relid))
		sequence_relid = stream_rel("stream_sequence");
	return StreamNumberNext(sequence_relid);
}

static void
ensure_trigger(Oid relid)
{
	CreateTrigStmt *row;

	if (OidIsValid(get_trigger_oid(relid, STREAM_TRIGGER_NAME, true)))
		return;
	row = makeNode(CreateTrigStmt);
	row->trigname = STREAM_TRIGGER_NAME;
	row->relation = makeRangeVar(get_namespace_name(get_rel_namespace(relid)),
								 get_rel_name(relid), -1);
	row->funcname = list_make2(makeString(ITEM_TABLE_SCHEMA), makeString("stream_trigger"));
	row->row = true;
	row->timing = TRIGGER_TYPE_AFTER;
	row->events = TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE;
	ItemRunUtility((Node *) row, "item_table stream trigger");
}

void
ItemStreamOpen(Oid relid, const char *table, const char *view_type)
{
	ItemTableDef *def = TableDefLookup(table);
	StreamInfo	last;
	TimestampTz created = GetCurrentTimestamp();
	Oid			types[9] = {TEXTOID, OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, INT8OID,
	OIDOID, TIMESTAMPTZOID};
	Datum		args[9];
	char		nulls[10] = "         ";
	ItemRoleSwitch sw;
	int			rc;

	ensure_trigger(relid);
	/* labels of one table's streams differ: at least a millisecond later */
	if (ItemStreamFetchForTable(table, true, &last) && created < last.created_at + 1000)
		created = last.created_at + 1000;
	created -= created % 1000;
	args[0] = CStringGetTextDatum(table);
	args[1] = ObjectIdGetDatum(relid);
	args[2] = CStringGetTextDatum(ItemStreamLabelOf(created));
	args[3] = CStringGetTextDatum(view_type);
	args[4] = CStringGetTextDatum(def->hash_key);
	if (def->range_key != NULL)
		args[5] = CStringGetTextDatum(def->range_key);
	else
		nulls[5] = 'n';
	/* every record of the stream will be numbered after this */
	args[6] = Int64GetDatum(take_sequence_number());
	args[7] = ObjectIdGetDatum(ItemRelationOwner(relid));
	args[8] = TimestampTzGetDatum(created);
	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args("INSERT INTO item_table.streams (table_name, table_id, relid, label,"
							   " view_type, hash_key, range_key, start_seq, owner, created_at)"
							   " SELECT $1, t.table_id, $2, $3, $4, $5, $6, $7, $8, $9"
							   " FROM item_table.tables t WHERE t.table_name OPERATOR(pg_catalog.=) $1",
							   9, types, args, nulls, false, 0);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_INSERT || SPI_processed != 1)
		elog(ERROR, "stream catalog insert failed: %s", SPI_result_code_string(rc));
	CacheInvalidateRelcacheByRelid(relid);
}

bool
ItemStreamClose(const char *table)
{
	Oid			argtypes[2] = {TEXTOID, INT8OID};
	Datum		args[2];
	ItemRoleSwitch sw;
	int			rc;
	uint64		i;

	args[0] = CStringGetTextDatum(table);
	args[1] = Int64GetDatum(take_sequence_number());
	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args("UPDATE item_table.streams SET end_seq = $2,"
							   " disabled_at = pg_catalog.clock_timestamp()"
							   " WHERE table_name OPERATOR(pg_catalog.=) $1 AND end_seq IS NULL"
							   " RETURNING relid",
							   2, argtypes, args, NULL, false, 0);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_UPDATE_RETURNING)
		elog(ERROR, "stream catalog update failed: %s", SPI_result_code_string(rc));
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Oid			relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
														   SPI_tuptable->tupdesc, 1, &isnull));

		if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
			CacheInvalidateRelcacheByRelid(relid);
	}
	return SPI_processed > 0;
}

/* ----------------------------------------------------------------
 * capture
 * ----------------------------------------------------------------
 */
typedef struct CaptureEntry
{
	Oid			relid;			/* hash key */
	bool		valid;
	int32		stream_id;		/* 0: no enabled stream */
	StreamViewType view_type;
} CaptureEntry;

static HTAB *capture_cache = NULL;
static Oid	service_relid = InvalidOid;

static void
capture_inval(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS st;
	CaptureEntry *e;

	/* DROP/CREATE EXTENSION gives them new OIDs */
	if (!OidIsValid(relid) || relid == sequence_relid || relid == records_relid ||
		relid == records_pkey)
	{
		sequence_relid = InvalidOid;
		StreamNumberForget();
		records_relid = InvalidOid;
		records_pkey = InvalidOid;	/* its IndexInfo is made again */
	}
	if (capture_cache == NULL)
		return;
	if (OidIsValid(relid))
	{
		e = hash_search(capture_cache, &relid, HASH_FIND, NULL);
		if (e != NULL)
			e->valid = false;
		return;
	}
	hash_seq_init(&st, capture_cache);
	while ((e = hash_seq_search(&st)) != NULL)
		e->valid = false;
}

void
ItemStreamForgetTable(Oid relid)
{
	capture_inval((Datum) 0, relid);
}

static CaptureEntry *
capture_entry(Oid relid)
{
	static SPIPlanPtr plan = NULL;
	CaptureEntry *e;
	bool		found;
	Datum		arg = ObjectIdGetDatum(relid);
	Oid			argtype = OIDOID;
	int			rc;

	if (capture_cache == NULL)
	{
		HASHCTL		ctl;

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(CaptureEntry);
		capture_cache = hash_create("item_table stream capture", 64, &ctl,
									HASH_ELEM | HASH_BLOBS);
		register_inval();
	}
	e = hash_search(capture_cache, &relid, HASH_ENTER, &found);
	if (found && e->valid)
		return e;
	e->valid = true;			/* an invalidation during the read clears it */
	e->stream_id = 0;
	if (plan == NULL)
		plan = ItemPrepareKept("SELECT s.stream_id, s.view_type FROM item_table.streams s"
							   " JOIN item_table.tables t ON t.table_name OPERATOR(pg_catalog.=) s.table_name"
							   " AND t.relid::pg_catalog.oid OPERATOR(pg_catalog.=) s.relid"
							   " WHERE s.relid OPERATOR(pg_catalog.=) $1 AND s.end_seq IS NULL",
							   1, &argtype, 0);
	rc = SPI_execute_plan(plan, &arg, NULL, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "stream catalog read failed: %s", SPI_result_code_string(rc));
	if (SPI_processed > 0)
	{
		bool		isnull;

		e->stream_id = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		e->view_type = view_type_of(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2));
	}
	return e;
}

void
ItemStreamServiceDeletionBegin(Oid relid)
{
	service_relid = relid;
}

void
ItemStreamServiceDeletionEnd(void)
{
	service_relid = InvalidOid;
}

/*
 * insert_record
 *		What CatalogTupleInsert does for the records table -- the heap row,
 *		then its entry in every index, unique ones checked -- with the
 *		primary key's IndexInfo kept instead of opening the indexes and
 *		building it again for every record.  values are the row's
 *		(stream_id and seq first: the key's columns).  A records table with
 *		another index than its primary key (made by hand) takes
 *		CatalogTupleInsert.
 */
static void
insert_record(Relation rel, HeapTuple tup, Datum *values)
{
	Relation	idx;
	IndexInfo  *ii;
	bool		isnull[2] = {false, false};
	Oid			pkey = records_pkey;

	/*
	 * The index list is looked at once after each invalidation of the
	 * records table or its key (which resets records_pkey), not for every
	 * record: an index made by hand since sends one, which the lock taken
	 * on the table before this processes.
	 */
	if (!OidIsValid(pkey))
	{
		List	   *indexes = RelationGetIndexList(rel);	/* sets rd_pkindex */
		bool		only_pkey = list_length(indexes) == 1 &&
			linitial_oid(indexes) == rel->rd_pkindex;

		list_free(indexes);
		if (!only_pkey)
		{
			CatalogTupleInsert(rel, tup);
			return;
		}
		pkey = rel->rd_pkindex;
	}
	idx = index_open(pkey, RowExclusiveLock);
	/*
	 * made again after an invalidation (which only resets records_pkey: one
	 * processed during the insert below must not free what it uses)
	 */
	if (records_pkey_info == NULL || records_pkey != pkey)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		ii = BuildIndexInfo(idx);
		MemoryContextSwitchTo(old);
		if (ii->ii_NumIndexAttrs != 2 || ii->ii_IndexAttrNumbers[0] != 1 ||
			ii->ii_IndexAttrNumbers[1] != 2 || ii->ii_Expressions != NIL ||
			ii->ii_Predicate != NIL || !ii->ii_Unique)
			elog(ERROR, "unexpected primary key of item_table.stream_records");
		if (records_pkey_info != NULL)
			pfree(records_pkey_info);
		records_pkey_info = ii;
		records_pkey = pkey;
	}
	ii = records_pkey_info;
	simple_heap_insert(rel, tup);
	index_insert(idx, values, isnull, &tup->t_self, rel, UNIQUE_CHECK_YES, false, ii);
	index_close(idx, NoLock);
}

/* write one record: the row goes straight into the heap and its key */
static void
emit_record(CaptureEntry *e, char event, bool service, Datum key, Datum newimg, Datum oldimg)
{
	Datum		values[8];
	bool		nulls[8] = {false, false, false, false, false, false, true, true};
	Relation	rel;
	HeapTuple	tup;

	register_inval();
	if (!OidIsValid(records_relid))
		records_relid = stream_rel("stream_records");
	values[0] = Int32GetDatum(e->stream_id);
	values[1] = Int64GetDatum(take_sequence_number());
	values[2] = TimestampTzGetDatum(GetCurrentStatementStartTimestamp());
	values[3] = CharGetDatum(event);
	values[4] = BoolGetDatum(service);
	values[5] = key;
	if (newimg != (Datum) 0 &&
		(e->view_type == STREAM_NEW_IMAGE || e->view_type == STREAM_NEW_AND_OLD_IMAGES))
	{
		values[6] = newimg;
		nulls[6] = false;
	}
	if (oldimg != (Datum) 0 &&
		(e->view_type == STREAM_OLD_IMAGE || e->view_type == STREAM_NEW_AND_OLD_IMAGES))
	{
		values[7] = oldimg;
		nulls[7] = false;
	}
	rel = table_open(records_relid, RowExclusiveLock);
	tup = heap_form_tuple(RelationGetDescr(rel), values, nulls);
	insert_record(rel, tup, values);
	heap_freetuple(tup);
	table_close(rel, NoLock);
}

static bool
datums_equal_bytes(Datum a, Datum b)
{
	struct varlena *va = PG_DETOAST_DATUM_PACKED(a);
	struct varlena *vb = PG_DETOAST_DATUM_PACKED(b);

	return VARSIZE_ANY_EXHDR(va) == VARSIZE_ANY_EXHDR(vb) &&
		memcmp(VARDATA_ANY(va), VARDATA_ANY(vb), VARSIZE_ANY_EXHDR(va)) == 0;
}

/*
 * capture_change
 *		The records of one row change of rel: INSERT (no old key), REMOVE
 *		(no new key) or UPDATE; the trigger's work, shared with the API's
 *		direct writes (ItemStreamCaptureDirect).  A key Datum of 0 is
 *		absent; an item Datum of 0 is absent or NULL.
 */
static void
capture_change(Relation rel, Datum oldkey, Datum olditem, Datum newkey, Datum newitem)
{
	CaptureEntry *e;
	TupleDesc	desc;
	Oid			relid = RelationGetRelid(rel);
	bool		service;

	e = capture_cache == NULL ? NULL :
		hash_search(capture_cache, &relid, HASH_FIND, NULL);
	if (e == NULL || !e->valid)
	{
		SPI_connect();
		e = capture_entry(relid);
		SPI_finish();
	}
	if (e->stream_id == 0)
		return;

	desc = RelationGetDescr(rel);
	if (desc->natts < 2 ||
		TupleDescAttr(desc, 0)->atttypid != ItemKeyTypeOid() ||
		TupleDescAttr(desc, 1)->atttypid != JSONBOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("item table \"%s\" does not have its columns key item_key and item jsonb",
						RelationGetRelationName(rel))));
	service = OidIsValid(service_relid) && service_relid == relid;

	if (oldkey == (Datum) 0)
		emit_record(e, 'I', false, newkey, newitem, (Datum) 0);
	else if (newkey == (Datum) 0)
		emit_record(e, 'R', service, oldkey, (Datum) 0, olditem);
	else if (datums_equal_bytes(oldkey, newkey))
	{
		/* a write that changes nothing leaves no record */
		if (olditem != (Datum) 0 && newitem != (Datum) 0 &&
			datums_equal_bytes(olditem, newitem))
			return;
		emit_record(e, 'M', false, newkey, newitem, olditem);
	}
	else
	{
		/* a key changed by plain SQL: the old item goes, a new one comes */
		emit_record(e, 'R', false, oldkey, (Datum) 0, olditem);
		emit_record(e, 'I', false, newkey, newitem, (Datum) 0);
	}
}

/*
 * item_table_stream_trigger
 *		AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW on tables with a
 *		stream (or that had one).
 */
Datum
item_table_stream_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	bool		isnull;
	Datum		oldkey = (Datum) 0,
				newkey = (Datum) 0,
				olditem = (Datum) 0,
				newitem = (Datum) 0;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("stream_trigger: must be fired AFTER ... FOR EACH ROW")));

	desc = RelationGetDescr(td->tg_relation);
	if (desc->natts < 2)
	{
		/* capture_change raises the error, if the table has a stream */
		capture_change(td->tg_relation, (Datum) 0, (Datum) 0, (Datum) 1, (Datum) 0);
		return PointerGetDatum(NULL);
	}
	if (!TRIGGER_FIRED_BY_INSERT(td->tg_event))
	{
		oldkey = heap_getattr(td->tg_trigtuple, 1, desc, &isnull);
		if (isnull)
			return PointerGetDatum(NULL);
		olditem = heap_getattr(td->tg_trigtuple, 2, desc, &isnull);
		if (isnull)
			olditem = (Datum) 0;
	}
	if (!TRIGGER_FIRED_BY_DELETE(td->tg_event))
	{
		HeapTuple	tup = TRIGGER_FIRED_BY_INSERT(td->tg_event) ? td->tg_trigtuple : td->tg_newtuple;

		newkey = heap_getattr(tup, 1, desc, &isnull);
		if (isnull)
			return PointerGetDatum(NULL);
		newitem = heap_getattr(tup, 2, desc, &isnull);
		if (isnull)
			newitem = (Datum) 0;
	}
	capture_change(td->tg_relation, oldkey, olditem, newkey, newitem);
	return PointerGetDatum(NULL);
}

/*
 * ItemStreamDirectCaptureTrigger
 *		Is t the stream trigger exactly as ensure_trigger made it, and would
 *		the executor fire it now?  Then a write that bypasses the executor
 *		(api_common.c's direct paths) may call ItemStreamCaptureDirect in
 *		its place and write the very records the trigger would.  Anything
 *		else (a WHEN clause, arguments, a column list, transition tables,
 *		a trigger disabled or firing only on a replica, another function
 *		under that name) is false, and the caller runs the statement.
 */
bool
ItemStreamDirectCaptureTrigger(const Trigger *t)
{
	static Oid	capture_fn = InvalidOid;

	return ApiOwnRowTrigger(t, STREAM_TRIGGER_NAME, "stream_trigger", &capture_fn);
}

/*
 * ItemStreamCaptureDirect
 *		What the stream trigger does for a row that a direct write has just
 *		inserted (oldkey 0), updated (both keys) or deleted (newkey 0)
 *		without the executor: called after the write, as the trigger runs
 *		after the row is written, so the sequence number is taken by a
 *		transaction that already has its id and holds the row's lock (an
 *		updated or deleted row's tuple lock; for an inserted row, the
 *		confirmed speculative insertion that a second inserter of the key
 *		waits on), and the horizon and per-item order need nothing more.
 *		An item Datum of 0 is absent.
 */
void
ItemStreamCaptureDirect(Relation rel, Datum oldkey, Datum olditem, Datum newkey, Datum newitem)
{
	capture_change(rel, oldkey, olditem, newkey, newitem);
}

/* ----------------------------------------------------------------
 * the horizon
 * ----------------------------------------------------------------
 */
#define MAX_MARKS 32
#define HORIZON_WAIT_MS 50
static int64 session_horizon = 0;

/*
 * A horizon usable by snapshots whose completion count is at least
 * completions: every record numbered <= seq that will ever be committed
 * belongs to a transaction such a snapshot sees ended.  Kept for a later
 * call while this transaction's snapshot is older.
 */
typedef struct StreamFinal
{
	int64		seq;
	uint64		completions;
} StreamFinal;

static StreamFinal finals[MAX_MARKS];
static int	nfinals = 0;

/*
 * Without the shared counters, a mark: every number <= seq was taken by
 * one of the nwait transactions wait (which held the takers' lock) or
 * by a transaction that had ended; it becomes a final once they all have.
 */
typedef struct StreamMark
{
	int64		seq;
	int			nwait;
	VirtualTransactionId *wait; /* in TopMemoryContext */
} StreamMark;

static StreamMark marks[MAX_MARKS];
static int	nmarks = 0;

static uint64
completion_count(void)
{
	uint64		c;

	LWLockAcquire(ProcArrayLock, LW_SHARED);
	c = ItemTransamVariables->xactCompletionCount;
	LWLockRelease(ProcArrayLock);
	return c;
}

/* have all the transactions m waits for ended?  (those found ended go) */
static bool
mark_passed(StreamMark *m)
{
	while (m->nwait > 0)
	{
		if (!VirtualXactLock(m->wait[m->nwait - 1], false))
			return false;
		m->nwait--;
	}
	return true;
}

static void
add_final(int64 seq, uint64 completions)
{
	if (seq <= session_horizon)
		return;
	/* when full, the newest replaces the last */
	if (nfinals == MAX_MARKS)
		nfinals--;
	finals[nfinals].seq = seq;
	finals[nfinals].completions = completions;
	nfinals++;
}

/*
 * held_final
 *		With the shared counters: the horizon under the holders' lowest
 *		number (StreamNumberHorizon), added to the finals; false without
 *		them.  In READ COMMITTED it waits a little (up to HORIZON_WAIT_MS)
 *		for the writers that hold back the numbers handed out when it came:
 *		transactions are mostly short.
 */
static bool
held_final(void)
{
	int64		seq;
	int64		last;
	int64		target;
	uint64		completions;
	int			i;

	if (!StreamNumberHorizon(sequence_relid, &seq, &last, &completions))
		return false;
	target = last;
	if (seq < target && seq > session_horizon && !IsolationUsesXactSnapshot())
	{
		for (i = 0; i < HORIZON_WAIT_MS && seq < target; i++)
		{
			CHECK_FOR_INTERRUPTS();
			pg_usleep(1000L);
			(void) StreamNumberHorizon(sequence_relid, &seq, &last, &completions);
		}
	}
	add_final(seq, completions);
	return true;
}

/*
 * marked_finals
 *		Without the shared counters: a new mark, then every mark whose
 *		transactions have all ended becomes a final (in READ COMMITTED the
 *		new one is waited for a little, as in held_final).
 */
static void
marked_finals(void)
{
	StreamMark	m;
	VirtualTransactionId *wait;
	int			i;
	int			keep;

	wait = StreamNumberTakers(sequence_relid, &m.seq, &m.nwait);
	m.wait = NULL;
	if (m.nwait > 0)
	{
		m.wait = MemoryContextAlloc(TopMemoryContext, sizeof(VirtualTransactionId) * m.nwait);
		memcpy(m.wait, wait, sizeof(VirtualTransactionId) * m.nwait);
	}
	pfree(wait);
	if (m.seq > session_horizon && !IsolationUsesXactSnapshot())
	{
		for (i = 0; i < HORIZON_WAIT_MS && !mark_passed(&m); i++)
		{
			CHECK_FOR_INTERRUPTS();
			pg_usleep(1000L);
		}
	}
	if (nmarks == MAX_MARKS)
	{
		/* when full, the newest replaces the last */
		if (marks[nmarks - 1].wait)
			pfree(marks[nmarks - 1].wait);
		nmarks--;
	}
	marks[nmarks++] = m;

	/* the ends are seen by the snapshots that count them */
	keep = 0;
	for (i = 0; i < nmarks; i++)
	{
		if (mark_passed(&marks[i]) || marks[i].seq <= session_horizon)
		{
			add_final(marks[i].seq, completion_count());
			if (marks[i].wait)
				pfree(marks[i].wait);
		}
		else
			marks[keep++] = marks[i];
	}
	nmarks = keep;
}

/*
 * standby_passed
 *		On a hot standby: had every transaction of the primary with an id
 *		below next_xid ended when snap was taken?  Ids below the snapshot's
 *		xmax are running when listed in xip; those from xmax on are asked
 *		of the known assigned ids (there are few: xmax is the latest
 *		completed id plus one).
 */
static bool
standby_passed(Snapshot snap, TransactionId next_xid)
{
	TransactionId xid;
	uint32		i;
	int			n = 0;

	for (i = 0; i < snap->xcnt; i++)
		if (TransactionIdPrecedes(snap->xip[i], next_xid))
			return false;
	for (xid = snap->xmax; TransactionIdPrecedes(xid, next_xid);)
	{
		if (++n > 1000)
			return false;		/* a long way behind: wait for a later snapshot */
		if (TransactionIdIsInProgress(xid))
			return false;
		TransactionIdAdvance(xid);
	}
	return true;
}

/*
 * standby_last_written
 *		On a hot standby: the highest number of a record row replayed so
 *		far, committed, in progress or aborted (the primary key read
 *		backwards with SnapshotAny, per stream); 0 when there is none.
 */
static int64
standby_last_written(void)
{
	Relation	streams;
	Relation	records;
	Relation	pkey;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *ids = NIL;
	ListCell   *lc;
	int64		last = 0;

	streams = table_open(stream_rel("streams"), AccessShareLock);
	scan = systable_beginscan(streams, InvalidOid, false, SnapshotAny, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		id = heap_getattr(tup, 1, RelationGetDescr(streams), &isnull);

		if (!isnull)
			ids = list_append_unique_int(ids, DatumGetInt32(id));
	}
	systable_endscan(scan);
	table_close(streams, AccessShareLock);

	records = table_open(stream_rel("stream_records"), AccessShareLock);
	pkey = index_open(stream_rel("stream_records_pkey"), AccessShareLock);
	foreach(lc, ids)
	{
		ScanKeyData key;

		CHECK_FOR_INTERRUPTS();
		ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(lfirst_int(lc)));
		scan = systable_beginscan_ordered(records, pkey, SnapshotAny, 1, &key);
		tup = systable_getnext_ordered(scan, BackwardScanDirection);
		if (HeapTupleIsValid(tup))
		{
			bool		isnull;
			Datum		seq = heap_getattr(tup, 2, RelationGetDescr(records), &isnull);

			if (!isnull && DatumGetInt64(seq) > last)
				last = DatumGetInt64(seq);
		}
		systable_endscan_ordered(scan);
	}
	index_close(pkey, AccessShareLock);
	table_close(records, AccessShareLock);
	list_free(ids);
	return last;
}

/*
 * standby_finals
 *		On a hot standby, where neither the primary's holders nor its locks
 *		are known: a mark of the highest record number replayed and the
 *		next transaction id replayed after it was read, final once a
 *		snapshot shows every transaction below that id ended (no session
 *		of a standby has one of its own).  In READ COMMITTED the new mark
 *		is waited for a little, as on the primary (HORIZON_WAIT_MS).
 */
static void
standby_finals(void)
{
	static int64 pending_seq[MAX_MARKS];
	static TransactionId pending_xid[MAX_MARKS];
	static int	npending = 0;
	Snapshot	snap;
	int			i;
	int			keep;

	if (npending == MAX_MARKS)
		npending--;
	pending_seq[npending] = standby_last_written();
	pending_xid[npending] = XidFromFullTransactionId(ReadNextFullTransactionId());
	npending++;
	snap = GetLatestSnapshot();
	if (pending_seq[npending - 1] > session_horizon && !IsolationUsesXactSnapshot())
	{
		for (i = 0; i < HORIZON_WAIT_MS &&
			 !standby_passed(snap, pending_xid[npending - 1]); i++)
		{
			CHECK_FOR_INTERRUPTS();
			pg_usleep(1000L);
			snap = GetLatestSnapshot();
		}
	}
	keep = 0;
	for (i = 0; i < npending; i++)
	{
		if (standby_passed(snap, pending_xid[i]))
			add_final(pending_seq[i], snap->snapXactCompletionCount);
		else
		{
			pending_seq[keep] = pending_seq[i];
			pending_xid[keep] = pending_xid[i];
			keep++;
		}
	}
	npending = keep;
}

/*
 * ItemStreamSafeHorizon
 *		The highest sequence number H such that every record numbered <= H
 *		that will ever be committed is visible to this transaction's next
 *		statement.  See the header essay.
 */
int64
ItemStreamSafeHorizon(void)
{
	Snapshot	snap;
	int			i;
	int			keep;

	register_inval();
	if (!OidIsValid(sequence_relid))
		sequence_relid = stream_rel("stream_sequence");
	/* with the shared counters, their holders; without, marks */
	if (RecoveryInProgress())
		standby_finals();
	else if (!held_final())
		marked_finals();

	/*
	 * The snapshot the reads will use (or an older one): in READ COMMITTED
	 * a new one, taken after the finals were found, so it sees every end
	 * they rely on; in REPEATABLE READ the transaction's own, which may be
	 * older: then only the finals found before it was taken hold for it.
	 */
	snap = GetTransactionSnapshot();
	keep = 0;
	for (i = 0; i < nfinals; i++)
	{
		if (snap->snapXactCompletionCount >= finals[i].completions)
		{
			if (finals[i].seq > session_horizon)
				session_horizon = finals[i].seq;
		}
		else if (finals[i].seq > session_horizon)
			finals[keep++] = finals[i];
	}
	nfinals = keep;
	return session_horizon;
}
