#include "tests/daemon/failover/busy_master_test_base.h"

#include <signal.h>

#include <cstdlib>
#include <iostream>

#include "tests/testbed/topology_generators.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// A heavy sweep of the 648-HCA fabric takes 1-2 s here: one starts as soon
// as the previous one can have ended.
constexpr milliseconds kSweepEvery(2000);

// A heavy sweep of 702 nodes and 2,600 ports sends well over this many SMPs,
// and the master's SMInfo ActCount counts every one (osm_vl15intf.c).
constexpr uint32_t kMadsPerSweep = 1000;

Result<uint32_t> ActCount(FabricProbe& probe, uint16_t lid) {
  Result<SmInfoView> sm = probe.SmInfo(lid);
  if (!sm) return sm.error();
  return sm->act_count;
}

}  // namespace

void BusyMasterTest::RunBusyMaster(milliseconds duration) {
  // SMSUPD_BUSY_FAT_TREE=72x36x36 (or PxLxHxSxC) runs it on a larger tree.
  const char* spec = std::getenv("SMSUPD_BUSY_FAT_TREE");
  Result<Topology> large = spec && *spec ? MakeFatTreeFromSpec(spec) : MakeFatTree(36, 18, 18);
  ASSERT_TRUE(large.ok()) << large.error().message;
  const size_t large_nodes = large->Cas().size() + large->Switches().size();
  ASSERT_NO_FATAL_FAILURE(StartPair({}, std::move(*large)));
  const std::optional<pid_t> opensm = master().OpenSmPid();
  ASSERT_TRUE(opensm.has_value()) << "no OpenSM pid for " << master_name();
  const uint16_t standby_lid = bed().LidOf(standby_name());
  Result<uint32_t> act_before = ActCount(bed().probe(), bed().LidOf(master_name()));
  ASSERT_TRUE(act_before.ok()) << act_before.error().message;
  int reads = 0;
  int sweeps = 0;
  steady_clock::time_point next_sweep = steady_clock::now();
  EXPECT_OK(FailoverBed::Hold(
      "the standby staying a standby while the master sweeps the 648-HCA fabric again and again",
      [&](std::string& why) {
        if (steady_clock::now() >= next_sweep) {
          if (::kill(*opensm, SIGHUP) == 0) ++sweeps;  // SIGHUP: a heavy sweep (OpenSM main.c)
          next_sweep = steady_clock::now() + kSweepEvery;
        }
        Result<SmInfoView> sm = bed().probe().SmInfo(standby_lid);
        if (!sm) return true;  // no answer is no takeover; the monitor watches too
        ++reads;
        why = std::string("standby SM is ") + SmStateText(sm->state);
        return !sm->is_master();
      },
      duration, milliseconds(200)));
  Result<uint32_t> act_after = ActCount(bed().probe(), bed().LidOf(master_name()));
  ASSERT_TRUE(act_after.ok()) << act_after.error().message;
  const uint32_t sent = *act_after - *act_before;
  std::cerr << "busy master on " << large_nodes << " nodes: " << sweeps << " forced heavy sweeps, " << sent << " SMPs sent by the master, "
            << reads << " SMInfo reads of the standby over " << duration.count() << " ms\n";
  // The master really was busy: most of the forced sweeps went out.
  EXPECT_GE(sent, static_cast<uint32_t>(sweeps / 2) * kMadsPerSweep);
  ExpectSoleMaster(master_name());
  MonitorReport report = bed().monitor()->Snapshot();
  EXPECT_EQ(report.master_samples.count(standby_name()), 0u) << "the standby was MASTER: " << report.Describe();
  EXPECT_TRUE(bed().EventsOfKind(standby_name(), "master-lost").empty()) << bed().Diagnostics();
}

}  // namespace smsupd::testbed
