// smsupd.yaml as the P_Key apply tests and the P_Key bench write it: an
// inventory naming every HCA of a test topology, a `mgmt` group for the two
// management nodes, and partitions the tests edit between reloads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/guid.h"
#include "tests/testbed/topology.h"

namespace smsupd::testbed::pkey {

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

struct ConfigSpec {
  std::string node;
  std::string role = "master";
  Guid port_guid = 0;
  std::string home;  // state_dir, socket and OpenSM's log live under it
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
  std::string Yaml() const;
};

// Every HCA of `topology` by its node name (port 1's GUID), the `mgmt`
// group (the management nodes) and a Default partition in which every port
// is a limited member and the management nodes full ones (so a fall back to
// OpenSM's default -- every port full -- shows on every port).
ConfigSpec BaseConfig(const Topology& topology, const std::string& node, const std::string& role,
                      const std::string& home);

}  // namespace smsupd::testbed::pkey
