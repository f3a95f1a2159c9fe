/*-------------------------------------------------------------------------
 *
 * item_guard.c
 *		Keeping item tables what the C code expects: a row trigger that
 *		validates the items plain SQL writes, and an event trigger that
 *		refuses DDL changing an item table's shape.
 *
 * The item guard.  CreateTable gives every base table the BEFORE INSERT OR
 * UPDATE row trigger zz_item_guard (ItemGuardInstall), which runs
 * item_table.item_guard().  A row written with plain SQL -- INSERT, UPDATE,
 * COPY, a user's trigger, a nested write -- must hold a DynamoDB item by
 * the API's own rules (AttrItemFromJsonbStored: one typed value per
 * attribute, payloads, names, nesting, sets; at most 400 KB by DynamoDB's
 * size formula), with the table's key attributes present, of their
 * declared types and within the key limits (TableDefKeyFromItem, the
 * API's own key building), and its key column must be the key those
 * attributes make.  A NULL key is computed from the item, and an item not
 * in stored form (a number written "1.50", a set out of order) is replaced
 * by its stored form, so plain SQL may write natural DynamoDB JSON.
 * Anything else is refused with 23514 (check_violation).  The table's key
 * schema comes from the definition cache (TableDefByRelid, table_def.c),
 * so a row costs no catalog query.
 *
 * The API validates what it writes before it plans the write; its write
 * helpers register the row (ItemGuardExpectWrite, below) and the guard
 * lets through, after a relid test and two memcmp, exactly the registered
 * key and item bytes.  Everything else is checked in full.
 *
 * BEFORE row triggers fire in name order and each sees the row the previous
 * one returned; the guard's name sorts late and the DDL guard refuses an
 * enabled BEFORE row trigger that would run after it, so the row the guard
 * checks is the row stored.
 *
 * The DDL guard.  At the end of ALTER TABLE, CREATE TABLE, CREATE TRIGGER,
 * ALTER TRIGGER and CREATE RULE (event trigger item_table_ddl_guard), and
 * when DROP TRIGGER drops a trigger (item_table_drop_guard, sql_drop),
 * item_table.ddl_guard() checks every item table the command touched --
 * a base table registered in item_table.tables or an index table in
 * item_table.indexes, the command's own table or an inheritance parent of
 * it -- for the shape the C code relies on:
 *
 *	  base table	key item_key NOT NULL, item jsonb NOT NULL,
 *					PRIMARY KEY (key); the guard trigger, if present,
 *					enabled and last among the BEFORE row triggers, and not
 *					dropped
 *	  index table	ikey item_key NOT NULL, key item_key NOT NULL,
 *					item jsonb NOT NULL, PRIMARY KEY (ikey, key)
 *	  distributed	(distribute_table()) the primary key may end with
 *					the distribution column (part, ipart); such a base
 *					table has no guard trigger (distributed.c)
 *	  both			an ordinary table in schema item_data without
 *					inheritance children; any other column nullable or
 *					with a default (so the API's INSERTs still work)
 *
 * and refuses the command with 42P16 (invalid_table_definition) when a rule
 * is broken.  A base table without its guard trigger is accepted on ALTER
 * (pg_restore creates triggers after constraints).  Only relations in
 * schema item_data or having an item_key column are looked up in the
 * catalog, so DDL on other tables costs one read of
 * pg_event_trigger_ddl_commands() and a relcache lookup per table.  Every
 * statement here qualifies its functions and operators: the caller's
 * search_path is not trusted.  Commands run by extension scripts are not
 * checked.
 *
 * A superuser can bypass both guards (session_replication_role = replica
 * disables triggers and event triggers alike), so readers still check the
 * rows they read and raise XX001 instead of trusting them (api_common.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_rewrite.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "tcop/utility.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "catalog.h"
#include "errors.h"
#include "item_guard.h"
#include "stored_item.h"
#include "table_def.h"

PG_FUNCTION_INFO_V1(item_table_item_guard);
PG_FUNCTION_INFO_V1(item_table_ddl_guard);

/* ----------------------------------------------------------------
 * the write the API is about to make
 *
 * The item guard validates every row written to an item table, except the
 * one the API has just validated itself and is writing now: the API's
 * write helpers (api_common.c) register (table, key, item) here right
 * before they run their statement and clear it right after, and the guard
 * lets a row through unchecked only when its table matches and its key
 * and item are byte for byte the registered ones.  Whatever else the
 * statement writes (rows a user's trigger changed, nested writes) differs
 * and is checked.  Matching bytes make a stale registration harmless, but one
 * left behind by an error would point into freed memory: transaction and
 * subtransaction ends clear it.
 * ----------------------------------------------------------------
 */
static struct
{
	Oid			relid;			/* InvalidOid: none */
	const ItemKey *key;
	const Jsonb *item;
}			expected_write;

static void
expected_write_xact_end(XactEvent event, void *arg)
{
	ItemGuardExpectNoWrite();
}

static void
expected_write_subxact_end(SubXactEvent event, SubTransactionId mySubid,
						   SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		ItemGuardExpectNoWrite();
}

/*
 * ItemGuardExpectWrite
 *		Register the row the next statement writes to relid; key and item
 *		must stay valid until ItemGuardExpectNoWrite().
 */
void
ItemGuardExpectWrite(Oid relid, const ItemKey *key, const Jsonb *item)
{
	static bool callbacks = false;

	if (!callbacks)
	{
		RegisterXactCallback(expected_write_xact_end, NULL);
		RegisterSubXactCallback(expected_write_subxact_end, NULL);
		callbacks = true;
	}
	expected_write.relid = relid;
	expected_write.key = key;
	expected_write.item = item;
}

void
ItemGuardExpectNoWrite(void)
{
	expected_write.relid = InvalidOid;
	expected_write.key = NULL;
	expected_write.item = NULL;
}

/* do the datum's bytes equal those of expected (any header, detoasted)? */
static bool
same_bytes(Datum d, const struct varlena *expected)
{
	struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));
	bool		same;

	same = VARSIZE_ANY_EXHDR(v) == VARSIZE_ANY_EXHDR(expected) &&
		memcmp(VARDATA_ANY(v), VARDATA_ANY(expected), VARSIZE_ANY_EXHDR(v)) == 0;
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
	return same;
}

/* is (key, item), a row about to be written to relid, the registered write? */
static bool
is_expected_write(Oid relid, Datum key, Datum item)
{
	return OidIsValid(relid) && relid == expected_write.relid &&
		same_bytes(key, expected_write.key) &&
		same_bytes(item, (const struct varlena *) expected_write.item);
}

/* ----------------------------------------------------------------
 * the row trigger
 * ----------------------------------------------------------------
 */

/* the key and item columns of an item table, by name; false if absent */
static bool
find_columns(TupleDesc desc, int *keyatt, int *itematt)
{
	int			i;

	*keyatt = *itematt = 0;
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		if (strcmp(NameStr(att->attname), "key") == 0 &&
			att->atttypid == ItemKeyTypeOid())
			*keyatt = i + 1;
		else if (strcmp(NameStr(att->attname), "item") == 0 &&
				 att->atttypid == JSONBOID)
			*itematt = i + 1;
	}
	return *keyatt > 0 && *itematt > 0;
}

/* the item parsed as PutItem parses it, or NULL when the parser refuses it */
static AttrValue *
parse_item(Jsonb *j, bool *as_stored)
{
	MemoryContext cxt = CurrentMemoryContext;
	AttrValue  *volatile item = NULL;

	PG_TRY();
	{
		item = AttrItemFromJsonbStored(j, as_stored);
	}
	PG_CATCH();
	{
		(void) DynCaughtMessage(cxt);
	}
	PG_END_TRY();
	return item;
}

/* the key the item's key attributes make; NULL and *why when they cannot */
static ItemKey *
key_of_item(ItemTableDef *def, const AttrValue *item, char **why)
{
	MemoryContext cxt = CurrentMemoryContext;
	ItemKey    *volatile key = NULL;
	char	   *volatile msg = NULL;

	PG_TRY();
	{
		key = TableDefKeyFromItem(def, item);
	}
	PG_CATCH();
	{
		msg = DynCaughtMessage(cxt);
	}
	PG_END_TRY();
	*why = msg;
	return key;
}

/*
 * check_row
 *		Validate a row written with plain SQL; returns it, or a copy with
 *		the key filled in and the item in stored form.
 */
static HeapTuple
check_row(Relation rel, HeapTuple tup, int keyatt, Datum keyd, bool knull,
		  int itematt, Datum itemd, bool inull)
{
	ItemTableDef *def = TableDefByRelid(RelationGetRelid(rel));
	Jsonb	   *itemj;
	AttrValue  *item;
	bool		as_stored = false;
	int64		size;
	ItemKey    *key;
	char	   *why;
	int			cols[2];
	Datum		values[2];
	bool		nulls[2] = {false, false};
	int			n = 0;

	if (def == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" is not an item table",
						RelationGetRelationName(rel)),
				 errhint("item_table.item_guard() guards the tables CreateTable makes.")));
	if (inull)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("item of table \"%s\" must not be NULL", def->name),
				 errdetail("Every row of an item table holds a DynamoDB item.")));
	itemj = DatumGetJsonbP(itemd);
	item = parse_item(itemj, &as_stored);
	if (item == NULL)
	{
		char	   *summary = StoredNotItemSummary(itemj, &why);

		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("item of table \"%s\" is not a DynamoDB item: %s", def->name,
						summary ? summary : "its layout is not that of an item"),
				 why ? errdetail("%s.", why) : 0));
	}
	size = AttrItemSize(item);
	if (size > ATTR_MAX_ITEM_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("item of table \"%s\" is larger than 400 KB", def->name),
				 errdetail("Its size by DynamoDB's formula is " INT64_FORMAT " bytes; the limit is %d.",
						   size, ATTR_MAX_ITEM_SIZE)));

	key = key_of_item(def, item, &why);
	if (key == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("item of table \"%s\" does not have valid key attributes", def->name),
				 errdetail("%s.", why)));
	if (!knull && ItemKeyCompare(DatumGetItemKeyPP(keyd), key) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("key of the row does not match the item's key attributes in table \"%s\"",
						def->name),
				 errdetail("The row's key is %s; the item's key attributes make %s.",
						   ItemKeyToText(DatumGetItemKeyPP(keyd)), ItemKeyToText(key)),
				 errhint("Write NULL as the key to have it computed from the item.")));

	if (knull)
	{
		cols[n] = keyatt;
		values[n++] = PointerGetDatum(key);
	}
	if (!as_stored)
	{
		cols[n] = itematt;
		values[n++] = JsonbPGetDatum(AttrItemToJsonb(item));
	}
	if (n > 0)
		tup = heap_modify_tuple_by_cols(tup, RelationGetDescr(rel), n, cols,
										values, nulls);
	return tup;
}

/*
 * item_table_item_guard
 *		BEFORE INSERT OR UPDATE FOR EACH ROW on every base table.
 */
Datum
item_table_item_guard(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Relation	rel;
	HeapTuple	tup;
	int			keyatt;
	int			itematt;
	Datum		keyd;
	Datum		itemd;
	bool		knull;
	bool		inull;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("item_guard: not called by trigger manager")));
	if (!TRIGGER_FIRED_BEFORE(td->tg_event) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
		!(TRIGGER_FIRED_BY_INSERT(td->tg_event) || TRIGGER_FIRED_BY_UPDATE(td->tg_event)))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("item_guard: must be fired BEFORE INSERT OR UPDATE FOR EACH ROW")));

	rel = td->tg_relation;
	tup = TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? td->tg_newtuple : td->tg_trigtuple;
	if (!find_columns(RelationGetDescr(rel), &keyatt, &itematt))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("table \"%s\" does not have the columns key item_key and item jsonb of an item table",
						RelationGetRelationName(rel))));
	keyd = heap_getattr(tup, keyatt, RelationGetDescr(rel), &knull);
	itemd = heap_getattr(tup, itematt, RelationGetDescr(rel), &inull);

	/* the row the API validated and is writing now */
	if (!knull && !inull && is_expected_write(RelationGetRelid(rel), keyd, itemd))
		return PointerGetDatum(tup);
	return PointerGetDatum(check_row(rel, tup, keyatt, keyd, knull, itematt, itemd, inull));
}

/*
 * ItemGuardInstall
 *		Create the guard trigger on the new base table relid, from a parse
 *		tree and as the calling user (its owner).
 */
void
ItemGuardInstall(Oid relid)
{
	CreateTrigStmt *stmt;
	List	   *funcname = list_make2(makeString(ITEM_TABLE_SCHEMA), makeString("item_guard"));

	/*
	 * Between installing a new build and ALTER EXTENSION UPDATE the function
	 * may not exist yet (1.0); the update script adds the trigger then.
	 */
	if (!OidIsValid(LookupFuncName(funcname, 0, NULL, true)))
		return;
	stmt = makeNode(CreateTrigStmt);
	stmt->trigname = ITEM_GUARD_TRIGGER;
	stmt->relation = makeRangeVar(get_namespace_name(get_rel_namespace(relid)),
								  get_rel_name(relid), -1);
	stmt->funcname = funcname;
	stmt->row = true;
	stmt->timing = TRIGGER_TYPE_BEFORE;
	stmt->events = TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE;
	ItemRunUtility((Node *) stmt, "item_table item guard");
}

/* ----------------------------------------------------------------
 * the DDL guard
 * ----------------------------------------------------------------
 */

/*
 * catalog_column
 *		Column col (an oid) of the row of catalog whose oid column oidcol is
 *		objid, found through index; InvalidOid when there is none.
 */
static Oid
catalog_column(Oid catalog, Oid index, AttrNumber oidcol, Oid objid, AttrNumber col)
{
	Relation	rel = table_open(catalog, AccessShareLock);
	ScanKeyData skey;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			result = InvalidOid;

	ScanKeyInit(&skey, oidcol, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(objid));
	scan = systable_beginscan(rel, index, true, NULL, 1, &skey);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, col, RelationGetDescr(rel), &isnull);

		if (!isnull)
			result = DatumGetObjectId(d);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return result;
}

/* relid and the tables it inherits from, added to rels */
static List *
add_with_parents(List *rels, Oid relid)
{
	Relation	inh;
	ScanKeyData skey;
	SysScanDesc scan;
	HeapTuple	tup;

	if (!OidIsValid(relid))
		return rels;
	rels = list_append_unique_oid(rels, relid);
	inh = table_open(InheritsRelationId, AccessShareLock);
	ScanKeyInit(&skey, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(inh, InheritsRelidSeqnoIndexId, true, NULL, 1, &skey);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
		rels = list_append_unique_oid(rels, ((Form_pg_inherits) GETSTRUCT(tup))->inhparent);
	systable_endscan(scan);
	table_close(inh, AccessShareLock);
	return rels;
}

/* the tables the DDL command just run touched (ddl_command_end) */
static List *
changed_tables(void)
{
	static SPIPlanPtr plan = NULL;
	List	   *rels = NIL;
	uint64		i;
	int			rc;

	if (plan == NULL)
	{
		plan = ItemPrepareKept("SELECT classid, objid FROM pg_catalog.pg_event_trigger_ddl_commands()",
						   0, NULL, 0);
	}
	rc = SPI_execute_plan(plan, NULL, NULL, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "pg_event_trigger_ddl_commands() failed: %s", SPI_result_code_string(rc));
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Oid			classid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
															 SPI_tuptable->tupdesc, 1, &isnull));
		Oid			objid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
														   SPI_tuptable->tupdesc, 2, &isnull));

		if (classid == RelationRelationId)
			rels = add_with_parents(rels, objid);
		else if (classid == TriggerRelationId)
			rels = add_with_parents(rels, catalog_column(TriggerRelationId, TriggerOidIndexId,
														 Anum_pg_trigger_oid, objid,
														 Anum_pg_trigger_tgrelid));
		else if (classid == RewriteRelationId)
			rels = add_with_parents(rels, catalog_column(RewriteRelationId, RewriteOidIndexId,
														 Anum_pg_rewrite_oid, objid,
														 Anum_pg_rewrite_ev_class));
	}
	return rels;
}

/* the tables (still there) of the triggers DROP TRIGGER dropped (sql_drop) */
static List *
dropped_trigger_tables(void)
{
	static SPIPlanPtr plan = NULL;
	List	   *rels = NIL;
	uint64		i;
	int			rc;

	if (plan == NULL)
	{
		plan = ItemPrepareKept("SELECT address_names[1], address_names[2]"
						   " FROM pg_catalog.pg_event_trigger_dropped_objects()"
						   " WHERE object_type OPERATOR(pg_catalog.=) 'trigger'",
						   0, NULL, 0);
	}
	rc = SPI_execute_plan(plan, NULL, NULL, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "pg_event_trigger_dropped_objects() failed: %s", SPI_result_code_string(rc));
	for (i = 0; i < SPI_processed; i++)
	{
		char	   *nspname = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		char	   *relname = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
		Oid			nsp = nspname ? get_namespace_oid(nspname, true) : InvalidOid;

		if (OidIsValid(nsp) && relname != NULL)
			rels = add_with_parents(rels, get_relname_relid(relname, nsp));
	}
	return rels;
}

/*
 * could_be_item_table
 *		Only these are looked up in the catalog: tables in schema item_data
 *		(where CreateTable makes them, and which they may not leave) or
 *		with an item_key column (one moved out by the command at hand).
 */
static bool
could_be_item_table(Oid relid, Oid data_nsp)
{
	Relation	rel = try_relation_open(relid, AccessShareLock);
	bool		result = false;
	int			i;

	if (rel == NULL)
		return false;
	result = RelationGetNamespace(rel) == data_nsp;
	for (i = 0; !result && i < RelationGetDescr(rel)->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), i);

		result = !att->attisdropped && att->atttypid == ItemKeyTypeOid();
	}
	relation_close(rel, NoLock);
	return result;
}

pg_noreturn static void refuse(const char *kind, Relation rel, const char *rule,
								const char *hint);

/* 42P16: the command would break rule of item or index table rel */
static void
refuse(const char *kind, Relation rel, const char *rule, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
			 errmsg("%s \"%s\" %s", kind, RelationGetRelationName(rel), rule),
			 errdetail("The item_table extension reads and writes this table and relies on its shape, so the command was refused."),
			 hint ? errhint("%s", hint) : 0));
	pg_unreachable();
}

/* the guard trigger of a base table: enabled, last, and kept when dropping */
static void
check_guard_trigger(Relation rel, bool dropping)
{
	Oid			guardfn = LookupFuncName(list_make2(makeString(ITEM_TABLE_SCHEMA),
													makeString("item_guard")),
										 0, NULL, false);
	TriggerDesc *trig = rel->trigdesc;
	Trigger    *guard = NULL;
	int			i;

	/* trigdesc lists the triggers in name order, which is firing order */
	for (i = 0; trig != NULL && i < trig->numtriggers; i++)
	{
		Trigger    *t = &trig->triggers[i];

		if (t->tgfoid == guardfn)
		{
			guard = t;
			if (t->tgenabled != TRIGGER_FIRES_ON_ORIGIN && t->tgenabled != TRIGGER_FIRES_ALWAYS)
				refuse("item table", rel, psprintf("must keep trigger \"%s\" enabled", t->tgname),
					   NULL);
		}
		else if (guard != NULL && t->tgenabled != TRIGGER_DISABLED &&
				 TRIGGER_FOR_ROW(t->tgtype) && TRIGGER_FOR_BEFORE(t->tgtype) &&
				 (TRIGGER_FOR_INSERT(t->tgtype) || TRIGGER_FOR_UPDATE(t->tgtype)))
			refuse("item table", rel,
				   psprintf("must run trigger \"%s\" after its other BEFORE row triggers",
							guard->tgname),
				   psprintf("Give trigger \"%s\" a name that sorts before \"%s\".",
							t->tgname, guard->tgname));
	}
	if (guard == NULL && dropping)
		refuse("item table", rel, psprintf("must keep its trigger \"%s\"", ITEM_GUARD_TRIGGER),
			   NULL);
}

/* column name of rel: its attnum if of type typid and NOT NULL, else refuse */
static AttrNumber
required_column(const char *kind, Relation rel, const char *name, Oid typid,
				const char *typname)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			i;

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped && strcmp(NameStr(att->attname), name) == 0 &&
			att->atttypid == typid && att->attnotnull)
			return att->attnum;
	}
	refuse(kind, rel, psprintf("must have column \"%s\" of type %s NOT NULL", name, typname),
		   NULL);
	return InvalidAttrNumber;
}

/*
 * check_shape
 *		Refuse the command unless the item table relid (an index table when
 *		is_index) still has the shape described in the file header.
 */
static void
check_shape(Oid relid, bool is_index, bool dropping, Oid data_nsp)
{
	const char *kind = is_index ? "index table" : "item table";
	Relation	rel = relation_open(relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	AttrNumber	keys[2];
	int			nkeys = 0;
	AttrNumber	item;
	Oid			pk;
	AttrNumber	dist;
	bool		pk_ok = false;
	int			i;

	if (rel->rd_rel->relkind != RELKIND_RELATION)
		refuse(kind, rel, "must stay an ordinary table", NULL);
	if (RelationGetNamespace(rel) != data_nsp)
		refuse(kind, rel, "must stay in schema item_data", NULL);
	if (is_index)
		keys[nkeys++] = required_column(kind, rel, "ikey", ItemKeyTypeOid(), "item_table.item_key");
	keys[nkeys++] = required_column(kind, rel, "key", ItemKeyTypeOid(), "item_table.item_key");
	item = required_column(kind, rel, "item", JSONBOID, "jsonb");

	/* distributed (distributed.c): the primary key ends with it */
	dist = get_attnum(relid, is_index ? DIST_INDEX_COLUMN : DIST_TABLE_COLUMN);
	pk = ItemRelationGetPrimaryKeyIndex(rel);
	if (OidIsValid(pk))
	{
		Relation	idx = index_open(pk, AccessShareLock);
		Form_pg_index ind = idx->rd_index;
		int			n = ind->indnatts;

		if (dist != InvalidAttrNumber && n == nkeys + 1 && ind->indnkeyatts == n &&
			ind->indkey.values[nkeys] == dist)
			n = nkeys;
		pk_ok = n == nkeys && ind->indnkeyatts == ind->indnatts;
		for (i = 0; pk_ok && i < nkeys; i++)
			pk_ok = ind->indkey.values[i] == keys[i];
		index_close(idx, AccessShareLock);
	}
	if (!pk_ok)
		refuse(kind, rel, is_index ? "must keep its primary key on (ikey, key)" :
			   "must keep its primary key on (key)", NULL);

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped || att->attnum == item || att->attnum == keys[0] ||
			(nkeys == 2 && att->attnum == keys[1]) || att->attnum == dist)
			continue;
		if (att->attnotnull && !att->atthasdef && !att->attidentity && !att->attgenerated)
			refuse(kind, rel, psprintf("must have column \"%s\" nullable or with a default",
									   NameStr(att->attname)),
				   "The API writes only key and item.");
	}
	if (find_inheritance_children(relid, NoLock) != NIL)
		refuse(kind, rel, "must not have inheritance children",
			   "Reads of the table would return the children's rows.");
	/* a distributed table has no triggers: the API keeps its indexes */
	if (!is_index && dist == InvalidAttrNumber)
		check_guard_trigger(rel, dropping);
	relation_close(rel, NoLock);
}

/*
 * item_table_ddl_guard
 *		Event trigger on ddl_command_end and sql_drop (see the file header).
 */
Datum
item_table_ddl_guard(PG_FUNCTION_ARGS)
{
	static SPIPlanPtr registered_plan = NULL;
	EventTriggerData *ev;
	bool		dropping;
	Oid			data_nsp;
	List	   *rels;
	List	   *candidates = NIL;
	ListCell   *lc;
	Datum	   *elems;
	Datum		arg;
	int			n = 0;
	int			rc;
	uint64		i;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_EVENT_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("ddl_guard: not fired by event trigger manager")));
	ev = (EventTriggerData *) fcinfo->context;
	if (creating_extension)
		PG_RETURN_VOID();
	dropping = strcmp(ev->event, "sql_drop") == 0;
	data_nsp = get_namespace_oid(ITEM_DATA_SCHEMA, false);

	SPI_connect();
	rels = dropping ? dropped_trigger_tables() : changed_tables();
	foreach(lc, rels)
	{
		if (could_be_item_table(lfirst_oid(lc), data_nsp))
			candidates = lappend_oid(candidates, lfirst_oid(lc));
	}
	if (candidates == NIL)
	{
		SPI_finish();
		PG_RETURN_VOID();
	}

	if (registered_plan == NULL)
	{
		Oid			argtypes[1] = {OIDARRAYOID};
		SPIPlanPtr	plan;

		plan = ItemPrepareKept("SELECT t.relid::pg_catalog.oid, false FROM item_table.tables t"
						   " WHERE t.relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY ($1)"
						   " UNION ALL"
						   " SELECT i.relid::pg_catalog.oid, true FROM item_table.indexes i"
						   " WHERE i.relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY ($1)",
						   1, argtypes, 0);
		registered_plan = plan;
	}
	elems = palloc(sizeof(Datum) * list_length(candidates));
	foreach(lc, candidates)
		elems[n++] = ObjectIdGetDatum(lfirst_oid(lc));
	arg = PointerGetDatum(construct_array(elems, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
	rc = SPI_execute_plan(registered_plan, &arg, NULL, true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "item_table catalog read failed: %s", SPI_result_code_string(rc));
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Oid			relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
														   SPI_tuptable->tupdesc, 1, &isnull));
		bool		is_index = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[i],
														  SPI_tuptable->tupdesc, 2, &isnull));

		check_shape(relid, is_index, dropping, data_nsp);
	}
	SPI_finish();
	PG_RETURN_VOID();
}
