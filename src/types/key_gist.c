/*-------------------------------------------------------------------------
 *
 * key_gist.c
 *		GiST operator class for item_key (item_key_gist_ops).
 *
 * The index is a range tree over the key encoding: every comparison is
 * memcmp() order of the encoded bytes (ItemKeyCompareBytes), which is the
 * item_key order, and begins_with is a half-open byte range (see
 * KeyCodecPrefixBounds).  The opclass knows nothing else about keys.
 *
 * Entry representation (STORAGE bytea, one varlena):
 *
 *	  single	[key bytes]
 *				The payload is a whole item_key encoding, whose first byte is
 *				the format version and therefore never 0x00.  Every leaf entry
 *				has this form (compress stores the key unchanged, fetch returns
 *				it unchanged); an internal entry has it when all the keys below
 *				it are equal and not too long to keep whole (see bound_keep).
 *				Stands for the range [key, key].
 *
 *	  range		[0x00][lower length: 2 bytes, big-endian][lower][upper]
 *				Only on internal pages.  The upper bound fills the rest.
 *				Stands for the inclusive range [lower, upper].
 *
 * Invariant: every key in the subtree below an internal entry e satisfies
 * lower(e) <= key <= upper(e) in memcmp order.  The bounds are byte strings
 * that need not be valid keys.
 *
 * Bounds of a union are cut to "keep" bytes so that internal tuples stay
 * small however long the keys are:
 *
 *	  lower		truncated to keep bytes: a prefix of a string sorts before or
 *				equal to it, so the invariant holds.
 *	  upper		truncated to keep bytes, trailing 0xFF bytes stripped and the
 *				last remaining byte incremented.  The result is strictly
 *				greater than every string that starts with the kept bytes,
 *				hence greater than the old bound and every key below it.  (An
 *				upper bound made only of 0xFF bytes would be kept whole; real
 *				bounds start with the version byte, so that does not happen.)
 *
 * keep is ITEMKEY_GIST_BOUND_LEN (128) bytes, or more when lower and upper
 * share a longer common prefix: then keep = common prefix +
 * ITEMKEY_GIST_BOUND_EXTRA, up to ITEMKEY_GIST_BOUND_MAX (512).  128 bytes
 * hold a whole typical key (partition and sort values of a few dozen
 * characters), so ordinary ranges are exact and internal tuples stay under
 * about 270 bytes (a fan-out of 30 or more per 8 kB page).  Keeping more
 * when the bounds share a long prefix (say, a 200-byte partition value)
 * keeps the subtrees below that prefix apart: bounds cut inside the shared
 * prefix would be identical for all of them, and every search would have
 * to visit all of them.  The cap limits an internal tuple to about 1 kB.
 * Truncating at any length is safe; the length only affects precision.
 *
 * A truncated range never has lower == upper (the lower bound is at most a
 * key below it, the upper bound is strictly above every key), so an entry
 * with lower == upper always means "all keys below equal this value".
 *
 * Leaf entries are exact: consistent() never asks for a recheck, and fetch
 * supports index-only scans.  sortsupport gives sorted index builds.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>
#include <limits.h>
#include <math.h>

#include "access/gist.h"
#include "access/stratnum.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"

#include "item_table.h"

/* bound lengths kept in internal entries (see the file header) */
#define ITEMKEY_GIST_BOUND_LEN		128
#define ITEMKEY_GIST_BOUND_EXTRA	16
#define ITEMKEY_GIST_BOUND_MAX		512

/* first payload byte of a range entry; a key starts with its version byte */
#define ITEMKEY_GIST_RANGE_MARKER	0x00

/* range header: marker and two-byte lower length */
#define ITEMKEY_GIST_RANGE_HDR		3

/*
 * Penalties are log-scale distances (see item_key_gist_penalty); this offset
 * keeps them positive for any key the codec can produce.
 */
#define ITEMKEY_GIST_PENALTY_OFFSET 8192.0

StaticAssertDecl(ITEMKEY_GIST_BOUND_LEN <= ITEMKEY_GIST_BOUND_MAX &&
				 ITEMKEY_GIST_BOUND_MAX <= PG_UINT16_MAX,
				 "range lower length must fit two bytes");
StaticAssertDecl(ITEMKEY_FORMAT_VERSION != ITEMKEY_GIST_RANGE_MARKER,
				 "range marker must differ from the key version byte");

/* A decoded entry: pointers into the entry's payload. */
typedef struct KeyRange
{
	const uint8 *lower;
	int			lowerlen;
	const uint8 *upper;
	int			upperlen;
} KeyRange;

/* One entry during picksplit. */
typedef struct SplitItem
{
	OffsetNumber offset;
	KeyRange	range;
} SplitItem;

/* Decoded begins_with query, cached in fn_extra of consistent. */
typedef struct PrefixQueryCache
{
	int			qlen;
	int			lowerlen;
	int			upperlen;
	uint8	   *query;			/* copy of the query bytes */
	uint8	   *lower;			/* inclusive */
	uint8	   *upper;			/* exclusive */
} PrefixQueryCache;

PG_FUNCTION_INFO_V1(item_key_gist_consistent);
PG_FUNCTION_INFO_V1(item_key_gist_union);
PG_FUNCTION_INFO_V1(item_key_gist_compress);
PG_FUNCTION_INFO_V1(item_key_gist_decompress);
PG_FUNCTION_INFO_V1(item_key_gist_penalty);
PG_FUNCTION_INFO_V1(item_key_gist_picksplit);
PG_FUNCTION_INFO_V1(item_key_gist_same);
PG_FUNCTION_INFO_V1(item_key_gist_fetch);
PG_FUNCTION_INFO_V1(item_key_gist_sortsupport);

/*
 * entry_varlena
 *		The entry datum as a varlena with an inline, uncompressed payload.
 *		Entries handed to the support functions are normally decompressed
 *		already, making this a no-op; fetch and sortsupport see raw index
 *		datums, which index_form_tuple may have compressed.
 */
static inline struct varlena *
entry_varlena(Datum d)
{
	return pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));
}

/*
 * decode_entry
 *		Point r at the bounds of an entry (either form).  No allocation.
 */
static void
decode_entry(const struct varlena *entry, KeyRange *r)
{
	const uint8 *data = (const uint8 *) VARDATA_ANY(entry);
	int			len = VARSIZE_ANY_EXHDR(entry);

	if (len < 1)
		elog(ERROR, "empty item_key GiST entry");

	if (data[0] != ITEMKEY_GIST_RANGE_MARKER)
	{
		r->lower = r->upper = data;
		r->lowerlen = r->upperlen = len;
		return;
	}

	if (len < ITEMKEY_GIST_RANGE_HDR)
		elog(ERROR, "corrupt item_key GiST range entry");
	r->lowerlen = (data[1] << 8) | data[2];
	if (ITEMKEY_GIST_RANGE_HDR + r->lowerlen > len)
		elog(ERROR, "corrupt item_key GiST range entry");
	r->lower = data + ITEMKEY_GIST_RANGE_HDR;
	r->upper = r->lower + r->lowerlen;
	r->upperlen = len - ITEMKEY_GIST_RANGE_HDR - r->lowerlen;
}

/*
 * entry_is_single
 *		Is the entry in single-key form?
 */
static inline bool
entry_is_single(const struct varlena *entry)
{
	return VARSIZE_ANY_EXHDR(entry) >= 1 &&
		((const uint8 *) VARDATA_ANY(entry))[0] != ITEMKEY_GIST_RANGE_MARKER;
}

/*
 * entry_with_key
 *		entry itself when key is its datum, else a new entry like it
 *		holding key (a detoasted copy).
 */
static GISTENTRY *
entry_with_key(GISTENTRY *entry, struct varlena *key)
{
	GISTENTRY  *retval;

	if ((Pointer) key == DatumGetPointer(entry->key))
		return entry;
	retval = (GISTENTRY *) palloc(sizeof(GISTENTRY));
	gistentryinit(*retval, PointerGetDatum(key),
				  entry->rel, entry->page, entry->offset, false);
	return retval;
}

/*
 * common_prefix
 *		Length of the common prefix of two byte strings.
 */
static int
common_prefix(const uint8 *a, int alen, const uint8 *b, int blen)
{
	int			n = Min(alen, blen);
	int			i = 0;

	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/*
 * bound_keep
 *		How many bytes of each bound of [lower, upper] an entry keeps.
 */
static int
bound_keep(const uint8 *lower, int lowerlen, const uint8 *upper, int upperlen)
{
	int			keep;

	keep = common_prefix(lower, lowerlen, upper, upperlen) +
		ITEMKEY_GIST_BOUND_EXTRA;
	keep = Max(keep, ITEMKEY_GIST_BOUND_LEN);
	return Min(keep, ITEMKEY_GIST_BOUND_MAX);
}

/*
 * make_entry
 *		Build the palloc'd entry for the range [lower, upper] (lower <=
 *		upper), truncating the bounds as the file header describes.  An
 *		untruncated range with equal bounds becomes a single-key entry.
 */
static struct varlena *
make_entry(const uint8 *lower, int lowerlen, const uint8 *upper, int upperlen)
{
	struct varlena *result;
	uint8	   *p;
	int			keep = bound_keep(lower, lowerlen, upper, upperlen);
	int			keep_upper;
	bool		bump_upper = false;

	if (lowerlen <= keep &&
		ItemKeyCompareBytes(lower, lowerlen, upper, upperlen) == 0)
	{
		result = (struct varlena *) palloc(VARHDRSZ + lowerlen);
		SET_VARSIZE(result, VARHDRSZ + lowerlen);
		memcpy(VARDATA(result), lower, lowerlen);
		return result;
	}

	if (lowerlen > keep)
		lowerlen = keep;

	keep_upper = upperlen;
	if (upperlen > keep)
	{
		int			n = keep;

		while (n > 0 && upper[n - 1] == 0xFF)
			n--;
		if (n > 0)
		{
			keep_upper = n;
			bump_upper = true;
		}
		/* else: nothing can follow an all-0xFF prefix; keep it whole */
	}

	result = (struct varlena *) palloc(VARHDRSZ + ITEMKEY_GIST_RANGE_HDR +
									   lowerlen + keep_upper);
	SET_VARSIZE(result, VARHDRSZ + ITEMKEY_GIST_RANGE_HDR +
				lowerlen + keep_upper);
	p = (uint8 *) VARDATA(result);
	p[0] = ITEMKEY_GIST_RANGE_MARKER;
	p[1] = (uint8) (lowerlen >> 8);
	p[2] = (uint8) (lowerlen & 0xFF);
	memcpy(p + ITEMKEY_GIST_RANGE_HDR, lower, lowerlen);
	p += ITEMKEY_GIST_RANGE_HDR + lowerlen;
	memcpy(p, upper, keep_upper);
	if (bump_upper)
		p[keep_upper - 1]++;
	return result;
}

/*
 * get_prefix_query
 *		The begins_with query and its range [lower, upper), cached in
 *		flinfo->fn_extra.  The query is checked with ItemKeyCheckPrefix, so
 *		a prefix the operator rejects (a number sort part, a range bound)
 *		raises the same error through the index.  The cache is keyed by the
 *		query bytes, since a rescan may bring a new value.
 */
static PrefixQueryCache *
get_prefix_query(FmgrInfo *flinfo, const ItemKey *query)
{
	PrefixQueryCache *cache = (PrefixQueryCache *) flinfo->fn_extra;
	const uint8 *q = ITEMKEY_DATA(query);
	int			qlen = ITEMKEY_LEN(query);
	ItemKey    *lower;
	ItemKey    *upper;
	char	   *mem;

	if (cache != NULL && cache->qlen == qlen &&
		memcmp(cache->query, q, qlen) == 0)
		return cache;

	ItemKeyCheckPrefix(query);
	KeyCodecPrefixBounds(query, &lower, &upper);

	if (cache != NULL)
	{
		pfree(cache);
		flinfo->fn_extra = NULL;
	}

	/* one chunk: struct, query, lower, upper */
	mem = MemoryContextAlloc(flinfo->fn_mcxt,
							 MAXALIGN(sizeof(PrefixQueryCache)) + qlen +
							 ITEMKEY_LEN(lower) + ITEMKEY_LEN(upper));
	cache = (PrefixQueryCache *) mem;
	mem += MAXALIGN(sizeof(PrefixQueryCache));
	cache->qlen = qlen;
	cache->query = (uint8 *) mem;
	memcpy(cache->query, q, qlen);
	mem += qlen;
	cache->lowerlen = ITEMKEY_LEN(lower);
	cache->lower = (uint8 *) mem;
	memcpy(cache->lower, ITEMKEY_DATA(lower), cache->lowerlen);
	mem += cache->lowerlen;
	cache->upperlen = ITEMKEY_LEN(upper);
	cache->upper = (uint8 *) mem;
	memcpy(cache->upper, ITEMKEY_DATA(upper), cache->upperlen);

	pfree(lower);
	pfree(upper);
	flinfo->fn_extra = cache;
	return cache;
}

/*
 * leaf_consistent
 *		Does the key satisfy "key op query"?  Exact.
 */
static bool
leaf_consistent(const uint8 *key, int keylen, StrategyNumber strategy,
				const uint8 *q, int qlen)
{
	int			cmp;

	if (strategy == ITEMKEY_PREFIX_STRATEGY)
		return KeyCodecBeginsWith(key, keylen, q, qlen);

	cmp = ItemKeyCompareBytes(key, keylen, q, qlen);
	switch (strategy)
	{
		case ITEMKEY_LT_STRATEGY:
			return cmp < 0;
		case ITEMKEY_LE_STRATEGY:
			return cmp <= 0;
		case ITEMKEY_EQ_STRATEGY:
			return cmp == 0;
		case ITEMKEY_GE_STRATEGY:
			return cmp >= 0;
		case ITEMKEY_GT_STRATEGY:
			return cmp > 0;
		case ITEMKEY_NE_STRATEGY:
			return cmp != 0;
	}
	elog(ERROR, "unrecognized item_key GiST strategy number: %d", strategy);
	return false;				/* keep compiler quiet */
}

/*
 * internal_consistent
 *		Can some key in [lower, upper] satisfy "key op query"?  prefix is
 *		the decoded query for begins_with, else NULL.
 */
static bool
internal_consistent(const KeyRange *r, StrategyNumber strategy,
					const uint8 *q, int qlen, const PrefixQueryCache *prefix)
{
	switch (strategy)
	{
		case ITEMKEY_LT_STRATEGY:
			return ItemKeyCompareBytes(r->lower, r->lowerlen, q, qlen) < 0;
		case ITEMKEY_LE_STRATEGY:
			return ItemKeyCompareBytes(r->lower, r->lowerlen, q, qlen) <= 0;
		case ITEMKEY_EQ_STRATEGY:
			return ItemKeyCompareBytes(r->lower, r->lowerlen, q, qlen) <= 0 &&
				ItemKeyCompareBytes(r->upper, r->upperlen, q, qlen) >= 0;
		case ITEMKEY_GE_STRATEGY:
			return ItemKeyCompareBytes(r->upper, r->upperlen, q, qlen) >= 0;
		case ITEMKEY_GT_STRATEGY:
			return ItemKeyCompareBytes(r->upper, r->upperlen, q, qlen) > 0;
		case ITEMKEY_NE_STRATEGY:
			/* only a subtree whose keys all equal q can be skipped */
			return ItemKeyCompareBytes(r->lower, r->lowerlen, q, qlen) != 0 ||
				ItemKeyCompareBytes(r->upper, r->upperlen, q, qlen) != 0;
		case ITEMKEY_PREFIX_STRATEGY:
			/* [lower, upper] overlaps [prefix lower, prefix upper) */
			return ItemKeyCompareBytes(r->lower, r->lowerlen,
									   prefix->upper, prefix->upperlen) < 0 &&
				ItemKeyCompareBytes(r->upper, r->upperlen,
									prefix->lower, prefix->lowerlen) >= 0;
	}
	elog(ERROR, "unrecognized item_key GiST strategy number: %d", strategy);
	return false;				/* keep compiler quiet */
}

/*
 * item_key_gist_consistent
 *		consistent(entry, query, strategy, subtype, recheck): can the entry
 *		hold (leaf: does it hold) a key satisfying "key op query"?  Leaf
 *		answers are exact, so *recheck is always false.
 */
Datum
item_key_gist_consistent(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	ItemKey    *query = PG_GETARG_ITEMKEY_PP(1);
	StrategyNumber strategy = (StrategyNumber) PG_GETARG_UINT16(2);

	/* Oid		subtype = PG_GETARG_OID(3); */
	bool	   *recheck = (bool *) PG_GETARG_POINTER(4);
	struct varlena *key = entry_varlena(entry->key);
	PrefixQueryCache *prefix = NULL;
	KeyRange	r;
	bool		result;

	*recheck = false;

	/* validates the prefix even when the index has no leaf to test */
	if (strategy == ITEMKEY_PREFIX_STRATEGY)
		prefix = get_prefix_query(fcinfo->flinfo, query);

	decode_entry(key, &r);
	if (GIST_LEAF(entry))
	{
		if (!entry_is_single(key))
			elog(ERROR, "item_key GiST leaf entry holds a range");
		result = leaf_consistent(r.lower, r.lowerlen, strategy,
								 ITEMKEY_DATA(query), ITEMKEY_LEN(query));
	}
	else
		result = internal_consistent(&r, strategy, ITEMKEY_DATA(query),
									 ITEMKEY_LEN(query), prefix);

	PG_FREE_IF_COPY(query, 1);
	PG_RETURN_BOOL(result);
}

/*
 * item_key_gist_union
 *		union(entryvec, sizep): the entry covering all entries of the vector.
 */
Datum
item_key_gist_union(PG_FUNCTION_ARGS)
{
	GistEntryVector *entryvec = (GistEntryVector *) PG_GETARG_POINTER(0);
	int		   *sizep = (int *) PG_GETARG_POINTER(1);
	KeyRange	u;
	struct varlena *result;
	int			i;

	if (entryvec->n < 1)
		elog(ERROR, "item_key GiST union of no entries");

	decode_entry(entry_varlena(entryvec->vector[0].key), &u);
	for (i = 1; i < entryvec->n; i++)
	{
		KeyRange	r;

		decode_entry(entry_varlena(entryvec->vector[i].key), &r);
		if (ItemKeyCompareBytes(r.lower, r.lowerlen, u.lower, u.lowerlen) < 0)
		{
			u.lower = r.lower;
			u.lowerlen = r.lowerlen;
		}
		if (ItemKeyCompareBytes(r.upper, r.upperlen, u.upper, u.upperlen) > 0)
		{
			u.upper = r.upper;
			u.upperlen = r.upperlen;
		}
	}

	result = make_entry(u.lower, u.lowerlen, u.upper, u.upperlen);
	*sizep = VARSIZE(result);
	PG_RETURN_POINTER(result);
}

/*
 * item_key_gist_compress
 *		compress(entry): a leaf entry is the key itself (detoasted so the
 *		index never points at heap TOAST); internal entries are built by
 *		union and picksplit in their final form already.
 */
Datum
item_key_gist_compress(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	struct varlena *key;

	if (!entry->leafkey)
		PG_RETURN_POINTER(entry);

	key = entry_varlena(entry->key);
	if (!entry_is_single(key))
		elog(ERROR, "invalid item_key value in GiST compress");

	PG_RETURN_POINTER(entry_with_key(entry, key));
}

/*
 * item_key_gist_decompress
 *		decompress(entry): undo any compression index_form_tuple applied.
 */
Datum
item_key_gist_decompress(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	struct varlena *key = entry_varlena(entry->key);

	PG_RETURN_POINTER(entry_with_key(entry, key));
}

/*
 * item_key_gist_fetch
 *		fetch(entry): the item_key stored in a leaf entry, for index-only
 *		scans.  A leaf entry's payload is the key's own encoding.
 */
Datum
item_key_gist_fetch(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	struct varlena *key = entry_varlena(entry->key);

	if (!entry_is_single(key))
		elog(ERROR, "item_key GiST fetch of a range entry");

	PG_RETURN_POINTER(entry_with_key(entry, key));
}

/*
 * log256_distance
 *		log base 256 of (b - a), reading both byte strings as base-256
 *		fractions 0.b0 b1 b2 ...; the caller guarantees a < b.  Computed
 *		from the first differing byte and the six bytes from there, so it
 *		stays meaningful for keys sharing long prefixes, where a plain
 *		double difference would round to zero.
 */
static double
log256_distance(const uint8 *a, int alen, const uint8 *b, int blen)
{
	int			minlen = Min(alen, blen);
	int			d = 0;
	int64		va = 0;
	int64		vb = 0;
	int			i;

	while (d < minlen && a[d] == b[d])
		d++;
	for (i = d; i < d + 6; i++)
	{
		va = (va << 8) | (i < alen ? a[i] : 0);
		vb = (vb << 8) | (i < blen ? b[i] : 0);
	}
	/* a proper prefix followed by zero bytes still lies strictly below */
	if (vb - va < 1)
		return -(double) (d + 6);
	return log((double) (vb - va)) / log(256.0) - (double) (d + 6);
}

/*
 * item_key_gist_penalty
 *		penalty(orig, new, result): how far orig's range must grow to cover
 *		new.  0 when new already lies inside.  Otherwise the growth, as
 *		base-256 fractions, on a log scale (a float4 cannot hold the raw
 *		difference of long keys) shifted to be positive: a larger growth
 *		always gives a larger penalty.
 */
Datum
item_key_gist_penalty(PG_FUNCTION_ARGS)
{
	GISTENTRY  *origentry = (GISTENTRY *) PG_GETARG_POINTER(0);
	GISTENTRY  *newentry = (GISTENTRY *) PG_GETARG_POINTER(1);
	float	   *penalty = (float *) PG_GETARG_POINTER(2);
	KeyRange	o;
	KeyRange	n;
	bool		grow_low;
	bool		grow_high;
	double		lo = 0;
	double		hi = 0;
	double		l;

	decode_entry(entry_varlena(origentry->key), &o);
	decode_entry(entry_varlena(newentry->key), &n);

	grow_low = ItemKeyCompareBytes(n.lower, n.lowerlen,
								   o.lower, o.lowerlen) < 0;
	grow_high = ItemKeyCompareBytes(n.upper, n.upperlen,
									o.upper, o.upperlen) > 0;

	if (!grow_low && !grow_high)
	{
		*penalty = 0.0f;
		PG_RETURN_POINTER(penalty);
	}

	if (grow_low)
		lo = log256_distance(n.lower, n.lowerlen, o.lower, o.lowerlen);
	if (grow_high)
		hi = log256_distance(o.upper, o.upperlen, n.upper, n.upperlen);

	if (grow_low && grow_high)
	{
		/* log256(256^lo + 256^hi) */
		double		mx = Max(lo, hi);
		double		mn = Min(lo, hi);

		l = mx + log1p(pow(256.0, mn - mx)) / log(256.0);
	}
	else
		l = grow_low ? lo : hi;

	l += ITEMKEY_GIST_PENALTY_OFFSET;
	/* growth must never look as good as none */
	*penalty = (float) Max(l, (double) FLT_MIN);
	PG_RETURN_POINTER(penalty);
}

/*
 * split_item_cmp
 *		qsort order for picksplit: by lower bound, then upper bound.
 */
static int
split_item_cmp(const void *a, const void *b)
{
	const KeyRange *ra = &((const SplitItem *) a)->range;
	const KeyRange *rb = &((const SplitItem *) b)->range;
	int			cmp;

	cmp = ItemKeyCompareBytes(ra->lower, ra->lowerlen,
							  rb->lower, rb->lowerlen);
	if (cmp != 0)
		return cmp;
	return ItemKeyCompareBytes(ra->upper, ra->upperlen,
							   rb->upper, rb->upperlen);
}

/*
 * union_items
 *		The entry covering items[0 .. n), which are sorted by lower bound.
 */
static struct varlena *
union_items(const SplitItem *items, int n)
{
	const KeyRange *hi = &items[0].range;
	int			i;

	for (i = 1; i < n; i++)
	{
		if (ItemKeyCompareBytes(items[i].range.upper, items[i].range.upperlen,
								hi->upper, hi->upperlen) > 0)
			hi = &items[i].range;
	}
	return make_entry(items[0].range.lower, items[0].range.lowerlen,
					  hi->upper, hi->upperlen);
}

/*
 * item_key_gist_picksplit
 *		picksplit(entryvec, splitvec): sort the entries by range and cut the
 *		sorted list once.  The cut lies in the middle third, at the place
 *		where neighbouring lower bounds share the shortest prefix (ties go to
 *		the middle): that tends to cut between partitions, or between sort
 *		prefixes, so the two halves overlap little and their bounds are
 *		short and telling for begins_with.
 */
Datum
item_key_gist_picksplit(PG_FUNCTION_ARGS)
{
	GistEntryVector *entryvec = (GistEntryVector *) PG_GETARG_POINTER(0);
	GIST_SPLITVEC *v = (GIST_SPLITVEC *) PG_GETARG_POINTER(1);
	OffsetNumber maxoff = (OffsetNumber) (entryvec->n - 1);
	int			nitems = maxoff - FirstOffsetNumber + 1;
	SplitItem  *items;
	OffsetNumber i;
	int			mid;
	int			lo;
	int			hi;
	int			split;
	int			bestcpl;
	int			k;

	if (nitems < 2)
		elog(ERROR, "item_key GiST picksplit of fewer than two entries");

	items = (SplitItem *) palloc(sizeof(SplitItem) * nitems);
	for (i = FirstOffsetNumber; i <= maxoff; i = OffsetNumberNext(i))
	{
		SplitItem  *it = &items[i - FirstOffsetNumber];

		it->offset = i;
		decode_entry(entry_varlena(entryvec->vector[i].key), &it->range);
	}
	qsort(items, nitems, sizeof(SplitItem), split_item_cmp);

	/* left gets items[0 .. split), right items[split .. nitems) */
	mid = nitems / 2;
	lo = Max(1, nitems / 3);
	hi = Min(nitems - 1, nitems - nitems / 3);
	split = mid;
	bestcpl = INT_MAX;
	for (k = lo; k <= hi; k++)
	{
		int			cpl = common_prefix(items[k - 1].range.lower,
										items[k - 1].range.lowerlen,
										items[k].range.lower,
										items[k].range.lowerlen);

		if (cpl < bestcpl ||
			(cpl == bestcpl && abs(k - mid) < abs(split - mid)))
		{
			bestcpl = cpl;
			split = k;
		}
	}

	v->spl_left = (OffsetNumber *) palloc(sizeof(OffsetNumber) * split);
	v->spl_right = (OffsetNumber *) palloc(sizeof(OffsetNumber) *
										   (nitems - split));
	v->spl_nleft = 0;
	v->spl_nright = 0;
	for (k = 0; k < nitems; k++)
	{
		if (k < split)
			v->spl_left[v->spl_nleft++] = items[k].offset;
		else
			v->spl_right[v->spl_nright++] = items[k].offset;
	}
	v->spl_ldatum = PointerGetDatum(union_items(items, split));
	v->spl_rdatum = PointerGetDatum(union_items(items + split,
												nitems - split));

	pfree(items);
	PG_RETURN_POINTER(v);
}

/*
 * item_key_gist_same
 *		same(a, b, result): do two entries stand for the same range?
 */
Datum
item_key_gist_same(PG_FUNCTION_ARGS)
{
	struct varlena *a = entry_varlena(PG_GETARG_DATUM(0));
	struct varlena *b = entry_varlena(PG_GETARG_DATUM(1));
	bool	   *result = (bool *) PG_GETARG_POINTER(2);
	KeyRange	ra;
	KeyRange	rb;

	decode_entry(a, &ra);
	decode_entry(b, &rb);
	*result = ItemKeyCompareBytes(ra.lower, ra.lowerlen,
								  rb.lower, rb.lowerlen) == 0 &&
		ItemKeyCompareBytes(ra.upper, ra.upperlen,
							rb.upper, rb.upperlen) == 0;

	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	PG_RETURN_POINTER(result);
}

/*
 * sortsupport_cmp
 *		Compare two leaf entries (keys) for a sorted index build.
 */
static int
sortsupport_cmp(Datum a, Datum b, SortSupport ssup)
{
	struct varlena *ka = entry_varlena(a);
	struct varlena *kb = entry_varlena(b);
	int			result;

	result = ItemKeyCompareBytes((const uint8 *) VARDATA_ANY(ka),
								 VARSIZE_ANY_EXHDR(ka),
								 (const uint8 *) VARDATA_ANY(kb),
								 VARSIZE_ANY_EXHDR(kb));

	if ((Pointer) ka != DatumGetPointer(a))
		pfree(ka);
	if ((Pointer) kb != DatumGetPointer(b))
		pfree(kb);
	return result;
}

/*
 * item_key_gist_sortsupport
 *		sortsupport(ssup): key order for sorted builds.  Leaf entries are
 *		the keys' encodings, so this is plain memcmp order.
 */
Datum
item_key_gist_sortsupport(PG_FUNCTION_ARGS)
{
	SortSupport ssup = (SortSupport) PG_GETARG_POINTER(0);

	ssup->comparator = sortsupport_cmp;
	PG_RETURN_VOID();
}
