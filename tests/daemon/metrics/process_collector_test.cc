// The process_* families from a /proc of the test's own: right values from
// well-formed files, and a family left out (never a wrong value, never a
// crash) when its file is missing, cut short, garbage or huge.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "daemon/metrics/process_collector.h"

namespace smsupd {
namespace {

// "pid (comm) state" then fields 4..24: utime (14) 250, stime (15) 50,
// starttime (22) 1000, vsize (23) 123456789, rss (24) 2048 pages.
constexpr char kStat[] =
    "4242 (smsupd (a) b) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 1000 123456789 2048 "
    "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n";
constexpr char kLimits[] =
    "Limit                     Soft Limit           Hard Limit           Units     \n"
    "Max cpu time              unlimited            unlimited            seconds   \n"
    "Max open files            1024                 524288               files     \n";
constexpr char kProcStat[] = "cpu  1 2 3 4\nintr 5 6 7\nctxt 8\nbtime 1796000000\nprocesses 9\n";

class ProcessCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/process-collector-XXXXXX";
    ASSERT_TRUE(::mkdtemp(pattern));
    root_ = pattern;
    std::filesystem::create_directories(root_ + "/self/fd");
    Write("self/stat", kStat);
    Write("self/limits", kLimits);
    Write("stat", kProcStat);
    for (int fd = 0; fd < 7; ++fd) Write("self/fd/" + std::to_string(fd), "");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void Write(const std::string& name, const std::string& text) { std::ofstream(root_ + "/" + name) << text; }

  // Family name -> its one value.
  std::map<std::string, double> Collect() const {
    ProcessCollector collector(ProcessPaths{root_ + "/self", root_ + "/stat"});
    std::map<std::string, double> values;
    for (const auto& family : collector.Collect()) {
      EXPECT_EQ(family.metric.size(), 1u) << family.name;
      const auto& metric = family.metric.front();
      values[family.name] = family.type == prometheus::MetricType::Counter ? metric.counter.value : metric.gauge.value;
    }
    return values;
  }

  std::string root_;
};

TEST_F(ProcessCollectorTest, ReadsEveryFamilyFromProc) {
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
  std::map<std::string, double> values = Collect();
  EXPECT_DOUBLE_EQ(values.at("process_cpu_seconds_total"), 300 / ticks);
  EXPECT_DOUBLE_EQ(values.at("process_resident_memory_bytes"), 2048 * page);
  EXPECT_DOUBLE_EQ(values.at("process_virtual_memory_bytes"), 123456789);
  EXPECT_DOUBLE_EQ(values.at("process_start_time_seconds"), 1796000000 + 1000 / ticks);
  EXPECT_DOUBLE_EQ(values.at("process_open_fds"), 7);
  EXPECT_DOUBLE_EQ(values.at("process_max_fds"), 1024);
}

TEST_F(ProcessCollectorTest, TheRealProcGivesEveryFamily) {
  ProcessCollector collector;
  std::map<std::string, bool> seen;
  for (const auto& family : collector.Collect()) seen[family.name] = true;
  for (const char* name : {"process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
                           "process_start_time_seconds", "process_open_fds", "process_max_fds"})
    EXPECT_TRUE(seen[name]) << name;
}

TEST_F(ProcessCollectorTest, AStatCutShortOrGarbageLeavesItsFamiliesOut) {
  Write("self/stat", "4242 (smsupd) S 1 4242 4242 0 -1 4194560 100 0 0 0 250");  // cut before rss
  std::map<std::string, double> cut = Collect();
  EXPECT_FALSE(cut.count("process_cpu_seconds_total"));
  EXPECT_FALSE(cut.count("process_resident_memory_bytes"));
  EXPECT_FALSE(cut.count("process_start_time_seconds"));
  EXPECT_TRUE(cut.count("process_open_fds")) << "the other sources still count";

  Write("self/stat", "no parenthesis at all 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24\n");
  EXPECT_FALSE(Collect().count("process_cpu_seconds_total"));

  std::string garbage = kStat;
  garbage.replace(garbage.find(" 250 50 "), 8, " x5 y0 ");
  Write("self/stat", garbage);
  std::map<std::string, double> values = Collect();
  EXPECT_FALSE(values.count("process_cpu_seconds_total")) << "no number, no value";
  EXPECT_TRUE(values.count("process_resident_memory_bytes"));
}

TEST_F(ProcessCollectorTest, MissingFilesLeaveTheirFamiliesOut) {
  std::filesystem::remove(root_ + "/stat");  // no btime: no start time
  std::filesystem::remove(root_ + "/self/limits");
  std::filesystem::remove_all(root_ + "/self/fd");
  std::map<std::string, double> values = Collect();
  EXPECT_FALSE(values.count("process_start_time_seconds"));
  EXPECT_FALSE(values.count("process_max_fds"));
  EXPECT_FALSE(values.count("process_open_fds"));
  EXPECT_TRUE(values.count("process_cpu_seconds_total"));

  std::filesystem::remove(root_ + "/self/stat");
  EXPECT_TRUE(Collect().empty());
}

TEST_F(ProcessCollectorTest, HugeOrOddFilesAreReadOnlyUpToTheirBound) {
  // btime past the 1 MiB that /proc/stat is read to: not found, left out.
  Write("stat", std::string(kMaxProcStatBytes, 'i') + "\nbtime 1796000000\n");
  EXPECT_FALSE(Collect().count("process_start_time_seconds"));
  // A limits file of megabytes without the line; and "unlimited".
  Write("self/limits", std::string(4 * kMaxProcFileBytes, 'x'));
  EXPECT_FALSE(Collect().count("process_max_fds"));
  Write("self/limits", "Max open files            unlimited            unlimited            files\n");
  EXPECT_FALSE(Collect().count("process_max_fds"));
  // A stat line over the bound: read up to it, the fields past it missing.
  Write("self/stat", std::string("1 (") + std::string(2 * kMaxProcFileBytes, 'c') + ") S 1 2 3\n");
  EXPECT_FALSE(Collect().count("process_cpu_seconds_total"));
}

}  // namespace
}  // namespace smsupd
