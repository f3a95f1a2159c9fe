/*-------------------------------------------------------------------------
 *
 * module.c
 *		Module magic and initialisation.
 *
 * item_table needs no shared_preload_libraries entry: nothing here touches
 * shared memory or installs hooks, so the library loads on first use.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"

#include "item_table.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	/* nothing to set up yet */
}
