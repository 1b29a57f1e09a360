#!/bin/bash
# Measures `status` round-trip latency on a control socket with 50 concurrent
# clients (median, p90, p99, max), optionally also through the smctl binary
# (process start included) and the daemon's idle CPU and RSS.
#
#   bench/status_latency.sh SOCKET [--clients N] [--requests N] [--smctl]
#                                  [--idle-pid PID] [--idle-seconds S]
#   bench/status_latency.sh --self     # against the real ControlServer with
#                                      # a canned status (bench/fake_status_daemon)
#
# Binaries come from $BUILD_DIR (default: the repo's build/ or first build-*/);
# when missing there, status_load is compiled into a temp dir.
# Targets: p99 under 20 ms; idle CPU under 1% of a core; RSS under 30 MB.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
socket="" clients=50 requests=200 use_smctl=0 idle_pid="" idle_seconds=60 self=0
while [ $# -gt 0 ]; do
  case "$1" in
    --clients) clients=$2; shift 2 ;;
    --requests) requests=$2; shift 2 ;;
    --smctl) use_smctl=1; shift ;;
    --idle-pid) idle_pid=$2; shift 2 ;;
    --idle-seconds) idle_seconds=$2; shift 2 ;;
    --self) self=1; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) socket=$1; shift ;;
  esac
done
[ -n "$socket" ] || [ "$self" = 1 ] || { echo "usage: $0 SOCKET|--self [options]" >&2; exit 2; }

work=$(mktemp -d /tmp/status-latency-XXXXXX)
daemon_pid=""
cleanup() {
  [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

build=${BUILD_DIR:-}
if [ -z "$build" ]; then
  for candidate in "$repo/build" "$repo"/build-*; do
    [ -x "$candidate/bench/status_load" ] && { build=$candidate; break; }
  done
  [ -n "$build" ] || build=$(ls -d "$repo/build" "$repo"/build-* 2>/dev/null | head -1 || true)
fi

find_tool() {  # NAME -> path of the built tool, compiling status_load if needed
  if [ -n "$build" ] && [ -x "$build/bench/$1" ]; then echo "$build/bench/$1"; return; fi
  if [ -n "$build" ] && [ -x "$build/smctl/$1" ]; then echo "$build/smctl/$1"; return; fi
  if [ "$1" = status_load ]; then
    c++ -std=c++20 -O2 -include utility -I"$repo" -o "$work/status_load" \
      "$repo/bench/status_load.cc" "$repo/common/control_protocol.cc" "$repo/common/guid.cc" -pthread
    echo "$work/status_load"; return
  fi
  echo "cannot find $1: build it (cmake --build BUILD --target $1) or set BUILD_DIR" >&2
  exit 1
}

if [ "$self" = 1 ]; then
  socket="$work/ctl/smsupd.sock"
  "$(find_tool fake_status_daemon)" "$socket" 2>"$work/daemon.err" &
  daemon_pid=$!
  for _ in $(seq 200); do [ -S "$socket" ] && break; sleep 0.05; done
  [ -S "$socket" ] || { cat "$work/daemon.err" >&2; exit 1; }
  [ -n "$idle_pid" ] || idle_pid=$daemon_pid
  echo "against the ControlServer alone (bench/fake_status_daemon), socket $socket"
fi

load=$(find_tool status_load)
echo "== status over the socket: $clients clients firing together, $requests rounds, new connection each"
"$load" "$socket" "$clients" "$requests" burst
echo "== saturation: $clients clients in a closed loop, $requests requests each"
"$load" "$socket" "$clients" "$requests" closed

if [ "$use_smctl" = 1 ]; then
  smctl=$(find_tool smctl)
  rounds=$(( requests < 10 ? requests : 10 ))
  echo "== smctl status (process start included): $clients concurrent loops x $rounds runs"
  loops=()
  for c in $(seq "$clients"); do
    ( for _ in $(seq "$rounds"); do
        start=$(date +%s%N)
        "$smctl" --socket "$socket" status >/dev/null || echo fail >>"$work/smctl.fail"
        echo $(( ($(date +%s%N) - start) / 1000 )) >>"$work/smctl.$c"
      done ) &
    loops+=($!)
  done
  wait "${loops[@]}"
  sort -n "$work"/smctl.[0-9]* -o "$work/smctl.all"
  awk '{ v[NR] = $1 } END {
         i50 = int(0.5 * (NR - 1) + 1.5); i99 = int(0.99 * (NR - 1) + 1.5); if (i99 > NR) i99 = NR;
         printf "smctl status: %d runs, latency ms: median %.3f  p99 %.3f  max %.3f\n",
                NR, v[i50] / 1000, v[i99] / 1000, v[NR] / 1000 }' "$work/smctl.all"
  [ -f "$work/smctl.fail" ] && echo "smctl failures: $(wc -l <"$work/smctl.fail")"
fi

if [ -n "$idle_pid" ]; then
  echo "== idle cost of pid $idle_pid over ${idle_seconds}s (no requests)"
  ticks=$(getconf CLK_TCK)
  cpu() { awk '{ print $14 + $15 }' "/proc/$idle_pid/stat"; }
  before=$(cpu); sleep "$idle_seconds"; after=$(cpu)
  rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$idle_pid/status")
  awk -v d=$((after - before)) -v t="$ticks" -v s="$idle_seconds" -v r="$rss" \
    'BEGIN { printf "idle CPU %.3f%% of a core, RSS %.1f MB\n", 100 * d / t / s, r / 1024 }'
fi
