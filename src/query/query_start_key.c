/*-------------------------------------------------------------------------
 *
 * query_start_key.c
 *		Paging keys: the ExclusiveStartKey of a request, read and checked,
 *		and the LastEvaluatedKey of a response.
 *
 * An ExclusiveStartKey names exactly the key attributes of the target:
 * the table's, or for an index read the index's plus the table's (a name
 * in both counts once), since many items may share one index key.  It is
 * read in two steps, as DynamoDB orders its checks: its values before the
 * table is looked up (ReadParseStartKey: "The provided starting key is
 * invalid: <why>"), then against the key schema and the request
 * (ReadApplyStartKey): a Query's must satisfy the sort key condition and
 * lie in the queried partition, a parallel Scan's in its segment.  Query
 * and Scan word some refusals differently (for_scan).
 *
 * Reading resumes after it: on a table by moving the range's lower bound
 * (forward) or upper bound (backward) to it, exclusively; on an index
 * through the position (start_ikey, start_key) of the index statements
 * (query_page.c).
 *
 * LastEvaluatedKey is the key of the last item read, decoded back into
 * the key attributes the target names: the mirror image of the above.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "query.h"

#define START_KEY_INVALID "The provided starting key is invalid: "

/*
 * ReadParseStartKey
 *		The ExclusiveStartKey as an attribute map.  Invalid values are
 *		reported as "The provided starting key is invalid: <why>".
 */
AttrValue *
ReadParseStartKey(Jsonb *j)
{
	MemoryContext cxt = CurrentMemoryContext;
	AttrValue  *volatile result = NULL;

	if (j == NULL)
		return NULL;
	PG_TRY();
	{
		result = AttrItemFromJsonb(j);
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		const char *prefix = "ValidationException: ";

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_DYN_VALIDATION ||
			strncmp(edata->message, prefix, strlen(prefix)) != 0)
			PG_RE_THROW();
		FlushErrorState();
		DynValidation(START_KEY_INVALID "%s",
					  edata->message + strlen(prefix));
	}
	PG_END_TRY();
	return result;
}

/*
 * start_key_mismatch
 *		Refuse an ExclusiveStartKey that does not name the key attributes
 *		(wrong_type: names them with values of other types), in Query's or
 *		Scan's words.
 */
pg_noreturn static void start_key_mismatch(bool for_scan, bool wrong_type);

static void
start_key_mismatch(bool for_scan, bool wrong_type)
{
	if (for_scan)
		DynValidation(START_KEY_INVALID "The provided key element does not match the schema");
	if (wrong_type)
		DynValidation("The provided key element does not match the schema");
	DynValidation("The provided starting key is invalid");
}

/*
 * start_key
 *		The item_key of an ExclusiveStartKey, checked against the target's
 *		key schema.  for_scan selects Scan's messages.
 */
static ItemKey *
start_key(const ReadTarget *t, const AttrValue *esk, bool for_scan)
{
	const AttrValue *h = AttrMapGet(esk, t->hash_key, strlen(t->hash_key));
	const AttrValue *r = NULL;
	int			expected = t->range_key != NULL ? 2 : 1;
	const char *pre = for_scan ? START_KEY_INVALID : NULL;

	if (t->range_key != NULL)
		r = AttrMapGet(esk, t->range_key, strlen(t->range_key));
	if (esk->u.map.count != expected || h == NULL ||
		(t->range_key != NULL && r == NULL))
		start_key_mismatch(for_scan, false);
	if (h->type != t->hash_type || (r != NULL && r->type != t->range_type))
		start_key_mismatch(for_scan, true);
	AttrCheckKeyValue(pre, t->hash_key, h, false);
	if (r != NULL)
		AttrCheckKeyValue(pre, t->range_key, r, true);
	return AttrKeyFromValues(h, r);
}

/*
 * index_start_key
 *		The ExclusiveStartKey of an index read: the index key attributes and
 *		the table key attributes (a name in both counts once).  Sets *ikey
 *		and returns the table key.
 */
static ItemKey *
index_start_key(const ReadTarget *t, const AttrValue *esk, bool for_scan, ItemKey **ikey)
{
	const char *names[ITEMKEY_MAX_TUPLE_PARTS + 2];
	AttrType	types[ITEMKEY_MAX_TUPLE_PARTS + 2];
	const AttrValue *vals[ITEMKEY_MAX_TUPLE_PARTS + 2];
	int			n = 0;
	int			i;
	int			j;
	int			distinct;
	int			table_first;

	if (t->idx->multi)
	{
		for (i = 0; i < t->idx->nkeys; i++)
			names[n] = t->idx->keys[i], types[n++] = t->idx->key_types[i];
	}
	else
	{
		names[n] = t->hash_key, types[n++] = t->hash_type;
		if (t->range_key)
			names[n] = t->range_key, types[n++] = t->range_type;
	}
	names[n] = t->def->hash_key, types[n++] = t->def->hash_type;
	if (t->def->range_key)
		names[n] = t->def->range_key, types[n++] = t->def->range_type;

	for (i = 0; i < n; i++)
	{
		vals[i] = AttrMapGet(esk, names[i], strlen(names[i]));
		if (vals[i] == NULL)
				start_key_mismatch(for_scan, false);
		if (vals[i]->type != types[i])
				start_key_mismatch(for_scan, true);
	}
	/* no attribute other than the key names (a name in both counts once) */
	distinct = 0;
	for (i = 0; i < n; i++)
	{
		for (j = 0; j < i && strcmp(names[j], names[i]) != 0; j++)
			;
		distinct += (j == i);
	}
	if (esk->u.map.count != distinct)
		start_key_mismatch(for_scan, false);
	if (t->idx->multi)
	{
		ItemKeyPart parts[ITEMKEY_MAX_TUPLE_PARTS];

		for (i = 0; i < t->idx->nkeys; i++)
		{
			AttrCheckKeyValue(for_scan ? START_KEY_INVALID : NULL, names[i], vals[i],
							  i >= t->idx->nhash);
			AttrKeyPart(vals[i], &parts[i]);
		}
		*ikey = KeyCodecBuildTuple(parts, t->idx->nhash, t->idx->nkeys);
		table_first = t->idx->nkeys;
		return AttrKeyFromValues(vals[table_first], t->def->range_key ? vals[table_first + 1] : NULL);
	}
	AttrCheckKeyValue(for_scan ? START_KEY_INVALID : NULL, t->hash_key, vals[0], false);
	if (t->range_key)
		AttrCheckKeyValue(for_scan ? START_KEY_INVALID : NULL, t->range_key, vals[1], true);
	*ikey = AttrKeyFromValues(vals[0], t->range_key ? vals[1] : NULL);
	/* the table's key attributes follow the index's in names[] */
	table_first = t->range_key ? 2 : 1;
	return AttrKeyFromValues(vals[table_first], t->def->range_key ? vals[table_first + 1] : NULL);
}

/*
 * check_query_start_key
 *		An ExclusiveStartKey must satisfy the sort key condition and lie in
 *		the queried partition.
 */
static void
check_query_start_key(const ReadTarget *t, const AttrValue *esk, const ItemKey *k,
					  const ItemKey *partition, const KeyRange *r)
{
	const AttrValue *s = t->range_key ? AttrMapGet(esk, t->range_key, strlen(t->range_key)) : NULL;
	ItemKeyParsed pp;
	ItemKey    *in_partition;
	ItemKeyPart sp;

	if (t->idx != NULL && t->idx->multi)
	{
		ItemKeyTuple qt;
		ItemKeyTuple kt;
		const char *why = NULL;
		int			i;

		/* the start key's sort values placed in the queried partition */
		if (!KeyCodecDecodeTuple(ITEMKEY_DATA(partition), ITEMKEY_LEN(partition), &qt, &why) ||
			!KeyCodecDecodeTuple(ITEMKEY_DATA(k), ITEMKEY_LEN(k), &kt, &why))
			elog(ERROR, "invalid multi-attribute key: %s", why);
		for (i = 0; i < qt.nparts; i++)
			kt.parts[i] = qt.parts[i];
		if (!ReadRangeContains(r, KeyCodecBuildTuple(kt.parts, kt.nhash, kt.nparts)))
			DynValidation("The provided starting key does not match the range key predicate");
		if (!ReadRangeContains(r, k))
			DynValidation("The provided starting key is outside query boundaries based on provided conditions");
		return;
	}
	/* the sort value placed in the queried partition */
	ItemKeyDecodeOrError(partition, &pp);
	if (s != NULL)
	{
		AttrKeyPart(s, &sp);
		in_partition = KeyCodecBuild(&pp.partition, &sp);
	}
	else
		in_partition = KeyCodecBuild(&pp.partition, NULL);
	if (!ReadRangeContains(r, in_partition))
		DynValidation("The provided starting key does not match the range key predicate");
	if (!ReadRangeContains(r, k))
		DynValidation("The provided starting key is outside query boundaries based on provided conditions");
}


/*
 * ReadApplyStartKey
 *		Check the ExclusiveStartKey esk (NULL: none) of request rr against
 *		its target and, for a Query, its key range and partition (the
 *		partition-only key; for_scan: a Scan, whose segment is checked
 *		instead), and make rr read after it.
 */
void
ReadApplyStartKey(ReadRequest *rr, const AttrValue *esk, const ItemKey *partition,
				  bool for_scan)
{
	const ReadTarget *t = &rr->target;
	ItemKey    *k = NULL;
	ItemKey    *position;		/* what the range and the segment apply to */

	if (esk == NULL)
		return;
	if (t->idx != NULL)
	{
		rr->start_key = index_start_key(t, esk, for_scan, &rr->start_ikey);
		position = rr->start_ikey;
	}
	else
		position = k = start_key(t, esk, for_scan);

	if (!for_scan)
		check_query_start_key(t, esk, position, partition, &rr->range);
	else if (rr->total_segments > 1 &&
			 ReadKeySegment(position, rr->total_segments) != rr->segment)
		DynValidation(START_KEY_INVALID "Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: %d Segment: %d",
					  rr->total_segments, ReadKeySegment(position, rr->total_segments));

	/* a table: continue after the start key, in the direction of reading */
	if (t->idx == NULL && rr->forward)
	{
		rr->range.lo = k;
		rr->range.lo_incl = false;
	}
	else if (t->idx == NULL)
	{
		rr->range.hi = k;
		rr->range.hi_incl = false;
	}
}

/* push the key attributes hash_key and range_key (NULL: none) of k */
static void
push_key_attributes(JsonbParseState **state, const char *hash_key,
					const char *range_key, const ItemKey *k)
{
	ItemKeyParsed parsed;

	ItemKeyDecodeOrError(k, &parsed);
	ApiPushKey(state, hash_key);
	ItemKeyPartPush(state, &parsed.partition);
	if (range_key != NULL && parsed.sort.type != ITEMKEY_NONE)
	{
		ApiPushKey(state, range_key);
		ItemKeyPartPush(state, &parsed.sort);
	}
}

/*
 * ReadPushLastEvaluatedKey
 *		Push "LastEvaluatedKey": the key attributes of key (the table key of
 *		the last item read) and, for an index read, of ikey (its index key);
 *		a name in both is pushed twice with the same value, which jsonb keeps
 *		once.
 */
void
ReadPushLastEvaluatedKey(JsonbParseState **state, const ReadTarget *t,
						 const ItemKey *key, const ItemKey *ikey)
{
	ApiPushKey(state, "LastEvaluatedKey");
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	if (t->idx != NULL && t->idx->multi)
	{
		ItemKeyTuple kt;
		const char *why = NULL;
		int			i;

		push_key_attributes(state, t->def->hash_key, t->def->range_key, key);
		if (!KeyCodecDecodeTuple(ITEMKEY_DATA(ikey), ITEMKEY_LEN(ikey), &kt, &why) ||
			kt.nparts != t->idx->nkeys)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("invalid item_key value"),
					 errdetail("The encoding is damaged: %s.", why ? why : "wrong number of parts")));
		for (i = 0; i < kt.nparts; i++)
		{
			ApiPushKey(state, t->idx->keys[i]);
			ItemKeyPartPush(state, &kt.parts[i]);
		}
	}
	else if (t->idx != NULL)
	{
		push_key_attributes(state, t->def->hash_key, t->def->range_key, key);
		push_key_attributes(state, t->hash_key, t->range_key, ikey);
	}
	else
		push_key_attributes(state, t->hash_key, t->range_key, key);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}
