/*-------------------------------------------------------------------------
 *
 * keys.c
 *		The access key cache: an access key's secret and role, read from
 *		item_table.access_keys through a connection of its own.
 *
 * KeyLookup answers from a cache kept key_ttl_s seconds (--key-ttl,
 * default 5), else reads item_table.access_keys on a connection reserved
 * for it, which runs no request (so no role's code ever runs where the
 * secrets can be read).  The role comes back quoted as an identifier
 * (quote_ident), which is how dynamodb_as's regrole parameter reads a
 * name.  The TTL is the revocation latency: a deleted key, or a changed
 * role, is honoured within it, while a busy client costs one catalog read
 * per key per TTL instead of one per request.  Unknown keys are not cached
 * (each costs one read).
 *
 * Two levels, so that a request whose key is cached takes no lock:
 *
 *	- the shared cache (a list under key_mutex), filled from the catalog,
 *	  each entry expiring key_ttl_s seconds after it was read;
 *	- per thread, copies of the last LOCAL_KEYS entries the thread used,
 *	  each expiring when the shared entry it was copied from does (not
 *	  key_ttl_s after the copy): so the revocation latency is the TTL
 *	  whichever thread serves the request, as with the shared cache alone.
 *
 * A miss reads the catalog under conn_mutex (the connection has one reader
 * at a time), not under key_mutex: other threads' hits are not held up by
 * a catalog read.  Two threads missing the same key at once read it once:
 * the second finds it in the shared cache once it has the connection.
 *
 * The event loops do not wait for a catalog read: they look in the caches
 * only (KeyLookupCached) and hand a miss to the keys' thread
 * (KeyLookupLater), which reads the catalog and calls back; the request
 * waits suspended, and the loop serves its other clients meanwhile.
 *
 *-------------------------------------------------------------------------
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gateway.h"

/* the shared cache */
typedef struct KeyEntry
{
	struct KeyEntry *next;
	char		key_id[GW_MAX_KEY_ID + 1];
	char	   *secret;
	char		role[GW_MAX_ROLE + 1];
	struct timespec expires;
} KeyEntry;

#define KEY_CACHE_MAX 4096

static pthread_mutex_t key_mutex = PTHREAD_MUTEX_INITIALIZER;
static KeyEntry *key_cache;
static int	key_cache_n;
static int	key_ttl;

/* the catalog connection */
static pthread_mutex_t conn_mutex = PTHREAD_MUTEX_INITIALIZER;
static PGconn *key_conn;
static char *key_conninfo;

/* per thread: copies of shared entries, with their expiry */
#define LOCAL_KEYS 8
#define LOCAL_SECRET_MAX 512

typedef struct LocalKey
{
	char		key_id[GW_MAX_KEY_ID + 1];	/* "" when unused */
	char		secret[LOCAL_SECRET_MAX];
	char		role[GW_MAX_ROLE + 1];
	struct timespec expires;
} LocalKey;

static __thread LocalKey local_keys[LOCAL_KEYS];
static __thread int local_next;

static bool
expired(const struct timespec *t, const struct timespec *now)
{
	return now->tv_sec > t->tv_sec ||
		(now->tv_sec == t->tv_sec && now->tv_nsec >= t->tv_nsec);
}

/* copy src (NUL-terminated) into dst of size dstlen, truncated as snprintf */
static void
copy_str(char *dst, size_t dstlen, const char *src)
{
	size_t		n = strlen(src);

	if (dstlen == 0)
		return;
	if (n >= dstlen)
		n = dstlen - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* forget a thread's copy (the secret wiped) */
static void
local_drop(LocalKey *l)
{
	explicit_bzero(l, sizeof(*l));
}

/* keep a thread's copy of a shared entry */
static void
local_keep(const KeyEntry *e)
{
	LocalKey   *l;

	if (strlen(e->secret) >= LOCAL_SECRET_MAX)
		return;
	l = &local_keys[local_next];
	local_next = (local_next + 1) % LOCAL_KEYS;
	local_drop(l);
	copy_str(l->key_id, sizeof(l->key_id), e->key_id);
	copy_str(l->secret, sizeof(l->secret), e->secret);
	copy_str(l->role, sizeof(l->role), e->role);
	l->expires = e->expires;
}

/* connect (again) and prepare the key statement; false if that fails */
static bool
key_connect(void)
{
	const char *keywords[] = {"application_name", "dbname", "client_encoding", NULL};
	const char *values[] = {"item_table_gateway", key_conninfo, "UTF8", NULL};
	PGresult   *res;

	if (key_conn)
		PQfinish(key_conn);
	key_conn = PQconnectdbParams(keywords, values, 1);
	if (PQstatus(key_conn) != CONNECTION_OK)
	{
		GwLog("cannot connect to PostgreSQL: %s", PQerrorMessage(key_conn));
		goto fail;
	}

	/*
	 * A key counts only while its role holds USAGE on the anchor domain
	 * (src/catalog/role_guard.c): a key left by a dropped role, whose OID a
	 * new role may have got, is unknown.
	 */
	res = PQprepare(key_conn, "key",
					"SELECT k.secret_access_key, pg_catalog.quote_ident(r.rolname) "
					"FROM item_table.access_keys k "
					"JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) k.role "
					"WHERE k.access_key_id OPERATOR(pg_catalog.=) $1 "
					"AND EXISTS (SELECT FROM pg_catalog.pg_type t, pg_catalog.aclexplode(t.typacl) a "
					"WHERE t.oid OPERATOR(pg_catalog.=) 'item_table.role_of_access_keys_or_consumers'::pg_catalog.regtype "
					"AND a.grantee OPERATOR(pg_catalog.=) k.role AND a.privilege_type OPERATOR(pg_catalog.=) 'USAGE')",
					1, NULL);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		GwLog("cannot prepare the gateway's statement: %s", PQerrorMessage(key_conn));
		PQclear(res);
		goto fail;
	}
	PQclear(res);
	return true;

fail:
	PQfinish(key_conn);
	key_conn = NULL;
	return false;
}

/* a live catalog connection (an idle one has nothing to read unless the
 * server left), or false */
static bool
key_check(void)
{
	if (key_conn && PQstatus(key_conn) == CONNECTION_OK)
	{
		struct pollfd pfd = {.fd = PQsocket(key_conn),.events = POLLIN};

		if (poll(&pfd, 1, 0) == 0)
			return true;
	}
	return key_connect();
}

/*
 * KeysInit
 *		Connect the catalog connection (conninfo as the pool's), with
 *		entries kept ttl_s seconds; false if it cannot connect.
 */
bool
KeysInit(const char *conninfo, int ttl_s)
{
	key_ttl = ttl_s;
	key_conninfo = strdup(conninfo ? conninfo : "");	/* "": the environment's */
	if (key_conninfo == NULL)
		return false;
	return key_connect();
}

/* close the catalog connection (no lookup runs any more) */
void
KeysClose(void)
{
	if (key_conn)
		PQfinish(key_conn);
	key_conn = NULL;
}

/*
 * The shared entry of key_id, expired ones dropped on the way; the caller
 * holds key_mutex.
 */
static KeyEntry *
shared_find(const char *key_id, const struct timespec *now)
{
	KeyEntry  **pp,
			   *e;

	for (pp = &key_cache; (e = *pp) != NULL;)
	{
		if (expired(&e->expires, now))
		{
			*pp = e->next;
			explicit_bzero(e->secret, strlen(e->secret));
			free(e->secret);
			free(e);
			key_cache_n--;
			continue;
		}
		if (strcmp(e->key_id, key_id) == 0)
			return e;
		pp = &e->next;
	}
	return NULL;
}

/* the shared entry of key_id into secret and role (and this thread's copy) */
static bool
shared_lookup(const char *key_id, const struct timespec *now,
			  char *secret, size_t secretlen, char *role, size_t rolelen)
{
	KeyEntry   *e;

	pthread_mutex_lock(&key_mutex);
	e = shared_find(key_id, now);
	if (e)
	{
		copy_str(secret, secretlen, e->secret);
		copy_str(role, rolelen, e->role);
		if (key_ttl > 0)
			local_keep(e);
	}
	pthread_mutex_unlock(&key_mutex);
	return e != NULL;
}

/*
 * KeyLookupCached
 *		The secret and role of an access key from this thread's copies or
 *		the shared cache, without waiting for the catalog: KEY_MISS when
 *		neither has it.
 */
KeyStatus
KeyLookupCached(const char *key_id, char *secret, size_t secretlen,
				char *role, size_t rolelen)
{
	struct timespec now;
	int			i;

	clock_gettime(CLOCK_MONOTONIC, &now);

	/* this thread's copies: no lock */
	for (i = 0; i < LOCAL_KEYS; i++)
	{
		LocalKey   *l = &local_keys[i];

		if (l->key_id[0] == '\0')
			continue;
		if (expired(&l->expires, &now))
		{
			local_drop(l);
			continue;
		}
		if (strcmp(l->key_id, key_id) == 0)
		{
			copy_str(secret, secretlen, l->secret);
			copy_str(role, rolelen, l->role);
			return KEY_FOUND;
		}
	}
	if (shared_lookup(key_id, &now, secret, secretlen, role, rolelen))
		return KEY_FOUND;
	return KEY_MISS;
}

/*
 * KeyLookup
 *		The secret and role of an access key, from this thread's copies,
 *		the shared cache or the catalog (waiting for it).
 */
KeyStatus
KeyLookup(const char *key_id, char *secret, size_t secretlen,
		  char *role, size_t rolelen)
{
	struct timespec now;
	KeyEntry   *e;
	PGresult   *res;
	const char *params[1] = {key_id};

	if (KeyLookupCached(key_id, secret, secretlen, role, rolelen) == KEY_FOUND)
		return KEY_FOUND;

	/*
	 * Not cached: read the catalog, one reader at a time.  Another thread
	 * may have read this key while we waited for the connection.
	 */
	pthread_mutex_lock(&conn_mutex);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (shared_lookup(key_id, &now, secret, secretlen, role, rolelen))
	{
		pthread_mutex_unlock(&conn_mutex);
		return KEY_FOUND;
	}
	if (!key_check())
	{
		pthread_mutex_unlock(&conn_mutex);
		return KEY_ERROR;
	}
	res = PQexecPrepared(key_conn, "key", 1, params, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		GwLog("cannot read item_table.access_keys: %s", PQerrorMessage(key_conn));
		PQclear(res);
		pthread_mutex_unlock(&conn_mutex);
		return KEY_ERROR;
	}
	if (PQntuples(res) == 0)
	{
		PQclear(res);
		pthread_mutex_unlock(&conn_mutex);
		return KEY_UNKNOWN;
	}
	e = calloc(1, sizeof(KeyEntry));
	if (e == NULL || (e->secret = strdup(PQgetvalue(res, 0, 0))) == NULL)
		abort();
	copy_str(e->key_id, sizeof(e->key_id), key_id);
	copy_str(e->role, sizeof(e->role), PQgetvalue(res, 0, 1));
	PQclear(res);
	e->expires = now;
	e->expires.tv_sec += key_ttl;
	copy_str(secret, secretlen, e->secret);
	copy_str(role, rolelen, e->role);

	pthread_mutex_lock(&key_mutex);
	if (key_ttl > 0 && key_cache_n < KEY_CACHE_MAX)
	{
		e->next = key_cache;
		key_cache = e;
		key_cache_n++;
		local_keep(e);
		e = NULL;
	}
	pthread_mutex_unlock(&key_mutex);
	pthread_mutex_unlock(&conn_mutex);
	if (e)
	{
		explicit_bzero(e->secret, strlen(e->secret));
		free(e->secret);
		free(e);
	}
	return KEY_FOUND;
}

/*
 * KeyLookupLater
 *		Look kw->key_id up on the keys' thread, which sets kw's status,
 *		secret and role and then calls kw->done(kw).  For the threads that
 *		serve many clients at once (the event loops): a key missing from
 *		the cache costs a catalog read on the keys' own connection, a
 *		round trip at best and, when that connection must be made again
 *		to a server that does not answer, as long as its connect takes;
 *		the loop serves its other clients meanwhile.  The lookups are
 *		done one at a time, in their order (the connection has one reader
 *		anyway).  Without a thread (it could not be started) the lookup is
 *		done at once, on the caller's.
 */
static pthread_mutex_t later_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t later_cond = PTHREAD_COND_INITIALIZER;
static KeyWait *later_head,
		   *later_tail;
static int	later_thread;		/* 0: not started, 1: running, -1: failed */

static void
later_one(KeyWait *kw)
{
	kw->status = KeyLookup(kw->key_id, kw->secret, sizeof(kw->secret),
						   kw->role, sizeof(kw->role));
	kw->done(kw);
}

static void *
later_main(void *arg)
{
	for (;;)
	{
		KeyWait    *kw;

		pthread_mutex_lock(&later_mutex);
		while (later_head == NULL)
			pthread_cond_wait(&later_cond, &later_mutex);
		kw = later_head;
		later_head = kw->next;
		if (later_head == NULL)
			later_tail = NULL;
		pthread_mutex_unlock(&later_mutex);
		kw->next = NULL;
		later_one(kw);
	}
	return NULL;
}

void
KeyLookupLater(KeyWait *kw)
{
	kw->next = NULL;
	pthread_mutex_lock(&later_mutex);
	if (later_thread == 0)
	{
		pthread_t	t;
		pthread_attr_t attr;

		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		later_thread = pthread_create(&t, &attr, later_main, NULL) == 0 ? 1 : -1;
		pthread_attr_destroy(&attr);
		if (later_thread < 0)
			GwLog("cannot start the access keys' thread: looking keys up on the loops");
	}
	if (later_thread < 0)
	{
		pthread_mutex_unlock(&later_mutex);
		later_one(kw);
		return;
	}
	if (later_tail)
		later_tail->next = kw;
	else
		later_head = kw;
	later_tail = kw;
	pthread_cond_signal(&later_cond);
	pthread_mutex_unlock(&later_mutex);
}
