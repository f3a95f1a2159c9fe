/*-------------------------------------------------------------------------
 *
 * item_store.c
 *		The local store's registration.
 *
 * The storage interface of an item table is item_store.h: a definition
 * carries the store its items go through, chosen when the definition is
 * loaded.  The local store's paths use the API's item layer (api_common.c,
 * a layer above this one), so it is registered here when the module is
 * loaded (module.c) rather than named, and the chooser (distributed.c)
 * asks for it here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "item_store.h"

static const ItemStore *local_store = NULL;

void
ItemStoreSetLocal(const ItemStore *store)
{
	local_store = store;
}

const ItemStore *
ItemStoreLocal(void)
{
	Assert(local_store != NULL);
	return local_store;
}
