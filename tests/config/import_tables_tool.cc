// import_tables_tool DIR1 DIR2: the P_Key table of every port, by the
// test-side model of OpenSM (opensm_partition_model.h), for the
// partitions.conf and opensm.conf in each directory; exit 0 when every port
// has the same table in both, 1 (and the first differences) otherwise. The
// ports: every GUID either partitions.conf names (as CA ports), the SM port
// of DIR1's opensm.conf, and a CA, a switch and a router port no file names.
// Used by import_bench_test.sh: render -> import -> render on the
// benchmark's config.
#include <iostream>
#include <regex>
#include <set>
#include <string>

#include "common/atomic_file.h"
#include "tests/config/opensm_partition_model.h"

namespace {

using smsupd::Guid;
using smsupd::config::FabricPort;
using smsupd::config::PortKind;

std::string Read(const std::string& path) {
  auto text = smsupd::ReadWholeFile(path);
  if (!text.ok()) {
    std::cerr << text.error().message << "\n";
    std::exit(2);
  }
  return *text;
}

void AddGuids(const std::string& text, std::set<Guid>& guids) {
  static const std::regex kGuid("0x[0-9a-fA-F]{16}");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kGuid); it != std::sregex_iterator(); ++it)
    guids.insert(std::stoull(it->str(), nullptr, 16));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: import_tables_tool DIR1 DIR2\n";
    return 64;
  }
  std::string conf[2], partitions[2];
  std::set<Guid> guids;
  for (int i = 0; i < 2; ++i) {
    conf[i] = Read(std::string(argv[i + 1]) + "/opensm.conf");
    partitions[i] = Read(std::string(argv[i + 1]) + "/partitions.conf");
    AddGuids(partitions[i], guids);
  }
  Guid sm = std::stoull(smsupd::config::testing::OpenSmConfValue(conf[0], "guid"), nullptr, 16);
  std::vector<FabricPort> ports = {{sm, PortKind::kCa, true},
                                   {0xfffffffffffffff1ull, PortKind::kCa, false},
                                   {0xfffffffffffffff2ull, PortKind::kSwitch, false},
                                   {0xfffffffffffffff3ull, PortKind::kRouter, false}};
  for (Guid guid : guids)
    if (guid != sm) ports.push_back({guid, PortKind::kCa, false});
  std::map<Guid, std::set<std::uint16_t>> tables[2];
  for (int i = 0; i < 2; ++i) {
    bool allow_both = smsupd::config::testing::OpenSmConfValue(conf[i], "allow_both_pkeys") == "TRUE";
    auto applied = smsupd::config::testing::ApplyPartitionsConf(partitions[i], allow_both, ports);
    if (!applied.ok()) {
      std::cerr << argv[i + 1] << "/partitions.conf: the model of OpenSM refuses it: " << applied.error().message << "\n";
      return 1;
    }
    tables[i] = *applied;
  }
  int differences = 0;
  for (const FabricPort& port : ports)
    if (tables[0][port.guid] != tables[1][port.guid] && ++differences <= 8)
      std::cerr << "port " << smsupd::FormatGuid(port.guid) << " differs\n";
  std::cout << ports.size() << " ports compared, " << differences << " differ\n";
  return differences == 0 ? 0 : 1;
}
