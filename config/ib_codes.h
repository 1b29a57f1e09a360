// The IBTA encodings partitions.conf wants for mtu= and rate= (OpenSM passes
// them straight into MCMemberRecords): IB_MTU_LEN_* and
// IB_PATH_RECORD_RATE_* in <iba/ib_types.h>.
#pragma once

#include <optional>
#include <string>

namespace smsupd::config {

// 256 -> 1 ... 4096 -> 5; nullopt for any other byte count.
std::optional<int> MtuCode(int bytes);

// 2.5 -> 2, 10 -> 3, ... 600 -> 22; nullopt for a rate OpenSM does not know.
std::optional<int> RateCode(double gbps);

// "2.5, 5, 10, 14, ..." for hints: every rate RateCode() accepts, ascending.
std::string KnownRatesText();

}  // namespace smsupd::config
