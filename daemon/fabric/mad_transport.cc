#include "daemon/fabric/mad_transport.h"

#include "daemon/fabric/mad_counters.h"

#include <infiniband/umad.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace smsupd {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Room for a kernel-reassembled SA table: 64 KiB holds ~2000 SMInfoRecords.
constexpr size_t kMaxResponseBytes = 64 * 1024;

}  // namespace

MadCounters& ProcessMadCounters() {
  static MadCounters counters;
  return counters;
}

unsigned ResponseStatus(const std::vector<uint8_t>& mad) {
  auto* bytes = const_cast<uint8_t*>(mad.data());
  // A directed-route SMP keeps the D bit in the status word's top bit.
  bool directed = mad_get_field(bytes, 0, IB_MAD_MGMTCLASS_F) == IB_SMI_DIRECT_CLASS;
  return mad_get_field(bytes, 0, directed ? IB_DRSMP_STATUS_F : IB_MAD_STATUS_F);
}

uint32_t LowTrid(const uint8_t* mad) {
  // umad2sim overwrites bits 32..47 with the agent ID: compare the low word.
  return static_cast<uint32_t>(mad_get_field64(const_cast<uint8_t*>(mad), 0, IB_MAD_TRID_F));
}

std::string DescribeMadStatus(unsigned status) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%04x", status);
  const char* meaning = "error";
  switch ((status >> 2) & 0x7) {
    case 1: meaning = "bad class version"; break;
    case 2: meaning = "method not supported"; break;
    case 3: meaning = "method/attribute not supported"; break;
    case 7: meaning = "invalid attribute value or modifier"; break;
    default:
      if (status & 0x1) meaning = "busy";
      if ((status >> 8) == 3) meaning = "no records";  // SA (IBA 15.2.1.1)
      break;
  }
  return std::string(text) + " (" + meaning + ")";
}

Result<MadResponse> MadTransport::Call(int agent, ib_rpc_t rpc, ib_portid_t dest,
                                       const void* payload, const std::string& what) {
  std::vector<uint8_t> request(umad_size() + IB_MAD_SIZE, 0);
  rpc.trid = 0;  // mad_build_pkt draws a fresh transaction ID
  int length = mad_build_pkt(request.data(), &rpc, &dest, nullptr, const_cast<void*>(payload));
  if (length < 0) return Error{what + ": cannot encode the request"};
  uint32_t trid = LowTrid(static_cast<uint8_t*>(umad_get_mad(request.data())));

  std::vector<uint8_t> response;
  std::string failure = "no response";
  MadCounters& counters = ProcessMadCounters();
  counters.requests.fetch_add(1, std::memory_order_relaxed);
  for (int attempt = 0; attempt < std::max(1, timeouts_.attempts); ++attempt) {
    if (attempt > 0) counters.retries.fetch_add(1, std::memory_order_relaxed);
    Outcome outcome = Attempt(agent, request, length, trid, response, failure);
    if (outcome == Outcome::kFailed) return Error{what + ": " + failure};
    if (outcome == Outcome::kNoResponse) continue;
    unsigned status = ResponseStatus(response);
    if (status != 0) return Error{what + ": MAD status " + DescribeMadStatus(status)};
    return MadResponse{std::move(response)};
  }
  counters.timeouts.fetch_add(1, std::memory_order_relaxed);
  return Error{what + ": " + failure + " (" + std::to_string(timeouts_.per_attempt.count()) +
               " ms x " + std::to_string(std::max(1, timeouts_.attempts)) + ")"};
}

MadTransport::Outcome MadTransport::Attempt(int agent, std::vector<uint8_t>& request,
                                            int request_length, uint32_t trid,
                                            std::vector<uint8_t>& response,
                                            std::string& failure) {
  auto deadline = SteadyClock::now() + timeouts_.per_attempt;
  int timeout_ms = static_cast<int>(timeouts_.per_attempt.count());
  // retries 0: the attempts are ours, so the total time stays bounded.
  if (umad_send(port_id_, agent, request.data(), request_length, timeout_ms, 0) < 0) {
    failure = std::string("umad send failed: ") + std::strerror(errno);
    return Outcome::kFailed;
  }
  ProcessMadCounters().sent.fetch_add(1, std::memory_order_relaxed);
  return AwaitResponse(trid, deadline, response, failure);
}

// Reads until the response with our transaction ID arrives or the attempt's
// deadline passes. Late answers to earlier requests are skipped.
MadTransport::Outcome MadTransport::AwaitResponse(uint32_t trid, SteadyClock::time_point deadline,
                                                  std::vector<uint8_t>& response,
                                                  std::string& failure) {
  std::vector<uint8_t>& buffer = receive_buffer_;
  buffer.resize(umad_size() + kMaxResponseBytes);
  for (;;) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - SteadyClock::now());
    if (left.count() <= 0) return Outcome::kNoResponse;
    int length = static_cast<int>(kMaxResponseBytes);
    // umad_recv treats a timeout of 0 as "block": left is at least 1 here.
    int rc = umad_recv(port_id_, buffer.data(), &length, static_cast<int>(left.count()));
    if (rc < 0) {
      // umad2sim's poll() can wake without data and report EIO: retry
      // until the deadline rather than fail the attempt.
      if (errno == ETIMEDOUT || errno == EWOULDBLOCK || errno == EINTR || errno == EIO) continue;
      failure = std::string("umad receive failed: ") + std::strerror(errno);
      return Outcome::kFailed;
    }
    auto* mad = static_cast<uint8_t*>(umad_get_mad(buffer.data()));
    if (LowTrid(mad) != trid) continue;
    if (umad_status(buffer.data()) != 0) {
      // The kernel (or the simulator, at once) reports a send that got no
      // answer, e.g. no SM behind the LID or no route.
      failure = "no response";
      return Outcome::kNoResponse;
    }
    size_t bytes = std::min<size_t>(static_cast<size_t>(length), kMaxResponseBytes);
    response.assign(mad, mad + bytes);
    return Outcome::kResponse;
  }
}

}  // namespace smsupd
