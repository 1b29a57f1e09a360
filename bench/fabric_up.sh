#!/usr/bin/env bash
# How long a generated fat tree takes to come up under a real OpenSM on the
# simulated fabric (default: 36 x 18 x 18 = 648 HCAs, 54 switches).
#
#   bench/fabric_up.sh [LEAVESxHOSTSxSPINES] [RUNS]
#
# Each run starts a fresh ibsim, walks it once, starts OpenSM (priority 15)
# on the first management node and prints:
#   far_ms  until the far HCA's port is Active with the master's SM LID;
#   all_ms  until a full directed-route walk finds every HCA so (its
#           resolution is one walk, walk_ms).
# Env: BUILD_DIR (default build/bench), FABRIC_UP (a built testbed-fabric-up).
set -euo pipefail
cd "$(dirname "$0")/.."

size=${1:-36x18x18}
runs=${2:-3}
build=${BUILD_DIR:-build/bench}
bin=${FABRIC_UP:-$build/tests/testbed/testbed-fabric-up}

if [ -z "${FABRIC_UP:-}" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" --target testbed-fabric-up testbed-probe >/dev/null
fi
echo "fabric ${size}: OpenSM bring-up, ${runs} run(s)"
"$bin" --fat-tree "$size" --runs "$runs"
