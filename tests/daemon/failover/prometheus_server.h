// A real Prometheus (Debian's /usr/bin/prometheus) for a test: loopback
// only, its own port, config and storage under the test's directory,
// scraping the given targets at a short interval; queried through its HTTP
// API like any dashboard would. Killed with its process group at the end.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "tests/testbed/child_process.h"

namespace smsupd::testbed {

struct ScrapeTarget {
  std::string instance;  // the instance label ("master", "standby")
  int port = 0;          // metrics.listen's port on 127.0.0.1
};

class PrometheusServer {
 public:
  // Starts Prometheus and waits until it answers /-/ready.
  static Result<std::unique_ptr<PrometheusServer>> Start(const std::string& dir,
                                                         const std::vector<ScrapeTarget>& targets,
                                                         std::chrono::milliseconds scrape_interval);

  // /api/v1/query?query=<promql>: the data.result array.
  Result<nlohmann::json> Query(const std::string& promql) const;
  // The value of the first series of `promql`, or an error when there is none.
  Result<double> Scalar(const std::string& promql) const;
  std::string LogTail() const;

 private:
  PrometheusServer() = default;
  std::unique_ptr<ChildProcess> process_;
  int port_ = 0;
  std::string log_;
};

}  // namespace smsupd::testbed
