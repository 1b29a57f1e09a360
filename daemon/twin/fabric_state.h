// What a twin plan compares: every end port's P_Key table and every switch's
// linear forwarding table, read the same way from the live fabric and from
// the twin (the probe mode, twin_probe.h, runs this code in both).
//
// The JSON form travels between processes (the probe writes it, the runner
// reads it): FabricStateFromJson checks every field and bound, so a
// truncated or hostile file is an Error, never a crash or an unbounded
// allocation.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/guid.h"
#include "common/result.h"
#include "daemon/fabric/fabric.h"

namespace smsupd::twin {

// Bounds of a fabric state (and of the file that carries it). A subnet has
// at most 48K unicast LIDs; a P_Key table at most 65,536 entries by the
// spec, 128 on common HCAs (the bound leaves room).
inline constexpr std::size_t kMaxStatePorts = 49152;
inline constexpr std::size_t kMaxStateSwitches = 16384;
inline constexpr std::size_t kMaxPKeyEntries = 4096;
inline constexpr std::size_t kMaxNameBytes = 128;
inline constexpr std::size_t kMaxStateErrors = 100;

struct StatePort {
  Guid port_guid = 0;
  Guid node_guid = 0;
  bool is_switch = false;  // a switch's port 0
  int port_num = 0;
  uint16_t lid = 0;
  int lmc = 0;
  std::string name;             // NodeDescription (printable)
  std::vector<uint16_t> pkeys;  // raw entries, table order; empty if unread
  bool read = false;
};

struct StateSwitch {
  Guid guid = 0;
  uint16_t lid = 0;
  std::string name;
  std::vector<uint8_t> lft;  // exit port per destination LID
  bool read = false;
};

struct FabricState {
  std::vector<StatePort> ports;       // sorted by port GUID
  std::vector<StateSwitch> switches;  // sorted by GUID
  // Ports or switches that did not answer ("leaf01 0x..: forwarding table: no
  // response"), at most kMaxStateErrors; errors_total counts them all.
  std::vector<std::string> errors;
  int errors_total = 0;
};

// Reads the tables of every end port and switch of `topology` (a walk of
// the same fabric). The local port's table is read by directed route (it
// may have no LID yet). Ports or switches still unread at `deadline` are
// reported in `errors`. Blocking; MAD thread or a probe process.
FabricState ReadFabricState(Fabric& fabric, const FabricTopology& topology, Guid local_port,
                            std::chrono::steady_clock::time_point deadline);

nlohmann::json ToJson(const FabricState& state);
Result<FabricState> FabricStateFromJson(const nlohmann::json& json);

}  // namespace smsupd::twin
