#!/usr/bin/env bash
# The JavaScript clients against a DynamoDB endpoint:
#
#   bash test/gateway/js/run.sh ENDPOINT-URL ACCESS-KEY-ID SECRET
#
# Installs the pinned npm packages of package.json into node_modules/ here if
# they are missing (no lock file is written), then runs *.test.mjs with
# Node's built-in test runner (Node 18 or later): the SDK v3 low-level client,
# lib-dynamodb's DocumentClient, and ElectroDB on the users/orders/groups
# model of examples/users_orders_groups.sql.  Ends with one line
# "N passed, N failed"; exit status 0 only if every test passed.
#
# Any DynamoDB-compatible endpoint will do (item_table_gateway, or an
# emulator while developing).  Region is us-east-1; table names are unique
# per run and the tests delete what they create.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [ "$#" -ne 3 ]; then
    sed -n '2,16s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
    echo "0 passed, 1 failed"
    exit 2
fi

fail_setup() {
    echo "js: $*" >&2
    echo "0 passed, 1 failed"
    exit 1
}

command -v node >/dev/null 2>&1 || fail_setup "node is not installed"
command -v npm >/dev/null 2>&1 || fail_setup "npm is not installed"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] 2>/dev/null || fail_setup "Node 18 or later is needed (found $(node --version))"

# Install when a pinned package is missing or at another version.
need_install=0
for dep in $(node -p 'Object.keys(require(process.argv[1]).dependencies).join(" ")' "$HERE/package.json"); do
    want=$(node -p 'require(process.argv[1]).dependencies[process.argv[2]]' "$HERE/package.json" "$dep")
    have=$(node -p 'try { require(process.argv[1]).version } catch { "" }' "$HERE/node_modules/$dep/package.json" 2>/dev/null)
    if [ "$have" != "$want" ]; then
        need_install=1
        break
    fi
done
if [ "$need_install" = 1 ]; then
    echo "js: installing the npm packages of package.json"
    if ! (cd "$HERE" && npm install --no-audit --no-fund --package-lock=false --loglevel=error) >"$HERE/npm-install.log" 2>&1; then
        tail -n 30 "$HERE/npm-install.log" >&2
        fail_setup "npm install failed"
    fi
fi

export IT_DDB_ENDPOINT=$1 IT_DDB_ACCESS_KEY_ID=$2 IT_DDB_SECRET_ACCESS_KEY=$3
export IT_DDB_RUN_ID="${IT_DDB_RUN_ID:-$$$(date +%s | tail -c 5)}"
# The SDK must not pick up a profile, a region or other credentials of the
# machine it runs on.
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY \
    AWS_REGION AWS_DEFAULT_REGION AWS_ENDPOINT_URL AWS_ENDPOINT_URL_DYNAMODB
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null

tap=$(mktemp)
trap 'rm -f "$tap"' EXIT
# Two reporters: "spec" on the console (one line a test, failures in
# detail), TAP into a file, whose closing counts Node 18 and 20 print alike.
(cd "$HERE" && node --test --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$tap" ./*.test.mjs) 2>&1
rc=$?

passed=$(awk '/^# pass /  { print $3 }' "$tap" | tail -n 1)
failed=$(awk '/^# fail /  { print $3 }' "$tap" | tail -n 1)
cancelled=$(awk '/^# cancelled / { print $3 }' "$tap" | tail -n 1)
passed=${passed:-0}
failed=$((${failed:-0} + ${cancelled:-0}))
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    failed=1   # the runner failed without counting a test (a file did not load)
fi
echo "$passed passed, $failed failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
