#!/usr/bin/env bash
# `smctl failover` on the standby (a claim) with and without a connection
# flood on that node's control socket. Runs
# FloodTest.StatusAndFailoverHoldUnderAThousandHostileConnections N times
# (default 10) on an 8-HCA simulated fat tree: each run makes one claim
# before the flood and one during it (1,000 hostile connections from eight
# uids of the control group, run at nice 19), and prints the time from the
# command until the claimer is the sole master. Prints every run and the
# medians; the target is the flood's median within 1.2x of the quiet one.
#
#   bench/flood_claim_bench.sh [-n N]
#
# Builds in build/bench (BUILD_DIR to change). Takes ~20 s per run. Run it
# on an otherwise idle machine: the two nodes, both OpenSMs and the
# simulator share its CPUs.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=10
while (($#)); do
  case "$1" in
    -n) runs=$2; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "usage: $0 [-n N]" >&2; exit 2 ;;
  esac
done

build=${BUILD_DIR:-build/bench}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target flood_integration_test smsupd smctl testbed-probe testbed-reaper control-flood \
  >/dev/null
test_bin=$build/tests/daemon/faults/flood_integration_test

echo "flood claim bench: $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
quiet=() flood=()
for ((i = 1; i <= runs; i++)); do
  out=$("$test_bin" --gtest_filter=FloodTest.StatusAndFailoverHoldUnderAThousandHostileConnections 2>&1) || {
    echo "$out" | tail -30
    echo "run $i failed" >&2
    exit 1
  }
  q=$(sed -n 's/^quiet: smctl failover on the standby (a claim) -> it is sole master in \([0-9]*\) ms.*/\1/p' <<<"$out")
  f=$(sed -n 's/^flood: smctl failover on the standby (a claim) -> it is sole master in \([0-9]*\) ms.*/\1/p' <<<"$out")
  [ -n "$q" ] && [ -n "$f" ] || { echo "run $i: no claim times in the test's output" >&2; exit 1; }
  quiet+=("$q") flood+=("$f")
  printf 'run %2d: claim quiet %5d ms, flood %5d ms\n' "$i" "$q" "$f"
done

median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
mq=$(median "${quiet[@]}") mf=$(median "${flood[@]}")
awk -v q="$mq" -v f="$mf" -v n="$runs" \
  'BEGIN {printf "median of %d: quiet %.0f ms, flood %.0f ms: %.2fx (target <= 1.2x: %s)\n", n, q, f, f / q, (f <= 1.2 * q) ? "met" : "not met"}'
