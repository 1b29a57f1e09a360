#include "tests/testbed/topology_generators.h"

#include <string>

namespace smsupd::testbed {

Guid CaGuid(int leaf, int host) {
  return kCaGuidBase + (static_cast<Guid>(leaf) << 12) + (static_cast<Guid>(host) << 4);
}
Guid LeafGuid(int leaf) { return kSwitchGuidBase + (static_cast<Guid>(leaf) << 4); }
Guid SpineGuid(int spine) { return kSwitchGuidBase + 0x100000 + (static_cast<Guid>(spine) << 4); }

std::string CaName(int leaf, int host) {
  return "H" + std::to_string(leaf) + "_" + std::to_string(host);
}
std::string LeafName(int leaf) { return "L" + std::to_string(leaf); }
std::string SpineName(int spine) { return "S" + std::to_string(spine); }

namespace {

// Adds leaf `leaf` with its HCAs cabled to ports 1..hosts.
void AddLeafWithHosts(Topology& topo, int leaf, int hosts, int switch_ports) {
  topo.AddNode({LeafName(leaf), NodeKind::kSwitch, LeafGuid(leaf), switch_ports});
  for (int host = 1; host <= hosts; ++host) {
    topo.AddNode({CaName(leaf, host), NodeKind::kCa, CaGuid(leaf, host), 1});
    topo.AddLink({LeafName(leaf), host, CaName(leaf, host), 1});
  }
}

}  // namespace

Topology MakeTwoSwitchTopology() {
  Topology topo;
  AddLeafWithHosts(topo, 1, 2, 8);
  AddLeafWithHosts(topo, 2, 2, 8);
  // As in ibsim's net.2sw2path4hca: two paths between the switches.
  topo.AddLink({LeafName(1), 3, LeafName(2), 3});
  topo.AddLink({LeafName(1), 5, LeafName(2), 5});
  topo.SetManagementNodes(CaName(1, 1), CaName(1, 2));
  return topo;
}

Result<Topology> MakeFatTree(int leaves, int hosts_per_leaf, int spines) {
  if (leaves < 1 || hosts_per_leaf < 1 || spines < 0) {
    return Error{"fat tree needs leaves >= 1, hosts_per_leaf >= 1, spines >= 0"};
  }
  if (leaves * hosts_per_leaf < 2) return Error{"fat tree needs at least two HCAs (management nodes)"};
  if (hosts_per_leaf + spines > kSwitchPorts) {
    return Error{"hosts_per_leaf + spines exceeds the 36 ports of a leaf switch"};
  }
  if (leaves > kSwitchPorts) return Error{"more leaves than the 36 ports of a spine switch"};
  if (spines == 0 && leaves > 1) return Error{"several leaves need at least one spine"};
  Topology topo;
  for (int spine = 1; spine <= spines; ++spine) {
    topo.AddNode({SpineName(spine), NodeKind::kSwitch, SpineGuid(spine), kSwitchPorts});
  }
  for (int leaf = 1; leaf <= leaves; ++leaf) {
    AddLeafWithHosts(topo, leaf, hosts_per_leaf, kSwitchPorts);
    for (int spine = 1; spine <= spines; ++spine) {
      topo.AddLink({LeafName(leaf), hosts_per_leaf + spine, SpineName(spine), leaf});
    }
  }
  const std::vector<const TopoNode*> cas = topo.Cas();
  topo.SetManagementNodes(cas[0]->name, cas[1]->name);
  if (Status s = topo.Validate(); !s) return Error{s.message()};
  return topo;
}

}  // namespace smsupd::testbed
