/*-------------------------------------------------------------------------
 *
 * http1.h
 *		The event-loop engine's HTTP/1.1 reader (http1.c), for loop.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_GW_HTTP1_H
#define ITEM_TABLE_GW_HTTP1_H

#include "gw_http.h"

/* header fields and query arguments kept per request (SigV4 takes 128) */
#define H1_MAX_PAIRS 128

/* a request's head, parsed in place: the strings point into the buffer */
typedef struct H1Head
{
	const char *method;
	char	   *path;			/* percent-decoded, without the query */
	bool		http10;
	bool		close;			/* the connection closes after the answer */
	bool		keep_alive;
	bool		expect_continue;
	GwPair		headers[H1_MAX_PAIRS];
	int			nheaders;
	bool		headers_overflow;
	GwPair		args[H1_MAX_PAIRS];
	int			nargs;
	bool		args_overflow;
} H1Head;

typedef enum H1ChunkState
{
	H1_CHUNK_SIZE,
	H1_CHUNK_DATA,
	H1_CHUNK_DATA_END,
	H1_CHUNK_TRAILER
} H1ChunkState;

typedef struct H1Chunks
{
	H1ChunkState state;
	uint64_t	left;
} H1Chunks;

extern size_t H1HeadEnd(const char *buf, size_t len, size_t *skip);
extern unsigned H1ParseHead(char *buf, size_t skip, size_t end, H1Head *h, GwFraming *f);
extern const char *H1Header(const H1Head *h, const char *name);
extern size_t H1Chunked(H1Chunks *st, const char *buf, size_t len,
						bool (*data) (void *cls, const char *p, size_t n), void *cls,
						unsigned *status, bool *done);

#endif							/* ITEM_TABLE_GW_HTTP1_H */
