/*-------------------------------------------------------------------------
 *
 * pool.c
 *		The gateway's PostgreSQL side: a bounded pool of libpq connections
 *		in pipeline mode, fed by one queue of requests.
 *
 * Pool.  A fixed number of slots, each a thread that owns at most one
 * connection, made lazily and kept.  HTTP handlers never touch a
 * connection: they put a job (action, body, role) on the queue and
 * suspend their HTTP connection; a slot's thread takes a batch of jobs,
 * runs them, and calls each job's done() (which resumes the HTTP
 * connection).  So an HTTP client idling on a keep-alive connection holds
 * no database session, and the number of sessions is the pool size
 * whatever the number of clients.  When the pool is quiet (nothing queued,
 * no slot busy) a handler runs its job at once on its own thread, on the
 * first slot's connection (PoolRunDirect): a lone client pays no thread
 * hand-off, and the queue is only there when there is load to batch.
 *
 * With --engine loop no slot thread runs: each event loop owns its share
 * of the sessions (pgpipe.c), and takes from here what both share: the
 * session's set-up (PoolOpenSession), the queue and its batches
 * (JobQueue*), the reading and judging of a job's answer
 * (PoolSegmentResult, PoolJudge).  A pool is then only a server's name,
 * address and size.
 *
 * Pools.  There is one pool per server: the primary's (GwPrimary, made
 * by PoolInit) and one per --replica (PoolAddReplica, for route.c), each
 * with its own slots, queue and lock, all with the same settings; a job
 * runs on job->pool (NULL: the primary's).  Access keys are read on the
 * primary only.
 *
 * Pipelining.  A slot sends its whole batch at once in libpq's pipeline
 * mode (PostgreSQL 14+ libpq): each job is its own segment, its
 * statements followed by a Sync, so each runs in its own implicit
 * transaction and an error in one aborts no other; then it reads the
 * results in order.  One write and a few reads carry the batch, and the
 * backend finds the next request already in its input buffer instead of
 * sleeping and being woken for it: per request, both the gateway and the
 * backend make far fewer system calls and context switches than with one
 * round trip each.  A batch takes a fair share of the queue (the queue
 * split between this slot and the idle ones, at most BATCH_MAX), so the
 * backends work in parallel; the price is that a job queued behind one
 * that waits on a lock waits with it (at most BATCH_MAX - 1 of them).  The
 * connection runs non-blocking: while sending a large batch we also read,
 * so that neither side can fill its socket buffer and wait for the other.
 *
 * Each connection, when made, sets the session's statement_timeout and
 * lock_timeout (--statement-timeout, --lock-timeout), remembers its login
 * role and prepares one statement:
 *
 *	dyn:  SELECT r.response, r.reusable FROM item_table.dynamodb_as($3, $1, $2) r
 *
 * with the action, the body and the key's role as bound parameters (never
 * SQL text; the body stays parameter $2, which main.c's reading of errors
 * converting it relies on).  dynamodb_as (src/api/gateway_call.c) checks that the login role
 * may become the role, runs the request as it in a way the role's own code
 * (triggers, defaults, policies) cannot leave, undoes the settings that
 * code made and refuses what would outlive the request; so the session
 * never changes role and every request starts from the same state.  When
 * it answers reusable = false (the request left temporary objects), the
 * connection is closed once its batch is read: the requests pipelined
 * behind it were refused by dynamodb_as without running (55000), and go
 * back to the head of the queue.
 *
 * Timeouts.  A request that runs longer than statement_timeout, or waits
 * for a lock longer than lock_timeout, is cancelled by PostgreSQL (57014,
 * 55P03); main.c answers both as 500 InternalServerError, which is what
 * DynamoDB answers a request it could not finish in time, and which every
 * SDK retries.  (ThrottlingException would claim the client went over a
 * rate, and TransactionConflictException names a conflict with another
 * transaction, which a slow trigger is not.)  The role's code cannot lift
 * statement_timeout for its request (the timer was armed when the
 * statement started; a lock_timeout it sets holds for the rest of its
 * request only, still under statement_timeout), and its SETs end with
 * the call.
 *
 * Tenants.  A role's requests occupy at most role_cap connections at once
 * (--pool-per-role, default half the pool): a slot takes the first queued
 * job whose role is under its cap, and batches it only with later jobs of
 * the same role, so a role whose requests are slow (a slow trigger, a held
 * row lock) waits behind itself while other roles' requests find a
 * connection; its own excess gets ThrottlingException after wait_ms, as
 * DynamoDB throttles a hot partition.
 *
 * Waiting.  A job waits on the queue at most wait_ms; then it is answered
 * ThrottlingException without running (the slot threads, while waiting for
 * results, wake up to expire such jobs).
 *
 * Broken connections.  Before sending a batch on a connection idle for
 * 50 ms or more we look at its socket: an idle connection has nothing to
 * read unless the server went away (a restart sends a FATAL message, then
 * EOF), so a readable socket, or a status other than CONNECTION_OK, means
 * "connect again".  So after a
 * PostgreSQL restart no request is lost to a stale connection; during the
 * outage each job fails at connect (JOB_NO_CONNECTION, a 500, which SDKs
 * retry).  A connection that breaks while a batch is out fails the jobs
 * not yet answered (JOB_CONNECTION_LOST: whether they ran is unknown, as
 * for any client that loses its connection mid-statement).
 *
 * Access keys are keys.c's (KeyLookup and its cache, on a connection of
 * their own).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gateway.h"

struct GwPool;

typedef struct PoolConn
{
	struct GwPool *pool;		/* the pool of this slot */
	PGconn	   *conn;
	char		role[GW_MAX_ROLE + 1];	/* the login role, quoted */
	pthread_t	thread;
	bool		lent;			/* in use by PoolRunDirect's caller */
	bool		busy;			/* running a batch (or lent) */
	bool		capped;			/* ... of batch_role's jobs */
	char		batch_role[GW_MAX_ROLE + 1];	/* a copy: the jobs go first */
	struct timespec last_used;	/* when its last batch ended */
} PoolConn;

/*
 * One pool: the primary's, and one per --replica (route.c chooses which
 * runs a job).  Each has its own slots, queue and lock; they share the
 * settings.
 */
struct GwPool
{
	const char *name;			/* "primary", "replica1", ... (metrics) */
	int			index;			/* in pools[] */
	char	   *conninfo;
	PoolConn   *slots;
	int			nslots;

	/* the queue of jobs, FIFO */
	pthread_mutex_t queue_mutex;
	pthread_cond_t queue_cond;
	GwJobQueue	queue;
	int			idle_slots;		/* slot threads waiting on queue_cond */
	int			busy_slots;		/* slots running a batch or lent */
	int			lent_slots;		/* slots lent to PoolRunDirect (0 or 1) */
	bool		started;		/* its slot threads run (not with --engine loop) */
	bool		stopping;
};

static int	pool_wait_ms;
static int	pool_role_cap;		/* most slots one role's jobs may hold */
static char pool_statement_timeout[16];
static char pool_lock_timeout[16];

#define MAX_POOLS (1 + GW_MAX_REPLICAS)
static GwPool *pools[MAX_POOLS];
static int	npools;

/* the primary's pool: jobs without a pool of their own run there */
GwPool	   *GwPrimary;

static void
now_mono(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
}

static long
ms_until(const struct timespec *t, const struct timespec *now)
{
	return (t->tv_sec - now->tv_sec) * 1000L + (t->tv_nsec - now->tv_nsec) / 1000000L;
}

/*
 * PoolOpenSession
 *		A new session on conninfo, its statement prepared, and its login
 *		role (quoted) in role; NULL if it cannot be had (logged once).
 *		The session ends with the timeouts set, and, with pipeline,
 *		non-blocking in pipeline mode; else idle, libpq's buffers empty,
 *		for pgpipe.c to speak the protocol on its socket itself.  Used by the slots here and by the loops'
 *		connections (pgpipe.c); the access keys' connection is keys.c's.
 */
PGconn *
PoolOpenSession(const char *conninfo, char *role, size_t rolelen, bool pipeline)
{
	const char *keywords[] = {"application_name", "dbname", "client_encoding", NULL};
	const char *values[] = {"item_table_gateway", conninfo, "UTF8", NULL};
	const char *timeouts[2] = {pool_statement_timeout, pool_lock_timeout};
	PGresult   *res;
	PGconn	   *conn = PQconnectdbParams(keywords, values, 1);

	role[0] = '\0';
	if (PQstatus(conn) != CONNECTION_OK)
	{
		GwLog("cannot connect to PostgreSQL: %s", PQerrorMessage(conn));
		goto fail;
	}
	res = PQprepare(conn, "dyn",
					"SELECT r.response, r.reusable "
					"FROM item_table.dynamodb_as($3, $1, $2) r", 3, NULL);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		GwLog("cannot prepare the gateway's statement: %s", PQerrorMessage(conn));
		PQclear(res);
		goto fail;
	}
	PQclear(res);
	/* session-level: what a request's code SETs ends with its call */
	res = PQexecParams(conn,
					   "SELECT pg_catalog.set_config('statement_timeout', $1, false), "
					   "pg_catalog.set_config('lock_timeout', $2, false)",
					   2, NULL, timeouts, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		GwLog("cannot set the gateway's timeouts: %s", PQerrorMessage(conn));
		PQclear(res);
		goto fail;
	}
	PQclear(res);
	res = PQexec(conn, "SELECT pg_catalog.quote_ident(pg_catalog.current_user())");
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
	{
		GwLog("cannot read current_user: %s", PQerrorMessage(conn));
		PQclear(res);
		goto fail;
	}
	snprintf(role, rolelen, "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	if (pipeline &&
		(PQsetnonblocking(conn, 1) != 0 || PQenterPipelineMode(conn) != 1))
	{
		GwLog("cannot enter pipeline mode: %s", PQerrorMessage(conn));
		goto fail;
	}
	return conn;

fail:
	PQfinish(conn);
	role[0] = '\0';
	return NULL;
}

/*
 * Connect (again) and prepare the statements.  Errors are logged once per
 * failure; the slot is left without a connection.
 */
static bool
pool_connect(PoolConn *pc)
{
	if (pc->conn)
		PQfinish(pc->conn);
	pc->conn = PoolOpenSession((pc->pool ? pc->pool : GwPrimary)->conninfo,
							   pc->role, sizeof(pc->role), true);
	return pc->conn != NULL;
}

/* an idle session has nothing to say unless the server left */
bool
PoolSessionIdleOk(PGconn *conn)
{
	struct pollfd pfd = {.fd = PQsocket(conn),.events = POLLIN};

	return PQstatus(conn) == CONNECTION_OK && poll(&pfd, 1, 0) == 0;
}

/*
 * Make sure pc has a live connection; false if PostgreSQL cannot be
 * reached.  A connection used in the last 50 ms is taken as live without
 * a look (a busy slot saves a system call per batch): PostgreSQL does not
 * restart that fast, and if it went down the batch fails as it would on a
 * new connection; only a session terminated by hand (pg_terminate_backend)
 * costs the batch sent in those 50 ms a 500, which SDKs retry.
 */
static bool
pool_check(PoolConn *pc)
{
	if (pc->conn && PQstatus(pc->conn) == CONNECTION_OK)
	{
		struct timespec now;

		now_mono(&now);
		if (ms_until(&now, &pc->last_used) < 50)
			return true;
		if (PoolSessionIdleOk(pc->conn))
			return true;
	}
	return pool_connect(pc);
}

/* answer a job (outside any lock) */
void
PoolFinishJob(GwJob *job, GwJobStatus status, PGresult *res)
{
	job->status = status;
	job->res = res;
	job->done(job);
}

/*
 * PoolSendSegments
 *		Queue a segment per job on conn (the prepared "dyn" with the job's
 *		action, body and role, or login_role; then a Sync): how many were
 *		queued (fewer: libpq refused, said in the log).  With libpq 17 or
 *		later the Syncs are queued without a write (PQsendPipelineSync) and
 *		the caller's PQflush sends the batch in one write; older libpq
 *		writes at each Sync.
 */
int
PoolSendSegments(PGconn *conn, const char *login_role, GwJob **jobs, int n)
{
	int			sent;

	for (sent = 0; sent < n; sent++)
	{
		const char *params[3] = {jobs[sent]->action, jobs[sent]->body,
		jobs[sent]->role ? jobs[sent]->role : login_role};

		if (!PQsendQueryPrepared(conn, "dyn", 3, params, NULL, NULL, 0) ||
#ifdef LIBPQ_HAS_SEND_PIPELINE_SYNC
			!PQsendPipelineSync(conn)
#else
			!PQpipelineSync(conn)
#endif
			)
			break;
	}
	if (sent < n)
		GwLog("cannot send to PostgreSQL: %s", PQerrorMessage(conn));
	return sent;
}

/*
 * Answer ThrottlingException to the jobs that waited on the queue past
 * their deadline.  The queue is FIFO with one wait for all, so they are
 * at its head.
 */
static void
expire_jobs(GwPool *p)
{
	struct timespec now;
	GwJob	   *expired,
			   *job;

	now_mono(&now);
	pthread_mutex_lock(&p->queue_mutex);
	expired = JobQueueExpire(&p->queue, &now);
	pthread_mutex_unlock(&p->queue_mutex);
	while ((job = expired) != NULL)
	{
		expired = job->next;
		PoolFinishJob(job, JOB_THROTTLED, NULL);
	}
}

/*
 * Wait until the connection has a whole result to give (or broke), expiring
 * queued jobs meanwhile.  False if the connection broke.
 */
static bool
wait_input(PoolConn *pc)
{
	GwPool	   *p = pc->pool;

	while (PQisBusy(pc->conn))
	{
		struct pollfd pfd = {.fd = PQsocket(pc->conn),.events = POLLIN};
		struct timespec now;
		long		timeout = 100;
		int			rc;

		pthread_mutex_lock(&p->queue_mutex);
		if (p->queue.head)
		{
			now_mono(&now);
			timeout = ms_until(&p->queue.head->deadline, &now);
			if (timeout < 0)
				timeout = 0;
		}
		pthread_mutex_unlock(&p->queue_mutex);
		rc = poll(&pfd, 1, (int) timeout);
		if (rc < 0 && errno != EINTR)
			return false;
		if (rc == 0)
		{
			expire_jobs(p);
			continue;
		}
		if (rc > 0 && !PQconsumeInput(pc->conn))
			return false;
	}
	return PQstatus(pc->conn) == CONNECTION_OK;
}

/* send what libpq holds, reading meanwhile (see the header comment) */
static bool
flush_all(PoolConn *pc)
{
	int			rc;

	while ((rc = PQflush(pc->conn)) == 1)
	{
		struct pollfd pfd = {.fd = PQsocket(pc->conn),.events = POLLIN | POLLOUT};

		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return false;
		if ((pfd.revents & POLLIN) && !PQconsumeInput(pc->conn))
			return false;
	}
	return rc == 0;
}

/*
 * A refusal of the key's role, answered AccessDenied with its own message:
 * dynamodb_as's (42501, "permission denied to act as role ...") or a role
 * gone since its key was read (42704, reading the regrole parameter).
 */
static bool
role_denied(PGconn *conn, PGresult *res)
{
	const char *state = GwResultErrorField(res, PG_DIAG_SQLSTATE);
	const char *msg = GwResultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);

	if (PQstatus(conn) != CONNECTION_OK || state == NULL)
		return false;
	if (strcmp(state, "42704") == 0)
		return true;
	return strcmp(state, "42501") == 0 && msg &&
		strncmp(msg, "permission denied to act as role ", 33) == 0;
}

/* dynamodb_as refused to run on a session an earlier call left dirty */
static bool
refused_dirty(PGresult *res)
{
	const char *state = GwResultErrorField(res, PG_DIAG_SQLSTATE);

	return PQresultStatus(res) == PGRES_FATAL_ERROR && state &&
		strcmp(state, "55000") == 0;
}

/*
 * PoolSegmentResult
 *		One result read within a job's segment (its statement, then its
 *		Sync): true when it is the Sync's (the segment is whole; res is
 *		cleared), else kept in *got: the first result, or a later error
 *		(the commit at the Sync failed: that is the answer).
 */
bool
PoolSegmentResult(PGresult **got, PGresult *res)
{
	if (PQresultStatus(res) == PGRES_PIPELINE_SYNC)
	{
		PQclear(res);
		return true;
	}
	if (*got == NULL)
		*got = res;
	else if (PQresultStatus(res) == PGRES_FATAL_ERROR &&
			 PQresultStatus(*got) != PGRES_FATAL_ERROR)
	{
		PQclear(*got);
		*got = res;
	}
	else
		PQclear(res);
	return false;
}

/*
 * PoolJudge
 *		What a job's whole segment answered, on conn: JOB_RESULT (got is
 *		the answer; an answer with reusable = false sets *dirty: the
 *		session is closed after its batch) or JOB_ROLE_DENIED (got cleared),
 *		or -1: refused for the dirty session before it, it did not run and
 *		runs again on another session (got cleared).
 */
int
PoolJudge(PGconn *conn, PGresult **got, bool *dirty)
{
	PGresult   *res = *got;

	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
		PQnfields(res) == 2 && strcmp(PQgetvalue(res, 0, 1), "t") != 0)
	{
		*dirty = true;
		return JOB_RESULT;
	}
	if ((*dirty && refused_dirty(res)) ||
		(PQresultStatus(res) == PGRES_FATAL_ERROR && role_denied(conn, res)))
	{
		int			st = *dirty && refused_dirty(res) ? -1 : JOB_ROLE_DENIED;

		PQclear(res);
		*got = NULL;
		return st;
	}
	return JOB_RESULT;
}

/*
 * A queue of jobs (FIFO), the slots' and each loop's (pgpipe.c): the
 * caller holds whatever lock guards it.
 */
void
JobQueuePush(GwJobQueue *q, GwJob *job)
{
	job->next = NULL;
	if (q->tail)
		q->tail->next = job;
	else
		q->head = job;
	q->tail = job;
	q->len++;
}

/* jobs that did not run, back at the head in their order */
void
JobQueueRequeue(GwJobQueue *q, GwJob **jobs, int n)
{
	int			i;

	for (i = n - 1; i >= 0; i--)
	{
		jobs[i]->next = q->head;
		jobs[i]->res = NULL;
		q->head = jobs[i];
		if (q->tail == NULL)
			q->tail = jobs[i];
		q->len++;
	}
}

/*
 * The jobs that waited past their deadline, unlinked, as a list.  The
 * queue is FIFO with one wait for all, so they are at its head (a job run
 * again on the primary, or requeued, may sit a little out of order: it
 * expires with the next one).
 */
GwJob *
JobQueueExpire(GwJobQueue *q, const struct timespec *now)
{
	GwJob	   *expired = NULL,
			  **tail = &expired,
			   *job;

	while (q->head && ms_until(&q->head->deadline, now) <= 0)
	{
		job = q->head;
		q->head = job->next;
		q->len--;
		job->next = NULL;
		*tail = job;
		tail = &job->next;
	}
	if (q->head == NULL)
		q->tail = NULL;
	return expired;
}

static bool
same_role(const GwJob *a, const GwJob *b)
{
	if (a->role == NULL || b->role == NULL)
		return a->role == b->role;
	return strcmp(a->role, b->role) == 0;
}

/*
 * JobQueueTakeBatch
 *		Take a batch off q for one connection: the first job eligible
 *		(its role under the cap: eligible(cls, role)) and, up to a fair
 *		share of the queue (split between this connection and idle_others
 *		idle ones, at most BATCH_MAX), the later ones of the same role.
 *		How many (0: none eligible).
 */
int
JobQueueTakeBatch(GwJobQueue *q, int idle_others,
				  bool (*eligible) (void *cls, const char *role), void *cls,
				  GwJob **jobs)
{
	GwJob	   *prev = NULL,
			   *first,
			   *job,
			   *next;
	int			n = 0,
				share;

	for (first = q->head; first; prev = first, first = first->next)
		if (first->role == NULL || pool_role_cap <= 0 || eligible(cls, first->role))
			break;
	if (first == NULL)
		return 0;
	share = (q->len + idle_others) / (idle_others + 1);
	if (share > BATCH_MAX)
		share = BATCH_MAX;
	if (share < 1)
		share = 1;
	for (job = first; job && n < share; job = next)
	{
		next = job->next;
		if (job == first || same_role(job, first))
		{
			if (prev)
				prev->next = job->next;
			else
				q->head = job->next;
			if (q->tail == job)
				q->tail = prev;
			q->len--;
			job->next = NULL;
			jobs[n++] = job;
		}
		else
			prev = job;
	}
	return n;
}

int
PoolRoleCap(void)
{
	return pool_role_cap;
}

/* a job queued now may wait until this (--pool-wait) */
void
PoolSetDeadline(GwJob *job)
{
	now_mono(&job->deadline);
	job->deadline.tv_sec += pool_wait_ms / 1000;
	job->deadline.tv_nsec += (long) (pool_wait_ms % 1000) * 1000000L;
	if (job->deadline.tv_nsec >= 1000000000L)
	{
		job->deadline.tv_sec++;
		job->deadline.tv_nsec -= 1000000000L;
	}
}

/* put jobs that did not run back at the head of p's queue */
static void
requeue(GwPool *p, GwJob **jobs, int n)
{
	if (n == 0)
		return;
	pthread_mutex_lock(&p->queue_mutex);
	JobQueueRequeue(&p->queue, jobs, n);
	pthread_cond_broadcast(&p->queue_cond);
	pthread_mutex_unlock(&p->queue_mutex);
}

/*
 * Run a batch of jobs on pc's connection: send every segment, then read
 * the answers in order.
 */
static void
run_batch(PoolConn *pc, GwJob **jobs, int n)
{
	GwJob	   *again[BATCH_MAX];
	int			nagain = 0;
	bool		dirty = false;
	int			i,
				sent = 0;

	if (!pool_check(pc))
	{
		for (i = 0; i < n; i++)
			PoolFinishJob(jobs[i], JOB_NO_CONNECTION, NULL);
		return;
	}

	/* send: dyn Sync per job */
	sent = PoolSendSegments(pc->conn, pc->role, jobs, n);
	if (sent > 0 && !flush_all(pc))
	{
		GwLog("cannot send to PostgreSQL: %s", PQerrorMessage(pc->conn));
		sent = 0;
	}
	if (sent == 0)
	{
		/* nothing went out (whatever libpq buffered is dropped with it) */
		PQfinish(pc->conn);
		pc->conn = NULL;
		for (i = 0; i < n; i++)
			PoolFinishJob(jobs[i], JOB_NO_CONNECTION, NULL);
		return;
	}

	/* read: each segment's result up to its Sync */
	for (i = 0; i < sent; i++)
	{
		GwJob	   *job = jobs[i];
		PGresult   *got = NULL,
				   *res;
		int			st;

		for (;;)
		{
			if (!wait_input(pc))
				break;
			res = PQgetResult(pc->conn);
			if (res == NULL)
				continue;		/* the end of one statement's results */
			if (PoolSegmentResult(&got, res))
				break;
		}
		if (got == NULL || PQstatus(pc->conn) != CONNECTION_OK)
		{
			PQclear(got);
			GwLog("PostgreSQL connection lost: %s", PQerrorMessage(pc->conn));
			PQfinish(pc->conn);
			pc->conn = NULL;
			pc->role[0] = '\0';
			for (; i < n; i++)
				PoolFinishJob(jobs[i], JOB_CONNECTION_LOST, NULL);
			requeue(pc->pool, again, nagain);
			return;
		}
		st = PoolJudge(pc->conn, &got, &dirty);
		if (st == -1)
		{
			/* it did not run: it runs again, on a new connection */
			again[nagain++] = job;
			continue;
		}
		PoolFinishJob(job, st, got);
	}
	for (i = sent; i < n; i++)
		PoolFinishJob(jobs[i], JOB_CONNECTION_LOST, NULL);
	if (sent < n || dirty)
	{
		if (dirty)
			GwLog("a request left temporary objects on its PostgreSQL session: closing it");
		PQfinish(pc->conn);
		pc->conn = NULL;
		pc->role[0] = '\0';
	}
	requeue(pc->pool, again, nagain);
}

/* may one more slot run role's jobs? (under queue_mutex) */
static bool
role_under_cap(void *cls, const char *role)
{
	GwPool	   *p = cls;
	int			i,
				n = 0;

	for (i = 0; i < p->nslots; i++)
		if (p->slots[i].busy && p->slots[i].capped &&
			strcmp(p->slots[i].batch_role, role) == 0)
			n++;
	return n < pool_role_cap;
}

/* pc runs first's role's batch now (NULL: none), under queue_mutex */
static void
set_busy(PoolConn *pc, const GwJob *first)
{
	pc->busy = first != NULL;
	pc->capped = first != NULL && first->role != NULL;
	snprintf(pc->batch_role, sizeof(pc->batch_role), "%s",
			 pc->capped ? first->role : "");
}

/* is there a job on p's queue that a slot may take? (under queue_mutex) */
static bool
any_eligible(GwPool *p)
{
	GwJob	   *job;

	for (job = p->queue.head; job; job = job->next)
		if (job->role == NULL || pool_role_cap <= 0 || role_under_cap(p, job->role))
			return true;
	return false;
}

/*
 * A slot's thread: take the first job it may take and, up to a fair share
 * of the queue, the later ones of the same role; run them; repeat.
 */
static void *
slot_main(void *arg)
{
	PoolConn   *pc = arg;
	GwPool	   *p = pc->pool;
	GwJob	   *jobs[BATCH_MAX];

	pthread_mutex_lock(&p->queue_mutex);
	for (;;)
	{
		int			n = 0;

		while (!p->stopping && (pc->lent || !any_eligible(p)))
		{
			p->idle_slots++;
			pthread_cond_wait(&p->queue_cond, &p->queue_mutex);
			p->idle_slots--;
		}
		if (!pc->lent)
			n = JobQueueTakeBatch(&p->queue, p->idle_slots, role_under_cap, p, jobs);
		if (n == 0)
			break;				/* stopping */
		if (p->queue.head && p->idle_slots > 0)
		{
			if (p->lent_slots > 0)
				pthread_cond_broadcast(&p->queue_cond);
			else
				pthread_cond_signal(&p->queue_cond);
		}
		p->busy_slots++;
		set_busy(pc, jobs[0]);
		pthread_mutex_unlock(&p->queue_mutex);

		run_batch(pc, jobs, n);
		now_mono(&pc->last_used);

		pthread_mutex_lock(&p->queue_mutex);
		p->busy_slots--;
		set_busy(pc, NULL);
		/* jobs of the role this batch held may be eligible now */
		if (p->queue.head && p->idle_slots > 0)
			pthread_cond_broadcast(&p->queue_cond);
	}
	pthread_mutex_unlock(&p->queue_mutex);
	return NULL;
}

/*
 * PoolRunDirect
 *		When the pool is quiet (no job queued, no slot busy), run job at
 *		once on the caller's thread, on the first slot's connection, and
 *		return true (job->done is called before).  Else false: the caller
 *		queues it.  A lone client so skips two thread hand-offs per
 *		request; under load jobs queue and travel in batches.
 */
bool
PoolRunDirect(GwJob *job)
{
	GwPool	   *p = job->pool ? job->pool : GwPrimary;
	PoolConn   *pc = &p->slots[0];

	pthread_mutex_lock(&p->queue_mutex);
	if (p->queue.head != NULL || p->busy_slots > 0 || p->stopping)
	{
		pthread_mutex_unlock(&p->queue_mutex);
		return false;
	}
	pc->lent = true;
	set_busy(pc, job);
	p->lent_slots++;
	p->busy_slots++;
	pthread_mutex_unlock(&p->queue_mutex);

	job->next = NULL;
	job->res = NULL;
	run_batch(pc, &job, 1);
	now_mono(&pc->last_used);

	pthread_mutex_lock(&p->queue_mutex);
	pc->lent = false;
	set_busy(pc, NULL);
	p->lent_slots--;
	p->busy_slots--;
	if (p->queue.head != NULL)
		pthread_cond_broadcast(&p->queue_cond);
	pthread_mutex_unlock(&p->queue_mutex);
	return true;
}

/* a pool of size slots and their threads, connecting none yet */
static GwPool *
pool_create(const char *name, const char *conninfo, int size)
{
	pthread_condattr_t attr;
	GwPool	   *p;
	int			i;

	if (npools >= MAX_POOLS || (p = calloc(1, sizeof(GwPool))) == NULL)
		return NULL;
	p->name = name;
	p->conninfo = strdup(conninfo ? conninfo : "");
	p->nslots = size;
	p->slots = calloc(size, sizeof(PoolConn));
	if (!p->slots || !p->conninfo)
		return NULL;
	for (i = 0; i < size; i++)
		p->slots[i].pool = p;
	pthread_mutex_init(&p->queue_mutex, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&p->queue_cond, &attr);
	pthread_condattr_destroy(&attr);
	p->index = npools;
	pools[npools++] = p;
	return p;
}

static bool pool_no_slots;		/* --engine loop: the loops own the sessions */

static bool
pool_start(GwPool *p)
{
	int			i;

	if (pool_no_slots)
		return true;
	p->started = true;
	for (i = 0; i < p->nslots; i++)
		if (pthread_create(&p->slots[i].thread, NULL, slot_main, &p->slots[i]) != 0)
			return false;
	return true;
}

/*
 * PoolInit
 *		Set up the primary's pool: size slots and their threads (connecting
 *		none yet, except one to check that the database and the extension
 *		are there).  With o->no_slots (--engine loop) no thread is started:
 *		a pool is then the name, address and size of a server's sessions,
 *		which the loops own (pgpipe.c), and the check's session is closed.
 */
bool
PoolInit(const char *conninfo, const GwPoolOptions *o, bool need_keys)
{
	pool_wait_ms = o->wait_ms;
	pool_role_cap = o->role_cap;
	snprintf(pool_statement_timeout, sizeof(pool_statement_timeout), "%d", o->statement_timeout_ms);
	snprintf(pool_lock_timeout, sizeof(pool_lock_timeout), "%d", o->lock_timeout_ms);
	pool_no_slots = o->no_slots;
	GwPrimary = pool_create("primary", conninfo, o->size);
	if (GwPrimary == NULL)
		return false;

	/* fail early on a wrong conninfo or a missing extension */
	if (!pool_connect(&GwPrimary->slots[0]))
		return false;
	if (need_keys && !KeysInit(conninfo, o->key_ttl_s))
		return false;
	if (pool_no_slots)
	{
		PQfinish(GwPrimary->slots[0].conn);
		GwPrimary->slots[0].conn = NULL;
	}
	return pool_start(GwPrimary);
}

/*
 * PoolAddReplica
 *		A pool of size slots for a replica, with the primary's settings
 *		(after PoolInit).  Its connections are made when first used: a
 *		replica that is down at start is route.c's to skip.
 */
GwPool *
PoolAddReplica(const char *name, const char *conninfo, int size)
{
	GwPool	   *p = pool_create(name, conninfo, size);

	if (p == NULL || !pool_start(p))
		return NULL;
	return p;
}

/* the pool's name and, at this moment, its slots, busy slots and queue */
const char *
PoolStats(GwPool *p, int *size, int *in_use, int *waiting)
{
	pthread_mutex_lock(&p->queue_mutex);
	*size = p->nslots;
	*in_use = p->busy_slots;
	*waiting = p->queue.len;
	pthread_mutex_unlock(&p->queue_mutex);
	return p->name;
}

int
PoolIndex(GwPool *p)
{
	return p ? p->index : 0;
}

/* the pools (0: the primary's, then the replicas'), their servers, sizes */
int
PoolCount(void)
{
	return npools;
}

GwPool *
PoolAt(int i)
{
	return pools[i];
}

const char *
PoolConninfo(GwPool *p)
{
	return p->conninfo;
}

int
PoolSize(GwPool *p)
{
	return p->nslots;
}

/*
 * PoolSubmit
 *		Queue a job on its pool (job->pool, NULL: the primary's); its
 *		done() is called once, from a slot thread, when it is answered.
 */
void
PoolSubmit(GwJob *job)
{
	GwPool	   *p = job->pool ? job->pool : GwPrimary;

	PoolSetDeadline(job);
	job->res = NULL;
	pthread_mutex_lock(&p->queue_mutex);
	JobQueuePush(&p->queue, job);
	/* a lent slot's thread ignores the wake-up: then wake them all */
	if (p->idle_slots > 0 && p->lent_slots > 0)
		pthread_cond_broadcast(&p->queue_cond);
	else if (p->idle_slots > 0)
		pthread_cond_signal(&p->queue_cond);
	pthread_mutex_unlock(&p->queue_mutex);
}

/*
 * Stop the slot threads once the queues are empty, and close every
 * connection; called once no request runs.
 */
void
PoolClose(void)
{
	int			i,
				k;

	for (k = 0; k < npools; k++)
	{
		GwPool	   *p = pools[k];

		pthread_mutex_lock(&p->queue_mutex);
		p->stopping = true;
		pthread_cond_broadcast(&p->queue_cond);
		pthread_mutex_unlock(&p->queue_mutex);
		for (i = 0; p->started && i < p->nslots; i++)
			pthread_join(p->slots[i].thread, NULL);
		for (i = 0; i < p->nslots; i++)
			if (p->slots[i].conn)
				PQfinish(p->slots[i].conn);
	}
	KeysClose();
}
