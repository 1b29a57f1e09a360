#include "daemon/metrics/metrics_listener.h"

#include <prometheus/exposer.h>

#include <exception>

namespace smsupd {

MetricsListener::MetricsListener() = default;
MetricsListener::~MetricsListener() = default;

Status MetricsListener::Start(const std::string& address,
                              std::shared_ptr<prometheus::Registry> registry) {
  try {
    // One serving thread: a scrape every few seconds, from one Prometheus
    // or two, needs no more.
    exposer_ = std::make_unique<prometheus::Exposer>(address, 1);
  } catch (const std::exception& error) {
    return Error{"cannot listen on " + address + " for /metrics: " + error.what()};
  }
  exposer_->RegisterCollectable(registry, "/metrics");
  return Status::Ok();
}

int MetricsListener::port() const {
  if (!exposer_) return 0;
  auto ports = exposer_->GetListeningPorts();
  return ports.empty() ? 0 : ports.front();
}

}  // namespace smsupd
