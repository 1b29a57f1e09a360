#include "tests/config/random_config.h"

#include <cstdio>
#include <random>
#include <set>

namespace smsupd::config::testing {
namespace {

const char* const kMemberships[] = {"full", "limited", "both"};
const char* const kKeywords[] = {"ALL", "ALL_CAS", "ALL_SWITCHES", "SELF"};
const char* const kMtus[] = {"256", "512", "1024", "2048", "4096"};
const char* const kRates[] = {"2.5", "10", "40", "56", "100", "200", "600"};

class Generator {
 public:
  Generator(const std::vector<TestNode>& nodes, std::uint64_t seed) : nodes_(nodes), random_(seed) {}

  int Pick(int count) { return std::uniform_int_distribution<int>(0, count - 1)(random_); }
  bool Chance(int percent) { return Pick(100) < percent; }

  std::string Membership() {
    if (Chance(20)) return "";
    return std::string(", membership: ") + kMemberships[Pick(3)];
  }

  std::string Hosts() {
    std::string yaml = "hosts:\n";
    for (const TestNode& node : nodes_) {
      if (node.is_switch || (Chance(15) && node.name != "H1")) continue;
      std::string guids;
      for (int port = 1; port <= node.ports; ++port)
        if (port == 1 || Chance(80)) guids += (guids.empty() ? "" : ", ") + FormatGuid(node.PortGuid(port));
      hosts_.push_back(node.name);
      yaml += "  " + node.name + ": [" + guids + "]\n";
    }
    return yaml;
  }

  std::string Groups() {
    if (hosts_.empty()) return "";
    std::string yaml = "groups:\n";
    int count = 1 + Pick(3);
    for (int i = 0; i < count; ++i) {
      std::string members;
      for (const std::string& host : hosts_)
        if (Chance(35)) members += (members.empty() ? "" : ", ") + host;
      if (!groups_.empty() && Chance(40)) members += (members.empty() ? "" : ", ") + groups_[Pick(static_cast<int>(groups_.size()))];
      if (members.empty()) members = hosts_[0];
      groups_.push_back("grp" + std::to_string(i));
      yaml += "  " + groups_.back() + ": [" + members + "]\n";
    }
    return yaml;
  }

  std::string Member() {
    switch (Pick(groups_.empty() ? 3 : 4)) {
      case 0:
        return std::string("{ ports: ") + kKeywords[Pick(4)] + Membership() + " }";
      case 1:
        return "{ host: " + hosts_[Pick(static_cast<int>(hosts_.size()))] + Membership() + " }";
      case 2: {
        const TestNode& node = nodes_[Pick(static_cast<int>(nodes_.size()))];
        Guid guid = Chance(15) ? 0x0002c903deadbe00 + Pick(200) : node.PortGuid(node.is_switch ? 0 : 1 + Pick(node.ports));
        return "{ guid: " + FormatGuid(guid) + Membership() + " }";
      }
      default:
        return "{ group: " + groups_[Pick(static_cast<int>(groups_.size()))] + Membership() + " }";
    }
  }

  std::string Flags() {
    std::string yaml;
    if (Chance(60)) yaml += "    ipoib: true\n";
    if (Chance(30)) yaml += std::string("    mtu: ") + kMtus[Pick(5)] + "\n";
    if (Chance(30)) yaml += std::string("    rate: ") + kRates[Pick(7)] + "\n";
    if (Chance(20)) yaml += "    sl: " + std::to_string(Pick(16)) + "\n";
    if (Chance(10)) yaml += std::string("    defmember: ") + kMemberships[Pick(3)] + "\n";
    return yaml;
  }

  std::string Partition(const std::string& name, std::uint16_t pkey) {
    char text[8];
    std::snprintf(text, sizeof text, "0x%04x", pkey);
    std::string yaml = "  - name: " + name + "\n    pkey: " + text + "\n" + Flags() + "    members:\n";
    int members = 1 + Pick(5);
    for (int i = 0; i < members; ++i) yaml += "      - " + Member() + "\n";
    return yaml;
  }

  std::string Partitions() {
    std::string yaml = "partitions:\n";
    if (Chance(75)) yaml += Partition("Default", 0x7fff);
    std::set<std::uint16_t> used;
    int count = 1 + Pick(5);
    for (int i = 0; i < count; ++i) {
      std::uint16_t pkey;
      do pkey = static_cast<std::uint16_t>(1 + Pick(0x6fff)); while (!used.insert(pkey).second);
      yaml += Partition("p" + std::to_string(i) + (Chance(30) ? "-x.y_z" : ""), pkey);
    }
    return yaml;
  }

 private:
  const std::vector<TestNode>& nodes_;
  std::mt19937_64 random_;
  std::vector<std::string> hosts_;
  std::vector<std::string> groups_;
};

}  // namespace

std::vector<TestNode> TestFabricNodes() {
  std::vector<TestNode> nodes = {{"sw1", true, 0x0008f10400000100, 0}};
  for (int i = 1; i <= 8; ++i)
    nodes.push_back({"H" + std::to_string(i), false, 0x0002c90300001000 + 0x10 * static_cast<Guid>(i), i <= 4 ? 1 : 2});
  return nodes;
}

std::vector<FabricPort> TestFabricPorts(const std::vector<TestNode>& nodes, Guid sm_port) {
  std::vector<FabricPort> ports;
  for (const TestNode& node : nodes) {
    if (node.is_switch) {
      ports.push_back({node.node_guid, PortKind::kSwitch, node.node_guid == sm_port});
      continue;
    }
    for (int port = 1; port <= node.ports; ++port)
      ports.push_back({node.PortGuid(port), PortKind::kCa, node.PortGuid(port) == sm_port});
  }
  return ports;
}

RandomCase RandomConfig(const std::vector<TestNode>& nodes, Guid sm_port, std::uint64_t seed) {
  Generator generator(nodes, seed);
  RandomCase result;
  result.seed = seed;
  result.yaml = "version: 1\nsm:\n  role: master\n  port_guid: " + FormatGuid(sm_port) + "\n";
  result.yaml += generator.Hosts();
  result.yaml += generator.Groups();
  result.yaml += generator.Partitions();
  return result;
}

}  // namespace smsupd::config::testing
