/*-------------------------------------------------------------------------
 *
 * loop.c
 *		item_table_gateway's event-loop engine (--engine loop): HTTP read,
 *		parsed and answered by --threads loops, each an epoll of its own
 *		with a listening socket of its own, without libmicrohttpd.
 *
 * Why.  bench/gateway/PROFILE.md: with libmicrohttpd a GetItem costs 15
 * system calls and several thread hand-offs, and libmicrohttpd zeroes
 * 48 KB per request.  Here a request costs one recv and one writev on the
 * HTTP side with --io epoll, and a share of one io_uring_enter per wake-up
 * with --io uring (loopio.c), and its connection never changes threads.
 *
 * The loops.  Each loop thread has a listening socket bound with
 * SO_REUSEPORT to the same address (the kernel spreads new connections
 * among them), an epoll, an eventfd (answers and jobs handed over by other
 * loops, shutdown), its share of the PostgreSQL sessions (pgpipe.c) and
 * the connections it accepted, each registered once, edge-triggered, for
 * input and output: a connection remembers whether its socket may have
 * more to read (an edge came and the last recv filled the buffer) and
 * whether it can take more output, so that a request costs one recv (a
 * short read means the socket is drained) and one writev (the status line
 * and headers from the connection's buffer, the body straight from the
 * PostgreSQL result).
 *
 * Through the ring (--io uring, plain connections).  A connection that
 * reads a request has one receive in the loop's ring, into its input
 * buffer, which does not move until the receive completes (post_recv,
 * on_recv); an answer is copied into the connection's output buffer and
 * sent by the ring (ring_answer, on_sent), the next request being read
 * meanwhile if nothing follows the answered one in the buffer, and served
 * once the answer is out, so that answers leave in order.  A connection
 * closed with a receive or send in the ring has them cancelled and is
 * freed when their completions are back (free_dead).  The ring's
 * submissions and completions are all handled on the loop's thread,
 * once per wake-up (ring_wait).
 *
 * A connection's life.  Its input buffer holds the head of the request
 * being served, parsed in place (http1.c), then the bytes after it: the
 * body is copied out as it arrives (Content-Length or chunked), and a
 * pipelined next request waits in the buffer until the answer is out.
 * The head is capped at LOOP_HEAD_MAX bytes (431, then closed, past it,
 * as libmicrohttpd refuses a head its 32 KB pool cannot hold).  With the
 * head in: request.c's GwRequestHead (the framing checks, an announced
 * oversize body), then "100 Continue" if the client expects it and the
 * body has not begun, then the body, then request.c's GwHandleRequest,
 * which answers at once, queues a job (pgpipe.c's PipeSubmit) or waits
 * for its access key (keys.c's thread).  At the end of each wake-up the
 * loop sends the jobs queued in it, in batches, on its own sessions; their
 * answers are read when a session's socket is readable, and the finished
 * request goes on the loop's list of answered ones (loop_resume; from
 * another thread, with a write to the loop's eventfd, when a loop without
 * sessions handed the job to one that has, or a key was read), which the
 * loop answers before it sleeps, going on with the next request in the
 * buffer.  While a request waits, its connection reads nothing more.
 *
 * Limits kept as the other engine keeps them: --max-connections (conn.c's
 * count, taken at accept; past it the connection is accepted and closed at
 * once), --request-timeout (from the first byte of a request, or the
 * accept for the first, until its last byte; checked a few times per
 * deadline by each loop on its own connections), --timeout (idle time,
 * not counting a request with the pool).
 *
 * Shutdown (main.c): LoopQuiesce closes the listening sockets; main waits
 * for the requests in progress; LoopStop ends the loops and closes their
 * connections.
 *
 * TLS (--tls-cert, --tls-key) is OpenSSL's on the non-blocking socket:
 * SSL_read and SSL_write in place of recv and send (the handshake happens
 * within the first SSL_read), an answer written as one buffer, and a
 * connection read until OpenSSL wants more input (it may hold a record
 * already read from the socket), rather than until a short read.
 *
 *-------------------------------------------------------------------------
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "http1.h"
#include "loopio.h"

/* the largest request head taken */
#define LOOP_HEAD_MAX (32 * 1024)
/* a request body's buffer kept for the next request up to this size */
#define LOOP_BODY_KEEP (64 * 1024)
/* room for the body's bytes after a head */
#define LOOP_BODY_ROOM (16 * 1024)

#define LOOP_EVENTS 64

typedef enum LoopState
{
	LS_HEAD,					/* reading a request's head */
	LS_BODY,					/* ... its body, Content-Length */
	LS_CHUNKED,					/* ... its body, chunked */
	LS_POOL,					/* its job is with the pool */
	LS_FLUSH,					/* its answer is partly written */
	LS_CLOSED					/* closed, freed once the pool is done */
} LoopState;

typedef struct Loop Loop;


typedef struct LoopConn
{
	struct LoopConn *prev;
	struct LoopConn *next;		/* the loop's list */
	struct LoopConn *done_next; /* the loop's list of answered jobs */
	Loop	   *loop;
	int			fd;
	LoopState	state;
	bool		readable;		/* the socket may have more to read */
	bool		writable;		/* ... may take more output */
	bool		eof;			/* the client has closed its side */
	bool		answered;		/* the request's answer is queued */
	bool		close_after;	/* close once the answer is out */
	bool		in_request;		/* req is begun (GwRequestBegin) */
	SSL		   *ssl;			/* TLS (--tls-cert), else NULL */
	bool		tls_read_blocked;	/* TLS reading waits for output room */
	bool		uring;			/* input and output through the loop's ring */
	bool		rx_busy;		/* ... a receive is in the ring */
	bool		tx_busy;		/* ... a send is in the ring */

	char	   *in;				/* input: the head, then what follows */
	size_t		in_len;
	size_t		in_cap;
	size_t		head_len;		/* the head's bytes at the start of in */
	size_t		pos;			/* what follows the head, read up to here */
	uint64_t	body_left;		/* Content-Length still to come */
	H1Chunks	chunks;
	H1Head		head;
	GwFraming	framing;

	char	   *out;			/* unwritten rest of an answer (io_uring:
								 * the answer, in a buffer kept) */
	size_t		out_len;
	size_t		out_off;
	size_t		out_cap;		/* io_uring: out's size */

	int64_t		since_ms;		/* the request began (-1: none begun) */
	int64_t		io_ms;			/* last input or output */
	struct sockaddr_storage addr;
	GwRequest	req;
} LoopConn;

struct Loop
{
	pthread_t	thread;
	LoopIo		io;				/* its epoll (io.epfd) and ring */
	int			lfd;			/* listening socket (-1: closed) */
	int			efd;			/* eventfd: jobs answered, quiesce, stop */
	LoopConn   *conns;
	LoopConn   *dead;			/* closed in this wake-up, freed after it */
	LoopConn   *done;			/* answered jobs, pushed by pool threads */
	bool		quiesce;
	bool		stop;
	int64_t		now_ms;
	time_t		date_sec;		/* the Date header, once per second */
	char		date[40];
};

static Loop *loops;
static int	nloops;
static __thread Loop *cur_loop;	/* the loop of the calling thread */
static SSL_CTX *tls_ctx;		/* --tls-cert and --tls-key, else NULL */

/* epoll's data: the listening socket and the eventfd are told apart by these */
static uint64_t listen_tag;
static uint64_t event_tag;

/* an answer, or part of one, is still to be written */
static inline bool
out_pending(const LoopConn *c)
{
	return c->tx_busy || c->out_off < c->out_len;
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A connection's input and output, in the clear or through TLS: n bytes
 * or more than 0, 0 at the end of the stream, else -1 with errno (EAGAIN:
 * try again when the socket is ready).
 */
static ssize_t
conn_read(LoopConn *c, char *buf, size_t n)
{
	return IoRead(c->fd, c->ssl, buf, n, &c->tls_read_blocked);
}

static ssize_t
conn_write(LoopConn *c, const char *buf, size_t n)
{
	return IoWrite(c->fd, c->ssl, buf, n);
}


static void
conn_close(LoopConn *c)
{
	Loop	   *l = c->loop;

	if (c->fd >= 0)
	{
		char		sink[4096];
		int			i;

		/*
		 * The answer first, then the end of our side; what the client sent
		 * and we did not read is read and dropped, as a close with unread
		 * input would reset the connection and could lose the answer.
		 */
		if (c->ssl)
		{
			ERR_clear_error();
			(void) SSL_shutdown(c->ssl);
			SSL_free(c->ssl);
			c->ssl = NULL;
		}
		(void) shutdown(c->fd, SHUT_WR);
		for (i = 0; i < 256 && recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
			;
#ifdef GW_URING
		/* what the ring still does for it: cancelled, completing with an error */
		if (c->rx_busy)
			IoCancel(&l->io, (uint64_t) (uintptr_t) c | IO_RECV);
		if (c->tx_busy)
			IoCancel(&l->io, (uint64_t) (uintptr_t) c | IO_SEND);
		if (c->rx_busy || c->tx_busy)
			IoSubmitNow(&l->io);	/* before the descriptor is reused */
#endif
		close(c->fd);			/* also leaves the epoll */
		c->fd = -1;
		ConnSlotGive();
	}
	if (c->state == LS_POOL)
	{
		/* the pool still has the request: freed when it answers */
		c->state = LS_CLOSED;
		return;
	}
	if (c->in_request)
		GwRequestEnd(&c->req);
	if (c->prev)
		c->prev->next = c->next;
	else if (l->conns == c)
		l->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	/* freed after this wake-up: an event of it may still be in the batch */
	c->next = l->dead;
	l->dead = c;
}

static void
free_dead(Loop *l)
{
	LoopConn  **p = &l->dead;

	IoFreeDead(&l->io);

	while (*p)
	{
		LoopConn   *c = *p;

		/* the ring's last completions for it are still to come */
		if (c->rx_busy || c->tx_busy)
		{
			p = &c->next;
			continue;
		}
		*p = c->next;
		free(c->in);
		free(c->out);
		free(c->req.body);
		free(c);
	}
}

/* an answer of HTTP's own, before any request is begun, then close */
static void
raw_answer(LoopConn *c, unsigned status)
{
	char		buf[256];
	const char *reason = MHD_get_reason_phrase_for(status);
	int			n;

	n = snprintf(buf, sizeof(buf),
				 "HTTP/1.1 %u %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
				 status, reason ? reason : "Error");
	(void) conn_write(c, buf, (size_t) n);
	c->close_after = true;
	c->answered = true;
}

/* ----------------------------------------------------------------
 * GwHttpOps for this engine
 * ----------------------------------------------------------------
 */

static const char *
loop_header(GwRequest *r, const char *name)
{
	return H1Header(&((LoopConn *) r->conn)->head, name);
}

static int
loop_pairs(GwRequest *r, bool query, GwPair *out, int max)
{
	H1Head	   *h = &((LoopConn *) r->conn)->head;
	int			n = query ? h->nargs : h->nheaders;

	if ((query ? h->args_overflow : h->headers_overflow) || n > max)
		return -1;
	memcpy(out, query ? h->args : h->headers, sizeof(GwPair) * (size_t) n);
	return n;
}

static void
loop_remote(GwRequest *r, char *out, size_t outlen)
{
	LoopConn   *c = r->conn;

	snprintf(out, outlen, "-");
	if (c->addr.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *) &c->addr)->sin_addr, out, outlen);
	else if (c->addr.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *) &c->addr)->sin6_addr, out, outlen);
}

static void
put(char **p, const char *s)
{
	size_t		n = strlen(s);

	memcpy(*p, s, n);
	*p += n;
}

/* write what is left of the answer; false if the connection broke */
static bool
flush_out(LoopConn *c)
{
	while (c->out_off < c->out_len)
	{
		ssize_t		n = conn_write(c, c->out + c->out_off, c->out_len - c->out_off);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
			{
				c->writable = false;
				return true;
			}
			return false;
		}
		c->out_off += (size_t) n;
	}
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	return true;
}

#ifdef GW_URING
/* send the rest of c's answer through the ring */
static bool
post_send(LoopConn *c)
{
	struct io_uring_sqe *sqe = IoSqe(&c->loop->io);

	if (sqe == NULL)
		return false;
	io_uring_prep_send(sqe, c->fd, c->out + c->out_off, c->out_len - c->out_off,
					   MSG_NOSIGNAL);
	c->loop->io.sends_queued++;
	io_uring_sqe_set_data64(sqe, (uint64_t) (uintptr_t) c | IO_SEND);
	c->tx_busy = true;
	return true;
}

/*
 * An answer through the ring: copied into the connection's buffer (the
 * body's owner may free it at once), sent by the loop's next submission.
 */
static bool
ring_answer(LoopConn *c, const struct iovec *iov)
{
	size_t		need = iov[0].iov_len + iov[1].iov_len;

	if (c->fd < 0)
		return false;
	if (c->out_cap < need)
	{
		char	   *b = realloc(c->out, need);

		if (b == NULL)
			return false;
		c->out = b;
		c->out_cap = need;
	}
	memcpy(c->out, iov[0].iov_base, iov[0].iov_len);
	if (iov[1].iov_len)
		memcpy(c->out + iov[0].iov_len, iov[1].iov_base, iov[1].iov_len);
	c->out_len = need;
	c->out_off = 0;
	return post_send(c);
}
#endif

static enum MHD_Result
loop_send(GwRequest *r, unsigned status, const char *content_type, const char *crc,
		  const char *body, size_t len, void (*release) (void *), void *cls)
{
	LoopConn   *c = r->conn;
	Loop	   *l = c->loop;
	char		head[1024];
	char	   *p = head;
	const char *reason = MHD_get_reason_phrase_for(status);
	struct iovec iov[2];
	size_t		total,
				done = 0;
	bool		head_only = strcmp(c->head.method, "HEAD") == 0;
	bool		ok = true;

	if (r->close || r->too_big)
		c->close_after = true;
	if (l->date_sec != time(NULL))
	{
		struct tm	tm;

		l->date_sec = time(NULL);
		gmtime_r(&l->date_sec, &tm);
		strftime(l->date, sizeof(l->date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	}
	put(&p, "HTTP/1.1 ");
	p = GwPutDecimal(p, status);
	put(&p, " ");
	put(&p, reason && strlen(reason) < 64 ? reason : "Unknown");
	put(&p, "\r\nDate: ");
	put(&p, l->date);
	put(&p, "\r\nContent-Length: ");
	p = GwPutDecimal(p, len);
	if (strlen(content_type) < 128)
	{
		put(&p, "\r\nContent-Type: ");
		put(&p, content_type);
	}
	if (crc)
	{
		put(&p, "\r\nx-amzn-RequestId: ");
		put(&p, r->id);
		put(&p, "\r\nx-amz-crc32: ");
		put(&p, crc);
	}
	put(&p, c->close_after ? "\r\nConnection: close\r\n\r\n" : "\r\n\r\n");

	iov[0].iov_base = head;
	iov[0].iov_len = (size_t) (p - head);
	iov[1].iov_base = (void *) body;
	iov[1].iov_len = head_only ? 0 : len;
	total = iov[0].iov_len + iov[1].iov_len;
#ifdef GW_URING
	if (c->uring)
	{
		ok = ring_answer(c, iov);
		done = total;
	}
#endif
	/* through TLS: one buffer, written as below */
	if (!c->uring && c->writable && c->fd >= 0 && c->ssl == NULL)
	{
		for (;;)
		{
			ssize_t		n = writev(c->fd, iov, iov[1].iov_len ? 2 : 1);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				c->writable = false;
			else if (n < 0)
				ok = false;
			else
				done = (size_t) n;
			break;
		}
	}
	if (ok && done < total)
	{
		/* keep the rest, written as the socket drains */
		c->out = malloc(total - done);
		if (c->out == NULL)
			ok = false;
		else
		{
			size_t		o = 0;
			int			i;

			for (i = 0; i < 2; i++)
			{
				size_t		skip = done > iov[i].iov_len ? iov[i].iov_len : done;

				memcpy(c->out + o, (char *) iov[i].iov_base + skip, iov[i].iov_len - skip);
				o += iov[i].iov_len - skip;
				done -= skip;
			}
			c->out_len = o;
			c->out_off = 0;
			if (c->writable && !flush_out(c))
				ok = false;
		}
	}
	if (release)
		release(cls);
	if (!ok)
		c->close_after = true;
	c->answered = true;
	c->io_ms = l->now_ms;
	return ok ? MHD_YES : MHD_NO;
}

static void
loop_suspend(GwRequest *r)
{
	((LoopConn *) r->conn)->state = LS_POOL;
}

/* a pool thread: hand the answered request back to its loop */
static void
loop_resume(GwRequest *r)
{
	LoopConn   *c = r->conn;
	Loop	   *l = c->loop;
	LoopConn   *head = __atomic_load_n(&l->done, __ATOMIC_ACQUIRE);

	do
		c->done_next = head;
	while (!__atomic_compare_exchange_n(&l->done, &head, c, true,
										__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	/* answered on its own loop (pgpipe.c): seen before the loop sleeps */
	if (head == NULL && cur_loop != l)
	{
		uint64_t	one = 1;

		if (write(l->efd, &one, sizeof(one)) < 0)
			return;			/* the counter is full: the loop is awake anyway */
	}
}

static const GwHttpOps loop_ops = {
	.header = loop_header,
	.pairs = loop_pairs,
	.send = loop_send,
	.remote = loop_remote,
	.suspend = loop_suspend,
	.resume = loop_resume,
	.direct = false,
};

/* ----------------------------------------------------------------
 * Reading requests
 * ----------------------------------------------------------------
 */

static bool
body_data(void *cls, const char *p, size_t n)
{
	return GwRequestBody(cls, p, n);
}

/* drop what has been read past the head, keeping the unread rest */
static void
compact(LoopConn *c)
{
	if (c->pos > c->head_len)
	{
		memmove(c->in + c->head_len, c->in + c->pos, c->in_len - c->pos);
		c->in_len -= c->pos - c->head_len;
		c->pos = c->head_len;
	}
}

/* the head is in: begin the request; false if the connection is done */
static bool
begin_request(LoopConn *c, size_t skip, size_t end)
{
	GwRequest  *r = &c->req;
	unsigned	status;
	enum MHD_Result ret;
	char	   *body = r->body;
	size_t		cap = r->cap;

	/* room for the body after the head, before pointers into it are made */
	if (c->in_cap < end + LOOP_BODY_ROOM)
	{
		char	   *b = realloc(c->in, end + LOOP_BODY_ROOM);

		if (b == NULL)
			return false;
		c->in = b;
		c->in_cap = end + LOOP_BODY_ROOM;
	}
	c->head_len = c->pos = end;
	status = H1ParseHead(c->in, skip, end, &c->head, &c->framing);
	if (status != 0)
	{
		raw_answer(c, status);
		return false;
	}

	/* the request, its body buffer kept from the last one */
	memset(r, 0, sizeof(*r));
	r->body = body;
	r->cap = cap;
	if (body)
		body[0] = '\0';
	GwRequestBegin(r, &loop_ops, c, c->head.method);
	c->in_request = true;
	c->answered = false;
	c->close_after = c->head.close;
	if (GwRequestHead(r, &c->framing, c->head.http10, &ret))
	{
		c->close_after = true;
		return true;
	}
	if (c->framing.encodings > 0)
	{
		c->state = LS_CHUNKED;
		c->chunks.state = H1_CHUNK_SIZE;
	}
	else
	{
		c->state = LS_BODY;
		c->body_left = c->framing.length ? strtoull(c->framing.length, NULL, 10) : 0;
	}
	if (c->head.expect_continue && !c->head.http10 && c->in_len == end &&
		(c->state == LS_CHUNKED || c->body_left > 0))
	{
		static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";

		(void) conn_write(c, cont, sizeof(cont) - 1);
	}
	return true;
}

/* the answer is out: on to the next request in the buffer */
static void
request_finished(LoopConn *c)
{
	GwRequestEnd(&c->req);
	c->in_request = false;
	/* a large body's buffer is not kept for the next request */
	if (c->req.cap > LOOP_BODY_KEEP)
	{
		free(c->req.body);
		c->req.body = NULL;
		c->req.cap = 0;
	}
	memmove(c->in, c->in + c->pos, c->in_len - c->pos);
	c->in_len -= c->pos;
	c->pos = c->head_len = 0;
	c->state = LS_HEAD;
	c->answered = false;
	c->close_after = false;
	c->since_ms = c->in_len > 0 ? c->loop->now_ms : -1;
}

/*
 * Serve what the buffer holds: parse, read bodies, answer, as far as it
 * goes.  False if the connection is to be closed.
 */
static bool
serve(LoopConn *c)
{
	for (;;)
	{
		/* answers go out in order: nothing new while one is being sent */
		if (c->tx_busy && !c->answered)
			return true;
		if (c->answered)
		{
			if (c->tx_busy && !c->close_after && c->in_len == c->pos)
			{
				/*
				 * The answer is with the ring and nothing follows it in
				 * the buffer: the next request is read while it goes out
				 * (served once it is out: on_sent).
				 */
				request_finished(c);
				return true;
			}
			if (out_pending(c))
			{
				c->state = LS_FLUSH;
				return true;
			}
			if (c->close_after)
				return false;
			request_finished(c);
		}
		switch (c->state)
		{
			case LS_HEAD:
				{
					size_t		skip,
								end = H1HeadEnd(c->in, c->in_len, &skip);

					if (c->in_len > 0 && c->since_ms < 0)
						c->since_ms = c->loop->now_ms;
					if (end == 0)
					{
						if (c->in_len - skip > LOOP_HEAD_MAX)
						{
							raw_answer(c, c->head_len == 0 &&
									   memmem(c->in, c->in_len, "\r\n", 2) == NULL ? 414 : 431);
							return false;
						}
						return true;
					}
					if (end > LOOP_HEAD_MAX)
					{
						raw_answer(c, 431);
						return false;
					}
					if (!begin_request(c, skip, end))
						return false;
				}
				break;
			case LS_BODY:
				{
					size_t		n = c->in_len - c->pos;

					if (n > c->body_left)
						n = (size_t) c->body_left;
					if (n > 0 && !GwRequestBody(&c->req, c->in + c->pos, n))
						return false;
					c->pos += n;
					c->body_left -= n;
					compact(c);
					if (c->body_left > 0)
						return true;
				}
				goto arrived;
			case LS_CHUNKED:
				{
					unsigned	status;
					bool		done;

					c->pos += H1Chunked(&c->chunks, c->in + c->pos, c->in_len - c->pos,
										body_data, &c->req, &status, &done);
					compact(c);
					if (status != 0)
					{
						raw_answer(c, status);
						return false;
					}
					if (!done)
						return true;
				}
				goto arrived;
			case LS_POOL:
			case LS_FLUSH:
			case LS_CLOSED:
				return true;
		}
		continue;

arrived:
		/* the whole request is in: no deadline while it is answered */
		c->since_ms = -1;
		if (GwHandleRequest(&c->req, c->head.method, c->head.path) == MHD_NO && !c->answered)
			return false;
		if (c->state == LS_POOL && !c->answered)
			return true;
	}
}

/* the connection reads a request */
static inline bool
reading(const LoopConn *c)
{
	return c->state == LS_HEAD || c->state == LS_BODY || c->state == LS_CHUNKED;
}

/*
 * Room in the input buffer for what comes next; false if the connection
 * was closed instead (a head too large, no memory).
 *
 * Only while a head is read does the buffer grow (nothing points into it
 * yet); a body is copied out as it comes, so the room after its head
 * (LOOP_BODY_ROOM) does not fill.
 */
static bool
in_room(LoopConn *c)
{
	if (c->state == LS_HEAD && c->in_cap - c->in_len < 4096)
	{
		size_t		cap = c->in_cap ? c->in_cap * 2 : 8192;
		char	   *b;

		if (c->in_len > LOOP_HEAD_MAX + 4096)
		{
			raw_answer(c, 431);
			conn_close(c);
			return false;
		}
		b = realloc(c->in, cap);
		if (b == NULL)
		{
			conn_close(c);
			return false;
		}
		c->in = b;
		c->in_cap = cap;
	}
	if (c->in_cap == c->in_len)
	{
		conn_close(c);
		return false;
	}
	return true;
}

/* read what the socket has, serving as it comes */
static void
on_input(LoopConn *c)
{
	while (c->readable && reading(c))
	{
		ssize_t		n;
		size_t		room;

		if (!in_room(c))
			return;
		room = c->in_cap - c->in_len;
		n = conn_read(c, c->in + c->in_len, room);
		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
			{
				c->readable = false;
				break;
			}
			conn_close(c);
			return;
		}
		if (n == 0)
		{
			c->eof = true;
			c->readable = false;
			conn_close(c);
			return;
		}
		c->io_ms = c->loop->now_ms;
		c->in_len += (size_t) n;
		/* a short read drained the socket (TLS may hold more: read on) */
		if ((size_t) n < room && c->ssl == NULL)
			c->readable = false;
		if (!serve(c))
		{
			conn_close(c);
			return;
		}
	}
}

/* the socket took more output */
static void
on_output(LoopConn *c)
{
	if (c->state != LS_FLUSH)
		return;
	if (!flush_out(c))
	{
		conn_close(c);
		return;
	}
	if (c->out != NULL)
		return;
	c->state = LS_HEAD;			/* replaced by request_finished in serve */
	if (!serve(c))
	{
		conn_close(c);
		return;
	}
	on_input(c);
}

#ifdef GW_URING
/*
 * io_uring's side of a connection: a receive in the ring whenever the
 * connection reads a request (one at a time, into the input buffer, which
 * stays where it is until it completes), a send whenever an answer is
 * out (ring_answer).  They are submitted together, and waited for, once
 * per wake-up (loop_main).
 */
static void
post_recv(LoopConn *c)
{
	struct io_uring_sqe *sqe;

	if (c->fd < 0 || c->rx_busy || !reading(c) || (c->tx_busy && c->in_len > 0))
		return;
	if (!in_room(c))
		return;
	sqe = IoSqe(&c->loop->io);
	if (sqe == NULL)
	{
		conn_close(c);
		return;
	}
	io_uring_prep_recv(sqe, c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
	sqe->ioprio |= c->loop->io.recv_ioprio;
	io_uring_sqe_set_data64(sqe, (uint64_t) (uintptr_t) c | IO_RECV);
	c->rx_busy = true;
}

static void
on_recv(LoopConn *c, int res)
{
	c->rx_busy = false;
	if (c->fd < 0)
		return;					/* closed meanwhile (the cancel's completion) */
	if (res == -EINTR || res == -EAGAIN)
	{
		post_recv(c);
		return;
	}
	if (res <= 0)
	{
		c->eof = res == 0;
		conn_close(c);
		return;
	}
	c->io_ms = c->loop->now_ms;
	c->in_len += (size_t) res;
	if (c->tx_busy)
		return;					/* served once the answer before is out */
	if (!serve(c))
	{
		conn_close(c);
		return;
	}
	post_recv(c);
}

static void
on_sent(LoopConn *c, int res)
{
	c->tx_busy = false;
	if (c->fd < 0)
		return;
	if (res == -EINTR || res == -EAGAIN)
		res = 0;
	else if (res < 0)
	{
		conn_close(c);
		return;
	}
	c->out_off += (size_t) res;
	c->io_ms = c->loop->now_ms;
	if (c->out_off < c->out_len)
	{
		if (!post_send(c))
			conn_close(c);
		return;
	}
	c->out_len = c->out_off = 0;
	if (c->out_cap > LOOP_BODY_KEEP)
	{
		free(c->out);
		c->out = NULL;
		c->out_cap = 0;
	}
	if (c->state == LS_FLUSH)
		c->state = LS_HEAD;		/* replaced by request_finished in serve */
	if (!serve(c))
	{
		conn_close(c);
		return;
	}
	post_recv(c);
}
#endif

/* read what comes next, through the ring or at once */
static void
want_input(LoopConn *c)
{
#ifdef GW_URING
	if (c->uring)
	{
		post_recv(c);
		return;
	}
#endif
	on_input(c);
}

/* these connections' jobs are answered, or their access keys read */
static void
on_answers(Loop *l)
{
	LoopConn   *c = __atomic_exchange_n(&l->done, NULL, __ATOMIC_ACQ_REL),
			   *rev = NULL;

	/* the list is newest first: answer in the order they finished */
	while (c)
	{
		LoopConn   *next = c->done_next;

		c->done_next = rev;
		rev = c;
		c = next;
	}
	while (rev)
	{
		c = rev;
		rev = rev->done_next;
		if (c->state == LS_CLOSED)
		{
			c->state = LS_HEAD;
			conn_close(c);
			continue;
		}
		c->state = LS_HEAD;
		/* the job's answer; or, its access key read, the request again */
		if (GwHandleRequest(&c->req, c->head.method, c->head.path) == MHD_NO && !c->answered)
		{
			conn_close(c);
			continue;
		}
		if (!serve(c))
		{
			conn_close(c);
			continue;
		}
		want_input(c);
	}
}

static void
on_accept(Loop *l)
{
	for (;;)
	{
		struct sockaddr_storage addr;
		socklen_t	alen = sizeof(addr);
		int			fd = accept4(l->lfd, (struct sockaddr *) &addr, &alen,
								 SOCK_NONBLOCK | SOCK_CLOEXEC);
		int			one = 1;
		LoopConn   *c;
		struct epoll_event ev;

		if (fd < 0)
		{
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;				/* EAGAIN, or out of files: retried on the next edge */
		}
		if (!ConnSlotTake())
		{
			if (GwOpt.log)
				GwLog("connection refused: %d connections are open", GwOpt.max_connections);
			close(fd);
			continue;
		}
		c = calloc(1, sizeof(LoopConn));
		if (c == NULL)
		{
			ConnSlotGive();
			close(fd);
			continue;
		}
		(void) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (tls_ctx)
		{
			c->ssl = SSL_new(tls_ctx);
			if (c->ssl == NULL || SSL_set_fd(c->ssl, fd) != 1)
			{
				SSL_free(c->ssl);
				ConnSlotGive();
				close(fd);
				free(c);
				continue;
			}
			SSL_set_accept_state(c->ssl);
		}
		c->loop = l;
		c->fd = fd;
		c->state = LS_HEAD;
		c->writable = true;
		c->since_ms = l->now_ms;	/* the first request's deadline runs from the accept */
		c->io_ms = l->now_ms;
		memcpy(&c->addr, &addr, alen < sizeof(addr) ? alen : sizeof(addr));
		c->uring = l->io.uring && c->ssl == NULL;
		ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
		ev.data.ptr = c;
		if (!c->uring && epoll_ctl(l->io.epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
		{
			SSL_free(c->ssl);
			ConnSlotGive();
			close(fd);
			free(c);
			continue;
		}
		c->next = l->conns;
		if (l->conns)
			l->conns->prev = c;
		l->conns = c;
		if (c->uring)
			want_input(c);
	}
}

/* the deadlines: a request not whole in time, an idle connection */
static void
check_deadlines(Loop *l)
{
	int64_t		deadline = (int64_t) GwOpt.request_timeout * 1000;
	int64_t		idle = (int64_t) GwOpt.timeout * 1000;
	LoopConn   *c,
			   *next;
	int			cut = 0;

	for (c = l->conns; c; c = next)
	{
		next = c->next;
		if (c->state == LS_POOL || c->state == LS_CLOSED)
			continue;
		if (c->since_ms >= 0 && c->state != LS_FLUSH &&
			l->now_ms - c->since_ms >= deadline)
		{
			cut++;
			conn_close(c);
		}
		else if (idle > 0 && l->now_ms - c->io_ms >= idle)
			conn_close(c);
	}
	if (cut > 0 && GwOpt.log)
		GwLog("closed %d connection%s: no whole request within %d s (--request-timeout)",
			  cut, cut == 1 ? "" : "s", GwOpt.request_timeout);
}

/* what the epoll says: the listening socket, the eventfd, connections, sessions */
static void
on_events(Loop *l, struct epoll_event *events, int n)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		void	   *p = events[i].data.ptr;

		if ((uintptr_t) p & 1)
			PipeOnEvent(p, events[i].events);	/* a PostgreSQL session */
		else if (p == &listen_tag)
			on_accept(l);
		else if (p == &event_tag)
		{
			uint64_t	v;

			if (read(l->efd, &v, sizeof(v)) < 0)
				v = 0;
			if (__atomic_load_n(&l->quiesce, __ATOMIC_ACQUIRE) && l->lfd >= 0)
			{
				close(l->lfd);
				l->lfd = -1;
			}
		}
		else
		{
			LoopConn   *c = p;
			uint32_t	e = events[i].events;

			if (c->fd < 0)
				continue;
			if (e & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			{
				c->writable = true;
				on_output(c);
				if (c->fd < 0)
					continue;
				if (c->tls_read_blocked)
				{
					c->tls_read_blocked = false;
					c->readable = true;
					on_input(c);
					continue;
				}
			}
			if (e & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP))
			{
				c->readable = true;
				on_input(c);
			}
		}
	}
}

#ifdef GW_URING
/* wait for the ring (at most ms), then do what it completed */
static void
ring_wait(Loop *l, int ms)
{
	struct io_uring_cqe *cqe;
	unsigned	head,
				seen = 0;
	bool		epoll_ready = false;

	if (!l->io.epoll_armed)
		IoArmEpoll(&l->io);
	/*
	 * With --answer-wait, the answers of the batches out (and the sends
	 * just queued) are waited for together, that long at most: one
	 * wake-up rather than one per answer (bench/gateway/PROFILE.md, step
	 * 8: tails shorter, throughput a little lower).
	 */
	IoWait(&l->io, GwOpt.answer_wait_us > 0 ? (unsigned) PipeBatchesOut() : 0,
		   (unsigned) GwOpt.answer_wait_us, ms);
	l->now_ms = mono_ms();
	io_uring_for_each_cqe(&l->io.ring, head, cqe)
	{
		uint64_t	ud = cqe->user_data;
		void	   *p = (void *) (uintptr_t) (ud & ~(uint64_t) IO_TAGS);

		seen++;
		if (ud == 0)
			continue;			/* a cancel's own completion */
		if (ud == (uint64_t) (uintptr_t) &l->io)
		{
			epoll_ready = IoEpollDone(&l->io, cqe);
			continue;
		}
		switch (ud & IO_TAGS)
		{
			case IO_RECV:
				on_recv(p, cqe->res);
				break;
			case IO_SEND:
				on_sent(p, cqe->res);
				break;
			case IO_PG_IN:
			case IO_PG_OUT:
				if (WatchDone(p, (int) (ud & IO_TAGS)))
				{
					Watch	   *w = p;

					/* poll's revents are epoll's bits */
					PipeOnEvent(w->tagged, cqe->res < 0 ? EPOLLERR : (uint32_t) cqe->res);
					WatchRearm(w);
				}
				break;
			case IO_PG_RECV:
				if (WatchDone(p, IO_PG_RECV))
					PipeOnRecv(((Watch *) p)->tagged, cqe->res);
				break;
			case IO_PG_SEND:
				if (WatchDone(p, IO_PG_SEND))
					PipeOnSent(((Watch *) p)->tagged, cqe->res);
				break;
		}
	}
	io_uring_cq_advance(&l->io.ring, seen);
	if (epoll_ready)
	{
		struct epoll_event events[LOOP_EVENTS];
		int			n;

		do
		{
			n = epoll_wait(l->io.epfd, events, LOOP_EVENTS, 0);
			on_events(l, events, n);
		} while (n == LOOP_EVENTS);
	}
}

/* the loop ends: the answers already given go out before the sockets close */
static void
ring_end(Loop *l)
{
	int			k;

	for (k = 0; k < 20; k++)
	{
		LoopConn   *c;
		bool		sending = false;

		for (c = l->conns; c && !sending; c = c->next)
			sending = c->tx_busy;
		if (!sending)
			break;
		ring_wait(l, 50);
	}
}
#endif

static void *
loop_main(void *arg)
{
	Loop	   *l = arg;
	struct epoll_event events[LOOP_EVENTS];
	int64_t		tick = (int64_t) GwOpt.request_timeout * 1000 / 8;
	int64_t		last_check;

	if (tick < 50)
		tick = 50;
	if (tick > 1000)
		tick = 1000;
	cur_loop = l;
	(void) IoInit(&l->io, GwOpt.io_uring);
	IoBind(&l->io);
	PipeLoopBegin((int) (l - loops));
	l->now_ms = last_check = mono_ms();
	while (!__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE))
	{
#ifdef GW_URING
		if (l->io.uring)
			ring_wait(l, PipeTimeout((int) tick));
		else
#endif
		{
			int			n = epoll_wait(l->io.epfd, events, LOOP_EVENTS, PipeTimeout((int) tick));

			l->now_ms = mono_ms();
			on_events(l, events, n);
		}

		/*
		 * The answers (from this loop's sessions, or another thread's),
		 * the requests they let through, and the jobs queued in this
		 * wake-up sent in batches, until nothing more is answered.
		 */
		for (;;)
		{
			PipeInbox();
			if (__atomic_load_n(&l->done, __ATOMIC_ACQUIRE))
				on_answers(l);
			PipeFlush();
			if (__atomic_load_n(&l->done, __ATOMIC_ACQUIRE) == NULL)
				break;
		}
		if (l->now_ms - last_check >= tick)
		{
			last_check = l->now_ms;
			check_deadlines(l);
		}
		free_dead(l);
	}
#ifdef GW_URING
	if (l->io.uring)
		ring_end(l);
#endif
	PipeLoopEnd();
	while (l->conns)
	{
		LoopConn   *c = l->conns;

		if (c->state == LS_POOL)
			c->state = LS_HEAD; /* left to the exit: the pool may still hold it */
		conn_close(c);
	}
#ifdef GW_URING
	if (l->io.uring)
	{
		LoopConn   *c;

		/* every request the ring had is cancelled and done with */
		IoEnd(&l->io);
		for (c = l->dead; c; c = c->next)
			c->rx_busy = c->tx_busy = false;
	}
#endif
	free_dead(l);
	return NULL;
}


/*
 * LoopStart
 *		Start --threads loops listening on addr (its port: GwOpt.port, 0 for
 *		any).
 * Returns the bound port, or -1 (errno set), or -2 (TLS's certificate or
 * key unusable: said on stderr).
 */
int
LoopStart(const struct sockaddr *addr, socklen_t addrlen)
{
	int			port = GwOpt.port,
				i;

	if (GwOpt.tls_cert || GwOpt.tls_key)
	{
		tls_ctx = IoTlsContext();
		if (tls_ctx == NULL)
			return -2;
	}
	nloops = GwOpt.threads;
	loops = calloc((size_t) nloops, sizeof(Loop));
	if (loops == NULL)
		return -1;
	for (i = 0; i < nloops; i++)
	{
		Loop	   *l = &loops[i];
		struct epoll_event ev;

		l->lfd = IoListen(addr, addrlen, port);
		if (l->lfd < 0)
			return -1;
		if (port == 0)
		{
			struct sockaddr_storage a;
			socklen_t	alen = sizeof(a);

			if (getsockname(l->lfd, (struct sockaddr *) &a, &alen) != 0)
				return -1;
			port = ntohs(a.ss_family == AF_INET ? ((struct sockaddr_in *) &a)->sin_port :
						 ((struct sockaddr_in6 *) &a)->sin6_port);
		}
		l->io.epfd = epoll_create1(EPOLL_CLOEXEC);
		l->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (l->io.epfd < 0 || l->efd < 0)
			return -1;
		ev.events = EPOLLIN;
		ev.data.ptr = &listen_tag;
		if (epoll_ctl(l->io.epfd, EPOLL_CTL_ADD, l->lfd, &ev) != 0)
			return -1;
		ev.events = EPOLLIN;
		ev.data.ptr = &event_tag;
		if (epoll_ctl(l->io.epfd, EPOLL_CTL_ADD, l->efd, &ev) != 0)
			return -1;
		PipeLoopFds(i, l->io.epfd, l->efd);
	}
	for (i = 0; i < nloops; i++)
		if (pthread_create(&loops[i].thread, NULL, loop_main, &loops[i]) != 0)
			return -1;
	return port;
}

static void
wake_all(void)
{
	int			i;
	uint64_t	one = 1;

	for (i = 0; i < nloops; i++)
		if (write(loops[i].efd, &one, sizeof(one)) < 0)
			continue;
}

/* stop accepting connections (the open ones are still served) */
void
LoopQuiesce(void)
{
	int			i;

	for (i = 0; i < nloops; i++)
		__atomic_store_n(&loops[i].quiesce, true, __ATOMIC_RELEASE);
	wake_all();
}

/* end the loops, closing their connections */
void
LoopStop(void)
{
	int			i;

	for (i = 0; i < nloops; i++)
		__atomic_store_n(&loops[i].stop, true, __ATOMIC_RELEASE);
	wake_all();
	for (i = 0; i < nloops; i++)
		pthread_join(loops[i].thread, NULL);
}
