#!/usr/bin/env bash
# Online index creation: a GSI is added by UpdateTable to a table of
# GSI_ONLINE_ITEMS items (default 100,000; the 1,000,000 run is
# GSI_ONLINE_ITEMS=1000000) while two clients keep writing.  The backfill
# (CALL item_table.backfill_indexes) commits batch by batch and reports its
# progress; the index goes CREATING -> ACTIVE and verify() finds nothing.
set -euo pipefail
DB=item_table_stress_online
ITEMS=${GSI_ONLINE_ITEMS:-100000}
"$PGBIN/dropdb" --if-exists "$DB"
"$PGBIN/createdb" "$DB"
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
psql -v items="$ITEMS" <<'SQL'
CREATE EXTENSION item_table;
SELECT item_table.create_table('{"TableName": "orders", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
INSERT INTO item_data.orders
SELECT item_table.item_key(jsonb_build_object('S', 'CUST#' || (g % 10000)), jsonb_build_object('S', 'ORDER#' || g)),
	   jsonb_build_object('pk', jsonb_build_object('S', 'CUST#' || (g % 10000)), 'sk', jsonb_build_object('S', 'ORDER#' || g),
		   'state', jsonb_build_object('S', (ARRAY['open', 'paid', 'shipped'])[1 + g % 3]),
		   'total', jsonb_build_object('N', (g % 997)::text))
	   || CASE WHEN g % 1000 = 0 THEN jsonb_build_object('state', jsonb_build_object('N', '7')) ELSE '{}' END
FROM generate_series(1, :items) g;
ANALYZE item_data.orders;
CREATE SEQUENCE writes;
CREATE FUNCTION write_some(k int, v int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM nextval('writes');
	IF v % 4 = 0 THEN
		PERFORM item_table.delete_item(jsonb_build_object('TableName', 'orders', 'Key',
			jsonb_build_object('pk', jsonb_build_object('S', 'CUST#' || (k % 10000)), 'sk', jsonb_build_object('S', 'ORDER#' || k))));
	ELSE
		PERFORM item_table.put_item(jsonb_build_object('TableName', 'orders', 'Item',
			jsonb_build_object('pk', jsonb_build_object('S', 'CUST#' || (k % 10000)), 'sk', jsonb_build_object('S', 'ORDER#' || k),
				'state', jsonb_build_object('S', (ARRAY['open', 'paid', 'shipped', 'returned'])[1 + v % 4]),
				'total', jsonb_build_object('N', (v % 997)::text))));
	END IF;
END $$;
SQL
echo "loaded $ITEMS items"
cat > "${TMPDIR:-/tmp}/online_$$.sql" <<PGB
\set k random(1, $((ITEMS + ITEMS / 10)))
\set v random(1, 1000000)
SELECT write_some(:k, :v);
PGB
"$PGBIN/pgbench" -n -c 2 -j 2 -T 600 -f "${TMPDIR:-/tmp}/online_$$.sql" "$DB" > "${TMPDIR:-/tmp}/online_$$.log" 2>&1 &
writers=$!
sleep 1
psql <<'SQL'
SET item_table.index_backfill = manual;	-- the procedure is measured here
SELECT jsonb_pretty(item_table.update_table('{"TableName": "orders",
	"AttributeDefinitions": [{"AttributeName": "state", "AttributeType": "S"}, {"AttributeName": "total", "AttributeType": "N"}],
	"GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_state", "KeySchema": [{"AttributeName": "state", "KeyType": "HASH"}, {"AttributeName": "total", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}}]}')
	->'TableDescription'->'GlobalSecondaryIndexes'->0->'IndexStatus') AS status_after_update_table;
SQL
start=$(date +%s.%N)
psql -c "CALL item_table.backfill_indexes('orders', 5000)" 2>&1 | sed 's/^psql:[^ ]* //'
end=$(date +%s.%N)
echo "backfill took $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s while 2 clients were writing"
psql -At -c "SELECT 'status after backfill: ' || (item_table.describe_table('{\"TableName\": \"orders\"}')->'Table'->'GlobalSecondaryIndexes'->0->>'IndexStatus')"
# background jobs of a script ignore SIGINT: stop the writers with TERM
kill -TERM "$writers" 2>/dev/null || true
wait "$writers" 2>/dev/null || true
psql -At -c "SELECT 'concurrent writes during the test: ' || last_value FROM writes"
if grep -q "aborted\|ERROR" "${TMPDIR:-/tmp}/online_$$.log"; then
	cat "${TMPDIR:-/tmp}/online_$$.log"; rm -f "${TMPDIR:-/tmp}/online_$$."*; exit 1
fi
rm -f "${TMPDIR:-/tmp}/online_$$."*
psql -At -c "SELECT 'items: ' || count(*) FROM item_data.orders"
psql -At -c "SELECT 'index rows: ' || count(*) FROM item_data.\"orders#by_state\""
problems=$(psql -At -c "SELECT count(*) FROM item_table.verify('orders')")
echo "verify: $problems problem(s)"
"$PGBIN/dropdb" "$DB"
[ "$problems" -eq 0 ]
