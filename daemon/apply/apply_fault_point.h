// A crash-test hook in the apply pipeline. With SMSUPD_FAULT_STOP_AT=<step>
// in smsupd's environment, the daemon stops itself (SIGSTOP, every thread)
// when an apply reaches that step, so that a test can kill -9 it exactly
// there and check what a crash at that moment leaves behind
// (docs/reliability.md). The variable is read once, at the first step;
// without it each call is one comparison and nothing else. Only in builds
// with the CMake option SMSUPD_TEST_FAULTS (on by default; a build without it
// ignores the variable).
//
// The steps, in the order an apply passes them, each named after what has
// just happened:
//   generation-saved    generations/<N>/ in place
//   files-installed     opensm.conf and partitions.conf replaced
//   current-set         <state_dir>/generation names <N>
//   opensm-signalled    OpenSM told (SIGHUP, or restarted)
//   verified            the fabric's P_Key tables read and judged
//   recorded            the verification written into <N>/meta.json
#pragma once

#include <string_view>

namespace smsupd {

inline constexpr char kFaultStopAtVariable[] = "SMSUPD_FAULT_STOP_AT";

// Stops the process (SIGSTOP) if SMSUPD_FAULT_STOP_AT names `step`.
void ReachedApplyStep(std::string_view step);

}  // namespace smsupd
