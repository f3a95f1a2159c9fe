#!/usr/bin/env bash
# Four clients increment one counter 500 times each with
# UpdateItem SET n = n + :one, truly concurrently: the final value must be
# exactly 2000 (no lost update).
set -euo pipefail
DB=item_table_stress_counter
"$PGBIN/dropdb" --if-exists "$DB"
"$PGBIN/createdb" "$DB"
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
psql <<'SQL'
CREATE EXTENSION item_table;
SELECT item_table.create_table('{"TableName": "counters", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
CREATE FUNCTION bump() RETURNS jsonb LANGUAGE sql AS $$
	SELECT item_table.update_item(jsonb_build_object('TableName', 'counters',
		'Key', jsonb_build_object('pk', jsonb_build_object('S', 'c')),
		'UpdateExpression', 'SET n = if_not_exists(n, :zero) + :one',
		'ExpressionAttributeValues', jsonb_build_object(':zero', jsonb_build_object('N', '0'),
			':one', jsonb_build_object('N', '1'))))
$$;
SQL
echo 'SELECT bump();' > "${TMPDIR:-/tmp}/bump_$$.sql"
"$PGBIN/pgbench" -n -c 4 -j 2 -t 500 -f "${TMPDIR:-/tmp}/bump_$$.sql" "$DB" > "${TMPDIR:-/tmp}/bump_$$.log" 2>&1 || {
	cat "${TMPDIR:-/tmp}/bump_$$.log"; rm -f "${TMPDIR:-/tmp}/bump_$$."*; exit 1; }
grep -E "^(number of transactions actually processed|tps)" "${TMPDIR:-/tmp}/bump_$$.log" || true
rm -f "${TMPDIR:-/tmp}/bump_$$."*
n=$(psql -At -c "SELECT item->'n'->>'N' FROM item_data.counters")
echo "final counter: $n (expected 2000)"
"$PGBIN/dropdb" "$DB"
[ "$n" = "2000" ]
