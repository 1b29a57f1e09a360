// Load client for bench/status_latency.sh: N concurrent clients send
// `status` requests over fresh connections (as smctl does) to a control
// socket and time every round trip. Prints median/p90/p99/max in ms.
//
//   status_load SOCKET [CLIENTS=50] [ROUNDS=200] [burst|closed]
//
// burst (default): in each round all clients fire one request at the same
//   instant (a barrier) -- 50 operators/scripts asking at once.
// closed: every client sends its next request as soon as the last one is
//   answered -- saturation; latency is then queueing (Little's law).
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/control_protocol.h"

namespace {

using Clock = std::chrono::steady_clock;
using smsupd::control::ParseResponse;
using smsupd::control::Request;
using smsupd::control::ResultCode;
using smsupd::control::SerializeRequest;

// One status round trip on a new connection; false on any failure.
bool StatusOnce(const std::string& path, const std::string& request) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
            send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
                static_cast<ssize_t>(request.size());
  std::string reply;
  while (ok && reply.find('\n') == std::string::npos) {
    pollfd entry{fd, POLLIN, 0};
    char chunk[16384];
    ssize_t n = poll(&entry, 1, 5000) == 1 ? recv(fd, chunk, sizeof chunk, 0) : -1;
    if (n <= 0) ok = false;
    else reply.append(chunk, static_cast<std::size_t>(n));
  }
  close(fd);
  if (!ok) return false;
  auto response = ParseResponse(reply.substr(0, reply.find('\n')));
  return response.ok() && response->result == ResultCode::kSuccess;
}

double Percentile(const std::vector<double>& sorted, double fraction) {
  if (sorted.empty()) return 0;
  std::size_t index = static_cast<std::size_t>(fraction * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(index, sorted.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SOCKET [CLIENTS=50] [ROUNDS=200] [burst|closed]\n", argv[0]);
    return 2;
  }
  std::string path = argv[1];
  int clients = argc > 2 ? std::atoi(argv[2]) : 50;
  int per_client = argc > 3 ? std::atoi(argv[3]) : 200;
  bool burst = argc <= 4 || std::string(argv[4]) != "closed";
  std::barrier round_start(clients);
  std::string request = SerializeRequest(Request{1, "status", {}}) + "\n";

  std::vector<std::vector<double>> samples(static_cast<std::size_t>(clients));
  std::atomic<int> failures{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      while (!go) std::this_thread::yield();
      for (int i = 0; i < per_client; ++i) {
        if (burst) round_start.arrive_and_wait();
        auto start = Clock::now();
        bool ok = StatusOnce(path, request);
        auto took = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        if (ok) samples[static_cast<std::size_t>(c)].push_back(took);
        else ++failures;
      }
    });
  }
  auto start = Clock::now();
  go = true;
  for (auto& thread : threads) thread.join();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  std::vector<double> all;
  for (const auto& list : samples) all.insert(all.end(), list.begin(), list.end());
  std::sort(all.begin(), all.end());
  std::printf("status round trips (%s): %zu ok, %d failed, %d concurrent clients, %.1f req/s\n",
              burst ? "burst rounds" : "closed loop", all.size(), failures.load(), clients,
              static_cast<double>(all.size()) / seconds);
  std::printf("latency ms: median %.3f  p90 %.3f  p99 %.3f  max %.3f\n", Percentile(all, 0.5),
              Percentile(all, 0.9), Percentile(all, 0.99), all.empty() ? 0.0 : all.back());
  return failures.load() == 0 ? 0 : 1;
}
