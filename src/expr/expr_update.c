/*-------------------------------------------------------------------------
 *
 * expr_update.c
 *		Apply a DynamoDB UpdateExpression (SET, REMOVE, ADD, DELETE) to an
 *		item, and pick out the attributes ReturnValues UPDATED_OLD /
 *		UPDATED_NEW report.
 *
 * The parser has already checked what the request alone shows: syntax,
 * placeholders, operand types of constants, key attributes, and that no
 * two actions' paths are equal or prefix-related.  This file raises what
 * depends on the item (reference §3.9): reading a missing attribute,
 * operands of the wrong type, document paths that cannot be written, and
 * results DynamoDB cannot store (numbers out of range, nesting deeper than
 * 32 levels).
 *
 * DynamoDB gives an update snapshot semantics: every right-hand side reads
 * the item as it was before the update, and list indexes in all actions
 * refer to pre-update positions ("REMOVE l[1], l[2]" on [0,1,2,3] gives
 * [0,3]).  We get that in four phases over a deep copy of the item:
 *
 *	 1. evaluate every SET right-hand side against the old item;
 *	 2. for every action, find its parent container (map or list) in the
 *		copy, which is still identical to the old item, and check that the
 *		last path step fits it;
 *	 3. apply the actions.  Map members are put or removed at once.  List
 *		elements are replaced in place, but removals are only marked and
 *		writes past the end only queued, so no index moves during the
 *		phase;
 *	 4. per list touched: drop the marked elements, then append the queued
 *		ones in ascending index order (SET l[10] on a 3-element list
 *		appends).
 *
 * Because no action's path is a prefix of another's, no action replaces a
 * container that another action found in phase 2, so the pointers stay
 * valid: container structs never move (only their member arrays do).
 *
 * Writing rules: a missing parent, or a parent of the wrong kind for the
 * last step (a name into a non-map, an index into a non-list), is
 * "The document path provided in the update expression is invalid for
 * update".  REMOVE of a missing leaf or of an index past the end does
 * nothing.  On a missing item (item_existed false) REMOVE and DELETE of a
 * nested path are silently ignored, as DynamoDB does for REMOVE; we treat
 * DELETE alike since it, too, only takes away.  ADD of an index past the
 * end appends, like SET.  A DELETE that empties a set removes the
 * attribute (or the list element holding the set).
 *
 * Legacy updates.  AttributeUpdates (legacy.c) arrive as the same tree,
 * marked legacy; two rules differ, as in DynamoDB: ADD also appends a list
 * to a list (a missing attribute takes the list), and an ADD or DELETE
 * value of the wrong type for the attribute is "Type mismatch for
 * attribute to update" (legacy.c has checked the values' own types).
 *
 * UPDATED_OLD / UPDATED_NEW are the projection of every action's path on
 * the old / new item.  That gives DynamoDB's rules (paths that did not
 * exist before, or do not exist after, are absent) and also its observed
 * oddities: a SET appending at l[100] is not reported as new (l[100] does
 * not exist afterwards), and "REMOVE l[1]" reports as new the element that
 * shifted into l[1].
 *
 * The item size limit is not checked here: UpdateItem measures it its own
 * way (reference §1.4), so the caller does.
 *
 * Everything returned is palloc'd in the caller's context and shares no
 * memory with the input item or the tree.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "attr_value.h"
#include "errors.h"
#include "expr.h"

PG_FUNCTION_INFO_V1(item_table_apply_update);
PG_FUNCTION_INFO_V1(item_table_updated_attributes);

#define MSG_MISSING_ATTRIBUTE \
	"The provided expression refers to an attribute that does not exist in the item"
#define MSG_WRONG_DATA_TYPE \
	"An operand in the update expression has an incorrect data type"
#define MSG_INVALID_PATH \
	"The document path provided in the update expression is invalid for update"
#define MSG_LEGACY_TYPE_MISMATCH \
	"Type mismatch for attribute to update"
#define MSG_NESTING \
	"Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"

/* one action, as located in phase 2 */
typedef struct UpdTarget
{
	const UpdateAction *action;
	const AttrValue *rhs;		/* SET: the value to store, not yet copied */
	AttrValue  *container;		/* parent in the new item; NULL: ignore */
	const PathElem *last;		/* the last step of the path */
	bool		legacy;			/* from AttributeUpdates (UpdateExpr.legacy) */
} UpdTarget;

/* deferred changes to one list (phase 3 -> 4) */
typedef struct ListAppend
{
	int			index;			/* requested (pre-update) index */
	AttrValue  *value;
} ListAppend;

typedef struct ListEdit
{
	AttrValue  *list;
	int			count;			/* elements before the update */
	bool	   *removed;		/* [count]: drop this element */
	int			nappends;
	ListAppend *appends;		/* room for one per action */
} ListEdit;

/* ----------------------------------------------------------------
 * phase 1: right-hand sides
 * ----------------------------------------------------------------
 */

/*
 * eval_rhs
 *		The value of a SET operand against the old item.  Raises for a
 *		missing attribute or a wrong operand type.  The result may point
 *		into item or the tree, or be a fresh value; it is copied when
 *		stored.
 */
static const AttrValue *
eval_rhs(const Operand *op, const AttrValue *item)
{
	const AttrValue *a;
	const AttrValue *b;
	const AttrValue *v;
	AttrValue  *list;
	int			i;

	check_stack_depth();
	switch (op->kind)
	{
		case OPND_PATH:
			v = ExprResolvePath(item, op->path);
			if (v == NULL)
				DynValidation(MSG_MISSING_ATTRIBUTE);
			return v;
		case OPND_VALUE:
			return op->value;
		case OPND_IF_NOT_EXISTS:
			v = ExprResolvePath(item, op->path);
			return v != NULL ? v : eval_rhs(op->args[0], item);
		case OPND_LIST_APPEND:
			a = eval_rhs(op->args[0], item);
			b = eval_rhs(op->args[1], item);
			if (a->type != ATTR_L || b->type != ATTR_L)
				DynValidation(MSG_WRONG_DATA_TYPE);
			/* shallow: elements are copied with the whole value later */
			list = AttrNewList(ATTR_L);
			for (i = 0; i < a->u.list.count; i++)
				AttrListAppend(list, a->u.list.elems[i]);
			for (i = 0; i < b->u.list.count; i++)
				AttrListAppend(list, b->u.list.elems[i]);
			return list;
		case OPND_PLUS:
		case OPND_MINUS:
			a = eval_rhs(op->args[0], item);
			b = eval_rhs(op->args[1], item);
			if (a->type != ATTR_N || b->type != ATTR_N)
				DynValidation(MSG_WRONG_DATA_TYPE);
			return AttrNumberAdd(a, b, op->kind == OPND_MINUS);
		case OPND_SIZE:
			break;
	}
	elog(ERROR, "operand kind %d is not allowed in an update", (int) op->kind);
	return NULL;				/* keep compiler quiet */
}

/* the constant of an ADD/DELETE action, with the type check DynamoDB makes */
static const AttrValue *
action_constant(const UpdateAction *a, bool legacy)
{
	const AttrValue *v;

	if (a->value == NULL || a->value->kind != OPND_VALUE)
		elog(ERROR, "ADD and DELETE need a constant operand");
	v = a->value->value;
	if (legacy)
		return v;				/* legacy.c checked it with its own rules */
	if (a->kind == UPD_ADD ? !(v->type == ATTR_N || AttrTypeIsSet(v->type)) :
		!AttrTypeIsSet(v->type))
		DynValidation("Invalid UpdateExpression: Incorrect operand type for operator or function; operator: %s, operand type: %s",
					  a->kind == UPD_ADD ? "ADD" : "DELETE",
					  AttrTypeLongName(v->type));
	return v;
}

/* ----------------------------------------------------------------
 * phase 2: containers
 * ----------------------------------------------------------------
 */

/*
 * locate_container
 *		The map or list in item that holds the last step of path, or NULL
 *		when it is missing or of the wrong kind for that step.
 */
static AttrValue *
locate_container(AttrValue *item, const DocPath *path)
{
	DocPath		prefix;
	AttrValue  *cur;
	const PathElem *last;

	if (path->nelems < 1)
		elog(ERROR, "empty document path in update");
	prefix.nelems = path->nelems - 1;
	prefix.elems = path->elems;
	/* the result points into item, which the update owns */
	cur = unconstify(AttrValue *, ExprResolvePath(item, &prefix));
	if (cur == NULL)
		return NULL;
	last = &path->elems[path->nelems - 1];
	if (last->kind == PATH_NAME ? cur->type != ATTR_M :
		(cur->type != ATTR_L || last->index < 0))
		return NULL;
	return cur;
}

/* ----------------------------------------------------------------
 * phase 3: actions
 * ----------------------------------------------------------------
 */

/* nesting of containers in v: 0 for a scalar or set, 1 + deepest child */
static int
container_depth(const AttrValue *v)
{
	int			d = 0;
	int			c;
	int			i;

	check_stack_depth();
	/* Max() evaluates its arguments twice: keep the recursion out of it */
	if (v->type == ATTR_M)
	{
		for (i = 0; i < v->u.map.count; i++)
		{
			c = container_depth(v->u.map.members[i].value);
			d = Max(d, c);
		}
		return d + 1;
	}
	if (v->type == ATTR_L)
	{
		for (i = 0; i < v->u.list.count; i++)
		{
			c = container_depth(v->u.list.elems[i]);
			d = Max(d, c);
		}
		return d + 1;
	}
	return 0;
}

/*
 * check_nesting
 *		A value stored at path lies at level path->nelems (a top-level
 *		attribute is level 1); containers may reach level ATTR_MAX_DEPTH,
 *		as AttrValueFromJsonb allows.
 */
static void
check_nesting(const DocPath *path, const AttrValue *v)
{
	if (path->nelems - 1 + container_depth(v) > ATTR_MAX_DEPTH)
		DynValidation(MSG_NESTING);
}

/* the union of two sets of one type (fresh, sorted) */
static AttrValue *
set_union(const AttrValue *a, const AttrValue *b)
{
	AttrValue  *r = AttrNewList(a->type);
	int			i;

	for (i = 0; i < a->u.list.count; i++)
		AttrListAppend(r, AttrCopy(a->u.list.elems[i]));
	for (i = 0; i < b->u.list.count; i++)
	{
		if (!AttrSetContains(a, b->u.list.elems[i]))
			AttrListAppend(r, AttrCopy(b->u.list.elems[i]));
	}
	AttrSetNormalize(r);
	return r;
}

/*
 * add_value
 *		ADD v to old (NULL when missing): numbers add, sets unite, a missing
 *		attribute takes v; legacy ADD (AttributeUpdates) also appends a list
 *		to a list.  Returns a fresh value.
 */
static AttrValue *
add_value(const AttrValue *old, const AttrValue *v, bool legacy)
{
	if (old == NULL)
		return AttrCopy(v);
	if (old->type == ATTR_N && v->type == ATTR_N)
		return AttrNumberAdd(old, v, false);
	if (old->type == v->type && AttrTypeIsSet(v->type))
		return set_union(old, v);
	if (legacy && old->type == ATTR_L && v->type == ATTR_L)
	{
		AttrValue  *r = AttrCopy(old);
		int			i;

		for (i = 0; i < v->u.list.count; i++)
			AttrListAppend(r, AttrCopy(v->u.list.elems[i]));
		return r;
	}
	DynValidation(legacy ? MSG_LEGACY_TYPE_MISMATCH : MSG_WRONG_DATA_TYPE);
	return NULL;				/* keep compiler quiet */
}

/*
 * delete_value
 *		DELETE the members of set v from old (present).  Returns a fresh set,
 *		or NULL when nothing is left.
 */
static AttrValue *
delete_value(const AttrValue *old, const AttrValue *v, bool legacy)
{
	AttrValue  *r;
	int			i;

	if (old->type != v->type)
		DynValidation(legacy ? MSG_LEGACY_TYPE_MISMATCH : MSG_WRONG_DATA_TYPE);
	r = AttrNewList(old->type);
	for (i = 0; i < old->u.list.count; i++)
	{
		if (!AttrSetContains(v, old->u.list.elems[i]))
			AttrListAppend(r, AttrCopy(old->u.list.elems[i]));
	}
	return r->u.list.count > 0 ? r : NULL;
}

/* the deferred edits of list, created on first use */
static ListEdit *
list_edit_for(ListEdit *edits, int *nedits, int maxappends, AttrValue *list)
{
	ListEdit   *e;
	int			i;

	for (i = 0; i < *nedits; i++)
	{
		if (edits[i].list == list)
			return &edits[i];
	}
	e = &edits[(*nedits)++];
	e->list = list;
	e->count = list->u.list.count;
	e->removed = palloc0(sizeof(bool) * Max(1, e->count));
	e->nappends = 0;
	e->appends = palloc(sizeof(ListAppend) * Max(1, maxappends));
	return e;
}

/* apply one action whose container is a map */
static void
apply_to_map(const UpdTarget *t)
{
	const UpdateAction *a = t->action;
	AttrValue  *map = t->container;
	const PathElem *e = t->last;
	AttrValue  *old = AttrMapGet(map, e->name, e->namelen);
	AttrValue  *v;

	switch (a->kind)
	{
		case UPD_SET:
			check_nesting(a->path, t->rhs);
			AttrMapPut(map, e->name, e->namelen, AttrCopy(t->rhs));
			break;
		case UPD_REMOVE:
			AttrMapRemove(map, e->name, e->namelen);
			break;
		case UPD_ADD:
			AttrMapPut(map, e->name, e->namelen,
					   add_value(old, a->value->value, t->legacy));
			break;
		case UPD_DELETE:
			if (old == NULL)
				break;
			v = delete_value(old, a->value->value, t->legacy);
			if (v == NULL)
				AttrMapRemove(map, e->name, e->namelen);
			else
				AttrMapPut(map, e->name, e->namelen, v);
			break;
	}
}

/* apply one action whose container is a list (removals/appends deferred) */
static void
apply_to_list(const UpdTarget *t, ListEdit *edit)
{
	const UpdateAction *a = t->action;
	AttrValue  *list = t->container;
	int			idx = t->last->index;
	AttrValue  *v;

	if (idx < edit->count)
	{
		switch (a->kind)
		{
			case UPD_SET:
				check_nesting(a->path, t->rhs);
				list->u.list.elems[idx] = AttrCopy(t->rhs);
				break;
			case UPD_REMOVE:
				edit->removed[idx] = true;
				break;
			case UPD_ADD:
				list->u.list.elems[idx] = add_value(list->u.list.elems[idx],
													a->value->value, t->legacy);
				break;
			case UPD_DELETE:
				v = delete_value(list->u.list.elems[idx], a->value->value, t->legacy);
				if (v == NULL)
					edit->removed[idx] = true;
				else
					list->u.list.elems[idx] = v;
				break;
		}
		return;
	}

	/* past the end: SET and ADD append, REMOVE and DELETE do nothing */
	switch (a->kind)
	{
		case UPD_SET:
			check_nesting(a->path, t->rhs);
			v = AttrCopy(t->rhs);
			break;
		case UPD_ADD:
			v = add_value(NULL, a->value->value, t->legacy);
			break;
		case UPD_REMOVE:
		case UPD_DELETE:
		default:
			return;
	}
	edit->appends[edit->nappends].index = idx;
	edit->appends[edit->nappends].value = v;
	edit->nappends++;
}

static int
list_append_cmp(const void *a, const void *b)
{
	int			ia = ((const ListAppend *) a)->index;
	int			ib = ((const ListAppend *) b)->index;

	return (ia > ib) - (ia < ib);
}

/* phase 4: drop marked elements, then append queued ones by index */
static void
finish_list_edit(ListEdit *edit)
{
	AttrValue  *list = edit->list;
	int			out = 0;
	int			i;

	for (i = 0; i < edit->count; i++)
	{
		if (!edit->removed[i])
			list->u.list.elems[out++] = list->u.list.elems[i];
	}
	list->u.list.count = out;
	qsort(edit->appends, edit->nappends, sizeof(ListAppend), list_append_cmp);
	for (i = 0; i < edit->nappends; i++)
		AttrListAppend(list, edit->appends[i].value);
}

/*
 * ExprApplyUpdate
 *		See expr.h.  item is not modified; the result is a new item in the
 *		current memory context.  item may be NULL (an item with no
 *		attributes).
 */
AttrValue *
ExprApplyUpdate(const UpdateExpr *upd, const AttrValue *item,
				bool item_existed)
{
	AttrValue  *newitem = item != NULL ? AttrCopy(item) : AttrNewMap();
	int			n = upd->nactions;
	UpdTarget  *targets = palloc0(sizeof(UpdTarget) * Max(1, n));
	ListEdit   *edits = palloc0(sizeof(ListEdit) * Max(1, n));
	int			nedits = 0;
	int			i;

	Assert(newitem->type == ATTR_M);

	/* 1. right-hand sides and constants, all against the old item */
	for (i = 0; i < n; i++)
	{
		const UpdateAction *a = &upd->actions[i];

		targets[i].action = a;
		targets[i].legacy = upd->legacy;
		if (a->kind == UPD_SET)
			targets[i].rhs = eval_rhs(a->value, item);
		else if (a->kind == UPD_ADD || a->kind == UPD_DELETE)
			(void) action_constant(a, upd->legacy);
	}

	/* 2. where each action writes (the copy still equals the old item) */
	for (i = 0; i < n; i++)
	{
		const UpdateAction *a = &upd->actions[i];
		UpdTarget  *t = &targets[i];

		t->container = locate_container(newitem, a->path);
		t->last = &a->path->elems[a->path->nelems - 1];
		if (t->container != NULL)
			continue;
		if (!item_existed && a->path->nelems > 1 &&
			(a->kind == UPD_REMOVE || a->kind == UPD_DELETE))
			continue;			/* nothing to take away: ignored */
		DynValidation(MSG_INVALID_PATH);
	}

	/* 3. apply; list removals and appends are deferred */
	for (i = 0; i < n; i++)
	{
		UpdTarget  *t = &targets[i];

		CHECK_FOR_INTERRUPTS();
		if (t->container == NULL)
			continue;
		if (t->container->type == ATTR_M)
			apply_to_map(t);
		else
			apply_to_list(t, list_edit_for(edits, &nedits, n, t->container));
	}

	/* 4. list removals, then appends in index order */
	for (i = 0; i < nedits; i++)
		finish_list_edit(&edits[i]);

	return newitem;
}

/*
 * ExprUpdatedAttributes
 *		See expr.h: the projection of every action's path on item (the old
 *		item for UPDATED_OLD, the new one for UPDATED_NEW).  for_new needs no
 *		special case: what DynamoDB leaves out of UPDATED_NEW (removed
 *		paths, appends past the end) does not resolve in the new item, and
 *		key attributes are never update targets.  Returns a new ATTR_M.
 */
AttrValue *
ExprUpdatedAttributes(const UpdateExpr *upd, const AttrValue *item,
					  bool for_new)
{
	ProjectionExpr proj;
	int			i;

	(void) for_new;
	proj.npaths = upd->nactions;
	proj.paths = palloc(sizeof(DocPath *) * Max(1, upd->nactions));
	for (i = 0; i < upd->nactions; i++)
		proj.paths[i] = upd->actions[i].path;
	return ExprProject(&proj, item);
}

/* ----------------------------------------------------------------
 * SQL-callable
 * ----------------------------------------------------------------
 */

/* parse the update expression of argument 1 with names/values args 2, 3 */
static UpdateExpr *
update_from_args(FunctionCallInfo fcinfo)
{
	ExprPlaceholders *ph;
	UpdateExpr *upd;
	char	   *src = text_to_cstring(PG_GETARG_TEXT_PP(1));

	ph = ExprPlaceholdersFromRequest(PG_ARGISNULL(2) ? NULL : PG_GETARG_JSONB_P(2),
									 PG_ARGISNULL(3) ? NULL : PG_GETARG_JSONB_P(3));
	upd = ExprParseUpdate(src, strlen(src), ph);
	ExprCheckAllUsed(ph);
	return upd;
}

/*
 * apply_update(item jsonb, update_expression text, names jsonb, vals jsonb,
 *				item_exists boolean) returns jsonb
 *		The item after the update.  item_exists false means item stands for
 *		a missing item (its key attributes only).  NULL when item or the
 *		expression is NULL.
 */
Datum
item_table_apply_update(PG_FUNCTION_ARGS)
{
	UpdateExpr *upd;
	AttrValue  *item;
	bool		item_exists;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	upd = update_from_args(fcinfo);
	item = AttrItemFromJsonb(PG_GETARG_JSONB_P(0));
	item_exists = PG_NARGS() < 5 || PG_ARGISNULL(4) || PG_GETARG_BOOL(4);
	PG_RETURN_JSONB_P(AttrItemToJsonb(ExprApplyUpdate(upd, item, item_exists)));
}

/*
 * updated_attributes(item jsonb, update_expression text, names jsonb,
 *					  vals jsonb, new_values boolean) returns jsonb
 *		Apply the update to item and return what ReturnValues UPDATED_NEW
 *		(new_values true) or UPDATED_OLD (false) reports, as an item ({}
 *		when DynamoDB would send no Attributes).
 */
Datum
item_table_updated_attributes(PG_FUNCTION_ARGS)
{
	UpdateExpr *upd;
	AttrValue  *item;
	AttrValue  *newitem;
	AttrValue  *result;
	bool		for_new;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	upd = update_from_args(fcinfo);
	item = AttrItemFromJsonb(PG_GETARG_JSONB_P(0));
	for_new = PG_NARGS() < 5 || PG_ARGISNULL(4) || PG_GETARG_BOOL(4);
	newitem = ExprApplyUpdate(upd, item, true);
	result = ExprUpdatedAttributes(upd, for_new ? newitem : item, for_new);
	PG_RETURN_JSONB_P(AttrItemToJsonb(result));
}
