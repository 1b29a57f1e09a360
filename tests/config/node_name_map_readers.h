// Test-side models of the two programs that read OpenSM's node-name map,
// for the unit tests and the fuzz harness (config/node_name_map.h says why
// each matters):
// - OpenSM 3.3.23 (complib/cl_nodenamemap.c, read_names): a line starting
//   with '#' is skipped; the first token up to '"' or '#' is the GUID, the
//   second one the name;
// - infiniband-diags (rdma-core util/node_name_map.c): fgets of 256 bytes,
//   white space skipped, the GUID by strtoull, then the name up to '"' or
//   '#'. A GUID that does not parse drops the whole map.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace smsupd::config::testing {

using NodeNames = std::map<std::uint64_t, std::string>;

NodeNames ReadNodeNameMapLikeOpenSm(const std::string& text);
// nullopt: the tool drops the map.
std::optional<NodeNames> ReadNodeNameMapLikeDiags(const std::string& text);

}  // namespace smsupd::config::testing
