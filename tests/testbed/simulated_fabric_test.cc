// The fixture itself on a real ibsim: the probe sees the generated fabric,
// console commands change it, and nothing outlives a fabric or the test.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "tests/testbed/fabric_test.h"
#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;

std::set<Guid> ModelPortGuids(const Topology& topology) {
  std::set<Guid> guids;
  for (const TopoNode& node : topology.nodes()) guids.insert(node.PortGuid(node.kind == NodeKind::kCa ? 1 : 0));
  return guids;
}

std::set<Guid> WalkedPortGuids(const std::vector<WalkedPort>& walk) {
  std::set<Guid> guids;
  for (const WalkedPort& port : walk) guids.insert(port.node.port_guid);
  return guids;
}

// A node process with a child in its own session: out of reach of the
// process-group kill and of PR_SET_PDEATHSIG, like the OpenSM an smsupd starts.
constexpr char kEscapingSleeper[] = "setsid sleep 300 & exec sleep 300";

class SimulatedFabricTest : public FabricTest {};

TEST_F(SimulatedFabricTest, ProbeSeesExactlyTheGeneratedFabric) {
  ASSERT_TRUE(StartFabric(MakeTwoSwitchTopology()));
  Result<std::vector<WalkedPort>> walk = probe().Discover();
  ASSERT_TRUE(walk.ok()) << walk.error().message;
  EXPECT_EQ(WalkedPortGuids(*walk), ModelPortGuids(fabric().topology()));
  // NodeDescription is the node's name in the net file.
  Result<nlohmann::json> self = probe().Call("nodeinfo dr:0", milliseconds(5000));
  ASSERT_TRUE(self.ok()) << self.error().message;
  EXPECT_EQ(self->at("description"), fabric().topology().FarCa().name);
}

TEST_F(SimulatedFabricTest, ProbeRunsOnTheFarNodeWithTheModelsGuid) {
  Result<Topology> topo = MakeFatTree(2, 3, 1);
  ASSERT_TRUE(topo.ok());
  ASSERT_TRUE(StartFabric(*topo));
  Result<std::vector<WalkedPort>> walk = probe().Discover();
  ASSERT_TRUE(walk.ok()) << walk.error().message;
  ASSERT_FALSE(walk->empty());
  // The walk starts at the probe's own port.
  EXPECT_EQ(walk->front().node.port_guid, fabric().topology().FarCa().PortGuid(1));
  EXPECT_EQ(walk->front().route, "dr:0");
  // Without an SM, ports are Init and have no LID.
  EXPECT_EQ(walk->front().port_info.state, 2);
  EXPECT_EQ(walk->front().port_info.lid, 0);
}

TEST_F(SimulatedFabricTest, EveryPortHasADefaultPKeyBeforeAnySm) {
  ASSERT_TRUE(StartFabric(MakeTwoSwitchTopology()));
  Result<std::map<Guid, PKeyTable>> tables = probe().PKeysOfEveryPort();
  ASSERT_TRUE(tables.ok()) << tables.error().message;
  EXPECT_EQ(tables->size(), fabric().topology().nodes().size());
  for (const auto& [guid, table] : *tables) {
    EXPECT_TRUE(table.count(0x7fff)) << FormatGuid(guid);
  }
}

TEST_F(SimulatedFabricTest, UnlinkedPortDisappearsAndRelinkBringsItBack) {
  ASSERT_TRUE(StartFabric(MakeTwoSwitchTopology()));
  const Guid first = fabric().topology().Find("H1_1")->PortGuid(1);
  auto reached = [&](std::string& why) {
    Result<std::vector<WalkedPort>> walk = probe().Discover();
    if (!walk) {
      why = walk.error().message;
      return false;
    }
    return WalkedPortGuids(*walk).count(first) > 0;
  };
  ASSERT_TRUE(fabric().UnlinkPort("H1_1", 1).ok());
  ASSERT_TRUE(WaitFor("H1_1 to drop off", [&](std::string& why) { return !reached(why); }, milliseconds(10000)).ok());
  ASSERT_TRUE(fabric().RelinkPort("H1_1", 1).ok());
  Status back = WaitFor("H1_1 to come back", reached, milliseconds(10000));
  EXPECT_TRUE(back.ok()) << back.message();
}

TEST_F(SimulatedFabricTest, DroppedMadsFailWithinTheDeadlineAndRecover) {
  ASSERT_TRUE(StartFabric(MakeTwoSwitchTopology()));
  ASSERT_TRUE(probe().Discover().ok());
  // Drop every MAD through the probe's leaf switch: a walk cannot finish.
  ASSERT_TRUE(fabric().SetErrorRate("L2", 1, 100).ok());
  ASSERT_TRUE(WaitFor("the walk to fail", [&] { return !probe().Discover().ok(); }, milliseconds(30000)).ok());
  ASSERT_TRUE(fabric().SetErrorRate("L2", 1, 0).ok());
  Status recovered = WaitFor("the walk to work again", [&] { return probe().Discover().ok(); }, milliseconds(30000));
  EXPECT_TRUE(recovered.ok()) << recovered.message();
}

TEST_F(SimulatedFabricTest, TeardownLeavesNoProcessBehind) {
  ASSERT_TRUE(StartFabric(MakeTwoSwitchTopology()));
  ASSERT_TRUE(probe().Discover().ok());
  // The setsid'd sleep escapes the process group, as an OpenSM started by
  // smsupd does.
  ASSERT_TRUE(fabric().RunOnNode("H2_1", {"sh", "-c", kEscapingSleeper}, "sleeper").ok());
  const std::string name = fabric().socket_name();
  const std::string dir = fabric().dir();
  // reaper, ibsim, probe, sleeper, escaped sleeper (a child shows the name
  // once it has exec'd)
  ASSERT_TRUE(WaitFor("five processes of " + name, [&] { return FindProcessesMentioning(name).size() >= 5; },
                      milliseconds(5000)).ok());
  fabric_.reset();
  EXPECT_TRUE(FindProcessesMentioning(name).empty());
  EXPECT_FALSE(std::filesystem::exists(dir));
}

// The test binary dying (a crash, kill -9, ctest's timeout) must not leave
// ibsim or a node process behind: children get SIGKILL from the kernel
// (PR_SET_PDEATHSIG), and testbed-reaper kills what escaped their group.
TEST(SimulatedFabricOrphanTest, ChildrenDieWithTheProcessThatStartedThem) {
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  pid_t owner = fork();
  if (owner == 0) {
    close(report[0]);
    FabricOptions options;
    options.name = "orphan";
    Result<std::unique_ptr<SimulatedFabric>> fabric = SimulatedFabric::Start(MakeTwoSwitchTopology(), options);
    if (!fabric || !(*fabric)->RunOnNode("H1_1", {"sh", "-c", kEscapingSleeper}, "sleeper").ok()) _exit(1);
    std::string line = (*fabric)->socket_name() + "\n" + (*fabric)->dir() + "\n";
    if (write(report[1], line.data(), line.size()) < 0) _exit(1);
    pause();
    _exit(0);
  }
  close(report[1]);
  std::string text;
  char buf[512];
  for (ssize_t n; (n = read(report[0], buf, sizeof(buf))) > 0;) {
    text.append(buf, static_cast<size_t>(n));
    if (std::count(text.begin(), text.end(), '\n') == 2) break;
  }
  close(report[0]);
  const bool reported = std::count(text.begin(), text.end(), '\n') == 2;
  const std::string name = reported ? text.substr(0, text.find('\n')) : "";
  const std::string dir = reported ? text.substr(text.find('\n') + 1, text.rfind('\n') - text.find('\n') - 1) : "";
  const bool running =
      reported && WaitFor("reaper, ibsim and both sleepers",
                          [&] { return FindProcessesMentioning(name).size() >= 4; }, milliseconds(5000)).ok();
  kill(owner, SIGKILL);  // the "test binary" dies, whatever happened above
  waitpid(owner, nullptr, 0);
  ASSERT_TRUE(reported) << "the owner failed to start a fabric";
  EXPECT_TRUE(running);
  Status gone = WaitFor("no process of " + name, [&] { return FindProcessesMentioning(name).empty(); },
                        milliseconds(5000));
  EXPECT_TRUE(gone.ok()) << gone.message();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace smsupd::testbed
