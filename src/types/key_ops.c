/*-------------------------------------------------------------------------
 *
 * key_ops.c
 *		item_key operators, btree comparison and sortsupport, the
 *		partition-only hash, and begins_with.
 *
 * Every comparison is memcmp() of the encodings (key_codec.c makes that
 * DynamoDB's order), so equality is bitwise and btree deduplication is
 * safe (the btree opclass uses btequalimage).
 *
 * The hash opclass hashes only the partition part: every item of one
 * partition hashes alike, which is what hash partitioning and distribution
 * by partition key need.  It is still a valid hash opclass because equal
 * keys always have equal partitions.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/sortsupport.h"

#include "item_table.h"

PG_FUNCTION_INFO_V1(item_key_cmp);
PG_FUNCTION_INFO_V1(item_key_lt);
PG_FUNCTION_INFO_V1(item_key_le);
PG_FUNCTION_INFO_V1(item_key_eq);
PG_FUNCTION_INFO_V1(item_key_ne);
PG_FUNCTION_INFO_V1(item_key_ge);
PG_FUNCTION_INFO_V1(item_key_gt);
PG_FUNCTION_INFO_V1(item_key_sortsupport);
PG_FUNCTION_INFO_V1(item_key_hash);
PG_FUNCTION_INFO_V1(item_key_hash_extended);
PG_FUNCTION_INFO_V1(item_key_begins_with);
PG_FUNCTION_INFO_V1(item_key_prefix_upper);

/*
 * ItemKeyCompareBytes
 *		memcmp order, a proper prefix first.
 */
int
ItemKeyCompareBytes(const uint8 *a, int alen, const uint8 *b, int blen)
{
	int			r = memcmp(a, b, Min(alen, blen));

	if (r != 0)
		return r;
	return (alen > blen) - (alen < blen);
}

int
ItemKeyCompare(const ItemKey *a, const ItemKey *b)
{
	return ItemKeyCompareBytes(ITEMKEY_DATA(a), ITEMKEY_LEN(a),
							   ITEMKEY_DATA(b), ITEMKEY_LEN(b));
}

/*
 * compare_args
 *		Compare the two arguments, freeing detoasted copies.
 */
static inline int
compare_args(FunctionCallInfo fcinfo)
{
	ItemKey    *a = PG_GETARG_ITEMKEY_PP(0);
	ItemKey    *b = PG_GETARG_ITEMKEY_PP(1);
	int			r = ItemKeyCompare(a, b);

	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	return r;
}

Datum
item_key_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(compare_args(fcinfo));
}

Datum
item_key_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_args(fcinfo) < 0);
}

Datum
item_key_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_args(fcinfo) <= 0);
}

Datum
item_key_eq(PG_FUNCTION_ARGS)
{
	ItemKey    *a = PG_GETARG_ITEMKEY_PP(0);
	ItemKey    *b = PG_GETARG_ITEMKEY_PP(1);
	bool		r;

	/* different lengths can never be equal: skip the memcmp */
	r = ITEMKEY_LEN(a) == ITEMKEY_LEN(b) &&
		memcmp(ITEMKEY_DATA(a), ITEMKEY_DATA(b), ITEMKEY_LEN(a)) == 0;
	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	PG_RETURN_BOOL(r);
}

Datum
item_key_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_args(fcinfo) != 0);
}

Datum
item_key_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_args(fcinfo) >= 0);
}

Datum
item_key_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_args(fcinfo) > 0);
}

/*
 * fastcmp
 *		Sortsupport comparator: detoast (packed), compare, free copies.
 */
static int
item_key_fastcmp(Datum x, Datum y, SortSupport ssup)
{
	ItemKey    *a = DatumGetItemKeyPP(x);
	ItemKey    *b = DatumGetItemKeyPP(y);
	int			r = ItemKeyCompare(a, b);

	if ((Pointer) a != DatumGetPointer(x))
		pfree(a);
	if ((Pointer) b != DatumGetPointer(y))
		pfree(b);
	return r;
}

Datum
item_key_sortsupport(PG_FUNCTION_ARGS)
{
	SortSupport ssup = (SortSupport) PG_GETARG_POINTER(0);

	ssup->comparator = item_key_fastcmp;
	PG_RETURN_VOID();
}

/*
 * item_key_hash / item_key_hash_extended
 *		Hash of the partition part only.
 */
Datum
item_key_hash(PG_FUNCTION_ARGS)
{
	ItemKey    *k = PG_GETARG_ITEMKEY_PP(0);
	int			plen = KeyCodecPartitionLength(ITEMKEY_DATA(k), ITEMKEY_LEN(k));
	Datum		h = hash_any(ITEMKEY_DATA(k), plen);

	PG_FREE_IF_COPY(k, 0);
	PG_RETURN_DATUM(h);
}

Datum
item_key_hash_extended(PG_FUNCTION_ARGS)
{
	ItemKey    *k = PG_GETARG_ITEMKEY_PP(0);
	int			plen = KeyCodecPartitionLength(ITEMKEY_DATA(k), ITEMKEY_LEN(k));
	Datum		h = hash_any_extended(ITEMKEY_DATA(k), plen, PG_GETARG_INT64(1));

	PG_FREE_IF_COPY(k, 0);
	PG_RETURN_DATUM(h);
}

/*
 * ItemKeyCheckPrefix
 *		Reject what cannot be a begins_with prefix: a range bound, or a key
 *		whose sort part is a number (DynamoDB allows begins_with on S and B
 *		only).
 */
void
ItemKeyCheckPrefix(const ItemKey *prefix)
{
	ItemKeyParsed parsed;

	ItemKeyDecodeOrError(prefix, &parsed);
	if (parsed.bound != ITEMKEY_EXACT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("an item_key range bound cannot be a begins_with prefix")));
	if (parsed.sort.type == ITEMKEY_N)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("begins_with is not supported on number key parts"),
				 errdetail("DynamoDB allows begins_with only on string and binary sort keys.")));
}

/*
 * The prefix of begins_with is usually the same on every row: remember the
 * last one checked in fn_extra so that each row costs only a memcmp.
 */
typedef struct PrefixCache
{
	int			len;
	uint8		data[FLEXIBLE_ARRAY_MEMBER];
} PrefixCache;

static void
check_prefix_cached(FunctionCallInfo fcinfo, const ItemKey *prefix)
{
	PrefixCache *cache = (PrefixCache *) fcinfo->flinfo->fn_extra;
	int			len = ITEMKEY_LEN(prefix);

	if (cache != NULL && cache->len == len &&
		memcmp(cache->data, ITEMKEY_DATA(prefix), len) == 0)
		return;
	ItemKeyCheckPrefix(prefix);
	if (cache == NULL || cache->len < len)
	{
		if (cache != NULL)
			pfree(cache);
		cache = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt,
								   offsetof(PrefixCache, data) + len);
		fcinfo->flinfo->fn_extra = cache;
	}
	cache->len = len;
	memcpy(cache->data, ITEMKEY_DATA(prefix), len);
}

/*
 * begins_with(key, prefix) / key ^@ prefix
 */
Datum
item_key_begins_with(PG_FUNCTION_ARGS)
{
	ItemKey    *key = PG_GETARG_ITEMKEY_PP(0);
	ItemKey    *prefix = PG_GETARG_ITEMKEY_PP(1);
	bool		r;

	check_prefix_cached(fcinfo, prefix);
	r = KeyCodecBeginsWith(ITEMKEY_DATA(key), ITEMKEY_LEN(key),
						   ITEMKEY_DATA(prefix), ITEMKEY_LEN(prefix));
	PG_FREE_IF_COPY(key, 0);
	PG_FREE_IF_COPY(prefix, 1);
	PG_RETURN_BOOL(r);
}

/*
 * item_key_prefix_upper(prefix)
 *		The exclusive upper bound of the keys beginning with prefix; the
 *		planner support function puts it into index conditions.
 */
Datum
item_key_prefix_upper(PG_FUNCTION_ARGS)
{
	ItemKey    *prefix = PG_GETARG_ITEMKEY_PP(0);
	ItemKey    *lower;
	ItemKey    *upper;

	ItemKeyCheckPrefix(prefix);
	KeyCodecPrefixBounds(prefix, &lower, &upper);
	pfree(lower);
	PG_RETURN_ITEMKEY_P(upper);
}
