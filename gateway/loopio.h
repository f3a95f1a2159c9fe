/*-------------------------------------------------------------------------
 *
 * loopio.h
 *		What an event loop (loop.c) waits on: its epoll, its io_uring ring,
 *		the PostgreSQL sessions' sockets it watches (LoopWatch, for
 *		pgpipe.c), its listening socket and TLS.  Below loop.c and
 *		pgpipe.c, calling neither.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GW_LOOPIO_H
#define GW_LOOPIO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <openssl/ssl.h>

#ifdef GW_URING
#include <liburing.h>
#endif

/*
 * A completion's user data: an object's address (aligned to 8) with one of
 * these in its low bits; 0 is a cancel's own completion, and the LoopIo's
 * address the epoll's readiness.
 */
#define IO_RECV 1				/* a connection's receive (loop.c) */
#define IO_SEND 2				/* ... its send */
#define IO_PG_IN 3				/* a Watch's poll for input */
#define IO_PG_OUT 4				/* ... for output */
#define IO_PG_RECV 5			/* a Watch's receive (ring I/O) */
#define IO_PG_SEND 6			/* ... its send */
#define IO_TAGS 7

/* a PostgreSQL session's socket, watched by its loop */
typedef struct Watch
{
	struct LoopIo *io;
	int			fd;
	void	   *tagged;			/* what PipeOnEvent is given */
	bool		want_out;
	bool		closed;			/* unwatched */
	bool		in_armed;		/* the ring has a poll for input */
	bool		out_armed;		/* ... for output */
	bool		ring_io;		/* receives and sends through the ring, no
								 * input poll (LoopRecv, LoopSend) */
	bool		rx_armed;		/* the ring has a receive */
	bool		tx_armed;		/* ... a send */
	void	   *free_later[2];	/* the buffers of those, freed with the Watch */
	struct Watch *next;			/* dead_watches */
} Watch;

typedef struct LoopIo
{
	int			epfd;
	bool		uring;			/* waits in ring, the epoll polled through it */
	bool		epoll_armed;	/* ... the epoll's poll is in the ring */
	bool		poll_oneshot;	/* ... armed again after each completion */
	uint16_t	recv_ioprio;	/* a receive's flags: poll first (Linux 6.1
								 * rings; IoInit) */
	bool		min_wait;		/* the ring can wait for several completions
								 * a short while, then for the first (IoWait) */
	unsigned	sends_queued;	/* sends queued since the last IoWait */
	Watch	   *dead_watches;	/* unwatched, freed once the ring is done */
#ifdef GW_URING
	struct io_uring ring;
#endif
} LoopIo;

extern bool IoInit(LoopIo *io, bool want_uring);
extern void IoBind(LoopIo *io);
extern void IoFreeDead(LoopIo *io);
extern void IoEnd(LoopIo *io);
#ifdef GW_URING
extern struct io_uring_sqe *IoSqe(LoopIo *io);
extern void IoCancel(LoopIo *io, uint64_t user_data);
extern void IoArmEpoll(LoopIo *io);
extern void IoSubmitNow(LoopIo *io);
extern void IoWait(LoopIo *io, unsigned want, unsigned min_us, int ms);
extern bool IoEpollDone(LoopIo *io, const struct io_uring_cqe *cqe);
extern bool WatchDone(Watch *w, int tag);
extern void WatchRearm(Watch *w);
#endif

extern ssize_t IoRead(int fd, SSL *ssl, char *buf, size_t n, bool *tls_read_blocked);
extern ssize_t IoWrite(int fd, SSL *ssl, const char *buf, size_t n);
extern int	IoListen(const struct sockaddr *addr, socklen_t addrlen, int port);
extern SSL_CTX *IoTlsContext(void);

#endif							/* GW_LOOPIO_H */
