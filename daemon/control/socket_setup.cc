#include "daemon/control/socket_setup.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace smsupd::control {
namespace {

Error SystemError(const std::string& what, const std::string& path) {
  return Error{what + " " + path + ": " + std::strerror(errno)};
}

// True if a connect() to `path` succeeds, i.e. some process serves it.
bool SomeoneListens(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  bool connected = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  close(fd);
  return connected;
}

// See PrepareSocketDirectory.
Status CheckExistingDirectory(const std::string& directory, const struct stat& info,
                              std::optional<gid_t> group) {
  if (!S_ISDIR(info.st_mode)) return Error{"socket directory " + directory + " is not a directory"};
  if (info.st_uid != 0 && info.st_uid != geteuid())
    return Error{"socket directory " + directory + " is owned by uid " + std::to_string(info.st_uid) +
                 "; it must belong to root or smsupd's user"};
  const bool sticky = (info.st_mode & S_ISVTX) != 0;  // /tmp-like: others cannot remove our socket
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0 && !sticky)
    return Error{"socket directory " + directory +
                 " is writable by others, who could replace the socket; make it 0750"};
  const bool private_dir = (info.st_mode & S_IRWXO) == 0;
  if (!group || !private_dir || geteuid() != 0) return Status::Ok();
  if (info.st_gid == *group && (info.st_mode & S_IXGRP) != 0) return Status::Ok();
  if (chown(directory.c_str(), info.st_uid, *group) != 0)
    return SystemError("cannot give the control group access to", directory);
  if (chmod(directory.c_str(), (info.st_mode & 07777 & ~S_IWGRP) | S_IRGRP | S_IXGRP) != 0)
    return SystemError("cannot give the control group access to", directory);
  return Status::Ok();
}

}  // namespace

Status PrepareSocketDirectory(const std::string& socket_path, std::optional<gid_t> group) {
  std::string directory = std::filesystem::path(socket_path).parent_path().string();
  if (directory.empty()) return Status::Ok();
  struct stat info {};
  if (stat(directory.c_str(), &info) == 0) return CheckExistingDirectory(directory, info, group);
  if (errno != ENOENT) return SystemError("cannot inspect socket directory", directory);
  if (mkdir(directory.c_str(), 0750) != 0 && errno != EEXIST)
    return SystemError("cannot create socket directory", directory);
  if (chmod(directory.c_str(), 0750) != 0)  // mkdir's mode is filtered by the umask
    return SystemError("cannot set mode 0750 on", directory);
  if (geteuid() == 0 && chown(directory.c_str(), 0, group.value_or(0)) != 0)
    return SystemError("cannot set owner root and the control group on", directory);
  return Status::Ok();
}

Status RemoveStaleSocket(const std::string& socket_path) {
  struct stat info {};
  if (lstat(socket_path.c_str(), &info) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return SystemError("cannot inspect", socket_path);
  }
  if (!S_ISSOCK(info.st_mode))
    return Error{socket_path + " exists and is not a socket; refusing to replace it"};
  if (SomeoneListens(socket_path))
    return Error{"another process is serving " + socket_path + " (is smsupd already running?)"};
  if (unlink(socket_path.c_str()) != 0 && errno != ENOENT)
    return SystemError("cannot remove stale socket", socket_path);
  return Status::Ok();
}

Status SetSocketPermissions(const std::string& socket_path, std::optional<gid_t> group) {
  if (chmod(socket_path.c_str(), 0660) != 0) return SystemError("cannot set mode 0660 on", socket_path);
  if (geteuid() == 0 && chown(socket_path.c_str(), 0, group.value_or(0)) != 0)
    return SystemError("cannot set owner root and the control group on", socket_path);
  return Status::Ok();
}

}  // namespace smsupd::control
