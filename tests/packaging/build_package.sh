#!/usr/bin/env bash
# Builds one package from the build directory with CPack into OUT_DIR and
# prints its path. The build must be complete (binaries, man pages).
#   build_package.sh DEB|RPM BUILD_DIR OUT_DIR
set -euo pipefail
generator=$1
build=$2
out=$3
rm -rf "$out"
mkdir -p "$out"
cpack -G "$generator" -B "$out" --config "$build/CPackConfig.cmake" >"$out/cpack.log" 2>&1 ||
  { cat "$out/cpack.log"; exit 1; }
shopt -s nullglob
packages=("$out"/smsupd*.deb "$out"/smsupd*.rpm)
[ ${#packages[@]} = 1 ] || { echo "expected one package in $out, found: ${packages[*]}"; exit 1; }
echo "${packages[0]}"
