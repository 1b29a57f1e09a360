#!/usr/bin/env bash
# The packaged units run by a real systemd: a throw-away copy of the Debian 12
# tree gets the .deb, ibsim and umad2sim, and is booted with systemd-nspawn
# (its own PID, mount and network namespaces; the tree's own /tmp). Never
# the machine's own root: booting systemd there would run the host's boot
# units (systemd-tmpfiles empties /tmp).
#
# On a simulated two-switch fabric (ibsim in the container), with drop-ins
# that only attach smsupd to its simulated node (LD_PRELOAD, SIM_HOST, a
# writable working directory for umad2sim): smsupd.service is the master on
# H1_1, smsupd@b.service the standby on H1_2. Checked: start -> READY and
# MASTER, with Debian's opensm@GUID.service stopped; a member of the group
# smsupd runs `smctl status` (an outsider and a changing command are
# refused); `systemctl reload` (smctl reload as root) -> a new generation;
# `kill -9` of smsupd -> systemd restarts it and it adopts the same OpenSM;
# dpkg -i over the running package restarts nothing; `systemctl restart` of
# the master replaces smsupd only (OpenSM kept and adopted); `systemctl stop`
# of the master hands over to the standby and leaves no OpenSM; the watchdog
# pings. The unit's containment: the umad and issm devices pass its device
# list and another device does not; its metrics listener answers on loopback,
# one on another address only with the documented drop-in.
#   systemd_boot_test.sh DEB_DIR TREE TOPOGEN MAD_TIMEOUT_SHIM  (DEB_DIR holds the one smsupd_*.deb)
set -euo pipefail
deb=$(echo "$1"/smsupd_*.deb)
base=$2
topogen=$3
shim=$4
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/boot_lib.sh"
boot_prepare "$base" "$deb" smsupd-boot-test

step "install the .deb, ibsim and umad2sim in the tree"
in_tree "$dir" apt-get install -y -qq /root/smsupd.deb ibsim-utils libumad2sim0 jq >"$dir/apt.log" 2>&1 ||
  { tail -20 "$dir/apt.log"; exit 1; }
in_tree "$dir" sh -c 'useradd --create-home --groups smsupd fabric-ops && useradd --create-home outsider'

# The fabric: two switches, four HCAs; H1_1 and H1_2 are the SM nodes.
mkdir -p "$root/etc/smsupd-test"
"$topogen" --two-switch -o "$root/etc/smsupd-test/net" --list >"$dir/topology"
guid_of() { awk -v n="$1" '$1 == "node" && $2 == n { print $5 }' "$dir/topology"; }
cp "$shim" "$root/usr/local/lib/libtestbed-mad-timeout.so"
cat >"$root/etc/systemd/system/ibsim.service" <<'UNIT'
[Unit]
Description=Simulated InfiniBand fabric for the smsupd test
[Service]
Environment=IBSIM_SOCKNAME=smsupd-test
# ibsim reads console commands from stdin and spins at end-of-file.
ExecStart=/bin/sh -c 'sleep infinity | /usr/bin/ibsim -s /etc/smsupd-test/net'
ExecStartPost=/bin/sh -c 'until grep -q "@smsupd-test:out9" /proc/net/unix; do sleep 0.1; done'
UNIT
attach() {  # attach UNIT NODE STATE_DIR: the unit's smsupd runs on NODE of the simulated fabric
  mkdir -p "$root/etc/systemd/system/$1.d"
  cat >"$root/etc/systemd/system/$1.d/simulated-fabric.conf" <<UNIT
[Unit]
# No umad driver here: the simulator stands in for it.
ConditionPathExists=
Requires=ibsim.service
After=ibsim.service
[Service]
# The test bed's shim ends every MAD as hardware would (tests/testbed/README.md).
Environment=LD_PRELOAD=/usr/local/lib/libtestbed-mad-timeout.so:/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
Environment=SIM_HOST=$2 IBSIM_SOCKNAME=smsupd-test
# umad2sim writes its simulated sysfs into the working directory.
WorkingDirectory=$3
UNIT
}
attach smsupd.service H1_1 /var/lib/smsupd
attach smsupd@b.service H1_2 /var/lib/smsupd-b
config() {  # config NODE ROLE [INSTANCE]
  local node=$1 role=$2 instance=${3:-}
  echo "version: 1"
  echo "node: $node"
  echo "sm:"
  echo "  port_guid: $(guid_of "$node")"
  echo "  role: $role"
  echo "  opensm:"
  echo "    log_file: /var/log/smsupd${instance:+-$instance}/opensm.log"
  echo "    options:"
  echo "      dump_files_dir: /var/log/smsupd${instance:+-$instance}/"
  echo "metrics:"
  if [ -n "$instance" ]; then
    echo "  listen: $remote_listen"
    echo "  allow_remote: true"
  else
    echo "  listen: 127.0.0.1:9662"
  fi
  if [ -n "$instance" ]; then
    echo "state_dir: /var/lib/smsupd-$instance"
    echo "control:"
    echo "  socket: /run/smsupd-$instance/smsupd.sock"
  else
    echo "control:"
  fi
  echo "  group: smsupd"
  echo "hosts:"
  for host in H1_1 H1_2 H2_1 H2_2; do echo "  $host: $(guid_of "$host")"; done
  echo "partitions:"
  echo "  - name: Default"
  echo "    pkey: 0x7fff"
  echo "    members:"
  echo "      - { ports: ALL, membership: full }"
}
# Debian's opensm@GUID.service, as its opensm.service starts one per port:
# here a stand-in that needs no InfiniBand device (ConditionPathExists=
# /sys/class/infiniband_mad/abi_version cleared) and runs nothing.
mkdir -p "$root/etc/systemd/system/opensm@.service.d"
cat >"$root/etc/systemd/system/opensm@.service.d/stand-in.conf" <<'UNIT'
[Unit]
ConditionPathExists=
[Service]
ExecStart=
ExecStart=/bin/sleep infinity
UNIT
# The standby's listener is on an address of the container's loopback
# interface that is not localhost (a documentation address, RFC 5737).
remote_ip=192.0.2.1
remote_listen=$remote_ip:9662
config H1_1 master >"$root/etc/smsupd/smsupd.yaml"
config H1_2 standby b >"$root/etc/smsupd/b.yaml"

step "boot the tree with systemd-nspawn"
boot_tree
for _ in $(seq 150); do
  state=$(in_machine systemctl is-system-running 2>&1) || true
  case $state in running | degraded) break ;; esac
  sleep 0.2
done
step "booted: $state"
[ "$state" = running ] || in_machine systemctl --failed --no-pager

# The umad device as ib_umad would make it: no InfiniBand driver on this
# machine, so /proc/devices (bound over with a copy) gets the line the driver
# adds and /dev/infiniband the nodes. An open() the unit's device list lets
# through ends at the missing driver (ENXIO); one it refuses, with EPERM.
# smsupd@probe is the packaged template unit with only its commands
# replaced: the same sandbox, cgroup and device list.
step "devices: umad0 and issm0 pass the unit's device list, another device does not"
in_machine sh -c 'mkdir -p /dev/infiniband && mknod /dev/infiniband/umad0 c 231 0 &&
  mknod /dev/infiniband/issm0 c 231 64 && mknod /dev/probe-loop b 7 0 &&
  { sed "/^Character devices:/q" /proc/devices; echo "231 infiniband_mad";
    sed "1,/^Character devices:/d" /proc/devices; } >/run/devices-with-umad &&
  mount --bind /run/devices-with-umad /proc/devices' || fail "cannot make the umad device nodes"
cat >"$root/usr/local/bin/open-devices" <<'SCRIPT'
#!/bin/sh
# One line per device: "probe RUN DEVICE: opened" or "probe RUN DEVICE: <strerror>".
for dev in /dev/infiniband/umad0 /dev/infiniband/issm0 /dev/probe-loop; do
  if error=$( (: <>"$dev") 2>&1); then echo "probe $1 $dev: opened"; else echo "probe $1 $dev: ${error##*: }"; fi
done
SCRIPT
chmod 755 "$root/usr/local/bin/open-devices"
mkdir -p "$root/etc/systemd/system/smsupd@probe.service.d"
cat >"$root/etc/systemd/system/smsupd@probe.service.d/probe.conf" <<'UNIT'
[Unit]
ConditionPathExists=
[Service]
Type=oneshot
ExecStartPre=
ExecStart=
ExecStart=/usr/local/bin/open-devices ${PROBE_RUN}
EnvironmentFile=/etc/smsupd-test/probe-run
ExecReload=
WatchdogSec=0
UNIT
probe() {  # probe RUN: the open() results of one run of smsupd@probe, one line per device
  echo "PROBE_RUN=$1" >"$root/etc/smsupd-test/probe-run"
  in_machine systemctl daemon-reload
  in_machine systemctl start smsupd@probe.service || { fail "smsupd@probe did not run"; return; }
  local lines=""
  for _ in $(seq 50); do  # the journal takes the unit's output in its own time
    lines=$(in_machine journalctl --no-pager -o cat -u smsupd@probe.service | grep "^probe $1 " || true)
    [ "$(grep -c . <<<"$lines")" = 3 ] && break
    sleep 0.1
  done
  sed "s/^probe $1 /probe /" <<<"$lines"
}
prop() { in_machine systemctl show --value -p "$2" "$1"; }
result=$(probe with-device-allow)
echo "$result" | sed 's/^/     /'
grep -q '^probe /dev/infiniband/umad0: No such device or address' <<<"$result" &&
  ok "umad0 passes the device list (ENXIO: no driver behind it)" || fail "umad0: $result"
grep -q '^probe /dev/infiniband/issm0: No such device or address' <<<"$result" &&
  ok "issm0 passes the device list (ENXIO: no driver behind it)" || fail "issm0: $result"
grep -q '^probe /dev/probe-loop: Operation not permitted' <<<"$result" &&
  ok "a block device outside the list: EPERM" || fail "loop0: $result"
# The same unit without DeviceAllow=: the umad device is refused too.
printf '[Service]\nDeviceAllow=\n' >"$root/etc/systemd/system/smsupd@probe.service.d/no-device-allow.conf"
result=$(probe without-device-allow)
grep -q '^probe /dev/infiniband/umad0: Operation not permitted' <<<"$result" &&
  ok "without DeviceAllow=: umad0 EPERM" || fail "without DeviceAllow=: $result"
rm -rf "$root/etc/systemd/system/smsupd@probe.service.d"
in_machine sh -c 'rm -f /dev/infiniband/umad0 /dev/infiniband/issm0 /dev/probe-loop'
in_machine systemctl daemon-reload

smctl_json() { in_machine smctl "$@" --json status 2>/dev/null; }
sm_state() { smctl_json "$@" | jq -r .local_sm.state 2>/dev/null; }
is_state() { [ "$(sm_state "${@:2}")" = "$1" ]; }
# Read a journal to its end with `grep -c ... >/dev/null`, never `grep -q`:
# grep -q exits at the first match, journalctl then dies of SIGPIPE, and
# pipefail fails the check whenever the journal goes on after the match.
journal() { in_machine journalctl --no-pager -o cat -u "$1"; }
dump() {
  for unit in smsupd.service smsupd@b.service; do
    echo "--- journal of $unit"
    journal "$unit" | tail -30
  done
}

plain_opensm="opensm@$(guid_of H1_1).service"
in_machine systemctl start "$plain_opensm" || fail "cannot start the stand-in $plain_opensm"

step "systemctl start smsupd: READY only once OpenSM runs"
t0=$SECONDS
if in_machine systemctl start smsupd.service; then
  ok "systemctl start returned (READY=1) after $((SECONDS - t0))s: $(prop smsupd.service StatusText)"
else
  fail "systemctl start smsupd"
  dump
  exit 1
fi
[ "$(prop smsupd.service SubState)" = running ] && ok "smsupd.service running" || fail "not running"
state=$(in_machine systemctl is-active "$plain_opensm" || true)
[ "$state" = inactive ] && ok "Debian's $plain_opensm, started on its own, stopped" ||
  fail "$plain_opensm is $state beside smsupd"
wait_until 60 "smsupd reports MASTER" is_state MASTER || true
in_machine journalctl --no-pager -o cat -u smsupd.service | grep -c DAEMON_READY >/dev/null && ok "journal: DAEMON_READY" ||
  fail "no DAEMON_READY in the journal"
# The job threads of the three request pools (plan and validate; why; the
# twin plan) and the ports evaluation's thread moved themselves to
# SCHED_IDLE under the unit's system-call filter (a refused call would have
# killed smsupd, SIGSYS).
idle=$(in_machine sh -c 'for t in /proc/$(pidof smsupd | cut -d" " -f1)/task/*; do chrt -p ${t##*/}; done' |
  grep -c SCHED_IDLE || true)
[ "$idle" = 4 ] && ok "four smsupd threads are SCHED_IDLE (jobs: plan/validate, why, twin plan; ports evaluation)" ||
  fail "$idle SCHED_IDLE threads, want 4"
journal smsupd.service | grep -c JOB_PRIORITY_NOT_SET >/dev/null && fail "journal: JOB_PRIORITY_NOT_SET" || true
journal smsupd.service | grep -c PORTS_EVALUATOR_PRIORITY >/dev/null && fail "journal: PORTS_EVALUATOR_PRIORITY" || true

scrape() {  # scrape ADDRESS: /metrics over HTTP from the container, outside the units (5 s)
  in_machine timeout 5 bash -c "exec 3<>/dev/tcp/$1/9662 && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && cat <&3" |
    grep -q '^smsupd_local_sm_state'
}
scrape 127.0.0.1 && ok "the listener answers on loopback (IPAddressAllow=localhost)" ||
  fail "no /metrics at 127.0.0.1:9662"
bounds="$(prop smsupd.service MemoryMax) $(prop smsupd.service TasksMax) $(prop smsupd.service OOMPolicy)"
[ "$bounds" = "4294967296 1024 continue" ] && ok "MemoryMax=4G TasksMax=1024 OOMPolicy=continue" ||
  fail "MemoryMax TasksMax OOMPolicy: $bounds"

step "systemctl start smsupd@b: the standby, found with smctl -i b"
# The standby's listener address, on the container's loopback interface.
nsenter --target "$leader" --net ip addr add "$remote_ip/32" dev lo
in_machine systemctl start smsupd@b.service || { fail "systemctl start smsupd@b"; dump; exit 1; }
watchdog_b=$(prop smsupd@b.service WatchdogTimestampMonotonic)
wait_until 60 "smsupd@b reports STANDBY (smctl -i b)" is_state STANDBY -i b || true
in_machine test -S /run/smsupd-b/smsupd.sock && ok "instance socket /run/smsupd-b/smsupd.sock" || fail "no instance socket"

step "a listener off loopback: dropped by IPAddressDeny=any until the drop-in allows it"
in_journal() { journal "$1" | grep -c "$2" >/dev/null; }
wait_until 10 "journal: METRICS_LISTEN_REMOTE" in_journal smsupd@b.service "METRICS_LISTEN_REMOTE $remote_listen" || true
wait_until 10 "the listener is bound at $remote_listen (METRICS_LISTENING)" in_journal smsupd@b.service METRICS_LISTENING ||
  true
scrape "$remote_ip" && fail "$remote_listen answered without the drop-in" ||
  ok "$remote_listen gets no answer (IPAddressDeny=any)"
mkdir -p "$root/etc/systemd/system/smsupd@b.service.d"
printf '[Service]\nIPAddressAllow=%s\n' "$remote_ip" >"$root/etc/systemd/system/smsupd@b.service.d/metrics-listen.conf"
in_machine systemctl daemon-reload
in_machine systemctl restart smsupd@b.service || fail "systemctl restart smsupd@b"
watchdog_b=$(prop smsupd@b.service WatchdogTimestampMonotonic)
wait_until 60 "smsupd@b restarted with the drop-in reports STANDBY" is_state STANDBY -i b || true
scrape "$remote_ip" && ok "$remote_listen answers with the drop-in (IPAddressAllow=$remote_ip)" ||
  fail "$remote_listen still gets no answer with the drop-in"

step "a member of the group smsupd reads; an outsider and a change are refused"
for args in "status" "-i b status"; do
  # shellcheck disable=SC2086
  if out=$(in_machine runuser -u fabric-ops -- smctl $args 2>&1); then
    ok "fabric-ops: smctl $args"
  else
    fail "fabric-ops: smctl $args: $out"
  fi
done
stat=$(in_machine stat -c '%a %U:%G' /run/smsupd /run/smsupd/smsupd.sock | tr '\n' ' ')
[ "$stat" = "750 root:smsupd 660 root:smsupd " ] && ok "socket directory and socket: $stat" ||
  fail "socket directory and socket: $stat"
out=$(in_machine runuser -u fabric-ops -- smctl reload 2>&1) && fail "fabric-ops may reload: $out" ||
  { [[ $out == *"permission denied"* ]] && ok "fabric-ops: smctl reload refused" || fail "operator reload: $out"; }
out=$(in_machine runuser -u outsider -- smctl status 2>&1) && fail "outsider reads status" ||
  { [[ $out == *"permission denied"* ]] && ok "outsider: smctl status refused" || fail "outsider: $out"; }

step "systemctl reload: a new generation"
generation=$(smctl_json | jq .config.generation)
cat >>"$root/etc/smsupd/smsupd.yaml" <<'YAML'
  - name: tenant-a
    pkey: 0x0012
    members:
      - { host: H2_1, membership: full }
      - { host: H1_1, membership: full }
YAML
in_machine systemctl reload smsupd.service && ok "systemctl reload" || fail "systemctl reload"
next=$((generation + 1))
generation_is() { [ "$(smctl_json | jq .config.generation)" = "$next" ]; }
wait_until 30 "generation $generation -> $next" generation_is || true
verified() { in_machine smctl --json history | jq -e ".generations[] | select(.generation == $next) |
  (.applied_by == \"uid 0\" and .verification == \"verified\")"; }
wait_until 30 "generation $next applied by root's smctl reload (ExecReload=) and verified on the fabric" verified ||
  in_machine smctl history
# systemd ends the reload job (a RELOADING=1 from smsupd holds it until READY=1).
journal smsupd.service | grep -c '^Reloaded smsupd.service' >/dev/null && ok "systemd: Reloaded smsupd.service" ||
  fail "systemd did not log the reload's end"

step "kill -9 of smsupd: systemd restarts it, it adopts the same OpenSM"
main=$(prop smsupd.service MainPID)
opensm=$(smctl_json | jq .opensm.pid)
in_machine systemctl kill --signal=SIGKILL --kill-who=main smsupd.service
restarted() { local now; now=$(prop smsupd.service MainPID); [ "$now" != "$main" ] && [ "$now" != 0 ] &&
  [ "$(prop smsupd.service ActiveState)" = active ]; }
wait_until 30 "smsupd (pid $main) restarted by systemd" restarted || true
wait_until 30 "the new smsupd reports MASTER" is_state MASTER || true
[ "$(smctl_json | jq .opensm.pid)" = "$opensm" ] && ok "same OpenSM (pid $opensm) adopted" ||
  fail "OpenSM pid $(smctl_json | jq .opensm.pid), was $opensm"
in_machine smctl --json events | jq -r .kind | grep -ciE '^opensm[-_]adopted$' >/dev/null &&
  ok "event opensm-adopted" || fail "no opensm-adopted event"
[ "$(prop smsupd.service NRestarts)" = 1 ] && ok "NRestarts 1" || fail "NRestarts $(prop smsupd.service NRestarts)"

step "dpkg -i over the running package: nothing restarts"
before="$(prop smsupd.service MainPID) $(prop smsupd@b.service MainPID) $(smctl_json | jq .opensm.pid) $(smctl_json -i b | jq .opensm.pid)"
if out=$(in_machine env DEBIAN_FRONTEND=noninteractive dpkg -i /root/smsupd.deb 2>&1); then
  ok "dpkg -i over itself"
else
  fail "dpkg -i over itself: $out"
fi
[[ $out == *"smsupd.service keeps running"* ]] && ok "postinst says the running daemons keep the old binary" ||
  fail "postinst said: $out"
after="$(prop smsupd.service MainPID) $(prop smsupd@b.service MainPID) $(smctl_json | jq .opensm.pid) $(smctl_json -i b | jq .opensm.pid)"
[ "$before" = "$after" ] && ok "smsupd, smsupd@b and both OpenSMs kept their pids ($after)" ||
  fail "pids changed: $before -> $after"

step "systemctl restart smsupd on the master: smsupd only, OpenSM kept and adopted"
main=$(prop smsupd.service MainPID)
opensm=$(smctl_json | jq .opensm.pid)
in_machine systemctl restart smsupd.service && ok "systemctl restart" || fail "systemctl restart"
[ "$(prop smsupd.service MainPID)" != "$main" ] && ok "a new smsupd" || fail "smsupd pid unchanged ($main)"
wait_until 30 "the new smsupd reports MASTER" is_state MASTER || true
[ "$(smctl_json | jq .opensm.pid)" = "$opensm" ] && ok "same OpenSM (pid $opensm), adopted" ||
  fail "OpenSM pid $(smctl_json | jq .opensm.pid), was $opensm: the restart stopped OpenSM"
journal smsupd.service | grep -c "SMSUPD_RESTARTING" >/dev/null && ok "journal: SMSUPD_RESTARTING (systemd's job type read over D-Bus)" ||
  fail "no SMSUPD_RESTARTING in the journal"
[ "$(sm_state -i b)" = STANDBY ] && ok "the standby stayed STANDBY" || fail "the standby is $(sm_state -i b)"

step "systemctl stop smsupd on the master: handover, no OpenSM left"
opensm=$(smctl_json | jq .opensm.pid)
t0=$SECONDS
in_machine systemctl stop smsupd.service && ok "systemctl stop took $((SECONDS - t0))s" || fail "systemctl stop"
[ "$(prop smsupd.service Result)" = success ] && ok "Result=success (no stop timeout, no SIGKILL)" ||
  fail "Result=$(prop smsupd.service Result)"
in_machine kill -0 "$opensm" 2>/dev/null && fail "OpenSM $opensm still runs" || ok "OpenSM $opensm is gone"
left=$(in_machine pgrep -a -f 'opensm -F /var/lib/smsupd/' || true)
[ -z "$left" ] && ok "no OpenSM of smsupd.service left" || fail "left: $left"
wait_until 15 "the standby (smsupd@b) is MASTER" is_state MASTER -i b || true
journal smsupd.service | grep -c "SIGNAL_STOP" >/dev/null && ok "journal: SIGNAL_STOP" || fail "no SIGNAL_STOP in the journal"
journal smsupd.service | grep -c "HANDOVER_DONE" >/dev/null && ok "journal: HANDOVER_DONE (handed over, not taken over)" ||
  fail "the master did not hand over before stopping"

step "the watchdog"
[ "$(prop smsupd@b.service WatchdogUSec)" = 30s ] && ok "WatchdogUSec=30s" || fail "WatchdogUSec $(prop smsupd@b.service WatchdogUSec)"
pinged() { [ "$(prop smsupd@b.service WatchdogTimestampMonotonic)" != "$watchdog_b" ]; }
wait_until 20 "smsupd@b pinged the watchdog since its start" pinged || true

if [ $failed != 0 ]; then
  dump
  echo "--- smctl history"
  in_machine smctl history || true
fi
step "done"
exit $failed
