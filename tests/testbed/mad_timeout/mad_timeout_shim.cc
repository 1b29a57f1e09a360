// libtestbed-trap-timeout.so: preloaded ahead of libumad2sim into every
// process on a simulated node. It gives a Trap the end it would have on real
// hardware.
//
// An SM sends Trap 144 (SubnTrap(Notice)) to the master when it enters
// STANDBY with a changed priority, and every time its priority rises while it
// is STANDBY (osm_sm.c osm_set_sm_priority). The trap expects a TrapRepress.
// ibsim drops every TrapRepress ("got trap repress - dropping", sim_mad.c),
// and umad2sim never times a MAD out, so the trap stays outstanding in OpenSM
// for ever. The kernel would complete it with ETIMEDOUT after its timeout.
// OpenSM's first heavy sweep as MASTER waits for every outstanding MAD
// (osm_state_mgr.c wait_for_pending_transactions), so without this shim an
// SM that ever raised its priority as a STANDBY never finishes a sweep once
// it becomes MASTER.
//
// What it does: a Trap write becomes two. A copy under another transaction
// ID goes to the master as before (it still learns of the change; its
// TrapRepress is dropped as before). The original is sent to a LID no switch
// routes, so ibsim hands it back with status ETIMEDOUT ("routing failed",
// process_packet), and OpenSM retires the trap as timed out (ERR 5411 and
// ERR 3113 in its log). A client cannot inject that status itself: its
// umad2sim socket accepts datagrams from ibsim only. Nothing else is touched.
#include <dlfcn.h>
#include <endian.h>
#include <infiniband/umad.h>
#include <sys/types.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

constexpr int kFirstUmadFd = 1024;  // umad2sim's file descriptors for umad devices
constexpr int kFirstIssmFd = 2048;
constexpr std::uint8_t kMethodTrap = 0x05;
constexpr std::uint8_t kClassSubnLid = 0x01;  // Trap 144 is LID-routed
constexpr size_t kMaxWrite = sizeof(ib_user_mad_t) + 256;

using WriteFn = ssize_t (*)(int, const void*, size_t);

WriteFn NextWrite() {
  static WriteFn next = reinterpret_cast<WriteFn>(dlsym(RTLD_NEXT, "write"));
  return next;
}

// No switch forwards to it: the top of the unicast range, never assigned on
// the test fabrics.
constexpr std::uint16_t kUnroutableLid = 0xbfff;
// Flipped in the copy's transaction ID, so its TrapRepress (dropped anyway)
// can never match the original.
constexpr std::uint32_t kCopyTidBit = 0x40000000;

void SetLowTid(char* mad, std::uint32_t value) {
  const std::uint32_t big_endian = htobe32(value);
  std::memcpy(mad + 12, &big_endian, sizeof big_endian);  // TransactionID bytes 8-15
}

std::uint32_t LowTid(const char* mad) {
  std::uint32_t big_endian = 0;
  std::memcpy(&big_endian, mad + 12, sizeof big_endian);
  return be32toh(big_endian);
}

}  // namespace

extern "C" ssize_t write(int fd, const void* buf, size_t count) {
  WriteFn next = NextWrite();
  if (next == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  if (fd < kFirstUmadFd || fd >= kFirstIssmFd || count < sizeof(ib_user_mad_t) + 24 || count > kMaxWrite)
    return next(fd, buf, count);
  const char* mad = static_cast<const char*>(buf) + sizeof(ib_user_mad_t);
  const auto mgmt_class = static_cast<std::uint8_t>(mad[1]);
  const auto method = static_cast<std::uint8_t>(mad[3]);
  if (method != kMethodTrap || mgmt_class != kClassSubnLid)
    return next(fd, buf, count);

  char copy[kMaxWrite];
  std::memcpy(copy, buf, count);
  char* copy_mad = copy + sizeof(ib_user_mad_t);
  SetLowTid(copy_mad, LowTid(mad) ^ kCopyTidBit);
  if (next(fd, copy, count) < 0) return next(fd, buf, count);

  std::memcpy(copy, buf, count);
  reinterpret_cast<ib_user_mad_t*>(copy)->addr.lid = htobe16(kUnroutableLid);
  return next(fd, copy, count);
}
