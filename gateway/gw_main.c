/*-------------------------------------------------------------------------
 *
 * gw_main.c
 *		item_table_gateway's main(): the program is GwMain (main.c), which
 *		item_table_local (local.c) runs too, after starting its PostgreSQL.
 *
 *-------------------------------------------------------------------------
 */
#include "gateway.h"

int
main(int argc, char **argv)
{
	return GwMain(argc, argv);
}
