// `smctl ports` on the simulated fabric with the real smsupd and OpenSM: a
// link trained below its rate (set in the topology file), a port unlinked to
// Down and rising error counters (set from ibsim's console) each show up in
// `ports --problems` by name, and clear when fixed.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "tests/daemon/pkey_apply/pkey_apply_fixture.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed::pkey {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr milliseconds kSmctlDeadline(120000);
constexpr milliseconds kProblemDeadline(90000);

class PortsTest : public PKeyApplyTest {
 protected:
  // H1_2's cable trains at 1xSDR; every other link at ibsim's 4xSDR.
  void ShapeTopology(Topology& topology) override {
    std::vector<TopoLink> links = topology.links();
    for (TopoLink& link : links)
      if (link.a == "H1_2" || link.b == "H1_2") link.rate = "1xSDR";
    topology.SetLinks(std::move(links));
  }

  SmctlResult Ports(std::vector<std::string> args) {
    args.insert(args.begin(), "ports");
    return master().Smctl(args, kSmctlDeadline);
  }

  // The problems of `kind` in a `ports --problems --json` answer.
  static std::vector<json> Problems(const SmctlResult& result, const std::string& kind) {
    std::vector<json> found;
    json reply = result.Json();
    for (const json& problem : reply.value("problems", json::array()))
      if (Text(problem, "kind") == kind) found.push_back(problem);
    return found;
  }

  // Waits until `ports --problems` lists (or, with present false, no longer
  // lists) a problem of `kind` whose text holds `needle`.
  void WaitForProblem(const std::string& kind, const std::string& needle, bool present) {
    std::string last;
    Status seen = WaitFor(
        kind + " " + needle + (present ? " listed" : " cleared"),
        [&](std::string& why) {
          SmctlResult result = Ports({"--problems", "--json"});
          last = result.Describe();
          bool listed = false;
          for (const json& problem : Problems(result, kind))
            listed = listed || Text(problem, "text").find(needle) != std::string::npos;
          why = last;
          return listed == present;
        },
        kProblemDeadline, milliseconds(500));
    ASSERT_TRUE(seen.ok()) << seen.message();
  }

  // The leaf port H2_1 is cabled to.
  std::pair<std::string, int> LeafOf(const std::string& host) {
    for (const TopoLink& link : fabric().topology().links()) {
      if (link.a == host) return {link.b, link.b_port};
      if (link.b == host) return {link.a, link.a_port};
    }
    return {"", 0};
  }
};

TEST_F(PortsTest, EveryPortIsListedByNameWithStateRateAndCounters) {
  SmctlResult result = Ports({"--json"});
  ASSERT_EQ(result.exit_code, 0) << result.Describe();
  json reply = result.Json();
  int switch_ports = 0, ca_ports = 0;
  for (const json& row : reply["ports"]) {
    for (const char* key : {"name", "node_guid", "port", "lid", "state", "phys_state", "width", "speed", "rate",
                            "expected_rate", "sm_lid", "counters", "rates_per_minute", "peer", "problems"})
      EXPECT_TRUE(row.contains(key)) << key << " in " << row.dump();
    if (Text(row, "type") == "switch") ++switch_ports;
    if (Text(row, "type") == "ca") ++ca_ports;
    if (Text(row, "name") == "H1_3") {
      EXPECT_EQ(Text(row, "state"), "Active");
      EXPECT_EQ(Text(row, "phys_state"), "LinkUp");
      EXPECT_EQ(Text(row, "rate"), "4xSDR");
      EXPECT_TRUE(row["counters"].contains("SymbolErrorCounter")) << row.dump();
      EXPECT_EQ(Text(row["peer"], "name").rfind("L1 port ", 0), 0u) << row.dump();
    }
  }
  int cas = 0;
  for (const TopoNode& node : fabric().topology().nodes()) cas += node.kind == NodeKind::kCa ? 1 : 0;
  EXPECT_EQ(ca_ports, cas) << result.Describe();
  EXPECT_GT(switch_ports, 0);
  EXPECT_EQ(reply.value("unread_total", -1), 0) << result.Describe();

  SmctlResult text = Ports({"H1_3"});
  EXPECT_EQ(text.exit_code, 0) << text.Describe();
  EXPECT_NE(text.out.find("H1_3"), std::string::npos) << text.Describe();
  EXPECT_EQ(text.out.find("H2_2"), std::string::npos) << "only the port asked for: " << text.Describe();

  // The read-out told smsupd which node each inventory port is on: OpenSM's
  // node-name map now names the hosts' nodes (node GUID, not port GUID).
  const TopoNode* h1_3 = fabric().topology().Find("H1_3");
  ASSERT_NE(h1_3, nullptr);
  std::string map_text;
  Status named = WaitFor(
      "H1_3 in the node-name map",
      [&] {
        std::ifstream file(master().StatePath("node-name-map"));
        map_text.assign(std::istreambuf_iterator<char>(file), {});
        return map_text.find(FormatGuid(h1_3->node_guid) + " \"H1_3\"") != std::string::npos;
      },
      kProblemDeadline, milliseconds(200));
  EXPECT_TRUE(named.ok()) << map_text;

  SmctlResult unknown = Ports({"H1_33"});
  EXPECT_EQ(unknown.exit_code, 4) << unknown.Describe();
  EXPECT_NE(unknown.err.find("closest: H1_3"), std::string::npos) << unknown.Describe();
}

TEST_F(PortsTest, BelowRateDownAndRisingErrorsShowByNameAndClearWhenFixed) {
  // The slow link, from the start.
  WaitForProblem("below-rate", "H1_2", true);
  SmctlResult slow = Ports({"--problems"});
  EXPECT_EQ(slow.exit_code, 1) << "problems listed: " << slow.Describe();
  EXPECT_NE(slow.out.find("runs at 1xSDR"), std::string::npos) << slow.Describe();
  EXPECT_NE(slow.out.find("what to do:"), std::string::npos) << slow.Describe();

  // Rising symbol errors on H1_3, then cleared as perfquery -R would.
  ASSERT_TRUE(Ports({"--json"}).exit_code == 0);  // a read-out before the errors
  ASSERT_TRUE(fabric().Command("PerformanceSet \"H1_3\"[1] PortCounters.SymbolErrorCounter=40").ok());
  WaitForProblem("errors", "H1_3", true);
  ASSERT_TRUE(fabric().Command("PerformanceSet \"H1_3\"[1] PortCounters.SymbolErrorCounter=0").ok());
  WaitForProblem("errors", "H1_3", false);

  // H2_1's cable pulled: the leaf port it was in goes Down, by name.
  auto [leaf, port] = LeafOf("H2_1");
  ASSERT_FALSE(leaf.empty());
  ASSERT_TRUE(fabric().UnlinkPort(leaf, port).ok());
  const std::string down = leaf + " port " + std::to_string(port);
  WaitForProblem("port-down", down, true);
  SmctlResult listed = Ports({"--problems", "--json"});
  std::vector<json> downs = Problems(listed, "port-down");
  ASSERT_FALSE(downs.empty()) << listed.Describe();
  EXPECT_NE(Text(downs.front(), "text").find("it was linked to H2_1"), std::string::npos) << listed.Describe();
  EXPECT_EQ(Text(listed.Json()["problems"][0], "kind"), "port-down") << "worst first: " << listed.Describe();
  SmctlResult status = master().Smctl({"status", "--json"}, kSmctlDeadline);
  EXPECT_NE(status.out.find("PORT_DOWN"), std::string::npos) << status.Describe();

  ASSERT_TRUE(fabric().RelinkPort(leaf, port).ok());
  WaitForProblem("port-down", down, false);
  SmctlResult events = master().Smctl({"events", "--json"}, kSmctlDeadline);
  EXPECT_NE(events.out.find("port-problem-cleared"), std::string::npos) << events.Describe();
}

}  // namespace
}  // namespace smsupd::testbed::pkey
