#!/usr/bin/env bash
# Bulk load: BULK_ITEMS items (default 1000000) into a table with two GSIs
# (the gsi_put shape: by_city ALL, by_email KEYS_ONLY), in items per second:
#
#   api_batch   BatchWriteItem, 25 PutRequests per call, one call per
#               transaction (a DO loop committing after each call)
#   copy_items  COPY item_data.<table> (item) FROM a file of DynamoDB JSON
#               items, one per line: the documented bulk path (docs/api.md,
#               "Bulk loading").  The item guard computes and checks each
#               key, the index triggers write both index tables.
#   copy_plain  the baseline: the same rows COPYed into three plain tables
#               of the same shape -- base (key, item), the ALL index table
#               (ikey, key, item), the KEYS_ONLY index table (ikey, key,
#               item) -- each with its btree primary key: the same bytes and
#               the same three btree insertions per item, without any check.
#   copy_plain1 the rows COPYed into the base table shape alone (no index
#               work: the floor).
#
# Each variant starts from empty tables, BULK_RUNS times (default 1),
# alternating; the report gives items/s and the time ratio to copy_plain.
# Needs root or sudo (throw-away cluster as bench/run.sh).
set -euo pipefail
IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$IT_ROOT"
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"
BULK_ITEMS=${BULK_ITEMS:-1000000}
BULK_RUNS=${BULK_RUNS:-1}
BULK_VARIANTS=${BULK_VARIANTS:-"api_batch copy_items copy_plain copy_plain1"}
it_need_root || it_die "root or sudo is required"
it_pg_env || it_die "PostgreSQL tools not found"
it_build_install || it_die "build failed"
it_start_cluster || it_die "could not start a PostgreSQL cluster"
DB=item_table_bulk
"$PGBIN/createdb" "$DB"
PSQL=("$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DB")
"${PSQL[@]}" -c 'CREATE EXTENSION item_table' >/dev/null
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# the rows, made once (not timed), readable by the server
D="$IT_TMP/bulk"; mkdir -p "$D"; $SUDO chown postgres: "$D" 2>/dev/null || true
"${PSQL[@]}" <<SQL
CREATE TABLE bulk_src AS
SELECT g, jsonb_build_object('pk', jsonb_build_object('S', 'USER#' || g),
	'city', jsonb_build_object('S', 'CITY#' || (g % 1000)),
	'csk', jsonb_build_object('S', 'USER#' || g),
	'email', jsonb_build_object('S', 'user' || g || '@example.com'),
	'name', jsonb_build_object('S', 'user number ' || g),
	'n', jsonb_build_object('N', (g % 1000)::text)) AS item
FROM generate_series(1, $BULK_ITEMS) g;
CREATE INDEX ON bulk_src (g);
COPY (SELECT item FROM bulk_src ORDER BY g) TO '$D/items.json';
COPY (SELECT item_table.item_key(item->'pk'), item FROM bulk_src ORDER BY g) TO '$D/base.tsv';
COPY (SELECT item_table.item_key(item->'city', item->'csk'), item_table.item_key(item->'pk'), item FROM bulk_src ORDER BY g) TO '$D/city.tsv';
COPY (SELECT item_table.item_key(item->'email'), item_table.item_key(item->'pk'), jsonb_build_object('pk', item->'pk', 'email', item->'email') FROM bulk_src ORDER BY g) TO '$D/email.tsv';
SQL

fresh_item_table() {
    "${PSQL[@]}" >/dev/null <<'SQL'
SELECT item_table.delete_table('{"TableName": "bulk"}') FROM item_table.tables WHERE table_name = 'bulk';
SELECT item_table.create_table('{"TableName": "bulk", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
		{"AttributeName": "city", "AttributeType": "S"}, {"AttributeName": "csk", "AttributeType": "S"},
		{"AttributeName": "email", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"GlobalSecondaryIndexes": [
		{"IndexName": "by_city", "KeySchema": [{"AttributeName": "city", "KeyType": "HASH"}, {"AttributeName": "csk", "KeyType": "RANGE"}],
		 "Projection": {"ProjectionType": "ALL"}},
		{"IndexName": "by_email", "KeySchema": [{"AttributeName": "email", "KeyType": "HASH"}],
		 "Projection": {"ProjectionType": "KEYS_ONLY"}}]}');
CHECKPOINT;
SQL
}
fresh_plain() {
    "${PSQL[@]}" >/dev/null <<'SQL'
DROP TABLE IF EXISTS bp_base, bp_city, bp_email;
CREATE TABLE bp_base (key item_table.item_key PRIMARY KEY, item jsonb NOT NULL);
CREATE TABLE bp_city (ikey item_table.item_key, key item_table.item_key, item jsonb NOT NULL, PRIMARY KEY (ikey, key));
CREATE TABLE bp_email (ikey item_table.item_key, key item_table.item_key, item jsonb NOT NULL, PRIMARY KEY (ikey, key));
CHECKPOINT;
SQL
}
now() { date +%s.%N; }

run_variant() {  # prints seconds
    local t
    case "$1" in
        api_batch)
            fresh_item_table; t=$(now)
            "${PSQL[@]}" >/dev/null <<SQL
DO \$\$
DECLARE b int; req jsonb;
BEGIN
	FOR b IN 0 .. ($BULK_ITEMS / 25) - 1 LOOP
		SELECT jsonb_build_object('RequestItems', jsonb_build_object('bulk',
			jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item', item)))))
		INTO req FROM bulk_src WHERE g > b * 25 AND g <= b * 25 + 25;
		PERFORM item_table.batch_write_item(req);
		COMMIT;
	END LOOP;
END \$\$;
SQL
            ;;
        copy_items)
            fresh_item_table; t=$(now)
            "${PSQL[@]}" -c "COPY item_data.bulk (item) FROM '$D/items.json'" >/dev/null ;;
        copy_plain)
            fresh_plain; t=$(now)
            "${PSQL[@]}" -c "BEGIN" -c "COPY bp_base FROM '$D/base.tsv'" -c "COPY bp_city FROM '$D/city.tsv'" \
                -c "COPY bp_email FROM '$D/email.tsv'" -c "COMMIT" >/dev/null ;;
        copy_plain1)
            fresh_plain; t=$(now)
            "${PSQL[@]}" -c "COPY bp_base FROM '$D/base.tsv'" >/dev/null ;;
    esac
    awk -v a="$t" -v b="$(now)" 'BEGIN { printf "%.2f\n", b - a }'
}

declare -A secs=()
for r in $(seq 1 "$BULK_RUNS"); do
    for v in $BULK_VARIANTS; do
        s=$(run_variant "$v")
        secs[$v]="${secs[$v]:-} $s"
        it_say "run $r: $v $s s"
    done
done
# check: the item table holds every item and its indexes agree
"${PSQL[@]}" -A -t -c "SELECT 'items: ' || count(*) FROM item_data.bulk" \
    -c "SELECT 'index rows by_city: ' || count(*) FROM item_data.\"bulk#by_city\"" \
    -c "SELECT 'verify problems: ' || count(*) FROM item_table.verify('bulk')" 2>&1 || true
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo
echo "bulk load of $BULK_ITEMS items, two GSIs; $(date -u '+%Y-%m-%d %H:%M UTC') commit $(git rev-parse --short HEAD 2>/dev/null || echo none)"
echo "load average at start: $load_start; at end: $(cut -d' ' -f1-3 /proc/loadavg); median of $BULK_RUNS run(s)"
# shellcheck disable=SC2086
base=$(median ${secs[copy_plain]:-0})
printf '%-12s | %10s | %12s | %s\n' variant seconds "items/s" "time / copy_plain"
for v in $BULK_VARIANTS; do
    # shellcheck disable=SC2086
    m=$(median ${secs[$v]})
    printf '%-12s | %10s | %12s | %s\n' "$v" "$m" "$(awk -v n="$BULK_ITEMS" -v s="$m" 'BEGIN { printf "%.0f", n / s }')" \
        "$(awk -v a="$m" -v b="$base" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')"
done
it_cleanup
