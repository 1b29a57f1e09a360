// `smsupd --twin-run DIR`: one twin plan, start to end, as a child of the
// daemon (twin_plan_command.h). A process of its own, so that whatever
// happens (a hung OpenSM, a simulator that never listens, the daemon's
// deadline) one kill ends every part: the runner's children die with it
// (PR_SET_PDEATHSIG), and the daemon removes DIR.
//
//   DIR/request.json    from the daemon: port GUID, OpenSM, ibsim, umad2sim
//   DIR/opensm.conf, partitions.conf, node-name-map   rendered proposal
//   1. the live fabric: `smsupd --twin-probe` with the daemon's own
//      environment (reads only) -> live.json, net, guid2lid, sim.json
//   2. ibsim -s net, on its own socket name   -> listening
//   3. OpenSM -F opensm.conf under umad2sim, on the twin's copy of this
//      node, guid2lid in its cache           -> "SUBNET UP" in opensm.log
//   4. the twin: `smsupd --twin-probe` under umad2sim  -> twin.json
//   5. OpenSM and ibsim stopped; DIR/result.json written:
//      {"ok": true, "report": {...}, "text": "..."} or
//      {"ok": false, "kind": K, "error": "..."}, K one of
//      missing-simulator, live-read, topology, not-up, read-back, no-space, internal.
// Bounded: every step has a deadline, every process an address-space limit
// (RLIMIT_AS, inherited), every file read a size limit.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "common/guid.h"
#include "common/result.h"

namespace smsupd::twin {

struct TwinRequest {
  Guid port_guid = 0;
  std::string opensm = "/usr/sbin/opensm";
  std::string ibsim;     // resolved by the daemon (FindIbsim)
  std::string umad2sim;  // resolved by the daemon (FindUmad2Sim)
  int64_t up_timeout_ms = 60000;
  int64_t memory_mb = 4096;
};

nlohmann::json ToJson(const TwinRequest& request);
Result<TwinRequest> TwinRequestFromJson(const nlohmann::json& json);

// Free space the twin needs in its directory before it starts: OpenSM's log
// (log_max_size caps it), the dumps, the net file and the tables.
inline constexpr uint64_t kTwinMinFreeBytes = 64ull << 20;

int RunTwinRunner(int argc, char** argv);

}  // namespace smsupd::twin
