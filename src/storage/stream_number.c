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
 * numbers handed out in this server's life are none, and H is the end of
 * the sequence's last block, L + INCREMENT - 1 for its last value L: the
 * highest number that can have been given out before the server started
 * or, on a promoted standby, before the promotion (the block's numbers
 * were handed out from the old counter; the sequence's value replayed
 * from WAL is at or above L, never below, and the next nextval is above
 * L + INCREMENT - 1), or by a block reservation under way, which the next
 * paragraph covers.  (L alone would hide, after a restart, the records
 * numbered from the last block until a new block is taken.)  But a
 * session refilling concurrently may have reserved a block whose start is
 * <= L and install it after the reader read L: the block's later numbers
 * would be <= H and handed out after H was read.  So a reader that
 * answers H records it as the counter's floor, under the
 * spinlock, while the counter is still empty, and a block is installed
 * only above the floor (a block at or below it is thrown away, and the
 * next nextval, made after the reader read L, is above it).
 *
 * Holders.  Readers need to know which open transactions hold numbers
 * (stream.c, "The horizon").  The table has a holder per backend (by
 * BackendId): a transaction's first number, handed out under the spinlock,
 * sets the backend's holder to that number and the transaction's id in
 * the same critical section, so a reader that read H sees the holder of
 * every number <= H that was handed out, unless it was cleared.  It is
 * cleared by the transaction callback at commit or abort, which
 * PostgreSQL calls after the proc array shows the transaction ended (one
 * spinlock per transaction that took numbers); later numbers of the
 * transaction leave it as it is, and so do savepoints, rolled back or
 * not.  A reader passes over a holder whose transaction the proc array
 * shows ended (in the moment before its callback clears it, or if a
 * process left without one): the commit it waited for is visible.
 *
 * Prepared transactions.  A transaction that took numbers and is
 * PREPAREd goes on: it can commit later.  At PRE_PREPARE (where an error
 * is still possible) it reserves one of the max_prepared_transactions
 * holders kept for prepared transactions and takes a lock that names its
 * lowest number (an advisory lock tag of a kind of its own, which user
 * advisory locks never have); at PREPARE its holder moves there, under
 * its id, which the proc array shows in progress until COMMIT or ROLLBACK
 * PREPARED.  A prepared holder whose transaction has ended is freed by the
 * next reader, or by the next PRE_PREPARE that finds none free.  The lock
 * is kept in the prepared transaction's state file, and held again after
 * a restart: the first reader of a counter (after a restart, of every
 * counter) makes holders of the prepared transactions of its database
 * from those locks before it answers.
 *
 * Crashes and restarts.  The holders are in shared memory, which a crash
 * restart makes again: the backends' are empty, as every transaction
 * open before it has aborted, and prepared transactions are found again
 * by their locks, as above.
 *
 * Without shared memory.  Not preloaded, or when every slot of the table
 * is taken, a database's sessions take each number with nextval, as
 * before, and H is the sequence's last value: numbers are then spaced by
 * the increment.  There are no holders: a transaction takes a lock of its
 * own kind (an advisory lock tag no SQL function makes) before its first
 * number and keeps it until it ends, and readers wait for the holders of
 * that lock (StreamNumberTakers).  The sequence's own lock, which nextval
 * also keeps, would not do: any role can take it (nextval takes it before
 * it checks rights, and keeps it through the savepoint that caught the
 * error).  A database is in one mode for the server's life: slots
 * are never given back (a slot of a dropped database, or of an extension
 * dropped and made again, stays taken until a restart), because a session
 * that took numbers by nextval while another took them from a block would
 * break the order.  The table has STREAM_COUNTERS slots.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/transam.h"
#include "access/twophase.h"
#include "access/xact.h"
#include "catalog/pg_sequence.h"
#include "commands/sequence.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/fmgrprotos.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/syscache.h"

#include "compat.h"
#include "stream_number.h"

#define STREAM_COUNTERS 1024

typedef struct StreamCounter
{
	Oid			dbid;			/* InvalidOid: a free slot */
	Oid			seqid;
	int64		next;			/* the next number to hand out */
	int64		end;			/* the block's end (exclusive); 0: no block yet */
	int64		floor;			/* before the first block: no block at or below */
	bool		recovered;		/* prepared transactions of before the start known */
} StreamCounter;

/*
 * A holder: a transaction that took a number and has not ended.  One per
 * backend (its open transaction), then one per prepared transaction.
 */
typedef struct StreamHolder
{
	Oid			dbid;
	TransactionId xid;			/* the top transaction's id */
	int64		low;			/* the lowest number it took; 0: free */
	int			reserved_by;	/* prepared ones: the backend preparing into it */
} StreamHolder;

typedef struct StreamCounters
{
	slock_t		mutex;
	int			nbackends;		/* holder[0 .. nbackends): by BackendId - 1 */
	int			nholders;		/* then the prepared transactions' */
	StreamCounter counter[STREAM_COUNTERS];
	StreamHolder holder[FLEXIBLE_ARRAY_MEMBER];
} StreamCounters;

/*
 * The lock a prepared transaction that took numbers holds, which names its
 * lowest number: kept in the prepared transaction's state file, it is there
 * again after a restart (an advisory lock tag of our own kind: user
 * advisory locks have 1 or 2 in the last field).
 */
#define STREAM_HOLD_LOCK_KIND	0x4954
#define SET_LOCKTAG_STREAM_HOLD(tag, db, low) \
	SET_LOCKTAG_ADVISORY(tag, db, (uint32) ((uint64) (low) >> 32), (uint32) (low), \
						 STREAM_HOLD_LOCK_KIND)

/*
 * Without the shared counters, the lock every transaction that takes
 * numbers holds (ShareLock: takers do not conflict) from before its first
 * one until it ends; of a kind of its own too, so no one else can take it.
 */
#define STREAM_TAKER_LOCK_KIND	0x4955
#define SET_LOCKTAG_STREAM_TAKER(tag, db) \
	SET_LOCKTAG_ADVISORY(tag, db, 0, 0, STREAM_TAKER_LOCK_KIND)

static StreamCounters *counters = NULL;
static shmem_request_hook_type prev_shmem_request = NULL;
static shmem_startup_hook_type prev_shmem_startup = NULL;

/* this session's counter: for cached_seqid, NULL when none could be had */
static Oid	cached_seqid = InvalidOid;
static StreamCounter *cached_counter = NULL;

/* this backend's holder, set while its transaction holds numbers */
static bool holding = false;
/* the prepared transactions' holder reserved at PRE_PREPARE, or -1 */
static int	prepared_holder = -1;

static Size
counters_size(void)
{
	return add_size(offsetof(StreamCounters, holder),
					mul_size(sizeof(StreamHolder), MaxBackends + max_prepared_xacts));
}

static void
stream_number_shmem_request(void)
{
	if (prev_shmem_request)
		prev_shmem_request();
	RequestAddinShmemSpace(counters_size());
}

static void
stream_number_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup)
		prev_shmem_startup();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	counters = ShmemInitStruct("item_table stream numbers", counters_size(), &found);
	if (!found)
	{
		memset(counters, 0, counters_size());
		SpinLockInit(&counters->mutex);
		counters->nbackends = MaxBackends;
		counters->nholders = MaxBackends + max_prepared_xacts;
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
		free_slot->recovered = false;
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

/* ----------------------------------------------------------------
 * holders
 * ----------------------------------------------------------------
 */

/*
 * forget_ended
 *		Free the prepared transactions' holders whose transaction has ended
 *		(committed or rolled back, seen so in the proc array): only xid is
 *		freed, if it is still there.
 */
static void
forget_ended(int index, TransactionId xid)
{
	StreamHolder *h = &counters->holder[index];

	if (TransactionIdIsInProgress(xid))
		return;
	SpinLockAcquire(&counters->mutex);
	if (h->low != 0 && h->xid == xid && h->reserved_by == 0)
		h->low = 0;
	SpinLockRelease(&counters->mutex);
}

static void
forget_all_ended(void)
{
	int			n = counters->nholders - counters->nbackends;
	TransactionId *xids = palloc(sizeof(TransactionId) * Max(n, 1));
	int			i;

	SpinLockAcquire(&counters->mutex);
	for (i = 0; i < n; i++)
	{
		StreamHolder *h = &counters->holder[counters->nbackends + i];

		xids[i] = h->low != 0 && h->reserved_by == 0 ? h->xid : InvalidTransactionId;
	}
	SpinLockRelease(&counters->mutex);
	for (i = 0; i < n; i++)
		if (TransactionIdIsValid(xids[i]))
			forget_ended(counters->nbackends + i, xids[i]);
	pfree(xids);
}

/*
 * prepared_holder_for
 *		A free holder for a prepared transaction, reserved for this backend
 *		(reserved_by); with xid valid, the one that already holds xid, if
 *		any.  Those of ended transactions are freed if none is free.
 */
static int
prepared_holder_for(TransactionId xid, bool *found)
{
	int			attempt;

	*found = false;
	for (attempt = 0; attempt < 2; attempt++)
	{
		int			free_one = -1;
		int			i;

		SpinLockAcquire(&counters->mutex);
		for (i = counters->nbackends; i < counters->nholders; i++)
		{
			StreamHolder *h = &counters->holder[i];

			if (h->low == 0 && h->reserved_by == 0)
			{
				if (free_one < 0)
					free_one = i;
			}
			else if (TransactionIdIsValid(xid) && h->low != 0 && h->xid == xid)
			{
				*found = true;
				free_one = i;
				break;
			}
		}
		if (free_one >= 0 && !*found)
			counters->holder[free_one].reserved_by = ItemMyBackendSlot() + 1;
		SpinLockRelease(&counters->mutex);
		if (free_one >= 0)
			return free_one;
		forget_all_ended();
	}
	ereport(ERROR,
			(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
			 errmsg("too many prepared transactions hold stream numbers"),
			 errhint("Commit or roll back prepared transactions, or increase max_prepared_transactions.")));
	return -1;
}

/*
 * stream_number_xact
 *		The end of a transaction that took numbers: its holder is cleared
 *		at commit and abort (called after the proc array shows it ended),
 *		and moved to a prepared transaction's holder at PREPARE, reserved
 *		at PRE_PREPARE (where an error is still possible), together with
 *		the lock that names its lowest number for after a restart.
 */
static void
stream_number_xact(XactEvent event, void *arg)
{
	StreamHolder *mine;

	if (!holding && prepared_holder < 0)
		return;
	mine = &counters->holder[ItemMyBackendSlot()];
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			SpinLockAcquire(&counters->mutex);
			if (holding)
				mine->low = 0;
			if (prepared_holder >= 0)
				counters->holder[prepared_holder].reserved_by = 0;
			SpinLockRelease(&counters->mutex);
			holding = false;
			prepared_holder = -1;
			break;
		case XACT_EVENT_PRE_PREPARE:
			if (holding && prepared_holder < 0 && max_prepared_xacts > 0)
			{
				LOCKTAG	tag;
				bool		found;

				prepared_holder = prepared_holder_for(InvalidTransactionId, &found);
				SET_LOCKTAG_STREAM_HOLD(tag, MyDatabaseId, mine->low);
				(void) LockAcquire(&tag, ExclusiveLock, false, false);
			}
			break;
		case XACT_EVENT_PREPARE:
			/*
			 * The prepared transaction is in the proc array under the same
			 * id: it goes on holding its numbers back.  (Numbers taken after
			 * PRE_PREPARE, which nothing here does, would leave the
			 * backend's holder to the prepared transaction until the
			 * backend's next one that takes numbers.)
			 */
			SpinLockAcquire(&counters->mutex);
			if (holding && prepared_holder >= 0)
			{
				StreamHolder *p = &counters->holder[prepared_holder];

				p->dbid = mine->dbid;
				p->xid = mine->xid;
				p->low = mine->low;
				mine->low = 0;
			}
			if (prepared_holder >= 0)
				counters->holder[prepared_holder].reserved_by = 0;
			SpinLockRelease(&counters->mutex);
			holding = false;
			prepared_holder = -1;
			break;
		default:
			break;
	}
}

/*
 * my_holder
 *		This backend's holder, to be set with the transaction's first number
 *		(its id, assigned if need be, in *xid).
 */
static StreamHolder *
my_holder(TransactionId *xid)
{
	static bool registered = false;

	if (ItemMyBackendSlot() < 0 || ItemMyBackendSlot() >= counters->nbackends)
		elog(ERROR, "stream numbers taken by a process without a backend id");
	if (!registered)
	{
		RegisterXactCallback(stream_number_xact, NULL);
		registered = true;
	}
	*xid = GetTopTransactionId();
	return &counters->holder[ItemMyBackendSlot()];
}

#define HOLD(h, xid_, n) \
	do { \
		if ((h) != NULL) \
		{ \
			(h)->dbid = MyDatabaseId; \
			(h)->xid = (xid_); \
			(h)->low = (n); \
			holding = true; \
		} \
	} while (0)

/*
 * StreamNumberNext
 *		A number larger than every number handed out before this call, in
 *		this database (see the header essay).  The transaction's first one
 *		is its holder's lowest number, set as it is handed out.
 */
int64
StreamNumberNext(Oid seqid)
{
	StreamCounter *c = counter_of(seqid);
	StreamHolder *h = NULL;
	TransactionId xid = InvalidTransactionId;

	if (c == NULL)
	{
		static LocalTransactionId taker_lxid = InvalidLocalTransactionId;

		/* a taker from before its first number (StreamNumberTakers) */
		if (taker_lxid != ItemMyLocalXid())
		{
			LOCKTAG		tag;
			ResourceOwner owner = CurrentResourceOwner;

			/* held until the transaction ends, whatever its savepoints do */
			SET_LOCKTAG_STREAM_TAKER(tag, MyDatabaseId);
			CurrentResourceOwner = TopTransactionResourceOwner;
			PG_TRY();
			{
				(void) LockAcquire(&tag, ShareLock, false, false);
			}
			PG_FINALLY();
			{
				CurrentResourceOwner = owner;
			}
			PG_END_TRY();
			taker_lxid = ItemMyLocalXid();
		}
		return nextval_internal(seqid, false);
	}
	if (!holding)
		h = my_holder(&xid);
	for (;;)
	{
		int64		n;
		int64		inc;
		int64		behind;

		SpinLockAcquire(&counters->mutex);
		if (c->next < c->end)
		{
			n = c->next++;
			HOLD(h, xid, n);
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
			HOLD(h, xid, n);
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

	/*
	 * No block yet: the end of the last block the sequence gave out (its
	 * last value is that block's start, whose numbers were handed out
	 * before this server started, or before it was promoted), kept as
	 * the floor.
	 */
	last = sequence_last_value(seqid);
	if (last > 0)
	{
		int64		inc = sequence_increment(seqid);

		if (inc > 1)
			last = last > PG_INT64_MAX - (inc - 1) ? PG_INT64_MAX : last + (inc - 1);
	}
	SpinLockAcquire(&counters->mutex);
	if (c->end > 0)
		last = c->next - 1;
	else if (last > c->floor)
		c->floor = last;
	SpinLockRelease(&counters->mutex);
	return last;
}

/*
 * recover_prepared
 *		After a restart, the prepared transactions that took numbers before
 *		it are known by the locks that name their lowest numbers (restored
 *		with them); they become holders before the counter's first horizon.
 */
static void
recover_prepared(StreamCounter *c)
{
	LockData   *locks = GetLockStatusData();
	int			i;

	for (i = 0; i < locks->nelements; i++)
	{
		LockInstanceData *l = &locks->locks[i];
		VirtualTransactionId vxid;
		TransactionId xid;
		int64		low;
		int			k;
		bool		found;

		if (l->pid != 0 || l->locktag.locktag_type != LOCKTAG_ADVISORY ||
			l->locktag.locktag_field4 != STREAM_HOLD_LOCK_KIND ||
			l->locktag.locktag_field1 != MyDatabaseId)
			continue;
		vxid = ItemLockHolderVxid(l);
		if (VirtualTransactionIdIsRecoveredPreparedXact(vxid))
			xid = (TransactionId) vxid.localTransactionId;	/* the lxid is the xid */
		else
		{
			bool		more = false;

			xid = TwoPhaseGetXidByVirtualXID(vxid, &more);
		}
		if (!TransactionIdIsValid(xid))
			continue;
		low = (int64) (((uint64) l->locktag.locktag_field2 << 32) | l->locktag.locktag_field3);
		k = prepared_holder_for(xid, &found);
		SpinLockAcquire(&counters->mutex);
		if (!found)
		{
			counters->holder[k].dbid = MyDatabaseId;
			counters->holder[k].xid = xid;
			counters->holder[k].low = low;
			counters->holder[k].reserved_by = 0;
		}
		SpinLockRelease(&counters->mutex);
	}
	SpinLockAcquire(&counters->mutex);
	c->recovered = true;
	SpinLockRelease(&counters->mutex);
}

typedef struct Held
{
	int64		low;
	TransactionId xid;
	int			index;
} Held;

static int
held_cmp(const void *a, const void *b)
{
	int64		x = ((const Held *) a)->low;
	int64		y = ((const Held *) b)->low;

	return x < y ? -1 : x > y ? 1 : 0;
}

/*
 * StreamNumberHorizon
 *		With shared counters: *last, the highest number handed out (as
 *		StreamNumberLast), and *horizon, the highest number below every
 *		number of a transaction still in progress (this one apart): every
 *		number <= *horizon that will ever be committed belongs to a
 *		transaction that had ended before this call returned, which every
 *		snapshot whose completion count is at least *completions sees
 *		ended.  False without shared counters (nothing is tracked).
 */
bool
StreamNumberHorizon(Oid seqid, int64 *horizon, int64 *last, uint64 *completions)
{
	StreamCounter *c = counter_of(seqid);
	Held	   *held;
	int			nheld = 0;
	int			i;

	if (c == NULL)
		return false;
	if (!c->recovered)
		recover_prepared(c);

	/* the last number first: each number <= it has its holder set */
	*last = StreamNumberLast(seqid);
	held = palloc(sizeof(Held) * counters->nholders);
	SpinLockAcquire(&counters->mutex);
	for (i = 0; i < counters->nholders; i++)
	{
		StreamHolder *h = &counters->holder[i];

		if (h->low != 0 && h->low <= *last && h->dbid == MyDatabaseId)
		{
			held[nheld].low = h->low;
			held[nheld].xid = h->xid;
			held[nheld].index = i;
			nheld++;
		}
	}
	SpinLockRelease(&counters->mutex);
	if (nheld > 1)
		qsort(held, nheld, sizeof(Held), held_cmp);

	/*
	 * The lowest holder still in progress.  One that is not has ended (a
	 * commit is cleared from the proc array before the holder), though its
	 * holder may not be cleared yet.
	 */
	*horizon = *last;
	for (i = 0; i < nheld; i++)
	{
		if (TransactionIdIsCurrentTransactionId(held[i].xid))
			continue;
		if (TransactionIdIsInProgress(held[i].xid))
		{
			*horizon = held[i].low - 1;
			break;
		}
		if (held[i].index >= counters->nbackends)
			forget_ended(held[i].index, held[i].xid);
	}
	pfree(held);

	/* read after every end it relies on */
	LWLockAcquire(ProcArrayLock, LW_SHARED);
	*completions = ItemTransamVariables->xactCompletionCount;
	LWLockRelease(ProcArrayLock);
	return true;
}

/*
 * StreamNumberTakers
 *		Without the shared counters, where each number is a nextval: *last,
 *		the sequence's last value (0 when none), and the transactions but
 *		this one (*n of them, palloc'd) that hold the takers' lock.  A
 *		transaction takes that lock before its first number and keeps it
 *		until it ends (prepared ones included, across a restart), so every
 *		number <= *last was taken by one of them or by a transaction that
 *		had ended.  The value is read from the sequence's page without the
 *		sequence's lock or rights (pg_sequence_last_value takes the lock,
 *		until the reader's transaction ends).
 */
VirtualTransactionId *
StreamNumberTakers(Oid seqid, int64 *last, int *n)
{
	Relation	rel = relation_open(seqid, AccessShareLock);
	Buffer		buf;
	Page		page;
	ItemId		lp;
	HeapTupleData tup;
	Form_pg_sequence_data seq;
	LOCKTAG		tag;

	if (rel->rd_rel->relkind != RELKIND_SEQUENCE)
		elog(ERROR, "\"%s\" is not a sequence", RelationGetRelationName(rel));
	buf = ReadBuffer(rel, 0);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	lp = PageGetItemId(page, FirstOffsetNumber);
	if (!ItemIdIsNormal(lp))
		elog(ERROR, "invalid page of sequence \"%s\"", RelationGetRelationName(rel));
	tup.t_data = (HeapTupleHeader) PageGetItem(page, lp);
	tup.t_len = ItemIdGetLength(lp);
	seq = (Form_pg_sequence_data) GETSTRUCT(&tup);
	*last = seq->is_called ? seq->last_value : 0;
	UnlockReleaseBuffer(buf);
	relation_close(rel, NoLock);

	/* ExclusiveLock conflicts with the takers' ShareLock */
	SET_LOCKTAG_STREAM_TAKER(tag, MyDatabaseId);
	return GetLockConflicts(&tag, ExclusiveLock, n);
}
