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
#include <zlib.h>

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

/* v in decimal into out (at least 11 bytes), without printf's machinery */
static void
decimal(char *out, uint32_t v)
{
	char		rev[10];
	int			n = 0;

	do
	{
		rev[n++] = (char) ('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n > 0)
		*out++ = rev[--n];
	*out = '\0';
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
enum MHD_Result
GwRespondOwned(struct MHD_Connection *c, GwRequest *r, unsigned status,
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
	decimal(crc, (uint32_t) crc32(0L, (const Bytef *) body, (uInt) len));
	MHD_add_response_header(resp, "Content-Type", content_type);
	MHD_add_response_header(resp, "x-amzn-RequestId", r->id);
	MHD_add_response_header(resp, "x-amz-crc32", crc);
	if (r->close)
		MHD_add_response_header(resp, "Connection", "close");
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	r->answered = true;
	if (r->counted)
		MetricsRequest(r->action[0] ? r->action : NULL, status, r->error,
					   elapsed_us(&r->start), r->len, len);

	if (GwOpt.log)
	{
		char		remote[INET6_ADDRSTRLEN + 1];

		remote_address(c, remote, sizeof(remote));
		GwLog("%s %s %u %ldus %s", remote, r->action[0] ? r->action : "-",
			  status, elapsed_us(&r->start), r->id);
	}
	return ret;
}

enum MHD_Result
GwRespond(struct MHD_Connection *c, GwRequest *r, unsigned status,
		  const char *body, size_t len, const char *content_type)
{
	return GwRespondOwned(c, r, status, body, len, content_type, NULL);
}

/* an error body of our own: {"__type": "ns#name", "message": "..."} */
enum MHD_Result
GwRespondError(struct MHD_Connection *c, GwRequest *r, unsigned status,
			   const char *ns, const char *name, const char *message)
{
	char		body[1024];
	bool		capital = strcmp(name, "SerializationException") == 0;

	r->error = name;

	snprintf(body, sizeof(body), "{\"__type\":\"%s#%s\",\"%s\":\"", ns, name,
			 capital ? "Message" : "message");
	json_escape(body, sizeof(body) - 3, message);
	strcat(body, "\"}");
	return GwRespond(c, r, status, body, strlen(body), r->content_type);
}

enum MHD_Result
GwRespondInternal(struct MHD_Connection *c, GwRequest *r)
{
	return GwRespondError(c, r, MHD_HTTP_INTERNAL_SERVER_ERROR, NS_DYNAMODB,
						  "InternalServerError", MSG_INTERNAL);
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
		return GwRespondOwned(c, r, MHD_HTTP_OK, PQgetvalue(res, 0, 0),
							  PQgetlength(res, 0, 0), r->content_type, res);
	PQclear(res);
	len = snprintf(body, sizeof(body),
				   "{\"Endpoints\":[{\"Address\":\"%s\",\"CachePeriodInMinutes\":1440}]}", host);
	return GwRespond(c, r, MHD_HTTP_OK, body, (size_t) len, r->content_type);
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
				return GwRespond(c, r, MHD_HTTP_OK, "", 0, r->content_type);
			}
			if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0))
			{
				/* the value is ours to change: decoded in place */
				char	   *body = PQgetvalue(res, 0, 0);

				return GwRespondOwned(c, r, MHD_HTTP_OK, body,
									  NulJsonOut(body, PQgetlength(res, 0, 0)),
									  r->content_type, res);
			}
			GwLog("request %s: dynamodb() returned no value", r->id);
			PQclear(res);
			return GwRespondInternal(c, r);
		case PGRES_FATAL_ERROR:
			break;
		default:
			GwLog("request %s: unexpected result %s", r->id, PQresStatus(PQresultStatus(res)));
			PQclear(res);
			return GwRespondInternal(c, r);
	}

	state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	detail = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
	context = PQresultErrorField(res, PG_DIAG_CONTEXT);
	if (state == NULL)
	{
		GwLog("request %s: %s", r->id, PQresultErrorMessage(res));
		ret = GwRespondInternal(c, r);
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
		ret = GwRespond(c, r, status, detail,
						NulJsonOut((char *) detail, strlen(detail)), r->content_type);
	}
	/* the body could not be read as jsonb: an error binding parameter $2 */
	else if ((strncmp(state, "22", 2) == 0 || strcmp(state, "54001") == 0) &&
			 context && strstr(context, "parameter $2"))
		ret = GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							 "SerializationException", "The request body is not valid JSON.");
	else if (strcmp(state, "42501") == 0)
	{
		char		msg[256];

		snprintf(msg, sizeof(msg),
				 "The role of this access key is not allowed to perform dynamodb:%s on the resource.",
				 r->action);
		ret = GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
							 "AccessDeniedException", msg);
	}
	else if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0)
		ret = GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_DYNAMODB,
							 "TransactionConflictException",
							 "Transaction is ongoing for the item");
	else
	{
		GwLog("request %s: %s: %s", r->id, state, PQresultErrorMessage(res));
		ret = GwRespondInternal(c, r);
	}
	PQclear(res);
	return ret;
}

/* the answer to a job the pool finished */
enum MHD_Result
GwRespondJob(struct MHD_Connection *c, GwRequest *r)
{
	PGresult   *res = r->job.res;

	r->job.res = NULL;
	switch (r->job.status)
	{
		case JOB_RESULT:
			return respond_result(c, r, res);
		case JOB_THROTTLED:
			MetricsPoolJob(r->job.pool, true);
			return GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_DYNAMODB,
								  "ThrottlingException", "Rate of requests exceeds the allowed throughput.");
		case JOB_ROLE_DENIED:
			GwLog("request %s: the login role cannot act as role \"%s\" (GRANT it to the login role)",
				  r->id, r->role);
			return GwRespondError(c, r, MHD_HTTP_BAD_REQUEST, NS_SERVICE,
								  "AccessDeniedException",
								  "The gateway is not allowed to act as the role of this access key.");
		case JOB_NO_CONNECTION:
		case JOB_CONNECTION_LOST:
		case JOB_ROLE_FAILED:
			break;
	}
	PQclear(res);
	return GwRespondInternal(c, r);
}
