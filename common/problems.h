// The one vocabulary of health problems: every ID smsupd may raise (in
// `smctl status` health.problems and the problem-raised / problem-cleared
// events), who raises it and how serious it is. The failover policy
// (policies/problems.h) and the daemon's subsystems raise only IDs listed
// here; docs/log-messages.md lists them for operators. IDs are stable
// (operators and alert rules match on them); texts may change.
#pragma once

#include <array>
#include <string_view>

namespace smsupd {

enum class Severity {
  kWarning,   // the fabric works; something needs a look (no standby, drift)
  kCritical,  // the fabric is or may soon be without a working master
};

// "warning", "critical".
const char* SeverityName(Severity severity);

struct ProblemInfo {
  std::string_view id;
  Severity severity;
  std::string_view meaning;  // one line, for docs and --help
};

// Raised by the failover policy.
inline constexpr char kProblemDualMaster[] = "DUAL_MASTER";
inline constexpr char kProblemNoMaster[] = "NO_MASTER";
inline constexpr char kProblemEqualPriority[] = "EQUAL_PRIORITY";
inline constexpr char kProblemUnknownSm[] = "UNKNOWN_SM";
inline constexpr char kProblemSmKeyMismatch[] = "SM_KEY_MISMATCH";
inline constexpr char kProblemActCountStalled[] = "MASTER_ACTCOUNT_STALLED";
inline constexpr char kProblemNoStandby[] = "NO_STANDBY";
inline constexpr char kProblemLocalPortDown[] = "LOCAL_PORT_DOWN";
inline constexpr char kProblemHandoverFailed[] = "HANDOVER_FAILED";
inline constexpr char kProblemTakeoverFailed[] = "TAKEOVER_FAILED";
// Raised by the failover controller (watch rounds).
inline constexpr char kProblemOpenSmNotSweeping[] = "OPENSM_NOT_SWEEPING";
inline constexpr char kProblemMadThreadStuck[] = "MAD_THREAD_STUCK";
// Raised by the local OpenSM's supervision.
inline constexpr char kProblemOpenSmCrashLoop[] = "OPENSM_CRASH_LOOP";
inline constexpr char kProblemOpenSmStartFailed[] = "OPENSM_START_FAILED";
inline constexpr char kProblemLocalPortUnreadable[] = "LOCAL_PORT_UNREADABLE";
inline constexpr char kProblemForeignOpenSm[] = "FOREIGN_OPENSM";
// Raised by the config apply pipeline.
inline constexpr char kProblemRestartNeeded[] = "RESTART_NEEDED";
inline constexpr char kProblemPKeyDrift[] = "PKEY_DRIFT";
// Raised by the ports read-out (smctl ports).
inline constexpr char kProblemPortDown[] = "PORT_DOWN";
inline constexpr char kProblemPortWrongSm[] = "PORT_WRONG_SM";
inline constexpr char kProblemPortNotActive[] = "PORT_NOT_ACTIVE";
inline constexpr char kProblemPortErrors[] = "PORT_ERRORS";
inline constexpr char kProblemLinkBelowRate[] = "LINK_BELOW_RATE";
// Raised by the cabling check (docs/cabling.md).
inline constexpr char kProblemMiscabled[] = "MISCABLED";
// Raised by the takeover readiness check (docs/twin.md), on a STANDBY.
inline constexpr char kProblemTakeoverWouldChange[] = "TAKEOVER_WOULD_CHANGE";
inline constexpr char kProblemTwinReadinessFailed[] = "TWIN_READINESS_FAILED";

inline constexpr std::array<ProblemInfo, 26> kProblems = {{
    {kProblemDualMaster, Severity::kCritical, "two or more SMs are MASTER"},
    {kProblemNoMaster, Severity::kCritical, "no SM in the subnet is MASTER"},
    {kProblemEqualPriority, Severity::kWarning, "two SMs share the highest priority"},
    {kProblemUnknownSm, Severity::kWarning, "an SM runs on a port outside this node and hosts:"},
    {kProblemSmKeyMismatch, Severity::kCritical, "another SM uses a different SM_Key (split brain)"},
    {kProblemActCountStalled, Severity::kWarning, "the master answers but its ActCount stopped"},
    {kProblemNoStandby, Severity::kWarning, "no STANDBY SM would take over from the master"},
    {kProblemLocalPortDown, Severity::kCritical, "this node's SM port is not Active"},
    {kProblemHandoverFailed, Severity::kCritical, "a handover did not complete"},
    {kProblemTakeoverFailed, Severity::kCritical, "a take-over did not complete"},
    {kProblemOpenSmNotSweeping, Severity::kCritical, "the local MASTER does not finish heavy sweeps"},
    {kProblemMadThreadStuck, Severity::kCritical, "a MAD call hangs: the subnet is not being watched"},
    {kProblemOpenSmCrashLoop, Severity::kCritical, "the local OpenSM keeps exiting"},
    {kProblemOpenSmStartFailed, Severity::kCritical, "the local OpenSM cannot be started"},
    {kProblemLocalPortUnreadable, Severity::kWarning, "the local port cannot be read over MADs"},
    {kProblemForeignOpenSm, Severity::kCritical, "an OpenSM smsupd does not supervise runs on its port"},
    {kProblemRestartNeeded, Severity::kWarning, "startup-only OpenSM options wait for a restart"},
    {kProblemPKeyDrift, Severity::kWarning, "the fabric's P_Keys differ from this node's config"},
    {kProblemPortDown, Severity::kWarning, "a port that was linked is Down"},
    {kProblemPortWrongSm, Severity::kWarning, "an Active port follows another SM than the master"},
    {kProblemPortNotActive, Severity::kWarning, "a port stays Init or Armed: no SM made it Active"},
    {kProblemPortErrors, Severity::kWarning, "a port's error counters are rising"},
    {kProblemLinkBelowRate, Severity::kWarning, "a link trained below the rate both ends support"},
    {kProblemMiscabled, Severity::kWarning, "the discovered links differ from the declared cabling"},
    {kProblemTakeoverWouldChange, Severity::kWarning, "a takeover by this standby would change the fabric"},
    {kProblemTwinReadinessFailed, Severity::kWarning, "the takeover readiness check cannot run the twin"},
}};

// The catalogue entry of `id`, or nullptr for an ID that is not listed.
const ProblemInfo* FindProblem(std::string_view id);

}  // namespace smsupd
