#include "tests/daemon/failover/prometheus_server.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/daemon/metrics/http_get.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {

Result<std::unique_ptr<PrometheusServer>> PrometheusServer::Start(
    const std::string& dir, const std::vector<ScrapeTarget>& targets,
    std::chrono::milliseconds scrape_interval) {
  std::filesystem::create_directories(dir + "/data");
  std::ofstream config(dir + "/prometheus.yml");
  config << "global:\n  scrape_interval: " << scrape_interval.count() << "ms\n"
         << "  scrape_timeout: " << scrape_interval.count() << "ms\n"
         << "  evaluation_interval: " << scrape_interval.count() << "ms\n"
         << "scrape_configs:\n  - job_name: smsupd\n    static_configs:\n";
  for (const ScrapeTarget& target : targets)
    config << "      - targets: [\"127.0.0.1:" << target.port << "\"]\n"
           << "        labels: {instance: \"" << target.instance << "\"}\n";
  config.close();
  std::unique_ptr<PrometheusServer> server(new PrometheusServer());
  server->port_ = FreeLoopbackPort();
  server->log_ = dir + "/prometheus.log";
  ChildSpec spec;
  spec.argv = {PROMETHEUS_PATH, "--config.file=" + dir + "/prometheus.yml",
               "--storage.tsdb.path=" + dir + "/data",
               "--web.listen-address=127.0.0.1:" + std::to_string(server->port_),
               "--log.level=warn"};
  spec.output_path = server->log_;
  auto process = ChildProcess::Start(spec);
  if (!process) return Error{"cannot start prometheus: " + process.error().message};
  server->process_ = std::move(*process);
  Status ready = WaitFor(
      "prometheus on 127.0.0.1:" + std::to_string(server->port_) + " to be ready",
      [&] { return server->process_->Running() && HttpGet(server->port_, "/-/ready", std::chrono::milliseconds(1000)).ok(); },
      std::chrono::milliseconds(30000), std::chrono::milliseconds(100));
  if (!ready) return Error{ready.message() + "\n" + server->LogTail()};
  return server;
}

Result<nlohmann::json> PrometheusServer::Query(const std::string& promql) const {
  auto body = HttpGet(port_, "/api/v1/query?query=" + UrlEncode(promql));
  if (!body) return Error{body.error().message};
  nlohmann::json answer = nlohmann::json::parse(*body, nullptr, false);
  if (answer.is_discarded() || answer.value("status", "") != "success")
    return Error{"query " + promql + ": " + *body};
  return answer["data"]["result"];
}

Result<double> PrometheusServer::Scalar(const std::string& promql) const {
  auto result = Query(promql);
  if (!result) return Error{result.error().message};
  if (!result->is_array() || result->empty()) return Error{"no series for " + promql};
  return std::stod((*result)[0]["value"][1].get<std::string>());
}

std::string PrometheusServer::LogTail() const {
  std::ifstream in(log_);
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  return "prometheus log:\n" + (all.size() > 4000 ? all.substr(all.size() - 4000) : all);
}

}  // namespace smsupd::testbed
