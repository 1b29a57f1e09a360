#include "daemon/metrics/metrics_listener.h"

#include <prometheus/exposer.h>

#include <exception>
#include <utility>
#include <string>
#include <vector>

namespace smsupd {

namespace {

// civetweb's options (prometheus-cpp passes them through). A worker serves
// one connection at a time, so any local user could stop every scrape by
// holding connections that never finish a request: enough workers that a
// few such clients leave one free, and a short request timeout that cuts
// each of them off (counted from the connection's first read, however
// slowly the bytes come). Keep-alive is off, so a scraper that keeps its
// connection holds no worker; keep_alive_timeout_ms is set too should that
// default ever change. No SO_LINGER (civetweb's default): closing never
// waits for a client.
std::vector<std::string> CivetwebOptions(const std::string& address) {
  const std::string timeout = std::to_string(kMetricsRequestTimeoutMs);
  return {
      "listening_ports",       address,  //
      "num_threads",           std::to_string(kMetricsListenerThreads),
      "request_timeout_ms",    timeout,  //
      "enable_keep_alive",     "no",     //
      "keep_alive_timeout_ms", timeout,
  };
}

}  // namespace

MetricsListener::MetricsListener() = default;
MetricsListener::~MetricsListener() = default;

Status MetricsListener::Start(const std::string& address,
                              std::shared_ptr<prometheus::Registry> registry) {
  return Start(address, std::vector<std::shared_ptr<prometheus::Collectable>>{std::move(registry)});
}

Status MetricsListener::Start(const std::string& address,
                              std::vector<std::shared_ptr<prometheus::Collectable>> collectables) {
  try {
    exposer_ = std::make_unique<prometheus::Exposer>(CivetwebOptions(address));
  } catch (const std::exception& error) {
    return Error{"cannot listen on " + address + " for /metrics: " + error.what()};
  }
  // The exposer holds weak pointers: the owner (DaemonMetrics) keeps them alive.
  for (const auto& collectable : collectables) exposer_->RegisterCollectable(collectable, "/metrics");
  return Status::Ok();
}

int MetricsListener::port() const {
  if (!exposer_) return 0;
  auto ports = exposer_->GetListeningPorts();
  return ports.empty() ? 0 : ports.front();
}

}  // namespace smsupd
