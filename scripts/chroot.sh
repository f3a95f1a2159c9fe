# shellcheck shell=bash
# Debian chroots for the other PostgreSQL majors (scripts/test.sh's version
# matrix) and for installing the packages into a clean system.
#
# Source this file after scripts/lib.sh.  A chroot is made with debootstrap
# from the Debian mirror the host's own apt sources name (IT_DEBIAN_MIRROR
# overrides), once per suite, and cached under IT_CHROOT_CACHE (default
# /var/cache/item_table/chroot):
#
#   SUITE.base.tar   a minimal system (debootstrap --variant=minbase) with
#                    apt's lists fetched; the clean system packages go into
#   SUITE-build/     that system plus whatever the tests installed in it;
#                    kept between runs, so the second run installs nothing
#
#   it_chroot_base SUITE            make SUITE.base.tar if missing
#   it_chroot_unpack SUITE DIR      a fresh copy of the base system in DIR
#   it_chroot_build SUITE           make SUITE-build/ if missing; prints it
#   it_chroot_run DIR CMD...        run CMD inside DIR with /proc, /sys, /dev,
#                                   /dev/pts and /dev/shm mounted, and take
#                                   the mounts down again
#   it_chroot_remove DIR            unmount anything left and delete DIR
#
# The chroots share the host's network and its process table: a server
# started inside listens on the host's loopback, and its processes must be
# stopped before it_chroot_run returns (it kills what is left).

IT_CHROOT_CACHE=${IT_CHROOT_CACHE:-/var/cache/item_table/chroot}
# where, inside a chroot, the host's CA bundle is copied
IT_CHROOT_HOST_CA=/etc/ssl/host-ca-certificates.crt

# The mirror the host installs Debian from: deb822 sources first, then
# one-line sources.  Only the URL, the suites are chosen here.
it_debian_mirror() {
    if [ -n "${IT_DEBIAN_MIRROR:-}" ]; then
        printf '%s\n' "$IT_DEBIAN_MIRROR"
        return 0
    fi
    local url
    url=$(awk '
        /^URIs:/ { uri = $2 }
        /^Suites:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/ && uri != "" && uri !~ /security/) { print uri; exit } }
        /^$/ { uri = "" }' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
    if [ -z "$url" ]; then
        url=$(awk '$1 == "deb" && $0 !~ /security/ {
                for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
            /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n 1)
    fi
    [ -n "$url" ] || { it_warn "no Debian mirror in the host's apt sources; set IT_DEBIAN_MIRROR"; return 1; }
    printf '%s\n' "$url"
}

# Keep the base tarballs and build chroots under the cache; a lock keeps two
# runs from making the same chroot at once.
it__chroot_lock() {
    $SUDO mkdir -p "$IT_CHROOT_CACHE" || return 1
    exec {IT_CHROOT_LOCK_FD}>>"$IT_CHROOT_CACHE/.lock" || return 1
    flock "$IT_CHROOT_LOCK_FD"
}

it__chroot_unlock() {
    [ -n "${IT_CHROOT_LOCK_FD:-}" ] && exec {IT_CHROOT_LOCK_FD}>&-
    IT_CHROOT_LOCK_FD=""
}

it_chroot_base() {
    local suite=$1 tar="$IT_CHROOT_CACHE/$1.base.tar"
    [ -s "$tar" ] && return 0
    it__chroot_lock || return 1
    if [ -s "$tar" ]; then it__chroot_unlock; return 0; fi
    it_log_dir && it_install_deps debootstrap || { it__chroot_unlock; return 1; }
    local mirror dir log="$IT_LOG_DIR/debootstrap-$suite.log" t0
    mirror=$(it_debian_mirror) || { it__chroot_unlock; return 1; }
    dir=$(mktemp -d "$IT_CHROOT_CACHE/.make-$suite.XXXXXX") || { it__chroot_unlock; return 1; }
    t0=$(date +%s.%N)
    it_say "chroot: debootstrap $suite (minimal system; log: ${log#"$IT_ROOT"/})"
    if ! $SUDO debootstrap --variant=minbase "$suite" "$dir" "$mirror" </dev/null >"$log" 2>&1; then
        tail -n 20 "$log" >&2
        $SUDO rm -rf -- "$dir"
        it__chroot_unlock
        it_warn "debootstrap $suite failed"
        return 1
    fi
    # apt inside: the same mirror, no recommends, no daemons started by
    # package scripts, no documentation.  The mirror may be a snapshot of
    # the archive whose Release files have passed their Valid-Until date.
    printf 'deb %s %s main\n' "$mirror" "$suite" | $SUDO tee "$dir/etc/apt/sources.list" >/dev/null
    printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\nAcquire::Check-Valid-Until "false";\n' |
        $SUDO tee "$dir/etc/apt/apt.conf.d/90item-table" >/dev/null
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$dir/usr/sbin/policy-rc.d" >/dev/null
    $SUDO chmod 755 "$dir/usr/sbin/policy-rc.d"
    printf 'path-exclude /usr/share/doc/*\npath-include /usr/share/doc/*/copyright\npath-exclude /usr/share/man/*\npath-exclude /usr/share/locale/*\n' |
        $SUDO tee "$dir/etc/dpkg/dpkg.cfg.d/90item-table" >/dev/null
    if ! $SUDO chroot "$dir" apt-get update </dev/null >>"$log" 2>&1; then
        tail -n 20 "$log" >&2
        $SUDO rm -rf -- "$dir"
        it__chroot_unlock
        it_warn "apt-get update in the $suite chroot failed"
        return 1
    fi
    $SUDO chroot "$dir" apt-get clean </dev/null >>"$log" 2>&1
    if ! $SUDO tar -C "$dir" -cf "$tar.tmp" . 2>>"$log" || ! $SUDO mv "$tar.tmp" "$tar"; then
        $SUDO rm -rf -- "$dir" "$tar.tmp"
        it__chroot_unlock
        it_warn "could not save the $suite base system"
        return 1
    fi
    $SUDO rm -rf -- "$dir"
    it__chroot_unlock
    it_say "chroot: $suite base system made in $(it_elapsed "$t0") s"
}

it_chroot_unpack() {
    local suite=$1 dir=$2
    it_chroot_base "$suite" || return 1
    # the root of a system is world-readable (mktemp made the original 0700)
    $SUDO mkdir -p "$dir" && $SUDO tar -C "$dir" -xf "$IT_CHROOT_CACHE/$suite.base.tar" &&
        $SUDO chmod 755 "$dir"
}

it_chroot_build() {
    local suite=$1 dir="$IT_CHROOT_CACHE/$1-build"
    if [ ! -e "$dir/.complete" ]; then
        $SUDO rm -rf -- "$dir"
        # its messages on stderr: stdout is the directory's name
        it_chroot_unpack "$suite" "$dir" >&2 || return 1
        $SUDO touch "$dir/.complete"
    fi
    printf '%s\n' "$dir"
}

# The mounts a chroot needs for PostgreSQL (shared memory, /proc for pg_ctl)
# and for apt (/dev/null, /dev/pts).
it__chroot_mount() {
    local dir=$1
    $SUDO mount -t proc proc "$dir/proc" &&
    $SUDO mount -t sysfs sysfs "$dir/sys" &&
    $SUDO mount --bind /dev "$dir/dev" &&
    $SUDO mount -t devpts -o newinstance,ptmxmode=0666 devpts "$dir/dev/pts" &&
    $SUDO mount -t tmpfs -o mode=1777 shm "$dir/dev/shm" &&
    $SUDO cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null
    # the certificate authorities the host trusts (a proxy in front of the
    # npm registry may sign with a local one): NODE_EXTRA_CA_CERTS names it
    if [ -s /etc/ssl/certs/ca-certificates.crt ]; then
        $SUDO mkdir -p "$dir/etc/ssl" &&
            $SUDO cp /etc/ssl/certs/ca-certificates.crt "$dir/$IT_CHROOT_HOST_CA" 2>/dev/null
    fi
    return 0
}

it__chroot_umount() {
    local dir=$1 m
    # deepest first
    for m in $(awk -v d="$(readlink -f "$dir")" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts | sort -r); do
        $SUDO umount "$m" 2>/dev/null || $SUDO umount -l "$m" 2>/dev/null || true
    done
}

# Kill every process whose root is DIR (a server or gateway left behind).
it__chroot_kill() {
    local dir pid root
    dir=$(readlink -f "$1")
    for pid in /proc/[0-9]*; do
        root=$($SUDO readlink "$pid/root" 2>/dev/null) || continue
        [ "$root" = "$dir" ] && $SUDO kill -KILL "${pid#/proc/}" 2>/dev/null
    done
    return 0
}

IT_CHROOT_ACTIVE=""   # the chroot it_chroot_run is in, for it_chroot_release

it_chroot_run() {
    local dir=$1 rc
    shift
    IT_CHROOT_ACTIVE=$dir
    it__chroot_mount "$dir" || { it_chroot_release; return 1; }
    $SUDO chroot "$dir" "$@"
    rc=$?
    it_chroot_release
    return "$rc"
}

# Stop what runs in the active chroot and take its mounts down (called by
# it_chroot_run, and by it_cleanup when a run is interrupted).
it_chroot_release() {
    [ -n "$IT_CHROOT_ACTIVE" ] || return 0
    it__chroot_kill "$IT_CHROOT_ACTIVE"
    it__chroot_umount "$IT_CHROOT_ACTIVE"
    IT_CHROOT_ACTIVE=""
}

it_chroot_remove() {
    local dir=$1
    [ -n "$dir" ] && [ -d "$dir" ] || return 0
    it__chroot_kill "$dir"
    it__chroot_umount "$dir"
    $SUDO rm -rf --one-file-system -- "$dir"
}
