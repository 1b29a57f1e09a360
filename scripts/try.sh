#!/usr/bin/env bash
# README's "try it": on Debian 12 as root, installs what it needs, builds,
# starts a simulated InfiniBand fabric (ibsim, a 4 x 4 x 2 fat tree: 16 HCAs,
# 6 switches), runs a master (priority 15) and a standby (priority 5) subnet
# manager on the two management nodes, and shows what a far node sees.
#
#   scripts/try.sh          show it, then stop everything
#   scripts/try.sh --keep   leave the fabric running and say how to stop it
#
# The SM pair is two smsupd instances (role master, role standby), each
# running its own OpenSM; start_managers() starts them.
set -euo pipefail
cd "$(dirname "$0")/.."

keep=false
case "${1:-}" in
  --keep) keep=true ;;
  "") ;;
  *) echo "usage: $0 [--keep]" >&2; exit 2 ;;
esac

UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
BUILD=${TRY_BUILD:-build/try}
FABRIC=4x4x2
pids=()

say() { printf '\n== %s\n' "$*"; }

# Stops what this script started, newest first: an SM whose simulator is
# already gone can hang in its exit path, so ibsim goes last, and anything
# still alive after 5 s gets SIGKILL.
any_alive() {
  local p
  for p; do kill -0 "$p" 2>/dev/null && return 0; done
  return 1
}
stop_all() {
  ((${#pids[@]})) || return 0
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; done
  for _ in $(seq 50); do
    any_alive "${pids[@]}" || break
    sleep 0.1
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
  # smsupd stops its OpenSM on SIGTERM; anything that still mentions the
  # fabric's directory (an OpenSM whose smsupd died) goes too.
  pkill -KILL -f "$dir/" 2>/dev/null || true
  rm -rf "$dir"
}

# on_node NODE NAME CMD...: runs CMD attached to simulated node NODE, in its
# own directory $dir/NAME (umad2sim writes ./sys-<pid> there).
node_dir() { mkdir -p "$dir/$1/tmp" "$dir/$1/cache"; }
on_node() {
  local node=$1 name=$2; shift 2
  node_dir "$name"
  (cd "$dir/$name" && exec env LD_PRELOAD="$UMAD2SIM" SIM_HOST="$node" IBSIM_SOCKNAME="$sock" \
    OSM_TMP_DIR="$dir/$name/tmp" OSM_CACHE_DIR="$dir/$name/cache" "$@")
}

# spawn_on_node NODE NAME LOG CMD...: the same in the background; the one
# subshell execs CMD, so the recorded pid is CMD's own.
spawn_on_node() {
  local node=$1 name=$2 log=$3; shift 3
  node_dir "$name"
  (cd "$dir/$name" && exec env LD_PRELOAD="$UMAD2SIM" SIM_HOST="$node" IBSIM_SOCKNAME="$sock" \
    OSM_TMP_DIR="$dir/$name/tmp" OSM_CACHE_DIR="$dir/$name/cache" "$@" >"$log" 2>&1) &
  pids+=($!)
}

# wait_for SECONDS DESCRIPTION CMD...: retries CMD every 0.2 s until it succeeds.
wait_for() {
  local seconds=$1 what=$2; shift 2
  local end=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= end)); then echo "gave up after ${seconds}s waiting for $what" >&2; return 1; fi
    sleep 0.2
  done
}

build() {
  say "installing packages (if missing) and building into $BUILD"
  scripts/install-deps.sh
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD" -j"$(nproc)" --target smsupd smctl smsupd-topogen >/dev/null
}

start_fabric() {
  dir=$(mktemp -d /tmp/smsupd-try.XXXXXX)
  sock=$(basename "$dir")
  local facts
  facts=$("$BUILD"/tests/testbed/smsupd-topogen --fat-tree "$FABRIC" -o "$dir/net")
  read -r _ master_node standby_node <<<"$(grep '^management' <<<"$facts")"
  read -r _ far_node <<<"$(grep '^far' <<<"$facts")"
  say "starting ibsim: fat tree $FABRIC ($(grep '^size' <<<"$facts" | cut -d' ' -f2) HCAs) in $dir"
  mkfifo "$dir/console"
  # A writer that never writes keeps ibsim's console open (it spins on EOF).
  sleep infinity >"$dir/console" &
  pids+=($!)
  IBSIM_SOCKNAME=$sock ibsim -s "$dir/net" <"$dir/console" >"$dir/ibsim.log" 2>&1 &
  pids+=($!)
  wait_for 15 "ibsim to listen" grep -q "@$sock:out9" /proc/net/unix
}

# guid_of NODE: the port GUID of NODE's port 1, from the generated model.
guid_of() {
  "$BUILD"/tests/testbed/smsupd-topogen --fat-tree "$FABRIC" -o "$dir/net.check" --list |
    awk -v n="$1" '$1 == "node" && $2 == n { print $5 }'
}

# start_manager NODE ROLE: one smsupd on NODE, which renders the OpenSM files
# from its YAML and runs OpenSM itself.
start_manager() {
  local node=$1 role=$2 home="$dir/sm-$1"
  mkdir -p "$home"
  cat >"$home/smsupd.yaml" <<YAML
version: 1
node: $node
sm:
  port_guid: $(guid_of "$node")
  role: $role
  opensm:
    log_file: $home/opensm.log
state_dir: $home/state
control:
  socket: $home/smsupd.sock
hosts:
  $master_node: $(guid_of "$master_node")
  $standby_node: $(guid_of "$standby_node")
partitions:
  - name: Default
    pkey: 0x7fff
    ipoib: true
    members:
      - { ports: ALL, membership: full }
YAML
  spawn_on_node "$node" "sm-$node" "$home/smsupd.log" "$PWD/$BUILD/daemon/smsupd" --config "$home/smsupd.yaml"
}

smctl() { "$BUILD"/smctl/smctl "$@"; }
is_state() { smctl --socket "$dir/sm-$1/smsupd.sock" --json status | grep -q "\"state\": *\"$2\""; }
master_seen_from_far_node() { on_node "$far_node" far timeout 5 sminfo | grep -q SMINFO_MASTER; }

start_managers() {
  say "starting smsupd (role master, priority 15) on $master_node"
  start_manager "$master_node" master
  wait_for 60 "smsupd on $master_node to report MASTER" is_state "$master_node" MASTER
  wait_for 60 "a master SM seen from $far_node" master_seen_from_far_node
  # The standby starts once the master is up: two SMs started at the same
  # instant can both become master.
  say "starting smsupd (role standby, priority 5) on $standby_node"
  start_manager "$standby_node" standby
  wait_for 60 "smsupd on $standby_node to report STANDBY" is_state "$standby_node" STANDBY
}

show() {
  for node in "$master_node" "$standby_node"; do
    say "smctl --socket $dir/sm-$node/smsupd.sock status   (smsupd on $node)"
    smctl --socket "$dir/sm-$node/smsupd.sock" status
  done
  say "sminfo, run on the far node $far_node (asks the SM its port points at):"
  on_node "$far_node" far timeout 5 sminfo
  cat <<TEXT

What you see: two smsupd instances, each running its own OpenSM. $master_node
(role master) holds priority 15 and is MASTER; $standby_node (role standby)
holds priority 5 and is STANDBY. Every HCA port holds the master's LID as its
SM LID (sminfo on $far_node asked exactly that SM).
Logs: $dir/sm-*/smsupd.log, $dir/sm-*/opensm.log, ibsim: $dir/ibsim.log
TEXT
}

build
trap stop_all EXIT
start_fabric
start_managers
show
if $keep; then
  trap - EXIT
  printf '%s\n' "${pids[@]}" >"$dir/pids"
  cat <<TEXT

Left running (--keep). Try:
  $BUILD/smctl/smctl --socket $dir/sm-$master_node/smsupd.sock events --follow
  $BUILD/smctl/smctl --socket $dir/sm-$master_node/smsupd.sock status --json
  kill -9 \$(pgrep -f "opensm -F $dir/sm-$master_node")   # smsupd restarts it
  cd $dir && LD_PRELOAD=$UMAD2SIM SIM_HOST=$far_node IBSIM_SOCKNAME=$sock sminfo
Stop everything with:
  kill \$(cat $dir/pids); sleep 5; pkill -KILL -f $dir/; rm -rf $dir
TEXT
else
  say "stopping the fabric and both SMs (use --keep to leave them running)"
fi
