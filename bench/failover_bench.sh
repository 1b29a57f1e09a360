#!/usr/bin/env bash
# Failover times on a simulated fat tree (default the 648-HCA tree: 36
# leaves x 18 hosts, 18 spines), side by side in one run, N trials per row,
# each trial on a fresh fabric:
#   plain OpenSM with its defaults (master 15 + standby 5, no smsupd),
#   OpenSM tuned to sminfo_polling_timeout 1000 x polling_retry_number 2,
#   the floor: two plain OpenSMs, a HANDOVER sent to the standby the instant
#   the master is lost (what no supervisor can beat: only OpenSM's sweep),
#   smsupd (two smsupd, role master + role standby, each running its OpenSM);
# for (a) kill -9 of the master's OpenSM, (b) loss of the master node (its
# HCA port unlinked in ibsim): the time until the far HCA's SM LID points at
# a MASTER again (the test bed's probe reads the far HCA's PortInfo and that
# SM's SMInfo every 10 ms); for smsupd also (c) `smctl failover --wait` (its
# run time, the time until the far HCA sees the new master, and the longest
# moment in which neither SM answered MASTER, read every 100 ms, the time
# until the old master's restarted OpenSM is STANDBY, and the 100 ms reads
# until then that showed it MASTER again: a flip back, target 0), the time
# from the loss to its event in the standby's `smctl events`, and the median
# of every stage of both nodes' failover-timeline events.
# Prints one line per trial (stderr) and a table with median and max per row
# and the targets, against the floor of the same run: (a) median <= 1.2 x
# the floor's, every trial <= 2 x; (c) every trial <= 2 x the floor of (a),
# never without MASTER;
# events < 1 s; (b) has no target beside its floor (a lost node must first
# be detected, the floor is told at the instant).
# --flood validate: in every smsupd trial, 128 connections of control.group
# members on each node ask `validate` back to back (both configs 10,000
# hosts larger, so that one validation costs ~0.2 s) from before the fault on.
# --stages: only the floor rows, in which the new master's OpenSM logs at log_flags
# 0x07, and its first sweep as master is timed stage by stage from its own
# log (discovery, P_Keys, LIDs, the routing computed, the LFTs written,
# multicast, links, SUBNET UP), with the far HCA's first PathRecord answered
# by its SA (saquery PR's query, sent every 10 ms once the far HCA sees the
# new master).
# --master-opensm KEY=VALUE, --standby-opensm KEY=VALUE (repeatable): more
# opensm.conf options for the floor's first master and for its standby, the
# new master (e.g. the file routing engine fed with the master's dumps).
# Every smsupd row also counts MASTER_LOST takeovers (`master-lost` events
# of either node) in its set-up and, for (a) and (c), after the fault: none
# is asked for, target 0. --watch-after S ends each of those trials no
# sooner than S seconds after the fault, so that the count covers the new
# master's later heavy sweeps (its raise to 15).
# --load S instead measures the MADs/s each smsupd sends over S seconds in
# the steady state, then one `reload --wait` adding a partition of every port.
#
#   bench/failover_bench.sh [-n N] [--skip-defaults] [--skip-tuned] [--fat-tree LxHxS | PxLxHxSxC] [--keep]
#                           [--only kill|loss|command]... [--flood validate] [--stages]
#                           [--master-opensm KEY=VALUE]... [--standby-opensm KEY=VALUE]...
#   bench/failover_bench.sh --load S [--fat-tree ...]
#
# The OpenSM-defaults rows take ~60 s per trial (OpenSM's own polling).
# Env: BUILD_DIR (default build/bench), FAILOVER_BENCH (a built failover-bench).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build/bench}
bin=${FAILOVER_BENCH:-$build/tests/daemon/failover/failover-bench}

args=()
while (($#)); do
  case "$1" in
    -n) args+=(--trials "$2"); shift 2 ;;
    -n*) args+=(--trials "${1#-n}"); shift ;;
    --skip-defaults | --skip-tuned | --keep | --stages) args+=("$1"); shift ;;
    --fat-tree) args+=(--fat-tree "$2"); shift 2 ;;
    --only) args+=(--only "$2"); shift 2 ;;
    --load) args+=(--load "$2"); shift 2 ;;
    --flood) args+=(--flood "$2"); shift 2 ;;
    --master-opensm | --standby-opensm) args+=("$1" "$2"); shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;p}' "$0"; exit 0 ;;
    *) echo "usage: $0 [-n N] [--skip-defaults] [--skip-tuned] [--fat-tree LxHxS | PxLxHxSxC] [--keep] [--only kill|loss|command] [--flood validate] [--stages] [--master-opensm K=V] [--standby-opensm K=V] [--load S]" >&2; exit 2 ;;
  esac
done

if [ -z "${FAILOVER_BENCH:-}" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" --target failover-bench smsupd smctl testbed-probe control-flood >/dev/null
fi
echo "failover bench: $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin" "${args[@]}"
