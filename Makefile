# item_table: PGXS build
EXTENSION = item_table
MODULE_big = item_table
OBJS = \
	src/module.o \
	src/dnumber.o \
	src/key_codec.o \
	src/key_io.o \
	src/key_ops.o \
	src/key_support.o \
	src/key_gist.o \
	src/errors.o \
	src/catalog.o \
	src/jsonb_binary.o \
	src/table_def.o \
	src/attr_value.o \
	src/stored_item.o \
	src/direct_check.o \
	src/api_common.o \
	src/direct_insert.o \
	src/api_table.o \
	src/api_control.o \
	src/expr_lexer.o \
	src/expr_parser.o \
	src/expr_common.o \
	src/expr_explain.o \
	src/expr_eval.o \
	src/expr_update.o \
	src/legacy.o \
	src/api_item.o \
	src/api_batch.o \
	src/api_index.o \
	src/distributed.o \
	src/gsi.o \
	src/index_build.o \
	src/query_range.o \
	src/query_target.o \
	src/query_start_key.o \
	src/query_page.o \
	src/api_query.o \
	src/item_collection.o \
	src/item_guard.o \
	src/partiql_parser.o \
	src/partiql_compile.o \
	src/api_partiql.o \
	src/worker.o \
	src/worker_start.o \
	src/ttl.o \
	src/stream_number.o \
	src/stream.o \
	src/api_stream.o \
	src/stream_consumer.o \
	src/gateway_call.o \
	src/role_guard.o

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
	src/sql/partiql.sql \
	src/sql/distributed.sql \
	src/sql/background.sql \
	src/sql/stream.sql \
	src/sql/role_guard.sql

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
	src/sql/partiql.sql \
	src/sql/distributed.sql \
	src/sql/background.sql \
	src/sql/stream.sql \
	src/sql/role_guard.sql
DATA_built = item_table--$(EXTVERSION).sql item_table--1.1--1.2.sql
DATA = src/sql/released/item_table--1.0.sql \
	src/sql/released/item_table--1.1.sql \
	src/sql/updates/item_table--1.0--1.1.sql

REGRESS = init key_io key_order key_btree begins_with key_gist key_hash key_errors attr_value expr_parse expr_eval api_table api_control api_item api_invalid api_batch gsi api_query query_pagination scan_segments query_index time_to_live example_trading_register example_users_orders_groups example_letters_toys example_movies_actors example_bike_races streams partiql_select partiql_write partiql_batch messages item_collection_metrics legacy_expected legacy_attribute_updates legacy_query_scan legacy_projection legacy_twin
REGRESS_OPTS = --inputdir=.
ISOLATION = put_race insert_race counter optimistic_lock transfer_race tx_vs_put token_in_progress gsi_races gsi_ddl_races ttl_race stream_order index_direct_backfill delete_race update_race stream_horizon
ISOLATION_OPTS = --inputdir=test/isolation

PG_CPPFLAGS = -Isrc
# -Wextra, less the two checks that PostgreSQL's own headers (inline
# functions in ilist.h, bufpage.h) and the fmgr calling convention trip
PG_CFLAGS = -Wextra -Wno-unused-parameter -Wno-missing-field-initializers

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

item_table--$(EXTVERSION).sql: $(SQL_PARTS)
	cat $(SQL_PARTS) > $@

item_table--1.1--1.2.sql: src/sql/updates/item_table--1.1--1.2.head.sql $(UPDATE_1_2_NEW)
	cat $^ > $@

EXTRA_CLEAN = item_table--$(EXTVERSION).sql item_table--1.1--1.2.sql results regression.diffs regression.out \
	test/isolation/results test/isolation/output_iso

# every object depends on the project's headers (PGXS tracks none)
$(OBJS): $(wildcard src/*.h)

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
