/*-------------------------------------------------------------------------
 *
 * request.c
 *		item_table_gateway's request flow, whatever engine carries HTTP
 *		(libmicrohttpd's in main.c, the event loop's in loop.c): the body's
 *		framing, GET / and GET /metrics, and a POST authenticated, routed
 *		and run on the pool (main.c's essay: "How a request flows").  The
 *		engine reaches the request's headers and sends its answer through
 *		the GwHttpOps the request carries.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../src/types/nul_escape.h"
#include "gw_http.h"

#define MSG_BAD_SIGNATURE "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."

#define MAX_HEADERS 128

/* the DynamoDB Streams API's actions, served under their own target prefix */
static const char *const stream_actions[] = {
	"DescribeStream", "GetRecords", "GetShardIterator", "ListStreams"
};

static int	inflight;			/* requests between first call and completion */

/* a request begins: its id, its clock, counted as in progress */
void
GwRequestBegin(GwRequest *r, const GwHttpOps *http, void *conn, const char *method)
{
	r->http = http;
	r->conn = conn;
	clock_gettime(CLOCK_MONOTONIC, &r->start);
	GwMakeRequestId(r->id);
	r->content_type = CT_AMZ_JSON;
	/* health checks and scrapes are not counted in the metrics */
	r->counted = strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0;
	__atomic_add_fetch(&inflight, 1, __ATOMIC_SEQ_CST);
}

/*
 * A key missing from the cache is looked up on the keys' thread
 * (KeyLookupLater), the connection suspended as for a job; when it is
 * back (key_done resumes the connection, so r->key_wait is set only once
 * the lookup is over) the request is handled again from the start, and
 * takes the lookup's answer instead of the cache's.
 */
typedef struct GwKeyWait
{
	KeyWait		kw;				/* first: key_done() finds the rest from it */
	GwRequest  *r;
} GwKeyWait;

static void
key_done(KeyWait *kw)
{
	GwKeyWait  *w = (GwKeyWait *) kw;

	w->r->http->resume(w->r);
}

static void
key_wait_free(GwRequest *r)
{
	if (r->key_wait == NULL)
		return;
	explicit_bzero(r->key_wait->kw.secret, sizeof(r->key_wait->kw.secret));
	free(r->key_wait);
	r->key_wait = NULL;
}

/* the request is over (answered and sent, or its connection gone) */
void
GwRequestEnd(GwRequest *r)
{
	key_wait_free(r);
	PQclear(r->job.res);
	r->job.res = NULL;
	__atomic_sub_fetch(&inflight, 1, __ATOMIC_SEQ_CST);
}

/* requests in progress (shutdown waits for them) */
int
GwInflight(void)
{
	return __atomic_load_n(&inflight, __ATOMIC_SEQ_CST);
}

/* queue a job: on the loop's own sessions (--engine loop), else the pool's */
static void
submit(GwJob *job)
{
	if (!PipeSubmit(job))
		PoolSubmit(job);
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
		submit(job);
		return;
	}
	r->http->resume(r);
}

static void
direct_done(GwJob *job)
{
}

/* the POST: authenticate, route, run */
static enum MHD_Result
handle_post(GwRequest *r, const char *url, const char *method)
{
	GwPair		headers[MAX_HEADERS],
				query[MAX_HEADERS];
	int			nheaders = 0,
				nquery = 0;
	const char *target;
	const char *action;
	const char *ctype;
	char	   *role = r->role;
	bool		streams = false,
				other_api = false;
	size_t		i;

	if (r->too_big)
		return GwRespondError(r, 413, NS_VALIDATE,
							  "ValidationException", "Request size exceeds 16777216 bytes");

	/*
	 * The target first, for the log; errors about it come after auth.  A
	 * Streams action only under the Streams prefix, and no other there.
	 */
	target = r->http->header(r, "X-Amz-Target");
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
	ctype = r->http->header(r, "Content-Type");
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

		return GwRespond(r, MHD_HTTP_NOT_FOUND, unknown, sizeof(unknown) - 1, "application/xml");
	}

	if (!GwOpt.auth_none)
	{
		SigV4Request sreq;
		SigV4Auth	auth;
		SigV4Status st;
		char		msg[512];
		char		secret[512];

		nheaders = r->http->pairs(r, false, headers, MAX_HEADERS);
		nquery = r->http->pairs(r, true, query, MAX_HEADERS);
		if (nheaders < 0 || nquery < 0)
			return GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
								  "IncompleteSignatureException", "Too many headers.");
		sreq.method = method;
		sreq.path = url;
		sreq.headers = headers;
		sreq.nheaders = nheaders;
		sreq.query = query;
		sreq.nquery = nquery;
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
				return GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
									  "MissingAuthenticationTokenException", msg);
			case SIGV4_INCOMPLETE:
				MetricsAuthFailure(AUTH_INCOMPLETE);
				return GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
									  "IncompleteSignatureException", msg);
			case SIGV4_EXPIRED:
			case SIGV4_MISMATCH:
				MetricsAuthFailure(st == SIGV4_EXPIRED ? AUTH_EXPIRED : AUTH_SIGNATURE);
				return GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
									  "InvalidSignatureException", msg);
		}
		/* --auth any: a well-formed signature is enough, as DynamoDB Local's */
		if (GwOpt.auth_any)
			snprintf(role, sizeof(r->role), "%s", GwOpt.any_role ? GwOpt.any_role : "");
		else
		{
			KeyStatus	ks;

			if (r->key_wait)
			{
				/* handled again: the keys' thread has the answer */
				ks = r->key_wait->kw.status;
				snprintf(secret, sizeof(secret), "%s", r->key_wait->kw.secret);
				snprintf(role, sizeof(r->role), "%s", r->key_wait->kw.role);
				key_wait_free(r);
			}
			else if ((ks = KeyLookupCached(auth.key_id, secret, sizeof(secret),
										   role, sizeof(r->role))) == KEY_MISS)
			{
				GwKeyWait  *w = calloc(1, sizeof(GwKeyWait));

				if (w == NULL)
					return GwRespondInternal(r);
				w->r = r;
				w->kw.done = key_done;
				snprintf(w->kw.key_id, sizeof(w->kw.key_id), "%s", auth.key_id);
				r->key_wait = w;
				r->http->suspend(r);
				KeyLookupLater(&w->kw);
				return MHD_YES;
			}
			switch (ks)
			{
				case KEY_FOUND:
					break;
				case KEY_UNKNOWN:
					MetricsAuthFailure(AUTH_UNKNOWN_KEY);
					return GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
										  "UnrecognizedClientException",
										  "The security token included in the request is invalid.");
				case KEY_ERROR:
				case KEY_MISS:
					MetricsAuthFailure(AUTH_KEY_ERROR);
					return GwRespondInternal(r);
			}
		}
		if (!GwOpt.auth_any && !SigV4Verify(&sreq, &auth, secret))
		{
			MetricsAuthFailure(AUTH_SIGNATURE);
			return GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
								  "InvalidSignatureException", MSG_BAD_SIGNATURE);
		}
		if (!GwOpt.auth_any && role[0] == '\0')
		{
			MetricsAuthFailure(AUTH_NO_ROLE);
			return GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
								  "AccessDeniedException",
								  "The role of this access key no longer exists.");
		}
	}

	if (target == NULL)
		return GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							  "UnknownOperationException", "The X-Amz-Target header is required");
	if (action == NULL)
		return GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							  "UnknownOperationException", "Unknown operation");
	if (other_api)
	{
		char		msg[128];

		snprintf(msg, sizeof(msg), "Unknown operation: %s", r->action);
		return GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							  "UnknownOperationException", msg);
	}
	if (r->body == NULL || memchr(r->body, '\0', r->len) != NULL)
		return GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							  "SerializationException", "The request body is not valid JSON.");
	else
	{
		/* U+0000 and U+0001 in strings to their stored form */
		size_t		n = NulJsonInLength(r->body, r->len);

		if (n != r->len)
		{
			char	   *b = malloc(n + 1);

			if (b == NULL)
				return GwRespondInternal(r);
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
	MetricsPoolJob(r->job.pool, false);
	if (r->http->direct && PoolRunDirect(&r->job))
	{
		if (!RouteRetryOnPrimary(&r->job))
			return GwRespondJob(r);
		MetricsPoolJob(r->job.pool, false);
		PQclear(r->job.res);
		r->job.res = NULL;
	}
	r->job.done = job_done;
	r->submitted = true;
	r->http->suspend(r);
	submit(&r->job);
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

void
GwFramingAdd(GwFraming *f, const char *key, const char *value)
{
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
		if (f->encodings++ == 0)
			f->encoding = p;
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
}

/* 0 if the body's framing is clear, else the status to answer, and why */
unsigned
GwFramingCheck(const GwFraming *f, bool http10, const char **why)
{
	if (f->lengths_differ)
	{
		*why = "Content-Length is sent more than once, with different values.";
		return MHD_HTTP_BAD_REQUEST;
	}
	if (f->encodings == 0)
		return 0;
	if (f->lengths > 0)
	{
		*why = "Content-Length and Transfer-Encoding cannot be sent together.";
		return MHD_HTTP_BAD_REQUEST;
	}
	if (http10)
	{
		*why = "Transfer-Encoding is not read in an HTTP/1.0 request.";
		return MHD_HTTP_BAD_REQUEST;
	}
	if (!f->chunked_last || f->chunked != 1)
	{
		*why = "The final transfer coding must be chunked, applied once.";
		return MHD_HTTP_BAD_REQUEST;
	}
	if (f->others > 0)
	{
		*why = "Only the chunked transfer coding is implemented.";
		return MHD_HTTP_NOT_IMPLEMENTED;
	}
	if (f->encodings != 1 || strcasecmp(f->encoding, "chunked") != 0)
	{
		*why = "Transfer-Encoding must be one field with the value chunked.";
		return MHD_HTTP_BAD_REQUEST;
	}
	return 0;
}

/*
 * The headers are in: an ambiguous framing is answered (and the
 * connection closed), so is a Content-Length over 16 MB, before any of the
 * body is read.  True if r is answered.
 */
bool
GwRequestHead(GwRequest *r, const GwFraming *f, bool http10, enum MHD_Result *ret)
{
	const char *why;
	unsigned	status = GwFramingCheck(f, http10, &why);

	if (status != 0)
	{
		r->close = true;
		*ret = GwRespond(r, status, why, strlen(why), "text/plain");
		return true;
	}
	if (f->length && strtoull(f->length, NULL, 10) > GW_MAX_BODY)
	{
		r->too_big = true;
		*ret = GwRespondError(r, 413, NS_VALIDATE,
							  "ValidationException", "Request size exceeds 16777216 bytes");
		return true;
	}
	return false;
}

/* n more bytes of the body: kept up to 16 MB; false if out of memory */
bool
GwRequestBody(GwRequest *r, const char *data, size_t n)
{
	if (r->too_big || r->answered)
		return true;
	if (r->len + n > GW_MAX_BODY)
	{
		r->too_big = true;
		free(r->body);
		r->body = NULL;
		r->len = r->cap = 0;
		return true;
	}
	if (r->len + n + 1 > r->cap)
	{
		size_t		cap = r->cap ? r->cap : 4096;
		char	   *b;

		while (cap < r->len + n + 1)
			cap *= 2;
		b = realloc(r->body, cap);
		if (b == NULL)
			return false;
		r->body = b;
		r->cap = cap;
	}
	memcpy(r->body + r->len, data, n);
	r->len += n;
	r->body[r->len] = '\0';
	return true;
}

/* GET /metrics (metrics.c), unauthenticated like the health check */
static void
free_text(void *text)
{
	free(text);
}

enum MHD_Result
GwRespondMetrics(GwRequest *r)
{
	size_t		len;
	char	   *text = MetricsRender(&len);

	if (text == NULL)
		return MHD_NO;
	if (r)
		r->answered = true;
	return r->http->send(r, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8",
						 NULL, text, len, free_text, text);
}

/*
 * The whole request is in (its body in r->body): answer it, or queue it
 * for the pool (the engine is then told through r->http->suspend, and
 * calls GwRespondJob once resumed).
 */
enum MHD_Result
GwHandleRequest(GwRequest *r, const char *method, const char *url)
{
	if (r->submitted)
		return GwRespondJob(r);
	if (strcmp(method, "GET") == 0 && GwOpt.metrics_port == 0 &&
		strcmp(url, "/metrics") == 0)
		return GwRespondMetrics(r);
	if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
	{
		static const char healthy[] = "healthy: item_table_gateway";

		return GwRespond(r, MHD_HTTP_OK, healthy, sizeof(healthy) - 1, "text/plain");
	}
	if (strcmp(method, "POST") != 0)
		return GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							  "UnknownOperationException", "Only POST requests are served");
	if (r->body == NULL && !r->too_big)
	{
		r->body = strdup("");
		if (r->body == NULL)
			return MHD_NO;
	}
	return handle_post(r, url, method);
}
