#!/usr/bin/env bash
# Streams benchmark (not a test: it prints numbers).
#
#   bash bench/streams.sh        # STREAM_BENCH_RECORDS=100000, STREAM_BENCH_SECONDS=20
#
# Starts a throw-away cluster with shared_preload_libraries = 'item_table'
# (scripts/lib.sh) and measures, in one run:
#   0. PutItem's CPU cost on a table with a NEW_AND_OLD_IMAGES stream and on
#      the same table without (backend CPU time, alternating rounds; goal
#      <= 1.15x); bench/run.sh stream_put measures the same in tps.
#   1. GetRecords throughput to one reader: STREAM_BENCH_RECORDS records
#      (INSERTs of ~200-byte items, NEW_AND_OLD_IMAGES) read from
#      TRIM_HORIZON with Limit 1000, following NextShardIterator, in one
#      session (goal >= 50,000 records/s); the same through stream_records().
#   2. A consumer keeping a per-partition total while 4 pgbench clients
#      PutItem for STREAM_BENCH_SECONDS: its lag (records written and not
#      yet applied) sampled every second, and the time it needs to catch up
#      once the writers stop (goal: bounded lag).
# PutItem with a stream against the same table without one is the
# bench/run.sh workload stream_put.
set -uo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"

RECORDS=${STREAM_BENCH_RECORDS:-100000}
SECS=${STREAM_BENCH_SECONDS:-20}

it_need_root || it_die "root or sudo is required"
it_pg_env || it_die "PostgreSQL tools not found"
it_build_install || it_die "build failed"
it_start_cluster || it_die "could not start a PostgreSQL cluster"
"$PGBIN/psql" -X -q -c "ALTER SYSTEM SET item_table.worker_naptime = 1" -c "SELECT pg_reload_conf()" >/dev/null
"$PGBIN/createdb" bench || it_die "createdb"
export PGDATABASE=bench
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
q() { "$PGBIN/psql" -X -q -At -c "$1"; }
TMP=$(mktemp -d /tmp/item_table_streambench.XXXXXX)
chmod 755 "$TMP"
trap 'rm -rf "$TMP"; it_cleanup' EXIT

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
psql -v n="$RECORDS" <<'SQL' >/dev/null || it_die "setup"
CREATE EXTENSION item_table;
SELECT item_table.create_table('{"TableName": "feed", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}');
INSERT INTO item_data.feed (key, item)
SELECT item_table.item_key(jsonb_build_object('S', 'USER#' || g)),
	jsonb_build_object('pk', jsonb_build_object('S', 'USER#' || g),
		'name', jsonb_build_object('S', 'user number ' || g),
		'email', jsonb_build_object('S', 'user' || g || '@example.com'),
		'score', jsonb_build_object('N', (g % 1000)::text),
		'address', jsonb_build_object('M', jsonb_build_object('street', jsonb_build_object('S', g || ' Main Street'),
			'city', jsonb_build_object('S', 'Springfield'))))
FROM generate_series(1, :n) g;
SQL

# 0. PutItem's CPU cost with a NEW_AND_OLD_IMAGES stream and without, in
# one session (backend CPU seconds from /proc, so that other load on the
# machine does not count), 5 rounds of PUTS PutItems on each table,
# alternating; each round in one transaction (the commit is the same for
# both and is left out)
psql -At -v puts="${STREAM_BENCH_PUTS:-20000}" <<'SQL' || it_die "put cost"
CREATE FUNCTION pg_temp.cpu_seconds() RETURNS float8 LANGUAGE sql AS $$
	SELECT (f[12]::float8 + f[13]::float8) / 100
	FROM (SELECT string_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' ') AS f) x $$;
SELECT item_table.create_table(('{"TableName": "' || t || '", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]' ||
	CASE WHEN t = 'with_stream' THEN ', "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}' ELSE '' END
	|| '}')::jsonb) IS NULL
FROM unnest(ARRAY['with_stream', 'no_stream']) t;
CREATE TABLE pg_temp.put_cost (round int, t text, cpu float8);
CREATE PROCEDURE pg_temp.puts(t text, n int, r int) LANGUAGE plpgsql AS $$
DECLARE
	c0 float8 := pg_temp.cpu_seconds();
BEGIN
	FOR i IN 1..n LOOP
		PERFORM item_table.put_item(jsonb_build_object('TableName', t, 'Item', jsonb_build_object(
			'pk', jsonb_build_object('S', 'USER#' || (i % 5000)),
			'name', jsonb_build_object('S', 'user number ' || i),
			'email', jsonb_build_object('S', 'user' || i || '@example.com'),
			'n', jsonb_build_object('N', (r * n + i)::text),
			'address', jsonb_build_object('M', jsonb_build_object('street', jsonb_build_object('S', i || ' Main Street'),
				'city', jsonb_build_object('S', 'Springfield'))))));
	END LOOP;
	INSERT INTO pg_temp.put_cost VALUES (r, t, pg_temp.cpu_seconds() - c0);
END $$;
CALL pg_temp.puts('no_stream', :puts, 0);
CALL pg_temp.puts('with_stream', :puts, 0);
CALL pg_temp.puts('no_stream', :puts, 1);
CALL pg_temp.puts('with_stream', :puts, 1);
CALL pg_temp.puts('no_stream', :puts, 2);
CALL pg_temp.puts('with_stream', :puts, 2);
CALL pg_temp.puts('with_stream', :puts, 3);
CALL pg_temp.puts('no_stream', :puts, 3);
CALL pg_temp.puts('with_stream', :puts, 4);
CALL pg_temp.puts('no_stream', :puts, 4);
SELECT format('PutItem CPU per call: with a NEW_AND_OLD_IMAGES stream %s us, without %s us (medians of 5 rounds of %s); ratio %s; per round: %s',
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu) FILTER (WHERE t = 'with_stream') * 1e6 / :puts)::numeric, 1),
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu) FILTER (WHERE t = 'no_stream') * 1e6 / :puts)::numeric, 1),
	:puts,
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu) FILTER (WHERE t = 'with_stream') /
		percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu) FILTER (WHERE t = 'no_stream'))::numeric, 3),
	string_agg(round(cpu::numeric, 2)::text, ' / ' ORDER BY round, t))
FROM pg_temp.put_cost;
SQL

# 1. one reader, GetRecords pages of 1000 from TRIM_HORIZON
psql -At <<'SQL' >"$TMP/read.out" || it_die "reader"
-- the backend's own CPU time (user + system) from /proc: on a shared,
-- loaded machine, records per CPU second say more than per wall second
CREATE FUNCTION pg_temp.cpu_seconds() RETURNS float8 LANGUAGE sql AS $$
	SELECT (f[12]::float8 + f[13]::float8) / 100
	FROM (SELECT string_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' ') AS f) x $$;
CREATE FUNCTION pg_temp.read_all() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	arn text := item_table.describe_table('{"TableName": "feed"}')->'Table'->>'LatestStreamArn';
	shard text := item_table.describe_stream(jsonb_build_object('StreamArn', arn))->'StreamDescription'->'Shards'->0->>'ShardId';
	it text := item_table.get_shard_iterator(jsonb_build_object('StreamArn', arn, 'ShardId', shard,
		'ShardIteratorType', 'TRIM_HORIZON'))->>'ShardIterator';
	page jsonb;
	got int;
	n bigint := 0;
	t0 timestamptz := clock_timestamp();
	cpu0 float8 := pg_temp.cpu_seconds();
	secs float8;
	cpu float8;
BEGIN
	LOOP
		page := item_table.get_records(jsonb_build_object('ShardIterator', it, 'Limit', 1000));
		got := jsonb_array_length(page->'Records');
		EXIT WHEN got = 0;
		n := n + got;
		it := page->>'NextShardIterator';
	END LOOP;
	secs := extract(epoch FROM clock_timestamp() - t0);
	cpu := pg_temp.cpu_seconds() - cpu0;
	RETURN format('GetRecords: %s records in %s s = %s records/s (backend CPU %s s = %s records per CPU second)',
		n, round(secs::numeric, 2), round(n / secs), round(cpu::numeric, 2), round(n / greatest(cpu, 0.01)));
END $$;
SELECT pg_temp.read_all();
CREATE FUNCTION pg_temp.read_sql() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	pos bigint := NULL;
	got bigint;
	n bigint := 0;
	t0 timestamptz := clock_timestamp();
	secs float8;
BEGIN
	LOOP
		SELECT count(*), max(sequence_number) INTO got, pos
		FROM item_table.stream_records('feed', pos, 1000);
		EXIT WHEN got = 0;
		n := n + got;
	END LOOP;
	secs := extract(epoch FROM clock_timestamp() - t0);
	RETURN format('stream_records(): %s records in %s s = %s records/s', n, round(secs::numeric, 2), round(n / secs));
END $$;
SELECT pg_temp.read_sql();
SQL
cat "$TMP/read.out"

# 2. a consumer keeping per-partition totals while 4 clients write
psql <<'SQL' >/dev/null || it_die "consumer setup"
SELECT item_table.create_table('{"TableName": "plays", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}');
CREATE ROLE bench_app;
GRANT SELECT ON item_data.plays TO bench_app;
CREATE TABLE public.totals (pk text PRIMARY KEY, n bigint NOT NULL);
GRANT SELECT, INSERT, UPDATE ON public.totals TO bench_app;
CREATE FUNCTION public.add_plays(records jsonb) RETURNS void LANGUAGE sql AS $$
	INSERT INTO public.totals AS t (pk, n)
	SELECT r OPERATOR(pg_catalog.->) 'dynamodb' OPERATOR(pg_catalog.->) 'Keys' OPERATOR(pg_catalog.->) 'pk' OPERATOR(pg_catalog.->>) 'S',
		pg_catalog.count(*)
	FROM pg_catalog.jsonb_array_elements(records) r
	WHERE r OPERATOR(pg_catalog.->>) 'eventName' OPERATOR(pg_catalog.=) 'INSERT'
	GROUP BY 1
	ON CONFLICT (pk) DO UPDATE SET n = t.n OPERATOR(pg_catalog.+) excluded.n $$;
SET ROLE bench_app;
SELECT item_table.add_stream_consumer('plays', 'public.add_plays(jsonb)', 'plays', batch_size => 1000);
RESET ROLE;
SQL
cat >"$TMP/put.sql" <<'SQL'
\set p random(1, 100)
SELECT item_table.put_item(('{"TableName": "plays", "Item": {"pk": {"S": "P' || :p || '"}, "sk": {"N": "' || :client_id || nextval('public.playseq') || '"}, "at": {"S": "2026-01-01"}}}')::jsonb);
SQL
psql -c "CREATE SEQUENCE public.playseq" >/dev/null
chmod 644 "$TMP/put.sql"
lagq="SELECT (SELECT count(*) FROM item_table.stream_records r WHERE r.stream_id = c.stream_id AND r.seq > c.last_sequence_number) FROM item_table.stream_consumers c WHERE c.consumer_name = 'plays'"
"$PGBIN/pgbench" -n -c 4 -j 2 -T "$SECS" -f "$TMP/put.sql" >"$TMP/pgbench.out" 2>&1 &
pb=$!
: >"$TMP/lag"
while kill -0 "$pb" 2>/dev/null; do
	sleep 1
	q "$lagq" >>"$TMP/lag"
done
wait "$pb"
t0=$(date +%s.%N)
for i in $(seq 1 600); do
	[ "$(q "$lagq")" = 0 ] && break
	sleep 0.1
done
catchup=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
grep -E "^tps|number of transactions actually" "$TMP/pgbench.out"
awk '{ s += $1; if ($1 > m) m = $1; n++ } END { printf "consumer lag while writing (records, sampled each second): mean %.0f, max %d, over %d samples\n", s / n, m, n }' "$TMP/lag"
echo "consumer caught up ${catchup} s after the writers stopped"
echo "totals agree with the items: $(q "SELECT (SELECT sum(n) FROM public.totals) = (SELECT count(*) FROM item_data.plays)")"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
