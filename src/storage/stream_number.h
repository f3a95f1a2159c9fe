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

#include "storage/lock.h"

/* from _PG_init: asks for the shared counters when preloaded */
extern void StreamNumberInit(void);
/* the next number, larger than every number handed out before this call */
extern int64 StreamNumberNext(Oid seqid);
/* the highest number handed out so far (0 when none) */
extern int64 StreamNumberLast(Oid seqid);
/*
 * with shared counters, the highest number below every number of a
 * transaction still in progress, the last number, and the completion count
 * a snapshot needs to see those numbers' transactions ended; false without
 */
extern bool StreamNumberHorizon(Oid seqid, int64 *horizon, int64 *last, uint64 *completions);
/*
 * without them, the sequence's last value and the transactions (but this
 * one) that hold its lock, having taken numbers (palloc'd, *n of them)
 */
extern VirtualTransactionId *StreamNumberTakers(Oid seqid, int64 *last, int *n);
/* forget what is cached about the sequence (after an invalidation) */
extern void StreamNumberForget(void);

#endif							/* ITEM_TABLE_STREAM_NUMBER_H */
