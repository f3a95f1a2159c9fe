/*
 * floor.c: what the kernel alone charges a gateway-shaped process.
 *
 * A single-threaded io_uring HTTP/1.1 keep-alive server on 127.0.0.1 that
 * does almost nothing in user space: it finds where each request ends (the
 * head up to \r\n\r\n plus a Content-Length body) and answers with a fixed
 * DynamoDB GetItem-like JSON answer.  Its CPU per request is therefore close
 * to what the kernel charges for the sockets and the ring: a floor under
 * the gateway's own CPU per request on the same machine.
 *
 *   floor PORT direct
 *       answers each request at once (the floor of an HTTP server alone).
 *   floor PORT hop N WORK_US
 *       forks N backend processes, each on a socketpair(AF_UNIX,
 *       SOCK_STREAM), the way the gateway talks to PostgreSQL sessions.
 *       The requests gathered in a loop round are spread over the idle
 *       backends (a backend with no batch out), several per backend when
 *       there are more requests than idle backends; the rest wait in a
 *       FIFO.  A batch goes out as one send of fixed-size messages; a
 *       backend reads, spins WORK_US microseconds per message (standing in
 *       for PostgreSQL's execution) and writes all the answers in one
 *       write.  When a batch's answers are back, each goes to its
 *       connection.  This is the floor of any gateway with a hop to a
 *       separate backend process: the server's CPU per request here is
 *       what the kernel charges for the HTTP side plus the hop.
 *
 * All submissions of a round go in one io_uring_submit_and_wait(ring, 1) at
 * the end of the round: about one system call per wake-up, as the gateway.
 * On SIGTERM or SIGINT the server prints its counts (wake-ups, completions,
 * requests, batches, mean batch size) to stderr and exits; the backends
 * see end of file on their sockets and exit.
 *
 *   cc -O2 -Wall -Wextra -o floor floor.c -luring
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXFD     4096          /* connections are indexed by their fd */
#define INCAP     8192          /* a connection's receive buffer */
#define OUTCAP    4096          /* a connection's answers not yet sent */
#define MAXBACK   64
#define MAXBATCH  256
#define MSGLEN    150           /* a request as a backend gets it */
#define QCAP      16384         /* the FIFO of requests waiting for a backend */

enum { OP_ACCEPT = 1, OP_RECV, OP_SEND, OP_BRECV, OP_BSEND };
#define UD(op, i) (((uint64_t)(op) << 32) | (uint32_t)(i))

/* 110 bytes, the size of a small GetItem answer */
static const char BODY[] =
    "{\"Item\":{\"pk\":{\"S\":\"user#00000042\"},\"sk\":{\"S\":\"profile\"},"
    "\"name\":{\"S\":\"Alice Example\"},\"score\":{\"N\":\"421700\"}}}";
#define ANSLEN (sizeof BODY - 1)
static const char HEAD[] =
    "HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\n"
    "Content-Length: ";

struct conn {
    int open, closing, recv_busy, send_busy;
    unsigned gen;               /* bumped when the slot is freed */
    size_t in_len, out_len, out_sent;
    char in[INCAP], out[OUTCAP];
};
struct ref { int fd; unsigned gen; };
struct queued { struct ref r; char msg[MSGLEN]; };
struct backend {
    int fd, busy, n;
    size_t send_len, send_off, recv_len;
    struct ref reqs[MAXBATCH];
    char sendbuf[MAXBATCH * MSGLEN], recvbuf[MAXBATCH * ANSLEN + 4096];
};

static struct io_uring ring;
static struct conn *conns;
static struct backend *backs;
static int nback, listen_fd, hop;
static struct queued *fifo;
static size_t qhead, qlen;
static char answer[256];        /* direct mode's whole HTTP answer */
static size_t answer_len;
static volatile sig_atomic_t stop;
static unsigned long long wakeups, cqes, nreq, nbatch, nbatched;

static void die(const char *what, int err)
{
    fprintf(stderr, "floor: %s: %s\n", what, strerror(err));
    exit(1);
}

static struct io_uring_sqe *sqe_get(void)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    if (!sqe) {                 /* SQ full: rare, submit what we have */
        io_uring_submit(&ring);
        sqe = io_uring_get_sqe(&ring);
        if (!sqe)
            die("io_uring_get_sqe", EBUSY);
    }
    return sqe;
}

static void arm_accept(void)
{
    struct io_uring_sqe *sqe = sqe_get();
    io_uring_prep_accept(sqe, listen_fd, NULL, NULL, 0);
    io_uring_sqe_set_data64(sqe, UD(OP_ACCEPT, 0));
}

static void arm_recv(int fd)
{
    struct conn *c = &conns[fd];
    struct io_uring_sqe *sqe = sqe_get();
    io_uring_prep_recv(sqe, fd, c->in + c->in_len, INCAP - c->in_len, 0);
    io_uring_sqe_set_data64(sqe, UD(OP_RECV, fd));
    c->recv_busy = 1;
}

static void arm_send(int fd)
{
    struct conn *c = &conns[fd];
    struct io_uring_sqe *sqe = sqe_get();
    io_uring_prep_send(sqe, fd, c->out + c->out_sent, c->out_len - c->out_sent,
                       MSG_NOSIGNAL);
    io_uring_sqe_set_data64(sqe, UD(OP_SEND, fd));
    c->send_busy = 1;
}

static void maybe_free(int fd)
{
    struct conn *c = &conns[fd];
    if (c->closing && !c->recv_busy && !c->send_busy) {
        close(fd);
        c->open = c->closing = 0;
        c->gen++;
    }
}

static void close_conn(int fd)
{
    struct conn *c = &conns[fd];
    if (!c->closing) {
        c->closing = 1;
        shutdown(fd, SHUT_RDWR);        /* completes a receive in flight */
    }
    maybe_free(fd);
}

/* Queue an answer on a connection; send it unless a send is out. */
static void answer_conn(int fd, const char *p, size_t n)
{
    struct conn *c = &conns[fd];
    if (c->out_len + n > OUTCAP) {
        close_conn(fd);
        return;
    }
    memcpy(c->out + c->out_len, p, n);
    c->out_len += n;
    if (!c->send_busy)
        arm_send(fd);
}

static size_t content_length(const char *h, size_t n)
{
    for (size_t i = 0; i + 16 <= n; i++)
        if (h[i] == '\n' && strncasecmp(h + i + 1, "content-length:", 15) == 0)
            return strtoul(h + i + 16, NULL, 10);
    return 0;
}

/* Take the whole requests out of a connection's buffer. */
static void parse(int fd)
{
    struct conn *c = &conns[fd];
    size_t off = 0;
    for (;;) {
        char *p = c->in + off, *end;
        size_t avail = c->in_len - off;
        end = memmem(p, avail, "\r\n\r\n", 4);
        if (!end)
            break;
        size_t head = end + 4 - p, body = content_length(p, head);
        if (head + body > avail)
            break;
        nreq++;
        if (!hop) {
            answer_conn(fd, answer, answer_len);
        } else if (qlen == QCAP) {
            close_conn(fd);
            return;
        } else {
            struct queued *q = &fifo[(qhead + qlen++) % QCAP];
            q->r.fd = fd;
            q->r.gen = c->gen;
            size_t n = body < MSGLEN ? body : MSGLEN;
            memcpy(q->msg, p + head, n);
            memset(q->msg + n, ' ', MSGLEN - n);
        }
        off += head + body;
    }
    if (off) {
        memmove(c->in, c->in + off, c->in_len - off);
        c->in_len -= off;
    }
    if (c->in_len == INCAP)     /* a request larger than the buffer */
        close_conn(fd);
}

static void arm_bsend(struct backend *b)
{
    struct io_uring_sqe *sqe = sqe_get();
    io_uring_prep_send(sqe, b->fd, b->sendbuf + b->send_off,
                       b->send_len - b->send_off, MSG_NOSIGNAL);
    io_uring_sqe_set_data64(sqe, UD(OP_BSEND, b - backs));
}

static void arm_brecv(struct backend *b)
{
    struct io_uring_sqe *sqe = sqe_get();
    io_uring_prep_recv(sqe, b->fd, b->recvbuf + b->recv_len,
                       sizeof b->recvbuf - b->recv_len, 0);
    io_uring_sqe_set_data64(sqe, UD(OP_BRECV, b - backs));
}

/* End of a round: spread the waiting requests over the idle backends. */
static void dispatch(void)
{
    int idle = 0;
    for (int i = 0; i < nback; i++)
        idle += !backs[i].busy;
    for (int i = 0; i < nback && qlen && idle; i++) {
        struct backend *b = &backs[i];
        if (b->busy)
            continue;
        size_t n = (qlen + idle - 1) / idle;
        idle--;
        if (n > MAXBATCH)
            n = MAXBATCH;
        b->n = 0;
        while (n-- && qlen) {
            struct queued *q = &fifo[qhead];
            qhead = (qhead + 1) % QCAP;
            qlen--;
            struct conn *c = &conns[q->r.fd];
            if (!c->open || c->closing || c->gen != q->r.gen)
                continue;       /* its connection is gone */
            b->reqs[b->n] = q->r;
            memcpy(b->sendbuf + b->n * MSGLEN, q->msg, MSGLEN);
            b->n++;
        }
        if (!b->n)
            continue;
        b->busy = 1;
        b->send_len = (size_t)b->n * MSGLEN;
        b->send_off = 0;
        b->recv_len = 0;
        nbatch++;
        nbatched += b->n;
        arm_bsend(b);
    }
}

static void backend_answers(struct backend *b)
{
    size_t need = (size_t)b->n * ANSLEN;
    if (b->recv_len < need) {
        arm_brecv(b);
        return;
    }
    if (b->recv_len > need) {
        fprintf(stderr, "floor: a backend answered more than asked\n");
        exit(1);
    }
    char http[512];
    int hl = snprintf(http, sizeof http, "%s%zu\r\n\r\n", HEAD, ANSLEN);
    for (int i = 0; i < b->n; i++) {
        struct ref r = b->reqs[i];
        struct conn *c = &conns[r.fd];
        if (!c->open || c->closing || c->gen != r.gen)
            continue;
        memcpy(http + hl, b->recvbuf + i * ANSLEN, ANSLEN);
        answer_conn(r.fd, http, hl + ANSLEN);
    }
    b->busy = 0;
    b->recv_len = 0;
    arm_brecv(b);
}

static void complete(struct io_uring_cqe *cqe)
{
    uint64_t ud = io_uring_cqe_get_data64(cqe);
    int op = ud >> 32, i = (uint32_t)ud, res = cqe->res;
    struct conn *c = op == OP_RECV || op == OP_SEND ? &conns[i] : NULL;
    struct backend *b = op == OP_BRECV || op == OP_BSEND ? &backs[i] : NULL;

    switch (op) {
    case OP_ACCEPT:
        if (res >= 0) {
            if (res >= MAXFD) {
                close(res);
            } else {
                int one = 1;
                setsockopt(res, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                c = &conns[res];
                c->open = 1;
                c->closing = c->send_busy = 0;
                c->in_len = c->out_len = c->out_sent = 0;
                arm_recv(res);
            }
        } else if (res != -EAGAIN && res != -EINTR && res != -ECONNABORTED) {
            die("accept", -res);
        }
        arm_accept();
        break;
    case OP_RECV:
        c->recv_busy = 0;
        if (res <= 0 || c->closing) {
            close_conn(i);
            break;
        }
        c->in_len += res;
        parse(i);
        if (!c->closing)
            arm_recv(i);
        else
            maybe_free(i);
        break;
    case OP_SEND:
        c->send_busy = 0;
        if (res <= 0) {
            close_conn(i);
            break;
        }
        c->out_sent += res;
        if (c->out_sent == c->out_len)
            c->out_len = c->out_sent = 0;
        if (c->closing)
            maybe_free(i);
        else if (c->out_len)
            arm_send(i);
        break;
    case OP_BSEND:
        if (res <= 0)
            die("send to a backend", res ? -res : EPIPE);
        b->send_off += res;
        if (b->send_off < b->send_len)
            arm_bsend(b);
        break;
    case OP_BRECV:
        if (res <= 0)
            die("receive from a backend", res ? -res : EPIPE);
        b->recv_len += res;
        backend_answers(b);
        break;
    }
}

/* A backend: a plain blocking loop, as a PostgreSQL session serves its
 * socket.  work_us of CPU per whole message read, then one write. */
static void backend_main(int fd, long work_us)
{
    static char in[MAXBATCH * MSGLEN * 2], out[MAXBATCH * 2 * ANSLEN];
    size_t have = 0;
    for (;;) {
        ssize_t n = read(fd, in + have, sizeof in - have);
        if (n <= 0)
            _exit(0);
        have += n;
        size_t m = have / MSGLEN;
        for (size_t k = 0; k < m; k++) {
            if (work_us > 0) {
                struct timespec t0, t;
                clock_gettime(CLOCK_MONOTONIC, &t0);
                do
                    clock_gettime(CLOCK_MONOTONIC, &t);
                while ((t.tv_sec - t0.tv_sec) * 1000000L +
                       (t.tv_nsec - t0.tv_nsec) / 1000 < work_us);
            }
            memcpy(out + k * ANSLEN, BODY, ANSLEN);
        }
        for (size_t done = 0; done < m * ANSLEN;) {
            ssize_t w = write(fd, out + done, m * ANSLEN - done);
            if (w <= 0)
                _exit(1);
            done += w;
        }
        memmove(in, in + m * MSGLEN, have - m * MSGLEN);
        have -= m * MSGLEN;
    }
}

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

int main(int argc, char **argv)
{
    long work_us = 0;
    if (argc == 3 && strcmp(argv[2], "direct") == 0) {
        hop = 0;
    } else if (argc == 5 && strcmp(argv[2], "hop") == 0) {
        hop = 1;
        nback = atoi(argv[3]);
        work_us = atol(argv[4]);
        if (nback < 1 || nback > MAXBACK || work_us < 0) {
            fprintf(stderr, "floor: 1 to %d backends, WORK_US >= 0\n", MAXBACK);
            return 2;
        }
    } else {
        fprintf(stderr, "usage: floor PORT direct | floor PORT hop N WORK_US\n");
        return 2;
    }

    conns = calloc(MAXFD, sizeof *conns);
    backs = calloc(MAXBACK, sizeof *backs);
    fifo = calloc(QCAP, sizeof *fifo);
    if (!conns || !backs || !fifo)
        die("calloc", ENOMEM);
    answer_len = snprintf(answer, sizeof answer, "%s%zu\r\n\r\n%s", HEAD,
                          ANSLEN, BODY);

    /* The backends first, so that they inherit nothing else. */
    for (int i = 0; i < nback; i++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
            die("socketpair", errno);
        pid_t pid = fork();
        if (pid < 0)
            die("fork", errno);
        if (pid == 0) {
            for (int j = 0; j < i; j++)
                close(backs[j].fd);
            close(sv[0]);
            backend_main(sv[1], work_us);
        }
        close(sv[1]);
        backs[i].fd = sv[0];
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;  /* no SA_RESTART: the wait returns EINTR */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_port = htons(atoi(argv[1])),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    if (bind(listen_fd, (struct sockaddr *)&a, sizeof a) < 0)
        die("bind", errno);
    if (listen(listen_fd, 512) < 0)
        die("listen", errno);

    int ret = io_uring_queue_init(2048, &ring, 0);
    if (ret < 0)
        die("io_uring_queue_init", -ret);
    arm_accept();
    for (int i = 0; i < nback; i++)
        arm_brecv(&backs[i]);

    /* A signal that lands between the test of stop and the wait is seen
     * at the next completion; floor.sh signals an idle server. */
    while (!stop) {
        ret = io_uring_submit_and_wait(&ring, 1);
        if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
            die("io_uring_submit_and_wait", -ret);
        wakeups++;
        /* Harvest every completion there is, then end the round. */
        for (;;) {
            struct io_uring_cqe *cqe;
            unsigned head, n = 0;
            io_uring_for_each_cqe(&ring, head, cqe) {
                complete(cqe);
                n++;
            }
            if (!n)
                break;
            io_uring_cq_advance(&ring, n);
            cqes += n;
        }
        if (hop)
            dispatch();
    }

    fprintf(stderr, "floor: %llu wake-ups, %llu completions (%.2f per "
            "wake-up), %llu requests", wakeups, cqes,
            wakeups ? (double)cqes / wakeups : 0.0, nreq);
    if (hop)
        fprintf(stderr, ", %llu batches, mean batch size %.2f", nbatch,
                nbatch ? (double)nbatched / nbatch : 0.0);
    fprintf(stderr, "\n");
    return 0;
}
