#!/usr/bin/env bash
# Randomized index workload: 100,000 puts, updates and deletes from 4
# concurrent clients over a table with three GSIs (a sparse one, an inverted
# one, an element index over a string set) and one LSI.  Afterwards
# item_table.verify() must report nothing: every index equals what the
# base items say it should hold.
set -euo pipefail
DB=item_table_stress_gsi
OPS=${GSI_RANDOM_OPS:-25000}
"$PGBIN/dropdb" --if-exists "$DB"
"$PGBIN/createdb" "$DB"
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
psql <<'SQL'
CREATE EXTENSION item_table;
SELECT item_table.create_table('{"TableName": "things", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
		{"AttributeName": "status", "AttributeType": "S"}, {"AttributeName": "n", "AttributeType": "N"},
		{"AttributeName": "tags", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [
		{"IndexName": "sparse_status", "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}},
		{"IndexName": "inverted", "KeySchema": [{"AttributeName": "sk", "KeyType": "HASH"}, {"AttributeName": "pk", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}},
		{"IndexName": "by_tag", "KeySchema": [{"AttributeName": "tags", "KeyType": "HASH"}], "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["n"]}, "ItemTableElementIndex": true}],
	"LocalSecondaryIndexes": [
		{"IndexName": "by_n", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;
CREATE FUNCTION random_op(op int, k int, v int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	key jsonb := jsonb_build_object('pk', jsonb_build_object('S', 'P#' || (k % 50)), 'sk', jsonb_build_object('S', 'S#' || k));
	item jsonb;
BEGIN
	IF op <= 2 THEN
		item := key || jsonb_build_object('n', jsonb_build_object('N', (v % 1000)::text),
			'tags', jsonb_build_object('SS', (SELECT jsonb_agg(DISTINCT 't' || ((v + g * 7) % 13)) FROM generate_series(0, v % 4) g)));
		IF v % 2 = 0 THEN
			item := item || jsonb_build_object('status', jsonb_build_object('S', (ARRAY['new', 'paid', 'sent'])[1 + v % 3]));
		END IF;
		PERFORM item_table.put_item(jsonb_build_object('TableName', 'things', 'Item', item));
	ELSIF op = 3 THEN
		PERFORM item_table.update_item(jsonb_build_object('TableName', 'things', 'Key', key,
			'UpdateExpression', CASE WHEN v % 3 = 0 THEN 'REMOVE #s' ELSE 'SET #s = :s, n = :n' END,
			'ExpressionAttributeNames', jsonb_build_object('#s', 'status'),
			'ExpressionAttributeValues', CASE WHEN v % 3 = 0 THEN NULL ELSE
				jsonb_build_object(':s', jsonb_build_object('S', 'upd' || (v % 5)), ':n', jsonb_build_object('N', (v % 777)::text)) END));
	ELSIF op = 4 THEN
		PERFORM item_table.update_item(jsonb_build_object('TableName', 'things', 'Key', key,
			'UpdateExpression', 'ADD tags :t', 'ExpressionAttributeValues',
			jsonb_build_object(':t', jsonb_build_object('SS', jsonb_build_array('x' || (v % 9))))));
	ELSE
		PERFORM item_table.delete_item(jsonb_build_object('TableName', 'things', 'Key', key));
	END IF;
END $$;
SQL
cat > "${TMPDIR:-/tmp}/gsi_$$.sql" <<'PGB'
\set op random(1, 5)
\set k random(1, 2000)
\set v random(1, 1000000)
SELECT random_op(:op, :k, :v);
PGB
start=$(date +%s.%N)
"$PGBIN/pgbench" -n -c 4 -j 2 -t "$OPS" -f "${TMPDIR:-/tmp}/gsi_$$.sql" "$DB" > "${TMPDIR:-/tmp}/gsi_$$.log" 2>&1 || {
	cat "${TMPDIR:-/tmp}/gsi_$$.log"; rm -f "${TMPDIR:-/tmp}/gsi_$$."*; exit 1; }
end=$(date +%s.%N)
grep -E "^(number of (transactions actually processed|failed transactions)|tps)" "${TMPDIR:-/tmp}/gsi_$$.log" || true
rm -f "${TMPDIR:-/tmp}/gsi_$$."*
echo "$((OPS * 4)) operations in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"
psql -At -c "SELECT 'items: ' || count(*) FROM item_data.things"
for ix in sparse_status inverted by_tag by_n; do
	psql -At -c "SELECT 'index $ix rows: ' || count(*) FROM item_data.\"things#$ix\""
done
problems=$(psql -At -c "SELECT count(*) FROM item_table.verify('things')")
psql -At -c "SELECT index_name, problem, index_key, base_key FROM item_table.verify('things') LIMIT 10"
echo "verify: $problems problem(s)"
"$PGBIN/dropdb" "$DB"
[ "$problems" -eq 0 ]
