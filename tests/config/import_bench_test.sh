#!/usr/bin/env bash
# render -> import -> render on the benchmark's config (bench/config_gen.py:
# HOSTS hosts of two ports, default 10,000, and 1,000 partitions): every port has the same
# P_Key table, by the test-side model of OpenSM, before and after; and
# `smctl import --check` agrees.
# usage: import_bench_test.sh SOURCE_DIR CONFIG_TOOL SMCTL IMPORT_TABLES_TOOL [HOSTS]
set -euo pipefail
src=$1 config_tool=$2 smctl=$3 tables_tool=$4 hosts=${5:-10000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$src/bench/config_gen.py" --hosts "$hosts" --partitions 1000 | grep -v '_key_file:' >"$work/smsupd.yaml"
mkdir "$work/first" "$work/second"
"$config_tool" render "$work/smsupd.yaml" "$work/first" >/dev/null
"$smctl" import --opensm-conf "$work/first/opensm.conf" --partitions "$work/first/partitions.conf" \
  --node-name-map "$work/first/node-name-map" --check --out "$work/imported.yaml" 2>"$work/import.err" || {
  echo "smctl import exited $?:"; head -20 "$work/import.err"; exit 1; }
grep -q "every P_Key table equal" "$work/import.err"
"$config_tool" render "$work/imported.yaml" "$work/second" >/dev/null
"$tables_tool" "$work/first" "$work/second"
echo "imported YAML: $(wc -c <"$work/imported.yaml") bytes"
