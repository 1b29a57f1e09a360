// What `smctl ports` answers (docs/answers.md "Ports"): every port a walk
// read, named, with its state, link rate and error counters, and the
// problems that need a person, worst first, each with what to do. Pure: a
// read-out and the memory of earlier ones come in, the report goes out.
//
// The checks:
//   port-down    a port that was linked in an earlier read-out is Down now;
//   wrong-sm     an Active end port whose SM LID is not the master's;
//   not-active   a port that stays Init or Armed longer than stuck_after
//                (the link trained, no SM made it Active);
//   errors       an error counter rose since the last read; held for
//                error_hold after the last rise, cleared at once when the
//                counters are reset (perfquery -R);
//   below-rate   a link trained below the rate both ends support, capped
//                by the rate most links of its kind run at (so a fabric of
//                4x links on 12x-capable ports is not below rate).
// A port not read is listed as unread, never as healthy.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "config/cabling_rate.h"
#include "daemon/fabric/fabric.h"
#include "daemon/ports/port_names.h"

namespace smsupd {

using SteadyTime = std::chrono::steady_clock::time_point;
using PortKey = std::pair<Guid, int>;  // node GUID, port number

// The error counters the checks watch, by their IBA names.
struct CounterField {
  const char* name;  // "SymbolErrorCounter"
  uint64_t PortCounters::*field;
};
const std::vector<CounterField>& ErrorCounterFields();

enum class PortProblemKind { kPortDown, kWrongSm, kNotActive, kErrors, kBelowRate };
// "port-down", "wrong-sm", "not-active", "errors", "below-rate".
const char* PortProblemName(PortProblemKind kind);
// Worst first: port-down, wrong-sm, not-active, errors, below-rate.
int PortProblemRank(PortProblemKind kind);

struct PortProblem {
  PortProblemKind kind;
  std::string port;  // the port's name
  Guid node_guid = 0;
  int port_num = 0;
  std::string text;    // one line, by name
  std::string advice;  // one line: what to do
  double score = 0;    // within a kind, larger is worse (an error rate)
};

// What the checks remember of a port between read-outs.
struct PortMemory {
  bool linked_before = false;  // seen linked (Init or better) in an earlier read-out
  std::string peer;            // the name of what it was linked to
  std::optional<SteadyTime> inactive_since;  // Init/Armed since
  std::optional<PortCounters> counters;      // the last counters read
  SteadyTime counters_at{};
  std::optional<SteadyTime> last_rise;       // when an error counter last rose
  std::string rise_text;                     // what rose then
};
using PortsMemory = std::map<PortKey, PortMemory>;

struct PortsRules {
  std::chrono::seconds stuck_after{30};
  std::chrono::seconds error_hold{120};
};

// One read-out: the walk, and the counters of the ports read (absent for
// ports not asked; an Error for ports that did not answer).
struct PortsReadout {
  FabricTopology topology;
  std::map<PortKey, Result<PortCounters>> counters;
  SteadyTime at{};
  Guid local_port_guid = 0;
  int perf_mads = 0;
  std::chrono::milliseconds took{0};
};

struct PortsReport {
  nlohmann::json ports = nlohmann::json::array();  // one object per port
  std::vector<PortProblem> problems;               // worst first
  std::vector<std::string> unread;                 // ports not read, why
  int unread_total = 0;
  uint16_t master_lid = 0;
  // The read-out's cost.
  long took_ms = 0;
  int smps = 0;
  int perf_mads = 0;
};

// The ports whose counters a read-out asks for: every linked port with a
// LID (switch ports at the switch's LID), switch port 0 left out.
std::vector<std::pair<PortKey, CounterTarget>> CounterTargets(const FabricTopology& topology);

// Evaluates `readout` against `memory` (updated for the next read-out).
PortsReport EvaluatePorts(const PortsReadout& readout, const PortNames& names, PortsMemory& memory,
                          const PortsRules& rules = {});

// The report as the `ports` reply: {"ports", "problems", "unread", ...}.
// `only` keeps the ports (and their problems) of those node/port keys;
// `problems_only` drops the port list.
nlohmann::json PortsReply(const PortsReport& report, const std::vector<PortKey>* only, bool problems_only);

// "Active", "Down", ...; "LinkUp", "Polling", ...
const char* PortStateName(int state);
const char* PhysStateName(int phys_state);

}  // namespace smsupd
