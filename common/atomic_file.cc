#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace smsupd {
namespace {

Error ErrnoError(const std::string& what, const std::string& path) {
  return Error{what + " " + path + ": " + std::strerror(errno)};
}

std::string DirectoryOf(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Status WriteAll(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{std::strerror(errno)};
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

}  // namespace

Status WriteFileAtomically(const std::string& path, std::string_view content, mode_t mode) {
  std::string temp = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0) return ErrnoError("cannot create temporary file for", path);
  Status written = WriteAll(fd, content);
  if (written.ok() && ::fchmod(fd, mode) != 0) written = ErrnoError("cannot chmod", temp);
  if (written.ok() && ::fsync(fd) != 0) written = ErrnoError("cannot fsync", temp);
  ::close(fd);
  if (written.ok() && ::rename(temp.c_str(), path.c_str()) != 0)
    written = ErrnoError("cannot rename into", path);
  if (!written.ok()) {
    ::unlink(temp.c_str());
    return Error{"cannot write " + path + ": " + written.message()};
  }
  int dir = ::open(DirectoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return Status::Ok();
}

Result<std::string> ReadWholeFile(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrnoError("cannot read", path);
  std::string content;
  char chunk[64 * 1024];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got > max_bytes - content.size())
      return Error{path + " is larger than " + std::to_string(max_bytes) + " bytes"};
    content.append(chunk, got);
  }
  if (in.bad()) return ErrnoError("cannot read", path);
  return content;
}

}  // namespace smsupd
