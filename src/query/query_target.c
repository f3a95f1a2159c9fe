/*-------------------------------------------------------------------------
 *
 * query_target.c
 *		What a Query or Scan reads (the table or one of its secondary
 *		indexes) and what a read of an index may ask for.
 *
 * Everything in the reader works on a ReadTarget: a physical table keyed
 * by item_key plus the key schema that item_key encodes, and the slots of
 * its prepared statements.  The target is the table itself or a secondary
 * index: its index table (ikey item_key, key item_key, item jsonb) ordered
 * by (ikey, key), with plans of its own (query_page.c).
 *
 * Projection rules (reference 4.7 and the index table): a GSI answers
 * only with what it projects, refusing a ProjectionExpression or a filter
 * that names anything else, Select ALL_ATTRIBUTES when it does not project
 * everything, and strongly consistent reads (unless
 * item_table.consistent_index_reads); an LSI fetches the table's item when
 * asked for more (fetch_base), as DynamoDB does at extra cost.  An index
 * read needs SELECT on the table, and is refused where the table's
 * row-level security applies to the caller (GsiCheckIndexRead): index
 * rows are copies the policies cannot filter.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "query.h"

/*
 * ReadTargetInit
 *		The target of a request on table def; index_name is the request's
 *		IndexName or NULL (an unknown index is DynamoDB's ValidationException).
 */
void
ReadTargetInit(ItemTableDef *def, const char *index_name, ReadTarget *t)
{
	memset(t, 0, sizeof(*t));
	t->def = def;
	if (index_name != NULL)
	{
		/* locked: an UpdateTable dropping it is waited for, not failed on */
		IndexDef   *idx = GsiFindLocked(def->relid, index_name, AccessShareLock);

		if (idx == NULL)
			DynValidation("The table does not have the specified index: %s", index_name);
		/* SELECT on the table; and where policies apply, no index reads */
		GsiCheckIndexRead(def->relid, def->name);
		t->index_name = idx->name;
		t->idx = idx;
		t->hash_key = idx->hash_key;
		t->hash_type = idx->hash_type;
		t->range_key = idx->range_key;
		t->range_type = idx->range_type;
		t->plan_forward = &idx->plan_read_forward;
		t->plan_backward = &idx->plan_read_backward;
		t->plan_segment = &idx->plan_read_segment;
		return;
	}
	t->hash_key = def->hash_key;
	t->hash_type = def->hash_type;
	t->range_key = def->range_key;
	t->range_type = def->range_type;
	t->plan_forward = &def->plan_read_forward;
	t->plan_backward = &def->plan_read_backward;
	t->plan_segment = &def->plan_read_segment;
}

/* ----------------------------------------------------------------
 * index projections
 * ----------------------------------------------------------------
 */

/*
 * item_table.consistent_index_reads: accept ConsistentRead on a GSI (every
 * index read here is strongly consistent); registered by _PG_init.
 */
bool		item_table_consistent_index_reads = false;

static bool
name_is(const char *name, int len, const char *attr)
{
	return attr != NULL && (int) strlen(attr) == len && memcmp(name, attr, len) == 0;
}

/* does the index store the top-level attribute name? */
static bool
index_projects(const ReadTarget *t, const char *name, int len)
{
	const IndexDef *idx = t->idx;
	int			i;

	if (idx->projection == PROJ_ALL ||
		name_is(name, len, idx->hash_key) || name_is(name, len, idx->range_key) ||
		name_is(name, len, t->def->hash_key) || name_is(name, len, t->def->range_key))
		return true;
	for (i = 0; i < idx->nkeys; i++)
		if (name_is(name, len, idx->keys[i]))
			return true;
	if (idx->projection == PROJ_INCLUDE)
		for (i = 0; i < idx->nnonkey; i++)
			if (name_is(name, len, idx->nonkey[i]))
				return true;
	return false;
}

/* add the path's attribute to *missing (once) when the index lacks it */
static void
note_unprojected(const ReadTarget *t, const DocPath *path, List **missing)
{
	const PathElem *e;
	ListCell   *lc;

	if (path == NULL || path->elems[0].kind != PATH_NAME)
		return;
	e = &path->elems[0];
	if (index_projects(t, e->name, e->namelen))
		return;
	foreach(lc, *missing)
	{
		if (name_is(e->name, e->namelen, lfirst(lc)))
			return;
	}
	*missing = lappend(*missing, pnstrdup(e->name, e->namelen));
}

/* "a, b" */
static char *
name_list(List *names)
{
	StringInfoData s;
	ListCell   *lc;

	initStringInfo(&s);
	foreach(lc, names)
		appendStringInfo(&s, "%s%s", s.len ? ", " : "", (char *) lfirst(lc));
	return s.data;
}

static void
operand_unprojected(const ReadTarget *t, const Operand *o, List **missing)
{
	if (o == NULL)
		return;
	if (o->kind == OPND_PATH)
		note_unprojected(t, o->path, missing);
	operand_unprojected(t, o->args[0], missing);
	operand_unprojected(t, o->args[1], missing);
}

static void
filter_unprojected(const ReadTarget *t, const CondNode *c, List **missing)
{
	int			i;

	if (c == NULL)
		return;
	check_stack_depth();
	filter_unprojected(t, c->left, missing);
	filter_unprojected(t, c->right, missing);
	for (i = 0; i < c->noperands; i++)
		operand_unprojected(t, c->operands[i], missing);
}

/* the attributes an index projects, as a ProjectionExpression */
static ProjectionExpr *
index_projection(const ReadTarget *t)
{
	const char *names[ITEMKEY_MAX_TUPLE_PARTS + 4];
	int			n = 0;
	int			i;
	ProjectionExpr *p = palloc0(sizeof(ProjectionExpr));

	names[n++] = t->def->hash_key;
	if (t->def->range_key)
		names[n++] = t->def->range_key;
	names[n++] = t->idx->hash_key;
	if (t->idx->range_key)
		names[n++] = t->idx->range_key;
	for (i = 0; i < t->idx->nkeys; i++)
		names[n++] = t->idx->keys[i];
	p->paths = palloc0(sizeof(DocPath *) * (n + t->idx->nnonkey));
	for (i = 0; i < n + t->idx->nnonkey; i++)
	{
		const char *name = i < n ? names[i] : t->idx->nonkey[i - n];
		DocPath    *path;
		int			k;
		bool		dup = false;

		for (k = 0; k < p->npaths; k++)
			if (strcmp(p->paths[k]->elems[0].name, name) == 0)
				dup = true;
		if (dup)
			continue;
		path = palloc0(sizeof(DocPath));
		path->nelems = 1;
		path->elems = palloc0(sizeof(PathElem));
		path->elems[0].kind = PATH_NAME;
		path->elems[0].name = pstrdup(name);
		path->elems[0].namelen = strlen(name);
		p->paths[p->npaths++] = path;
	}
	return p;
}

/*
 * ReadCheckIndexRead
 *		What a read of a secondary index may ask for (reference 4.7 and the
 *		index table): a GSI has only its projected attributes and no
 *		strongly consistent reads; an LSI fetches what it does not project
 *		from the table, as DynamoDB does at extra cost.
 */
void
ReadCheckIndexRead(ReadTarget *t, int select, bool consistent,
				   ProjectionExpr **projp, const CondNode *filter)
{
	const ProjectionExpr *projection = *projp;
	List	   *proj_missing = NIL;
	List	   *filter_missing = NIL;
	int			i;

	if (t->idx == NULL)
		return;
	if (consistent && !t->idx->is_local && !item_table_consistent_index_reads)
		DynValidation("Consistent reads are not supported on global secondary indexes");
	if (t->idx->projection == PROJ_ALL)
		return;
	if (select == SELECT_ALL_ATTRIBUTES)
	{
		if (!t->idx->is_local)
			DynValidation("One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL",
						  t->idx->name);
		t->fetch_base = true;
		return;
	}
	for (i = 0; projection != NULL && i < projection->npaths; i++)
		note_unprojected(t, projection->paths[i], &proj_missing);
	filter_unprojected(t, filter, &filter_missing);
	if (!t->idx->is_local)
	{
		if (proj_missing != NIL)
			DynValidation("One or more parameter values were invalid: Global secondary index %s does not project [%s]",
						  t->idx->name, name_list(proj_missing));
		if (filter_missing != NIL)
			DynValidation("One or more parameter values were invalid: Secondary index %s does not project one or more filter attributes: [%s]",
						  t->idx->name, name_list(filter_missing));
	}
	else if (proj_missing != NIL || filter_missing != NIL)
	{
		/* LSI: what it lacks comes from the table's item */
		t->fetch_base = true;
		/* a filter's needs do not widen the answer: it stays the projection */
		if (projection == NULL)
			*projp = index_projection(t);
	}
}

