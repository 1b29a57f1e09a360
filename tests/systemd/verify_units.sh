#!/usr/bin/env bash
# systemd's own checks of the shipped units, sysusers and tmpfiles files,
# offline: a scratch root holds the host's units, ours and stand-ins for the
# binaries they run. Any complaint fails the test (systemd-analyze verify
# exits 0 on unknown keys and bad values: its output is the verdict).
#   verify_units.sh SOURCE_DIR
set -euo pipefail
src=$1
root=$(mktemp -d "${TMPDIR:-/tmp}/smsupd-verify-units.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/usr/lib/systemd/system "$root"/usr/sbin "$root"/usr/bin "$root"/bin \
  "$root"/usr/lib/sysusers.d "$root"/usr/lib/tmpfiles.d "$root"/etc
cp -a /lib/systemd/system/. "$root"/usr/lib/systemd/system/
cp "$src"/systemd/smsupd.service "$src"/systemd/smsupd@.service "$root"/usr/lib/systemd/system/
printf '#!/bin/sh\n' >"$root"/usr/sbin/smsupd
printf '#!/bin/sh\n' >"$root"/usr/bin/smctl
chmod 755 "$root"/usr/sbin/smsupd "$root"/usr/bin/smctl
cp /bin/sh "$root"/bin/sh
cp /bin/systemctl "$root"/bin/systemctl
cp "$src"/systemd/smsupd.sysusers "$root"/usr/lib/sysusers.d/smsupd.conf
cp "$src"/systemd/smsupd.tmpfiles "$root"/usr/lib/tmpfiles.d/smsupd.conf
touch "$root"/etc/passwd "$root"/etc/group "$root"/etc/shadow "$root"/etc/gshadow

failed=0
check() {  # check DESCRIPTION CMD...: CMD must succeed and print nothing
  local what=$1 out
  shift
  if ! out=$("$@" 2>&1) || [ -n "$out" ]; then
    printf 'FAIL %s:\n%s\n' "$what" "$out"
    failed=1
  else
    echo "ok   $what"
  fi
}
# Man pages are checked where they are installed (the package test).
check "systemd-analyze verify smsupd.service smsupd@fabric-a.service" \
  systemd-analyze verify --man=no --root="$root" smsupd.service smsupd@fabric-a.service
sysusers() {  # quiet but for the line that says it made the group
  local out
  out=$(systemd-sysusers --root="$root" smsupd.conf 2>&1) || { echo "$out"; return 1; }
  grep -v "^Creating group 'smsupd'" <<<"$out" || true
}
check "systemd-sysusers smsupd.conf" sysusers
grep -q '^smsupd:' "$root"/etc/group || { echo "FAIL sysusers made no group smsupd"; failed=1; }
check "systemd-tmpfiles --create smsupd.conf" systemd-tmpfiles --root="$root" --create smsupd.conf
[ "$(stat -c %a "$root"/var/lib/smsupd)" = 700 ] || { echo "FAIL /var/lib/smsupd is not 0700"; failed=1; }
exposure=$(systemd-analyze security --offline=true --root="$root" smsupd.service 2>&1 |
  sed -n 's/.*Overall exposure level for smsupd.service: \([0-9.]*\).*/\1/p')
echo "systemd-analyze security: exposure $exposure (docs/systemd.md)"
awk -v e="$exposure" 'BEGIN { exit !(e != "" && e + 0 <= 2.2) }' ||
  { echo "FAIL exposure '$exposure' above 2.2"; failed=1; }
exit $failed
