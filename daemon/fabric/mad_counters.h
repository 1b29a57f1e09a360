// Counters of the MADs this process sent. requests/retries/timeouts count
// the single requests (MadTransport::Call: the SMInfo and PortInfo polls, SA
// queries, P_Key reads; not the pipelined directed-route walk, whose misses
// on unused switch ports are normal); `sent` counts every MAD put on the
// wire, the walk's and every retry included: the load smsupd adds to the
// fabric.
// Written on the MAD thread, read by the metrics on the event loop: atomics,
// one set per process (there is one MAD thread).
#pragma once

#include <atomic>
#include <cstdint>

namespace smsupd {

struct MadCounters {
  std::atomic<std::uint64_t> requests{0};  // Call()s
  std::atomic<std::uint64_t> retries{0};   // attempts after the first that got no answer
  std::atomic<std::uint64_t> timeouts{0};  // Call()s that got no answer in any attempt
  std::atomic<std::uint64_t> sent{0};      // every MAD sent (Call and CallMany attempts)
};

MadCounters& ProcessMadCounters();

}  // namespace smsupd
