#!/bin/bash
# What a config text at each bound of docs/reliability.md costs to validate
# and to plan: the worst a caller's `smctl plan` can make a request job do.
# Prints wall and CPU time and peak RSS per case (config_tool, the same
# validator and planner as the daemon's jobs).
# Usage: bench/request_bounds.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
tool=$build/tests/config/config_tool
[[ -x $tool ]] || { echo "no $tool: build the tests first (cmake --build $build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
head = "version: 1\nsm:\n  role: master\n  port_guid: 0x0002c90300000001\n"

def hosts(n, per_line=lambda i: ""):
    return "hosts:\n" + "".join(f"  h{i}: 0x{0x0002c90300000001 + i:016x}\n" for i in range(n))

# At kMaxYamlNodes (500,000): 245,000 hosts of one port (490,000 nodes).
with open(f"{work}/nodes.yaml", "w") as f:
    f.write(head + hosts(245000) +
            "partitions:\n  - { name: Default, pkey: 0x7fff, members: [{ ports: ALL }] }\n")
# Near kMaxPortMemberships (2,000,000): 970 partitions naming a group of
# 2,000 hosts, and OpenSM's implicit Default over every port a subnet may have.
group = "groups:\n  all: [" + ", ".join(f"h{i}" for i in range(2000)) + "]\n"
base = head + "limits:\n  pkeys_per_port: 32768\n" + hosts(2000) + group
with open(f"{work}/before.yaml", "w") as f:
    f.write(base)
with open(f"{work}/memberships.yaml", "w") as f:
    f.write(base + "partitions:\n" + "".join(
        f"  - {{ name: p{i}, pkey: {i + 1}, members: [{{ group: all }}] }}\n" for i in range(970)))
# The alias bomb: refused at the node bound after reading a few hundred bytes.
with open(f"{work}/aliases.yaml", "w") as f:
    f.write("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 9)))
PY

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
measure() {  # label, command...
  local label=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || true
  read -r wall user sys kilobytes < <(tail -1 "$work/time")
  printf '%-44s %6.2f s wall %6.2f s CPU %7.1f MB peak RSS  %s\n' "$label" "$wall" \
    "$(echo "$user + $sys" | bc -l)" "$(echo "$kilobytes / 1024" | bc -l)" \
    "$(head -c 80 "$work/stderr" | head -1)"
}
for file in nodes memberships aliases; do
  echo "$file.yaml: $(wc -c <"$work/$file.yaml") bytes"
done
measure "validate: 490,000 nodes" "$tool" validate "$work/nodes.yaml"
measure "validate: alias bomb (10^9 nodes)" "$tool" validate "$work/aliases.yaml"
measure "validate: 1,990,000 port memberships" "$tool" validate "$work/memberships.yaml"
measure "plan: 1,990,000 port memberships" "$tool" plan "$work/before.yaml" "$work/memberships.yaml" --json
