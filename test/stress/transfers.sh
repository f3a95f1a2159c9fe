#!/usr/bin/env bash
# Soak: 20,000 random transfers between 100 accounts from 4 concurrent
# clients, each a TransactWriteItems of a conditional debit and a credit.
# Transfers that would overdraw are cancelled (TransactionCanceledException);
# no other error may happen, and at the end the total balance is exactly
# what it was, no account is negative, and every account still exists.
set -euo pipefail
DB=item_table_stress_transfers
"$PGBIN/dropdb" --if-exists "$DB"
"$PGBIN/createdb" "$DB"
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }

psql <<'SQL'
CREATE EXTENSION item_table;
SELECT item_table.create_table('{"TableName": "accounts", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}') IS NOT NULL AS created;
INSERT INTO item_data.accounts
SELECT item_table.item_key(jsonb_build_object('S', 'ACCT#' || g)),
	   jsonb_build_object('pk', jsonb_build_object('S', 'ACCT#' || g), 'balance', '{"N": "1000"}'::jsonb)
FROM generate_series(1, 100) g;
CREATE TABLE outcomes (ok boolean NOT NULL);
CREATE FUNCTION transfer(a int, b int, amount int) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	PERFORM item_table.transact_write_items(jsonb_build_object('TransactItems', jsonb_build_array(
		jsonb_build_object('Update', jsonb_build_object('TableName', 'accounts',
			'Key', jsonb_build_object('pk', jsonb_build_object('S', 'ACCT#' || a)),
			'UpdateExpression', 'SET balance = balance - :amt',
			'ConditionExpression', 'balance >= :amt',
			'ExpressionAttributeValues', jsonb_build_object(':amt', jsonb_build_object('N', amount::text)))),
		jsonb_build_object('Update', jsonb_build_object('TableName', 'accounts',
			'Key', jsonb_build_object('pk', jsonb_build_object('S', 'ACCT#' || b)),
			'UpdateExpression', 'SET balance = balance + :amt',
			'ExpressionAttributeValues', jsonb_build_object(':amt', jsonb_build_object('N', amount::text)))))));
	INSERT INTO outcomes VALUES (true);
	RETURN true;
EXCEPTION WHEN SQLSTATE 'XD007' THEN
	INSERT INTO outcomes VALUES (false);
	RETURN false;
END $$;
SQL

cat > "${TMPDIR:-/tmp}/transfer_$$.sql" <<'PGB'
\set a random(1, 100)
\set d random(1, 99)
\set amount random(1, 400)
SELECT transfer(:a, 1 + ((:a - 1 + :d) % 100), :amount);
PGB
start=$(date +%s.%N)
"$PGBIN/pgbench" -n -c 4 -j 2 -t 5000 -f "${TMPDIR:-/tmp}/transfer_$$.sql" "$DB" > "${TMPDIR:-/tmp}/transfer_$$.log" 2>&1 || {
	cat "${TMPDIR:-/tmp}/transfer_$$.log"; rm -f "${TMPDIR:-/tmp}/transfer_$$."*; exit 1; }
end=$(date +%s.%N)
grep -E "^(number of (transactions actually processed|failed transactions)|tps)" "${TMPDIR:-/tmp}/transfer_$$.log" || true
rm -f "${TMPDIR:-/tmp}/transfer_$$."*

result=$(psql -At <<'SQL'
SELECT (SELECT count(*) FROM outcomes) || ' ' ||
	   (SELECT count(*) FROM outcomes WHERE ok) || ' ' ||
	   (SELECT sum((item->'balance'->>'N')::numeric) FROM item_data.accounts) || ' ' ||
	   (SELECT count(*) FROM item_data.accounts) || ' ' ||
	   (SELECT count(*) FROM item_data.accounts WHERE (item->'balance'->>'N')::numeric < 0);
SQL
)
read -r total applied sum accounts negative <<<"$result"
echo "transfers: $total attempted, $applied applied, $((total - applied)) cancelled (insufficient funds)"
echo "in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s; total balance $sum (expected 100000), accounts $accounts, negative $negative"
"$PGBIN/dropdb" "$DB"
[ "$total" -eq 20000 ] && [ "$sum" = "100000" ] && [ "$accounts" -eq 100 ] && [ "$negative" -eq 0 ] && [ "$applied" -gt 0 ]
