#!/usr/bin/env bash
# Builds the minimal Debian 12 tree the package and systemd tests install
# into (debootstrap from the Debian mirror, $SMSUPD_DEBIAN_MIRROR or
# deb.debian.org): systemd, dbus and man-db, apt lists fresh. Kept in the
# build directory and reused while this script is unchanged.
#   debian_root.sh TREE
set -euo pipefail
tree=$1
mirror=${SMSUPD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
stamp=$(sha256sum "$0" | cut -c1-16)
source "$(dirname "$0")/lib.sh"

# update_lists TREE: fresh apt lists in TREE (the tests install from them).
update_lists() {
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/smsupd-debian-root.XXXXXX")
  mkdir -p "$dir/root"
  mount --bind "$1" "$dir/root"
  in_tree "$dir" apt-get update -qq || { umount "$dir/root"; rmdir "$dir/root" "$dir"; return 1; }
  umount "$dir/root"
  rmdir "$dir/root" "$dir"
  rm -rf "/run/systemd/nspawn/propagate/$(tree_machine "$dir")"
}

if [ -f "$tree/.smsupd-tree" ] && [ "$(cat "$tree/.smsupd-tree")" = "$stamp" ]; then
  # A mirror drops superseded packages: lists older than half a day are renewed.
  if [ -n "$(find "$tree/var/lib/apt/lists" -maxdepth 0 -mmin +720)" ]; then
    step "renewing the apt lists of $tree"
    update_lists "$tree"
    touch "$tree/var/lib/apt/lists"
  fi
  echo "reusing $tree"
  exit 0
fi
rm -rf "$tree" "$tree.new"
mkdir -p "$(dirname "$tree")"
step "debootstrap bookworm from $mirror into $tree"
debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,man-db \
  bookworm "$tree.new" "$mirror" >"$tree.log" 2>&1 || { tail -20 "$tree.log"; exit 1; }
# No recommends, as the tests ask for none; apt lists for the tests' installs.
echo 'APT::Install-Recommends "false";' >"$tree.new/etc/apt/apt.conf.d/90smsupd-tests"
update_lists "$tree.new"
echo "$stamp" >"$tree.new/.smsupd-tree"
mv "$tree.new" "$tree"
step "tree ready: $(du -sh "$tree" | cut -f1)"
