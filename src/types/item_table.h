/*-------------------------------------------------------------------------
 *
 * item_table.h
 *		Shared declarations: the item_key layout, limits, accessor macros,
 *		operator strategy numbers and the codec interface.
 *
 * item_key layout (all bytes after the varlena header):
 *
 *	  [version][partition part][sort part]?
 *
 * or, for the key of a GSI with a multi-attribute key schema,
 *
 *	  [ITEMKEY_FORMAT_TUPLE][nhash][part]{1..8}
 *
 * nhash (1..4) the number of partition attributes, then the partition
 * attributes' parts and the sort attributes', in the order of the KeySchema
 * (key_codec.c's essay, property 4).
 *
 * version is ITEMKEY_FORMAT_VERSION.  A part starts with a tag byte that
 * names its type (and, for numbers, the sign), followed by its payload:
 *
 *	  N   tag N_NEG | N_ZERO | N_POS, then for non-zero numbers an exponent
 *		  byte and base-100 digit pairs closed by a terminator byte; negative
 *		  numbers have every byte after the tag complemented.  Self-delimiting.
 *	  S,B tag, then the bytes as code words: 0x00..0x07 -> 07 (b + 08),
 *		  0xFE -> FE 01, 0xFF -> FE 02, every other byte as itself.  No code
 *		  word starts with a tag byte (01..06), so the payload ends where
 *		  the next tag (or the end of the key) begins: no terminator.
 *
 * memcmp() of two encodings is DynamoDB's order: partition first, then
 * sort; a key without a sort part sorts before every key of its partition
 * that has one.  Across types (which DynamoDB never mixes in one key
 * attribute) N < S < B.
 *
 * Two kinds of "bound" values exist only so that begins_with can become an
 * index range; they compare correctly but hold no complete value:
 *
 *	  partition top   the partition part followed, in tag position, by
 *					  ITEMKEY_TAG_PARTITION_TOP; sorts after every key of that
 *					  partition and before every later partition.  Text: S"a"|~
 *	  prefix top	  a sort part's escaped payload without terminator followed
 *					  by ITEMKEY_PREFIX_TOP; sorts after every key whose sort
 *					  part begins with that payload.  Text: S"a"|S"pre"~
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_H
#define ITEM_TABLE_H


#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "compat.h"
#include "dnumber.h"

/* ---- layout constants ---- */
#define ITEMKEY_FORMAT_VERSION		0x01
#define ITEMKEY_FORMAT_TUPLE		0x02	/* a multi-attribute index key */
#define ITEMKEY_MAX_TUPLE_PARTS		8	/* 4 partition + 4 sort attributes */

/* tags: all below every code word's first byte */
#define ITEMKEY_TAG_N_NEG			0x01
#define ITEMKEY_TAG_N_ZERO			0x02
#define ITEMKEY_TAG_N_POS			0x03
#define ITEMKEY_TAG_S				0x04
#define ITEMKEY_TAG_B				0x05
#define ITEMKEY_TAG_PARTITION_TOP	0x06	/* bound marker, above every tag */
#define ITEMKEY_TAG_MAX				0x06
#define ItemKeyIsTagByte(b)			((b) >= ITEMKEY_TAG_N_NEG && (b) <= ITEMKEY_TAG_MAX)

#define ITEMKEY_ESC_LOW				0x07	/* 07 (b+08) = payload byte b < 08 */
#define ITEMKEY_ESC_LOW_OFFSET		0x08
#define ITEMKEY_ESC_HIGH			0xFE	/* FE 01 = 0xFE, FE 02 = 0xFF */
#define ITEMKEY_PREFIX_TOP			0xFF	/* after an unterminated payload */

/* number payload */
#define ITEMKEY_NUM_EXP_BIAS		(-DYNNUM_MIN_EXP)	/* exponent byte = e + 129 */
#define ITEMKEY_NUM_TERMINATOR		0x00	/* digit pairs are 1..100 */

/* ---- limits (DynamoDB's) ---- */
#define ITEMKEY_MAX_PARTITION_BYTES 2048
#define ITEMKEY_MAX_SORT_BYTES		1024

/* ---- operator strategy numbers (btree's, plus begins_with) ---- */
#define ITEMKEY_LT_STRATEGY			1
#define ITEMKEY_LE_STRATEGY			2
#define ITEMKEY_EQ_STRATEGY			3
#define ITEMKEY_GE_STRATEGY			4
#define ITEMKEY_GT_STRATEGY			5
#define ITEMKEY_NE_STRATEGY			6
#define ITEMKEY_PREFIX_STRATEGY		28	/* same number as RTPrefixStrategyNumber */

/* ---- the SQL type ---- */
typedef struct varlena ItemKey;

#define DatumGetItemKeyPP(X)		((ItemKey *) PG_DETOAST_DATUM_PACKED(X))
#define PG_GETARG_ITEMKEY_PP(n)		DatumGetItemKeyPP(PG_GETARG_DATUM(n))
#define PG_RETURN_ITEMKEY_P(x)		PG_RETURN_POINTER(x)
#define ITEMKEY_DATA(k)				((const uint8 *) VARDATA_ANY(k))
#define ITEMKEY_LEN(k)				((int) VARSIZE_ANY_EXHDR(k))

typedef enum ItemKeyType
{
	ITEMKEY_NONE = 0,
	ITEMKEY_S = 'S',
	ITEMKEY_N = 'N',
	ITEMKEY_B = 'B'
} ItemKeyType;

typedef enum ItemKeyBound
{
	ITEMKEY_EXACT = 0,			/* a real key */
	ITEMKEY_BOUND_PARTITION_TOP,	/* after every key of the partition */
	ITEMKEY_BOUND_PREFIX_TOP	/* after every key with this sort prefix */
} ItemKeyBound;

/*
 * One key part as a value.  For S and B, bytes/len are the raw (unescaped)
 * payload; for N, num holds the number.
 */
typedef struct ItemKeyPart
{
	ItemKeyType type;
	const char *bytes;
	int			len;
	DynNumber	num;
} ItemKeyPart;

/* A whole key, decoded. */
typedef struct ItemKeyParsed
{
	ItemKeyPart partition;
	ItemKeyPart sort;			/* type ITEMKEY_NONE when absent */
	ItemKeyBound bound;
} ItemKeyParsed;

/*
 * A multi-attribute key (a GSI with several HASH or RANGE attributes),
 * decoded: its parts in key-schema order, the nhash partition parts
 * first.  bound is ITEMKEY_BOUND_PARTITION_TOP when the parts are
 * followed by the top marker (after every key that begins with them),
 * ITEMKEY_BOUND_PREFIX_TOP when the last S or B part is a prefix bound.
 */
typedef struct ItemKeyTuple
{
	int			nhash;			/* how many of the parts are partition parts */
	int			nparts;
	ItemKeyPart parts[ITEMKEY_MAX_TUPLE_PARTS];
	ItemKeyBound bound;
} ItemKeyTuple;

/* ---- key_codec.c ---- */
extern void KeyCodecAppendPart(StringInfo buf, const ItemKeyPart *part,
							   bool final);
extern ItemKey *KeyCodecBuild(const ItemKeyPart *partition,
							  const ItemKeyPart *sort);
extern bool KeyCodecDecode(const uint8 *data, int len, ItemKeyParsed *out,
						   const char **why);
extern int	KeyCodecPartitionLength(const uint8 *data, int len);
extern int	KeyCodecSortPayloadOffset(const uint8 *data, int len);
extern void KeyCodecPrefixBounds(const ItemKey *prefix, ItemKey **lower,
								 ItemKey **upper);
extern bool KeyCodecBeginsWith(const uint8 *key, int keylen,
							   const uint8 *prefix, int prefixlen);
extern ItemKey *KeyCodecMakeVarlena(const uint8 *data, int len);
extern void KeyCodecTupleStart(StringInfo buf, int nhash);
extern ItemKey *KeyCodecTupleFinish(StringInfo buf);
extern ItemKey *KeyCodecBuildTuple(const ItemKeyPart *parts, int nhash, int nparts);
extern bool KeyCodecDecodeTuple(const uint8 *data, int len, ItemKeyTuple *out,
								const char **why);
extern void KeyCodecAppendEscaped(StringInfo buf, const char *bytes, int len);
extern bool ItemUtf8IsValid(const char *s, int len);

/* ---- key_io.c ---- */
extern char *ItemBase64Encode(const uint8 *src, int len);
extern bool ItemBase64Decode(const char *src, int len, uint8 **out, int *outlen);
extern void ItemKeyPartFromAttributeValue(Jsonb *jb, bool is_sort,
										  ItemKeyPart *part);
extern Jsonb *ItemKeyPartToAttributeValue(const ItemKeyPart *part);
extern JsonbValue *ItemKeyPartPush(JsonbParseState **state, const ItemKeyPart *part);
extern void ItemKeyDecodeOrError(const ItemKey *key, ItemKeyParsed *parsed);
extern char *ItemKeyToText(const ItemKey *key);

/* ---- key_ops.c ---- */
extern int	ItemKeyCompare(const ItemKey *a, const ItemKey *b);
extern int	ItemKeyCompareBytes(const uint8 *a, int alen,
								const uint8 *b, int blen);
extern void ItemKeyCheckPrefix(const ItemKey *prefix);

/* GUCs, registered by _PG_init (module.c) */
/* key_support.c: the planner hook pricing parameterised key ranges */
extern void KeySupportInit(void);

/* query_target.c, which reads it */
extern PGDLLIMPORT bool item_table_consistent_index_reads;

/* SQL-callable, key_io.c */
extern Datum item_key_in(PG_FUNCTION_ARGS);
extern Datum item_key_out(PG_FUNCTION_ARGS);
extern Datum item_key_recv(PG_FUNCTION_ARGS);
extern Datum item_key_send(PG_FUNCTION_ARGS);
extern Datum item_key_from_values(PG_FUNCTION_ARGS);
extern Datum item_key_partition_value(PG_FUNCTION_ARGS);
extern Datum item_key_sort_value(PG_FUNCTION_ARGS);
extern Datum item_key_partition_key(PG_FUNCTION_ARGS);

/* SQL-callable, key_ops.c */
extern Datum item_key_cmp(PG_FUNCTION_ARGS);
extern Datum item_key_lt(PG_FUNCTION_ARGS);
extern Datum item_key_le(PG_FUNCTION_ARGS);
extern Datum item_key_eq(PG_FUNCTION_ARGS);
extern Datum item_key_ne(PG_FUNCTION_ARGS);
extern Datum item_key_ge(PG_FUNCTION_ARGS);
extern Datum item_key_gt(PG_FUNCTION_ARGS);
extern Datum item_key_sortsupport(PG_FUNCTION_ARGS);
extern Datum item_key_hash(PG_FUNCTION_ARGS);
extern Datum item_key_hash_extended(PG_FUNCTION_ARGS);
extern Datum item_key_begins_with(PG_FUNCTION_ARGS);
extern Datum item_key_prefix_upper(PG_FUNCTION_ARGS);

/* SQL-callable, key_support.c */
extern Datum item_key_begins_with_support(PG_FUNCTION_ARGS);
extern Datum item_key_prefix_sel(PG_FUNCTION_ARGS);
extern Datum item_key_analyze(PG_FUNCTION_ARGS);

/* SQL-callable, key_gist.c */
extern Datum item_key_gist_consistent(PG_FUNCTION_ARGS);
extern Datum item_key_gist_union(PG_FUNCTION_ARGS);
extern Datum item_key_gist_compress(PG_FUNCTION_ARGS);
extern Datum item_key_gist_decompress(PG_FUNCTION_ARGS);
extern Datum item_key_gist_penalty(PG_FUNCTION_ARGS);
extern Datum item_key_gist_picksplit(PG_FUNCTION_ARGS);
extern Datum item_key_gist_same(PG_FUNCTION_ARGS);
extern Datum item_key_gist_fetch(PG_FUNCTION_ARGS);
extern Datum item_key_gist_sortsupport(PG_FUNCTION_ARGS);

#endif							/* ITEM_TABLE_H */
