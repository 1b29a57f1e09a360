#!/usr/bin/env bash
# smctl's bash completion (contrib/bash-completion/smctl) with the real
# smctl for commands and options, and a stand-in daemon's answers for
# generations and SM GUIDs (the Ansible test completes against a real one).
#   completion_test.sh SMCTL COMPLETION_FILE
set -euo pipefail
real_smctl=$1
completion=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/smsupd-completion.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# `smctl` on PATH: the real one, but `--json history` and `--json status`
# answer what a daemon with generations 1-3 and two SMs would, and record
# which daemon they were asked for.
mkdir -p "$dir/bin" "$dir/etc"
cat >"$dir/bin/smctl" <<SCRIPT
#!/bin/sh
case " \$* " in
  *" --json history "*) echo "\$*" >>"$dir/asked"; cat "$dir/history.json" ;;
  *" --json status "*) echo "\$*" >>"$dir/asked"; cat "$dir/status.json" ;;
  *) exec "$real_smctl" "\$@" ;;
esac
SCRIPT
chmod +x "$dir/bin/smctl"
cat >"$dir/history.json" <<'JSON'
{
  "current": 3,
  "generations": [
    { "generation": 1, "applied_by": "start", "verification": "verified" },
    { "generation": 2, "applied_by": "uid 0", "verification": "verified" },
    { "generation": 3, "applied_by": "uid 0", "verification": "verified" }
  ]
}
JSON
cat >"$dir/status.json" <<'JSON'
{
  "local_sm": { "guid": "0x0002c90300a1b2c3", "state": "MASTER" },
  "master": { "guid": "0x0002c90300a1b2c3", "lid": 1 },
  "sms": [
    { "guid": "0x0002c90300a1b2c3", "state": "MASTER" },
    { "guid": "0x0002c90300a1b2d4", "state": "STANDBY" }
  ]
}
JSON
touch "$dir/etc/fabric-a.yaml" "$dir/etc/fabric-b.yaml"
export PATH="$dir/bin:$PATH" SMSUPD_CONFIG_DIR="$dir/etc"

# shellcheck source=/dev/null
source "$completion"
# compopt works only while bash completes; the test calls _smctl directly.
compopt() { :; }
failed=0
# expect "WORDS..." EXPECTED...: completes the last word of WORDS.
expect() {
  local line=$1
  shift
  read -r -a COMP_WORDS <<<"$line"
  [[ $line == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _smctl
  local got
  got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
  local want
  want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
  if [ "$got" = "$want" ]; then
    echo "ok   '$line' -> $got"
  else
    echo "FAIL '$line': got '$got', want '$want'"
    failed=1
  fi
}
commands=$("$real_smctl" --help | awk '/^Subcommands:/ { s = 1; next } /^[^ ]/ { s = 0 } s { print $1 }')
# shellcheck disable=SC2086
expect "smctl " $commands
expect "smctl ro" rollback
expect "smctl --json l" list-commands
expect "smctl --s" --socket
expect "smctl -i fab" fabric-a fabric-b
expect "smctl reload --" --help --restart --force --wait --twin --timeout --json
expect "smctl plan --e" --exit-code
expect "smctl plan --tw" --twin
expect "smctl events --f" --follow
expect "smctl rollback " 1 2 3
expect "smctl rollback --wait 2" 2
expect "smctl failover --to " 0x0002c90300a1b2c3 0x0002c90300a1b2d4
expect "smctl failover --to 0x0002c90300a1b2d" 0x0002c90300a1b2d4
expect "smctl status --timeout "
expect "smctl wh" why
expect "smctl why "
expect "smctl cab" cabling
expect "smctl cabling --ex" --export
expect "smctl imp" import
expect "smctl import --p" --partitions
expect "smctl import --check --n" --node-name-map
mkdir -p "$dir/osm" && touch "$dir/osm/partitions.conf" "$dir/osm/opensm.conf"
expect "smctl import --partitions $dir/osm/p" "$dir/osm/partitions.conf"
expect "smctl import --partitions $dir/osm/partitions.conf --out $dir/osm/o" "$dir/osm/opensm.conf"
expect "smctl render x.yaml --out $dir/osm/o"
# Every option of every command completes (none forgotten).
for command in $commands; do
  # shellcheck disable=SC2046
  expect "smctl $command --" $("$real_smctl" "$command" --help |
    awk '/^Options:/ { s = 1; next } /^[^ ]/ { s = 0 } s && /^  -/ { n = split($1, a, ","); for (i = 1; i <= n; i++) if (a[i] ~ /^--/) print a[i] }')
done
# The daemon asked is the one the command line names.
: >"$dir/asked"
expect "smctl -i fabric-b rollback 3" 3
grep -q -- "-i fabric-b --json history" "$dir/asked" || { echo "FAIL -i was not passed on: $(cat "$dir/asked")"; failed=1; }
exit $failed
