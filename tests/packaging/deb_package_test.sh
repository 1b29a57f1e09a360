#!/usr/bin/env bash
# The .deb as an operator meets it, in a throw-away Debian 12 tree (not
# booted): dpkg -i fails on the missing libraries and apt-get -f install
# brings exactly what the package declares; files, owners and modes;
# smsupd --version and --check of the shipped config; man pages; the units
# through systemd-analyze verify; nothing enabled; an upgrade over itself
# keeps an edited conffile; purge leaves only what Debian policy keeps (the
# system group).
#   deb_package_test.sh DEB_DIR TREE   (DEB_DIR holds the one smsupd_*.deb)
set -euo pipefail
deb=$(echo "$1"/smsupd_*.deb)
base=$2
source "$(dirname "$0")/lib.sh"
[ -f "$deb" ] || { echo "no .deb in $1"; exit 1; }

step "the control file and maintainer scripts of $(basename "$deb")"
depends=$(dpkg-deb -f "$deb" Depends)
echo "   Depends: $depends"
maintainer=$(dpkg-deb -f "$deb" Maintainer)
[[ $maintainer == *@* && $maintainer != *localhost* ]] || { echo "FAIL Maintainer: $maintainer"; exit 1; }
[ "$(dpkg-deb -f "$deb" Recommends)" = "rdma-core, ibsim-utils" ] ||
  { echo "FAIL Recommends: $(dpkg-deb -f "$deb" Recommends)"; exit 1; }
for need in opensm procps libibumad3 libibmad5 libyaml-cpp0.7 libsystemd0 libstdc++6; do
  [[ ", $depends," == *", $need"[\ ,]* ]] || { echo "FAIL Depends lacks $need (computed by dpkg-shlibdeps)"; exit 1; }
done
control=$(mktemp -d "${TMPDIR:-/tmp}/smsupd-deb-control.XXXXXX")
dpkg-deb -e "$deb" "$control"
# (dh_installsystemd --no-enable keeps only an enablement the operator made
# before, through deb-systemd-helper: checked below, nothing is enabled.)
if grep -v '^ *#' "$control"/postinst "$control"/prerm "$control"/postrm |
  grep -E '(systemctl|deb-systemd-invoke) +(--[a-z-]+ +)*(restart|try-restart|reload-or-restart|enable|start)\b'; then
  echo "FAIL a maintainer script enables, starts or restarts a unit"
  exit 1
fi
[ "$(sort "$control/conffiles" | tr '\n' ' ')" = "/etc/logrotate.d/smsupd /etc/smsupd/smsupd.yaml " ] ||
  { echo "FAIL conffiles: $(cat "$control/conffiles")"; exit 1; }
rm -rf "$control"
echo "ok   Depends computed; scripts enable, start and restart nothing; smsupd.yaml and the logrotate file conffiles"

dir=$(mktemp -d "${TMPDIR:-/tmp}/smsupd-deb-test.XXXXXX")
trap 'tree_down "$dir"' EXIT
tree_up "$base" "$dir"
cp "$deb" "$dir/root/root/smsupd.deb"

step "dpkg -i $(basename "$deb") into a minimal Debian 12"
if in_tree "$dir" dpkg -i /root/smsupd.deb >"$dir/dpkg.log" 2>&1; then
  echo "FAIL dpkg -i succeeded without the libraries: Depends is empty?"
  exit 1
fi
grep -E "depends on" "$dir/dpkg.log" | sed 's/^/   /'
step "apt-get -f install"
in_tree "$dir" apt-get -f install -y -qq >"$dir/apt.log" 2>&1 || { tail -20 "$dir/apt.log"; exit 1; }
grep -E "^(Setting up|Unpacking)" "$dir/apt.log" | sed 's/^/   /' | head -40

step "checks of the installed package"
cat >"$dir/root/root/check-installed.sh" <<'CHECK'
#!/bin/bash
set -u
failed=0
fail() { echo "FAIL $*"; failed=1; }
ok() { echo "ok   $*"; }
expect_mode() {  # PATH MODE OWNER:GROUP
  local got
  got=$(stat -c '%a %U:%G' "$1" 2>/dev/null) || { fail "$1 missing"; return; }
  [ "$got" = "$2 $3" ] && ok "$1 $got" || fail "$1 is $got, want $2 $3"
}
[ "$(dpkg-query -W -f='${Status}' smsupd)" = "install ok installed" ] && ok "installed" || fail "not installed"
expect_mode /usr/sbin/smsupd 755 root:root
expect_mode /usr/bin/smctl 755 root:root
expect_mode /etc/smsupd 755 root:root
expect_mode /etc/smsupd/smsupd.yaml 644 root:root
expect_mode /etc/logrotate.d/smsupd 644 root:root
expect_mode /lib/systemd/system/smsupd.service 644 root:root
expect_mode /lib/systemd/system/smsupd@.service 644 root:root
expect_mode /usr/lib/sysusers.d/smsupd.conf 644 root:root
expect_mode /usr/lib/tmpfiles.d/smsupd.conf 644 root:root
expect_mode /usr/share/bash-completion/completions/smctl 644 root:root
expect_mode /var/lib/smsupd 700 root:root
expect_mode /var/log/smsupd 750 root:root
getent group smsupd >/dev/null && ok "group smsupd" || fail "no group smsupd"
dpkg-query -W -f='${Conffiles}\n' smsupd | grep -q '/etc/smsupd/smsupd.yaml' &&
  ok "conffile /etc/smsupd/smsupd.yaml" || fail "smsupd.yaml is not a conffile"
out=$(smsupd --version) && [[ $out == "smsupd "[0-9]* ]] && ok "smsupd --version: $out" || fail "smsupd --version: $out"
out=$(smctl version 2>/dev/null)
[[ $out == "smctl "[0-9]* ]] && ok "smctl version: ${out%%$'\n'*}" || fail "smctl version: $out"
out=$(smsupd --check /etc/smsupd/smsupd.yaml 2>&1) && ok "smsupd --check the shipped config: $out" ||
  fail "smsupd --check /etc/smsupd/smsupd.yaml: $out"
for page in smsupd.8 smctl.8 smsupd.yaml.5; do
  name=${page%.*}
  text=$(MANPAGER=cat MANWIDTH=80 man "${page##*.}" "$name" 2>&1 | tr -s ' ')
  [[ $text == *"$name - "* ]] && ok "man ${page##*.} $name" || fail "man ${page##*.} $name: ${text:0:200}"
done
out=$(systemd-analyze verify smsupd.service smsupd@fabric-a.service 2>&1)
[ -z "$out" ] && ok "systemd-analyze verify (with man pages)" || fail "systemd-analyze verify: $out"
for unit in smsupd.service smsupd@fabric-a.service; do
  state=$(systemctl is-enabled "$unit" 2>&1)
  [ "$state" = disabled ] && ok "$unit not enabled" || fail "$unit is '$state': the package enabled it"
done
# Debian's opensm.service (enabled by opensm's postinst) would run a plain
# OpenSM on every port: the package masks it.
[ "$(readlink /etc/systemd/system/opensm.service)" = /dev/null ] && ok "opensm.service masked" ||
  fail "opensm.service not masked: $(ls -l /etc/systemd/system/opensm.service 2>&1)"
leaked=$(find /etc/smsupd /var/lib/smsupd /var/log/smsupd -perm -o=r -type f -name '*key*' 2>/dev/null)
[ -z "$leaked" ] || fail "world-readable key files: $leaked"
exit $failed
CHECK
in_tree "$dir" bash /root/check-installed.sh

step "dpkg -i over itself, with an edited conffile"
in_tree "$dir" sh -c 'echo "# edited by the operator" >>/etc/smsupd/smsupd.yaml'
in_tree "$dir" dpkg -i /root/smsupd.deb >"$dir/upgrade.log" 2>&1 || { cat "$dir/upgrade.log"; exit 1; }
in_tree "$dir" sh -c 'tail -1 /etc/smsupd/smsupd.yaml | grep -qx "# edited by the operator"' ||
  { echo "FAIL the upgrade replaced the edited conffile"; exit 1; }
in_tree "$dir" sh -c 'smsupd --version >/dev/null && [ "$(stat -c %a /var/lib/smsupd)" = 700 ]' ||
  { echo "FAIL the package is broken after the upgrade"; exit 1; }
echo "ok   upgraded; the edited conffile stays"

step "opensm reinstalled (its postinst enables opensm.service again)"
in_tree "$dir" sh -c 'dpkg -i /var/cache/apt/archives/opensm_*.deb' >"$dir/opensm.log" 2>&1 ||
  { cat "$dir/opensm.log"; exit 1; }
in_tree "$dir" sh -c '[ "$(readlink /etc/systemd/system/opensm.service)" = /dev/null ]' ||
  { echo "FAIL reinstalling opensm unmasked opensm.service"; exit 1; }
echo "ok   opensm.service stays masked"

step "dpkg --purge, after the operator enabled a unit and the daemon left state"
in_tree "$dir" sh -c 'systemctl enable smsupd.service >/dev/null 2>&1 &&
  mkdir -p /var/lib/smsupd/generations/1 /var/lib/smsupd-fabric-b /var/log/smsupd-fabric-b &&
  touch /var/log/smsupd/opensm.log && dpkg -L smsupd >/root/package-files'
in_tree "$dir" dpkg --purge smsupd >"$dir/purge.log" 2>&1 || { cat "$dir/purge.log"; exit 1; }
cat >"$dir/root/root/check-purged.sh" <<'CHECK'
#!/bin/bash
set -u
failed=0
fail() { echo "FAIL $*"; failed=1; }
dpkg-query -W -f='${Status}' smsupd 2>/dev/null | grep -q installed && fail "smsupd still installed"
# Every file of the package is gone; its directories stay only where other
# packages use them.
while read -r path; do
  [ "$path" = /. ] && continue
  [ -e "$path" ] || continue
  if [ -d "$path" ] && [ -n "$(dpkg -S "$path" 2>/dev/null)" ]; then continue; fi
  fail "left behind: $path"
done </root/package-files
for path in /etc/smsupd /var/lib/smsupd /var/log/smsupd /var/lib/smsupd-fabric-b /var/log/smsupd-fabric-b; do
  [ -e "$path" ] && fail "left behind: $path"
done
links=$(find /etc/systemd/system -name 'smsupd*' 2>/dev/null)
[ -z "$links" ] || fail "enablement left behind: $links"
[ -e /etc/systemd/system/opensm.service ] && fail "opensm.service still masked after the purge"
getent group smsupd >/dev/null || fail "the group smsupd was removed (Debian policy keeps system groups)"
[ $failed = 0 ] && echo "ok   purged: nothing left but the group smsupd"
exit $failed
CHECK
in_tree "$dir" bash /root/check-purged.sh
step "done"
