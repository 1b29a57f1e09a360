#!/bin/bash
# Validate+render time and peak memory for a large config: 10,000 hosts with
# 2 ports each, 1,000 partitions with group, host and GUID members.
# Target: under 1 s and 200 MB. Usage: bench/config_bench.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
tool=$build/tests/config/config_tool
[[ -x $tool ]] || { echo "no $tool: build the tests first (cmake --build $build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$here/config_gen.py" --hosts 10000 --partitions 1000 >"$work/smsupd.yaml"
mkdir "$work/out"
# Wall time suffers when other jobs share the CPUs; CPU time (user+sys) much less.
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
echo "config: $(wc -c <"$work/smsupd.yaml") bytes, $(wc -l <"$work/smsupd.yaml") lines"

measure() {  # label, command...
  local label=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || {
    cat "$work/stderr" >&2
    exit 1
  }
  [[ ! -s $work/stderr ]] || { echo "unexpected diagnostics:" >&2; head "$work/stderr" >&2; }
  read -r wall user sys kilobytes <"$work/time"
  printf '%-24s %5.2f s wall  %5.2f s CPU  %6.1f MB peak RSS\n' "$label" "$wall" \
    "$(echo "$user + $sys" | bc -l)" "$(echo "$kilobytes / 1024" | bc -l)"
}

for run in 1 2 3; do
  measure "validate (run $run)" "$tool" validate "$work/smsupd.yaml"
  measure "validate+render ($run)" "$tool" render "$work/smsupd.yaml" "$work/out"
done
echo "partitions.conf: $(wc -c <"$work/out/partitions.conf") bytes, longest line $(awk '{ if (length > m) m = length } END { print m }' "$work/out/partitions.conf") bytes"
