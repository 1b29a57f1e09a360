// Request/response MADs over one opened umad port, with our own timeouts.
//
// Why not libibmad's mad_rpc(): it prints to stderr on every miss (a dead
// master polled 4 times a second would flood the journal), treats a
// receive timeout of 0 as "wait for ever", cannot return more than one MAD
// (SA GetTable answers need the whole reassembled response), and gives no
// way to bound the total time. libibmad is still used to open the port,
// register agents and encode the request (mad_build_pkt).
#pragma once

#include <infiniband/mad.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace smsupd {

struct MadTimeouts {
  // Per attempt: the umad send timeout and the wait for the response.
  std::chrono::milliseconds per_attempt{150};
  // Attempts in total (1 = no retry).
  int attempts = 2;
};

// A response MAD: the MAD bytes (header included) as received. For an RMPP
// (SA table) answer reassembled by the kernel this is longer than 256 bytes.
struct MadResponse {
  std::vector<uint8_t> mad;
};

class MadTransport {
 public:
  MadTransport(int umad_port_id, MadTimeouts timeouts)
      : port_id_(umad_port_id), timeouts_(timeouts) {}

  // Sends the request described by `rpc` (class, method, attribute,
  // optional payload of rpc.datasz bytes at rpc.dataoffs) to `dest` through
  // `agent` and returns the response with the same transaction ID. Bounded
  // by timeouts.per_attempt * timeouts.attempts (plus scheduling). Errors:
  // no response, a send failure, or a non-zero MAD status. `what` names the
  // request in error messages ("SMInfo from LID 4").
  Result<MadResponse> Call(int agent, ib_rpc_t rpc, ib_portid_t dest, const void* payload,
                           const std::string& what);

  const MadTimeouts& timeouts() const { return timeouts_; }

 private:
  enum class Outcome { kResponse, kNoResponse, kFailed };

  Outcome Attempt(int agent, std::vector<uint8_t>& request, int request_length, uint32_t trid,
                  std::vector<uint8_t>& response, std::string& failure);
  Outcome AwaitResponse(uint32_t trid, std::chrono::steady_clock::time_point deadline,
                        std::vector<uint8_t>& response, std::string& failure);

  int port_id_;
  MadTimeouts timeouts_;
  std::vector<uint8_t> receive_buffer_;  // reused: the MAD thread polls often
};

// "0x001c (unsupported attribute)"-style text for a MAD status word.
std::string DescribeMadStatus(unsigned status);

}  // namespace smsupd
