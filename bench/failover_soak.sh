#!/usr/bin/env bash
# The failover soak on the 648-HCA simulated fat tree (36 leaves x 18 hosts,
# 18 spines): two real smsupd + OpenSM nodes, the fabric read every 10 ms
# (every SM's SMInfo; a "no master" confirmed by a second, reversed pass),
# for each scenario the longest window with no MASTER and with two, and the
# median and max time of the cycle's action:
#   50 x smctl restart-opensm --wait, alternating between the nodes
#        (target: no window without master over 1 s)
#   20 x cold start of both nodes within 50 ms on a fresh fabric
#        (target: none over 2 s once a master was seen)
#   20 x kill -9 of the master's smsupd during reload --wait, then its restart
#   20 x master node lost, back 2-10 s later, without and with preempt
#   every scenario: never two MASTERs for more than 2 s
#
#   bench/failover_soak.sh [--fat-tree LxHxS | PxLxHxSxC] [--restarts N] [--cold-starts N]
#                          [--kills N] [--losses N] [--seed S] [--keep]
#
# Takes about 25 minutes with the defaults. Env: BUILD_DIR (default
# build/bench), FAILOVER_SOAK (a built failover-soak).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build/bench}
bin=${FAILOVER_SOAK:-$build/tests/daemon/failover/failover-soak}
if [ -z "${FAILOVER_SOAK:-}" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" --target failover-soak smsupd smctl testbed-probe >/dev/null
fi
echo "failover soak: $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin" "$@"
