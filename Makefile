# item_table: PGXS build
EXTENSION = item_table
MODULE_big = item_table
OBJS = \
	src/types/dnumber.o \
	src/types/key_codec.o \
	src/types/key_io.o \
	src/types/key_ops.o \
	src/types/key_support.o \
	src/types/key_gist.o \
	src/types/errors.o \
	src/types/jsonb_binary.o \
	src/types/attr_value.o \
	src/types/attr_size.o \
	src/types/nul_escape.o \
	src/expr/expr_lexer.o \
	src/expr/expr_parser.o \
	src/expr/expr_build.o \
	src/expr/expr_common.o \
	src/expr/expr_explain.o \
	src/expr/expr_eval.o \
	src/expr/expr_update.o \
	src/catalog/catalog.o \
	src/catalog/table_def.o \
	src/catalog/worker_start.o \
	src/catalog/role_guard.o \
	src/catalog/bucket.o \
	src/storage/stored_item.o \
	src/storage/item_guard.o \
	src/storage/direct_check.o \
	src/storage/gsi.o \
	src/storage/index_build.o \
	src/storage/item_store.o \
	src/storage/stream_number.o \
	src/distributed/distributed.o \
	src/api/api_request.o \
	src/api/api_response.o \
	src/api/api_common.o \
	src/api/direct_insert.o \
	src/api/direct_upkeep.o \
	src/api/api_table.o \
	src/api/api_control.o \
	src/api/legacy.o \
	src/api/api_item.o \
	src/api/api_batch.o \
	src/api/api_index.o \
	src/api/ttl.o \
	src/api/api_vector.o \
	src/api/api_vector_search.o \
	src/api/api_vector_upkeep.o \
	src/api/backup.o \
	src/api/export_import.o \
	src/api/ion.o \
	src/api/ion_write.o \
	src/api/export_jobs.o \
	src/query/query_range.o \
	src/query/query_target.o \
	src/query/query_start_key.o \
	src/query/query_page.o \
	src/query/api_query.o \
	src/query/item_collection.o \
	src/partiql/partiql_parser.o \
	src/partiql/partiql_compile.o \
	src/partiql/api_partiql.o \
	src/stream/stream.o \
	src/stream/stream_read.o \
	src/api/api_stream.o \
	src/api/stream_consumer.o \
	src/background/worker.o \
	src/entry/dispatch.o \
	src/entry/gateway_call.o \
	src/module.o

PGFILEDESC = "item_table - DynamoDB single-table data access for PostgreSQL"

# The install script is assembled from per-subsystem fragments so that each
# subsystem keeps its SQL next to its C code; the order here is load order.
SQL_PARTS = \
	src/sql/header.sql \
	src/sql/key.sql \
	src/sql/key_gist.sql \
	src/sql/attr.sql \
	src/sql/expr.sql \
	src/sql/expr_eval.sql \
	src/sql/api.sql \
	src/sql/api_control.sql \
	src/sql/item_guard.sql \
	src/sql/api_item.sql \
	src/sql/api_batch.sql \
	src/sql/gsi.sql \
	src/sql/api_query.sql \
	src/sql/gateway.sql \
	src/sql/nul.sql \
	src/sql/partiql.sql \
	src/distributed/distributed.sql \
	src/sql/background.sql \
	src/sql/stream.sql \
	src/sql/role_guard.sql \
	src/sql/vector.sql \
	src/sql/bucket.sql \
	src/sql/backup.sql \
	src/sql/export.sql \
	src/sql/ion.sql \
	src/sql/stats.sql

# Versions: src/sql/released/ keeps each released script as it was
# released; the current version's script is built from src/sql/ (SQL_PARTS),
# and each update script takes an installed version to the next.  Until 1.2
# is released, its update script is built too: the changes to 1.1's objects
# (src/sql/updates/item_table--1.1--1.2.head.sql), then the fragments whose
# objects are all new in 1.2, in load order.  At release it is frozen in
# src/sql/updates/ like the one before it.
EXTVERSION = 1.2
UPDATE_1_2_NEW = \
	src/sql/api_control.sql \
	src/sql/gateway.sql \
	src/sql/nul.sql \
	src/sql/partiql.sql \
	src/distributed/distributed.sql \
	src/sql/background.sql \
	src/sql/stream.sql \
	src/sql/role_guard.sql \
	src/sql/vector.sql \
	src/sql/bucket.sql \
	src/sql/backup.sql \
	src/sql/export.sql \
	src/sql/ion.sql \
	src/sql/stats.sql
DATA_built = item_table--$(EXTVERSION).sql item_table--1.1--1.2.sql
DATA = src/sql/released/item_table--1.0.sql \
	src/sql/released/item_table--1.1.sql \
	src/sql/updates/item_table--1.0--1.1.sql

REGRESS = init key_io key_order key_btree begins_with key_gist key_hash key_errors attr_value expr_parse expr_eval api_table api_control api_item api_invalid api_batch gsi api_query query_pagination scan_segments query_index time_to_live example_trading_register example_trading_register_typed example_users_orders_groups example_letters_toys example_movies_actors example_bike_races streams partiql_select partiql_write partiql_batch messages item_collection_metrics legacy_expected legacy_attribute_updates legacy_query_scan legacy_projection legacy_twin divergences backups export_import
REGRESS_OPTS = --inputdir=.
ISOLATION = put_race insert_race counter optimistic_lock transfer_race tx_vs_put token_in_progress gsi_races gsi_ddl_races ttl_race stream_order index_direct_backfill delete_race update_race stream_horizon
ISOLATION_OPTS = --inputdir=test/isolation

# src/ is one folder per layer of the module map (src/README.md); each
# folder is on the include path, so a file includes its headers by name
SRC_DIRS = types expr catalog storage distributed stream api query partiql entry background
PG_CPPFLAGS = $(addprefix -Isrc/,$(SRC_DIRS))
# -Wextra, less the two checks that PostgreSQL's own headers (inline
# functions in ilist.h, bufpage.h) and the fmgr calling convention trip
# zlib (gzip) and libzstd: export and import files (export_import.c)
SHLIB_LINK = -lz -lzstd
PG_CFLAGS = -Wextra -Wno-unused-parameter -Wno-missing-field-initializers

# before PGXS: its clean rule tests EXTRA_CLEAN when the file is read
EXTRA_CLEAN = item_table--$(EXTVERSION).sql item_table--1.1--1.2.sql results regression.diffs regression.out \
	test/isolation/results test/isolation/output_iso

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

item_table--$(EXTVERSION).sql: $(SQL_PARTS)
	cat $(SQL_PARTS) > $@

item_table--1.1--1.2.sql: src/sql/updates/item_table--1.1--1.2.head.sql $(UPDATE_1_2_NEW)
	cat $^ > $@

# every object depends on the project's headers (PGXS tracks none)
$(OBJS): $(wildcard $(addsuffix /*.h,$(addprefix src/,$(SRC_DIRS))))

# The HTTP gateway (gateway/) is a client program, built by its own PGXS
# Makefile: PGXS allows one of MODULE_big, MODULES and PROGRAM per Makefile.
# WITH_GATEWAY=no leaves it out (the Debian packages build the extension
# once per PostgreSQL major and the gateway once).
WITH_GATEWAY ?= yes
ifeq ($(WITH_GATEWAY),yes)
all: gateway-all
install: gateway-install
clean: gateway-clean
installdirs: gateway-installdirs
uninstall: gateway-uninstall
endif
gateway-all gateway-install gateway-clean gateway-installdirs gateway-uninstall:
	$(MAKE) -C gateway PG_CONFIG=$(PG_CONFIG) $(patsubst gateway-%,%,$@)
.PHONY: gateway-all gateway-install gateway-clean gateway-installdirs gateway-uninstall
