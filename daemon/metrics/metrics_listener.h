// The optional HTTP listener for Prometheus (metrics.listen): prometheus-cpp's
// Exposer (civetweb) serving the registry at /metrics from its own threads,
// never the event loop's. Off unless configured; the validator has already
// refused a non-loopback address unless metrics.allow_remote is set.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/registry.h>

#include "common/result.h"

namespace prometheus {
class Exposer;
}

namespace smsupd {

// Serving threads of the listener (civetweb's workers; one more thread
// accepts connections). A scrape every few seconds from one Prometheus or
// two needs one; the others are there for clients that hold a connection.
inline constexpr int kMetricsListenerThreads = 4;
// How long a client has to send its whole request, and to take each part
// of the answer: a scraper sends its request in one segment, and 3 s leaves
// room for two TCP retransmissions (1 s + 2 s). Below Prometheus' default
// scrape_timeout (10 s), so a scrape that waits for a worker behind slow
// clients still succeeds.
inline constexpr int kMetricsRequestTimeoutMs = 3000;

class MetricsListener {
 public:
  MetricsListener();
  ~MetricsListener();

  // Binds `address` ("127.0.0.1:9662", "[::1]:9662") and serves `registry`
  // at /metrics. An error names the address and the cause (in use, ...).
  Status Start(const std::string& address, std::shared_ptr<prometheus::Registry> registry);
  // The same, serving every one of `collectables` at /metrics.
  Status Start(const std::string& address, std::vector<std::shared_ptr<prometheus::Collectable>> collectables);
  // The port the listener is bound to, 0 if none.
  int port() const;

 private:
  std::unique_ptr<prometheus::Exposer> exposer_;
};

}  // namespace smsupd
