#!/usr/bin/env bash
# Idle cost of one smsupd: runs it (with its OpenSM) on a small simulated
# fabric, waits until its OpenSM is MASTER, then measures smsupd's CPU time
# over DURATION seconds (default 60) from /proc/<pid>/stat and its RSS.
# Targets: idle CPU under 1% of a core, RSS under 30 MB.
#   bench/daemon_idle.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
duration=${DURATION:-60}
smsupd=$build/daemon/smsupd
smctl=$build/smctl/smctl
[ -x "$smsupd" ] && [ -x "$smctl" ] || { echo "build first: $smsupd / $smctl missing" >&2; exit 2; }
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
net=/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca

work=$(mktemp -d /tmp/smsupd-idle.XXXXXX)
sock=idle$$
ibsim_pid= smsupd_pid= hold_pid=
cleanup() {
  [ -n "$smsupd_pid" ] && kill -TERM "$smsupd_pid" 2>/dev/null && \
    timeout 15 tail --pid="$smsupd_pid" -f /dev/null || true
  [ -n "$ibsim_pid" ] && kill "$ibsim_pid" 2>/dev/null || true
  [ -n "$hold_pid" ] && kill "$hold_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

mkfifo "$work/console"
sleep infinity > "$work/console" & hold_pid=$!   # keeps ibsim's stdin open
IBSIM_SOCKNAME=$sock ibsim -s "$net" < "$work/console" > "$work/ibsim.log" 2>&1 & ibsim_pid=$!
for _ in $(seq 100); do grep -q "sim>" "$work/ibsim.log" 2>/dev/null && break; sleep 0.1; done


# Always called in a subshell (& or $(...)): exec makes it the program, so $! is its pid.
on_node() { cd "$work" && LD_PRELOAD=$umad2sim SIM_HOST=Hca1 IBSIM_SOCKNAME=$sock exec "$@"; }
guid=$(on_node timeout 10 ibstat 2>/dev/null | awk '/Port GUID/ {print $3; exit}')
[ -n "$guid" ] || { echo "cannot read the simulated port GUID" >&2; exit 1; }

cat > "$work/smsupd.yaml" <<YAML
version: 1
node: bench
sm: { role: master, port_guid: $guid }
state_dir: $work/state
control: { socket: $work/run/smsupd.sock }
partitions:
  - { name: Default, pkey: 0x7fff, ipoib: true, members: [ { ports: ALL, membership: full } ] }
YAML
on_node "$(realpath "$smsupd")" --config "$work/smsupd.yaml" > "$work/smsupd.log" 2>&1 &
smsupd_pid=$!

for _ in $(seq 600); do
  "$smctl" --socket "$work/run/smsupd.sock" --json status 2>/dev/null | grep -q '"state": "MASTER"' && break
  sleep 0.1
done
"$smctl" --socket "$work/run/smsupd.sock" --json status 2>/dev/null | grep -q '"state": "MASTER"' || {
  echo "smsupd's OpenSM never became MASTER; log:" >&2; tail -20 "$work/smsupd.log" >&2; exit 1; }

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
start=$(cpu_ticks "$smsupd_pid"); t0=$(date +%s.%N)
sleep "$duration"
end=$(cpu_ticks "$smsupd_pid"); t1=$(date +%s.%N)
rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$smsupd_pid/status")
hwm_kb=$(awk '/^VmHWM/ {print $2}' "/proc/$smsupd_pid/status")
awk -v s="$start" -v e="$end" -v hz="$hz" -v t0="$t0" -v t1="$t1" -v rss="$rss_kb" -v hwm="$hwm_kb" 'BEGIN {
  wall = t1 - t0
  printf "smsupd idle over %.1f s (1 s subnet poll): CPU %.3f%% of a core (target < 1%%)\n", wall, 100 * (e - s) / hz / wall
  printf "smsupd RSS: %.1f MB now, %.1f MB peak (target < 30 MB)\n", rss / 1024, hwm / 1024
}'
