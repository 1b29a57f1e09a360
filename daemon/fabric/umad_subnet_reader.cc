#include "daemon/fabric/umad_subnet_reader.h"

#include "common/printable_text.h"

#include <infiniband/mad.h>

#include "daemon/fabric/mad_codec.h"

namespace smsupd {
namespace {

std::vector<PortAt> NodesAt(const std::vector<DirectedRoute>& routes) {
  std::vector<PortAt> targets;
  targets.reserve(routes.size());
  for (const DirectedRoute& route : routes) targets.push_back(PortAt{route, 0});
  return targets;
}

MadRequest DirectedGet(unsigned attribute, const PortAt& target) {
  MadRequest request = {};
  request.rpc.mgtclass = IB_SMI_DIRECT_CLASS;
  request.rpc.method = IB_MAD_METHOD_GET;
  request.rpc.attr.id = attribute;
  request.rpc.attr.mod = static_cast<unsigned>(target.port);
  request.rpc.datasz = IB_SMP_DATA_SIZE;
  request.rpc.dataoffs = IB_SMP_DATA_OFFS;
  // LID 0 and DR SLID/DLID 0 (encoded as the permissive 0xffff): a pure
  // directed route. libibmad keeps the hops in p[1..cnt].
  request.dest.drpath.cnt = static_cast<int>(target.route.size());
  for (size_t i = 0; i < target.route.size(); ++i) request.dest.drpath.p[i + 1] = target.route[i];
  return request;
}

template <typename T, typename Decode>
std::vector<Result<T>> DecodeAll(std::vector<Result<std::vector<uint8_t>>> data, Decode decode) {
  std::vector<Result<T>> out;
  out.reserve(data.size());
  for (Result<std::vector<uint8_t>>& one : data) {
    if (one) {
      out.push_back(decode(one->data()));
    } else {
      out.push_back(one.error());
    }
  }
  return out;
}

// The fabric's own words, made printable here, once: every reader of a
// port's description (events, meta.json, hooks, the journal) trusts it.
std::string DecodeNodeDescription(const uint8_t* data) {
  const std::size_t size = std::min<std::size_t>(kSmpDataSize, kNodeDescriptionBytes);
  return PrintableNodeDescription(std::string_view(reinterpret_cast<const char*>(data), size));
}

}  // namespace

std::vector<Result<std::vector<uint8_t>>> UmadSubnetReader::Get(unsigned attribute,
                                                                const std::vector<PortAt>& targets,
                                                                const char* what) {
  std::vector<MadRequest> requests;
  requests.reserve(targets.size());
  for (const PortAt& target : targets) requests.push_back(DirectedGet(attribute, target));
  std::vector<Result<MadResponse>> responses = transport_.CallMany(agent_, requests, window_, deadline_, what);
  std::vector<Result<std::vector<uint8_t>>> out;
  out.reserve(responses.size());
  for (size_t i = 0; i < responses.size(); ++i) {
    const std::string where = "DR path " + FormatDirectedRoute(targets[i].route);
    if (!responses[i]) {
      out.push_back(Error{where + ": " + responses[i].error().message});
      continue;
    }
    const std::vector<uint8_t>& mad = responses[i]->mad;
    if (mad.size() < IB_SMP_DATA_OFFS + kSmpDataSize) {
      out.push_back(Error{where + ": " + what + ": short response"});
      continue;
    }
    out.push_back(std::vector<uint8_t>(mad.begin() + IB_SMP_DATA_OFFS,
                                       mad.begin() + IB_SMP_DATA_OFFS + kSmpDataSize));
  }
  return out;
}

std::vector<Result<NodeInfo>> UmadSubnetReader::ReadNodeInfo(const std::vector<DirectedRoute>& routes) {
  return DecodeAll<NodeInfo>(Get(IB_ATTR_NODE_INFO, NodesAt(routes), "NodeInfo"), DecodeNodeInfo);
}

std::vector<Result<PortInfo>> UmadSubnetReader::ReadPortInfo(const std::vector<PortAt>& ports) {
  return DecodeAll<PortInfo>(Get(IB_ATTR_PORT_INFO, ports, "PortInfo"), DecodePortInfo);
}

std::vector<Result<std::string>> UmadSubnetReader::ReadNodeDescription(
    const std::vector<DirectedRoute>& routes) {
  return DecodeAll<std::string>(Get(IB_ATTR_NODE_DESC, NodesAt(routes), "NodeDescription"),
                                DecodeNodeDescription);
}

}  // namespace smsupd
