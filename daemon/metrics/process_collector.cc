#include "daemon/metrics/process_collector.h"

#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>

namespace smsupd {
namespace {

// /proc/[pid]/stat fields after "pid (comm) " (proc(5)), counted from
// `state` (field 3) as 0: utime 14, stime 15, starttime 22, vsize 23, rss 24.
constexpr std::size_t kUtime = 14 - 3;
constexpr std::size_t kStime = 15 - 3;
constexpr std::size_t kStartTime = 22 - 3;
constexpr std::size_t kVsize = 23 - 3;
constexpr std::size_t kRss = 24 - 3;

// The first `limit` bytes of `path`, nullopt when it cannot be read.
std::optional<std::string> ReadBounded(const std::string& path, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(limit, '\0');
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

std::optional<double> Number(std::string_view text) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

// The fields of a stat line from `state` on: the command name in
// parentheses may hold spaces and ')', so the fields start after the last ')'.
std::vector<std::string_view> StatFields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t at = line.rfind(')');
  if (at == std::string_view::npos) return fields;
  line.remove_prefix(at + 1);
  std::size_t begin = line.find_first_not_of(" \n");
  while (begin != std::string_view::npos) {
    std::size_t end = line.find_first_of(" \n", begin);
    fields.push_back(line.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
    begin = end == std::string_view::npos ? end : line.find_first_not_of(" \n", end);
  }
  return fields;
}

std::optional<double> BootTime(const std::string& proc_stat) {
  auto text = ReadBounded(proc_stat, kMaxProcStatBytes);
  if (!text) return std::nullopt;
  std::size_t at = text->compare(0, 6, "btime ") == 0 ? 0 : text->find("\nbtime ");
  if (at == std::string::npos) return std::nullopt;
  if (at != 0) ++at;
  std::string_view rest = std::string_view(*text).substr(at + 6);
  return Number(rest.substr(0, rest.find('\n')));
}

prometheus::MetricFamily One(const char* name, const char* help, prometheus::MetricType type, double value) {
  prometheus::ClientMetric metric;
  if (type == prometheus::MetricType::Counter)
    metric.counter.value = value;
  else
    metric.gauge.value = value;
  return {name, help, type, {metric}};
}

}  // namespace

ProcessCollector::ProcessCollector(ProcessPaths paths)
    : paths_(std::move(paths)),
      ticks_per_second_(static_cast<double>(::sysconf(_SC_CLK_TCK))),
      page_size_(static_cast<double>(::sysconf(_SC_PAGESIZE))) {}

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  std::vector<prometheus::MetricFamily> families;
  CollectStat(families);
  CollectFds(families);
  return families;
}

void ProcessCollector::CollectStat(std::vector<prometheus::MetricFamily>& families) const {
  using prometheus::MetricType;
  auto text = ReadBounded(paths_.self + "/stat", kMaxProcFileBytes);
  if (!text || ticks_per_second_ <= 0 || page_size_ <= 0) return;
  std::vector<std::string_view> fields = StatFields(*text);
  if (fields.size() <= kRss) return;
  auto utime = Number(fields[kUtime]), stime = Number(fields[kStime]);
  if (utime && stime)
    families.push_back(One("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                           MetricType::Counter, (*utime + *stime) / ticks_per_second_));
  if (auto rss = Number(fields[kRss]))
    families.push_back(One("process_resident_memory_bytes", "Resident memory size in bytes.", MetricType::Gauge,
                           *rss * page_size_));
  if (auto vsize = Number(fields[kVsize]))
    families.push_back(
        One("process_virtual_memory_bytes", "Virtual memory size in bytes.", MetricType::Gauge, *vsize));
  auto start = Number(fields[kStartTime]);
  auto boot = BootTime(paths_.stat);
  if (start && boot)
    families.push_back(One("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
                           MetricType::Gauge, *boot + *start / ticks_per_second_));
}

void ProcessCollector::CollectFds(std::vector<prometheus::MetricFamily>& families) const {
  using prometheus::MetricType;
  std::error_code error;
  std::filesystem::directory_iterator entries(paths_.self + "/fd", error);
  if (!error) {
    std::size_t open = 0;
    for (; entries != std::filesystem::directory_iterator() && open < kMaxCountedFds; entries.increment(error)) {
      if (error) break;
      ++open;
    }
    if (!error)
      families.push_back(One("process_open_fds", "Number of open file descriptors.", MetricType::Gauge,
                             static_cast<double>(open)));
  }
  auto limits = ReadBounded(paths_.self + "/limits", kMaxProcFileBytes);
  if (!limits) return;
  std::istringstream lines(*limits);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("Max open files", 0) != 0) continue;
    std::istringstream columns(line.substr(std::string_view("Max open files").size()));
    std::string soft;
    columns >> soft;  // "unlimited" leaves the family out
    if (auto value = Number(soft))
      families.push_back(One("process_max_fds", "Maximum number of open file descriptors.", MetricType::Gauge, *value));
    return;
  }
}

}  // namespace smsupd
