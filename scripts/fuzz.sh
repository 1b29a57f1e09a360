#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz with clang-14 (build/fuzz) and
# runs each for a while, several at a time (docs/fuzzing.md).
#
#   scripts/fuzz.sh [--time SECONDS] [--jobs N] [--opt LEVEL] [--no-build | --build-only] [--also TARGET]... [HARNESS...]
#
# --also builds more targets in the same tree before the run (scripts/test.sh
# builds its sanitizer test targets so: one clang build serves both).
#
# --opt is the optimisation level of the build (default 1). scripts/test.sh
# builds at 0: half the compile time, and its harnesses run only 10 s each.
#
# Defaults: 30 s per harness, `nproc` harnesses at once, every harness.
# Inputs that find new coverage go to build/fuzz/found/<harness>/ (the
# committed corpus is only read); a crash, a broken property or a hang is
# written to build/fuzz/artifacts/<harness>/ and makes the script exit 1.
# Each harness's libFuzzer output: build/fuzz/logs/<harness>.log.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=30
jobs=$(nproc)
opt=1
build=1
fuzz=1
harnesses=()
also=()
while (($#)); do
  case $1 in
    --time) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --opt) opt=$2; shift 2 ;;
    --opt=*) opt=${1#--opt=}; shift ;;
    --no-build) build=0; shift ;;
    --build-only) fuzz=0; shift ;;
    --also) also+=("$2"); shift 2 ;;
    --also=*) also+=("${1#--also=}"); shift ;;
    -*) echo "usage: $0 [--time SECONDS] [--jobs N] [--opt LEVEL] [--no-build | --build-only] [--also TARGET]... [HARNESS...]" >&2; exit 2 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
case $opt in 0|1|2) ;; *) echo "$0: --opt takes 0, 1 or 2" >&2; exit 2 ;; esac
if ((${#harnesses[@]} == 0)); then
  for source in tests/fuzz/*_fuzzer.cc; do
    name=$(basename "$source" _fuzzer.cc)
    harnesses+=("$name")
  done
fi

dir=build/fuzz
if ((build)); then
  # Line tables and asserts on: file:line in every report. A unity build, as
  # scripts/test.sh's: a third of the compile time. -Werror: this is the
  # build of scripts/test.sh that compiles the unit tests. Each unit-test
  # binary is registered as 4 gtest shards, not one CTest entry per case:
  # the same cases in a third of the time (an ASan process start costs
  # more than most unit tests). One case: BINARY --gtest_filter=NAME. The
  # common library headers are precompiled once (cmake/pch.cmake): a
  # quarter less compile time. Linked with lld: GNU ld spent 140 CPU-seconds
  # linking the ASan executables, lld 37.
  cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DSMSUPD_FUZZ=ON -DSMSUPD_WERROR=ON \
    -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O$opt -g1" -DSMSUPD_UNIT_TEST_SHARDS=4 -DSMSUPD_PCH=ON \
    -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 >/dev/null
  cmake --build "$dir" -j"$(nproc)" --target "${harnesses[@]/%/_fuzzer}" "${also[@]}"
fi
((fuzz)) || exit 0

dictionary() {  # the harness's dictionary, if it has one
  case $1 in
    config_yaml) echo tests/fuzz/dict/config_yaml.dict ;;
    control_*) echo tests/fuzz/dict/control.dict ;;
    opensm_log) echo tests/fuzz/dict/opensm_log.dict ;;
    opensm_import) echo tests/fuzz/dict/opensm_import.dict ;;
  esac
}

# Inputs grow up to this size: large and deep enough to pass every bound the
# harness's code has (docs/reliability.md): 64 levels of YAML and a 16 KiB
# value, 32 levels of JSON, OpenSM's 64 KiB log line. A MAD is 256 bytes.
max_len() {
  case $1 in
    config_yaml) echo 65536 ;;
    control_*) echo 131072 ;;
    opensm_log) echo 131072 ;;
    cabling_csv) echo 65536 ;;
    opensm_import) echo 524288 ;;  # 33,000 definitions, 4094-byte pieces
    *) echo 4096 ;;
  esac
}

# Seconds one input may take before libFuzzer calls it a hang. opensm_import
# turns a 300 KiB partitions.conf of 30,000 definitions into a 3 MB YAML for
# the validator: about 2 s without sanitizers, up to 30 s under ASan.
timeout_for() {
  case $1 in
    opensm_import) echo 60 ;;
    *) echo 10 ;;
  esac
}

run() {  # run HARNESS: libFuzzer for $seconds, output in the harness's log
  local name=$1 work=$dir/found/$1 artifacts=$dir/artifacts/$1/ log=$dir/logs/$1.log
  mkdir -p "$work" "$artifacts" "$dir/logs"
  local options=(-max_total_time="$seconds" -timeout="$(timeout_for "$name")" -rss_limit_mb=2048 -max_len="$(max_len "$name")"
                 -print_final_stats=1 -artifact_prefix="$artifacts")
  local dict
  dict=$(dictionary "$name")
  [ -n "$dict" ] && options+=(-dict="$dict")
  local corpora=("$work" "tests/fuzz/corpus/$name")
  [ -d "tests/fuzz/regressions/$name" ] && corpora+=("tests/fuzz/regressions/$name")
  local status=0
  "$dir/tests/fuzz/${name}_fuzzer" "${options[@]}" "${corpora[@]}" >"$log" 2>&1 || status=$?
  echo "$status" >"$dir/logs/$name.status"
}

for name in "${harnesses[@]}"; do
  rm -f "$dir/logs/$name.status"
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
  run "$name" &
done
wait

failed=()
for name in "${harnesses[@]}"; do
  [ "$(cat "$dir/logs/$name.status" 2>/dev/null)" = 0 ] || failed+=("$name")
done

for name in "${harnesses[@]}"; do
  summary=$(grep -aE '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$dir/logs/$name.log" | tail -1 || true)
  printf '%-16s %s\n' "$name" "${summary:-no libFuzzer status line}"
done
if ((${#failed[@]})); then
  for name in "${failed[@]}"; do
    echo "FUZZ FAILURE in $name: $dir/logs/$name.log" >&2
    grep -aE 'property broken|ERROR: (libFuzzer|AddressSanitizer|UndefinedBehaviorSanitizer)|runtime error|Test unit written to' \
      "$dir/logs/$name.log" | head -5 >&2 || true
  done
  exit 1
fi
