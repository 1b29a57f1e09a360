#include "daemon/fabric/umad_fabric.h"

#include <fcntl.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <string>

#include "daemon/fabric/local_ports.h"
#include "daemon/fabric/mad_codec.h"
#include "daemon/fabric/umad_subnet_reader.h"

namespace smsupd {
namespace {

// SMInfo AttributeModifier values for SubnSet (IBA 14.2.5.13).
constexpr unsigned kSmInfoModHandover = 1;
// P_Key table blocks hold 32 entries (IBA 14.2.5.7).
constexpr int kPKeysPerBlock = 32;

std::string AtLid(const char* attribute, uint16_t lid) {
  return std::string(attribute) + " at LID " + std::to_string(lid);
}

}  // namespace

UmadFabric::UmadFabric(UmadFabricOptions options) : options_(std::move(options)) {}

UmadFabric::~UmadFabric() {
  if (port_ != nullptr) mad_rpc_close_port(port_);
}

Status UmadFabric::Open() {
  if (port_ != nullptr) return Status::Ok();
  Result<std::vector<LocalPort>> ports = ListLocalPorts();
  if (!ports) return ports.error();
  Result<LocalPort> chosen = ChooseLocalPort(*ports, options_.port_guid);
  if (!chosen) return chosen.error();
  int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS, IB_PERFORMANCE_CLASS};
  std::string ca = chosen->ca_name;
  port_ = mad_rpc_open_port(ca.data(), chosen->port_num, classes, 4);
  if (port_ == nullptr) {
    return Error{"cannot open umad port " + ca + "/" + std::to_string(chosen->port_num) + ": " +
                 std::strerror(errno)};
  }
  local_ = *chosen;
  smp_transport_ = std::make_unique<MadTransport>(mad_rpc_portid(port_), options_.smp);
  sa_transport_ = std::make_unique<MadTransport>(mad_rpc_portid(port_), options_.sa);
  sa_probe_transport_ = std::make_unique<MadTransport>(mad_rpc_portid(port_), options_.sa_probe);
  discovery_transport_ = std::make_unique<MadTransport>(mad_rpc_portid(port_), options_.discovery);
  counters_transport_ = std::make_unique<MadTransport>(mad_rpc_portid(port_), options_.counters);
  return Status::Ok();
}

Result<std::vector<uint8_t>> UmadFabric::Smp(int method, uint16_t lid, unsigned attr,
                                             unsigned mod, const uint8_t* payload,
                                             const std::string& what) {
  if (Status opened = Open(); !opened) return Error{opened.message()};
  ib_rpc_t rpc = {};
  rpc.mgtclass = lid == 0 ? IB_SMI_DIRECT_CLASS : IB_SMI_CLASS;
  rpc.method = method;
  rpc.attr.id = attr;
  rpc.attr.mod = mod;
  rpc.datasz = IB_SMP_DATA_SIZE;
  rpc.dataoffs = IB_SMP_DATA_OFFS;
  ib_portid_t dest = {};
  dest.lid = lid;  // 0: directed route with no hops, i.e. the local port
  Result<MadResponse> response = smp_transport_->Call(
      mad_rpc_class_agent(port_, rpc.mgtclass), rpc, dest, payload, what);
  if (!response) return response.error();
  const std::vector<uint8_t>& mad = response->mad;
  if (mad.size() < IB_SMP_DATA_OFFS + kSmpDataSize) return Error{what + ": short response"};
  return std::vector<uint8_t>(mad.begin() + IB_SMP_DATA_OFFS,
                              mad.begin() + IB_SMP_DATA_OFFS + kSmpDataSize);
}

Result<PortInfo> UmadFabric::LocalPortInfo() {
  if (Status opened = Open(); !opened) return Error{opened.message()};
  auto data = Smp(IB_MAD_METHOD_GET, 0, IB_ATTR_PORT_INFO, local_.port_num, nullptr,
                  "PortInfo of the local port");
  if (!data) return data.error();
  PortInfo info = DecodePortInfo(data->data());
  info.port_guid = local_.port_guid;
  return info;
}

Result<Guid> UmadFabric::LocalPortGuid() {
  if (Status opened = Open(); !opened) return Error{opened.message()};
  return local_.port_guid;
}

Result<std::vector<LocalPort>> UmadFabric::ActivePorts() {
  Result<std::vector<LocalPort>> ports = ListLocalPorts();
  if (!ports) return ports.error();
  std::vector<LocalPort> active;
  for (const LocalPort& port : *ports) {
    if (port.port_state == kPortStateActive) active.push_back(port);
  }
  return active;
}

Result<SmInfo> UmadFabric::GetSmInfo(uint16_t lid) {
  auto data = Smp(IB_MAD_METHOD_GET, lid, IB_ATTR_SMINFO, 0, nullptr, AtLid("SMInfo", lid));
  if (!data) return data.error();
  return DecodeSmInfo(data->data());
}

Result<PortInfo> UmadFabric::GetPortInfo(uint16_t lid, int port) {
  auto data = Smp(IB_MAD_METHOD_GET, lid, IB_ATTR_PORT_INFO, static_cast<unsigned>(port),
                  nullptr, AtLid("PortInfo", lid) + " port " + std::to_string(port));
  if (!data) return data.error();
  return DecodePortInfo(data->data());
}

Result<NodeInfo> UmadFabric::GetNodeInfo(uint16_t lid) {
  auto data = Smp(IB_MAD_METHOD_GET, lid, IB_ATTR_NODE_INFO, 0, nullptr, AtLid("NodeInfo", lid));
  if (!data) return data.error();
  return DecodeNodeInfo(data->data());
}

// One SMP, with the single MADs' timeouts (a switch's SMA answers at once;
// a route through a port whose link is down gets no answer at all).
Result<PortInfo> UmadFabric::GetPortInfoByRoute(const DirectedRoute& route, int port) {
  if (Status opened = Open(); !opened) return Error{opened.message()};
  UmadSubnetReader reader(*smp_transport_, mad_rpc_class_agent(port_, IB_SMI_DIRECT_CLASS), 1,
                          SingleSmpDeadline());
  std::vector<Result<PortInfo>> info = reader.ReadPortInfo({PortAt{route, port}});
  if (info.empty()) return Error{"PortInfo at DR path " + FormatDirectedRoute(route) + ": no answer"};
  return std::move(info.front());
}

Result<NodeInfo> UmadFabric::GetNodeInfoByRoute(const DirectedRoute& route) {
  if (Status opened = Open(); !opened) return Error{opened.message()};
  UmadSubnetReader reader(*smp_transport_, mad_rpc_class_agent(port_, IB_SMI_DIRECT_CLASS), 1,
                          SingleSmpDeadline());
  std::vector<Result<NodeInfo>> info = reader.ReadNodeInfo({route});
  if (info.empty()) return Error{"NodeInfo at DR path " + FormatDirectedRoute(route) + ": no answer"};
  return std::move(info.front());
}

std::chrono::steady_clock::time_point UmadFabric::SingleSmpDeadline() const {
  const auto attempts = std::max(1, options_.smp.attempts);
  return std::chrono::steady_clock::now() + options_.smp.per_attempt * attempts +
         options_.smp.per_attempt;
}

// A switch's external ports have their own capacity (SwitchInfo
// PartitionEnforcementCap); a CA port and switch port 0 use NodeInfo's.
Result<int> UmadFabric::PKeyCapacity(uint16_t lid, int port, const NodeInfo& node) {
  if (node.type != NodeType::kSwitch || port == 0) return node.partition_cap;
  auto data = Smp(IB_MAD_METHOD_GET, lid, IB_ATTR_SWITCH_INFO, 0, nullptr,
                  AtLid("SwitchInfo", lid));
  if (!data) return data.error();
  return static_cast<int>(mad_get_field(data->data(), 0, IB_SW_PARTITION_ENFORCE_CAP_F));
}

Result<std::vector<uint16_t>> UmadFabric::GetPKeyTable(uint16_t lid, int port) {
  Result<NodeInfo> node = GetNodeInfo(lid);
  if (!node) return node.error();
  Result<int> capacity = PKeyCapacity(lid, port, *node);
  if (!capacity) return capacity.error();
  // A switch addresses the port in the modifier's upper half; a CA answers
  // for the port that owns the LID.
  unsigned port_bits = node->type == NodeType::kSwitch ? static_cast<unsigned>(port) << 16 : 0;
  std::vector<uint16_t> table;
  for (int block = 0; block * kPKeysPerBlock < *capacity; ++block) {
    auto data = Smp(IB_MAD_METHOD_GET, lid, IB_ATTR_PKEY_TBL, port_bits | block, nullptr,
                    AtLid("P_Key table", lid) + " block " + std::to_string(block));
    if (!data) return data.error();
    std::vector<uint16_t> entries = DecodePKeyBlock(data->data());
    table.insert(table.end(), entries.begin(), entries.end());
  }
  table.resize(static_cast<size_t>(*capacity));
  return table;
}

// SwitchInfo.LinearFDBTop says how far the table is in use; a block holds
// 64 one-byte port entries (IBA 14.2.5.10). A top past the unicast range
// (a confused switch) is cut to it, so the read stays bounded.
Result<std::vector<uint8_t>> UmadFabric::GetLinearForwardingTable(uint16_t lid) {
  auto info = Smp(IB_MAD_METHOD_GET, lid, IB_ATTR_SWITCH_INFO, 0, nullptr, AtLid("SwitchInfo", lid));
  if (!info) return info.error();
  unsigned top = mad_get_field(info->data(), 0, IB_SW_LINEAR_FDB_TOP_F);
  if (top > kMaxUnicastLid) top = kMaxUnicastLid;
  constexpr unsigned kLidsPerBlock = 64;
  std::vector<uint8_t> table;
  table.reserve(top + 1);
  for (unsigned block = 0; block * kLidsPerBlock <= top; ++block) {
    auto data = Smp(IB_MAD_METHOD_GET, lid, IB_ATTR_LINEARFORWTBL, block, nullptr,
                    AtLid("forwarding table", lid) + " block " + std::to_string(block));
    if (!data) return data.error();
    table.insert(table.end(), data->begin(), data->begin() + kLidsPerBlock);
  }
  table.resize(top + 1);
  return table;
}

// SubnAdmGetTable(SMInfoRecord) with an empty component mask: every SM the
// master's SA knows. The SA lives at the master SM's LID, as the local port
// was told (PortInfo.MasterSMLID). OpenSM answers a table with RMPP; the
// kernel reassembles it (umad2sim passes the first 256 bytes, i.e. up to 6
// records, on the simulator).
Result<std::vector<SmRecord>> UmadFabric::GetSmInfoRecords() {
  Result<PortInfo> local = LocalPortInfo();
  if (!local) return local.error();
  if (local->sm_lid == 0) return Error{"the local port knows no master SM (SM LID 0)"};
  Result<MadResponse> response =
      Sa(*sa_transport_, IB_MAD_METHOD_GET_TABLE, IB_SA_ATTR_SMINFORECORD, local->sm_lid,
         "SA SMInfoRecord table");
  if (!response) return response.error();
  std::vector<uint8_t>& mad = response->mad;
  if (mad.size() < IB_SA_DATA_OFFS) return Error{"SA SMInfoRecord table: short response"};
  unsigned attr_offset = mad_get_field(mad.data(), 0, IB_SA_ATTROFFS_F);
  auto records = DecodeSmInfoRecords(mad.data() + IB_SA_DATA_OFFS,
                                     mad.size() - IB_SA_DATA_OFFS, attr_offset);
  if (!records) return records.error();
  // A response padded to a whole MAD (no RMPP) leaves empty slots: no SM
  // has LID 0.
  std::erase_if(*records, [](const SmRecord& record) { return record.lid == 0; });
  return records;
}

Status UmadFabric::ProbeSa(uint16_t sm_lid) {
  if (Status opened = Open(); !opened) return opened;
  if (sm_lid == 0) return Error{"no SA at LID 0"};
  Result<MadResponse> response =
      Sa(*sa_probe_transport_, IB_MAD_METHOD_GET, CLASS_PORT_INFO, sm_lid, "SA ClassPortInfo");
  if (!response) return Error{response.error().message};
  return Status::Ok();
}

Result<MadResponse> UmadFabric::Sa(MadTransport& transport, int method, unsigned attr, uint16_t lid,
                                   const std::string& what) {
  ib_rpc_t rpc = {};
  rpc.mgtclass = IB_SA_CLASS;
  rpc.method = method;
  rpc.attr.id = attr;
  ib_portid_t dest = {};
  dest.lid = lid;
  dest.qp = 1;
  dest.qkey = IB_DEFAULT_QP1_QKEY;
  return transport.Call(mad_rpc_class_agent(port_, IB_SA_CLASS), rpc, dest, nullptr,
                        AtLid(what.c_str(), lid));
}

Status UmadFabric::SendHandover(uint16_t target_lid, const SmInfo& local) {
  if (Status payload_ok = CheckSmInfoPayload(local); !payload_ok) return payload_ok;
  if (target_lid == 0) return Error{"refusing to send a HANDOVER to LID 0 (the local port)"};
  SmInfo payload = local;
  payload.state = SmState::kMaster;  // OpenSM accepts HANDOVER only from a MASTER
  uint8_t data[kSmpDataSize];
  EncodeSmInfo(payload, data);
  auto reply = Smp(IB_MAD_METHOD_SET, target_lid, IB_ATTR_SMINFO, kSmInfoModHandover, data,
                   AtLid("SMInfo HANDOVER", target_lid));
  if (!reply) return reply.error();
  return Status::Ok();
}

Result<std::vector<DiscoveredPort>> UmadFabric::DiscoverPorts() {
  if (Status opened = Open(); !opened) return Error{opened.message()};
  auto deadline = std::chrono::steady_clock::now() + options_.discovery_budget;
  UmadSubnetReader reader(*discovery_transport_, mad_rpc_class_agent(port_, IB_SMI_DIRECT_CLASS),
                          options_.discovery_window, deadline);
  return WalkSubnet(reader, deadline);
}

Result<FabricTopology> UmadFabric::DiscoverTopology() {
  if (Status opened = Open(); !opened) return Error{opened.message()};
  auto deadline = std::chrono::steady_clock::now() + options_.discovery_budget;
  UmadSubnetReader reader(*discovery_transport_, mad_rpc_class_agent(port_, IB_SMI_DIRECT_CLASS),
                          options_.discovery_window, deadline);
  return WalkTopology(reader, deadline);
}

// PerfMgt Get(PortCounters) to QP1 of each target's LID, PortSelect in the
// request's data (as perfquery sends it).
std::vector<Result<PortCounters>> UmadFabric::ReadPortCounters(const std::vector<CounterTarget>& targets) {
  if (Status opened = Open(); !opened)
    return std::vector<Result<PortCounters>>(targets.size(), Error{opened.message()});
  std::vector<MadRequest> requests;
  requests.reserve(targets.size());
  for (const CounterTarget& target : targets) {
    MadRequest request = {};
    request.rpc.mgtclass = IB_PERFORMANCE_CLASS;
    request.rpc.method = IB_MAD_METHOD_GET;
    request.rpc.attr.id = IB_GSI_PORT_COUNTERS;
    request.rpc.datasz = IB_PC_DATA_SZ;
    request.rpc.dataoffs = IB_PC_DATA_OFFS;
    request.dest.lid = target.lid;
    request.dest.qp = 1;
    request.dest.qkey = IB_DEFAULT_QP1_QKEY;
    request.payload.assign(IB_PC_DATA_SZ, 0);
    mad_set_field(request.payload.data(), 0, IB_PC_PORT_SELECT_F, static_cast<uint32_t>(target.port));
    requests.push_back(std::move(request));
  }
  // Each MAD is bounded by its timeout and attempts; the batch by their sum.
  const auto per_mad = options_.counters.per_attempt * std::max(1, options_.counters.attempts);
  const auto deadline = std::chrono::steady_clock::now() + per_mad * static_cast<long>(targets.size() + 1);
  std::vector<Result<MadResponse>> responses = counters_transport_->CallMany(
      mad_rpc_class_agent(port_, IB_PERFORMANCE_CLASS), requests, options_.counters_window, deadline,
      "PortCounters");
  std::vector<Result<PortCounters>> out;
  out.reserve(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    const std::string where =
        "PortCounters at LID " + std::to_string(targets[i].lid) + " port " + std::to_string(targets[i].port);
    if (i >= responses.size() || !responses[i]) {
      out.push_back(Error{where + ": " + (i < responses.size() ? responses[i].error().message : "no answer")});
      continue;
    }
    const std::vector<uint8_t>& mad = responses[i]->mad;
    if (mad.size() < IB_PC_DATA_OFFS + IB_PC_DATA_SZ) {
      out.push_back(Error{where + ": short response"});
      continue;
    }
    out.push_back(DecodePortCounters(mad.data() + IB_PC_DATA_OFFS));
  }
  return out;
}

Status UmadFabric::ClearStaleSmFlag() {
  if (Status opened = Open(); !opened) return opened;
  char path[256] = {};
  std::string ca = local_.ca_name;
  if (umad_get_issm_path(ca.data(), local_.port_num, path, sizeof path) < 0)
    return Error{"no issm device for " + ca + "/" + std::to_string(local_.port_num)};
  int fd = ::open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == EAGAIN || errno == EBUSY) return Status::Ok();  // an SM holds it: not stale
    return Error{std::string("cannot open ") + path + ": " + std::strerror(errno)};
  }
  ::close(fd);
  return Status::Ok();
}

}  // namespace smsupd
