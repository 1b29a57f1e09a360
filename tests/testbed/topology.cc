#include "tests/testbed/topology.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "common/atomic_file.h"

namespace smsupd::testbed {
namespace {

// Every node's port lines, indexed by node name, so a link appears at both ends.
using PortLines = std::map<std::string, std::map<int, std::string>>;

PortLines CollectPortLines(const std::vector<TopoLink>& links) {
  PortLines lines;
  for (const TopoLink& link : links) {
    lines[link.a][link.a_port] = "\"" + link.b + "\"[" + std::to_string(link.b_port) + "]";
    lines[link.b][link.b_port] = "\"" + link.a + "\"[" + std::to_string(link.a_port) + "]";
    if (!link.rate.empty()) {
      lines[link.a][link.a_port] += " # \"" + link.b + "\" lid 0 " + link.rate;
      lines[link.b][link.b_port] += " # \"" + link.a + "\" lid 0 " + link.rate;
    }
  }
  return lines;
}

Status CheckLinkEnd(const Topology& topo, const std::string& name, int port,
                    std::set<std::pair<std::string, int>>& used) {
  const TopoNode* node = topo.Find(name);
  if (node == nullptr) return Error{"link names unknown node " + name};
  if (port < 1 || port > node->ports) {
    return Error{"link uses port " + std::to_string(port) + " of " + name + " (has " +
                 std::to_string(node->ports) + ")"};
  }
  if (!used.insert({name, port}).second) {
    return Error{"port " + std::to_string(port) + " of " + name + " is cabled twice"};
  }
  return Status::Ok();
}

}  // namespace

void Topology::SetManagementNodes(std::string first, std::string second) {
  management_ = {std::move(first), std::move(second)};
}

const TopoNode* Topology::Find(const std::string& name) const {
  for (const TopoNode& node : nodes_) {
    if (node.name == name) return &node;
  }
  return nullptr;
}

const TopoNode* Topology::FindByGuid(Guid node_guid) const {
  for (const TopoNode& node : nodes_) {
    if (node.node_guid == node_guid) return &node;
  }
  return nullptr;
}

std::vector<const TopoNode*> Topology::Cas() const {
  std::vector<const TopoNode*> out;
  for (const TopoNode& node : nodes_) {
    if (node.kind == NodeKind::kCa) out.push_back(&node);
  }
  return out;
}

std::vector<const TopoNode*> Topology::Switches() const {
  std::vector<const TopoNode*> out;
  for (const TopoNode& node : nodes_) {
    if (node.kind == NodeKind::kSwitch) out.push_back(&node);
  }
  return out;
}

const TopoNode& Topology::FarCa() const { return *Cas().back(); }

Status Topology::Validate() const {
  std::set<std::string> names;
  std::set<Guid> guids;
  // Every switch and every CA port needs a LID of ibsim's linear tables.
  int lids = 0;
  for (const TopoNode& node : nodes_) {
    if (!names.insert(node.name).second) return Error{"duplicate node name " + node.name};
    if (!guids.insert(node.node_guid).second) {
      return Error{"duplicate node GUID " + FormatGuid(node.node_guid)};
    }
    lids += node.kind == NodeKind::kSwitch ? 1 : node.ports;
  }
  if (lids > kIbsimMaxLids)
    return Error{"more LIDs than ibsim's linear forwarding tables hold (" + std::to_string(kIbsimMaxLids) + ")"};
  std::set<std::pair<std::string, int>> used;
  for (const TopoLink& link : links_) {
    if (Status s = CheckLinkEnd(*this, link.a, link.a_port, used); !s) return s;
    if (Status s = CheckLinkEnd(*this, link.b, link.b_port, used); !s) return s;
  }
  if (management_.size() != 2) return Error{"the topology names no two management nodes"};
  for (const std::string& name : management_) {
    const TopoNode* node = Find(name);
    if (node == nullptr || node->kind != NodeKind::kCa) return Error{"management node " + name + " is no HCA"};
  }
  return Status::Ok();
}

IbsimLimits Topology::Limits() const {
  IbsimLimits limits;
  int switches = 0;
  int ports = 0;
  for (const TopoNode& node : nodes_) {
    if (node.kind == NodeKind::kSwitch) ++switches;
    ports += node.ports + (node.kind == NodeKind::kSwitch ? 1 : 0);  // a switch's port 0 too
  }
  // Headroom: ibsim counts a few ports of its own (aliases, port 0).
  limits.nodes = std::max(limits.nodes, static_cast<int>(nodes_.size()) * 5 / 4);
  limits.switches = std::max(limits.switches, switches * 5 / 4);
  limits.ports = std::max(limits.ports, ports * 5 / 4);
  return limits;
}

std::string Topology::NetFileText() const {
  const PortLines lines = CollectPortLines(links_);
  std::ostringstream out;
  out << "# ibsim net file written by smsupd-topogen\n\n";
  for (const TopoNode& node : nodes_) {
    const bool is_switch = node.kind == NodeKind::kSwitch;
    out << (is_switch ? "switchguid=" : "caguid=") << FormatGuid(node.node_guid) << "\n";
    out << (is_switch ? "Switch\t" : "Hca\t") << node.ports << " \"" << node.name << "\"";
    // ibsim: what follows '#' in quotes is the NodeDescription.
    if (auto description = descriptions_.find(node.name); description != descriptions_.end())
      out << " # \"" << description->second << "\"";
    out << "\n";
    auto it = lines.find(node.name);
    if (it != lines.end()) {
      for (const auto& [port, remote] : it->second) out << "[" << port << "]\t" << remote << "\n";
    }
    out << "\n";
  }
  return out.str();
}

Status Topology::SetDescription(const std::string& name, std::string description) {
  if (Find(name) == nullptr) return Error{"no node " + name};
  if (description.size() > kIbsimMaxDescription ||
      description.find_first_of(std::string("\0\n\"", 3)) != std::string::npos)
    return Error{"node " + name + ": ibsim cannot carry that description"};
  descriptions_[name] = std::move(description);
  return Status::Ok();
}

Status Topology::WriteNetFile(const std::string& path) const {
  if (Status s = Validate(); !s) return s;
  return WriteFileAtomically(path, NetFileText());
}

}  // namespace smsupd::testbed
