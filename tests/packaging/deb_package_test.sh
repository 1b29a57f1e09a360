#!/usr/bin/env bash
# The .deb as an operator meets it, in a throw-away Debian 12 tree (not
# booted): dpkg -i fails on the missing libraries and apt-get -f install
# brings exactly what the package declares; files, owners and modes;
# smsupd --version and --check of the shipped config; man pages; the units
# through systemd-analyze verify; nothing enabled; an upgrade from the
# previous build (this one repacked with a lower version, so every
# maintainer script runs its upgrade path: preinst upgrade, the old
# prerm upgrade, postinst configure OLD-VERSION) and a reinstall over
# itself keep an edited conffile; postinst warns on stderr about an enabled
# opensm@ instance; purge leaves only what Debian policy keeps (the system
# group). Then the Ansible role of smsupd-ansible, run inside the tree,
# installs the .deb, masks opensm.service, writes the SM_Key file and
# enables the unit, showing the key nowhere.
#   deb_package_test.sh DEB_DIR TREE   (DEB_DIR holds smsupd_*.deb and smsupd-ansible_*.deb)
set -euo pipefail
deb=$(echo "$1"/smsupd_*.deb)
ansible_deb=$(echo "$1"/smsupd-ansible_*.deb)
base=$2
source "$(dirname "$0")/lib.sh"
[ -f "$deb" ] || { echo "no .deb in $1"; exit 1; }
[ -f "$ansible_deb" ] || { echo "no smsupd-ansible .deb in $1"; exit 1; }

step "the control file and maintainer scripts of $(basename "$deb")"
depends=$(dpkg-deb -f "$deb" Depends)
echo "   Depends: $depends"
maintainer=$(dpkg-deb -f "$deb" Maintainer)
[[ $maintainer == *@* && $maintainer != *localhost* ]] || { echo "FAIL Maintainer: $maintainer"; exit 1; }
[ "$(dpkg-deb -f "$deb" Recommends)" = "rdma-core, ibsim-utils, libumad2sim0" ] ||
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

# The previous build: this package with a lower version ("~prev1" sorts
# before the version itself).
version=$(dpkg-deb -f "$deb" Version)
previous_version="${version}~prev1"
repack="$dir/repack"
dpkg-deb -R "$deb" "$repack"
sed -i "s/^Version: .*/Version: $previous_version/" "$repack/DEBIAN/control"
dpkg-deb -b --root-owner-group "$repack" "$dir/root/root/smsupd-previous.deb" >/dev/null
rm -rf "$repack"
dpkg --compare-versions "$previous_version" lt "$version" || { echo "FAIL $previous_version is not older"; exit 1; }

step "dpkg -i the previous build ($previous_version) into a minimal Debian 12"
if in_tree "$dir" dpkg -i /root/smsupd-previous.deb >"$dir/dpkg.log" 2>&1; then
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

step "upgrade from $previous_version to $version, with an edited conffile"
in_tree "$dir" sh -c 'echo "# edited by the operator" >>/etc/smsupd/smsupd.yaml'
in_tree "$dir" dpkg -i /root/smsupd.deb >"$dir/upgrade.log" 2>&1 || { cat "$dir/upgrade.log"; exit 1; }
installed=$(in_tree "$dir" dpkg-query -W -f='${Version}' smsupd)
[ "$installed" = "$version" ] || { echo "FAIL installed version $installed after the upgrade, want $version"; exit 1; }
grep -qF "Unpacking smsupd ($version) over ($previous_version)" "$dir/upgrade.log" ||
  { cat "$dir/upgrade.log"; echo "FAIL dpkg did not upgrade over $previous_version"; exit 1; }
in_tree "$dir" sh -c 'tail -1 /etc/smsupd/smsupd.yaml | grep -qx "# edited by the operator"' ||
  { echo "FAIL the upgrade replaced the edited conffile"; exit 1; }
in_tree "$dir" sh -c 'smsupd --version >/dev/null && [ "$(stat -c %a /var/lib/smsupd)" = 700 ]' ||
  { echo "FAIL the package is broken after the upgrade"; exit 1; }
echo "ok   upgraded from $previous_version to $installed; the edited conffile stays"
in_tree "$dir" bash /root/check-installed.sh

step "dpkg -i over itself (a reinstall)"
in_tree "$dir" dpkg -i /root/smsupd.deb >"$dir/reinstall.log" 2>&1 || { cat "$dir/reinstall.log"; exit 1; }
in_tree "$dir" sh -c 'tail -1 /etc/smsupd/smsupd.yaml | grep -qx "# edited by the operator"' ||
  { echo "FAIL the reinstall replaced the edited conffile"; exit 1; }
echo "ok   reinstalled; the edited conffile stays"

step "opensm reinstalled (its postinst enables opensm.service again)"
in_tree "$dir" sh -c 'dpkg -i /var/cache/apt/archives/opensm_*.deb' >"$dir/opensm.log" 2>&1 ||
  { cat "$dir/opensm.log"; exit 1; }
in_tree "$dir" sh -c '[ "$(readlink /etc/systemd/system/opensm.service)" = /dev/null ]' ||
  { echo "FAIL reinstalling opensm unmasked opensm.service"; exit 1; }
echo "ok   opensm.service stays masked"

step "postinst warns on stderr about an enabled opensm@ instance"
grep -F "WARNING: opensm" "$dir/upgrade.log" && { echo "FAIL a warning with no opensm unit enabled"; exit 1; }
instance=opensm@0x0002c90300a1b2c3.service  # opensm.service names its instances by port GUID
in_tree "$dir" sh -c "mkdir -p /etc/systemd/system/multi-user.target.wants &&
  ln -s /lib/systemd/system/opensm@.service /etc/systemd/system/multi-user.target.wants/$instance &&
  dpkg -i /root/smsupd.deb >/root/warn.out 2>/root/warn.err" || { cat "$dir"/root/root/warn.*; exit 1; }
sed 's/^/   /' "$dir/root/root/warn.err"
grep -qF "smsupd: WARNING: $instance is enabled" "$dir/root/root/warn.err" &&
  grep -qF "systemctl disable --now $instance" "$dir/root/root/warn.err" ||
  { echo "FAIL no warning on stderr about $instance"; cat "$dir"/root/root/warn.*; exit 1; }
grep -qF "$instance" "$dir/root/root/warn.out" && { echo "FAIL the warning went to stdout"; exit 1; }
in_tree "$dir" rm "/etc/systemd/system/multi-user.target.wants/$instance"
echo "ok   $instance named on stderr with the command that ends it"

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

# The role on a node without smsupd (the purged tree), connection local:
# Debian's ansible-core in the tree, the role from smsupd-ansible, the .deb
# as smsupd_package_deb. The tree is not booted: the unit is enabled, not
# started (the role starts it only where systemd runs).
step "the Ansible role of smsupd-ansible in the tree"
in_tree "$dir" apt-get install -y -qq --no-install-recommends ansible-core python3-apt \
  >"$dir/ansible-apt.log" 2>&1 || { tail -20 "$dir/ansible-apt.log"; exit 1; }
cp "$ansible_deb" "$dir/root/root/smsupd-ansible.deb"
in_tree "$dir" dpkg -i /root/smsupd-ansible.deb >"$dir/ansible-deb.log" 2>&1 || { cat "$dir/ansible-deb.log"; exit 1; }
sm_key=0x5ec2e7000000c0de
mkdir -p "$dir/root/root/play"
cat >"$dir/root/root/play/inventory.yml" <<INVENTORY
all:
  hosts:
    sm-a:
      ansible_connection: local
      ansible_python_interpreter: /usr/bin/python3
      smsupd_package_deb: /root/smsupd.deb
      smsupd_sm_key: "$sm_key"
INVENTORY
cat >"$dir/root/root/play/play.yml" <<'PLAY'
- name: The role as the package installs it
  hosts: all
  gather_facts: false
  roles:
    - smsupd
PLAY
printf '[defaults]\n' >"$dir/root/root/play/ansible.cfg"
play() {  # LOG: one run, -v; prints the recap
  in_tree "$dir" sh -c "cd /root/play && ANSIBLE_CONFIG=/root/play/ansible.cfg ANSIBLE_NOCOLOR=1 \
    ansible-playbook -v -i inventory.yml play.yml >/root/play/$1 2>&1" ||
    { cat "$dir/root/root/play/$1"; echo "FAIL the role failed"; exit 1; }
  grep -A1 '^PLAY RECAP' "$dir/root/root/play/$1" | tail -1 | sed 's/^/   /'
}
changed() { grep -A1 '^PLAY RECAP' "$dir/root/root/play/$1" | tail -1 | sed -E 's/.*changed=([0-9]+).*/\1/'; }
play first.log
cat >"$dir/root/root/check-role.sh" <<CHECK
#!/bin/bash
set -u
failed=0
fail() { echo "FAIL \$*"; failed=1; }
ok() { echo "ok   \$*"; }
[ "\$(dpkg-query -W -f='\${Status}' smsupd)" = "install ok installed" ] && ok "smsupd installed from the .deb" ||
  fail "smsupd not installed"
[ "\$(readlink /etc/systemd/system/opensm.service)" = /dev/null ] && ok "opensm.service masked" ||
  fail "opensm.service not masked"
mode=\$(stat -c '%a %U:%G' /etc/smsupd/smsupd.sm_key 2>&1)
[ "\$mode" = "600 root:root" ] && ok "/etc/smsupd/smsupd.sm_key \$mode" || fail "/etc/smsupd/smsupd.sm_key: \$mode"
[ "\$(cat /etc/smsupd/smsupd.sm_key)" = "$sm_key" ] && ok "the key file holds the SM_Key" || fail "the key file holds another key"
grep -qx '  sm_key_file: "/etc/smsupd/smsupd.sm_key"' /etc/smsupd/smsupd.yaml && ok "smsupd.yaml names the key file" ||
  fail "smsupd.yaml does not name the key file: \$(cat /etc/smsupd/smsupd.yaml)"
grep -qi "${sm_key#0x}" /etc/smsupd/smsupd.yaml && fail "smsupd.yaml holds the key"
[ "\$(systemctl is-enabled smsupd.service)" = enabled ] && ok "smsupd.service enabled" || fail "smsupd.service not enabled"
ls /etc/smsupd/*.smsupd-previous 2>/dev/null && fail "a previous key file was left behind"
exit \$failed
CHECK
in_tree "$dir" bash /root/check-role.sh
# The key in any form: its hex digits without leading zeros (either case) or decimal.
key_forms=("${sm_key#0x}" "$(tr a-f A-F <<<"${sm_key#0x}")" "$((sm_key))")
for form in "${key_forms[@]}"; do
  grep -qF -- "$form" "$dir/root/root/play/first.log" && { echo "FAIL the output shows the SM_Key ($form)"; exit 1; }
done
echo "ok   the SM_Key is not in the output of ansible-playbook -v"
in_tree "$dir" systemctl unmask opensm.service >/dev/null 2>&1
play again.log
[ "$(changed again.log)" = 1 ] && [ "$(readlink "$dir/root/etc/systemd/system/opensm.service")" = /dev/null ] ||
  { cat "$dir/root/root/play/again.log"; echo "FAIL the role did not mask opensm.service again (only)"; exit 1; }
play third.log
[ "$(changed third.log)" = 0 ] || { cat "$dir/root/root/play/third.log"; echo "FAIL a third run changed something"; exit 1; }
echo "ok   an unmasked opensm.service is masked again; a third run changes nothing"
step "done"
