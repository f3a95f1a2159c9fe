/*-------------------------------------------------------------------------
 *
 * gateway.h
 *		Interfaces between the parts of item_table_gateway: the HTTP side
 *		(main.c, with respond.c and conn.c: gw_http.h), its options
 *		(options.c), SigV4 (sigv4.c), the PostgreSQL side (pool.c, and
 *		pgpipe.c for the event loops' own sessions), the access key cache
 *		(keys.c), the choice of primary or replica (route.c), the
 *		metrics (metrics.c) and the answers' CRC-32 (crc32.c).
 *
 * The essay on the whole program is at the top of main.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_GATEWAY_H
#define ITEM_TABLE_GATEWAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "libpq-fe.h"

/* DynamoDB refuses requests over 16 MB (BatchWriteItem's limit) */
#define GW_MAX_BODY (16 * 1024 * 1024)

/* Longest access key id AWS issues is 128 characters */
#define GW_MAX_KEY_ID 128
#define GW_MAX_ROLE 128			/* NAMEDATALEN is 64 bytes; leave room */

/* ----------------------------------------------------------------
 * sigv4.c: AWS Signature Version 4, as DynamoDB checks it
 * ----------------------------------------------------------------
 */

/* one header or query argument of the request, as received */
typedef struct GwPair
{
	const char *name;
	const char *value;
} GwPair;

typedef struct SigV4Request
{
	const char *method;
	const char *path;			/* decoded path of the URL */
	const GwPair *headers;
	int			nheaders;
	const GwPair *query;
	int			nquery;
	const char *body;
	size_t		body_len;
} SigV4Request;

typedef enum SigV4Status
{
	SIGV4_OK,
	SIGV4_MISSING,				/* no Authorization header */
	SIGV4_INCOMPLETE,			/* Authorization or date malformed */
	SIGV4_EXPIRED,				/* more than 15 minutes from our clock */
	SIGV4_MISMATCH				/* signature differs */
} SigV4Status;

typedef struct SigV4Auth
{
	char		key_id[GW_MAX_KEY_ID + 1];
	char		scope_date[9];	/* YYYYMMDD of the credential scope */
	char		region[64];
	char		amz_date[17];	/* YYYYMMDDTHHMMSSZ */
	char		signed_headers[1024];	/* "host;x-amz-date;..." */
	char		signature[65];	/* lower-case hex */
} SigV4Auth;

extern SigV4Status SigV4Parse(const SigV4Request *req, SigV4Auth *auth,
							  char *msg, size_t msglen);
extern SigV4Status SigV4CheckTime(const SigV4Auth *auth, time_t now,
								  char *msg, size_t msglen);
extern bool SigV4Verify(const SigV4Request *req, const SigV4Auth *auth,
						const char *secret);
extern void GwHexSha256(const void *data, size_t len, char out[65]);
extern void GwHmacSha256(const void *key, size_t keylen, const void *msg,
						 size_t msglen, unsigned char out[32]);

/* ----------------------------------------------------------------
 * crc32.c: the CRC-32 of x-amz-crc32
 * ----------------------------------------------------------------
 */

/* zlib's crc32(0, buf, len), by PCLMULQDQ folding where the CPU has it */
extern uint32_t GwCrc32(const void *buf, size_t len);

/* its ways one by one, for sigv4_check.c: zlib's (where no PCLMULQDQ),
 * the folding (only where GwCrc32HasClmul()), the table loop */
extern uint32_t GwCrc32Portable(const void *buf, size_t len);
extern uint32_t GwCrc32Clmul(const void *buf, size_t len);
extern uint32_t GwCrc32Table(const void *buf, size_t len);
extern bool GwCrc32HasClmul(void);

/* ----------------------------------------------------------------
 * pool.c: PostgreSQL connections
 * ----------------------------------------------------------------
 */

/* the most --replica options */
#define GW_MAX_REPLICAS 16

/* a pool of connections to one server (pool.c) */
typedef struct GwPool GwPool;

/* how a job ended */
typedef enum GwJobStatus
{
	JOB_RESULT,					/* res holds dynamodb()'s result or error */
	JOB_THROTTLED,				/* waited past --pool-wait, not run */
	JOB_NO_CONNECTION,			/* PostgreSQL unreachable, not run */
	JOB_CONNECTION_LOST,		/* the connection broke with the job out */
	JOB_ROLE_DENIED,			/* PostgreSQL refused the key's role */
	JOB_ROLE_FAILED				/* (no longer produced: the role is a
								 * parameter of dynamodb_as) */
} GwJobStatus;

/* one call of item_table.dynamodb_as(role, action, body), queued for the pool */
typedef struct GwJob
{
	struct GwJob *next;			/* the queue's link (pool.c's) */
	struct timespec deadline;	/* pool.c's: when it stops waiting */
	GwPool	   *pool;			/* where it runs (route.c's choice; NULL:
								 * the primary) */
	const char *action;
	const char *body;			/* NUL-terminated */
	const char *role;			/* run as this role (quoted as an identifier);
								 * NULL: the login role */
	GwJobStatus status;			/* out */
	PGresult   *res;			/* out, JOB_RESULT only; the caller clears it */
	void		(*done) (struct GwJob *job);	/* called once, from a pool thread */
} GwJob;

/* the gateway's options (options.c: the command line and configuration files) */
typedef struct GwOptions
{
	const char *listen;
	int			port;
	int			pool;
	int			threads;
	bool		engine_loop;	/* --engine loop (default): loop.c's event
								 * loops; false: --engine mhd, libmicrohttpd */
	bool		io_uring;		/* --io uring (default): the loops' HTTP
								 * input and output through io_uring where
								 * built with it and the kernel allows it;
								 * false: --io epoll */
	int			answer_wait_us; /* --answer-wait: with batches out on
								 * its sessions, how long a loop waits
								 * to take their answers in one wake-up (0:
								 * not at all) */
	bool		auth_none;
	bool		auth_any;		/* --auth any: any well-formed SigV4 */
	const char *any_role;		/* ... runs as this role (NULL: the login
								 * role; item_table_local sets it) */
	const char *tls_cert;
	const char *tls_key;
	int			max_connections;
	int			timeout;
	int			request_timeout;
	int			pool_wait_ms;
	int			key_ttl;
	int			statement_timeout_ms;
	int			lock_timeout_ms;
	int			pool_per_role;
	bool		log;
	const char *conninfo;
	const char *replicas[GW_MAX_REPLICAS];	/* --replica */
	int			nreplicas;
	int			max_replica_lag_ms; /* --max-replica-lag */
	int			metrics_port;	/* --metrics-port (0: /metrics on --port) */
} GwOptions;

extern GwOptions GwOpt;

/* read the command line into GwOpt: 0, or main's exit status */
extern int	GwReadOptions(int argc, char **argv);

/* called with the bound port when it listens, instead of printing the
 * "listening on" line (item_table_local prints its own) */
extern void (*GwOnReady) (int port);

/* the pool's settings (from GwOpt, set by main.c) */
typedef struct GwPoolOptions
{
	int			size;			/* --pool: connections */
	int			wait_ms;		/* --pool-wait: longest wait on the queue */
	int			key_ttl_s;		/* --key-ttl: access key cache */
	int			statement_timeout_ms;	/* --statement-timeout (0: none) */
	int			lock_timeout_ms;	/* --lock-timeout (0: none) */
	int			role_cap;		/* --pool-per-role: most connections one
								 * role's requests hold at once */
	bool		no_slots;		/* --engine loop: no slot threads, the
								 * loops own the sessions (pgpipe.c) */
} GwPoolOptions;

extern GwPool *GwPrimary;

extern bool PoolInit(const char *conninfo, const GwPoolOptions *opts,
					 bool need_keys);
extern GwPool *PoolAddReplica(const char *name, const char *conninfo, int size);
extern const char *PoolStats(GwPool *p, int *size, int *in_use, int *waiting);
extern int	PoolIndex(GwPool *p);	/* 0: the primary's, then the replicas' */
extern void PoolSubmit(GwJob *job);
extern bool PoolRunDirect(GwJob *job);
extern void PoolClose(void);
extern int	PoolCount(void);
extern GwPool *PoolAt(int i);
extern const char *PoolConninfo(GwPool *p);
extern int	PoolSize(GwPool *p);

/* most jobs one connection takes in one batch */
#define BATCH_MAX 16

/* a FIFO of jobs (pool.c's per pool, pgpipe.c's per loop and pool) */
typedef struct GwJobQueue
{
	GwJob	   *head;
	GwJob	   *tail;
	int			len;
} GwJobQueue;

/* shared by pool.c's slots and pgpipe.c's loops */
extern void JobQueuePush(GwJobQueue *q, GwJob *job);
extern void JobQueueRequeue(GwJobQueue *q, GwJob **jobs, int n);
extern GwJob *JobQueueExpire(GwJobQueue *q, const struct timespec *now);
extern int	JobQueueTakeBatch(GwJobQueue *q, int idle_others,
							  bool (*eligible) (void *cls, const char *role),
							  void *cls, GwJob **jobs);
extern void PoolSetDeadline(GwJob *job);
extern int	PoolRoleCap(void);
extern PGconn *PoolOpenSession(const char *conninfo,
							   char *role, size_t rolelen, bool pipeline);
extern bool PoolSessionIdleOk(PGconn *conn);
extern bool PoolSegmentResult(PGresult **got, PGresult *res);
extern void PoolFinishJob(GwJob *job, GwJobStatus status, PGresult *res);
extern int	PoolSendSegments(PGconn *conn, const char *login_role, GwJob **jobs, int n);
extern int	PoolJudge(PGconn *conn, PGresult **got, bool *dirty);

/* ----------------------------------------------------------------
 * pgwire.c: the protocol on the loops' sessions, spoken without libpq
 * ----------------------------------------------------------------
 */
typedef struct GwWire
{
	int			fd;				/* the session's socket (libpq's) */
	char	   *out;			/* messages queued ... */
	size_t		out_size,
				out_start,		/* ... sent up to here */
				out_end;
	char	   *in;				/* read, not yet parsed from in_start */
	size_t		in_size,
				in_start,
				in_end,
				in_need;		/* bytes from in_start the next message needs */
	PGresult   *ok;				/* the segment's rows so far */
	PGresult   *err;			/* the segment's error */
} GwWire;

extern void WireInit(GwWire *w, int fd);
extern void WireReset(GwWire *w);
extern bool WireQueueJob(GwWire *w, const char *action, const char *body,
						 const char *role);
extern int	WireFlush(GwWire *w);
extern bool WireNothingSent(GwWire *w);
extern int	WireRead(GwWire *w);
extern bool WireRecvRoom(GwWire *w, char **buf, size_t *room);
extern void WireReceived(GwWire *w, size_t n);
extern int	WireNextAnswer(GwWire *w, PGresult **res, const char **why);
extern void WireBatchDone(GwWire *w);
/* PQresultErrorField / PQresultErrorMessage for both kinds of results */
extern const char *GwResultErrorField(const PGresult *res, int fieldcode);
extern const char *GwResultErrorMessage(const PGresult *res);

/* ----------------------------------------------------------------
 * pgpipe.c: with --engine loop, each loop's own sessions
 * ----------------------------------------------------------------
 */
extern bool PipeInit(int nloops);
extern bool PipeSubmit(GwJob *job);
extern const char *PipePoolStats(GwPool *p, int *size, int *in_use, int *waiting);
extern void PipeLoopFds(int i, int epfd, int efd);
extern void PipeLoopBegin(int i);
extern void PipeLoopEnd(void);
extern void PipeOnEvent(void *tagged, uint32_t events);
/* loop.c: a PostgreSQL session's socket, watched by the calling loop */
extern void *LoopWatch(int fd, void *tagged, bool ring_io);
extern bool LoopWatchRingIo(void *watch);
extern bool LoopRecv(void *watch, char *buf, size_t room);
extern bool LoopSend(void *watch, const char *buf, size_t len);
extern void LoopWatchOutput(void *watch, bool on);
extern void LoopUnwatch(void *watch, void *buf1, void *buf2);
extern void PipeOnRecv(void *tagged, int res);
extern void PipeOnSent(void *tagged, int res);
extern void PipeInbox(void);
extern void PipeFlush(void);
extern int	PipeTimeout(int dflt);
extern int	PipeBatchesOut(void);


/* ----------------------------------------------------------------
 * keys.c: the access key cache
 * ----------------------------------------------------------------
 */

/* result of looking up an access key */
typedef enum KeyStatus
{
	KEY_FOUND,
	KEY_UNKNOWN,
	KEY_ERROR,					/* the catalog could not be read */
	KEY_MISS					/* KeyLookupCached: not in the cache */
} KeyStatus;

/* a lookup done on the keys' thread (KeyLookupLater) */
typedef struct KeyWait
{
	struct KeyWait *next;
	void		(*done) (struct KeyWait *kw);	/* called on the keys' thread */
	KeyStatus	status;
	char		key_id[GW_MAX_KEY_ID + 1];
	char		secret[512];
	char		role[GW_MAX_ROLE + 1];
} KeyWait;

extern bool KeysInit(const char *conninfo, int ttl_s);
extern void KeysClose(void);
extern KeyStatus KeyLookup(const char *key_id, char *secret, size_t secretlen,
						   char *role, size_t rolelen);
extern KeyStatus KeyLookupCached(const char *key_id, char *secret, size_t secretlen,
								 char *role, size_t rolelen);
extern void KeyLookupLater(KeyWait *kw);

/* ----------------------------------------------------------------
 * route.c: which pool runs a request; the replicas' lag
 * ----------------------------------------------------------------
 */
extern bool RouteInit(void);
extern GwPool *RouteChoose(const char *action, const char *body, size_t len);
extern bool RouteRetryOnPrimary(GwJob *job);
extern int	RouteReplicas(void);
extern uint64_t RouteFallbacks(void);
extern uint64_t RouteStandbyRefusals(void);
extern GwPool *RouteReplicaState(int i, double *lag_s, bool *healthy);

/* ----------------------------------------------------------------
 * metrics.c: counters, and GET /metrics
 * ----------------------------------------------------------------
 */

/* why SigV4 authentication failed */
typedef enum GwAuthFailure
{
	AUTH_MISSING,				/* no Authorization header */
	AUTH_INCOMPLETE,			/* malformed */
	AUTH_EXPIRED,				/* date off by more than 15 minutes */
	AUTH_SIGNATURE,				/* signature mismatch */
	AUTH_UNKNOWN_KEY,			/* access key not in item_table.access_keys */
	AUTH_NO_ROLE,				/* the key's role is gone */
	AUTH_KEY_ERROR,				/* the catalog could not be read */
	AUTH_NKINDS
} GwAuthFailure;

extern void MetricsRequest(const char *action, unsigned status, const char *error,
						   long elapsed_us, size_t bytes_in, size_t bytes_out);
extern void MetricsAuthFailure(GwAuthFailure kind);
extern void MetricsPoolJob(GwPool *pool, bool throttled);
extern char *MetricsRender(size_t *len);

/* main.c */
extern int	GwMain(int argc, char **argv);
extern void GwLog(const char *fmt,...) __attribute__((format(printf, 1, 2)));

#endif							/* ITEM_TABLE_GATEWAY_H */
