#!/usr/bin/env bash
# Boot order and restart policy of the packaged smsupd.service, under a real
# systemd booted with systemd-nspawn in a throw-away copy of the Debian 12
# tree (never the machine's own root). One boot, on a simulated fabric
# (ibsim in the container, smsupd on H1_1 through umad2sim), checks in turn:
# - the port appears 20 s late: smsupd.service is enabled and starts at boot,
#   ibsim.service only 20 s later (umad2sim blocks until its simulator
#   listens, as a port that is not there yet). smsupd waits (STATUS= says
#   so), becomes MASTER without a failed start or a restart, and
#   network.target is reached only after it (Before=network.target);
# - `systemctl reload` of an invalid file exits non-zero and the running
#   config stays (same generation, still MASTER);
# - ExecStartPre= stops Debian's opensm@GUID.service of smsupd's own port
#   and leaves another port's instance alone;
# - dpkg -i of Debian's opensm package again (its postinst restarts
#   opensm.service): the package's mask holds, smsupd's OpenSM stays the
#   only one and MASTER, smsupd and OpenSM keep their pids;
# - an invalid config: kill -9 of smsupd, its restart exits 78 and is not
#   restarted again, and the OpenSM it left is stopped (ExecStopPost=);
#   `systemctl start` with the file still invalid fails with 78 too;
# - `systemctl stop` right after kill -9 of smsupd leaves no OpenSM;
# - without /sys/class/infiniband_mad/abi_version the unit does not start.
#   systemd_boot_order_test.sh DEB_DIR TREE TOPOGEN MAD_TIMEOUT_SHIM
set -euo pipefail
deb=$(echo "$1"/smsupd_*.deb)
base=$2
topogen=$3
shim=$4
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/boot_lib.sh"
boot_prepare "$base" "$deb" smsupd-boot-order

step "install the .deb, ibsim and umad2sim; fetch Debian's opensm .deb to install again later"
in_tree "$dir" sh -c 'apt-get install -y -qq /root/smsupd.deb ibsim-utils libumad2sim0 jq &&
  cd /root && apt-get download -qq opensm' >"$dir/apt.log" 2>&1 || { tail -20 "$dir/apt.log"; exit 1; }
[ "$(readlink "$root/etc/systemd/system/opensm.service")" = /dev/null ] && ok "postinst masked opensm.service" ||
  fail "opensm.service is not masked"

mkdir -p "$root/etc/smsupd-test"
"$topogen" --two-switch -o "$root/etc/smsupd-test/net" --list >"$dir/topology"
guid_of() { awk -v n="$1" '$1 == "node" && $2 == n { print $5 }' "$dir/topology"; }
own=$(guid_of H1_1)
other=$(guid_of H1_2)
cp "$shim" "$root/usr/local/lib/libtestbed-mad-timeout.so"
# The simulator (the port) comes up 20 s after the boot started it.
cat >"$root/etc/systemd/system/ibsim.service" <<'UNIT'
[Unit]
Description=Simulated InfiniBand fabric, 20 s late
[Service]
Environment=IBSIM_SOCKNAME=smsupd-test
ExecStartPre=/bin/sleep 20
ExecStart=/bin/sh -c 'sleep infinity | /usr/bin/ibsim -s /etc/smsupd-test/net'
[Install]
WantedBy=multi-user.target
UNIT
# smsupd on H1_1; nothing orders it after the simulator.
mkdir -p "$root/etc/systemd/system/smsupd.service.d"
cat >"$root/etc/systemd/system/smsupd.service.d/simulated-fabric.conf" <<'UNIT'
[Service]
Environment=LD_PRELOAD=/usr/local/lib/libtestbed-mad-timeout.so:/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
Environment=SIM_HOST=H1_1 IBSIM_SOCKNAME=smsupd-test
WorkingDirectory=/var/lib/smsupd
UNIT
# No umad driver in the container: the simulator stands in for it.
printf '[Unit]\nConditionPathExists=\n' >"$root/etc/systemd/system/smsupd.service.d/no-umad-driver.conf"
# Debian's opensm@GUID.service as a stand-in that needs no device and runs nothing.
mkdir -p "$root/etc/systemd/system/opensm@.service.d"
printf '[Unit]\nConditionPathExists=\n[Service]\nExecStart=\nExecStart=/bin/sleep infinity\n' \
  >"$root/etc/systemd/system/opensm@.service.d/stand-in.conf"
# Debian's opensm.service, should it ever start: the plain OpenSM on
# smsupd's port, as PORTS=ALL would (and Conflicts= would stop smsupd).
mkdir -p "$root/etc/systemd/system/opensm.service.d"
printf '[Unit]\nConditionPathExists=\n[Service]\nExecStart=\nExecStart=/bin/systemctl start opensm@%s.service\n' \
  "$own" >"$root/etc/systemd/system/opensm.service.d/stand-in.conf"
cat >"$root/etc/smsupd/smsupd.yaml" <<YAML
version: 1
node: H1_1
sm:
  port_guid: $own
  role: master
  opensm:
    log_file: /var/log/smsupd/opensm.log
    options:
      dump_files_dir: /var/log/smsupd/
control:
  group: smsupd
hosts:
  H1_1: $own
  H1_2: $other
partitions:
  - name: Default
    pkey: 0x7fff
    members:
      - { ports: ALL, membership: full }
YAML
cp "$root/etc/smsupd/smsupd.yaml" "$dir/good.yaml"
# systemd-networkd pulls network.target into the boot, as a node's network setup does.
in_tree "$dir" systemctl enable smsupd.service ibsim.service systemd-networkd.service >/dev/null 2>&1 ||
  fail "cannot enable the units"

step "boot the tree with systemd-nspawn (smsupd.service enabled, the port 20 s late)"
boot_tree
prop() { in_machine systemctl show --value -p "$2" "$1" 2>/dev/null; }
# Read a journal to its end with `grep -c ... >/dev/null`, never `grep -q`:
# grep -q exits at the first match, journalctl then dies of SIGPIPE, and
# pipefail fails the check whenever the journal goes on after the match.
journal() { in_machine journalctl --no-pager -o cat -u "$1"; }
smctl_json() { in_machine smctl --json status 2>/dev/null; }
sm_state() { smctl_json | jq -r .local_sm.state 2>/dev/null; }
is_state() { [ "$(sm_state)" = "$1" ]; }
opensms() { in_machine pgrep -x opensm | sort | tr '\n' ' ' | sed 's/ $//'; }
no_opensm() { [ -z "$(opensms)" ]; }
dump() { echo "--- journal of smsupd.service"; journal smsupd.service | tail -40; }

waiting() { [[ $(prop smsupd.service StatusText) == "waiting for port $own to appear"* ]]; }
wait_until 60 "smsupd.service says it waits for the port (STATUS=)" waiting || true
[ "$(prop smsupd.service ActiveState)" = activating ] && ok "smsupd.service is activating meanwhile" ||
  fail "smsupd.service is $(prop smsupd.service ActiveState) while the port is missing"
active() { [ "$(prop smsupd.service ActiveState)" = active ]; }
wait_until 120 "smsupd.service active once the port appeared" active || { dump; exit 1; }
step "smsupd ready $(($(prop smsupd.service ActiveEnterTimestampMonotonic) / 1000000)) s after the container's boot; ibsim started at $(($(prop ibsim.service ExecMainStartTimestampMonotonic) / 1000000)) s"
[ "$(prop smsupd.service NRestarts)" = 0 ] && ok "no restart, no failed start while waiting" ||
  fail "NRestarts $(prop smsupd.service NRestarts)"
journal smsupd.service | grep -c PORT_WAITING >/dev/null && ok "journal: PORT_WAITING" || fail "no PORT_WAITING in the journal"
journal smsupd.service | grep -c PORT_APPEARED >/dev/null && ok "journal: PORT_APPEARED" || fail "no PORT_APPEARED in the journal"
wait_until 60 "smsupd reports MASTER" is_state MASTER || true
sm_at=$(prop smsupd.service ActiveEnterTimestampMonotonic)
net_at=$(prop network.target ActiveEnterTimestampMonotonic)
((net_at >= sm_at)) && ok "network.target reached after smsupd was ready (Before=network.target)" ||
  fail "network.target at $net_at us, smsupd ready at $sm_at us"

step "systemctl reload of an invalid file: fails, the running config stays"
generation=$(smctl_json | jq .config.generation)
echo "no_such_key: 1" >>"$root/etc/smsupd/smsupd.yaml"
if out=$(in_machine systemctl reload smsupd.service 2>&1); then
  fail "systemctl reload of an invalid file exited 0"
else
  ok "systemctl reload of an invalid file exits non-zero"
fi
[ "$(smctl_json | jq .config.generation)" = "$generation" ] && ok "generation $generation stays" ||
  fail "generation $(smctl_json | jq .config.generation), was $generation"
[ "$(prop smsupd.service ActiveState)" = active ] && is_state MASTER && ok "smsupd active and MASTER" ||
  fail "smsupd $(prop smsupd.service ActiveState), $(sm_state)"
journal smsupd.service | grep -c "CONFIG_REJECTED" >/dev/null && ok "journal: CONFIG_REJECTED" || fail "no CONFIG_REJECTED"
cp "$dir/good.yaml" "$root/etc/smsupd/smsupd.yaml"
in_machine systemctl reload smsupd.service && ok "systemctl reload of the valid file" || fail "reload of the valid file"

step "ExecStartPre= stops only the opensm@ instance of smsupd's own port"
in_machine systemctl start "opensm@$own.service" "opensm@$other.service" || fail "cannot start the stand-ins"
in_machine systemctl restart smsupd.service || fail "systemctl restart smsupd"
[ "$(in_machine systemctl is-active "opensm@$own.service")" = inactive ] && ok "opensm@$own (own port) stopped" ||
  fail "opensm@$own still active"
[ "$(in_machine systemctl is-active "opensm@$other.service")" = active ] && ok "opensm@$other (another port) left alone" ||
  fail "opensm@$other was stopped"
in_machine systemctl stop "opensm@$other.service"
wait_until 60 "smsupd reports MASTER after the restart" is_state MASTER || true

step "dpkg -i of Debian's opensm again: smsupd's OpenSM stays the only one, and MASTER"
before="$(prop smsupd.service MainPID) $(opensms)"
if out=$(in_machine env DEBIAN_FRONTEND=noninteractive sh -c 'dpkg -i /root/opensm_*.deb' 2>&1); then
  ok "dpkg -i opensm"
else
  fail "dpkg -i opensm: $out"
fi
[ "$(readlink "$root/etc/systemd/system/opensm.service")" = /dev/null ] && ok "opensm.service still masked" ||
  fail "opensm.service is no longer masked"
state=$(in_machine systemctl list-units --plain --no-legend --state=active 'opensm*' | awk '{ print $1 }')
[ -z "$state" ] && ok "opensm.service and every opensm@ inactive" || fail "active: $state"
after="$(prop smsupd.service MainPID) $(opensms)"
[ "$before" = "$after" ] && ok "smsupd and its OpenSM kept their pids, the only OpenSM ($after)" ||
  fail "smsupd pid / opensm pids: $before -> $after"
is_state MASTER && ok "still MASTER" || fail "now $(sm_state)"

step "an invalid config: the restart after kill -9 exits 78, is not restarted, leaves no OpenSM"
echo "no_such_key: 1" >>"$root/etc/smsupd/smsupd.yaml"
restarts=$(prop smsupd.service NRestarts)
in_machine systemctl kill --signal=SIGKILL --kill-who=main smsupd.service
is_failed() { [ "$(prop smsupd.service ActiveState)" = failed ]; }
wait_until 30 "smsupd.service failed" is_failed || true
[ "$(prop smsupd.service ExecMainStatus)" = 78 ] && ok "exit status 78" ||
  fail "exit status $(prop smsupd.service ExecMainStatus)"
[ "$(prop smsupd.service NRestarts)" = $((restarts + 1)) ] && ok "restarted once after kill -9, not after 78" ||
  fail "NRestarts $restarts -> $(prop smsupd.service NRestarts)"
wait_until 20 "no OpenSM left" no_opensm || true
journal smsupd.service | grep -c "SMSUPD_STOP_POST.*no smsupd follows" >/dev/null && ok "journal: SMSUPD_STOP_POST stopped it" ||
  fail "no SMSUPD_STOP_POST line"
if in_machine systemctl start smsupd.service >/dev/null 2>&1; then fail "systemctl start with an invalid config"; fi
[ "$(prop smsupd.service ActiveState) $(prop smsupd.service ExecMainStatus)" = "failed 78" ] &&
  ok "systemctl start with the invalid file: failed, status 78" ||
  fail "after start: $(prop smsupd.service ActiveState) $(prop smsupd.service ExecMainStatus)"

step "systemctl stop right after kill -9 of smsupd: no OpenSM left"
cp "$dir/good.yaml" "$root/etc/smsupd/smsupd.yaml"
in_machine systemctl reset-failed smsupd.service
in_machine systemctl start smsupd.service || fail "systemctl start smsupd"
wait_until 60 "smsupd reports MASTER" is_state MASTER || true
opensm=$(opensms)
in_machine sh -c 'systemctl kill --signal=SIGKILL --kill-who=main smsupd.service && systemctl stop smsupd.service' ||
  fail "kill -9 and stop"
wait_until 20 "no OpenSM left (was pid $opensm)" no_opensm || true
# Failed (result signal: smsupd died by SIGKILL) or inactive, never active.
case $(prop smsupd.service ActiveState) in
  inactive | failed) ok "smsupd.service stopped ($(prop smsupd.service ActiveState))" ;;
  *) fail "smsupd.service $(prop smsupd.service ActiveState)" ;;
esac
journal smsupd.service | grep -E "SMSUPD_STOP_POST|SIGNAL_STOP" | tail -2 | sed 's/^/     /'

step "without the umad ABI file the unit does not start"
rm "$root/etc/systemd/system/smsupd.service.d/no-umad-driver.conf"
in_machine systemctl daemon-reload
in_machine systemctl reset-failed smsupd.service || true
in_machine systemctl start smsupd.service || fail "systemctl start"
[ "$(prop smsupd.service ConditionResult) $(prop smsupd.service ActiveState)" = "no inactive" ] &&
  ok "ConditionPathExists=/sys/class/infiniband_mad/abi_version: skipped" ||
  fail "condition $(prop smsupd.service ConditionResult), $(prop smsupd.service ActiveState)"

if [ $failed != 0 ]; then dump; fi
step "done"
exit $failed
