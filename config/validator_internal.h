// The validator's sections (internal). Each reader fills its part of the
// Config and reports every problem it finds; none stops at the first one.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/deadline.h"
#include "config/config.h"
#include "config/yaml_view.h"

namespace smsupd::config {

struct ValidationState {
  ValidationState(DiagnosticSink& sink_in, const Deadline& deadline_in)
      : sink(sink_in), deadline(deadline_in) {}
  Config config;
  DiagnosticSink& sink;
  // Checked in every loop over the caller's entries (throws DeadlineExceeded).
  const Deadline& deadline;
  bool read_key_file = true;  // ValidateText's KeyFile; also whether cabling.file is read
  // Where each host, group and host GUID was defined, for later diagnostics.
  std::map<std::string, YAML::Node> host_nodes;
  std::map<std::string, YAML::Node> group_nodes;
  std::map<Guid, YAML::Node> guid_nodes;
  std::map<Guid, std::string> guid_hosts;  // the host that claimed each GUID
};

// Letters, digits, '_', '.', '-'; 1..max_length characters.
bool IsValidName(const std::string& name, size_t max_length);

// Host and group names, for "did you mean" hints only (long in big inventories).
std::vector<std::string_view> KnownNames(const Config& config);

void ReadSmSection(const YAML::Node& node, ValidationState& state);
void ReadOpenSmSection(const YAML::Node& node, const std::string& path, ValidationState& state);
// sm.failover, generations and verify: daemon settings, never rendered.
void ReadFailoverSection(const YAML::Node& node, ValidationState& state);
void ReadGenerationsSection(const YAML::Node& node, ValidationState& state);
void ReadVerifySection(const YAML::Node& node, ValidationState& state);
// apply: the twin gate and the takeover readiness check, never rendered.
void ReadApplySection(const YAML::Node& node, ValidationState& state);
// metrics and hooks: the daemon's observability settings, never rendered.
void ReadMetricsSection(const YAML::Node& node, ValidationState& state);
void ReadHooksSection(const YAML::Node& node, ValidationState& state);
// cabling: inline rows, or the CSV file it names (read unless
// read_key_file is false: then only the path is checked).
void ReadCablingSection(const YAML::Node& node, ValidationState& state);
void ReadHosts(const YAML::Node& node, ValidationState& state);
// Needs the hosts read first.
void ReadGroups(const YAML::Node& node, ValidationState& state);
// Needs hosts and groups read first.
void ReadPartitions(const YAML::Node& node, ValidationState& state);
// Warns when the 0x7fff partition makes the SM's port a limited member.
void CheckDefaultPartitionKeepsSmFull(const YAML::Node& partitions_node, ValidationState& state);
// limits.pkeys_per_port against the resolved membership of every known port.
void CheckPKeysPerPort(const YAML::Node& limits_node, ValidationState& state);

}  // namespace smsupd::config
