// testbed-reaper SOCKET_NAME: waits until its stdin reaches end-of-file, then
// SIGKILLs every process whose environment holds IBSIM_SOCKNAME=SOCKET_NAME.
//
// SimulatedFabric starts one per fabric and keeps the only writer of its
// stdin. The pipe closes when the fabric is torn down, and also when the test
// process dies without any teardown (ctest's timeout, SIGKILL, a crash). That
// is what catches the OpenSM an smsupd started: it runs in its own process
// group and outlives smsupd on purpose (smsupd adopts it on restart), so
// neither the process-group kill nor PR_SET_PDEATHSIG reaches it.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

namespace {

void WaitForEndOfInput() {
  char buffer[256];
  for (;;) {
    ssize_t n = read(0, buffer, sizeof buffer);
    if (n == 0) return;
    if (n < 0 && errno != EINTR) return;
  }
}

bool EnvironmentHolds(const std::string& pid, const std::string& entry) {
  // istream::read, not an istreambuf_iterator: a process that exits while
  // it is read (ESRCH) ends the read instead of throwing.
  std::ifstream in("/proc/" + pid + "/environ", std::ios::binary);
  std::string text;
  char chunk[4096];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) text.append(chunk, static_cast<size_t>(in.gcount()));
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    if (text.compare(start, end - start, entry) == 0) return true;
    start = end + 1;
  }
  return false;
}

int KillFabricProcesses(const std::string& entry) {
  int killed = 0;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return 0;
  while (dirent* d = readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(d->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == getpid()) continue;
    if (EnvironmentHolds(d->d_name, entry) && kill(static_cast<pid_t>(pid), SIGKILL) == 0) ++killed;
  }
  closedir(proc);
  return killed;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || argv[1][0] == '\0') {
    std::cerr << "usage: testbed-reaper SOCKET_NAME (reads stdin until end-of-file)\n";
    return 2;
  }
  // Only end-of-file ends the wait: a terminal hang-up or an interrupt meant
  // for the test must not let the fabric's processes escape.
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  WaitForEndOfInput();
  const std::string entry = std::string("IBSIM_SOCKNAME=") + argv[1];
  // A process may fork while we scan: sweep until one pass finds nothing.
  int total = 0;
  for (int pass = 0; pass < 5; ++pass) {
    int killed = KillFabricProcesses(entry);
    if (killed == 0) break;
    total += killed;
  }
  if (total > 0) std::cerr << "testbed-reaper: killed " << total << " leftover process(es) of " << argv[1] << "\n";
  return 0;
}
