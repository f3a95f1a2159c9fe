/*-------------------------------------------------------------------------
 *
 * route.c
 *		Which pool runs a request: the primary's, or a replica's
 *		(--replica), and the thread that measures the replicas' lag.
 *
 * The rule (RouteChoose, the one place it is decided).  DynamoDB serves
 * an eventually consistent read from any replica and a strongly consistent
 * one from the leader; so do we.  GetItem, BatchGetItem, Query, Scan and a
 * PartiQL ExecuteStatement whose statement is a SELECT go, unless the
 * request asks for ConsistentRead: true, round robin to a healthy replica,
 * or to the primary when none is healthy.  Everything else goes to the
 * primary: writes, transactions (TransactGetItems too: DynamoDB reads it
 * serializably), the control plane and the Streams API (a shard iterator
 * names a position the replica may not have reached).
 *
 * Reading the body.  The gateway parses no JSON; it looks for the member
 * "ConsistentRead" followed by ':' and true anywhere in the body (a quoted
 * "ConsistentRead" followed by ':' can only be a member name: a string
 * value is followed by ',', '}' or ']', and an escaped quote is not a
 * quote).  Found anywhere, even in a nested map, the read goes to the
 * primary; that errs only towards consistency.  A member name could be
 * spelled with escapes ("Consistent\u0052ead"), which the server's JSON
 * reader decodes: a body escaping an ASCII letter (\u0041 to \u007A) goes
 * to the primary.  Escapes of other characters, which SDKs write for
 * every non-ASCII character, do not matter.  An ExecuteStatement's
 * "Statement" member must begin (after blanks) with the word SELECT.
 *
 * Lag.  One thread (monitor_main) looks, every quarter of
 * --max-replica-lag (at least 50 ms, at most 250 ms), at the primary's WAL
 * position (pg_current_wal_lsn()) and then at each replica's
 * (pg_is_in_recovery(), pg_last_wal_replay_lsn()), each on a connection of
 * its own.  It remembers when it first saw the primary at each new
 * position.  A replica's lag is the time since the last check at which the
 * primary was at a position the replica has now replayed: zero when it has
 * replayed everything the primary had written at this check (an idle
 * primary, whose replay timestamp stops moving, is no lag), and otherwise
 * how long the primary has been ahead of it, erring high by at most one
 * interval.  This uses only the gateway's clock (no clock is compared
 * across servers), and a replica whose replay is paused lags as soon as
 * the primary writes.  A replica is healthy while its monitor connection
 * works, it is in recovery (a promoted one has left the primary's
 * timeline) and its lag is at most --max-replica-lag.  While the primary
 * cannot be reached, the last position seen stands: a replica that has
 * replayed it keeps serving eventually consistent reads.
 *
 * The monitor's connections time out (connect_timeout 2 s, and
 * tcp_user_timeout 5 s for an answer that never comes, unless the
 * connection strings say otherwise), so a replica cut off by the network
 * is found unhealthy within seconds and does not hold up the others' checks.
 *
 * Between checks a replica can go down: a job that could not reach it
 * (JOB_NO_CONNECTION, or the connection lost with the job out; reads
 * only, so running it again is harmless) runs again on the primary, and
 * the replica counts as unhealthy until the next check finds it well.  A
 * read the replica refused for being a standby (a recovery conflict
 * cancelled it, or it needed what a standby cannot do) runs again on the
 * primary too (standby_refused).
 *
 * The request's identity is the same on a replica: the same role name is
 * passed to dynamodb_as() there, and the replica has the primary's roles
 * (physical replication copies the catalogs).
 *
 *-------------------------------------------------------------------------
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "gateway.h"

typedef struct Replica
{
	GwPool	   *pool;
	char		name[16];		/* replica1, ... */
	const char *conninfo;
	PGconn	   *mon;			/* the monitor's connection */
	int			healthy;		/* atomic */
	int64_t		lag_ms;			/* atomic; -1: unknown */
	bool		logged_down;	/* the last state logged */
} Replica;

static Replica replicas[GW_MAX_REPLICAS];
static int	nreplicas;
static unsigned round_robin;	/* atomic */
static uint64_t fallbacks;		/* atomic: reads no replica could take */
static uint64_t standby_refusals;	/* atomic: reads a replica refused */

/* when the monitor first saw the primary at each new WAL position */
#define HISTORY 512
typedef struct Sighting
{
	uint64_t	lsn;
	int64_t		before_ms;		/* the check before it (primary still below) */
} Sighting;

static Sighting history[HISTORY];
static int	history_n;			/* entries, oldest first */
static uint64_t primary_lsn;	/* the highest seen */
static PGconn *primary_mon;

static int64_t
mono_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t) now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* a pg_lsn's text ("16/B374D848") as a number; 0 if not one */
static uint64_t
parse_lsn(const char *s)
{
	unsigned int hi,
				lo;

	if (s == NULL || sscanf(s, "%X/%X", &hi, &lo) != 2)
		return 0;
	return ((uint64_t) hi << 32) | lo;
}

/* the monitor's connection, made again when it broke */
static PGconn *
monitor_conn(PGconn **conn, const char *conninfo)
{
	const char *keywords[] = {"connect_timeout", "tcp_user_timeout", "application_name",
	"dbname", NULL};
	const char *values[] = {"2", "5000", "item_table_gateway", conninfo ? conninfo : "", NULL};

	if (*conn && PQstatus(*conn) == CONNECTION_OK)
		return *conn;
	if (*conn)
		PQfinish(*conn);
	*conn = PQconnectdbParams(keywords, values, 1);
	if (PQstatus(*conn) != CONNECTION_OK)
	{
		PQfinish(*conn);
		*conn = NULL;
	}
	return *conn;
}

/* one row of one column of the query on conn, copied to out; false on error */
static bool
query_row(PGconn **conn, const char *sql, char *out1, char *out2, size_t outlen)
{
	PGresult   *res = PQexec(*conn, sql);
	bool		ok = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1;

	if (ok)
	{
		snprintf(out1, outlen, "%s", PQgetvalue(res, 0, 0));
		if (out2)
			snprintf(out2, outlen, "%s", PQnfields(res) > 1 ? PQgetvalue(res, 0, 1) : "");
	}
	PQclear(res);
	if (!ok && PQstatus(*conn) != CONNECTION_OK)
	{
		PQfinish(*conn);
		*conn = NULL;
	}
	return ok;
}

/* look at the primary's position; remember a new one with the last check's time */
static void
check_primary(int64_t last_check_ms)
{
	char		lsn[64];
	uint64_t	v;

	if (monitor_conn(&primary_mon, GwOpt.conninfo) == NULL ||
		!query_row(&primary_mon, "SELECT pg_catalog.pg_current_wal_lsn()", lsn, NULL, sizeof(lsn)))
		return;
	v = parse_lsn(lsn);
	if (v <= primary_lsn)
		return;
	primary_lsn = v;
	if (history_n == HISTORY)
	{
		/*
		 * Full (a replica over HISTORY checks behind): the two oldest
		 * become one, with the older time, so that a lag is never
		 * underestimated (one between them is overestimated).
		 */
		history[1].before_ms = history[0].before_ms;
		memmove(history, history + 1, sizeof(Sighting) * (HISTORY - 1));
		history_n--;
	}
	history[history_n].lsn = v;
	history[history_n].before_ms = last_check_ms;
	history_n++;
}

/* a replica that has replayed up to replay: its lag in ms, now */
static int64_t
lag_of(uint64_t replay, int64_t now)
{
	int			i;

	for (i = 0; i < history_n; i++)
		if (history[i].lsn > replay)
			return now - history[i].before_ms;
	return 0;
}

static void
set_health(Replica *rp, bool healthy, int64_t lag_ms, const char *why)
{
	__atomic_store_n(&rp->lag_ms, lag_ms, __ATOMIC_RELAXED);
	__atomic_store_n(&rp->healthy, healthy ? 1 : 0, __ATOMIC_RELEASE);
	if (healthy == !rp->logged_down)
		return;
	rp->logged_down = !healthy;
	if (healthy)
		GwLog("%s: healthy again, serving eventually consistent reads", rp->name);
	else
		GwLog("%s: skipped: %s", rp->name, why);
}

static void
check_replica(Replica *rp, int64_t now)
{
	char		recovery[64],
				lsn[64],
				why[96];
	int64_t		lag;

	if (monitor_conn(&rp->mon, rp->conninfo) == NULL)
	{
		set_health(rp, false, -1, "cannot connect");
		return;
	}
	if (!query_row(&rp->mon,
				   "SELECT pg_catalog.pg_is_in_recovery(), pg_catalog.pg_last_wal_replay_lsn()",
				   recovery, lsn, sizeof(lsn)))
	{
		set_health(rp, false, -1, "cannot read its replay position");
		return;
	}
	if (strcmp(recovery, "t") != 0)
	{
		set_health(rp, false, -1, "it is not a standby (promoted?)");
		return;
	}
	lag = lag_of(parse_lsn(lsn), now);
	snprintf(why, sizeof(why), "replay lag %.3f s is over --max-replica-lag", lag / 1000.0);
	set_health(rp, lag <= GwOpt.max_replica_lag_ms, lag, why);
}

static void *
monitor_main(void *arg)
{
	int64_t		tick = GwOpt.max_replica_lag_ms / 4;
	int64_t		last = mono_ms();
	struct timespec pause;
	int			i;

	if (tick < 50)
		tick = 50;
	if (tick > 250)
		tick = 250;
	pause.tv_sec = tick / 1000;
	pause.tv_nsec = (tick % 1000) * 1000000L;
	for (;;)
	{
		int64_t		now = mono_ms();

		/* the primary first: a replica then has at least what it had */
		check_primary(last);
		for (i = 0; i < nreplicas; i++)
			check_replica(&replicas[i], mono_ms());
		last = now;
		nanosleep(&pause, NULL);
	}
	return NULL;
}

/*
 * RouteInit
 *		A pool per --replica (each as large as the primary's), and the
 *		monitor thread, which has checked every replica once on return.
 */
bool
RouteInit(void)
{
	pthread_t	t;
	int			i;

	for (i = 0; i < GwOpt.nreplicas; i++)
	{
		Replica    *rp = &replicas[i];

		snprintf(rp->name, sizeof(rp->name), "replica%d", i + 1);
		rp->conninfo = GwOpt.replicas[i];
		rp->pool = PoolAddReplica(rp->name, rp->conninfo, GwOpt.pool);
		if (rp->pool == NULL)
			return false;
		nreplicas++;
	}
	if (nreplicas == 0)
		return true;
	check_primary(mono_ms());
	for (i = 0; i < nreplicas; i++)
		check_replica(&replicas[i], mono_ms());
	if (pthread_create(&t, NULL, monitor_main, NULL) != 0)
		return false;
	pthread_detach(t);
	return true;
}

/* does the body ask for a strongly consistent read (see the header)? */
static bool
wants_consistency(const char *body, size_t len)
{
	const char *end = body + len,
			   *p;

	for (p = body; (p = memchr(p, '\\', end - p)) != NULL; p++)
	{
		if (p + 5 < end && p[1] == 'u' && p[2] == '0' && p[3] == '0')
		{
			int			v = (int) strtol((char[3]) {p[4], p[5], 0}, NULL, 16);

			if (v >= 0x41 && v <= 0x7A)
				return true;
		}
		if (p + 1 < end)
			p++;				/* an escaped backslash is not a new escape */
	}
	for (p = body; (p = memmem(p, end - p, "\"ConsistentRead\"", 16)) != NULL;)
	{
		p += 16;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
			p++;
		if (p >= end || *p != ':')
			continue;
		p++;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
			p++;
		if (end - p >= 4 && memcmp(p, "true", 4) == 0)
			return true;
	}
	return false;
}

/* is the body's "Statement" a SELECT? */
static bool
is_select(const char *body, size_t len)
{
	const char *end = body + len,
			   *p;

	for (p = body; (p = memmem(p, end - p, "\"Statement\"", 11)) != NULL;)
	{
		p += 11;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
			p++;
		if (p >= end || *p != ':')
			continue;
		p++;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
			p++;
		if (p >= end || *p != '"')
			continue;			/* a nested map's member of that name */
		p++;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
			p++;
		/* "\n" and the like as blanks are escapes: not taken */
		return end - p > 6 && strncasecmp(p, "SELECT", 6) == 0 &&
			(p[6] == ' ' || p[6] == '\t' || p[6] == '\\');
	}
	return false;
}

/*
 * RouteChoose
 *		The pool that runs the request: a healthy replica's for an
 *		eventually consistent read, else the primary's (the rule is in the
 *		header comment).
 */
GwPool *
RouteChoose(const char *action, const char *body, size_t len)
{
	unsigned	start;
	int			i;

	if (nreplicas == 0)
		return GwPrimary;
	if (strcmp(action, "GetItem") != 0 && strcmp(action, "Query") != 0 &&
		strcmp(action, "Scan") != 0 && strcmp(action, "BatchGetItem") != 0 &&
		!(strcmp(action, "ExecuteStatement") == 0 && is_select(body, len)))
		return GwPrimary;
	if (wants_consistency(body, len))
		return GwPrimary;
	start = __atomic_fetch_add(&round_robin, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nreplicas; i++)
	{
		Replica    *rp = &replicas[(start + i) % nreplicas];

		if (__atomic_load_n(&rp->healthy, __ATOMIC_ACQUIRE))
			return rp->pool;
	}
	__atomic_add_fetch(&fallbacks, 1, __ATOMIC_RELAXED);
	return GwPrimary;
}

/*
 * Did a replica refuse the read for being a standby?  A recovery conflict
 * cancels a query that holds back replay (40001, or 40P01 for a buffer
 * pin: for a read they mean "try elsewhere", not the conflict between
 * transactions that main.c would answer them as), and a standby refuses
 * what it cannot do (25006: a write; 0A000: SERIALIZABLE isolation, a
 * role's default_transaction_isolation).  A replica that has not yet
 * replayed a table's creation answers ResourceNotFoundException (XD004)
 * for a table the primary has: only the primary may say a table does not
 * exist (DynamoDB never answers that for an ACTIVE table), so that too
 * runs again there.
 */
static bool
standby_refused(const PGresult *res)
{
	const char *state;

	if (res == NULL || PQresultStatus(res) != PGRES_FATAL_ERROR ||
		(state = GwResultErrorField(res, PG_DIAG_SQLSTATE)) == NULL)
		return false;
	return strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0 ||
		strcmp(state, "25006") == 0 || strcmp(state, "0A000") == 0 ||
		strcmp(state, "XD004") == 0;
}

/*
 * RouteRetryOnPrimary
 *		A job a replica could not answer: no connection, or lost with the
 *		job out (the replica counts as unhealthy until its next check), or
 *		refused for being a standby (standby_refused; the result is
 *		cleared).  Send it to the primary and return true (the caller runs
 *		it again); else false.
 */
bool
RouteRetryOnPrimary(GwJob *job)
{
	int			i;

	if (job->pool == NULL || job->pool == GwPrimary)
		return false;
	if (job->status == JOB_RESULT && standby_refused(job->res))
	{
		PQclear(job->res);
		job->res = NULL;
		__atomic_add_fetch(&standby_refusals, 1, __ATOMIC_RELAXED);
	}
	else if (job->status == JOB_NO_CONNECTION || job->status == JOB_CONNECTION_LOST)
	{
		for (i = 0; i < nreplicas; i++)
			if (replicas[i].pool == job->pool)
				__atomic_store_n(&replicas[i].healthy, 0, __ATOMIC_RELEASE);
	}
	else
		return false;
	job->pool = GwPrimary;
	return true;
}

/* eventually consistent reads sent to the primary: no replica was healthy */
uint64_t
RouteFallbacks(void)
{
	return __atomic_load_n(&fallbacks, __ATOMIC_RELAXED);
}

/* reads run again on the primary because a replica refused them */
uint64_t
RouteStandbyRefusals(void)
{
	return __atomic_load_n(&standby_refusals, __ATOMIC_RELAXED);
}

int
RouteReplicas(void)
{
	return nreplicas;
}

/* replica i's pool, lag as last measured (-1: unknown) and health */
GwPool *
RouteReplicaState(int i, double *lag_s, bool *healthy)
{
	int64_t		lag = __atomic_load_n(&replicas[i].lag_ms, __ATOMIC_RELAXED);

	*lag_s = lag < 0 ? -1 : lag / 1000.0;
	*healthy = __atomic_load_n(&replicas[i].healthy, __ATOMIC_ACQUIRE) != 0;
	return replicas[i].pool;
}
