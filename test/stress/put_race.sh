#!/usr/bin/env bash
# Four clients race to create the same 500 items with
# attribute_not_exists(pk) guarded PutItems.  Each success is recorded in an
# ordinary table in the same transaction.  Exactly one put per key must
# succeed, and the recorded winner must be the item's owner.
set -euo pipefail
DB=item_table_stress_put_race
"$PGBIN/dropdb" --if-exists "$DB"
"$PGBIN/createdb" "$DB"
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
psql <<'SQL'
CREATE EXTENSION item_table;
SELECT item_table.create_table('{"TableName": "claims", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
CREATE TABLE winners (k int NOT NULL, client int NOT NULL);
CREATE FUNCTION claim(k int, client int) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	PERFORM item_table.put_item(jsonb_build_object('TableName', 'claims',
		'Item', jsonb_build_object('pk', jsonb_build_object('S', 'K#' || k),
			'client', jsonb_build_object('N', client::text)),
		'ConditionExpression', 'attribute_not_exists(pk)'));
	INSERT INTO winners VALUES (k, client);
	RETURN true;
EXCEPTION WHEN SQLSTATE 'XD006' THEN
	RETURN false;
END $$;
SQL
cat > "${TMPDIR:-/tmp}/claim_$$.sql" <<'PGB'
\set k random(1, 500)
SELECT claim(:k, :client_id);
PGB
"$PGBIN/pgbench" -n -c 4 -j 2 -t 2000 -f "${TMPDIR:-/tmp}/claim_$$.sql" "$DB" > "${TMPDIR:-/tmp}/claim_$$.log" 2>&1 || {
	cat "${TMPDIR:-/tmp}/claim_$$.log"; rm -f "${TMPDIR:-/tmp}/claim_$$."*; exit 1; }
rm -f "${TMPDIR:-/tmp}/claim_$$."*
result=$(psql -At <<'SQL'
SELECT (SELECT count(*) FROM item_data.claims) || ' ' ||
	   (SELECT count(*) FROM winners) || ' ' ||
	   (SELECT count(DISTINCT k) FROM winners) || ' ' ||
	   (SELECT count(*) FROM winners w JOIN item_data.claims c
			ON c.key OPERATOR(item_table.=) item_table.item_key(jsonb_build_object('S', 'K#' || w.k))
		   WHERE (c.item->'client'->>'N')::int = w.client);
SQL
)
read -r items wins distinct matching <<<"$result"
echo "items $items, successful puts $wins, distinct keys won $distinct, winners matching the stored item $matching"
"$PGBIN/dropdb" "$DB"
[ "$items" -eq "$wins" ] && [ "$wins" -eq "$distinct" ] && [ "$matching" -eq "$wins" ]
