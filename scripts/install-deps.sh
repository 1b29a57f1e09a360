#!/usr/bin/env bash
# Installs every Debian 12 package smsupd needs to build, test and run the demo:
# the libraries and the simulated fabric; pandoc for the man pages; dpkg-dev,
# file and rpm for the packages; systemd (systemd-analyze), debootstrap and
# systemd-container for the package and unit tests in a Debian tree; Debian's
# ansible-core and ansible-lint for the Ansible role's tests; logrotate for
# the test of the shipped logrotate file. lld links the test builds.
# python3 generates the benchmark config (bench/config_gen.py, also used by
# the import round-trip test).
# Idempotent: apt-get runs only when a package is missing.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config git procps python3
  libboost-dev libyaml-cpp-dev libspdlog-dev libfmt-dev libsystemd-dev
  nlohmann-json3-dev libcli11-dev googletest libgtest-dev libgmock-dev
  prometheus-cpp-dev prometheus
  libibumad-dev libibmad-dev libopensm-dev
  opensm infiniband-diags ibsim-utils libumad2sim0
  clang-14 libclang-rt-14-dev lld
  pandoc ansible-core ansible-lint logrotate
  dpkg-dev debhelper lintian devscripts fakeroot file rpm systemd debootstrap systemd-container
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
