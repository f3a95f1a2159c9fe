/*-------------------------------------------------------------------------
 *
 * api_index.c
 *		Secondary indexes in the table API: their definitions as CreateTable
 *		and UpdateTable (api_table.c) read them, their physical tables and
 *		trigger, and their part of DescribeTable.
 *
 * An index table is item_data."<table>#<index>" (shortened with an MD5
 * suffix past 63 bytes, like tables: catalog.c), created from a parse tree
 * by the catalog owner and given to the base table's owner, with PRIMARY
 * KEY (ikey, key); see gsi.c for its contents.
 * The base table gets the maintenance triggers when its first index is
 * created.  UpdateTable's Create makes the index in status CREATING: the
 * trigger maintains it for every write from then on, and the background
 * worker (worker.c) -- or CALL item_table.backfill_indexes(table), when
 * item_table.index_backfill is 'manual' -- fills it from the existing items
 * batch by batch (one transaction each, so concurrent writes go on) and
 * marks it ACTIVE (index_build.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/tablecmds.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"

#include "api.h"
#include "api_index.h"
#include "gsi.h"
#include "worker_start.h"

static const char *const key_types[] = {"HASH", "RANGE"};
static const char *const projection_types[] = {"ALL", "KEYS_ONLY", "INCLUDE"};

/* ----------------------------------------------------------------
 * parsing index definitions
 * ----------------------------------------------------------------
 */

/*
 * ApiCheckKeyAttributeName
 *		The length of a key attribute name (KeySchema, AttributeDefinitions):
 *		1 to 255 bytes, a shape problem for req otherwise; field is the
 *		member's path in the request.
 */
void
ApiCheckKeyAttributeName(ApiRequest *req, const char *name, const char *field)
{
	if (name == NULL)
		return;
	if (name[0] == '\0')
		ApiProblem(req, "Value '' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1",
				   field);
	else if (NulEscapeDecodedLength(name, strlen(name)) > ATTR_MAX_KEY_NAME_BYTES)	/* U+0000: 1 */
		ApiProblem(req, "Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d",
				   name, field, ATTR_MAX_KEY_NAME_BYTES);
}

/*
 * ApiParseIndex
 *		One element of GlobalSecondaryIndexes / LocalSecondaryIndexes (or a
 *		GlobalSecondaryIndexUpdates Create), whose members messages name
 *		under path ("globalSecondaryIndexes.1.member").  Shape problems go
 *		to req.
 */
ApiIndexSpec *
ApiParseIndex(ApiRequest *req, Jsonb *body, bool is_local, const char *path)
{
	ApiIndexSpec *s = palloc0(sizeof(ApiIndexSpec));
	ApiRequest	sub;
	Jsonb	   *ks;
	Jsonb	   *proj;
	List	   *elems;
	ListCell   *lc;

	s->is_local = is_local;
	ApiRequestInit(&sub, body);
	s->name = ApiGetTableName(&sub, "IndexName", psprintf("%s.indexName", path), true);
	ks = ApiGetArray(&sub, "KeySchema");
	proj = ApiGetObject(&sub, "Projection");
	if (ks == NULL)
		ApiProblem(&sub, "Value null at '%s.keySchema' failed to satisfy constraint: Member must not be null", path);
	if (proj == NULL)
		ApiProblem(&sub, "Value null at '%s.projection' failed to satisfy constraint: Member must not be null", path);
	if (!is_local)
	{
		bool		element = false;

		(void) ApiGetBool(&sub, "ItemTableElementIndex", &element);
		s->element = element;
		s->throughput = ApiGetObject(&sub, "ProvisionedThroughput");
	}
	elems = ApiArrayOfObjects(ks, "KeySchema");
	if (ks != NULL && (list_length(elems) < 1 ||
					   list_length(elems) > (is_local ? 2 : ITEMKEY_MAX_TUPLE_PARTS)))
		ApiProblem(&sub, "Value at '%s.keySchema' failed to satisfy constraint: Member must have length less than or equal to %d and greater than or equal to 1",
				   path, is_local ? 2 : ITEMKEY_MAX_TUPLE_PARTS);
	foreach(lc, elems)
	{
		ApiRequest	ke;
		char	   *an;
		int			kt;
		int			i = foreach_current_index(lc);

		if (i >= (is_local ? 2 : ITEMKEY_MAX_TUPLE_PARTS))
			break;
		ApiRequestInit(&ke, (Jsonb *) lfirst(lc));
		an = ApiGetString(&ke, "AttributeName", "attributeName", true);
		ApiCheckKeyAttributeName(&ke, an,
								 psprintf("%s.keySchema.%d.member.attributeName", path, i + 1));
		kt = ApiGetEnum(&ke, "KeyType", psprintf("%s.keySchema.%d.member.keyType", path, i + 1),
						key_types, lengthof(key_types));
		sub.problems = list_concat(sub.problems, ke.problems);
		s->keys[i] = an;
		s->key_is_hash[i] = (kt == 0);
		s->nkeys = i + 1;
		if (i == 0)
		{
			s->hash_key = an;
			s->first_is_hash = (kt == 0);
		}
		else if (i == 1)
		{
			s->range_key = an;
			s->second_is_range = (kt == 1);
		}
	}
	/* a GSI's multi-attribute key schema: more than one HASH or RANGE */
	if (!is_local && (s->nkeys > 2 || (s->nkeys == 2 && !s->second_is_range &&
									   s->key_is_hash[1])))
	{
		int			i;

		s->multi = true;
		s->range_key = NULL;
		for (i = 0; i < s->nkeys; i++)
		{
			if (!s->key_is_hash[i] && s->range_key == NULL)
				s->range_key = s->keys[i];
		}
	}
	if (proj != NULL)
	{
		ApiRequest	pe;
		Jsonb	   *nonkey;

		ApiRequestInit(&pe, proj);
		s->projection = ApiGetEnum(&pe, "ProjectionType",
								   psprintf("%s.projection.projectionType", path),
								   projection_types, lengthof(projection_types));
		s->projection_given = (ApiGetMember(&pe, "ProjectionType") != NULL);
		if (s->projection < 0)
			s->projection = PROJ_ALL;	/* refused by ApiCheckIndex if absent */
		nonkey = ApiGetArray(&pe, "NonKeyAttributes");
		if (nonkey != NULL)
		{
			JsonbIterator *it = JsonbIteratorInit(&nonkey->root);
			JsonbValue	v;
			JsonbIteratorToken tok;

			bool		bad_length = false;
			StringInfoData names;

			s->has_nonkey = true;
			initStringInfo(&names);
			while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
			{
				if (tok != WJB_ELEM)
					continue;
				if (v.type != jbvString)
					DynRaise(DYN_SERIALIZATION, "Unexpected value in NonKeyAttributes; expected strings");
				s->nonkey = lappend(s->nonkey, pnstrdup(v.val.string.val, v.val.string.len));
				/* each name is a NonKeyAttributeName: 1 to 255 bytes */
				if (v.val.string.len < 1 ||
					NulEscapeDecodedLength(v.val.string.val, v.val.string.len) > ATTR_MAX_KEY_NAME_BYTES)
					bad_length = true;
				appendStringInfo(&names, "%s%s", names.len > 0 ? ", " : "",
								 (char *) llast(s->nonkey));
			}
			if (bad_length)
				ApiProblem(&pe, "Value '[%s]' at '%s.projection.nonKeyAttributes' failed to satisfy constraint: Member must satisfy constraint: [Member must have length less than or equal to %d, Member must have length greater than or equal to 1]",
						   names.data, path, ATTR_MAX_KEY_NAME_BYTES);
		}
		sub.problems = list_concat(sub.problems, pe.problems);
	}
	req->problems = list_concat(req->problems, sub.problems);
	return s;
}

/*
 * ApiCheckKeysDefined
 *		The attributes of one key schema (a table's or an index's) must all
 *		have a definition: more key attributes than definitions, and a key
 *		attribute without one, are DynamoDB's two messages, in that order.
 */
void
ApiCheckKeysDefined(const char *hash, const char *range, List *attrdefs)
{
	const char *keys[2] = {hash, range};
	int			nkeys = range != NULL ? 2 : 1;
	int			i;
	ListCell   *lc;

	if (nkeys > list_length(attrdefs))
		DynValidation("Invalid KeySchema: Some index key attribute have no definition");
	for (i = 0; i < nkeys; i++)
	{
		bool		found = false;

		foreach(lc, attrdefs)
		{
			if (strcmp(((ApiAttrDef *) lfirst(lc))->name, keys[i]) == 0)
				found = true;
		}
		if (!found)
		{
			StringInfoData k;
			StringInfoData d;

			initStringInfo(&k);
			initStringInfo(&d);
			appendStringInfoString(&k, hash);
			if (range != NULL)
				appendStringInfo(&k, ", %s", range);
			foreach(lc, attrdefs)
				appendStringInfo(&d, "%s%s", d.len > 0 ? ", " : "",
								 ((ApiAttrDef *) lfirst(lc))->name);
			DynValidation("One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]",
						  k.data, d.data);
		}
	}
}

/*
 * ApiCheckIndexKeysDefined
 *		ApiCheckKeysDefined for every key attribute of an index: with a
 *		multi-attribute key schema, all of them, listed in the message.
 */
void
ApiCheckIndexKeysDefined(ApiIndexSpec *s, List *attrdefs)
{
	int			i;
	ListCell   *lc;

	if (!s->multi)
	{
		ApiCheckKeysDefined(s->hash_key, s->range_key, attrdefs);
		return;
	}
	if (s->nkeys > list_length(attrdefs))
		DynValidation("Invalid KeySchema: Some index key attribute have no definition");
	for (i = 0; i < s->nkeys; i++)
	{
		bool		found = false;

		foreach(lc, attrdefs)
		{
			if (strcmp(((ApiAttrDef *) lfirst(lc))->name, s->keys[i]) == 0)
				found = true;
		}
		if (!found)
		{
			StringInfoData k;
			StringInfoData d;
			int			j;

			initStringInfo(&k);
			initStringInfo(&d);
			for (j = 0; j < s->nkeys; j++)
				appendStringInfo(&k, "%s%s", j > 0 ? ", " : "", s->keys[j]);
			foreach(lc, attrdefs)
				appendStringInfo(&d, "%s%s", d.len > 0 ? ", " : "",
								 ((ApiAttrDef *) lfirst(lc))->name);
			DynValidation("One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]",
						  k.data, d.data);
		}
	}
}

/*
 * ApiIndexHasKey
 *		Is name one of the key attributes of s?
 */
bool
ApiIndexHasKey(ApiIndexSpec *s, const char *name)
{
	int			i;

	if (!s->multi)
		return strcmp(s->hash_key, name) == 0 ||
			(s->range_key != NULL && strcmp(s->range_key, name) == 0);
	for (i = 0; i < s->nkeys; i++)
	{
		if (strcmp(s->keys[i], name) == 0)
			return true;
	}
	return false;
}

/*
 * check_multi_key_schema
 *		DynamoDB's rules for a GSI's multi-attribute KeySchema, in its
 *		order: a HASH first, no name twice, every HASH before every RANGE,
 *		at most four of each.
 */
static void
check_multi_key_schema(ApiIndexSpec *s)
{
	int			i;
	int			j;
	int			nhash = 0;
	int			nrange = 0;

	if (!s->first_is_hash)
		DynValidation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
	for (i = 0; i < s->nkeys; i++)
		for (j = 0; j < i; j++)
			if (strcmp(s->keys[i], s->keys[j]) == 0)
				DynValidation("The KeySchema contains multiple key attributes with the same name");
	for (i = 1; i < s->nkeys; i++)
		if (s->key_is_hash[i] && !s->key_is_hash[i - 1])
			DynValidation("One or more parameter values were invalid: All HASH key attributes must precede RANGE key attributes in the KeySchema");
	for (i = 0; i < s->nkeys; i++)
	{
		if (s->key_is_hash[i])
			nhash++;
		else
			nrange++;
	}
	if (nhash > ITEMKEY_MAX_TUPLE_PARTS / 2)
		DynValidation("One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of HASH key attributes");
	if (nrange > ITEMKEY_MAX_TUPLE_PARTS / 2)
		DynValidation("One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of RANGE key attributes");
}

/*
 * ApiCheckIndex
 *		Semantic checks of one index against the table's key schema.
 */
void
ApiCheckIndex(ApiIndexSpec *s, const char *table_hash, const char *table_range)
{
	ListCell   *lc;

	if (s->multi)
		check_multi_key_schema(s);
	else if (!s->first_is_hash)
		DynValidation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
	if (!s->multi && s->range_key != NULL && strcmp(s->hash_key, s->range_key) == 0)
		DynValidation("Both the Hash Key and the Range Key element in the KeySchema have the same name");
	if (!s->multi && s->range_key != NULL && !s->second_is_range)
		DynValidation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type");
	if (!s->projection_given)
		DynValidation("One or more parameter values were invalid: Unknown ProjectionType: null");
	if (s->projection == PROJ_INCLUDE && (!s->has_nonkey || s->nonkey == NIL))
		DynValidation("One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified");
	if (s->projection != PROJ_INCLUDE && s->has_nonkey)
		DynValidation("One or more parameter values were invalid: ProjectionType is %s, but NonKeyAttributes is specified",
					  projection_types[s->projection]);
	/* NonKeyAttributes is a set: DynamoDB's duplicate-name message */
	foreach(lc, s->nonkey)
	{
		ListCell   *pc;

		foreach(pc, s->nonkey)
		{
			if (pc == lc)
				break;
			if (strcmp((char *) lfirst(pc), (char *) lfirst(lc)) == 0)
				DynValidation("One or more parameter values were invalid: Duplicate attribute in NonKeyAttributes of index %s: %s",
							  s->name, (char *) lfirst(lc));
		}
	}
	if (s->is_local)
	{
		if (table_range == NULL)
			DynValidation("One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex");
		if (strcmp(s->hash_key, table_hash) != 0)
			DynValidation("One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table KeySchema for index: %s. index hash key: %s, table hash key: %s",
						  s->name, s->hash_key, table_hash);
		if (s->range_key == NULL)
			DynValidation("One or more parameter values were invalid: Index KeySchema does not have a range key for index: %s",
						  s->name);
	}
	if (s->element && s->is_local)
		DynValidation("ItemTableElementIndex is only available on global secondary indexes");
	if (s->element && s->multi)
		DynValidation("ItemTableElementIndex is only available on indexes with one HASH and at most one RANGE attribute");
}

/* ----------------------------------------------------------------
 * physical objects
 * ----------------------------------------------------------------
 */

static Oid
create_index_table(const char *physname)
{
	CreateStmt *stmt = makeNode(CreateStmt);
	ColumnDef  *ikey = makeColumnDef("ikey", ItemKeyTypeOid(), -1, InvalidOid);
	ColumnDef  *key = makeColumnDef("key", ItemKeyTypeOid(), -1, InvalidOid);
	ColumnDef  *item = makeColumnDef("item", JSONBOID, -1, InvalidOid);
	Constraint *pk = makeNode(Constraint);
	Constraint *nn = makeNode(Constraint);
	Oid			nsp = get_namespace_oid(ITEM_DATA_SCHEMA, false);

	if (OidIsValid(get_relname_relid(physname, nsp)))
		DynRaise(DYN_RESOURCE_IN_USE, "Index table already exists: %s", physname);
	pk->contype = CONSTR_PRIMARY;
	pk->location = -1;
	pk->keys = list_make2(makeString("ikey"), makeString("key"));
	nn->contype = CONSTR_NOTNULL;
	nn->location = -1;
	item->constraints = list_make1(nn);
	stmt->relation = makeRangeVar(ITEM_DATA_SCHEMA, pstrdup(physname), -1);
	stmt->tableElts = list_make4(ikey, key, item, pk);
	stmt->oncommit = ONCOMMIT_NOOP;
	ItemRunUtility((Node *) stmt, "item_table index table");
	return get_relname_relid(physname, nsp);
}

/*
 * create_index_trigger
 *		An AFTER trigger named trigname on nspname.relname running
 *		item_table.index_trigger() for events, per row or per statement.
 */
static void
create_index_trigger(const char *nspname, const char *relname,
					 const char *trigname, bool per_row, int16 events)
{
	CreateTrigStmt *t = makeNode(CreateTrigStmt);

	t->trigname = pstrdup(trigname);
	t->relation = makeRangeVar(pstrdup(nspname), pstrdup(relname), -1);
	t->funcname = list_make2(makeString(ITEM_TABLE_SCHEMA), makeString("index_trigger"));
	t->row = per_row;
	t->timing = TRIGGER_TYPE_AFTER;
	t->events = events;
	ItemRunUtility((Node *) t, "item_table index trigger");
}

/*
 * ensure_triggers
 *		The maintenance triggers on the base table, created once.
 */
static void
ensure_triggers(Oid base_relid)
{
	char	   *relname = get_rel_name(base_relid);
	char	   *nspname = get_namespace_name(get_rel_namespace(base_relid));

	if (OidIsValid(get_trigger_oid(base_relid, "item_table_indexes", true)))
		return;
	create_index_trigger(nspname, relname, "item_table_indexes", true,
						 TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE);
	create_index_trigger(nspname, relname, "item_table_indexes_truncate", false,
						 TRIGGER_TYPE_TRUNCATE);
}

static const char *
type_of(List *attrdefs, const char *name)
{
	ListCell   *lc;

	foreach(lc, attrdefs)
	{
		ApiAttrDef *d = (ApiAttrDef *) lfirst(lc);

		if (strcmp(d->name, name) == 0)
			return d->type;
	}
	return NULL;
}

/*
 * record_key_schema
 *		The catalog's key_schema of a new multi-attribute index: its
 *		KeySchema elements in order, with their types.
 */
static void
record_key_schema(const char *table, ApiIndexSpec *s, List *attrdefs)
{
	Oid			argtypes[5] = {TEXTOID, TEXTOID, TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID};
	Datum		values[5];
	Datum		names[ITEMKEY_MAX_TUPLE_PARTS];
	Datum		types[ITEMKEY_MAX_TUPLE_PARTS];
	Datum		kinds[ITEMKEY_MAX_TUPLE_PARTS];
	ItemRoleSwitch sw;
	int			i;
	int			rc;

	ApiRequireCatalog12("a KeySchema with more than one HASH or RANGE element");
	for (i = 0; i < s->nkeys; i++)
	{
		names[i] = CStringGetTextDatum(s->keys[i]);
		types[i] = CStringGetTextDatum(type_of(attrdefs, s->keys[i]));
		kinds[i] = CStringGetTextDatum(s->key_is_hash[i] ? "HASH" : "RANGE");
	}
	values[0] = CStringGetTextDatum(table);
	values[1] = CStringGetTextDatum(s->name);
	values[2] = PointerGetDatum(construct_array(names, s->nkeys, TEXTOID, -1, false, TYPALIGN_INT));
	values[3] = PointerGetDatum(construct_array(types, s->nkeys, TEXTOID, -1, false, TYPALIGN_INT));
	values[4] = PointerGetDatum(construct_array(kinds, s->nkeys, TEXTOID, -1, false, TYPALIGN_INT));
	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args("UPDATE item_table.indexes SET key_schema = (SELECT pg_catalog.jsonb_agg("
							   "pg_catalog.jsonb_build_object('AttributeName', n, 'KeyType', k, 'AttributeType', t) ORDER BY o)"
							   " FROM ROWS FROM (pg_catalog.unnest($3), pg_catalog.unnest($4), pg_catalog.unnest($5)) WITH ORDINALITY u(n, t, k, o))"
							   " WHERE table_name OPERATOR(pg_catalog.=) $1 AND index_name OPERATOR(pg_catalog.=) $2",
							   5, argtypes, values, NULL, false, 0);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_UPDATE || SPI_processed != 1)
		elog(ERROR, "index catalog update failed: %s", SPI_result_code_string(rc));
}

/*
 * ApiCreateIndex
 *		Create the index table and its catalog row (as the extension owner)
 *		and make sure the base table has the triggers.
 */
void
ApiCreateIndex(const char *table, Oid base_relid, ApiIndexSpec *s, List *attrdefs,
			   bool creating, int64 rcu, int64 wcu)
{
	Oid			relid;
	Oid			argtypes[15] = {TEXTOID, TEXTOID, TEXTOID, OIDOID, TEXTOID, TEXTOID,
	TEXTOID, TEXTOID, TEXTOID, TEXTARRAYOID, BOOLOID, TEXTOID, INT8OID, INT8OID, TEXTOID};
	Datum		values[15];
	char		nulls[15];
	ItemRoleSwitch sw;
	int			rc;

	/*
	 * The index table is made by the catalog owner (who owns item_data) and
	 * given to the base table's owner, whoever asked for it: index rows are
	 * written with that owner's rights (gsi.c).  It depends on the base
	 * table, so a plain DROP TABLE of the base drops it too.
	 */
	{
		ItemRoleSwitch csw;
		ObjectAddress base;
		ObjectAddress index;

		ItemAsCatalogOwnerBegin(&csw);
		relid = create_index_table(ItemPhysicalIndexName(table, s->name));
		ItemAsRoleEnd(&csw);
		ATExecChangeOwner(relid, ItemRelationOwner(base_relid), true, AccessExclusiveLock);
		ObjectAddressSet(base, RelationRelationId, base_relid);
		ObjectAddressSet(index, RelationRelationId, relid);
		recordDependencyOn(&index, &base, DEPENDENCY_AUTO);
		CommandCounterIncrement();
	}
	memset(nulls, ' ', sizeof(nulls));
	values[0] = CStringGetTextDatum(table);
	values[1] = CStringGetTextDatum(s->name);
	values[2] = CStringGetTextDatum(s->is_local ? "LSI" : "GSI");
	values[3] = ObjectIdGetDatum(relid);
	values[4] = CStringGetTextDatum(s->hash_key);
	values[5] = CStringGetTextDatum(type_of(attrdefs, s->hash_key));
	if (s->range_key)
	{
		values[6] = CStringGetTextDatum(s->range_key);
		values[7] = CStringGetTextDatum(type_of(attrdefs, s->range_key));
	}
	else
		nulls[6] = nulls[7] = 'n';
	values[8] = CStringGetTextDatum(projection_types[s->projection]);
	if (s->nonkey != NIL)
	{
		Datum	   *elems = palloc(sizeof(Datum) * list_length(s->nonkey));
		ListCell   *lc;

		foreach(lc, s->nonkey)
			elems[foreach_current_index(lc)] = CStringGetTextDatum((char *) lfirst(lc));
		values[9] = PointerGetDatum(construct_array(elems, list_length(s->nonkey), TEXTOID,
													-1, false, TYPALIGN_INT));
	}
	else
		nulls[9] = 'n';
	values[10] = BoolGetDatum(s->element);
	values[11] = CStringGetTextDatum(creating ? "CREATING" : "ACTIVE");
	values[12] = Int64GetDatum(rcu);
	values[13] = Int64GetDatum(wcu);
	/*
	 * Who fills it: the background worker (the column's default) unless
	 * this session said manual.  The column is named only then, so that
	 * tables are still made under a catalog of 1.1 or before (between a new
	 * library and ALTER EXTENSION UPDATE).
	 */
	values[14] = CStringGetTextDatum("manual");
	ItemAsCatalogOwnerBegin(&sw);
	rc = SPI_execute_with_args(creating && item_table_index_backfill == INDEX_BACKFILL_MANUAL ?
							   "INSERT INTO item_table.indexes (table_name, index_name, kind, relid,"
							   " hash_key, hash_type, range_key, range_type, projection_type,"
							   " non_key_attributes, element_index, status, read_capacity, write_capacity,"
							   " backfill_by)"
							   " VALUES ($1, $2, $3, $4::pg_catalog.oid::pg_catalog.regclass, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)" :
							   "INSERT INTO item_table.indexes (table_name, index_name, kind, relid,"
							   " hash_key, hash_type, range_key, range_type, projection_type,"
							   " non_key_attributes, element_index, status, read_capacity, write_capacity)"
							   " VALUES ($1, $2, $3, $4::pg_catalog.oid::pg_catalog.regclass, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
							   creating && item_table_index_backfill == INDEX_BACKFILL_MANUAL ? 15 : 14,
							   argtypes, values, nulls, false, 0);
	ItemAsRoleEnd(&sw);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "index catalog insert failed: %s", SPI_result_code_string(rc));
	if (s->multi)
		record_key_schema(table, s, attrdefs);
	ensure_triggers(base_relid);
	CacheInvalidateRelcacheByRelid(base_relid);
	/* the background worker of this database fills it, from our commit */
	if (creating && item_table_index_backfill == INDEX_BACKFILL_WORKER)
		ItemWorkerRequest();
}

/*
 * ApiDropIndexTables
 *		Drop the index tables of a table (for DeleteTable), or one index.
 */
void
ApiDropIndexTables(const char *table, const char *index)
{
	Oid			argtypes[2] = {TEXTOID, TEXTOID};
	Datum		values[2] = {CStringGetTextDatum(table), (Datum) 0};
	char		nulls[2] = {' ', 'n'};
	int			rc;
	uint64		i;
	List	   *relids = NIL;
	ListCell   *lc;

	if (index != NULL)
	{
		values[1] = CStringGetTextDatum(index);
		nulls[1] = ' ';
	}
	rc = SPI_execute_with_args("SELECT relid::pg_catalog.oid FROM item_table.indexes"
							   " WHERE table_name OPERATOR(pg_catalog.=) $1 AND ($2 IS NULL OR index_name OPERATOR(pg_catalog.=) $2)",
							   2, argtypes, values, nulls, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "index catalog read failed: %s", SPI_result_code_string(rc));
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		relids = lappend_oid(relids, DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
																	SPI_tuptable->tupdesc, 1, &isnull)));
	}
	foreach(lc, relids)
	{
		Oid			relid = lfirst_oid(lc);
		ObjectAddress addr;

		if (get_rel_name(relid) == NULL)
			continue;
		if (!ItemRelOwnerCheck(relid, GetUserId()))
			aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(relid));
		addr.classId = RelationRelationId;
		addr.objectId = relid;
		addr.objectSubId = 0;
		performDeletion(&addr, DROP_RESTRICT, 0);
	}
	CommandCounterIncrement();
	if (index != NULL)
	{
		ItemRoleSwitch sw;

		ItemAsCatalogOwnerBegin(&sw);
		rc = SPI_execute_with_args("DELETE FROM item_table.indexes WHERE table_name OPERATOR(pg_catalog.=) $1 AND index_name OPERATOR(pg_catalog.=) $2",
								   2, argtypes, values, NULL, false, 0);
		ItemAsRoleEnd(&sw);
		if (rc != SPI_OK_DELETE)
			elog(ERROR, "index catalog delete failed: %s", SPI_result_code_string(rc));
	}
}

/* ----------------------------------------------------------------
 * DescribeTable's index part
 * ----------------------------------------------------------------
 */
/* a multi-attribute KeySchema as the catalog's key_schema recorded it */
static void
push_multi_key_schema(JsonbParseState **state, Jsonb *ks)
{
	JsonbIterator *it = JsonbIteratorInit(&ks->root);
	JsonbValue	v;
	JsonbIteratorToken tok;

	ApiPushKey(state, "KeySchema");
	pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
	(void) JsonbIteratorNext(&it, &v, true);	/* the array */
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		JsonbValue *name;
		JsonbValue *kind;

		if (tok != WJB_ELEM || v.type != jbvBinary)
			continue;
		name = getKeyJsonValueFromContainer(v.val.binary.data, "AttributeName", 13, NULL);
		kind = getKeyJsonValueFromContainer(v.val.binary.data, "KeyType", 7, NULL);
		if (name == NULL || kind == NULL || name->type != jbvString || kind->type != jbvString)
			elog(ERROR, "invalid key_schema in the item_table catalog");
		pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(state, "AttributeName");
		pushJsonbValue(state, WJB_VALUE, name);
		ApiPushKey(state, "KeyType");
		pushJsonbValue(state, WJB_VALUE, kind);
		pushJsonbValue(state, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(state, WJB_END_ARRAY, NULL);
}

static void
push_key_schema(JsonbParseState **state, const char *hash, const char *range)
{
	const char *names[2] = {hash, range};
	int			i;

	ApiPushKey(state, "KeySchema");
	pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
	for (i = 0; i < 2 && names[i] != NULL; i++)
	{
		pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
		ApiPushKey(state, "AttributeName");
		ApiPushString(state, names[i]);
		ApiPushKey(state, "KeyType");
		ApiPushString(state, i == 0 ? "HASH" : "RANGE");
		pushJsonbValue(state, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(state, WJB_END_ARRAY, NULL);
}

/*
 * ApiIndexAttributeDefinitions
 *		Attribute definitions used by the table's indexes and not by its
 *		key schema: List of ApiAttrDef.
 */
List *
ApiIndexAttributeDefinitions(const char *table, const char *hash, const char *range)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(table)};
	List	   *out = NIL;
	uint64		i;
	int			rc;

	rc = SPI_execute_with_args("SELECT a, t FROM (SELECT hash_key, hash_type, index_name FROM item_table.indexes WHERE table_name OPERATOR(pg_catalog.=) $1"
							   " UNION ALL SELECT range_key, range_type, index_name FROM item_table.indexes"
							   " WHERE table_name OPERATOR(pg_catalog.=) $1 AND range_key IS NOT NULL"
							   " UNION ALL SELECT e OPERATOR(pg_catalog.->>) 'AttributeName', e OPERATOR(pg_catalog.->>) 'AttributeType', x.index_name"
							   " FROM item_table.indexes x, pg_catalog.jsonb_array_elements(CASE WHEN pg_catalog.jsonb_typeof(pg_catalog.to_jsonb(x) OPERATOR(pg_catalog.->) 'key_schema')"
							   " OPERATOR(pg_catalog.=) 'array' THEN pg_catalog.to_jsonb(x) OPERATOR(pg_catalog.->) 'key_schema' END) e"
							   " WHERE x.table_name OPERATOR(pg_catalog.=) $1) s(a, t, i)"
							   " GROUP BY a, t ORDER BY pg_catalog.min(i), a",
							   1, argtypes, values, NULL, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "index catalog read failed: %s", SPI_result_code_string(rc));
	for (i = 0; i < SPI_processed; i++)
	{
		ApiAttrDef *d = palloc(sizeof(ApiAttrDef));

		d->name = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		d->type = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
		if (strcmp(d->name, hash) == 0 || (range && strcmp(d->name, range) == 0))
			continue;
		out = lappend(out, d);
	}
	return out;
}

void
ApiPushIndexDescriptions(JsonbParseState **state, const char *table, bool on_demand)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(table)};
	int			rc;
	int			pass;
	SPITupleTable *tt;
	uint64		n;

	rc = SPI_execute_with_args("SELECT i.index_name, i.kind, i.hash_key, i.range_key, i.projection_type,"
							   " i.non_key_attributes, i.status, i.element_index,"
							   " GREATEST(c.reltuples, 0)::pg_catalog.int8,"
							   " (c.relpages::pg_catalog.int8 OPERATOR(pg_catalog.*)"
							   " pg_catalog.current_setting('block_size')::pg_catalog.int8),"
							   " i.read_capacity, i.write_capacity, i.backfilled,"
							   " pg_catalog.to_jsonb(i) OPERATOR(pg_catalog.->) 'key_schema'"
							   " FROM item_table.indexes i LEFT JOIN pg_catalog.pg_class c"
							   " ON c.oid OPERATOR(pg_catalog.=) i.relid"
							   " WHERE i.table_name OPERATOR(pg_catalog.=) $1 ORDER BY i.index_name",
							   1, argtypes, values, NULL, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "index catalog read failed: %s", SPI_result_code_string(rc));
	tt = SPI_tuptable;
	n = SPI_processed;
	for (pass = 0; pass < 2; pass++)
	{
		const char *kind = pass == 0 ? "GSI" : "LSI";
		bool		any = false;
		uint64		i;

		for (i = 0; i < n; i++)
		{
			HeapTuple	tup = tt->vals[i];
			TupleDesc	desc = tt->tupdesc;
			bool		isnull;
			Datum		nonkey;
			char	   *iname = SPI_getvalue(tup, desc, 1);

			if (strcmp(SPI_getvalue(tup, desc, 2), kind) != 0)
				continue;
			if (!any)
			{
				ApiPushKey(state, pass == 0 ? "GlobalSecondaryIndexes" : "LocalSecondaryIndexes");
				pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
				any = true;
			}
			pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
			ApiPushKey(state, "IndexName");
			ApiPushString(state, iname);
			{
				Datum		ks = SPI_getbinval(tup, desc, 14, &isnull);

				if (!isnull && JB_ROOT_IS_ARRAY(DatumGetJsonbP(ks)) && !JB_ROOT_IS_SCALAR(DatumGetJsonbP(ks)))
					push_multi_key_schema(state, DatumGetJsonbP(ks));
				else
					push_key_schema(state, SPI_getvalue(tup, desc, 3), SPI_getvalue(tup, desc, 4));
			}
			ApiPushKey(state, "Projection");
			pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
			ApiPushKey(state, "ProjectionType");
			ApiPushString(state, SPI_getvalue(tup, desc, 5));
			nonkey = SPI_getbinval(tup, desc, 6, &isnull);
			if (!isnull)
			{
				Datum	   *elems;
				bool	   *nulls;
				int			ne;
				int			k;

				deconstruct_array(DatumGetArrayTypeP(nonkey), TEXTOID, -1, false,
								  TYPALIGN_INT, &elems, &nulls, &ne);
				ApiPushKey(state, "NonKeyAttributes");
				pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
				for (k = 0; k < ne; k++)
				{
					JsonbValue	s;
					char	   *t = TextDatumGetCString(elems[k]);

					s.type = jbvString;
					s.val.string.val = t;
					s.val.string.len = strlen(t);
					pushJsonbValue(state, WJB_ELEM, &s);
				}
				pushJsonbValue(state, WJB_END_ARRAY, NULL);
			}
			pushJsonbValue(state, WJB_END_OBJECT, NULL);
			if (pass == 0)
			{
				bool		creating = strcmp(SPI_getvalue(tup, desc, 7), "CREATING") == 0;

				ApiPushKey(state, "IndexStatus");
				ApiPushString(state, SPI_getvalue(tup, desc, 7));
				if (creating)
				{
					ApiPushKey(state, "Backfilling");
					ApiPushBool(state, true);
				}
				ApiPushKey(state, "ProvisionedThroughput");
				pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
				ApiPushKey(state, "NumberOfDecreasesToday");
				ApiPushNumeric(state, 0, 0);
				ApiPushKey(state, "ReadCapacityUnits");
				ApiPushNumeric(state, on_demand ? 0 : (double) DatumGetInt64(SPI_getbinval(tup, desc, 11, &isnull)), 0);
				ApiPushKey(state, "WriteCapacityUnits");
				ApiPushNumeric(state, on_demand ? 0 : (double) DatumGetInt64(SPI_getbinval(tup, desc, 12, &isnull)), 0);
				pushJsonbValue(state, WJB_END_OBJECT, NULL);
				if (DatumGetBool(SPI_getbinval(tup, desc, 8, &isnull)))
				{
					ApiPushKey(state, "ItemTableElementIndex");
					ApiPushBool(state, true);
				}
			}
			ApiPushKey(state, "IndexSizeBytes");
			ApiPushNumeric(state, (double) DatumGetInt64(SPI_getbinval(tup, desc, 10, &isnull)), 0);
			ApiPushKey(state, "ItemCount");
			ApiPushNumeric(state, (double) DatumGetInt64(SPI_getbinval(tup, desc, 9, &isnull)), 0);
			ApiPushKey(state, "IndexArn");
			ApiPushString(state, psprintf("arn:aws:dynamodb:local:000000000000:table/%s/index/%s", table, iname));
			pushJsonbValue(state, WJB_END_OBJECT, NULL);
		}
		if (any)
			pushJsonbValue(state, WJB_END_ARRAY, NULL);
	}
}
