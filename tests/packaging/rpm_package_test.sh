#!/usr/bin/env bash
# The .rpm, built from the same CPack description as the .deb, inspected
# with rpm: its files and modes (rpm -qlvp), the config file (rpm -qpc), the
# requirements rpmbuild computed from the binaries plus what is run
# (rpm -qpR), and scriptlets that enable and restart nothing.
#   rpm_package_test.sh BUILD_DIR OUT_DIR
set -euo pipefail
rpm=$("$(dirname "$0")/build_package.sh" RPM "$1" "$2")
failed=0
fail() { echo "FAIL $*"; failed=1; }
ok() { echo "ok   $*"; }
echo "== $(rpm -qp --qf '%{NAME} %{VERSION}-%{RELEASE} %{ARCH}' "$rpm" 2>/dev/null)"

listing=$(rpm -qlvp "$rpm" 2>/dev/null)
expect_file() {  # PATH MODE: present, owned by root, with that mode string
  local line
  line=$(awk -v p="$1" '$NF == p' <<<"$listing")
  if [ -z "$line" ]; then fail "$1 not in the package"; return; fi
  read -r mode _ owner group _ <<<"$line"
  [ "$mode $owner $group" = "$2 root root" ] && ok "$1 $mode" || fail "$1: $line"
}
expect_file /usr/sbin/smsupd -rwxr-xr-x
expect_file /usr/bin/smctl -rwxr-xr-x
expect_file /etc/smsupd/smsupd.yaml -rw-r--r--
expect_file /etc/logrotate.d/smsupd -rw-r--r--
expect_file /usr/lib/systemd/system/smsupd.service -rw-r--r--
expect_file /usr/lib/systemd/system/smsupd@.service -rw-r--r--
expect_file /usr/lib/sysusers.d/smsupd.conf -rw-r--r--
expect_file /usr/lib/tmpfiles.d/smsupd.conf -rw-r--r--
expect_file /usr/share/man/man8/smsupd.8.gz -rw-r--r--
expect_file /usr/share/man/man8/smctl.8.gz -rw-r--r--
expect_file /usr/share/man/man5/smsupd.yaml.5.gz -rw-r--r--
expect_file /usr/share/bash-completion/completions/smctl -rw-r--r--
expect_file /usr/share/doc/smsupd/README.md -rw-r--r--
expect_file /usr/share/ansible/roles/smsupd/tasks/main.yml -rw-r--r--
# Directories of the system (/etc, /usr/lib/systemd, ...) are not the package's.
for dir in /etc /etc/logrotate.d /usr/sbin /usr/lib/systemd/system /usr/share/man/man8; do
  rpm -qlp "$rpm" 2>/dev/null | grep -qx "$dir" && fail "the package claims $dir"
done

[ "$(rpm -qpc "$rpm" 2>/dev/null | sort | tr '\n' ' ')" = "/etc/logrotate.d/smsupd /etc/smsupd/smsupd.yaml " ] &&
  ok "config: /etc/smsupd/smsupd.yaml /etc/logrotate.d/smsupd" ||
  fail "rpm -qpc: $(rpm -qpc "$rpm" 2>&1)"

requires=$(rpm -qpR "$rpm" 2>/dev/null)
for need in opensm util-linux 'libibumad.so.3()(64bit)' 'libibmad.so.5()(64bit)' 'libyaml-cpp.so.0.7()(64bit)' \
  'libsystemd.so.0()(64bit)'; do
  grep -qxF "$need" <<<"$requires" && ok "requires $need" || fail "rpm -qpR lacks $need"
done

scripts=$(rpm -qp --scripts "$rpm" 2>/dev/null | grep -v '^ *#')
if grep -E 'systemctl +(--[a-z-]+ +)*(restart|try-restart|reload-or-restart|enable|start)\b' <<<"$scripts"; then
  fail "a scriptlet enables, starts or restarts a unit"
else
  ok "scriptlets enable, start and restart nothing"
fi
exit $failed
