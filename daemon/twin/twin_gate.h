// The twin as a gate (docs/twin.md "The twin as a gate"): does what OpenSM
// did in the twin agree with smsupd's own plan of the change? Pure: the
// twin's tables, its report (the JSON the runner wrote) and the config in,
// a TwinVerdict out. Tests feed it fakes.
//
// The twin disagrees when any of these holds (one reason line each):
// - model: an end port's P_Key table in the twin differs from what
//   smsupd's model of the config says it must hold (the check the apply's
//   verification makes on the fabric afterwards, made on the twin first);
// - partitions.conf: OpenSM refused it or fell back to the default
//   partition;
// - routing: the engine OpenSM used is not the one asked for (a fallback),
//   or no engine configured the switches;
// - opensm.conf: OpenSM complained about an option smsupd passes through
//   (an invalid value, an unknown token);
// - unreachable: more end-port LIDs without a route in the twin than live;
// - credit loops: an engine reported a credit loop or deadlock;
// - incomplete: tables that could not be read on either side.
// Forwarding-table moves and P_Key changes the model expects are the plan
// itself, not a disagreement.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/guid.h"
#include "config/config.h"
#include "daemon/apply/twin_verdict.h"
#include "daemon/twin/fabric_state.h"

namespace smsupd::twin {

// ibsim's P_Key table sizes (docs/twin.md "What the twin cannot see"): a
// table the model fills to them holds only its first entries in the twin.
inline constexpr std::size_t kIbsimCaPKeys = 64;
inline constexpr std::size_t kIbsimSwitchPKeys = 8;

struct ModelCheck {
  int compared = 0;           // ports read in the twin and compared
  int mismatches_total = 0;   // ports whose table differs from the model
  std::vector<std::string> mismatches;  // the first kMaxVerdictReasons: "H1_3 0x..: twin 0x..,.. model 0x..,.."
};

// Port GUID -> the entries smsupd's model of `config` puts in its table,
// for every end port of the twin (`sm_port` is this node's: SELF and
// OpenSM's base rule depend on it).
std::map<Guid, std::set<uint16_t>> ModelTables(const config::Config& config, const FabricState& twin, Guid sm_port);

// The twin's tables against the model.
ModelCheck CompareWithModel(const FabricState& twin, const std::map<Guid, std::set<uint16_t>>& model);

// Tables the twin-plan report says could not be read, on each side (0 where
// the report does not say): a comparison with any is incomplete.
struct UnreadTables {
  int live = 0;
  int twin = 0;
  bool any() const { return live > 0 || twin > 0; }
  std::string Text() const;  // "N live and M twin table(s) unread"
};
UnreadTables UnreadTablesOf(const nlohmann::json& report);

// The verdict on a twin that ran: `report` is the twin-plan report (JSON,
// docs/twin.md "Reading it"), `summary` its first line.
TwinVerdict JudgeTwin(const nlohmann::json& report, const std::string& summary, const ModelCheck& model);

// The verdict on a twin that could not run (kind as in docs/twin.md).
TwinVerdict TwinFailed(const std::string& kind, const std::string& message);

}  // namespace smsupd::twin
