#include "tests/daemon/faults/raw_request.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace smsupd::testbed::faults {

std::string RawRequestAs(uid_t uid, gid_t gid, const std::vector<gid_t>& groups,
                         const std::string& socket_path, const std::string& line) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return "pipe failed";
  pid_t child = ::fork();
  if (child < 0) return "fork failed";
  if (child == 0) {
    ::close(out[0]);
    std::string reply;
    if (::setgroups(groups.size(), groups.data()) != 0 || ::setresgid(gid, gid, gid) != 0 ||
        ::setresuid(uid, uid, uid) != 0) {
      reply = "credentials: " + std::string(std::strerror(errno));
    } else {
      int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_un address{};
      address.sun_family = AF_UNIX;
      std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        reply = "connect: " + std::string(std::strerror(errno));
      } else {
        const std::string request = line + "\n";
        if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
          while (reply.find('\n') == std::string::npos) {
            pollfd entry{fd, POLLIN, 0};
            char chunk[4096];
            ssize_t n = ::poll(&entry, 1, 10000) == 1 ? ::recv(fd, chunk, sizeof chunk, 0) : -1;
            if (n <= 0) break;
            reply.append(chunk, static_cast<std::size_t>(n));
          }
        }
      }
    }
    ssize_t ignored = ::write(out[1], reply.data(), reply.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(out[1]);
  std::string reply;
  char chunk[4096];
  for (ssize_t n; (n = ::read(out[0], chunk, sizeof chunk)) > 0;) reply.append(chunk, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return reply.substr(0, reply.find('\n'));
}

}  // namespace smsupd::testbed::faults
