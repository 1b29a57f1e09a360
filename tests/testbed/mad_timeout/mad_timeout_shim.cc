// libtestbed-mad-timeout.so: preloaded ahead of libumad2sim into every
// process on a simulated node. It gives every MAD request the end it would
// have on real hardware, where the kernel's MAD layer retries a request that
// got no response and finally completes it with ETIMEDOUT. umad2sim does
// neither, and ibsim answers nothing for a request it hands to a client that
// never replies, or for a TrapRepress (it drops every one: "got trap repress -
// dropping", sim_mad.c). Such a request stayed outstanding for ever, and
// OpenSM's heavy sweep waits for every outstanding MAD
// (osm_state_mgr.c wait_for_pending_transactions):
//
// - Trap 144: an SM sends it to the master when it enters STANDBY with a
//   changed priority and whenever its priority rises while STANDBY
//   (osm_sm.c osm_set_sm_priority). Without a TrapRepress, that SM never
//   finished a sweep once it became MASTER.
// - SubnGet(SMInfo) from the master to an SM that has just started: its
//   OpenSM has bound the SMI class but drops the request (seen as ERR 5401
//   "evicting entry ... mgmt class 0x81" when the stuck master exits). The
//   master never swept again: every later handover or P_Key change hung.
//
// What it does:
// - A Trap write becomes two: a copy under another transaction ID goes to
//   the master as before (it still learns of the change), and the original
//   is made unroutable at once, so ibsim hands it back with status
//   ETIMEDOUT ("routing failed", process_packet) and OpenSM retires it.
// - Every other request sent with a timeout (umad's timeout_ms) is
//   remembered until a response or an error with its transaction ID is
//   read. When its time is up it is sent again, as the kernel retries, up
//   to umad's retries; after the last try it is sent unroutable, so it
//   completes with ETIMEDOUT. The time of a try is the request's own
//   timeout_ms scaled by kSimulatorSlowness (at least kMinTryTime): a busy
//   simulator answers late, and a false timeout would fail a sweep that
//   real hardware completes. A client cannot inject the error status itself:
//   its umad2sim socket accepts datagrams from ibsim only.
//
// Unroutable: a LID-routed MAD goes to a LID no switch forwards; a
// directed-route SMP leaves through port 255 at its first hop. Nothing else
// is touched.
//
// A test's switch, the one fault it adds on purpose: in an OpenSM whose
// environment names a file in SMSUPD_TESTBED_HANG_SWEEP_FILE, the first
// SubnGet(NodeInfo) written while that file exists is never sent and never
// times out, and the file is removed (one request, in one process). That
// OpenSM's heavy sweep then waits for it for ever, as a sweep waited for
// the requests the simulator never answered: a MASTER that does not manage
// the fabric. A STANDBY sends no NodeInfo, so the file armed beside a quiet
// STANDBY catches the first sweep it makes as MASTER.
#include <dlfcn.h>
#include <errno.h>
#include <endian.h>
#include <infiniband/umad.h>
#include <pthread.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace {

constexpr int kFirstUmadFd = 1024;  // umad2sim's file descriptors for umad devices
constexpr int kFirstIssmFd = 2048;
constexpr std::uint8_t kMethodTrap = 0x05;
constexpr std::uint8_t kMethodTrapRepress = 0x07;
constexpr std::uint8_t kResponseBit = 0x80;
constexpr std::uint8_t kClassSubnLid = 0x01;
constexpr std::uint8_t kClassSubnDirected = 0x81;
constexpr size_t kMadBytes = 256;
constexpr size_t kMaxWrite = sizeof(ib_user_mad_t) + kMadBytes;
// No switch forwards to it: the top of the unicast range, never assigned on
// the test fabrics.
constexpr std::uint16_t kUnroutableLid = 0xbfff;
constexpr std::uint8_t kUnroutablePort = 255;
// Flipped in a Trap copy's transaction ID, so its TrapRepress (dropped
// anyway) can never match the original.
constexpr std::uint32_t kCopyTidBit = 0x40000000;
constexpr long kSimulatorSlowness = 5;
constexpr long kMinTryTimeMs = 1000;
constexpr size_t kMaxTracked = 16384;  // OpenSM keeps at most 1000 outstanding
constexpr long kScanIntervalMs = 20;
constexpr std::uint8_t kMethodGet = 0x01;
constexpr std::uint16_t kAttrNodeInfo = 0x0011;

using WriteFn = ssize_t (*)(int, const void*, size_t);
using ReadFn = ssize_t (*)(int, void*, size_t);

WriteFn NextWrite() {
  static WriteFn next = reinterpret_cast<WriteFn>(dlsym(RTLD_NEXT, "write"));
  return next;
}

ReadFn NextRead() {
  static ReadFn next = reinterpret_cast<ReadFn>(dlsym(RTLD_NEXT, "read"));
  return next;
}

std::uint32_t LowTid(const char* mad) {
  std::uint32_t big_endian = 0;
  std::memcpy(&big_endian, mad + 12, sizeof big_endian);  // TransactionID bytes 8-15
  return be32toh(big_endian);
}

void SetLowTid(char* mad, std::uint32_t value) {
  const std::uint32_t big_endian = htobe32(value);
  std::memcpy(mad + 12, &big_endian, sizeof big_endian);
}

long NowMs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

// Rewrites a request in `umad` (a copy) so that ibsim cannot route it.
void MakeUnroutable(char* umad) {
  char* mad = umad + sizeof(ib_user_mad_t);
  if (static_cast<std::uint8_t>(mad[1]) == kClassSubnDirected) {
    // Byte 7: HopCount; InitialPath at 128, its entry 1 is the first exit port.
    if (mad[7] == 0) mad[7] = 1;
    mad[128 + 1] = static_cast<char>(kUnroutablePort);
  } else {
    reinterpret_cast<ib_user_mad_t*>(umad)->addr.lid = htobe16(kUnroutableLid);
  }
}

// A request waiting for its response.
struct Pending {
  std::vector<char> umad;  // as written
  long deadline_ms = 0;
  long try_ms = 0;
  int retries_left = 0;
};

using Key = std::tuple<int, std::uint8_t, std::uint32_t>;  // fd, class, low TID

std::mutex mutex;
std::map<Key, Pending> pending;
pthread_once_t scanner_once = PTHREAD_ONCE_INIT;

Key KeyOf(int fd, const char* mad) {
  return {fd, static_cast<std::uint8_t>(mad[1]), LowTid(mad)};
}

void* ScanForTimeouts(void*) {
  for (;;) {
    timespec pause{0, kScanIntervalMs * 1000000};
    nanosleep(&pause, nullptr);
    std::vector<std::pair<int, std::vector<char>>> to_send;
    {
      std::lock_guard lock(mutex);
      const long now = NowMs();
      for (auto it = pending.begin(); it != pending.end();) {
        Pending& request = it->second;
        if (now < request.deadline_ms) {
          ++it;
          continue;
        }
        if (request.retries_left > 0) {
          --request.retries_left;
          request.deadline_ms = now + request.try_ms;
          to_send.emplace_back(std::get<0>(it->first), request.umad);
          ++it;
        } else {
          std::vector<char> last = request.umad;
          MakeUnroutable(last.data());
          to_send.emplace_back(std::get<0>(it->first), std::move(last));
          it = pending.erase(it);
        }
      }
    }
    for (const auto& [fd, umad] : to_send) NextWrite()(fd, umad.data(), umad.size());
  }
  return nullptr;
}

void StartScanner() {
  pthread_t thread;
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_create(&thread, &attributes, ScanForTimeouts, nullptr);
  pthread_attr_destroy(&attributes);
}

void Remember(int fd, const void* buf, size_t count) {
  const auto* header = static_cast<const ib_user_mad_t*>(buf);
  if (header->timeout_ms == 0) return;  // no response expected
  const char* mad = static_cast<const char*>(buf) + sizeof(ib_user_mad_t);
  Pending request;
  request.umad.assign(static_cast<const char*>(buf), static_cast<const char*>(buf) + count);
  request.try_ms = static_cast<long>(header->timeout_ms) * kSimulatorSlowness;
  if (request.try_ms < kMinTryTimeMs) request.try_ms = kMinTryTimeMs;
  request.deadline_ms = NowMs() + request.try_ms;
  request.retries_left = static_cast<int>(header->retries);
  pthread_once(&scanner_once, StartScanner);
  std::lock_guard lock(mutex);
  if (pending.size() >= kMaxTracked) return;  // never grows without bound
  pending[KeyOf(fd, mad)] = std::move(request);
}

bool IsUmadFd(int fd) { return fd >= kFirstUmadFd && fd < kFirstIssmFd; }

// The test's switch (see the top of this file): true for the one request
// to swallow. Only OpenSM is affected; smsupd and the probe run with the
// same environment.
bool SwallowForTest(const char* mad) {
  static const char* const file = std::getenv("SMSUPD_TESTBED_HANG_SWEEP_FILE");
  static const bool opensm = std::strcmp(program_invocation_short_name, "opensm") == 0;
  if (file == nullptr || !opensm || static_cast<std::uint8_t>(mad[3]) != kMethodGet) return false;
  std::uint16_t attribute = 0;
  std::memcpy(&attribute, mad + 16, sizeof attribute);
  if (be16toh(attribute) != kAttrNodeInfo) return false;
  const int saved = errno;
  const bool armed = ::unlink(file) == 0;  // one request, whoever sends it first
  errno = saved;
  return armed;
}

}  // namespace

extern "C" ssize_t write(int fd, const void* buf, size_t count) {
  WriteFn next = NextWrite();
  if (next == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  if (!IsUmadFd(fd) || count < sizeof(ib_user_mad_t) + 24 || count > kMaxWrite)
    return next(fd, buf, count);
  const char* mad = static_cast<const char*>(buf) + sizeof(ib_user_mad_t);
  const auto mgmt_class = static_cast<std::uint8_t>(mad[1]);
  const auto method = static_cast<std::uint8_t>(mad[3]);
  if ((method & kResponseBit) != 0 || method == kMethodTrapRepress) return next(fd, buf, count);
  if (method != kMethodTrap || mgmt_class != kClassSubnLid) {
    if (SwallowForTest(mad)) return static_cast<ssize_t>(count);  // "sent"; never answered
    Remember(fd, buf, count);
    return next(fd, buf, count);
  }
  char copy[kMaxWrite];
  std::memcpy(copy, buf, count);
  char* copy_mad = copy + sizeof(ib_user_mad_t);
  SetLowTid(copy_mad, LowTid(mad) ^ kCopyTidBit);
  if (next(fd, copy, count) < 0) return next(fd, buf, count);
  std::memcpy(copy, buf, count);
  MakeUnroutable(copy);
  return next(fd, copy, count);
}

// A response, or a request handed back with an error status (the timeout
// above, or ibsim's own "no one to handle"), ends the wait for its request.
extern "C" ssize_t read(int fd, void* buf, size_t count) {
  ReadFn next = NextRead();
  if (next == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  ssize_t n = next(fd, buf, count);
  if (!IsUmadFd(fd) || n < static_cast<ssize_t>(sizeof(ib_user_mad_t) + 24)) return n;
  const auto* header = static_cast<const ib_user_mad_t*>(buf);
  const char* mad = static_cast<const char*>(buf) + sizeof(ib_user_mad_t);
  const auto method = static_cast<std::uint8_t>(mad[3]);
  if ((method & kResponseBit) == 0 && header->status == 0) return n;  // an incoming request
  std::lock_guard lock(mutex);
  if (!pending.empty()) pending.erase(KeyOf(fd, mad));
  return n;
}
