#!/usr/bin/env bash
# item_table's Debian packages: build them, and install them into a clean
# Debian system and use them.
#
#   bash scripts/packages.sh build OUTDIR
#       On a Debian system (the PostgreSQL majors built are those its
#       postgresql-common supports, with debian/pgversions): installs the
#       build dependencies, copies the source tree to a temporary directory,
#       generates debian/control there (pg_buildext updatecontrol), runs
#       dpkg-buildpackage -us -uc -b and lintian on the result (an error
#       fails, warnings are shown), and copies the .deb files to OUTDIR.
#       Use one OUTDIR per Debian release: the gateway's file name carries
#       no release.
#
#   bash scripts/packages.sh check SUITE DEBDIR
#       As root, on the host: a fresh chroot of Debian SUITE (scripts/chroot.sh)
#       gets DEBDIR's packages with apt (the extension package of each
#       PostgreSQL major that SUITE has, and item-table-gateway); the packaged
#       cluster starts (on a free port, Unix socket only), the extension is
#       created, a login role and an access key are made, the gateway runs
#       with the command line and user of its systemd unit, and boto3 on the
#       host creates a table, puts an item and gets it back through it;
#       then the packages are purged (their files must be gone) and the
#       chroot removed, also when interrupted.
#
# Each step is counted; both end with one line "N passed, N failed" and exit
# with 0 only if nothing failed.  Logs go to log/packages/.
set -uo pipefail

IT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$IT_ROOT/scripts/lib.sh"
# shellcheck source=scripts/chroot.sh
. "$IT_ROOT/scripts/chroot.sh"

# a caller's connection settings (scripts/test.sh exports its cluster's)
# must not reach the packaged cluster's clients
unset PGHOST PGHOSTADDR PGPORT PGUSER PGDATABASE PGSERVICE PGSERVICEFILE \
    PGPASSWORD PGOPTIONS PGSSLMODE PGCONNECT_TIMEOUT

PASS=0
FAIL=0
LOG="$IT_LOG_DIR/packages"
WORK=""           # temporary directory of this run
CHROOT=""         # the check's chroot
GW_PID=""         # the gateway the check started

step() {  # step NAME OK|FAIL [NOTE]
    if [ "$2" = OK ]; then
        PASS=$((PASS + 1))
        printf 'ok     %s%s\n' "$1" "${3:+  ($3)}"
    else
        FAIL=$((FAIL + 1))
        printf 'FAILED %s%s\n' "$1" "${3:+  ($3)}"
    fi
}

cleanup() {
    local rc=$?
    trap '' INT TERM HUP
    if [ -n "$GW_PID" ]; then
        kill -TERM "$GW_PID" 2>/dev/null && wait "$GW_PID" 2>/dev/null
        GW_PID=""
    fi
    if [ -n "$CHROOT" ]; then
        it_chroot_remove "$CHROOT"
        CHROOT=""
    fi
    if [ -n "$WORK" ]; then
        $SUDO rm -rf --one-file-system -- "$WORK"
        WORK=""
    fi
    return "$rc"
}

finish() {
    cleanup
    trap - EXIT
    printf '%d passed, %d failed\n' "$PASS" "$FAIL"
    [ "$FAIL" -eq 0 ] && exit 0
    exit 1
}

# shellcheck disable=SC2317  # called by the traps
on_signal() {
    exec 1>&"$IT_OUT_FD" 2>&"$IT_ERR_FD"
    echo "interrupted ($1)" >&2
    FAIL=$((FAIL + 1))
    finish
}

trap finish EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

usage() {
    sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
    trap - EXIT
    exit 2
}

# The source tree without build products: git's list of files when the tree
# is a work tree, else everything but what .gitignore and a build leave.
copy_source() {
    local dest=$1
    mkdir -p "$dest" || return 1
    if command -v git >/dev/null 2>&1 &&
            git -C "$IT_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (cd "$IT_ROOT" && git ls-files -z -co --exclude-standard |
            while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
            tar --null -T - -cf -) | tar -C "$dest" -xf -
    else
        tar -C "$IT_ROOT" --exclude-vcs --exclude=./log --exclude=node_modules \
            --exclude=./results --exclude=./test/fuzz/build --exclude=./bench/results \
            --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
            --exclude=./debian/.debhelper --exclude='./debian/*-item-table*' \
            --exclude=./debian/item-table-gateway -cf - . | tar -C "$dest" -xf -
    fi
}

# The Build-Depends of debian/control.in, as package names.
build_deps() {
    awk '/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, "") }
         on && /^[A-Za-z-]+:/ && !/^Build-Depends:/ { on = 0 }
         on { print }' "$IT_ROOT/debian/control.in" |
        tr ',' '\n' | sed -E 's/\(.*\)//; s/\[.*\]//; s/^[[:space:]]+//; s/[[:space:]]+$//' |
        sed -E 's/^debhelper-compat$/debhelper/' | grep -v '^$'
}

cmd_build() {
    local outdir=$1 src log deps n e w
    mkdir -p "$outdir" || { step "output directory $outdir" FAIL; return; }
    outdir=$(cd "$outdir" && pwd)
    it_need_root || { step "root or sudo" FAIL; return; }
    mapfile -t deps < <(build_deps)
    if ! it_install_deps build-essential dpkg-dev lintian "${deps[@]}"; then
        step "build dependencies" FAIL "${deps[*]}"
        return
    fi
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/item_table_pkg.XXXXXX") || return
    src="$WORK/item-table"
    copy_source "$src" || { step "copy the source tree" FAIL; return; }

    log="$LOG/build.log"
    it_say "building: pg_buildext updatecontrol; dpkg-buildpackage -us -uc -b (log: ${log#"$IT_ROOT"/})"
    if (cd "$src" && pg_buildext updatecontrol && dpkg-buildpackage -us -uc -b) </dev/null >"$log" 2>&1; then
        step build OK "PostgreSQL $(cd "$src" && pg_buildext supported-versions | tr '\n' ' ' | sed 's/ $//')"
    else
        tail -n 40 "$log"
        step build FAIL "log: ${log#"$IT_ROOT"/}"
        return
    fi

    log="$LOG/lintian.log"
    lintian "$WORK"/*.changes >"$log" 2>&1
    e=$(grep -c '^E: ' "$log")
    w=$(grep -c '^W: ' "$log")
    grep -E '^(E|W): ' "$log"
    if [ "$e" -eq 0 ]; then
        step lintian OK "$e errors, $w warnings"
    else
        step lintian FAIL "$e errors, $w warnings"
    fi

    # every package of the generated debian/control, and nothing else
    local pkg missing=()
    while read -r pkg; do
        compgen -G "$WORK/${pkg}_*.deb" >/dev/null || missing+=("$pkg")
    done < <(sed -n 's/^Package: //p' "$src/debian/control")
    n=$(find "$WORK" -maxdepth 1 -name '*.deb' | wc -l)
    if [ "${#missing[@]}" -eq 0 ] && cp "$WORK"/*.deb "$outdir"/; then
        step "packages" OK "$n .deb files in $outdir: $(find "$WORK" -maxdepth 1 -name '*.deb' -printf '%f ' | sed 's/ $//')"
    else
        step "packages" FAIL "missing: ${missing[*]}"
    fi
}

# The chroot's apt gets SUITE-updates and SUITE-security beside SUITE, as an
# installed Debian system has them (a package built on an up-to-date system
# depends on the PostgreSQL minor release it was built with: pg_buildext,
# minor_versions).  The security archive is the one the host's apt sources
# name (IT_DEBIAN_SECURITY_MIRROR overrides), else the mirror's sibling
# debian-security.  Not for unstable, which has neither.
chroot_updates() {
    local suite=$1 mirror security
    case "$suite" in sid|unstable|experimental|rc-buggy) return 0 ;; esac
    mirror=$(it_debian_mirror) || return 1
    security=${IT_DEBIAN_SECURITY_MIRROR:-$(awk '
        /^URIs:/ && $2 ~ /security/ { print $2; exit }
        $1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\/.*security/) { print $i; exit } }' \
        /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n 1)}
    [ -n "$security" ] || security="${mirror%/}-security"
    printf 'deb %s %s-updates main\ndeb %s %s-security main\n' "$mirror" "$suite" "$security" "$suite" |
        $SUDO tee "$CHROOT/etc/apt/sources.list.d/updates.list" >/dev/null
}

# Run a command in the chroot, its output to a log.
in_chroot() {
    local log=$1
    shift
    $SUDO chroot "$CHROOT" "$@" </dev/null >>"$log" 2>&1
}

cmd_check() {
    local suite=$1 debdir=$2 log f majors=() debs=() major pkgs=() unit
    debdir=$(cd "$debdir" 2>/dev/null && pwd) || { step "package directory $2" FAIL; return; }
    it_need_root || { step "root or sudo" FAIL; return; }
    it_install_deps python3-boto3 || { step "python3-boto3 on the host" FAIL; return; }

    WORK=$(mktemp -d "${TMPDIR:-/tmp}/item_table_pkgcheck.XXXXXX") || return
    CHROOT="$WORK/root"
    log="$LOG/check-$suite.log"
    : >"$log"
    it_say "check: $suite chroot in $CHROOT (log: ${log#"$IT_ROOT"/})"
    # (the base tarball's top directory may be 0700, the mktemp directory it
    # was made in: the chroot's users need to reach their files)
    if it_chroot_unpack "$suite" "$CHROOT" && $SUDO chmod 755 "$CHROOT" && it__chroot_mount "$CHROOT"; then
        step "chroot $suite" OK
    else
        step "chroot $suite" FAIL
        return
    fi

    # the packages: the gateway, and the extension for the majors SUITE has
    $SUDO mkdir -p "$CHROOT/tmp/debs"
    chroot_updates "$suite"
    if ! in_chroot "$log" apt-get update; then
        # without the updates, if their archive cannot be reached
        $SUDO rm -f "$CHROOT/etc/apt/sources.list.d/updates.list"
        in_chroot "$log" apt-get update || { tail -n 20 "$log"; step "apt-get update" FAIL; return; }
    fi
    for f in "$debdir"/postgresql-*-item-table_*.deb; do
        [ -e "$f" ] || continue
        major=$(basename "$f" | sed -E 's/^postgresql-([0-9]+)-item-table_.*/\1/')
        if $SUDO chroot "$CHROOT" apt-cache show "postgresql-$major" >/dev/null 2>&1; then
            majors+=("$major")
            debs+=("$f")
            pkgs+=("postgresql-$major-item-table")
        fi
    done
    for f in "$debdir"/item-table-gateway_*.deb; do
        [ -e "$f" ] && debs+=("$f") && pkgs+=(item-table-gateway)
    done
    if [ "${#majors[@]}" -eq 0 ] || [[ " ${pkgs[*]} " != *" item-table-gateway "* ]]; then
        step "packages for $suite in $debdir" FAIL "need postgresql-N-item-table for a major $suite has, and item-table-gateway"
        return
    fi
    $SUDO cp "${debs[@]}" "$CHROOT/tmp/debs/"
    local names=()
    for f in "${debs[@]}"; do names+=("./${f##*/}"); done
    if in_chroot "$log" env DEBIAN_FRONTEND=noninteractive sh -c \
            'cd /tmp/debs && apt-get install -y -q "$@"' sh "${names[@]}"; then
        step "apt-get install" OK "${pkgs[*]}"
    else
        tail -n 30 "$log"
        step "apt-get install" FAIL "${pkgs[*]}"
        return
    fi
    major=${majors[-1]}

    # what the packages put in place
    local missing=() p
    unit=""
    for p in /usr/lib/systemd/system/item-table-gateway.service /lib/systemd/system/item-table-gateway.service; do
        [ -f "$CHROOT$p" ] && { unit=$p; break; }
    done
    for p in /usr/bin/item_table_gateway /usr/bin/item_table_local /etc/item_table/gateway.conf \
            "/usr/lib/postgresql/$major/lib/item_table.so" \
            "/usr/share/postgresql/$major/extension/item_table.control" \
            "/usr/share/postgresql/$major/extension/item_table--1.2.sql" \
            "/usr/share/postgresql/$major/extension/item_table--1.1--1.2.sql"; do
        [ -e "$CHROOT$p" ] || missing+=("$p")
    done
    [ -n "$unit" ] || missing+=(item-table-gateway.service)
    # shellcheck disable=SC2016  # dpkg-query's ${field}
    if [ "${#missing[@]}" -eq 0 ] && $SUDO chroot "$CHROOT" dpkg-query -W -f='${Conffiles}\n' item-table-gateway |
            grep -q '/etc/item_table/gateway.conf'; then
        step "installed files" OK "PostgreSQL $major; unit $unit; conffile /etc/item_table/gateway.conf"
    else
        step "installed files" FAIL "missing: ${missing[*]:-the conffile}"
    fi
    # item_table_local runs from the PATH (its use is tested by the gateway suite)
    if in_chroot "$log" item_table_local --help; then
        step "item_table_local --help" OK
    else
        step "item_table_local --help" FAIL
    fi

    # the packaged cluster, on a free port, with the library preloaded
    local pgport gwport
    if ! pgport=$(it_pick_port) || ! gwport=$(it_pick_port) || [ "$pgport" = "$gwport" ]; then
        step "free ports" FAIL
        return
    fi
    [ -d "$CHROOT/etc/postgresql/$major/main" ] || in_chroot "$log" pg_createcluster "$major" main
    if in_chroot "$log" pg_conftool "$major" main set port "$pgport" &&
       in_chroot "$log" pg_conftool "$major" main set listen_addresses '' &&
       in_chroot "$log" pg_conftool "$major" main set shared_preload_libraries item_table &&
       in_chroot "$log" pg_ctlcluster "$major" main start; then
        step "cluster $major/main" OK "port $pgport, Unix socket only, shared_preload_libraries = item_table"
    else
        tail -n 20 "$log"
        step "cluster $major/main" FAIL
        return
    fi

    # the extension, the gateway's login role (peer authentication maps the
    # unit's user to it), a role its keys map to, and a key of that role
    local key key_id secret
    if in_chroot "$log" runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -p "$pgport" -d postgres \
            -c 'CREATE DATABASE item_table' &&
       in_chroot "$log" runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -p "$pgport" -d item_table -c "
            CREATE EXTENSION item_table;
            CREATE ROLE item_table_gateway LOGIN NOINHERIT;
            GRANT SELECT ON item_table.access_keys TO item_table_gateway;
            CREATE ROLE app NOLOGIN;
            GRANT app TO item_table_gateway;
            GRANT CREATE ON SCHEMA item_data TO app;"; then
        step "CREATE EXTENSION item_table" OK "version $($SUDO chroot "$CHROOT" runuser -u postgres -- psql -X -qAt -p "$pgport" -d item_table -c "SELECT extversion FROM pg_extension WHERE extname = 'item_table'" 2>/dev/null)"
    else
        tail -n 20 "$log"
        step "CREATE EXTENSION item_table" FAIL
        return
    fi
    key=$($SUDO chroot "$CHROOT" runuser -u postgres -- psql -X -qAt -F ' ' -v ON_ERROR_STOP=1 -p "$pgport" \
        -d item_table -c "SELECT access_key_id, secret_access_key FROM item_table.create_access_key('app')" 2>>"$log")
    read -r key_id secret <<<"$key"
    if [ -n "${secret:-}" ]; then
        step "access key" OK "$key_id"
    else
        step "access key" FAIL
        return
    fi

    # the gateway as its unit runs it: ExecStart as User (a system user
    # standing in for the unit's DynamicUser), with /etc/item_table/gateway.conf
    local exec user uid gid
    exec=$(sed -n 's/^ExecStart=//p' "$CHROOT$unit" | tail -n 1)
    user=$(sed -n 's/^User=//p' "$CHROOT$unit" | tail -n 1)
    if [ -z "$exec" ] || [ -z "$user" ] || [[ "$exec" != *"--config /etc/item_table/gateway.conf"* ]]; then
        step "unit ExecStart and User" FAIL "ExecStart=$exec User=$user"
        return
    fi
    in_chroot "$log" useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
    if ! uid=$($SUDO chroot "$CHROOT" id -u "$user") || ! gid=$($SUDO chroot "$CHROOT" id -g "$user"); then
        step "user $user" FAIL
        return
    fi
    $SUDO tee "$CHROOT/etc/item_table/gateway.conf" >/dev/null <<EOF
# written by scripts/packages.sh check
dbname = dbname=item_table user=$user port=$pgport
listen = 127.0.0.1
port = $gwport
log = true
pool = 2
EOF
    local gwout="$LOG/gateway-$suite.out" gwlog="$LOG/gateway-$suite.log" started=0
    # shellcheck disable=SC2086  # ExecStart is a command line of plain words
    $SUDO chroot --userspec="$uid:$gid" "$CHROOT" $exec </dev/null >"$gwout" 2>"$gwlog" &
    GW_PID=$!
    for _ in $(seq 1 100); do
        grep -q 'listening on ' "$gwout" 2>/dev/null && { started=1; break; }
        kill -0 "$GW_PID" 2>/dev/null || break
        sleep 0.1
    done
    if [ "$started" = 1 ]; then
        step "gateway" OK "$exec, as $user (uid $uid): $(sed -n 's/.*listening on //p' "$gwout")"
    else
        cat "$gwlog"
        step "gateway" FAIL "ExecStart=$exec User=$user"
        return
    fi

    # from the host: boto3 with SigV4
    if python3 - "http://127.0.0.1:$gwport" "$key_id" "$secret" <<'PY' >>"$log" 2>&1
import sys
import boto3
import botocore.config

endpoint, key_id, secret = sys.argv[1:4]
c = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                 aws_access_key_id=key_id, aws_secret_access_key=secret,
                 config=botocore.config.Config(retries={"total_max_attempts": 1},
                                               connect_timeout=5, read_timeout=30))
c.create_table(TableName="pkgcheck",
               AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "N"}],
               KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}],
               BillingMode="PAY_PER_REQUEST")
c.get_waiter("table_exists").wait(TableName="pkgcheck", WaiterConfig={"Delay": 1, "MaxAttempts": 10})
item = {"pk": {"S": "USER#1"}, "sk": {"N": "1"}, "name": {"S": "Ada"},
        "tags": {"SS": ["a", "b"]}, "n": {"N": "3.14"}}
c.put_item(TableName="pkgcheck", Item=item)
got = c.get_item(TableName="pkgcheck", Key={"pk": {"S": "USER#1"}, "sk": {"N": "1"}},
                 ConsistentRead=True).get("Item")
got["tags"]["SS"].sort()
assert got == item, got
print("boto3: CreateTable, PutItem, GetItem ok:", got)
PY
    then
        step "boto3 CreateTable, PutItem, GetItem" OK "$(grep -c 'PutItem\|GetItem\|CreateTable' "$gwlog") logged requests"
    else
        tail -n 20 "$log"
        tail -n 20 "$gwlog"
        step "boto3 CreateTable, PutItem, GetItem" FAIL
    fi

    # SIGTERM: the gateway finishes and exits 0
    local rc
    kill -TERM "$GW_PID"
    wait "$GW_PID"
    rc=$?
    GW_PID=""
    if [ "$rc" -eq 0 ]; then step "gateway stops on SIGTERM" OK; else step "gateway stops on SIGTERM" FAIL "exit status $rc"; fi

    # purge: the server stopped, the packages and their files gone
    in_chroot "$log" pg_ctlcluster "$major" main stop
    missing=()
    if in_chroot "$log" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${pkgs[@]}"; then
        for p in /usr/bin/item_table_gateway /usr/bin/item_table_local /etc/item_table/gateway.conf /etc/item_table "$unit" \
                "/usr/lib/postgresql/$major/lib/item_table.so" \
                "/usr/lib/postgresql/$major/lib/bitcode/item_table" \
                "/usr/share/postgresql/$major/extension/item_table.control" \
                "/usr/share/postgresql/$major/extension/item_table--1.2.sql"; do
            [ -e "$CHROOT$p" ] && missing+=("$p")
        done
        for p in "${pkgs[@]}"; do
            # shellcheck disable=SC2016  # dpkg-query's ${field}
            $SUDO chroot "$CHROOT" dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qv '^not-installed$' &&
                missing+=("package $p")
        done
        if [ "${#missing[@]}" -eq 0 ]; then
            step "apt-get purge" OK "files and packages gone"
        else
            step "apt-get purge" FAIL "left: ${missing[*]}"
        fi
    else
        tail -n 20 "$log"
        step "apt-get purge" FAIL
    fi

    it_chroot_remove "$CHROOT"
    if [ -e "$CHROOT" ]; then step "chroot removed" FAIL "$CHROOT"; else step "chroot removed" OK; fi
    CHROOT=""
}

[ $# -ge 1 ] || usage
it_log_dir || exit 1
mkdir -p "$LOG" || exit 1
case "$1" in
    build)
        [ $# -eq 2 ] || usage
        cmd_build "$2"
        ;;
    check)
        [ $# -eq 3 ] || usage
        cmd_check "$2" "$3"
        ;;
    *)
        usage
        ;;
esac
finish
