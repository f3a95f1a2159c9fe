#!/usr/bin/env bash
# Streams under load: 4 writers and 2 readers at once.  Every committed
# change is read exactly once by each reader, a rolled-back one never, and
# the changes of each item come in the order they were made.
#
# Each writer owns 8 keys and runs STREAM_TXNS (default 300) transactions
# of one to three PutItems of its keys, each setting v to the number of the
# write on that key (1, 2, 3, ... per key); it sleeps a random moment before
# COMMIT, so transactions commit in another order than they wrote (and
# took their sequence numbers), and one in ten rolls back.  psql prints
# "A <key> <v>" after each COMMIT returned: that is the writer's log of
# what it committed.  A rolled-back write's v is used again by the next
# write of the key.
#
# Each reader is one session (CALL read_stream, a procedure that commits
# after every read) polling item_table.stream_records() from its position
# and moving the position along what it read; it logs every record (reader,
# sequence number, key, v) and stops once the writers are done and two
# seconds passed without a new record.
#
# Checks, per reader: no sequence number twice; the (key, v) pairs read are
# exactly the writers' committed ones; per key, v comes in increasing
# order; and the two readers read the same sequence.
set -euo pipefail
DB=item_table_stress_streams
TXNS=${STREAM_TXNS:-300}
WRITERS=4
KEYS=8
TMP=$(mktemp -d "${TMPDIR:-/tmp}/item_table_streams.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$PGBIN/dropdb" --if-exists "$DB"
"$PGBIN/createdb" "$DB"
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
psql <<'SQL'
CREATE EXTENSION item_table;
SELECT item_table.create_table('{"TableName": "events", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}') IS NOT NULL AS created;
CREATE TABLE reader_pos (reader text PRIMARY KEY, seq bigint NOT NULL);
CREATE TABLE reader_log (reader text, seq bigint, pk text, v int);
CREATE TABLE control (writers_done boolean NOT NULL);
INSERT INTO control VALUES (false);
INSERT INTO reader_pos SELECT r, s.start_seq FROM unnest(ARRAY['r1', 'r2']) r, item_table.streams s
	WHERE s.table_name = 'events' AND s.end_seq IS NULL;
CREATE PROCEDURE read_stream(r text) LANGUAGE plpgsql AS $$
DECLARE
	last_new timestamptz := clock_timestamp();
	n bigint;
BEGIN
	LOOP
		WITH recs AS (SELECT * FROM item_table.stream_records('events', (SELECT seq FROM reader_pos WHERE reader = r))),
		logged AS (INSERT INTO reader_log SELECT r, sequence_number, keys->'pk'->>'S', (new_image->'v'->>'N')::int FROM recs),
		moved AS (UPDATE reader_pos SET seq = coalesce((SELECT max(sequence_number) FROM recs), seq) WHERE reader = r)
		SELECT count(*) INTO n FROM recs;
		COMMIT;
		IF n > 0 THEN
			last_new := clock_timestamp();
		ELSIF (SELECT writers_done FROM control) AND clock_timestamp() - last_new > interval '2 seconds' THEN
			EXIT;
		ELSE
			PERFORM pg_sleep(0.01);
		END IF;
	END LOOP;
END $$;
SQL

# the writers' scripts: per key, v counts the committed writes
for w in $(seq 1 $WRITERS); do
	awk -v w="$w" -v txns="$TXNS" -v keys="$KEYS" 'BEGIN {
		srand(w * 7919);
		for (k = 0; k < keys; k++) v[k] = 0;
		for (t = 1; t <= txns; t++) {
			n = 1 + int(rand() * 3);
			delete used; m = 0;
			print "BEGIN;";
			for (i = 0; i < n; i++) {
				k = int(rand() * keys);
				if (k in used) continue;
				used[k] = 1; m++; kk[m] = k;
				nv[k] = v[k] + 1;
				printf "SELECT item_table.put_item(jsonb_build_object(%s, %s, %s, jsonb_build_object(%s, jsonb_build_object(%s, %s), %s, jsonb_build_object(%s, %s)))) IS NULL;\n",
					"'\''TableName'\''", "'\''events'\''", "'\''Item'\''", "'\''pk'\''", "'\''S'\''",
					"'\''w" w "k" k "'\''", "'\''v'\''", "'\''N'\''", "'\''" nv[k] "'\''";
			}
			printf "SELECT pg_sleep(%.3f);\n", rand() * 0.01;
			if (rand() < 0.1) {
				print "ROLLBACK;";
			} else {
				print "COMMIT;";
				for (i = 1; i <= m; i++) { k = kk[i]; v[k] = nv[k]; print "\\echo A w" w "k" k " " v[k]; }
			}
		}
	}' > "$TMP/w$w.sql"
done

start=$(date +%s.%N)
for r in r1 r2; do
	psql -c "CALL read_stream('$r')" > "$TMP/$r.out" 2>&1 &
	echo $! > "$TMP/$r.pid"
done
pids=()
for w in $(seq 1 $WRITERS); do
	psql -t -f "$TMP/w$w.sql" > "$TMP/w$w.out" 2>&1 &
	pids+=($!)
done
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
[ "$fail" = 0 ] || { echo "FAILED: a writer failed"; cat "$TMP"/w*.out | grep -v '^ *f* *$' | head; exit 1; }
psql -c "UPDATE control SET writers_done = true"
for r in r1 r2; do wait "$(cat "$TMP/$r.pid")" || { echo "FAILED: reader $r"; cat "$TMP/$r.out"; exit 1; }; done
secs=$(echo "$(date +%s.%N) - $start" | bc)

grep -h '^A ' "$TMP"/w*.out | awk '{print $2 "\t" $3}' > "$TMP/acked.tsv"
psql -c "CREATE TABLE acked (pk text, v int)"
psql -c "\\copy acked FROM '$TMP/acked.tsv'"
psql -At <<'SQL' > "$TMP/check.out"
SELECT 'committed changes: ' || count(*) FROM acked;
SELECT 'records read by ' || reader || ': ' || count(*) FROM reader_log GROUP BY reader ORDER BY reader;
SELECT 'PROBLEM duplicate sequence number ' || reader || ' ' || seq FROM reader_log GROUP BY reader, seq HAVING count(*) > 1;
SELECT 'PROBLEM missing ' || r || ' ' || a.pk || ' v=' || a.v
FROM acked a, unnest(ARRAY['r1', 'r2']) r
WHERE NOT EXISTS (SELECT FROM reader_log l WHERE l.reader = r AND l.pk = a.pk AND l.v = a.v);
SELECT 'PROBLEM not committed or twice ' || reader || ' ' || pk || ' v=' || v
FROM reader_log l GROUP BY reader, pk, v
HAVING count(*) > 1 OR NOT EXISTS (SELECT FROM acked a WHERE a.pk = l.pk AND a.v = l.v);
SELECT 'PROBLEM order ' || reader || ' ' || pk || ' ' || v || ' after ' || prev
FROM (SELECT reader, pk, v, lag(v) OVER (PARTITION BY reader, pk ORDER BY seq) AS prev FROM reader_log) x
WHERE prev IS NOT NULL AND v <= prev;
SELECT 'PROBLEM readers differ at ' || coalesce(a.seq, b.seq)
FROM (SELECT seq, pk, v FROM reader_log WHERE reader = 'r1') a
FULL JOIN (SELECT seq, pk, v FROM reader_log WHERE reader = 'r2') b ON a.seq = b.seq
WHERE a.pk IS DISTINCT FROM b.pk OR a.v IS DISTINCT FROM b.v;
SQL
cat "$TMP/check.out" | grep -v PROBLEM
echo "writers: $WRITERS x $TXNS transactions, $(printf '%.1f' "$secs") s"
if grep -q PROBLEM "$TMP/check.out"; then
	grep PROBLEM "$TMP/check.out" | head -20
	echo "FAILED: $(grep -c PROBLEM "$TMP/check.out") problem(s)"
	exit 1
fi
"$PGBIN/dropdb" "$DB"
echo "ok: every committed change read exactly once by both readers, in order per item"
