#!/usr/bin/env bash
# What a `smctl ports` read-out costs, on simulated fat trees with one plain
# OpenSM master (default: 648 HCAs = 36x18x18, then 2,592 HCAs = 72x36x36).
# A read-out is what the daemon sends for one: the directed-route walk, then
# PerfMgt PortCounters of every linked port in chunks of
# PortsMonitor::kCounterChunk with PortsMonitor::kChunkPause after each
# (fabric_probe `readout`, smsupd's own UmadFabric code and constants, run on
# the SM's node). For each size (sweep-impact-bench --readout):
#   - the read-out alone, N times: its time (walk + counters), its MADs,
#     the MAD rate over the read-out and the PerfMgt rate over the counters;
#   - N heavy sweeps of OpenSM (SIGHUP -> SUBNET UP) in each of three rows,
#     interleaved: alone; with a read-out started at the SIGHUP (its walk
#     overlaps the sweep: the worst case); with the sweep started once the
#     read-out's walk is over (only the paced counter reads beside it);
#   - the share of sweeps the daemon's 60 s period lets a read-out's walk,
#     and its counter reads, meet, and the average slowdown that makes.
#
# TARGET (at 648 HCAs, medians):
#   - a full read-out in at most 5 s;
#   - at most 1,000 PerfMgt MADs/s over the counter phase;
#   - OpenSM's heavy sweep slowed by at most 5% while the paced counter
#     reads run beside it;
#   - on average over the daemon's 60 s period, sweeps slowed by at most 1%
#     (the walk's slowdown times the share of sweeps a walk can meet, plus
#     the counter reads' slowdown times the share they can meet).
# The walk itself is the one the P_Key verifier runs (bench/sweep_impact.sh):
# a sweep it overlaps entirely is slower; the row shows by how much.
# The script prints "target: met" or "target: MISSED (...)" for 648 HCAs.
# On a machine shared with other jobs, sweep times spread by 2x: judge the
# sweep rows on -n 15 or more (a 5-sweep median moves by tens of percent).
#
#   bench/ports_bench.sh [-n N] [--fat-tree LxHxS | PxLxHxSxC ...]
#
# Env: BUILD_DIR (default build/bench).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build/bench}
runs=5
sizes=()
usage() { echo "usage: $0 [-n N] [--fat-tree LxHxS | PxLxHxSxC ...]" >&2; exit 2; }
while (($#)); do
  case "$1" in
    -n) (($# >= 2)) && [[ $2 =~ ^[1-9][0-9]{0,3}$ ]] || usage; runs=$2; shift 2 ;;
    --fat-tree) (($# >= 2)) || usage; sizes+=("$2"); shift 2 ;;
    -h | --help) sed -n '2,34p' "$0"; exit 0 ;;
    *) usage ;;
  esac
done
((${#sizes[@]})) || sizes=(36x18x18 72x36x36)

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target sweep-impact-bench fabric_probe testbed-probe >/dev/null
bench="$build/tests/daemon/fabric/sweep-impact-bench"

# The target, from one size's output (only 648 HCAs has one).
verdict() {
  awk '
    /^read-out alone, sweeps idle/ { idle = 1; next }
    /^read-out beside a sweep/ { idle = 0 }
    idle && /^  total/ { total = $2 }
    idle && /PerfMgt .* \/s over the counter phase/ { for (i = 1; i <= NF; i++) if ($i == "PerfMgt") perf = $(i + 1) }
    /^sweep slowed by the paced counter reads:/ { slow = $NF; sub(/%/, "", slow) }
    /^smsupd reads every 60 s:/ && match($0, /[-+][0-9.]+% on average/) { avg = substr($0, RSTART, RLENGTH - 12) }
    END {
      miss = ""
      if (total + 0 > 5000) miss = miss " read-out " total " ms > 5000 ms;"
      if (perf + 0 > 1000) miss = miss " PerfMgt " perf "/s > 1000/s;"
      if (slow + 0 > 5) miss = miss " sweep " slow "% > 5% beside the counter reads;"
      if (avg + 0 > 1) miss = miss " average " avg "% > 1%;"
      print miss == "" ? "target: met" : "target: MISSED (" miss " )"
    }'
}

echo "ports bench: $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "chunk $(grep -o 'kCounterChunk = [0-9]*' daemon/ports/ports_monitor.h | grep -o '[0-9]*$')," \
  "pause $(grep -o 'kChunkPause{[0-9]*}' daemon/ports/ports_monitor.h | grep -o '[0-9]*') ms"
for size in "${sizes[@]}"; do
  echo
  echo "== fat tree $size, -n $runs (load $(cut -d' ' -f1-3 /proc/loadavg))"
  out=$("$bench" --readout --fat-tree "$size" --sweeps "$runs" 2>&1) || { echo "$out"; exit 1; }
  echo "$out"
  [[ $size == 36x18x18 ]] && echo "$out" | verdict
done
