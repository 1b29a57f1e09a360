// The simulated fabric's ground truth: which nodes exist, their GUIDs and how
// they are cabled. Generators build a Topology; WriteNetFile turns it into an
// ibsim net file; tests compare what the fabric reports against it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/guid.h"
#include "common/result.h"

namespace smsupd::testbed {

enum class NodeKind { kSwitch, kCa };

// ibsim 0.10's built-in limits (ibsim/sim.h MAXNETNODES, MAXNETSWITCHS,
// MAXNETPORTS); -N, -S and -P raise them. The test bed always passes at least
// the floor below (a 2,592-HCA fat tree fits), more when a topology needs it
// (Topology::Limits).
inline constexpr int kIbsimMaxNodes = 2048;
inline constexpr int kIbsimMaxSwitches = 256;
inline constexpr int kIbsimMaxPorts = kIbsimMaxSwitches * 36 + kIbsimMaxNodes * 2;
// LIDs of a linear forwarding table (ibsim MAXLINEARCAP): every CA port and
// every switch needs one, so this bounds a simulated subnet.
inline constexpr int kIbsimMaxLids = 48 * 1024 - 1;
// ibsim reads net files 256 bytes per line; names stay far below that.
inline constexpr int kSwitchPorts = 36;
// The radix of the large fabrics' switches (a 72-port switch, or a director's
// line card): a two-level fat tree of them holds 72 x 36 = 2,592 HCAs.
inline constexpr int kLargeSwitchPorts = 72;

struct IbsimLimits {
  int nodes = 4096;
  int switches = 512;
  int ports = 16384;
};

// ibsim keeps 63 bytes of a NodeDescription (and a terminating NUL).
inline constexpr std::size_t kIbsimMaxDescription = 63;

struct TopoNode {
  std::string name;  // ibsim node id and SIM_HOST value, e.g. "H1_2", "L1", "S3"
  NodeKind kind;
  Guid node_guid;
  int ports;  // physical ports (a switch's management port 0 not counted)

  // ibsim: an HCA port's GUID is node GUID + port number; every port of a
  // switch shares the node GUID (sim_net.c init_ports).
  Guid PortGuid(int port) const { return kind == NodeKind::kCa ? node_guid + port : node_guid; }
};

struct TopoLink {
  std::string a;
  int a_port;
  std::string b;
  int b_port;
  // What the link trains at, in ibnetdiscover's form ("1xSDR"); empty:
  // ibsim's default (4x, SDR). Written on both ends' port lines as
  // `# "peer" lid 0 1xSDR` (ibsim needs both ends to agree).
  std::string rate = {};
};

class Topology {
 public:
  Topology() = default;

  // Adds a node; names must be unique (checked by Validate).
  void AddNode(TopoNode node) { nodes_.push_back(std::move(node)); }
  void AddLink(TopoLink link) { links_.push_back(std::move(link)); }
  void SetLinks(std::vector<TopoLink> links) { links_ = std::move(links); }
  // Gives node `name` a NodeDescription other than its name: any bytes
  // but NUL, newline and '"' (ibsim reads its net file line by line, the
  // description between quotes), at most kIbsimMaxDescription.
  Status SetDescription(const std::string& name, std::string description);
  // The HCAs that carry the two subnet managers; set by the generators.
  void SetManagementNodes(std::string first, std::string second);

  const std::vector<TopoNode>& nodes() const { return nodes_; }
  const std::vector<TopoLink>& links() const { return links_; }
  const std::vector<std::string>& management_nodes() const { return management_; }

  const TopoNode* Find(const std::string& name) const;
  const TopoNode* FindByGuid(Guid node_guid) const;
  std::vector<const TopoNode*> Cas() const;
  std::vector<const TopoNode*> Switches() const;
  // The last HCA in the model: the far end from the management nodes.
  const TopoNode& FarCa() const;

  // Checks unique names and GUIDs, ports in range, no port cabled twice and
  // ibsim's node/switch/port limits.
  Status Validate() const;
  // ibsim's -N, -S and -P for this topology: at least IbsimLimits{}.
  IbsimLimits Limits() const;

  // The ibsim net file: each node record preceded by its explicit GUID line
  // (caguid= / switchguid=) and followed by a blank line (ibsim consumes
  // the line that ends a record). Every link is listed from both ends.
  std::string NetFileText() const;
  Status WriteNetFile(const std::string& path) const;

 private:
  std::vector<TopoNode> nodes_;
  std::vector<TopoLink> links_;
  std::vector<std::string> management_;
  std::map<std::string, std::string> descriptions_;  // by node name
};

}  // namespace smsupd::testbed
