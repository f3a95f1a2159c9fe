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
 *	3. run: a job (action, body, the key's role) goes to pool.c, which
 *	   runs the prepared SELECT ... FROM item_table.dynamodb_as($3, $1, $2)
 *	   with action, body and role as bound parameters on one of its
 *	   connections (pool.c: how the role is confined to it).  The body
 *	   is looked into only for a NUL byte (libpq's text parameters end at
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
 * 400 (500 for InternalServerError).
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
#include "gateway.h"

#define NS_SERVICE "com.amazon.coral.service"
#define NS_VALIDATE "com.amazon.coral.validate"
#define NS_DYNAMODB "com.amazonaws.dynamodb.v20120810"

#define MSG_INTERNAL "The server encountered an internal error trying to fulfill the request."
#define MSG_BAD_SIGNATURE "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."

#define MAX_HEADERS 128

/* what a Host header DescribeEndpoints echoes may hold: a name or address, a port */
#define HOST_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:[]%"


/* one HTTP request in progress */
typedef struct GwRequest
{
	GwJob		job;			/* first: job_done() finds the request from it */
	struct MHD_Connection *conn;
	struct timespec start;
	char		id[40];
	char		action[64];		/* for the log */
	char		role[GW_MAX_ROLE + 1];
	const char *content_type;	/* of our answers: as the request's */
	char	   *body;
	size_t		len;
	size_t		cap;
	bool		too_big;
	bool		submitted;		/* queued for the pool, connection suspended */
	bool		answered;
	bool		close;			/* the answer closes the connection */
} GwRequest;

/*
 * One HTTP connection, for the request deadline: from the first byte of a
 * request (the accept, for the first one) until libmicrohttpd hands us its
 * last byte, at most --request-timeout seconds may pass, or reaper_main()
 * shuts the socket down.  Kept in a list under conns_lock, which also
 * keeps the socket open while the reaper uses it (a connection leaves the
 * list in connection_notify(), before libmicrohttpd closes its socket).
 * word, since_ms and bytes_in are read and written atomically.  word holds
 * the state in its low two bits and above them a count of the requests
 * answered, so that the reaper, changing the state with a compare and
 * swap, cannot act on a request that ended while it looked.
 */
typedef enum GwConnState
{
	CONN_WAITING,				/* a request is arriving, since since_ms */
	CONN_BUSY,					/* the request has arrived: being answered */
	CONN_IDLE,					/* between requests (keep-alive) */
	CONN_CUT					/* past the deadline, shut down */
} GwConnState;

typedef struct GwConn
{
	struct GwConn *prev;
	struct GwConn *next;
	int			fd;
	uint64_t	word;			/* requests answered << 2 | GwConnState */
	int64_t		since_ms;		/* CLOCK_MONOTONIC, ms */
	uint64_t	bytes_in;		/* TCP bytes received when it went idle */
} GwConn;

#define CONN_STATE(w)		((int) ((w) & 3))
#define CONN_WITH(w, state)	(((w) & ~(uint64_t) 3) | (uint64_t) (state))
#define CONN_NEXT(w, state)	((((w) | 3) + 1) | (uint64_t) (state))

static pthread_mutex_t conns_lock = PTHREAD_MUTEX_INITIALIZER;
static GwConn *conns;

#define CT_AMZ_JSON "application/x-amz-json-1.0"

/* the DynamoDB Streams API's actions, served under their own target prefix */
static const char *const stream_actions[] = {
	"DescribeStream", "GetRecords", "GetShardIterator", "ListStreams"
};

static int	inflight;			/* requests between first call and completion */
static int	open_connections;
static uint64_t request_counter;
static unsigned char id_salt[16];

static void mhd_logger(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void
mhd_logger(void *cls, const char *fmt, va_list ap)
{
	char		line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (GwOpt.log)
		GwLog("http: %s", line);
}

/*
 * A request id: SHA-256 of a per-process random salt and a counter, the
 * first 160 bits in base32 (32 characters).  Distinct counters make
 * distinct inputs, so ids repeat only if SHA-256 collides; the hash makes
 * them look like DynamoDB's opaque ids rather than a sequence.
 */
static void
make_request_id(char *out)
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	unsigned char raw[sizeof(id_salt) + 8];
	unsigned char md[SHA256_DIGEST_LENGTH];
	uint64_t	n = __atomic_add_fetch(&request_counter, 1, __ATOMIC_RELAXED);
	int			i,
				bit = 0;

	memcpy(raw, id_salt, sizeof(id_salt));
	for (i = 0; i < 8; i++)
		raw[sizeof(id_salt) + i] = (unsigned char) (n >> (56 - 8 * i));
	SHA256(raw, sizeof(raw), md);
	for (i = 0; i < 32; i++, bit += 5)
	{
		int			byte = bit / 8,
					off = bit % 8;
		unsigned	v = (md[byte] << 8) | md[byte + 1];

		out[i] = alphabet[(v >> (11 - off)) & 31];
	}
	out[32] = '\0';
}

/* append s to out as the inside of a JSON string */
static void
json_escape(char *out, size_t outlen, const char *s)
{
	size_t		o = strlen(out);

	for (; *s && o + 7 < outlen; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (c == '"' || c == '\\')
		{
			out[o++] = '\\';
			out[o++] = (char) c;
		}
		else if (c < 0x20)
			o += snprintf(out + o, outlen - o, "\\u%04x", c);
		else
			out[o++] = (char) c;
	}
	out[o] = '\0';
}

static long
elapsed_us(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000000L + (now.tv_nsec - start->tv_nsec) / 1000;
}

static void
remote_address(struct MHD_Connection *c, char *out, size_t outlen)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	snprintf(out, outlen, "-");
	if (ci == NULL || ci->client_addr == NULL)
		return;
	if (ci->client_addr->sa_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *) ci->client_addr)->sin_addr, out, outlen);
	else if (ci->client_addr->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *) ci->client_addr)->sin6_addr, out, outlen);
}

/*
 * Queue an answer with DynamoDB's headers.  body is copied.
 */
static void
clear_result(void *res)
{
	PQclear(res);
}

/*
 * Queue an answer with DynamoDB's headers.  body is copied, unless res is
 * given: then body lies in that result, which the response keeps and
 * clears once sent.
 */
static enum MHD_Result
respond_owned(struct MHD_Connection *c, GwRequest *r, unsigned status,
			  const char *body, size_t len, const char *content_type,
			  PGresult *res)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char		crc[16];

	if (res)
		resp = MHD_create_response_from_buffer_with_free_callback_cls(len, (void *) body,
																	  clear_result, res);
	else
		resp = MHD_create_response_from_buffer(len, (void *) body, MHD_RESPMEM_MUST_COPY);
	if (resp == NULL)
	{
		PQclear(res);
		return MHD_NO;
	}
	snprintf(crc, sizeof(crc), "%lu", (unsigned long) crc32(0L, (const Bytef *) body, (uInt) len));
	MHD_add_response_header(resp, "Content-Type", content_type);
	MHD_add_response_header(resp, "x-amzn-RequestId", r->id);
	MHD_add_response_header(resp, "x-amz-crc32", crc);
	if (r->close)
		MHD_add_response_header(resp, "Connection", "close");
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	r->answered = true;

	if (GwOpt.log)
	{
		char		remote[INET6_ADDRSTRLEN + 1];

		remote_address(c, remote, sizeof(remote));
		GwLog("%s %s %u %ldus %s", remote, r->action[0] ? r->action : "-",
			  status, elapsed_us(&r->start), r->id);
	}
	return ret;
}

static enum MHD_Result
respond(struct MHD_Connection *c, GwRequest *r, unsigned status,
		const char *body, size_t len, const char *content_type)
{
	return respond_owned(c, r, status, body, len, content_type, NULL);
}

/* an error body of our own: {"__type": "ns#name", "message": "..."} */
static enum MHD_Result
respond_error(struct MHD_Connection *c, GwRequest *r, unsigned status,
			  const char *ns, const char *name, const char *message)
{
	char		body[1024];
	bool		capital = strcmp(name, "SerializationException") == 0;

	snprintf(body, sizeof(body), "{\"__type\":\"%s#%s\",\"%s\":\"", ns, name,
			 capital ? "Message" : "message");
	json_escape(body, sizeof(body) - 3, message);
	strcat(body, "\"}");
	return respond(c, r, status, body, strlen(body), r->content_type);
}

static enum MHD_Result
respond_internal(struct MHD_Connection *c, GwRequest *r)
{
	return respond_error(c, r, MHD_HTTP_INTERNAL_SERVER_ERROR, NS_DYNAMODB,
						 "InternalServerError", MSG_INTERNAL);
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
 * DescribeEndpoints through the gateway: the address the client sent the
 * request to, its Host header as written (a client calls that address
 * next), not the setting item_table.endpoint_address that a call in SQL
 * reports.  Without a Host header (HTTP/1.0), the database's answer.
 */
static enum MHD_Result
respond_endpoints(struct MHD_Connection *c, GwRequest *r, PGresult *res)
{
	const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	char		body[320];
	int			len;

	/* only a plain host and port is echoed (no JSON escaping is needed) */
	if (host == NULL || host[0] == '\0' || strlen(host) > 255 ||
		strspn(host, HOST_CHARS) != strlen(host))
		return respond_owned(c, r, MHD_HTTP_OK, PQgetvalue(res, 0, 0),
							 PQgetlength(res, 0, 0), r->content_type, res);
	PQclear(res);
	len = snprintf(body, sizeof(body),
				   "{\"Endpoints\":[{\"Address\":\"%s\",\"CachePeriodInMinutes\":1440}]}", host);
	return respond(c, r, MHD_HTTP_OK, body, (size_t) len, r->content_type);
}

/*
 * The PostgreSQL answer to the HTTP answer (see the header comment).
 * Takes res (clears it, or hands it to the response).
 */
static enum MHD_Result
respond_result(struct MHD_Connection *c, GwRequest *r, PGresult *res)
{
	const char *state,
			   *detail,
			   *context;
	enum MHD_Result ret;

	switch (PQresultStatus(res))
	{
		case PGRES_TUPLES_OK:
			if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0) &&
				strcmp(r->action, "DescribeEndpoints") == 0)
				return respond_endpoints(c, r, res);
			/* TagResource and UntagResource answer with no body at all */
			if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0) &&
				(strcmp(r->action, "TagResource") == 0 ||
				 strcmp(r->action, "UntagResource") == 0))
			{
				PQclear(res);
				return respond(c, r, MHD_HTTP_OK, "", 0, r->content_type);
			}
			if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0))
			{
				/* the value is ours to change: decoded in place */
				char	   *body = PQgetvalue(res, 0, 0);

				return respond_owned(c, r, MHD_HTTP_OK, body,
									 NulJsonOut(body, PQgetlength(res, 0, 0)),
									 r->content_type, res);
			}
			GwLog("request %s: dynamodb() returned no value", r->id);
			PQclear(res);
			return respond_internal(c, r);
		case PGRES_FATAL_ERROR:
			break;
		default:
			GwLog("request %s: unexpected result %s", r->id, PQresStatus(PQresultStatus(res)));
			PQclear(res);
			return respond_internal(c, r);
	}

	state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	detail = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
	context = PQresultErrorField(res, PG_DIAG_CONTEXT);
	if (state == NULL)
	{
		GwLog("request %s: %s", r->id, PQresultErrorMessage(res));
		ret = respond_internal(c, r);
	}
	else if (strncmp(state, "XD", 2) == 0 && detail &&
			 strncmp(detail, "{\"__type\":", 10) == 0)
	{
		unsigned	status = strstr(detail, "#InternalServerError\"") ?
			MHD_HTTP_INTERNAL_SERVER_ERROR : MHD_HTTP_BAD_REQUEST;

		/* a message may quote a string of the request: decoded in place */
		ret = respond(c, r, status, detail,
					  NulJsonOut((char *) detail, strlen(detail)), r->content_type);
	}
	/* the body could not be read as jsonb: an error binding parameter $2 */
	else if ((strncmp(state, "22", 2) == 0 || strcmp(state, "54001") == 0) &&
			 context && strstr(context, "parameter $2"))
		ret = respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							"SerializationException", "The request body is not valid JSON.");
	else if (strcmp(state, "42501") == 0)
	{
		char		msg[256];

		snprintf(msg, sizeof(msg),
				 "The role of this access key is not allowed to perform dynamodb:%s on the resource.",
				 r->action);
		ret = respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							"AccessDeniedException", msg);
	}
	else if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0)
		ret = respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_DYNAMODB,
							"TransactionConflictException",
							"Transaction is ongoing for the item");
	else
	{
		GwLog("request %s: %s: %s", r->id, state, PQresultErrorMessage(res));
		ret = respond_internal(c, r);
	}
	PQclear(res);
	return ret;
}

/* the pool answered r's job: let libmicrohttpd call handle_request again */
static void
job_done(GwJob *job)
{
	GwRequest  *r = (GwRequest *) job;

	MHD_resume_connection(r->conn);
}

static void
direct_done(GwJob *job)
{
}

/* the answer to a job the pool finished */
static enum MHD_Result
respond_job(struct MHD_Connection *c, GwRequest *r)
{
	PGresult   *res = r->job.res;

	r->job.res = NULL;
	switch (r->job.status)
	{
		case JOB_RESULT:
			return respond_result(c, r, res);
		case JOB_THROTTLED:
			return respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_DYNAMODB,
								 "ThrottlingException", "Rate of requests exceeds the allowed throughput.");
		case JOB_ROLE_DENIED:
			GwLog("request %s: the login role cannot act as role \"%s\" (GRANT it to the login role)",
				  r->id, r->role);
			return respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
								 "AccessDeniedException",
								 "The gateway is not allowed to act as the role of this access key.");
		case JOB_NO_CONNECTION:
		case JOB_CONNECTION_LOST:
		case JOB_ROLE_FAILED:
			break;
	}
	PQclear(res);
	return respond_internal(c, r);
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
		return respond_error(c, r, 413, NS_VALIDATE,
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

				snprintf(r->action, sizeof(r->action), "%s", action);
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

		return respond(c, r, MHD_HTTP_NOT_FOUND, unknown, sizeof(unknown) - 1, "application/xml");
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
			return respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
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
				return respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
									 "MissingAuthenticationTokenException", msg);
			case SIGV4_INCOMPLETE:
				return respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
									 "IncompleteSignatureException", msg);
			case SIGV4_EXPIRED:
			case SIGV4_MISMATCH:
				return respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
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
					return respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
										 "UnrecognizedClientException",
										 "The security token included in the request is invalid.");
				case KEY_ERROR:
					return respond_internal(c, r);
			}
		if (!GwOpt.auth_any && !SigV4Verify(&sreq, &auth, secret))
			return respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
								 "InvalidSignatureException", MSG_BAD_SIGNATURE);
		if (!GwOpt.auth_any && role[0] == '\0')
			return respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
								 "AccessDeniedException",
								 "The role of this access key no longer exists.");
	}

	if (target == NULL)
		return respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							 "UnknownOperationException", "The X-Amz-Target header is required");
	if (action == NULL)
		return respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							 "UnknownOperationException", "Unknown operation");
	if (other_api)
	{
		char		msg[128];

		snprintf(msg, sizeof(msg), "Unknown operation: %s", r->action);
		return respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							 "UnknownOperationException", msg);
	}
	if (r->body == NULL || memchr(r->body, '\0', r->len) != NULL)
		return respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							 "SerializationException", "The request body is not valid JSON.");
	else
	{
		/* U+0000 and U+0001 in strings to their stored form */
		size_t		n = NulJsonInLength(r->body, r->len);

		if (n != r->len)
		{
			char	   *b = malloc(n + 1);

			if (b == NULL)
				return respond_internal(c, r);
			NulJsonIn(r->body, r->len, b);
			b[n] = '\0';
			free(r->body);
			r->body = b;
			r->len = n;
			r->cap = n + 1;
		}
	}

	/*
	 * Run it: at once when the pool is quiet, else queued, the HTTP
	 * connection suspended until the pool answers.
	 */
	r->job.action = r->action;
	r->job.body = r->body;
	r->job.role = GwOpt.auth_none || (GwOpt.auth_any && GwOpt.any_role == NULL) ? NULL : r->role;
	r->job.done = direct_done;
	r->conn = c;
	if (PoolRunDirect(&r->job))
		return respond_job(c, r);
	r->job.done = job_done;
	r->submitted = true;
	MHD_suspend_connection(c);
	PoolSubmit(&r->job);
	return MHD_YES;
}

static int64_t
now_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t) now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static GwConn *
conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* the bytes the kernel has received on a TCP socket (Linux 4.1 and later) */
static bool
tcp_bytes_received(int fd, uint64_t *bytes)
{
	struct tcp_info ti;
	socklen_t	len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
		len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received))
		return false;
	*bytes = ti.tcpi_bytes_received;
	return true;
}

/* gc, seen as w (idle), has begun its next request: its deadline runs */
static void
conn_begin(GwConn *gc, uint64_t w, int64_t now)
{
	__atomic_store_n(&gc->since_ms, now, __ATOMIC_RELAXED);
	__atomic_compare_exchange_n(&gc->word, &w, CONN_WITH(w, CONN_WAITING), false,
								__ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/* the headers are in (the reaper may not have seen the request begin) */
static void
conn_request_begun(struct MHD_Connection *c)
{
	GwConn	   *gc = conn_of(c);
	uint64_t	w;

	if (gc == NULL)
		return;
	w = __atomic_load_n(&gc->word, __ATOMIC_ACQUIRE);
	if (CONN_STATE(w) == CONN_IDLE)
		conn_begin(gc, w, now_ms());
}

/* the whole request is in: no deadline while it is answered */
static void
conn_request_arrived(struct MHD_Connection *c)
{
	GwConn	   *gc = conn_of(c);
	uint64_t	w;

	if (gc == NULL)
		return;
	w = __atomic_load_n(&gc->word, __ATOMIC_ACQUIRE);
	if (CONN_STATE(w) == CONN_WAITING)
		__atomic_compare_exchange_n(&gc->word, &w, CONN_WITH(w, CONN_BUSY), false,
									__ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/*
 * The answer is sent: the connection is idle until the kernel has more
 * bytes for it.  Where the kernel cannot say how many it received, the
 * next request's deadline runs from now, idle time included.
 */
static void
conn_request_done(struct MHD_Connection *c)
{
	GwConn	   *gc = conn_of(c);
	uint64_t	bytes,
				w;
	int			next = CONN_IDLE;

	if (gc == NULL)
		return;
	if (tcp_bytes_received(gc->fd, &bytes))
		__atomic_store_n(&gc->bytes_in, bytes, __ATOMIC_RELAXED);
	else
	{
		__atomic_store_n(&gc->since_ms, now_ms(), __ATOMIC_RELAXED);
		next = CONN_WAITING;
	}
	w = __atomic_load_n(&gc->word, __ATOMIC_ACQUIRE);
	while (CONN_STATE(w) != CONN_CUT &&
		   !__atomic_compare_exchange_n(&gc->word, &w, CONN_NEXT(w, next), false,
										__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
}

/*
 * The request deadline's thread.  libmicrohttpd calls us only once a
 * request's headers are complete, and its --timeout counts idle time,
 * which a byte every few seconds resets; so this thread looks at every
 * connection a few times per deadline: an idle one whose socket has
 * received bytes since its last answer has begun a request, and one
 * whose request began more than --request-timeout ago and has not arrived
 * whole is shut down (libmicrohttpd then reads the end of the stream and
 * closes it, in its own thread, as if the client had gone).
 */
static void *
reaper_main(void *arg)
{
	int64_t		deadline = (int64_t) GwOpt.request_timeout * 1000;
	int64_t		tick = deadline / 8;
	struct timespec pause;

	if (tick < 50)
		tick = 50;
	if (tick > 1000)
		tick = 1000;
	pause.tv_sec = tick / 1000;
	pause.tv_nsec = (tick % 1000) * 1000000L;
	for (;;)
	{
		GwConn	   *gc;
		int64_t		now;
		int			cut = 0;

		nanosleep(&pause, NULL);
		now = now_ms();
		pthread_mutex_lock(&conns_lock);
		for (gc = conns; gc; gc = gc->next)
		{
			uint64_t	w = __atomic_load_n(&gc->word, __ATOMIC_ACQUIRE);
			uint64_t	bytes;

			if (CONN_STATE(w) == CONN_IDLE)
			{
				if (tcp_bytes_received(gc->fd, &bytes) &&
					bytes != __atomic_load_n(&gc->bytes_in, __ATOMIC_RELAXED))
					conn_begin(gc, w, now);
			}
			else if (CONN_STATE(w) == CONN_WAITING &&
					 now - __atomic_load_n(&gc->since_ms, __ATOMIC_RELAXED) >= deadline &&
					 __atomic_compare_exchange_n(&gc->word, &w, CONN_WITH(w, CONN_CUT), false,
												 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			{
				(void) shutdown(gc->fd, SHUT_RDWR);
				cut++;
			}
		}
		pthread_mutex_unlock(&conns_lock);
		if (cut > 0 && GwOpt.log)
			GwLog("closed %d connection%s: no whole request within %d s (--request-timeout)",
				  cut, cut == 1 ? "" : "s", GwOpt.request_timeout);
	}
	return NULL;
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

		conn_request_begun(c);
		r = calloc(1, sizeof(GwRequest));
		if (r == NULL)
			return MHD_NO;
		clock_gettime(CLOCK_MONOTONIC, &r->start);
		make_request_id(r->id);
		r->content_type = CT_AMZ_JSON;
		*con_cls = r;
		__atomic_add_fetch(&inflight, 1, __ATOMIC_SEQ_CST);

		status = check_framing(c, version, &why);
		if (status != 0)
		{
			r->close = true;
			return respond(c, r, status, why, strlen(why), "text/plain");
		}

		/* refuse an announced oversize body before reading it */
		cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
		if (cl && strtoull(cl, NULL, 10) > GW_MAX_BODY)
		{
			r->too_big = true;
			return respond_error(c, r, 413, NS_VALIDATE,
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

	conn_request_arrived(c);
	if (r->answered)
		return MHD_YES;
	if (r->submitted)
		return respond_job(c, r);
	if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
	{
		static const char healthy[] = "healthy: item_table_gateway";

		return respond(c, r, MHD_HTTP_OK, healthy, sizeof(healthy) - 1, "text/plain");
	}
	if (strcmp(method, "POST") != 0)
		return respond_error(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
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

	conn_request_done(c);
	if (r == NULL)
		return;
	PQclear(r->job.res);
	free(r->body);
	free(r);
	*con_cls = NULL;
	__atomic_sub_fetch(&inflight, 1, __ATOMIC_SEQ_CST);
}

/*
 * Beyond --max-connections a new connection is closed as soon as accepted.
 * (libmicrohttpd's own limit, set higher as a backstop, would stop
 * accepting instead, leaving clients waiting in the listen queue.)
 *
 * The slot is taken here, atomically, not when the connection starts: the
 * pool's threads accept concurrently, and a check here with the count
 * raised later let two threads both take the last slot.  libmicrohttpd
 * announces the connection (connection_notify) in the thread that accepted
 * it, right after this; the slot waits in slot_taken until then.  Should it
 * drop the socket in between (it runs out of memory), the thread's next
 * accept gives the slot back.
 */
static __thread bool slot_taken;

static enum MHD_Result
accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	if (slot_taken)
		__atomic_sub_fetch(&open_connections, 1, __ATOMIC_SEQ_CST);
	slot_taken = false;
	if (__atomic_add_fetch(&open_connections, 1, __ATOMIC_SEQ_CST) > GwOpt.max_connections)
	{
		__atomic_sub_fetch(&open_connections, 1, __ATOMIC_SEQ_CST);
		if (GwOpt.log)
			GwLog("connection refused: %d connections are open", GwOpt.max_connections);
		return MHD_NO;
	}
	slot_taken = true;
	return MHD_YES;
}

/*
 * Count connections; Nagle off on every accepted socket; each one in the
 * list of the request deadline from its accept (its first request starts
 * then) until libmicrohttpd is about to close it.
 */
static void
connection_notify(void *cls, struct MHD_Connection *c, void **socket_context,
				  enum MHD_ConnectionNotificationCode toe)
{
	GwConn	   *gc = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED)
	{
		__atomic_sub_fetch(&open_connections, 1, __ATOMIC_SEQ_CST);
		if (gc)
		{
			pthread_mutex_lock(&conns_lock);
			if (gc->prev)
				gc->prev->next = gc->next;
			else
				conns = gc->next;
			if (gc->next)
				gc->next->prev = gc->prev;
			pthread_mutex_unlock(&conns_lock);
			free(gc);
			*socket_context = NULL;
		}
	}
	if (toe == MHD_CONNECTION_NOTIFY_STARTED)
	{
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		int			one = 1;

		/* the slot accept_policy took (always, unless added some other way) */
		if (slot_taken)
			slot_taken = false;
		else
			__atomic_add_fetch(&open_connections, 1, __ATOMIC_SEQ_CST);
		if (ci)
		{
			(void) setsockopt(ci->connect_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			gc = calloc(1, sizeof(GwConn));
			if (gc == NULL)
			{
				/* no deadline could be kept for it: refuse it */
				(void) shutdown(ci->connect_fd, SHUT_RDWR);
				return;
			}
			gc->fd = ci->connect_fd;
			gc->word = CONN_WAITING;
			gc->since_ms = now_ms();
			pthread_mutex_lock(&conns_lock);
			gc->next = conns;
			if (conns)
				conns->prev = gc;
			conns = gc;
			pthread_mutex_unlock(&conns_lock);
			*socket_context = gc;
		}
	}
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
	struct MHD_Daemon *d;
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

	if (RAND_bytes(id_salt, sizeof(id_salt)) != 1)
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

		if (pthread_create(&reaper, NULL, reaper_main, NULL) != 0)
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

	d = MHD_start_daemon(flags, 0, accept_policy, NULL, handle_request, NULL,
						 MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL,
						 MHD_OPTION_SOCK_ADDR, ai->ai_addr,
						 MHD_OPTION_THREAD_POOL_SIZE, (unsigned int) GwOpt.threads,
						 MHD_OPTION_CONNECTION_LIMIT,
						 (unsigned int) (GwOpt.max_connections + 16 * GwOpt.threads),
						 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) GwOpt.timeout,
						 MHD_OPTION_NOTIFY_COMPLETED, request_completed, NULL,
						 MHD_OPTION_NOTIFY_CONNECTION, connection_notify, NULL,
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
	if (GwOnReady)
		GwOnReady(port);
	else
		printf("item_table_gateway: listening on %s://%s%s%s:%d\n",
			   GwOpt.tls_cert ? "https" : "http",
			   ai->ai_family == AF_INET6 ? "[" : "", GwOpt.listen,
			   ai->ai_family == AF_INET6 ? "]" : "", port);
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
	PoolClose();
	free(cert);
	free(key);
	return 0;
}
