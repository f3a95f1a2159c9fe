/*-------------------------------------------------------------------------
 *
 * loopio.c
 *		An event loop's waiting: its epoll and its io_uring ring, the
 *		PostgreSQL sessions' sockets it watches for pgpipe.c (LoopWatch),
 *		its listening socket, the TLS context.
 *
 * The ring.  With --io uring (the default where the gateway is built with
 * liburing and the kernel lets a process have one), a loop waits in
 * io_uring_enter rather than epoll_wait: one call per wake-up submits the
 * receives and sends of every plain connection that has one (loop.c) and
 * the polls of its sessions' sockets, and returns their completions,
 * where epoll costs a recv and a writev per request and an epoll_wait per
 * wake-up.  On this project's benchmark machine a system call costs
 * several microseconds, more than the rest of a request's HTTP work
 * (bench/gateway/PROFILE.md).  The epoll stays for what is rare (the
 * listening socket, the eventfd, TLS connections, whose I/O is OpenSSL's):
 * it is itself polled through the ring, and read without waiting when the
 * ring says it is ready.
 *
 * The ring is made by the loop's own thread, the only one that submits to
 * it (IORING_SETUP_SINGLE_ISSUER), and the work of its completions is done
 * when the loop asks for them (IORING_SETUP_DEFER_TASKRUN), not when data
 * arrives: both from Linux 6.1.  Without them, a plain ring; without a
 * ring (a kernel without io_uring, or with it disabled), epoll alone.
 *
 * A session's socket is watched by one-shot polls, armed again after each
 * event while it is watched, which is what epoll's level-triggered watch
 * gave: pgpipe.c reads what libpq has and goes back to waiting.  An
 * unwatched Watch stays allocated until its polls' last completions come
 * back (cancelled), so a completion never points to freed memory.
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <openssl/err.h>

#include "gateway.h"
#include "loopio.h"

/* io_uring: submission and completion queue entries per loop */
#define RING_SQ 1024
#define RING_CQ 8192

/* the LoopIo of the calling loop thread (LoopWatch) */
static __thread LoopIo *cur_io;

#ifdef GW_URING
/*
 * Linux 6.12's minimum wait: io_uring_enter waits for its count of
 * completions during min_wait_usec, then returns with the first one, if
 * none had come by then.  liburing before 2.8 (Debian 12 has 2.3) names
 * neither the feature bit nor the field (its header calls the field pad),
 * so both are spelled here as the kernel's header has them.
 */
#define RING_FEAT_MIN_TIMEOUT	(1U << 15)

typedef struct RingWaitArg
{
	uint64_t	sigmask;
	uint32_t	sigmask_sz;
	uint32_t	min_wait_usec;
	uint64_t	ts;
} RingWaitArg;
#endif

/* the calling thread is the loop of io */
void
IoBind(LoopIo *io)
{
	cur_io = io;
}

/* io's ring, if asked for and the kernel gives one; the epoll is made by the caller */
bool
IoInit(LoopIo *io, bool want_uring)
{
#ifdef GW_URING
	struct io_uring_params p;

	io->uring = false;
	if (!want_uring)
		return false;
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	p.cq_entries = RING_CQ;
	/*
	 * A receive is posted when its data is usually still to come (the
	 * answer just sent, the batch just queued): waiting for the socket
	 * first saves the attempt that would find nothing (Linux 5.19 on, so
	 * any kernel with the flags above).
	 */
	io->recv_ioprio = IORING_RECVSEND_POLL_FIRST;
	if (io_uring_queue_init_params(RING_SQ, &io->ring, &p) != 0)
	{
		io->recv_ioprio = 0;
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE;
		p.cq_entries = RING_CQ;
		if (io_uring_queue_init_params(RING_SQ, &io->ring, &p) != 0)
			return false;
	}
	io->min_wait = (p.features & RING_FEAT_MIN_TIMEOUT) != 0;
	io->uring = true;
	return true;
#else
	io->uring = false;
	return false;
#endif
}

#ifdef GW_URING
/*
 * IoWait
 *		Submit what is queued in io's ring and wait, at most ms in all: for
 *		want completions (and one per send queued) during min_us, then for
 *		the first one.
 *
 * A loop with several batches out on its sessions knows that as many
 * answers are coming, usually within tens of microseconds of each other:
 * woken for each, it pays a wake-up per answer; waiting min_us for them
 * all, one.  When they do not come by then (a slow statement, a commit
 * waiting for the disk) the wait goes on for the first completion, as a
 * plain wait does, so a loop never spins on the short wait.  Where the
 * kernel has no minimum wait (before Linux 6.12), or want is 1, it is
 * the plain wait.
 */
void
IoWait(LoopIo *io, unsigned want, unsigned min_us, int ms)
{
	struct __kernel_timespec ts;

	/*
	 * A send on a socket with room completes as it is submitted: the sends
	 * queued now are completions that will be there at once, which a wait
	 * for the first completion would return for at once.
	 */
	if (want > 0)
		want += io->sends_queued;
	io->sends_queued = 0;
	if (want > RING_CQ / 2)
		want = RING_CQ / 2;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long long) (ms % 1000) * 1000000;
	if (want > 1 && io->min_wait)
	{
		struct io_uring_sq *sq = &io->ring.sq;
		RingWaitArg arg;
		unsigned	to_submit;

		/* what io_uring_submit would hand the kernel: the queued entries */
		if (sq->sqe_head != sq->sqe_tail)
		{
			sq->sqe_head = sq->sqe_tail;
			io_uring_smp_store_release(sq->ktail, sq->sqe_tail);
		}
		to_submit = sq->sqe_tail - *sq->khead;
		memset(&arg, 0, sizeof(arg));
		arg.min_wait_usec = min_us;
		arg.ts = (uint64_t) (uintptr_t) &ts;
		if (syscall(__NR_io_uring_enter, io->ring.ring_fd, to_submit, want,
					IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
					&arg, sizeof(arg)) >= 0 || errno != EINVAL)
			return;
		/* refused: the plain wait from now on */
		io->min_wait = false;
	}
	{
		struct io_uring_cqe *cqe;

		(void) io_uring_submit_and_wait_timeout(&io->ring, &cqe, 1, &ts, NULL);
	}
}
#endif

/* free the unwatched Watches the ring is done with */
void
IoFreeDead(LoopIo *io)
{
	Watch	  **q = &io->dead_watches;

	while (*q)
	{
		Watch	   *w = *q;

		if (w->in_armed || w->out_armed || w->rx_armed || w->tx_armed)
		{
			q = &w->next;
			continue;
		}
		*q = w->next;
		free(w->free_later[0]);
		free(w->free_later[1]);
		free(w);
	}
}

/* the loop ends: its ring goes, cancelling what it still had */
void
IoEnd(LoopIo *io)
{
#ifdef GW_URING
	if (io->uring)
	{
		Watch	   *w;

		io_uring_queue_exit(&io->ring);
		io->uring = false;
		for (w = io->dead_watches; w; w = w->next)
			w->in_armed = w->out_armed = w->rx_armed = w->tx_armed = false;
	}
#endif
	IoFreeDead(io);
}

#ifdef GW_URING
/* a free entry of the ring (NULL: none, even after submitting) */
struct io_uring_sqe *
IoSqe(LoopIo *io)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&io->ring);

	if (sqe == NULL)
	{
		(void) io_uring_submit(&io->ring);
		sqe = io_uring_get_sqe(&io->ring);
	}
	return sqe;
}

/*
 * Submit what is queued, now: before a socket with requests in the ring
 * is closed.  A queued request names its socket by descriptor number, and
 * takes the socket only when submitted; submitted after the close, it
 * would take whatever socket was given that number next (a connection
 * accepted meanwhile, a new session), and read or write another client's
 * bytes.  Once submitted, it holds its own socket until it completes.
 */
void
IoSubmitNow(LoopIo *io)
{
	if (io->uring && io_uring_sq_ready(&io->ring) > 0)
		(void) io_uring_submit(&io->ring);
}

/* cancel the ring's request of this user data (its completion follows) */
void
IoCancel(LoopIo *io, uint64_t user_data)
{
	struct io_uring_sqe *sqe = IoSqe(io);

	if (sqe == NULL)
		return;					/* it ends with its socket's end instead */
	io_uring_prep_cancel64(sqe, user_data, 0);
	io_uring_sqe_set_data64(sqe, 0);
}

/* the epoll's readiness, reported through the ring (until it says no more) */
void
IoArmEpoll(LoopIo *io)
{
	struct io_uring_sqe *sqe = IoSqe(io);

	if (sqe == NULL)
		return;					/* armed before the next wait */
	if (io->poll_oneshot)
		io_uring_prep_poll_add(sqe, io->epfd, POLLIN);
	else
		io_uring_prep_poll_multishot(sqe, io->epfd, POLLIN);
	io_uring_sqe_set_data64(sqe, (uint64_t) (uintptr_t) io);
	io->epoll_armed = true;
}

/* cqe is the epoll's: note whether its poll goes on; true (read the epoll) */
bool
IoEpollDone(LoopIo *io, const struct io_uring_cqe *cqe)
{
	if (!(cqe->flags & IORING_CQE_F_MORE))
		io->epoll_armed = false;	/* armed again before the next wait */
	if (cqe->res < 0)
		io->poll_oneshot = true;	/* a kernel before multishot polls */
	return true;
}

/* a poll of a watched socket, for input or output */
static void
arm_watch(Watch *w, bool out)
{
	struct io_uring_sqe *sqe = IoSqe(w->io);

	if (sqe == NULL)
		return;					/* PipeTimeout's wake-up finds the session */
	io_uring_prep_poll_add(sqe, w->fd, out ? POLLOUT : POLLIN);
	io_uring_sqe_set_data64(sqe, (uint64_t) (uintptr_t) w | (out ? IO_PG_OUT : IO_PG_IN));
	if (out)
		w->out_armed = true;
	else
		w->in_armed = true;
}

/* a request of w (tag: IO_PG_*) completed: true if it is to be delivered */
bool
WatchDone(Watch *w, int tag)
{
	switch (tag)
	{
		case IO_PG_IN:
			w->in_armed = false;
			break;
		case IO_PG_OUT:
			w->out_armed = false;
			break;
		case IO_PG_RECV:
			w->rx_armed = false;
			break;
		case IO_PG_SEND:
			w->tx_armed = false;
			break;
	}
	return !w->closed;
}

/* after an event was delivered: the polls w still wants, armed again */
void
WatchRearm(Watch *w)
{
	if (w->closed)
		return;
	if (!w->in_armed && !w->ring_io)
		arm_watch(w, false);
	if (w->want_out && !w->out_armed)
		arm_watch(w, true);
}
#endif

/*
 * LoopWatch
 *		Watch a PostgreSQL session's socket on the calling loop: its
 *		PipeOnEvent(tagged, events) when it is ready for input (always) or
 *		output (while LoopWatchOutput has it on).  With ring_io, if the
 *		loop has a ring, the caller receives and sends through it instead
 *		(LoopRecv, LoopSend: PipeOnRecv and PipeOnSent when they complete)
 *		and there is no input poll.  NULL, errno set, if it cannot.
 */
void *
LoopWatch(int fd, void *tagged, bool ring_io)
{
	LoopIo	   *io = cur_io;
	Watch	   *w = calloc(1, sizeof(Watch));

	if (w == NULL)
		return NULL;
	w->io = io;
	w->fd = fd;
	w->tagged = tagged;
#ifdef GW_URING
	if (io->uring)
	{
		w->ring_io = ring_io;
		if (!ring_io)
			arm_watch(w, false);
		return w;
	}
#endif
	{
		struct epoll_event ev = {.events = EPOLLIN,.data.ptr = tagged};

		if (epoll_ctl(io->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
		{
			int			e = errno;

			free(w);
			errno = e;
			return NULL;
		}
	}
	return w;
}

/* does the caller receive and send through the ring (LoopWatch's ring_io)? */
bool
LoopWatchRingIo(void *watch)
{
	return watch != NULL && ((Watch *) watch)->ring_io;
}

/*
 * LoopRecv, LoopSend
 *		A receive into buf (room bytes at most), a send of buf (len bytes),
 *		through the ring, for a ring_io watch: buf stays where it is until
 *		PipeOnRecv or PipeOnSent is called (its result: bytes, 0 at the end
 *		of the stream, or -errno).  False if the ring has no room.
 */
bool
LoopRecv(void *watch, char *buf, size_t room)
{
#ifdef GW_URING
	Watch	   *w = watch;
	struct io_uring_sqe *sqe = IoSqe(w->io);

	if (sqe == NULL)
		return false;
	io_uring_prep_recv(sqe, w->fd, buf, room, 0);
	sqe->ioprio |= w->io->recv_ioprio;
	io_uring_sqe_set_data64(sqe, (uint64_t) (uintptr_t) w | IO_PG_RECV);
	w->rx_armed = true;
	return true;
#else
	return false;
#endif
}

bool
LoopSend(void *watch, const char *buf, size_t len)
{
#ifdef GW_URING
	Watch	   *w = watch;
	struct io_uring_sqe *sqe = IoSqe(w->io);

	if (sqe == NULL)
		return false;
	io_uring_prep_send(sqe, w->fd, buf, len, MSG_NOSIGNAL);
	w->io->sends_queued++;
	io_uring_sqe_set_data64(sqe, (uint64_t) (uintptr_t) w | IO_PG_SEND);
	w->tx_armed = true;
	return true;
#else
	return false;
#endif
}

void
LoopWatchOutput(void *watch, bool on)
{
	Watch	   *w = watch;

	if (w == NULL || w->want_out == on)
		return;
	w->want_out = on;
#ifdef GW_URING
	if (w->io->uring)
	{
		/* an output poll armed before is left to complete: a spare event */
		if (on && !w->out_armed)
			arm_watch(w, true);
		return;
	}
#endif
	{
		struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0),.data.ptr = w->tagged};

		(void) epoll_ctl(w->io->epfd, EPOLL_CTL_MOD, w->fd, &ev);
	}
}

/*
 * No more watching (before the socket is closed).  buf1 and buf2 (may be
 * NULL) are the caller's buffers of LoopRecv and LoopSend, freed here once
 * the ring is done with them.
 */
void
LoopUnwatch(void *watch, void *buf1, void *buf2)
{
	Watch	   *w = watch;

	if (w == NULL)
	{
		free(buf1);
		free(buf2);
		return;
	}
	w->closed = true;
	w->free_later[0] = buf1;
	w->free_later[1] = buf2;
#ifdef GW_URING
	if (w->io->uring)
	{
		if (w->in_armed)
			IoCancel(w->io, (uint64_t) (uintptr_t) w | IO_PG_IN);
		if (w->out_armed)
			IoCancel(w->io, (uint64_t) (uintptr_t) w | IO_PG_OUT);
		if (w->rx_armed)
			IoCancel(w->io, (uint64_t) (uintptr_t) w | IO_PG_RECV);
		if (w->tx_armed)
			IoCancel(w->io, (uint64_t) (uintptr_t) w | IO_PG_SEND);
		/* the caller closes the socket next */
		IoSubmitNow(w->io);
		w->next = w->io->dead_watches;
		w->io->dead_watches = w;
		return;
	}
#endif
	(void) epoll_ctl(w->io->epfd, EPOLL_CTL_DEL, w->fd, NULL);
	free(buf1);
	free(buf2);
	free(w);
}

/* a listening socket of one loop, on port (0: any), bound with SO_REUSEPORT */
int
IoListen(const struct sockaddr *addr, socklen_t addrlen, int port)
{
	struct sockaddr_storage a;
	int			fd,
				one = 1;

	memcpy(&a, addr, addrlen);
	if (a.ss_family == AF_INET)
		((struct sockaddr_in *) &a)->sin_port = htons((uint16_t) port);
	else
		((struct sockaddr_in6 *) &a)->sin6_port = htons((uint16_t) port);
	fd = socket(a.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	(void) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0 ||
		bind(fd, (struct sockaddr *) &a, addrlen) != 0 || listen(fd, 1024) != 0)
	{
		int			e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* the TLS context of --tls-cert and --tls-key (NULL: said on stderr) */
SSL_CTX *
IoTlsContext(void)
{
	SSL_CTX    *ctx = SSL_CTX_new(TLS_server_method());

	if (ctx == NULL || SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1)
	{
		fprintf(stderr, "item_table_gateway: cannot make a TLS context\n");
		SSL_CTX_free(ctx);
		return NULL;
	}
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
					 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	if (GwOpt.tls_cert == NULL ||
		SSL_CTX_use_certificate_chain_file(ctx, GwOpt.tls_cert) != 1)
	{
		fprintf(stderr, "item_table_gateway: cannot read %s\n",
				GwOpt.tls_cert ? GwOpt.tls_cert : "the certificate (--tls-cert)");
		SSL_CTX_free(ctx);
		return NULL;
	}
	if (GwOpt.tls_key == NULL ||
		SSL_CTX_use_PrivateKey_file(ctx, GwOpt.tls_key, SSL_FILETYPE_PEM) != 1 ||
		SSL_CTX_check_private_key(ctx) != 1)
	{
		fprintf(stderr, "item_table_gateway: cannot read %s\n",
				GwOpt.tls_key ? GwOpt.tls_key : "the private key (--tls-key)");
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

/*
 * A connection's input and output, in the clear or through TLS (ssl not
 * NULL): n bytes or more than 0, 0 at the end of the stream, else -1 with
 * errno (EAGAIN: try again when the socket is ready; *tls_read_blocked
 * set if TLS's reading waits for the socket to take output).
 */
ssize_t
IoRead(int fd, SSL *ssl, char *buf, size_t n, bool *tls_read_blocked)
{
	int			k;

	if (ssl == NULL)
		return recv(fd, buf, n, 0);
	ERR_clear_error();
	k = SSL_read(ssl, buf, n > 1048576 ? 1048576 : (int) n);
	if (k > 0)
		return k;
	switch (SSL_get_error(ssl, k))
	{
		case SSL_ERROR_WANT_WRITE:
			*tls_read_blocked = true;
			/* FALLTHROUGH */
		case SSL_ERROR_WANT_READ:
			errno = EAGAIN;
			return -1;
		case SSL_ERROR_ZERO_RETURN:
			return 0;
		default:
			errno = ECONNRESET;
			return -1;
	}
}

ssize_t
IoWrite(int fd, SSL *ssl, const char *buf, size_t n)
{
	int			k;

	if (ssl == NULL)
		return send(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	ERR_clear_error();
	k = SSL_write(ssl, buf, n > 1048576 ? 1048576 : (int) n);
	if (k > 0)
		return k;
	switch (SSL_get_error(ssl, k))
	{
		case SSL_ERROR_WANT_WRITE:
		case SSL_ERROR_WANT_READ:
			errno = EAGAIN;
			return -1;
		default:
			errno = EPIPE;
			return -1;
	}
}
