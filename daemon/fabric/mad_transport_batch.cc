// MadTransport::CallMany: a window of requests in flight on one umad port,
// answers matched by transaction ID, each request retried on its own.
#include <infiniband/umad.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <numeric>
#include <unordered_map>

#include "daemon/fabric/mad_counters.h"
#include "daemon/fabric/mad_transport.h"

namespace smsupd {
namespace {

using SteadyClock = std::chrono::steady_clock;

// SMP answers are one MAD; room for the umad header and a little more.
constexpr size_t kBatchResponseBytes = 2048;

}  // namespace

class MadTransport::Batch {
 public:
  Batch(MadTransport& transport, int agent, const std::vector<MadRequest>& requests, size_t window,
        SteadyClock::time_point deadline, const std::string& what)
      : t_(transport),
        agent_(agent),
        requests_(requests),
        window_(std::max<size_t>(1, window)),
        deadline_(deadline),
        what_(what),
        attempts_(std::max(1, transport.timeouts_.attempts)),
        results_(requests.size(), Error{what + ": not sent"}),
        attempts_used_(requests.size(), 0),
        deadlines_(requests.size()),
        to_send_(requests.size()) {
    std::iota(to_send_.begin(), to_send_.end(), size_t{0});
  }

  std::vector<Result<MadResponse>> Run() {
    while (!to_send_.empty() || !in_flight_.empty()) {
      if (SteadyClock::now() > deadline_) {
        FailRemaining("out of time");
        break;
      }
      FillWindow();
      if (in_flight_.empty()) continue;
      if (!ReceiveOne()) break;
    }
    return std::move(results_);
  }

 private:
  void FillWindow() {
    while (in_flight_.size() < window_ && !to_send_.empty()) {
      size_t index = to_send_.front();
      to_send_.pop_front();
      Send(index);
    }
  }

  void Send(size_t index) {
    std::vector<uint8_t> buffer(umad_size() + IB_MAD_SIZE, 0);
    ib_rpc_t rpc = requests_[index].rpc;
    ib_portid_t dest = requests_[index].dest;
    rpc.trid = 0;  // a fresh transaction ID for every attempt
    std::vector<uint8_t> payload = requests_[index].payload;
    int length = mad_build_pkt(buffer.data(), &rpc, &dest, nullptr, payload.empty() ? nullptr : payload.data());
    if (length < 0) {
      results_[index] = Error{what_ + ": cannot encode the request"};
      return;
    }
    int timeout_ms = static_cast<int>(t_.timeouts_.per_attempt.count());
    if (umad_send(t_.port_id_, agent_, buffer.data(), length, timeout_ms, 0) < 0) {
      results_[index] = Error{what_ + ": umad send failed: " + std::strerror(errno)};
      return;
    }
    ProcessMadCounters().sent.fetch_add(1, std::memory_order_relaxed);
    ++attempts_used_[index];
    deadlines_[index] = SteadyClock::now() + t_.timeouts_.per_attempt;
    in_flight_[LowTrid(static_cast<uint8_t*>(umad_get_mad(buffer.data())))] = index;
  }

  // An attempt that got no answer: try again, or give up on the request.
  void Unanswered(size_t index) {
    if (attempts_used_[index] < attempts_) {
      to_send_.push_front(index);
      return;
    }
    results_[index] = Error{what_ + ": no response (" +
                            std::to_string(t_.timeouts_.per_attempt.count()) + " ms x " +
                            std::to_string(attempts_) + ")"};
  }

  // Waits for one answer until the earliest in-flight deadline; expires the
  // overdue requests. False on a receive failure (every request left fails).
  bool ReceiveOne() {
    SteadyClock::time_point earliest = SteadyClock::time_point::max();
    for (const auto& [trid, index] : in_flight_) earliest = std::min(earliest, deadlines_[index]);
    auto left = std::chrono::ceil<std::chrono::milliseconds>(earliest - SteadyClock::now());
    if (left.count() <= 0) {
      ExpireOverdue();
      return true;
    }
    std::vector<uint8_t>& buffer = t_.receive_buffer_;
    buffer.resize(umad_size() + kBatchResponseBytes);
    int length = static_cast<int>(kBatchResponseBytes);
    // umad_recv treats a timeout of 0 as "block": left is at least 1 here.
    if (umad_recv(t_.port_id_, buffer.data(), &length, static_cast<int>(left.count())) < 0) {
      if (errno == ETIMEDOUT || errno == EWOULDBLOCK || errno == EINTR || errno == EIO) return true;
      FailRemaining(std::string("umad receive failed: ") + std::strerror(errno));
      return false;
    }
    auto* mad = static_cast<uint8_t*>(umad_get_mad(buffer.data()));
    auto it = in_flight_.find(LowTrid(mad));
    if (it == in_flight_.end()) return true;  // a late answer to an earlier attempt
    size_t index = it->second;
    in_flight_.erase(it);
    // Non-zero umad status: the send got no answer (the simulator reports a
    // route it cannot follow at once).
    if (umad_status(buffer.data()) != 0) {
      Unanswered(index);
      return true;
    }
    size_t bytes = std::min<size_t>(static_cast<size_t>(length), kBatchResponseBytes);
    std::vector<uint8_t> response(mad, mad + bytes);
    unsigned status = ResponseStatus(response);
    if (status != 0) {
      results_[index] = Error{what_ + ": MAD status " + DescribeMadStatus(status)};
    } else {
      results_[index] = MadResponse{std::move(response)};
    }
    return true;
  }

  void ExpireOverdue() {
    auto now = SteadyClock::now();
    for (auto it = in_flight_.begin(); it != in_flight_.end();) {
      size_t index = it->second;
      if (deadlines_[index] > now) {
        ++it;
        continue;
      }
      it = in_flight_.erase(it);
      Unanswered(index);
    }
  }

  void FailRemaining(const std::string& failure) {
    for (const auto& [trid, index] : in_flight_) results_[index] = Error{what_ + ": " + failure};
    for (size_t index : to_send_) results_[index] = Error{what_ + ": " + failure};
    in_flight_.clear();
    to_send_.clear();
  }

  MadTransport& t_;
  int agent_;
  const std::vector<MadRequest>& requests_;
  size_t window_;
  SteadyClock::time_point deadline_;
  std::string what_;
  int attempts_;
  std::vector<Result<MadResponse>> results_;
  std::vector<int> attempts_used_;
  std::vector<SteadyClock::time_point> deadlines_;
  std::deque<size_t> to_send_;
  std::unordered_map<uint32_t, size_t> in_flight_;  // low TRID -> request
};

std::vector<Result<MadResponse>> MadTransport::CallMany(int agent, const std::vector<MadRequest>& requests,
                                                        size_t window, SteadyClock::time_point deadline,
                                                        const std::string& what) {
  return Batch(*this, agent, requests, window, deadline, what).Run();
}

}  // namespace smsupd
