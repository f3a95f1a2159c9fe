/*-------------------------------------------------------------------------
 *
 * pool.c
 *		The gateway's PostgreSQL side: a bounded pool of libpq connections,
 *		and the access key cache read through a connection of its own.
 *
 * Pool.  A fixed array of slots, each holding at most one connection,
 * made lazily and kept.  A request borrows a slot for exactly the time of
 * its statements (PoolBorrow ... PoolReturn), so an HTTP client idling on
 * a keep-alive connection holds no database session.  Free slots are a
 * stack under one mutex (the most recently used connection is reused
 * first, so a lightly loaded gateway keeps few backends busy); a request
 * finding none waits on a condition variable up to wait_ms, then gives up
 * (the caller answers ThrottlingException).
 *
 * Each connection, when made, prepares its two statements:
 *
 *	dyn:  SELECT item_table.dynamodb($1, $2)
 *	role: SELECT pg_catalog.set_config('role', $1, false)
 *
 * and remembers current_user.  A slot switches role only when the key's
 * role differs from the one it has, and with set_config, so PostgreSQL's
 * own check applies: the login role must be a member of every role that
 * keys map to.  The request is passed as a bound parameter, never as SQL
 * text.
 *
 * Broken connections.  Before handing out a slot we look at its socket: an
 * idle connection has nothing to read unless the server went away (a
 * restart sends a FATAL message, then EOF), so a readable socket, or a
 * status other than CONNECTION_OK, means "connect again".  So after a
 * PostgreSQL restart no request is lost to a stale connection; during the
 * outage each request fails at connect and gets a 500, which SDKs retry.
 *
 * Access keys.  KeyLookup answers from a cache kept key_ttl_s seconds
 * (default 5), else reads item_table.access_keys on a connection reserved
 * for it, which always runs as the login role (pooled connections may
 * have switched to a role that cannot read the catalog).  The TTL is the
 * revocation latency: a deleted key, or a changed role, is honoured within
 * it, while a busy client costs one catalog read per key per TTL instead
 * of one per request.  Unknown keys are not cached (each costs one read).
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

struct PoolConn
{
	PGconn	   *conn;
	char		role[GW_MAX_ROLE + 1];	/* current_user of the session */
	int			index;
};

static PoolConn *slots;
static int	nslots;
static int *free_stack;
static int	nfree;
static int	pool_wait_ms;
static pthread_mutex_t pool_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cond;
static char *pool_conninfo;

/* the catalog connection and the key cache */
typedef struct KeyEntry
{
	struct KeyEntry *next;
	char		key_id[GW_MAX_KEY_ID + 1];
	char	   *secret;
	char		role[GW_MAX_ROLE + 1];
	bool		no_role;
	struct timespec expires;
} KeyEntry;

#define KEY_CACHE_MAX 4096

static PoolConn key_conn;
static pthread_mutex_t key_mutex = PTHREAD_MUTEX_INITIALIZER;
static KeyEntry *key_cache;
static int	key_cache_n;
static int	key_ttl;

static void
now_mono(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
}

/*
 * Connect (again) and prepare the statements.  Errors are logged once per
 * failure; the slot is left without a connection.
 */
static bool
pool_connect(PoolConn *pc, bool catalog)
{
	const char *keywords[] = {"application_name", "dbname", "client_encoding", NULL};
	const char *values[] = {"item_table_gateway", pool_conninfo, "UTF8", NULL};
	PGresult   *res;

	if (pc->conn)
		PQfinish(pc->conn);
	pc->conn = PQconnectdbParams(keywords, values, 1);
	if (PQstatus(pc->conn) != CONNECTION_OK)
	{
		GwLog("cannot connect to PostgreSQL: %s", PQerrorMessage(pc->conn));
		goto fail;
	}
	if (catalog)
		res = PQprepare(pc->conn, "key",
						"SELECT k.secret_access_key, r.rolname "
						"FROM item_table.access_keys k "
						"LEFT JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) k.role "
						"WHERE k.access_key_id OPERATOR(pg_catalog.=) $1", 1, NULL);
	else
		res = PQprepare(pc->conn, "dyn", "SELECT item_table.dynamodb($1, $2)", 2, NULL);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		GwLog("cannot prepare the gateway's statement: %s", PQerrorMessage(pc->conn));
		PQclear(res);
		goto fail;
	}
	PQclear(res);
	if (!catalog)
	{
		res = PQprepare(pc->conn, "role", "SELECT pg_catalog.set_config('role', $1, false)", 1, NULL);
		if (PQresultStatus(res) != PGRES_COMMAND_OK)
		{
			GwLog("cannot prepare the gateway's statement: %s", PQerrorMessage(pc->conn));
			PQclear(res);
			goto fail;
		}
		PQclear(res);
	}
	res = PQexec(pc->conn, "SELECT pg_catalog.current_user()");
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
	{
		GwLog("cannot read current_user: %s", PQerrorMessage(pc->conn));
		PQclear(res);
		goto fail;
	}
	snprintf(pc->role, sizeof(pc->role), "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	return true;

fail:
	PQfinish(pc->conn);
	pc->conn = NULL;
	pc->role[0] = '\0';
	return false;
}

/* Make sure pc has a live connection; false if PostgreSQL cannot be reached. */
static bool
pool_check(PoolConn *pc, bool catalog)
{
	if (pc->conn && PQstatus(pc->conn) == CONNECTION_OK)
	{
		struct pollfd pfd = {.fd = PQsocket(pc->conn),.events = POLLIN};

		/* an idle session has nothing to say unless the server left */
		if (poll(&pfd, 1, 0) == 0)
			return true;
	}
	return pool_connect(pc, catalog);
}

/*
 * PoolInit
 *		Set up size slots (connecting none yet, except one to check that
 *		the database and the extension are there).
 */
bool
PoolInit(const char *conninfo, int size, int wait_ms, int key_ttl_s, bool need_keys)
{
	pthread_condattr_t attr;
	int			i;

	pool_conninfo = strdup(conninfo ? conninfo : "");
	nslots = size;
	pool_wait_ms = wait_ms;
	key_ttl = key_ttl_s;
	slots = calloc(size, sizeof(PoolConn));
	free_stack = calloc(size, sizeof(int));
	if (!slots || !free_stack || !pool_conninfo)
		return false;
	for (i = 0; i < size; i++)
	{
		slots[i].index = i;
		free_stack[i] = size - 1 - i;
	}
	nfree = size;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&pool_cond, &attr);
	pthread_condattr_destroy(&attr);

	/* fail early on a wrong conninfo or a missing extension */
	if (!pool_connect(&slots[0], false))
		return false;
	if (need_keys && !pool_connect(&key_conn, true))
		return false;
	return true;
}

/*
 * PoolBorrow
 *		A slot with a live connection if possible, NULL if none came free
 *		within the wait.  The slot's connection may be NULL when PostgreSQL
 *		cannot be reached (PoolConnection says so); return it either way.
 */
PoolConn *
PoolBorrow(void)
{
	struct timespec deadline;
	PoolConn   *pc;

	now_mono(&deadline);
	deadline.tv_sec += pool_wait_ms / 1000;
	deadline.tv_nsec += (long) (pool_wait_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L)
	{
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}

	pthread_mutex_lock(&pool_mutex);
	while (nfree == 0)
	{
		if (pthread_cond_timedwait(&pool_cond, &pool_mutex, &deadline) == ETIMEDOUT &&
			nfree == 0)
		{
			pthread_mutex_unlock(&pool_mutex);
			return NULL;
		}
	}
	pc = &slots[free_stack[--nfree]];
	pthread_mutex_unlock(&pool_mutex);

	pool_check(pc, false);
	return pc;
}

PGconn *
PoolConnection(PoolConn *pc)
{
	return pc->conn;
}

void
PoolReturn(PoolConn *pc)
{
	/* a connection left mid-command or broken is made anew next time */
	if (pc->conn && (PQstatus(pc->conn) != CONNECTION_OK ||
					 PQtransactionStatus(pc->conn) != PQTRANS_IDLE))
	{
		PQfinish(pc->conn);
		pc->conn = NULL;
	}
	pthread_mutex_lock(&pool_mutex);
	free_stack[nfree++] = pc->index;
	pthread_cond_signal(&pool_cond);
	pthread_mutex_unlock(&pool_mutex);
}

/* Close every connection; called once no request runs. */
void
PoolClose(void)
{
	int			i;

	for (i = 0; i < nslots; i++)
		if (slots[i].conn)
			PQfinish(slots[i].conn);
	if (key_conn.conn)
		PQfinish(key_conn.conn);
}

/*
 * PoolSetRole
 *		Run the slot's session as role (when it does not already).
 */
PoolRoleStatus
PoolSetRole(PoolConn *pc, const char *role)
{
	PGresult   *res;
	const char *params[1] = {role};
	const char *state;
	PoolRoleStatus st;

	if (strcmp(pc->role, role) == 0)
		return POOL_ROLE_OK;
	res = PQexecPrepared(pc->conn, "role", 1, params, NULL, NULL, 0);
	if (PQresultStatus(res) == PGRES_TUPLES_OK)
	{
		snprintf(pc->role, sizeof(pc->role), "%s", role);
		PQclear(res);
		return POOL_ROLE_OK;
	}
	state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	if (PQstatus(pc->conn) == CONNECTION_OK && state &&
		(strcmp(state, "42501") == 0 || strcmp(state, "22023") == 0 ||
		 strcmp(state, "42704") == 0))
		st = POOL_ROLE_DENIED;
	else
	{
		GwLog("cannot set role: %s", PQerrorMessage(pc->conn));
		st = POOL_ROLE_FAILED;
	}
	PQclear(res);
	return st;
}

/*
 * PoolExecute
 *		SELECT item_table.dynamodb(action, body); the caller clears the
 *		result.  body is NUL-terminated text (the caller refuses NUL bytes).
 */
PGresult *
PoolExecute(PoolConn *pc, const char *action, const char *body)
{
	const char *params[2] = {action, body};

	return PQexecPrepared(pc->conn, "dyn", 2, params, NULL, NULL, 0);
}

/*
 * KeyLookup
 *		The secret and role of an access key, from the cache or the catalog.
 */
KeyStatus
KeyLookup(const char *key_id, char *secret, size_t secretlen,
		  char *role, size_t rolelen)
{
	struct timespec now;
	KeyEntry  **pp,
			   *e;
	PGresult   *res;
	const char *params[1] = {key_id};
	KeyStatus	st;

	now_mono(&now);
	pthread_mutex_lock(&key_mutex);
	for (pp = &key_cache; (e = *pp) != NULL;)
	{
		if (now.tv_sec > e->expires.tv_sec ||
			(now.tv_sec == e->expires.tv_sec && now.tv_nsec >= e->expires.tv_nsec))
		{
			/* expired: drop it */
			*pp = e->next;
			free(e->secret);
			free(e);
			key_cache_n--;
			continue;
		}
		if (strcmp(e->key_id, key_id) == 0)
		{
			snprintf(secret, secretlen, "%s", e->secret);
			snprintf(role, rolelen, "%s", e->role);
			st = e->no_role ? KEY_NO_ROLE : KEY_FOUND;
			pthread_mutex_unlock(&key_mutex);
			return st;
		}
		pp = &e->next;
	}

	/* not cached: read the catalog (still under the mutex: one reader) */
	if (!pool_check(&key_conn, true))
	{
		pthread_mutex_unlock(&key_mutex);
		return KEY_ERROR;
	}
	res = PQexecPrepared(key_conn.conn, "key", 1, params, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		GwLog("cannot read item_table.access_keys: %s", PQerrorMessage(key_conn.conn));
		PQclear(res);
		pthread_mutex_unlock(&key_mutex);
		return KEY_ERROR;
	}
	if (PQntuples(res) == 0)
	{
		PQclear(res);
		pthread_mutex_unlock(&key_mutex);
		return KEY_UNKNOWN;
	}
	e = calloc(1, sizeof(KeyEntry));
	if (e == NULL || (e->secret = strdup(PQgetvalue(res, 0, 0))) == NULL)
		abort();
	snprintf(e->key_id, sizeof(e->key_id), "%s", key_id);
	e->no_role = PQgetisnull(res, 0, 1);
	snprintf(e->role, sizeof(e->role), "%s", e->no_role ? "" : PQgetvalue(res, 0, 1));
	PQclear(res);
	e->expires = now;
	e->expires.tv_sec += key_ttl;
	snprintf(secret, secretlen, "%s", e->secret);
	snprintf(role, rolelen, "%s", e->role);
	st = e->no_role ? KEY_NO_ROLE : KEY_FOUND;
	if (key_ttl > 0 && key_cache_n < KEY_CACHE_MAX)
	{
		e->next = key_cache;
		key_cache = e;
		key_cache_n++;
	}
	else
	{
		free(e->secret);
		free(e);
	}
	pthread_mutex_unlock(&key_mutex);
	return st;
}
