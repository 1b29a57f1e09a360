#!/usr/bin/env bash
# How much smsupd's subnet walk slows OpenSM's own heavy sweep, on a
# simulated fat tree (default 648 HCAs) with one plain OpenSM master:
# N sweeps (SIGHUP -> the next SUBNET UP in OpenSM's log) alone and N with
# smsupd's walk (its own UmadFabric code, run by fabric_probe on the SM's
# node) started at the same instant, interleaved; then the walk's own time
# and the share of sweeps smsupd's pacing lets a walk meet (the MASTER walks
# every max(10 s, 50 x the walk's time)).
#
#   bench/sweep_impact.sh [-n N] [--fat-tree LxHxS | PxLxHxSxC]
#
# Env: BUILD_DIR (default build/bench).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build/bench}
args=()
while (($#)); do
  case "$1" in
    -n) args+=(--sweeps "$2"); shift 2 ;;
    --fat-tree) args+=(--fat-tree "$2"); shift 2 ;;
    -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "usage: $0 [-n N] [--fat-tree LxHxS | PxLxHxSxC]" >&2; exit 2 ;;
  esac
done

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target sweep-impact-bench fabric_probe testbed-probe >/dev/null
echo "sweep impact bench: $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/tests/daemon/fabric/sweep-impact-bench" "${args[@]}"
