#!/usr/bin/env bash
# DynamoDB Local, for the differential check (test/differential/) and for
# benchmarks that compare item_table with it.
#
#   bash scripts/dynamodb_local.sh find            print the jar's path (status 1: none)
#   bash scripts/dynamodb_local.sh install         install Java and the jar if missing
#   bash scripts/dynamodb_local.sh start PORT PIDFILE
#                                                  start it in memory on 127.0.0.1:PORT,
#                                                  wait until it answers, write its pid
#   bash scripts/dynamodb_local.sh stop PIDFILE    stop the one started with PIDFILE
#
# Where the jar is looked for, in order: $DYNAMODB_LOCAL_JAR, then the cache
# directory ($DYNAMODB_LOCAL_CACHE, default ~/.cache/item_table/dynamodb-local),
# where "install" puts npm's amplify-dynamodb-simulator (it ships
# DynamoDBLocal.jar with its native libraries in DynamoDBLocal_lib/).  Java is
# Debian's openjdk-17-jre-headless.  Only "install" installs anything; the
# test suite runs "find" and skips the check when Java or the jar is missing.
set -uo pipefail

CACHE=${DYNAMODB_LOCAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/item_table/dynamodb-local}
SIM=amplify-dynamodb-simulator

die() { echo "dynamodb_local.sh: $*" >&2; exit 1; }

find_jar() {
    local j
    for j in "${DYNAMODB_LOCAL_JAR:-}" \
             "$CACHE/node_modules/$SIM/emulator/DynamoDBLocal.jar"; do
        if [ -n "$j" ] && [ -f "$j" ]; then
            printf '%s\n' "$j"
            return 0
        fi
    done
    return 1
}

install_all() {
    if ! command -v java >/dev/null 2>&1; then
        if [ "$(id -u)" -ne 0 ]; then
            die "java is missing: install Debian's openjdk-17-jre-headless (as root)"
        fi
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q openjdk-17-jre-headless ||
            die "apt-get install openjdk-17-jre-headless failed"
    fi
    if ! find_jar >/dev/null; then
        command -v npm >/dev/null 2>&1 || die "npm is missing (Debian's npm)"
        mkdir -p "$CACHE" || die "cannot make $CACHE"
        npm install --prefix "$CACHE" --no-audit --no-fund "$SIM" >&2 ||
            die "npm install $SIM failed"
    fi
    find_jar || die "no DynamoDBLocal.jar after the install"
}

start() {  # start PORT PIDFILE
    local port=$1 pidfile=$2 jar dir pid
    command -v java >/dev/null 2>&1 || die "java is missing (run: bash scripts/dynamodb_local.sh install)"
    jar=$(find_jar) || die "DynamoDBLocal.jar not found (set DYNAMODB_LOCAL_JAR or run install)"
    dir=$(dirname "$jar")
    # it reads its native libraries from DynamoDBLocal_lib beside the jar
    (cd "$dir" && exec java -Xmx256m -Djava.library.path="$dir/DynamoDBLocal_lib" \
        -jar "$jar" -inMemory -port "$port") </dev/null >"$pidfile.log" 2>&1 &
    pid=$!
    echo "$pid" >"$pidfile"
    for _ in $(seq 1 300); do
        if ! kill -0 "$pid" 2>/dev/null; then
            cat "$pidfile.log" >&2
            die "DynamoDB Local exited at start"
        fi
        # any HTTP answer means it listens
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$pid"
            return 0
        fi
        sleep 0.2
    done
    kill "$pid" 2>/dev/null
    die "DynamoDB Local did not listen on port $port within 60 s"
}

stop() {  # stop PIDFILE
    local pidfile=$1 pid
    [ -f "$pidfile" ] || return 0
    pid=$(cat "$pidfile")
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null
    fi
    rm -f "$pidfile"
}

case "${1:-}" in
    find) find_jar ;;
    install) install_all ;;
    start) [ $# -eq 3 ] || die "usage: start PORT PIDFILE"; start "$2" "$3" ;;
    stop) [ $# -eq 2 ] || die "usage: stop PIDFILE"; stop "$2" ;;
    *) echo "usage: $0 find|install|start PORT PIDFILE|stop PIDFILE" >&2; exit 2 ;;
esac
