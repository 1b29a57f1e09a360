#!/usr/bin/env bash
# README's "test it" command: installs what it needs, builds, runs every test
# (integration on the simulated fabric, not the 3-minute soak; then the
# package and systemd tests), runs each fuzz harness briefly, and then the
# unit tests and the smsupd integration tests under ASan+UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each phase's wall time, printed at the end (and when a phase fails), so a
# slow run says where its time went.
phases=()
busy_ticks() {  # CPU time in use since boot, all cores, in clock ticks (/proc/stat)
  local _ user nice system idle iowait irq softirq steal
  read -r _ user nice system idle iowait irq softirq steal _ </proc/stat
  echo $((user + nice + system + irq + softirq + steal))
}
phase() {  # phase NAME COMMAND...: also how busy the cores were meanwhile
  local name=$1 start=$SECONDS busy; shift
  current=$name started=$start
  busy=$(busy_ticks)
  "$@"
  local seconds=$((SECONDS - start)) used=$(($(busy_ticks) - busy))
  phases+=("$(printf '%-34s %5d s  cores %3d%% busy' "$name" "$seconds" \
    $((used * 100 / ($(getconf CLK_TCK) * (seconds > 0 ? seconds : 1) * $(nproc)))))")
}
report() {  # report EXIT_STATUS
  local rc=$1
  printf 'test.sh phases:\n'
  ((${#phases[@]})) && printf '  %s\n' "${phases[@]}"
  ((rc)) && printf '  %-34s failed after %d s\n' "${current:-?}" $((SECONDS - ${started:-0}))
  printf '  %-34s %5d s (exit %d)\n' total "$SECONDS" "$rc"
}

phase install-deps scripts/install-deps.sh

jobs=$(nproc)
logs=build/logs
mkdir -p "$logs"

# Work that needs no test result runs in the background, so that the CPU the
# integration tests leave idle (they mostly wait on the simulated fabric) is
# used: the Debian tree (debootstrap: network and disk), then, at the lowest
# CPU priority (SCHED_IDLE: it only gets what the tests leave), the Debian
# packages and the sanitizer build. Each job's output is in build/logs/NAME.log.
logged() {  # logged NAME COMMAND...: COMMAND's output to NAME.log, "status seconds" to NAME.status
  local name=$1 start=$SECONDS status=0; shift
  rm -f "$logs/$name.status"
  "$@" >"$logs/$name.log" 2>&1 || status=$?
  echo "$status $((SECONDS - start))" >"$logs/$name.status"
  return "$status"
}
await() {  # await NAME PID: waits for a background job, fails when it failed or died
  local name=$1 pid=$2 status seconds
  current="waiting for $name" started=$SECONDS
  until [ -f "$logs/$name.status" ]; do
    kill -0 "$pid" 2>/dev/null || { sleep 1; break; }
    sleep 2
  done
  [ -f "$logs/$name.status" ] || echo "127 $((SECONDS - started))" >"$logs/$name.status"
  read -r status seconds <"$logs/$name.status"
  phases+=("$(printf '%-34s %5d s (in the background; waited for it %d s)' "$name" "$seconds" \
    $((SECONDS - started)))")
  if [ "$status" != 0 ]; then
    tail -40 "$logs/$name.log"
    echo "FAILED: $name (exit $status); its output: $logs/$name.log" >&2
    return 1
  fi
}
background=()
stop_tree() {  # stop_tree PID: PID and everything it started
  local child
  for child in $(pgrep -P "$1"); do stop_tree "$child"; done
  kill -TERM "$1" 2>/dev/null || true
}
stop_background() {  # on exit: no build left running
  local pid
  for pid in "${background[@]}"; do stop_tree "$pid"; done
}
trap 'status=$?; stop_background; report $status' EXIT

# One clang-14 build with ASan+UBSan (and libFuzzer's coverage) in build/fuzz
# serves two purposes: the fuzz harnesses (docs/fuzzing.md), each run for
# 10 s from its committed corpus, `nproc` at a time (a crash, a broken
# property or a hang fails the run; longer runs: scripts/fuzz.sh --time 600),
# and the run of every unit test (the target unit_tests, which drive the
# daemon's code in-process through fakes) and of the real smsupd on the
# simulated fabric. The unit tests run only there; the other integration
# tests and the benchmarks only in the gcc build below. It is built at -O0:
# half the compile time of -O1 (it is the larger of the two builds).
asan_targets=(unit_tests smsupd smctl testbed-probe testbed-reaper smsupd_integration_test)

# in_background NICE COMMAND...: COMMAND in the background in a session of
# its own whose scheduler autogroup has niceness NICE. (Linux shares the CPU
# fairly between autogroups, one per session, whatever the niceness of the
# processes inside; the tests, their simulators and their OpenSMs share the
# foreground's.)
in_background() {
  local nice=$1; shift
  setsid bash -c 'echo "$0" >/proc/self/autogroup 2>/dev/null || true; exec "$@"' "$nice" "$@" &
  background+=($!)
}
# The packages are built first: the system tests need them right after the
# integration tests. The builds run at SCHED_IDLE in an autogroup of
# niceness 19: the tests keep their CPU.
in_background 10 bash -c "$(declare -f logged); logs=$logs; logged debian-tree \
  nice -n 10 tests/packaging/debian_root.sh build/ci/packaging/debian-bookworm"
# The packages are what dpkg-buildpackage builds from debian/, with two
# builder's settings that change neither the code nor the files shipped:
# line tables only in the -dbgsym (-g1 after Debian's -g: the debug level
# never changes the code; 41% less compile time for the heaviest file, no
# variables or types in the -dbgsym), and the .debs compressed with gzip,
# not xz (xz spent 20 CPU-seconds on the -dbgsym). g++'s garbage collector
# runs less often (gcc_params).
gcc_params="--param ggc-min-expand=100 --param ggc-min-heapsize=1048576"
in_background 19 chrt --idle 0 bash -c "$(declare -f logged); logs=$logs; logged packages \
  env DEB_CXXFLAGS_APPEND='-g1 $gcc_params' DPKG_DEB_COMPRESSOR_TYPE=gzip \
  tests/packaging/build_debian_package.sh --build-only . build/ci/packaging/deb;
  logged sanitizer-build scripts/fuzz.sh --build-only --opt 0 ${asan_targets[*]/#/--also=}"

build() {  # build DIR [cmake options...]
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja -DSMSUPD_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
}

# -Og: optimised without the passes that cost compile time (half the time of
# -O2). Line tables only (-g1): backtraces keep file:line, and the build takes
# a fifth less time than with full debug info. A unity build (each target's
# sources compiled 16 to a file) parses and instantiates the heavy headers
# (Asio, nlohmann::json, the C++20 library) once per batch instead of once per
# file: most of a build's time. The unit-test executables are built and run
# in the sanitizer build only (SMSUPD_UNIT_TESTS=OFF leaves them out here).
# Linked with lld: a quarter of GNU ld's time for the executables (the
# shipped package keeps the distribution's linker). g++'s garbage collector
# starts at a 1 GiB heap instead of 128 MiB: 5% less compile time, ~900 MiB
# per compile at most. The benchmark programs, which no test runs, are left
# out (SMSUPD_BENCHMARKS=OFF; each bench/ script builds what it runs).
phase build build build/ci -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-Og -g1 -DNDEBUG $gcc_params" \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 -DSMSUPD_UNIT_TESTS=OFF -DSMSUPD_BENCHMARKS=OFF \
  -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld
# Every integration test and script test but the 3-minute busy-master soak
# (its 30-second version runs):
#   ctest --test-dir build/ci -R failover_busy_master_soak
phase tests ctest --test-dir build/ci -j"$jobs" --output-on-failure --timeout 600 -LE system -E '^failover_busy_master_soak$'
# The packages and units in a Debian 12 tree (debootstrap, then dpkg -i,
# upgrade and purge; the units booted with systemd-nspawn): after the
# timing-sensitive tests above, not beside them. The tree and the packages
# built in the background are reused (the packages only when built from the
# same files); lintian and hardening-check run here.
await debian-tree "${background[0]}"
await packages "${background[1]}"
phase system-tests ctest --test-dir build/ci -j"$jobs" --output-on-failure --timeout 900 -L system

await sanitizer-build "${background[1]}"
phase fuzz scripts/fuzz.sh --no-build --time 10
# umad2sim is LD_PRELOADed ahead of the ASan runtime in integration tests.
export ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
phase sanitizer-unit-tests ctest --test-dir build/fuzz -j"$jobs" --output-on-failure --timeout 600 -L unit
phase sanitizer-integration-tests ctest --test-dir build/fuzz -j"$jobs" --output-on-failure --timeout 600 -R '^SmsupdIntegrationTest\.'
