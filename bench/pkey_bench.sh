#!/usr/bin/env bash
# How long smsupd takes from `smctl reload` to "verified" for a P_Key change
# on a large simulated fat tree (default 36 x 18 x 18 = 648 HCAs, 54 switches).
#
#   bench/pkey_bench.sh [LEAVESxHOSTSxSPINES] [TRIALS]
#
# A fresh ibsim, one real smsupd (master) running its OpenSM on the first
# management node, a config naming every HCA. Each trial times
# `smctl --json reload --wait` (wall time, smctl start to exit) for
#   every-port  a partition of ALL ports moves to a new P_Key (every end port's
#               table changes)                               target < 5 s;
#   20-hosts    one partition's 20 members switch full <-> limited  target < 3 s;
# prints the daemon's own timings when its reply carries any (*ms fields),
# then confirms independently with the test bed's probe: the far port's table
# (one SMP) and a full directed-route walk compared with the product rule.
# Ends with median and max per change, then times `smctl --json why` between
# two far hosts: once with the daemon's subnet walk, then with the walk it
# shares for 30 s (two P_Key table reads)               target < 1 s.
# Env: BUILD_DIR (default build/bench), PKEY_BENCH (a built pkey-bench).
set -euo pipefail
cd "$(dirname "$0")/.."

size=${1:-36x18x18}
trials=${2:-3}
build=${BUILD_DIR:-build/bench}
bin=${PKEY_BENCH:-$build/tests/daemon/pkey_apply/pkey-bench}

if [ -z "${PKEY_BENCH:-}" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j2 --target pkey-bench smsupd smctl testbed-probe >/dev/null
fi
echo "fabric ${size}: smctl reload -> verified, ${trials} trial(s) of each change"
"$bin" --fat-tree "$size" --trials "$trials"
