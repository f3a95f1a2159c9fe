/*-------------------------------------------------------------------------
 *
 * distributed.c
 *		Item tables distributed with Citus: what the table is distributed
 *		on, the statements that Citus routes to one shard, and the index
 *		upkeep the API does itself where a trigger cannot.
 *
 * What Citus distributes on.  Citus hash-distributes a table on one column
 * and prunes shards only on an equality with that column.  item_key's hash
 * opclass hashes the partition part alone, so distributing on key puts
 * every item collection on one shard, and GetItem, PutItem, UpdateItem and
 * DeleteItem (key = $1) are routed to it; but a Query is a range on key
 * (key >= lo AND key < hi), which Citus cannot prune, and it goes to every
 * shard.  Measured with bench/citus.sh (a coordinator and two workers on
 * loopback, 32 shards, docs/distributed.md): a Query of a
 * 10-item collection ran at about 14 tps distributed on key against about
 * 330 tps routed by a partition column, 23 times as many, and the gap grows
 * with the shard count.  So distribute_table() (src/distributed/distributed.sql)
 * adds a distribution column
 *
 *	  part item_key NOT NULL, CHECK (part = partition_key(key)),
 *	  PRIMARY KEY (key, part)
 *
 * holding the partition-only key of the item (the same hash as key, so the
 * placement is that of distributing on key), and every statement below
 * carries "part = $n" next to its key condition: Citus routes it to one
 * shard (Task Count: 1), where the primary key still gives the ordered
 * index scan on key.  The column costs about 12% of table size for short
 * keys.  A generated column cannot be a distribution column, so part is a
 * plain column that the API writes and the CHECK keeps honest.  Index
 * tables get the same treatment with ipart = partition_key(ikey): a GSI is
 * distributed by its own partition key, an LSI (same partition as its
 * table) is co-located with its table.
 *
 * Detection, the one choice of a store.  dist_choose_store runs once per
 * version of a definition (when table_def.c reads it, through
 * table_def_store_chooser): the physical table is a Citus table when
 * pg_dist_partition lists it, and its definition gets the distributed
 * store (item_store.h, at the end of this file), every other definition
 * the local one.  On a Citus table the physical table on the coordinator
 * is an empty shell, so the direct paths must not run (the distributed
 * store has none: every read and write is one of its statements), and a
 * Citus table that was not distributed by
 * distribute_table() (no part column) is refused with a message that says
 * how to distribute it.
 *
 * Index upkeep.  A trigger on a worker's shard cannot write another
 * distributed table, so distribute_table() drops the index and guard
 * triggers, and the API maintains the index rows itself, on the
 * coordinator, in the same distributed transaction as the base write
 * (Citus commits both with two-phase commit when they are on different
 * workers): it reads the old item (locked, FOR UPDATE on its shard),
 * writes the base row, and then applies the difference between the old
 * and new item's entries by the one index upkeep of both stores
 * (GsiSyncIndex, gsi.c), with a writer of its own (routed statements,
 * dist_index_writer), as the caller: Citus
 * refuses to mix two users' writes to co-located shards in one
 * transaction (an index table and its table have the same shard count and
 * column type, so Citus co-locates them), so the index owner cannot write
 * them as the index trigger does on one server; a writer needs the same
 * privileges on the index tables (check_index_privileges says so).  Plain
 * SQL writes on the coordinator to a distributed item or index table
 * would bypass all that; they are refused unless they come from the API:
 * INSERT, UPDATE, DELETE and MERGE by the post-parse-analysis hook, COPY
 * FROM and TRUNCATE by the ProcessUtility hook (check_plain_write).
 *
 * Time to Live.  An expiry batch (DistExpireBatch) deletes item by item
 * through routed statements, with the index upkeep; see there.
 *
 * Round trips.  Inside a function Citus wraps every statement in a
 * transaction block on the worker (BEGIN, statement, COMMIT), so that a
 * function's statements stay atomic.  A PutItem without condition on a
 * table without indexes, outside a transaction block, is one statement:
 * it is sent alone (DistNextWriteAlone), one round trip.  Everything else
 * (conditional writes, whose locked read must hold its lock until the
 * write, index upkeep, batches, transactions) keeps the block.
 *
 * Reader bounds.  Citus evaluates a statement's parameters on the
 * coordinator and writes them into the shard statement as text, so the
 * reader's bounds that are not keys (before and after everything, right
 * after a key) have text forms (key_io.c).
 *
 * All statements are fixed text with the physical table's quoted name;
 * keys and items are parameters, never text.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xact.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/params.h"
#include "parser/analyze.h"
#include "parser/parsetree.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/snapmgr.h"

#include "catalog.h"
#include "distributed.h"
#include "errors.h"
#include "gsi.h"
#include "item_store.h"
#include "stored_item.h"

/* the distributed store (item_store.h), at the end of this file */
static const ItemStore dist_store;

/* does def's table go through the distributed store? */
#define is_dist(def) ((def)->store == &dist_store)

/* ----------------------------------------------------------------
 * detection
 * ----------------------------------------------------------------
 */

/*
 * is relid listed in Citus's pg_dist_partition?  Read with a catalog
 * snapshot, as PostgreSQL reads its own catalogs: the definition cache asks
 * when it has just processed the invalidation of a distribute_table() that
 * another session committed, and the statement's snapshot (or, in
 * REPEATABLE READ, the transaction's) may be older than that commit: read
 * through it, the table was not distributed, and the definition cached
 * that way stayed wrong until the table's next invalidation.
 */
static bool
is_citus_table(Oid relid)
{
	Oid			partrel = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	AttrNumber	att;
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData skey;
	bool		found;

	if (!OidIsValid(partrel))
		return false;
	att = get_attnum(partrel, "logicalrelid");
	if (att == InvalidAttrNumber)
		elog(ERROR, "pg_dist_partition has no column logicalrelid");
	rel = table_open(partrel, AccessShareLock);
	ScanKeyInit(&skey, att, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &skey);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * DistDropTable
 *		DeleteTable of a Citus table: dropped by DROP TABLE statements, not
 *		by performDeletion(), because Citus drops the shards on the workers
 *		from its sql_drop event trigger, which only a complete DDL statement
 *		fires, and only for the tables the statement names (shards of a
 *		table dropped as a dependent stay behind): so each index table
 *		first, then the base table.  item_table's own sql_drop clean-up
 *		removes their catalog rows.  False (nothing done) for a table that
 *		is not a Citus table.  SPI connected; the caller has checked
 *		ownership and locked the table.
 */
bool
DistDropTable(Oid relid, const char *table_name)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		arg = CStringGetTextDatum(table_name);
	List	   *drops = NIL;
	ListCell   *lc;
	uint64		i;
	int			rc;

	if (!is_citus_table(relid))
		return false;
	rc = SPI_execute_with_args("SELECT i.relid FROM item_table.indexes i"
							   " WHERE i.table_name OPERATOR(pg_catalog.=) $1 ORDER BY i.index_name",
							   1, argtypes, &arg, NULL, true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading the index tables failed: %s", SPI_result_code_string(rc));
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull && get_rel_name(DatumGetObjectId(d)) != NULL)
			drops = lappend(drops, ItemQualifiedName(DatumGetObjectId(d)));
	}
	drops = lappend(drops, ItemQualifiedName(relid));
	foreach(lc, drops)
	{
		rc = SPI_execute(psprintf("DROP TABLE %s", (char *) lfirst(lc)), false, 0);
		if (rc != SPI_OK_UTILITY)
			elog(ERROR, "dropping a distributed item table failed: %s",
				 SPI_result_code_string(rc));
		CommandCounterIncrement();
	}
	return true;
}

/*
 * dist_choose_store
 *		The chooser of a definition's store (table_def_store_chooser): the
 *		distributed store for a Citus table, the local one otherwise.
 */
static void
dist_choose_store(ItemTableDef *def)
{
	int			i;

	/* the one choice of a definition's store (item_store.h) */
	def->store = is_citus_table(def->relid) ? &dist_store : ItemStoreLocal();
	def->distributed = is_dist(def) &&
		get_attnum(def->relid, DIST_TABLE_COLUMN) != InvalidAttrNumber;
	for (i = 0; i < def->nindexes; i++)
	{
		IndexDef   *idx = &def->indexes[i];

		idx->distributed = def->distributed &&
			get_attnum(idx->relid, DIST_INDEX_COLUMN) != InvalidAttrNumber;
	}
}

bool
DistStale(ItemTableDef *def)
{
	return !is_dist(def) &&
		get_attnum(def->relid, DIST_TABLE_COLUMN) != InvalidAttrNumber;
}

/* a Citus table distributed by other means: refuse clearly */
static void
check_distributed(ItemTableDef *def)
{
	int			i;
	bool		ok = def->distributed;

	for (i = 0; ok && i < def->nindexes; i++)
		ok = def->indexes[i].distributed;
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" is a Citus table that item_table.distribute_table() did not make",
						def->name),
				 errdetail("The API routes its statements by the distribution column \"part\" that distribute_table() adds to the table and its index tables."),
				 errhint("Undistribute the table and its index tables with Citus's undistribute_table(), then call item_table.distribute_table('%s').",
						 def->name)));
}

void
DistCheckIndexCreate(ItemTableDef *def)
{
	if (is_dist(def))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("indexes cannot be added to the distributed table \"%s\"", def->name),
				 errdetail("The backfill of a new index writes its rows with the statements of undistributed tables."),
				 errhint("Create the table's indexes before item_table.distribute_table().")));
}

ItemKey *
DistPartOf(const ItemKey *key)
{
	return KeyCodecMakeVarlena(ITEMKEY_DATA(key),
							   KeyCodecPartitionLength(ITEMKEY_DATA(key), ITEMKEY_LEN(key)));
}

/* ----------------------------------------------------------------
 * plain SQL writes: refused unless the API makes them
 * ----------------------------------------------------------------
 */
static int	api_writing = 0;
/* the next write is the only statement of its API call (DistNextWriteAlone) */
static bool next_write_alone = false;
static post_parse_analyze_hook_type prev_post_parse_analyze = NULL;
static ProcessUtility_hook_type prev_process_utility = NULL;

/*
 * check_plain_write
 *		Refuse a write that is not the API's to relid when it is a
 *		distributed item or index table: the API keeps the index rows of a
 *		distributed table itself, and a plain write would leave them stale.
 */
static void
check_plain_write(Oid relid, const char *command)
{
	Oid			nsp = get_namespace_oid("item_data", true);
	const char *appname;
	bool		citus;

	if (!OidIsValid(nsp) || get_rel_namespace(relid) != nsp)
		return;
	if (get_attnum(relid, DIST_TABLE_COLUMN) == InvalidAttrNumber &&
		get_attnum(relid, DIST_INDEX_COLUMN) == InvalidAttrNumber)
		return;
	/* Citus's own connections write shards on behalf of the coordinator */
	appname = GetConfigOption("application_name", true, false);
	if (appname != NULL && strncmp(appname, "citus_internal", 14) == 0)
		return;
	SPI_connect();
	citus = is_citus_table(relid);
	SPI_finish();
	if (citus)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s of the distributed item table \"%s\" is not supported",
						command, get_rel_name(relid)),
				 errdetail("On a table distributed with Citus the API maintains the secondary indexes itself; a plain INSERT, UPDATE, DELETE, MERGE, COPY FROM or TRUNCATE would leave them stale."),
				 errhint("Write through the API (item_table.dynamodb() and its functions).")));
}

static void
check_query_writes(Query *query)
{
	ListCell   *lc;

	if (query->resultRelation > 0 &&
		(query->commandType == CMD_INSERT || query->commandType == CMD_UPDATE ||
		 query->commandType == CMD_DELETE || query->commandType == CMD_MERGE))
		check_plain_write(rt_fetch(query->resultRelation, query->rtable)->relid,
						  query->commandType == CMD_INSERT ? "INSERT" :
						  query->commandType == CMD_UPDATE ? "UPDATE" :
						  query->commandType == CMD_DELETE ? "DELETE" : "MERGE");
	foreach(lc, query->cteList)
	{
		CommonTableExpr *cte = lfirst_node(CommonTableExpr, lc);

		if (IsA(cte->ctequery, Query))
			check_query_writes((Query *) cte->ctequery);
	}
}

static void
dist_post_parse_analyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	if (prev_post_parse_analyze)
		prev_post_parse_analyze(pstate, query, jstate);
	if (api_writing == 0 && !creating_extension)
		check_query_writes(query);
}

/*
 * dist_process_utility
 *		TRUNCATE and COPY FROM write a table without the API as well:
 *		refused on distributed item and index tables (COPY TO and COPY from
 *		a query only read).  Citus's own hook runs after this one.
 */
static void
dist_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
					 ProcessUtilityContext context, ParamListInfo params,
					 QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;

	if (api_writing == 0 && !creating_extension)
	{
		if (IsA(parsetree, TruncateStmt))
		{
			ListCell   *lc;

			foreach(lc, ((TruncateStmt *) parsetree)->relations)
			{
				Oid			relid = RangeVarGetRelid(lfirst_node(RangeVar, lc), NoLock, true);

				if (OidIsValid(relid))
					check_plain_write(relid, "TRUNCATE");
			}
		}
		else if (IsA(parsetree, CopyStmt))
		{
			CopyStmt   *copy = (CopyStmt *) parsetree;

			if (copy->is_from && copy->relation != NULL)
			{
				Oid			relid = RangeVarGetRelid(copy->relation, NoLock, true);

				if (OidIsValid(relid))
					check_plain_write(relid, "COPY FROM");
			}
		}
	}
	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context, params,
							 queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
								queryEnv, dest, qc);
}

static void
dist_write_alone(ItemTableDef *def)
{
	/* consumed by the DistUpsertItem that ApiUpsertItem calls next */
	next_write_alone = true;
}

/* ----------------------------------------------------------------
 * two-phase commit
 *
 * Citus commits a transaction that modified more than one worker with
 * two-phase commit only when it notices the spread: when a modifying
 * statement opens a new connection, or starts the transaction on a
 * worker, after an earlier modification.  The API reads (FOR UPDATE)
 * every item of a call before it writes any, so a TransactWriteItems over
 * two workers has opened its connections to both before its first write,
 * Citus never notices, and commits the workers one after the other (one
 * phase): a worker lost between the writes and the commit left the other
 * worker's half committed (test/citus/sql/worker_loss.sql).  So once the
 * API's writes in a transaction reach a second shard key (a row of
 * another distribution value, or of another table: an index row), it
 * asks Citus for two-phase commit itself, through the function Citus's
 * own executor calls for that (Use2PCForCoordinatedTransaction, exported
 * by citus.so, not part of its SQL interface).  Writes that stay on one
 * distribution value of one table commit in one phase as before.
 * ----------------------------------------------------------------
 */
static Oid	first_write_relid = InvalidOid;
static ItemKey *first_write_part = NULL;	/* in TopTransactionContext */
static bool two_phase_asked = false;

static void
ask_two_phase_commit(void)
{
	static void (*use_2pc) (void) = NULL;
	static bool looked_up = false;

	if (!looked_up)
	{
		use_2pc = (void (*) (void)) load_external_function("citus", "Use2PCForCoordinatedTransaction",
														   false, NULL);
		looked_up = true;
		if (use_2pc == NULL)
			ereport(WARNING,
					(errmsg("this Citus release does not export Use2PCForCoordinatedTransaction"),
					 errdetail("Writes of one API call or transaction block on several workers may commit in one phase.")));
	}
	if (use_2pc != NULL)
		use_2pc();
	two_phase_asked = true;
}

/* the API writes a row of relid whose distribution value is part */
static void
note_write(Oid relid, ItemKey *part)
{
	if (two_phase_asked)
		return;
	if (first_write_part == NULL)
	{
		first_write_relid = relid;
		first_write_part = MemoryContextAlloc(TopTransactionContext, VARSIZE_ANY(part));
		memcpy(first_write_part, part, VARSIZE_ANY(part));
		return;
	}
	if (relid != first_write_relid || ItemKeyCompare(part, first_write_part) != 0)
		ask_two_phase_commit();
}

static void
dist_xact_end(XactEvent event, void *arg)
{
	api_writing = 0;
	next_write_alone = false;
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_PREPARE)
	{
		first_write_relid = InvalidOid;
		first_write_part = NULL;
		two_phase_asked = false;
	}
}

void
DistInit(void)
{
	table_def_store_chooser = dist_choose_store;
	prev_post_parse_analyze = post_parse_analyze_hook;
	post_parse_analyze_hook = dist_post_parse_analyze;
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = dist_process_utility;
	RegisterXactCallback(dist_xact_end, NULL);
}

/* ----------------------------------------------------------------
 * index upkeep
 * ----------------------------------------------------------------
 */
static SPIPlanPtr
index_plan(IndexDef *idx, SPIPlanPtr *slot, const char *fmt, int nargs)
{
	Oid			argtypes[4] = {ItemKeyTypeOid(), ItemKeyTypeOid(), ItemKeyTypeOid(), JSONBOID};

	/* called with api_writing raised (sync_indexes) */
	if (*slot == NULL)
		*slot = ItemPrepareKept(psprintf(fmt, ItemQualifiedName(idx->relid)), nargs, argtypes, 0);
	return *slot;
}

static void
index_upsert(void *arg, IndexDef *idx, ItemKey *ikey, Datum basekey, Jsonb *item,
			 bool exists)
{
	ItemKey    *key = (ItemKey *) DatumGetPointer(basekey);
	Datum		args[4] = {PointerGetDatum(ikey), PointerGetDatum(key),
	PointerGetDatum(DistPartOf(ikey)), JsonbPGetDatum(item)};
	SPIPlanPtr	plan = index_plan(idx, &idx->plan_dist_upsert,
								  "INSERT INTO %s (ikey, key, " DIST_INDEX_COLUMN ", item) VALUES ($1, $2, $3, $4)"
								  " ON CONFLICT (ikey, key, " DIST_INDEX_COLUMN ") DO UPDATE SET item = EXCLUDED.item",
								  4);
	int			rc;

	note_write(idx->relid, (ItemKey *) DatumGetPointer(args[2]));
	rc = SPI_execute_plan(plan, args, NULL, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "index insert failed: %s", SPI_result_code_string(rc));
}

static void
index_delete(void *arg, IndexDef *idx, ItemKey *ikey, Datum basekey)
{
	ItemKey    *key = (ItemKey *) DatumGetPointer(basekey);
	Datum		args[3] = {PointerGetDatum(ikey), PointerGetDatum(key),
	PointerGetDatum(DistPartOf(ikey))};
	SPIPlanPtr	plan = index_plan(idx, &idx->plan_dist_delete,
								  "DELETE FROM %s WHERE " DIST_INDEX_COLUMN " OPERATOR(item_table.=) $3"
								  " AND ikey OPERATOR(item_table.=) $1 AND key OPERATOR(item_table.=) $2",
								  3);
	int			rc;

	note_write(idx->relid, (ItemKey *) DatumGetPointer(args[2]));
	rc = SPI_execute_plan(plan, args, NULL, false, 0);
	if (rc != SPI_OK_DELETE)
		elog(ERROR, "index delete failed: %s", SPI_result_code_string(rc));
}

/* the distributed writer of index rows (GsiIndexWriter): routed statements */
static const GsiIndexWriter dist_index_writer = {
	.open = NULL,
	.remove = index_delete,
	.upsert = index_upsert,
	.close = NULL,
};

/* the index rows of key, from olditem's entries to newitem's (gsi.c) */
static void
sync_entries(ItemTableDef *def, ItemKey *key, AttrValue *olditem, AttrValue *newitem)
{
	int			i;

	for (i = 0; i < def->nindexes; i++)
		GsiSyncIndex(def, &def->indexes[i], PointerGetDatum(key), olditem,
					 PointerGetDatum(key), newitem, NULL, true, &dist_index_writer, NULL);
}

/* sync_entries, with the API's writes let through */
static void
sync_entries_as_api(ItemTableDef *def, ItemKey *key, AttrValue *olditem, AttrValue *newitem)
{
	api_writing++;
	PG_TRY();
	{
		sync_entries(def, key, olditem, newitem);
	}
	PG_FINALLY();
	{
		api_writing--;
	}
	PG_END_TRY();
}

/*
 * check_index_privileges
 *		The caller's rights on the index tables of def, which the index
 *		upkeep of a distributed table writes as the caller (see the header
 *		essay, "Index upkeep"): refused clearly up front.
 */
static void
check_index_privileges(ItemTableDef *def)
{
	AclMode		need = ACL_SELECT | ACL_INSERT | ACL_UPDATE | ACL_DELETE;
	int			i;

	for (i = 0; i < def->nindexes; i++)
	{
		IndexDef   *idx = &def->indexes[i];

		if (pg_class_aclmask(idx->relid, GetUserId(), need, ACLMASK_ALL) != need)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for the index table of index \"%s\" of the distributed table \"%s\"",
							idx->name, def->name),
					 errdetail("On a table distributed with Citus the API writes the index rows as the caller, in the caller's distributed transaction."),
					 errhint("GRANT SELECT, INSERT, UPDATE, DELETE ON %s to every role that writes the table.",
							 ItemQualifiedName(idx->relid))));
	}
}

/*
 * sync_indexes
 *		Bring every index of def from the entries of olditem to those of
 *		newitem (either may be NULL), both of key; as the caller.
 */
static void
sync_indexes(ItemTableDef *def, ItemKey *key, Jsonb *oldj, Jsonb *newj)
{
	MemoryContext cxt;
	MemoryContext old;
	AttrValue  *olditem;
	AttrValue  *newitem;

	if (def->nindexes == 0 || (oldj == NULL && newj == NULL))
		return;
	cxt = AllocSetContextCreate(CurrentMemoryContext, "item_table distributed index upkeep",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	olditem = oldj ? StoredParseItem(def->name, NULL, key, JsonbPGetDatum(oldj), false) : NULL;
	newitem = newj ? StoredParseItem(def->name, NULL, key, JsonbPGetDatum(newj), false) : NULL;
	check_index_privileges(def);
	sync_entries_as_api(def, key, olditem, newitem);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

/* ----------------------------------------------------------------
 * item reads and writes
 * ----------------------------------------------------------------
 */

/*
 * The item statements: the partition column's equality ($n) next to the
 * key's routes each to one shard.
 */
#define DSQL_GET	"SELECT item FROM %s WHERE " DIST_TABLE_COLUMN " OPERATOR(item_table.=) $2" \
					" AND key OPERATOR(item_table.=) $1"
#define DSQL_GET_LOCK	DSQL_GET " FOR UPDATE"
#define DSQL_INSERT	"INSERT INTO %s (key, " DIST_TABLE_COLUMN ", item) VALUES ($1, $3, $2)" \
					" ON CONFLICT (key, " DIST_TABLE_COLUMN ") DO NOTHING"
#define DSQL_UPDATE	"UPDATE %s SET item = $2 WHERE " DIST_TABLE_COLUMN " OPERATOR(item_table.=) $3" \
					" AND key OPERATOR(item_table.=) $1"
#define DSQL_DELETE	"DELETE FROM %s WHERE " DIST_TABLE_COLUMN " OPERATOR(item_table.=) $2" \
					" AND key OPERATOR(item_table.=) $1"
#define DSQL_DELETE_RETURNING	DSQL_DELETE " RETURNING item"
#define DSQL_UPSERT	"INSERT INTO %s (key, " DIST_TABLE_COLUMN ", item) VALUES ($1, $3, $2)" \
					" ON CONFLICT (key, " DIST_TABLE_COLUMN ") DO UPDATE SET item = EXCLUDED.item"

/* a write statement of the API on def's table, prepared on first use */
static SPIPlanPtr
write_plan(ItemTableDef *def, SPIPlanPtr *slot, const char *sql, int nargs, Oid *argtypes)
{
	volatile SPIPlanPtr plan = NULL;

	if (*slot != NULL)
		return *slot;
	api_writing++;
	PG_TRY();
	{
		plan = TableDefPlan(def, slot, sql, nargs, argtypes);
	}
	PG_FINALLY();
	{
		api_writing--;
	}
	PG_END_TRY();
	return plan;
}

static void note_write(Oid relid, ItemKey *part);

/* run a write statement of the API on def's table */
static int
run_write(Oid relid, Datum part, SPIPlanPtr plan, Datum *args, bool returning)
{
	volatile int rc = 0;

	note_write(relid, (ItemKey *) DatumGetPointer(part));

	api_writing++;
	PG_TRY();
	{
		rc = SPI_execute_plan(plan, args, NULL, false, returning ? 1 : 0);
	}
	PG_FINALLY();
	{
		api_writing--;
	}
	PG_END_TRY();
	return rc;
}

static void
forget_locked(ItemTableDef *def)
{
	if (def->locked_key != NULL)
		pfree(def->locked_key);
	if (def->dist_locked_item != NULL)
		pfree(def->dist_locked_item);
	def->locked_key = NULL;
	def->dist_locked_item = NULL;
}

static Jsonb *
DistFetchItem(ItemTableDef *def, ItemKey *key, bool lock)
{
	Oid			argtypes[2] = {ItemKeyTypeOid(), ItemKeyTypeOid()};
	Datum		args[2] = {PointerGetDatum(key), PointerGetDatum(DistPartOf(key))};
	SPIPlanPtr	plan;
	int			rc;
	bool		isnull;
	Datum		d;
	Jsonb	   *item;

	check_distributed(def);
	forget_locked(def);
	if (lock)
		plan = TableDefPlan(def, &def->plan_dist_get_lock, DSQL_GET_LOCK, 2, argtypes);
	else
		plan = TableDefPlan(def, &def->plan_dist_get, DSQL_GET, 2, argtypes);
	rc = SPI_execute_plan(plan, args, NULL, !lock, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "item read failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		item = NULL;
	else
	{
		StoredCheckColumns(def->name, NULL, SPI_tuptable->tupdesc, 0, 1);
		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		if (isnull)
			StoredRaiseBadItem(def->name, NULL, key, NULL);
		item = DatumGetJsonbP(d);
		StoredCheckItem(def->name, NULL, key, item);
	}
	if (lock && def->nindexes > 0)
	{
		/* the old item of the write that follows, for the index upkeep */
		def->locked_key = MemoryContextAlloc(def->cxt, VARSIZE_ANY(key));
		memcpy(def->locked_key, key, VARSIZE_ANY(key));
		if (item != NULL)
		{
			def->dist_locked_item = MemoryContextAlloc(def->cxt, VARSIZE(item));
			memcpy(def->dist_locked_item, item, VARSIZE(item));
		}
	}
	return item;
}

/*
 * old_item
 *		The current item of key, locked: the one DistFetchItem(lock) just
 *		read when it read key, else read now.  *found says whether there is
 *		one.
 */
static Jsonb *
old_item(ItemTableDef *def, ItemKey *key)
{
	Jsonb	   *old;

	if (def->locked_key != NULL && ItemKeyCompare(def->locked_key, key) == 0)
	{
		old = def->dist_locked_item;
		def->dist_locked_item = NULL;
		pfree(def->locked_key);
		def->locked_key = NULL;
		return old;
	}
	return DistFetchItem(def, key, true);
}

static bool
DistInsertItem(ItemTableDef *def, ItemKey *key, Jsonb *item)
{
	Oid			argtypes[3] = {ItemKeyTypeOid(), JSONBOID, ItemKeyTypeOid()};
	Datum		args[3] = {PointerGetDatum(key), JsonbPGetDatum(item), PointerGetDatum(DistPartOf(key))};
	SPIPlanPtr	plan;
	int			rc;

	check_distributed(def);
	forget_locked(def);
	plan = write_plan(def, &def->plan_dist_insert, DSQL_INSERT, 3, argtypes);
	rc = run_write(def->relid, args[2], plan, args, false);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "item insert failed: %s", SPI_result_code_string(rc));
	if (SPI_processed != 1)
		return false;
	sync_indexes(def, key, NULL, item);
	return true;
}

static void
DistUpdateItem(ItemTableDef *def, ItemKey *key, Jsonb *item)
{
	Oid			argtypes[3] = {ItemKeyTypeOid(), JSONBOID, ItemKeyTypeOid()};
	Datum		args[3] = {PointerGetDatum(key), JsonbPGetDatum(item), PointerGetDatum(DistPartOf(key))};
	SPIPlanPtr	plan;
	Jsonb	   *old = NULL;
	int			rc;

	check_distributed(def);
	if (def->nindexes > 0)
		old = old_item(def, key);
	forget_locked(def);
	plan = write_plan(def, &def->plan_dist_update, DSQL_UPDATE, 3, argtypes);
	rc = run_write(def->relid, args[2], plan, args, false);
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "item update failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 1)
		sync_indexes(def, key, old, item);
}

static void
DistDeleteItem(ItemTableDef *def, ItemKey *key)
{
	Oid			argtypes[2] = {ItemKeyTypeOid(), ItemKeyTypeOid()};
	Datum		args[2] = {PointerGetDatum(key), PointerGetDatum(DistPartOf(key))};
	SPIPlanPtr	plan;
	int			rc;

	check_distributed(def);
	forget_locked(def);
	if (def->nindexes == 0)
	{
		plan = write_plan(def, &def->plan_dist_delete, DSQL_DELETE, 2, argtypes);
		rc = run_write(def->relid, args[1], plan, args, false);
		if (rc != SPI_OK_DELETE)
			elog(ERROR, "item delete failed: %s", SPI_result_code_string(rc));
		return;
	}
	plan = write_plan(def, &def->plan_dist_delete_returning, DSQL_DELETE_RETURNING, 2, argtypes);
	rc = run_write(def->relid, args[1], plan, args, true);
	if (rc != SPI_OK_DELETE_RETURNING)
		elog(ERROR, "item delete failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (isnull)
			StoredRaiseBadItem(def->name, NULL, key, NULL);
		sync_indexes(def, key, DatumGetJsonbP(d), NULL);
	}
}

static void
DistUpsertItem(ItemTableDef *def, ItemKey *key, Jsonb *item)
{
	Oid			argtypes[3] = {ItemKeyTypeOid(), JSONBOID, ItemKeyTypeOid()};
	Datum		args[3] = {PointerGetDatum(key), JsonbPGetDatum(item), PointerGetDatum(DistPartOf(key))};
	SPIPlanPtr	plan;
	int			rc;
	bool		alone = next_write_alone;

	next_write_alone = false;
	check_distributed(def);
	if (def->nindexes > 0)
	{
		/* the index upkeep needs the old item: read it locked, then write */
		for (;;)
		{
			Jsonb	   *old = DistFetchItem(def, key, true);

			CHECK_FOR_INTERRUPTS();
			if (old != NULL)
			{
				DistUpdateItem(def, key, item);
				return;
			}
			if (DistInsertItem(def, key, item))
				return;
			/* a concurrent insert won: read it, locked, and update it */
		}
	}
	forget_locked(def);
	plan = write_plan(def, &def->plan_dist_upsert, DSQL_UPSERT, 3, argtypes);
	if (alone && !IsTransactionBlock() &&
		GetConfigOption("citus.function_opens_transaction_block", true, false) != NULL)
	{
		/*
		 * The call's one statement, outside a transaction block: Citus
		 * need not open a transaction block on the worker for it (BEGIN,
		 * the statement, COMMIT: three round trips instead of one).
		 */
		int			nestlevel = NewGUCNestLevel();

		(void) set_config_option("citus.function_opens_transaction_block", "off",
								 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
		rc = run_write(def->relid, args[2], plan, args, false);
		AtEOXact_GUC(true, nestlevel);
	}
	else
		rc = run_write(def->relid, args[2], plan, args, false);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "item upsert failed: %s", SPI_result_code_string(rc));
}

/* ----------------------------------------------------------------
 * Time to Live
 *
 * The expiry statement of an undistributed table (ttl.c) deletes a batch
 * in one DELETE whose subquery locks the rows it picks; Citus routes
 * neither that subquery nor FOR UPDATE over every shard, and a plain
 * DELETE would not keep the index rows.  So the batch picks up to N
 * expired keys (a read over every shard, no lock), then deletes each with
 * a statement routed to its shard that checks the expiry again on the row
 * it deletes (READ COMMITTED: on the newest version, after waiting for a
 * writer that holds it), RETURNING the old item, whose index rows go as
 * with DeleteItem.  An item updated meanwhile to a later expiry stays.
 * Unlike the undistributed batch it waits for a row another transaction
 * holds instead of skipping it.
 * ----------------------------------------------------------------
 */
static uint64
DistExpireBatch(ItemTableDef *def, const char *pick, const char *recheck,
				Datum arg1, Datum arg2, int max_items)
{
	Oid			pick_types[3] = {TEXTOID, TIMESTAMPTZOID, INT4OID};
	Datum		pick_args[3] = {arg1, arg2, Int32GetDatum(max_items)};
	Oid			del_types[4] = {TEXTOID, TIMESTAMPTZOID, ItemKeyTypeOid(), ItemKeyTypeOid()};
	char	   *base = ItemQualifiedName(def->relid);
	MemoryContext cxt;
	MemoryContext old;
	volatile SPIPlanPtr del = NULL;
	ItemKey   **keys;
	uint64		nkeys;
	uint64		n = 0;
	uint64		i;
	int			rc;

	check_distributed(def);
	forget_locked(def);
	rc = SPI_execute_with_args(psprintf("SELECT s.key FROM %s s WHERE %s LIMIT $3", base, pick),
							   3, pick_types, pick_args, NULL, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "time to live read failed: %s", SPI_result_code_string(rc));
	nkeys = SPI_processed;
	if (nkeys == 0)
		return 0;
	keys = palloc(sizeof(ItemKey *) * nkeys);
	for (i = 0; i < nkeys; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);

		keys[i] = isnull ? NULL : (ItemKey *) PG_DETOAST_DATUM_COPY(d);
	}
	SPI_freetuptable(SPI_tuptable);

	api_writing++;
	PG_TRY();
	{
		del = SPI_prepare(psprintf("DELETE FROM %s b WHERE b." DIST_TABLE_COLUMN " OPERATOR(item_table.=) $4"
								   " AND b.key OPERATOR(item_table.=) $3 AND %s RETURNING b.item",
								   base, recheck),
						  4, del_types);
	}
	PG_FINALLY();
	{
		api_writing--;
	}
	PG_END_TRY();
	if (del == NULL)
		elog(ERROR, "time to live statement failed: %s", SPI_result_code_string(SPI_result));

	cxt = AllocSetContextCreate(CurrentMemoryContext, "item_table distributed expiry",
								ALLOCSET_DEFAULT_SIZES);
	for (i = 0; i < nkeys; i++)
	{
		Datum		args[4];

		CHECK_FOR_INTERRUPTS();
		if (keys[i] == NULL)
			continue;
		old = MemoryContextSwitchTo(cxt);
		args[0] = arg1;
		args[1] = arg2;
		args[2] = PointerGetDatum(keys[i]);
		args[3] = PointerGetDatum(DistPartOf(keys[i]));
		rc = run_write(def->relid, args[3], del, args, true);
		if (rc != SPI_OK_DELETE_RETURNING)
			elog(ERROR, "time to live deletion failed: %s", SPI_result_code_string(rc));
		if (SPI_processed == 1)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

			if (isnull)
				StoredRaiseBadItem(def->name, NULL, keys[i], NULL);
			sync_indexes(def, keys[i], DatumGetJsonbP(d), NULL);
			n++;
		}
		SPI_freetuptable(SPI_tuptable);
		MemoryContextSwitchTo(old);
		MemoryContextReset(cxt);
	}
	MemoryContextDelete(cxt);
	SPI_freeplan(del);
	return n;
}

/* ----------------------------------------------------------------
 * Query and Scan
 *
 * A Query carries the partition column's equality, which routes it to
 * one shard; a Scan goes to every shard, and Citus merges the shards' rows
 * in key order.  Citus evaluates the parameters on the coordinator and
 * sends them as text: the reader's bounds that are not keys (before and
 * after everything, right after a key) have text forms for that
 * (key_io.c).  The resume position of an index read is two comparisons,
 * since Citus cannot plan a row comparison with parameters.
 * ----------------------------------------------------------------
 */
#define Q(op) "OPERATOR(" ITEM_TABLE_SCHEMA "." op ")"
#define BOUND(n) "$" #n

#define DREAD_RANGE		"SELECT key, item FROM %s WHERE key " Q(">=") " " BOUND(1) \
						" AND key " Q("<") " " BOUND(2)
#define DREAD_PART		" AND " DIST_TABLE_COLUMN " " Q("=") " $3"
#define DREAD_ORDER_FWD	" ORDER BY key USING " Q("<")
#define DREAD_ORDER_BWD	" ORDER BY key USING " Q(">")
#define DREAD_SEGMENT	" AND " ITEM_TABLE_SCHEMA ".item_key_segment(key, $3) OPERATOR(pg_catalog.=) $4"

#define DIDX_RANGE		"SELECT key, item, ikey FROM %s WHERE ikey " Q(">=") " " BOUND(1) \
						" AND ikey " Q("<") " " BOUND(2)
#define DIDX_AFTER		" AND (ikey " Q(">") " " BOUND(3) " OR (ikey " Q("=") " " BOUND(3) \
						" AND key " Q(">") " " BOUND(4) "))"
#define DIDX_BEFORE		" AND (ikey " Q("<") " " BOUND(3) " OR (ikey " Q("=") " " BOUND(3) \
						" AND key " Q("<") " " BOUND(4) "))"
#define DIDX_PART		" AND " DIST_INDEX_COLUMN " " Q("=") " $5"
#define DIDX_SEGMENT	" AND " ITEM_TABLE_SCHEMA ".item_key_segment(ikey, $5) OPERATOR(pg_catalog.=) $6"
#define DIDX_ORDER_FWD	" ORDER BY ikey USING " Q("<") ", key USING " Q("<")
#define DIDX_ORDER_BWD	" ORDER BY ikey USING " Q(">") ", key USING " Q(">")

static SPIPlanPtr
DistReadPlan(ItemTableDef *def, IndexDef *idx, bool forward, bool segment,
			 const ItemKey *partition, Datum *args, int *nargs)
{
	Oid			argtypes[6] = {ItemKeyTypeOid(), ItemKeyTypeOid(), ItemKeyTypeOid(),
	ItemKeyTypeOid(), INT4OID, INT4OID};
	SPIPlanPtr *slot;
	const char *sql;
	Oid			relid = idx ? idx->relid : def->relid;

	check_distributed(def);
	if (partition != NULL)
	{
		/* a Query: routed by the partition column */
		args[*nargs] = PointerGetDatum(DistPartOf(partition));
		argtypes[*nargs] = ItemKeyTypeOid();
		(*nargs)++;
	}
	else if (segment)
	{
		argtypes[idx ? 4 : 2] = INT4OID;
		argtypes[idx ? 5 : 3] = INT4OID;
	}
	if (idx == NULL)
	{
		if (partition != NULL)
		{
			slot = forward ? &def->plan_dist_read_forward : &def->plan_dist_read_backward;
			sql = forward ? DREAD_RANGE DREAD_PART DREAD_ORDER_FWD : DREAD_RANGE DREAD_PART DREAD_ORDER_BWD;
		}
		else if (segment)
		{
			slot = &def->plan_dist_scan_segment;
			sql = DREAD_RANGE DREAD_SEGMENT DREAD_ORDER_FWD;
		}
		else
		{
			slot = forward ? &def->plan_dist_scan_forward : &def->plan_dist_scan_backward;
			sql = forward ? DREAD_RANGE DREAD_ORDER_FWD : DREAD_RANGE DREAD_ORDER_BWD;
		}
	}
	else
	{
		if (partition != NULL)
		{
			slot = forward ? &idx->plan_dist_read_forward : &idx->plan_dist_read_backward;
			sql = forward ? DIDX_RANGE DIDX_AFTER DIDX_PART DIDX_ORDER_FWD :
				DIDX_RANGE DIDX_BEFORE DIDX_PART DIDX_ORDER_BWD;
		}
		else if (segment)
		{
			slot = &idx->plan_dist_scan_segment;
			sql = DIDX_RANGE DIDX_AFTER DIDX_SEGMENT DIDX_ORDER_FWD;
		}
		else
		{
			slot = forward ? &idx->plan_dist_scan_forward : &idx->plan_dist_scan_backward;
			sql = forward ? DIDX_RANGE DIDX_AFTER DIDX_ORDER_FWD : DIDX_RANGE DIDX_BEFORE DIDX_ORDER_BWD;
		}
	}
	if (*slot == NULL)
		*slot = ItemPrepareKept(psprintf(sql, ItemQualifiedName(relid)), *nargs, argtypes, 0);
	return *slot;
}

/* ----------------------------------------------------------------
 * item_table.explain_item(table_name text, key jsonb) -> setof text
 *
 * The plans (EXPLAIN, COSTS OFF) of the item statements the API runs on a
 * distributed table for one key, with that key's parameters: what shows
 * that each is routed to one shard (Task Count: 1).
 * ----------------------------------------------------------------
 */
List *
DistExplainPlan(SPIPlanPtr plan, Datum *args, int nargs, const char *indent)
{
	CachedPlanSource *source;
	CachedPlan *cplan;
	ParamListInfo params = makeParamList(nargs);
	PlannedStmt *pstmt;
	QueryDesc  *qd;
	ExplainState *es;
	List	   *lines = NIL;
	char	   *p;
	char	   *nl;
	int			i;
	int			nestlevel;

	if (list_length(SPI_plan_get_plan_sources(plan)) != 1)
		elog(ERROR, "unexpected plan for an item_table statement");
	source = linitial(SPI_plan_get_plan_sources(plan));
	for (i = 0; i < nargs; i++)
	{
		params->params[i].value = args[i];
		params->params[i].isnull = false;
		params->params[i].pflags = PARAM_FLAG_CONST;
		params->params[i].ptype = SPI_getargtypeid(plan, i);
	}

	/*
	 * A plan made for these parameters, unless the statement's plan is
	 * always the generic one (the reads of plain tables).  Citus prunes
	 * shards with the parameters when the executor starts and writes them
	 * into the shard statements as constants; it would also send them with
	 * the EXPLAIN it asks a worker for, without their types (item_key's
	 * OID differs between nodes), which the worker refuses.  So the
	 * parameters are withdrawn once the executor has started.
	 */
	nestlevel = NewGUCNestLevel();
	if (!(source->cursor_options & CURSOR_OPT_GENERIC_PLAN))
		(void) set_config_option("plan_cache_mode", "force_custom_plan", PGC_USERSET,
								 PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);

	/*
	 * A write statement's plan invalidated since it was made (the table's
	 * statistics, Citus's metadata) is analyzed again here: as the API's,
	 * or the plain-write check would refuse it.
	 */
	api_writing++;
	PG_TRY();
	{
		cplan = GetCachedPlan(source, params, CurrentResourceOwner, NULL);
	}
	PG_FINALLY();
	{
		api_writing--;
	}
	PG_END_TRY();
	AtEOXact_GUC(true, nestlevel);
	if (list_length(cplan->stmt_list) != 1)
		elog(ERROR, "unexpected plan for an item_table statement");
	pstmt = linitial_node(PlannedStmt, cplan->stmt_list);
	es = NewExplainState();
	es->costs = false;
	es->format = EXPLAIN_FORMAT_TEXT;
	qd = CreateQueryDesc(pstmt, "item_table statement", GetActiveSnapshot(), InvalidSnapshot,
						 None_Receiver, params, NULL, 0);
	ExecutorStart(qd, EXEC_FLAG_EXPLAIN_ONLY);
	qd->estate->es_param_list_info = NULL;
	ExplainPrintPlan(es, qd);
	ExecutorEnd(qd);
	FreeQueryDesc(qd);
	ReleaseCachedPlan(cplan, CurrentResourceOwner);

	for (p = es->str->data; *p; p = nl + 1)
	{
		nl = strchr(p, '\n');
		if (nl == NULL)
		{
			lines = lappend(lines, psprintf("%s%s", indent, p));
			break;
		}
		lines = lappend(lines, psprintf("%s%s", indent, pnstrdup(p, nl - p)));
	}
	return lines;
}

static void
explain_plan(List **lines, const char *name, SPIPlanPtr plan, Datum *args, int nargs)
{
	*lines = lappend(*lines, psprintf("%s:", name));
	*lines = list_concat(*lines, DistExplainPlan(plan, args, nargs, "  "));
}

PG_FUNCTION_INFO_V1(item_table_explain_item);

Datum
item_table_explain_item(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext callercxt = CurrentMemoryContext;
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	AttrValue  *keyattrs = AttrItemFromJsonb(PG_GETARG_JSONB_P(1));
	Oid			argtypes[3] = {ItemKeyTypeOid(), JSONBOID, ItemKeyTypeOid()};
	ItemTableDef *def;
	ItemKey    *key;
	Datum		args[3];
	List	   *lines = NIL;
	ListCell   *lc;

	SPI_connect();
	def = TableDefLookup(name);
	if (!is_dist(def))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" is not distributed", name),
				 errhint("explain_item() shows the statements of tables distributed with item_table.distribute_table().")));
	check_distributed(def);
	key = TableDefKeyFromKeyParam(def, keyattrs);
	args[0] = PointerGetDatum(key);
	args[1] = PointerGetDatum(DistPartOf(key));
	argtypes[1] = ItemKeyTypeOid();
	explain_plan(&lines, "GetItem", TableDefPlan(def, &def->plan_dist_get, DSQL_GET, 2, argtypes),
				 args, 2);
	explain_plan(&lines, "read for a conditional write (locked)",
				 TableDefPlan(def, &def->plan_dist_get_lock, DSQL_GET_LOCK, 2, argtypes), args, 2);
	explain_plan(&lines, "DeleteItem", write_plan(def, &def->plan_dist_delete_returning,
												  DSQL_DELETE_RETURNING, 2, argtypes), args, 2);
	argtypes[1] = JSONBOID;
	args[1] = JsonbPGetDatum(AttrItemToJsonb(keyattrs));
	args[2] = PointerGetDatum(DistPartOf(key));
	explain_plan(&lines, "PutItem", write_plan(def, &def->plan_dist_upsert, DSQL_UPSERT, 3, argtypes),
				 args, 3);
	explain_plan(&lines, "PutItem (new item)",
				 write_plan(def, &def->plan_dist_insert, DSQL_INSERT, 3, argtypes), args, 3);
	explain_plan(&lines, "UpdateItem", write_plan(def, &def->plan_dist_update, DSQL_UPDATE, 3, argtypes),
				 args, 3);

	MemoryContextSwitchTo(callercxt);
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	foreach(lc, lines)
	{
		Datum		v = CStringGetTextDatum((char *) lfirst(lc));
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &v, &isnull);
	}
	SPI_finish();
	PG_RETURN_NULL();
}

/* ----------------------------------------------------------------
 * item_table.undistribute_table(table_name text)
 *
 * The reverse of distribute_table(): Citus's undistribute_table() on each
 * index table and the table brings the rows back to the coordinator, into
 * a new table of the same name (a new OID); the item_table catalog is
 * pointed at the new tables (the sql_drop clean-up is held off meanwhile,
 * ItemHoldDropCleanup), then the distribution columns go, the primary keys
 * become (key) and (ikey, key) again, and the guard and index triggers
 * come back.  Run as the table's owner; the catalog rows are updated as
 * the catalog's owner.
 * ----------------------------------------------------------------
 */
/* run one statement built from catalog names (quoted) */
static void
run_sql(const char *sql, int expected)
{
	int			rc = SPI_execute(sql, false, 0);

	if (rc != expected)
		elog(ERROR, "undistribute_table: \"%s\" failed: %s", sql, SPI_result_code_string(rc));
}

/* name of relid's primary key */
static char *
pk_name(Oid relid)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		arg = ObjectIdGetDatum(relid);
	int			rc = SPI_execute_with_args("SELECT c.conname::pg_catalog.text FROM pg_catalog.pg_constraint c"
										   " WHERE c.conrelid OPERATOR(pg_catalog.=) $1"
										   " AND c.contype OPERATOR(pg_catalog.=) 'p'",
										   1, argtypes, &arg, NULL, false, 1);

	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "undistribute_table: no primary key on relation %u", relid);
	return SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
}

/* Citus's undistribute_table() on a relation, by qualified name; its new OID */
static Oid
citus_undistribute(const char *qualified)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		arg = CStringGetTextDatum(qualified);
	int			rc;

	rc = SPI_execute_with_args("SELECT pg_catalog.undistribute_table($1::pg_catalog.regclass)",
							   1, argtypes, &arg, NULL, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "undistribute_table: Citus's undistribute_table(%s) failed: %s", qualified,
			 SPI_result_code_string(rc));
	rc = SPI_execute_with_args("SELECT $1::pg_catalog.regclass::pg_catalog.oid",
							   1, argtypes, &arg, NULL, false, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "undistribute_table: %s is gone", qualified);
	return DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
										  &(bool){false}));
}

PG_FUNCTION_INFO_V1(item_table_undistribute_table);

Datum
item_table_undistribute_table(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	ItemTableDef *def;
	int			nindexes;
	char	  **idxnames;
	char	  **idxquals;
	Oid		   *newidx;
	char	   *basequal;
	volatile Oid newbase = InvalidOid;
	ItemRoleSwitch sw;
	int			i;

	SPI_connect();
	def = TableDefLookup(name);
	if (!is_dist(def))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("item table \"%s\" is not distributed", name)));
	ItemCheckOwner(def->relid);
	nindexes = def->nindexes;
	idxnames = palloc(sizeof(char *) * Max(nindexes, 1));
	idxquals = palloc(sizeof(char *) * Max(nindexes, 1));
	newidx = palloc(sizeof(Oid) * Max(nindexes, 1));
	for (i = 0; i < nindexes; i++)
	{
		ItemCheckOwner(def->indexes[i].relid);
		idxnames[i] = pstrdup(def->indexes[i].name);
		idxquals[i] = ItemQualifiedName(def->indexes[i].relid);
	}
	basequal = ItemQualifiedName(def->relid);

	/* the rows back on the coordinator, in new tables of the same names */
	ItemHoldDropCleanup(true);
	PG_TRY();
	{
		for (i = 0; i < nindexes; i++)
			newidx[i] = citus_undistribute(idxquals[i]);
		newbase = citus_undistribute(basequal);
	}
	PG_FINALLY();
	{
		ItemHoldDropCleanup(false);
	}
	PG_END_TRY();

	/* the catalog follows them */
	ItemAsCatalogOwnerBegin(&sw);
	{
		Oid			argtypes[3] = {TEXTOID, OIDOID, TEXTOID};
		Datum		args[3];
		int			rc;

		args[0] = CStringGetTextDatum(name);
		args[1] = ObjectIdGetDatum(newbase);
		rc = SPI_execute_with_args("UPDATE item_table.tables SET relid = $2::pg_catalog.regclass"
								   " WHERE table_name OPERATOR(pg_catalog.=) $1",
								   2, argtypes, args, NULL, false, 0);
		if (rc != SPI_OK_UPDATE || SPI_processed != 1)
			elog(ERROR, "undistribute_table: catalog update failed");
		for (i = 0; i < nindexes; i++)
		{
			args[1] = ObjectIdGetDatum(newidx[i]);
			args[2] = CStringGetTextDatum(idxnames[i]);
			rc = SPI_execute_with_args("UPDATE item_table.indexes SET relid = $2::pg_catalog.regclass"
									   " WHERE table_name OPERATOR(pg_catalog.=) $1"
									   " AND index_name OPERATOR(pg_catalog.=) $3",
									   3, argtypes, args, NULL, false, 0);
			if (rc != SPI_OK_UPDATE || SPI_processed != 1)
				elog(ERROR, "undistribute_table: catalog update failed");
		}
	}
	ItemAsRoleEnd(&sw);
	CommandCounterIncrement();

	/* the shape of undistributed tables, and their triggers */
	for (i = 0; i < nindexes; i++)
	{
		run_sql(psprintf("ALTER TABLE %s DROP CONSTRAINT ipart_is_partition_key,"
						 " DROP CONSTRAINT %s, ADD PRIMARY KEY (ikey, key)",
						 idxquals[i], quote_identifier(pk_name(newidx[i]))), SPI_OK_UTILITY);
		run_sql(psprintf("ALTER TABLE %s DROP COLUMN " DIST_INDEX_COLUMN, idxquals[i]), SPI_OK_UTILITY);
	}
	run_sql(psprintf("ALTER TABLE %s DROP CONSTRAINT part_is_partition_key,"
					 " DROP CONSTRAINT %s, ADD PRIMARY KEY (key)",
					 basequal, quote_identifier(pk_name(newbase))), SPI_OK_UTILITY);
	run_sql(psprintf("ALTER TABLE %s DROP COLUMN " DIST_TABLE_COLUMN, basequal), SPI_OK_UTILITY);
	run_sql(psprintf("CREATE TRIGGER zz_item_guard BEFORE INSERT OR UPDATE ON %s"
					 " FOR EACH ROW EXECUTE FUNCTION item_table.item_guard()", basequal),
			SPI_OK_UTILITY);
	if (nindexes > 0)
	{
		run_sql(psprintf("CREATE TRIGGER item_table_indexes AFTER INSERT OR UPDATE OR DELETE ON %s"
						 " FOR EACH ROW EXECUTE FUNCTION item_table.index_trigger()", basequal),
				SPI_OK_UTILITY);
		run_sql(psprintf("CREATE TRIGGER item_table_indexes_truncate AFTER TRUNCATE ON %s"
						 " FOR EACH STATEMENT EXECUTE FUNCTION item_table.index_trigger()", basequal),
				SPI_OK_UTILITY);
	}
	TableDefForget(name);
	SPI_finish();
	PG_RETURN_VOID();
}

/* ----------------------------------------------------------------
 * the distributed store
 * ----------------------------------------------------------------
 */
static const ItemStore dist_store = {
	.name = "distributed",
	.direct = false,
	.remote_rows = true,
	.fetch = DistFetchItem,
	.insert = DistInsertItem,
	.update = DistUpdateItem,
	.remove = DistDeleteItem,
	.upsert = DistUpsertItem,
	.write_alone = dist_write_alone,
	.read_plan = DistReadPlan,
	.expire_batch = DistExpireBatch,
};
