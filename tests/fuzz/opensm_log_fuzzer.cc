// Fuzz target: OpenSM's log as the daemon reads it. Input layout: byte 0
// picks where the rest is cut into writes, byte 1 whether and after which
// write the log is rotated (renamed, a new file created) or truncated
// (copytruncate); the rest is the log text. An OpenSmLogWatcher polls the
// file after every write.
//
// Properties, for any bytes, cuts and rotation point:
// - ClassifyOpenSmLogLine never crashes, and ignores trailing '\r' and
//   spaces as it promises;
// - the watcher delivers exactly the classified lines that ended with '\n'
//   in the same file (a partial line cut off by a rotation or a truncation
//   is lost, a line over kMaxLineBytes dropped), each with its text made
//   printable (PrintableText), in
//   order, and counts every SUBNET UP.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "common/printable_text.h"
#include "daemon/opensm/opensm_log_watcher.h"
#include "tests/fuzz/fuzz_support.h"

namespace smsupd {
namespace {

using Kind = OpenSmLogEvent::Kind;

enum class Reset { kNone, kRotate, kTruncate };

struct Delivered {
  Kind kind;
  std::string line;
  bool operator==(const Delivered&) const = default;
};

// A private directory for this process's log file, removed at exit; on
// /dev/shm when there is one: on ext4 every truncation and rotation waited
// for the disk (a file truncated to zero is flushed on close, auto_da_alloc).
std::string log_dir;

const std::string& LogPath() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string parent = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : tmp != nullptr ? tmp : "/tmp";
    log_dir = parent + "/smsupd-fuzz-log-XXXXXX";
    if (::mkdtemp(log_dir.data()) == nullptr) std::abort();
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(log_dir, ignored);
    });
    return log_dir + "/opensm.log";
  }();
  return path;
}

void CheckClassifier(std::string_view line) {
  std::optional<Kind> kind = ClassifyOpenSmLogLine(line);
  std::string padded(line);
  padded += " \r";
  FUZZ_CHECK(ClassifyOpenSmLogLine(padded) == kind, padded);
}

// The lines each segment (the bytes written between resets) ends with '\n',
// but those longer than the watcher keeps.
std::vector<Delivered> Predict(const std::vector<std::string>& segments) {
  std::vector<Delivered> out;
  for (const std::string& segment : segments) {
    std::size_t start = 0;
    for (std::size_t newline; (newline = segment.find('\n', start)) != std::string::npos;
         start = newline + 1) {
      std::string line = segment.substr(start, newline - start);
      CheckClassifier(line);
      if (line.size() > OpenSmLogWatcher::kMaxLineBytes) continue;
      if (std::optional<Kind> kind = ClassifyOpenSmLogLine(line))
        out.push_back({*kind, PrintableText(line, OpenSmLogWatcher::kMaxLineBytes)});
    }
  }
  return out;
}

void Append(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n <= 0) std::abort();
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

int CreateLog(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) std::abort();
  return fd;
}

}  // namespace
}  // namespace smsupd

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace smsupd;
  if (size < 2) return 0;
  std::string_view text = fuzz::AsText(data + 2, size - 2);
  Reset reset = data[1] & 0x80 ? (data[1] & 0x40 ? Reset::kTruncate : Reset::kRotate) : Reset::kNone;
  std::size_t reset_after = data[1] & 0x3f;

  const std::string& path = LogPath();
  ::unlink((path + ".1").c_str());
  int fd = CreateLog(path);
  boost::asio::io_context io;
  std::vector<Delivered> delivered;
  OpenSmLogWatcher watcher(io, path, std::chrono::hours(1), [&](const OpenSmLogEvent& event) {
    delivered.push_back({event.kind, event.line});
  });
  watcher.Start();

  std::vector<std::string> segments(1);
  std::vector<std::string_view> chunks = fuzz::Chunks(text, data[0]);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    Append(fd, chunks[i]);
    segments.back() += chunks[i];
    watcher.PollNow();
    if (i != reset_after || reset == Reset::kNone) continue;
    if (reset == Reset::kRotate) {
      ::close(fd);
      ::rename(path.c_str(), (path + ".1").c_str());
      fd = CreateLog(path);
    } else if (::ftruncate(fd, 0) != 0) {
      std::abort();
    }
    segments.emplace_back();
    watcher.PollNow();
  }
  watcher.Stop();
  ::close(fd);

  std::vector<Delivered> expected = Predict(segments);
  std::size_t subnet_ups = 0;
  for (const Delivered& line : expected) subnet_ups += line.kind == OpenSmLogEvent::Kind::kSubnetUp;
  FUZZ_CHECK(delivered.size() == expected.size(),
             std::to_string(delivered.size()) + " lines delivered, " +
                 std::to_string(expected.size()) + " expected");
  for (std::size_t i = 0; i < expected.size(); ++i)
    FUZZ_CHECK(delivered[i] == expected[i], "line " + std::to_string(i) + ": got '" +
                                                delivered[i].line + "', expected '" +
                                                expected[i].line + "'");
  FUZZ_CHECK(watcher.subnet_up_count() == subnet_ups, "SUBNET UP count");
  return 0;
}
