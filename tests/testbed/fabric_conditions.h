// Conditions integration tests wait for, checked with the fabric probe's
// MAD queries (ground truth, never an SM's log or a CLI's output).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "common/result.h"
#include "tests/testbed/fabric_probe.h"
#include "tests/testbed/topology.h"

namespace smsupd::testbed {

// The LID of the port of HCA `node` (port 1) once the SM gave it one.
Result<uint16_t> WaitForCaLid(FabricProbe& probe, const Topology& topology, const std::string& node,
                              std::chrono::milliseconds deadline);

// Waits until SMInfo of `lid` answers with `state`; returns that SMInfo.
Result<SmInfoView> WaitForSmState(FabricProbe& probe, uint16_t lid, SmStateValue state,
                                  std::chrono::milliseconds deadline);

// Waits until every HCA port of the topology is Active and holds `sm_lid`
// as its SM LID. The error names how many do and one that does not.
Status WaitForEveryCaSmLid(FabricProbe& probe, const Topology& topology, uint16_t sm_lid,
                           std::chrono::milliseconds deadline);

// One check of the above, without waiting ("" when all agree, else why not).
std::string DescribeCaSmLidMismatch(FabricProbe& probe, const Topology& topology, uint16_t sm_lid);

}  // namespace smsupd::testbed
