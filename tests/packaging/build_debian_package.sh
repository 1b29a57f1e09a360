#!/usr/bin/env bash
# Builds the Debian packages from debian/ with dpkg-buildpackage (debhelper)
# in a copy of the source tree under OUT_DIR, so that the source tree and
# its parent stay clean, then checks what a Debian maintainer checks:
# lintian reports no error (the warnings kept are listed in
# docs/packaging.md), hardening-check passes on every binary, and the
# -dbgsym package was produced. Leaves the .debs in OUT_DIR.
#   build_debian_package.sh SOURCE_DIR OUT_DIR
# Build-Depends come from apt (scripts/install-deps.sh); no network is used.
# CMAKE_CXX_COMPILER_LAUNCHER from the environment (e.g. ccache) is honoured.
#
# With --build-only it stops after dpkg-buildpackage (scripts/test.sh builds
# the packages so while the other tests run). Packages already in OUT_DIR
# that were built from exactly the same files (OUT_DIR/.source-stamp, a
# hash of every file's name and content) are reused, not built again.
#   build_debian_package.sh [--build-only] SOURCE_DIR OUT_DIR
set -euo pipefail
build_only=0
[ "${1:-}" = --build-only ] && { build_only=1; shift; }
src=$(cd "$1" && pwd)
out=$2
# The tracked files (and the working tree's changes to them) only: never a
# build directory.
source_files() { (cd "$src" && git ls-files -z --cached --others --exclude-standard); }
stamp=$( (cd "$src" && source_files | xargs -0 -r sha256sum --) | sha256sum | cut -c1-32)

shopt -s nullglob
if [ -f "$out/.source-stamp" ] && [ "$(cat "$out/.source-stamp")" = "$stamp" ]; then
  echo "== dpkg-buildpackage: reusing the packages built from these same files"
  out=$(cd "$out" && pwd)
else
  rm -rf "$out"
  mkdir -p "$out/src"
  out=$(cd "$out" && pwd)
  (cd "$src" && source_files | tar --null -T - -cf -) | tar -C "$out/src" -xf -
  echo "== dpkg-buildpackage -us -uc -b"
  (cd "$out/src" && dpkg-buildpackage -us -uc -b -j2) >"$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log"; echo "FAIL dpkg-buildpackage"; exit 1; }
  echo "$stamp" >"$out/.source-stamp"
fi
debs=("$out"/*.deb)
printf '   %s\n' "${debs[@]##*/}"
for want in smsupd_ smsupd-dbgsym_ smsupd-ansible_; do
  found=("$out/$want"*.deb)
  [ ${#found[@]} = 1 ] || { echo "FAIL no ${want}*.deb was built"; exit 1; }
done
echo "ok   smsupd, smsupd-dbgsym and smsupd-ansible built"
((build_only)) && exit 0

echo "== lintian"
changes=("$out"/smsupd_*.changes)
lintian --info --display-info --pedantic "${changes[0]}" >"$out/lintian.log" 2>&1 || true
sed 's/^/   /' "$out/lintian.log"
if grep -E '^E: ' "$out/lintian.log"; then
  echo "FAIL lintian reports errors"
  exit 1
fi
echo "ok   lintian: no error"

echo "== hardening-check"
x=$(mktemp -d "${TMPDIR:-/tmp}/smsupd-hardening.XXXXXX")
trap 'rm -rf "$x"' EXIT
dpkg-deb -x "$out"/smsupd_*.deb "$x"
for bin in "$x/usr/sbin/smsupd" "$x/usr/bin/smctl"; do
  report=$(hardening-check --nocfprotection "$bin" 2>&1) ||
    { echo "$report"; echo "FAIL hardening-check ${bin#"$x"}"; exit 1; }
  for feature in "Stack protected: yes" "Fortify Source functions: yes" \
                 "Read-only relocations: yes" "Immediate binding: yes" \
                 "Position Independent Executable: yes"; do
    grep -qF "$feature" <<<"$report" || { echo "$report"; echo "FAIL ${bin#"$x"}: no '$feature'"; exit 1; }
  done
  echo "ok   ${bin#"$x"}: PIE, stack protector, FORTIFY, RELRO, BIND_NOW"
done

echo "== no test hooks in the shipped daemon"
if grep -qaF SMSUPD_FAULT_STOP_AT "$x/usr/sbin/smsupd"; then
  echo "FAIL /usr/sbin/smsupd carries the test fault hook SMSUPD_FAULT_STOP_AT"
  exit 1
fi
echo "ok   /usr/sbin/smsupd has no SMSUPD_FAULT_STOP_AT"
