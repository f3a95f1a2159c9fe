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
 * How a request flows.  libmicrohttpd parses HTTP (no parser of ours) and
 * calls handle_request(): first with the headers, where a body framed
 * ambiguously (check_framing(): Content-Length twice with different values,
 * with Transfer-Encoding, and the like) is refused with 400 and the
 * connection closed, and a Content-Length over 16 MB is refused at once
 * (413); then with pieces of the body, which
 * we collect up to that limit; then once more to answer.  GET and HEAD are
 * DynamoDB's health check ("healthy: ...", unauthenticated).  A POST is, in
 * order:
 *
 *	1. authenticated (sigv4.c): the Authorization header is parsed, the
 *	   date checked against 15 minutes of skew, the key's secret and role
 *	   fetched (pool.c's cache, else item_table.access_keys), the signature
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
 * Threads.  libmicrohttpd runs --threads worker threads (default: the
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
 * Where things are.  This file has the request flow (handle_request,
 * handle_post) and the program's start and end; respond.c builds every
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




/* the DynamoDB Streams API's actions, served under their own target prefix */
static const char *const stream_actions[] = {
	"DescribeStream", "GetRecords", "GetShardIterator", "ListStreams"
};

static int	inflight;			/* requests between first call and completion */

static void mhd_logger(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void
mhd_logger(void *cls, const char *fmt, va_list ap)
{
	char		line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (GwOpt.log)
		GwLog("http: %s", line);
}

/* collect headers and query arguments for SigV4 */
typedef struct PairList
{
	GwPair		items[MAX_HEADERS];
	int			n;
	bool		overflow;
} PairList;

static enum MHD_Result
collect_pair(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	PairList   *l = cls;

	if (l->n >= MAX_HEADERS)
	{
		l->overflow = true;
		return MHD_NO;
	}
	l->items[l->n].name = key;
	l->items[l->n].value = value ? value : "";
	l->n++;
	return MHD_YES;
}

/*
 * The pool answered r's job: let libmicrohttpd call handle_request again;
 * or, a replica could not answer it, run it on the primary.
 */
static void
job_done(GwJob *job)
{
	GwRequest  *r = (GwRequest *) job;

	if (RouteRetryOnPrimary(job))
	{
		MetricsPoolJob(job->pool, false);
		PoolSubmit(job);
		return;
	}
	MHD_resume_connection(r->conn);
}

static void
direct_done(GwJob *job)
{
}

/* the POST: authenticate, route, run */
static enum MHD_Result
handle_post(struct MHD_Connection *c, GwRequest *r, const char *url, const char *method)
{
	PairList	headers = {0},
				query = {0};
	const char *target;
	const char *action;
	const char *ctype;
	char	   *role = r->role;
	bool		streams = false,
				other_api = false;
	size_t		i;

	if (r->too_big)
		return GwRespondError(c, r, 413, NS_VALIDATE,
							  "ValidationException", "Request size exceeds 16777216 bytes");

	/*
	 * The target first, for the log; errors about it come after auth.  A
	 * Streams action only under the Streams prefix, and no other there.
	 */
	target = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Amz-Target");
	action = NULL;
	if (target)
	{
		if (strncmp(target, "DynamoDB_20120810.", 18) == 0)
			action = target + 18;
		else if (strncmp(target, "DynamoDBStreams_20120810.", 25) == 0)
		{
			action = target + 25;
			streams = true;
		}
		if (action)
		{
			for (i = 0; action[i]; i++)
				if (!((action[i] >= 'A' && action[i] <= 'Z') || (action[i] >= 'a' && action[i] <= 'z')))
					break;
			if (action[i] != '\0' || i == 0 || i >= sizeof(r->action))
				action = NULL;
			else
			{
				bool		stream_action = false;

				memcpy(r->action, action, i + 1);
				for (i = 0; i < sizeof(stream_actions) / sizeof(stream_actions[0]); i++)
					if (strcmp(action, stream_actions[i]) == 0)
						stream_action = true;
				other_api = stream_action != streams;
			}
		}
	}

	/*
	 * Content-Type: the SDKs send application/x-amz-json-1.0; DynamoDB also
	 * takes application/json (and answers in kind); a body of any other
	 * type gets DynamoDB's 404 with an XML UnknownOperationException.
	 */
	ctype = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	if (ctype)
	{
		size_t		n;

		while (*ctype == ' ' || *ctype == '\t')
			ctype++;
		n = strcspn(ctype, ";");
		while (n > 0 && (ctype[n - 1] == ' ' || ctype[n - 1] == '\t'))
			n--;
		if (n == 16 && strncasecmp(ctype, "application/json", 16) == 0)
			r->content_type = "application/json";
		else if (!(n == 26 && strncasecmp(ctype, CT_AMZ_JSON, 26) == 0))
			ctype = NULL;
	}
	if (ctype == NULL && r->len > 0)
	{
		static const char unknown[] = "<UnknownOperationException/>\n";

		return GwRespond(c, r, MHD_HTTP_NOT_FOUND, unknown, sizeof(unknown) - 1, "application/xml");
	}

	if (!GwOpt.auth_none)
	{
		SigV4Request sreq;
		SigV4Auth	auth;
		SigV4Status st;
		char		msg[512];
		char		secret[512];

		MHD_get_connection_values(c, MHD_HEADER_KIND, collect_pair, &headers);
		MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_pair, &query);
		if (headers.overflow || query.overflow)
			return GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
								  "IncompleteSignatureException", "Too many headers.");
		sreq.method = method;
		sreq.path = url;
		sreq.headers = headers.items;
		sreq.nheaders = headers.n;
		sreq.query = query.items;
		sreq.nquery = query.n;
		sreq.body = r->body;
		sreq.body_len = r->len;

		st = SigV4Parse(&sreq, &auth, msg, sizeof(msg));
		if (st == SIGV4_OK && !GwOpt.auth_any)
			st = SigV4CheckTime(&auth, time(NULL), msg, sizeof(msg));
		switch (st)
		{
			case SIGV4_OK:
				break;
			case SIGV4_MISSING:
				MetricsAuthFailure(AUTH_MISSING);
				return GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
									  "MissingAuthenticationTokenException", msg);
			case SIGV4_INCOMPLETE:
				MetricsAuthFailure(AUTH_INCOMPLETE);
				return GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
									  "IncompleteSignatureException", msg);
			case SIGV4_EXPIRED:
			case SIGV4_MISMATCH:
				MetricsAuthFailure(st == SIGV4_EXPIRED ? AUTH_EXPIRED : AUTH_SIGNATURE);
				return GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
									  "InvalidSignatureException", msg);
		}
		/* --auth any: a well-formed signature is enough, as DynamoDB Local's */
		if (GwOpt.auth_any)
			snprintf(role, sizeof(r->role), "%s", GwOpt.any_role ? GwOpt.any_role : "");
		else
			switch (KeyLookup(auth.key_id, secret, sizeof(secret), role, sizeof(r->role)))
			{
				case KEY_FOUND:
					break;
				case KEY_UNKNOWN:
					MetricsAuthFailure(AUTH_UNKNOWN_KEY);
					return GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
										  "UnrecognizedClientException",
										  "The security token included in the request is invalid.");
				case KEY_ERROR:
					MetricsAuthFailure(AUTH_KEY_ERROR);
					return GwRespondInternal(c, r);
			}
		if (!GwOpt.auth_any && !SigV4Verify(&sreq, &auth, secret))
		{
			MetricsAuthFailure(AUTH_SIGNATURE);
			return GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
								  "InvalidSignatureException", MSG_BAD_SIGNATURE);
		}
		if (!GwOpt.auth_any && role[0] == '\0')
		{
			MetricsAuthFailure(AUTH_NO_ROLE);
			return GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
								  "AccessDeniedException",
								  "The role of this access key no longer exists.");
		}
	}

	if (target == NULL)
		return GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							  "UnknownOperationException", "The X-Amz-Target header is required");
	if (action == NULL)
		return GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							  "UnknownOperationException", "Unknown operation");
	if (other_api)
	{
		char		msg[128];

		snprintf(msg, sizeof(msg), "Unknown operation: %s", r->action);
		return GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							  "UnknownOperationException", msg);
	}
	if (r->body == NULL || memchr(r->body, '\0', r->len) != NULL)
		return GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							  "SerializationException", "The request body is not valid JSON.");
	else
	{
		/* U+0000 and U+0001 in strings to their stored form */
		size_t		n = NulJsonInLength(r->body, r->len);

		if (n != r->len)
		{
			char	   *b = malloc(n + 1);

			if (b == NULL)
				return GwRespondInternal(c, r);
			NulJsonIn(r->body, r->len, b);
			b[n] = '\0';
			free(r->body);
			r->body = b;
			r->len = n;
			r->cap = n + 1;
		}
	}

	/*
	 * Run it, on the pool route.c chooses: at once when the pool is quiet,
	 * else queued, the HTTP connection suspended until the pool answers.
	 */
	r->job.pool = RouteChoose(r->action, r->body, r->len);
	r->job.action = r->action;
	r->job.body = r->body;
	r->job.role = GwOpt.auth_none || (GwOpt.auth_any && GwOpt.any_role == NULL) ? NULL : r->role;
	r->job.done = direct_done;
	r->conn = c;
	MetricsPoolJob(r->job.pool, false);
	if (PoolRunDirect(&r->job))
	{
		if (!RouteRetryOnPrimary(&r->job))
			return GwRespondJob(c, r);
		MetricsPoolJob(r->job.pool, false);
		PQclear(r->job.res);
		r->job.res = NULL;
	}
	r->job.done = job_done;
	r->submitted = true;
	MHD_suspend_connection(c);
	PoolSubmit(&r->job);
	return MHD_YES;
}

/*
 * How the body is framed (RFC 9112, section 6), checked once the headers
 * are in and before any of the body is read.  libmicrohttpd takes the
 * first Content-Length (and refuses one that is not a number), or reads
 * chunks in its place when the first Transfer-Encoding is "chunked"; a
 * proxy in front could read the same bytes another way, and the request
 * after them would then be another one for it than for us.  So a request
 * whose framing is ambiguous is answered 400 and the connection closed,
 * before anything after its headers is read:
 *
 *	- Content-Length more than once with different values (the same value
 *	  repeated is one value, as RFC 9110, section 8.6, allows);
 *	- Transfer-Encoding together with Content-Length, or in HTTP/1.0;
 *	- transfer codings not ending in chunked (the length cannot be known),
 *	  or chunked more than once, or chunked spelled other than as the one
 *	  value of one field (libmicrohttpd would not read it as chunks);
 *
 * and another coding before chunked gets 501 Not Implemented (section
 * 6.1).  The answer is text, as it is HTTP's error, not DynamoDB's.
 */
typedef struct Framing
{
	int			lengths;		/* Content-Length fields */
	const char *length;			/* the first one */
	bool		lengths_differ;
	int			encodings;		/* Transfer-Encoding fields */
	int			chunked;		/* "chunked" codings in them */
	int			others;			/* other codings */
	bool		chunked_last;
} Framing;

static enum MHD_Result
framing_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	Framing    *f = cls;
	const char *p = value ? value : "";

	if (strcasecmp(key, "Content-Length") == 0)
	{
		if (f->lengths++ == 0)
			f->length = p;
		else if (strcmp(f->length, p) != 0)
			f->lengths_differ = true;
	}
	else if (strcasecmp(key, "Transfer-Encoding") == 0)
	{
		/* a comma-separated list of codings; empty elements do not count */
		f->encodings++;
		while (*p)
		{
			size_t		n;

			while (*p == ' ' || *p == '\t' || *p == ',')
				p++;
			if (*p == '\0')
				break;
			n = strcspn(p, ",");
			while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
				n--;
			f->chunked_last = n == 7 && strncasecmp(p, "chunked", 7) == 0;
			if (f->chunked_last)
				f->chunked++;
			else
				f->others++;
			p += strcspn(p, ",");
		}
	}
	return MHD_YES;
}

/* 0 if the body's framing is clear, else the status to answer, and why */
static unsigned
check_framing(struct MHD_Connection *c, const char *version, const char **why)
{
	Framing		f = {0};
	const char *te;

	MHD_get_connection_values(c, MHD_HEADER_KIND, framing_header, &f);
	if (f.lengths_differ)
	{
		*why = "Content-Length is sent more than once, with different values.";
		return MHD_HTTP_BAD_REQUEST;
	}
	if (f.encodings == 0)
		return 0;
	if (f.lengths > 0)
	{
		*why = "Content-Length and Transfer-Encoding cannot be sent together.";
		return MHD_HTTP_BAD_REQUEST;
	}
	if (strcmp(version, MHD_HTTP_VERSION_1_0) == 0)
	{
		*why = "Transfer-Encoding is not read in an HTTP/1.0 request.";
		return MHD_HTTP_BAD_REQUEST;
	}
	if (!f.chunked_last || f.chunked != 1)
	{
		*why = "The final transfer coding must be chunked, applied once.";
		return MHD_HTTP_BAD_REQUEST;
	}
	if (f.others > 0)
	{
		*why = "Only the chunked transfer coding is implemented.";
		return MHD_HTTP_NOT_IMPLEMENTED;
	}
	te = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding");
	if (f.encodings != 1 || te == NULL || strcasecmp(te, "chunked") != 0)
	{
		*why = "Transfer-Encoding must be one field with the value chunked.";
		return MHD_HTTP_BAD_REQUEST;
	}
	return 0;
}

/* GET /metrics (metrics.c), unauthenticated like the health check */
static enum MHD_Result
respond_metrics(struct MHD_Connection *c, GwRequest *r)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	size_t		len;
	char	   *text = MetricsRender(&len);

	if (text == NULL)
		return MHD_NO;
	resp = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL)
	{
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
	ret = MHD_queue_response(c, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	if (r)
		r->answered = true;
	return ret;
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
		return respond_metrics(c, NULL);
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
		const char *cl;
		const char *why;
		unsigned	status;

		ConnRequestBegun(c);
		r = calloc(1, sizeof(GwRequest));
		if (r == NULL)
			return MHD_NO;
		clock_gettime(CLOCK_MONOTONIC, &r->start);
		GwMakeRequestId(r->id);
		r->content_type = CT_AMZ_JSON;
		/* health checks and scrapes are not counted in the metrics */
		r->counted = strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0;
		*con_cls = r;
		__atomic_add_fetch(&inflight, 1, __ATOMIC_SEQ_CST);

		status = check_framing(c, version, &why);
		if (status != 0)
		{
			r->close = true;
			return GwRespond(c, r, status, why, strlen(why), "text/plain");
		}

		/* refuse an announced oversize body before reading it */
		cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
		if (cl && strtoull(cl, NULL, 10) > GW_MAX_BODY)
		{
			r->too_big = true;
			return GwRespondError(c, r, 413, NS_VALIDATE,
								  "ValidationException", "Request size exceeds 16777216 bytes");
		}
		return MHD_YES;
	}

	if (*upload_data_size > 0)
	{
		size_t		n = *upload_data_size;

		*upload_data_size = 0;
		if (r->too_big || r->answered)
			return MHD_YES;
		if (r->len + n > GW_MAX_BODY)
		{
			r->too_big = true;
			free(r->body);
			r->body = NULL;
			r->len = r->cap = 0;
			return MHD_YES;
		}
		if (r->len + n + 1 > r->cap)
		{
			size_t		cap = r->cap ? r->cap : 4096;
			char	   *b;

			while (cap < r->len + n + 1)
				cap *= 2;
			b = realloc(r->body, cap);
			if (b == NULL)
				return MHD_NO;
			r->body = b;
			r->cap = cap;
		}
		memcpy(r->body + r->len, upload_data, n);
		r->len += n;
		r->body[r->len] = '\0';
		return MHD_YES;
	}

	ConnRequestArrived(c);
	if (r->answered)
		return MHD_YES;
	if (r->submitted)
		return GwRespondJob(c, r);
	if (strcmp(method, "GET") == 0 && GwOpt.metrics_port == 0 &&
		strcmp(url, "/metrics") == 0)
		return respond_metrics(c, r);
	if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
	{
		static const char healthy[] = "healthy: item_table_gateway";

		return GwRespond(c, r, MHD_HTTP_OK, healthy, sizeof(healthy) - 1, "text/plain");
	}
	if (strcmp(method, "POST") != 0)
		return GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							  "UnknownOperationException", "Only POST requests are served");
	if (r->body == NULL && !r->too_big)
	{
		r->body = strdup("");
		if (r->body == NULL)
			return MHD_NO;
	}
	return handle_post(c, r, url, method);
}

static void
request_completed(void *cls, struct MHD_Connection *c, void **con_cls,
				  enum MHD_RequestTerminationCode toe)
{
	GwRequest  *r = *con_cls;

	ConnRequestDone(c);
	if (r == NULL)
		return;
	PQclear(r->job.res);
	free(r->body);
	free(r);
	*con_cls = NULL;
	__atomic_sub_fetch(&inflight, 1, __ATOMIC_SEQ_CST);
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
	if (GwOpt.threads == 0)
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
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	port = info ? info->port : GwOpt.port;
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
	{
		MHD_socket	lfd = MHD_quiesce_daemon(d);

		if (lfd != MHD_INVALID_SOCKET)
			close(lfd);
	}
	for (waited = 0; waited < 3000 && __atomic_load_n(&inflight, __ATOMIC_SEQ_CST) > 0; waited++)
		usleep(10000);
	if (__atomic_load_n(&inflight, __ATOMIC_SEQ_CST) > 0)
	{
		/* a request still waits on PostgreSQL: leave it to the exit */
		GwLog("item_table_gateway: %d requests still in progress after 30 s, exiting",
			  __atomic_load_n(&inflight, __ATOMIC_SEQ_CST));
		return 0;
	}
	MHD_stop_daemon(d);
	if (md)
		MHD_stop_daemon(md);
	PoolClose();
	free(cert);
	free(key);
	return 0;
}
