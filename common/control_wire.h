// The control protocol's wire types: what `status` and `events` carry
// (control_protocol.h has the framing). Wire types are separate from the
// daemon's internal state; `smctl --json` prints exactly these.
#pragma once

#include <array>
#include <map>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/guid.h"
#include "common/result.h"

namespace smsupd::control {

// GUIDs travel as "0x" + 16 hex digits, SM states as the IB names.

inline constexpr std::array<std::string_view, 4> kSmStateNames = {
    "NOTACTIVE", "DISCOVERING", "STANDBY", "MASTER"};
bool IsSmStateName(std::string_view name);

struct LocalSmWire {
  std::string state = "NOTACTIVE";  // as the SM reports it over MADs
  int priority = 0;                 // 0..15
  Guid guid = 0;                    // port GUID OpenSM is bound to
  std::uint16_t lid = 0;            // 0 = not assigned yet
  int pid = 0;                      // OpenSM's pid; 0 = not running
};

struct OpenSmWire {
  int pid = 0;
  std::int64_t uptime_s = 0;
  int restarts = 0;
  Guid port_guid = 0;
};

struct SmWire {
  Guid guid = 0;
  std::uint16_t lid = 0;
  std::string state = "NOTACTIVE";
  int priority = 0;
  std::string host;  // from the inventory; "" when unknown
};

struct MasterWire {
  Guid guid = 0;
  std::uint16_t lid = 0;
  int priority = 0;
  std::string host;
};

struct ConfigWire {
  std::uint64_t generation = 0;
  std::string hash;
};

struct ProblemWire {
  std::string id;     // stable ID, e.g. "TWO_MASTERS", "NO_STANDBY"
  std::string text;   // one sentence for a person
  std::string since;  // RFC 3339 UTC with milliseconds
};

// The failover supervisor (docs/failover.md): its state (STANDBY, MASTER,
// TAKING_OVER, HANDING_OVER, ...), the configured role and preempt mode, and
// the sm_priority it currently asks of OpenSM.
struct FailoverWire {
  std::string state;
  std::string role;
  bool preempt = true;
  int commanded_priority = -1;  // -1: none asked yet
  // Races and anomalies seen and acted on since this smsupd started, by name
  // (dual_master, no_master, master_lost, isolated_master, superseded_master, master_not_sweeping,
  // handover_taken_back, restart): wire "counters".
  std::map<std::string, std::uint64_t> counters;
};

struct StatusWire {
  std::string node;
  std::optional<FailoverWire> failover;  // wire: failover (absent from older daemons)
  LocalSmWire local_sm;
  OpenSmWire opensm;
  std::optional<MasterWire> master;  // null when no master is seen
  std::vector<SmWire> sms;
  ConfigWire config;
  std::vector<ProblemWire> problems;  // wire: health.problems
};

nlohmann::json ToJson(const StatusWire& status);
Result<StatusWire> ParseStatusWire(const nlohmann::json& json);

// Event kinds the daemon emits (documented in docs/control-protocol.md).
inline constexpr std::string_view kEventOpenSmStarted = "opensm-started";
inline constexpr std::string_view kEventOpenSmExited = "opensm-exited";
inline constexpr std::string_view kEventOpenSmRestarted = "opensm-restarted";
inline constexpr std::string_view kEventSmStateChanged = "sm-state-changed";
inline constexpr std::string_view kEventMasterChanged = "master-changed";
inline constexpr std::string_view kEventConfigApplied = "config-applied";
inline constexpr std::string_view kEventConfigRejected = "config-rejected";
inline constexpr std::string_view kEventProblemRaised = "problem-raised";
inline constexpr std::string_view kEventProblemCleared = "problem-cleared";
inline constexpr std::string_view kEventConfigRolledBack = "config-rolled-back";
inline constexpr std::string_view kEventPKeyVerified = "pkey-verified";
inline constexpr std::string_view kEventPKeyVerifyFailed = "pkey-verify-failed";
inline constexpr std::string_view kEventPKeyDrift = "pkey-drift";
inline constexpr std::string_view kEventPKeyNotVerified = "pkey-not-verified";
inline constexpr std::string_view kEventFailoverTimeline = "failover-timeline";
inline constexpr std::string_view kEventOpenSmStateLogged = "opensm-state-logged";
inline constexpr std::string_view kEventCablingDifferences = "cabling-differences";
// The twin gate's verdict on a reload: {mode, verdict, reasons, kind, summary, by, applied}.
inline constexpr std::string_view kEventTwinGate = "twin-gate";
// The takeover readiness check on a STANDBY: {result: "no-change" | "would-change" | "failed", text}.
inline constexpr std::string_view kEventTwinReadiness = "twin-readiness";

struct EventWire {
  std::uint64_t seq = 0;  // starts at 1, strictly increasing per daemon run
  std::string time;       // RFC 3339 UTC with milliseconds
  std::string kind;
  nlohmann::json details = nlohmann::json::object();
};

nlohmann::json ToJson(const EventWire& event);
Result<EventWire> ParseEventWire(const nlohmann::json& json);

// "2026-12-02T17:33:04.123Z".
std::string FormatRfc3339Millis(std::chrono::system_clock::time_point time);

}  // namespace smsupd::control
