#include "daemon/opensm/opensm_log_watcher.h"

#include "common/printable_text.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace smsupd {
namespace {

using Kind = OpenSmLogEvent::Kind;

// The function names osm_prtn_config.c logs its PARSE ERROR lines from.
constexpr std::string_view kPartitionParsers[] = {
    "parse_part_conf:", "partition_add_port:", "partition_create:", "mgroup_create:",
    "osm_prtn_config_parse_file:", "new_part_conf:", "flush_part_conf:"};

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// The message after "0xVV -> ", and the verbosity VV (-1 if the line does
// not have OpenSM's record layout, e.g. a message box's star lines).
std::string_view Message(std::string_view line, int* verbosity) {
  *verbosity = -1;
  std::size_t arrow = line.find(" -> ");
  if (arrow == std::string_view::npos) return line;
  std::size_t level = line.rfind(" 0x", arrow);
  if (level != std::string_view::npos && arrow - level == 5) {
    int value = 0;
    for (char c : line.substr(level + 3, 2)) {
      value <<= 4;
      if (c >= '0' && c <= '9') value |= c - '0';
      else if (c >= 'a' && c <= 'f') value |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') value |= c - 'A' + 10;
      else return line.substr(arrow + 4);
    }
    *verbosity = value;
  }
  return line.substr(arrow + 4);
}

}  // namespace

const char* OpenSmLogEventKindName(OpenSmLogEvent::Kind kind) {
  switch (kind) {
    case Kind::kSubnetUp: return "subnet-up";
    case Kind::kPartitionConfigError: return "partition-config-error";
    case Kind::kSmKeyMismatch: return "sm-key-mismatch";
    case Kind::kEnteringMaster: return "entering-master";
    case Kind::kEnteringStandby: return "entering-standby";
    case Kind::kHeavySweepRequested: return "heavy-sweep-requested";
    case Kind::kError: return "error";
  }
  return "unknown";
}

std::optional<OpenSmLogEvent::Kind> ClassifyOpenSmLogLine(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  int verbosity = -1;
  std::string_view message = Message(line, &verbosity);
  if (verbosity < 0) {  // message-box lines carry no record header
    if (Contains(line, " INITIATING HEAVY SWEEP ")) return Kind::kHeavySweepRequested;
    return std::nullopt;
  }
  if (message == "SUBNET UP") return Kind::kSubnetUp;
  if (message == "Entering MASTER state") return Kind::kEnteringMaster;
  if (message == "Entering STANDBY state") return Kind::kEnteringStandby;
  if (Contains(message, "ERR 2F18")) return Kind::kSmKeyMismatch;
  if (Contains(message, "Partition configuration in error")) return Kind::kPartitionConfigError;
  if (Contains(message, "PARSE ERROR")) {
    for (std::string_view parser : kPartitionParsers)
      if (message.rfind(parser, 0) == 0) return Kind::kPartitionConfigError;
  }
  if (verbosity & 0x01) return Kind::kError;
  return std::nullopt;
}

OpenSmLogWatcher::OpenSmLogWatcher(boost::asio::io_context& io, std::string path,
                                   std::chrono::milliseconds interval,
                                   std::function<void(const OpenSmLogEvent&)> on_event)
    : io_(io), path_(std::move(path)), interval_(interval), on_event_(std::move(on_event)),
      timer_(io) {}

OpenSmLogWatcher::~OpenSmLogWatcher() {
  Stop();
}

void OpenSmLogWatcher::Start() {
  if (running_) return;
  running_ = true;
  subnet_up_count_ = 0;
  OpenCurrent(/*from_end=*/true);
  Arm();
}

void OpenSmLogWatcher::Stop() {
  running_ = false;
  timer_.cancel();
  CloseFile();
}

void OpenSmLogWatcher::Arm() {
  timer_.expires_after(interval_);
  timer_.async_wait([this](const boost::system::error_code& error) {
    if (error || !running_) return;
    PollNow();
    Arm();
  });
}

bool OpenSmLogWatcher::OpenCurrent(bool from_end) {
  CloseFile();
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return false;
  struct stat info {};
  if (::fstat(fd_, &info) != 0) {
    CloseFile();
    return false;
  }
  device_ = info.st_dev;
  inode_ = info.st_ino;
  offset_ = from_end ? info.st_size : 0;
  partial_.clear();
  head_.clear();
  discarding_ = false;
  rotated_pending_ = false;
  return true;
}

void OpenSmLogWatcher::CloseFile() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void OpenSmLogWatcher::PollNow() {
  if (!running_) return;
  if (fd_ < 0) {
    if (!OpenCurrent(/*from_end=*/false)) return;  // not there yet
  }
  if (SwitchToNewFile()) {
    if (!OpenCurrent(/*from_end=*/false)) return;
    ++rotations_;
  }
  DetectTruncation();
  ReadAvailable();
  RememberHead();
}

// The order matters: the new file is seen non-empty first, and only then
// is the old one read to its end. OpenSM wrote its last line to the old
// file before its first to the new one, so nothing reaches the old file
// after that read.
bool OpenSmLogWatcher::SwitchToNewFile() {
  struct stat now {};
  if (::stat(path_.c_str(), &now) != 0 || (now.st_ino == inode_ && now.st_dev == device_)) {
    rotated_pending_ = false;  // no new file (yet): the old one is still OpenSM's
    return false;
  }
  if (!rotated_pending_)
    spdlog::info("OPENSM_LOG_ROTATED {} is a new file; the old one is read until OpenSM writes the new one",
                 path_);
  rotated_pending_ = true;
  if (now.st_size == 0) return false;  // OpenSM has not reopened yet
  DetectTruncation();
  return ReadAvailable() && running_;  // over budget: the rest at the next poll
}

void OpenSmLogWatcher::DetectTruncation() {
  struct stat open_file {};
  if (fd_ < 0 || ::fstat(fd_, &open_file) != 0) return;
  bool truncated = open_file.st_size < offset_;
  if (!truncated && !head_.empty()) {
    std::string now(head_.size(), '\0');
    truncated = ::pread(fd_, now.data(), now.size(), 0) != static_cast<ssize_t>(now.size()) ||
                now != head_;
  }
  if (!truncated) return;
  offset_ = 0;
  partial_.clear();
  head_.clear();
  discarding_ = false;
}

// The first bytes already passed over, compared at every poll.
void OpenSmLogWatcher::RememberHead() {
  if (fd_ < 0 || head_.size() >= kHeadBytes || offset_ <= static_cast<off_t>(head_.size())) return;
  std::string head(std::min<std::size_t>(kHeadBytes, static_cast<std::size_t>(offset_)), '\0');
  if (::pread(fd_, head.data(), head.size(), 0) == static_cast<ssize_t>(head.size()))
    head_ = std::move(head);
}

// At most kMaxReadPerPoll bytes per call, so the event loop is never held
// by a large log; a backlog beyond kMaxBacklog (a verbose OpenSM, a log
// found long after it was written) is skipped, with a warning: the lines
// acted on are about now, and verification never depends on them alone.
bool OpenSmLogWatcher::ReadAvailable() {
  struct stat info {};
  if (fd_ >= 0 && ::fstat(fd_, &info) == 0 && info.st_size - offset_ > kMaxBacklog) {
    spdlog::warn("OPENSM_LOG_SKIPPED {} bytes of {} not read: too far behind", info.st_size - offset_,
                 path_);
    offset_ = info.st_size;
    partial_.clear();
    // Unless the skip ended at a line's start, the rest of that line is not one.
    char before = '\n';
    discarding_ = ::pread(fd_, &before, 1, offset_ - 1) == 1 && before != '\n';
  }
  char chunk[16384];
  off_t budget = kMaxReadPerPoll;
  while (running_ && fd_ >= 0) {
    if (budget <= 0) return false;
    ssize_t n = ::pread(fd_, chunk, sizeof chunk, offset_);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    offset_ += n;
    budget -= n;
    Consume(std::string_view(chunk, static_cast<std::size_t>(n)));
  }
  return true;
}

// Splits `bytes` into lines. A line longer than kMaxLineBytes is dropped
// whole: no OpenSM line the daemon acts on is that long, and the partial
// line must not grow without bound.
void OpenSmLogWatcher::Consume(std::string_view bytes) {
  while (!bytes.empty() && running_) {
    const std::size_t newline = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, newline);
    if (!discarding_) {
      if (partial_.size() + piece.size() > kMaxLineBytes) {
        partial_.clear();
        discarding_ = true;
      } else {
        partial_.append(piece);
      }
    }
    if (newline == std::string_view::npos) return;
    if (!discarding_) Deliver(partial_);
    partial_.clear();
    discarding_ = false;
    bytes.remove_prefix(newline + 1);
  }
}

void OpenSmLogWatcher::Deliver(std::string_view line) {
  std::optional<Kind> kind = ClassifyOpenSmLogLine(line);
  if (!kind) return;
  if (*kind == Kind::kSubnetUp) ++subnet_up_count_;
  // OpenSM quotes what the fabric says (NodeDescriptions) in its log: the
  // line goes on as printable text, the way every fabric string does.
  if (on_event_)
    on_event_(OpenSmLogEvent{*kind, PrintableText(line, kMaxLineBytes), std::chrono::steady_clock::now()});
}

}  // namespace smsupd
