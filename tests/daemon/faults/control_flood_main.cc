// control-flood: keeps a control socket under a flood of hostile clients,
// for the flood test and docs/reliability.md. One worker process per uid
// (setresuid, with the control group as its only group, so every
// connection passes the socket's permissions and is subject to the per-uid
// cap) keeps PER_UID connections busy, each cycling through one of:
//
//   half      a request line that never ends (the idle timeout closes it)
//   garbage   a line that is not JSON, again after every reply
//   oversized a 100 KiB line (over the 64 KiB limit); 3 slots per worker
//   upload    a plan request carrying 4 MiB of config text that never ends
//   pipeline  64 status requests at once, replies left unread for 2 s
//
// and reconnects 20 ms after the daemon closes or refuses a connection. With
// MODE `validate` every connection instead asks `validate` again the moment
// each answer arrives (back-to-back requests, all well formed). Runs until
// SIGTERM, then prints one JSON line with the totals.
//
//   control-flood SOCKET GID FIRST_UID UIDS PER_UID [validate]
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_stop = 0;

enum class Kind { kHalf, kGarbage, kOversized, kUpload, kPipeline, kValidate };
// Every slot but the first kOversizedSlots of a worker stays connected
// (the idle timeout closes a half-sent line every 5 s: it reconnects at
// once); those few reconnect after every refusal of a 100 KiB line.
constexpr int kOversizedSlots = 3;
constexpr Kind kKinds[] = {Kind::kHalf, Kind::kGarbage, Kind::kGarbage, Kind::kHalf,
                           Kind::kGarbage, Kind::kPipeline, Kind::kHalf, Kind::kGarbage};
// Uploads are few: each holds up to 4 MiB of the daemon's shared budget.
constexpr int kUploadEvery = 40;

struct Totals {
  long connects = 0;        // connections accepted by the socket
  long connect_errors = 0;  // connect() failed (backlog full, ...)
  long busy = 0;            // refused by the daemon's caps ("busy")
  long replies = 0;         // reply lines read
  long closed = 0;          // connections the daemon closed
  long bytes_sent = 0;
};

struct Slot {
  Kind kind = Kind::kHalf;
  int fd = -1;
  std::string out;            // bytes still to send
  std::string in;             // the partial reply line
  int rounds = 0;             // requests answered on this connection
  Clock::time_point retry{};  // next connect not before
  Clock::time_point quiet_until{};  // pipeline: do not read before
};

std::string Payload(Kind kind) {
  switch (kind) {
    case Kind::kHalf: return R"({"version":1,"command":"stat)";
    case Kind::kGarbage: return "this is not json\n";
    case Kind::kOversized: return std::string(100 * 1024, 'x') + "\n";
    case Kind::kUpload:
      return R"({"version":1,"command":"plan","arguments":{"yaml":")" + std::string(4 * 1024 * 1024, 'a');
    case Kind::kValidate: return R"({"version":1,"command":"validate"})" "\n";
    case Kind::kPipeline: {
      std::string lines;
      for (int i = 0; i < 64; ++i) lines += R"({"version":1,"command":"status"})" "\n";
      return lines;
    }
  }
  return "";
}

void CloseSlot(Slot& slot, Totals& totals, bool by_server) {
  if (slot.fd >= 0) ::close(slot.fd);
  slot.fd = -1;
  slot.out.clear();
  slot.in.clear();
  slot.rounds = 0;
  totals.closed += by_server;
  slot.retry = Clock::now() + std::chrono::milliseconds(20);
}

void Connect(const std::string& path, Slot& slot, Totals& totals) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    if (fd >= 0) ::close(fd);
    ++totals.connect_errors;
    slot.retry = Clock::now() + std::chrono::milliseconds(50);
    return;
  }
  ++totals.connects;
  slot.fd = fd;
  slot.out = Payload(slot.kind);
  if (slot.kind == Kind::kPipeline) slot.quiet_until = Clock::now() + std::chrono::seconds(2);
}

void Send(Slot& slot, Totals& totals) {
  ssize_t n = ::send(slot.fd, slot.out.data(), slot.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n > 0) {
    slot.out.erase(0, static_cast<std::size_t>(n));
    totals.bytes_sent += n;
  } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
    CloseSlot(slot, totals, true);
  }
}

void Receive(Slot& slot, Totals& totals) {
  char buffer[65536];
  ssize_t n = ::recv(slot.fd, buffer, sizeof buffer, MSG_DONTWAIT);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) return CloseSlot(slot, totals, true);
  if (n < 0) return;
  slot.in.append(buffer, static_cast<std::size_t>(n));
  for (std::size_t end; (end = slot.in.find('\n')) != std::string::npos; slot.in.erase(0, end + 1)) {
    ++totals.replies;
    if (slot.in.find("busy: ") < end) ++totals.busy;
    ++slot.rounds;
    // A garbage or validate client asks again at once.
    if ((slot.kind == Kind::kGarbage || slot.kind == Kind::kValidate) && slot.out.empty())
      slot.out = Payload(slot.kind);
  }
  // A pipelining client sends its next 64 once it has read all 64 replies.
  if (slot.kind == Kind::kPipeline && slot.rounds >= 64) {
    slot.rounds = 0;
    slot.out = Payload(Kind::kPipeline);
    slot.quiet_until = Clock::now() + std::chrono::seconds(2);
  }
}

Totals RunWorker(const std::string& path, int connections, int offset, bool validate) {
  std::vector<Slot> slots(static_cast<std::size_t>(connections));
  for (std::size_t i = 0; validate && i < slots.size(); ++i) slots[i].kind = Kind::kValidate;
  for (std::size_t i = 0; !validate && i < slots.size(); ++i) {
    int n = static_cast<int>(i) + offset;
    slots[i].kind = static_cast<int>(i) < kOversizedSlots    ? Kind::kOversized
                    : n % kUploadEvery == kUploadEvery - 1 ? Kind::kUpload
                                                           : kKinds[static_cast<std::size_t>(n) % std::size(kKinds)];
  }
  Totals totals;
  std::vector<pollfd> polled;
  std::vector<Slot*> owners;
  while (!g_stop) {
    const auto now = Clock::now();
    polled.clear();
    owners.clear();
    for (Slot& slot : slots) {
      if (slot.fd < 0 && now >= slot.retry) Connect(path, slot, totals);
      if (slot.fd < 0) continue;
      short events = slot.out.empty() ? 0 : POLLOUT;
      if (slot.kind != Kind::kPipeline || now >= slot.quiet_until) events |= POLLIN;
      polled.push_back({slot.fd, events, 0});
      owners.push_back(&slot);
    }
    if (::poll(polled.data(), polled.size(), 20) < 0 && errno != EINTR) break;
    for (std::size_t i = 0; i < polled.size(); ++i) {
      Slot& slot = *owners[i];
      if (slot.fd != polled[i].fd) continue;
      if (polled[i].revents & POLLOUT) Send(slot, totals);
      if (slot.fd >= 0 && (polled[i].revents & (POLLIN | POLLHUP | POLLERR))) Receive(slot, totals);
    }
  }
  for (Slot& slot : slots)
    if (slot.fd >= 0) ::close(slot.fd);
  return totals;
}

void OnStop(int) { g_stop = 1; }

std::string Json(const Totals& t) {
  char line[512];
  std::snprintf(line, sizeof line,
                R"({"connects":%ld,"connect_errors":%ld,"busy":%ld,"replies":%ld,"closed":%ld,"bytes_sent":%ld})",
                t.connects, t.connect_errors, t.busy, t.replies, t.closed, t.bytes_sent);
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6 && !(argc == 7 && std::string(argv[6]) == "validate")) {
    std::fprintf(stderr, "usage: %s SOCKET GID FIRST_UID UIDS PER_UID [validate]\n", argv[0]);
    return 2;
  }
  const bool validate = argc == 7;
  const std::string path = argv[1];
  const gid_t gid = static_cast<gid_t>(std::atol(argv[2]));
  const uid_t first_uid = static_cast<uid_t>(std::atol(argv[3]));
  const int uids = std::atoi(argv[4]);
  const int per_uid = std::atoi(argv[5]);
  struct sigaction stop {};
  stop.sa_handler = OnStop;
  ::sigaction(SIGTERM, &stop, nullptr);
  ::sigaction(SIGINT, &stop, nullptr);

  std::vector<pid_t> workers;
  std::vector<int> results;
  for (int w = 0; w < uids; ++w) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) return 1;
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(pipe_fds[0]);
      const uid_t uid = first_uid + static_cast<uid_t>(w);
      if (::setgroups(1, &gid) != 0 || ::setresgid(gid, gid, gid) != 0 || ::setresuid(uid, uid, uid) != 0) {
        std::perror("control-flood: cannot switch user");
        ::_exit(3);
      }
      std::string line = Json(RunWorker(path, per_uid, w, validate)) + "\n";
      (void)!::write(pipe_fds[1], line.data(), line.size());
      ::_exit(0);
    }
    ::close(pipe_fds[1]);
    workers.push_back(pid);
    results.push_back(pipe_fds[0]);
  }
  while (!g_stop) ::pause();
  for (pid_t pid : workers) ::kill(pid, SIGTERM);
  Totals sum;
  for (std::size_t w = 0; w < workers.size(); ++w) {
    ::waitpid(workers[w], nullptr, 0);
    char buffer[512] = {};
    ssize_t n = ::read(results[w], buffer, sizeof buffer - 1);
    Totals t;
    if (n > 0 && std::sscanf(buffer, R"({"connects":%ld,"connect_errors":%ld,"busy":%ld,"replies":%ld,"closed":%ld,"bytes_sent":%ld})",
                             &t.connects, &t.connect_errors, &t.busy, &t.replies, &t.closed, &t.bytes_sent) == 6) {
      sum.connects += t.connects;
      sum.connect_errors += t.connect_errors;
      sum.busy += t.busy;
      sum.replies += t.replies;
      sum.closed += t.closed;
      sum.bytes_sent += t.bytes_sent;
    }
  }
  std::printf("%s\n", Json(sum).c_str());
  return 0;
}
