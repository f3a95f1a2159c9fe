/*-------------------------------------------------------------------------
 *
 * pgpipe.c
 *		With --engine loop: each event loop's own PostgreSQL sessions, in
 *		libpq's pipeline mode, non-blocking, in the loop's epoll, so that a
 *		request is read, run and answered on one thread.
 *
 * Why.  bench/gateway/PROFILE.md: handing each request to pool.c's slot
 * threads and back through an eventfd costs a futex, an eventfd write and
 * read, a poll and two context switches per request.  Here a loop queues
 * the jobs of one wake-up and, at its end, sends them in batches on its
 * own sessions; the answers are read when a session's socket becomes
 * readable, on the same thread, and answered there (loop.c).
 *
 * Sessions.  --pool is divided among the loops (loop i gets pool / loops,
 * and one more while i < pool % loops); a server's sessions (the primary's
 * and each --replica's, each --pool) are divided the same way.  With fewer
 * sessions than loops, a loop that has none of a server's hands that
 * server's jobs to one that has (the next in turn with a session idle),
 * through a lock-free list and
 * the other loop's eventfd, and gets the answer back the way pool.c's
 * threads give it (loop.c's done list): the count of sessions stays
 * --pool, and a full pool throttles whichever loop a client landed on.
 * Sessions are made when first needed, on a thread of their own (pool.c's
 * PoolOpenSession; "Connecting" below), kept, and made again when lost.
 *
 * A job waits on its loop's queue, except that once all of a loop's
 * sessions are busy its queued jobs go, a batch per idle session, to
 * other loops whose sessions of the server are idle (share_out): how the
 * kernel spreads the clients over the loops' sockets does not decide how
 * long they wait.
 *
 * The rest is pool.c's, through the functions it shares: a job waits on
 * its loop's queue (JobQueue*), at most --pool-wait (then
 * ThrottlingException, from the loop's timer); an idle session takes a
 * batch (JobQueueTakeBatch: the first job whose role is under
 * --pool-per-role, then the later ones of its role up to a fair share of
 * the queue, at most BATCH_MAX), sent as one segment per job (the
 * prepared "dyn", then a Sync); its results are read segment by segment
 * (PoolSegmentResult) and judged (PoolJudge: reusable = false closes the
 * session after its batch and requeues the jobs refused behind it; a
 * refusal of the key's role is AccessDenied).  A session lost with a batch
 * out fails the batch's jobs not yet answered (JOB_CONNECTION_LOST) and
 * requeues those refused for a dirty session; the queue is untouched.  A
 * session idle for 50 ms or more is looked at before a batch (an idle
 * session that becomes readable is closed at once: the server left).
 * The --pool-per-role cap counts a role's batches on all the loops (one
 * table per server, under a mutex taken once per batch of a capped role).
 *
 * Batching.  libpq connects and sets a session up (PoolOpenSession, left
 * idle, not in pipeline mode); from then on the loop speaks the protocol on
 * its socket itself (pgwire.c): a batch's segments (Bind, Execute, Sync
 * per job) go out in one send(), whatever libpq's version (libpq 15 and
 * 16 write at each pipeline Sync), and the answers are parsed from what
 * recv() reads into PGresults that the consumers read as libpq's.  A
 * partial send finishes when the socket is writable.  An encrypted
 * session (SSL, GSS) keeps libpq's pipeline mode (PoolSendSegments: with
 * libpq 17 or later the Syncs are queued without a write,
 * PQsendPipelineSync; older libpq writes at each Sync).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "gateway.h"

struct PipeSet;

/* one session of one loop */
typedef struct PipeConn
{
	struct PipeSet *set;
	PGconn	   *conn;
	int			fd;
	bool		busy;			/* a batch is out */
	bool		connecting;		/* a thread of its own is connecting it */
	PGconn	   *made;			/* ... what it made (NULL: it could not) */
	struct PipeConn *made_next; /* ... on the loop's list of them */
	bool		want_out;		/* libpq holds output: EPOLLOUT wanted */
	void	   *watch;			/* the loop's watch of fd (LoopWatch) */
	bool		dirty;			/* a job answered reusable = false */
	bool		capped;			/* the batch counts in its role's holds */
	char		role[GW_MAX_ROLE + 1];	/* the login role, quoted */
	char		batch_role[GW_MAX_ROLE + 1];
	GwJob	   *jobs[BATCH_MAX];
	int			n;				/* the batch */
	int			sent;			/* ... sent */
	int			next;			/* ... answered */
	GwJob	   *again[BATCH_MAX];	/* refused for a dirty session */
	int			nagain;
	PGresult   *got;			/* the segment being read (libpq's) */
	int64_t		last_used_ms;
	bool		wire;			/* the protocol is ours (pgwire.c), not libpq's */
	bool		ring;			/* ... its bytes go through the loop's ring */
	bool		rx_posted;		/* ... a receive is in the ring */
	GwWire		w;
} PipeConn;

/* one loop's sessions to one server, and its queue for them */
typedef struct PipeSet
{
	struct PipeLoop *loop;
	int			pool;			/* PoolIndex */
	PipeConn   *conns;
	int			nconns;
	GwJobQueue	queue;
	bool		blocked;		/* queued jobs all over their role's cap */
	int			nbusy;			/* sessions with a batch out */
	int			nconnecting;	/* sessions being connected */
	int			stat_busy;		/* atomic, for PipeStats */
	int			stat_waiting;	/* atomic */
} PipeSet;

typedef struct PipeLoop
{
	int			epfd;
	int			efd;
	PipeSet    *sets;			/* one per pool */
	int			nbusy;			/* sessions with a batch out, all sets */
	GwJob	   *inbox;			/* atomic: jobs handed over by other loops */
	PipeConn   *made;			/* atomic: sessions whose connect ended */
} PipeLoop;

/* a server's sessions on all the loops */
typedef struct RoleHold
{
	char		role[GW_MAX_ROLE + 1];
	int			n;				/* batches running */
} RoleHold;

typedef struct PipeServer
{
	GwPool	   *pool;
	const char *conninfo;
	int		   *owners;			/* loops with sessions of it */
	int			nowners;
	unsigned	rr;				/* atomic: the next owner to hand a job to */
	pthread_mutex_t hold_mutex;
	RoleHold   *holds;			/* as many as sessions */
	int			nholds;
	int			blocked;		/* atomic: a loop waits for a hold to end */
} PipeServer;

static PipeLoop *ploops;
static int	nploops;
static PipeServer *servers;
static int	nservers;
static __thread PipeLoop *self;

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * PipeInit
 *		With --engine loop, after RouteInit: divide each server's sessions
 *		among nloops loops.
 */
bool
PipeInit(int nloops)
{
	int			i,
				k;

	nploops = nloops;
	nservers = PoolCount();
	ploops = calloc((size_t) nloops, sizeof(PipeLoop));
	servers = calloc((size_t) nservers, sizeof(PipeServer));
	if (ploops == NULL || servers == NULL)
		return false;
	for (k = 0; k < nservers; k++)
	{
		PipeServer *sv = &servers[k];
		int			size = PoolSize(PoolAt(k));

		sv->pool = PoolAt(k);
		sv->conninfo = PoolConninfo(sv->pool);
		sv->owners = calloc((size_t) nloops, sizeof(int));
		sv->holds = calloc((size_t) size, sizeof(RoleHold));
		if (sv->owners == NULL || sv->holds == NULL)
			return false;
		sv->nholds = size;
		pthread_mutex_init(&sv->hold_mutex, NULL);
		for (i = 0; i < nloops; i++)
			if (size / nloops + (i < size % nloops ? 1 : 0) > 0)
				sv->owners[sv->nowners++] = i;
	}
	for (i = 0; i < nloops; i++)
	{
		PipeLoop   *pl = &ploops[i];

		pl->epfd = pl->efd = -1;
		pl->sets = calloc((size_t) nservers, sizeof(PipeSet));
		if (pl->sets == NULL)
			return false;
		for (k = 0; k < nservers; k++)
		{
			PipeSet    *s = &pl->sets[k];
			int			size = PoolSize(servers[k].pool),
						j;

			s->loop = pl;
			s->pool = k;
			s->nconns = size / nloops + (i < size % nloops ? 1 : 0);
			s->conns = calloc((size_t) (s->nconns ? s->nconns : 1), sizeof(PipeConn));
			if (s->conns == NULL)
				return false;
			for (j = 0; j < s->nconns; j++)
			{
				s->conns[j].set = s;
				s->conns[j].fd = -1;
			}
		}
	}
	return true;
}

/* loop i's epoll and eventfd (before its thread starts) */
void
PipeLoopFds(int i, int epfd, int efd)
{
	if (ploops == NULL)
		return;
	ploops[i].epfd = epfd;
	ploops[i].efd = efd;
}

/* the calling thread is loop i */
void
PipeLoopBegin(int i)
{
	if (ploops)
		self = &ploops[i];
}

static void
wake(PipeLoop *pl)
{
	uint64_t	one = 1;

	if (write(pl->efd, &one, sizeof(one)) < 0)
		return;					/* the counter is full: it is awake anyway */
}

/* ----------------------------------------------------------------
 * The --pool-per-role holds of a server
 * ----------------------------------------------------------------
 */

/* under hold_mutex */
static bool
under_cap(void *cls, const char *role)
{
	PipeServer *sv = cls;
	int			i;

	for (i = 0; i < sv->nholds; i++)
		if (sv->holds[i].n > 0 && strcmp(sv->holds[i].role, role) == 0)
			return sv->holds[i].n < PoolRoleCap();
	return true;
}

/* under hold_mutex */
static void
hold_take(PipeServer *sv, const char *role)
{
	int			i,
				free_at = -1;

	for (i = 0; i < sv->nholds; i++)
	{
		if (sv->holds[i].n > 0 && strcmp(sv->holds[i].role, role) == 0)
		{
			sv->holds[i].n++;
			return;
		}
		if (sv->holds[i].n == 0 && free_at < 0)
			free_at = i;
	}
	if (free_at >= 0)
	{
		snprintf(sv->holds[free_at].role, sizeof(sv->holds[free_at].role), "%s", role);
		sv->holds[free_at].n = 1;
	}
}

/* pc's batch is over: its role's hold ends; wake the loops that wait on it */
static void
hold_release(PipeConn *pc)
{
	PipeServer *sv = &servers[pc->set->pool];
	int			i;

	if (!pc->capped)
		return;
	pc->capped = false;
	pthread_mutex_lock(&sv->hold_mutex);
	for (i = 0; i < sv->nholds; i++)
		if (sv->holds[i].n > 0 && strcmp(sv->holds[i].role, pc->batch_role) == 0)
		{
			sv->holds[i].n--;
			break;
		}
	pthread_mutex_unlock(&sv->hold_mutex);
	if (__atomic_exchange_n(&sv->blocked, 0, __ATOMIC_ACQ_REL))
		for (i = 0; i < sv->nowners; i++)
			if (&ploops[sv->owners[i]] != self)
				wake(&ploops[sv->owners[i]]);
}

/* ----------------------------------------------------------------
 * Jobs in and out
 * ----------------------------------------------------------------
 */

/*
 * The loop a loop without sessions of a server hands its job to: the next
 * one in turn with a session idle (its sessions may be held by a role over
 * its cap, while other roles' jobs would find one there), else the next
 * one in turn.
 */
static PipeLoop *
pick_owner(PipeServer *sv, int k)
{
	unsigned	start = __atomic_fetch_add(&sv->rr, 1, __ATOMIC_RELAXED);
	int			j;

	for (j = 0; j < sv->nowners; j++)
	{
		PipeLoop   *pl = &ploops[sv->owners[(start + (unsigned) j) % (unsigned) sv->nowners]];

		if (__atomic_load_n(&pl->sets[k].stat_busy, __ATOMIC_RELAXED) < pl->sets[k].nconns)
			return pl;
	}
	return &ploops[sv->owners[start % (unsigned) sv->nowners]];
}

/*
 * Hand jobs (in their order) to loop to: its inbox, a lock-free list it
 * takes at its next wake-up (PipeInbox), woken when the list was empty.
 */
static void
inbox_push(PipeLoop *to, GwJob **jobs, int n)
{
	GwJob	   *head;
	int			i;

	if (n == 0)
		return;
	/* the list is taken newest first: chain them so that jobs[0] ends first */
	for (i = 0; i + 1 < n; i++)
		jobs[i + 1]->next = jobs[i];
	head = __atomic_load_n(&to->inbox, __ATOMIC_ACQUIRE);
	do
		jobs[0]->next = head;
	while (!__atomic_compare_exchange_n(&to->inbox, &head, jobs[n - 1], true,
										__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	if (head == NULL)
		wake(to);
}

/*
 * PipeSubmit
 *		On a loop's thread (else false: pool.c's slots take it): queue job
 *		for its pool's sessions on this loop, or hand it to a loop that has
 *		some.  Sent at the end of the loop's wake-up (PipeFlush).
 */
bool
PipeSubmit(GwJob *job)
{
	PipeServer *sv;

	if (self == NULL)
		return false;
	PoolSetDeadline(job);
	job->res = NULL;
	sv = &servers[PoolIndex(job->pool)];
	if (self->sets[PoolIndex(job->pool)].nconns > 0)
	{
		JobQueuePush(&self->sets[PoolIndex(job->pool)].queue, job);
		return true;
	}
	inbox_push(pick_owner(sv, PoolIndex(job->pool)), &job, 1);
	return true;
}

static void conns_made(void);

/*
 * The jobs other loops handed to this one, queued in their order, and the
 * sessions whose connect ended.
 */
void
PipeInbox(void)
{
	GwJob	   *job,
			   *rev = NULL;

	if (self == NULL)
		return;
	if (__atomic_load_n(&self->made, __ATOMIC_ACQUIRE) != NULL)
		conns_made();
	if (__atomic_load_n(&self->inbox, __ATOMIC_ACQUIRE) == NULL)
		return;
	job = __atomic_exchange_n(&self->inbox, NULL, __ATOMIC_ACQ_REL);
	while (job)
	{
		GwJob	   *next = job->next;

		job->next = rev;
		rev = job;
		job = next;
	}
	while ((job = rev) != NULL)
	{
		rev = job->next;
		JobQueuePush(&self->sets[PoolIndex(job->pool)].queue, job);
	}
}

/* ----------------------------------------------------------------
 * Sessions
 * ----------------------------------------------------------------
 */

/*
 * Through the ring (a session of ours on a loop with io_uring): a receive
 * is always in the ring while the session is open, into the input buffer,
 * which does not move until it completes (PipeOnRecv); a batch is sent by
 * the ring with the loop's next submission (wire_send, PipeOnSent).  The
 * session's reads and writes then cost no system call of their own.
 */
static bool
wire_post_recv(PipeConn *pc)
{
	char	   *buf;
	size_t		room;

	if (!pc->ring || pc->rx_posted || pc->conn == NULL)
		return true;
	if (!WireRecvRoom(&pc->w, &buf, &room))
		return false;
	if (!LoopRecv(pc->watch, buf, room))
	{
		errno = EAGAIN;
		return false;
	}
	pc->rx_posted = true;
	return true;
}

static void
conn_close(PipeConn *pc)
{
	if (pc->conn == NULL)
		return;
	if (pc->ring)
	{
		/* the ring may still be using them: freed when it is done */
		LoopUnwatch(pc->watch, pc->w.in, pc->w.out);
		pc->w.in = pc->w.out = NULL;
	}
	else
		LoopUnwatch(pc->watch, NULL, NULL);
	pc->watch = NULL;
	if (pc->wire)
		WireReset(&pc->w);
	pc->wire = pc->ring = pc->rx_posted = false;
	PQfinish(pc->conn);
	pc->conn = NULL;
	pc->fd = -1;
	pc->want_out = false;
	pc->role[0] = '\0';
}

/* pc->conn is a new session, set up: watch it on the loop */
static bool
conn_ready(PipeConn *pc)
{
	pc->fd = PQsocket(pc->conn);

	/*
	 * The protocol is spoken here (pgwire.c) unless the connection is
	 * encrypted: then its bytes are libpq's, in pipeline mode.
	 */
	pc->wire = !PQsslInUse(pc->conn) && !PQgssEncInUse(pc->conn);
	if (pc->wire)
		WireInit(&pc->w, pc->fd);
	else if (PQsetnonblocking(pc->conn, 1) != 0 || PQenterPipelineMode(pc->conn) != 1)
	{
		GwLog("cannot enter pipeline mode: %s", PQerrorMessage(pc->conn));
		PQfinish(pc->conn);
		pc->conn = NULL;
		pc->fd = -1;
		return false;
	}
	pc->watch = LoopWatch(pc->fd, (void *) ((uintptr_t) pc | 1), pc->wire);
	pc->ring = pc->wire && LoopWatchRingIo(pc->watch);
	if (pc->ring && !wire_post_recv(pc))
	{
		GwLog("cannot read a PostgreSQL session: %s", strerror(errno));
		conn_close(pc);
		return false;
	}
	if (pc->watch == NULL)
	{
		GwLog("cannot watch a PostgreSQL session: %s", strerror(errno));
		if (pc->wire)
			WireReset(&pc->w);
		pc->wire = false;
		PQfinish(pc->conn);
		pc->conn = NULL;
		pc->fd = -1;
		return false;
	}
	return true;
}

/*
 * Connecting.  A session is made on a thread of its own (connect_main),
 * never on the loop's: PoolOpenSession connects, authenticates and sets
 * the session up in several round trips, a few milliseconds on a local
 * server, and as long as the TCP connect's timeout or for ever (unless
 * the conninfo sets connect_timeout) on a server that does not answer.
 * On the loop's thread that would hold every client of the loop, and
 * requests that need no database, for as long.  Meanwhile the jobs wait
 * on the queue (at most --pool-wait); the thread hands the session back
 * through the loop's list of sessions made and its eventfd, and the loop
 * watches it and sends it the queued jobs (conns_made, then PipeFlush).
 * The thread touches only pc->made and pc->role until it hands pc back.
 */
static void *
connect_main(void *arg)
{
	PipeConn   *pc = arg;
	PipeLoop   *pl = pc->set->loop;
	PipeConn   *head;

	pc->made = PoolOpenSession(servers[pc->set->pool].conninfo,
							   pc->role, sizeof(pc->role), false);
	head = __atomic_load_n(&pl->made, __ATOMIC_ACQUIRE);
	do
		pc->made_next = head;
	while (!__atomic_compare_exchange_n(&pl->made, &head, pc, true,
										__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	if (head == NULL)
		wake(pl);
	return NULL;
}

static void conn_made(PipeConn *pc);

/* any job may be handed over: the loop that takes it applies the caps */
static bool
any_role(void *cls, const char *role)
{
	return true;
}

/* start connecting the idle session pc */
static void
conn_start(PipeConn *pc)
{
	pthread_attr_t attr;
	pthread_t	t;
	int			rc;

	pc->connecting = true;
	pc->set->nconnecting++;
	pc->made = NULL;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &attr, connect_main, pc);
	pthread_attr_destroy(&attr);
	if (rc != 0)
	{
		/* no thread to be had: connect here, as a last resort */
		GwLog("cannot start a thread to connect to PostgreSQL: %s", strerror(rc));
		pc->made = PoolOpenSession(servers[pc->set->pool].conninfo,
								   pc->role, sizeof(pc->role), false);
		conn_made(pc);
	}
}

/* no session of s is connected or being connected */
static bool
set_unreachable(PipeSet *s)
{
	int			i;

	if (s->nconnecting > 0)
		return false;
	for (i = 0; i < s->nconns; i++)
		if (s->conns[i].conn != NULL)
			return false;
	return true;
}

/*
 * pc's connect ended.  If it failed and the loop has no other way to the
 * server, the queued jobs fail now (JOB_NO_CONNECTION: a replica's reads
 * run again on the primary) rather than wait out --pool-wait for a server
 * that refused.
 */
static void
conn_made(PipeConn *pc)
{
	PipeSet    *s = pc->set;

	pc->connecting = false;
	s->nconnecting--;
	pc->conn = pc->made;
	pc->made = NULL;
	if (pc->conn != NULL && conn_ready(pc))
	{
		pc->last_used_ms = now_ms();
		return;
	}
	if (!set_unreachable(s))
		return;
	while (s->queue.head)
	{
		GwJob	   *jobs[BATCH_MAX];
		int			n = JobQueueTakeBatch(&s->queue, 0, any_role, NULL, jobs),
					i;

		if (n == 0)
			break;
		for (i = 0; i < n; i++)
			PoolFinishJob(jobs[i], JOB_NO_CONNECTION, NULL);
	}
}

/* the sessions the connecting threads handed back */
static void
conns_made(void)
{
	PipeConn   *pc = __atomic_exchange_n(&self->made, NULL, __ATOMIC_ACQ_REL);

	while (pc)
	{
		PipeConn   *next = pc->made_next;

		pc->made_next = NULL;
		conn_made(pc);
		pc = next;
	}
}

/*
 * Jobs are queued and no idle session of s is connected: connect idle
 * ones, one for each queued job that has none coming.
 */
static void
conns_start(PipeSet *s)
{
	int			want = s->queue.len - s->nconnecting,
				i;

	for (i = 0; i < s->nconns && want > 0; i++)
	{
		PipeConn   *pc = &s->conns[i];

		if (!pc->busy && !pc->connecting && pc->conn == NULL)
		{
			conn_start(pc);
			want--;
		}
	}
}

static void
want_output(PipeConn *pc, bool on)
{
	if (pc->want_out == on)
		return;
	pc->want_out = on;
	LoopWatchOutput(pc->watch, on);
}

/* the batch is over (answered, or lost): the session takes the next */
static void
batch_end(PipeConn *pc)
{
	JobQueueRequeue(&pc->set->queue, pc->again, pc->nagain);
	pc->nagain = 0;
	pc->n = pc->sent = pc->next = 0;
	if (pc->busy)
	{
		pc->busy = false;
		pc->set->nbusy--;
		pc->set->loop->nbusy--;
	}
	pc->dirty = false;
	pc->last_used_ms = now_ms();
	if (pc->wire && !pc->rx_posted)
		WireBatchDone(&pc->w);
	hold_release(pc);
}

/* the session broke with the batch out (why: NULL, libpq says) */
static void
conn_lost(PipeConn *pc, const char *why)
{
	int			i;

	GwLog("PostgreSQL connection lost: %s", why ? why : PQerrorMessage(pc->conn));
	PQclear(pc->got);
	pc->got = NULL;
	conn_close(pc);
	for (i = pc->next; i < pc->n; i++)
		PoolFinishJob(pc->jobs[i], JOB_CONNECTION_LOST, NULL);
	batch_end(pc);
}

static void batch_over(PipeConn *pc);

/* a job's whole answer */
static void
judge(PipeConn *pc, GwJob *job, PGresult *got)
{
	int			st = PoolJudge(pc->conn, &got, &pc->dirty);

	if (st == -1)
		pc->again[pc->nagain++] = job;	/* runs again, on another session */
	else
		PoolFinishJob(job, (GwJobStatus) st, got);
}

/* read the batch's answers as far as they have come (libpq's pipeline) */
static void
read_results(PipeConn *pc)
{
	while (pc->next < pc->sent)
	{
		PGresult   *res,
				   *got;
		GwJob	   *job;

		if (PQstatus(pc->conn) != CONNECTION_OK)
		{
			conn_lost(pc, NULL);
			return;
		}
		if (PQisBusy(pc->conn))
			return;
		res = PQgetResult(pc->conn);
		if (res == NULL || !PoolSegmentResult(&pc->got, res))
			continue;
		/* a segment is whole: its job's answer */
		job = pc->jobs[pc->next];
		got = pc->got;
		pc->got = NULL;
		if (got == NULL || PQstatus(pc->conn) != CONNECTION_OK)
		{
			PQclear(got);
			conn_lost(pc, NULL);
			return;
		}
		pc->next++;
		judge(pc, job, got);
	}
	batch_over(pc);
}

/* the batch's answers as far as they have come, read by pgwire.c */
static void
wire_results(PipeConn *pc)
{
	while (pc->next < pc->sent)
	{
		PGresult   *got;
		const char *why;
		int			rc = WireNextAnswer(&pc->w, &got, &why);

		if (rc == 0)
			return;
		if (rc < 0)
		{
			conn_lost(pc, why);
			return;
		}
		pc->next++;
		judge(pc, pc->jobs[pc->next - 1], got);
	}
	batch_over(pc);
}

/* every segment sent is answered: the batch is over */
static void
batch_over(PipeConn *pc)
{
	for (; pc->next < pc->n; pc->next++)
		PoolFinishJob(pc->jobs[pc->next], JOB_CONNECTION_LOST, NULL);
	if (pc->sent < pc->n || pc->dirty)
	{
		if (pc->dirty)
			GwLog("a request left temporary objects on its PostgreSQL session: closing it");
		conn_close(pc);
	}
	batch_end(pc);
}

/* a session of ours is ready */
static void
wire_event(PipeConn *pc, uint32_t events)
{
	if ((events & EPOLLOUT) && pc->want_out)
	{
		int			rc = WireFlush(&pc->w);

		if (rc < 0)
		{
			conn_lost(pc, strerror(errno));
			return;
		}
		if (rc == 0)
			want_output(pc, false);
	}
	if (!pc->ring && (events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
	{
		int			rc = WireRead(&pc->w);
		int			e = errno;

		/* the answers read before an end of file are good */
		wire_results(pc);
		if (rc < 0 && pc->conn)
			conn_lost(pc, e ? strerror(e) : "the server closed the connection");
	}
}

/* the ring's receive on a session of ours completed (bytes, 0, -errno) */
void
PipeOnRecv(void *tagged, int res)
{
	PipeConn   *pc = (PipeConn *) ((uintptr_t) tagged & ~(uintptr_t) 1);

	pc->rx_posted = false;
	if (pc->conn == NULL)
		return;
	if (res == -EINTR || res == -EAGAIN)
		;						/* nothing came: receive again */
	else if (res <= 0 || !pc->busy)
	{
		/* the server left, or an idle session has something to say */
		if (!pc->busy)
			conn_close(pc);
		else
			conn_lost(pc, res < 0 ? strerror(-res) : "the server closed the connection");
		return;
	}
	else
	{
		WireReceived(&pc->w, (size_t) res);
		wire_results(pc);
	}
	if (pc->conn && !wire_post_recv(pc))
	{
		if (pc->busy)
			conn_lost(pc, strerror(errno));
		else
			conn_close(pc);
	}
}

/* the ring's send of a batch completed (bytes, or -errno) */
void
PipeOnSent(void *tagged, int res)
{
	PipeConn   *pc = (PipeConn *) ((uintptr_t) tagged & ~(uintptr_t) 1);

	if (pc->conn == NULL)
		return;
	if (res < 0 && res != -EINTR && res != -EAGAIN)
	{
		if (pc->busy)
			conn_lost(pc, strerror(-res));
		else
			conn_close(pc);
		return;
	}
	if (res > 0)
		pc->w.out_start += (size_t) res;
	if (pc->w.out_start < pc->w.out_end)
	{
		if (!LoopSend(pc->watch, pc->w.out + pc->w.out_start,
					  pc->w.out_end - pc->w.out_start))
		{
			/* the ring is full: the socket, as without a ring */
			int			rc = WireFlush(&pc->w);

			if (rc < 0)
				conn_lost(pc, strerror(errno));
			else
				want_output(pc, rc == 1);
		}
		return;
	}
	pc->w.out_start = pc->w.out_end = 0;
}

/* a session's socket is ready (epoll data tagged with its low bit) */
void
PipeOnEvent(void *tagged, uint32_t events)
{
	PipeConn   *pc = (PipeConn *) ((uintptr_t) tagged & ~(uintptr_t) 1);

	if (pc->conn == NULL)
		return;
	if (!pc->busy && !(events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
		return;					/* a spare output event */
	if (!pc->busy)
	{
		/* an idle session has nothing to say unless the server left */
		conn_close(pc);
		return;
	}
	if (pc->wire)
	{
		wire_event(pc, events);
		return;
	}
	if ((events & EPOLLOUT) && pc->want_out)
	{
		int			rc = PQflush(pc->conn);

		if (rc < 0)
		{
			conn_lost(pc, NULL);
			return;
		}
		if (rc == 0)
			want_output(pc, false);
	}
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
	{
		if (!PQconsumeInput(pc->conn))
		{
			conn_lost(pc, NULL);
			return;
		}
		read_results(pc);
	}
}

/* a batch that did not go out: its jobs did not run, the session is closed */
static void
batch_refused(PipeConn *pc, GwJob **jobs, int n)
{
	int			i;

	conn_close(pc);
	hold_release(pc);
	for (i = 0; i < n; i++)
		PoolFinishJob(jobs[i], JOB_NO_CONNECTION, NULL);
}

/* the batch of n jobs is out, the first sent of them at least */
static void
batch_begin(PipeConn *pc, GwJob **jobs, int n, int sent)
{
	memcpy(pc->jobs, jobs, sizeof(GwJob *) * (size_t) n);
	pc->n = n;
	pc->sent = sent;
	pc->next = 0;
	pc->nagain = 0;
	pc->dirty = false;
	if (!pc->busy)
	{
		pc->busy = true;
		pc->set->nbusy++;
		pc->set->loop->nbusy++;
	}
}

/*
 * A batch on a session of ours: a segment per job queued, then one send()
 * for them all; what the socket does not take goes when it is writable.
 */
static void
wire_send(PipeConn *pc, GwJob **jobs, int n)
{
	int			i,
				rc = -1;

	for (i = 0; i < n; i++)
		if (!WireQueueJob(&pc->w, jobs[i]->action, jobs[i]->body,
						  jobs[i]->role ? jobs[i]->role : pc->role))
			break;
	if (i == n && pc->ring &&
		LoopSend(pc->watch, pc->w.out + pc->w.out_start, pc->w.out_end - pc->w.out_start))
		rc = 0;					/* sent with the loop's next submission */
	else if (i == n)
		rc = WireFlush(&pc->w);
	if (rc < 0 && WireNothingSent(&pc->w))
	{
		/* nothing went out: the jobs did not run */
		GwLog("cannot send to PostgreSQL: %s",
			  i < n ? "out of memory" : strerror(errno));
		batch_refused(pc, jobs, n);
		return;
	}
	batch_begin(pc, jobs, n, n);
	if (rc < 0)
		conn_lost(pc, strerror(errno));
	else
		want_output(pc, rc == 1);
}

/* send a batch on pc, connected (its role hold, if any, is taken) */
static void
batch_send(PipeConn *pc, GwJob **jobs, int n)
{
	int			sent;

	if (pc->wire)
	{
		wire_send(pc, jobs, n);
		return;
	}
	sent = PoolSendSegments(pc->conn, pc->role, jobs, n);
	if (sent > 0)
	{
		int			rc = PQflush(pc->conn);

		if (rc < 0)
		{
			GwLog("cannot send to PostgreSQL: %s", PQerrorMessage(pc->conn));
			sent = 0;
		}
		else
			want_output(pc, rc == 1);
	}
	if (sent == 0)
	{
		/* nothing went out (whatever libpq buffered is dropped with it) */
		batch_refused(pc, jobs, n);
		return;
	}
	batch_begin(pc, jobs, n, sent);
}

/* start batches on s's idle sessions while its queue has eligible jobs */
static bool
dispatch(PipeSet *s)
{
	PipeServer *sv = &servers[s->pool];
	bool		started = false;

	s->blocked = false;
	while (s->queue.head)
	{
		PipeConn   *pc = NULL;
		GwJob	   *jobs[BATCH_MAX];
		int			idle = 0,
					n,
					i;
		bool		capped = PoolRoleCap() > 0;

		/* an idle session that is connected */
		for (i = 0; i < s->nconns; i++)
			if (!s->conns[i].busy)
			{
				idle++;
				if (pc == NULL && s->conns[i].conn != NULL)
					pc = &s->conns[i];
			}
		if (pc == NULL)
		{
			/* none: connect some (the jobs wait for them, or a busy one) */
			conns_start(s);
			break;
		}
		if (now_ms() - pc->last_used_ms >= 50 && !PoolSessionIdleOk(pc->conn))
		{
			conn_close(pc);		/* the server left it */
			continue;
		}
		if (capped)
			pthread_mutex_lock(&sv->hold_mutex);
		n = JobQueueTakeBatch(&s->queue, idle - 1, under_cap, sv, jobs);
		pc->capped = capped && n > 0 && jobs[0]->role != NULL;
		if (pc->capped)
		{
			hold_take(sv, jobs[0]->role);
			snprintf(pc->batch_role, sizeof(pc->batch_role), "%s", jobs[0]->role);
		}
		if (capped)
			pthread_mutex_unlock(&sv->hold_mutex);
		if (n == 0)
		{
			/* all over their cap: woken when a hold ends */
			s->blocked = true;
			__atomic_store_n(&sv->blocked, 1, __ATOMIC_RELEASE);
			break;
		}
		batch_send(pc, jobs, n);
		started = true;
	}
	return started;
}

/*
 * Jobs left on s's queue once every session of this loop is busy (not
 * held back by their role's cap): a batch to each other loop of the server
 * that has a session idle (as it said at its last flush), so that a loop
 * the kernel gave more clients does not make them wait while the other
 * one's sessions sit idle.  The idle session is counted taken at once
 * (its loop writes the true count at its next flush).
 */
static void
share_out(PipeSet *s, int k)
{
	PipeServer *sv = &servers[k];
	int			j;

	if (s->queue.head == NULL || s->blocked)
		return;
	for (j = 0; j < sv->nowners && s->queue.head; j++)
	{
		PipeLoop   *pl = &ploops[sv->owners[j]];
		PipeSet    *o = &pl->sets[k];
		GwJob	   *jobs[BATCH_MAX];
		int			idle,
					n;

		if (pl == self)
			continue;
		idle = o->nconns - __atomic_load_n(&o->stat_busy, __ATOMIC_RELAXED);
		while (idle-- > 0 && s->queue.head)
		{
			n = JobQueueTakeBatch(&s->queue, idle + 1, any_role, NULL, jobs);
			__atomic_add_fetch(&o->stat_busy, 1, __ATOMIC_RELAXED);
			inbox_push(pl, jobs, n);
		}
	}
}

/*
 * PipeFlush
 *		At the end of a loop's wake-up: answer ThrottlingException to the
 *		jobs that waited past --pool-wait, then send what is queued on the
 *		idle sessions, and hand what is left to other loops' idle ones.
 */
void
PipeFlush(void)
{
	struct timespec now;
	int			k;
	bool		again;

	if (self == NULL)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	do
	{
		again = false;
		for (k = 0; k < nservers; k++)
		{
			PipeSet    *s = &self->sets[k];
			GwJob	   *expired,
					   *job;

			if (s->queue.head == NULL)
				continue;
			expired = JobQueueExpire(&s->queue, &now);
			while ((job = expired) != NULL)
			{
				expired = job->next;
				PoolFinishJob(job, JOB_THROTTLED, NULL);
			}
			if (dispatch(s))
				again = true;	/* a failed batch may have queued a retry */
		}
	} while (again);
	if (nploops > 1)
		for (k = 0; k < nservers; k++)
			share_out(&self->sets[k], k);
	for (k = 0; k < nservers; k++)
	{
		PipeSet    *s = &self->sets[k];

		__atomic_store_n(&s->stat_busy, s->nbusy, __ATOMIC_RELAXED);
		__atomic_store_n(&s->stat_waiting, s->queue.len, __ATOMIC_RELAXED);
	}
}

/* the sessions of this loop with a batch out (whose answers are coming) */
int
PipeBatchesOut(void)
{
	return self ? self->nbusy : 0;
}

/* how long the loop may sleep: until the first queued job's deadline */
int
PipeTimeout(int dflt)
{
	struct timespec now;
	int			k,
				t = dflt;

	if (self == NULL)
		return dflt;
	clock_gettime(CLOCK_MONOTONIC, &now);
	for (k = 0; k < nservers; k++)
	{
		GwJob	   *head = self->sets[k].queue.head;
		long		ms;

		if (head == NULL)
			continue;
		ms = (head->deadline.tv_sec - now.tv_sec) * 1000L +
			(head->deadline.tv_nsec - now.tv_nsec + 999999L) / 1000000L;
		if (ms < 0)
			ms = 0;
		if (ms < t)
			t = (int) ms;
		/* a wake-up from a hold's end may race with blocking: look again soon */
		if (self->sets[k].blocked && t > 20)
			t = 20;
	}
	return t;
}

/* the loop ends: close its sessions (its requests are abandoned) */
void
PipeLoopEnd(void)
{
	int			k,
				i;

	if (self == NULL)
		return;
	for (k = 0; k < nservers; k++)
		for (i = 0; i < self->sets[k].nconns; i++)
			conn_close(&self->sets[k].conns[i]);
	self = NULL;
}

/*
 * PipePoolStats
 *		PoolStats for the metrics, whatever the engine: with the loops'
 *		sessions, their batches running and their jobs queued, summed over
 *		the loops.
 */
const char *
PipePoolStats(GwPool *p, int *size, int *in_use, int *waiting)
{
	const char *name = PoolStats(p, size, in_use, waiting);
	int			i,
				k = PoolIndex(p);

	if (ploops == NULL)
		return name;
	*in_use = *waiting = 0;
	for (i = 0; i < nploops; i++)
	{
		*in_use += __atomic_load_n(&ploops[i].sets[k].stat_busy, __ATOMIC_RELAXED);
		*waiting += __atomic_load_n(&ploops[i].sets[k].stat_waiting, __ATOMIC_RELAXED);
	}
	return name;
}
