/*-------------------------------------------------------------------------
 *
 * module.c
 *		Module magic and initialisation.
 *
 * item_table needs no shared_preload_libraries entry for its SQL API: the
 * library loads on first use.  Loaded by shared_preload_libraries it also
 * registers the launcher of its background workers (worker.c), which then
 * start with the server and come back after a crash, and keeps the
 * counters that number stream records in shared memory (stream_number.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "item_table.h"
#include "api.h"
#include "distributed.h"
#include "role_guard.h"
#include "stream_number.h"
#include "worker.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomBoolVariable("item_table.consistent_index_reads",
							 "Accepts ConsistentRead=true on global secondary indexes.",
							 "Index tables are maintained in the writing transaction, so every "
							 "index read is strongly consistent; DynamoDB rejects the flag, and "
							 "so does item_table unless this is on.",
							 &item_table_consistent_index_reads,
							 false, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("item_table.endpoint_address",
							   "The address DescribeEndpoints reports.",
							   "Clients with endpoint discovery connect to this address; set it "
							   "to the public host and port of the gateway.",
							   &item_table_endpoint_address,
							   "localhost:8000", PGC_USERSET, 0, NULL, NULL, NULL);
	ItemStoreSetLocal(&ApiLocalStore);
	ItemWorkerInit();
	DistInit();
	KeySupportInit();
	StreamNumberInit();
	RoleGuardInit();
	MarkGUCPrefixReserved("item_table");
}
