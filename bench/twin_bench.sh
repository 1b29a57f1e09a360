#!/usr/bin/env bash
# How long `smctl plan --twin` takes on a large simulated fat tree, phase by
# phase: read topology (the live walk and tables), twin start (ibsim
# listening), OpenSM up (its first SUBNET UP on the copy), read back (the
# copy's tables), total; at 648 HCAs (36 x 18 x 18) and 2,592 HCAs
# (72 x 36 x 36, 72-port switches) by default.
#
#   bench/twin_bench.sh [LEAVESxHOSTSxSPINES...] [--trials N]
#
# A fresh ibsim per size, one real smsupd (master) with its OpenSM, a config
# naming every HCA. Target: a twin plan of the 648-HCA fabric in under 5 s.
# Env: BUILD_DIR (default build/bench), TWIN_BENCH (a built twin-bench).
set -euo pipefail
cd "$(dirname "$0")/.."

trials=3
sizes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --trials) trials=$2; shift 2 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[ ${#sizes[@]} -gt 0 ] || sizes=(36x18x18 72x36x36)
build=${BUILD_DIR:-build/bench}
bin=${TWIN_BENCH:-$build/tests/daemon/twin/twin-bench}

if [ -z "${TWIN_BENCH:-}" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j2 --target twin-bench smsupd smctl testbed-probe >/dev/null
fi
for size in "${sizes[@]}"; do
  echo "== fabric ${size}: smctl plan --twin, ${trials} trial(s)"
  "$bin" --fat-tree "$size" --trials "$trials"
done
