/*-------------------------------------------------------------------------
 *
 * stream.h
 *		DynamoDB Streams: the streams of tables (catalog rows), capture of
 *		changes by the stream trigger, the reader's horizon, record reads
 *		and their DynamoDB shape, trimming (stream.c); the Streams API and
 *		StreamSpecification (api_stream.c); stream consumers
 *		(stream_consumer.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_STREAM_H
#define ITEM_TABLE_STREAM_H

#include "datatype/timestamp.h"
#include "executor/spi.h"
#include "utils/reltrigger.h"
#include "utils/relcache.h"
#include "utils/jsonb.h"

#include "item_table.h"

typedef enum StreamViewType
{
	STREAM_KEYS_ONLY = 0,
	STREAM_NEW_IMAGE,
	STREAM_OLD_IMAGE,
	STREAM_NEW_AND_OLD_IMAGES
} StreamViewType;

extern const char *const stream_view_types[4];

/* one row of item_table.streams */
typedef struct StreamInfo
{
	int32		stream_id;
	char	   *table_name;
	char	   *table_id;
	Oid			relid;
	char	   *label;
	StreamViewType view_type;
	char	   *hash_key;
	char	   *range_key;		/* NULL when hash-only */
	Oid			owner;
	TimestampTz created_at;
	int64		start_seq;		/* records of the stream have seq > start_seq */
	int64		end_seq;		/* -1 while enabled; then no record has seq > end_seq */
	TimestampTz disabled_at;
	int64		trimmed_seq;	/* records with seq <= trimmed_seq are gone */
} StreamInfo;

/* a stream record as read (in the caller's memory) */
typedef struct StreamRecord
{
	int64		seq;
	TimestampTz created_at;
	char		event;			/* 'I', 'M', 'R' */
	bool		service;		/* a deletion by Time to Live */
	ItemKey    *key;
	Jsonb	   *new_image;		/* NULL when not kept or absent */
	Jsonb	   *old_image;
} StreamRecord;

/* ---- catalog (SPI connected) ---- */
extern bool ItemStreamFetchById(int32 stream_id, StreamInfo *s);
/* the table's enabled stream, or its latest one when latest; false if none */
extern bool ItemStreamFetchForTable(const char *table, bool latest, StreamInfo *s);
extern bool ItemStreamFetchByLabel(const char *table, const char *label, StreamInfo *s);
extern char *ItemStreamArn(const StreamInfo *s);
extern char *ItemStreamShardId(const StreamInfo *s);
/* label of a timestamp: 2026-01-01T00:00:00.000 */
extern char *ItemStreamLabelOf(TimestampTz t);

/* open a stream on a table (the caller checked everything) */
extern void ItemStreamOpen(Oid relid, const char *table, const char *view_type);
/* close the table's enabled stream, if any; false if there was none */
extern bool ItemStreamClose(const char *table);
/* forget the cached stream settings of a table (after a change) */
extern void ItemStreamForgetTable(Oid relid);

/* the capture trigger's name on item tables */
#define STREAM_TRIGGER_NAME "item_table_stream"

/*
 * A write made without the executor (api_common.c) may skip the trigger t
 * and capture its change itself when this is true (see stream.c)
 */
extern bool ItemStreamDirectCaptureTrigger(const Trigger *t);
/* the trigger's records for a row just inserted, updated or deleted directly */
extern void ItemStreamCaptureDirect(Relation rel, Datum oldkey, Datum olditem,
									Datum newkey, Datum newitem);

/* Time to Live deletions are service deletions while this is set */
extern void ItemStreamServiceDeletionBegin(Oid relid);
extern void ItemStreamServiceDeletionEnd(void);

/* ---- reading ---- */
/* the highest sequence number below which nothing can still appear */
extern int64 ItemStreamSafeHorizon(void);
/* the caller may read the stream's records (else an error) */
extern void ItemStreamCheckRead(const StreamInfo *s);
/*
 * records with after < seq <= upto, in order, at most limit (in cxt) and
 * about 1 MB; *more when the size cut the list short
 */
extern List *ItemStreamReadRecords(const StreamInfo *s, int64 after, int64 upto, int limit,
							   MemoryContext cxt, bool *more);
/* the record in its DynamoDB shape (GetRecords) */
extern Jsonb *ItemStreamRecordJsonb(const StreamInfo *s, const StreamRecord *r);
extern Jsonb *ItemStreamRecordKeys(const StreamInfo *s, const StreamRecord *r);
extern char *ItemStreamSequenceText(int64 seq);

/* ---- trimming ---- */
extern int64 ItemStreamTrimBatch(TimestampTz as_of, int max_records);

/* ---- consumers (stream_consumer.c) ---- */
/* the active consumers' names (SPI connected), in cxt */
extern List *ItemStreamConsumerNames(MemoryContext cxt);

/*
 * The worker's batch of a consumer, in two transactions (SPI connected):
 * ItemStreamConsumerAttempt, committed first, says whether records wait
 * and counts the batch as a failure ahead (a batch whose process is ended
 * still counts); then ItemStreamConsumerBatch runs it: records delivered,
 * 0 when caught up, -1 when the consumer is not active or busy elsewhere,
 * -2 when the batch failed (recorded, retried later); *full when more may
 * wait.
 */
extern bool ItemStreamConsumerAttempt(const char *name);
extern int64 ItemStreamConsumerBatch(const char *name, bool *full);

#endif							/* ITEM_TABLE_STREAM_H */
