// The process collector's standard families, under the names Prometheus'
// own clients use (and dashboards and rules expect):
//
//   process_cpu_seconds_total       user + system CPU time   /proc/self/stat
//   process_resident_memory_bytes   resident set size        /proc/self/stat
//   process_virtual_memory_bytes    virtual memory size      /proc/self/stat
//   process_start_time_seconds      start, unix time         /proc/self/stat + btime of /proc/stat
//   process_open_fds                open file descriptors    /proc/self/fd
//   process_max_fds                 the soft RLIMIT_NOFILE   /proc/self/limits
//
// prometheus-cpp 1.0 (Debian 12) has no process collector. This one reads
// /proc at each scrape, on the scraping thread (the listener's or the event
// loop's for `smctl metrics`); it keeps no state, so it is thread-safe.
// Every read is bounded (the k* limits below); a family whose source cannot
// be read or parsed is left out of that scrape rather than reported wrong.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace smsupd {

// /proc/self/stat and /proc/self/limits are one short line and ~1.5 KiB.
inline constexpr std::size_t kMaxProcFileBytes = 64 * 1024;
// /proc/stat has a line per CPU and one with every interrupt's count
// before its btime line: tens of KiB on large machines.
inline constexpr std::size_t kMaxProcStatBytes = 1024 * 1024;
// /proc/self/fd entries counted at most (a count that reaches it is
// reported as this number).
inline constexpr std::size_t kMaxCountedFds = 1024 * 1024;

// Where the files are: a test points them at a directory of its own.
struct ProcessPaths {
  std::string self = "/proc/self";  // stat, limits, fd/
  std::string stat = "/proc/stat";  // btime
};

class ProcessCollector : public prometheus::Collectable {
 public:
  explicit ProcessCollector(ProcessPaths paths = {});

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  void CollectStat(std::vector<prometheus::MetricFamily>& families) const;
  void CollectFds(std::vector<prometheus::MetricFamily>& families) const;

  ProcessPaths paths_;
  double ticks_per_second_;
  double page_size_;
};

}  // namespace smsupd
