#!/usr/bin/env bash
# The AWS CLI against item_table_gateway:  awscli.sh ENDPOINT KEY_ID SECRET
# Run by scripts/test.sh (suite "gateway"); prints one line per check and
# ends with "N passed, N failed".
set -uo pipefail
endpoint=$1
export AWS_ACCESS_KEY_ID=$2 AWS_SECRET_ACCESS_KEY=$3
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_PAGER="" \
    AWS_EC2_METADATA_DISABLED=true AWS_DEFAULT_REGION=us-east-1 AWS_RETRY_MODE=standard AWS_MAX_ATTEMPTS=1
AWS=${AWS:-/usr/bin/aws}
table="cli_$$_$RANDOM"
pass=0 fail=0 out=""

ddb() { out=$("$AWS" dynamodb --endpoint-url "$endpoint" --output json "$@" 2>&1); }

check() {  # check NAME PATTERN: the last output matches the extended regexp
    if printf '%s' "$out" | tr -d '\n' | grep -Eq -- "$2"; then
        pass=$((pass + 1)); echo "ok    $1"
    else
        fail=$((fail + 1)); echo "FAIL  $1"; printf '%s\n' "$out" | head -n 20 | sed 's/^/      /'
    fi
}

ddb create-table --table-name "$table" --billing-mode PAY_PER_REQUEST \
    --attribute-definitions AttributeName=pk,AttributeType=S AttributeName=sk,AttributeType=N \
    --key-schema AttributeName=pk,KeyType=HASH AttributeName=sk,KeyType=RANGE
check "create-table" "\"TableName\": \"$table\".*\"TableStatus\": \"ACTIVE\""

ddb wait table-exists --table-name "$table"
[ -z "$out" ]; out="waited:$?"
check "wait table-exists" "^waited:0$"

ddb put-item --table-name "$table" --item '{"pk": {"S": "user#1"}, "sk": {"N": "1"}, "note": {"S": "n1"}}'
out="put-item:$?:$out"
check "put-item" "^put-item:0:$"
items=""
for i in 2 3 4 5; do
    items="$items${items:+, }{\"PutRequest\": {\"Item\": {\"pk\": {\"S\": \"user#1\"}, \"sk\": {\"N\": \"$i\"}, \"note\": {\"S\": \"n$i\"}}}}"
done
items="$items, {\"PutRequest\": {\"Item\": {\"pk\": {\"S\": \"user#2\"}, \"sk\": {\"N\": \"1\"}}}}"
ddb batch-write-item --request-items "{\"$table\": [$items]}"
check "batch-write-item" "\"UnprocessedItems\": \{\}"

ddb get-item --table-name "$table" --key '{"pk": {"S": "user#1"}, "sk": {"N": "3"}}'
check "get-item" "\"note\": \{ *\"S\": \"n3\" *\}"

ddb query --table-name "$table" --key-condition-expression "pk = :p AND sk > :s" \
    --expression-attribute-values '{":p": {"S": "user#1"}, ":s": {"N": "2"}}' --no-scan-index-forward
check "query (descending)" "\"N\": \"5\".*\"N\": \"4\".*\"N\": \"3\".*\"Count\": 3,"

# the CLI paginates by itself: 5 items in pages of 2
ddb query --table-name "$table" --key-condition-expression "pk = :p" \
    --expression-attribute-values '{":p": {"S": "user#1"}}' --page-size 2
check "query (paginated by the CLI)" "\"Count\": 5,"

ddb scan --table-name "$table" --filter-expression "sk = :one" --expression-attribute-values '{":one": {"N": "1"}}'
check "scan (filter)" "\"Count\": 2,.*\"ScannedCount\": 6"

ddb put-item --table-name "$table" --item '{"pk": {"S": "user#2"}, "sk": {"N": "1"}}' \
    --condition-expression "attribute_not_exists(pk)"
check "conditional put fails" "ConditionalCheckFailedException.*The conditional request failed"

AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY}x" ddb list-tables
check "wrong secret" "InvalidSignatureException"

# backups and point-in-time recovery, with the CLI's waiter
ddb create-backup --table-name "$table" --backup-name cli-backup
check "create-backup" "\"BackupName\": \"cli-backup\".*\"BackupStatus\": \"AVAILABLE\""
backup_arn=$(printf '%s' "$out" | sed -n 's/.*"BackupArn": "\([^"]*\)".*/\1/p' | head -n 1)
ddb list-backups --table-name "$table"
check "list-backups" "\"BackupArn\": \"$backup_arn\""
ddb restore-table-from-backup --target-table-name "${table}_bk" --backup-arn "$backup_arn"
check "restore-table-from-backup" "\"TableName\": \"${table}_bk\".*\"RestoreSummary\""
ddb wait table-exists --table-name "${table}_bk"
[ -z "$out" ]; out="waited:$?"
check "wait table-exists (restored)" "^waited:0$"
ddb update-continuous-backups --table-name "$table" \
    --point-in-time-recovery-specification PointInTimeRecoveryEnabled=true
check "update-continuous-backups" "\"PointInTimeRecoveryStatus\": \"ENABLED\""
ddb restore-table-to-point-in-time --source-table-name "$table" --target-table-name "${table}_pitr" \
    --use-latest-restorable-time
check "restore-table-to-point-in-time" "\"TableName\": \"${table}_pitr\".*\"RestoreSummary\""
ddb wait table-exists --table-name "${table}_pitr"
[ -z "$out" ]; out="waited:$?"
check "wait table-exists (point in time)" "^waited:0$"
ddb scan --table-name "${table}_pitr" --select COUNT
check "restored items" "\"Count\": 6"
# export and import through a bucket (a temporary directory the superuser
# registers; scripts/test.sh gives the superuser's psql and conninfo)
if [ -n "${IT_GW_PSQL:-}" ] && [ -n "${IT_GW_ADMIN:-}" ]; then
    bdir=$(mktemp -d)
    chmod 777 "$bdir"
    bname="cli-$$-$RANDOM"
    "$IT_GW_PSQL" -X -qAt -v ON_ERROR_STOP=1 -d "$IT_GW_ADMIN" \
        -c "SELECT item_table.create_bucket('$bname', '$bdir')" \
        -c "SELECT item_table.grant_bucket('$bname', 'gw_app', true, true)" >/dev/null
    ddb export-table-to-point-in-time --table-arn "arn:aws:dynamodb:local:000000000000:table/$table" \
        --s3-bucket "$bname" --s3-prefix cli
    check "export-table-to-point-in-time" "\"ExportStatus\": \"IN_PROGRESS\""
    export_arn=$(printf '%s' "$out" | sed -n 's/.*"ExportArn": "\([^"]*\)".*/\1/p' | head -n 1)
    # the background worker exports; the CLI's waiter polls every 20 s, so
    # it is asked once the export is seen to be done
    for _ in $(seq 60); do
        ddb describe-export --export-arn "$export_arn"
        case "$out" in *'"ExportStatus": "IN_PROGRESS"'*) sleep 0.5 ;; *) break ;; esac
    done
    # the CLI's waiter, when this CLI has it (its botocore from 2023 on)
    if "$AWS" dynamodb wait help 2>/dev/null | grep -q export-completed; then
        ddb wait export-completed --export-arn "$export_arn"
        [ -z "$out" ]; out="waited:$?"
        check "wait export-completed" "^waited:0$"
    fi
    ddb describe-export --export-arn "$export_arn"
    check "describe-export" "\"ExportManifest\": \"cli/AWSDynamoDB/.*\"ItemCount\": 6"
    ddb list-exports --table-arn "arn:aws:dynamodb:local:000000000000:table/$table"
    check "list-exports" "\"ExportArn\": \"$export_arn\""
    ddb import-table --s3-bucket-source "S3Bucket=$bname,S3KeyPrefix=cli/" --input-format DYNAMODB_JSON \
        --input-compression-type GZIP --table-creation-parameters "{\"TableName\": \"${table}_imp\",
        \"BillingMode\": \"PAY_PER_REQUEST\",
        \"AttributeDefinitions\": [{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}, {\"AttributeName\": \"sk\", \"AttributeType\": \"N\"}],
        \"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"}, {\"AttributeName\": \"sk\", \"KeyType\": \"RANGE\"}]}"
    check "import-table" "\"ImportStatus\": \"COMPLETED\""
    import_arn=$(printf '%s' "$out" | sed -n 's/.*"ImportArn": "\([^"]*\)".*/\1/p' | head -n 1)
    ddb describe-import --import-arn "$import_arn"
    check "describe-import" "\"ImportedItemCount\": 6"
    ddb wait table-exists --table-name "${table}_imp"
    [ -z "$out" ]; out="waited:$?"
    check "wait table-exists (imported)" "^waited:0$"
    ddb scan --table-name "${table}_imp" --select COUNT
    check "imported items" "\"Count\": 6"
    ddb list-imports --table-arn "arn:aws:dynamodb:local:000000000000:table/${table}_imp"
    check "list-imports" "\"ImportArn\": \"$import_arn\""
    ddb delete-table --table-name "${table}_imp"
    "$IT_GW_PSQL" -X -qAt -d "$IT_GW_ADMIN" -c "SELECT item_table.drop_bucket('$bname')" >/dev/null
    rm -rf "$bdir"
fi
ddb delete-backup --backup-arn "$backup_arn"
check "delete-backup" "\"BackupStatus\": \"DELETED\""
ddb delete-table --table-name "${table}_bk"
ddb delete-table --table-name "${table}_pitr"

ddb delete-table --table-name "$table"
check "delete-table" "\"TableName\": \"$table\""

ddb describe-table --table-name "$table"
check "describe after delete" "ResourceNotFoundException"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
