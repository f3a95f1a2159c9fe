/*-------------------------------------------------------------------------
 *
 * respond.c
 *		item_table_gateway's answers: request ids, DynamoDB's headers and
 *		error bodies, and the reading of dynamodb_as()'s result or error
 *		into an HTTP answer (main.c's essay: "Answers").  Every answer goes
 *		out through GwRespondOwned(), which also counts it (metrics.c).
 *
 *-------------------------------------------------------------------------
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <openssl/rand.h>

#include "../src/types/nul_escape.h"
#include "gw_http.h"

/* what a Host header DescribeEndpoints echoes may hold: a name or address, a port */
#define HOST_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:[]%"

static uint64_t request_counter;
static uint64_t id_key[3];

/* the key of the request ids: false if there are no random bytes */
bool
GwRequestIdInit(void)
{
	return RAND_bytes((unsigned char *) id_key, sizeof(id_key)) == 1;
}

/* a bijection of 64-bit words that mixes every bit into every other (the
 * finaliser of the splitmix64 generator) */
static inline uint64_t
mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x;
}

/*
 * A request id: 160 bits in base32 (32 characters), made from a counter
 * and a per-process random key.  The first 64 bits are mix64(counter XOR
 * key), a bijection of the counter, so two requests of one process never
 * share an id; the other 96 are two more mixes of it, so that the id
 * looks like DynamoDB's opaque ids rather than a sequence.  (An id is not
 * a secret and needs no cryptographic hash: a SHA-256 here cost more than
 * the rest of building the answer.)
 */
void
GwMakeRequestId(char *out)
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	uint64_t	n = __atomic_add_fetch(&request_counter, 1, __ATOMIC_RELAXED);
	uint64_t	w[3];
	int			i;

	w[0] = mix64(n ^ id_key[0]);
	w[1] = mix64(w[0] + id_key[1]);
	w[2] = mix64(w[1] ^ id_key[2]);
	/* character i: the bits 5i to 5i+4 of w[0] w[1] w[2], most significant first */
	for (i = 0; i < 32; i++)
	{
		int			bit = 5 * i,
					word = bit >> 6,
					off = bit & 63;
		uint64_t	v = w[word] << off;

		if (off > 59)
			v |= w[word + 1] >> (64 - off);
		out[i] = alphabet[v >> 59];
	}
	out[32] = '\0';
}

/*
 * v in decimal at out (at most 20 bytes, no NUL), without printf's
 * machinery; returns the end
 */
char *
GwPutDecimal(char *out, uint64_t v)
{
	char		rev[20];
	int			n = 0;

	do
	{
		rev[n++] = (char) ('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n > 0)
		*out++ = rev[--n];
	return out;
}

/* ... NUL-terminated (out: at least 11 bytes) */
static void
decimal(char *out, uint32_t v)
{
	*GwPutDecimal(out, v) = '\0';
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
clear_result(void *res)
{
	PQclear(res);
}

/*
 * Queue an answer with DynamoDB's headers.  body is copied, unless res is
 * given: then body lies in that result, which the engine keeps and clears
 * once sent.
 */
enum MHD_Result
GwRespondOwned(GwRequest *r, unsigned status, const char *body, size_t len,
			   const char *content_type, PGresult *res)
{
	enum MHD_Result ret;
	char		crc[16];

	decimal(crc, GwCrc32(body, len));
	/* counted first: a client that has its answer finds it in /metrics */
	if (r->counted)
		MetricsRequest(r->action[0] ? r->action : NULL, status, r->error,
					   elapsed_us(&r->start), r->len, len);
	ret = r->http->send(r, status, content_type, crc, body, len,
						res ? clear_result : NULL, res);
	r->answered = true;

	if (GwOpt.log)
	{
		char		remote[INET6_ADDRSTRLEN + 1];

		r->http->remote(r, remote, sizeof(remote));
		GwLog("%s %s %u %ldus %s", remote, r->action[0] ? r->action : "-",
			  status, elapsed_us(&r->start), r->id);
	}
	return ret;
}

enum MHD_Result
GwRespond(GwRequest *r, unsigned status,
		  const char *body, size_t len, const char *content_type)
{
	return GwRespondOwned(r, status, body, len, content_type, NULL);
}

/* an error body of our own: {"__type": "ns#name", "message": "..."} */
enum MHD_Result
GwRespondError(GwRequest *r, unsigned status,
			   const char *ns, const char *name, const char *message)
{
	char		body[1024];
	bool		capital = strcmp(name, "SerializationException") == 0;

	r->error = name;

	snprintf(body, sizeof(body), "{\"__type\":\"%s#%s\",\"%s\":\"", ns, name,
			 capital ? "Message" : "message");
	json_escape(body, sizeof(body) - 3, message);
	strcat(body, "\"}");
	return GwRespond(r, status, body, strlen(body), r->content_type);
}

enum MHD_Result
GwRespondInternal(GwRequest *r)
{
	return GwRespondError(r, MHD_HTTP_INTERNAL_SERVER_ERROR, NS_DYNAMODB,
						  "InternalServerError", MSG_INTERNAL);
}

/*
 * DescribeEndpoints through the gateway: the address the client sent the
 * request to, its Host header as written (a client calls that address
 * next), not the setting item_table.endpoint_address that a call in SQL
 * reports.  Without a Host header (HTTP/1.0), the database's answer.
 */
static enum MHD_Result
respond_endpoints(GwRequest *r, PGresult *res)
{
	const char *host = r->http->header(r, "Host");
	char		body[320];
	int			len;

	/* only a plain host and port is echoed (no JSON escaping is needed) */
	if (host == NULL || host[0] == '\0' || strlen(host) > 255 ||
		strspn(host, HOST_CHARS) != strlen(host))
		return GwRespondOwned(r, MHD_HTTP_OK, PQgetvalue(res, 0, 0),
							  PQgetlength(res, 0, 0), r->content_type, res);
	PQclear(res);
	len = snprintf(body, sizeof(body),
				   "{\"Endpoints\":[{\"Address\":\"%s\",\"CachePeriodInMinutes\":1440}]}", host);
	return GwRespond(r, MHD_HTTP_OK, body, (size_t) len, r->content_type);
}

/*
 * The PostgreSQL answer to the HTTP answer (see the header comment).
 * Takes res (clears it, or hands it to the response).
 */
static enum MHD_Result
respond_result(GwRequest *r, PGresult *res)
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
				return respond_endpoints(r, res);
			/* TagResource and UntagResource answer with no body at all */
			if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0) &&
				(strcmp(r->action, "TagResource") == 0 ||
				 strcmp(r->action, "UntagResource") == 0))
			{
				PQclear(res);
				return GwRespond(r, MHD_HTTP_OK, "", 0, r->content_type);
			}
			if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0))
			{
				/* the value is ours to change: decoded in place */
				char	   *body = PQgetvalue(res, 0, 0);

				return GwRespondOwned(r, MHD_HTTP_OK, body,
									  NulJsonOut(body, PQgetlength(res, 0, 0)),
									  r->content_type, res);
			}
			GwLog("request %s: dynamodb() returned no value", r->id);
			PQclear(res);
			return GwRespondInternal(r);
		case PGRES_FATAL_ERROR:
			break;
		default:
			GwLog("request %s: unexpected result %s", r->id, PQresStatus(PQresultStatus(res)));
			PQclear(res);
			return GwRespondInternal(r);
	}

	state = GwResultErrorField(res, PG_DIAG_SQLSTATE);
	detail = GwResultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
	context = GwResultErrorField(res, PG_DIAG_CONTEXT);
	if (state == NULL)
	{
		GwLog("request %s: %s", r->id, GwResultErrorMessage(res));
		ret = GwRespondInternal(r);
	}
	else if (strncmp(state, "XD", 2) == 0 && detail &&
			 strncmp(detail, "{\"__type\":", 10) == 0)
	{
		unsigned	status = strstr(detail, "#InternalServerError\"") ?
			MHD_HTTP_INTERNAL_SERVER_ERROR :
			strstr(detail, "#ServiceUnavailable\"") ?
			MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_BAD_REQUEST;
		const char *hash = strchr(detail, '#');

		/* the error type, for the metrics: "ns#Name" */
		if (hash)
		{
			size_t		n = strcspn(hash + 1, "\"");

			if (n < sizeof(r->error_buf))
			{
				memcpy(r->error_buf, hash + 1, n);
				r->error_buf[n] = '\0';
				r->error = r->error_buf;
			}
		}

		/* a message may quote a string of the request: decoded in place */
		ret = GwRespond(r, status, detail,
						NulJsonOut((char *) detail, strlen(detail)), r->content_type);
	}
	/* the body could not be read as jsonb: an error binding parameter $2 */
	else if ((strncmp(state, "22", 2) == 0 || strcmp(state, "54001") == 0) &&
			 context && strstr(context, "parameter $2"))
		ret = GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							 "SerializationException", "The request body is not valid JSON.");
	else if (strcmp(state, "42501") == 0)
	{
		char		msg[256];

		snprintf(msg, sizeof(msg),
				 "The role of this access key is not allowed to perform dynamodb:%s on the resource.",
				 r->action);
		ret = GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							 "AccessDeniedException", msg);
	}
	else if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0)
		ret = GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_DYNAMODB,
							 "TransactionConflictException",
							 "Transaction is ongoing for the item");
	else
	{
		GwLog("request %s: %s: %s", r->id, state, GwResultErrorMessage(res));
		ret = GwRespondInternal(r);
	}
	PQclear(res);
	return ret;
}

/* the answer to a job the pool finished */
enum MHD_Result
GwRespondJob(GwRequest *r)
{
	PGresult   *res = r->job.res;

	r->job.res = NULL;
	switch (r->job.status)
	{
		case JOB_RESULT:
			return respond_result(r, res);
		case JOB_THROTTLED:
			MetricsPoolJob(r->job.pool, true);
			return GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_DYNAMODB,
								  "ThrottlingException", "Rate of requests exceeds the allowed throughput.");
		case JOB_ROLE_DENIED:
			GwLog("request %s: the login role cannot act as role \"%s\" (GRANT it to the login role)",
				  r->id, r->role);
			return GwRespondError(r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
								  "AccessDeniedException",
								  "The gateway is not allowed to act as the role of this access key.");
		case JOB_NO_CONNECTION:
		case JOB_CONNECTION_LOST:
		case JOB_ROLE_FAILED:
			break;
	}
	PQclear(res);
	return GwRespondInternal(r);
}
