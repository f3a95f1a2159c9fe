/*-------------------------------------------------------------------------
 *
 * ion.h
 *		Amazon Ion text, as DynamoDB's ION exports and imports use it: a
 *		file split into its top-level values and one value read into
 *		DynamoDB JSON (ion.c), and a stored item (or an incremental export's
 *		line) written as one line of Ion text (ion_write.c); ion.c's essay
 *		describes the subset and the mapping.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_ION_H
#define ITEM_TABLE_ION_H

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

/* may c begin, or continue, an Ion identifier (a symbol without quotes)? */
static inline bool
IonIdentStart(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

static inline bool
IonIdentChar(char c)
{
	return IonIdentStart(c) || (c >= '0' && c <= '9');
}

/* the largest value text the splitter keeps (a DynamoDB item is 400 KB) */
#define ION_MAX_VALUE	(16 * 1024 * 1024)

/*
 * The splitter: bytes of a file in, top-level values out.  Feed it with
 * IonSplitterNext until it says a value is complete (its text is
 * s->value.data, s->value.len bytes, begun on line s->value_line); at the
 * end of the file, IonSplitterFinish gives the last value, if any.  A value
 * longer than its limit comes out as a text IonToItemJson refuses.
 */
typedef struct IonSplitter
{
	StringInfoData value;		/* the text of the value being read */
	size_t		max_value;
	int64		line;			/* the line being read, from 1 */
	int64		value_line;		/* the line of the value's first token */
	int			depth;			/* open containers */
	int			state;			/* lexical state (ion.c) */
	int			resume;			/* the state a comment returns to */
	bool		escape;			/* a backslash seen in a string */
	int			quotes;			/* closing quotes of a long string seen */
	bool		in_scalar;		/* a top-level scalar token is being read */
	bool		scalar_done;	/* a top-level scalar ended: a value, unless :: follows */
	int			scalar_start;	/* where the last top-level token began */
	int			scalar_end;		/* and ended */
	int			ntokens;		/* top-level tokens of the value */
	bool		significant;	/* the text holds more than blanks and comments */
	bool		oversize;		/* longer than max_value: no longer kept */
	bool		emitted;		/* the last call gave a value: start afresh */
} IonSplitter;

extern void IonSplitterInit(IonSplitter *s, size_t max_value);
extern bool IonSplitterNext(IonSplitter *s, const char *data, size_t len, size_t *used);
extern bool IonSplitterFinish(IonSplitter *s);

/*
 * One top-level value (a struct whose fields are items, such as
 * {Item:{...}}) as DynamoDB JSON text ({"Item": {"a": {"S": ...}}}, with
 * U+0000 as \u0000); ERROR (ERRCODE_BAD_COPY_FILE_FORMAT) when it is not
 * Ion text of that shape.
 */
extern char *IonToItemJson(const char *text, size_t len);

/*
 * A line's object (jsonb in the stored form: {"Item": item}, or the
 * Metadata, Keys, OldImage and NewImage of an incremental export) appended
 * to out as Ion text, after the version marker, without a newline.
 */
extern void IonWriteLine(StringInfo out, Jsonb *line);

#endif							/* ITEM_TABLE_ION_H */
