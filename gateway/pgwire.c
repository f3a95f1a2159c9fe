/*-------------------------------------------------------------------------
 *
 * pgwire.c
 *		PostgreSQL's extended query protocol, spoken by the event loops'
 *		sessions (pgpipe.c) on the socket libpq connected and set up.
 *
 * Why.  libpq 15 and 16 write to the socket at every pipeline Sync, and
 * each job must end with its own Sync (its own implicit transaction: an
 * error in one job must not touch the others), so a batch of N jobs cost
 * N sendto calls, each waking the backend (bench/gateway/PROFILE.md).  A
 * job's messages are few and fixed (Bind of the prepared "dyn", Execute,
 * Sync), so the loops build them here and send a whole batch in one
 * send(); the answers are read with recv() into a buffer and parsed here.
 * libpq still does what is hard (connecting, authentication, the
 * statement's preparation, the timeouts), and PQfinish ends the session.
 * A session whose connection is encrypted (SSL or GSS) stays with libpq's
 * pipeline mode: its bytes are not ours to write.
 *
 * Answers.  Each job's answer is a PGresult, as libpq's are, so that
 * every consumer reads both engines' answers alike: a success is built
 * with libpq's public calls (PQmakeEmptyPGresult, PQsetResultAttrs,
 * PQsetvalue).  libpq has no call that sets a result's error fields, so
 * an error is a PGRES_FATAL_ERROR result that carries its fields as one
 * row, a column per field named by the field's code letter ("C" the
 * SQLSTATE, "M" the message, ...); GwResultErrorField reads a field of
 * either kind of error, and is what every consumer calls instead of
 * PQresultErrorField.  PQclear frees either.
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include "gateway.h"

/* the error fields kept, each a column of an error's result */
static const char wire_fields[] = "SVCMDHWPpqstcdnFLR";

/* a message longer than this is taken as a broken stream */
#define WIRE_MAX_MSG (1024 * 1024 * 1024)
/* a buffer that grew past this is given back after its batch */
#define WIRE_KEEP (1024 * 1024)
#define WIRE_MIN_READ 8192

static bool
buf_reserve(char **buf, size_t *size, size_t need)
{
	size_t		n = *size ? *size : WIRE_MIN_READ;
	char	   *p;

	if (need <= *size)
		return true;
	while (n < need)
		n *= 2;
	p = realloc(*buf, n);
	if (p == NULL)
		return false;
	*buf = p;
	*size = n;
	return true;
}

static void
put_int32(char *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static void
put_int16(char *p, uint16_t v)
{
	v = htons(v);
	memcpy(p, &v, 2);
}

static uint32_t
get_int32(const char *p)
{
	uint32_t	v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static uint16_t
get_int16(const char *p)
{
	uint16_t	v;

	memcpy(&v, p, 2);
	return ntohs(v);
}

/* the session's socket is fd; its buffers empty */
void
WireInit(GwWire *w, int fd)
{
	WireReset(w);
	w->fd = fd;
}

/* forget the session (its socket is libpq's to close): buffers freed */
void
WireReset(GwWire *w)
{
	free(w->out);
	free(w->in);
	PQclear(w->ok);
	PQclear(w->err);
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}

/*
 * WireQueueJob
 *		Append a job's segment to the output: Bind (unnamed portal, the
 *		statement "dyn", three text parameters, text results), Execute
 *		(all rows), Sync.  False if out of memory.
 */
bool
WireQueueJob(GwWire *w, const char *action, const char *body, const char *role)
{
	const char *params[3] = {action, body, role};
	size_t		lens[3];
	size_t		bind_len = 4 + 1 + 4 + 2 + 2 + 2;	/* len, "", "dyn", formats,
													 * nparams, result formats */
	size_t		need;
	char	   *p;
	int			i;

	for (i = 0; i < 3; i++)
	{
		lens[i] = strlen(params[i]);
		if (lens[i] > (size_t) WIRE_MAX_MSG)
			return false;
		bind_len += 4 + lens[i];
	}
	need = 1 + bind_len + (1 + 4 + 1 + 4) + (1 + 4);
	if (!buf_reserve(&w->out, &w->out_size, w->out_end + need))
		return false;
	p = w->out + w->out_end;
	*p++ = 'B';
	put_int32(p, (uint32_t) bind_len);
	p += 4;
	*p++ = '\0';				/* the unnamed portal */
	memcpy(p, "dyn", 4);
	p += 4;
	put_int16(p, 0);			/* parameters all text */
	p += 2;
	put_int16(p, 3);
	p += 2;
	for (i = 0; i < 3; i++)
	{
		put_int32(p, (uint32_t) lens[i]);
		p += 4;
		memcpy(p, params[i], lens[i]);
		p += lens[i];
	}
	put_int16(p, 0);			/* results all text */
	p += 2;
	*p++ = 'E';
	put_int32(p, 4 + 1 + 4);
	p += 4;
	*p++ = '\0';
	put_int32(p, 0);			/* all rows */
	p += 4;
	*p++ = 'S';
	put_int32(p, 4);
	p += 4;
	w->out_end = (size_t) (p - w->out);
	return true;
}

/*
 * WireFlush
 *		Send what is queued, in one send() when the socket takes it all:
 *		0 all sent, 1 some left (to be sent when the socket is writable),
 *		-1 the connection failed (errno).
 */
int
WireFlush(GwWire *w)
{
	while (w->out_start < w->out_end)
	{
		ssize_t		n = send(w->fd, w->out + w->out_start, w->out_end - w->out_start,
							 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 1;
			return -1;
		}
		w->out_start += (size_t) n;
	}
	w->out_start = w->out_end = 0;
	return 0;
}

/* nothing of the output was sent yet */
bool
WireNothingSent(GwWire *w)
{
	return w->out_start == 0;
}

/*
 * WireRecvRoom
 *		Where the next bytes from the server go (*buf, *room bytes at most):
 *		room for the whole message begun and for a good read.  False if
 *		out of memory (errno).  The loop's ring receives there (pgpipe.c),
 *		then WireReceived counts what came.
 */
bool
WireRecvRoom(GwWire *w, char **buf, size_t *room)
{
	size_t		have = w->in_end - w->in_start;

	if (have == 0)
		w->in_start = w->in_end = 0;
	if (w->in_size - w->in_end < WIRE_MIN_READ ||
		w->in_start + w->in_need > w->in_size)
	{
		if (w->in_start > 0)
		{
			memmove(w->in, w->in + w->in_start, have);
			w->in_start = 0;
			w->in_end = have;
		}
		if (!buf_reserve(&w->in, &w->in_size,
						 (w->in_need > have ? w->in_need : have) + WIRE_MIN_READ))
		{
			errno = ENOMEM;
			return false;
		}
	}
	*buf = w->in + w->in_end;
	*room = w->in_size - w->in_end;
	return true;
}

/* n bytes came at WireRecvRoom's place */
void
WireReceived(GwWire *w, size_t n)
{
	w->in_end += n;
}

/*
 * WireRead
 *		Read what the server sent: 0, or -1 if the connection is over
 *		(end of file, or an error: errno, 0 at end of file).  What was read
 *		before is kept for WireNextAnswer.  One recv() unless it filled the
 *		room it was given (then more may be waiting).
 */
int
WireRead(GwWire *w)
{
	for (;;)
	{
		char	   *buf;
		size_t		room;
		ssize_t		n;

		if (!WireRecvRoom(w, &buf, &room))
			return -1;
		n = recv(w->fd, buf, room, MSG_DONTWAIT);
		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -1;
		}
		if (n == 0)
		{
			errno = 0;
			return -1;
		}
		w->in_end += (size_t) n;
		if ((size_t) n < room)
			return 0;
	}
}

/* the batch is over: a buffer that grew past WIRE_KEEP is given back */
void
WireBatchDone(GwWire *w)
{
	if (w->in_size > WIRE_KEEP && w->in_start == w->in_end)
	{
		free(w->in);
		w->in = NULL;
		w->in_size = w->in_start = w->in_end = w->in_need = 0;
	}
	if (w->out_size > WIRE_KEEP && w->out_start == w->out_end)
	{
		free(w->out);
		w->out = NULL;
		w->out_size = w->out_start = w->out_end = 0;
	}
}

/* a DataRow into the segment's result; false if malformed */
static bool
data_row(GwWire *w, const char *p, size_t len)
{
	int			ncols,
				row,
				i;

	if (len < 2)
		return false;
	ncols = get_int16(p);
	p += 2;
	len -= 2;
	if (w->ok == NULL)
	{
		PGresAttDesc attrs[2] = {
			{.name = "response",.typid = 25,.typlen = -1,.atttypmod = -1},
			{.name = "reusable",.typid = 16,.typlen = 1,.atttypmod = -1},
		};

		/* "dyn" answers two columns: anything else is not its answer */
		if (ncols != 2)
			return false;
		w->ok = PQmakeEmptyPGresult(NULL, PGRES_TUPLES_OK);
		if (w->ok == NULL || !PQsetResultAttrs(w->ok, 2, attrs))
			return false;
	}
	if (ncols != PQnfields(w->ok))
		return false;
	row = PQntuples(w->ok);
	for (i = 0; i < ncols; i++)
	{
		int32_t		vlen;

		if (len < 4)
			return false;
		vlen = (int32_t) get_int32(p);
		p += 4;
		len -= 4;
		if (vlen < -1 || (vlen > 0 && (size_t) vlen > len))
			return false;
		if (!PQsetvalue(w->ok, row, i, vlen < 0 ? NULL : (char *) p, vlen))
			return false;
		if (vlen > 0)
		{
			p += vlen;
			len -= (size_t) vlen;
		}
	}
	return len == 0;
}

/*
 * The fields of an ErrorResponse or NoticeResponse: a code byte and a
 * NUL-terminated string each, then a zero byte.  Into vals (indexed as
 * wire_fields; pointers into the message).  False if malformed.
 */
static bool
error_fields(const char *p, size_t len, const char **vals)
{
	const char *end = p + len;

	memset(vals, 0, sizeof(char *) * (sizeof(wire_fields) - 1));
	while (p < end && *p != '\0')
	{
		char		code = *p++;
		const char *nul = memchr(p, '\0', (size_t) (end - p));
		const char *at = strchr(wire_fields, code);

		if (nul == NULL)
			return false;
		if (at)
			vals[at - wire_fields] = p;
		p = nul + 1;
	}
	return p + 1 == end;
}

/* an ErrorResponse as the segment's error: a result with its fields */
static bool
error_result(GwWire *w, const char *p, size_t len)
{
	const char *vals[sizeof(wire_fields) - 1];
	PGresAttDesc attrs[sizeof(wire_fields) - 1];
	char		names[sizeof(wire_fields) - 1][2];
	PGresult   *res;
	int			n = 0,
				i;

	if (!error_fields(p, len, vals))
		return false;
	/* the first error is the answer (the server skips to the Sync after it) */
	if (w->err)
		return true;
	memset(attrs, 0, sizeof(attrs));
	for (i = 0; i < (int) sizeof(wire_fields) - 1; i++)
		if (vals[i])
		{
			names[n][0] = wire_fields[i];
			names[n][1] = '\0';
			attrs[n].name = names[n];
			attrs[n].typid = 25;
			attrs[n].typlen = -1;
			attrs[n].atttypmod = -1;
			n++;
		}
	res = PQmakeEmptyPGresult(NULL, PGRES_FATAL_ERROR);
	if (res == NULL || (n > 0 && !PQsetResultAttrs(res, n, attrs)))
	{
		PQclear(res);
		return false;
	}
	n = 0;
	for (i = 0; i < (int) sizeof(wire_fields) - 1; i++)
		if (vals[i] && !PQsetvalue(res, 0, n++, (char *) vals[i], (int) strlen(vals[i])))
		{
			PQclear(res);
			return false;
		}
	w->err = res;
	return true;
}

/* a notice, logged as libpq's default notice processor would show it */
static bool
notice(const char *p, size_t len)
{
	const char *vals[sizeof(wire_fields) - 1];

	if (!error_fields(p, len, vals))
		return false;
	GwLog("PostgreSQL %s: %s", vals[0] ? vals[0] : "NOTICE",
		  vals[3] ? vals[3] : "");
	return true;
}

/*
 * WireNextAnswer
 *		Parse the input as far as a whole segment's answer: 1 and *res its
 *		answer (the success's result, or the error's; the caller owns it),
 *		0 more input is needed, -1 the stream is not what it must be (the
 *		session is lost; *why says so).
 */
int
WireNextAnswer(GwWire *w, PGresult **res, const char **why)
{
	*res = NULL;
	*why = "unexpected data from the server";
	for (;;)
	{
		size_t		avail = w->in_end - w->in_start;
		const char *msg = w->in + w->in_start;
		uint32_t	len;
		char		type;
		bool		ok = true;

		if (avail < 5)
		{
			w->in_need = 5;
			return 0;
		}
		type = msg[0];
		len = get_int32(msg + 1);
		if (len < 4 || len > WIRE_MAX_MSG)
			return -1;
		if (avail < 1 + (size_t) len)
		{
			w->in_need = 1 + (size_t) len;
			return 0;
		}
		w->in_need = 0;
		w->in_start += 1 + (size_t) len;
		msg += 5;
		len -= 4;
		switch (type)
		{
			case '2':			/* BindComplete */
			case 'n':			/* NoData */
			case 'S':			/* ParameterStatus */
			case 'A':			/* NotificationResponse */
				break;
			case 'D':
				ok = data_row(w, msg, len);
				break;
			case 'C':			/* CommandComplete: no row is an answer too */
				if (w->ok == NULL)
					ok = (w->ok = PQmakeEmptyPGresult(NULL, PGRES_TUPLES_OK)) != NULL;
				break;
			case 'E':
				ok = error_result(w, msg, len);
				break;
			case 'N':
				ok = notice(msg, len);
				break;
			case 'Z':			/* ReadyForQuery: the segment's end */
				if (w->err)
				{
					PQclear(w->ok);
					*res = w->err;
				}
				else
					*res = w->ok;
				w->ok = w->err = NULL;
				if (*res == NULL)
					return -1;
				return 1;
			default:
				return -1;
		}
		if (!ok)
		{
			*why = "a malformed message from the server";
			return -1;
		}
	}
}

/*
 * GwResultErrorField
 *		PQresultErrorField of libpq's results and of the errors read by
 *		WireNextAnswer (whose fields are the columns of their one row).
 */
const char *
GwResultErrorField(const PGresult *res, int fieldcode)
{
	const char *v = PQresultErrorField(res, fieldcode);
	int			i;

	if (v || res == NULL || PQresultStatus(res) != PGRES_FATAL_ERROR ||
		PQntuples(res) != 1)
		return v;
	for (i = 0; i < PQnfields(res); i++)
	{
		const char *name = PQfname(res, i);

		if (name[0] == (char) fieldcode && name[1] == '\0')
			return PQgetisnull(res, 0, i) ? NULL : PQgetvalue(res, 0, i);
	}
	return NULL;
}

/* PQresultErrorMessage, or for WireNextAnswer's errors their message */
const char *
GwResultErrorMessage(const PGresult *res)
{
	const char *m = PQresultErrorMessage(res);

	if (m[0] == '\0' && (m = GwResultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)) == NULL)
		m = "";
	return m;
}
