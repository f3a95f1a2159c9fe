/*-------------------------------------------------------------------------
 *
 * stream_number.c
 *		Sequence numbers of stream records: a counter in shared memory per
 *		database, refilled in blocks from item_table.stream_sequence.
 *
 * What a number must be.  stream.c's essay rests on two facts about the
 * numbers records get: they are handed out in increasing order in real
 * time (a number taken after another was handed out is larger: per-item
 * order), and a reader can learn H, the highest number handed out so far,
 * such that every number <= H was handed out before H was read (the
 * marks).  nextval on a sequence with INCREMENT 1 gives both, at the price
 * of opening, locking and changing the sequence for every record (about
 * 3,700 instructions with the lock's release at commit: a sixth of what a
 * record costs).  A sequence CACHE, or a block of numbers kept by each
 * session, gives neither: sessions hand out numbers from blocks taken at
 * different times, so a later number can be smaller.
 *
 * One counter, shared.  Loaded by shared_preload_libraries (as the
 * background worker, which trims streams, needs anyway), the library keeps
 * a table of counters in shared memory, one per (database, sequence).  A
 * counter is a block [next, end) of numbers reserved from the sequence,
 * whose INCREMENT (100) is the block's size: one nextval reserves the block
 * that starts at the number it returns.  Every session of the database
 * takes its numbers from that one block, under a spinlock, so the numbers
 * handed out increase in real time whichever session takes them; and H is
 * next - 1, read under the same spinlock.  When the block is used up, the
 * session that finds it so calls nextval for the next block and installs
 * it, handing out its first number itself; two sessions that race to refill
 * both call nextval, and the one whose block is behind what the counter has
 * handed out meanwhile throws it away (a gap: numbers need not be
 * consecutive, DynamoDB's are not).  A number is handed out only at or
 * above next, so the counter never goes back.
 *
 * Crashes.  The numbers of a block are handed out after the nextval that
 * reserved it wrote its WAL record, so before any commit that used one of
 * them; after a crash the sequence resumes above every block it gave out
 * (sequences never go back over a crash that keeps a commit), and the
 * counters, in shared memory, start empty.
 *
 * Before the first block.  Until a counter has its first block, the
 * numbers handed out in this server's life are none, and H is the
 * sequence's last value L, the highest number given out before the server
 * started (or by a block reservation under way, which the next paragraph
 * covers).  But a session refilling concurrently may have reserved a block
 * whose start is <= L and install it after the reader read L: the block's
 * later numbers would be <= H and handed out after H was read.  So a
 * reader that answers L records it as the counter's floor, under the
 * spinlock, while the counter is still empty, and a block is installed
 * only above the floor (a block at or below it is thrown away, and the
 * next nextval, made after the reader read L, is above it).
 *
 * Without shared memory.  Not preloaded, or when every slot of the table
 * is taken, a database's sessions take each number with nextval, as
 * before, and H is the sequence's last value: numbers are then spaced by
 * the increment.  A database is in one mode for the server's life: slots
 * are never given back (a slot of a dropped database, or of an extension
 * dropped and made again, stays taken until a restart), because a session
 * that took numbers by nextval while another took them from a block would
 * break the order.  The table has STREAM_COUNTERS slots.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_sequence.h"
#include "commands/sequence.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/fmgrprotos.h"
#include "utils/syscache.h"

#include "stream_number.h"

#define STREAM_COUNTERS 1024

typedef struct StreamCounter
{
	Oid			dbid;			/* InvalidOid: a free slot */
	Oid			seqid;
	int64		next;			/* the next number to hand out */
	int64		end;			/* the block's end (exclusive); 0: no block yet */
	int64		floor;			/* before the first block: no block at or below */
} StreamCounter;

typedef struct StreamCounters
{
	slock_t		mutex;
	StreamCounter counter[STREAM_COUNTERS];
} StreamCounters;

static StreamCounters *counters = NULL;
static shmem_request_hook_type prev_shmem_request = NULL;
static shmem_startup_hook_type prev_shmem_startup = NULL;

/* this session's counter: for cached_seqid, NULL when none could be had */
static Oid	cached_seqid = InvalidOid;
static StreamCounter *cached_counter = NULL;

static void
stream_number_shmem_request(void)
{
	if (prev_shmem_request)
		prev_shmem_request();
	RequestAddinShmemSpace(sizeof(StreamCounters));
}

static void
stream_number_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup)
		prev_shmem_startup();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	counters = ShmemInitStruct("item_table stream numbers", sizeof(StreamCounters), &found);
	if (!found)
	{
		memset(counters, 0, sizeof(StreamCounters));
		SpinLockInit(&counters->mutex);
	}
	LWLockRelease(AddinShmemInitLock);
}

void
StreamNumberInit(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request = shmem_request_hook;
	shmem_request_hook = stream_number_shmem_request;
	prev_shmem_startup = shmem_startup_hook;
	shmem_startup_hook = stream_number_shmem_startup;
}

void
StreamNumberForget(void)
{
	cached_seqid = InvalidOid;
	cached_counter = NULL;
}

/*
 * counter_of
 *		This database's counter for seqid, its slot taken if need be; NULL
 *		without shared memory or when every slot is taken (for good: slots
 *		are never given back).
 */
static StreamCounter *
counter_of(Oid seqid)
{
	StreamCounter *c = NULL;
	StreamCounter *free_slot = NULL;
	int			i;

	if (counters == NULL)
		return NULL;
	if (seqid == cached_seqid)
		return cached_counter;
	SpinLockAcquire(&counters->mutex);
	for (i = 0; i < STREAM_COUNTERS; i++)
	{
		StreamCounter *s = &counters->counter[i];

		if (s->dbid == MyDatabaseId && s->seqid == seqid)
		{
			c = s;
			break;
		}
		if (s->dbid == InvalidOid)
		{
			free_slot = s;
			break;				/* slots are taken in order and never freed */
		}
	}
	if (c == NULL && free_slot != NULL)
	{
		free_slot->dbid = MyDatabaseId;
		free_slot->seqid = seqid;
		free_slot->next = free_slot->end = free_slot->floor = 0;
		c = free_slot;
	}
	SpinLockRelease(&counters->mutex);
	cached_seqid = seqid;
	cached_counter = c;
	return c;
}

/* the sequence's increment, read after a nextval of this transaction */
static int64
sequence_increment(Oid seqid)
{
	HeapTuple	tup = SearchSysCache1(SEQRELID, ObjectIdGetDatum(seqid));
	int64		inc;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for sequence %u", seqid);
	inc = ((Form_pg_sequence) GETSTRUCT(tup))->seqincrement;
	ReleaseSysCache(tup);
	return inc;
}

/*
 * StreamNumberNext
 *		A number larger than every number handed out before this call, in
 *		this database (see the header essay).
 */
int64
StreamNumberNext(Oid seqid)
{
	StreamCounter *c = counter_of(seqid);

	if (c == NULL)
		return nextval_internal(seqid, false);
	for (;;)
	{
		int64		n;
		int64		inc;
		int64		behind;

		SpinLockAcquire(&counters->mutex);
		if (c->next < c->end)
		{
			n = c->next++;
			SpinLockRelease(&counters->mutex);
			return n;
		}
		SpinLockRelease(&counters->mutex);

		/*
		 * A new block.  nextval locks the sequence until the transaction
		 * ends, so the increment read after it is the one it used (ALTER
		 * SEQUENCE waits for that lock).
		 */
		n = nextval_internal(seqid, false);
		inc = sequence_increment(seqid);
		if (inc < 1)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("item_table.stream_sequence must count upwards"),
					 errhint("ALTER SEQUENCE item_table.stream_sequence INCREMENT BY 100;")));
		SpinLockAcquire(&counters->mutex);
		if (n >= c->next && n > c->floor)
		{
			c->next = n + 1;
			c->end = n > PG_INT64_MAX - inc ? PG_INT64_MAX : n + inc;
			SpinLockRelease(&counters->mutex);
			return n;
		}
		behind = c->next - n;
		SpinLockRelease(&counters->mutex);

		/*
		 * Behind the counter: another session installed a later block
		 * meanwhile, by at most one block per session -- unless the
		 * sequence was set back by hand.
		 */
		if (behind / inc > MaxBackends + 1)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("item_table.stream_sequence is behind the stream numbers already handed out"),
					 errdetail("The sequence returned %lld; numbers up to %lld were handed out.",
							   (long long) n, (long long) (n + behind - 1)),
					 errhint("Set it with setval() to at least the highest seq in item_table.stream_records.")));
		CHECK_FOR_INTERRUPTS();
	}
}

static int64
sequence_last_value(Oid seqid)
{
	LOCAL_FCINFO(fc, 1);
	Datum		d;

	InitFunctionCallInfoData(*fc, NULL, 1, InvalidOid, NULL, NULL);
	fc->args[0].value = ObjectIdGetDatum(seqid);
	fc->args[0].isnull = false;
	d = pg_sequence_last_value(fc);
	return fc->isnull ? 0 : DatumGetInt64(d);
}

/*
 * StreamNumberLast
 *		H: the highest number handed out so far in this database; every
 *		number <= H was handed out before this call returned (0 when none).
 */
int64
StreamNumberLast(Oid seqid)
{
	StreamCounter *c = counter_of(seqid);
	int64		last;

	if (c == NULL)
		return sequence_last_value(seqid);
	SpinLockAcquire(&counters->mutex);
	if (c->end > 0)
	{
		last = c->next - 1;
		SpinLockRelease(&counters->mutex);
		return last;
	}
	SpinLockRelease(&counters->mutex);

	/* no block yet: the sequence's last value, kept as the floor */
	last = sequence_last_value(seqid);
	SpinLockAcquire(&counters->mutex);
	if (c->end > 0)
		last = c->next - 1;
	else if (last > c->floor)
		c->floor = last;
	SpinLockRelease(&counters->mutex);
	return last;
}
