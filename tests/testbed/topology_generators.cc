#include "tests/testbed/topology_generators.h"

#include <algorithm>
#include <string>
#include <vector>

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
Guid CoreGuid(int core) { return kSwitchGuidBase + 0x200000 + (static_cast<Guid>(core) << 4); }
std::string CoreName(int core) { return "C" + std::to_string(core); }

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

namespace {

// 36 ports when `needed` fits them, else 72; 0 when not even 72 do.
int RadixFor(int needed) {
  if (needed <= kSwitchPorts) return kSwitchPorts;
  return needed <= kLargeSwitchPorts ? kLargeSwitchPorts : 0;
}

}  // namespace

Result<Topology> MakeFatTree(int leaves, int hosts_per_leaf, int spines) {
  if (leaves < 1 || hosts_per_leaf < 1 || spines < 0) {
    return Error{"fat tree needs leaves >= 1, hosts_per_leaf >= 1, spines >= 0"};
  }
  if (leaves * hosts_per_leaf < 2) return Error{"fat tree needs at least two HCAs (management nodes)"};
  const int radix = RadixFor(std::max(hosts_per_leaf + spines, leaves));
  if (hosts_per_leaf + spines > kLargeSwitchPorts) {
    return Error{"hosts_per_leaf + spines exceeds the 72 ports of a leaf switch"};
  }
  if (leaves > kLargeSwitchPorts) return Error{"more leaves than the 72 ports of a spine switch"};
  if (spines == 0 && leaves > 1) return Error{"several leaves need at least one spine"};
  Topology topo;
  for (int spine = 1; spine <= spines; ++spine) {
    topo.AddNode({SpineName(spine), NodeKind::kSwitch, SpineGuid(spine), radix});
  }
  for (int leaf = 1; leaf <= leaves; ++leaf) {
    AddLeafWithHosts(topo, leaf, hosts_per_leaf, radix);
    for (int spine = 1; spine <= spines; ++spine) {
      topo.AddLink({LeafName(leaf), hosts_per_leaf + spine, SpineName(spine), leaf});
    }
  }
  const std::vector<const TopoNode*> cas = topo.Cas();
  topo.SetManagementNodes(cas[0]->name, cas[1]->name);
  if (Status s = topo.Validate(); !s) return Error{s.message()};
  return topo;
}

Result<Topology> MakeThreeLevelFatTree(int pods, int leaves_per_pod, int hosts_per_leaf, int spines_per_pod,
                                       int cores) {
  if (pods < 1 || leaves_per_pod < 1 || hosts_per_leaf < 2 || spines_per_pod < 1 || cores < 1) {
    return Error{"three-level fat tree needs pods, leaves, spines, cores >= 1 and hosts_per_leaf >= 2"};
  }
  const int leaf_ports = hosts_per_leaf + spines_per_pod;
  const int spine_ports = leaves_per_pod + cores;
  const int core_ports = pods * spines_per_pod;
  const int radix = RadixFor(std::max({leaf_ports, spine_ports, core_ports}));
  if (radix == 0) {
    return Error{"a switch would need " + std::to_string(std::max({leaf_ports, spine_ports, core_ports})) +
                 " ports (leaf " + std::to_string(leaf_ports) + ", spine " + std::to_string(spine_ports) +
                 ", core " + std::to_string(core_ports) + "); at most 72"};
  }
  Topology topo;
  for (int core = 1; core <= cores; ++core) topo.AddNode({CoreName(core), NodeKind::kSwitch, CoreGuid(core), radix});
  for (int pod = 0; pod < pods; ++pod) {
    for (int s = 1; s <= spines_per_pod; ++s) {
      const int spine = pod * spines_per_pod + s;
      topo.AddNode({SpineName(spine), NodeKind::kSwitch, SpineGuid(spine), radix});
      // Spine ports 1..leaves_per_pod go down, the next ones up.
      for (int core = 1; core <= cores; ++core)
        topo.AddLink({SpineName(spine), leaves_per_pod + core, CoreName(core), spine});
    }
    for (int l = 1; l <= leaves_per_pod; ++l) {
      const int leaf = pod * leaves_per_pod + l;
      AddLeafWithHosts(topo, leaf, hosts_per_leaf, radix);
      for (int s = 1; s <= spines_per_pod; ++s)
        topo.AddLink({LeafName(leaf), hosts_per_leaf + s, SpineName(pod * spines_per_pod + s), l});
    }
  }
  const std::vector<const TopoNode*> cas = topo.Cas();
  topo.SetManagementNodes(cas[0]->name, cas[1]->name);
  if (Status s = topo.Validate(); !s) return Error{s.message()};
  return topo;
}

Result<Topology> MakeFatTreeFromSpec(const std::string& spec) {
  std::vector<int> n;
  std::string piece;
  bool well_formed = !spec.empty();
  for (size_t i = 0; i <= spec.size() && well_formed; ++i) {
    if (i == spec.size() || spec[i] == 'x') {
      well_formed = !piece.empty() && piece.size() <= 6;
      if (well_formed) n.push_back(std::stoi(piece));
      piece.clear();
    } else if (spec[i] >= '0' && spec[i] <= '9') {
      piece += spec[i];
    } else {
      well_formed = false;
    }
  }
  if (well_formed && n.size() == 3) return MakeFatTree(n[0], n[1], n[2]);
  if (well_formed && n.size() == 5) return MakeThreeLevelFatTree(n[0], n[1], n[2], n[3], n[4]);
  return Error{"a fat tree is LEAVESxHOSTSxSPINES (e.g. 72x36x36) or PODSxLEAVESxHOSTSxSPINESxCORES "
               "(e.g. 10x25x40x4x8), not '" + spec + "'"};
}

}  // namespace smsupd::testbed
