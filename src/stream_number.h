/*-------------------------------------------------------------------------
 *
 * stream_number.h
 *		Sequence numbers of stream records: a counter in shared memory,
 *		refilled in blocks from item_table.stream_sequence
 *		(stream_number.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_STREAM_NUMBER_H
#define ITEM_TABLE_STREAM_NUMBER_H

/* from _PG_init: asks for the shared counters when preloaded */
extern void StreamNumberInit(void);
/* the next number, larger than every number handed out before this call */
extern int64 StreamNumberNext(Oid seqid);
/* the highest number handed out so far (0 when none) */
extern int64 StreamNumberLast(Oid seqid);
/* forget what is cached about the sequence (after an invalidation) */
extern void StreamNumberForget(void);

#endif							/* ITEM_TABLE_STREAM_NUMBER_H */
