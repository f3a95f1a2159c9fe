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
	bool		counted;		/* not GET or HEAD: counted in the metrics */
	const char *error;			/* the answer's error type (metrics) */
	char		error_buf[64];	/* ... when it came from the database */
} GwRequest;

/* respond.c */
extern bool GwRequestIdInit(void);
extern void GwMakeRequestId(char *out);
extern enum MHD_Result GwRespondOwned(struct MHD_Connection *c, GwRequest *r,
									  unsigned status, const char *body, size_t len,
									  const char *content_type, PGresult *res);
extern enum MHD_Result GwRespond(struct MHD_Connection *c, GwRequest *r, unsigned status,
								 const char *body, size_t len, const char *content_type);
extern enum MHD_Result GwRespondError(struct MHD_Connection *c, GwRequest *r,
									  unsigned status, const char *ns, const char *name,
									  const char *message);
extern enum MHD_Result GwRespondInternal(struct MHD_Connection *c, GwRequest *r);
extern enum MHD_Result GwRespondJob(struct MHD_Connection *c, GwRequest *r);

/* conn.c */
extern void ConnRequestBegun(struct MHD_Connection *c);
extern void ConnRequestArrived(struct MHD_Connection *c);
extern void ConnRequestDone(struct MHD_Connection *c);
extern void *ConnReaperMain(void *arg);
extern enum MHD_Result ConnAcceptPolicy(void *cls, const struct sockaddr *addr,
										socklen_t addrlen);
extern void ConnNotify(void *cls, struct MHD_Connection *c, void **socket_context,
					   enum MHD_ConnectionNotificationCode toe);

#endif							/* ITEM_TABLE_GW_HTTP_H */
