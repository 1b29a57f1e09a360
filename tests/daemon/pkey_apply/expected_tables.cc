#include "tests/daemon/pkey_apply/expected_tables.h"

#include <vector>

#include "config/pkey_tables.h"
#include "config/validator.h"

namespace smsupd::testbed::pkey {
namespace {

// NodeInfo NodeType (IBA 14.2.5.3): 1 CA, 2 switch, 3 router.
config::PortKind KindOf(int node_type) {
  if (node_type == 2) return config::PortKind::kSwitch;
  if (node_type == 3) return config::PortKind::kRouter;
  return config::PortKind::kCa;
}

}  // namespace

Result<config::Config> LoadConfig(const std::string& path) {
  config::ValidationOutcome outcome = config::LoadAndValidate(path);
  if (outcome.ok()) return *outcome.config;
  std::string text = path + " is invalid:";
  for (const auto& diagnostic : outcome.diagnostics) text += "\n" + diagnostic.Format();
  return Error{text};
}

std::map<Guid, PKeyEntries> ExpectedTables(const FabricPKeyTables& tables, const config::Config& config,
                                           Guid master_port) {
  std::vector<config::FabricPort> ports;
  for (const auto& [guid, port] : tables.ports) ports.push_back({guid, KindOf(port.node_type), guid == master_port});
  return config::ExpectedPKeyEntries(config, ports);
}

std::string DescribeMismatches(const FabricPKeyTables& tables, const config::Config& config, Guid master_port,
                               int limit) {
  return DescribePKeyMismatches(tables, ExpectedTables(tables, config, master_port), limit);
}

}  // namespace smsupd::testbed::pkey
