/*-------------------------------------------------------------------------
 *
 * main.c
 *		item_table_gateway: DynamoDB's HTTP API in front of item_table.
 *
 * What it is.  A small server that speaks DynamoDB's JSON 1.0 protocol
 * over HTTP/1.1, so that the AWS SDKs, the AWS CLI and the libraries built
 * on them reach a PostgreSQL database with item_table by pointing their
 * endpoint at it.  All semantics stay in the database: each request becomes
 * one call of item_table.dynamodb(action, request), and the gateway adds
 * transport, authentication (access key -> PostgreSQL role) and nothing
 * else.
 *
 * Engines.  HTTP is read and written by one of two engines: the
 * gateway's own event loops (loop.c and http1.c, --engine loop, the
 * default) or libmicrohttpd (this file, --engine mhd).  Both hand each
 * request to the same flow (request.c) through GwHttpOps; what follows
 * describes that flow, and libmicrohttpd's threads.
 *
 * How a request flows.  The engine parses HTTP and calls request.c:
 * first with the headers, where a body framed
 * ambiguously (GwFramingCheck(): Content-Length twice with different values,
 * with Transfer-Encoding, and the like) is refused with 400 and the
 * connection closed, and a Content-Length over 16 MB is refused at once
 * (413); then with pieces of the body, which
 * we collect up to that limit; then once more to answer.  GET and HEAD are
 * DynamoDB's health check ("healthy: ...", unauthenticated).  A POST is, in
 * order:
 *
 *	1. authenticated (sigv4.c): the Authorization header is parsed, the
 *	   date checked against 15 minutes of skew, the key's secret and role
 *	   fetched (keys.c's cache, else item_table.access_keys), the signature
 *	   recomputed and compared in constant time;
 *	2. routed: X-Amz-Target must be DynamoDB_20120810.<Action> or
 *	   DynamoDBStreams_20120810.<Action> (the database answers actions it
 *	   does not know with UnknownOperationException);
 *	3. run: a job (action, body, the key's role) goes to the pool route.c
 *	   chooses (the primary's, or a replica's for an eventually consistent
 *	   read: route.c's essay), in pool.c, which
 *	   runs the prepared SELECT ... FROM item_table.dynamodb_as($3, $1, $2)
 *	   with action, body and role as bound parameters on one of its
 *	   connections (pool.c: how the role is confined to it).  The body
 *	   is looked into only by route.c (a read's ConsistentRead), and
 *	   for a NUL byte (libpq's text parameters end at
 *	   NUL, and what follows must not be silently dropped) and for the
 *	   escapes \u0000 and \u0001, which are carried to the stored form
 *	   of strings (src/types/nul_escape.c: jsonb cannot hold U+0000; one
 *	   memchr per backslash, and a body without them is sent as it is):
 *	   the server's jsonb input decides whether it is JSON.
 *
 * Content-Type must be application/x-amz-json-1.0, what the SDKs and the
 * CLI send, or application/json, which DynamoDB also takes and answers in
 * kind; a body of another type gets DynamoDB's 404 and an XML
 * <UnknownOperationException/>.  The Streams actions (ListStreams,
 * DescribeStream, GetShardIterator, GetRecords) are served only under
 * DynamoDBStreams_20120810, and only they: another API's action under
 * either prefix is UnknownOperationException, as DynamoDB answers.
 *
 * Answers.  200 with the function's result, its strings carried back from
 * the stored form (\u0001\u0001 -> \u0000, \u0001\u0002 -> \u0001, in
 * place).  An error with a
 * SQLSTATE of item_table's class XD carries DynamoDB's error body in its
 * DETAIL: that body goes out as is (its strings decoded likewise), with
 * 400 (500 for InternalServerError, 503 for ServiceUnavailable: a write
 * sent to a hot standby, which SDKs retry).
 * Other errors are mapped: a request body the server could not read as
 * jsonb (an error converting parameter $2) -> SerializationException;
 * 42501 (insufficient privilege, and a role the login role may not
 * assume) -> AccessDeniedException; 40001 and 40P01 (serialization
 * failure, deadlock: the caller chose SERIALIZABLE, or two transactions
 * crossed) -> TransactionConflictException, DynamoDB's own name for "a
 * concurrent transaction got in the way, try again", which SDKs retry;
 * anything else, including PostgreSQL being unreachable -> 500
 * InternalServerError with a fixed message (the server's text goes to our
 * log, never to the client).  A job that waited for a connection longer
 * than --pool-wait -> 400 ThrottlingException, which is what DynamoDB answers
 * when it sheds load and which every SDK retries with backoff.  Every
 * answer carries the request's Content-Type (application/x-amz-json-1.0
 * unless it sent application/json), a unique x-amzn-RequestId and
 * x-amz-crc32 (zlib's CRC-32 of the exact body bytes, decimal; botocore
 * checks it).
 *
 * Threads (--engine mhd; loop.c's essay for the loops).  libmicrohttpd
 * runs --threads worker threads (default: the
 * number of cores), each polling its share of the connections and
 * running our handler, which waits for PostgreSQL only when the pool is
 * quiet: then it runs the job itself on an idle connection (a lone client
 * pays no thread hand-off); otherwise it queues the job and suspends the
 * HTTP connection, a pool
 * thread runs it with others in one pipelined batch and resumes the
 * connection, and libmicrohttpd calls the handler once more to send the
 * answer (pool.c's essay: why batches cost less CPU per request).
 * Connections are bounded (--max-connections: beyond it new ones are
 * accepted and closed at once; lowered at start if the limit of open
 * files, raised to its hard limit, cannot hold that many) and idle ones
 * time out (--timeout).  A request must arrive whole within
 * --request-timeout of its first byte (of the accept, for a connection's
 * first request), however slowly its bytes keep coming: reaper_main()
 * shuts down connections past that deadline, so slow clients cannot hold
 * the connections (slowloris), and the limit is high (libmicrohttpd polls
 * with epoll) so that the deadline, not the limit, is what an attacker
 * meets.
 * Accepted sockets get TCP_NODELAY, as keep-alive request/response pairs
 * otherwise wait for delayed ACKs.
 *
 * Where things are.  This file has libmicrohttpd's engine and the
 * program's start and end; request.c the request flow (handle_post);
 * respond.c builds every
 * answer (and counts it: metrics.c, GET /metrics); conn.c keeps the
 * connection limit and the request deadline.
 *
 * Shutdown.  SIGTERM or SIGINT: stop listening (MHD_quiesce_daemon), let
 * the requests in progress finish (up to 30 s), stop the daemon, close the
 * pool, exit 0 (after 30 s, exit 0 with the stragglers left to the
 * exit).
 *
 * --auth none runs every request as the login role and checks no
 * credentials, as DynamoDB Local does; for development and tests only.
 *
 *-------------------------------------------------------------------------
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <zlib.h>

#include "../src/types/nul_escape.h"
#include "gw_http.h"

#define MSG_BAD_SIGNATURE "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."

#define MAX_HEADERS 128




static void mhd_logger(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void
mhd_logger(void *cls, const char *fmt, va_list ap)
{
	char		line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (GwOpt.log)
		GwLog("http: %s", line);
}

/* ----------------------------------------------------------------
 * The libmicrohttpd engine's side of GwHttpOps
 * ----------------------------------------------------------------
 */

/* collect headers or query arguments */
typedef struct PairList
{
	GwPair	   *items;
	int			max;
	int			n;
	bool		overflow;
} PairList;

static enum MHD_Result
collect_pair(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	PairList   *l = cls;

	if (l->n >= l->max)
	{
		l->overflow = true;
		return MHD_NO;
	}
	l->items[l->n].name = key;
	l->items[l->n].value = value ? value : "";
	l->n++;
	return MHD_YES;
}

static const char *
mhd_header(GwRequest *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

static int
mhd_pairs(GwRequest *r, bool query, GwPair *out, int max)
{
	PairList	l = {out, max, 0, false};

	MHD_get_connection_values(r->conn, query ? MHD_GET_ARGUMENT_KIND : MHD_HEADER_KIND,
							  collect_pair, &l);
	return l.overflow ? -1 : l.n;
}

static enum MHD_Result
mhd_send(GwRequest *r, unsigned status, const char *content_type, const char *crc,
		 const char *body, size_t len, void (*release) (void *), void *cls)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (release)
		resp = MHD_create_response_from_buffer_with_free_callback_cls(len, (void *) body,
																	  release, cls);
	else
		resp = MHD_create_response_from_buffer(len, (void *) body, MHD_RESPMEM_MUST_COPY);
	if (resp == NULL)
	{
		if (release)
			release(cls);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", content_type);
	if (crc)
	{
		MHD_add_response_header(resp, "x-amzn-RequestId", r->id);
		MHD_add_response_header(resp, "x-amz-crc32", crc);
	}
	if (r->close)
		MHD_add_response_header(resp, "Connection", "close");
	ret = MHD_queue_response(r->conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static void
mhd_remote(GwRequest *r, char *out, size_t outlen)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	snprintf(out, outlen, "-");
	if (ci == NULL || ci->client_addr == NULL)
		return;
	if (ci->client_addr->sa_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *) ci->client_addr)->sin_addr, out, outlen);
	else if (ci->client_addr->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *) ci->client_addr)->sin6_addr, out, outlen);
}

static void
mhd_suspend(GwRequest *r)
{
	MHD_suspend_connection(r->conn);
}

static void
mhd_resume(GwRequest *r)
{
	MHD_resume_connection(r->conn);
}

static const GwHttpOps mhd_ops = {
	.header = mhd_header,
	.pairs = mhd_pairs,
	.send = mhd_send,
	.remote = mhd_remote,
	.suspend = mhd_suspend,
	.resume = mhd_resume,
	.direct = true,
};

static enum MHD_Result
framing_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	GwFramingAdd(cls, key, value);
	return MHD_YES;
}

static void
free_text(void *text)
{
	free(text);
}

/*
 * The --metrics-port daemon's handler: GET /metrics, and nothing else
 * (404); no body is read.
 */
static enum MHD_Result
handle_metrics_port(void *cls, struct MHD_Connection *c, const char *url,
					const char *method, const char *version, const char *upload_data,
					size_t *upload_data_size, void **con_cls)
{
	static const char not_found[] = "Not found: this port serves GET /metrics\n";
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (*con_cls == NULL)
	{
		*con_cls = (void *) 1;
		return MHD_YES;
	}
	if (*upload_data_size > 0)
	{
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, "GET") == 0 && strcmp(url, "/metrics") == 0)
	{
		size_t		len;
		char	   *text = MetricsRender(&len);

		if (text == NULL)
			return MHD_NO;
		resp = MHD_create_response_from_buffer_with_free_callback_cls(len, text, free_text, text);
		if (resp == NULL)
		{
			free(text);
			return MHD_NO;
		}
		MHD_add_response_header(resp, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
		ret = MHD_queue_response(c, MHD_HTTP_OK, resp);
		MHD_destroy_response(resp);
		return ret;
	}
	resp = MHD_create_response_from_buffer(sizeof(not_found) - 1, (void *) not_found,
										   MHD_RESPMEM_PERSISTENT);
	if (resp == NULL)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type", "text/plain");
	ret = MHD_queue_response(c, MHD_HTTP_NOT_FOUND, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result
handle_request(void *cls, struct MHD_Connection *c, const char *url,
			   const char *method, const char *version, const char *upload_data,
			   size_t *upload_data_size, void **con_cls)
{
	GwRequest  *r = *con_cls;

	if (r == NULL)
	{
		GwFraming	f = {0};
		enum MHD_Result ret;

		ConnRequestBegun(c);
		r = calloc(1, sizeof(GwRequest));
		if (r == NULL)
			return MHD_NO;
		*con_cls = r;
		GwRequestBegin(r, &mhd_ops, c, method);
		MHD_get_connection_values(c, MHD_HEADER_KIND, framing_header, &f);
		if (GwRequestHead(r, &f, strcmp(version, MHD_HTTP_VERSION_1_0) == 0, &ret))
			return ret;
		return MHD_YES;
	}

	if (*upload_data_size > 0)
	{
		size_t		n = *upload_data_size;

		*upload_data_size = 0;
		return GwRequestBody(r, upload_data, n) ? MHD_YES : MHD_NO;
	}

	ConnRequestArrived(c);
	if (r->answered)
		return MHD_YES;
	return GwHandleRequest(r, method, url);
}

static void
request_completed(void *cls, struct MHD_Connection *c, void **con_cls,
				  enum MHD_RequestTerminationCode toe)
{
	GwRequest  *r = *con_cls;

	ConnRequestDone(c);
	if (r == NULL)
		return;
	GwRequestEnd(r);
	free(r->body);
	free(r);
	*con_cls = NULL;
}

static char *
read_file(const char *path)
{
	FILE	   *f = fopen(path, "rb");
	char	   *buf = NULL;
	size_t		len = 0,
				n;
	char		chunk[4096];

	if (f == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
	{
		char	   *b = realloc(buf, len + n + 1);

		if (b == NULL)
		{
			free(buf);
			fclose(f);
			return NULL;
		}
		buf = b;
		memcpy(buf + len, chunk, n);
		len += n;
		buf[len] = '\0';
	}
	fclose(f);
	return buf;
}

/* the program's body: item_table_gateway's main() (gw_main.c), or
 * item_table_local's after it has started PostgreSQL (local.c) */
int
GwMain(int argc, char **argv)
{
	struct addrinfo hints = {0},
			   *ai;
	struct MHD_Daemon *d,
			   *md = NULL;
	unsigned int flags;
	char	   *cert = NULL,
			   *key = NULL;
	const union MHD_DaemonInfo *info;
	sigset_t	sigs;
	int			rc,
				sig,
				port,
				waited;
	long		ncpu;

	if ((rc = GwReadOptions(argc, argv)) != 0)
		return rc;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (GwOpt.pool == 0)
		GwOpt.pool = 2 * (int) (ncpu > 0 ? ncpu : 1);
	/*
	 * The event loops: half the cores, as a loop does a request's HTTP work
	 * in a few microseconds and PostgreSQL, on the same machine, wants the
	 * rest (bench/README.md: on 2 cores one loop served GetItem faster and
	 * at half the CPU per request than two); libmicrohttpd's threads: one
	 * per core.
	 */
	if (GwOpt.threads == 0 && GwOpt.engine_loop)
		GwOpt.threads = ncpu > 1 ? (int) (ncpu / 2) : 1;
	else if (GwOpt.threads == 0)
		GwOpt.threads = (int) (ncpu > 0 ? ncpu : 1);
	if (GwOpt.pool_per_role == 0)
		GwOpt.pool_per_role = (GwOpt.pool + 1) / 2;

	/*
	 * Each HTTP connection is a file descriptor: take the hard limit, and
	 * if --max-connections would still run out, lower it (a refused
	 * connection is clean; an accept() failing with EMFILE is not).
	 */
	{
		struct rlimit rl;
		long		reserve = 64 + 20L * GwOpt.threads + GwOpt.pool;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		{
			if (rl.rlim_cur < rl.rlim_max)
			{
				rl.rlim_cur = rl.rlim_max;
				(void) setrlimit(RLIMIT_NOFILE, &rl);
				(void) getrlimit(RLIMIT_NOFILE, &rl);
			}
			if (rl.rlim_cur != RLIM_INFINITY &&
				(rlim_t) (GwOpt.max_connections + reserve) > rl.rlim_cur)
			{
				if ((long) rl.rlim_cur <= reserve)
				{
					fprintf(stderr, "item_table_gateway: the limit of open files (%ld) is too low\n",
							(long) rl.rlim_cur);
					return 1;
				}
				GwLog("item_table_gateway: --max-connections lowered from %d to %ld: the limit of open files is %ld",
					  GwOpt.max_connections, (long) rl.rlim_cur - reserve, (long) rl.rlim_cur);
				GwOpt.max_connections = (int) ((long) rl.rlim_cur - reserve);
			}
		}
	}

	if (!GwRequestIdInit())
	{
		fprintf(stderr, "item_table_gateway: no random bytes for request ids\n");
		return 1;
	}

	/* the workers inherit a mask without SIGTERM/SIGINT; main waits for them */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	if (!GwOpt.engine_loop)
	{
		pthread_t	reaper;

		if (pthread_create(&reaper, NULL, ConnReaperMain, NULL) != 0)
		{
			fprintf(stderr, "item_table_gateway: cannot start a thread\n");
			return 1;
		}
		pthread_detach(reaper);
	}

	{
		GwPoolOptions po = {
			.size = GwOpt.pool,
			.wait_ms = GwOpt.pool_wait_ms,
			.key_ttl_s = GwOpt.key_ttl,
			.statement_timeout_ms = GwOpt.statement_timeout_ms,
			.lock_timeout_ms = GwOpt.lock_timeout_ms,
			.role_cap = GwOpt.pool_per_role,
			.no_slots = GwOpt.engine_loop,
		};

		if (!PoolInit(GwOpt.conninfo, &po, !GwOpt.auth_none && !GwOpt.auth_any))
		{
			fprintf(stderr, "item_table_gateway: cannot use the database (is item_table installed, and may the login role read item_table.access_keys?)\n");
			return 1;
		}
		if (!RouteInit())
		{
			fprintf(stderr, "item_table_gateway: cannot set up the replicas' pools\n");
			return 1;
		}
		/* the event loops own the sessions */
		if (GwOpt.engine_loop && !PipeInit(GwOpt.threads))
		{
			fprintf(stderr, "item_table_gateway: out of memory\n");
			return 1;
		}
	}

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	if (getaddrinfo(GwOpt.listen, "0", &hints, &ai) != 0 || ai == NULL)
	{
		fprintf(stderr, "item_table_gateway: cannot resolve listen address \"%s\"\n", GwOpt.listen);
		return 1;
	}
	if (ai->ai_family == AF_INET)
		((struct sockaddr_in *) ai->ai_addr)->sin_port = htons((uint16_t) GwOpt.port);
	else
		((struct sockaddr_in6 *) ai->ai_addr)->sin6_port = htons((uint16_t) GwOpt.port);

	if (GwOpt.engine_loop)
	{
		/* loop.c's event loops: HTTP without libmicrohttpd */
		d = NULL;
		port = LoopStart(ai->ai_addr, ai->ai_addrlen);
		if (port == -2)
			return 1;
		if (port < 0)
		{
			fprintf(stderr, "item_table_gateway: cannot listen on %s port %d: %s\n",
					GwOpt.listen, GwOpt.port, strerror(errno));
			return 1;
		}
		goto listening;
	}
	flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_ALLOW_SUSPEND_RESUME |
		MHD_USE_ERROR_LOG;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (GwOpt.tls_cert)
	{
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
		{
			fprintf(stderr, "item_table_gateway: this libmicrohttpd has no TLS support\n");
			return 1;
		}
		cert = read_file(GwOpt.tls_cert);
		key = read_file(GwOpt.tls_key);
		if (cert == NULL || key == NULL)
		{
			fprintf(stderr, "item_table_gateway: cannot read %s\n", cert ? GwOpt.tls_key : GwOpt.tls_cert);
			return 1;
		}
		flags |= MHD_USE_TLS;
	}

	d = MHD_start_daemon(flags, 0, ConnAcceptPolicy, NULL, handle_request, NULL,
						 MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL,
						 MHD_OPTION_SOCK_ADDR, ai->ai_addr,
						 MHD_OPTION_THREAD_POOL_SIZE, (unsigned int) GwOpt.threads,
						 MHD_OPTION_CONNECTION_LIMIT,
						 (unsigned int) (GwOpt.max_connections + 16 * GwOpt.threads),
						 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) GwOpt.timeout,
						 MHD_OPTION_NOTIFY_COMPLETED, request_completed, NULL,
						 MHD_OPTION_NOTIFY_CONNECTION, ConnNotify, NULL,
						 MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024U,
						 cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, cert,
						 MHD_OPTION_HTTPS_MEM_KEY, key,
						 MHD_OPTION_END);
	if (d == NULL)
	{
		fprintf(stderr, "item_table_gateway: cannot listen on %s port %d: %s\n",
				GwOpt.listen, GwOpt.port, strerror(errno));
		return 1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	port = info ? info->port : GwOpt.port;
listening:
	if (GwOpt.metrics_port != 0)
	{
		/* GET /metrics on a port of its own, one thread, plain HTTP */
		if (ai->ai_family == AF_INET)
			((struct sockaddr_in *) ai->ai_addr)->sin_port = htons((uint16_t) GwOpt.metrics_port);
		else
			((struct sockaddr_in6 *) ai->ai_addr)->sin6_port = htons((uint16_t) GwOpt.metrics_port);
		md = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG |
							  (ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0),
							  0, NULL, NULL, handle_metrics_port, NULL,
							  MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL,
							  MHD_OPTION_SOCK_ADDR, ai->ai_addr,
							  MHD_OPTION_CONNECTION_LIMIT, 64U,
							  MHD_OPTION_CONNECTION_TIMEOUT, 10U,
							  MHD_OPTION_END);
		if (md == NULL)
		{
			fprintf(stderr, "item_table_gateway: cannot listen on %s port %d (--metrics-port): %s\n",
					GwOpt.listen, GwOpt.metrics_port, strerror(errno));
			return 1;
		}
	}
	if (GwOnReady)
		GwOnReady(port);
	else
		printf("item_table_gateway: listening on %s://%s%s%s:%d\n",
			   GwOpt.tls_cert ? "https" : "http",
			   ai->ai_family == AF_INET6 ? "[" : "", GwOpt.listen,
			   ai->ai_family == AF_INET6 ? "]" : "", port);
	if (md && !GwOnReady)
		printf("item_table_gateway: metrics on http://%s%s%s:%d/metrics\n",
			   ai->ai_family == AF_INET6 ? "[" : "", GwOpt.listen,
			   ai->ai_family == AF_INET6 ? "]" : "", GwOpt.metrics_port);
	fflush(stdout);
	freeaddrinfo(ai);

	if (sigwait(&sigs, &sig) != 0)
		sig = SIGTERM;
	GwLog("item_table_gateway: %s received, finishing the requests in progress",
		  sig == SIGINT ? "SIGINT" : "SIGTERM");
	/* stop listening: the socket is ours to close after quiescing */
	if (d == NULL)
		LoopQuiesce();
	else
	{
		MHD_socket	lfd = MHD_quiesce_daemon(d);

		if (lfd != MHD_INVALID_SOCKET)
			close(lfd);
	}
	for (waited = 0; waited < 3000 && GwInflight() > 0; waited++)
		usleep(10000);
	if (GwInflight() > 0)
	{
		/* a request still waits on PostgreSQL: leave it to the exit */
		GwLog("item_table_gateway: %d requests still in progress after 30 s, exiting",
			  GwInflight());
		return 0;
	}
	if (d == NULL)
		LoopStop();
	else
		MHD_stop_daemon(d);
	if (md)
		MHD_stop_daemon(md);
	PoolClose();
	free(cert);
	free(key);
	return 0;
}
