#!/usr/bin/env bash
# Crash recovery: no acknowledged write is lost, and the indexes stay right.
#
# This script starts its own throw-away cluster (it kills the server, so it
# never touches the shared test cluster), with the durability settings of a
# real installation: fsync, synchronous_commit and full_page_writes on, data
# checksums, small shared_buffers so that pages are written and evicted
# while the clients run.  It creates an item table with two GSIs (one with a
# numeric sort key and projection ALL, one sparse with projection INCLUDE)
# and an LSI (KEYS_ONLY), plus a few thousand filler items so that every
# btree has inner pages.
#
# Four writers each keep one psql session open (fed through a FIFO, its
# output read back line by line) and send it batches; each batch is a
# series of transactions (BEGIN; write; COMMIT; \echo A <n>), so psql
# prints "A <n>" only after the COMMIT of write n returned.  Writes are PutItem, UpdateItem (SET and ADD
# changing GSI and LSI keys, REMOVE of the sparse index key),
# DeleteItem, TransactWriteItems (Put/Update/Delete/ConditionCheck) and plain
# SQL (INSERT, INSERT ... ON CONFLICT, UPDATE, DELETE on the physical table).
# Each writer owns 48 keys and keeps a model of their items; every item
# carries v, the number of the write that produced it.  A write on a key
# whose state the writer knows is conditional on that state (v = :p,
# attribute_not_exists(pk), or the whole item for SQL), so a lost or
# phantom write makes a later write fail, which the writer records as an
# error.  When the session dies in a batch, the write in flight (the first
# one not acknowledged) has an unknown outcome: it goes to the writer's
# "unknown" log with the item it would have produced, its keys become
# uncertain, and the writer's next write on them is an unconditional
# PutItem; the writer then opens a new session, as soon as the server
# accepts it.  Acknowledged writes go to the writer's "acked" log, after
# psql printed their marker.
#
# Meanwhile the script kills, CRASH_ROUNDS times (default 4), after
# CRASH_SECONDS seconds (default 4) of writing and at least one
# acknowledged write: with kill -9 a writer's backend caught inside a write
# (a poll on the server waits until one is active in an item_table call,
# a plain SQL write or its COMMIT; the postmaster then ends every backend
# and recovers), and every fourth round and the last one the postmaster
# itself (kill -9, then the backends it left behind, then pg_ctl start).
# Every wait is for a condition, bounded by a generous deadline, so that a
# loaded machine only makes the test slower.  At the last kill
# the writers stop before the server starts again, so the final state is
# what recovery made of the writes acknowledged before the crash; the
# earlier crashes are checked by the conditional writes that follow them.
#
# At the end it checks that every key holds the item of its last
# acknowledged write, or of a later write of unknown outcome (absent when
# that write was a delete or nothing was acknowledged), and nothing else;
# that no write failed; that the filler items are unchanged; that
# item_table.verify() finds nothing; and that amcheck finds nothing
# (bt_index_parent_check with heapallindexed and rootdescend on every btree
# of the base, index and TOAST tables, verify_heapam on each table).
#
#   CRASH_ROUNDS=40 CRASH_SECONDS=10 bash test/stress/crash_recovery.sh
#
# runs the long form (PGBIN, or PG_CONFIG, names the PostgreSQL binaries;
# the extension must be installed there).  On failure, or with
# CRASH_KEEP_LOGS=1, the writers' logs and the server log are kept in
# log/crash_recovery/.
set -uo pipefail

CR_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$CR_ROOT/scripts/lib.sh"

ROUNDS=${CRASH_ROUNDS:-4}
ROUND_SECS=${CRASH_SECONDS:-4}
WRITERS=4
KEYS=48                 # keys per writer: 6 partitions of 8 items
BATCH=8                 # transactions sent to the session at a time
PQ_WAIT=120             # seconds a writer waits for its session's answer
KILL_WAIT=120           # seconds kill_backend may take to catch a writer
ACK_WAIT=120            # seconds a round may wait for its first acknowledgement
FILLER=3000
T0=$(date +%s.%N)

CR_TMP=""               # client files (logs, batches)
CR_PG=""                # owned by postgres: data directory, socket, server log
CR_PGDATA=""
CR_DONE=0
CR_KEEP=${CRASH_KEEP_LOGS:-0}
WRITER_PIDS=()

die() { echo "FAILED: $*"; exit 1; }

it_need_root || exit 1
if [ -z "${PGBIN:-}" ]; then
	it_pg_env || exit 1
fi

# ---------------------------------------------------------------- cluster

pg_user() { it_as_postgres "$@"; }

# Server processes of our cluster: their working directory is the data
# directory (zombies have none and are skipped).
cluster_pids() {
	# shellcheck disable=SC2016  # expanded by the inner shell
	pg_user bash -c 'for p in /proc/[0-9]*; do
		[ "$p/cwd" -ef "$1" ] && echo "${p#/proc/}"
	done; true' _ "$CR_PGDATA"
}

postmaster_pid() {
	$SUDO head -n 1 "$CR_PGDATA/postmaster.pid" 2>/dev/null
}

# Alive and not a zombie?
pid_alive() {
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	case "$st" in Z*|"") return 1 ;; esac
	return 0
}

server_ready() {
	"$PGBIN/pg_isready" -q -t 2 >/dev/null 2>&1
}

# Wait (at most $1 seconds) until the server accepts connections.
wait_ready() {
	local deadline=$(($(date +%s) + $1))
	while [ "$(date +%s)" -lt "$deadline" ]; do
		server_ready && return 0
		sleep 0.2
	done
	return 1
}

pg_start() {
	pg_user "$PGBIN/pg_ctl" -D "$CR_PGDATA" -l "$CR_PG/server.log" -w -t 120 start \
		>>"$CR_TMP/pg_ctl.log" 2>&1
}

# Kill -9 every process of the cluster still alive, and wait (bounded)
# until they are gone.
kill_leftovers() {
	local pids p i
	for i in $(seq 1 100); do
		pids=$(cluster_pids)
		[ -z "$pids" ] && return 0
		for p in $pids; do
			pg_user kill -KILL "$p" 2>/dev/null || true
		done
		sleep 0.3
	done
	[ -z "$(cluster_pids)" ]
}

# A postmaster.pid (and socket lock file) naming a dead or zombie process
# would stop the next start: remove them once the process is really gone.
drop_stale_lock() {
	local pid
	pid=$(postmaster_pid) || return 0
	[ -n "$pid" ] || return 0
	pid_alive "$pid" && return 1
	$SUDO rm -f "$CR_PGDATA/postmaster.pid" "$CR_PG/.s.PGSQL.$PGPORT.lock"
}

cleanup() {
	local rc=$?
	[ "$CR_DONE" = 1 ] && return
	CR_DONE=1
	trap '' INT TERM HUP
	if [ -n "$CR_TMP" ] && [ -d "$CR_TMP" ]; then
		: >"$CR_TMP/stop"
		local p i
		for i in $(seq 1 50); do
			p=0
			for w in "${WRITER_PIDS[@]}"; do kill -0 "$w" 2>/dev/null && p=1; done
			[ "$p" = 0 ] && break
			sleep 0.1
		done
		for w in "${WRITER_PIDS[@]}"; do kill -TERM "$w" 2>/dev/null || true; done
	fi
	if [ -n "$CR_PGDATA" ] && $SUDO test -d "$CR_PGDATA"; then
		if $SUDO test -f "$CR_PGDATA/postmaster.pid"; then
			pg_user "$PGBIN/pg_ctl" -D "$CR_PGDATA" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
		fi
		kill_leftovers || true
	fi
	if [ "$rc" -ne 0 ] || [ "$CR_KEEP" = 1 ]; then
		local keep="$IT_ROOT/log/crash_recovery"
		if mkdir -p "$keep" 2>/dev/null; then
			rm -f "$keep"/*
			[ -n "$CR_TMP" ] && cp "$CR_TMP"/*.log "$CR_TMP"/*.acked "$CR_TMP"/*.unknown "$CR_TMP"/*.err "$CR_TMP"/*.inflight "$keep"/ 2>/dev/null
			[ -n "$CR_PG" ] && $SUDO cat "$CR_PG/server.log" >"$keep/server.log" 2>/dev/null
			echo "(logs kept in log/crash_recovery/)"
		fi
	fi
	[ -n "$CR_PG" ] && $SUDO rm -rf -- "$CR_PG"
	[ -n "$CR_TMP" ] && rm -rf -- "$CR_TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

CR_TMP=$(mktemp -d /tmp/item_table_crash.XXXXXX) || die "mktemp"
chmod 755 "$CR_TMP"
CR_PG="$CR_TMP/pg"
{ mkdir "$CR_PG" && $SUDO chown postgres: "$CR_PG"; } || die "cannot prepare $CR_PG"
CR_PGDATA=$(realpath "$CR_PG")/data

pg_user "$PGBIN/initdb" -D "$CR_PGDATA" --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
	-U postgres --data-checksums >"$CR_TMP/initdb.log" 2>&1 ||
	{ cat "$CR_TMP/initdb.log"; die "initdb"; }
PORT=$(IT_TMP=$CR_PG it_pick_port) || die "no free port"
pg_user tee -a "$CR_PGDATA/postgresql.conf" >/dev/null <<EOF

# --- crash recovery test: durable settings, small buffers ---
listen_addresses = ''
unix_socket_directories = '$CR_PG'
port = $PORT
fsync = on
synchronous_commit = on
full_page_writes = on
restart_after_crash = on
shared_buffers = 16MB
max_connections = 30
checkpoint_timeout = 30s
max_wal_size = 64MB
autovacuum_naptime = 1s
EOF

unset PGHOSTADDR PGSERVICE PGSERVICEFILE PGPASSWORD PGOPTIONS PGSSLMODE
export PGHOST="$CR_PG" PGPORT="$PORT" PGUSER=postgres PGDATABASE=crash PGCONNECT_TIMEOUT=5
pg_start || { cat "$CR_TMP/pg_ctl.log"; die "could not start the cluster"; }
wait_ready 60 || die "cluster not ready"

# every client call is bounded in time
psql() { timeout -k 5 300 "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
psql -d postgres -c 'CREATE DATABASE crash' || die "createdb"
# kill_backend's poll: the pid of a writer's backend active in a write (an
# item_table call, plain SQL on the item table, or the COMMIT), waiting
# for one at most secs seconds (NULL then)
psql -d postgres >/dev/null <<'SQL' || die "setup of busy_writer()"
CREATE FUNCTION busy_writer(secs float8) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	p int;
	give_up timestamptz := clock_timestamp() + secs * interval '1 second';
BEGIN
	LOOP
		PERFORM pg_stat_clear_snapshot();
		SELECT a.pid INTO p FROM pg_stat_activity a
		WHERE a.datname = 'crash' AND a.backend_type = 'client backend' AND a.state = 'active'
		  AND a.pid <> pg_backend_pid()
		  AND (a.query LIKE 'SELECT item_table.%' OR a.query LIKE '%item_data.crash %' OR a.query LIKE 'COMMIT%')
		ORDER BY random() LIMIT 1;
		IF p IS NOT NULL OR clock_timestamp() > give_up THEN
			RETURN p;
		END IF;
		PERFORM pg_sleep(0.002);
	END LOOP;
END $$;
SQL

# ---------------------------------------------------------------- schema

psql -v filler="$FILLER" >/dev/null <<'SQL' || die "setup"
CREATE EXTENSION item_table;
CREATE EXTENSION amcheck;
SELECT item_table.create_table('{"TableName": "crash", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [
		{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
		{"AttributeName": "g1pk", "AttributeType": "S"}, {"AttributeName": "g1sk", "AttributeType": "N"},
		{"AttributeName": "g2", "AttributeType": "S"}, {"AttributeName": "lsk", "AttributeType": "N"}],
	"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
	"GlobalSecondaryIndexes": [
		{"IndexName": "by_group", "KeySchema": [{"AttributeName": "g1pk", "KeyType": "HASH"},
			{"AttributeName": "g1sk", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}},
		{"IndexName": "by_tag", "KeySchema": [{"AttributeName": "g2", "KeyType": "HASH"}],
			"Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["v", "cnt"]}}],
	"LocalSecondaryIndexes": [
		{"IndexName": "by_rank", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
			{"AttributeName": "lsk", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}]}');
-- filler items, never written again: plain SQL through the index trigger
INSERT INTO item_data.crash
SELECT item_table.item_key(jsonb_build_object('S', 'FILL-' || (g % 100)), jsonb_build_object('S', 'F' || g)),
	   jsonb_build_object('pk', jsonb_build_object('S', 'FILL-' || (g % 100)), 'sk', jsonb_build_object('S', 'F' || g),
		   'g1pk', jsonb_build_object('S', 'G' || (g % 8)), 'g1sk', jsonb_build_object('N', g::text),
		   'lsk', jsonb_build_object('N', (g % 1000)::text), 'pad', jsonb_build_object('S', repeat(md5(g::text), 3)))
	   || CASE WHEN g % 2 = 0 THEN jsonb_build_object('g2', jsonb_build_object('S', 'T' || (g % 4))) ELSE '{}' END
FROM generate_series(1, :filler) g;
CREATE VIEW filler_now AS
SELECT count(*) AS n, md5(string_agg(key::text || ' ' || item::text, ',' ORDER BY item->'sk'->>'S')) AS sum
FROM item_data.crash WHERE item->'pk'->>'S' LIKE 'FILL-%';
CREATE TABLE filler_then AS SELECT * FROM filler_now;
CREATE TABLE acked (w int, n bigint, op text, pk text, sk text, item jsonb);
CREATE TABLE unknown (LIKE acked);
CHECKPOINT;
SQL

# ---------------------------------------------------------------- writers
#
# A writer's model of key k is M[k]: empty when the item is absent, else
# "v g1pk g1sk lsk cnt g2 po pl" (g2 "-" when absent; the item's pad is
# POOL[po, po + pl)).  U[k] = 1 when the state is uncertain.  While a batch
# is built, T and TU are the model as it will be if every write of the
# batch commits.

CONNLOST='server closed the connection|terminating connection|connection to server|could not connect|database system is|no connection to the server|could not send|could not receive|connection not open'

keyof() {
	PK="W$W-P$(($1 / 8))"
	SK="I$(($1 % 8))"
	KJ="{\"pk\":{\"S\":\"$PK\"},\"sk\":{\"S\":\"$SK\"}}"
	KT="S\"$PK\"|S\"$SK\""
}

itemof() {	# itemof k state: the item's DynamoDB JSON in IJ ("\N" if absent)
	keyof "$1"
	if [ -z "$2" ]; then
		IJ='\N'
		return
	fi
	local -a s
	read -r -a s <<<"$2"
	IJ="{\"pk\":{\"S\":\"$PK\"},\"sk\":{\"S\":\"$SK\"},\"v\":{\"N\":\"${s[0]}\"},\"g1pk\":{\"S\":\"${s[1]}\"},\"g1sk\":{\"N\":\"${s[2]}\"},\"lsk\":{\"N\":\"${s[3]}\"},\"cnt\":{\"N\":\"${s[4]}\"}"
	[ "${s[5]}" != - ] && IJ+=",\"g2\":{\"S\":\"${s[5]}\"}"
	IJ+=",\"pad\":{\"S\":\"${POOL:${s[6]}:${s[7]}}\"}}"
}

newstate() {	# a fresh item with v = $1 in NS; about one in ten is TOASTed
	local g2=- pl
	((RANDOM % 2)) && g2="T$((RANDOM % 4))"
	if ((RANDOM % 10 == 0)); then pl=$((2100 + RANDOM % 500)); else pl=$((1 + RANDOM % 200)); fi
	NS="$1 G$((RANDOM % 8)) $RANDOM $((RANDOM % 1000)) 0 $g2 $((RANDOM % POOLMAX)) $pl"
}

updstate() {	# updstate k v: UpdateItem of a present item: NS, UX (expression), UV (values)
	local -a s
	read -r -a s <<<"${T[$1]}"
	local d=$((1 + RANDOM % 9)) g="G$((RANDOM % 8))" l=$((RANDOM % 1000)) g2=${s[5]} c=$((RANDOM % 3))
	UX="SET v = :v, g1pk = :g, lsk = :l"
	UV="\":v\":{\"N\":\"$2\"},\":g\":{\"S\":\"$g\"},\":l\":{\"N\":\"$l\"},\":one\":{\"N\":\"1\"},\":d\":{\"N\":\"$d\"},\":p\":{\"N\":\"${s[0]}\"}"
	if [ "$c" = 0 ]; then
		g2="T$((RANDOM % 4))"
		UX+=", g2 = :t"
		UV+=",\":t\":{\"S\":\"$g2\"}"
	fi
	UX+=" ADD cnt :one, g1sk :d"
	if [ "$c" = 1 ]; then
		g2=-
		UX+=" REMOVE g2"
	fi
	NS="$2 $g $((s[2] + d)) $l $((s[4] + 1)) $g2 ${s[6]} ${s[7]}"
}

eff() {		# eff k state: the current write leaves key k in this state
	OPK+=" $1"
	OPS+="$2;"
	T[$1]=$2
	TU[$1]=0
}

certain_present() { [ "${TU[$1]}" = 0 ] && [ -n "${T[$1]}" ]; }

act_put() {	# PutItem request for key $1 in AJ, conditional on the known state
	local cond=""
	newstate "$N"
	if [ "${TU[$1]}" = 1 ]; then
		cond=""
	elif [ -n "${T[$1]}" ]; then
		cond=",\"ConditionExpression\":\"v = :p\",\"ExpressionAttributeValues\":{\":p\":{\"N\":\"${T[$1]%% *}\"}}"
	else
		cond=",\"ConditionExpression\":\"attribute_not_exists(pk)\""
	fi
	itemof "$1" "$NS"
	AJ="{\"TableName\":\"crash\",\"Item\":$IJ$cond}"
	eff "$1" "$NS"
}

act_update() {
	updstate "$1" "$N"
	keyof "$1"
	AJ="{\"TableName\":\"crash\",\"Key\":$KJ,\"UpdateExpression\":\"$UX\",\"ConditionExpression\":\"v = :p\",\"ExpressionAttributeValues\":{$UV}}"
	eff "$1" "$NS"
}

act_delete() {
	keyof "$1"
	AJ="{\"TableName\":\"crash\",\"Key\":$KJ,\"ConditionExpression\":\"v = :p\",\"ExpressionAttributeValues\":{\":p\":{\"N\":\"${T[$1]%% *}\"}}}"
	eff "$1" ""
}

sql_write() {	# plain SQL on the physical table, conditional on the whole stored item
	local old
	if [ "${TU[$1]}" = 1 ]; then
		newstate "$N"
		itemof "$1" "$NS"
		OPSQL+="INSERT INTO item_data.crash AS t (key, item) VALUES ('$KT', '$IJ') ON CONFLICT (key) DO UPDATE SET item = excluded.item;"$'\n'
		eff "$1" "$NS"
	elif [ -z "${T[$1]}" ]; then
		newstate "$N"
		itemof "$1" "$NS"
		OPSQL+="INSERT INTO item_data.crash (key, item) VALUES ('$KT', '$IJ');"$'\n'
		eff "$1" "$NS"
	else
		itemof "$1" "${T[$1]}"
		old=$IJ
		if ((RANDOM % 3 == 0)); then
			OPSQL+="WITH d AS (DELETE FROM item_data.crash WHERE key = '$KT' AND item = '$old' RETURNING 1) SELECT 1 / count(*) FROM d;"$'\n'
			eff "$1" ""
		else
			updstate "$1" "$N"
			itemof "$1" "$NS"
			OPSQL+="WITH u AS (UPDATE item_data.crash SET item = '$IJ' WHERE key = '$KT' AND item = '$old' RETURNING 1) SELECT 1 / count(*) FROM u;"$'\n'
			eff "$1" "$NS"
		fi
	fi
}

gen_op() {	# one transaction: OPSQL, OPT (kind), OPK/OPS (keys, states), OPC (checked key)
	local r=$((RANDOM % 100)) k=$((RANDOM % KEYS)) keys="" m j c a
	OPSQL="" OPK="" OPS="" OPC=""
	if ((r < 85 && r >= 65)); then
		OPT=twi
		m=$((2 + RANDOM % 2))
		while ((m > 0)); do
			j=$((RANDOM % KEYS))
			[[ " $keys " == *" $j "* ]] && continue
			keys+=" $j"
			m=$((m - 1))
		done
		a=""
		for j in $keys; do
			c=$((RANDOM % 3))
			if ! certain_present "$j" || [ "$c" = 0 ]; then
				act_put "$j"
				a+=",{\"Put\":$AJ}"
			elif [ "$c" = 1 ]; then
				act_update "$j"
				a+=",{\"Update\":$AJ}"
			else
				act_delete "$j"
				a+=",{\"Delete\":$AJ}"
			fi
		done
		j=$((RANDOM % KEYS))
		if ((RANDOM % 2)) && [[ " $keys " != *" $j "* ]] && [ "${TU[$j]}" = 0 ]; then
			keyof "$j"
			OPC=$j
			if [ -n "${T[$j]}" ]; then
				a+=",{\"ConditionCheck\":{\"TableName\":\"crash\",\"Key\":$KJ,\"ConditionExpression\":\"v = :p\",\"ExpressionAttributeValues\":{\":p\":{\"N\":\"${T[$j]%% *}\"}}}}"
			else
				a+=",{\"ConditionCheck\":{\"TableName\":\"crash\",\"Key\":$KJ,\"ConditionExpression\":\"attribute_not_exists(pk)\"}}"
			fi
		fi
		OPSQL="SELECT item_table.transact_write_items('{\"TransactItems\":[${a#,}]}');"
	elif ((r >= 85)); then
		OPT=sql
		sql_write "$k"
		j=$((RANDOM % KEYS))
		((RANDOM % 2)) && [ "$j" != "$k" ] && sql_write "$j"
	elif ((r >= 55 && r < 65)) && certain_present "$k"; then
		OPT=delete
		act_delete "$k"
		OPSQL="SELECT item_table.delete_item('$AJ');"
	elif ((r >= 25 && r < 55)) && certain_present "$k"; then
		OPT=update
		act_update "$k"
		OPSQL="SELECT item_table.update_item('$AJ');"
	else
		OPT=put
		act_put "$k"
		OPSQL="SELECT item_table.put_item('$AJ');"
	fi
}

log_effects() {	# log_effects i status: one line per key the write left in a state
	local -a ks ss
	local x
	read -r -a ks <<<"${BK[$1]}"
	IFS=';' read -r -a ss <<<"${BS[$1]}"
	for x in "${!ks[@]}"; do
		itemof "${ks[$x]}" "${ss[$x]:-}"
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$W" "${BN[$1]}" "${BT[$1]}" "$PK" "$SK" "$IJ"
		if [ "$2" = acked ]; then
			M[${ks[$x]}]=${ss[$x]:-}
			U[${ks[$x]}]=0
		else
			U[${ks[$x]}]=1
		fi
	done
}

# The writer's psql: one session, kept open, fed through a FIFO; its
# output (only the \echo markers: query results go to /dev/null) comes
# back line by line through another.  pq_open connects and reads the
# backend's pid (BPID); it fails when the server does not accept the
# connection.  pq_close ends the session (psql reads the end of its input,
# or was killed) and leaves its exit status in PQ_RC.
pq_open() {
	local line
	: >"$PQ_ERR"
	stdbuf -oL "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -o /dev/null \
		<"$PQ_IN" >"$PQ_OUT" 2>"$PQ_ERR" &
	PQ_PID=$!
	exec {PQ_TO}>"$PQ_IN" {PQ_FROM}<"$PQ_OUT"
	printf '%s\n' 'SET search_path = item_table, public;' \
		'SELECT pg_backend_pid() AS bpid \gset' '\echo S :bpid' 1>&"$PQ_TO" 2>/dev/null
	if read -r -t "$PQ_WAIT" -u "$PQ_FROM" line && [[ $line == "S "* ]]; then
		BPID=${line#S }
		return 0
	fi
	pq_close
	return 1
}

pq_close() {
	[ -n "$PQ_PID" ] || return 0
	exec {PQ_TO}>&- {PQ_FROM}<&-
	# a psql that hangs (its answer did not come within PQ_WAIT) is killed
	if ! wait_gone "$PQ_PID" 10; then
		kill -KILL "$PQ_PID" 2>/dev/null
	fi
	wait "$PQ_PID"
	PQ_RC=$?
	PQ_PID=""
}

wait_gone() {	# wait_gone PID SECONDS: until the process has exited, bounded
	local i
	for ((i = 0; i < $2 * 20; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}

writer() {
	W=$1
	trap - EXIT INT HUP
	# a write to the FIFO of a psql that is gone fails instead of killing us
	trap '' PIPE
	trap '[ -n "$PQ_PID" ] && kill -KILL "$PQ_PID" 2>/dev/null; exit 143' TERM
	RANDOM=$((W * 7919 + $$ % 7907))
	local acked="$CR_TMP/w$W.acked" unknown="$CR_TMP/w$W.unknown" errs="$CR_TMP/w$W.err"
	local inflight="$CR_TMP/w$W.inflight"
	local k i a fin line script rc deadline left
	PQ_IN="$CR_TMP/w$W.in" PQ_OUT="$CR_TMP/w$W.out" PQ_ERR="$CR_TMP/w$W.stderr"
	PQ_PID="" PQ_RC=0 PQ_TO="" PQ_FROM="" BPID=""
	: >"$acked"
	: >"$unknown"
	: >"$errs"
	: >"$inflight"
	mkfifo "$PQ_IN" "$PQ_OUT" || exit 1
	POOL=$(head -c 4500 /dev/urandom | base64 -w0 | tr -d '+/=')
	POOLMAX=$((${#POOL} - 2600))
	declare -gA M=() U=() T=() TU=()
	declare -ga BN=() BT=() BK=() BS=() BC=()
	for ((k = 0; k < KEYS; k++)); do
		M[$k]=""
		U[$k]=0
	done
	N=0
	while [ ! -e "$CR_TMP/stop" ]; do
		# (re)connect: the server may be down or recovering
		if [ -z "$PQ_PID" ] && ! pq_open; then
			sleep 0.2
			continue
		fi
		for ((k = 0; k < KEYS; k++)); do
			T[$k]=${M[$k]}
			TU[$k]=${U[$k]}
		done
		script=""
		for ((i = 1; i <= BATCH; i++)); do
			N=$((N + 1))
			gen_op
			BN[i]=$N BT[i]=$OPT BK[i]=$OPK BS[i]=$OPS BC[i]=$OPC
			script+="BEGIN;"$'\n'"$OPSQL"$'\n'"COMMIT;"$'\n''\echo A '"$i"$'\n'
		done
		script+='\echo E'$'\n'
		printf '%s' "$script" 1>&"$PQ_TO" 2>/dev/null
		# "A i" comes once the COMMIT of write i returned, "E" after the
		# batch; the end of the output means psql is gone (the connection
		# died, or a write failed); nothing within PQ_WAIT: psql is killed
		a=0
		fin=0
		deadline=$((SECONDS + PQ_WAIT))
		while left=$((deadline - SECONDS)); ((left > 0)); do
			read -r -t "$left" -u "$PQ_FROM" line || break
			case $line in
				"A "*) a=${line#A } ;;
				E) fin=1; break ;;
			esac
		done
		# no answer in time (not the end of the output): psql hangs, its
		# write in flight has an unknown outcome
		((fin)) || [ "$SECONDS" -lt "$deadline" ] || kill -KILL "$PQ_PID" 2>/dev/null
		for ((i = 1; i <= a; i++)); do
			log_effects "$i" acked
		done >>"$acked"
		((fin)) && continue
		pq_close
		rc=$PQ_RC
		i=$((a + 1))
		if ((a == BATCH)); then
			:	# the session died after the batch: nothing in flight
		elif [ "$rc" = 3 ] && ! grep -Eq "$CONNLOST" "$PQ_ERR" || [ "$rc" = 0 ]; then
			# a definite failure: never expected, the test fails
			{
				echo "writer $W write v=${BN[$i]} (${BT[$i]}, psql status $rc):"
				head -c 2000 "$PQ_ERR"
				echo
			} >>"$errs"
			log_effects "$i" failed >/dev/null
			[ -n "${BC[$i]}" ] && U[${BC[$i]}]=1
		else
			# the write in flight when the session died: its outcome is unknown
			log_effects "$i" unknown >>"$unknown"
			echo "$BPID" >>"$inflight"
		fi
		sleep 0.2
	done
	pq_close
	rm -f "$PQ_IN" "$PQ_OUT" "$PQ_ERR"
	exit 0
}

acked_lines() { cat "$CR_TMP"/w*.acked 2>/dev/null | wc -l; }

for ((w = 1; w <= WRITERS; w++)); do
	writer "$w" &
	WRITER_PIDS+=($!)
done

writers_alive() {
	local p
	for p in "${WRITER_PIDS[@]}"; do
		kill -0 "$p" 2>/dev/null || return 1
	done
}

# ---------------------------------------------------------------- kills

BACKEND_KILLS=0
KILLED_PIDS=()
POSTMASTER_KILLS=0
half=$(awk -v s="$ROUND_SECS" 'BEGIN { print s / 2 }')

# kill_backend ROUND: kill -9 a client backend caught inside a write.
# busy_writer() (in the postgres database) polls pg_stat_activity every
# few milliseconds, on the server, until a writer's backend is active in
# an item_table call, a plain SQL write or its COMMIT, for at most 30 s;
# the kill follows at once.  Each writer keeps its session, so a backend
# is always there to find, and the kill is retried (the whole bounded by
# KILL_WAIT seconds) if it missed.
kill_backend() {
	local pid deadline=$((SECONDS + KILL_WAIT))
	while [ "$SECONDS" -lt "$deadline" ]; do
		pid=$(psql -d postgres -At -c 'SELECT busy_writer(30)' 2>/dev/null)
		if [ -n "$pid" ] && $SUDO kill -KILL "$pid" 2>/dev/null && killed_by_us "$pid"; then
			BACKEND_KILLS=$((BACKEND_KILLS + 1))
			KILLED_PIDS+=("$pid")
			KILLED="backend $pid"
			return 0
		fi
		sleep 0.1
	done
	die "round $1: no backend caught inside a write within $KILL_WAIT s"
}

# Did the postmaster see that backend die of our signal?  (It may have been
# exiting already when the signal came.)
killed_by_us() {
	local i
	for i in $(seq 1 300); do
		$SUDO grep -q "(PID $1) was terminated by signal 9" "$CR_PG/server.log" && return 0
		sleep 0.1
	done
	return 1
}

# Stop the writers (they finish their batch) and wait for them, bounded.
stop_writers() {
	local p i busy
	: >"$CR_TMP/stop"
	for i in $(seq 1 1500); do
		busy=0
		for p in "${WRITER_PIDS[@]}"; do
			kill -0 "$p" 2>/dev/null && busy=1
		done
		[ "$busy" = 0 ] && break
		sleep 0.1
	done
	for p in "${WRITER_PIDS[@]}"; do
		kill -0 "$p" 2>/dev/null && die "writer $p did not stop"
		wait "$p" || die "writer $p failed"
	done
	WRITER_PIDS=()
}

# kill_postmaster ROUND LAST: kill -9 the postmaster, then the backends it
# left (which may still commit, and acknowledge, until then), start again.
# After the last round the writers are stopped before the start, so the
# final check compares the recovered data with what was acknowledged
# before the crash.
kill_postmaster() {
	local pm i
	pm=$(postmaster_pid)
	[ -n "$pm" ] || die "round $1: no postmaster.pid"
	pg_user kill -KILL "$pm" || die "round $1: kill of postmaster $pm failed"
	for i in $(seq 1 300); do
		pid_alive "$pm" || break
		sleep 0.1
	done
	pid_alive "$pm" && die "round $1: postmaster $pm survived kill -9"
	kill_leftovers || die "round $1: server processes survive"
	[ "$2" = 1 ] && stop_writers
	drop_stale_lock || die "round $1: stale postmaster.pid"
	pg_start || { tail -n 20 "$CR_TMP/pg_ctl.log"; die "round $1: pg_ctl start failed"; }
	POSTMASTER_KILLS=$((POSTMASTER_KILLS + 1))
	KILLED="postmaster $pm"
}

prev=0
MIN_ROUND=""
for ((r = 1; r <= ROUNDS; r++)); do
	sleep "$half"
	# a checkpoint now and then, so that recovery starts from different
	# places and replays full-page images
	((r % 2)) && psql -c CHECKPOINT >/dev/null 2>&1
	sleep "$half"
	writers_alive || die "round $r: a writer died"
	# every round, the first included, must have acknowledged writes (the
	# server came back and serves writes): on a slow machine the round
	# waits for the first, up to ACK_WAIT seconds
	deadline=$((SECONDS + ACK_WAIT))
	while now=$(acked_lines); [ "$now" -le "$prev" ] && [ "$SECONDS" -lt "$deadline" ]; do
		writers_alive || die "round $r: a writer died"
		sleep 0.2
	done
	acks=$((now - prev))
	prev=$now
	[ "$acks" -gt 0 ] || die "round $r: no write acknowledged in $ROUND_SECS + $ACK_WAIT s since the previous round"
	if [ -z "$MIN_ROUND" ] || [ "$acks" -lt "$MIN_ROUND" ]; then
		MIN_ROUND=$acks
	fi
	t=$(date +%s.%N)
	if ((r == ROUNDS)); then
		kill_postmaster "$r" 1
	elif ((r % 4 == 0)); then
		kill_postmaster "$r" 0
	else
		kill_backend "$r"
	fi
	took=$(it_elapsed "$t")
	t=$(date +%s.%N)
	wait_ready 120 || die "round $r: the server is not back after 120 s"
	echo "round $r: $acks item writes acknowledged, then killed $KILLED (in $took s); accepting connections again after $(it_elapsed "$t") s"
done

# ---------------------------------------------------------------- checks

wait_ready 120 || die "the server is not up for the checks"
FAIL=0
for f in "$CR_TMP"/w*.acked; do
	[ -s "$f" ] || { echo "writer ${f##*/}: no acknowledged write"; FAIL=1; }
done
if cat "$CR_TMP"/w*.err | grep -q .; then
	echo "writes that failed (a write conditional on the acknowledged state found another one):"
	cat "$CR_TMP"/w*.err | head -n 30
	FAIL=1
fi
cat "$CR_TMP"/w*.acked | psql -c '\copy acked FROM pstdin' || die "loading the acknowledged writes"
cat "$CR_TMP"/w*.unknown | psql -c '\copy unknown FROM pstdin' || die "loading the unknown writes"

psql -At -F ' ' >"$CR_TMP/check.out" <<'SQL' || die "the check queries failed"
CREATE TABLE wrong AS
WITH keys AS (SELECT pk, sk FROM acked UNION SELECT pk, sk FROM unknown),
last_ack AS (SELECT DISTINCT ON (pk, sk) pk, sk, n, item FROM acked ORDER BY pk, sk, n DESC),
allowed AS (
	SELECT k.pk, k.sk, la.item FROM keys k LEFT JOIN last_ack la USING (pk, sk)
	UNION ALL
	SELECT u.pk, u.sk, u.item FROM unknown u LEFT JOIN last_ack la USING (pk, sk)
	WHERE u.n > coalesce(la.n, -1)),
stored AS (
	SELECT item->'pk'->>'S' AS pk, item->'sk'->>'S' AS sk, key, item
	FROM item_data.crash WHERE item->'pk'->>'S' NOT LIKE 'FILL-%'),
j AS (
	SELECT coalesce(k.pk, s.pk) AS pk, coalesce(k.sk, s.sk) AS sk, k.pk IS NOT NULL AS written, s.key, s.item
	FROM keys k FULL JOIN stored s ON s.pk = k.pk AND s.sk = k.sk)
SELECT j.pk, j.sk, la.n AS last_acked_v, j.item->'v'->>'N' AS stored_v,
	CASE WHEN NOT j.written THEN 'an item no writer wrote'
		 WHEN j.key OPERATOR(item_table.<>) item_table.item_key(j.item->'pk', j.item->'sk') THEN 'key column differs from the item'
		 ELSE 'not the last acknowledged state (nor a later write of unknown outcome)' END AS problem
FROM j LEFT JOIN last_ack la ON la.pk = j.pk AND la.sk = j.sk
WHERE NOT j.written
   OR j.key OPERATOR(item_table.<>) item_table.item_key(j.item->'pk', j.item->'sk')
   OR NOT EXISTS (SELECT 1 FROM allowed a WHERE a.pk = j.pk AND a.sk = j.sk AND a.item IS NOT DISTINCT FROM j.item);
SELECT 'acked', count(DISTINCT (w, n)), count(*) FROM acked;
SELECT 'unknown', count(DISTINCT (w, n)), count(*) FROM unknown;
SELECT 'keys', count(*), count(*) FILTER (WHERE EXISTS (SELECT 1 FROM item_data.crash c
	WHERE c.item->'pk'->>'S' = k.pk AND c.item->'sk'->>'S' = k.sk))
FROM (SELECT pk, sk FROM acked UNION SELECT pk, sk FROM unknown) k;
SELECT 'wrong', count(*), 0 FROM wrong;
-- an acknowledged write is verified by the final comparison when it is
-- the key's last event, or by the next write on its key when that one was
-- acknowledged (it was conditional on this write's state)
SELECT 'verified', count(*), 0 FROM (
	SELECT ev, lead(ev) OVER (PARTITION BY pk, sk ORDER BY n) AS next
	FROM (SELECT pk, sk, n, 'acked' AS ev FROM acked UNION ALL SELECT pk, sk, n, 'unknown' FROM unknown) e) x
WHERE ev = 'acked' AND (next IS NULL OR next = 'acked');
SELECT 'filler', (SELECT n FROM filler_now), ((SELECT (n, sum) FROM filler_now) = (SELECT (n, sum) FROM filler_then))::int;
SELECT 'verify', count(*), 0 FROM item_table.verify('crash');
CREATE FUNCTION amcheck_all(OUT indexes int, OUT tables int, OUT problems text[]) LANGUAGE plpgsql AS $$
DECLARE
	r record;
	i record;
BEGIN
	indexes := 0;
	tables := 0;
	problems := '{}';
	FOR r IN
		SELECT c.oid::regclass AS rel FROM pg_class c
		WHERE c.relnamespace = 'item_data'::regnamespace AND c.relkind = 'r'
		UNION ALL
		SELECT c.reltoastrelid::regclass FROM pg_class c
		WHERE c.relnamespace = 'item_data'::regnamespace AND c.relkind = 'r' AND c.reltoastrelid <> 0
	LOOP
		tables := tables + 1;
		problems := problems || ARRAY(
			SELECT format('%s block %s offset %s: %s', r.rel, v.blkno, v.offnum, v.msg)
			FROM verify_heapam(r.rel, check_toast => true) v);
		FOR i IN
			SELECT x.indexrelid::regclass AS idx FROM pg_index x
			JOIN pg_class ic ON ic.oid = x.indexrelid JOIN pg_am am ON am.oid = ic.relam
			WHERE x.indrelid = r.rel AND am.amname = 'btree'
		LOOP
			indexes := indexes + 1;
			BEGIN
				PERFORM bt_index_check(i.idx, true);
				PERFORM bt_index_parent_check(i.idx, true, true);
			EXCEPTION WHEN others THEN
				problems := problems || format('%s: %s', i.idx, SQLERRM);
			END;
		END LOOP;
	END LOOP;
END $$;
CREATE TABLE amcheck_result AS SELECT * FROM amcheck_all();
SELECT 'amcheck', indexes, tables, cardinality(problems) FROM amcheck_result;
SQL

val() { awk -v k="$1" -v f="$2" '$1 == k { print $f }' "$CR_TMP/check.out"; }
ACK_TX=$(val acked 2) ACK_W=$(val acked 3) UNK_TX=$(val unknown 2)
KEYS_N=$(val keys 2) KEYS_PRESENT=$(val keys 3) WRONG=$(val wrong 2) VERIFIED=$(val verified 2)
FILLER_N=$(val filler 2) FILLER_OK=$(val filler 3) VERIFY=$(val verify 2)
AM_IDX=$(val amcheck 2) AM_TAB=$(val amcheck 3) AM_PROB=$(val amcheck 4)
ERRS=$(cat "$CR_TMP"/w*.err | grep -c '^writer ')
RECOVERIES=$($SUDO grep -c 'automatic recovery in progress' "$CR_PG/server.log")
# backend kills that cut a write off: the killed backend's writer had a
# batch out and not all of it acknowledged
HITS=0
for p in "${KILLED_PIDS[@]}"; do
	cat "$CR_TMP"/w*.inflight | grep -qx "$p" && HITS=$((HITS + 1))
done

if [ "$WRONG" != 0 ]; then
	echo "keys whose stored item is wrong (first 20):"
	psql -c 'SELECT * FROM wrong ORDER BY pk, sk LIMIT 20'
	FAIL=1
fi
if [ "$FILLER_OK" != 1 ] || [ "$FILLER_N" != "$FILLER" ]; then
	echo "the filler items changed: $FILLER_N items (expected $FILLER)"
	FAIL=1
fi
if [ "$VERIFY" != 0 ]; then
	echo "item_table.verify('crash') (first 20):"
	psql -c "SELECT * FROM item_table.verify('crash') LIMIT 20"
	FAIL=1
fi
if [ "$AM_PROB" != 0 ]; then
	echo "amcheck (first 20):"
	psql -At -c 'SELECT p FROM amcheck_result, unnest(problems) p LIMIT 20'
	FAIL=1
fi
if [ "$RECOVERIES" -lt "$ROUNDS" ]; then
	echo "the server log shows $RECOVERIES crash recoveries for $ROUNDS kills"
	FAIL=1
fi
if [ "$KEYS_PRESENT" = 0 ] || [ "$KEYS_PRESENT" = "$KEYS_N" ]; then
	echo "$KEYS_PRESENT of $KEYS_N keys hold an item: deletes or puts were not exercised"
	FAIL=1
fi

echo "kills: $ROUNDS rounds ($BACKEND_KILLS of a backend, $HITS of them cutting off that backend's write in flight; $POSTMASTER_KILLS of the postmaster); $RECOVERIES crash recoveries in the server log"
echo "writes: $ACK_TX acknowledged transactions ($ACK_W item writes, at least $MIN_ROUND in each round), $UNK_TX of unknown outcome, $ERRS failed"
echo "checked: $KEYS_N keys ($KEYS_PRESENT present) against their last acknowledged write: $WRONG wrong; $FILLER_N filler items $([ "$FILLER_OK" = 1 ] && echo unchanged || echo CHANGED)"
echo "verified: $VERIFIED of $ACK_W acknowledged item writes (by the final state, or by the conditional write that followed; the others were followed by a write of unknown outcome)"
echo "verify('crash'): $VERIFY problem(s)"
echo "amcheck: $AM_PROB problem(s) in $AM_IDX btree indexes (bt_index_check, bt_index_parent_check heapallindexed rootdescend) and $AM_TAB tables (verify_heapam)"
echo "elapsed: $(it_elapsed "$T0") s"
if [ "$FAIL" != 0 ]; then
	echo "crash_recovery: FAILED"
	exit 1
fi
echo "crash_recovery: passed"
