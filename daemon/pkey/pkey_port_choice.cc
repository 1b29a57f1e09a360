// Which ports VerifyPKeys reads (the contract is in pkey_verifier.h).
#include <algorithm>
#include <optional>
#include <set>

#include "config/partition_members.h"
#include "daemon/pkey/pkey_verifier.h"

namespace smsupd {
namespace {

// Every GUID a partition names through a host, group, guid or SELF, and the
// master's port (its table holds the SM-port base rule's full 0x7fff).
std::set<Guid> NamedGuids(const config::Config& config, Guid sm_port) {
  std::optional<Guid> self;
  if (sm_port != 0) self = sm_port;
  config::MemberResolver resolver(config);
  std::set<Guid> named;
  for (const config::Partition& partition : config.partitions) {
    for (const auto& [guid, membership] : resolver.Resolve(partition, self).Named()) named.insert(guid);
  }
  if (sm_port != 0) named.insert(sm_port);
  return named;
}

// `count` of `candidates` (sorted by GUID), spread evenly: the middle of
// each of `count` equal slices. A switch port 0 is always among them when
// there is one, because switches get their tables from the keyword and
// base rules alone and are easy to get wrong (ALL vs ALL_CAS).
std::vector<DiscoveredPort> SpreadSample(const std::vector<DiscoveredPort>& candidates, size_t count) {
  std::vector<DiscoveredPort> sample;
  count = std::min(count, candidates.size());
  if (count == 0) return sample;
  const size_t n = candidates.size();
  for (size_t i = 0; i < count; ++i) sample.push_back(candidates[(2 * i + 1) * n / (2 * count)]);
  auto is_switch = [](const DiscoveredPort& port) { return port.node_type == NodeType::kSwitch; };
  if (std::any_of(sample.begin(), sample.end(), is_switch)) return sample;
  std::vector<DiscoveredPort> switches;
  std::copy_if(candidates.begin(), candidates.end(), std::back_inserter(switches), is_switch);
  if (!switches.empty()) sample.back() = switches[switches.size() / 2];
  std::sort(sample.begin(), sample.end(),
            [](const DiscoveredPort& a, const DiscoveredPort& b) { return a.port_guid < b.port_guid; });
  return sample;
}

}  // namespace

std::vector<DiscoveredPort> ChoosePortsToVerify(const config::Config& config,
                                                const std::vector<DiscoveredPort>& ports,
                                                const VerifyOptions& options, std::vector<Guid>* absent) {
  std::set<Guid> named = NamedGuids(config, options.local_sm_port);
  std::vector<DiscoveredPort> sorted = ports;
  std::sort(sorted.begin(), sorted.end(),
            [](const DiscoveredPort& a, const DiscoveredPort& b) { return a.port_guid < b.port_guid; });
  std::vector<DiscoveredPort> chosen;
  std::vector<DiscoveredPort> others;
  std::set<Guid> found;
  for (const DiscoveredPort& port : sorted) {
    if (!found.insert(port.port_guid).second) continue;  // listed twice: read once
    (named.count(port.port_guid) ? chosen : others).push_back(port);
  }
  if (absent != nullptr) {
    absent->clear();
    for (Guid guid : named)
      if (!found.count(guid)) absent->push_back(guid);
  }
  std::vector<DiscoveredPort> sample =
      SpreadSample(others, static_cast<size_t>(std::max(0, options.sample_ports)));
  chosen.insert(chosen.end(), sample.begin(), sample.end());
  return chosen;
}

}  // namespace smsupd
