/*-------------------------------------------------------------------------
 *
 * gw_http.h
 *		Interfaces among the HTTP side's files: the request flow (main.c),
 *		the answers (respond.c), the connections and their deadline
 *		(conn.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_GW_HTTP_H
#define ITEM_TABLE_GW_HTTP_H

#include <stdint.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "gateway.h"

#define NS_SERVICE "com.amazon.coral.service"
#define NS_VALIDATE "com.amazon.coral.validate"
#define NS_DYNAMODB "com.amazonaws.dynamodb.v20120810"

#define MSG_INTERNAL "The server encountered an internal error trying to fulfill the request."

#define CT_AMZ_JSON "application/x-amz-json-1.0"

typedef struct GwRequest GwRequest;

/*
 * What the request flow (request.c) and the answers (respond.c) need of
 * the engine that carries HTTP: libmicrohttpd's (main.c) or the event
 * loop's (loop.c).  Everything else about a request is shared.
 */
typedef struct GwHttpOps
{
	/* the value of a request header (the first of that name), or NULL */
	const char *(*header) (GwRequest *r, const char *name);
	/* the headers (query false) or the query's arguments, decoded, into
	 * out: how many, or -1 if there are more than max */
	int			(*pairs) (GwRequest *r, bool query, GwPair *out, int max);
	/*
	 * Queue an answer.  With crc, DynamoDB's headers (Content-Type,
	 * x-amzn-RequestId, x-amz-crc32) go with it, else Content-Type only.
	 * body stays valid until release(cls) is called (release NULL: body is
	 * copied at once).
	 */
	enum MHD_Result (*send) (GwRequest *r, unsigned status, const char *content_type,
							 const char *crc, const char *body, size_t len,
							 void (*release) (void *), void *cls);
	/* the client's address, for the log */
	void		(*remote) (GwRequest *r, char *out, size_t outlen);
	/* r's job was queued for the pool / the pool has answered it (called
	 * from a pool thread) */
	void		(*suspend) (GwRequest *r);
	void		(*resume) (GwRequest *r);
	/* may run a job on the calling thread when the pool is quiet */
	bool		direct;
} GwHttpOps;

/* one HTTP request in progress */
struct GwRequest
{
	GwJob		job;			/* first: job_done() finds the request from it */
	const GwHttpOps *http;		/* the engine carrying it */
	void	   *conn;			/* the engine's connection */
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
	struct GwKeyWait *key_wait; /* its access key looked up on the keys'
								 * thread (request.c), connection suspended */
	bool		answered;
	bool		close;			/* the answer closes the connection */
	bool		counted;		/* not GET or HEAD: counted in the metrics */
	const char *error;			/* the answer's error type (metrics) */
	char		error_buf[64];	/* ... when it came from the database */
};

/* request.c: the request flow, whatever the engine */
extern void GwRequestBegin(GwRequest *r, const GwHttpOps *http, void *conn,
						   const char *method);
extern void GwRequestEnd(GwRequest *r);
extern int	GwInflight(void);

/* the body's framing, from the headers one by one (request.c's comment) */
typedef struct GwFraming
{
	int			lengths;		/* Content-Length fields */
	const char *length;			/* the first one */
	bool		lengths_differ;
	int			encodings;		/* Transfer-Encoding fields */
	const char *encoding;		/* the first one */
	int			chunked;		/* "chunked" codings in them */
	int			others;			/* other codings */
	bool		chunked_last;
} GwFraming;

extern void GwFramingAdd(GwFraming *f, const char *name, const char *value);
extern unsigned GwFramingCheck(const GwFraming *f, bool http10, const char **why);
extern bool GwRequestHead(GwRequest *r, const GwFraming *f, bool http10,
						  enum MHD_Result *ret);
extern bool GwRequestBody(GwRequest *r, const char *data, size_t n);
extern enum MHD_Result GwHandleRequest(GwRequest *r, const char *method,
									   const char *url);
extern enum MHD_Result GwRespondMetrics(GwRequest *r);

/* respond.c */
extern bool GwRequestIdInit(void);
extern void GwMakeRequestId(char *out);
extern char *GwPutDecimal(char *out, uint64_t v);
extern enum MHD_Result GwRespondOwned(GwRequest *r, unsigned status,
									  const char *body, size_t len,
									  const char *content_type, PGresult *res);
extern enum MHD_Result GwRespond(GwRequest *r, unsigned status,
								 const char *body, size_t len, const char *content_type);
extern enum MHD_Result GwRespondError(GwRequest *r, unsigned status, const char *ns,
									  const char *name, const char *message);
extern enum MHD_Result GwRespondInternal(GwRequest *r);
extern enum MHD_Result GwRespondJob(GwRequest *r);

/* conn.c */
extern void ConnRequestBegun(struct MHD_Connection *c);
extern void ConnRequestArrived(struct MHD_Connection *c);
extern void ConnRequestDone(struct MHD_Connection *c);
extern void *ConnReaperMain(void *arg);
extern bool ConnSlotTake(void);
extern void ConnSlotGive(void);
extern enum MHD_Result ConnAcceptPolicy(void *cls, const struct sockaddr *addr,
										socklen_t addrlen);
extern void ConnNotify(void *cls, struct MHD_Connection *c, void **socket_context,
					   enum MHD_ConnectionNotificationCode toe);

/* loop.c: the event-loop engine (--engine loop) */
extern int	LoopStart(const struct sockaddr *addr, socklen_t addrlen);
extern void LoopQuiesce(void);
extern void LoopStop(void);

#endif							/* ITEM_TABLE_GW_HTTP_H */
