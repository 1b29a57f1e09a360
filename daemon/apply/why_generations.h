// Which stored generation last changed a partition, for `smctl why`: the
// oldest generation of the unbroken run, ending at the current one, whose
// partitions.conf defines the P_Key with the same text. Reads at most
// `max_scanned` generations (newest first); a run that reaches that bound
// names the oldest generation read (the change may be older).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "daemon/apply/generation_store.h"

namespace smsupd {

inline constexpr std::size_t kMaxWhyGenerationsScanned = 32;

// The definitions (header and members, comments dropped, whitespace runs
// as one space) of `pkey` (15 bits) in a partitions.conf text, each ending
// " ;", concatenated; "" when it has none.
std::string PartitionDefinition(const std::string& partitions_conf, std::uint16_t pkey);

// P_Key -> generation, for each of `pkeys` the current generation defines.
std::map<std::uint16_t, std::uint64_t> LastChangedGenerations(const GenerationStore& store,
                                                              std::uint64_t current,
                                                              const std::set<std::uint16_t>& pkeys,
                                                              std::size_t max_scanned = kMaxWhyGenerationsScanned);

}  // namespace smsupd
