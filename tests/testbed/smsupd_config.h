// smsupd.yaml as the test bed writes it for a management node: the node's
// SM port, role and failover settings, OpenSM's log and options, the state
// directory and control socket under the node's own directory, an
// inventory, groups and partitions. Tests edit it between reloads; Yaml()
// renders it the way an operator would write it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/guid.h"
#include "tests/testbed/topology.h"

namespace smsupd::testbed {

// One partition. Members are YAML flow maps, as an operator writes them.
struct PartitionSpec {
  std::string name;
  std::uint16_t pkey = 0;
  bool ipoib = false;
  std::optional<int> mtu;  // bytes
  std::vector<std::string> members;
};

// "{ host: H1_3, membership: full }".
std::string HostMember(const std::string& host, const std::string& membership);
// "{ ports: ALL, membership: limited }".
std::string PortsMember(const std::string& keyword, const std::string& membership);
// "{ group: mgmt, membership: full }".
std::string GroupMember(const std::string& group, const std::string& membership);

struct SmsupdConfig {
  std::string node;  // an HCA of the topology
  std::string role = "master";
  Guid port_guid = 0;
  std::optional<bool> preempt;      // sm.preempt (smsupd's default when unset)
  std::optional<int> hold_time_s;   // sm.failover.hold_time_s
  std::optional<int> master_sweep_timeout_ms;  // sm.failover.master_sweep_timeout_ms
  std::optional<int> inventory_interval_ms;    // sm.failover.inventory_interval_ms
  std::string home;                 // the node's directory: set by ManagementNode::Create
  std::optional<std::string> control_group;  // control.group
  std::optional<std::string> opensm_binary;  // sm.opensm.binary
  std::optional<std::string> sm_key_file;    // sm.sm_key_file
  std::optional<std::string> m_key_file;     // sm.m_key_file
  std::optional<std::string> sa_key_file;    // sm.sa_key_file
  std::map<std::string, Guid> hosts;
  std::map<std::string, std::vector<std::string>> groups;
  std::vector<PartitionSpec> partitions;
  std::map<std::string, std::string> opensm_options;
  std::string extra;  // more top-level YAML, appended as is

  std::string StateDir() const { return home + "/state"; }
  std::string Socket() const { return home + "/run/smsupd.sock"; }
  std::string OpenSmLog() const { return home + "/opensm.log"; }

  PartitionSpec* Find(const std::string& name);
  void Remove(const std::string& name);
  // With SMSUPD_TB_DEBUG set, OpenSM also logs everything (log_flags 0xff,
  // flushed at once) unless opensm_options says otherwise.
  std::string Yaml() const;
};

// An inventory of the SM nodes only (`sm_nodes`, `node` when empty) and a
// Default partition in which every port is a full member.
SmsupdConfig SmNodesConfig(const Topology& topology, const std::string& node, const std::string& role,
                           const std::vector<std::string>& sm_nodes = {});

// Every HCA of `topology` by its node name (port 1's GUID), the `mgmt`
// group (the management nodes) and a Default partition in which every port
// is a limited member and the management nodes full ones (so a fall back to
// OpenSM's default -- every port full -- shows on every port).
SmsupdConfig EveryHcaConfig(const Topology& topology, const std::string& node, const std::string& role);

}  // namespace smsupd::testbed
