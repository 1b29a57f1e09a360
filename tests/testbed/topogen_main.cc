// smsupd-topogen: writes an ibsim net file for scripts (scripts/try.sh,
// bench/fabric_up.sh) and prints the facts they need, one per line:
//   management <node> <node>   the two HCAs that run the SMs
//   far <node>                 the HCA farthest from them
//   size <hcas> <switches>
// With --list, also "node <name> <ca|switch> <node guid> <port-1 guid>".
#include <cstdio>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "tests/testbed/topology_generators.h"

namespace {

using smsupd::Result;
using smsupd::testbed::NodeKind;
using smsupd::testbed::Topology;

Result<Topology> Generate(const std::string& fat_tree, bool two_switch) {
  if (two_switch) return smsupd::testbed::MakeTwoSwitchTopology();
  return smsupd::testbed::MakeFatTreeFromSpec(fat_tree);
}

void PrintFacts(const Topology& topo, bool list) {
  std::cout << "management " << topo.management_nodes()[0] << " " << topo.management_nodes()[1] << "\n"
            << "far " << topo.FarCa().name << "\n"
            << "size " << topo.Cas().size() << " " << topo.Switches().size() << "\n";
  if (!list) return;
  for (const auto& node : topo.nodes()) {
    std::cout << "node " << node.name << " " << (node.kind == NodeKind::kCa ? "ca" : "switch") << " "
              << smsupd::FormatGuid(node.node_guid) << " " << smsupd::FormatGuid(node.PortGuid(1)) << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Writes an ibsim net file for the smsupd test bed"};
  std::string fat_tree;
  bool two_switch = false;
  bool list = false;
  std::string output;
  auto* tree = app.add_option("--fat-tree", fat_tree, "fat tree LEAVESxHOSTSxSPINES (e.g. 36x18x18, 72x36x36) or three-level PODSxLEAVESxHOSTSxSPINESxCORES (e.g. 10x25x40x4x8)");
  auto* two = app.add_flag("--two-switch", two_switch, "the two-switch, four-HCA example");
  tree->excludes(two);
  app.add_option("-o,--output", output, "net file to write")->required();
  app.add_flag("--list", list, "also list every node with its GUIDs");
  CLI11_PARSE(app, argc, argv);
  if (fat_tree.empty() && !two_switch) {
    std::cerr << "smsupd-topogen: give --fat-tree LxHxS or --two-switch\n";
    return 2;
  }
  Result<Topology> topo = Generate(fat_tree, two_switch);
  if (!topo) {
    std::cerr << "smsupd-topogen: " << topo.error().message << "\n";
    return 2;
  }
  if (smsupd::Status s = topo->WriteNetFile(output); !s) {
    std::cerr << "smsupd-topogen: " << s.message() << "\n";
    return 1;
  }
  PrintFacts(*topo, list);
  return 0;
}
