/*-------------------------------------------------------------------------
 *
 * direct_upkeep.c
 *		What a direct write (one that skips the executor: direct_insert.c's
 *		insert, api_common.c's update and delete) does in place of the
 *		triggers the statement would fire.
 *
 * An item table's triggers are the item guard, the index row trigger, the
 * stream capture trigger and the point-in-time recovery history trigger,
 * each as item_table makes them.  A direct
 * write may run only when every trigger the statement would fire is one of
 * these (ApiDirectTriggers), and after the row is written it does the
 * AFTER triggers' work itself, in their firing order (ApiDirectUpkeep).
 * Both direct paths call these two; they call nothing of the paths, so
 * the paths do not depend on each other through them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/rel.h"

#include "api.h"
#include "api_vector.h"
#include "direct_check.h"
#include "gsi.h"
#include "item_guard.h"
#include "stream.h"

/* is fn item_table.item_guard()?  (looked up again when it seems not) */
static bool
is_guard_function(Oid fn)
{
	static Oid	guard_fn = InvalidOid;

	if (fn == guard_fn)
		return true;
	guard_fn = LookupFuncName(list_make2(makeString(ITEM_TABLE_SCHEMA),
										 makeString("item_guard")),
							  0, NULL, true);
	return fn == guard_fn;
}

/*
 * ApiDirectTriggers
 *		May a direct write of cmd (CMD_INSERT, CMD_UPDATE or CMD_DELETE) to
 *		the item table rel stand in for the triggers the statement would
 *		fire, and what must it do in their place?
 *
 * Every trigger of rel that the statement would fire (one for cmd's event,
 * enabled for the current session_replication_role) must be one of:
 *	  - the item guard (BEFORE INSERT OR UPDATE): it lets exactly the API's
 *		validated row through unchanged, so skipping it changes nothing;
 *	  - the index row trigger exactly as api_index.c makes it
 *		(GsiDirectTrigger): *upkeep gets API_UPKEEP_INDEXES;
 *	  - the stream trigger exactly as stream.c makes it
 *		(ItemStreamDirectCaptureTrigger): *upkeep gets API_UPKEEP_STREAM;
 *	  - the vector index trigger exactly as api_vector.c makes it
 *		(ApiVectorDirectTrigger): *upkeep gets API_UPKEEP_VECTORS;
 *	  - the point-in-time recovery history trigger exactly as backup.c
 *		makes it (ItemPitrDirectTrigger): *upkeep gets API_UPKEEP_PITR.
 * Anything else -- a user trigger, a foreign key's, a statement-level one,
 * a WHEN clause, the index trigger on a distributed table -- is false,
 * and the caller runs the statement.  Triggers the statement would not
 * fire (the TRUNCATE triggers, disabled ones) are no obstacle.
 */
bool
ApiDirectTriggers(Relation rel, CmdType cmd, int *upkeep)
{
	TriggerDesc *td = rel->trigdesc;
	int16		event;
	int			i;

	*upkeep = 0;
	switch (cmd)
	{
		case CMD_INSERT:
			event = TRIGGER_TYPE_INSERT;
			break;
		case CMD_UPDATE:
			event = TRIGGER_TYPE_UPDATE;
			break;
		case CMD_DELETE:
			event = TRIGGER_TYPE_DELETE;
			break;
		default:
			return false;
	}
	for (i = 0; td != NULL && i < td->numtriggers; i++)
	{
		Trigger    *t = &td->triggers[i];

		if ((t->tgtype & event) == 0 || !ApiTriggerFires(t))
			continue;			/* not for this event, or not now */
		if (GsiDirectTrigger(t))
			*upkeep |= API_UPKEEP_INDEXES;
		else if (ItemStreamDirectCaptureTrigger(t))
			*upkeep |= API_UPKEEP_STREAM;
		else if (ApiVectorDirectTrigger(t))
			*upkeep |= API_UPKEEP_VECTORS;
		else if (ItemPitrDirectTrigger(t))
			*upkeep |= API_UPKEEP_PITR;
		else if (cmd == CMD_DELETE || strcmp(t->tgname, ITEM_GUARD_TRIGGER) != 0 ||
				 !is_guard_function(t->tgfoid))
			return false;
	}
	if ((*upkeep & API_UPKEEP_INDEXES) != 0)
	{
		ItemTableDef *def = TableDefByRelid(RelationGetRelid(rel));

		/* a store without direct paths keeps its indexes by statement */
		if (def == NULL || !def->store->direct)
			return false;
	}
	return true;
}

/*
 * ApiDirectUpkeep
 *		After a direct write of one row of rel, what the AFTER ROW triggers
 *		that ApiDirectTriggers accepted would have done, in their firing
 *		(name) order: the history of point-in-time recovery
 *		(item_pitr_history), the index changes (item_table_indexes, as the
 *		index owner), the stream records (item_table_stream), the vector
 *		index rows (item_table_vector_index, as the catalog owner).  has_old is
 *		false for an inserted row, has_new false for a deleted one; an item
 *		of a row past the guards may be NULL (raises XX001 as the trigger
 *		does).  SPI connected.
 */
void
ApiDirectUpkeep(Relation rel, int upkeep, Datum key,
				Datum olditem, bool oldnull, bool has_old,
				Datum newitem, bool has_new)
{
	if (upkeep & API_UPKEEP_PITR)
		ItemPitrCaptureDirect(rel, has_old ? key : (Datum) 0,
							  has_old && !oldnull ? olditem : (Datum) 0,
							  has_new ? key : (Datum) 0);
	if (upkeep & API_UPKEEP_INDEXES)
		GsiSyncDirect(rel, has_old ? key : (Datum) 0, olditem, oldnull,
					  has_new ? key : (Datum) 0, newitem, !has_new);
	if (upkeep & API_UPKEEP_STREAM)
		ItemStreamCaptureDirect(rel, has_old ? key : (Datum) 0,
								has_old && !oldnull ? olditem : (Datum) 0,
								has_new ? key : (Datum) 0,
								has_new ? newitem : (Datum) 0);
	if (upkeep & API_UPKEEP_VECTORS)
		ApiVectorSync(RelationGetRelid(rel), key, has_old && !oldnull ? olditem : (Datum) 0, has_old,
					  key, newitem, has_new);
}
