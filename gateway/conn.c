/*-------------------------------------------------------------------------
 *
 * conn.c
 *		item_table_gateway's HTTP connections: --max-connections (taken at
 *		accept), TCP_NODELAY, and the request deadline (--request-timeout)
 *		kept by a thread of its own (main.c's essay: "Threads").
 *
 *-------------------------------------------------------------------------
 */
#include <netinet/in.h>
#include <linux/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gw_http.h"

/*
 * One HTTP connection, for the request deadline: from the first byte of a
 * request (the accept, for the first one) until libmicrohttpd hands us its
 * last byte, at most --request-timeout seconds may pass, or ConnReaperMain()
 * shuts the socket down.  Kept in a list under conns_lock, which also
 * keeps the socket open while the reaper uses it (a connection leaves the
 * list in ConnNotify(), before libmicrohttpd closes its socket).
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

static int	open_connections;

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
void
ConnRequestBegun(struct MHD_Connection *c)
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
void
ConnRequestArrived(struct MHD_Connection *c)
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
void
ConnRequestDone(struct MHD_Connection *c)
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
void *
ConnReaperMain(void *arg)
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
 * Beyond --max-connections a new connection is closed as soon as accepted.
 * (libmicrohttpd's own limit, set higher as a backstop, would stop
 * accepting instead, leaving clients waiting in the listen queue.)
 *
 * The slot is taken here, atomically, not when the connection starts: the
 * pool's threads accept concurrently, and a check here with the count
 * raised later let two threads both take the last slot.  libmicrohttpd
 * announces the connection (ConnNotify) in the thread that accepted
 * it, right after this; the slot waits in slot_taken until then.  Should it
 * drop the socket in between (it runs out of memory), the thread's next
 * accept gives the slot back.
 */
static __thread bool slot_taken;

enum MHD_Result
ConnAcceptPolicy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
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
void
ConnNotify(void *cls, struct MHD_Connection *c, void **socket_context,
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

		/* the slot ConnAcceptPolicy took (always, unless added some other way) */
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
