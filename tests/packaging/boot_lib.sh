# Shared by the boot tests (systemd_boot_test.sh, systemd_boot_order_test.sh):
# a throw-away copy of the Debian 12 tree with the .deb in it, booted with
# systemd-nspawn (its own PID, mount and network namespaces; the tree's own
# /tmp). Never the machine's own root: booting systemd there would run the
# host's boot units (systemd-tmpfiles empties /tmp).
# Source it after lib.sh; it sets dir, root, nspawn, leader and failed.
nspawn=""
leader=""
failed=0
fail() { echo "FAIL $*"; failed=1; }
ok() { echo "ok   $*"; }

boot_shutdown() {
  if [ -n "$leader" ]; then in_machine systemctl poweroff >/dev/null 2>&1 || true; fi
  if [ -n "$nspawn" ]; then
    for _ in $(seq 100); do kill -0 "$nspawn" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$nspawn" 2>/dev/null || true
    wait "$nspawn" 2>/dev/null || true
  fi
  tree_down "$dir"
}

# boot_prepare BASE DEB NAME: dir (a new temporary directory named after
# NAME) holds root, a writable copy of BASE with DEB as /root/smsupd.deb;
# everything goes away when the script exits.
boot_prepare() {
  dir=$(mktemp -d "${TMPDIR:-/tmp}/$3.XXXXXX")
  trap boot_shutdown EXIT
  tree_up "$1" "$dir"
  root=$dir/root
  cp "$2" "$root/root/smsupd.deb"
}

find_leader() {  # the container's PID 1, a descendant of systemd-nspawn named systemd
  local queue=("$nspawn") pid child
  while ((${#queue[@]})); do
    pid=${queue[0]}
    queue=("${queue[@]:1}")
    [ "$pid" != "$nspawn" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = systemd ] && { echo "$pid"; return; }
    for child in $(cat /proc/"$pid"/task/*/children 2>/dev/null); do queue+=("$child"); done
  done
  return 1
}

in_machine() {
  nsenter --target "$leader" --all -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 "$@"
}

# Boots root. The units' device list and IP allow-list are BPF programs that
# systemd attaches to the unit's cgroup: the container gets a cgroup2
# hierarchy of its own (where the host's controllers are on cgroup v1,
# systemd would use the v1 devices controller, read-only in a container) and
# may load them (CAP_BPF, CAP_NET_ADMIN, bpf()). No memory or pids
# controller reaches it: MemoryMax= and TasksMax= are only read back.
boot_tree() {
  SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 systemd-nspawn --quiet --register=no --keep-unit --boot --private-network \
    --capability=CAP_BPF,CAP_NET_ADMIN --system-call-filter=bpf --directory="$root" \
    --machine="$(tree_machine "$dir")" >"$dir/boot.log" 2>&1 </dev/null &
  nspawn=$!
  for _ in $(seq 150); do leader=$(find_leader) && break; sleep 0.2; done
  [ -n "$leader" ] || { cat "$dir/boot.log"; echo "FAIL no systemd in the container"; exit 1; }
}

wait_until() {  # wait_until SECONDS DESCRIPTION CMD...
  local seconds=$1 what=$2 end=$((SECONDS + $1))
  shift 2
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= end)); then fail "after ${seconds}s still not: $what"; return 1; fi
    sleep 0.3
  done
  ok "$what"
}
