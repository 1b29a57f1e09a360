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

// One request of a pipelined batch (Gets only). `payload`, when not empty,
// is the request's attribute data (rpc.datasz bytes at rpc.dataoffs), e.g.
// a PerfMgt Get's PortSelect.
struct MadRequest {
  ib_rpc_t rpc;
  ib_portid_t dest;
  std::vector<uint8_t> payload;
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

  // Sends every request through `agent`, keeping up to `window` of them in
  // flight, and returns one result per request, in request order. Each
  // request gets the same per-attempt timeout and attempts as Call(), so the
  // batch takes at most about (requests / window + 1) * per_attempt *
  // attempts, and far less when the fabric answers. Why pipelined: a
  // directed-route walk needs thousands of SMPs; one at a time, the round
  // trips add up (IBA allows many outstanding SMPs per agent). Requests
  // still unanswered at `deadline` fail ("out of time").
  std::vector<Result<MadResponse>> CallMany(int agent, const std::vector<MadRequest>& requests,
                                            size_t window, std::chrono::steady_clock::time_point deadline,
                                            const std::string& what);

  const MadTimeouts& timeouts() const { return timeouts_; }

 private:
  enum class Outcome { kResponse, kNoResponse, kFailed };

  Outcome Attempt(int agent, std::vector<uint8_t>& request, int request_length, uint32_t trid,
                  std::vector<uint8_t>& response, std::string& failure);
  Outcome AwaitResponse(uint32_t trid, std::chrono::steady_clock::time_point deadline,
                        std::vector<uint8_t>& response, std::string& failure);

  class Batch;  // one CallMany (mad_transport_batch.cc)

  int port_id_;
  MadTimeouts timeouts_;
  std::vector<uint8_t> receive_buffer_;  // reused: the MAD thread polls often
};

// "0x001c (unsupported attribute)"-style text for a MAD status word.
std::string DescribeMadStatus(unsigned status);
// The status word of a response MAD (a directed-route SMP's included).
unsigned ResponseStatus(const std::vector<uint8_t>& mad);
// The low 32 bits of a MAD's transaction ID: the part that identifies a
// request (umad2sim overwrites bits 32..47 with the agent ID).
uint32_t LowTrid(const uint8_t* mad);

}  // namespace smsupd
