#include "tests/testbed/opensm_process.h"

#include <sstream>

#include "common/atomic_file.h"

namespace smsupd::testbed {

std::string RenderOpenSmConf(Guid port_guid, int priority, const std::string& dir,
                             const std::map<std::string, std::string>& options) {
  std::ostringstream conf;
  conf << "# opensm.conf written by the smsupd test bed\n"
       << "guid " << FormatGuid(port_guid) << "\n"
       << "sm_priority " << priority << "\n"
       << "log_file " << dir << "/opensm.log\n"
       << "partition_config_file " << dir << "/partitions.conf\n"
       << "per_module_logging_file " << dir << "/per-module-logging.conf\n"
       << "dump_files_dir " << dir << "/\n";
  // OpenSM keeps the last of duplicate options, so these override the above.
  for (const auto& [name, value] : options) conf << name << " " << value << "\n";
  return conf.str();
}

OpenSmSpec OpenSmOn(const std::string& node, int priority, std::map<std::string, std::string> options) {
  OpenSmSpec spec;
  spec.node = node;
  spec.priority = priority;
  spec.options = std::move(options);
  return spec;
}

std::map<std::string, std::string> FastFailoverOptions() {
  return {{"sminfo_polling_timeout", "1000"}, {"polling_retry_number", "2"}};
}

Result<NodeProcess*> StartOpenSm(SimulatedFabric& fabric, const OpenSmSpec& spec) {
  const TopoNode* node = fabric.topology().Find(spec.node);
  if (node == nullptr || node->kind != NodeKind::kCa) return Error{"OpenSM needs an HCA, not " + spec.node};
  const std::string label = spec.label.empty() ? "opensm-" + spec.node : spec.label;
  Result<std::string> dir = fabric.NewProcessDir(label);
  if (!dir) return dir.error();
  const std::string conf_path = *dir + "/opensm.conf";
  const std::string conf = RenderOpenSmConf(node->PortGuid(1), spec.priority, *dir, spec.options);
  if (Status s = WriteFileAtomically(conf_path, conf); !s) return Error{s.message()};
  return fabric.RunOnNodeIn(spec.node, {spec.binary, "-F", conf_path}, *dir, label);
}

}  // namespace smsupd::testbed
