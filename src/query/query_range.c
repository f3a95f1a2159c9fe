/*-------------------------------------------------------------------------
 *
 * query_range.c
 *		Key condition to key range, and the segments of a parallel scan.
 *
 * The key condition of a Query becomes one range of item_key values, kept
 * as bounds with inclusiveness (KeyRange):
 *
 *	  pk = :p						[P, P|~)
 *	  pk = :p AND sk = :v			[P|v, P|v]
 *	  sk < :v / sk <= :v			[P, P|v) / [P, P|v]
 *	  sk > :v / sk >= :v			(P|v, P|~) / [P|v, P|~)
 *	  sk BETWEEN :a AND :b			[P|a, P|b]
 *	  begins_with(sk, :s)			[P|s, P|s~)
 *
 * where P is the partition-only key (the first position of the partition),
 * P|~ the partition top and P|s~ the prefix top (item_table.h).  The index
 * is read through a half-open range [lo, hi): an exclusive lower bound K
 * becomes K || 00 and an inclusive upper bound K becomes K || 00, which is
 * exact because K || 00 is the immediate successor of K in byte order (no
 * byte string lies between them).  So one statement per direction serves
 * every key condition, ExclusiveStartKey included (it moves lo forward, or
 * hi backward; query_start_key.c).
 *
 * The checks come in DynamoDB's order: ReadKeyConditionShape() those that
 * need no table (operators, one key attribute per condition, one condition
 * per key, at most two), ReadKeyConditionRange() those against the key
 * schema of the target (which key is missing, types, key value limits).
 *
 * Segments.  A parallel Scan reads the keys whose segment,
 * item_key_segment(key, TotalSegments), is its Segment: a hash of the
 * partition part only, so an item collection never spans two segments and
 * segments are stable across pages.  Each segment still walks the whole
 * index (correct, not parallel-efficient).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "miscadmin.h"

#include "query.h"

/* ----------------------------------------------------------------
 * ranges
 * ----------------------------------------------------------------
 */
/* a copy of k with one more byte: the immediate successor of k */
ItemKey *
ReadKeySuccessor(const ItemKey *k)
{
	int			len = ITEMKEY_LEN(k);
	ItemKey    *r = (ItemKey *) palloc(VARHDRSZ + len + 1);

	memcpy(VARDATA(r), ITEMKEY_DATA(k), len);
	((uint8 *) VARDATA(r))[len] = 0;
	SET_VARSIZE(r, VARHDRSZ + len + 1);
	return r;
}

/* the half-open physical bounds [*lo, *hi) of a range */
void
ReadRangeBounds(const KeyRange *r, Datum *lo, Datum *hi)
{
	static const uint8 top = 0xFF;	/* above every version byte */

	if (r->lo == NULL)
		*lo = PointerGetDatum(KeyCodecMakeVarlena(&top, 0));
	else
		*lo = PointerGetDatum(r->lo_incl ? r->lo : ReadKeySuccessor(r->lo));
	if (r->hi == NULL)
		*hi = PointerGetDatum(KeyCodecMakeVarlena(&top, 1));
	else
		*hi = PointerGetDatum(r->hi_incl ? ReadKeySuccessor(r->hi) : r->hi);
}

/* is key inside the range? */
bool
ReadRangeContains(const KeyRange *r, const ItemKey *key)
{
	int			c;

	if (r->lo != NULL)
	{
		c = ItemKeyCompare(key, r->lo);
		if (c < 0 || (c == 0 && !r->lo_incl))
			return false;
	}
	if (r->hi != NULL)
	{
		c = ItemKeyCompare(key, r->hi);
		if (c > 0 || (c == 0 && !r->hi_incl))
			return false;
	}
	return true;
}

/* the range as EXPLAIN shows it: "key range: <col> >= ... AND <col> < ..." */
void
ReadDescribeRange(StringInfo out, const KeyRange *r, const char *col)
{
	appendStringInfoString(out, "key range:");
	if (r->lo == NULL && r->hi == NULL)
		appendStringInfoString(out, " all keys");
	if (r->lo != NULL)
		appendStringInfo(out, " %s %s %s", col, r->lo_incl ? ">=" : ">", ItemKeyToText(r->lo));
	if (r->lo != NULL && r->hi != NULL)
		appendStringInfoString(out, " AND");
	if (r->hi != NULL)
		appendStringInfo(out, " %s %s %s", col, r->hi_incl ? "<=" : "<", ItemKeyToText(r->hi));
}

/* the partition top of partition-only key p: after every key of p */
ItemKey *
ReadPartitionTop(const ItemKey *p)
{
	ItemKey    *lo,
			   *hi;

	KeyCodecPrefixBounds(p, &lo, &hi);
	return hi;
}

/* ----------------------------------------------------------------
 * KeyConditionExpression
 * ----------------------------------------------------------------
 */
static const char *
key_operator_name(const CondNode *c)
{
	switch (c->kind)
	{
		case COND_IN:
			return "IN";
		case COND_ATTRIBUTE_EXISTS:
			return "attribute_exists";
		case COND_ATTRIBUTE_NOT_EXISTS:
			return "attribute_not_exists";
		case COND_ATTRIBUTE_TYPE:
			return "attribute_type";
		case COND_CONTAINS:
			return "contains";
		case COND_COMPARE:
			return c->op == CMP_NE ? "<>" : NULL;
		default:
			return NULL;
	}
}

/*
 * key_leaf
 *		Check one condition of a key condition for what DynamoDB refuses
 *		before it looks at the table, and return it with the key attribute
 *		on the left.
 */
static void
key_leaf(const CondNode *c, KeyLeaf *leaf)
{
	const char *bad = key_operator_name(c);
	int			path_at = -1;
	int			i;

	if (bad != NULL)
		DynValidation("Invalid operator used in KeyConditionExpression: %s", bad);
	if ((c->kind == COND_BETWEEN || c->kind == COND_BEGINS_WITH) &&
		c->operands[0]->kind != OPND_PATH)
		DynValidation("Invalid condition in KeyConditionExpression: %s operator must have the key attribute as its first operand",
					  c->kind == COND_BETWEEN ? "BETWEEN" : "begins_with");
	for (i = 0; i < c->noperands; i++)
	{
		const Operand *o = c->operands[i];

		if (o->kind == OPND_SIZE)
			DynValidation("KeyConditionExpressions cannot contain nested operations");
		if (o->kind != OPND_PATH)
			continue;
		if (path_at >= 0)
			DynValidation("Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition");
		if (o->path->nelems != 1 || o->path->elems[0].kind != PATH_NAME)
			DynValidation("KeyConditionExpressions cannot have conditions on nested attributes");
		path_at = i;
	}
	if (path_at < 0)
		DynValidation("Invalid condition in KeyConditionExpression: No key attribute specified");

	memset(leaf, 0, sizeof(*leaf));
	leaf->attr = pnstrdup(c->operands[path_at]->path->elems[0].name,
						  c->operands[path_at]->path->elems[0].namelen);
	leaf->kind = c->kind;
	leaf->op = c->op;
	if (c->kind == COND_COMPARE)
	{
		leaf->v1 = c->operands[1 - path_at]->value;
		if (path_at == 1)
			leaf->op = ExprMirrorCompare(c->op);
	}
	else
	{
		leaf->v1 = c->operands[1]->value;
		if (c->kind == COND_BETWEEN)
			leaf->v2 = c->operands[2]->value;
	}
}

static void
collect_leaves(const CondNode *c, List **leaves)
{
	check_stack_depth();
	if (c->kind == COND_AND)
	{
		collect_leaves(c->left, leaves);
		collect_leaves(c->right, leaves);
	}
	else
		*leaves = lappend(*leaves, (void *) c);
}

/*
 * ReadKeyConditionShape
 *		The checks of a key condition that need no table: operators, one
 *		key attribute per condition, one condition per key, at most two.
 */
void
ReadKeyConditionShape(const CondNode *cond, KeyCondition *kc)
{
	List	   *nodes = NIL;
	KeyLeaf    *all;
	ListCell   *lc;
	int			n = 0;
	int			i,
				j;

	collect_leaves(cond, &nodes);
	all = palloc(sizeof(KeyLeaf) * list_length(nodes));
	foreach(lc, nodes)
		key_leaf((const CondNode *) lfirst(lc), &all[n++]);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (strcmp(all[i].attr, all[j].attr) == 0)
				DynValidation("KeyConditionExpressions must only contain one condition per key");
	/* a multi-attribute index key takes more; ReadKeyConditionRange checks */
	if (n > ITEMKEY_MAX_TUPLE_PARTS)
		DynValidation("Conditions can be of length 1 or 2 only");
	kc->nleaves = n;
	for (i = 0; i < n; i++)
		kc->leaves[i] = all[i];
}

static void
check_condition_type(const AttrValue *v, AttrType type)
{
	if (v != NULL && v->type != type)
		DynValidation("One or more parameter values were invalid: Condition parameter type does not match schema type");
}

/* append the encoded part of key value v to buf */
static void
append_value(StringInfo buf, const AttrValue *v)
{
	ItemKeyPart part;

	AttrKeyPart(v, &part);
	KeyCodecAppendPart(buf, &part, false);
}

/* a copy of buf's key so far, with extra (0: none) appended */
static ItemKey *
tuple_bound(StringInfo buf, int extra)
{
	StringInfoData b;

	initStringInfo(&b);
	appendBinaryStringInfo(&b, buf->data, buf->len);
	if (extra != 0)
		appendStringInfoChar(&b, (char) extra);
	return KeyCodecTupleFinish(&b);
}

/*
 * multi_key_range
 *		ReadKeyConditionRange for an index with a multi-attribute key
 *		schema (key_codec.c's essay, property 4b): `=` on every partition
 *		attribute; sort attributes used from the first without gaps, `=` on
 *		each but the last used, which may instead have <, <=, >, >=,
 *		BETWEEN or begins_with.  One range of tuple keys.
 */
static void
multi_key_range(const ReadTarget *t, const KeyCondition *kc, KeyRange *r,
				ItemKey **partition)
{
	const IndexDef *idx = t->idx;
	const KeyLeaf *by_part[ITEMKEY_MAX_TUPLE_PARTS];
	const KeyLeaf *last = NULL;
	StringInfoData buf;
	int			nused = 0;
	int			i;

	memset(by_part, 0, sizeof(by_part));
	for (i = 0; i < kc->nleaves; i++)
	{
		int			k;

		for (k = 0; k < idx->nkeys; k++)
			if (strcmp(kc->leaves[i].attr, idx->keys[k]) == 0)
				by_part[k] = &kc->leaves[i];
	}
	/* every partition attribute, with = */
	for (i = 0; i < idx->nhash; i++)
		if (by_part[i] == NULL)
			DynValidation("Query condition missed key schema element: %s", idx->keys[i]);
	/* sort attributes: a prefix of them, no gaps */
	for (i = idx->nhash; i < idx->nkeys && by_part[i] != NULL; i++)
		nused++;
	for (i = idx->nhash + nused; i < idx->nkeys; i++)
		if (by_part[i] != NULL)
			DynValidation("Query condition missed key schema element: %s",
						  idx->keys[idx->nhash + nused]);
	if (kc->nleaves != idx->nhash + nused)
	{
		/* a condition on an attribute that is not a key of the index */
		if (idx->nhash + nused < idx->nkeys)
			DynValidation("Query condition missed key schema element: %s",
						  idx->keys[idx->nhash + nused]);
		DynValidation("Query key condition not supported");
	}
	for (i = 0; i < idx->nhash + nused; i++)
	{
		const KeyLeaf *l = by_part[i];
		bool		is_last = (i == idx->nhash + nused - 1) && i >= idx->nhash;

		if (!is_last && (l->kind != COND_COMPARE || l->op != CMP_EQ))
			DynValidation("Query key condition not supported");
		check_condition_type(l->v1, idx->key_types[i]);
		check_condition_type(l->v2, idx->key_types[i]);
	}
	for (i = 0; i < idx->nhash + nused; i++)
	{
		AttrCheckKeyValue(NULL, idx->keys[i], by_part[i]->v1, i >= idx->nhash);
		if (by_part[i]->v2 != NULL)
			AttrCheckKeyValue(NULL, idx->keys[i], by_part[i]->v2, i >= idx->nhash);
	}

	/* the partition: its parts; then the = parts before the last */
	KeyCodecTupleStart(&buf, idx->nhash);
	for (i = 0; i < idx->nhash; i++)
		append_value(&buf, by_part[i]->v1);
	*partition = tuple_bound(&buf, 0);
	for (i = idx->nhash; i < idx->nhash + nused - 1; i++)
		append_value(&buf, by_part[i]->v1);
	if (nused > 0)
		last = by_part[idx->nhash + nused - 1];

	memset(r, 0, sizeof(*r));
	r->lo_incl = true;
	r->hi_incl = false;
	r->lo = tuple_bound(&buf, 0);
	r->hi = tuple_bound(&buf, ITEMKEY_TAG_PARTITION_TOP);
	if (last == NULL)
		return;
	switch (last->kind)
	{
		case COND_COMPARE:
			{
				int			at = buf.len;

				append_value(&buf, last->v1);
				switch (last->op)
				{
					case CMP_EQ:
						r->lo = tuple_bound(&buf, 0);
						r->hi = tuple_bound(&buf, ITEMKEY_TAG_PARTITION_TOP);
						break;
					case CMP_LT:
						r->hi = tuple_bound(&buf, 0);
						break;
					case CMP_LE:
						r->hi = tuple_bound(&buf, ITEMKEY_TAG_PARTITION_TOP);
						break;
					case CMP_GT:
						r->lo = tuple_bound(&buf, ITEMKEY_TAG_PARTITION_TOP);
						break;
					case CMP_GE:
						r->lo = tuple_bound(&buf, 0);
						break;
					default:
						elog(ERROR, "unexpected key condition operator");
				}
				buf.len = at;
				break;
			}
		case COND_BETWEEN:
			{
				int			at = buf.len;

				append_value(&buf, last->v1);
				r->lo = tuple_bound(&buf, 0);
				buf.len = at;
				append_value(&buf, last->v2);
				r->hi = tuple_bound(&buf, ITEMKEY_TAG_PARTITION_TOP);
				break;
			}
		case COND_BEGINS_WITH:
			{
				ItemKeyPart part;

				if (last->v1->type != ATTR_S && last->v1->type != ATTR_B)
					DynValidation("Query key condition not supported");
				AttrKeyPart(last->v1, &part);
				appendStringInfoChar(&buf, (char) (part.type == ITEMKEY_S ?
												   ITEMKEY_TAG_S : ITEMKEY_TAG_B));
				KeyCodecAppendEscaped(&buf, part.bytes, part.len);
				r->lo = tuple_bound(&buf, 0);
				r->hi = tuple_bound(&buf, ITEMKEY_PREFIX_TOP);
				break;
			}
		default:
			elog(ERROR, "unexpected key condition");
	}
}

/*
 * ReadKeyConditionRange
 *		Match a key condition to the target's key schema and turn it into a
 *		key range.  *partition gets the partition-only key.
 */
void
ReadKeyConditionRange(const ReadTarget *t, const KeyCondition *kc, KeyRange *r,
					  ItemKey **partition)
{
	const KeyLeaf *hash = NULL;
	const KeyLeaf *sort = NULL;
	ItemKey    *p;
	int			i;

	if (t->idx != NULL && t->idx->multi)
	{
		multi_key_range(t, kc, r, partition);
		return;
	}
	if (kc->nleaves > 2)
		DynValidation("Conditions can be of length 1 or 2 only");
	for (i = 0; i < kc->nleaves; i++)
	{
		const KeyLeaf *l = &kc->leaves[i];

		if (strcmp(l->attr, t->hash_key) == 0)
			hash = l;
		else if (t->range_key != NULL && strcmp(l->attr, t->range_key) == 0)
			sort = l;
	}
	if (hash == NULL)
		DynValidation("Query condition missed key schema element: %s", t->hash_key);
	if (kc->nleaves > (sort != NULL ? 2 : 1))
	{
		/* a condition on an attribute that is not a key */
		if (t->range_key != NULL)
			DynValidation("Query condition missed key schema element: %s", t->range_key);
		DynValidation("Query key condition not supported");
	}
	if (hash->kind != COND_COMPARE || hash->op != CMP_EQ)
		DynValidation("Query key condition not supported");
	check_condition_type(hash->v1, t->hash_type);
	if (sort != NULL)
	{
		check_condition_type(sort->v1, t->range_type);
		check_condition_type(sort->v2, t->range_type);
	}
	AttrCheckKeyValue(NULL, t->hash_key, hash->v1, false);
	if (sort != NULL)
	{
		AttrCheckKeyValue(NULL, t->range_key, sort->v1, true);
		if (sort->v2 != NULL)
			AttrCheckKeyValue(NULL, t->range_key, sort->v2, true);
	}

	p = AttrKeyFromValues(hash->v1, NULL);
	*partition = p;
	memset(r, 0, sizeof(*r));
	r->lo = p;
	r->lo_incl = true;
	r->hi = ReadPartitionTop(p);
	r->hi_incl = false;
	if (sort == NULL)
		return;
	switch (sort->kind)
	{
		case COND_COMPARE:
			{
				ItemKey    *k = AttrKeyFromValues(hash->v1, sort->v1);

				switch (sort->op)
				{
					case CMP_EQ:
						r->lo = r->hi = k;
						r->lo_incl = r->hi_incl = true;
						break;
					case CMP_LT:
					case CMP_LE:
						r->hi = k;
						r->hi_incl = sort->op == CMP_LE;
						break;
					case CMP_GT:
					case CMP_GE:
						r->lo = k;
						r->lo_incl = sort->op == CMP_GE;
						break;
					default:
						elog(ERROR, "unexpected key condition operator");
				}
				break;
			}
		case COND_BETWEEN:
			r->lo = AttrKeyFromValues(hash->v1, sort->v1);
			r->hi = AttrKeyFromValues(hash->v1, sort->v2);
			r->lo_incl = r->hi_incl = true;
			break;
		case COND_BEGINS_WITH:
			KeyCodecPrefixBounds(AttrKeyFromValues(hash->v1, sort->v1), &r->lo, &r->hi);
			r->lo_incl = true;
			r->hi_incl = false;
			break;
		default:
			elog(ERROR, "unexpected key condition");
	}
}

/* ----------------------------------------------------------------
 * segments
 * ----------------------------------------------------------------
 */
PG_FUNCTION_INFO_V1(item_key_segment);

/* segment of a key: hash of its partition part, modulo total */
int
ReadKeySegment(const ItemKey *k, int total)
{
	int			plen = KeyCodecPartitionLength(ITEMKEY_DATA(k), ITEMKEY_LEN(k));
	uint32		h = DatumGetUInt32(hash_any(ITEMKEY_DATA(k), plen));

	return (int) (h % (uint32) total);
}

/*
 * item_key_segment(key, total_segments)
 *		The parallel-scan segment of a key: the hash of its partition part
 *		(as the hash opclass computes it) modulo total_segments.
 */
Datum
item_key_segment(PG_FUNCTION_ARGS)
{
	ItemKey    *k = PG_GETARG_ITEMKEY_PP(0);
	int32		total = PG_GETARG_INT32(1);
	int			seg;

	if (total < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("total_segments must be at least 1")));
	seg = ReadKeySegment(k, total);
	PG_FREE_IF_COPY(k, 0);
	PG_RETURN_INT32(seg);
}

