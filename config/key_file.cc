#include "config/key_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>

#include "common/guid.h"

namespace smsupd::config {
namespace {

constexpr const char* kCreateIt = "create it with one 64-bit key, e.g. 0x1a2b3c4d5e6f7081, owned by root, mode 0600";

// Closes the descriptor on every return path.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string Mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

Result<std::uint64_t> Refuse(std::string what, std::string fix, std::string& fix_out) {
  fix_out = std::move(fix);
  return Error{std::move(what)};
}

// Empty when the opened file may hold a key; otherwise {what, fix}.
std::pair<std::string, std::string> FileProblem(const std::string& path, const struct stat& info) {
  const std::string quoted = "'" + path + "'";
  if (!S_ISREG(info.st_mode)) return {quoted + " is not a regular file", kCreateIt};
  if (info.st_uid != 0 && info.st_uid != ::geteuid())
    return {quoted + " is owned by uid " + std::to_string(info.st_uid) + ", not root",
            "chown root " + quoted};
  if ((info.st_mode & 077) != 0)
    return {quoted + " is readable or writable by group or others (mode " + Mode(info.st_mode) + ")",
            "chmod 600 " + quoted};
  if (info.st_size > kMaxKeyFileBytes)
    return {quoted + " is " + std::to_string(info.st_size) + " bytes, more than " +
                std::to_string(kMaxKeyFileBytes),
            kCreateIt};
  return {};
}

// Reads at most kMaxKeyFileBytes + 1 bytes: a file that grew after the
// fstat is refused, never read whole.
Result<std::string> ReadBounded(const std::string& path, int fd) {
  std::string text;
  char buffer[512];
  while (text.size() <= static_cast<std::size_t>(kMaxKeyFileBytes)) {
    ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return Error{"cannot read '" + path + "': " + std::strerror(errno)};
    if (got == 0) return text;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return Error{"'" + path + "' is more than " + std::to_string(kMaxKeyFileBytes) + " bytes"};
}

std::optional<std::uint64_t> ParseKey(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return ParseGuid(text);
}

}  // namespace

Result<std::uint64_t> ReadKeyFile(const std::string& path, std::string& fix) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (fd.get() < 0 && errno == ELOOP)
    return Refuse("'" + path + "' is a symbolic link", "name the key file itself", fix);
  if (fd.get() < 0)
    return Refuse("cannot open '" + path + "': " + std::strerror(errno), kCreateIt, fix);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0)
    return Refuse("cannot stat '" + path + "': " + std::strerror(errno), kCreateIt, fix);
  if (auto [what, how] = FileProblem(path, info); !what.empty()) return Refuse(what, how, fix);
  Result<std::string> text = ReadBounded(path, fd.get());
  if (!text.ok()) return Refuse(text.error().message, kCreateIt, fix);
  std::optional<std::uint64_t> key = ParseKey(*text);
  if (!key)
    return Refuse("'" + path + "' does not hold a 64-bit hex key",
                  "expected one line: 0x followed by 1 to 16 hex digits", fix);
  return *key;
}

void AssumeRunningKeys(const Config& running, Config& next) {
  SmSettings& sm = next.sm;
  sm.sm_key = sm.sm_key_file.empty() ? std::nullopt : running.sm.sm_key;
  sm.m_key = sm.m_key_file.empty() ? std::nullopt : running.sm.m_key;
  sm.sa_key = sm.sa_key_file.empty() ? std::nullopt : running.sm.sa_key;
}

}  // namespace smsupd::config
